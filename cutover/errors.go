package cutover

// errors.go holds the package's sentinels, its error types (StepError,
// InvariantError, GuardError, QuotaError, ...) and the IsX helpers.

import (
	"errors"
	"fmt"
	"time"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover/journal"
)

// Categories of failure of the journal, the lock and the policy builder.
// Every error those return unwraps to at most one of them; test with
// errors.Is or the IsX helpers. Planning and execution add the categories
// below them.
var (
	// ErrNoJournal: the journal holds no state yet. A cutover starts afresh.
	ErrNoJournal = journal.ErrNoJournal
	// ErrConflict: someone else wrote the journal or the lease since this
	// process last read it (a lost update). Nothing was overwritten.
	ErrConflict = journal.ErrConflict
	// ErrLocked: another live holder has the target group's lease.
	ErrLocked = errors.New("locked")
	// ErrLostLock: this process no longer holds the lease it acquired (it
	// expired and another holder took it over, or it was deleted), or it
	// never held it.
	ErrLostLock = errors.New("lock lost")
	// ErrPlanMismatch: a journal belongs to another plan (another ID, or the
	// same ID with other content). It is never applied.
	ErrPlanMismatch = journal.ErrPlanMismatch
	// ErrCorruptJournal: the stored state cannot be decoded, has an unknown
	// schemaVersion, or fails validation. Nothing is resumed from it.
	ErrCorruptJournal = journal.ErrCorruptJournal
	// ErrNotManaged: an object with the name tgmigrate would use exists but
	// is not labelled app.kubernetes.io/managed-by: tgmigrate, or records
	// another target group. tgmigrate does not touch it.
	ErrNotManaged = journal.ErrNotManaged
	// ErrInvalidInput: an argument or option is missing or malformed.
	// Nothing was changed.
	ErrInvalidInput = journal.ErrInvalidInput
)

// ConflictError is a lost update: the stored version is not the one this
// process last saw, so the write was refused and nothing was overwritten.
type ConflictError = journal.ConflictError

// IsConflict reports whether err is a lost update ([ErrConflict]).
func IsConflict(err error) bool { return errors.Is(err, ErrConflict) }

// LockedError says another live holder has the lease.
type LockedError struct {
	// Lease is "NAMESPACE/NAME".
	Lease string
	// Holder is the identity of the current holder.
	Holder string
	// Expires is when the lease expires unless the holder renews it.
	Expires time.Time
}

// Error implements error.
func (e *LockedError) Error() string {
	return fmt.Sprintf("cutover: acquire lease %s: %v: held by %q until %s",
		e.Lease, ErrLocked, e.Holder, e.Expires.UTC().Format(time.RFC3339))
}

// Unwrap returns [ErrLocked].
func (e *LockedError) Unwrap() error { return ErrLocked }

// IsLocked reports whether err says another holder has the lease.
func IsLocked(err error) bool { return errors.Is(err, ErrLocked) }

// LostLockError says this process no longer holds the lease: stop mutating.
type LostLockError struct {
	// Op is "renew lease" or "release lease".
	Op string
	// Lease is "NAMESPACE/NAME".
	Lease string
	// Holder is this process's identity.
	Holder string
	// Current is the identity that holds the lease now; "" when the lease is
	// gone, released, or was never acquired by this lock.
	Current string
	// Reason says what happened, in a few words.
	Reason string
}

// Error implements error.
func (e *LostLockError) Error() string {
	return fmt.Sprintf("cutover: %s %s: %v by %q: %s", e.Op, e.Lease, ErrLostLock, e.Holder, e.Reason)
}

// Unwrap returns [ErrLostLock].
func (e *LostLockError) Unwrap() error { return ErrLostLock }

// IsLostLock reports whether err says the lease is no longer held.
func IsLostLock(err error) bool { return errors.Is(err, ErrLostLock) }

// PlanMismatchError says a journal was written for another plan.
type PlanMismatchError = journal.PlanMismatchError

// IsPlanMismatch reports whether err says a journal belongs to another plan.
func IsPlanMismatch(err error) bool { return errors.Is(err, ErrPlanMismatch) }

