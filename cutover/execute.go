package cutover

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/tgbind"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
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
	// (CutoverSeconds-SettleSeconds)/FloorSeconds.
	FloorSeconds float64 `json:"floorSeconds"`
	Ratio        float64 `json:"ratio"`
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
// and the lock: nothing is read or changed.
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
// WithAcceptPreconditions.
func Execute(ctx context.Context, env Env, plan *Plan, opts ...Option) (*Result, error) {
	e, err := env.resolve("execute")
	if err != nil {
		return nil, err
	}
	if err := plan.validate("execute"); err != nil {
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
	if pcs := plan.unaccepted(o.accepted); len(pcs) > 0 {
		return nil, &PreconditionError{PlanID: plan.ID, Preconditions: pcs}
	}
	r, err := newRunner(e, o, plan, plan.TargetGroup.ARN, plan.Binding.Namespace)
	if err != nil {
		return nil, err
	}
	if err := r.checkLeaseBudget("execute"); err != nil {
		return nil, err
	}
	return r.execute(ctx)
}

// runner executes or rolls back one plan.
type runner struct {
	e      *env
	o      options
	plan   *Plan // nil for a rollback from a journal alone
	tgARN  string
	ns     string
	counts *callCounts
	aws    *awsClient
	binder *tgbind.Binder
	j      Journal
	lock   Lock
	st     *State
	res    *Result
	tgb    *v1beta1.TargetGroupBinding
	held   bool
	// renewedAt is when the lease was last acquired or renewed.
	renewedAt time.Time
	// stepCalls is the mutating-call count when the current step started.
	stepCalls int
	// objs are the objects of the last snapshot observe took: the hold
	// finds the Service's pods there.
	objs *diagnose.Objects
	// heldNow and releasedNow are the nodes this run annotated and
	// released (the disruption hold).
	heldNow, releasedNow []string
	// restRegistered counts the node targets the rollback registered once
	// the pod targets were gone (register-rest).
	restRegistered int
}

func newRunner(e *env, o options, plan *Plan, tgARN, ns string) (*runner, error) {
	counts := &callCounts{}
	api := &countingAPI{next: e.ELBv2, counts: counts}
	binder, err := e.binder(api, true)
	if err != nil {
		return nil, err
	}
	r := &runner{e: e, o: o, plan: plan, tgARN: tgARN, ns: ns, counts: counts, binder: binder,
		aws: newAWS(api, e.clock, o.retry, e.log)}
	r.aws.beforeAttempt = r.beforeAttempt
	if r.j = o.journal; r.j == nil {
		j, err := NewConfigMapJournal(e.Client, ConfigMapJournalOptions{Namespace: ns, TargetGroupARN: tgARN, Clock: e.clock})
		if err != nil {
			return nil, err
		}
		r.j = j
	}
	if r.lock = o.lock; r.lock == nil {
		l, err := NewLeaseLock(e.Client, LeaseLockOptions{Namespace: ns, TargetGroupARN: tgARN, Holder: e.Holder,
			LeaseDuration: o.leaseDuration, Clock: e.clock})
		if err != nil {
			return nil, err
		}
		r.lock = l
	}
	return r, nil
}

// checkLeaseBudget refuses waits that could outlast the lease. The lease
// is renewed before every attempt of a mutating call and, once a third of
// it has passed, before any other call attempt and poll; so the longest
// stretch without a renewal is a third of the lease plus the longest
// pause between two attempts (the retry's Max delay, or the poll
// interval). Each of those must stay under half the lease, which leaves a
// sixth of it for the call in flight. A Lock other than a LeaseLock is
// renewed before every attempt of every call and is not checked.
func (r *runner) checkLeaseBudget(op string) error {
	ll, ok := r.lock.(*LeaseLock)
	if !ok {
		return nil
	}
	d := ll.LeaseDuration()
	if pause := r.aws.policy.Max; pause >= d/2 {
		return &InputError{Op: op, Field: "WithRetry", Reason: fmt.Sprintf("a retry may pause %v between attempts, which is not under half the lease duration %v: the lease could lapse during the retries", pause, d)}
	}
	if r.o.poll >= d/2 {
		return &InputError{Op: op, Field: "WithPollInterval", Reason: fmt.Sprintf("%v is not under half the lease duration %v: the lease could lapse between two observations", r.o.poll, d)}
	}
	return nil
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

	st, err := r.loadForExecute(ctx)
	if err != nil {
		return r.finish(), err
	}
	r.st = st
	if st.Rollback != nil {
		what := "was rolled back"
		if !st.RolledBack() {
			what = "has a rollback in progress: run Rollback to finish it"
		}
		return r.finish(), fmt.Errorf("cutover: execute: plan %s %s: %w", p.ID, what, ErrRolledBack)
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
		msg := fmt.Sprintf("precondition %s accepted by the caller: %s", pc.Kind, strings.Join(checks, ", "))
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

// withLogValues makes every line the run logs, its retries' included, name
// the plan and the target group.
func (r *runner) withLogValues(planID string) {
	r.e.log = r.e.log.WithValues("plan", planID, "targetGroup", r.tgARN)
	r.aws.log = r.e.log
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
			return nil, fmt.Errorf("%w: plan %s is neither finished nor rolled back: resume it with its plan, or roll it back (Rollback works from the journal alone)", err, old.Plan.ID)
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

// recheckGuards reads the target group and its tags again and runs the
// guards with the plan's overrides; it also checks the target group is
// still of the planned type.
func (r *runner) recheckGuards(ctx context.Context) error {
	p := r.plan
	tg, err := r.aws.targetGroup(ctx, p.TargetGroup.ARN, false)
	if err != nil {
		return fmt.Errorf("cutover: execute: %w", err)
	}
	if string(tg.TargetType) != p.TargetGroup.TargetType {
		return &InvariantError{Step: "execute", Check: "target-group", Detail: fmt.Sprintf("the target group is of type %s now, the plan says %s: make a new plan", tg.TargetType, p.TargetGroup.TargetType)}
	}
	tags, err := r.aws.tags(ctx, p.TargetGroup.ARN, false)
	if err != nil {
		return fmt.Errorf("cutover: execute: %w", err)
	}
	return recheckGuards(p, tags, aws.ToString(tg.VpcId), r.e.ClusterName, r.e.ClusterVPCID)
}

func (r *runner) mutatingSoFar() int { return mutating(r.counts.snapshot()) }

func (r *runner) startStep(ctx context.Context, step Step) error {
	now := r.e.clock.Now()
	if err := r.st.SetStep(step.ID, StepRunning, now, nil); err != nil {
		return err
	}
	if err := r.save(ctx); err != nil {
		return err
	}
	r.stepCalls = r.mutatingSoFar()
	r.res.Steps = append(r.res.Steps, StepResult{ID: step.ID, Status: StepRunning, StartedAt: now})
	r.o.observer.StepStarted(StepEvent{Step: step, At: now})
	return nil
}

func (r *runner) endStep(ctx context.Context, step Step, status StepStatus, stepErr error) error {
	now := r.e.clock.Now()
	if err := r.st.SetStep(step.ID, status, now, stepErr); err != nil {
		return err
	}
	sr := &r.res.Steps[len(r.res.Steps)-1]
	sr.Status, sr.FinishedAt, sr.MutatingCalls = status, now, r.mutatingSoFar()-r.stepCalls
	if stepErr != nil {
		sr.Error = stepErr.Error()
	}
	r.o.observer.StepFinished(StepEvent{Step: step, At: now, Err: stepErr})
	return r.save(ctx)
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
		return r.release(ctx, serr)
	}
	if jerr := r.endStep(ctx, step, StepFailed, err); jerr != nil {
		return r.release(ctx, errors.Join(serr, jerr))
	}
	if !r.o.autoRollback || IsLostLock(err) || IsConflict(err) || IsNotApproved(err) || IsNonPodTargets(err) {
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

// release gives the lock up and finishes the result; err is returned as
// it is.
func (r *runner) release(ctx context.Context, err error) (*Result, error) {
	if note := r.holdNote(); note != "" && r.res != nil && !r.res.RolledBack {
		r.res.Warnings = append(r.res.Warnings, note)
	}
	if r.held {
		if rerr := r.lock.Release(context.WithoutCancel(ctx)); rerr != nil && !IsLostLock(rerr) {
			err = errors.Join(err, rerr)
		}
		r.held = false
	}
	return r.finish(), err
}

func (r *runner) finish() *Result {
	res := r.res
	res.FinishedAt = r.e.clock.Now()
	start := res.StartedAt
	if r.st != nil && !r.st.StartedAt.IsZero() {
		start = r.st.StartedAt
	}
	res.CutoverSeconds = res.FinishedAt.Sub(start).Seconds()
	if r.st != nil {
		if rec := r.st.Step(StepHoldDisruption); rec != nil && rec.Status == StepDone && !rec.StartedAt.IsZero() {
			res.SettleSeconds = rec.FinishedAt.Sub(rec.StartedAt).Seconds()
		}
	}
	if res.FloorSeconds > 0 {
		res.Ratio = (res.CutoverSeconds - res.SettleSeconds) / res.FloorSeconds
	}
	res.Calls = r.counts.snapshot()
	if res.Calls == nil {
		res.Calls = map[string]int{}
	}
	res.MutatingCalls = mutating(res.Calls)
	res.Held, res.Released = slices.Clone(r.heldNow), slices.Clone(r.releasedNow)
	return res
}

// save writes the state to the journal.
func (r *runner) save(ctx context.Context) error {
	return r.j.Save(context.WithoutCancel(ctx), r.st)
}

// renew renews the lease; the caller stops on error. Every attempt of a
// mutating call is preceded by one (see beforeAttempt). The lock's errors
// name their operation already ("cutover: renew lease ...").
func (r *runner) renew(ctx context.Context) error {
	if err := r.lock.Renew(ctx); err != nil {
		return err
	}
	r.renewedAt = r.e.clock.Now()
	return nil
}

// beforeAttempt runs before every attempt of an ELBv2 call and of a
// tgbind call while the lock is held, retries included. Before a mutating
// attempt it renews the lease, so a lease another operator took over
// while this one was retrying (or waiting) stops the call with a
// *LostLockError before it reaches AWS: a retried write never outlives the
// lease. Before a read it keeps the lease alive (see keepAlive).
func (r *runner) beforeAttempt(ctx context.Context, mutating bool) error {
	if !r.held {
		return nil
	}
	if mutating {
		return r.renew(ctx)
	}
	return r.keepAlive(ctx)
}

// keepAlive renews the lease when a third of its duration has passed since
// the last renewal: no one can take over a lease that has not expired, so
// observations need not write it each time. A Lock other than a LeaseLock
// is renewed every time.
func (r *runner) keepAlive(ctx context.Context) error {
	if ll, ok := r.lock.(*LeaseLock); ok && !r.renewedAt.IsZero() && r.e.clock.Since(r.renewedAt) < ll.LeaseDuration()/3 {
		return nil
	}
	return r.renew(ctx)
}

// hook calls the caller's hook, if any.
func (r *runner) hook(ctx context.Context, ev Event) error {
	if r.o.hook == nil {
		return nil
	}
	if err := r.o.hook(ctx, ev); err != nil {
		r.e.log.Info("interrupted by hook", "event", ev.String(), "error", err.Error())
		return fmt.Errorf("cutover: after %s: %w: %w", ev, ErrInterrupted, err)
	}
	return nil
}

func (r *runner) runStep(ctx context.Context, step Step) error {
	inPlace := r.plan.Strategy == StrategyInPlace
	switch {
	case step.ID == StepHoldDisruption:
		return r.holdStep(ctx)
	case step.ID == StepReleaseDisruption:
		return r.releaseHold(ctx, StepReleaseDisruption)
	case step.ID == StepAlignHealthCheck:
		return r.alignHealthCheck(ctx)
	case step.ID == StepBind && inPlace:
		return r.bindInPlace(ctx)
	case step.ID == StepBind:
		return r.bindBlueGreen(ctx)
	case step.ID == StepMakeRoom:
		return r.makeRoom(ctx)
	case step.ID == StepGate:
		return r.gate(ctx)
	case step.ID == StepDeregister:
		return r.deregister(ctx)
	case step.ID == StepDrain:
		return r.drain(ctx)
	case step.ID == StepVerify && inPlace:
		return r.verifyInPlace(ctx)
	case step.ID == StepVerify:
		return r.verifyBlueGreen(ctx)
	case step.ID == StepCreateTargetGroup:
		return r.createTargetGroup(ctx)
	case strings.HasPrefix(step.ID, "shift-"):
		return r.shift(ctx, step)
	case step.ID == StepDetach:
		return r.detach(ctx)
	}
	return &InputError{Op: "execute", Field: "plan", Reason: "unknown step " + step.ID}
}

// binding returns the binding the plan creates, as the cluster has it when
// it exists, else as the plan (and the state) describe it.
func (r *runner) binding(ctx context.Context) (*v1beta1.TargetGroupBinding, error) {
	if r.tgb != nil {
		return r.tgb, nil
	}
	name := ""
	if r.st != nil && r.st.Restore != nil {
		name = r.st.Restore.BindingName
	}
	if r.plan != nil {
		name = r.plan.Binding.Name
	}
	if name != "" {
		var cur v1beta1.TargetGroupBinding
		err := r.e.Client.Get(ctx, types.NamespacedName{Namespace: r.ns, Name: name}, &cur)
		switch {
		case err == nil:
			r.tgb = &cur
			return r.tgb, nil
		case !apierrors.IsNotFound(err):
			return nil, fmt.Errorf("cutover: get binding %s/%s: %w", r.ns, name, err)
		}
	}
	if r.plan != nil && r.plan.Binding.Object != nil {
		return r.plan.Binding.Object.DeepCopy(), nil
	}
	return nil, nil
}

// view is one observation of a target group.
type view struct {
	at time.Time
	// snap is the snapshot of the cluster the targets were classified with.
	snap *diagnose.Snapshot
	// state compares the ready endpoints with the targets (nil when there
	// is no binding to observe with).
	state *tgbind.TargetState
	// targets are the target group's targets: state and classification.
	targets map[TargetAddr]*viewTarget
	order   []TargetAddr
	// endpoints are the ready endpoints (IP:port).
	endpoints map[TargetAddr]bool
	// servingHealthy counts the healthy targets that will keep serving.
	servingHealthy int
	draining       int
}

type viewTarget struct {
	addr   TargetAddr
	state  string
	report diagnose.TargetReport
}

func (v *view) has(t TargetAddr) (*viewTarget, bool) {
	vt, ok := v.targets[t]
	return vt, ok
}

func (v *view) summary() string {
	if v.state != nil {
		return v.state.Summary()
	}
	return fmt.Sprintf("%d targets, %d serving healthy, %d draining", len(v.order), v.servingHealthy, v.draining)
}

// observe reads a target group once: its targets' health (one
// DescribeTargetHealth), the ready endpoints when tgb is given (through
// tgbind, which makes that one call), and a snapshot of the cluster to
// classify every target with diagnose.
func (r *runner) observe(ctx context.Context, tgARN string, tgb *v1beta1.TargetGroupBinding, targetType, vpcID string) (*view, error) {
	return r.observeWith(ctx, tgARN, tgb, targetType, vpcID, nil)
}

// observeWith is observe with a snapshot of the cluster already taken
// (nil: take one).
func (r *runner) observeWith(ctx context.Context, tgARN string, tgb *v1beta1.TargetGroupBinding, targetType, vpcID string, snap *diagnose.Snapshot) (*view, error) {
	v := &view{at: r.e.clock.Now(), targets: map[TargetAddr]*viewTarget{}, endpoints: map[TargetAddr]bool{}}
	var descs []elbv2types.TargetHealthDescription
	if tgb != nil && tgb.Spec.TargetGroupARN == tgARN {
		var st *tgbind.TargetState
		err := r.aws.retryTransient(ctx, false, func(ctx context.Context) (err error) {
			st, err = r.binder.Observe(ctx, tgb)
			return err
		})
		if err != nil {
			return nil, err
		}
		v.state = st
		for _, e := range st.Endpoints {
			v.endpoints[TargetAddr{IP: e.IP, Port: e.Port}] = true
			if e.State != "" {
				descs = append(descs, describeOf(e))
			}
		}
		for _, e := range st.Others {
			descs = append(descs, describeOf(e))
		}
	} else {
		var err error
		if descs, err = r.aws.health(ctx, tgARN, false); err != nil {
			return nil, err
		}
	}
	if snap == nil {
		var err error
		var objs *diagnose.Objects
		if snap, objs, err = r.e.lightSnapshot(ctx, r.st != nil && r.st.Rollback != nil); err != nil {
			return nil, err
		}
		r.objs = objs
	}
	v.snap = snap
	set := &elbv2types.TargetGroup{VpcId: aws.String(vpcID), TargetType: elbv2types.TargetTypeEnum(targetType)}
	for _, rep := range classify(snap, set, descs) {
		t := TargetAddr{IP: rep.ID, Port: rep.Port}
		vt := &viewTarget{addr: t, state: rep.State, report: rep}
		if _, dup := v.targets[t]; !dup {
			v.order = append(v.order, t)
		}
		v.targets[t] = vt
		switch {
		case rep.State == string(elbv2types.TargetHealthStateEnumDraining):
			v.draining++
		case rep.State == string(elbv2types.TargetHealthStateEnumHealthy) && !leaving(rep):
			v.servingHealthy++
		}
	}
	return v, nil
}

func describeOf(e tgbind.EndpointTarget) elbv2types.TargetHealthDescription {
	return elbv2types.TargetHealthDescription{
		Target:       &elbv2types.TargetDescription{Id: aws.String(e.IP), Port: aws.Int32(e.Port)},
		TargetHealth: &elbv2types.TargetHealth{State: elbv2types.TargetHealthStateEnum(e.State), Reason: elbv2types.TargetHealthReasonEnum(e.Reason)},
	}
}

// progress reports an observation to the observer and the log.
func (r *runner) progress(step, tgARN string, v *view, healthy, total int) {
	floor := 0
	if r.st != nil && r.st.Restore != nil {
		floor = r.st.Restore.Floor
	}
	p := Progress{Step: step, At: v.at, TargetGroupARN: tgARN, Healthy: healthy, Total: total, Draining: v.draining, Floor: floor, Summary: v.summary()}
	r.o.observer.Targets(p)
	r.e.log.V(1).Info("observed", "step", step, "healthy", healthy, "total", total, "draining", v.draining, "summary", p.Summary)
}
