package cluster

// node.go: nodes: launch, taint, label, cordon, instance termination, and
// the owners of addresses.

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/sim/timing"
)

// Well-known node labels the cluster sets.
const (
	LabelHostname     = "kubernetes.io/hostname"
	LabelZone         = "topology.kubernetes.io/zone"
	LabelRegion       = "topology.kubernetes.io/region"
	LabelInstanceType = "node.kubernetes.io/instance-type"
)

// LaunchNode starts an EC2 instance: its addresses are allocated now (new
// ones, never used before in the run), and the Node registers Ready after
// spec.Delay (at once when it is zero). It returns the node's name, which
// is the instance's private DNS name.
func (cl *Cluster) LaunchNode(ctx context.Context, spec NodeSpec) (string, error) {
	if spec.Delay < 0 {
		return "", &ConfigError{Op: "launch node", Field: "Delay", Reason: "is negative"}
	}
	zone := spec.Zone
	if zone == "" {
		zone = cl.o.Zones[cl.zoneTurn%len(cl.o.Zones)]
		cl.zoneTurn++
	}
	sn := cl.private[zone]
	if spec.Public {
		sn = cl.public[zone]
	}
	if sn == nil {
		return "", &ConfigError{Op: "launch node", Field: "Zone", Reason: fmt.Sprintf("%q is not a zone of the cluster", zone)}
	}
	if spec.InstanceType == "" {
		spec.InstanceType = "m5.large"
	}
	ip, err := sn.allocFor(timing.HolderNode, cl.now(), cl.o.IPReuse)
	if err != nil {
		return "", fmt.Errorf("cluster: launch node: %w", err)
	}
	ext := ""
	if spec.Public {
		if ext, err = cl.publicIPs.alloc(); err != nil {
			return "", fmt.Errorf("cluster: launch node: %w", err)
		}
	}
	instanceID := "i-0" + cl.hex(16)
	n := &node{
		name:       privateDNS(ip, cl.o.Region),
		instanceID: instanceID,
		providerID: fmt.Sprintf("aws:///%s/%s", zone, instanceID),
		zone:       zone,
		subnet:     sn,
		internalIP: ip,
		externalIP: ext,
		spec:       spec,
		launchedAt: cl.now(),
		taints:     slices.Clone(spec.Taints),
		seq:        cl.nodeSeq,
	}
	cl.nodeSeq++
	n.labels = map[string]string{
		LabelHostname:              n.name,
		LabelZone:                  zone,
		LabelRegion:                cl.o.Region,
		LabelInstanceType:          spec.InstanceType,
		"kubernetes.io/os":         "linux",
		"kubernetes.io/arch":       "amd64",
		"topology.k8s.aws/zone-id": zoneID(cl.o.Region, zone),
	}
	maps.Copy(n.labels, spec.Labels)
	cl.nodes[n.name] = n
	cl.own(ip, owner{n: n})
	if ext != "" {
		cl.own(ext, owner{n: n})
	}
	cl.event("InstanceLaunched", "node/"+n.name, "instance %s in %s ip %s%s", instanceID, sn.id, ip, extNote(ext))
	if spec.Delay == 0 {
		return n.name, cl.register(WithOrigin(ctx, Origin), n)
	}
	cl.clock.AfterEvent(spec.Delay, "register "+n.name, func(time.Time) {
		if err := cl.register(cl.ctx(), n); err != nil {
			cl.event("Error", "node/"+n.name, "register: %v", err)
		}
	})
	return n.name, nil
}

func extNote(ext string) string {
	if ext == "" {
		return ""
	}
	return " external " + ext
}

func zoneID(region, zone string) string {
	r := strings.ReplaceAll(region, "-", "")
	if len(r) > 4 {
		r = r[:2] + r[len(r)-2:]
	}
	return fmt.Sprintf("%s-az%d", r, int(zone[len(zone)-1]-'a')+1)
}

func privateDNS(ip, region string) string {
	host := "ip-" + strings.ReplaceAll(ip, ".", "-")
	if region == "us-east-1" {
		return host + ".ec2.internal"
	}
	return host + "." + region + ".compute.internal"
}

