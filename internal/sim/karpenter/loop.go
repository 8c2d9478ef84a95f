package karpenter

// loop.go: the disruption loop: its pacing (forceful disruptions at once,
// graceful ones on its poll ticks, one command at a time), the candidate
// checks (do-not-disrupt, PodDisruptionBudgets, budgets, a replacement
// not yet initialized) and drift.

import (
	"context"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// disrupt runs the disruption loop once. Forceful requests (expiry,
// interruption, deletion: other controllers of Karpenter's, not the
// disruption loop) start whenever it runs. Graceful ones start only on a
// poll tick, and not while a consolidation command waits for its
// validation (the real loop is a singleton that sleeps through it:
// disruption/controller.go, validation.go); after a command the loop runs
// again at once (singleton.RequeueImmediately), until nothing starts.
func (k *Karpenter) disrupt(tick bool) {
	ctx := k.ctx()
	k.startForceful(ctx)
	if !tick {
		return
	}
	for k.validating == nil && k.disruptGraceful(ctx) {
	}
}

// prune drops the requests whose node is gone or already being disrupted.
func (k *Karpenter) prune() {
	k.queue = slices.DeleteFunc(k.queue, func(r *request) bool {
		c := k.claims[r.node]
		return c == nil || c.state == claimTerminated || c.disruption != nil
	})
}

// startForceful starts every forceful request whose node has registered.
func (k *Karpenter) startForceful(ctx context.Context) {
	k.prune()
	var keep []*request
	for _, r := range k.queue {
		c := k.claims[r.node]
		if r.reason.Graceful() || c.state == claimLaunching {
			keep = append(keep, r)
			continue
		}
		if err := k.start(ctx, c, r, nil); err != nil {
			k.event("Error", "node/"+c.node, "%v", err)
			keep = append(keep, r)
		}
	}
	k.queue = keep
}

// disruptGraceful runs the graceful methods in Karpenter's order
// (controller.go NewMethods: emptiness, drift, then single-node
// consolidation) and reports whether one started a command now.
func (k *Karpenter) disruptGraceful(ctx context.Context) bool {
	k.prune()
	if k.emptiness(ctx) {
		return false // a command waits for its validation
	}
	if k.drift(ctx) {
		return true
	}
	k.consolidate(ctx)
	return false
}

// drift starts the disruption of the first drifted node that may go, in
// the order they drifted, empty nodes first (disruption/drift.go): one
// candidate per command. An empty node is deleted without a replacement
// (the scheduling simulation needs no new node for it); any other is
// replaced by a node of the pool's cheapest instance type.
func (k *Karpenter) drift(ctx context.Context) bool {
	var drifted []*request
	for _, r := range k.queue {
		if r.reason == ReasonDrifted && k.claims[r.node].state == claimReady {
			drifted = append(drifted, r)
		}
	}
	// Each node's pods are read once, for the order and the checks, not at
	// every comparison: no pod changes until a disruption starts (a start
	// that fails taints at most its own node), and the loop returns when
	// one does.
	pods := make(map[string][]*corev1.Pod, len(drifted))
	for _, r := range drifted {
		pods[r.node] = k.activePods(ctx, r.node)
	}
	slices.SortStableFunc(drifted, func(a, b *request) int {
		return boolInt(len(pods[a.node]) > 0) - boolInt(len(pods[b.node]) > 0)
	})
	for _, r := range drifted {
		c := k.claims[r.node]
		if why := k.blocked(ctx, c, ReasonDrifted, pods[c.node]); k.markBlocked(r, why) {
			continue
		}
		var it *instanceType
		if len(pods[c.node]) > 0 {
			it = &instanceType{name: k.cheapest()} // the provisioner's choice
		}
		if err := k.start(ctx, c, r, it); err != nil {
			k.event("Error", "node/"+c.node, "%v", err)
			continue
		}
		k.queue = removeRequest(k.queue, c.node)
		return true
	}
	return false
}

// markBlocked records why r may not start (an event when it changes) and
// reports whether it is blocked.
func (k *Karpenter) markBlocked(r *request, why string) bool {
	if why == "" {
		return false
	}
	if r.blocked != why {
		r.blocked = why
		k.event("DisruptionBlocked", "node/"+r.node, "%s: %s", r.reason, why)
	}
	return true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// candidateBlocked says why c may not be a candidate for a graceful
// disruption for reason now, or "". As Karpenter's candidate selection
// (disruption/types.go NewCandidate, state/statenode.go
// ValidateNodeDisruptable and ValidatePodsDisruptable): the node's
// do-not-disrupt annotation; a pod's do-not-disrupt annotation, or a pod
// whose PodDisruptionBudget allows no disruption (or two budgets on one
// pod), unless the reason is Drifted and the NodePool has a
// terminationGracePeriod (drift is "eventual": the grace period bounds
// the drain); the NodePool's budget; and, for a node with pods, a
// replacement not initialized yet (helpers.go SimulateScheduling: pods
// that would schedule against an uninitialized node make the candidate
// wait).
func (k *Karpenter) candidateBlocked(ctx context.Context, c *claim, reason Reason) string {
	return k.blocked(ctx, c, reason, k.activePods(ctx, c.node))
}

// blocked is candidateBlocked with the node's active pods already read
// (activePods).
func (k *Karpenter) blocked(ctx context.Context, c *claim, reason Reason, pods []*corev1.Pod) string {
	if nodeDoNotDisrupt(ctx, k.c, c.node) {
		return "the node is annotated " + AnnotationDoNotDisrupt
	}
	if !(reason == ReasonDrifted && k.pool.TerminationGracePeriod > 0) {
		for _, p := range pods {
			if doNotDisrupt(p) {
				return "pod " + p.Namespace + "/" + p.Name + " is annotated " + AnnotationDoNotDisrupt
			}
		}
		if why := k.pdbBlocks(ctx, pods); why != "" {
			return why
		}
	}
	if k.allowed(reason) <= 0 {
		return "the NodePool's disruption budget allows no more"
	}
	if len(pods) > 0 {
		if r := k.uninitialized(); r != "" {
			return "its pods would schedule against node " + r + ", not initialized yet"
		}
	}
	return ""
}

// uninitialized names a node of the pool still launching, or "".
func (k *Karpenter) uninitialized() string {
	for _, c := range k.live() {
		if c.state == claimLaunching {
			return c.node
		}
	}
	return ""
}

// activePods returns the objects of the pods on a node that are not
// terminating, read through the client as Karpenter reads them.
func (k *Karpenter) activePods(ctx context.Context, node string) []*corev1.Pod {
	var out []*corev1.Pod
	for _, v := range k.cl.PodsOnNode(node) {
		if v.Phase == "Terminating" {
			continue
		}
		p := &corev1.Pod{}
		if err := k.c.Get(ctx, v.Key(), p); err != nil || !p.DeletionTimestamp.IsZero() {
			continue
		}
		out = append(out, p)
	}
	return out
}

func doNotDisrupt(p *corev1.Pod) bool { return p.Annotations[AnnotationDoNotDisrupt] == "true" }

// pdbBlocks says which PodDisruptionBudget keeps one of pods from being
// evicted now (status.disruptionsAllowed 0, or two budgets selecting one
// pod, which the Eviction API refuses), or "": pkg/utils/pdb/pdb.go
// CanEvictPods, "pdb prevents pod evictions". Pods Karpenter does not
// evict (do-not-disrupt) are not counted.
func (k *Karpenter) pdbBlocks(ctx context.Context, pods []*corev1.Pod) string {
	if len(pods) == 0 {
		return ""
	}
	var list policyv1.PodDisruptionBudgetList
	if err := k.c.List(ctx, &list); err != nil {
		return "PodDisruptionBudgets could not be read: " + err.Error()
	}
	for _, p := range pods {
		if doNotDisrupt(p) {
			continue
		}
		var match []*policyv1.PodDisruptionBudget
		for i := range list.Items {
			b := &list.Items[i]
			if b.Namespace != p.Namespace || !b.DeletionTimestamp.IsZero() {
				continue
			}
			sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
			if err != nil || !sel.Matches(labels.Set(p.Labels)) {
				continue
			}
			match = append(match, b)
		}
		switch {
		case len(match) > 1:
			return "pod " + p.Namespace + "/" + p.Name + ": eviction does not support multiple PDBs"
		case len(match) == 1 && match[0].Status.DisruptionsAllowed == 0:
			return "pdb " + match[0].Namespace + "/" + match[0].Name + " prevents pod evictions"
		}
	}
	return ""
}

// podGrace returns a pod's terminationGracePeriodSeconds, false when unset.
func podGrace(p *corev1.Pod) (time.Duration, bool) {
	if p.Spec.TerminationGracePeriodSeconds == nil {
		return 0, false
	}
	return time.Duration(*p.Spec.TerminationGracePeriodSeconds) * time.Second, true
}
