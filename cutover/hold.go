package cutover

// This file holds Karpenter's graceful disruption during a cutover and a
// rollback, and releases it.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/textcell"
)

// The annotations of the disruption hold.
const (
	// AnnotationDoNotDisrupt set to "true" on a node blocks Karpenter's
	// graceful disruption of it (consolidation, drift): one not started
	// does not start. It does not block forceful disruption (expiry, spot
	// interruption, repair, deletion of the Node or its NodeClaim).
	AnnotationDoNotDisrupt = diagnose.AnnotationDoNotDisrupt
	// AnnotationDisruptionHold names the plan whose hold set
	// AnnotationDoNotDisrupt on a node. The release removes
	// AnnotationDoNotDisrupt only from a node that still carries it with
	// this mark and the value "true": never an annotation the hold found,
	// nor one someone changed since.
	AnnotationDisruptionHold = "tgmigrate.qstools.io/disruption-hold"
)

// holdConflictRetries bounds the re-reads of a node whose patch met a
// conflict (someone else wrote it meanwhile).
const holdConflictRetries = 5

// holds reports whether the plan (or, without it, the journal) holds
// Karpenter's disruption.
func (r *runner) holds() bool {
	if r.plan != nil {
		return !r.plan.Request.NoDisruptionHold
	}
	return r.st != nil && r.st.Restore != nil && !r.st.Restore.NoDisruptionHold
}

// holdActive reports whether the journal's hold stands.
func (r *runner) holdActive() bool { return r.st != nil && r.st.DisruptionHold.Active() }

// holdDisruption starts the hold unless it stands already, makes sure
// every node the journal says it annotated carries the annotation (a crash
// may have come between a node's record and its patch), and holds every
// node views and the Service's pods show. step names the step or rollback
// action.
func (r *runner) holdDisruption(ctx context.Context, step string, views ...*view) error {
	if !r.holds() {
		return nil
	}
	if r.st.DisruptionHold == nil {
		r.st.DisruptionHold = &DisruptionHold{}
	}
	h := r.st.DisruptionHold
	if !h.Active() {
		h.HeldAt, h.ReleasedAt = r.e.clock.Now(), time.Time{}
		if err := r.save(ctx); err != nil {
			return err
		}
		r.e.log.Info("disruption hold started", "step", step)
	}
	for i := range h.Nodes {
		if n := &h.Nodes[i]; n.Added && n.ReleasedAt.IsZero() {
			if err := r.ensureHeld(ctx, step, i); err != nil {
				return err
			}
		}
	}
	return r.keepHold(ctx, step, views...)
}

// keepHold holds, while the hold stands, the nodes that hold a target of
// views' target groups or a pod of the Service and have no open record
// yet: nodes that joined since the hold started.
func (r *runner) keepHold(ctx context.Context, step string, views ...*view) error {
	if !r.holdActive() {
		return nil
	}
	h := r.st.DisruptionHold
	for _, name := range r.holdWanted(views) {
		if slices.ContainsFunc(h.Nodes, func(n HeldNode) bool { return n.Node == name && n.ReleasedAt.IsZero() }) {
			continue
		}
		if err := r.holdNode(ctx, step, name); err != nil {
			return err
		}
	}
	return nil
}

