package cutover

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/retry"
	"github.com/qstools/tgmigrate/tgbind"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

const (
	stateHealthy   = string(elbv2types.TargetHealthStateEnumHealthy)
	stateUnhealthy = string(elbv2types.TargetHealthStateEnumUnhealthy)
	stateDraining  = string(elbv2types.TargetHealthStateEnumDraining)
	stateInitial   = string(elbv2types.TargetHealthStateEnumInitial)
)

// poll calls cond every poll interval, keeping the lease alive, until it
// holds; past timeout it gives a *TimeoutError naming what
// it waited for and the last observation. Transient failures (throttling)
// count as "not yet".
func (r *runner) poll(ctx context.Context, step, what string, timeout time.Duration, cond func(context.Context) (bool, string, error)) error {
	return r.pollDue(ctx, step, what, timeout, time.Time{}, cond)
}

// pollDue polls as poll does, and looks more closely around due, when the
// condition can hold at the earliest (the floor of the wait, zero for
// none): one observation at due itself when it falls between two polls,
// then one every fine poll interval (a fifth of the poll interval) for two
// poll intervals after it. A wait then ends within about a second of when
// it could, not up to a poll interval later, for a few more reads.
func (r *runner) pollDue(ctx context.Context, step, what string, timeout time.Duration, due time.Time, cond func(context.Context) (bool, string, error)) error {
	start := r.e.clock.Now()
	last := "no observation"
	p := retry.Policy{Initial: r.o.poll, Max: r.o.poll, Multiplier: 1, MaxElapsed: timeout}
	check := func(ctx context.Context) (bool, error) {
		if err := r.keepAlive(ctx); err != nil {
			return false, err
		}
		ok, desc, err := cond(ctx)
		if desc != "" {
			last = desc
		}
		return ok, err
	}
	fine := max(r.o.poll/5, time.Millisecond)
	err := retry.Poll(ctx, r.e.clock, p, func(ctx context.Context) (bool, error) {
		ok, err := check(ctx)
		for !ok && err == nil && !due.IsZero() {
			now := r.e.clock.Now()
			var next time.Time
			switch {
			case now.Before(due):
				next = due
			case now.Before(due.Add(2 * r.o.poll)):
				next = now.Add(fine)
			}
			if next.IsZero() || !next.Before(now.Add(r.o.poll)) {
				break // the regular poll comes first
			}
			t := r.e.clock.NewTimer(next.Sub(now))
			select {
			case <-ctx.Done():
				t.Stop()
				return false, context.Cause(ctx)
			case <-t.C():
			}
			ok, err = check(ctx)
		}
		return ok, err
	}, retry.WithRetryable(transient))
	var gaveUp *retry.GaveUpError
	if errors.As(err, &gaveUp) {
		if gaveUp.Last != nil {
			last += " (last error: " + gaveUp.Last.Error() + ")"
		}
		return &TimeoutError{Step: step, What: what, Elapsed: r.e.clock.Since(start), Last: last}
	}
	return err
}

// timing is what the executor's waits derive from: the plan's
// assumptions and the health check the pod targets are checked with (the
// aligned one, or the new target group's), and the deregistration delay.
func (r *runner) timing() timing {
	p := r.plan
	return newTiming(p.Request.Assumptions, p.HealthCheck.Target, p.TargetGroup.DeregistrationDelaySeconds)
}

// waiting tells the observer and the log what a step waits for, why, and
// what the expected length derives from.
func (r *runner) waiting(w Wait) {
	r.o.observer.Waiting(w)
	r.e.log.Info("waiting", "step", w.Step, "for", w.What, "reason", w.Reason, "from", w.From, "until", w.Until)
}

// floorGrace is how long a floor shortfall may last before it is a breach,
// and what it derives from: by default the time a pod Karpenter
// rescheduled takes to be a healthy target (registration and the passing
// checks a new target needs).
func (r *runner) floorGrace() (time.Duration, string) {
	switch {
	case r.o.floorGrace < 0:
		return 0, "WithFloorGrace: none"
	case r.o.floorGrace > 0:
		return r.o.floorGrace, fmt.Sprintf("WithFloorGrace %v", r.o.floorGrace)
	}
	t := r.timing()
	return t.newTargetAtMost(), t.newTargetAtMostFrom()
}

