package cutover

// execute.go holds Execute, its Result, and the run of a plan's steps in
// order: the journal loaded or started, the lock taken, the guards
// re-checked, each step run unless the journal has it done, and a failed step
// rolled back.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/qstools/tgmigrate/diagnose"
)

// Result reports an [Execute]. It is plain data; CutoverSeconds,
// FloorSeconds and the call counts are what a comparison of strategies
// needs.
type Result struct {
	// PlanID and Strategy identify the plan.
	PlanID   string   `json:"planID"`
	Strategy Strategy `json:"strategy"`
	// Completed says every step is done.
	Completed bool `json:"completed"`
	// Stopped says Execute stopped after StoppedAfter (WithStopAfter).
	Stopped      bool   `json:"stopped,omitempty"`
	StoppedAfter string `json:"stoppedAfter,omitempty"`
	// Resumed says the journal held progress of an earlier run.
	Resumed bool `json:"resumed,omitempty"`
	// Steps has one entry per step of the plan that this run reached.
	Steps []StepResult `json:"steps"`
	// StartedAt and FinishedAt bound this run, on the injected clock.
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt"`
	// CutoverSeconds is the cutover's wall time on the injected clock: from
	// the first Execute of the plan (the journal remembers it across crashes)
	// to the end of this run.
	CutoverSeconds float64 `json:"cutoverSeconds"`
	// SettleSeconds is the part of CutoverSeconds the hold step spent
	// letting the disruptions Karpenter had begun before it run out (see
	// [StepHoldDisruption]): the plan could not know them, so its floor
	// leaves them out.
	SettleSeconds float64 `json:"settleSeconds,omitempty"`
	// FloorSeconds is the plan's estimate of the least any safe cutover
	// takes (Estimate.FloorSeconds), and Ratio
	// (CutoverSeconds-SettleSeconds)/FloorSeconds: the cutover's steps
	// against the floor.
	FloorSeconds float64 `json:"floorSeconds"`
	Ratio        float64 `json:"ratio"`
	// RatioWhole is CutoverSeconds/(SettleSeconds+FloorSeconds): Execute's
	// whole time against the disruptions under way at its start (the
	// settle: the time they took to run out, the deregistration lag after
	// the last target retired, and with WithReplaceFirst the replacement)
	// plus the floor.
	RatioWhole float64 `json:"ratioWhole"`
	// Calls counts this run's ELBv2 calls by operation, retries included;
	// MutatingCalls sums the ones that change something.
	Calls         map[string]int `json:"calls"`
	MutatingCalls int            `json:"mutatingCalls"`
	// Deregistered and Batches count the recorded targets deregistered by
	// this run and its DeregisterTargets batches.
	Deregistered int `json:"deregistered"`
	Batches      int `json:"batches"`
	// Retired are recorded targets deregistered before the deregister step
	// because Karpenter was removing their node (or it was gone).
	Retired []TargetAddr `json:"retired,omitempty"`
	// Replaced are the nodes whose NodeClaims Execute deleted to replace
	// them before the cutover (WithReplaceFirst), in order.
	Replaced []string `json:"replaced,omitempty"`
	// Skipped are recorded targets already gone when their batch came.
	Skipped []TargetAddr `json:"skipped,omitempty"`
	// Unplanned are node targets registered after the plan: reported,
	// never removed.
	Unplanned []TargetAddr `json:"unplanned,omitempty"`
	// Held are the nodes this run annotated karpenter.sh/do-not-disrupt
	// (the disruption hold), and Released the nodes whose annotation it
	// removed or put back (the release).
	Held     []string `json:"held,omitempty"`
	Released []string `json:"released,omitempty"`
	// Accepted are the plan's preconditions the caller accepted
	// (WithAcceptPreconditions).
	Accepted []PreconditionKind `json:"accepted,omitempty"`
	// RolledBack says a step failed and the automatic rollback completed;
	// Rollback reports it.
	RolledBack bool            `json:"rolledBack,omitempty"`
	Rollback   *RollbackResult `json:"rollback,omitempty"`
	// Warnings are things the operator should know.
	Warnings []string `json:"warnings,omitempty"`
}

