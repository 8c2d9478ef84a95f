package diagnose

// This file is Classify: who serves each target's ip:port now (a pod, a
// node, a ghost, or foreign), and the target types it reads and writes.

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/qstools/tgmigrate"
)

// Class is what holds a target's address now.
type Class string

// The classes.
const (
	// ClassPod: the IP is a current pod's IP, and the pod serves the port
	// there: a Fargate pod on its node's address, or a hostNetwork pod on
	// its node's, is a pod target (the node beside it in the report).
	ClassPod Class = "pod"
	// ClassNode: the IP (or instance ID) is a current node's.
	ClassNode Class = "node"
	// ClassGhost: no current node or pod holds the IP, and the IP or the
	// port says it was the cluster's.
	ClassGhost Class = "ghost"
	// ClassForeign: another cluster's, another VPC's, or unknown.
	ClassForeign Class = "foreign"
)

var classes = []Class{ClassPod, ClassNode, ClassGhost, ClassForeign}

// ForeignKind says why a target is foreign.
type ForeignKind string

// The foreign kinds.
const (
	// ForeignCluster: a node or pod of a scanned cluster in another VPC
	// holds the IP (the target is outside the target group's VPC).
	ForeignCluster ForeignKind = "other-cluster"
	// ForeignVPC: the target is outside the target group's VPC, or no
	// scanned cluster is in the target group's VPC.
	ForeignVPC ForeignKind = "other-vpc"
	// ForeignUnknown: inside the VPC, held by nothing scanned, and nothing
	// says it was the cluster's. Also every target when a cluster in the
	// VPC could not be read.
	ForeignUnknown ForeignKind = "unknown"
	// ForeignAmbiguous: more than one scanned cluster holds the IP; set the
	// clusters' VPCIDs to tell them apart.
	ForeignAmbiguous ForeignKind = "ambiguous"
	// ForeignOutsideRanges: inside the VPC, held by nothing scanned, and
	// outside the CIDRs that every scanned cluster in the VPC declares.
	ForeignOutsideRanges ForeignKind = "outside-ranges"
)

// Target is one registered target, as DescribeTargetHealth returns it:
// [tgmigrate.Target], the one model of a target, with its Key and Draining.
type Target = tgmigrate.Target

// TargetSet is the targets of one target group, with what classification
// needs to know about the group.
type TargetSet struct {
	// VPCID is the target group's VPC. Empty means unknown: every cluster
	// is then a candidate owner.
	VPCID string
	// TargetType is "ip" or "instance". Empty means ip. Targets of lambda
	// and alb target groups are not classified: they are foreign.
	TargetType string
	// Targets are the registered targets.
	Targets []Target
}

// TargetReport is one classified target.
type TargetReport struct {
	Target
	// Class is what holds the target's address now.
	Class Class `json:"class"`
	// Foreign says why, for ClassForeign.
	Foreign ForeignKind `json:"foreign,omitempty"`
	// Cluster is the cluster whose node or pod holds the address; for a
	// ghost, the cluster whose ranges or ports it matches.
	Cluster string `json:"cluster,omitempty"`
	// Node is the node that holds the address.
	Node *NodeRef `json:"node,omitempty"`
	// Pod is the pod that holds the address.
	Pod *PodRef `json:"pod,omitempty"`
	// Services are the namespace/name of the Services the target serves:
	// the Services selecting the pod, or the Services whose NodePort is the
	// target's port (for node targets and ghosts).
	Services []string `json:"services,omitempty"`
	// HeldBy names the node or pod that holds a ghost's address now but
	// does not serve its port: the VPC CNI handed the address out again.
	// The target is dead for its target group all the same.
	HeldBy *Holder `json:"heldBy,omitempty"`
	// Note explains the class in one line.
	Note string `json:"note,omitempty"`
}

