package cutover

// scope_test.go: the target group's part of the cluster classifies its
// targets as a snapshot of the whole cluster does, with and without a
// watch, and without field selectors; and it reads no pod beyond what
// the targets need.

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/read"
	"github.com/qstools/tgmigrate/internal/sim/cluster"
)

// scopeWorld is a small cluster: the Service shop/web (NodePort 30080,
// pods on 8080) on nodes n1-n3, a node n4 with a hostNetwork pod on 9100,
// and in namespace batch a Service api (NodePort 30090) with a pod on
// 8080, a pod on 5000, a completed pod and many pods nothing needs.
func scopeWorld(unrelated int) []client.Object {
	node := func(name, ip string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.NodeSpec{ProviderID: "aws:///eu-west-1a/i-0" + name},
			Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}},
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	}
	pod := func(ns, name, app, node, ip string, port int32) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": app}},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: port}}}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip,
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
	}
	svc := func(ns, name, app string, nodePort int32) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Selector: map[string]string{"app": app},
				Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http"), NodePort: nodePort}}}}
	}
	hostNet := pod("kube-system", "exporter", "exporter", "n4", "10.0.1.4", 9100)
	hostNet.Spec.HostNetwork = true
	done := pod("batch", "done-1", "job", "n2", "10.0.3.3", 7000)
	done.Status.Phase = corev1.PodSucceeded
	objs := []client.Object{
		node("n1", "10.0.1.1"), node("n2", "10.0.1.2"), node("n3", "10.0.1.3"), node("n4", "10.0.1.4"),
		svc("shop", "web", "web", 30080), svc("batch", "api", "api", 30090),
		pod("shop", "web-1", "web", "n1", "10.0.2.1", 8080), pod("shop", "web-2", "web", "n2", "10.0.2.2", 8080),
		pod("shop", "web-3", "web", "n3", "10.0.2.3", 8080),
		pod("batch", "api-1", "api", "n1", "10.0.3.1", 8080), pod("batch", "cache-1", "cache", "n2", "10.0.3.2", 5000),
		done, hostNet,
	}
	for i := range unrelated {
		objs = append(objs, pod("batch", fmt.Sprintf("report-%d", i), "report", "n9", "", 7000))
	}
	return objs
}

// scopeTargets are a target of each kind the scope must find: node
// targets on the Service's NodePort, on another Service's NodePort, on a
// host port and on no port of the node; the Service's pod; an unrelated
// pod that serves the port; a reused address; a completed pod's address;
// a ghost of the NodePort; an instance.
var scopeTargets = []diagnose.Target{
	{ID: "10.0.1.1", Port: 30080}, {ID: "10.0.1.2", Port: 30090}, {ID: "10.0.1.4", Port: 9100}, {ID: "10.0.1.3", Port: 7777},
	{ID: "10.0.2.1", Port: 8080}, {ID: "10.0.3.1", Port: 8080}, {ID: "10.0.3.2", Port: 8080}, {ID: "10.0.3.3", Port: 8080},
	{ID: "10.0.9.9", Port: 30080},
}