func (cl *Cluster) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[cl.rng.IntN(16)]
	}
	return string(b)
}

// register creates the Node object, Ready, as the kubelet does when it joins.
func (cl *Cluster) register(ctx context.Context, n *node) error {
	if n.phase != nodeLaunching {
		return nil
	}
	obj := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n.name, Labels: maps.Clone(n.labels), Annotations: maps.Clone(n.spec.Annotations), Finalizers: slices.Clone(n.spec.Finalizers)},
		Spec:       corev1.NodeSpec{ProviderID: n.providerID, Taints: slices.Clone(n.taints)},
	}
	if err := cl.c.Create(ctx, obj); err != nil {
		return fmt.Errorf("cluster: create node %s: %w", n.name, err)
	}
	obj.Status = cl.nodeStatus(n)
	if err := cl.c.Status().Update(ctx, obj); err != nil {
		return fmt.Errorf("cluster: node %s status: %w", n.name, err)
	}
	n.phase = nodeReady
	n.readyAt = cl.now()
	cl.event("NodeReady", "node/"+n.name, "registered Ready in %s", n.zone)
	cl.schedulePending()
	return nil
}

func (cl *Cluster) nodeStatus(n *node) corev1.NodeStatus {
	addrs := []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: n.internalIP}}
	if n.externalIP != "" {
		addrs = append(addrs, corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: n.externalIP})
	}
	addrs = append(addrs,
		corev1.NodeAddress{Type: corev1.NodeHostName, Address: n.name},
		corev1.NodeAddress{Type: corev1.NodeInternalDNS, Address: n.name})
	t := metav1.NewTime(cl.now())
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("2"),
		corev1.ResourceMemory: resource.MustParse("7910Mi"),
		corev1.ResourcePods:   *resource.NewQuantity(int64(cl.o.MaxPodsPerNode), resource.DecimalSI),
	}
	if n.fargate {
		capacity[corev1.ResourcePods] = *resource.NewQuantity(1, resource.DecimalSI)
	}
	return corev1.NodeStatus{
		Capacity:    capacity,
		Allocatable: capacity,
		Addresses:   addrs,
		Conditions: []corev1.NodeCondition{{
			Type: corev1.NodeReady, Status: corev1.ConditionTrue,
			Reason: "KubeletReady", Message: "kubelet is posting ready status",
			LastHeartbeatTime: t, LastTransitionTime: t,
		}},
		NodeInfo: corev1.NodeSystemInfo{
			KubeletVersion:          "v1.37.2-eks",
			ContainerRuntimeVersion: "containerd://2.1.4",
			OperatingSystem:         "linux",
			Architecture:            "amd64",
			OSImage:                 "Amazon Linux 2023",
		},
	}
}

// TaintNode adds a taint to a node (replacing one with the same key and
// effect), in the model and on the Node object. A NoSchedule or NoExecute
// taint makes the node unschedulable for the simulated pods.
func (cl *Cluster) TaintNode(ctx context.Context, name string, taint corev1.Taint) error {
	n, err := cl.liveNode("taint node", name)
	if err != nil {
		return err
	}
	n.taints = slices.DeleteFunc(n.taints, func(t corev1.Taint) bool { return t.Key == taint.Key && t.Effect == taint.Effect })
	n.taints = append(n.taints, taint)
	if n.phase == nodeLaunching {
		return nil
	}
	err = cl.updateNode(WithOrigin(ctx, Origin), n, func(obj *corev1.Node) {
		obj.Spec.Taints = slices.DeleteFunc(obj.Spec.Taints, func(t corev1.Taint) bool { return t.Key == taint.Key && t.Effect == taint.Effect })
		obj.Spec.Taints = append(obj.Spec.Taints, taint)
	})
	if err == nil {
		cl.event("NodeTainted", "node/"+name, "%s:%s", taint.Key, taint.Effect)
	}
	return err
}