// IsNoJournal reports whether err says the journal holds no state yet.
func IsNoJournal(err error) bool { return errors.Is(err, ErrNoJournal) }

// CorruptJournalError says the stored state is unusable.
type CorruptJournalError = journal.CorruptJournalError

// IsCorruptJournal reports whether err says the stored state is unusable.
func IsCorruptJournal(err error) bool { return errors.Is(err, ErrCorruptJournal) }

// NotManagedError names an object that tgmigrate found but will not touch.
type NotManagedError = journal.NotManagedError

// IsNotManaged reports whether err names an object tgmigrate does not own.
func IsNotManaged(err error) bool { return errors.Is(err, ErrNotManaged) }

// InputError names a missing or malformed argument.
type InputError = journal.InputError

// IsInvalidInput reports whether err names a missing or malformed argument.
func IsInvalidInput(err error) bool { return errors.Is(err, ErrInvalidInput) }

// Categories of failure of planning, executing and rolling back. Every
// error those return unwraps to at most one of them (and, for AWS
// failures, to a tgmigrate sentinel such as tgmigrate.ErrThrottled).
var (
	// ErrGuard: a guard refused the target group (another owner, another
	// VPC, another account). Nothing was changed. Each guard has its own
	// sentinel too, and a named [Force] overrides it.
	ErrGuard = errors.New("guard refused the target group")
	// ErrForeignOwner: the target group's tags say another LBC stack or
	// another cluster owns it. [ForceForeignOwner] overrides.
	ErrForeignOwner = errors.New("target group is owned by another stack or cluster")
	// ErrVPCMismatch: the target group is in another VPC than the
	// cluster's. [ForceVPCMismatch] overrides.
	ErrVPCMismatch = errors.New("target group is in another vpc than the cluster")
	// ErrAccountMismatch: the target group is in another account or region
	// than the caller expects. [ForceAccountMismatch] overrides.
	ErrAccountMismatch = errors.New("target group is in another account or region than expected")
	// ErrStrategy: the strategy cannot apply to this target group (in-place
	// on an instance target group, a target type the LBC cannot bind, a
	// route blue/green cannot shift). Nothing was changed.
	ErrStrategy = errors.New("strategy does not apply")
	// ErrInvariant: a check before a destructive call failed (the healthy
	// targets would drop below the floor, or the set to remove is no longer
	// what the plan recorded). Execute stopped before the call.
	ErrInvariant = errors.New("invariant breached")
	// ErrTimeout: a wait (the health gate, the drain, a verification) ran
	// out of time on the injected clock.
	ErrTimeout = errors.New("timed out")
	// ErrController: the AWS Load Balancer Controller did not register the
	// binding's ready endpoints for the controller patience: it is not
	// running, or its reconciles fail. See [ControllerError].
	ErrController = errors.New("the load balancer controller is not registering the binding's endpoints")
	// ErrNotApproved: the approval callback refused the next phase.
	// Execute stopped between phases; the journal lets it resume.
	ErrNotApproved = errors.New("phase not approved")
	// ErrRolledBack: the plan was rolled back, or its rollback is under
	// way; make a new plan to try again. See [RolledBackError].
	ErrRolledBack = errors.New("plan was rolled back")
	// ErrNotStarted: Rollback was given a plan that never ran (its journal
	// holds nothing): there is nothing to roll back, and nothing was read
	// or changed beyond the journal. See [NotStartedError].
	ErrNotStarted = errors.New("plan never started")
	// ErrInterrupted: a hook (WithHook) stopped Execute or Rollback as a
	// crash would: no rollback ran, the journal and the lease were left as
	// they were.
	ErrInterrupted = errors.New("interrupted by hook")
	// ErrNonPodTargets: the verification found targets that are not the
	// Service's pod endpoints (node targets registered after the plan,
	// addresses nothing in the cluster holds). They were left in place;
	// Execute stopped at the verify step without rolling back. Remove
	// them, or run Execute again with [WithAllowNonPodTargets].
	ErrNonPodTargets = errors.New("target group holds targets that are not pod endpoints")
	// ErrPrecondition: Execute refused a plan whose [Precondition]s the
	// caller did not accept ([WithAcceptPreconditions]). Nothing was read
	// or changed.
	ErrPrecondition = errors.New("plan precondition not accepted")
)

