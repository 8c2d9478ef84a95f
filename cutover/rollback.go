package cutover

// rollback.go holds Rollback, its RollbackResult and its lifecycle: the
// journal loaded, the lock taken, the strategy's rollback actions (its undo)
// run in order between the hold of Karpenter's disruption and its release,
// each journaled, and the plan's steps left rolled-back.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// The rollback actions, in the order they may run.
const (
	// RollbackHoldDisruption holds Karpenter's graceful disruption of the
	// nodes that serve (as [StepHoldDisruption] does) for the rollback's
	// run, unless the hold still stands from Execute.
	RollbackHoldDisruption = "hold-disruption"
	// RollbackAttachOld puts the old target group back into the forward
	// actions at weight 0 when blue/green detached it: a target group no
	// load balancer uses is never health checked.
	RollbackAttachOld = "attach-old"
	// RollbackRegisterNodes registers the nodes alive now on the NodePort.
	RollbackRegisterNodes = "register-nodes"
	// RollbackWaitNodes waits until they are healthy.
	RollbackWaitNodes = "wait-nodes"
	// RollbackRestoreRoutes puts the original forward actions back.
	RollbackRestoreRoutes = "restore-routes"
	// RollbackDeleteBinding deletes the binding; the LBC then deregisters
	// the pod targets it registered, and only those.
	RollbackDeleteBinding = "delete-binding"
	// RollbackDeleteTargetGroup deletes the target group blue/green
	// created, when its tags say tgmigrate did.
	RollbackDeleteTargetGroup = "delete-target-group"
	// RollbackRestoreHealthCheck puts the original health check back.
	RollbackRestoreHealthCheck = "restore-health-check"
	// RollbackRegisterRest registers the live nodes that did not fit
	// beside the pod targets under ELBv2's quotas, as the pod targets'
	// drain frees room (in-place, when the plan bounded the overlap).
	RollbackRegisterRest = "register-rest"
	// RollbackReleaseDisruption removes everything the journal says the
	// hold added, Execute's hold included.
	RollbackReleaseDisruption = "release-disruption"
)

// bindingGoneTimeout bounds the wait for the LBC to finish a binding's
// deletion (its finalizer).
const bindingGoneTimeout = 2 * time.Minute

// RollbackResult reports a [Rollback]. It is plain data.
type RollbackResult struct {
	// PlanID is the plan rolled back.
	PlanID string `json:"planID"`
	// Completed says every action is done; NothingToDo that the journal
	// showed nothing to undo (a finished rollback). A plan that never ran
	// gives no result but a *NotStartedError.
	Completed   bool `json:"completed"`
	NothingToDo bool `json:"nothingToDo,omitempty"`
	// Reason is why it ran.
	Reason string `json:"reason,omitempty"`
	// Actions has one entry per action this run reached.
	Actions []StepResult `json:"actions"`
	// Registered are the node targets it registered; Retired the
	// recorded or registered node targets it deregistered because their
	// node was leaving.
	Registered []TargetAddr `json:"registered,omitempty"`
	Retired    []TargetAddr `json:"retired,omitempty"`
	// StartedAt, FinishedAt and Seconds time it on the injected clock.
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt"`
	Seconds    float64   `json:"seconds"`
	// FloorSeconds is the least this rollback could take, under the plan's
	// assumptions: when it registered node targets, the registration delay
	// and the passing checks a new target needs at the target group's
	// interval (it waits for no drain: the node targets serve before
	// anything is removed, and the pod targets drain after the binding is
	// gone); zero when it registered none. Ratio is Seconds/FloorSeconds.
	FloorSeconds float64 `json:"floorSeconds"`
	Ratio        float64 `json:"ratio,omitempty"`
	// Held are the nodes this run annotated karpenter.sh/do-not-disrupt
	// (its hold, or the extension of Execute's), and Released the nodes
	// whose annotation it removed or put back.
	Held     []string `json:"held,omitempty"`
	Released []string `json:"released,omitempty"`
	// Calls and MutatingCalls count its ELBv2 calls.
	Calls         map[string]int `json:"calls"`
	MutatingCalls int            `json:"mutatingCalls"`
	// Warnings are things the operator should know.
	Warnings []string `json:"warnings,omitempty"`
}

