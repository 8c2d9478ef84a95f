package diagnose

// This file is Snapshot: one cluster listed once (nodes, pods, Services,
// namespaces, TargetGroupBindings, Karpenter NodeClaims), what could not be
// listed, and the lookups Classify and the analysis make on it.

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/read"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// Well-known names read from the cluster.
const (
	// LabelNodePool marks a node that Karpenter manages.
	LabelNodePool = "karpenter.sh/nodepool"
	// TaintDisrupted is the taint Karpenter puts on a node it is about to drain.
	TaintDisrupted = "karpenter.sh/disrupted"
	// LabelExcludeFromLB is the label Karpenter (and kubectl drain tooling)
	// puts on a node leaving the cluster.
	LabelExcludeFromLB = "node.kubernetes.io/exclude-from-external-load-balancers"
	// AnnotationDoNotDisrupt blocks Karpenter's graceful disruption of a node or pod.
	AnnotationDoNotDisrupt = "karpenter.sh/do-not-disrupt"
	// LabelCapacityType is Karpenter's capacity type of a node: "spot" or
	// "on-demand".
	LabelCapacityType = "karpenter.sh/capacity-type"
)

// NodeClaimGVK is Karpenter's v1 NodeClaim, read as unstructured data when
// the cluster serves it (internal/read's, the one definition).
var NodeClaimGVK = read.NodeClaimGVK

// Objects are the objects of one cluster that a [Snapshot] indexes. Diagnose
// and [TakeSnapshot] list them; simulations and tests can build them by hand.
// The zero value of each flag means "listed": set them, or add to Failures,
// only to say what the cluster does not serve or the reader could not list.
// Its fields: Nodes, Pods, Services, Namespaces, Bindings (the
// TargetGroupBindings), NodeClaims (Karpenter v1, unstructured),
// NoBindingCRD and NoNodeClaimCRD (the CRD is not served), Failures (the
// kinds not listed, each judged on nothing: see
// [TargetGroupReport.Unknowns]) and Notes (what could not be read). It is
// an alias of the type of the one read path, internal/read.
type Objects = read.Objects

// ListKind names a kind of object a [Snapshot] lists (an alias of
// internal/read's).
type ListKind = read.ListKind

// The kinds a snapshot lists, each once per cluster.
const (
	ListNodes      = read.ListNodes
	ListPods       = read.ListPods
	ListServices   = read.ListServices
	ListNamespaces = read.ListNamespaces
	ListBindings   = read.ListBindings
	ListNodeClaims = read.ListNodeClaims
)

// ListFailure is a kind the reader could not list: forbidden by RBAC, failed,
// or not registered in the reader's scheme. Its Kind is the kind, its
// Category the failure's stable word, as in [ResourceError] (forbidden,
// throttled, not-registered...), and its Err the cause (nil when the
// Objects were built by hand). It is an alias of internal/read's.
type ListFailure = read.ListFailure

// Snapshot is one cluster, listed once and indexed for classification:
// which node or pod holds an IP, which Service has a NodePort, which
// bindings name a target group. It is immutable once built and safe for
// concurrent use.
type Snapshot struct {
	cluster  Cluster
	cidrs    []netip.Prefix
	podCIDRs []netip.Prefix
	read     bool // nodes, pods and Services all listed
	objs     Objects
	failed   map[ListKind]ListFailure
	unread   string // for an unread snapshot, the failure's category

	nodeByName     map[string]*NodeRef
	nodeByIP       map[netip.Addr]*NodeRef
	nodeByInstance map[string]*NodeRef
	podByIP        map[netip.Addr]*corev1.Pod
	podsByNS       map[string][]*corev1.Pod
	services       map[string]*corev1.Service
	servicesByNS   map[string][]*corev1.Service
	selectors      map[*corev1.Service]labels.Selector // nil for a Service without a selector
	nodePorts      map[int32][]string
	containerPorts map[int32]bool
	hostPorts      map[string]map[int32]bool // node name -> ports it serves for hostNetwork pods and hostPorts
	hostNetPods    map[string][]*corev1.Pod  // node name -> its running hostNetwork pods
	namespaces     map[string]map[string]string
	karpenterNodes int

	mu          sync.Mutex
	podServices map[*corev1.Pod][]string
	servicePods map[*corev1.Service][]*corev1.Pod
}

