package cluster_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/sim/cluster"
	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/vclock"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

const ns = "shop"

type fixture struct {
	clock  *vclock.Clock
	cl     *cluster.Cluster
	c      client.Client
	events []string
	svc    types.NamespacedName
	// terminated lists the instance IDs OnInstanceTerminated reported.
	terminated []string
}

// newFixture builds nodes Ready nodes and a workload of replicas pods
// behind a NodePort Service on 30080.
func newFixture(t *testing.T, nodes, replicas int, mutate func(*cluster.Workload)) *fixture {
	t.Helper()
	fc, err := cluster.NewFakeClient(cluster.FakeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{clock: vclock.New(time.Time{}), svc: types.NamespacedName{Namespace: ns, Name: "web"}}
	f.cl, err = cluster.New(cluster.Options{
		Client: fc, Clock: f.clock, Seed: 7,
		OnEvent:              func(reason, object, msg string) { f.events = append(f.events, reason+" "+object+" "+msg) },
		OnInstanceTerminated: func(id string) { f.terminated = append(f.terminated, id) },
	})
	if err != nil {
		t.Fatal(err)
	}
	f.c = f.cl.Client()
	ctx := t.Context()
	for range nodes {
		if _, err := f.cl.LaunchNode(ctx, cluster.NodeSpec{Public: true}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.cl.EnsureNamespace(ctx, ns, nil); err != nil {
		t.Fatal(err)
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeNodePort,
			Selector: map[string]string{"app": "web"},
			Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http"), NodePort: 30080}},
		},
	}
	if err := f.cl.AddService(ctx, svc); err != nil {
		t.Fatal(err)
	}
	w := cluster.Workload{Namespace: ns, Name: "web", Replicas: replicas, PreStop: 15 * time.Second}
	if mutate != nil {
		mutate(&w)
	}
	if err := f.cl.AddWorkload(ctx, w); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) slices(t *testing.T) []discoveryv1.Endpoint {
	t.Helper()
	var l discoveryv1.EndpointSliceList
	if err := f.c.List(t.Context(), &l, client.InNamespace(ns), client.MatchingLabels{discoveryv1.LabelServiceName: "web"}); err != nil {
		t.Fatal(err)
	}
	var eps []discoveryv1.Endpoint
	for _, s := range l.Items {
		eps = append(eps, s.Endpoints...)
	}
	return eps
}

func readyCount(eps []discoveryv1.Endpoint) (ready, terminating int) {
	for _, e := range eps {
		if ptr.Deref(e.Conditions.Ready, false) {
			ready++
		}
		if ptr.Deref(e.Conditions.Terminating, false) {
			terminating++
		}
	}
	return ready, terminating
}

func TestPodLifecycle(t *testing.T) {
	f := newFixture(t, 2, 2, nil)
	pods := f.cl.Pods()
	if len(pods) != 2 {
		t.Fatalf("pods = %d, want 2", len(pods))
	}
	p := pods[0]
	nodeIP := f.cl.Nodes()[0].InternalIP
	tests := []struct {
		at                    time.Duration
		wantPhase             string
		wantReady             bool
		wantPod, wantNodePort elbv2model.ProbeResult
		wantReadyEndpoints    int
	}{
		{0, "Pending", false, elbv2model.ProbeRefused, elbv2model.ProbeRefused, 0},
		{cluster.DefaultStartupDelay, "Running", false, elbv2model.ProbeOK, elbv2model.ProbeRefused, 0},
		{cluster.DefaultStartupDelay + cluster.DefaultReadinessDelay, "Running", true, elbv2model.ProbeOK, elbv2model.ProbeOK, 2},
	}
	for _, tt := range tests {
		f.clock.RunUntil(vclock.Epoch.Add(tt.at))
		got := f.cl.Pods()[0]
		if got.Phase != tt.wantPhase || got.Ready != tt.wantReady {
			t.Errorf("at %v: phase %s ready %v, want %s %v", tt.at, got.Phase, got.Ready, tt.wantPhase, tt.wantReady)
		}
		if r := f.cl.Probe(p.IP, cluster.DefaultContainerPort, "/healthz"); r != tt.wantPod {
			t.Errorf("at %v: probe pod = %v, want %v", tt.at, r, tt.wantPod)
		}
		if r := f.cl.Probe(nodeIP, 30080, "/healthz"); r != tt.wantNodePort {
			t.Errorf("at %v: probe nodePort = %v, want %v", tt.at, r, tt.wantNodePort)
		}
		if r, _ := readyCount(f.slices(t)); r != tt.wantReadyEndpoints {
			t.Errorf("at %v: ready endpoints = %d, want %d", tt.at, r, tt.wantReadyEndpoints)
		}
		var obj corev1.Pod
		if err := f.c.Get(t.Context(), p.Key(), &obj); err != nil {
			t.Fatal(err)
		}
		if obj.Status.PodIP != p.IP || obj.Spec.NodeName != p.Node {
			t.Errorf("at %v: pod object ip %s node %s, want %s %s", tt.at, obj.Status.PodIP, obj.Spec.NodeName, p.IP, p.Node)
		}
	}
	if r := f.cl.Probe(p.IP, cluster.DefaultContainerPort, "/nope"); r != elbv2model.ProbeBadStatus {
		t.Errorf("probe /nope = %v, want bad status", r)
	}
	if r := f.cl.Probe("10.0.250.1", 30080, "/"); r != elbv2model.ProbeTimeout {
		t.Errorf("probe unknown ip = %v, want timeout", r)
	}
	if r := f.cl.Probe(nodeIP, 30081, "/"); r != elbv2model.ProbeRefused {
		t.Errorf("probe other port = %v, want refused", r)
	}
	if ext := f.cl.Nodes()[0].ExternalIP; ext == "" || f.cl.Probe(ext, 30080, "/") != elbv2model.ProbeOK {
		t.Errorf("external ip %q does not answer on the NodePort", ext)
	}
}

func TestTerminationAndReplacement(t *testing.T) {
	f := newFixture(t, 2, 2, nil)
	f.clock.Advance(time.Minute)
	victim := f.cl.Pods()[0]
	// Someone outside the simulation deletes the pod.
	obj := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: victim.Name}}
	if err := f.c.Delete(t.Context(), obj); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Second)
	var got corev1.Pod
	if err := f.c.Get(t.Context(), victim.Key(), &got); err != nil || got.DeletionTimestamp.IsZero() {
		t.Fatalf("pod after delete: err %v, deletionTimestamp %v; want Terminating", err, got.DeletionTimestamp)
	}
	if !f.cl.Serve(victim.IP, cluster.DefaultContainerPort).Served() {
		t.Error("terminating pod stopped serving during its preStop sleep")
	}
	ready, term := readyCount(f.slices(t))
	if ready != 1 || term != 1 {
		t.Errorf("endpoints ready %d terminating %d, want 1 1", ready, term)
	}
	if n := len(f.cl.Pods()); n != 3 {
		t.Errorf("pods = %d, want 3 (replacement created at once)", n)
	}
	f.clock.Advance(15 * time.Second)
	if f.cl.Serve(victim.IP, cluster.DefaultContainerPort).Served() {
		t.Error("pod still serves after its preStop sleep")
	}
	if r := f.cl.Probe(victim.IP, cluster.DefaultContainerPort, "/"); r != elbv2model.ProbeTimeout {
		t.Errorf("gone pod's ip probes %v, want timeout", r)
	}
	if err := f.c.Get(t.Context(), victim.Key(), &got); err == nil {
		t.Error("pod object still exists after termination")
	}
	f.clock.Advance(time.Minute)
	pods := f.cl.Pods()
	if len(pods) != 2 {
		t.Fatalf("pods = %d, want 2", len(pods))
	}
	for _, p := range pods {
		if p.IP == victim.IP {
			t.Errorf("address %s reused", p.IP)
		}
		if !p.Ready {
			t.Errorf("pod %s not ready", p.Name)
		}
	}
}

