package campaign

// errors.go: the package's sentinels, InputError (a malformed input,
// option or saved plan, refused before any call) and its IsX helper.

import (
	"errors"
	"fmt"
)

// ErrInvalidInput is the category of an [*InputError]: PlanCampaign made
// no call at all, or ParsePlan refused what it read.
var ErrInvalidInput = errors.New("invalid input")

// InputError names the input, option or saved field at fault.
type InputError struct {
	// Op is the operation that refused it: "plan" or "parse plan".
	Op string
	// Field is the Go path of the culprit, for example
	// "Input.Clusters[1].Reader" or "WithMaxPerWave".
	Field string
	// Reason is one line saying what is wrong.
	Reason string
	// Err is the cause, if any (diagnose's or cutover's own input error).
	Err error
}

// Error implements error: "campaign: plan: invalid input: FIELD: REASON".
func (e *InputError) Error() string {
	msg := fmt.Sprintf("campaign: %s: %v: %s: %s", e.Op, ErrInvalidInput, e.Field, e.Reason)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns [ErrInvalidInput] and the cause.
func (e *InputError) Unwrap() []error { return []error{ErrInvalidInput, e.Err} }

// IsInvalidInput reports whether err is (or wraps) an [*InputError].
func IsInvalidInput(err error) bool { return errors.Is(err, ErrInvalidInput) }
