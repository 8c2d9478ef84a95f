package diagnose

// This file is the analysis of one target group: its targets classified
// and counted, what could not be read (Unknowns), and its owner (a
// binding, an LBC stack, nobody, or outside the scanned clusters'
// business). service.go finds the Service it serves; the rule_*.go files
// judge it.

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/read"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// LBC tag keys (DOMAIN.md): a target group with none of them was made by
// hand or by another tool. They are aliases of the root's names.
const (
	TagCluster       = tgmigrate.TagLBCCluster
	TagIngressStack  = tgmigrate.TagLBCIngressStack
	TagServiceStack  = tgmigrate.TagLBCServiceStack
	TagIngressSource = tgmigrate.TagLBCIngressResource
	TagServiceSource = tgmigrate.TagLBCServiceResource
)

// The LBC's readiness gate, aliases of the root's names.
const (
	// LabelReadinessGateInject turns on the LBC's readiness-gate webhook for
	// a namespace, with the value "enabled".
	LabelReadinessGateInject = tgmigrate.LabelReadinessGateInject
	// ReadinessGatePrefix starts the condition type of the LBC's readiness
	// gate; the binding's name follows it.
	ReadinessGatePrefix = tgmigrate.ReadinessGatePrefix
)

// boundTGB is a binding on the target group, with the cluster it lives in.
type boundTGB struct {
	snap *Snapshot
	tgb  *v1beta1.TargetGroupBinding
	ref  BindingRef
}

// analysis is the state of one target group's analysis.
type analysis struct {
	rep      *TargetGroupReport
	arn      awserr.ARN // rep.ARN, typed: the handoff's
	tags     map[string]string
	snaps    []*Snapshot
	bindings []boundTGB
	service  *serviceTarget
	now      time.Time
	// tagsUnread: DescribeTags failed, so an LBC stack cannot be ruled out.
	tagsUnread bool
	// podHosts are the nodes that host the pods behind the pod targets that
	// take traffic, by cluster and node name, with how many pod targets each
	// hosts. The NodeRefs are shared by the account's target groups, so its
	// subnet check marks each node once.
	podHosts map[string]podHost
}

// podHost is a node that hosts pod targets of a target group.
type podHost struct {
	node    *NodeRef
	targets int
}

// collectPodHosts finds the nodes of the pods behind the pod targets that
// take traffic. hosts holds one NodeRef per cluster and node for the
// account: a copy of the snapshot's, so that its subnet check can mark it.
func (a *analysis) collectPodHosts(hosts map[string]*NodeRef) {
	for _, t := range a.rep.Targets {
		if t.Class != ClassPod || t.Pod == nil || t.Pod.Node == "" || t.Draining() {
			continue
		}
		key := t.Cluster + "/" + t.Pod.Node
		n := hosts[key]
		if n == nil {
			snap := a.snapshot(t.Cluster)
			if snap == nil || snap.nodeByName[t.Pod.Node] == nil {
				continue
			}
			c := snap.nodeByName[t.Pod.Node].clone()
			n = &c
			hosts[key] = n
		}
		if a.podHosts == nil {
			a.podHosts = map[string]podHost{}
		}
		a.podHosts[key] = podHost{node: n, targets: a.podHosts[key].targets + 1}
	}
}

// newAnalysis classifies the targets of rep and derives its owner and the
// Service it serves. rep must hold the target group's description.
// tagsErr is the DescribeTags failure, if any; now is the report's
// GeneratedAt, which countdowns run from.
func newAnalysis(rep *TargetGroupReport, targets []Target, tags map[string]string, tagsErr error, snaps []*Snapshot, now time.Time) *analysis {
	a := &analysis{rep: rep, tags: tags, snaps: snaps, now: now, tagsUnread: tagsErr != nil}
	slices.SortFunc(targets, compareTargets)
	rep.Targets = Classify(TargetSet{VPCID: rep.VPCID, TargetType: rep.TargetType, Targets: targets}, snaps...)
	rep.Counts = countTargets(rep.Targets)
	a.unknowns(tagsErr)
	a.owner()
	a.inferService()
	return a
}

// inVPC reports whether snapshot s may hold the target group's targets.
func (a *analysis) inVPC(s *Snapshot) bool {
	return s.cluster.VPCID == "" || a.rep.VPCID == "" || s.cluster.VPCID == a.rep.VPCID
}

// unknowns states what could not be read for the target group: its tags,
// and each list that failed in a cluster that may hold its targets.
func (a *analysis) unknowns(tagsErr error) {
	var out []Unknown
	if tagsErr != nil {
		out = append(out, Unknown{Source: "tags", Category: category(tagsErr),
			Effect: "LBC tags unknown: the owner rests on the bindings, and no unmanaged or instance-type finding is made"})
	}
	for _, s := range a.snaps {
		if !a.inVPC(s) {
			continue
		}
		if s.failed == nil {
			out = append(out, Unknown{Cluster: s.cluster.Name, Source: "cluster", Category: cmp.Or(s.unread, "error"),
				Effect: "nothing in the cluster could be read: no target is judged against it"})
			continue
		}
		for _, f := range s.Failures() {
			out = append(out, Unknown{Cluster: s.cluster.Name, Source: string(f.Kind), Category: f.Category, Effect: read.Effect(f.Kind)})
		}
	}
	a.rep.Unknowns = out
}