func TestEvictionHonoursPDB(t *testing.T) {
	f := newFixture(t, 3, 3, func(w *cluster.Workload) {
		w.PDB = &cluster.PDBSpec{MaxUnavailable: ptr.To(intstr.FromInt32(1))}
	})
	f.clock.Advance(time.Minute)
	ctx := t.Context()
	pods := f.cl.Pods()
	if err := f.cl.Evict(ctx, pods[0].Key()); err != nil {
		t.Fatalf("first eviction: %v", err)
	}
	err := f.cl.Evict(ctx, pods[1].Key())
	var ee *cluster.EvictionError
	if !errors.As(err, &ee) || !cluster.IsEvictionBlocked(err) || ee.PDB != "web" {
		t.Fatalf("second eviction: %v, want blocked by pdb web", err)
	}
	var pdb policyv1.PodDisruptionBudget
	f.clock.Advance(time.Second)
	if err := f.c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &pdb); err != nil {
		t.Fatal(err)
	}
	want := policyv1.PodDisruptionBudgetStatus{ExpectedPods: 3, CurrentHealthy: 2, DesiredHealthy: 2, DisruptionsAllowed: 0}
	got := policyv1.PodDisruptionBudgetStatus{ExpectedPods: pdb.Status.ExpectedPods, CurrentHealthy: pdb.Status.CurrentHealthy, DesiredHealthy: pdb.Status.DesiredHealthy, DisruptionsAllowed: pdb.Status.DisruptionsAllowed}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("pdb status (-want +got):\n%s", d)
	}
	// The replacement becomes Ready: one disruption is allowed again.
	f.clock.Advance(time.Minute)
	if err := f.cl.Evict(ctx, pods[1].Key()); err != nil {
		t.Fatalf("eviction after the replacement is ready: %v", err)
	}
	if _, ok := f.cl.Owner(pods[0].IP); ok {
		t.Errorf("evicted pod's ip %s still owned", pods[0].IP)
	}
}

