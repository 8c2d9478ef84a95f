package cutover

// disposition.go holds Classify, ShouldRollback and Disposition: what a
// caller does after Execute returned an error, the one list that
// Execute's automatic rollback ([WithAutoRollback]) consults too.

import "errors"

// Disposition is what a caller does after [Execute] returned an error:
// the class [Classify] puts the error in. The zero value is
// [DispositionNone].
type Disposition int

// The dispositions, in the order Classify tests them: the first that fits
// wins (a step that failed because the lease was lost is
// DispositionHandsOff, not DispositionRollback).
const (
	// DispositionNone: no error, nothing to decide.
	DispositionNone Disposition = iota
	// DispositionHandsOff: another process acts on the target group: its
	// lease is held by another live holder (*LockedError), this process
	// lost it (*LostLockError), or someone else wrote the journal
	// (*ConflictError). Neither resume nor roll back from here: find the
	// other holder, or wait for its lease to expire.
	DispositionHandsOff
	// DispositionResume: Execute stopped without a failed step: the
	// caller's context was cancelled or its deadline passed (a
	// *StepError with Cancelled, or an error outside a step), a hook
	// interrupted it (ErrInterrupted: as a crash would), the approval
	// refused a phase (ErrNotApproved), or it failed outside a step (a
	// journal or API-server error after a step ended). The journal holds
	// the progress: Execute again with the same plan (or [Resume]) goes on
	// where it stopped; Rollback if you give up instead.
	DispositionResume
	// DispositionFixTargets: the verification found targets that are not
	// the Service's pods' (*NonPodTargetsError). The pods serve; a
	// rollback would not remove those targets. Remove them and Execute
	// again, or Execute again with [WithAllowNonPodTargets].
	DispositionFixTargets
	// DispositionRollback: a step failed after the cutover began to change
	// the target group (a *StepError: a breached invariant, a timed-out
	// gate or drain, a controller that does not register the endpoints, a
	// denied binding, an AWS error that is not retried, an analysis that
	// rejects a weight), or the plan's journal holds a rollback that has
	// not finished (*RolledBackError with InProgress). Roll back: this is
	// what Execute does itself unless [WithAutoRollback](false).
	DispositionRollback
	// DispositionRefused: Execute refused before it changed anything in
	// this run: invalid input (*InputError), an unaccepted precondition
	// (*PreconditionError), a missing permission (*PermissionError), a
	// guard (*GuardError), a strategy that does not apply
	// (*StrategyError), a journal of another plan, corrupt or not
	// tgmigrate's (*PlanMismatchError, *CorruptJournalError,
	// *NotManagedError), a plan already rolled back (*RolledBackError).
	// Fix the cause; there is nothing of this run to roll back.
	DispositionRefused
)

// String returns the disposition's name, for example "rollback".
func (d Disposition) String() string {
	switch d {
	case DispositionNone:
		return "none"
	case DispositionHandsOff:
		return "hands-off"
	case DispositionResume:
		return "resume"
	case DispositionFixTargets:
		return "fix-targets"
	case DispositionRollback:
		return "rollback"
	case DispositionRefused:
		return "refused"
	}
	return "unknown"
}

// refusals are the categories of a refusal before any change. A step's
// failure that wraps one of them is still a step's failure.
var refusals = []error{ErrInvalidInput, ErrPrecondition, ErrPermission, ErrGuard, ErrStrategy,
	ErrPlanMismatch, ErrCorruptJournal, ErrNotManaged, ErrRolledBack, ErrQuota}

// Classify says what a caller does after Execute returned err (see
// [Disposition] for each class and the errors in it). It reads only the
// error: a step that failed because Execute's context ended says so
// (StepError.Cancelled), so a transport's timeout inside a step, with the
// context alive, still calls for a rollback, as it does in Execute.
// Errors of other functions (Rollback, PlanCutover) are classified as
// Execute's would be, which is rarely what their caller needs.
func Classify(err error) Disposition {
	if err == nil {
		return DispositionNone
	}
	if errors.Is(err, ErrLocked) || errors.Is(err, ErrLostLock) || errors.Is(err, ErrConflict) {
		return DispositionHandsOff
	}
	if errors.Is(err, ErrInterrupted) || errors.Is(err, ErrNotApproved) {
		return DispositionResume
	}
	if se, ok := errors.AsType[*StepError](err); ok && se.Cancelled {
		return DispositionResume
	}
	if errors.Is(err, ErrNonPodTargets) {
		return DispositionFixTargets
	}
	if rb, ok := errors.AsType[*RolledBackError](err); ok {
		if rb.InProgress {
			return DispositionRollback
		}
		return DispositionRefused
	}
	if _, ok := errors.AsType[*StepError](err); ok {
		return DispositionRollback
	}
	for _, c := range refusals {
		if errors.Is(err, c) {
			return DispositionRefused
		}
	}
	return DispositionResume
}

// ShouldRollback reports whether err, returned by Execute, calls for a
// Rollback: Classify(err) == DispositionRollback. A caller that runs
// Execute with WithAutoRollback(false) decides with it exactly as Execute
// would have.
func ShouldRollback(err error) bool { return Classify(err) == DispositionRollback }
