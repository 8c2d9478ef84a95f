package cutover

// gate.go holds what both strategies' steps share: the binding's apply, the
// gate (pod targets healthy, the controller watched, the room made, recorded
// targets of leaving nodes retired early), the deregistration of a batch,
// and the verification of the pod targets.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/qstools/tgmigrate/internal/textcell"
	"github.com/qstools/tgmigrate/tgbind"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// apply records the binding's name, then applies it: throttling and the
// API server's transient failures are retried, and so, for a bounded
// time, is the controller's webhook denying a target group the plan
// created because it cannot see it yet (retryUnseen).
func (r *runner) apply(ctx context.Context, obj *v1beta1.TargetGroupBinding) error {
	r.st.Binding.Namespace, r.st.Binding.Name = obj.Namespace, obj.Name
	if err := r.save(ctx); err != nil {
		return err
	}
	var res *tgbind.ApplyResult
	err := r.retryUnseen(ctx, StepBind, obj, func(ctx context.Context) error {
		return r.aws.retryTransient(ctx, true, func(ctx context.Context) (err error) {
			res, err = r.binder.Apply(ctx, obj)
			return err
		})
	})
	if err != nil {
		return err
	}
	r.st.Binding.Created = true
	r.tgb = nil
	r.e.log.Info("binding applied", "binding", obj.Namespace+"/"+obj.Name, "operation", res.Operation)
	return nil
}

// gateRules are a strategy's part of the gate (gate): inPlace and
// blueGreen implement them, in their _run files.
type gateRules interface {
	// gateDue is when the gate may end at the earliest, given due, when
	// the new targets can be healthy.
	gateDue(r *runner, due time.Time) time.Time
	// gateShare is, for a bounded overlap, the healthy pod targets that
	// end the gate instead of every ready endpoint and the floor (zero:
	// those).
	gateShare(r *runner) int
	// gateRoom makes room under the quota at one observation v of a
	// bounded overlap's pod targets; blocked says the controller's
	// TooManyTargets refusals are expected now.
	gateRoom(ctx context.Context, r *runner, room *roomWatch, tgb *v1beta1.TargetGroupBinding, v *view) (blocked bool, err error)
	// gateStalled judges the controller stalled on TooManyTargets while
	// the overlap is bounded: an error stops the gate.
	gateStalled(ctx context.Context, r *runner, room *roomWatch, tgb *v1beta1.TargetGroupBinding, v *view) error
	// gateObserved acts at each observation, after the hold is kept, on
	// the targets that still serve (healthy counts the healthy ready
	// endpoints), and returns until when an early alignment is being
	// confirmed (zero: nothing to confirm).
	gateObserved(ctx context.Context, r *runner, v *view, healthy int) (confirmed time.Time, err error)
}

// gate waits until the pod targets are healthy: every ready endpoint that
// was there at the first observation and still is is registered and
// healthy, no ready endpoint is unhealthy, and at least the floor are
// healthy. Endpoints that appear during the wait (Karpenter reschedules
// pods) need only be registered or on their way: the LBC keeps them
// current. The strategy's gateRules add its part: in-place, each
// observation also retires recorded targets whose node is leaving and,
// after an early health-check alignment, confirms the node targets pass
// the new check (see confirmAlignment), and the gate does not end before
// that confirmation's window has passed; blue/green protects the old
// target group (see protectOld).
func (r *runner) gate(ctx context.Context, g gateRules) error {
	tgb, err := r.binding(ctx)
	if err != nil {
		return err
	}
	if tgb == nil {
		return &InvariantError{Step: StepGate, Check: "binding", Detail: "the binding does not exist"}
	}
	tgARN := tgb.Spec.TargetGroupARN
	floor := r.st.Restore.Floor
	t := r.timing()
	// The gate can end at the earliest when new targets can be healthy,
	// and not before an early alignment's confirmation window has passed.
	due := r.e.clock.Now().Add(t.newTarget())
	r.waiting(Wait{Step: StepGate, What: "pod targets healthy", Reason: reasonNewTargets, From: t.newTargetFrom(), Until: due})
	due = g.gateDue(r, due)
	var baseline map[TargetAddr]bool
	ctl := r.newControllerWatch(StepGate)
	var room *roomWatch
	if n, ok := r.bounded(); ok {
		room = &roomWatch{room: n}
	}
	share := 0
	if room != nil {
		share = g.gateShare(r)
	}
	return r.pollDue(ctx, StepGate, fmt.Sprintf("the pod targets to be healthy (at least %d)", floor), r.gateTimeout(), due, func(ctx context.Context) (bool, string, error) {
		v, err := r.observe(ctx, tgARN, tgb, "ip", r.plan.TargetGroup.VPCID)
		if err != nil {
			return false, "", err
		}
		ctl.blocked = false
		if room != nil {
			if ctl.blocked, err = g.gateRoom(ctx, r, room, tgb, v); err != nil {
				return false, "", err
			}
		}
		if err := ctl.check(ctx, r, tgb, v); err != nil {
			return false, "", err
		}
		// The controller's TooManyTargets refusals stop the gate at once
		// when no room can be made: waiting out the patience would only
		// delay the rollback.
		// A bounded overlap expects them while the room is full: only a
		// refusal after the room was free, with nothing left to remove,
		// stops it.
		switch {
		case !ctl.stalled():
		case room == nil:
			if err := r.quotaStop(ctx, StepGate, tgb, ctl.started, v); err != nil {
				return false, "", err
			}
		default:
			if err := g.gateStalled(ctx, r, room, tgb, v); err != nil {
				return false, "", err
			}
		}
		if err := r.keepHold(ctx, StepGate, v); err != nil {
			return false, "", err
		}
		if baseline == nil {
			baseline = map[TargetAddr]bool{}
			for e := range v.endpoints {
				baseline[e] = true
			}
		}
		healthy, ok := endpointHealth(v, baseline)
		confirmed, err := g.gateObserved(ctx, r, v, healthy)
		if err != nil {
			return false, "", err
		}
		r.progress(StepGate, tgARN, v, healthy, len(v.endpoints))
		desc := v.summary()
		if v.at.Before(confirmed) {
			desc += fmt.Sprintf("; the node targets pass the aligned health check so far (until %s)", confirmed.UTC().Format(time.TimeOnly))
		}
		if share > 0 {
			unhealthy := slices.ContainsFunc(v.order, func(t TargetAddr) bool { return v.targets[t].state == stateUnhealthy })
			return !unhealthy && healthy >= share, desc + fmt.Sprintf("; bounded: %d healthy needed before the first shift", share), nil
		}
		return ok && healthy >= floor && !v.at.Before(confirmed), desc, nil
	})
}