func TestReadinessGate(t *testing.T) {
	f := newFixture(t, 1, 0+1, nil)
	gate := corev1.PodConditionType("target-health.elbv2.k8s.aws/web")
	f.cl.Hub().AddAdmission(func(_ context.Context, op cluster.Op, obj client.Object) error {
		if p, ok := obj.(*corev1.Pod); ok && op == cluster.OpCreate {
			p.Spec.ReadinessGates = append(p.Spec.ReadinessGates, corev1.PodReadinessGate{ConditionType: gate})
		}
		return nil
	})
	// The first pod was created before the webhook: no gate. Replace it.
	first := f.cl.Pods()[0]
	if err := f.cl.Evict(t.Context(), first.Key()); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Minute)
	p := f.cl.Pods()[0]
	if len(p.Gates) != 1 || !p.ContainersReady || p.Ready {
		t.Fatalf("gated pod: gates %v containersReady %v ready %v; want gated, containers ready, not Ready", p.Gates, p.ContainersReady, p.Ready)
	}
	if r, _ := readyCount(f.slices(t)); r != 0 {
		t.Errorf("ready endpoints = %d before the gate is True", r)
	}
	// Not Ready, but its app listens: it serves.
	if !f.cl.Serve(p.IP, cluster.DefaultContainerPort).Served() {
		t.Error("a pod waiting on its readiness gate does not serve")
	}
	// The LBC (outside the cluster) sets the gate condition.
	var obj corev1.Pod
	if err := f.c.Get(t.Context(), p.Key(), &obj); err != nil {
		t.Fatal(err)
	}
	obj.Status.Conditions = append(obj.Status.Conditions, corev1.PodCondition{Type: gate, Status: corev1.ConditionTrue})
	if err := f.c.Status().Update(t.Context(), &obj); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Second)
	if p := f.cl.Pods()[0]; !p.Ready {
		t.Error("pod not Ready after its gate turned True")
	}
	if r, _ := readyCount(f.slices(t)); r != 1 {
		t.Errorf("ready endpoints = %d, want 1", r)
	}
	if err := f.c.Get(t.Context(), p.Key(), &obj); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range obj.Status.Conditions {
		if c.Type == gate && c.Status == corev1.ConditionTrue {
			found = true
		}
		if c.Type == corev1.PodReady && c.Status != corev1.ConditionTrue {
			t.Errorf("Ready condition %s", c.Status)
		}
	}
	if !found {
		t.Error("the kubelet's status write dropped the gate condition")
	}
}

