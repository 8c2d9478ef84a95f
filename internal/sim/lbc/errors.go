package lbc

// errors.go: ErrInvalidOptions and OptionsError.

import (
	"errors"
	"fmt"
)

var (
	// ErrInvalidOptions: an option of [New] is missing or out of range.
	ErrInvalidOptions = errors.New("invalid options")
	// ErrBackendNotFound: the Service or the Service port a
	// TargetGroupBinding names does not exist. The controller then cleans
	// up the target group and emits a BackendNotFound event.
	ErrBackendNotFound = errors.New("backend not found")
)

// OptionsError names the option at fault. It unwraps to [ErrInvalidOptions].
type OptionsError struct {
	// Field is the option, for example "Client".
	Field string
	// Reason says what is wrong with it.
	Reason string
}

// Error implements error.
func (e *OptionsError) Error() string {
	return fmt.Sprintf("lbc: new: %s: %s", e.Field, e.Reason)
}

// Unwrap returns [ErrInvalidOptions].
func (e *OptionsError) Unwrap() error { return ErrInvalidOptions }
