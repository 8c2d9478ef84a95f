package journal

// errors.go holds the journal's sentinels and error types. Package
// cutover re-exports each under the same name; its messages begin with
// "cutover: ", as they always have.

import (
	"errors"
	"fmt"
)

// Categories of failure of the journal (and of cutover's lock, which
// shares ErrConflict, ErrNotManaged and ErrInvalidInput). Every error the
// journal returns unwraps to at most one of them; test with errors.Is.
var (
	// ErrNoJournal: the journal holds no state yet. A cutover starts afresh.
	ErrNoJournal = errors.New("no journal")
	// ErrConflict: someone else wrote the journal or the lease since this
	// process last read it (a lost update). Nothing was overwritten.
	ErrConflict = errors.New("conflict")
	// ErrPlanMismatch: a journal belongs to another plan (another ID, or the
	// same ID with other content). It is never applied.
	ErrPlanMismatch = errors.New("journal belongs to another plan")
	// ErrCorruptJournal: the stored state cannot be decoded, has an unknown
	// schemaVersion, or fails validation. Nothing is resumed from it.
	ErrCorruptJournal = errors.New("corrupt journal")
	// ErrNotManaged: an object with the name tgmigrate would use exists but
	// is not labelled app.kubernetes.io/managed-by: tgmigrate, or records
	// another target group. tgmigrate does not touch it.
	ErrNotManaged = errors.New("object not managed by tgmigrate")
	// ErrInvalidInput: an argument or option is missing or malformed.
	// Nothing was changed.
	ErrInvalidInput = errors.New("invalid input")
)

// ConflictError is a lost update: the stored version is not the one this
// process last saw, so the write was refused and nothing was overwritten.
type ConflictError struct {
	// Op is the operation, for example "save journal" or "renew lease".
	Op string
	// Object names what was written: "configmap NS/NAME", "lease NS/NAME" or
	// "file PATH".
	Object string
	// Expected is the version this process last saw: a resourceVersion or a
	// journal revision; "" when it expected the object to be absent.
	Expected string
	// Actual is the version found: "" when unknown, "absent" when the
	// object is gone.
	Actual string
	// Reason, when set, replaces the default explanation built from
	// Expected and Actual.
	Reason string
	// Err is the underlying error (a Kubernetes 409), if any.
	Err error
}

// Error implements error.
func (e *ConflictError) Error() string {
	reason := e.Reason
	if reason == "" {
		switch {
		case e.Expected == "" && e.Actual != "":
			reason = "expected it absent, found version " + e.Actual
		case e.Expected == "":
			reason = "expected it absent, someone else created it"
		case e.Actual != "":
			reason = fmt.Sprintf("expected version %s, found %s", e.Expected, e.Actual)
		default:
			reason = fmt.Sprintf("version %s is stale: someone else wrote it", e.Expected)
		}
	}
	return fmt.Sprintf("cutover: %s: %s: %v: %s", e.Op, e.Object, ErrConflict, reason)
}

// Unwrap returns [ErrConflict] and the underlying error.
func (e *ConflictError) Unwrap() []error { return []error{ErrConflict, e.Err} }

// PlanMismatchError says a journal was written for another plan.
type PlanMismatchError struct {
	// Journal names the journal: "configmap NS/NAME" or "file PATH".
	Journal string
	// Want is the plan the caller asked for.
	Want PlanRef
	// Got is the plan the journal records.
	Got PlanRef
}

// Error implements error.
func (e *PlanMismatchError) Error() string {
	what := "plan id " + e.Got.ID
	if e.Want.ID == e.Got.ID {
		what = fmt.Sprintf("plan %s with digest %s (want %s)", e.Got.ID, e.Got.Digest, e.Want.Digest)
	} else {
		what += fmt.Sprintf(" (want %s)", e.Want.ID)
	}
	return fmt.Sprintf("cutover: journal %s: %v: it records %s", e.Journal, ErrPlanMismatch, what)
}

// Unwrap returns [ErrPlanMismatch].
func (e *PlanMismatchError) Unwrap() error { return ErrPlanMismatch }

// CorruptJournalError says the stored state is unusable.
type CorruptJournalError struct {
	// Journal names the journal: "configmap NS/NAME" or "file PATH".
	Journal string
	// Reason is one line naming what is wrong.
	Reason string
	// Err is the decoding or validation error, if any.
	Err error
}

// Error implements error.
func (e *CorruptJournalError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("cutover: journal %s: %v: %s: %v", e.Journal, ErrCorruptJournal, e.Reason, e.Err)
	}
	return fmt.Sprintf("cutover: journal %s: %v: %s", e.Journal, ErrCorruptJournal, e.Reason)
}

// Unwrap returns [ErrCorruptJournal] and the cause.
func (e *CorruptJournalError) Unwrap() []error { return []error{ErrCorruptJournal, e.Err} }

// NotManagedError names an object that tgmigrate found but will not touch.
type NotManagedError struct {
	// Object is "configmap NS/NAME" or "lease NS/NAME".
	Object string
	// Reason says why it is not ours.
	Reason string
}

// Error implements error.
func (e *NotManagedError) Error() string {
	return fmt.Sprintf("cutover: %s: %v: %s", e.Object, ErrNotManaged, e.Reason)
}

// Unwrap returns [ErrNotManaged].
func (e *NotManagedError) Unwrap() error { return ErrNotManaged }

// InputError names a missing or malformed argument.
type InputError struct {
	// Op is the operation, for example "new file journal" or "build policy".
	Op string
	// Field names the argument or option, for example "Namespace".
	Field string
	// Reason is one line saying what is wrong.
	Reason string
	// Err is the cause, if any (for example an *awserr.ARNError).
	Err error
}

// Error implements error.
func (e *InputError) Error() string {
	msg := fmt.Sprintf("cutover: %s: %v: %s: %s", e.Op, ErrInvalidInput, e.Field, e.Reason)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns [ErrInvalidInput] and the cause.
func (e *InputError) Unwrap() []error { return []error{ErrInvalidInput, e.Err} }