// GuardError says which guard refused the target group and how to
// override it.
type GuardError struct {
	// Guard is the guard's ID: "owner", "vpc" or "account".
	Guard string
	// TargetGroupARN is the target group refused, typed, as every ARN
	// of the package's errors is.
	TargetGroupARN tgmigrate.ARN
	// Detail says what was found, in one line.
	Detail string
	// Force is the named option that overrides the guard.
	Force Force
	// Kind is [ErrForeignOwner], [ErrVPCMismatch] or [ErrAccountMismatch].
	Kind error
}

// Error implements error.
func (e *GuardError) Error() string {
	return fmt.Sprintf("cutover: guard %s: %s: %v: %s (override with %s)", e.Guard, e.TargetGroupARN, e.Kind, e.Detail, e.Force)
}

// Unwrap returns [ErrGuard] and the guard's own sentinel.
func (e *GuardError) Unwrap() []error { return []error{ErrGuard, e.Kind} }

// IsGuard reports whether a guard refused the target group.
func IsGuard(err error) bool { return errors.Is(err, ErrGuard) }

// StrategyError says why a strategy cannot apply.
type StrategyError struct {
	// Strategy is the strategy asked for or chosen.
	Strategy Strategy
	// TargetGroupARN is the target group, typed.
	TargetGroupARN tgmigrate.ARN
	// Reason says why, in one line, and what to do instead.
	Reason string
}

// Error implements error.
func (e *StrategyError) Error() string {
	return fmt.Sprintf("cutover: plan: %v: %s for %s: %s", ErrStrategy, e.Strategy, e.TargetGroupARN, e.Reason)
}

// Unwrap returns [ErrStrategy].
func (e *StrategyError) Unwrap() error { return ErrStrategy }

// IsStrategy reports whether a strategy cannot apply.
func IsStrategy(err error) bool { return errors.Is(err, ErrStrategy) }

// InvariantError is a check that failed just before a destructive call:
// the call was not made.
type InvariantError struct {
	// Step is the step that was about to act.
	Step string
	// Check names the check: "floor", "recorded-set", "pod-endpoint",
	// "lbc-tracked", "route", "analysis", "binding", or "health-check"
	// (node targets fail a health check aligned before the gate).
	Check string
	// Detail says what was found, with counts.
	Detail string
	// Healthy and Floor are the healthy targets the call would have left
	// and the floor, for the floor check.
	Healthy, Floor int
	// Targets are the targets at fault, for the set checks.
	Targets []TargetAddr
	// Err is the cause, for the analysis check (the caller's hook error).
	Err error
}

// Error implements error.
func (e *InvariantError) Error() string {
	msg := fmt.Sprintf("cutover: %s: %v: %s: %s", e.Step, ErrInvariant, e.Check, e.Detail)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns [ErrInvariant] and the cause.
func (e *InvariantError) Unwrap() []error { return []error{ErrInvariant, e.Err} }

// IsInvariant reports whether an invariant check stopped the cutover.
func IsInvariant(err error) bool { return errors.Is(err, ErrInvariant) }

// TimeoutError is a wait that ran out of time.
type TimeoutError struct {
	// Step is the step that waited.
	Step string
	// What says what it waited for.
	What string
	// Elapsed is the time waited, on the injected clock.
	Elapsed time.Duration
	// Last describes the last observation.
	Last string
}

// Error implements error.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("cutover: %s: %v after %v waiting for %s (last: %s)", e.Step, ErrTimeout, e.Elapsed, e.What, e.Last)
}

// Unwrap returns [ErrTimeout].
func (e *TimeoutError) Unwrap() error { return ErrTimeout }

// IsTimeout reports whether a wait ran out of time.
func IsTimeout(err error) bool { return errors.Is(err, ErrTimeout) }

