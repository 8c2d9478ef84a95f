package diagnose

// This file is the KarpenterDisruptionRisk rule, and the next disruption
// the nodes and their NodeClaims show.

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/qstools/tgmigrate/internal/textcell"
)

// CodeKarpenterDisruptionRisk: static node targets on nodes Karpenter
// manages; every rotation drops them.
const CodeKarpenterDisruptionRisk Code = "KarpenterDisruptionRisk"

// SignalKarpenterDisruptionRisk is the seed signal of [CodeKarpenterDisruptionRisk].
const SignalKarpenterDisruptionRisk = "outages line up with Karpenter consolidation, drift or expiry"

// karpenterRule makes KarpenterDisruptionRisk: static node targets on
// Karpenter nodes, with the next disruption the nodes and their NodeClaims
// show.
type karpenterRule struct{}

var _ targetGroupRule = karpenterRule{}

func (karpenterRule) rules() []Rule {
	return []Rule{{CodeKarpenterDisruptionRisk, SeverityHigh, SignalKarpenterDisruptionRisk,
		"cutover.PlanCutover (in-place for ip, blue-green for instance) before the next disruption; until then, karpenter.sh/do-not-disrupt only blocks graceful disruption"}}
}

func (karpenterRule) judge(a *analysis) []Finding {
	var targets int
	nodes := map[string]*NodeRef{}
	for _, t := range a.staticNodeTargets() {
		if t.Node.Karpenter {
			targets++
			nodes[t.Node.Name] = t.Node
		}
	}
	if targets == 0 {
		return nil
	}
	pools := map[string]bool{}
	counts := map[string]int{"targets": targets, "nodes": len(nodes)}
	details := map[string]string{}
	var nearest *NodeRef
	var disrupting, drifted, consolidatable []string
	for _, name := range slices.Sorted(maps.Keys(nodes)) {
		n := nodes[name]
		if n.NodePool != "" {
			pools[n.NodePool] = true
		}
		if n.Disrupting {
			counts["disrupting"]++
			disrupting = append(disrupting, name)
		}
		if n.Drifted {
			counts["drifted"]++
			drifted = append(drifted, name)
		}
		if n.Consolidatable {
			counts["consolidatable"]++
			consolidatable = append(consolidatable, name)
		}
		if n.DoNotDisrupt {
			counts["doNotDisrupt"]++
		}
		if n.ExpiresAt != nil && (nearest == nil || n.ExpiresAt.Before(*nearest.ExpiresAt)) {
			nearest = n
		}
	}
	details["nodePools"] = strings.Join(slices.Sorted(maps.Keys(pools)), ",")
	msg := fmt.Sprintf("node targets on Karpenter nodes: %s on %s; every consolidation, drift, expiry or interruption drops them", textcell.Plural(targets, "target", "targets"), textcell.Plural(len(nodes), "node", "nodes"))
	if len(disrupting) > 0 {
		msg += fmt.Sprintf("; %d being disrupted now (%s)", len(disrupting), strings.Join(disrupting, ", "))
		details["disruptingNodes"] = strings.Join(disrupting, ",")
	}
	if len(drifted) > 0 {
		msg += fmt.Sprintf("; %d drifted", len(drifted))
		details["driftedNodes"] = strings.Join(drifted, ",")
	}
	if len(consolidatable) > 0 {
		msg += fmt.Sprintf("; %d consolidatable", len(consolidatable))
		details["consolidatableNodes"] = strings.Join(consolidatable, ",")
	}
	if nearest != nil {
		at := nearest.ExpiresAt.UTC().Format(time.RFC3339)
		details["nearestExpiry"], details["nearestExpiryNode"] = at, nearest.Name
		msg += fmt.Sprintf("; nearest expiry: %s at %s", nearest.Name, at)
		if d := nearest.ExpiresAt.Sub(a.now); d > 0 {
			details["nearestExpiryIn"] = d.Round(time.Minute).String()
		} else {
			details["nearestExpiryIn"] = "overdue"
		}
	}
	call := a.cutoverCall()
	rem := a.cutoverProse(call, "run it before the next disruption")
	if next, ok := a.nextDisruption(nodes); ok {
		details["nextDisruption"], details["nextDisruptionNode"] = next.kind, next.node.Name
		msg += fmt.Sprintf("; next known disruption: %s (%s)", next.node.Name, next.what)
		rem += fmt.Sprintf(" (%s: %s)", next.node.Name, next.what)
	}
	return []Finding{a.finding(CodeKarpenterDisruptionRisk, msg, Evidence{
		Names: slices.Sorted(maps.Keys(nodes)), Counts: counts, Details: details,
	}, rem, call)}
}

// disruption is the next disruption Karpenter is known to have in store for
// one of a target group's nodes.
type disruption struct {
	node *NodeRef
	kind string // disrupting, expired, drifted, consolidatable, expiry
	what string // for people
}

// nextDisruption finds the nearest disruption that the nodes and their
// NodeClaims show, most imminent first: a node being disrupted now; an
// expiry that has passed (forceful: Karpenter does not wait for budgets);
// a drifted, then a consolidatable NodeClaim (graceful: as soon as the
// NodePool's budget allows, unless karpenter.sh/do-not-disrupt blocks
// it); then the nearest expiry to come. Ties go to the first node by name.
func (a *analysis) nextDisruption(nodes map[string]*NodeRef) (disruption, bool) {
	names := slices.Sorted(maps.Keys(nodes))
	first := func(keep func(*NodeRef) bool) *NodeRef {
		for _, name := range names {
			if keep(nodes[name]) {
				return nodes[name]
			}
		}
		return nil
	}
	var expiring *NodeRef
	for _, name := range names {
		if n := nodes[name]; n.ExpiresAt != nil && (expiring == nil || n.ExpiresAt.Before(*expiring.ExpiresAt)) {
			expiring = n
		}
	}
	if n := first(func(n *NodeRef) bool { return n.Disrupting }); n != nil {
		return disruption{node: n, kind: "disrupting", what: "being disrupted now"}, true
	}
	if expiring != nil && !expiring.ExpiresAt.After(a.now) {
		at := expiring.ExpiresAt.UTC().Format(time.RFC3339)
		return disruption{node: expiring, kind: "expired", what: "expired at " + at + ", replaced at once whatever the budgets"}, true
	}
	if n := first(func(n *NodeRef) bool { return n.Drifted && !n.DoNotDisrupt }); n != nil {
		return disruption{node: n, kind: "drifted", what: "drifted, replaced as soon as the NodePool's budget allows"}, true
	}
	if n := first(func(n *NodeRef) bool { return n.Consolidatable && !n.DoNotDisrupt }); n != nil {
		return disruption{node: n, kind: "consolidatable", what: "consolidatable, replaced or removed as soon as the NodePool's budget allows"}, true
	}
	if expiring != nil {
		at := expiring.ExpiresAt.UTC().Format(time.RFC3339)
		return disruption{node: expiring, kind: "expiry", what: fmt.Sprintf("expires at %s, in %s", at, expiring.ExpiresAt.Sub(a.now).Round(time.Minute))}, true
	}
	return disruption{}, false
}
