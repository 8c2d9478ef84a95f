package cutover

// runner.go holds the runner, which executes or rolls back one plan, and its
// lifecycle: the lock and its renewal, the journal's saves, the guards'
// re-check, each step's start and end for the observer and the result, the
// hook, and the dispatch of a step to the plan's strategy.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/tgbind"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// runner executes or rolls back one plan.
type runner struct {
	e     *env
	o     options
	plan  *Plan // nil for a rollback from a journal alone
	tgARN string
	// tg is the target group's ARN, typed: the plan's, or the journal
	// state's for a rollback from a journal alone.
	tg     awserr.ARN
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
	// the pod targets were gone (register-rest), and restDereg is the
	// deregistration delay that action waited for (deregSeconds).
	restRegistered int
	restDereg      int32
	// watch follows the nodes, the NodeClaims and the Service's pods,
	// and caches them, from the run's start (watch.go); nil: the waits
	// poll and the observations read the cluster by targeted calls.
	watch *nodeWatch
	// scope is what the observations of the cluster keep between them
	// (scope.go).
	scope scope
	// replace are the nodes Execute replaces first (WithReplaceFirst), as
	// its start found them or the journal recorded them.
	replace []Replacement
	// retiredAt is when this run last retired a leaving target
	// (retireLeaving): the deregistration lag runs from then.
	retiredAt time.Time
}

func newRunner(e *env, o options, plan *Plan, tg awserr.ARN, ns string) (*runner, error) {
	counts := &callCounts{}
	api := &countingAPI{next: e.ELBv2, counts: counts}
	binder, err := e.binder(api, true)
	if err != nil {
		return nil, err
	}
	r := &runner{e: e, o: o, plan: plan, tgARN: tg.Raw, tg: tg, ns: ns, counts: counts, binder: binder,
		aws: newAWS(api, e.clock, o.retry, e.log)}
	r.aws.beforeAttempt = r.beforeAttempt
	if r.j = o.journal; r.j == nil {
		j, err := NewConfigMapJournal(e.Client, ConfigMapJournalOptions{Namespace: ns, TargetGroupARN: tg, Clock: e.clock})
		if err != nil {
			return nil, err
		}
		r.j = j
	}
	if r.lock = o.lock; r.lock == nil {
		l, err := NewLeaseLock(e.Client, LeaseLockOptions{Namespace: ns, TargetGroupARN: tg, Holder: e.Holder,
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

// withLogValues makes every line the run logs, its retries' included, name
// the plan and the target group.
func (r *runner) withLogValues(planID string) {
	r.e.log = r.e.log.WithValues("plan", planID, "targetGroup", r.tgARN)
	r.aws.log = r.e.log
}

// recheckGuards reads the target group and its tags again and runs the
// guards with the plan's overrides; it also checks the target group is
// still of the planned type.
func (r *runner) recheckGuards(ctx context.Context) error {
	p := r.plan
	tg, err := r.aws.targetGroup(ctx, p.TargetGroup.ARN.Raw, false)
	if err != nil {
		return fmt.Errorf("cutover: execute: %w", err)
	}
	if string(tg.TargetType) != p.TargetGroup.TargetType {
		return &InvariantError{Step: "execute", Check: "target-group", Detail: fmt.Sprintf("the target group is of type %s now, the plan says %s: make a new plan", tg.TargetType, p.TargetGroup.TargetType)}
	}
	tags, err := r.aws.tags(ctx, p.TargetGroup.ARN.Raw, false)
	if err != nil {
		return fmt.Errorf("cutover: execute: %w", err)
	}
	return recheckGuards(p, guardInput{arn: r.tg, tags: tags, vpcID: aws.ToString(tg.VpcId), clusterName: r.e.ClusterName, clusterVPCID: r.e.ClusterVPCID})
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
	r.stopWatch()
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
		res.RatioWhole = res.CutoverSeconds / (res.SettleSeconds + res.FloorSeconds)
	}
	if r.st != nil {
		res.Replaced = res.Replaced[:0]
		for _, rp := range r.st.Replacements {
			if !rp.DeletedAt.IsZero() {
				res.Replaced = append(res.Replaced, rp.Node)
			}
		}
		if len(res.Replaced) == 0 {
			res.Replaced = nil
		}
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

// runStep runs one step: the hold of Karpenter's disruption and its
// release here, every other step by the plan's strategy.
func (r *runner) runStep(ctx context.Context, step Step) error {
	switch step.ID {
	case StepHoldDisruption:
		return r.holdStep(ctx)
	case StepReleaseDisruption:
		return r.releaseHold(ctx, StepReleaseDisruption)
	}
	return strategyOf(r.plan.Strategy).run(ctx, r, step)
}

// unknownStep is the error of a step its strategy does not have.
func unknownStep(step Step) error {
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
