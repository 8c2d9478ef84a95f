package karpenter

// consolidation.go: consolidation's decisions: instance types and their
// prices, emptiness (empty nodes deleted, several in one command),
// single-node consolidation (a node deleted when its pods fit on the
// others, replaced only by a cheaper instance type), and the validation
// 15 s later that drops a command whose candidates changed.

import (
	"context"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/qstools/tgmigrate/internal/vclock"
)

// ValidationDelay is the wait between a consolidation command's decision
// and its re-validation (disruption/consolidation.go
// commandValidationDelay).
const ValidationDelay = 15 * time.Second

// SpotPriceRatio is the simulator's spot price, as a share of the
// on-demand one: a round figure, not AWS's (only the order of prices
// matters to consolidation).
const SpotPriceRatio = 0.4

// onDemandPrices are on-demand prices in USD per hour (AWS's public list
// for us-east-1, Linux) of the instance types the simulator launches.
var onDemandPrices = map[string]float64{
	"m5.large": 0.096, "m5.xlarge": 0.192, "m5.2xlarge": 0.384,
	"m6i.large": 0.096, "m6a.large": 0.0864, "m7g.large": 0.0816,
	"c5.large": 0.085, "c6a.large": 0.0765, "c7g.large": 0.0725,
	"r5.large": 0.126, "t3.large": 0.0832, "t3.medium": 0.0416,
}

// InstancePrice returns the simulator's hourly price of an instance type
// for a capacity type ("on-demand" or "spot"), false for a type it does
// not know.
func InstancePrice(instanceType, capacityType string) (float64, bool) {
	p, ok := onDemandPrices[instanceType]
	if ok && capacityType == "spot" {
		p *= SpotPriceRatio
	}
	return p, ok
}

// InstanceTypes lists the instance types [InstancePrice] knows, sorted.
func InstanceTypes() []string {
	out := make([]string, 0, len(onDemandPrices))
	for t := range onDemandPrices {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// instanceType is a replacement's type; nil: no replacement.
type instanceType struct{ name string }

func (k *Karpenter) price(t string) float64 {
	p, _ := InstancePrice(t, k.pool.CapacityType)
	return p
}

// cheapest returns the pool's cheapest instance type (the provisioner
// launches the cheapest that fits; every type fits the simulator's pods).
func (k *Karpenter) cheapest() string {
	return slices.MinFunc(k.pool.InstanceTypes, func(a, b string) int {
		pa, pb := k.price(a), k.price(b)
		switch {
		case pa < pb:
			return -1
		case pa > pb:
			return 1
		}
		return strings.Compare(a, b)
	})
}

// command is a consolidation decision waiting for its validation.
type command struct {
	reason     Reason
	candidates []*claim
	// replacement is the cheaper type replacing a single candidate; "":
	// the candidates are deleted.
	replacement string
	timer       vclock.Handle
}

// consolidating reports whether r is a consolidation request.
func consolidating(r *request) bool {
	return r.reason == ReasonEmpty || r.reason == ReasonUnderutilized
}

// emptiness builds a command of the Consolidatable nodes that are empty,
// as many as the Empty budget allows (disruption/emptiness.go), and waits
// ValidationDelay before validating it. It reports whether a command
// waits.
func (k *Karpenter) emptiness(ctx context.Context) bool {
	var cands []*claim
	budget := k.allowed(ReasonEmpty)
	for _, r := range k.queue {
		c := k.claims[r.node]
		if !consolidating(r) || c.state != claimReady || len(k.activePods(ctx, c.node)) > 0 {
			continue
		}
		why := k.candidateBlocked(ctx, c, ReasonEmpty)
		if why == "" && budget <= len(cands) {
			why = "the NodePool's disruption budget allows no more"
		}
		if k.markBlocked(r, why) {
			continue
		}
		cands = append(cands, c)
	}
	if len(cands) == 0 {
		return false
	}
	k.await(&command{reason: ReasonEmpty, candidates: cands})
	return true
}

// consolidate is single-node consolidation (disruption/
// singlenodeconsolidation.go, consolidation.go computeConsolidation): the
// Consolidatable nodes with pods, the best savings per pod first; the
// first that may go is deleted when its pods fit on the other nodes, or
// replaced when a cheaper instance type of the pool holds them; otherwise
// it stays, Unconsolidatable. The command waits ValidationDelay.
func (k *Karpenter) consolidate(ctx context.Context) {
	var cands []*request
	// ratio: the price per pod of each candidate's node, its pods read
	// once, not at every comparison: nothing changes while the loop sorts.
	ratio := map[*request]float64{}
	for _, r := range k.queue {
		c := k.claims[r.node]
		if !consolidating(r) || c.state != claimReady {
			continue
		}
		if n := len(k.activePods(ctx, c.node)); n > 0 {
			cands = append(cands, r)
			ratio[r] = k.price(c.instanceType) / float64(1+n)
		}
	}
	slices.SortStableFunc(cands, func(a, b *request) int {
		ra, rb := ratio[a], ratio[b]
		switch {
		case ra > rb:
			return -1
		case ra < rb:
			return 1
		}
		return 0
	})
	for _, r := range cands {
		c := k.claims[r.node]
		if k.pool.ConsolidationPolicy == ConsolidateWhenEmpty {
			k.markBlocked(r, "the NodePool consolidates only empty nodes (WhenEmpty)")
			continue
		}
		if k.markBlocked(r, k.candidateBlocked(ctx, c, ReasonUnderutilized)) {
			continue
		}
		repl, why := k.decide(ctx, c)
		if k.markBlocked(r, why) {
			continue
		}
		k.await(&command{reason: ReasonUnderutilized, candidates: []*claim{c}, replacement: repl})
		return
	}
}

// decide is the scheduling simulation of one candidate: "" when its pods
// fit on the other nodes (delete), a cheaper type when they do not but one
// exists (replace), or why neither.
func (k *Karpenter) decide(ctx context.Context, c *claim) (replacement, why string) {
	if len(k.activePods(ctx, c.node)) <= k.room(ctx, c) {
		return "", ""
	}
	t := k.cheapest()
	if k.price(t) < k.price(c.instanceType) {
		return t, ""
	}
	return "", "Unconsolidatable: can't replace with a cheaper node"
}

// room counts the pods the pool's other nodes can take: Ready, schedulable
// nodes not being disrupted, up to their allocatable pods.
func (k *Karpenter) room(ctx context.Context, except *claim) int {
	n := 0
	for _, o := range k.live() {
		if o == except || o.state != claimReady || k.queuedFor(o) {
			continue
		}
		obj := &corev1.Node{}
		if err := k.c.Get(ctx, types.NamespacedName{Name: o.node}, obj); err != nil || obj.Spec.Unschedulable || hasTaint(obj, TaintDisrupted) {
			continue
		}
		capacity := obj.Status.Allocatable.Pods().Value()
		n += max(0, int(capacity)-len(k.cl.PodsOnNode(o.node)))
	}
	return n
}

// queuedFor reports whether o waits in a consolidation command.
func (k *Karpenter) queuedFor(o *claim) bool {
	return k.validating != nil && slices.Contains(k.validating.candidates, o)
}

func hasTaint(n *corev1.Node, key string) bool {
	return slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == key })
}

