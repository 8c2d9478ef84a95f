package cutover

// undo.go holds the rollback actions both strategies share: the live nodes
// registered on the NodePort, the wait until they are healthy (retiring the
// targets of leaving nodes), the binding deleted and the health check
// restored.

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/textcell"
	"github.com/qstools/tgmigrate/tgbind"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

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
	ns, err := rb.liveNodes(ctx, nil)
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
			e := &QuotaError{Op: RollbackRegisterNodes, TargetGroupARN: rb.tg,
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
		ns, err := rb.liveNodes(ctx, v.snap)
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
		if err := rb.strat.watchOld(ctx, rb, v); err != nil {
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
		desc := fmt.Sprintf("%d of %d live node targets healthy (need %d); %s being replaced", healthy, len(live), need, textcell.Plural(len(unsettled), "node", "nodes"))
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
	diff := orig.ChangesFrom(tgmigrate.HealthCheckOf(tg))
	if diff.IsZero() {
		return nil
	}
	if err := rb.aws.modifyHealthCheck(ctx, rb.tgARN, diff); err != nil {
		return err
	}
	rb.st.HealthCheck.Aligned = false
	return nil
}