// alignHealthCheck sets the health check to traffic-port and the pods'
// path, recording the original first. It makes no call when the health
// check is already aligned.
func (r *runner) alignHealthCheck(ctx context.Context) error {
	p := r.plan
	arn := p.TargetGroup.ARN
	if p.HealthCheck.Timing == HealthCheckAfterDeregistration {
		health, err := r.aws.health(ctx, arn, false)
		if err != nil {
			return err
		}
		var left []TargetAddr
		for _, d := range health {
			t := addrOf(d)
			if slices.Contains(r.st.Restore.Recorded, t) && d.TargetHealth != nil && string(d.TargetHealth.State) != stateDraining {
				left = append(left, t)
			}
		}
		if len(left) > 0 {
			return &InvariantError{Step: StepAlignHealthCheck, Check: "recorded-set", Targets: left,
				Detail: fmt.Sprintf("%d recorded node targets are still registered and would fail the new health check", len(left))}
		}
	}
	tg, err := r.aws.targetGroup(ctx, arn, false)
	if err != nil {
		return err
	}
	cur := healthCheckOf(tg)
	if r.st.HealthCheck.Original == nil {
		o := p.HealthCheck.Original.Clone()
		r.st.HealthCheck.Original = &o
		if err := r.save(ctx); err != nil {
			return err
		}
	}
	diff := hcChangesFrom(p.HealthCheck.Target, cur)
	if !hcEmpty(diff) {
		if p.HealthCheck.Timing == HealthCheckBeforeBinding {
			if err := r.noteHealthyNodes(ctx); err != nil {
				return err
			}
		}
		if err := r.aws.modifyHealthCheck(ctx, arn, diff); err != nil {
			return err
		}
		r.e.log.Info("health check aligned", "to", hcString(p.HealthCheck.Target))
	}
	r.st.HealthCheck.Aligned = true
	return nil
}

// noteHealthyNodes journals, before an early alignment, which recorded
// node targets are healthy and when the health check changes, so that the
// gate can confirm they stay healthy under the new check, a crash
// notwithstanding.
func (r *runner) noteHealthyNodes(ctx context.Context) error {
	health, err := r.aws.health(ctx, r.tgARN, false)
	if err != nil {
		return err
	}
	var healthy []TargetAddr
	for _, d := range health {
		if t := addrOf(d); r.isRecorded(t) && d.TargetHealth != nil && string(d.TargetHealth.State) == stateHealthy {
			healthy = append(healthy, t)
		}
	}
	r.st.HealthCheck.HealthyNodes, r.st.HealthCheck.ModifiedAt = healthy, r.e.clock.Now()
	return r.save(ctx)
}

// alignmentWindow is how long the node targets must stay healthy after an
// early alignment: UnhealthyThresholdCount intervals of the new check. A
// node target healthy under the old check stays healthy until that many
// consecutive checks fail: the first check under the new settings comes
// within one interval of the change and the next ones an interval apart,
// so one that fails the new check is unhealthy at the latest then; one
// still healthy then passes it. (HealthyThresholdCount does not come into
// it: a healthy target does not need to pass again to stay healthy.)
func (r *runner) alignmentWindow() time.Duration { return r.timing().alignment() }

// confirmAlignment checks, after an early alignment, that the node targets
// healthy before it still pass the new check: one whose node is not
// leaving (Karpenter's doing, not the check's) and that is unhealthy now
// is a breach. The plan assumed the node targets pass the aligned check
// (kube-proxy forwards their NodePort to a pod); they do not, so the
// cutover stops before the healthy targets fall below the floor, and the
// rollback restores the health check first, before it waits for node
// targets to be healthy. It returns when the confirmation ends (zero when
// there is nothing to confirm).
func (r *runner) confirmAlignment(ctx context.Context, v *view) (time.Time, error) {
	hc := r.st.HealthCheck
	if r.plan.Strategy != StrategyInPlace || hc.ModifiedAt.IsZero() {
		return time.Time{}, nil
	}
	var failing []TargetAddr
	reasons := map[string]int{}
	for _, t := range hc.HealthyNodes {
		vt, ok := v.has(t)
		if !ok || vt.state != stateUnhealthy || leaving(vt.report) {
			continue
		}
		failing = append(failing, t)
		reasons[vt.report.Reason]++
	}
	if len(failing) == 0 {
		return hc.ModifiedAt.Add(r.alignmentWindow()), nil
	}
	r.st.Restore.HealthCheckFirst = true
	r.st.Notes = append(r.st.Notes, fmt.Sprintf("node targets fail the aligned health check: %s", joinAddrs(failing)))
	if err := r.save(ctx); err != nil {
		return time.Time{}, err
	}
	return time.Time{}, &InvariantError{Step: StepGate, Check: "health-check", Targets: failing, Healthy: v.servingHealthy, Floor: r.st.Restore.Floor,
		Detail: fmt.Sprintf("%d of the %d node targets healthy before the health check was aligned fail it now (%v): it does not suit them; the rollback restores it first",
			len(failing), len(hc.HealthyNodes), reasons)}
}

