package cutover

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
	// showed nothing to undo (no journal, or a finished rollback).
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

// Source is what [Rollback] starts from: a *[Plan], whose journal it
// loads, or a *[State], for example from [ConfigMapJournal.Inspect] when
// the plan is gone.
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
// Options: WithJournal (required with a *State that did not come from the
// default ConfigMapJournal), WithLock, WithObserver, WithHook, WithRetry,
// WithPollInterval, WithBatchSize, WithGateTimeout, WithReason.
func Rollback(ctx context.Context, env Env, src Source, opts ...Option) (*RollbackResult, error) {
	e, err := env.resolve("rollback")
	if err != nil {
		return nil, err
	}
	o := collect(opts)
	var r *runner
	var st *State
	switch s := src.(type) {
	case *Plan:
		if err := s.validate("rollback"); err != nil {
			return nil, err
		}
		if r, err = newRunner(e, o, s, s.TargetGroup.ARN, s.Binding.Namespace); err != nil {
			return nil, err
		}
		st, err = r.j.Load(ctx, s.Ref())
		if IsNoJournal(err) {
			now := e.clock.Now()
			return &RollbackResult{PlanID: s.ID, Completed: true, NothingToDo: true, Reason: "no journal: the plan never ran",
				StartedAt: now, FinishedAt: now, Calls: map[string]int{}}, nil
		}
	case *State:
		if s == nil {
			return nil, &InputError{Op: "rollback", Field: "state", Reason: "nil"}
		}
		if err := s.Validate(); err != nil {
			return nil, &InputError{Op: "rollback", Field: "state", Reason: err.Error()}
		}
		if s.Restore == nil || s.TargetGroupARN == "" {
			return nil, &InputError{Op: "rollback", Field: "state", Reason: "it records no target group or no restore information: it was not written by Execute"}
		}
		if r, err = newRunner(e, o, nil, s.TargetGroupARN, s.Restore.Namespace); err != nil {
			return nil, err
		}
		// Load it through the journal, so that saves carry its version.
		st, err = r.j.Load(ctx, s.Plan)
		if IsNoJournal(err) {
			st, err = s.Clone(), nil
			st.Revision = 0
		}
	default:
		return nil, &InputError{Op: "rollback", Field: "source", Reason: "nil"}
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
	reason := o.reason
	if reason == "" {
		reason = "requested"
	}
	res, err := r.rollback(ctx, reason)
	if errors.Is(err, ErrInterrupted) {
		return res, err // a crash: the lease and the journal stay as they are
	}
	if rerr := r.lock.Release(context.WithoutCancel(ctx)); rerr != nil && !IsLostLock(rerr) {
		err = errors.Join(err, rerr)
	}
	return res, err
}

// rollbackActions lists the actions of a strategy. The health check is
// restored last, unless node targets fail the aligned one (it was aligned
// after their deregistration): then first. With holds, the hold of
// Karpenter's disruption comes first and its release last.
func rollbackActions(strategy string, healthCheckFirst, holds bool) []Step {
	mk := func(id, title string) Step { return Step{ID: id, Phase: "rollback", Title: title} }
	acts := rollbackCore(mk, strategy, healthCheckFirst)
	if !holds {
		return acts
	}
	return append(append([]Step{mk(RollbackHoldDisruption, "hold Karpenter's graceful disruption of the nodes that serve")}, acts...),
		mk(RollbackReleaseDisruption, "release what the hold added"))
}

func rollbackCore(mk func(id, title string) Step, strategy string, healthCheckFirst bool) []Step {
	register := mk(RollbackRegisterNodes, "register the nodes alive now on the NodePort")
	wait := mk(RollbackWaitNodes, "wait until the node targets are healthy")
	del := mk(RollbackDeleteBinding, "delete the binding")
	hc := mk(RollbackRestoreHealthCheck, "restore the health check")
	if strategy == string(StrategyBlueGreen) {
		return []Step{
			mk(RollbackAttachOld, "attach the old target group again at weight 0"),
			register, wait,
			mk(RollbackRestoreRoutes, "put the original forward actions back"),
			del,
			mk(RollbackDeleteTargetGroup, "delete the target group tgmigrate created"),
			hc,
		}
	}
	if healthCheckFirst {
		return []Step{hc, register, wait, del}
	}
	return []Step{register, wait, del, hc}
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
			// when it is deleted).
			var floor time.Duration
			if len(res.Registered) > r.restRegistered {
				floor += r.nodeTiming().newTarget()
			}
			if r.restRegistered > 0 {
				floor += r.nodeTiming().newTarget()
				if st.Strategy != string(StrategyBlueGreen) {
					floor += r.timing().drain()
				}
			}
			res.FloorSeconds = floor.Seconds()
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
	rb := &rollbackRun{runner: r, res: res}
	acts := rollbackActions(st.Strategy, st.Restore.HealthCheckFirst, r.holds())
	if st.Restore.Bounded {
		// The nodes that did not fit beside the pod targets go in once
		// the binding (and blue/green's target group) is gone, before the
		// hold's release.
		i := slices.IndexFunc(acts, func(s Step) bool {
			return s.ID == RollbackDeleteTargetGroup || (s.ID == RollbackDeleteBinding && st.Strategy != string(StrategyBlueGreen))
		})
		acts = slices.Insert(acts, i+1, Step{ID: RollbackRegisterRest, Phase: "rollback", Title: "register the live nodes that did not fit beside the pod targets"})
	}
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
	// unsettled are the nodes Karpenter was replacing, or had queued, at
	// the last observation of wait-nodes.
	unsettled []string
}

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
	case RollbackAttachOld:
		return rb.attachOld(ctx)
	case RollbackRegisterNodes:
		return rb.registerNodes(ctx)
	case RollbackWaitNodes:
		return rb.waitNodes(ctx)
	case RollbackRestoreRoutes:
		return rb.restoreRoutes(ctx)
	case RollbackDeleteBinding:
		return rb.deleteBinding(ctx)
	case RollbackDeleteTargetGroup:
		return rb.deleteTargetGroup(ctx)
	case RollbackRestoreHealthCheck:
		return rb.restoreHealthCheck(ctx)
	case RollbackRegisterRest:
		return rb.registerRest(ctx)
	}
	return fmt.Errorf("unknown rollback action %s", id)
}