// holdWanted lists the nodes the hold covers now: the nodes of the views'
// node targets (a node target's node, by IP in an ip target group or by
// instance ID in an instance one, as diagnose classifies it) and of their
// pod targets, and the nodes of the Service's pods in the last snapshot.
func (r *runner) holdWanted(views []*view) []string {
	set := map[string]bool{}
	for _, v := range views {
		if v == nil {
			continue
		}
		for _, t := range v.order {
			rep := v.targets[t].report
			switch {
			case rep.Class == diagnose.ClassNode && rep.Node != nil:
				set[rep.Node.Name] = true
			case rep.Class == diagnose.ClassPod && rep.Pod != nil && rep.Pod.Node != "" && rep.Pod.Namespace == r.ns:
				set[rep.Pod.Node] = true
			}
		}
	}
	if objs := r.objs; objs != nil {
		name := r.serviceName()
		var sel labels.Selector
		for _, svc := range objs.Services {
			if svc.Namespace == r.ns && svc.Name == name && len(svc.Spec.Selector) > 0 {
				sel = labels.SelectorFromSet(svc.Spec.Selector)
			}
		}
		for _, p := range objs.Pods {
			if sel != nil && p.Namespace == r.ns && p.Spec.NodeName != "" && sel.Matches(labels.Set(p.Labels)) {
				set[p.Spec.NodeName] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// serviceName is the Service whose pods the hold covers.
func (r *runner) serviceName() string {
	if r.plan != nil {
		return r.plan.Service.Name
	}
	if r.st != nil && r.st.Restore != nil {
		return r.st.Restore.Service
	}
	return ""
}

// planID is the plan the hold's mark names.
func (r *runner) planID() string { return r.st.Plan.ID }

// holdNode records a node in the journal, then annotates it. The record
// comes first, so that a crash in between leaves a record (the release
// then finds no mark of the hold and touches nothing) rather than an
// annotation the journal does not know.
func (r *runner) holdNode(ctx context.Context, step, name string) error {
	var node corev1.Node
	err := r.e.Client.Get(ctx, types.NamespacedName{Name: name}, &node)
	switch {
	case apierrors.IsNotFound(err):
		return nil // gone already: nothing to hold
	case err != nil:
		return fmt.Errorf("cutover: %s: get node %s: %w", step, name, err)
	}
	prev, had := node.Annotations[AnnotationDoNotDisrupt]
	rec := HeldNode{Node: name, Had: had, Previous: prev, HeldAt: r.e.clock.Now(), Added: true}
	switch {
	case node.Annotations[AnnotationDisruptionHold] == r.planID():
		// Marked by this plan's hold already (a record lost to a crash):
		// the release removes it.
		rec.Had, rec.Previous = false, ""
	case had && prev == "true":
		rec.Added = false // someone else's: it stays
	}
	h := r.st.DisruptionHold
	h.Nodes = append(h.Nodes, rec)
	if err := r.save(ctx); err != nil {
		return err
	}
	if !rec.Added {
		r.e.log.Info("node already annotated: left as it is", "step", step, "node", name, "annotation", AnnotationDoNotDisrupt)
		return nil
	}
	return r.ensureHeld(ctx, step, len(h.Nodes)-1)
}

// ensureHeld annotates the node of record i unless it carries the hold's
// mark already. A node that someone else annotated "true" since the record
// was saved keeps its annotation, and the record says the hold did not add
// it.
func (r *runner) ensureHeld(ctx context.Context, step string, i int) error {
	rec := &r.st.DisruptionHold.Nodes[i]
	for attempt := 0; ; attempt++ {
		var node corev1.Node
		err := r.e.Client.Get(ctx, types.NamespacedName{Name: rec.Node}, &node)
		switch {
		case apierrors.IsNotFound(err):
			return nil
		case err != nil:
			return fmt.Errorf("cutover: %s: get node %s: %w", step, rec.Node, err)
		}
		ann := node.Annotations
		switch {
		case ann[AnnotationDisruptionHold] == r.planID() && ann[AnnotationDoNotDisrupt] == "true":
			return nil
		case ann[AnnotationDisruptionHold] != r.planID() && ann[AnnotationDoNotDisrupt] == "true":
			rec.Added, rec.Had, rec.Previous = false, true, "true"
			return r.save(ctx)
		}
		orig := node.DeepCopy()
		if node.Annotations == nil {
			node.Annotations = map[string]string{}
		}
		node.Annotations[AnnotationDoNotDisrupt] = "true"
		node.Annotations[AnnotationDisruptionHold] = r.planID()
		err = r.e.Client.Patch(ctx, &node, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}))
		switch {
		case err == nil:
			r.drainWatch(ctx)
			r.heldNow = append(r.heldNow, rec.Node)
			r.e.log.Info("disruption held", "step", step, "node", rec.Node, "annotation", AnnotationDoNotDisrupt)
			return nil
		case apierrors.IsNotFound(err):
			return nil
		case apierrors.IsConflict(err) && attempt < holdConflictRetries:
			continue
		}
		return fmt.Errorf("cutover: %s: annotate node %s: %w", step, rec.Node, err)
	}
}

// releaseHold removes what the hold added, node by node, as the journal
// records it, and ends the hold. step names the step or rollback action.
func (r *runner) releaseHold(ctx context.Context, step string) error {
	h := r.st.DisruptionHold
	if h == nil {
		return nil
	}
	for i := range h.Nodes {
		rec := &h.Nodes[i]
		if !rec.ReleasedAt.IsZero() {
			continue
		}
		what := "left: it carried the annotation before the hold"
		if rec.Added {
			var err error
			if what, err = r.releaseNode(ctx, step, rec); err != nil {
				return err
			}
		}
		rec.ReleasedAt, rec.Release = r.e.clock.Now(), what
		if err := r.save(ctx); err != nil {
			return err
		}
	}
	if h.Active() {
		h.ReleasedAt = r.e.clock.Now()
		if err := r.save(ctx); err != nil {
			return err
		}
		r.e.log.Info("disruption hold released", "step", step, "nodes", len(h.Nodes))
	}
	return nil
}

// releaseNode removes the hold's annotation from one node, or puts its
// previous value back, when the node still carries it as the hold set it;
// otherwise it leaves the node alone. It says what it did.
func (r *runner) releaseNode(ctx context.Context, step string, rec *HeldNode) (string, error) {
	for attempt := 0; ; attempt++ {
		var node corev1.Node
		err := r.e.Client.Get(ctx, types.NamespacedName{Name: rec.Node}, &node)
		switch {
		case apierrors.IsNotFound(err):
			return "node gone", nil
		case err != nil:
			return "", fmt.Errorf("cutover: %s: get node %s: %w", step, rec.Node, err)
		}
		ann := node.Annotations
		val, has := ann[AnnotationDoNotDisrupt]
		ours := ann[AnnotationDisruptionHold] == r.planID()
		what := "removed"
		orig := node.DeepCopy()
		switch {
		case !ours && !has:
			return "not there: the hold's annotation never landed or was removed since", nil
		case !ours:
			return fmt.Sprintf("left: %s=%q carries no mark of the hold (changed since by someone else)", AnnotationDoNotDisrupt, val), nil
		case val != "true":
			what = fmt.Sprintf("left: %s changed since by someone else (%q); the hold's mark removed", AnnotationDoNotDisrupt, val)
		case rec.Had:
			node.Annotations[AnnotationDoNotDisrupt] = rec.Previous
			what = fmt.Sprintf("restored to %q", rec.Previous)
		default:
			delete(node.Annotations, AnnotationDoNotDisrupt)
		}
		delete(node.Annotations, AnnotationDisruptionHold)
		err = r.e.Client.Patch(ctx, &node, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}))
		switch {
		case err == nil:
			r.drainWatch(ctx)
			r.releasedNow = append(r.releasedNow, rec.Node)
			r.e.log.Info("disruption released", "step", step, "node", rec.Node, "release", what)
			return what, nil
		case apierrors.IsNotFound(err):
			return "node gone", nil
		case apierrors.IsConflict(err) && attempt < holdConflictRetries:
			continue
		}
		return "", fmt.Errorf("cutover: %s: release node %s: %w", step, rec.Node, err)
	}
}