// Holder is the node or pod that holds an address.
type Holder struct {
	// Kind is "node" or "pod".
	Kind string `json:"kind"`
	// Cluster, Namespace (for a pod) and Name locate it.
	Cluster   string `json:"cluster"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// String returns "node NAME" or "pod NAMESPACE/NAME", with the cluster.
func (h Holder) String() string {
	if h.Kind == "pod" {
		return fmt.Sprintf("pod %s/%s in cluster %s", h.Namespace, h.Name, h.Cluster)
	}
	return fmt.Sprintf("%s %s in cluster %s", h.Kind, h.Name, h.Cluster)
}

// NodeRef describes a node that holds a target's address.
type NodeRef struct {
	// Name is the node's name.
	Name string `json:"name"`
	// InstanceID is the EC2 instance ID from the node's providerID.
	InstanceID string `json:"instanceID,omitempty"`
	// Zone is the node's topology.kubernetes.io/zone.
	Zone string `json:"zone,omitempty"`
	// InternalIP and ExternalIP are the node's first addresses of each type.
	InternalIP string `json:"internalIP,omitempty"`
	ExternalIP string `json:"externalIP,omitempty"`
	// Ready is the node's Ready condition.
	Ready bool `json:"ready"`
	// Karpenter reports whether Karpenter manages the node.
	Karpenter bool `json:"karpenter"`
	// Fargate reports an EKS Fargate node (label
	// eks.amazonaws.com/compute-type: fargate): the Node of one pod, whose
	// InternalIP is that pod's IP; it serves no NodePort.
	Fargate bool `json:"fargate,omitempty"`
	// NodePool and NodeClaim are Karpenter's, when it manages the node.
	NodePool  string `json:"nodePool,omitempty"`
	NodeClaim string `json:"nodeClaim,omitempty"`
	// Disrupting reports whether the node is leaving: DisruptionReasons
	// lists the taint karpenter.sh/disrupted, the label
	// node.kubernetes.io/exclude-from-external-load-balancers, "cordoned"
	// or "being deleted".
	Disrupting        bool     `json:"disrupting"`
	DisruptionReasons []string `json:"disruptionReasons,omitempty"`
	// ExpiresAt is when Karpenter expires the node (NodeClaim creation plus
	// spec.expireAfter); nil when unknown or never. Expiry is forceful:
	// karpenter.sh/do-not-disrupt and budgets do not hold it.
	ExpiresAt *time.Time `json:"expiresAt,omitempty"`
	// TerminationGracePeriodSeconds is the NodeClaim's
	// spec.terminationGracePeriod (from its NodePool), which caps the drain
	// of a disrupted node; nil when unset (the drain is not capped).
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty"`
	// CapacityType is the node's karpenter.sh/capacity-type label:
	// "spot" (EC2 may interrupt it with two minutes' notice, which nothing
	// holds), "on-demand", or empty when unknown.
	CapacityType string `json:"capacityType,omitempty"`
	// Drifted reports the NodeClaim's Drifted condition: Karpenter replaces
	// the node as soon as the NodePool's disruption budget allows.
	Drifted bool `json:"drifted,omitempty"`
	// Consolidatable reports the NodeClaim's Consolidatable condition:
	// consolidation may replace or remove the node as soon as the
	// NodePool's disruption budget allows.
	Consolidatable bool `json:"consolidatable,omitempty"`
	// DoNotDisrupt reports the karpenter.sh/do-not-disrupt annotation. It
	// blocks consolidation and drift, not expiry or interruption.
	DoNotDisrupt bool `json:"doNotDisrupt,omitempty"`
	// SubnetID is the instance's subnet, and PublicSubnet whether that
	// subnet routes to an internet gateway; both need an EC2 client.
	SubnetID     string `json:"subnetID,omitempty"`
	PublicSubnet bool   `json:"publicSubnet,omitempty"`
}

func (n *NodeRef) clone() NodeRef {
	c := *n
	c.DisruptionReasons = slices.Clone(n.DisruptionReasons)
	if n.ExpiresAt != nil {
		t := *n.ExpiresAt
		c.ExpiresAt = &t
	}
	if n.TerminationGracePeriodSeconds != nil {
		g := *n.TerminationGracePeriodSeconds
		c.TerminationGracePeriodSeconds = &g
	}
	return c
}

