package cluster

// views.go: read-only views of nodes and pods, and who holds an address now
// or held it last.

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// NodeView is a read-only snapshot of a node.
type NodeView struct {
	// Name is the node's name (the private DNS name); InstanceID and
	// ProviderID name its EC2 instance.
	Name, InstanceID, ProviderID string
	// Zone and SubnetID place it.
	Zone, SubnetID string
	// Public: the node is in a public subnet and has an ExternalIP.
	Public bool
	// InternalIP and ExternalIP ("" in a private subnet) are its addresses.
	InternalIP, ExternalIP string
	// Phase is "Launching", "Ready" or "Terminated".
	Phase string
	// LaunchedAt, ReadyAt and TerminatedAt are zero until reached.
	LaunchedAt, ReadyAt, TerminatedAt time.Time
	// Labels, Annotations, Taints and Unschedulable are as the model set
	// them.
	Labels        map[string]string
	Annotations   map[string]string
	Taints        []corev1.Taint
	Unschedulable bool
	// Fargate: an EKS Fargate pod's Node (Options.FargateNamespace): no
	// instance (InstanceID is empty), its InternalIP is its pod's.
	Fargate bool
}

// PodView is a read-only snapshot of a pod.
type PodView struct {
	// Namespace, Name and Workload name the pod and its workload.
	Namespace, Name, Workload string
	// Node and IP place it.
	Node, IP string
	// Phase is "Pending" (placed, not started), "Running" or "Terminating".
	Phase string
	// Started: the app listens.
	Started bool
	// ContainersReady: the readiness probe passes.
	ContainersReady bool
	// Ready: containers ready and every readiness gate True.
	Ready bool
	// Gates are its readiness-gate condition types.
	Gates []string
	// DoNotDisrupt: annotated karpenter.sh/do-not-disrupt.
	DoNotDisrupt bool
	// CreatedAt, and DeletingAt (zero unless terminating).
	CreatedAt, DeletingAt time.Time
}

// Key returns the pod's namespace/name.
func (v PodView) Key() types.NamespacedName {
	return types.NamespacedName{Namespace: v.Namespace, Name: v.Name}
}

func (n *node) view() NodeView {
	phase := [...]string{"Launching", "Ready", "Terminated"}[n.phase]
	return NodeView{
		Name: n.name, InstanceID: n.instanceID, ProviderID: n.providerID,
		Zone: n.zone, SubnetID: n.subnet.id, Public: n.subnet.public,
		InternalIP: n.internalIP, ExternalIP: n.externalIP, Phase: phase,
		LaunchedAt: n.launchedAt, ReadyAt: n.readyAt, TerminatedAt: n.goneAt,
		Labels: maps.Clone(n.labels), Annotations: maps.Clone(n.spec.Annotations),
		Taints: slices.Clone(n.taints), Unschedulable: n.unschedulable, Fargate: n.fargate,
	}
}

func (p *pod) view() PodView {
	phase := [...]string{"Pending", "Running", "Terminating", "Gone"}[p.phase]
	v := PodView{
		Namespace: p.key.Namespace, Name: p.key.Name, Workload: p.w.spec.Name,
		IP: p.ip, Phase: phase, Started: p.started, ContainersReady: p.containersReady,
		Ready: p.ready(), DoNotDisrupt: p.w.spec.DoNotDisrupt,
		CreatedAt: p.createdAt, DeletingAt: p.deletingAt,
	}
	if p.node != nil {
		v.Node = p.node.name
	}
	for _, g := range p.gates {
		v.Gates = append(v.Gates, string(g))
	}
	return v
}

// Node returns a node, terminated ones included.
func (cl *Cluster) Node(name string) (NodeView, bool) {
	n := cl.nodes[name]
	if n == nil {
		return NodeView{}, false
	}
	return n.view(), true
}

// Nodes returns the nodes whose instance has not been terminated, in
// launch order.
func (cl *Cluster) Nodes() []NodeView {
	var out []NodeView
	for _, n := range cl.sortedNodes() {
		if n.phase != nodeTerminated {
			out = append(out, n.view())
		}
	}
	return out
}

// NodeHistory returns every node launched in the run, in launch order.
func (cl *Cluster) NodeHistory() []NodeView {
	var out []NodeView
	for _, n := range cl.sortedNodes() {
		out = append(out, n.view())
	}
	return out
}

// Pods returns the placed pods that are not gone, in creation order.
func (cl *Cluster) Pods() []PodView {
	var out []PodView
	for _, p := range cl.sortedPods() {
		out = append(out, p.view())
	}
	return out
}

// PodsOnNode returns the pods on a node that are not gone.
func (cl *Cluster) PodsOnNode(name string) []PodView {
	var out []PodView
	for _, p := range cl.sortedPods() {
		if p.node != nil && p.node.name == name {
			out = append(out, p.view())
		}
	}
	return out
}

// PendingPods returns the number of pods waiting for a node.
func (cl *Cluster) PendingPods() int { return len(cl.pending) }

// Owner returns what answers at ip now: "node/<name>" or
// "pod/<namespace>/<name>", and false when nothing does.
func (cl *Cluster) Owner(ip string) (string, bool) {
	o, ok := cl.ipOwner[ip]
	if !ok {
		return "", false
	}
	return o.String(), true
}

// FormerOwner returns what held ip last in the run, whether or not it still
// does, and false for an address the cluster never handed out.
func (cl *Cluster) FormerOwner(ip string) (string, bool) {
	o, ok := cl.ipHistory[ip]
	return o, ok
}

// NodeAddresses returns every address (InternalIP and ExternalIP) a node
// held in the run, sorted.
func (cl *Cluster) NodeAddresses() []string {
	var out []string
	for ip, o := range cl.ipHistory {
		if strings.HasPrefix(o, "node/") {
			out = append(out, ip)
		}
	}
	sort.Strings(out)
	return out
}

// NodePort returns the NodePort of a Service's port (by name, "" for an
// unnamed single port), and false when it has none.
func (cl *Cluster) NodePort(svc types.NamespacedName, portName string) (int32, bool) {
	s := cl.services[svc]
	if s == nil {
		return 0, false
	}
	for _, p := range s.ports {
		if p.Name == portName && p.NodePort != 0 {
			return p.NodePort, true
		}
	}
	return 0, false
}
