package diagnose

// This file is the StaticNodeTarget rule, and the static node targets that
// KarpenterDisruptionRisk rests on too.

import (
	"fmt"
	"maps"
	"slices"

	"github.com/qstools/tgmigrate/internal/textcell"
)

// CodeStaticNodeTarget: a hand-registered nodeIP:NodePort (or node
// instance) target that no LBC binding keeps current.
const CodeStaticNodeTarget Code = "StaticNodeTarget"

// SignalStaticNodeTarget is the seed signal of [CodeStaticNodeTarget].
const SignalStaticNodeTarget = "traffic goes to node IPs registered by hand; new nodes never receive any"

// staticNodeRule makes StaticNodeTarget: node targets registered by hand,
// which nothing updates when the nodes change.
type staticNodeRule struct{}

var _ targetGroupRule = staticNodeRule{}

func (staticNodeRule) rules() []Rule {
	return []Rule{{CodeStaticNodeTarget, SeverityHigh, SignalStaticNodeTarget,
		"cutover.PlanCutover (in-place for ip, blue-green for instance): it builds the binding (targetType ip, MultiClusterTargetGroup true) and deregisters the node targets once the pods are healthy"}}
}

func (staticNodeRule) judge(a *analysis) []Finding {
	static := a.staticNodeTargets()
	if len(static) == 0 {
		return nil
	}
	nodes := map[string]bool{}
	ports := map[int32]bool{}
	for _, t := range static {
		nodes[t.Node.Name] = true
		ports[t.Port] = true
	}
	msg := fmt.Sprintf("node addresses pinned by hand: %s on %s (port %s); nothing updates them when nodes change",
		textcell.Plural(len(static), "target", "targets"), textcell.Plural(len(nodes), "node", "nodes"), joinPorts(ports))
	next := a.cutoverCall()
	does := "it binds the Service (tgbind, targetType ip, MultiClusterTargetGroup true) and deregisters the node targets once the pods are healthy"
	if next.Strategy == strategyBlueGreen {
		does = "a new ip target group bound to the Service (tgbind, MultiClusterTargetGroup true) takes the traffic by weighted forwarding"
	}
	rem := a.cutoverProse(next, does)
	return []Finding{a.finding(CodeStaticNodeTarget, msg, Evidence{
		Names:   slices.Sorted(maps.Keys(nodes)),
		Counts:  map[string]int{"targets": len(static), "nodes": len(nodes)},
		Details: map[string]string{"ports": joinPorts(ports)},
	}, rem, next)}
}

// staticNodeTargets are the node targets no LBC binding keeps current and
// that still take traffic: all node targets, except in an instance target
// group the LBC owns, and except the draining ones (deregistered already:
// they take no new requests and leave by themselves).
func (a *analysis) staticNodeTargets() []*TargetReport {
	if a.rep.TargetType == "instance" && a.rep.Owner.Kind != OwnerUnmanaged {
		return nil
	}
	var out []*TargetReport
	for i := range a.rep.Targets {
		if t := &a.rep.Targets[i]; t.Class == ClassNode && !t.Draining() {
			out = append(out, t)
		}
	}
	return out
}