// String returns the rollback as one line: the plan, how it ended, its
// time against its floor and its counts, for example "rollback of plan
// tgm-1a2b: completed in 95s (floor 60s); node targets registered: 4,
// mutating calls: 6". Warnings are not in it.
func (r *RollbackResult) String() string {
	if r == nil {
		return "no rollback result"
	}
	if r.NothingToDo {
		return fmt.Sprintf("rollback of plan %s: nothing to do (%s)", r.PlanID, r.Reason)
	}
	state := "completed"
	if !r.Completed {
		state = "not completed"
	}
	return fmt.Sprintf("rollback of plan %s: %s in %.0fs (floor %.0fs); node targets registered: %d, mutating calls: %d",
		r.PlanID, state, r.Seconds, r.FloorSeconds, len(r.Registered), r.MutatingCalls)
}

// Source is what [Rollback] starts from: a *[Plan], whose journal it
// loads, or a *[State], for example from [ConfigMapJournal.Inspect] when
// the plan is gone. Both have Ref; any other type is refused with an
// [*InputError] on the field "source".
type Source interface {
	// Ref names the plan the source belongs to.
	Ref() PlanRef
}

// Rollback returns the target group to a working pre-migration state, from
// any point of a cutover, including after it completed:
//
//  1. hold Karpenter's graceful disruption of the nodes that serve (unless
//     Execute's hold still stands, or the plan skips the hold);
//  2. (blue/green, when the old target group was detached) attach it again
//     at weight 0, so that its targets are health checked;
//  3. register, on the NodePort, the nodes that are alive NOW (Ready and
//     not leaving), not the recorded IPs: those nodes may be gone;
//  4. wait until they are healthy (at least the floor, or every live node),
//     retiring node targets whose node Karpenter is removing meanwhile
//     (and, without the hold, until Karpenter replaces no node);
//  5. (blue/green) put the original forward actions back: the weights go
//     back to the old target group before anything else is removed;
//  6. delete the binding: in multi-cluster mode the LBC deregisters only the
//     pod targets it registered;
//  7. (blue/green) delete the target group tgmigrate created, when its tags
//     say so;
//  8. restore the health check (first, before 3, when node targets fail
//     the aligned one);
//  9. release everything the journal says the hold added.
//
// Each action checks the world first and makes no call when there is
// nothing to do, so Rollback is idempotent; it is journaled (the state's
// Rollback record), so it resumes after a crash, and the plan's steps end
// rolled-back: Execute then refuses the plan. It takes the target group's
// lock like Execute. The result gives its time against its floor (the
// node targets' registration and checks under the plan's assumptions).
// A *Plan that never ran (no journal holds it) is a *[NotStartedError]
// ([IsNotStarted]), with no result: nothing was changed, and the caller
// learns that there was nothing to undo rather than a success.
// Options: WithJournal (required with a *State that did not come from the
// default ConfigMapJournal), WithLock, WithObserver, WithHook, WithRetry,
// WithPollInterval, WithBatchSize, WithGateTimeout, WithReason,
// WithPermissionCheck (the check of Env.Client's permissions runs before
// the journal is loaded, as Execute's: a *PermissionError names every
// missing rule).
func Rollback(ctx context.Context, env Env, src Source, opts ...Option) (*RollbackResult, error) {
	e, err := env.resolve("rollback")
	if err != nil {
		return nil, err
	}
	o := collect(opts)
	var r *runner
	var st *State
	var warnings []string // the permission check's, before the journal is loaded
	switch s := src.(type) {
	case *Plan:
		if _, err := s.validate("rollback"); err != nil {
			return nil, err
		}
		if r, err = newRunner(e, o, s, s.TargetGroup.ARN, s.Binding.Namespace); err != nil {
			return nil, err
		}
		if warnings, err = e.checkPermissions(ctx, "rollback", s.RBACInput(), o); err != nil {
			return nil, err
		}
		st, err = r.j.Load(ctx, s.Ref())
		if IsNoJournal(err) {
			return nil, &NotStartedError{PlanID: s.ID}
		}
	case *State:
		if s == nil {
			return nil, &InputError{Op: "rollback", Field: "state", Reason: "nil"}
		}
		if err := s.Validate(); err != nil {
			return nil, &InputError{Op: "rollback", Field: "state", Reason: err.Error()}
		}
		if s.Restore == nil || s.TargetGroupARN.IsZero() {
			return nil, &InputError{Op: "rollback", Field: "state", Reason: "it records no target group or no restore information: it was not written by Execute"}
		}
		if r, err = newRunner(e, o, nil, s.TargetGroupARN, s.Restore.Namespace); err != nil {
			return nil, err
		}
		if warnings, err = e.checkPermissions(ctx, "rollback", stateRBACInput(s), o); err != nil {
			return nil, err
		}
		// Load it through the journal, so that saves carry its version.
		st, err = r.j.Load(ctx, s.Plan)
		if IsNoJournal(err) {
			st, err = s.Clone(), nil
			st.Revision = 0
		}
	case nil:
		return nil, &InputError{Op: "rollback", Field: "source", Reason: "nil"}
	default:
		return nil, &InputError{Op: "rollback", Field: "source", Reason: fmt.Sprintf("a %T: Rollback starts from a *cutover.Plan or a *cutover.State", src)}
	}
	if err != nil {
		return nil, fmt.Errorf("cutover: rollback: %w", err)
	}
	if err := r.checkLeaseBudget("rollback"); err != nil {
		return nil, err
	}
	r.st = st
	r.withLogValues(st.Plan.ID)
	if st.RolledBack() {
		now := e.clock.Now()
		return &RollbackResult{PlanID: st.Plan.ID, Completed: true, NothingToDo: true, Reason: "already rolled back",
			StartedAt: now, FinishedAt: now, Calls: map[string]int{}}, nil
	}
	if err := r.lock.Acquire(ctx); err != nil {
		return nil, fmt.Errorf("cutover: rollback: %w", err)
	}
	r.held, r.renewedAt = true, e.clock.Now()
	r.startWatch(ctx)
	defer r.stopWatch()
	reason := o.reason
	if reason == "" {
		reason = "requested"
	}
	res, err := r.rollback(ctx, reason)
	if res != nil {
		res.Warnings = append(res.Warnings, warnings...)
	}
	if errors.Is(err, ErrInterrupted) {
		return res, err // a crash: the lease and the journal stay as they are
	}
	if rerr := r.lock.Release(context.WithoutCancel(ctx)); rerr != nil && !IsLostLock(rerr) {
		err = errors.Join(err, rerr)
	}
	return res, err
}

