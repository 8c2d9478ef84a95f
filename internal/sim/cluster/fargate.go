package cluster

// fargate.go: EKS Fargate: the pods of the Fargate profile's namespace,
// each on a Node of its own whose InternalIP is the pod's address, and
// that Node's end with its pod.

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/qstools/tgmigrate/internal/sim/timing"
)

// EKS's names on a Fargate pod's Node.
const (
	// LabelComputeType labels (and taints, NoSchedule) a Fargate node with
	// [ComputeTypeFargate].
	LabelComputeType   = "eks.amazonaws.com/compute-type"
	ComputeTypeFargate = "fargate"
)

// onFargate reports whether the Fargate profile selects the pod.
func (cl *Cluster) onFargate(p *pod) bool {
	return cl.o.FargateNamespace != "" && p.key.Namespace == cl.o.FargateNamespace
}

// placeFargate runs p on Fargate: a microVM of its own in a private
// subnet (the zones in turn), whose one address is the pod's and the
// Node's InternalIP; the Node, tainted for every other pod, registers
// Ready at once, and the pod is placed on it.
func (cl *Cluster) placeFargate(ctx context.Context, p *pod, warm bool) error {
	zone := cl.o.Zones[cl.fargateTurn%len(cl.o.Zones)]
	cl.fargateTurn++
	sn := cl.private[zone]
	ip, err := sn.allocFor(timing.HolderPod, cl.now(), cl.o.IPReuse)
	if err != nil {
		return fmt.Errorf("cluster: place pod %s on fargate: %w", p.key, err)
	}
	host := strings.TrimPrefix(privateDNS(ip, cl.o.Region), "ip-")
	name := "fargate-ip-" + host
	taint := corev1.Taint{Key: LabelComputeType, Value: ComputeTypeFargate, Effect: corev1.TaintEffectNoSchedule}
	n := &node{
		name:       name,
		providerID: fmt.Sprintf("aws:///%s/%s-%s/%s", zone, cl.hex(10), cl.hex(32), name),
		zone:       zone,
		subnet:     sn,
		internalIP: ip,
		spec:       NodeSpec{Zone: zone, InstanceType: "fargate"},
		launchedAt: cl.now(),
		taints:     []corev1.Taint{taint},
		seq:        cl.nodeSeq,
		fargate:    true,
	}
	cl.nodeSeq++
	n.labels = map[string]string{
		LabelHostname:      "ip-" + host,
		LabelZone:          zone,
		LabelRegion:        cl.o.Region,
		LabelComputeType:   ComputeTypeFargate,
		"kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
		"topology.k8s.aws/zone-id": zoneID(cl.o.Region, zone),
	}
	cl.nodes[n.name] = n
	if err := cl.register(WithOrigin(ctx, Origin), n); err != nil {
		n.phase = nodeTerminated
		sn.release(ip, cl.now())
		return err
	}
	return cl.placeAt(ctx, p, n, ip, warm)
}

// retireFargateNode ends a Fargate pod's Node once its pod is gone: the
// microVM stops, and the Node object goes. Its address was the pod's,
// released with it.
func (cl *Cluster) retireFargateNode(ctx context.Context, n *node) {
	if !n.fargate || n.phase == nodeTerminated {
		return
	}
	n.phase, n.goneAt = nodeTerminated, cl.now()
	obj := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.name}}
	if err := cl.c.Delete(WithOrigin(ctx, Origin), obj); err != nil && !apierrors.IsNotFound(err) {
		cl.event("Error", "node/"+n.name, "delete: %v", err)
		return
	}
	cl.event("FargateNodeGone", "node/"+n.name, "its pod has gone")
}