// LabelNode sets a label on a node, in the model and on the Node object.
func (cl *Cluster) LabelNode(ctx context.Context, name, key, value string) error {
	n, err := cl.liveNode("label node", name)
	if err != nil {
		return err
	}
	n.labels[key] = value
	if n.phase == nodeLaunching {
		return nil
	}
	err = cl.updateNode(WithOrigin(ctx, Origin), n, func(obj *corev1.Node) {
		if obj.Labels == nil {
			obj.Labels = map[string]string{}
		}
		obj.Labels[key] = value
	})
	if err == nil {
		cl.event("NodeLabeled", "node/"+name, "%s=%s", key, value)
	}
	return err
}

// CordonNode marks a node unschedulable (spec.unschedulable).
func (cl *Cluster) CordonNode(ctx context.Context, name string) error {
	n, err := cl.liveNode("cordon node", name)
	if err != nil {
		return err
	}
	n.unschedulable = true
	if n.phase == nodeLaunching {
		return nil
	}
	return cl.updateNode(WithOrigin(ctx, Origin), n, func(obj *corev1.Node) { obj.Spec.Unschedulable = true })
}

func (cl *Cluster) liveNode(op, name string) (*node, error) {
	n := cl.nodes[name]
	if n == nil || n.phase == nodeTerminated {
		return nil, fmt.Errorf("cluster: %s %s: %w", op, name, ErrNotFound)
	}
	return n, nil
}

func (cl *Cluster) updateNode(ctx context.Context, n *node, mutate func(*corev1.Node)) error {
	var err error
	for range 3 {
		obj := &corev1.Node{}
		if err = cl.c.Get(ctx, client.ObjectKey{Name: n.name}, obj); err != nil {
			return fmt.Errorf("cluster: get node %s: %w", n.name, err)
		}
		mutate(obj)
		if err = cl.c.Update(ctx, obj); err == nil || !apierrors.IsConflict(err) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("cluster: update node %s: %w", n.name, err)
	}
	return nil
}

// TerminateInstance terminates a node's EC2 instance: its addresses stop
// answering at once, every pod still on it dies (its ReplicaSet replaces
// it), and the Node object is deleted (marked deleted when it has
// finalizers: their holder removes them). Karpenter calls it after the
// drain.
func (cl *Cluster) TerminateInstance(ctx context.Context, name string) error {
	n := cl.nodes[name]
	if n == nil {
		return fmt.Errorf("cluster: terminate instance %s: %w", name, ErrNotFound)
	}
	if n.phase == nodeTerminated {
		return nil
	}
	ctx = WithOrigin(ctx, Origin)
	if n.fargate {
		// No instance: stopping a Fargate pod's microVM ends its pod,
		// and the Node goes with it.
		for _, p := range cl.sortedPods() {
			if p.node == n {
				cl.kill(ctx, p, "NodeTerminated")
			}
		}
		cl.retireFargateNode(ctx, n)
		return nil
	}
	wasRegistered := n.phase == nodeReady
	n.phase = nodeTerminated
	n.goneAt = cl.now()
	cl.disown(n.internalIP)
	n.subnet.release(n.internalIP, cl.now())
	if n.externalIP != "" {
		cl.disown(n.externalIP)
	}
	cl.event("InstanceTerminated", "node/"+name, "instance %s terminated; %s no longer answers", n.instanceID, n.internalIP)
	if cl.o.OnInstanceTerminated != nil {
		cl.o.OnInstanceTerminated(n.instanceID)
	}
	for _, p := range cl.sortedPods() {
		if p.node == n {
			cl.kill(ctx, p, "NodeTerminated")
		}
	}
	cl.pending = slices.DeleteFunc(cl.pending, func(p *pod) bool { return p.node == n })
	if wasRegistered {
		obj := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if err := cl.c.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("cluster: delete node %s: %w", name, err)
		}
	}
	return nil
}

// owner is what answers at an address: a node or a pod.
type owner struct {
	n *node
	p *pod
}

func (o owner) String() string {
	if o.p != nil {
		return "pod/" + o.p.key.String()
	}
	return "node/" + o.n.name
}

func (cl *Cluster) own(ip string, o owner) {
	cl.ipOwner[ip] = o
	cl.ipHistory[ip] = o.String()
}

func (cl *Cluster) disown(ip string) { delete(cl.ipOwner, ip) }