// holdStep is Execute's hold-disruption step. Its first act, before any
// wait and before the hold's writes to the nodes, takes out of rotation
// what cannot serve: the recorded targets that are ghosts or whose node
// Karpenter is already removing (retireLeaving, under the invariants of
// the deregister step: recorded, not a ready pod endpoint, not the LBC's,
// and never the last serving target; journaled like any batch, and a
// rollback registers only the nodes alive then). Every second counts
// there: the load balancer keeps sending such a target requests for the
// deregistration lag after it leaves the target group, and its node may
// be gone before that. Then it holds the nodes of the plan's target
// group's targets and of the Service's pods, and lets the disruptions
// already under way run out (settle).
func (r *runner) holdStep(ctx context.Context) error {
	v, err := r.observe(ctx, r.tgARN, nil, r.plan.TargetGroup.TargetType, r.plan.TargetGroup.VPCID)
	if err != nil {
		return err
	}
	if err := r.retireLeaving(ctx, v, StepHoldDisruption); err != nil {
		return err
	}
	if len(r.st.Replacements) == 0 && len(r.replace) > 0 {
		r.st.Replacements = slices.Clone(r.replace)
	}
	if len(r.st.Replacements) > 0 {
		if err := r.retireForReplacement(ctx, v); err != nil {
			return err
		}
	}
	if err := r.holdDisruption(ctx, StepHoldDisruption, v); err != nil {
		return err
	}
	if !r.holds() {
		return nil
	}
	return r.settle(ctx)
}