// rollbackActions lists the rollback actions of strategy s (see its undo).
// With holds, the hold of Karpenter's disruption comes first and its
// release last.
func rollbackActions(s strategy, ri *RestoreInfo, holds bool) []Step {
	acts := s.undo(ri)
	if !holds {
		return acts
	}
	return append(append([]Step{undoStep(RollbackHoldDisruption, "hold Karpenter's graceful disruption of the nodes that serve")}, acts...),
		undoStep(RollbackReleaseDisruption, "release what the hold added"))
}

// registerRestTitle is the title of RollbackRegisterRest.
const registerRestTitle = "register the live nodes that did not fit beside the pod targets"

// undoStep is a rollback action, as the observer and the result see it.
func undoStep(id, title string) Step { return Step{ID: id, Phase: "rollback", Title: title} }

// undoStrategy is the strategy whose undo a journal's rollback runs: the
// one it records; a journal of a strategy tgmigrate does not know is
// rolled back as in-place, the first of strategies.
func undoStrategy(st *State) strategy {
	if s := strategyOf(Strategy(st.Strategy)); s != nil {
		return s
	}
	return strategies[0]
}

// rollback runs the rollback actions with the lock held and r.st loaded.
func (r *runner) rollback(ctx context.Context, reason string) (*RollbackResult, error) {
	st := r.st
	before := r.counts.snapshot()
	res := &RollbackResult{PlanID: st.Plan.ID, Reason: reason, StartedAt: r.e.clock.Now()}
	heldBefore, releasedBefore := len(r.heldNow), len(r.releasedNow)
	done := func(err error) (*RollbackResult, error) {
		res.FinishedAt = r.e.clock.Now()
		res.Seconds = res.FinishedAt.Sub(res.StartedAt).Seconds()
		if len(res.Registered) > 0 {
			// Each phase that registered node targets waits for their
			// checks; register-rest, in-place, first for the pod targets
			// to drain (blue/green's new target group stops counting
			// when it is deleted): the waits EstimateRollback sums too.
			first, rest, drains := len(res.Registered) > r.restRegistered, r.restRegistered > 0, undoStrategy(st).restDrains()
			dereg := int32(-1)
			if rest && drains {
				dereg = r.restDereg
			}
			var floor int32
			for _, w := range rollbackWaits(r.nodeTiming(), dereg, first, rest, drains) {
				floor += w.Seconds
			}
			res.FloorSeconds = float64(floor)
			res.Ratio = res.Seconds / res.FloorSeconds
		}
		res.Held = slices.Clone(r.heldNow[heldBefore:])
		res.Released = slices.Clone(r.releasedNow[releasedBefore:])
		res.Calls = map[string]int{}
		for op, n := range r.counts.snapshot() {
			if d := n - before[op]; d > 0 {
				res.Calls[op] = d
			}
		}
		res.MutatingCalls = mutating(res.Calls)
		return res, err
	}
	if st.Restore == nil {
		return done(&InputError{Op: "rollback", Field: "journal", Reason: "no restore information"})
	}
	if st.Rollback == nil {
		st.Rollback = &RollbackRecord{StartedAt: res.StartedAt, Reason: reason}
		if err := r.save(ctx); err != nil {
			return done(err)
		}
	}
	rb := &rollbackRun{runner: r, res: res, strat: undoStrategy(st)}
	acts := rollbackActions(rb.strat, st.Restore, r.holds())
	for _, a := range acts {
		if slices.Contains(st.Rollback.Done, a.ID) {
			res.Actions = append(res.Actions, StepResult{ID: a.ID, Status: StepDone, Skipped: true})
			r.o.observer.StepFinished(StepEvent{Step: a, At: r.e.clock.Now(), Skipped: true})
			continue
		}
		start := r.e.clock.Now()
		calls := r.mutatingSoFar()
		r.o.observer.StepStarted(StepEvent{Step: a, At: start})
		r.e.log.Info("rollback action started", "action", a.ID)
		err := rb.run(ctx, a.ID)
		sr := StepResult{ID: a.ID, Status: StepDone, StartedAt: start, FinishedAt: r.e.clock.Now(), MutatingCalls: r.mutatingSoFar() - calls}
		if err != nil {
			if errors.Is(err, ErrInterrupted) {
				return done(err)
			}
			sr.Status, sr.Error = StepFailed, err.Error()
			res.Actions = append(res.Actions, sr)
			r.o.observer.StepFinished(StepEvent{Step: a, At: sr.FinishedAt, Err: err})
			return done(fmt.Errorf("cutover: rollback: %s: %w", a.ID, err))
		}
		res.Actions = append(res.Actions, sr)
		st.Rollback.Done = append(st.Rollback.Done, a.ID)
		if err := r.save(ctx); err != nil {
			return done(err)
		}
		r.o.observer.StepFinished(StepEvent{Step: a, At: sr.FinishedAt})
		if err := r.hook(ctx, Event{Kind: EventRollback, Step: a.ID}); err != nil {
			return done(err)
		}
	}
	now := r.e.clock.Now()
	for i := range st.Steps {
		if st.Steps[i].Status != StepPending {
			_ = st.SetStep(st.Steps[i].ID, StepRolledBack, now, nil)
		}
	}
	st.Rollback.FinishedAt = now
	if err := r.save(ctx); err != nil {
		return done(err)
	}
	res.Completed = true
	r.e.log.Info("rolled back")
	return done(nil)
}