// endpointHealth counts the healthy ready endpoints and says whether none
// is unhealthy and every one of baseline still ready is healthy.
func endpointHealth(v *view, baseline map[TargetAddr]bool) (int, bool) {
	healthy, ok := 0, len(v.endpoints) > 0
	for e := range v.endpoints {
		vt, reg := v.targets[e]
		switch {
		case reg && vt.state == stateHealthy:
			healthy++
		case reg && vt.state == stateUnhealthy:
			ok = false
		case baseline[e]:
			ok = false
		}
	}
	return healthy, ok
}

// pendingRecorded lists the recorded targets not yet deregistered or
// skipped.
func (r *runner) pendingRecorded() []TargetAddr {
	var out []TargetAddr
	for _, t := range r.st.Restore.Recorded {
		if !r.st.Deregistered(t) && !slices.Contains(r.st.Skipped, t) {
			out = append(out, t)
		}
	}
	return out
}

// retireLeaving deregisters, before their turn, the recorded targets whose
// holder is on its way out: a ghost, or a node Karpenter is removing
// (tainted karpenter.sh/disrupted, labelled exclude-from-external-load-
// balancers, cordoned, not Ready, being deleted). Such a target is about to
// stop answering; deregistered now, it drains instead of failing requests.
// It never counts towards the floor, so retiring it leaves the serving
// healthy targets as they were; it is kept only when nothing else serves.
func (r *runner) retireLeaving(ctx context.Context, v *view, step string) error {
	var batch []TargetAddr
	var why []string
	for _, t := range r.pendingRecorded() {
		vt, ok := v.has(t)
		if !ok || vt.state == stateDraining || !leaving(vt.report) || v.endpoints[t] {
			continue
		}
		batch = append(batch, t)
		why = append(why, t.String()+" ("+leavingWhy(vt.report)+")")
	}
	if len(batch) == 0 {
		return nil
	}
	if v.servingHealthy < 1 {
		r.e.log.Info("keeping leaving node targets: no other healthy target serves", "targets", len(batch))
		return nil
	}
	tracked, err := lbcTracked(ctx, r.e.Client, r.ns, r.st.Binding.Name)
	if err != nil {
		return err
	}
	batch = slices.DeleteFunc(batch, func(t TargetAddr) bool { return tracked[t.String()] })
	for len(batch) > 0 {
		n := min(len(batch), r.o.batchSize)
		if err := r.deregisterBatch(ctx, step, batch[:n], "retired early: "+strings.Join(why[:n], ", ")); err != nil {
			return err
		}
		r.res.Retired = append(r.res.Retired, batch[:n]...)
		r.retiredAt = r.e.clock.Now()
		batch, why = batch[n:], why[n:]
	}
	return nil
}

// deregisterBatch deregisters one batch of recorded targets, with their
// Port, records it in the journal, saves, and calls the hook.
func (r *runner) deregisterBatch(ctx context.Context, step string, batch []TargetAddr, note string) error {
	if err := r.aws.deregister(ctx, r.tgARN, batch); err != nil {
		return err
	}
	r.st.RecordBatch(batch...)
	if note != "" {
		r.st.Notes = append(r.st.Notes, note)
	}
	r.res.Deregistered += len(batch)
	r.res.Batches++
	r.e.log.Info("deregistered", "step", step, "targets", len(batch), "batch", r.st.Deregistration.BatchesDone)
	if err := r.save(ctx); err != nil {
		return err
	}
	return r.hook(ctx, Event{Kind: EventBatch, Step: step, Batch: r.st.Deregistration.BatchesDone, Targets: len(batch)})
}