// StepResult is one step of a run.
type StepResult struct {
	// ID is the step's ID (or the rollback action's).
	ID string `json:"id"`
	// Status is where the step stands after this run.
	Status StepStatus `json:"status"`
	// Skipped says it was already done and made no call.
	Skipped bool `json:"skipped,omitempty"`
	// StartedAt and FinishedAt bound it in this run.
	StartedAt  time.Time `json:"startedAt,omitzero"`
	FinishedAt time.Time `json:"finishedAt,omitzero"`
	// MutatingCalls counts the ELBv2 calls it made that change something.
	MutatingCalls int `json:"mutatingCalls"`
	// Error is the failure, as text.
	Error string `json:"error,omitempty"`
}

// Execute carries out a plan made by [PlanCutover], step by step, and
// returns what it did.
//
// Before anything it validates the plan (schema, digest), loads the journal
// and takes the target group's lock; before its first mutation it runs the
// guards again. A step already done in the journal is skipped without a
// call, so re-running a finished plan changes nothing; after a crash,
// Execute resumes with the first step that is not done. The journal is
// saved after every step and every deregistration batch, the lease is
// renewed before every attempt of a mutating call (retries included: a
// lease taken over meanwhile stops the call with a *LostLockError before
// it reaches AWS) and kept alive during waits, and every destructive
// call is preceded by its invariant check (see the package documentation).
//
// A plan with a [Precondition] whose kind WithAcceptPreconditions does not
// accept is refused with a *PreconditionError first, before the journal
// and the lock: nothing is read or changed. Then the permission check
// asks the API server whether Env.Client may do what the plan's rules
// say ([Plan.ClusterRules], [WithPermissionCheck]): a required rule
// refused is a *PermissionError naming every one, before the journal and
// the lock.
//
// A failed step stops Execute with a *StepError; unless WithAutoRollback
// (false) is given, Execute then rolls back and reports it in the result.
// A run that ends before the release step (a stop, a refused phase, a
// failure without a rollback) leaves Karpenter's disruption held, and the
// result warns: the next Execute or Rollback releases it.
// Options: WithJournal, WithLock, WithObserver, WithApproval,
// WithStopAfter, WithAutoRollback, WithRetry, WithHook, WithPollInterval,
// WithBatchSize, WithGateTimeout, WithControllerPatience, WithDrainTimeout,
// WithFloorGrace, WithAnalysis, WithAllowNonPodTargets,
// WithAcceptPreconditions, WithPermissionCheck.
func Execute(ctx context.Context, env Env, plan *Plan, opts ...Option) (*Result, error) {
	e, err := env.resolve("execute")
	if err != nil {
		return nil, err
	}
	tg, err := plan.validate("execute")
	if err != nil {
		return nil, err
	}
	o := collect(opts)
	if o.stopAfter != "" && plan.Step(o.stopAfter) == nil {
		return nil, &InputError{Op: "execute", Field: "WithStopAfter",
			Reason: fmt.Sprintf("%q is not a step of plan %s (its steps: %s)", o.stopAfter, plan.ID, strings.Join(plan.StepIDs(), ", "))}
	}
	for _, k := range o.accepted {
		if !slices.Contains(knownPreconditions, k) {
			return nil, &InputError{Op: "execute", Field: "WithAcceptPreconditions", Reason: fmt.Sprintf("%q is not a precondition kind (%v)", k, knownPreconditions)}
		}
	}
	// Before the journal and the lock: a refused plan reads and changes
	// nothing.
	if o.replaceFirst && plan.Step(StepHoldDisruption) == nil {
		return nil, &InputError{Op: "execute", Field: "WithReplaceFirst",
			Reason: fmt.Sprintf("plan %s has no %s step (Request.NoDisruptionHold), where nodes are replaced first: plan again with the hold, or accept the risk with %s", plan.ID, StepHoldDisruption, PreconditionForcefulDisruption.Option())}
	}
	if pcs := plan.unaccepted(o.accepted, o.replaceFirst); len(pcs) > 0 {
		return nil, &PreconditionError{PlanID: plan.ID, Preconditions: pcs, Now: e.clock.Now()}
	}
	r, err := newRunner(e, o, plan, plan.TargetGroup.ARN, plan.Binding.Namespace)
	if err != nil {
		return nil, err
	}
	r.tg = tg
	if err := r.checkLeaseBudget("execute"); err != nil {
		return nil, err
	}
	// Before the journal and the lock: a client refused a rule of the
	// plan's changes nothing (preflight.go).
	in := plan.RBACInput()
	in.ReplaceFirst = o.replaceFirst
	warnings, err := e.checkPermissions(ctx, "execute", in, o)
	if err != nil {
		return nil, err
	}
	res, err := r.execute(ctx)
	if res != nil {
		res.Warnings = append(res.Warnings, warnings...)
	}
	return res, err
}

