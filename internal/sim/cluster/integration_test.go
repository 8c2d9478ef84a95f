//go:build integration

package cluster_test

import (
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/sim/cluster"
	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/testenv"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// TestIntegrationClusterOnAPIServer runs the cluster model against a real
// kube-apiserver: nodes with their addresses, pods with their status,
// a NodePort Service, EndpointSlices, and evictions whose
// PodDisruptionBudget check is the API server's own, on the status the
// model's disruption controller writes.
func TestIntegrationClusterOnAPIServer(t *testing.T) {
	env := testenv.Start(t)
	ctx := t.Context()
	ns := env.Namespace(ctx, t, "sim")
	clock := vclock.New(time.Time{})
	var events []string
	cl, err := cluster.New(cluster.Options{
		Client: env.Client, Clock: clock, Seed: 1, ServerEnforcesPDBs: true,
		OnEvent: func(r, o, m string) { events = append(events, r+" "+o+" "+m) },
	})
	if err != nil {
		t.Fatal(err)
	}
	c := cl.Client()
	for range 2 {
		if _, err := cl.LaunchNode(ctx, cluster.NodeSpec{Public: true}); err != nil {
			t.Fatal(err)
		}
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeNodePort, Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http"), NodePort: 30080}},
		},
	}
	if err := cl.AddService(ctx, svc); err != nil {
		t.Fatal(err)
	}
	if err := cl.AddWorkload(ctx, cluster.Workload{Namespace: ns, Name: "web", Replicas: 3, PreStop: 15 * time.Second,
		PDB: &cluster.PDBSpec{MaxUnavailable: ptr.To(intstr.FromInt32(1))}}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)

	// Nodes: Ready, with InternalIP and ExternalIP.
	var nodes corev1.NodeList
	if err := c.List(ctx, &nodes); err != nil {
		t.Fatal(err)
	}
	if len(nodes.Items) != 2 {
		t.Fatalf("%d nodes on the API server, want 2", len(nodes.Items))
	}
	for _, n := range nodes.Items {
		addrs := map[corev1.NodeAddressType]string{}
		for _, a := range n.Status.Addresses {
			addrs[a.Type] = a.Address
		}
		if addrs[corev1.NodeInternalIP] == "" || addrs[corev1.NodeExternalIP] == "" || len(n.Status.Conditions) == 0 || n.Status.Conditions[0].Status != corev1.ConditionTrue {
			t.Errorf("node %s: addresses %v conditions %v", n.Name, addrs, n.Status.Conditions)
		}
	}
	// Pods: Running, Ready, with their IPs.
	var pods corev1.PodList
	if err := c.List(ctx, &pods, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 3 {
		t.Fatalf("%d pods, want 3", len(pods.Items))
	}
	for _, p := range pods.Items {
		ready := false
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue {
				ready = true
			}
		}
		if p.Status.Phase != corev1.PodRunning || p.Status.PodIP == "" || !ready {
			t.Errorf("pod %s: phase %s ip %q ready %v", p.Name, p.Status.Phase, p.Status.PodIP, ready)
		}
	}
	// EndpointSlices: three ready endpoints on the container port.
	var slices discoveryv1.EndpointSliceList
	if err := c.List(ctx, &slices, client.InNamespace(ns), client.MatchingLabels{discoveryv1.LabelServiceName: "web"}); err != nil {
		t.Fatal(err)
	}
	ready := 0
	for _, s := range slices.Items {
		for _, e := range s.Endpoints {
			if ptr.Deref(e.Conditions.Ready, false) && ptr.Deref(s.Ports[0].Port, 0) == cluster.DefaultContainerPort {
				ready++
			}
		}
	}
	if ready != 3 {
		t.Errorf("%d ready endpoints, want 3: %+v", ready, slices.Items)
	}
	// The NodePort answers on a node's address, through kube-proxy.
	if r := cl.Probe(cl.Nodes()[0].InternalIP, 30080, "/healthz"); r != elbv2model.ProbeOK {
		t.Errorf("probe of the NodePort: %v", r)
	}
	// The PodDisruptionBudget's status, as the API server's Eviction API reads it.
	var pdb policyv1.PodDisruptionBudget
	if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &pdb); err != nil {
		t.Fatal(err)
	}
	if pdb.Status.ObservedGeneration != pdb.Generation || pdb.Status.DisruptionsAllowed != 1 || pdb.Status.CurrentHealthy != 3 {
		t.Fatalf("pdb status %+v (generation %d)", pdb.Status, pdb.Generation)
	}
	// Evictions: the first is allowed, the second refused by the API
	// server itself (429), the third allowed once the replacement is Ready.
	views := cl.Pods()
	if err := cl.Evict(ctx, views[0].Key()); err != nil {
		t.Fatalf("first eviction: %v", err)
	}
	err = cl.Evict(ctx, views[1].Key())
	var ee *cluster.EvictionError
	if !errors.As(err, &ee) || !apierrors.IsTooManyRequests(ee.Err) {
		t.Fatalf("second eviction: %v, want the API server's 429", err)
	}
	clock.Advance(time.Minute)
	if err := cl.Evict(ctx, views[1].Key()); err != nil {
		t.Fatalf("eviction after the replacement is Ready: %v", err)
	}
	clock.Advance(time.Minute)
	// The evicted pods went through Terminating and are gone.
	for _, v := range views[:2] {
		var p corev1.Pod
		if err := c.Get(ctx, v.Key(), &p); !apierrors.IsNotFound(err) {
			t.Errorf("evicted pod %s: %v, want gone", v.Name, err)
		}
	}
	if err := c.List(ctx, &pods, client.InNamespace(ns)); err != nil || len(pods.Items) != 3 {
		t.Errorf("pods after evictions: %d (%v), want 3", len(pods.Items), err)
	}
	// Terminating an instance deletes its Node.
	victim := cl.Nodes()[0].Name
	if err := cl.TerminateInstance(ctx, victim); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	var n corev1.Node
	if err := c.Get(ctx, client.ObjectKey{Name: victim}, &n); !apierrors.IsNotFound(err) {
		t.Errorf("terminated node: %v, want gone", err)
	}
	for _, e := range events {
		if len(e) > 5 && e[:5] == "Error" {
			t.Errorf("model error: %s", e)
		}
	}
}
