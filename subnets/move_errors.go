package subnets

// move_errors.go: the move's sentinels and error types: ErrNotReady and
// *NotReadyError, *StaleReadinessError, *MoveInputError, *DriftedObjectError,
// *InvariantError, *VerifyError, *JournalConflictError,
// *PlanMismatchError, *CorruptJournalError and *NotManagedError.

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/textcell"
)

// Categories of failure of PlanMove, Execute and Rollback. Every error they
// return unwraps to at most one of them; test with errors.Is.
var (
	// ErrNotReady: the Readiness given to PlanMove has a blocking finding.
	// Nothing was planned.
	ErrNotReady = errors.New("cluster is not ready for the move")
	// ErrStaleReadiness: the Readiness is older than the plan's MaxAge.
	// Check again.
	ErrStaleReadiness = errors.New("readiness report is stale")
	// ErrMoveInput: an argument or option of PlanMove, Execute or Rollback
	// is missing or malformed. Nothing was changed.
	ErrMoveInput = errors.New("invalid move input")
	// ErrDrifted: an object the plan writes is no longer as planned
	// (someone else changed its fields). It was not written.
	ErrDrifted = errors.New("object changed since the plan")
	// ErrInvariant: an invariant between waves failed (a target group
	// below its floor, a target in a zone its load balancers do not
	// enable). The move holds; the journal says where.
	ErrInvariant = errors.New("move invariant violated")
	// ErrVerify: after the replacement, a node still has a public address
	// or an address outside the private subnets.
	ErrVerify = errors.New("nodes are not all private")
	// ErrWatchTimeout: the replacement did not finish before the watch's
	// deadline (WithTimeout).
	ErrWatchTimeout = errors.New("replacement did not finish in time")
	// ErrJournalConflict: someone else wrote the move's journal since this
	// process last read it. Nothing was overwritten.
	ErrJournalConflict = errors.New("journal conflict")
	// ErrPlanMismatch: the journal belongs to another plan. It is never
	// applied.
	ErrPlanMismatch = errors.New("journal belongs to another plan")
	// ErrCorruptJournal: the stored state cannot be decoded, has an
	// unknown schemaVersion or unknown fields, or fails validation.
	ErrCorruptJournal = errors.New("corrupt journal")
	// ErrNotManaged: an object with the journal's name exists but tgmigrate
	// does not manage it, or it records another cluster's move.
	ErrNotManaged = errors.New("object not managed by tgmigrate")
	// ErrRolledBack: the plan was rolled back; Execute does not run it
	// again. Plan the move afresh.
	ErrRolledBack = errors.New("plan was rolled back")
)

// NotReadyError is PlanMove's refusal of a Readiness that is not Ready.
type NotReadyError struct {
	// Cluster is the report's cluster.
	Cluster string
	// Codes are the blocking findings' codes, sorted, each once.
	Codes []diagnose.Code
}

// Error implements error.
func (e *NotReadyError) Error() string {
	codes := make([]string, len(e.Codes))
	for i, c := range e.Codes {
		codes[i] = string(c)
	}
	what := "no blocking finding is recorded but Ready is false"
	if len(codes) > 0 {
		what = "blocked by " + strings.Join(codes, ", ")
	}
	return fmt.Sprintf("subnets: plan move of cluster %q: %v: %s", e.Cluster, ErrNotReady, what)
}

// Unwrap returns [ErrNotReady].
func (e *NotReadyError) Unwrap() error { return ErrNotReady }

// StaleReadinessError is PlanMove's refusal of an old Readiness.
type StaleReadinessError struct {
	// CheckedAt is when the checks ran; Age how old they are now; MaxAge
	// the most the plan accepts.
	CheckedAt   time.Time
	Age, MaxAge time.Duration
}

// Error implements error.
func (e *StaleReadinessError) Error() string {
	return fmt.Sprintf("subnets: plan move: %v: checked at %s, %v ago, more than %v: run CheckReadiness again",
		ErrStaleReadiness, e.CheckedAt.UTC().Format(time.RFC3339), e.Age, e.MaxAge)
}