// newTG returns the target group blue/green created: the journal's, or the
// one of the planned name whose tags say tgmigrate created it for this
// target group (a crash may have come between its creation and the save).
func (rb *rollbackRun) newTG(ctx context.Context) (string, error) {
	st := rb.st
	if st.CreatedTargetGroupARN != "" {
		return st.CreatedTargetGroupARN, nil
	}
	if st.Restore.NewTargetGroupName == "" {
		return "", nil
	}
	tg, err := rb.aws.targetGroupByName(ctx, st.Restore.NewTargetGroupName)
	if err != nil || tg == nil {
		return "", err
	}
	arn := aws.ToString(tg.TargetGroupArn)
	tags, err := rb.aws.tags(ctx, arn, false)
	if err != nil {
		return "", err
	}
	if !isOurs(tags, rb.tgARN) {
		rb.res.Warnings = append(rb.res.Warnings, fmt.Sprintf("target group %s exists but tgmigrate did not create it for this one: left alone", arn))
		return "", nil
	}
	return arn, nil
}

// attachOld puts the old target group back into each route at weight 0
// where it is missing.
func (rb *rollbackRun) attachOld(ctx context.Context) error {
	nw, err := rb.newTG(ctx)
	if err != nil || nw == "" {
		return err
	}
	for _, route := range rb.st.Restore.Routes {
		actions, err := rb.routeActions(ctx, route.Resource)
		if err != nil {
			return err
		}
		var cur []TargetGroupWeight
		for _, a := range actions {
			if tgs := forwardTargets(a); slices.ContainsFunc(tgs, func(w TargetGroupWeight) bool { return w.TargetGroupARN == nw || w.TargetGroupARN == rb.tgARN }) {
				cur = tgs
			}
		}
		if slices.ContainsFunc(cur, func(w TargetGroupWeight) bool { return w.TargetGroupARN == rb.tgARN }) {
			continue
		}
		want := []TargetGroupWeight{{TargetGroupARN: rb.tgARN, Weight: 0}, {TargetGroupARN: nw, Weight: 100}}
		if err := rb.setRoute(ctx, RollbackAttachOld, route.Resource, want, []string{rb.tgARN, nw}, nil); err != nil {
			return err
		}
	}
	return nil
}