// PodRef describes a pod that holds a target's address.
type PodRef struct {
	// Namespace and Name locate the pod.
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Node is the pod's node.
	Node string `json:"node,omitempty"`
	// Ready is the pod's Ready condition; Terminating reports a deletion in progress.
	Ready       bool `json:"ready"`
	Terminating bool `json:"terminating,omitempty"`
	// ReadinessGates are the pod's LBC target-health readiness gates.
	ReadinessGates []string `json:"readinessGates,omitempty"`
	// PortDeclared reports whether a container declares the target's port.
	PortDeclared bool `json:"portDeclared"`
	// HostNetwork reports a pod on its node's network: its IP is the
	// node's, where it serves its ports.
	HostNetwork bool `json:"hostNetwork,omitempty"`
}

// Classify says, for each target of one target group, who serves its
// ip:port now: a pod, a node, nothing (a ghost), or something foreign. It
// is pure: it reads the snapshots and makes no call. cutover calls it with
// one snapshot to plan a migration; Diagnose calls it with every cluster.
//
// A snapshot is a candidate owner when its VPC is unknown, the set's VPC is
// unknown, or both match. A target inside the VPC is:
//   - pod or node when exactly one candidate holds the address (instance
//     IDs match the nodes' providerIDs) and serves the port: a node its
//     NodePorts and host ports, a pod its declared container ports and its
//     Services' target ports. Where a node and a pod share the address,
//     who serves the port holds it (see compute.go): the pod of a Fargate
//     node (which serves no NodePort), or a hostNetwork pod that serves
//     the port at its node's address (unless the port is a NodePort); the
//     target is then a pod target with the node beside it. When what the
//     holder serves cannot be known (the Services were not listed, or a
//     pod declares no port and no Service selects it), the holder's class
//     stands;
//   - a ghost with HeldBy when the holder serves no such port: the
//     address was handed out again;
//   - foreign ambiguous when several candidates hold it;
//   - foreign other-vpc when there is no candidate at all;
//   - foreign unknown when a candidate's nodes or pods could not be listed;
//   - a ghost when a candidate's CIDRs hold the address, or when no
//     candidate declares CIDRs and the port is one of a candidate's
//     NodePorts or container ports (or ELB reports Target.InvalidState for
//     an instance);
//   - foreign outside-ranges when every candidate declares CIDRs and none
//     holds the address;
//   - foreign unknown otherwise.
//
// A target outside the VPC (zone "all") is foreign other-cluster when a
// non-candidate cluster holds it, and foreign other-vpc otherwise.
//
// The result is in the order of set.Targets.
func Classify(set TargetSet, snapshots ...*Snapshot) []TargetReport {
	var candidates, others []*Snapshot
	for _, s := range snapshots {
		if s == nil {
			continue
		}
		if s.cluster.VPCID == "" || set.VPCID == "" || s.cluster.VPCID == set.VPCID {
			candidates = append(candidates, s)
		} else {
			others = append(others, s)
		}
	}
	out := make([]TargetReport, len(set.Targets))
	for i, t := range set.Targets {
		out[i] = classifyOne(set, t, candidates, others)
	}
	return out
}

type holding struct {
	snap *Snapshot
	node *NodeRef
	pod  *corev1.Pod
}