// NewSnapshot indexes objs for cluster c. It returns an [*InputError] when
// c's VPCID or CIDRs are malformed. Only c's Name, VPCID and CIDRs are used.
func NewSnapshot(c Cluster, objs Objects) (*Snapshot, error) {
	s, err := emptySnapshot(c)
	if err != nil {
		return nil, err
	}
	s.objs = objs
	s.failed = map[ListKind]ListFailure{}
	for _, f := range objs.Failures {
		s.failed[f.Kind] = f
	}
	s.read = s.listed(ListNodes) && s.listed(ListPods) && s.listed(ListServices)
	s.index()
	return s, nil
}

// listed reports whether kind was listed (a kind the cluster does not serve
// counts as listed: it is known to be empty).
func (s *Snapshot) listed(kind ListKind) bool {
	if s.failed == nil {
		return false // an unread snapshot: nothing was listed
	}
	_, bad := s.failed[kind]
	return !bad
}

// Failures returns the kinds that could not be listed, in a stable order.
func (s *Snapshot) Failures() []ListFailure {
	out := slices.Collect(maps.Values(s.failed))
	slices.SortFunc(out, func(a, b ListFailure) int { return cmp.Compare(a.Kind, b.Kind) })
	return out
}

func emptySnapshot(c Cluster) (*Snapshot, error) {
	if c.VPCID != "" && !awserr.ValidVPCID(c.VPCID) {
		return nil, &InputError{Field: "Cluster.VPCID", Reason: fmt.Sprintf("%q is not a VPC ID", c.VPCID)}
	}
	s := &Snapshot{cluster: Cluster{Name: c.Name, VPCID: c.VPCID, CIDRs: slices.Clone(c.CIDRs)}}
	for _, cidr := range c.CIDRs {
		p, err := netip.ParsePrefix(cidr)
		if err != nil {
			return nil, &InputError{Field: "Cluster.CIDRs", Reason: fmt.Sprintf("%q is not a CIDR", cidr)}
		}
		s.cidrs = append(s.cidrs, p.Masked())
	}
	return s, nil
}

// TakeSnapshot lists cluster c once, each kind in one pass, and indexes it.
// Nodes, pods and Services are required: a failure to list them is returned
// as an error naming the cluster and the kind. Namespaces, bindings and
// NodeClaims are optional: a cluster that does not serve a CRD, or a reader
// not allowed to list it, gives a note in [Snapshot.Notes] and a
// [ListFailure]. Of the options, only [WithListPageSize] applies. Each
// object is kept as diagnose reads it: the fields its classification and
// rules use, copied page by page as the listing arrives, the rest let go.
func TakeSnapshot(ctx context.Context, c Cluster, opts ...Option) (*Snapshot, error) {
	cfg := defaults()
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.err != nil {
		return nil, cfg.err
	}
	if isNil(c.Reader) {
		return nil, &InputError{Field: "Cluster.Reader", Reason: "is nil"}
	}
	if _, err := emptySnapshot(c); err != nil {
		return nil, err
	}
	objs, err := listCluster(ctx, c, &cfg)
	if err != nil {
		return nil, err
	}
	for _, f := range objs.Failures {
		if f.Kind == ListNodes || f.Kind == ListPods || f.Kind == ListServices {
			return nil, listError(c, f)
		}
	}
	return NewSnapshot(c, objs)
}

// listError is the *ResourceError of a failed list.
func listError(c Cluster, f ListFailure) *ResourceError {
	err := f.Err
	if err == nil {
		err = fmt.Errorf("%s not listed (%s)", f.Kind, f.Category)
	}
	re := newResourceError(KindCluster, c.Name, "list "+string(f.Kind), err)
	re.Cluster = c.Name
	return re
}