func addrOf(d elbv2types.TargetHealthDescription) TargetAddr {
	if d.Target == nil {
		return TargetAddr{}
	}
	t := TargetAddr{}
	if d.Target.Id != nil {
		t.IP = *d.Target.Id
	}
	if d.Target.Port != nil {
		t.Port = *d.Target.Port
	}
	return t
}

// bindInPlace applies the plan's binding through tgbind, which validates it
// first (every preflight check, the server-side dry run included) and
// changes nothing when it is already there.
func (r *runner) bindInPlace(ctx context.Context) error {
	obj := r.plan.Binding.Object.DeepCopy()
	return r.apply(ctx, obj)
}

// apply records the binding's name, then applies it.
func (r *runner) apply(ctx context.Context, obj *v1beta1.TargetGroupBinding) error {
	r.st.Binding.Namespace, r.st.Binding.Name = obj.Namespace, obj.Name
	if err := r.save(ctx); err != nil {
		return err
	}
	var res *tgbind.ApplyResult
	err := r.aws.retryTransient(ctx, true, func(ctx context.Context) (err error) {
		res, err = r.binder.Apply(ctx, obj)
		return err
	})
	if err != nil {
		return err
	}
	r.st.Binding.Created = true
	r.tgb = nil
	r.e.log.Info("binding applied", "binding", obj.Namespace+"/"+obj.Name, "operation", res.Operation)
	return nil
}