// String returns the result as one line: the plan, its strategy, how it
// ended, its time against its floor and its counts, for example "plan
// tgm-1a2b (in-place): completed in 412s (floor 380s); targets
// deregistered: 60, batches: 3, mutating calls: 9". Warnings are not in
// it.
func (r *Result) String() string {
	if r == nil {
		return "no result"
	}
	state := "completed"
	switch {
	case r.Stopped:
		state = "paused after " + r.StoppedAfter
	case r.RolledBack:
		state = "rolled back"
	case !r.Completed:
		state = "not completed"
	}
	if r.Resumed {
		state = "resumed, " + state
	}
	return fmt.Sprintf("plan %s (%s): %s in %.0fs (floor %.0fs); targets deregistered: %d, batches: %d, mutating calls: %d",
		r.PlanID, r.Strategy, state, r.CutoverSeconds, r.FloorSeconds, r.Deregistered, r.Batches, r.MutatingCalls)
}

// restoreInfo copies what a rollback needs out of the plan.
func (p *Plan) restoreInfo() *RestoreInfo {
	ri := &RestoreInfo{
		Namespace: p.Binding.Namespace, Service: p.Service.Name, ServicePort: p.Request.Port.String(),
		TargetType: p.TargetGroup.TargetType, NodePort: p.Service.NodePort, Floor: p.Floor,
		Recorded: p.RecordedAddrs(), BindingName: p.Binding.Name,
		HealthCheckFirst: p.HealthCheck.Timing == HealthCheckAfterDeregistration,
		Assumptions:      p.Request.Assumptions.WithDefaults(), NoDisruptionHold: p.Request.NoDisruptionHold,
	}
	if q := p.Quota; q != nil {
		ri.QuotaRoom, ri.Bounded = q.Room, q.Bounded
	}
	hc := p.HealthCheck.Original.Clone()
	ri.HealthCheck = &hc
	if ri.ServicePort == "0" || ri.ServicePort == "" {
		ri.ServicePort = fmt.Sprint(p.Service.Port)
	}
	if ri.NodePort == 0 && len(p.Recorded) > 0 {
		ri.NodePort = p.Recorded[0].Port
	}
	if bg := p.BlueGreen; bg != nil {
		// Blue/green leaves the old target group's node targets alone; a
		// rollback may still retire the ones whose node is leaving.
		for _, o := range p.Others {
			if o.Class == string(diagnose.ClassNode) || o.Class == string(diagnose.ClassGhost) {
				ri.Recorded = append(ri.Recorded, o.TargetAddr)
			}
		}
		ri.NewTargetGroupName = bg.NewTargetGroup.Name
		for _, rt := range bg.Routes {
			ri.Routes = append(ri.Routes, WeightRecord{Resource: rt.resource(), Weights: slices.Clone(rt.Weights)})
		}
	}
	return ri
}