// listCluster lists every kind once, through the one read path
// (internal/read, with its Record policy and diagnose's categories), in
// pages of cfg's page size, each page projected as it arrives
// (projection.go: only what diagnose reads is kept). A kind that cannot
// be listed is a [ListFailure] in the Objects, never a reason to stop:
// what could be listed is still used. Only the end of ctx stops it, with
// ctx's error.
func listCluster(ctx context.Context, c Cluster, cfg *config) (Objects, error) {
	objs, err := read.ListCluster(ctx, c.Reader, read.ClusterOptions{Policy: read.Record, PageSize: cfg.pageSize, Category: category, Project: cfg.project})
	if err != nil {
		if ctx.Err() != nil {
			return Objects{}, ctxErr(ctx)
		}
		return Objects{}, err
	}
	return objs, nil
}

// Name returns the cluster's name.
func (s *Snapshot) Name() string { return s.cluster.Name }

// VPCID returns the cluster's VPC, or "" when unknown.
func (s *Snapshot) VPCID() string { return s.cluster.VPCID }

// Read reports whether the snapshot holds the cluster's nodes, pods and
// Services. An unread snapshot owns no IP and makes no target a ghost.
func (s *Snapshot) Read() bool { return s.read }

// Notes returns what could not be read.
func (s *Snapshot) Notes() []string { return slices.Clone(s.objs.Notes) }

// BindingCRD reports whether the cluster serves TargetGroupBindings.
func (s *Snapshot) BindingCRD() bool { return s.failed != nil && !s.objs.NoBindingCRD }

// Bindings returns the cluster's TargetGroupBindings.
func (s *Snapshot) Bindings() []v1beta1.TargetGroupBinding { return s.objs.Bindings }

// Node returns the node named name, as the report describes it.
func (s *Snapshot) Node(name string) (NodeRef, bool) {
	n, ok := s.nodeByName[name]
	if !ok {
		return NodeRef{}, false
	}
	return n.clone(), true
}

func (s *Snapshot) report() ClusterReport {
	r := ClusterReport{
		Name: s.cluster.Name, VPCID: s.cluster.VPCID, CIDRs: s.cluster.CIDRs, Read: s.read,
		Nodes: len(s.objs.Nodes), KarpenterNodes: s.karpenterNodes, Pods: len(s.objs.Pods),
		Services: len(s.objs.Services), Bindings: len(s.objs.Bindings), NodeClaims: len(s.objs.NodeClaims),
		BindingCRD: s.BindingCRD(), NodeClaimCRD: s.failed != nil && !s.objs.NoNodeClaimCRD, Notes: slices.Clone(s.objs.Notes),
	}
	slices.Sort(r.Notes)
	return r
}