// gate waits until the pod targets are healthy: every ready endpoint that
// was there at the first observation and still is is registered and
// healthy, no ready endpoint is unhealthy, and at least the floor are
// healthy. Endpoints that appear during the wait (Karpenter reschedules
// pods) need only be registered or on their way: the LBC keeps them
// current. In-place, each observation also retires recorded targets whose
// node is leaving and, after an early health-check alignment, confirms
// the node targets pass the new check (see confirmAlignment); the gate
// does not end before that confirmation's window has passed.
func (r *runner) gate(ctx context.Context) error {
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
	if hc := r.st.HealthCheck; r.plan.Strategy == StrategyInPlace && !hc.ModifiedAt.IsZero() {
		end := hc.ModifiedAt.Add(t.alignment())
		r.waiting(Wait{Step: StepGate, What: "the early health-check alignment confirmed", Reason: reasonAlignment, From: t.alignmentFrom(), Until: end})
		if end.After(due) {
			due = end
		}
	}
	var baseline map[TargetAddr]bool
	ctl := r.newControllerWatch(StepGate)
	var room *roomWatch
	if n, ok := r.bounded(); ok {
		room = &roomWatch{room: n}
	}
	// A bounded blue/green overlap needs, before its first shift, only the
	// new target group's share of the floor: the rest of the pod targets
	// find room as the old target group gives its share up.
	bgShare := 0
	if room != nil && r.plan.Strategy == StrategyBlueGreen {
		bgShare, _ = r.shareFloors(r.plan.BlueGreen.WeightSteps[min(1, len(r.plan.BlueGreen.WeightSteps)-1)])
	}
	return r.pollDue(ctx, StepGate, fmt.Sprintf("the pod targets to be healthy (at least %d)", floor), r.gateTimeout(), due, func(ctx context.Context) (bool, string, error) {
		v, err := r.observe(ctx, tgARN, tgb, "ip", r.plan.TargetGroup.VPCID)
		if err != nil {
			return false, "", err
		}
		ctl.blocked = false
		switch {
		case room != nil && r.plan.Strategy == StrategyBlueGreen:
			old, s, err := r.bgRoom(ctx, v, room.room)
			if err != nil {
				return false, "", err
			}
			if ctl.blocked, err = room.stepWith(ctx, r, StepGate, tgb, v, old, s, r.st.Restore.Floor); err != nil {
				return false, "", err
			}
		case room != nil:
			if ctl.blocked, err = room.step(ctx, r, StepGate, tgb, v); err != nil {
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
		case room != nil && r.plan.Strategy == StrategyBlueGreen:
			// Room is made in the old target group: the patience judges.
		case room == nil:
			if err := r.quotaStop(ctx, StepGate, tgb, ctl.started, v); err != nil {
				return false, "", err
			}
		case !room.freeSince.IsZero() && !r.hasRemovable(v):
			if err := r.quotaStop(ctx, StepGate, tgb, room.freeSince, v); err != nil {
				return false, "", err
			}
		}
		if err := r.keepHold(ctx, StepGate, v); err != nil {
			return false, "", err
		}
		if r.plan.Strategy == StrategyInPlace {
			if err := r.retireLeaving(ctx, v, StepGate); err != nil {
				return false, "", err
			}
		}
		if baseline == nil {
			baseline = map[TargetAddr]bool{}
			for e := range v.endpoints {
				baseline[e] = true
			}
		}
		healthy, ok := endpointHealth(v, baseline)
		if err := r.protectOld(ctx, StepGate, v.snap, healthy); err != nil {
			return false, "", err
		}
		confirmed, err := r.confirmAlignment(ctx, v)
		if err != nil {
			return false, "", err
		}
		r.progress(StepGate, tgARN, v, healthy, len(v.endpoints))
		desc := v.summary()
		if v.at.Before(confirmed) {
			desc += fmt.Sprintf("; the node targets pass the aligned health check so far (until %s)", confirmed.UTC().Format(time.TimeOnly))
		}
		if bgShare > 0 {
			unhealthy := slices.ContainsFunc(v.order, func(t TargetAddr) bool { return v.targets[t].state == stateUnhealthy })
			return !unhealthy && healthy >= bgShare, desc + fmt.Sprintf("; bounded: %d healthy needed before the first shift", bgShare), nil
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

// deregister removes the recorded targets in batches. Before each batch it
// observes the target group and the cluster again and checks the
// invariants: every target of the batch is a recorded one that is not a
// ready pod endpoint now and not in the LBC's ConfigMap; and the healthy
// targets that keep serving after the batch are at least the floor (a
// batch of leaving targets, which do not count, needs one other). A floor
// shortfall is waited out for the floor grace, then breached.
func (r *runner) deregister(ctx context.Context) error {
	tgb, err := r.binding(ctx)
	if err != nil {
		return err
	}
	floor := r.st.Restore.Floor
	for {
		if err := r.keepAlive(ctx); err != nil {
			return err
		}
		v, err := r.observe(ctx, r.tgARN, tgb, "ip", r.plan.TargetGroup.VPCID)
		if err != nil {
			return err
		}
		if err := r.keepHold(ctx, StepDeregister, v); err != nil {
			return err
		}
		r.progress(StepDeregister, r.tgARN, v, v.servingHealthy, len(v.order))
		r.noteUnplanned(v)
		pending := r.pendingRecorded()
		var present, gone []TargetAddr
		for _, t := range pending {
			if vt, ok := v.has(t); ok && vt.state != stateDraining {
				present = append(present, t)
			} else {
				gone = append(gone, t)
			}
		}
		if len(gone) > 0 {
			r.st.Skipped = append(r.st.Skipped, gone...)
			r.res.Skipped = append(r.res.Skipped, gone...)
			r.st.Notes = append(r.st.Notes, fmt.Sprintf("skipped %d recorded targets already gone or draining: %s", len(gone), joinAddrs(gone)))
			if err := r.save(ctx); err != nil {
				return err
			}
		}
		if len(present) == 0 {
			return nil
		}
		// Leaving targets first, in their own batches: they do not count
		// towards the floor.
		var leavingOnes, rest []TargetAddr
		for _, t := range present {
			if leaving(v.targets[t].report) {
				leavingOnes = append(leavingOnes, t)
			} else {
				rest = append(rest, t)
			}
		}
		batch, allLeaving := rest, false
		if len(leavingOnes) > 0 {
			batch, allLeaving = leavingOnes, true
		}
		batch = batch[:min(len(batch), r.o.batchSize)]

		tracked, err := lbcTracked(ctx, r.e.Client, r.ns, r.st.Binding.Name)
		if err != nil {
			return err
		}
		var endpoints, trackedOnes []TargetAddr
		for _, t := range batch {
			switch {
			case v.endpoints[t]:
				endpoints = append(endpoints, t)
			case tracked[t.String()]:
				trackedOnes = append(trackedOnes, t)
			}
		}
		if len(endpoints) > 0 {
			return &InvariantError{Step: StepDeregister, Check: "pod-endpoint", Targets: endpoints,
				Detail: fmt.Sprintf("%d recorded targets are ready pod endpoints now (addresses reused by pods): %s", len(endpoints), joinAddrs(endpoints))}
		}
		if len(trackedOnes) > 0 {
			return &InvariantError{Step: StepDeregister, Check: "lbc-tracked", Targets: trackedOnes,
				Detail: fmt.Sprintf("%d recorded targets are in the LBC's ConfigMap %s%s: %s", len(trackedOnes), lbcTrackedPrefix, r.st.Binding.Name, joinAddrs(trackedOnes))}
		}
		if after := servingAfter(v, batch); !(after >= floor || (allLeaving && after >= 1)) {
			if err := r.waitFloor(ctx, tgb, batch, allLeaving, after); err != nil {
				return err
			}
			continue // observe again before the batch
		}
		note := ""
		if allLeaving {
			note = "deregistered leaving targets first: " + joinAddrs(batch)
		}
		if err := r.deregisterBatch(ctx, StepDeregister, batch, note); err != nil {
			return err
		}
	}
}

// servingAfter counts the healthy targets that keep serving once batch is
// deregistered.
func servingAfter(v *view, batch []TargetAddr) int {
	after := v.servingHealthy
	for _, t := range batch {
		if vt, ok := v.targets[t]; ok && vt.state == stateHealthy && !leaving(vt.report) {
			after--
		}
	}
	return after
}

// waitFloor waits, for at most the floor grace, until deregistering batch
// would leave at least the floor serving (a batch of leaving targets needs
// one other); past it, an *InvariantError. after is the shortfall found.
func (r *runner) waitFloor(ctx context.Context, tgb *v1beta1.TargetGroupBinding, batch []TargetAddr, allLeaving bool, after int) error {
	floor := r.st.Restore.Floor
	breach := func(after int, waited time.Duration) error {
		return &InvariantError{Step: StepDeregister, Check: "floor", Healthy: after, Floor: floor, Targets: batch,
			Detail: fmt.Sprintf("after this batch of %d, %d healthy targets would serve, below the floor of %d (waited %v)", len(batch), after, floor, waited)}
	}
	grace, from := r.floorGrace()
	if grace <= 0 {
		return breach(after, 0)
	}
	start := r.e.clock.Now()
	r.waiting(Wait{Step: StepDeregister, What: fmt.Sprintf("the floor of %d healthy targets (%d would serve)", floor, after),
		Reason: "pods Karpenter rescheduled become healthy targets: " + reasonNewTargets, From: from, Until: start.Add(grace)})
	err := r.poll(ctx, StepDeregister, fmt.Sprintf("the floor of %d healthy targets", floor), grace, func(ctx context.Context) (bool, string, error) {
		v, err := r.observe(ctx, r.tgARN, tgb, "ip", r.plan.TargetGroup.VPCID)
		if err != nil {
			return false, "", err
		}
		if err := r.keepHold(ctx, StepDeregister, v); err != nil {
			return false, "", err
		}
		after = servingAfter(v, batch)
		r.progress(StepDeregister, r.tgARN, v, v.servingHealthy, len(v.order))
		return after >= floor || (allLeaving && after >= 1), fmt.Sprintf("%d would serve", after), nil
	})
	if IsTimeout(err) {
		return breach(after, r.e.clock.Since(start))
	}
	return err
}

// noteUnplanned reports node targets that are in the target group but not
// in the plan: registered after it. They are left alone.
func (r *runner) noteUnplanned(v *view) {
	for _, t := range v.order {
		vt := v.targets[t]
		if vt.state == stateDraining || v.endpoints[t] || slices.Contains(r.st.Restore.Recorded, t) || slices.Contains(r.res.Unplanned, t) {
			continue
		}
		if vt.report.Class == diagnose.ClassNode || vt.report.Class == diagnose.ClassGhost {
			r.res.Unplanned = append(r.res.Unplanned, t)
			r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("target %s (%s) was registered after the plan: left in the target group", t, vt.report.Class))
		}
	}
}

func joinAddrs(ts []TargetAddr) string { return joinFirst(ts, TargetAddr.String) }

// joinFirst joins the first ten of items as str renders them, and says
// how many more there are.
func joinFirst[T any](items []T, str func(T) string) string {
	s := make([]string, 0, min(len(items), 11))
	for i, t := range items {
		if i == 10 {
			s = append(s, fmt.Sprintf("and %d more", len(items)-10))
			break
		}
		s = append(s, str(t))
	}
	return strings.Join(s, ", ")
}

// drain waits until no recorded target is left in the target group,
// draining ones included.
func (r *runner) drain(ctx context.Context) error {
	t := r.timing()
	delay := t.drain()
	timeout := r.o.drainTimeout
	if timeout == 0 {
		timeout = delay + DefaultDrainMargin
	}
	until := time.Time{}
	if rec := r.st.Step(StepDeregister); rec != nil && !rec.FinishedAt.IsZero() {
		until = rec.FinishedAt.Add(delay)
	}
	r.waiting(Wait{Step: StepDrain, What: "the deregistration delay", Reason: reasonDrain, From: t.drainFrom(), Until: until})
	recorded := r.st.Restore.Recorded
	return r.poll(ctx, StepDrain, "the recorded targets to finish draining", timeout, func(ctx context.Context) (bool, string, error) {
		if r.holdActive() {
			// The nodes that joined meanwhile and run the Service's pods
			// are held too (the draining targets' nodes are already).
			_, objs, err := r.e.lightSnapshot(ctx, false)
			if err != nil {
				return false, "", err
			}
			r.objs = objs
			if err := r.keepHold(ctx, StepDrain); err != nil {
				return false, "", err
			}
		}
		health, err := r.aws.health(ctx, r.tgARN, false)
		if err != nil {
			return false, "", err
		}
		left, draining, healthy := 0, 0, 0
		for _, d := range health {
			st := ""
			if d.TargetHealth != nil {
				st = string(d.TargetHealth.State)
			}
			switch {
			case slices.Contains(recorded, addrOf(d)):
				left++
			case st == stateHealthy:
				healthy++
			}
			if st == stateDraining {
				draining++
			}
		}
		r.o.observer.Targets(Progress{Step: StepDrain, At: r.e.clock.Now(), TargetGroupARN: r.tgARN, Healthy: healthy, Total: len(health),
			Draining: draining, Floor: r.st.Restore.Floor, Summary: fmt.Sprintf("%d recorded targets left (draining), %d other targets healthy", left, healthy)})
		return left == 0, fmt.Sprintf("%d recorded targets left", left), nil
	})
}

// verifyInPlace checks the end state: no recorded target left, and the
// target group holding the Service's pod endpoints only, healthy (see
// verifyPods). Node targets registered after the plan are reported in the
// result.
func (r *runner) verifyInPlace(ctx context.Context) error {
	tgb, err := r.binding(ctx)
	if err != nil {
		return err
	}
	return r.verifyPods(ctx, r.tgARN, tgb, func(v *view) (bool, string) {
		r.noteUnplanned(v)
		left := 0
		for _, t := range v.order {
			if slices.Contains(r.st.Restore.Recorded, t) {
				left++
			}
		}
		return left == 0, fmt.Sprintf("%d recorded targets left", left)
	})
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
		readySince, err := podsReadySince(ctx, r.e.Client, r.ns)
		if err != nil {
			return false, "", err
		}
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
		desc += fmt.Sprintf("%d of %d pod endpoints healthy (floor %d), %d in their first health checks, %d not healthy yet, %d pod targets unhealthy, %d targets not pods'",
			healthy, len(v.endpoints), floor, settling, notYet, unhealthy, len(others))
		ok = ok && notYet == 0 && unhealthy == 0 && healthy >= floor
		if !ok || len(others) == 0 {
			return ok, desc, nil
		}
		if r.o.allowNonPod {
			r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("target group %s holds %d targets that are not pod endpoints, allowed by WithAllowNonPodTargets: %s", tgARN, len(others), nonPodString(others)))
			return true, desc, nil
		}
		return false, desc, &NonPodTargetsError{Step: StepVerify, TargetGroupARN: tgARN, Targets: slices.Clone(others)}
	})
	return err
}

// isRecorded reports whether t is one of the plan's recorded targets.
func (r *runner) isRecorded(t TargetAddr) bool {
	return r.st.Restore != nil && slices.Contains(r.st.Restore.Recorded, t)
}