func classifyOne(set TargetSet, t Target, candidates, others []*Snapshot) TargetReport {
	r := TargetReport{Target: t}
	switch set.TargetType {
	case "", "ip", "instance":
	default:
		r.Class, r.Foreign = ClassForeign, ForeignUnknown
		r.Note = fmt.Sprintf("%s targets are not classified", set.TargetType)
		return r
	}
	addr, addrErr := netip.ParseAddr(t.ID)
	isIP := addrErr == nil
	instance := !isIP && strings.HasPrefix(t.ID, "i-")

	if t.AvailabilityZone == "all" {
		// Outside the target group's VPC: only a cluster elsewhere can hold it.
		pool := others
		for _, s := range candidates {
			if s.cluster.VPCID == "" {
				pool = append(pool, s)
			}
		}
		hs := holders(pool, t, addr, isIP)
		r.Class, r.Foreign = ClassForeign, ForeignVPC
		r.Note = "outside the target group's VPC"
		if len(hs) == 1 {
			r.Foreign = ForeignCluster
			fill(&r, hs[0], t)
			r.Note = fmt.Sprintf("held by cluster %s, outside the target group's VPC", hs[0].snap.cluster.Name)
		}
		return r
	}

	hs := holders(candidates, t, addr, isIP)
	switch {
	case len(hs) == 1:
		h := hs[0].server(t, isIP)
		if r.reused(h, t, isIP) {
			return r
		}
		fill(&r, h, t)
		if r.Pod != nil {
			r.Class = ClassPod
		} else {
			r.Class = ClassNode
		}
		return r
	case len(hs) > 1:
		names := make([]string, len(hs))
		for i, h := range hs {
			names[i] = h.snap.cluster.Name
		}
		r.Class, r.Foreign = ClassForeign, ForeignAmbiguous
		r.Note = "held by clusters " + strings.Join(names, ", ") + ": set their VPC IDs"
		return r
	case len(candidates) == 0:
		r.Class, r.Foreign = ClassForeign, ForeignVPC
		if set.VPCID != "" {
			r.Note = fmt.Sprintf("no scanned cluster is in %s", set.VPCID)
		} else {
			r.Note = "no scanned cluster"
		}
		return r
	}
	for _, s := range candidates {
		for _, k := range []ListKind{ListNodes, ListPods} {
			if !s.listed(k) {
				r.Class, r.Foreign = ClassForeign, ForeignUnknown
				r.Note = fmt.Sprintf("the %s of cluster %s could not be listed", k, s.cluster.Name)
				if s.failed == nil {
					r.Note = fmt.Sprintf("cluster %s could not be read", s.cluster.Name)
				}
				return r
			}
		}
	}
	if s, why, ok := ghostEvidence(candidates, t, addr, isIP, instance); ok {
		r.Class, r.Cluster = ClassGhost, s.cluster.Name
		r.Services = s.nodePorts[t.Port]
		r.Note = "no node or pod holds it; " + why
		return r
	}
	r.Class, r.Foreign = ClassForeign, ForeignUnknown
	r.Note = "no scanned node or pod holds it, and neither its address nor its port is the cluster's"
	if isIP && !slices.ContainsFunc(candidates, func(s *Snapshot) bool { return len(s.cidrs) == 0 }) {
		r.Foreign = ForeignOutsideRanges
		r.Note = "no scanned node or pod holds it, and it is outside the CIDRs of every scanned cluster in the VPC"
	}
	return r
}

// reused classifies a target whose address a node or pod holds but which
// that node or pod does not serve on the target's port: the address was
// handed out again (or the port was never right), and the target is dead
// for its target group. It reports whether it did. An instance ID is never
// reused, so instance targets are left to the port checks.
func (r *TargetReport) reused(h holding, t Target, isIP bool) bool {
	var serves, known bool
	var holder Holder
	var what string
	switch {
	case h.pod != nil:
		serves, known = h.snap.podServes(h.pod, t.Port)
		holder = Holder{Kind: "pod", Cluster: h.snap.cluster.Name, Namespace: h.pod.Namespace, Name: h.pod.Name}
		what = "neither a port its containers declare nor a target port of its Services"
	case h.node != nil && isIP:
		serves, known = h.snap.nodeServes(h.node, t.Port)
		holder = Holder{Kind: "node", Cluster: h.snap.cluster.Name, Name: h.node.Name}
		what = "none of its NodePorts or host ports"
		if h.node.Fargate {
			what = "a Fargate node: no kube-proxy serves NodePorts there"
		}
	default:
		return false
	}
	if !known || serves {
		return false
	}
	r.Class, r.Cluster, r.HeldBy = ClassGhost, h.snap.cluster.Name, &holder
	r.Services = h.snap.nodePorts[t.Port]
	r.Note = fmt.Sprintf("its address is now held by %s, which does not serve port %d (%s)", holder, t.Port, what)
	return true
}

