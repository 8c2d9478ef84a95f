package subnets

// check_karpenter.go: the Karpenter check: the EC2NodeClasses that select
// public subnets or give public addresses, their NodePools and budgets,
// the nodes no NodePool owns (node groups, by hand), and the estimate of
// the drift-driven replacement, with its codes.

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/karpenterapi"
	"github.com/qstools/tgmigrate/internal/textcell"
)

// Codes of the Karpenter check.
const (
	// CodeDriftBlocked: a NodePool's budgets allow no drifted node to be
	// replaced, so its nodes never move.
	CodeDriftBlocked diagnose.Code = "DriftBlocked"
	// CodeManagedNodeGroup: nodes of an EKS managed node group
	// (eks.amazonaws.com/nodegroup), which the move does not automate.
	CodeManagedNodeGroup diagnose.Code = "ManagedNodeGroup"
	// CodeSelfManagedNodes: nodes no NodePool and no managed node group
	// owns, which the move does not automate.
	CodeSelfManagedNodes diagnose.Code = "SelfManagedNodes"
)

var karpenterRules = []diagnose.Rule{
	{Code: CodeDriftBlocked, Severity: diagnose.SeverityHigh,
		Signal:      "the move never ends: Karpenter marks the nodes Drifted and replaces none",
		Remediation: "let the NodePool's budgets allow Drifted disruptions (PlanMove can set a budget for the move)"},
	{Code: CodeManagedNodeGroup, Severity: diagnose.SeverityMedium,
		Signal:      "these nodes stay in public subnets after the move",
		Remediation: "create a node group in the private subnets, cordon and drain the old one's nodes, then delete it"},
	{Code: CodeSelfManagedNodes, Severity: diagnose.SeverityMedium,
		Signal:      "these nodes stay in public subnets after the move",
		Remediation: "launch their replacements in the private subnets (their Auto Scaling group or launch template), then cordon and drain them"},
}

// LabelNodeGroup is the label EKS sets on the nodes of a managed node group.
const LabelNodeGroup = "eks.amazonaws.com/nodegroup"

// SelfManaged is the [NodeGroupReport] name of nodes no NodePool and no
// managed node group owns.
const SelfManaged = "self-managed"

// publicAddress reports whether a node has an ExternalIP.
func publicAddress(n *corev1.Node) bool {
	return slices.ContainsFunc(n.Status.Addresses, func(a corev1.NodeAddress) bool { return a.Type == corev1.NodeExternalIP && a.Address != "" })
}

// checkKarpenter reports the node classes the move patches, their pools
// and budgets, the node groups, and the estimate.
func (r *run) checkKarpenter(context.Context) error {
	r.nodeClassesToMove()
	moving := map[string]int{} // class -> index in rep.NodeClasses
	for i, nc := range r.rep.NodeClasses {
		moving[nc.Name] = i
	}
	nodesOf := map[string][]*corev1.Node{}
	for i := range r.objs.Nodes {
		n := &r.objs.Nodes[i]
		if pool := n.Labels[karpenterapi.LabelNodePool]; pool != "" {
			nodesOf[pool] = append(nodesOf[pool], n)
		}
	}
	est := &r.rep.Estimate
	for i := range r.nodePools {
		np, err := karpenterapi.NodePoolOf(&r.nodePools[i])
		if err != nil {
			r.note(fmt.Sprintf("NodePool %s not read: %v", r.nodePools[i].GetName(), err))
			continue
		}
		ci, ok := moving[np.NodeClassRef.Name]
		if !ok || !np.NodeClassRef.IsEC2NodeClass() {
			continue
		}
		nodes := nodesOf[np.Name]
		rep := NodePoolReport{Name: np.Name, NodeClass: np.NodeClassRef.Name, Budgets: karpenterapi.CloneBudgets(np.Budgets),
			Nodes: len(nodes), ResourceVersion: np.ResourceVersion}
		for _, n := range nodes {
			if publicAddress(n) {
				rep.PublicNodes++
			}
		}
		allowed, err := karpenterapi.AllowedDisruptions(np.EffectiveBudgets(), "Drifted", len(nodes))
		if err != nil {
			r.note(fmt.Sprintf("NodePool %s: its budgets are malformed (%v): its nodes are not estimated", np.Name, err))
			continue
		}
		rep.AllowedDrift = allowed
		nc := &r.rep.NodeClasses[ci]
		nc.NodePools = append(nc.NodePools, np.Name)
		nc.Nodes += len(nodes)
		r.rep.NodePools = append(r.rep.NodePools, rep)
		if len(nodes) > 0 && allowed == 0 {
			r.add(CodeDriftBlocked, fmt.Sprintf("NodePool %s's budgets allow 0 of its %s to drift at once: none would be replaced", np.Name, textcell.Plural(len(nodes), "node", "nodes")),
				diagnose.Evidence{Names: []string{np.Name}, Counts: map[string]int{"nodes": len(nodes), "allowed": 0}, Details: map[string]string{"budgets": budgetsLine(np.EffectiveBudgets())}}, "",
				r.manual(fmt.Sprintf("allow Drifted disruptions in NodePool %s's spec.disruption.budgets, or let PlanMove set a budget for the move", np.Name)))
			continue
		}
		est.Nodes += len(nodes)
		if allowed > 0 {
			est.Waves += (len(nodes) + allowed - 1) / allowed
		}
	}
	est.Duration = time.Duration(est.Waves) * (est.Launch + est.Drain)
	est.Assumptions = r.assumptions()
	r.nodeGroups()
	return nil
}