func (s *Snapshot) index() {
	s.nodeByName = map[string]*NodeRef{}
	s.nodeByIP = map[netip.Addr]*NodeRef{}
	s.nodeByInstance = map[string]*NodeRef{}
	s.podByIP = map[netip.Addr]*corev1.Pod{}
	s.podsByNS = map[string][]*corev1.Pod{}
	s.services = map[string]*corev1.Service{}
	s.servicesByNS = map[string][]*corev1.Service{}
	s.selectors = map[*corev1.Service]labels.Selector{}
	s.nodePorts = map[int32][]string{}
	s.containerPorts = map[int32]bool{}
	s.hostPorts = map[string]map[int32]bool{}
	s.hostNetPods = map[string][]*corev1.Pod{}
	s.namespaces = map[string]map[string]string{}
	s.podServices = map[*corev1.Pod][]string{}
	s.servicePods = map[*corev1.Service][]*corev1.Pod{}

	claims := map[string]*unstructured.Unstructured{}
	for i := range s.objs.NodeClaims {
		nc := &s.objs.NodeClaims[i]
		if n, _, _ := unstructured.NestedString(nc.Object, "status", "nodeName"); n != "" {
			claims["node/"+n] = nc
		}
		if p, _, _ := unstructured.NestedString(nc.Object, "status", "providerID"); p != "" {
			claims["provider/"+p] = nc
		}
	}
	for i := range s.objs.Nodes {
		n := &s.objs.Nodes[i]
		ref := nodeRef(n)
		nc := claims["node/"+n.Name]
		if nc == nil && n.Spec.ProviderID != "" {
			nc = claims["provider/"+n.Spec.ProviderID]
		}
		if nc != nil {
			applyNodeClaim(ref, nc)
		}
		if ref.Karpenter {
			s.karpenterNodes++
		}
		s.nodeByName[n.Name] = ref
		if ref.InstanceID != "" {
			s.nodeByInstance[ref.InstanceID] = ref
		}
		for _, a := range n.Status.Addresses {
			if a.Type != corev1.NodeInternalIP && a.Type != corev1.NodeExternalIP {
				continue
			}
			if ip, err := netip.ParseAddr(a.Address); err == nil {
				s.nodeByIP[ip] = ref
			}
		}
		for _, c := range append([]string{n.Spec.PodCIDR}, n.Spec.PodCIDRs...) {
			if p, err := netip.ParsePrefix(c); err == nil && !slices.Contains(s.podCIDRs, p.Masked()) {
				s.podCIDRs = append(s.podCIDRs, p.Masked())
			}
		}
	}
	for i := range s.objs.Pods {
		p := &s.objs.Pods[i]
		for _, c := range p.Spec.Containers {
			for _, cp := range c.Ports {
				s.containerPorts[cp.ContainerPort] = true
			}
		}
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue // its IP is released
		}
		s.podsByNS[p.Namespace] = append(s.podsByNS[p.Namespace], p)
		if n := p.Spec.NodeName; n != "" {
			for _, c := range p.Spec.Containers {
				for _, cp := range c.Ports {
					port := cp.HostPort
					if p.Spec.HostNetwork {
						port = cp.ContainerPort
					}
					if port != 0 {
						if s.hostPorts[n] == nil {
							s.hostPorts[n] = map[int32]bool{}
						}
						s.hostPorts[n][port] = true
					}
				}
			}
		}
		if p.Spec.HostNetwork {
			// It shares its node's IP: the node holds it, and the pod
			// serves its ports there (compute.go).
			if n := p.Spec.NodeName; n != "" {
				s.hostNetPods[n] = append(s.hostNetPods[n], p)
			}
			continue
		}
		ips := []string{p.Status.PodIP}
		for _, pip := range p.Status.PodIPs {
			ips = append(ips, pip.IP)
		}
		for _, raw := range ips {
			if ip, err := netip.ParseAddr(raw); err == nil {
				s.podByIP[ip] = p
			}
		}
	}
	for i := range s.objs.Services {
		svc := &s.objs.Services[i]
		key := svc.Namespace + "/" + svc.Name
		s.services[key] = svc
		s.servicesByNS[svc.Namespace] = append(s.servicesByNS[svc.Namespace], svc)
		if len(svc.Spec.Selector) > 0 {
			s.selectors[svc] = labels.SelectorFromValidatedSet(svc.Spec.Selector)
		}
		for _, sp := range svc.Spec.Ports {
			if sp.NodePort != 0 {
				s.nodePorts[sp.NodePort] = append(s.nodePorts[sp.NodePort], key)
			}
			if sp.TargetPort.IntVal != 0 {
				s.containerPorts[sp.TargetPort.IntVal] = true
			}
		}
	}
	for _, keys := range s.nodePorts {
		slices.Sort(keys)
	}
	for i := range s.objs.Namespaces {
		ns := &s.objs.Namespaces[i]
		s.namespaces[ns.Name] = ns.Labels
		if s.namespaces[ns.Name] == nil {
			s.namespaces[ns.Name] = map[string]string{}
		}
	}
}

