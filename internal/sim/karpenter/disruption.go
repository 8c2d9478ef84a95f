package karpenter

// disruption.go: one node's disruption: budgets, do-not-disrupt,
// replacement, drain, termination and cut-offs.

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/qstools/tgmigrate/internal/karpenterapi"
	"github.com/qstools/tgmigrate/internal/sim/cluster"
)

// allowed returns how many more nodes may be disrupted now for reason:
// the smallest budget that applies, scaled to the pool's Ready nodes
// (rounded up), minus the nodes being disrupted, as Karpenter computes it.
func (k *Karpenter) allowed(reason Reason) int {
	var total, disrupting int
	for _, c := range k.live() {
		switch c.state {
		case claimReady:
			total++
		case claimDisrupting, claimDraining:
			total++
			disrupting++
		}
	}
	if !slices.ContainsFunc(k.budgets, func(b karpenterapi.Budget) bool { return b.AppliesTo(string(reason)) }) {
		return total
	}
	limit, err := karpenterapi.AllowedDisruptions(k.budgets, string(reason), total)
	if err != nil { // budgets are checked when they are set: never reached
		return 0
	}
	return limit - disrupting
}

// disrupt is the disruption loop: it starts the queued disruptions, in
// order, that may start now.
func (k *Karpenter) disrupt() {
	ctx := k.ctx()
	var keep []*request
	for _, r := range k.queue {
		c := k.claims[r.node]
		if c == nil || c.state == claimTerminated || c.disruption != nil {
			continue
		}
		if c.state == claimLaunching {
			keep = append(keep, r)
			continue
		}
		if r.reason.Graceful() {
			if why := k.blocked(ctx, c); why != "" {
				if r.blocked != why {
					r.blocked = why
					k.event("DisruptionBlocked", "node/"+c.node, "%s: %s", r.reason, why)
				}
				keep = append(keep, r)
				continue
			}
			if k.allowed(r.reason) <= 0 {
				why := "the NodePool's disruption budget allows no more"
				if r.blocked != why {
					r.blocked = why
					k.event("DisruptionBlocked", "node/"+c.node, "%s: %s", r.reason, why)
				}
				keep = append(keep, r)
				continue
			}
		}
		if err := k.start(ctx, c, r); err != nil {
			k.event("Error", "node/"+c.node, "%v", err)
			keep = append(keep, r)
		}
	}
	k.queue = keep
}

// blocked says why a graceful disruption of c may not start, or "".
func (k *Karpenter) blocked(ctx context.Context, c *claim) string {
	if nodeDoNotDisrupt(ctx, k.c, c.node) {
		return "the node is annotated " + AnnotationDoNotDisrupt
	}
	for _, p := range k.cl.PodsOnNode(c.node) {
		if p.Phase == "Terminating" {
			continue
		}
		if p.DoNotDisrupt || k.podDoNotDisrupt(ctx, p) {
			return "pod " + p.Namespace + "/" + p.Name + " is annotated " + AnnotationDoNotDisrupt
		}
	}
	return ""
}

func (k *Karpenter) podDoNotDisrupt(ctx context.Context, p cluster.PodView) bool {
	obj := &corev1.Pod{}
	if err := k.c.Get(ctx, p.Key(), obj); err != nil {
		return false
	}
	return obj.Annotations[AnnotationDoNotDisrupt] == "true"
}

// start begins a disruption: taint the node karpenter.sh/disrupted and
// launch its replacement. A graceful disruption drains once the
// replacement is Ready; a forceful one drains at once.
func (k *Karpenter) start(ctx context.Context, c *claim, r *request) error {
	d := &Disruption{Node: c.node, NodeClaim: c.name, Reason: r.reason, QueuedAt: r.queuedAt, StartedAt: k.clock.Now()}
	if err := k.cl.TaintNode(ctx, c.node, corev1.Taint{Key: TaintDisrupted, Effect: corev1.TaintEffectNoSchedule}); err != nil {
		return fmt.Errorf("karpenter: taint %s: %w", c.node, err)
	}
	repl, err := k.launch(ctx, k.o.LaunchDelay)
	if err != nil {
		return err
	}
	d.Replacement = repl.node
	c.disruption = d
	c.state = claimDisrupting
	k.history = append(k.history, d)
	k.event("Disrupting", "node/"+c.node, "reason %s; replacement %s", r.reason, repl.node)
	if k.o.PublishObjects && !r.reason.Graceful() {
		k.setClaimCondition(ctx, c, conditionForReason(r.reason), "True", string(r.reason))
	}
	if r.reason.Graceful() {
		c.waitingFor = repl
		k.waitForReplacement(c)
		return nil
	}
	k.beginDrain(ctx, c)
	return nil
}

func conditionForReason(r Reason) string {
	switch r {
	case ReasonDrifted:
		return "Drifted"
	case ReasonExpired:
		return "Expired"
	case ReasonUnderutilized, ReasonEmpty:
		return "Consolidatable"
	}
	return "Disrupted"
}