// await holds cmd for ValidationDelay, then validates and runs it.
func (k *Karpenter) await(cmd *command) {
	k.validating = cmd
	names := make([]string, len(cmd.candidates))
	for i, c := range cmd.candidates {
		names[i] = c.node
	}
	what := "delete"
	if cmd.replacement != "" {
		what = "replace with " + cmd.replacement
	}
	k.event("ConsolidationDecided", "nodepool/"+k.pool.Name, "%s: %s %s; validating in %v", cmd.reason, what, strings.Join(names, ", "), ValidationDelay)
	cmd.timer = k.clock.AfterEvent(ValidationDelay, "karpenter validate", func(time.Time) { k.validate(cmd) })
}

// validate re-checks cmd after ValidationDelay (disruption/validation.go):
// emptiness keeps the candidates still empty and allowed, and runs if any
// is left; single-node consolidation runs only if its candidate is still
// a candidate and the same decision comes out. A dropped command leaves
// its nodes Consolidatable for the next loop. The loop then runs again.
func (k *Karpenter) validate(cmd *command) {
	k.validating = nil
	ctx := k.ctx()
	var valid []*claim
	budget := k.allowed(cmd.reason)
	for _, c := range cmd.candidates {
		if c.state != claimReady || c.disruption != nil || !k.queued(c.node) || k.candidateBlocked(ctx, c, cmd.reason) != "" || len(valid) >= budget {
			continue
		}
		empty := len(k.activePods(ctx, c.node)) == 0
		if cmd.reason == ReasonEmpty && !empty {
			continue
		}
		if cmd.reason == ReasonUnderutilized {
			if repl, why := k.decide(ctx, c); empty || why != "" || repl != cmd.replacement {
				continue
			}
		}
		valid = append(valid, c)
	}
	if len(valid) == 0 || (cmd.reason == ReasonUnderutilized && len(valid) != len(cmd.candidates)) {
		k.event("ConsolidationAbandoned", "nodepool/"+k.pool.Name, "%s: the candidates changed during validation", cmd.reason)
		k.disrupt(true)
		return
	}
	for _, c := range valid {
		r := &request{node: c.node, reason: cmd.reason, queuedAt: k.requestTime(c.node)}
		var it *instanceType
		if cmd.replacement != "" {
			it = &instanceType{name: cmd.replacement}
		}
		if err := k.start(ctx, c, r, it); err != nil {
			k.event("Error", "node/"+c.node, "%v", err)
			continue
		}
		k.queue = removeRequest(k.queue, c.node)
	}
	k.disrupt(true)
}

func (k *Karpenter) requestTime(node string) time.Time {
	for _, r := range k.queue {
		if r.node == node {
			return r.queuedAt
		}
	}
	return k.clock.Now()
}

// ConsolidationPolicy says which nodes consolidation may disrupt.
type ConsolidationPolicy string

// The consolidation policies Karpenter v1 has (Balanced is not modelled).
const (
	ConsolidateWhenEmpty                ConsolidationPolicy = "WhenEmpty"
	ConsolidateWhenEmptyOrUnderutilized ConsolidationPolicy = "WhenEmptyOrUnderutilized"
)

func (p ConsolidationPolicy) valid() bool {
	return p == ConsolidateWhenEmpty || p == ConsolidateWhenEmptyOrUnderutilized
}