// StepError is a step of a plan that failed.
type StepError struct {
	// Step is the step's ID.
	Step string
	// Err is the failure.
	Err error
	// Cancelled says Execute's context was done (cancelled, or its
	// deadline passed) when the step failed: the failure was not
	// journaled, no rollback ran, and [Classify] says resume. A step
	// that failed on a timeout of its own (an AWS call's, with the
	// context alive) is not Cancelled.
	Cancelled bool
}

// Error implements error.
func (e *StepError) Error() string { return fmt.Sprintf("cutover: step %s: %v", e.Step, e.Err) }

// Unwrap returns the failure.
func (e *StepError) Unwrap() error { return e.Err }

// IsNotApproved reports whether the approval callback refused a phase.
func IsNotApproved(err error) bool { return errors.Is(err, ErrNotApproved) }

// RolledBackError is Execute's refusal of a plan whose journal holds a
// rollback: finished, or under way (InProgress: run Rollback to finish
// it).
type RolledBackError struct {
	// PlanID is the plan.
	PlanID string
	// InProgress says the rollback has not finished.
	InProgress bool
}

// Error implements error.
func (e *RolledBackError) Error() string {
	what := "was rolled back"
	if e.InProgress {
		what = "has a rollback in progress: run Rollback to finish it"
	}
	return fmt.Sprintf("cutover: execute: plan %s %s: %v", e.PlanID, what, ErrRolledBack)
}

// Unwrap returns [ErrRolledBack].
func (e *RolledBackError) Unwrap() error { return ErrRolledBack }

// NotStartedError is Rollback's answer for a plan that never ran: no
// journal holds it, so there is nothing to undo and nothing was changed.
type NotStartedError struct {
	// PlanID is the plan.
	PlanID string
}

// Error implements error.
func (e *NotStartedError) Error() string {
	return fmt.Sprintf("cutover: rollback: plan %s: %v (no journal): nothing to roll back", e.PlanID, ErrNotStarted)
}

// Unwrap returns [ErrNotStarted].
func (e *NotStartedError) Unwrap() error { return ErrNotStarted }

// IsNotStarted reports whether Rollback found that the plan never ran.
func IsNotStarted(err error) bool { return errors.Is(err, ErrNotStarted) }

// IsRolledBack reports whether the plan was rolled back already.
func IsRolledBack(err error) bool { return errors.Is(err, ErrRolledBack) }

// IsInterrupted reports whether a hook stopped the run.
func IsInterrupted(err error) bool { return errors.Is(err, ErrInterrupted) }

// NonPodTarget is a target that is not a pod endpoint, as the verification
// classified it.
type NonPodTarget struct {
	TargetAddr
	// Class is diagnose's class: node, ghost or foreign (a pod of another
	// Service is pod).
	Class string `json:"class"`
	// State is its health.
	State string `json:"state"`
}

func nonPodString(ts []NonPodTarget) string {
	return joinFirst(ts, func(t NonPodTarget) string {
		return fmt.Sprintf("%s (%s, %s)", t.TargetAddr, orDash(t.Class), orDash(t.State))
	})
}

// NonPodTargetsError names the targets of a target group that are not pod
// endpoints when everything else of the verification held.
type NonPodTargetsError struct {
	// Step is the verifying step.
	Step string
	// TargetGroupARN is the target group verified (the plan's, or the
	// one blue/green created), typed.
	TargetGroupARN tgmigrate.ARN
	// Targets are the targets at fault.
	Targets []NonPodTarget
}

// Error implements error.
func (e *NonPodTargetsError) Error() string {
	return fmt.Sprintf("cutover: %s: %s: %v: %d of them: %s (they were left in place: remove them, or allow them with WithAllowNonPodTargets)",
		e.Step, e.TargetGroupARN, ErrNonPodTargets, len(e.Targets), nonPodString(e.Targets))
}

// Unwrap returns [ErrNonPodTargets].
func (e *NonPodTargetsError) Unwrap() error { return ErrNonPodTargets }

// IsNonPodTargets reports whether the verification found targets that are
// not pod endpoints.
func IsNonPodTargets(err error) bool { return errors.Is(err, ErrNonPodTargets) }