// TestScopeClassifiesAsTheWholeCluster: for every kind of target, the
// objects an observation reads classify it as a snapshot of the whole
// cluster does, with the watch's caches, with targeted reads, and with a
// client that cannot select by field; again after the cluster changed
// (a pod of the Service added, a node gone, an address reused). With a
// watch or field selectors, an observation lists no pod beyond the
// Service's and the look-ups'.
func TestScopeClassifiesAsTheWholeCluster(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	indexed := func(objs []client.Object) client.WithWatch {
		c, err := cluster.NewFakeClient(cluster.FakeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			if err := c.Create(t.Context(), o); err != nil {
				t.Fatal(err)
			}
			if p, ok := o.(*corev1.Pod); ok {
				if err := c.Status().Update(t.Context(), p); err != nil {
					t.Fatal(err)
				}
			}
			if n, ok := o.(*corev1.Node); ok {
				if err := c.Status().Update(t.Context(), n); err != nil {
					t.Fatal(err)
				}
			}
		}
		return c
	}
	tests := []struct {
		name string
		// client builds the client over the world; watch says whether it watches.
		client func([]client.Object) client.Client
		// lean: no pod list beyond the Service's selector and the look-ups'.
		lean bool
	}{
		{"watch", func(o []client.Object) client.Client { return indexed(o) }, true},
		{"targeted reads", func(o []client.Object) client.Client { return struct{ client.Client }{indexed(o)} }, true},
		{"no field selectors", func(o []client.Object) client.Client {
			return fake.NewClientBuilder().WithScheme(scheme).WithObjects(o...).WithStatusSubresource(&corev1.Pod{}, &corev1.Node{}).Build()
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			base := tt.client(scopeWorld(50))
			var wide int // pod lists with neither a selector nor a namespace
			c := interceptor.NewClient(withWatchOf(base), interceptor.Funcs{
				List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
					lo := (&client.ListOptions{}).ApplyOptions(opts)
					if _, ok := list.(*corev1.PodList); ok && lo.Namespace == "" && lo.FieldSelector == nil && lo.LabelSelector == nil {
						wide++
					}
					return c.List(ctx, list, opts...)
				},
			})
			var rc client.Client = c
			if _, ok := base.(client.WithWatch); !ok {
				rc = struct{ client.Client }{c}
			}
			e := &env{Env: Env{Client: rc, ClusterName: "prod"}, reader: rc, log: logr.Discard()}
			r := &runner{e: e, o: options{reaction: DefaultReaction}, ns: "shop", st: &State{Restore: &RestoreInfo{Service: "web"}}}
			r.startWatch(ctx)
			defer r.stopWatch()
			if _, watching := base.(client.WithWatch); watching != (r.watch != nil) {
				t.Fatalf("watch open %v, want %v", r.watch != nil, watching)
			}
			compare := func(when string) {
				t.Helper()
				wide = 0
				objs, err := r.clusterObjects(ctx, scopeTargets, false)
				if err != nil {
					t.Fatal(err)
				}
				if tt.lean && wide > 0 {
					t.Errorf("%s: %d pod lists of the whole cluster", when, wide)
				}
				if tt.lean && len(objs.Pods) > 9 {
					t.Errorf("%s: read %d pods, want the Service's and the look-ups' alone", when, len(objs.Pods))
				}
				scoped, err := diagnose.NewSnapshot(e.cluster(), *objs)
				if err != nil {
					t.Fatal(err)
				}
				all, err := read.ListCluster(ctx, base, read.ClusterOptions{Kinds: []read.ListKind{read.ListNodes, read.ListPods, read.ListServices}, Policy: read.Require})
				if err != nil {
					t.Fatal(err)
				}
				all.NoNodeClaimCRD = true
				whole, err := diagnose.NewSnapshot(e.cluster(), all)
				if err != nil {
					t.Fatal(err)
				}
				set := diagnose.TargetSet{TargetType: "ip", Targets: scopeTargets}
				want, got := diagnose.Classify(set, whole), diagnose.Classify(set, scoped)
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("%s: classification (-whole cluster +scoped):\n%s", when, d)
				}
			}
			compare("first observation")
			// The cluster changes: a pod of the Service joins, a node goes,
			// an unrelated pod takes the ghost's address.
			joined := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-4", Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "c", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}}}}}
			if err := base.Create(ctx, joined); err != nil {
				t.Fatal(err)
			}
			joined.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.2.4"}
			if err := base.Status().Update(ctx, joined); err != nil {
				t.Fatal(err)
			}
			if err := base.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n3"}}); err != nil {
				t.Fatal(err)
			}
			reuse := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "batch", Name: "api-2", Labels: map[string]string{"app": "api"}},
				Spec: corev1.PodSpec{NodeName: "n2", Containers: []corev1.Container{{Name: "c", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}}}}}
			if err := base.Create(ctx, reuse); err != nil {
				t.Fatal(err)
			}
			reuse.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.9.9"}
			if err := base.Status().Update(ctx, reuse); err != nil {
				t.Fatal(err)
			}
			compare("after the changes")
		})
	}
}

// withWatchOf gives interceptor.NewClient a client.WithWatch: c's Watch
// when it has one.
func withWatchOf(c client.Client) client.WithWatch {
	if w, ok := c.(client.WithWatch); ok {
		return w
	}
	return noWatch{c}
}

type noWatch struct{ client.Client }

func (noWatch) Watch(context.Context, client.ObjectList, ...client.ListOption) (watch.Interface, error) {
	return nil, fmt.Errorf("no watch")
}