// nodeTarget is the target a live node gets in the old target group.
func (rb *rollbackRun) nodeTarget(n liveNode) TargetAddr {
	id := n.IP
	if rb.st.Restore.TargetType == "instance" {
		id = n.InstanceID
	}
	return TargetAddr{IP: id, Port: rb.st.Restore.NodePort}
}

// registerNodes registers every live node that has no target (or only a
// draining one) in the old target group, in batches, with Port.
func (rb *rollbackRun) registerNodes(ctx context.Context) error {
	ns, err := nodes(ctx, rb.e.Client, nil)
	if err != nil {
		return err
	}
	health, err := rb.aws.health(ctx, rb.tgARN, false)
	if err != nil {
		return err
	}
	present := map[TargetAddr]bool{}
	for _, d := range health {
		if d.TargetHealth == nil || string(d.TargetHealth.State) != stateDraining {
			present[addrOf(d)] = true
		}
	}
	_, err = rb.registerMissing(ctx, ns.live, present)
	return err
}

// registerMissing registers the live nodes whose target is not in present,
// and returns every live node's target.
func (rb *rollbackRun) registerMissing(ctx context.Context, live []liveNode, present map[TargetAddr]bool) ([]TargetAddr, error) {
	if rb.st.Restore.NodePort == 0 {
		if !slices.Contains(rb.res.Warnings, noNodePort) {
			rb.res.Warnings = append(rb.res.Warnings, noNodePort)
		}
		return nil, nil
	}
	var all, missing []TargetAddr
	for _, n := range live {
		t := rb.nodeTarget(n)
		if t.IP == "" {
			continue
		}
		all = append(all, t)
		if !present[t] {
			missing = append(missing, t)
		}
	}
	if fit, free, err := rb.roomFor(ctx, len(missing)); err != nil {
		return nil, err
	} else if fit < len(missing) {
		// Under the quota: what does not fit waits for register-rest, and
		// the wait counts only what is in. Too few to keep the floor once
		// the pod targets go: stop before any change.
		in := len(all) - len(missing) + fit
		if floor := rb.st.Restore.Floor; in < min(floor, len(all)) {
			e := &QuotaError{Op: RollbackRegisterNodes, TargetGroupARN: rb.tgARN,
				Reason: fmt.Sprintf("the target group has room for %d of the %d missing node targets beside the pod targets (%d free under the plan's room of %d): with %d node targets in, fewer than the floor of %d would serve once the binding is gone; no target was registered or deregistered and the binding stays. Raise the quota, or scale the Service down so that the pod targets leave room", fit, len(missing), free, rb.st.Restore.QuotaRoom, in, floor)}
			// Room for the targets there now and the floor of node targets.
			rb.needQuota(e, rb.st.Restore.QuotaRoom-free+min(floor, len(all))-(len(all)-len(missing)))
			return nil, e
		}
		rb.e.log.Info("registering only the node targets that fit under the quota", "fit", fit, "missing", len(missing))
		all = slices.DeleteFunc(all, func(t TargetAddr) bool { return slices.Contains(missing[fit:], t) })
		missing = missing[:fit]
	}
	for len(missing) > 0 {
		batch := missing[:min(len(missing), rb.o.batchSize)]
		if err := rb.aws.register(ctx, rb.tgARN, batch); err != nil {
			return nil, err
		}
		rb.st.Rollback.Registered = append(rb.st.Rollback.Registered, batch...)
		rb.res.Registered = append(rb.res.Registered, batch...)
		rb.e.log.Info("registered node targets", "targets", len(batch))
		if err := rb.save(ctx); err != nil {
			return nil, err
		}
		missing = missing[len(batch):]
	}
	return all, nil
}

const noNodePort = "no NodePort known: no node target registered"

// nodeTiming is what the rollback's waits derive from: the plan's
// assumptions and the health check the node targets are checked with
// (the target group's as it was: the alignment changes its port and path,
// not its timing).
func (r *runner) nodeTiming() timing {
	if r.st != nil && r.st.Restore != nil {
		hc := HealthCheckSettings{}
		if r.st.Restore.HealthCheck != nil {
			hc = *r.st.Restore.HealthCheck
		}
		a := r.st.Restore.Assumptions
		if r.plan != nil && a == (Assumptions{}) {
			a = r.plan.Request.Assumptions
		}
		return newTiming(a, hc, 0)
	}
	return newTiming(r.plan.Request.Assumptions, r.plan.HealthCheck.Original, 0)
}