// holders finds who holds the address in each snapshot, among the kinds
// that snapshot could list.
func holders(snaps []*Snapshot, t Target, addr netip.Addr, isIP bool) []holding {
	var hs []holding
	for _, s := range snaps {
		switch {
		case !isIP:
			if n, ok := s.nodeByInstance[t.ID]; ok {
				hs = append(hs, holding{snap: s, node: n})
			}
		case s.nodeByIP[addr] != nil:
			// A pod that holds the node's address too: a node per pod
			// (Fargate); server says which of the two serves.
			hs = append(hs, holding{snap: s, node: s.nodeByIP[addr], pod: s.podByIP[addr]})
		case s.podByIP[addr] != nil:
			hs = append(hs, holding{snap: s, pod: s.podByIP[addr]})
		}
	}
	return hs
}

func fill(r *TargetReport, h holding, t Target) {
	r.Cluster = h.snap.cluster.Name
	if h.node != nil {
		n := h.node.clone()
		r.Node = &n
		if h.pod == nil {
			r.Services = h.snap.nodePorts[t.Port]
			return
		}
		r.Note = podOnNode(h.node, h.pod, t.Port)
	}
	p := h.pod
	ref := &PodRef{Namespace: p.Namespace, Name: p.Name, Node: p.Spec.NodeName, Terminating: p.DeletionTimestamp != nil, HostNetwork: p.Spec.HostNetwork}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			ref.Ready = c.Status == corev1.ConditionTrue
		}
	}
	for _, g := range p.Spec.ReadinessGates {
		if strings.HasPrefix(string(g.ConditionType), ReadinessGatePrefix) {
			ref.ReadinessGates = append(ref.ReadinessGates, string(g.ConditionType))
		}
	}
	for _, c := range p.Spec.Containers {
		for _, cp := range c.Ports {
			if cp.ContainerPort == t.Port {
				ref.PortDeclared = true
			}
		}
	}
	r.Pod = ref
	r.Services = h.snap.servicesOfPod(p)
}

// ghostEvidence says whether an address nobody holds was the cluster's.
func ghostEvidence(candidates []*Snapshot, t Target, addr netip.Addr, isIP, instance bool) (*Snapshot, string, bool) {
	declared := false
	if isIP {
		for _, s := range candidates {
			declared = declared || len(s.cidrs) > 0
			for _, p := range s.cidrs {
				if p.Contains(addr) {
					return s, fmt.Sprintf("inside %s of cluster %s", p, s.cluster.Name), true
				}
			}
		}
		for _, s := range candidates {
			for _, p := range s.podCIDRs {
				if p.Contains(addr) {
					return s, fmt.Sprintf("inside pod CIDR %s of cluster %s", p, s.cluster.Name), true
				}
			}
		}
	}
	if declared {
		return nil, "", false
	}
	if instance && t.Reason == "Target.InvalidState" {
		return candidates[0], "the instance is stopped or terminated", true
	}
	if !isIP && !instance {
		return nil, "", false
	}
	for _, s := range candidates {
		if svcs := s.nodePorts[t.Port]; len(svcs) > 0 {
			return s, fmt.Sprintf("port %d is the NodePort of %s in cluster %s", t.Port, strings.Join(svcs, ", "), s.cluster.Name), true
		}
	}
	for _, s := range candidates {
		if isIP && s.containerPorts[t.Port] {
			return s, fmt.Sprintf("port %d is a container port in cluster %s", t.Port, s.cluster.Name), true
		}
	}
	return nil, "", false
}

// compareTargets orders targets by address (numerically), then port.
func compareTargets(a, b Target) int {
	aa, aErr := netip.ParseAddr(a.ID)
	ba, bErr := netip.ParseAddr(b.ID)
	switch {
	case aErr == nil && bErr == nil:
		if c := aa.Compare(ba); c != 0 {
			return c
		}
	case aErr == nil:
		return -1
	case bErr == nil:
		return 1
	default:
		if c := cmp.Compare(a.ID, b.ID); c != 0 {
			return c
		}
	}
	return cmp.Compare(a.Port, b.Port)
}