// verifyPods waits, for at most the verify timeout, until the target group
// holds the Service's pod endpoints only, all healthy, and at least the
// floor of them; more must hold too when also is given (in-place: no
// recorded target left). A target is a pod's when it is a ready endpoint
// of the Service, or the LBC tracks it (aws-lbc-targets-<binding>: a pod
// on its way in or out); recorded and draining targets are left to also
// and to ELB.
//
// Every ready endpoint must be registered and healthy, and no pod target
// unhealthy, with one allowance: an endpoint still in its first health
// checks (state initial, or not registered yet by the LBC) is let off while
// its pod turned Ready less than one health-check window ago
// (registration and the passing checks a new target needs, under the
// plan's assumptions, and one interval more for the LBC's reaction and the
// checks' schedule). The allowance is needed
// under churn: Karpenter drains nodes, their pods start again elsewhere,
// and at any moment some pod target has just joined. Demanding those
// healthy too made the blue/green acceptance cutover (every node replaced
// while it runs) wait 105 s more for pods that joined a moment before
// (ratio 1.48 instead of 1.06), and under steady churn (a node every
// minute) a verification never ends (TestRollbackUnderSteadyChurn's
// Execute timed out in verify). The allowance cannot hide a pod that
// fails its checks (unhealthy), one that gets no traffic (unused,
// unavailable), or one the LBC has not registered a window after it was
// Ready: each must be healthy like the others.
//
// A target that is not a pod's (a node target registered after the plan,
// an address nothing in the cluster holds) is never removed: once the rest
// holds, it stops the step with a *NonPodTargetsError naming each, unless
// WithAllowNonPodTargets(true), which turns it into a result warning.
func (r *runner) verifyPods(ctx context.Context, tgARN string, tgb *v1beta1.TargetGroupBinding, also func(*view) (bool, string)) error {
	if tgb == nil {
		return &InvariantError{Step: StepVerify, Check: "binding", Detail: "the binding does not exist"}
	}
	floor := r.st.Restore.Floor
	t := r.timing()
	window := t.newTarget() + time.Duration(t.interval)*time.Second
	var others []NonPodTarget
	err := r.poll(ctx, StepVerify, "only healthy pod targets", r.o.verifyTimeout, func(ctx context.Context) (bool, string, error) {
		v, err := r.observe(ctx, tgARN, tgb, "ip", r.plan.TargetGroup.VPCID)
		if err != nil {
			return false, "", err
		}
		if err := r.keepHold(ctx, StepVerify, v); err != nil {
			return false, "", err
		}
		tracked, err := lbcTracked(ctx, r.e.Client, r.ns, tgb.Name)
		if err != nil {
			return false, "", err
		}
		readySince := r.podsReadySince()
		healthy, settling, notYet, unhealthy := 0, 0, 0, 0
		for e := range v.endpoints {
			vt, reg := v.targets[e]
			since, known := readySince[e.IP]
			switch {
			case reg && vt.state == stateHealthy:
				healthy++
			case reg && vt.state == stateUnhealthy:
				unhealthy++
			case (!reg || vt.state == stateInitial) && known && v.at.Sub(since) < window:
				settling++
			default:
				notYet++
			}
		}
		others = others[:0]
		for _, t := range v.order {
			vt := v.targets[t]
			switch {
			case v.endpoints[t] || vt.state == stateDraining || r.isRecorded(t):
			case tracked[t.String()]:
				if vt.state == stateUnhealthy {
					unhealthy++
				}
			default:
				others = append(others, NonPodTarget{TargetAddr: t, Class: string(vt.report.Class), State: vt.state})
			}
		}
		ok, desc := true, ""
		if also != nil {
			ok, desc = also(v)
			desc += ", "
		}
		r.progress(StepVerify, tgARN, v, healthy, len(v.endpoints))
		desc += fmt.Sprintf("%d of %d pod endpoints healthy (floor %d), %d in their first health checks, %d not healthy yet, %s unhealthy, %s not pods'",
			healthy, len(v.endpoints), floor, settling, notYet, textcell.Plural(unhealthy, "pod target", "pod targets"), textcell.Plural(len(others), "target", "targets"))
		ok = ok && notYet == 0 && unhealthy == 0 && healthy >= floor
		if !ok || len(others) == 0 {
			return ok, desc, nil
		}
		if r.o.allowNonPod {
			r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("target group %s holds %s, allowed by WithAllowNonPodTargets: %s", tgARN, textcell.Plural(len(others), "target that is not a pod endpoint", "targets that are not pod endpoints"), nonPodString(others)))
			return true, desc, nil
		}
		return false, desc, &NonPodTargetsError{Step: StepVerify, TargetGroupARN: r.typedARN(tgARN), Targets: slices.Clone(others)}
	})
	return err
}