// waitNodes waits until the live nodes' targets are healthy: every one
// that was live at the first observation and still is, and at least the
// floor (or every live node, when fewer). Nodes that come up meanwhile are
// registered as they appear, and node targets of ours whose node is
// leaving are retired while another healthy target serves. For blue/green,
// while the old target group has no healthy target left, the new one
// takes the traffic (see holdOnNew). While the disruption hold stands,
// every observation holds the nodes that joined too.
//
// Without the hold, it also waits until Karpenter replaces no node (none
// disrupting, no NodeClaim Drifted): static node targets are what breaks
// under churn, so the pod targets the LBC keeps current stay until the
// nodes settle; when the gate timeout comes with the node targets healthy
// but the nodes not settled, the rollback goes on and warns. With the
// hold, no graceful disruption starts while the rollback runs, and the
// node targets of the disruptions already under way are retired as their
// nodes leave: it does not wait for Karpenter, and the release warns of
// the disruptions that wait for it.
func (rb *rollbackRun) waitNodes(ctx context.Context) error {
	var baseline map[TargetAddr]bool
	healthyEnough := false
	var unsettled []string
	floor := rb.st.Restore.Floor
	t := rb.nodeTiming()
	rb.waiting(Wait{Step: RollbackWaitNodes, What: "node targets healthy", Reason: reasonNodes, From: t.newTargetFrom(),
		Until: rb.e.clock.Now().Add(t.newTarget())})
	held := rb.holdActive()
	what := "the live nodes' targets to be healthy"
	if !held {
		what += " and the nodes to settle"
	}
	err := rb.pollDue(ctx, RollbackWaitNodes, what, rb.o.gateTimeout, rb.e.clock.Now().Add(t.newTarget()), func(ctx context.Context) (bool, string, error) {
		v, err := rb.observe(ctx, rb.tgARN, nil, rb.st.Restore.TargetType, "")
		if err != nil {
			return false, "", err
		}
		if err := rb.keepHold(ctx, RollbackWaitNodes, v); err != nil {
			return false, "", err
		}
		ns, err := nodes(ctx, rb.e.Client, v.snap)
		if err != nil {
			return false, "", err
		}
		unsettled = ns.unsettled
		rb.unsettled = ns.unsettled
		present := map[TargetAddr]bool{}
		for t, vt := range v.targets {
			present[t] = vt.state != stateDraining
		}
		live, err := rb.registerMissing(ctx, ns.live, present)
		if err != nil {
			return false, "", err
		}
		if err := rb.retireOurs(ctx, v); err != nil {
			return false, "", err
		}
		if err := rb.holdOnNew(ctx, v); err != nil {
			return false, "", err
		}
		if baseline == nil {
			baseline = map[TargetAddr]bool{}
			for _, t := range live {
				baseline[t] = true
			}
		}
		healthy, checking, ok := 0, 0, true
		for _, t := range live {
			vt, reg := v.targets[t]
			switch {
			case reg && vt.state == stateHealthy:
				healthy++
			case baseline[t]:
				ok = false
			case reg && vt.state == stateInitial:
				// A node that came up after the first observation, still
				// in its first health checks: under steady churn there is
				// always one, so it cannot be part of what must be healthy.
				checking++
			}
		}
		need := min(floor, len(live)-checking)
		rb.progress(RollbackWaitNodes, rb.tgARN, v, healthy, len(live))
		healthyEnough = ok && healthy >= need && len(live) > 0
		desc := fmt.Sprintf("%d of %d live node targets healthy (need %d); %d nodes being replaced", healthy, len(live), need, len(unsettled))
		return healthyEnough && (held || len(unsettled) == 0), desc, nil
	})
	if IsTimeout(err) && healthyEnough {
		rb.res.Warnings = append(rb.res.Warnings, fmt.Sprintf("Karpenter was still replacing nodes %v when the wait ended: the rollback went on; their node targets will fail when they go", unsettled))
		return nil
	}
	return err
}