// Unwrap returns [ErrStaleReadiness].
func (e *StaleReadinessError) Unwrap() error { return ErrStaleReadiness }

// MoveInputError names a missing or malformed argument or option of the
// move.
type MoveInputError struct {
	// Op is the operation: "plan move", "execute move", "rollback move", ...
	Op string
	// Field names the argument or option, for example "MoveBudget".
	Field string
	// Reason is one line saying what is wrong.
	Reason string
	// Err is the cause, if any.
	Err error
}

// Error implements error.
func (e *MoveInputError) Error() string {
	msg := fmt.Sprintf("subnets: %s: %v: %s: %s", e.Op, ErrMoveInput, e.Field, e.Reason)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns [ErrMoveInput] and the cause.
func (e *MoveInputError) Unwrap() []error { return []error{ErrMoveInput, e.Err} }

// DriftedObjectError says an object the plan writes is not as planned: its
// field is neither the value the plan read nor the value it writes.
type DriftedObjectError struct {
	// Kind and Name name the object (EC2NodeClass or NodePool).
	Kind, Name string
	// Field is the field that differs, for example "spec.subnetSelectorTerms".
	Field string
	// Want is the value planned (as read, or as written), Got the value
	// found, each rendered in one line.
	Want, Got string
	// Err is the underlying error: a Kubernetes 409 when the object changed
	// between this process's read and its write, a *karpenterapi.FieldError
	// when it could not be read.
	Err error
}

// Error implements error.
func (e *DriftedObjectError) Error() string {
	msg := fmt.Sprintf("subnets: %s %s: %v: %s is %s, the plan expects %s", e.Kind, e.Name, ErrDrifted, e.Field, e.Got, e.Want)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns [ErrDrifted] and the cause.
func (e *DriftedObjectError) Unwrap() []error { return []error{ErrDrifted, e.Err} }

// Violation is one failed invariant.
type Violation struct {
	// TargetGroup is the target group's ARN.
	TargetGroup string `json:"targetGroup"`
	// Kind is "floor" or "zone".
	Kind string `json:"kind"`
	// Detail says what was seen, for example "2 healthy, floor 3" or
	// "10.0.3.7:8080 unused (Target.NotInUse) in eu-west-1c".
	Detail string `json:"detail"`
}

// String renders the violation in one line.
func (v Violation) String() string { return v.Kind + " " + v.TargetGroup + ": " + v.Detail }

// InvariantError is the watch's hold: an invariant failed between waves.
// The move stopped; its journal records the step, the wave and the
// violations. Fix the cause and run Execute again to continue, or Rollback.
type InvariantError struct {
	// Step is the step that held; Wave the waves seen so far.
	Step string
	Wave int
	// At is when, on the injected clock.
	At time.Time
	// Violations are what failed.
	Violations []Violation
}

// Error implements error.
func (e *InvariantError) Error() string {
	parts := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		parts[i] = v.String()
	}
	return fmt.Sprintf("subnets: step %s held after wave %d: %v: %s", e.Step, e.Wave, ErrInvariant, strings.Join(parts, "; "))
}

// Unwrap returns [ErrInvariant].
func (e *InvariantError) Unwrap() error { return ErrInvariant }

// NodeProblem is one node that is not private.
type NodeProblem struct {
	// Node is the node's name; Reason what is wrong, for example
	// "ExternalIP 54.1.2.3" or "InternalIP 10.0.1.9 is in no private subnet".
	Node   string `json:"node"`
	Reason string `json:"reason"`
}

// VerifyError is the verify step's failure: nodes that are not private.
type VerifyError struct {
	// Nodes are the nodes at fault, by name.
	Nodes []NodeProblem
}

// Error implements error.
func (e *VerifyError) Error() string {
	parts := make([]string, len(e.Nodes))
	for i, n := range e.Nodes {
		parts[i] = n.Node + ": " + n.Reason
	}
	return fmt.Sprintf("subnets: verify: %v: %s", ErrVerify, strings.Join(parts, "; "))
}

// Unwrap returns [ErrVerify].
func (e *VerifyError) Unwrap() error { return ErrVerify }

// WatchTimeoutError is the watch's deadline passing with nodes still to
// replace.
type WatchTimeoutError struct {
	// Step is the watching step; Timeout its deadline; Remaining the nodes
	// still to leave, by name.
	Step      string
	Timeout   time.Duration
	Remaining []string
}

// Error implements error.
func (e *WatchTimeoutError) Error() string {
	return fmt.Sprintf("subnets: step %s: %v: after %v, %s still to replace: %s",
		e.Step, ErrWatchTimeout, e.Timeout, textcell.Plural(len(e.Remaining), "node", "nodes"), strings.Join(e.Remaining, ", "))
}

// Unwrap returns [ErrWatchTimeout].
func (e *WatchTimeoutError) Unwrap() error { return ErrWatchTimeout }

// JournalConflictError is a lost update of the journal: the stored version
// is not the one this process last saw. Nothing was overwritten.
type JournalConflictError struct {
	// Journal names it: "configmap NS/NAME".
	Journal string
	// Expected is the resourceVersion (or revision) last seen, "" when it
	// was expected absent; Actual what was found, when known.
	Expected, Actual string
	// Err is the underlying error (a Kubernetes 409), if any.
	Err error
}

// Error implements error.
func (e *JournalConflictError) Error() string {
	what := fmt.Sprintf("version %s is stale: someone else wrote it", e.Expected)
	switch {
	case e.Expected == "":
		what = "expected it absent, someone else created it"
	case e.Actual != "":
		what = fmt.Sprintf("expected version %s, found %s", e.Expected, e.Actual)
	}
	return fmt.Sprintf("subnets: journal %s: %v: %s", e.Journal, ErrJournalConflict, what)
}

// Unwrap returns [ErrJournalConflict] and the underlying error.
func (e *JournalConflictError) Unwrap() []error { return []error{ErrJournalConflict, e.Err} }

// PlanMismatchError says a journal was written for another plan.
type PlanMismatchError struct {
	// Journal names the journal; Want is the plan asked for, Got the one
	// the journal records.
	Journal   string
	Want, Got PlanRef
}

// Error implements error.
func (e *PlanMismatchError) Error() string {
	return fmt.Sprintf("subnets: journal %s: %v: it records plan %s (digest %s), not %s (digest %s): roll it back or delete it first",
		e.Journal, ErrPlanMismatch, e.Got.ID, e.Got.Digest, e.Want.ID, e.Want.Digest)
}

// Unwrap returns [ErrPlanMismatch].
func (e *PlanMismatchError) Unwrap() error { return ErrPlanMismatch }

// CorruptJournalError says the stored state is unusable.
type CorruptJournalError struct {
	// Journal names the journal; Reason says what is wrong.
	Journal, Reason string
	// Err is the decoding or validation error, if any.
	Err error
}

// Error implements error.
func (e *CorruptJournalError) Error() string {
	msg := fmt.Sprintf("subnets: journal %s: %v: %s", e.Journal, ErrCorruptJournal, e.Reason)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns [ErrCorruptJournal] and the cause.
func (e *CorruptJournalError) Unwrap() []error { return []error{ErrCorruptJournal, e.Err} }

// NotManagedError names an object that tgmigrate found with the journal's
// name but will not touch.
type NotManagedError struct {
	// Object is "configmap NS/NAME"; Reason says why it is not ours.
	Object, Reason string
}

// Error implements error.
func (e *NotManagedError) Error() string {
	return fmt.Sprintf("subnets: %s: %v: %s", e.Object, ErrNotManaged, e.Reason)
}

// Unwrap returns [ErrNotManaged].
func (e *NotManagedError) Unwrap() error { return ErrNotManaged }
