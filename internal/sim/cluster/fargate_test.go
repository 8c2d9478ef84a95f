package cluster_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/sim/cluster"
	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// TestFargateProfile: the pods of the Fargate profile's namespace each run
// on a Node of their own, as EKS registers them (label and NoSchedule
// taint eks.amazonaws.com/compute-type=fargate, no instance, InternalIP
// the pod's address, capacity one pod); that address serves the pod's
// port and no NodePort, while the EC2 nodes' kube-proxy forwards the
// NodePort to the Fargate pods; the EndpointSlice lists the pods'
// addresses; the other namespaces stay on the EC2 nodes; a deleted pod's
// Node goes with it, and its replacement gets a Node of its own.
func TestFargateProfile(t *testing.T) {
	ctx := t.Context()
	fc, err := cluster.NewFakeClient(cluster.FakeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	clock := vclock.New(time.Time{})
	cl, err := cluster.New(cluster.Options{Client: fc, Clock: clock, Seed: 7, FargateNamespace: "pay"})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := cl.LaunchNode(ctx, cluster.NodeSpec{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, space := range []string{"pay", "shop"} {
		if err := cl.EnsureNamespace(ctx, space, nil); err != nil {
			t.Fatal(err)
		}
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: space, Name: "web"},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Selector: map[string]string{"app": "web"},
				Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http"), NodePort: map[string]int32{"pay": 30090, "shop": 30080}[space]}}},
		}
		if err := cl.AddService(ctx, svc); err != nil {
			t.Fatal(err)
		}
		if err := cl.AddWorkload(ctx, cluster.Workload{Namespace: space, Name: "web", Replicas: 3, AlreadyRunning: true}); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(2 * time.Second)

	ec2Nodes := map[string]cluster.NodeView{}
	fargate := map[string]cluster.NodeView{}
	for _, n := range cl.Nodes() {
		if n.Fargate {
			fargate[n.Name] = n
		} else {
			ec2Nodes[n.Name] = n
		}
	}
	if len(ec2Nodes) != 2 || len(fargate) != 3 {
		t.Fatalf("%d EC2 nodes and %d Fargate nodes, want 2 and 3", len(ec2Nodes), len(fargate))
	}
	var payPods []cluster.PodView
	for _, p := range cl.Pods() {
		if p.Namespace == "shop" {
			if _, ok := ec2Nodes[p.Node]; !ok {
				t.Errorf("pod %s is on %s, not on an EC2 node", p.Key(), p.Node)
			}
			continue
		}
		payPods = append(payPods, p)
		n, ok := fargate[p.Node]
		if !ok || n.InternalIP != p.IP || n.InstanceID != "" {
			t.Errorf("pod %s at %s on %s: want a Fargate node of its own at its address (%+v)", p.Key(), p.IP, p.Node, n)
			continue
		}
		var obj corev1.Node
		if err := fc.Get(ctx, client.ObjectKey{Name: n.Name}, &obj); err != nil {
			t.Fatal(err)
		}
		taint := corev1.Taint{Key: cluster.LabelComputeType, Value: cluster.ComputeTypeFargate, Effect: corev1.TaintEffectNoSchedule}
		if obj.Labels[cluster.LabelComputeType] != cluster.ComputeTypeFargate || len(obj.Spec.Taints) != 1 || obj.Spec.Taints[0] != taint ||
			obj.Status.Addresses[0].Address != p.IP || obj.Status.Capacity.Pods().Value() != 1 {
			t.Errorf("Fargate node %s: labels %v, taints %v, addresses %v, capacity %v", n.Name, obj.Labels, obj.Spec.Taints, obj.Status.Addresses, obj.Status.Capacity)
		}
		if got := cl.Probe(p.IP, 8080, "/healthz"); got != elbv2model.ProbeOK {
			t.Errorf("%s:8080 = %v, want OK", p.IP, got)
		}
		for _, port := range []int32{30080, 30090} {
			if got := cl.Probe(p.IP, port, "/healthz"); got != elbv2model.ProbeRefused {
				t.Errorf("Fargate node %s:%d = %v, want refused (no kube-proxy)", p.IP, port, got)
			}
		}
	}
	for _, n := range ec2Nodes {
		if app, ok := cl.Answers(n.InternalIP, 30090); !ok || app != "pay/web" {
			t.Errorf("EC2 node %s:30090 answers %q %t, want pay/web through kube-proxy", n.InternalIP, app, ok)
		}
	}
	var slices discoveryv1.EndpointSliceList
	if err := fc.List(ctx, &slices, client.InNamespace("pay")); err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, s := range slices.Items {
		for _, e := range s.Endpoints {
			listed[e.Addresses[0]] = true
		}
	}
	for _, p := range payPods {
		if !listed[p.IP] {
			t.Errorf("the EndpointSlice does not list %s (%s)", p.IP, p.Key())
		}
	}

	gone := payPods[0]
	if err := cl.ForceDeletePod(ctx, types.NamespacedName{Namespace: gone.Namespace, Name: gone.Name}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	if n, _ := cl.Node(gone.Node); n.Phase != "Terminated" {
		t.Errorf("the deleted pod's Fargate node is %s, want Terminated", n.Phase)
	}
	if err := fc.Get(ctx, client.ObjectKey{Name: gone.Node}, &corev1.Node{}); err == nil {
		t.Errorf("the deleted pod's Node object is still there")
	}
	if got := cl.Probe(gone.IP, 8080, "/healthz"); got != elbv2model.ProbeTimeout {
		t.Errorf("the deleted pod's address answers %v, want a timeout", got)
	}
	// Stopping a Fargate node (nothing else does: no instance backs it)
	// ends its pod, and the Node goes.
	stopped := payPods[1]
	if err := cl.TerminateInstance(ctx, stopped.Node); err != nil {
		t.Fatal(err)
	}
	if n, _ := cl.Node(stopped.Node); n.Phase != "Terminated" || len(cl.PodsOnNode(stopped.Node)) != 0 {
		t.Errorf("a stopped Fargate node is %s with pods %v", n.Phase, cl.PodsOnNode(stopped.Node))
	}
	fargateNow := 0
	for _, n := range cl.Nodes() {
		if n.Fargate {
			fargateNow++
		}
	}
	if fargateNow != 3 {
		t.Errorf("%d Fargate nodes after the replacement, want 3", fargateNow)
	}
}
