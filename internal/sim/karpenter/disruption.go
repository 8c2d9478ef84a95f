package karpenter

// disruption.go: one node's disruption: budgets, do-not-disrupt,
// replacement, drain, termination and cut-offs.

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/sim/cluster"
)

// start begins a disruption: taint the node karpenter.sh/disrupted and,
// for a graceful reason with a replacement of type repl, launch it; the
// node drains once the replacement is Ready. A graceful disruption without
// a replacement (an empty node, or one whose pods fit elsewhere) drains at
// once. A forceful one drains at once and launches nothing first: the
// provisioner launches a node for the deleting node's pods after its
// batching window (ProvisionerBatchIdle), in parallel with the drain
// (provisioning/provisioner.go; nodeclaim/expiration/controller.go only
// deletes the NodeClaim).
func (k *Karpenter) start(ctx context.Context, c *claim, r *request, repl *instanceType) error {
	d := &Disruption{Node: c.node, NodeClaim: c.name, Reason: r.reason, QueuedAt: r.queuedAt, StartedAt: k.clock.Now()}
	if err := k.cl.TaintNode(ctx, c.node, corev1.Taint{Key: TaintDisrupted, Effect: corev1.TaintEffectNoSchedule}); err != nil {
		return fmt.Errorf("karpenter: taint %s: %w", c.node, err)
	}
	var replacement *claim
	if r.reason.Graceful() && repl != nil {
		var err error
		if replacement, err = k.launchType(ctx, k.o.LaunchDelay, repl.name); err != nil {
			return err
		}
		d.Replacement = replacement.node
	}
	c.disruption = d
	c.state = claimDisrupting
	k.history = append(k.history, d)
	k.event("Disrupting", "node/"+c.node, "reason %s; replacement %s", r.reason, orNone(d.Replacement))
	if k.o.PublishObjects && !r.reason.Graceful() {
		k.setClaimCondition(ctx, c, conditionForReason(r.reason), "True", string(r.reason))
	}
	if replacement != nil {
		c.waitingFor = replacement
		k.waitForReplacement(c)
		return nil
	}
	hadPods := len(k.cl.PodsOnNode(c.node)) > 0
	k.beginDrain(ctx, c)
	if !r.reason.Graceful() && hadPods {
		k.clock.AfterEvent(ProvisionerBatchIdle, "karpenter provision for "+c.node, func(time.Time) { k.provisionFor(c) })
	}
	return nil
}

// ProvisionerBatchIdle is the provisioner's batching window before it
// launches for pods that need a node (Karpenter's BATCH_IDLE_DURATION
// default, pkg/operator/options).
const ProvisionerBatchIdle = time.Second

// provisionFor launches the node the provisioner starts for the pods of a
// node a forceful disruption drains (one node of the pool's cheapest
// type: the simulator does not bin-pack).
func (k *Karpenter) provisionFor(c *claim) {
	repl, err := k.launch(k.ctx(), k.o.LaunchDelay)
	if err != nil {
		k.event("Error", "node/"+c.node, "%v", err)
		return
	}
	c.disruption.Replacement = repl.node
	k.event("Provisioned", "nodeclaim/"+repl.name, "node %s for the pods of %s", repl.node, c.node)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
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
		repl, err := k.launchType(k.ctx(), k.o.LaunchDelay, c.waitingFor.instanceType)
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
// exclude-from-external-load-balancers: karpenter
// (node/termination/terminator/terminator.go Taint), and its pods
// drained.
func (k *Karpenter) beginDrain(ctx context.Context, c *claim) {
	c.state = claimDraining
	c.retry.Cancel()
	c.disruption.DrainStartedAt = k.clock.Now()
	if err := k.cl.LabelNode(ctx, c.node, LabelExcludeFromLB, ExcludeFromLBValue); err != nil {
		k.event("Error", "node/"+c.node, "label: %v", err)
	}
	if k.o.PublishObjects && !c.deleted {
		k.deleteClaim(ctx, c)
	}
	limit := k.pool.TerminationGracePeriod
	if limit > 0 {
		c.graceDeadline = k.clock.Now().Add(limit)
	}
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

// drainStep is one pass of the terminator (terminator.go Drain,
// eviction.go): a pod whose own grace period would run past the node's
// termination time is deleted (graceful, its preStop runs, PDBs and
// do-not-disrupt bypassed); a do-not-disrupt pod is left alone (the drain
// waits for it); every other pod is evicted through the Eviction API,
// refusals retried after EvictionRetry.
func (k *Karpenter) drainStep(c *claim) {
	if c.state != claimDraining {
		return
	}
	ctx := k.ctx()
	now := k.clock.Now()
	refused, held := 0, 0
	var next time.Time
	for _, p := range k.activePods(ctx, c.node) {
		if g, ok := podGrace(p); ok && !c.graceDeadline.IsZero() {
			at := c.graceDeadline.Add(-g)
			if !now.Before(at) {
				if err := k.c.Delete(ctx, p); err == nil {
					c.disruption.ForceDeleted++
					k.event("PodDeleted", "pod/"+p.Namespace+"/"+p.Name, "its grace period would outlast the node's termination time %s", c.graceDeadline.UTC().Format(time.RFC3339))
				} else {
					k.event("Error", "pod/"+p.Namespace+"/"+p.Name, "delete: %v", err)
				}
				continue
			}
			if next.IsZero() || at.Before(next) {
				next = at
			}
		}
		if doNotDisrupt(p) {
			held++
			continue
		}
		c.disruption.Evictions++
		if err := k.cl.Evict(ctx, client.ObjectKeyFromObject(p)); err != nil {
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
		// Only terminating or do-not-disrupt pods are left: check again
		// when they go, or the annotation does.
		wait = k.o.PollInterval
	}
	if !next.IsZero() && next.Sub(now) < wait {
		wait = next.Sub(now)
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
			c.disruption.CutOff = append(c.disruption.CutOff, p.Key().String())
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