func (r *runner) execute(ctx context.Context) (*Result, error) {
	p := r.plan
	now := r.e.clock.Now()
	r.res = &Result{PlanID: p.ID, Strategy: p.Strategy, StartedAt: now, FloorSeconds: float64(p.Estimate.FloorSeconds)}
	r.withLogValues(p.ID)
	log := r.e.log

	// Read-only, before the journal is written and the lock taken: the
	// watch (its caches serve every observation, this check's first) and
	// the nodes that expire within the window from now.
	r.startWatch(ctx)
	if err := r.checkForceful(ctx); err != nil {
		return r.finish(), err
	}
	st, err := r.loadForExecute(ctx)
	if err != nil {
		return r.finish(), err
	}
	r.st = st
	if st.Rollback != nil {
		return r.finish(), &RolledBackError{PlanID: p.ID, InProgress: !st.RolledBack()}
	}
	if st.Finished() {
		for _, s := range p.Steps {
			r.res.Steps = append(r.res.Steps, StepResult{ID: s.ID, Status: StepDone, Skipped: true})
			r.o.observer.StepFinished(StepEvent{Step: s, At: r.e.clock.Now(), Skipped: true})
		}
		r.res.Completed = true
		log.Info("plan already finished: nothing to do")
		return r.finish(), nil
	}

	if st.SavedPlan == nil {
		// Saved with the first save, or added to a journal written
		// before: Resume needs nothing else (resume.go).
		if st.SavedPlan, err = p.savedPlan(); err != nil {
			return r.finish(), err
		}
	}
	if err := r.lock.Acquire(ctx); err != nil {
		return r.finish(), fmt.Errorf("cutover: execute: %w", err)
	}
	r.held, r.renewedAt = true, r.e.clock.Now()
	if err := r.recheckGuards(ctx); err != nil {
		return r.release(ctx, err)
	}
	if st.StartedAt.IsZero() {
		st.StartedAt = now
	}
	if st.Restore == nil {
		st.Restore = p.restoreInfo()
	}
	for _, pc := range p.Preconditions {
		r.res.Accepted = append(r.res.Accepted, pc.Kind)
		var checks []string
		for _, c := range pc.Settings {
			checks = append(checks, c.brief())
		}
		for _, n := range pc.Nodes {
			checks = append(checks, "node "+n.brief(now))
		}
		how := "accepted by the caller"
		if pc.Kind == PreconditionForcefulDisruption && r.o.replaceFirst {
			how = "accepted by replacing those nodes first (WithReplaceFirst)"
		}
		msg := fmt.Sprintf("precondition %s %s: %s", pc.Kind, how, strings.Join(checks, ", "))
		r.res.Warnings = append(r.res.Warnings, msg)
		if !slices.Contains(st.Notes, msg) {
			st.Notes = append(st.Notes, msg)
		}
	}

	prevPhase := ""
	asked := false
	for i, step := range p.Steps {
		rec := st.Step(step.ID)
		if rec == nil {
			return r.release(ctx, &InputError{Op: "execute", Field: "journal", Reason: "has no record of step " + step.ID})
		}
		if rec.Status == StepDone {
			r.res.Steps = append(r.res.Steps, StepResult{ID: step.ID, Status: StepDone, Skipped: true})
			r.o.observer.StepFinished(StepEvent{Step: step, At: r.e.clock.Now(), Skipped: true})
			prevPhase = step.Phase
			if r.o.stopAfter == step.ID && i < len(p.Steps)-1 {
				// Done by an earlier run: stop here again rather than run
				// what the caller asked to hold back.
				return r.stop(ctx, step.ID)
			}
			continue
		}
		if r.o.approval != nil && (!asked || step.Phase != prevPhase) {
			asked = true
			ph := Phase{Name: step.Phase}
			for j, s := range p.Steps {
				if s.Phase == step.Phase && j >= i {
					ph.Steps = append(ph.Steps, s)
				}
				if rs := st.Step(s.ID); rs != nil && rs.Status == StepDone {
					ph.Done = append(ph.Done, s.ID)
				}
			}
			if err := r.o.approval(ctx, ph); err != nil {
				return r.release(ctx, fmt.Errorf("cutover: execute: phase %s: %w: %w", step.Phase, ErrNotApproved, err))
			}
		}
		prevPhase = step.Phase

		if err := r.startStep(ctx, step); err != nil {
			return r.release(ctx, err)
		}
		log.Info("step started", "step", step.ID)
		err := r.runStep(ctx, step)
		if err != nil {
			return r.stepFailed(ctx, step, err)
		}
		if err := r.endStep(ctx, step, StepDone, nil); err != nil {
			return r.release(ctx, err)
		}
		log.Info("step done", "step", step.ID)
		if err := r.hook(ctx, Event{Kind: EventStep, Step: step.ID}); err != nil {
			return r.finish(), err // a crash: the lease and the journal stay as they are
		}
		if r.o.stopAfter == step.ID && i < len(p.Steps)-1 {
			return r.stop(ctx, step.ID)
		}
	}
	r.res.Completed = true
	return r.release(ctx, nil)
}

