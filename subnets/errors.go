package subnets

// errors.go: the readiness half's errors: ErrInvalidInput and InputError.
// The move half's errors are in move_errors.go.

import (
	"errors"
	"fmt"
)

// ErrInvalidInput is the category of an [*InputError]: the call made no
// call at all, to AWS or to the cluster.
var ErrInvalidInput = errors.New("invalid input")

// InputError says which part of a call's input is malformed. It is
// returned before any call is made.
type InputError struct {
	// Op is the function refused, for example "CheckReadiness".
	Op string
	// Field is the Go path of the culprit, for example "Input.VPCID".
	Field string
	// Reason is one line saying what is wrong.
	Reason string
}

// Error implements error.
func (e *InputError) Error() string {
	return fmt.Sprintf("subnets: %s: invalid input: %s %s", e.Op, e.Field, e.Reason)
}

// Unwrap returns [ErrInvalidInput].
func (e *InputError) Unwrap() error { return ErrInvalidInput }