// addFindings derives the findings, once the subnet checks have marked the
// nodes.
func (a *analysis) addFindings() {
	a.rep.Findings = append(a.rep.Findings, a.findings()...)
	slices.SortStableFunc(a.rep.Findings, compareFindings)
}

func countTargets(ts []TargetReport) TargetCounts {
	c := TargetCounts{Total: len(ts), ByClass: map[Class]int{}, ByState: map[string]int{}}
	for _, cl := range classes {
		c.ByClass[cl] = 0
	}
	for _, t := range ts {
		c.ByClass[t.Class]++
		if t.State != "" {
			c.ByState[t.State]++
		}
	}
	return c
}

func (a *analysis) owner() {
	o := Owner{Kind: OwnerUnmanaged}
	for _, k := range tgmigrate.LBCOwnerTags() {
		if v, ok := a.tags[k]; ok {
			if a.rep.LBCTags == nil {
				a.rep.LBCTags = map[string]string{}
			}
			a.rep.LBCTags[k] = v
		}
	}
	o.Cluster = a.tags[TagCluster]
	o.Stack = cmp.Or(a.tags[TagIngressStack], a.tags[TagServiceStack])
	o.Resource = cmp.Or(a.tags[TagIngressSource], a.tags[TagServiceSource])
	if o.Cluster != "" || o.Stack != "" {
		o.Kind = OwnerLBCStack
	}
	for _, s := range a.snaps {
		if !s.listed(ListBindings) {
			continue
		}
		for _, b := range s.bindingsFor(a.rep.ARN, a.rep.Name) {
			ref := BindingRef{
				Cluster: s.cluster.Name, Namespace: b.Namespace, Name: b.Name, Mode: ModeDefault,
				ServiceName: b.Spec.ServiceRef.Name, ServicePort: b.Spec.ServiceRef.Port.String(),
			}
			if b.Spec.MultiClusterTargetGroup {
				ref.Mode = ModeMultiCluster
			}
			if b.Spec.TargetType != nil {
				ref.TargetType = string(*b.Spec.TargetType)
			}
			a.bindings = append(a.bindings, boundTGB{snap: s, tgb: b, ref: ref})
			o.Bindings = append(o.Bindings, ref)
		}
	}
	if len(o.Bindings) > 0 {
		o.Kind = OwnerBinding
	}
	if o.Kind == OwnerUnmanaged {
		if why, ok := a.outside(); ok {
			o.Kind, o.Reason = OwnerOutside, why
			// No cluster's list matters to it: only its tags could.
			a.rep.Unknowns = slices.DeleteFunc(a.rep.Unknowns, func(u Unknown) bool { return u.Cluster != "" })
		} else if a.tagsUnread {
			o.Kind, o.Reason = OwnerUnknown, "its tags could not be read: an LBC stack may own it"
		} else {
			for _, s := range a.snaps {
				if a.inVPC(s) && !s.listed(ListBindings) {
					o.Kind, o.Reason = OwnerUnknown, fmt.Sprintf("the TargetGroupBindings of cluster %s could not be read: one may own it", s.cluster.Name)
					break
				}
			}
		}
	}
	a.rep.Owner = o
}

// outside says why a target group that no binding or LBC tag owns is not
// the scanned clusters' business: a Lambda or ALB target group; a VPC where
// no scanned cluster runs; instances that are no node of any scanned
// cluster; or addresses outside every scanned cluster's VPC and ranges. Such
// a target group is left alone.
func (a *analysis) outside() (string, bool) {
	switch a.rep.TargetType {
	case "lambda":
		return "a Lambda target group: its target is a function, not a node or pod", true
	case "alb":
		return "an ALB-type target group: its target is a load balancer, not a node or pod", true
	}
	if a.rep.VPCID != "" && !slices.ContainsFunc(a.snaps, func(s *Snapshot) bool { return s.cluster.VPCID == "" || s.cluster.VPCID == a.rep.VPCID }) {
		return fmt.Sprintf("in %s, where no scanned cluster runs", a.rep.VPCID), true
	}
	if len(a.rep.Targets) == 0 {
		return "", false
	}
	for _, s := range a.snaps {
		if a.inVPC(s) && !(s.listed(ListNodes) && s.listed(ListPods)) {
			return "", false // they may be this cluster's
		}
	}
	instance := a.rep.TargetType == "instance"
	for _, t := range a.rep.Targets {
		switch {
		case t.Class != ClassForeign:
			return "", false
		case t.Foreign == ForeignVPC || t.Foreign == ForeignOutsideRanges:
		case instance && t.Foreign == ForeignUnknown:
		default:
			return "", false
		}
	}
	if instance {
		if len(a.rep.Targets) == 1 {
			return "its instance is no node of any scanned cluster", true
		}
		return "its instances are no node of any scanned cluster", true
	}
	return "its addresses are outside every scanned cluster's VPC and address ranges", true
}

func (a *analysis) snapshot(name string) *Snapshot {
	for _, s := range a.snaps {
		if s.cluster.Name == name {
			return s
		}
	}
	return nil
}