// stop ends a run after stepID, as WithStopAfter asks: the journal keeps
// the progress and the lock is released.
func (r *runner) stop(ctx context.Context, stepID string) (*Result, error) {
	r.res.Stopped, r.res.StoppedAfter = true, stepID
	r.e.log.Info("stopped after step", "step", stepID)
	return r.release(ctx, nil)
}

// loadForExecute loads the journal of the plan, or starts a new state. A
// journal of another plan is replaced when that plan is finished or rolled
// back, and refused otherwise.
func (r *runner) loadForExecute(ctx context.Context) (*State, error) {
	p := r.plan
	st, err := r.j.Load(ctx, p.Ref())
	switch {
	case err == nil:
		for _, s := range st.Steps {
			if s.Status != StepPending {
				r.res.Resumed = true
			}
		}
		return st, nil
	case IsNoJournal(err):
	case IsPlanMismatch(err):
		ins, ok := r.j.(interface {
			Inspect(context.Context) (*State, error)
			Delete(context.Context) error
		})
		if !ok {
			return nil, err
		}
		old, ierr := ins.Inspect(ctx)
		if ierr != nil {
			return nil, err
		}
		if !old.Finished() && !old.RolledBack() {
			return nil, fmt.Errorf("%w: plan %s is neither finished nor rolled back: resume it (Resume works from the journal alone), or roll it back (so does Rollback)", err, old.Plan.ID)
		}
		if derr := ins.Delete(ctx); derr != nil {
			return nil, derr
		}
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("replaced the journal of plan %s, which was %s", old.Plan.ID, map[bool]string{true: "finished", false: "rolled back"}[old.Finished()]))
	default:
		return nil, err
	}
	st = NewState(p.Ref(), string(p.Strategy), p.StepIDs()...)
	st.TargetGroupARN = p.TargetGroup.ARN
	return st, nil
}

// stepFailed records a failed step and, unless the failure forbids it or
// the caller said no, rolls back.
func (r *runner) stepFailed(ctx context.Context, step Step, err error) (*Result, error) {
	if errors.Is(err, ErrInterrupted) {
		return r.finish(), err // a crash: nothing is recorded
	}
	serr := &StepError{Step: step.ID, Err: err}
	r.e.log.Error(err, "step failed", "step", step.ID)
	if ctx.Err() != nil {
		serr.Cancelled = true // Classify: resume, never a rollback
		return r.release(ctx, serr)
	}
	if jerr := r.endStep(ctx, step, StepFailed, err); jerr != nil {
		return r.release(ctx, errors.Join(serr, jerr))
	}
	// Classify is the one list of the failures that call for a rollback
	// (disposition.go); a failure the journal could not record (above)
	// rolls nothing back.
	if !r.o.autoRollback || !ShouldRollback(serr) {
		return r.release(ctx, serr)
	}
	r.e.log.Info("rolling back", "reason", err.Error())
	rb, rerr := r.rollback(ctx, "automatic: step "+step.ID+" failed: "+err.Error())
	r.res.Rollback = rb
	if rerr != nil {
		if errors.Is(rerr, ErrInterrupted) {
			return r.finish(), errors.Join(serr, rerr)
		}
		return r.release(ctx, errors.Join(serr, fmt.Errorf("cutover: automatic rollback: %w", rerr)))
	}
	r.res.RolledBack = true
	return r.release(ctx, serr)
}
