package simopt

// errors.go: ErrInvalidOptions and OptionsError.

import (
	"errors"
	"fmt"
)

// ErrInvalidOptions is the category of every error the simulator's
// constructors and setup methods return for a bad option or argument: every
// [OptionsError] unwraps to it.
var ErrInvalidOptions = errors.New("invalid options")

// OptionsError names the option or argument at fault. It unwraps to
// [ErrInvalidOptions]. Its message reads "pkg: op: invalid options: field:
// reason", or "pkg: op: field: reason" with OmitCategory.
type OptionsError struct {
	// Pkg is the package that rejected it, the message's first word:
	// "elbv2sim", "ec2sim", "lbc".
	Pkg string
	// Op is the function that rejected it: "new", "new throttle", "inject".
	Op string
	// Field is the option or argument, for example "ThrottleProbability"
	// or "AccountID".
	Field string
	// Reason is one line saying what is wrong.
	Reason string
	// OmitCategory leaves ErrInvalidOptions out of the message (package
	// lbc's messages never named it); errors.Is finds it all the same.
	OmitCategory bool
}

// Error implements error.
func (e *OptionsError) Error() string {
	if e.OmitCategory {
		return fmt.Sprintf("%s: %s: %s: %s", e.Pkg, e.Op, e.Field, e.Reason)
	}
	return fmt.Sprintf("%s: %s: %v: %s: %s", e.Pkg, e.Op, ErrInvalidOptions, e.Field, e.Reason)
}

// Unwrap returns [ErrInvalidOptions].
func (e *OptionsError) Unwrap() error { return ErrInvalidOptions }