// waitForReplacement drains c once its replacement is Ready; the check
// reruns on every node change and every loop.
func (k *Karpenter) waitForReplacement(c *claim) {
	if c.state != claimDisrupting || c.waitingFor == nil {
		return
	}
	if c.waitingFor.state == claimReady || c.waitingFor.state == claimDisrupting || c.waitingFor.state == claimDraining {
		c.waitingFor = nil
		k.beginDrain(k.ctx(), c)
		return
	}
	if c.waitingFor.state == claimTerminated {
		// The replacement was deleted before it registered
		// (deletion.go): launch another.
		repl, err := k.launch(k.ctx(), k.o.LaunchDelay)
		if err != nil {
			k.event("Error", "node/"+c.node, "%v", err)
		} else {
			c.waitingFor, c.disruption.Replacement = repl, repl.node
			k.event("ReplacementRelaunched", "node/"+c.node, "replacement %s", repl.node)
		}
	}
	c.retry.Cancel()
	c.retry = k.clock.AfterEvent(k.o.PollInterval, "karpenter wait "+c.node, func(time.Time) { k.waitForReplacement(c) })
}

// beginDrain is the termination controller's start: the NodeClaim is
// deleted (unless someone else deleted it), the node labelled
// exclude-from-external-load-balancers, and its pods evicted.
func (k *Karpenter) beginDrain(ctx context.Context, c *claim) {
	c.state = claimDraining
	c.retry.Cancel()
	c.disruption.DrainStartedAt = k.clock.Now()
	if err := k.cl.LabelNode(ctx, c.node, LabelExcludeFromLB, "true"); err != nil {
		k.event("Error", "node/"+c.node, "label: %v", err)
	}
	if k.o.PublishObjects && !c.deleted {
		k.deleteClaim(ctx, c)
	}
	limit := k.pool.TerminationGracePeriod
	if c.disruption.Reason == ReasonInterrupted && (limit == 0 || limit > SpotInterruptionNotice) {
		limit = SpotInterruptionNotice
	}
	if limit > 0 {
		c.drainDeadline = k.clock.Now().Add(limit)
		c.deadline = k.clock.At(c.drainDeadline, "karpenter drain deadline "+c.node, func(time.Time) { k.cutOff(c) })
	}
	k.event("Draining", "node/"+c.node, "evicting %d pods", len(k.cl.PodsOnNode(c.node)))
	k.drainStep(c)
}

// drainStep evicts the node's pods that are not terminating yet; refused
// evictions are retried after EvictionRetry.
func (k *Karpenter) drainStep(c *claim) {
	if c.state != claimDraining {
		return
	}
	ctx := k.ctx()
	refused := 0
	for _, p := range k.cl.PodsOnNode(c.node) {
		if p.Phase == "Terminating" {
			continue
		}
		c.disruption.Evictions++
		if err := k.cl.Evict(ctx, p.Key()); err != nil {
			refused++
			if cluster.IsEvictionBlocked(err) {
				c.disruption.BlockedEvictions++
				continue
			}
			k.event("Error", "pod/"+p.Namespace+"/"+p.Name, "evict: %v", err)
		}
	}
	if k.finishDrain(c) {
		return
	}
	if refused > 0 {
		k.event("EvictionsRefused", "node/"+c.node, "%d of its pods; retry in %v", refused, k.o.EvictionRetry)
	}
	c.retry.Cancel()
	wait := k.o.EvictionRetry
	if refused == 0 {
		// Only terminating pods are left: check again when they go.
		wait = k.o.PollInterval
	}
	c.retry = k.clock.AfterEvent(wait, "karpenter drain "+c.node, func(time.Time) { k.drainStep(c) })
}

// finishDrain terminates the instance once no pod is left on the node.
func (k *Karpenter) finishDrain(c *claim) bool {
	if c.state != claimDraining || len(k.cl.PodsOnNode(c.node)) > 0 {
		return false
	}
	k.terminate(k.ctx(), c)
	return true
}

// cutOff ends a drain at its deadline: the pods left are deleted and the
// instance terminated.
func (k *Karpenter) cutOff(c *claim) {
	if c.state != claimDraining {
		return
	}
	ctx := k.ctx()
	for _, p := range k.cl.PodsOnNode(c.node) {
		if err := k.cl.ForceDeletePod(ctx, p.Key()); err == nil {
			c.disruption.ForceDeleted++
		}
	}
	k.event("DrainCutOff", "node/"+c.node, "deadline reached; %d pods deleted", c.disruption.ForceDeleted)
	k.terminate(ctx, c)
}

func (k *Karpenter) terminate(ctx context.Context, c *claim) {
	c.retry.Cancel()
	c.deadline.Cancel()
	c.expiry.Cancel()
	if k.o.PublishObjects {
		k.setClaimCondition(ctx, c, "InstanceTerminating", "True", "")
	}
	if err := k.cl.TerminateInstance(ctx, c.node); err != nil {
		k.event("Error", "node/"+c.node, "terminate: %v", err)
		return
	}
	c.state = claimTerminated
	if c.disruption != nil {
		c.disruption.TerminatedAt = k.clock.Now()
	}
	k.releaseNode(ctx, c)
	if k.o.PublishObjects {
		k.removeClaim(ctx, c)
	}
	k.event("Terminated", "nodeclaim/"+c.name, "node %s gone", c.node)
	k.kick()
}