// rollbackRun carries one rollback's state between actions.
type rollbackRun struct {
	*runner
	res *RollbackResult
	// strat is the strategy whose undo runs.
	strat strategy
	// unsettled are the nodes Karpenter was replacing, or had queued, at
	// the last observation of wait-nodes.
	unsettled []string
}

// run runs one rollback action: the hold of Karpenter's disruption and
// its release here, every other action by the strategy (undoAction).
func (rb *rollbackRun) run(ctx context.Context, id string) error {
	switch id {
	case RollbackHoldDisruption:
		v, err := rb.observe(ctx, rb.tgARN, nil, rb.st.Restore.TargetType, "")
		if err != nil {
			return err
		}
		return rb.holdDisruption(ctx, RollbackHoldDisruption, v)
	case RollbackReleaseDisruption:
		if note := rb.unsettledNote(); note != "" {
			rb.res.Warnings = append(rb.res.Warnings, note)
		}
		return rb.releaseHold(ctx, RollbackReleaseDisruption)
	}
	return rb.strat.undoAction(ctx, rb, id)
}

// runShared runs one of the actions both strategies' undo lists hold
// (undo.go, room.go); any other is an error.
func (rb *rollbackRun) runShared(ctx context.Context, id string) error {
	switch id {
	case RollbackRegisterNodes:
		return rb.registerNodes(ctx)
	case RollbackWaitNodes:
		return rb.waitNodes(ctx)
	case RollbackDeleteBinding:
		return rb.deleteBinding(ctx)
	case RollbackRestoreHealthCheck:
		return rb.restoreHealthCheck(ctx)
	case RollbackRegisterRest:
		return rb.registerRest(ctx)
	}
	return fmt.Errorf("unknown rollback action %s", id)
}