// assumptions name what the estimate rests on.
func (r *run) assumptions() []string {
	src := func(given time.Duration, def string) string {
		if given != 0 {
			return "given in Input"
		}
		return "the default, " + def
	}
	return []string{
		fmt.Sprintf("a replacement node launches and turns Ready in %v (%s)", r.rep.Estimate.Launch, src(r.in.LaunchTime, "DefaultLaunchTime")),
		fmt.Sprintf("a drifted node drains and terminates in %v (%s): its pods' graceful stop and the target groups' deregistration delay", r.rep.Estimate.Drain, src(r.in.DrainTime, "DefaultDrainTime")),
		"each wave replaces as many nodes as the pool's budgets allow for Drifted at once (scheduled budgets counted as active)",
		"the NodePools roll one after another, so their waves add up (an upper bound: Karpenter may drift pools in parallel)",
		"every node of a moved pool drifts: the move sets associatePublicIPAddress, which changes the node class's hash",
	}
}

// nodeClassesToMove fills rep.NodeClasses: the EC2NodeClasses (those of
// Input.NodeClasses, when given) whose terms select a public subnet or
// that associate public addresses.
func (r *run) nodeClassesToMove() {
	want := map[string]bool{}
	for _, n := range r.in.NodeClasses {
		want[n] = true
	}
	seen := map[string]bool{}
	for i := range r.nodeClasses {
		nc, err := karpenterapi.EC2NodeClassOf(&r.nodeClasses[i])
		if err != nil {
			r.note(fmt.Sprintf("EC2NodeClass %s not read: %v", r.nodeClasses[i].GetName(), err))
			continue
		}
		seen[nc.Name] = true
		if len(want) > 0 && !want[nc.Name] {
			continue
		}
		var public []string
		for _, s := range r.subnets {
			v := r.subnetOf(s)
			if v.Public && karpenterapi.Selects(nc.SubnetSelectorTerms, v.ID, v.Tags) {
				public = append(public, v.ID)
			}
		}
		if len(public) == 0 && (nc.AssociatePublicIPAddress == nil || !*nc.AssociatePublicIPAddress) {
			continue
		}
		slices.Sort(public)
		rep := NodeClassReport{Name: nc.Name, SubnetSelectorTerms: karpenterapi.CloneTerms(nc.SubnetSelectorTerms), PublicSubnets: public,
			NodePools: []string{}, ResourceVersion: nc.ResourceVersion}
		if nc.AssociatePublicIPAddress != nil {
			v := *nc.AssociatePublicIPAddress
			rep.AssociatePublicIPAddress = &v
		}
		if rep.PublicSubnets == nil {
			rep.PublicSubnets = []string{}
		}
		r.rep.NodeClasses = append(r.rep.NodeClasses, rep)
		r.moving = append(r.moving, nc)
	}
	for _, n := range slices.Sorted(maps.Keys(want)) {
		if !seen[n] {
			r.note(fmt.Sprintf("EC2NodeClass %s, named in Input.NodeClasses, was not found", n))
		}
	}
}

// nodeGroups reports the nodes no NodePool owns, by managed node group
// (or self-managed), each with the steps to take by hand and a finding.
func (r *run) nodeGroups() {
	groups := map[string]*NodeGroupReport{}
	for i := range r.objs.Nodes {
		n := &r.objs.Nodes[i]
		if n.Labels[karpenterapi.LabelNodePool] != "" {
			continue
		}
		name := n.Labels[LabelNodeGroup]
		if name == "" {
			name = SelfManaged
		}
		g := groups[name]
		if g == nil {
			g = &NodeGroupReport{Name: name}
			groups[name] = g
		}
		g.Nodes++
		if publicAddress(n) {
			g.PublicNodes++
		}
	}
	for _, name := range slices.Sorted(maps.Keys(groups)) {
		g := groups[name]
		code := CodeManagedNodeGroup
		if name == SelfManaged {
			code = CodeSelfManagedNodes
			g.Steps = []string{
				"launch replacement nodes in the private subnets (their Auto Scaling group's or launch template's subnets, without public addresses)",
				"cordon the old nodes, then drain them one by one (kubectl drain --ignore-daemonsets), respecting PodDisruptionBudgets",
				"terminate the old instances",
			}
		} else {
			g.Steps = []string{
				fmt.Sprintf("create a managed node group like %s in the private subnets %s", name, subnetIDs(r.rep.PrivateSubnets)),
				fmt.Sprintf("cordon the nodes of %s (label %s=%s), then drain them (kubectl drain --ignore-daemonsets), respecting PodDisruptionBudgets", name, LabelNodeGroup, name),
				fmt.Sprintf("delete node group %s", name),
			}
		}
		r.rep.NodeGroups = append(r.rep.NodeGroups, *g)
		what := "managed node group " + name
		if name == SelfManaged {
			what = "self-managed nodes"
		}
		r.add(code, fmt.Sprintf("%s: %s (%d with a public address) no NodePool owns: the move does not replace them", what, textcell.Plural(g.Nodes, "node", "nodes"), g.PublicNodes),
			diagnose.Evidence{Names: []string{name}, Counts: map[string]int{"nodes": g.Nodes, "publicNodes": g.PublicNodes}}, "",
			r.manual(joinSteps(g.Steps)))
	}
}

func subnetIDs(s []Subnet) string {
	if len(s) == 0 {
		return "(none chosen)"
	}
	ids := make([]string, len(s))
	for i, x := range s {
		ids[i] = x.ID
	}
	return joinList(ids)
}

func budgetsLine(b []karpenterapi.Budget) string {
	var parts []string
	for _, x := range b {
		s := x.Nodes
		if len(x.Reasons) > 0 {
			s += " for " + joinList(x.Reasons)
		}
		if x.Schedule != "" {
			s += " at " + x.Schedule + " for " + x.Duration
		}
		parts = append(parts, s)
	}
	return joinList(parts)
}
