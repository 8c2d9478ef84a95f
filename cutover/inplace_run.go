package cutover

// inplace_run.go holds the in-place strategy's execution: its steps
// dispatched (run), the health-check alignment and its confirmation, the
// binding, the deregistration in batches above the floor, the drain and the
// verification.

import (
	"context"
	"fmt"
	"slices"
	"time"

	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// gateDue waits also for an early alignment's confirmation window.
func (inPlace) gateDue(r *runner, due time.Time) time.Time {
	if hc := r.st.HealthCheck; !hc.ModifiedAt.IsZero() {
		t := r.timing()
		end := hc.ModifiedAt.Add(t.alignment())
		r.waiting(Wait{Step: StepGate, What: "the early health-check alignment confirmed", Reason: reasonAlignment, From: t.alignmentFrom(), Until: end})
		if end.After(due) {
			due = end
		}
	}
	return due
}

// gateShare is zero: a bounded in-place overlap still waits for every
// ready endpoint and the floor.
func (inPlace) gateShare(*runner) int { return 0 }

// gateRoom deregisters node targets of the bound target group to make room.
func (inPlace) gateRoom(ctx context.Context, r *runner, room *roomWatch, tgb *v1beta1.TargetGroupBinding, v *view) (bool, error) {
	return room.step(ctx, r, StepGate, tgb, v)
}

// gateStalled stops the gate on a refusal that comes after the room was
// free, with nothing left to remove.
func (inPlace) gateStalled(ctx context.Context, r *runner, room *roomWatch, tgb *v1beta1.TargetGroupBinding, v *view) error {
	if !room.freeSince.IsZero() && !r.hasRemovable(v) {
		return r.quotaStop(ctx, StepGate, tgb, room.freeSince, v)
	}
	return nil
}

// gateObserved retires the recorded targets whose node is leaving, then
// confirms an early alignment.
func (inPlace) gateObserved(ctx context.Context, r *runner, v *view, _ int) (time.Time, error) {
	if err := r.retireLeaving(ctx, v, StepGate); err != nil {
		return time.Time{}, err
	}
	return r.confirmAlignment(ctx, v)
}

// inPlaceRoom observes the bound target group for the make-room step.
func (r *runner) inPlaceRoom(ctx context.Context, room int) (*view, roomState, error) {
	v, err := r.observe(ctx, r.tgARN, r.plan.Binding.Object.DeepCopy(), "ip", r.plan.TargetGroup.VPCID)
	if err != nil {
		return nil, roomState{}, err
	}
	return v, roomOf(v, room), nil
}

// run executes one of the in-place steps.
func (inPlace) run(ctx context.Context, r *runner, step Step) error {
	switch step.ID {
	case StepAlignHealthCheck:
		return r.alignHealthCheck(ctx)
	case StepMakeRoom:
		return r.makeRoom(ctx, r.inPlaceRoom)
	case StepBind:
		return r.bindInPlace(ctx)
	case StepGate:
		return r.gate(ctx, inPlace{})
	case StepDeregister:
		return r.deregister(ctx)
	case StepDrain:
		return r.drain(ctx)
	case StepVerify:
		return r.verifyInPlace(ctx)
	}
	return unknownStep(step)
}

// alignHealthCheck sets the health check to traffic-port and the pods'
// path, recording the original first. It makes no call when the health
// check is already aligned.
func (r *runner) alignHealthCheck(ctx context.Context) error {
	p := r.plan
	arn := p.TargetGroup.ARN
	if p.HealthCheck.Timing == HealthCheckAfterDeregistration {
		health, err := r.aws.health(ctx, arn.Raw, false)
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
	tg, err := r.aws.targetGroup(ctx, arn.Raw, false)
	if err != nil {
		return err
	}
	cur := tgmigrate.HealthCheckOf(tg)
	if r.st.HealthCheck.Original == nil {
		o := p.HealthCheck.Original.Clone()
		r.st.HealthCheck.Original = &o
		if err := r.save(ctx); err != nil {
			return err
		}
	}
	diff := p.HealthCheck.Target.ChangesFrom(cur)
	if !diff.IsZero() {
		if p.HealthCheck.Timing == HealthCheckBeforeBinding {
			if err := r.noteHealthyNodes(ctx); err != nil {
				return err
			}
		}
		if err := r.aws.modifyHealthCheck(ctx, arn.Raw, diff); err != nil {
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
	if hc.ModifiedAt.IsZero() {
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
			objs, err := r.holdObjects(ctx)
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
		r.o.observer.Targets(Progress{Step: StepDrain, At: r.e.clock.Now(), TargetGroupARN: r.tg, Healthy: healthy, Total: len(health),
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

// isRecorded reports whether t is one of the plan's recorded targets.
func (r *runner) isRecorded(t TargetAddr) bool {
	return r.st.Restore != nil && slices.Contains(r.st.Restore.Recorded, t)
}