// NodeOf describes one node as a snapshot does, from the Node object
// alone: its addresses, readiness, Karpenter labels and whether it is
// leaving (Disrupting and DisruptionReasons), without what its NodeClaim
// adds (expiry, drift). cutover's watch judges each node event with it,
// so that a node is "leaving" by one definition everywhere.
func NodeOf(n *corev1.Node) NodeRef {
	if n == nil {
		return NodeRef{}
	}
	return *nodeRef(n)
}

func nodeRef(n *corev1.Node) *NodeRef {
	ref := &NodeRef{
		Name:         n.Name,
		InstanceID:   instanceID(n.Spec.ProviderID),
		Zone:         n.Labels[corev1.LabelTopologyZone],
		NodePool:     n.Labels[LabelNodePool],
		CapacityType: n.Labels[LabelCapacityType],
	}
	ref.Karpenter = ref.NodePool != ""
	ref.Fargate = n.Labels[LabelComputeType] == ComputeTypeFargate
	ref.DoNotDisrupt = n.Annotations[AnnotationDoNotDisrupt] == "true"
	for _, a := range n.Status.Addresses {
		switch a.Type {
		case corev1.NodeInternalIP:
			if ref.InternalIP == "" {
				ref.InternalIP = a.Address
			}
		case corev1.NodeExternalIP:
			if ref.ExternalIP == "" {
				ref.ExternalIP = a.Address
			}
		}
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			ref.Ready = c.Status == corev1.ConditionTrue
		}
	}
	for _, t := range n.Spec.Taints {
		if t.Key == TaintDisrupted {
			ref.DisruptionReasons = append(ref.DisruptionReasons, "taint "+TaintDisrupted)
		}
	}
	if _, ok := n.Labels[LabelExcludeFromLB]; ok {
		ref.DisruptionReasons = append(ref.DisruptionReasons, "label "+LabelExcludeFromLB)
	}
	if n.Spec.Unschedulable {
		ref.DisruptionReasons = append(ref.DisruptionReasons, "cordoned")
	}
	if n.DeletionTimestamp != nil {
		ref.DisruptionReasons = append(ref.DisruptionReasons, "being deleted")
	}
	ref.Disrupting = len(ref.DisruptionReasons) > 0
	return ref
}

func applyNodeClaim(ref *NodeRef, nc *unstructured.Unstructured) {
	ref.NodeClaim = nc.GetName()
	if ref.NodePool == "" {
		ref.NodePool = nc.GetLabels()[LabelNodePool]
	}
	ref.Karpenter = true
	if exp, ok, _ := unstructured.NestedString(nc.Object, "spec", "expireAfter"); ok && exp != "" && exp != "Never" {
		created := nc.GetCreationTimestamp()
		if d, err := time.ParseDuration(exp); err == nil && !created.IsZero() {
			at := created.Add(d).UTC()
			ref.ExpiresAt = &at
		}
	}
	if tgp, ok, _ := unstructured.NestedString(nc.Object, "spec", "terminationGracePeriod"); ok && tgp != "" {
		if d, err := time.ParseDuration(tgp); err == nil && d >= 0 {
			secs := int64(d / time.Second)
			ref.TerminationGracePeriodSeconds = &secs
		}
	}
	conds, _, _ := unstructured.NestedSlice(nc.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok || m["status"] != "True" {
			continue
		}
		switch m["type"] {
		case "Drifted":
			ref.Drifted = true
		case "Consolidatable":
			ref.Consolidatable = true
		}
	}
}

// instanceID extracts i-... from an AWS providerID such as
// aws:///eu-west-1a/i-0123456789abcdef0.
func instanceID(providerID string) string {
	if !strings.HasPrefix(providerID, "aws://") {
		return ""
	}
	last := providerID[strings.LastIndex(providerID, "/")+1:]
	if strings.HasPrefix(last, "i-") {
		return last
	}
	return ""
}

