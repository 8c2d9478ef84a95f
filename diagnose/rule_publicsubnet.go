package diagnose

// This file is the PublicSubnetNode rule: public nodes that hold node
// targets or host the pods behind pod targets.

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/qstools/tgmigrate/internal/textcell"
)

// CodePublicSubnetNode: a node target sits on a node with an ExternalIP
// or in a subnet that routes to an internet gateway.
const CodePublicSubnetNode Code = "PublicSubnetNode"

// SignalPublicSubnetNode is the seed signal of [CodePublicSubnetNode].
const SignalPublicSubnetNode = "nodes are reachable from the internet, and moving them breaks the ALB"

// publicSubnetRule makes PublicSubnetNode: public nodes that hold node
// targets or host the pods behind pod targets.
type publicSubnetRule struct{}

var _ targetGroupRule = publicSubnetRule{}

func (publicSubnetRule) rules() []Rule {
	return []Rule{{CodePublicSubnetNode, SeverityLow, SignalPublicSubnetNode,
		"cutover.Execute first; move the nodes to private subnets only once no target group pins node IPs"}}
}

// judge reports the public nodes (an ExternalIP, or a subnet routed
// to an internet gateway) that hold node targets or host the pods behind
// pod targets, counting only targets that take traffic. Both break when
// the nodes move to private subnets before the cutover: node targets point
// at the old node IPs; pod targets registered by hand point at the old pod
// IPs, and even the LBC's need the readiness gate to move without a gap.
func (publicSubnetRule) judge(a *analysis) []Finding {
	type why struct {
		node                    *NodeRef
		nodeTargets, podTargets int
	}
	public := map[string]*why{} // node name -> what it holds
	add := func(n *NodeRef) *why {
		if public[n.Name] == nil {
			public[n.Name] = &why{node: n}
		}
		return public[n.Name]
	}
	var nodeTargets, podTargets int
	for _, t := range a.rep.Targets {
		if t.Class != ClassNode || t.Draining() || (t.Node.ExternalIP == "" && !t.Node.PublicSubnet) {
			continue
		}
		nodeTargets++
		add(t.Node).nodeTargets++
	}
	for _, key := range slices.Sorted(maps.Keys(a.podHosts)) {
		h := a.podHosts[key]
		if h.node.ExternalIP == "" && !h.node.PublicSubnet {
			continue
		}
		podTargets += h.targets
		add(h.node).podTargets += h.targets
	}
	if len(public) == 0 {
		return nil
	}
	subnets := map[string]bool{}
	var external, inPublic, targetNodes, podNodes int
	details := map[string]string{}
	for name, w := range public {
		var reasons []string
		if w.node.ExternalIP != "" {
			external++
			reasons = append(reasons, "ExternalIP "+w.node.ExternalIP)
		}
		if w.node.PublicSubnet {
			inPublic++
			subnets[w.node.SubnetID] = true
			reasons = append(reasons, "subnet "+w.node.SubnetID+" routes to an internet gateway")
		}
		if w.nodeTargets > 0 {
			targetNodes++
			reasons = append(reasons, "holds "+textcell.Plural(w.nodeTargets, "node target", "node targets"))
		}
		if w.podTargets > 0 {
			podNodes++
			reasons = append(reasons, "hosts the pods of "+textcell.Plural(w.podTargets, "pod target", "pod targets"))
		}
		details["node/"+name] = strings.Join(reasons, "; ")
	}
	var parts []string
	if nodeTargets > 0 {
		parts = append(parts, fmt.Sprintf("node targets on public nodes: %s on %s", textcell.Plural(nodeTargets, "target", "targets"), textcell.Plural(targetNodes, "node", "nodes")))
	}
	if podTargets > 0 {
		parts = append(parts, fmt.Sprintf("pod targets on public nodes: %s on %s", textcell.Plural(podTargets, "target", "targets"), textcell.Plural(podNodes, "node", "nodes")))
	}
	var consequence string
	switch {
	case podTargets == 0:
		consequence = "moving the nodes breaks these targets until the cutover"
	case nodeTargets > 0:
		consequence = "moving the nodes breaks the node targets until the cutover, and reschedules the pods behind the pod targets"
	default:
		consequence = "moving the nodes reschedules the pods behind these targets"
	}
	switch {
	case podTargets == 0:
	case len(a.bindings) > 0:
		consequence += ": the LBC registers their new addresses, safely only with its readiness gate"
	default:
		consequence += ": no binding registers their new addresses"
	}
	msg := fmt.Sprintf("%s (%d with an ExternalIP, %d in a subnet routed to an internet gateway); %s",
		strings.Join(parts, "; "), external, inPublic, consequence)
	counts := map[string]int{"targets": nodeTargets, "nodes": len(public), "externalIP": external, "publicSubnet": inPublic}
	if podTargets > 0 {
		counts["podTargets"], counts["podNodes"] = podTargets, podNodes
	}
	if len(subnets) > 0 {
		details["subnets"] = strings.Join(slices.Sorted(maps.Keys(subnets)), ",")
	}
	var next NextCall
	var rem string
	switch {
	case nodeTargets > 0:
		next = a.cutoverCall()
		rem = a.cutoverProse(next, "run it (cutover.Execute) before the nodes move: nothing then pins their addresses")
	case len(a.bindings) > 0:
		cluster := a.bindings[0].ref.Cluster
		next = NextCall{Op: OpMoveNodes, Cluster: cluster}
		rem = "move the nodes to private subnets once no MissingReadinessGate finding remains: with the gate, the LBC's new pod targets are healthy before the pods they replace stop"
	default:
		next = a.withService(NextCall{Op: OpBuildBinding, TargetGroupARN: a.arn})
		rem = fmt.Sprintf("tgbind.Build for %s with MultiClusterTargetGroup true before the nodes move, so that the pods' new addresses are registered", a.serviceArg())
		if a.rep.TargetType != "ip" {
			next = a.cutoverCall()
			rem = a.cutoverProse(next, "run it before the nodes move")
		}
	}
	return []Finding{a.finding(CodePublicSubnetNode, msg, Evidence{Names: slices.Sorted(maps.Keys(public)), Counts: counts, Details: details}, rem, next)}
}