func TestTerminateInstance(t *testing.T) {
	f := newFixture(t, 2, 4, nil)
	f.clock.Advance(time.Minute)
	n := f.cl.Nodes()[0]
	if err := f.cl.TerminateInstance(t.Context(), n.Name); err != nil {
		t.Fatal(err)
	}
	if r := f.cl.Probe(n.InternalIP, 30080, "/"); r != elbv2model.ProbeTimeout {
		t.Errorf("terminated node probes %v, want timeout", r)
	}
	if err := f.cl.TerminateInstance(t.Context(), n.Name); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{n.InstanceID}, f.terminated); d != "" {
		t.Errorf("OnInstanceTerminated (-want +got), once per instance:\n%s", d)
	}
	if _, ok := f.cl.Owner(n.InternalIP); ok {
		t.Error("terminated node still owns its address")
	}
	if owner, _ := f.cl.FormerOwner(n.InternalIP); owner != "node/"+n.Name {
		t.Errorf("former owner %q", owner)
	}
	var got corev1.Node
	if err := f.c.Get(t.Context(), client.ObjectKey{Name: n.Name}, &got); err == nil {
		t.Error("node object still exists")
	}
	f.clock.Advance(time.Minute)
	pods := f.cl.Pods()
	if len(pods) != 4 {
		t.Fatalf("pods = %d, want 4", len(pods))
	}
	for _, p := range pods {
		if p.Node == n.Name || !p.Ready {
			t.Errorf("pod %s on %s ready %v", p.Name, p.Node, p.Ready)
		}
	}
	if len(f.cl.Nodes()) != 1 || len(f.cl.NodeHistory()) != 2 {
		t.Errorf("nodes %d history %d", len(f.cl.Nodes()), len(f.cl.NodeHistory()))
	}
}

func TestDeterministicNames(t *testing.T) {
	names := func() []string {
		f := newFixture(t, 3, 5, nil)
		var out []string
		for _, n := range f.cl.Nodes() {
			out = append(out, n.Name, n.InstanceID, n.InternalIP, n.ExternalIP)
		}
		for _, p := range f.cl.Pods() {
			out = append(out, p.Name, p.IP, p.Node)
		}
		return out
	}
	if d := cmp.Diff(names(), names()); d != "" {
		t.Errorf("same seed, different names (-first +second):\n%s", d)
	}
}

func TestInvalidInputChangesNothing(t *testing.T) {
	tests := []struct {
		name string
		run  func(*fixture) error
	}{
		{"zero replicas", func(f *fixture) error {
			return f.cl.AddWorkload(context.Background(), cluster.Workload{Namespace: ns, Name: "api"})
		}},
		{"two budgets", func(f *fixture) error {
			one := intstr.FromInt32(1)
			return f.cl.AddWorkload(context.Background(), cluster.Workload{Namespace: ns, Name: "api", Replicas: 1, PDB: &cluster.PDBSpec{MinAvailable: &one, MaxUnavailable: &one}})
		}},
		{"taken node port", func(f *fixture) error {
			return f.cl.AddService(context.Background(), &corev1.Service{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "api"},
				Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Selector: map[string]string{"app": "api"},
					Ports: []corev1.ServicePort{{Port: 80, NodePort: 30080}}},
			})
		}},
		{"unknown zone", func(f *fixture) error {
			_, err := f.cl.LaunchNode(context.Background(), cluster.NodeSpec{Zone: "mars-1a"})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, 1, 1, nil)
			before := f.objects(t)
			err := tt.run(f)
			if !cluster.IsInvalidConfig(err) {
				t.Fatalf("err = %v, want an invalid-config error", err)
			}
			if d := cmp.Diff(before, f.objects(t)); d != "" {
				t.Errorf("objects changed (-before +after):\n%s", d)
			}
		})
	}
	if _, err := cluster.New(cluster.Options{}); !cluster.IsInvalidConfig(err) {
		t.Errorf("New without client: %v", err)
	}
}

func (f *fixture) objects(t *testing.T) []string {
	t.Helper()
	var out []string
	lists := []client.ObjectList{&corev1.PodList{}, &corev1.ServiceList{}, &corev1.NodeList{}, &policyv1.PodDisruptionBudgetList{}, &discoveryv1.EndpointSliceList{}}
	for _, l := range lists {
		if err := f.c.List(t.Context(), l); err != nil {
			t.Fatal(err)
		}
		switch l := l.(type) {
		case *corev1.PodList:
			for _, o := range l.Items {
				out = append(out, "pod/"+o.Name)
			}
		case *corev1.ServiceList:
			for _, o := range l.Items {
				out = append(out, "service/"+o.Name)
			}
		case *corev1.NodeList:
			for _, o := range l.Items {
				out = append(out, "node/"+o.Name)
			}
		case *policyv1.PodDisruptionBudgetList:
			for _, o := range l.Items {
				out = append(out, "pdb/"+o.Name)
			}
		case *discoveryv1.EndpointSliceList:
			for _, o := range l.Items {
				out = append(out, "slice/"+o.Name)
			}
		}
	}
	return out
}