// unsettledNote warns, as the rollback releases the hold, of the nodes
// Karpenter is replacing or waits to replace: their node targets fail when
// they go, as the static target group always did under churn.
func (rb *rollbackRun) unsettledNote() string {
	if !rb.holdActive() || len(rb.unsettled) == 0 {
		return ""
	}
	return fmt.Sprintf("Karpenter is replacing, or waits for the hold's release to replace, nodes %v: the rollback's node targets on them will fail when they go (static node targets do not survive churn)", rb.unsettled)
}

// holdOnNew keeps a blue/green rollback from starving: when the old target
// group holds no healthy target that will keep serving (Karpenter took its
// nodes, and the live nodes' targets are still in their health checks)
// while the new one has healthy pod targets, every route forwards to the
// new one alone until restore-routes puts the original weights back.
func (rb *rollbackRun) holdOnNew(ctx context.Context, old *view) error {
	if rb.st.Strategy != string(StrategyBlueGreen) || old.servingHealthy > 0 {
		return nil
	}
	nw, err := rb.newTG(ctx)
	if err != nil || nw == "" {
		return err
	}
	health, err := rb.aws.health(ctx, nw, false)
	if err != nil {
		return err
	}
	healthy := 0
	for _, d := range health {
		if d.TargetHealth != nil && string(d.TargetHealth.State) == stateHealthy {
			healthy++
		}
	}
	if healthy == 0 {
		return nil
	}
	want := []TargetGroupWeight{{TargetGroupARN: rb.tgARN, Weight: 0}, {TargetGroupARN: nw, Weight: 100}}
	for _, route := range rb.st.Restore.Routes {
		before := len(rb.st.Weights)
		if err := rb.setRoute(ctx, RollbackWaitNodes, route.Resource, want, []string{rb.tgARN, nw}, nil); err != nil {
			return err
		}
		if len(rb.st.Weights) > before {
			rb.res.Warnings = append(rb.res.Warnings, fmt.Sprintf("the old target group had no healthy target left: %s forwards to %s until its node targets are healthy", route.Resource, nw))
		}
	}
	return nil
}

// retireOurs deregisters the node targets of ours (recorded by the plan or
// registered by the rollback) whose node is leaving or gone, while another
// healthy target serves.
func (rb *rollbackRun) retireOurs(ctx context.Context, v *view) error {
	if v.servingHealthy < 1 {
		return nil
	}
	var batch []TargetAddr
	for _, t := range v.order {
		vt := v.targets[t]
		ours := slices.Contains(rb.st.Restore.Recorded, t) || slices.Contains(rb.st.Rollback.Registered, t)
		if !ours || vt.state == stateDraining || !leaving(vt.report) {
			continue
		}
		if vt.report.Class != diagnose.ClassNode && vt.report.Class != diagnose.ClassGhost {
			continue
		}
		batch = append(batch, t)
	}
	for len(batch) > 0 {
		n := min(len(batch), rb.o.batchSize)
		if err := rb.aws.deregister(ctx, rb.tgARN, batch[:n]); err != nil {
			return err
		}
		rb.res.Retired = append(rb.res.Retired, batch[:n]...)
		rb.st.Notes = append(rb.st.Notes, "rollback retired targets of leaving nodes: "+joinAddrs(batch[:n]))
		if err := rb.save(ctx); err != nil {
			return err
		}
		batch = batch[n:]
	}
	return nil
}

// restoreRoutes puts every route's original forward action back.
func (rb *rollbackRun) restoreRoutes(ctx context.Context) error {
	nw, err := rb.newTG(ctx)
	if err != nil {
		return err
	}
	allowed := []string{rb.tgARN}
	if nw != "" {
		allowed = append(allowed, nw)
	}
	for _, route := range rb.st.Restore.Routes {
		if err := rb.setRoute(ctx, RollbackRestoreRoutes, route.Resource, route.Weights, allowed, nil); err != nil {
			return err
		}
	}
	return nil
}