// nodeServes says whether a node serves port: one of the cluster's
// NodePorts (not on a Fargate node: no kube-proxy runs there), or a host
// port of a pod on it (a hostPort, or a container port of a hostNetwork
// pod). known is false when the Services or the pods could not be listed
// and the port is not found in what was.
func (s *Snapshot) nodeServes(n *NodeRef, port int32) (serves, known bool) {
	if (!n.Fargate && len(s.nodePorts[port]) > 0) || s.hostPorts[n.Name][port] {
		return true, true
	}
	return false, s.listed(ListServices) && s.listed(ListPods)
}

// podServes says whether a pod serves port: a port its containers declare,
// or the target port of a Service that selects it (a named target port
// resolved on the pod's own containers). known is false when nothing says
// which ports the pod serves: it declares none and no Service selects it,
// or the Services could not be listed.
func (s *Snapshot) podServes(p *corev1.Pod, port int32) (serves, known bool) {
	declared := false
	for _, c := range p.Spec.Containers {
		for _, cp := range c.Ports {
			declared = true
			if cp.ContainerPort == port {
				return true, true
			}
		}
	}
	if !s.listed(ListServices) {
		return false, false
	}
	svcs := s.servicesOfPod(p)
	for _, key := range svcs {
		for _, sp := range s.services[key].Spec.Ports {
			if tp, ok := targetPortOn(p, sp); ok && tp == port {
				return true, true
			}
		}
	}
	return false, declared || len(svcs) > 0
}

// targetPortOn resolves a Service port's targetPort on one pod: a number is
// itself (0 means the Service port); a name is the pod's container port of
// that name.
func targetPortOn(p *corev1.Pod, sp corev1.ServicePort) (int32, bool) {
	switch {
	case sp.TargetPort.Type == intstr.Int && sp.TargetPort.IntVal == 0:
		return sp.Port, true
	case sp.TargetPort.Type == intstr.Int:
		return sp.TargetPort.IntVal, true
	}
	for _, c := range p.Spec.Containers {
		for _, cp := range c.Ports {
			if cp.Name == sp.TargetPort.StrVal {
				return cp.ContainerPort, true
			}
		}
	}
	return 0, false
}

// servicesOfPod returns the namespace/name of the Services in the pod's
// namespace whose selector matches it, sorted.
func (s *Snapshot) servicesOfPod(p *corev1.Pod) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if out, ok := s.podServices[p]; ok {
		return out
	}
	var out []string
	set := labels.Set(p.Labels)
	for _, svc := range s.servicesByNS[p.Namespace] {
		if sel := s.selectors[svc]; sel != nil && sel.Matches(set) {
			out = append(out, svc.Namespace+"/"+svc.Name)
		}
	}
	slices.Sort(out)
	s.podServices[p] = out
	return out
}

// podsOfService returns the running pods the Service selects.
func (s *Snapshot) podsOfService(svc *corev1.Service) []*corev1.Pod {
	s.mu.Lock()
	defer s.mu.Unlock()
	if out, ok := s.servicePods[svc]; ok {
		return out
	}
	var out []*corev1.Pod
	if sel := s.selectors[svc]; sel != nil {
		for _, p := range s.podsByNS[svc.Namespace] {
			if sel.Matches(labels.Set(p.Labels)) {
				out = append(out, p)
			}
		}
	}
	s.servicePods[svc] = out
	return out
}

// bindingsFor returns the bindings that name the target group, by ARN, or
// by name when they carry no ARN.
func (s *Snapshot) bindingsFor(arn, name string) []*v1beta1.TargetGroupBinding {
	var out []*v1beta1.TargetGroupBinding
	for i := range s.objs.Bindings {
		b := &s.objs.Bindings[i]
		if b.Spec.TargetGroupARN == arn || (b.Spec.TargetGroupARN == "" && b.Spec.TargetGroupName != "" && b.Spec.TargetGroupName == name) {
			out = append(out, b)
		}
	}
	slices.SortFunc(out, func(a, b *v1beta1.TargetGroupBinding) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out
}