func TestFakeClientServerSideApply(t *testing.T) {
	tests := []struct {
		name string
		opts cluster.FakeOptions
	}{
		{"default tracker: apply creates and merges", cluster.FakeOptions{}},
		{"field-managed tracker", cluster.FakeOptions{ServerSideApply: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := cluster.NewFakeClient(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			if err := c.Apply(ctx, corev1ac.ConfigMap("cm", ns).WithData(map[string]string{"k": "v"}), client.FieldOwner("test")); err != nil {
				t.Fatalf("apply (create): %v", err)
			}
			if err := c.Apply(ctx, corev1ac.ConfigMap("cm", ns).WithData(map[string]string{"k": "v", "k2": "v2"}), client.FieldOwner("test")); err != nil {
				t.Fatalf("apply (update): %v", err)
			}
			var cm corev1.ConfigMap
			if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "cm"}, &cm); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(map[string]string{"k": "v", "k2": "v2"}, cm.Data); d != "" {
				t.Errorf("data after apply (-want +got):\n%s", d)
			}
		})
	}
}

// TestFakeClientServerSideApplyOwnership: with ServerSideApply, a
// TargetGroupBinding (the kind tgbind applies server-side) has field
// ownership: a second manager that sets a field the first one owns to
// another value gets a conflict, and gets through with ForceOwnership. On
// the plain tracker the same apply merges.
func TestFakeClientServerSideApplyOwnership(t *testing.T) {
	binding := func(port int64) runtime.ApplyConfiguration {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "elbv2.k8s.aws/v1beta1", "kind": "TargetGroupBinding",
			"metadata": map[string]any{"name": "web", "namespace": ns},
			"spec": map[string]any{
				"targetGroupARN": "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/web/0123456789abcdef",
				"serviceRef":     map[string]any{"name": "web", "port": port},
			},
		}}
		return client.ApplyConfigurationFromUnstructured(u)
	}
	tests := []struct {
		name         string
		opts         cluster.FakeOptions
		wantConflict bool
	}{
		{"plain tracker merges", cluster.FakeOptions{}, false},
		{"field-managed tracker refuses", cluster.FakeOptions{ServerSideApply: true}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := cluster.NewFakeClient(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			if err := c.Apply(ctx, binding(80), client.FieldOwner("a")); err != nil {
				t.Fatalf("apply by a: %v", err)
			}
			err = c.Apply(ctx, binding(8080), client.FieldOwner("b"))
			if got := apierrors.IsConflict(err); got != tt.wantConflict {
				t.Fatalf("apply by b: %v; conflict %t, want %t", err, got, tt.wantConflict)
			}
			if tt.wantConflict {
				if err := c.Apply(ctx, binding(8080), client.FieldOwner("b"), client.ForceOwnership); err != nil {
					t.Fatalf("forced apply by b: %v", err)
				}
			}
			var tgb v1beta1.TargetGroupBinding
			if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, &tgb); err != nil {
				t.Fatal(err)
			}
			if got := tgb.Spec.ServiceRef.Port.IntValue(); got != 8080 {
				t.Errorf("serviceRef.port %d, want 8080", got)
			}
			// The other kinds stay on the plain tracker, where apply
			// creates and merges whoever the manager.
			if err := c.Apply(ctx, corev1ac.ConfigMap("cm", ns).WithData(map[string]string{"k": "v"}), client.FieldOwner("a")); err != nil {
				t.Fatal(err)
			}
			if err := c.Apply(ctx, corev1ac.ConfigMap("cm", ns).WithData(map[string]string{"k": "w"}), client.FieldOwner("b")); err != nil {
				t.Errorf("config map apply by another manager: %v", err)
			}
		})
	}
}