// settle lets the disruptions the hold cannot stop run out. A node that
// Karpenter had begun to replace before the hold (its replacement
// launched, its drain under way) still goes: its recorded target is
// deregistered as soon as it is seen (retireLeaving, as during the gate),
// and the step waits until no node that holds a recorded target or a pod
// of the Service is being disrupted, and the deregistration lag
// (Assumptions.Lag) has passed since the last such deregistration: until
// then the load balancer may still send that target requests, and its node
// may be gone. The target group's changes (the health check, the binding)
// then begin on a fleet Karpenter is not moving. It waits at most the
// gate's timeout, then goes on with a warning: a drain that never ends
// must not stop the cutover, whose guards still hold.
func (r *runner) settle(ctx context.Context) error {
	lag := r.plan.Request.Assumptions.Lag()
	lastRetired := r.retiredAt
	if lastRetired.IsZero() && len(r.st.Deregistration.Deregistered) > 0 {
		// A resumed settle: targets were retired before the crash, when
		// exactly the journal does not say; the lag counts from now.
		lastRetired = r.e.clock.Now()
	}
	r.waiting(Wait{Step: StepHoldDisruption, What: "the disruptions Karpenter began before the hold to finish",
		Reason: "their nodes still go; the load balancer may send their retired targets requests for the deregistration lag",
		From:   fmt.Sprintf("Assumptions.DeregistrationLag %v", lag)})
	err := r.poll(ctx, StepHoldDisruption, "the disruptions under way to finish", r.o.gateTimeout, func(ctx context.Context) (bool, string, error) {
		v, err := r.observe(ctx, r.tgARN, nil, r.plan.TargetGroup.TargetType, r.plan.TargetGroup.VPCID)
		if err != nil {
			return false, "", err
		}
		if err := r.retireLeaving(ctx, v, StepHoldDisruption); err != nil {
			return false, "", err
		}
		now := r.e.clock.Now()
		if r.retiredAt.After(lastRetired) {
			lastRetired = r.retiredAt
		}
		if err := r.keepHold(ctx, StepHoldDisruption, v); err != nil {
			return false, "", err
		}
		waiting, deleted, err := r.deleteReplaced(ctx)
		if err != nil {
			return false, "", err
		}
		switch {
		case waiting > 0:
			return false, fmt.Sprintf("%s to replace first wait out the deregistration lag (%v) since their targets were retired", textcell.Plural(waiting, "node", "nodes"), lag), nil
		case deleted > 0:
			return false, fmt.Sprintf("deleted the NodeClaims of %s to replace first: Karpenter replaces them", textcell.Plural(deleted, "node", "nodes")), nil
		}
		var moving []string
		for _, name := range r.holdWanted([]*view{v}) {
			if ref, ok := v.snap.Node(name); ok && ref.Disrupting {
				moving = append(moving, name)
			}
		}
		switch {
		case len(moving) > 0:
			return false, fmt.Sprintf("Karpenter is still replacing %s: %s", textcell.Plural(len(moving), "node", "nodes"), joinFirst(moving, func(s string) string { return s })), nil
		case !lastRetired.IsZero() && now.Before(lastRetired.Add(lag)):
			return false, fmt.Sprintf("the deregistration lag (%v) since the last retired target runs until %s", lag, lastRetired.Add(lag).Format(time.TimeOnly)), nil
		}
		return true, "", nil
	})
	var te *TimeoutError
	if errors.As(err, &te) {
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("went on after %v with Karpenter's disruptions still under way (%s): their node targets were retired at once", te.Elapsed.Round(time.Second), te.Last))
		return nil
	}
	return err
}

// holdNote is the result's warning while the hold stands at the end of a
// run.
func (r *runner) holdNote() string {
	if !r.holdActive() {
		return ""
	}
	n := len(r.st.DisruptionHold.Added())
	return fmt.Sprintf("Karpenter's graceful disruption stays held on %s (%s) until Execute resumes to %s or Rollback runs: the journal records what to remove", textcell.Plural(n, "node", "nodes"), AnnotationDoNotDisrupt, StepReleaseDisruption)
}