// deleteBinding deletes the plan's binding when it exists, points at the
// plan's target group (or the one blue/green created) and is tgmigrate's,
// then waits for the LBC to finish with it.
func (rb *rollbackRun) deleteBinding(ctx context.Context) error {
	name := rb.st.Binding.Name
	if name == "" {
		name = rb.st.Restore.BindingName
	}
	if name == "" {
		return nil
	}
	key := types.NamespacedName{Namespace: rb.ns, Name: name}
	var cur v1beta1.TargetGroupBinding
	err := rb.e.Client.Get(ctx, key, &cur)
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("get binding %s: %w", key, err)
	}
	nw, err := rb.newTG(ctx)
	if err != nil {
		return err
	}
	if arn := cur.Spec.TargetGroupARN; arn != rb.tgARN && (nw == "" || arn != nw) {
		rb.res.Warnings = append(rb.res.Warnings, fmt.Sprintf("binding %s binds %s, not this cutover's target group: left alone", key, arn))
		return nil
	}
	if cur.DeletionTimestamp.IsZero() {
		var res *tgbind.DeleteResult
		err := rb.aws.retryTransient(ctx, true, func(ctx context.Context) (err error) {
			res, err = rb.binder.Delete(ctx, key)
			return err
		})
		if err != nil {
			return err
		}
		rb.res.Warnings = append(rb.res.Warnings, res.Warnings...)
	}
	t := rb.nodeTiming()
	rb.waiting(Wait{Step: RollbackDeleteBinding, What: "the binding gone", Reason: reasonBinding,
		From:  fmt.Sprintf("controller delay up to %v (assumed); the wait gives up after %v", t.a.Controller(), bindingGoneTimeout),
		Until: rb.e.clock.Now().Add(t.a.Controller())})
	// The controller can finalize it at once: look closely from now on.
	err = rb.pollDue(ctx, RollbackDeleteBinding, "the LBC to finish deleting the binding", bindingGoneTimeout, rb.e.clock.Now(), func(ctx context.Context) (bool, string, error) {
		err := rb.e.Client.Get(ctx, key, &v1beta1.TargetGroupBinding{})
		switch {
		case apierrors.IsNotFound(err):
			return true, "", nil
		case err != nil:
			return false, "", err
		}
		return false, "the binding still has its finalizer", nil
	})
	if IsTimeout(err) {
		rb.res.Warnings = append(rb.res.Warnings, fmt.Sprintf("binding %s is still being deleted after %v: is the LBC running?", key, bindingGoneTimeout))
		return nil
	}
	if err != nil {
		return err
	}
	// The LBC deregistered what it tracked. Had a node target found its way
	// into its ConfigMap, it is gone now: register the live nodes again,
	// and wait for them when any was missing.
	before := len(rb.res.Registered)
	if err := rb.registerNodes(ctx); err != nil {
		return err
	}
	if len(rb.res.Registered) > before {
		rb.res.Warnings = append(rb.res.Warnings, fmt.Sprintf("the LBC deregistered %d node targets with the binding (its ConfigMap tracked them): registered again", len(rb.res.Registered)-before))
		return rb.waitNodes(ctx)
	}
	return nil
}

// deleteTargetGroup deletes the target group blue/green created, when its
// tags say tgmigrate did.
func (rb *rollbackRun) deleteTargetGroup(ctx context.Context) error {
	arn, err := rb.newTG(ctx)
	if err != nil || arn == "" {
		return err
	}
	tags, err := rb.aws.tags(ctx, arn, false)
	switch {
	case errors.Is(err, awserr.ErrNotFound):
		return nil
	case err != nil:
		return err
	}
	if !isOurs(tags, rb.tgARN) {
		rb.res.Warnings = append(rb.res.Warnings, fmt.Sprintf("target group %s is not tagged %s=%s for this target group: left alone", arn, TagCreatedBy, ManagedBy))
		return nil
	}
	err = rb.aws.deleteTargetGroup(ctx, arn)
	if errors.Is(err, awserr.ErrNotFound) {
		return nil
	}
	return err
}

// restoreHealthCheck puts the original health check back when tgmigrate
// changed it.
func (rb *rollbackRun) restoreHealthCheck(ctx context.Context) error {
	orig := rb.st.HealthCheck.Original
	if orig == nil {
		return nil
	}
	tg, err := rb.aws.targetGroup(ctx, rb.tgARN, false)
	if err != nil {
		return err
	}
	diff := hcChangesFrom(*orig, healthCheckOf(tg))
	if hcEmpty(diff) {
		return nil
	}
	if err := rb.aws.modifyHealthCheck(ctx, rb.tgARN, diff); err != nil {
		return err
	}
	rb.st.HealthCheck.Aligned = false
	return nil
}
