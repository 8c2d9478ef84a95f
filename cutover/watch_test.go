package cutover

import (
	"context"
	"errors"
	"testing"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate/diagnose"
)

// TestWatchWakes: the watch wakes a wait for a node that starts to leave
// (each way diagnose calls a node leaving), a node deleted, a NodeClaim
// whose deletion starts or ends, and a watch the server closed; it does
// not for a change that leaves a node as it was (the hold's own
// annotation), nor twice for a node already leaving. A client that
// cannot watch, a refused watch and a negative reaction leave the run
// polling.
func TestWatchWakes(t *testing.T) {
	node := func(name string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	}
	claim := func(name string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(diagnose.NodeClaimGVK)
		u.SetName(name)
		u.SetFinalizers([]string{"karpenter.sh/termination"})
		return u
	}
	newRunner := func(t *testing.T, c client.Client, reaction int) *runner {
		t.Helper()
		o := options{reaction: DefaultReaction}
		if reaction < 0 {
			o.reaction = -1
		}
		r := &runner{e: &env{Env: Env{Client: c}, log: logr.Discard()}, o: o}
		r.startWatch(t.Context())
		t.Cleanup(r.stopWatch)
		return r
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	objs := []client.Object{node("a"), node("b"), node("c"), node("d"), claim("nc-a")}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
	r := newRunner(t, c, 0)
	if r.watch == nil {
		t.Fatal("no watch on a client that watches")
	}
	ctx := t.Context()
	patch := func(name string, edit func(n *corev1.Node)) {
		t.Helper()
		var n corev1.Node
		if err := c.Get(ctx, client.ObjectKey{Name: name}, &n); err != nil {
			t.Fatal(err)
		}
		orig := n.DeepCopy()
		edit(&n)
		if err := c.Patch(ctx, &n, client.MergeFrom(orig)); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name string
		act  func()
		want bool
	}{
		{"nothing happened", func() {}, false},
		{"the hold's annotation", func() {
			patch("a", func(n *corev1.Node) { n.Annotations = map[string]string{AnnotationDoNotDisrupt: "true"} })
		}, false},
		{"Karpenter's taint", func() {
			patch("a", func(n *corev1.Node) {
				n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: diagnose.TaintDisrupted, Effect: corev1.TaintEffectNoSchedule})
			})
		}, true},
		{"the same node again, still leaving", func() {
			patch("a", func(n *corev1.Node) { n.Labels = map[string]string{diagnose.LabelExcludeFromLB: "true"} })
		}, false},
		{"a cordon", func() { patch("b", func(n *corev1.Node) { n.Spec.Unschedulable = true }) }, true},
		{"NotReady", func() {
			var n corev1.Node
			if err := c.Get(ctx, client.ObjectKey{Name: "c"}, &n); err != nil {
				t.Fatal(err)
			}
			orig := n.DeepCopy()
			n.Status.Conditions[0].Status = corev1.ConditionFalse
			if err := c.Status().Patch(ctx, &n, client.MergeFrom(orig)); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"a node deleted", func() {
			if err := c.Delete(ctx, node("d")); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"a NodeClaim's deletion starts", func() {
			if err := c.Delete(ctx, claim("nc-a")); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"a NodeClaim goes", func() {
			u := claim("nc-a")
			if err := c.Get(ctx, client.ObjectKey{Name: "nc-a"}, u); err != nil {
				t.Fatal(err)
			}
			u.SetFinalizers(nil)
			if err := c.Update(ctx, u); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"a server that closes the watch", func() { r.watch.nodes.Stop() }, true},
		{"reopened: quiet again", func() {}, false},
		{"and it still sees a change", func() {
			patch("b", func(n *corev1.Node) {
				n.Spec.Taints = []corev1.Taint{{Key: diagnose.TaintDisrupted, Effect: corev1.TaintEffectNoSchedule}}
			})
		}, false}, // b was already leaving (cordoned)
	}
	for _, st := range steps {
		st.act()
		if got := r.wake(ctx); got != st.want {
			t.Errorf("%s: wake = %v, want %v", st.name, got, st.want)
		}
		if r.watch == nil {
			t.Fatalf("%s: the watch stopped", st.name)
		}
	}
	if r.watch.reopens != 1 {
		t.Errorf("reopens = %d, want 1", r.watch.reopens)
	}

	t.Run("polls", func(t *testing.T) {
		refused := interceptor.NewClient(fake.NewClientBuilder().WithScheme(scheme).Build(), interceptor.Funcs{
			Watch: func(ctx context.Context, c client.WithWatch, l client.ObjectList, o ...client.ListOption) (watch.Interface, error) {
				return nil, errors.New("forbidden: cannot watch nodes")
			},
		})
		for name, rr := range map[string]*runner{
			"a refused watch":            newRunner(t, refused, 0),
			"a negative reaction":        newRunner(t, fake.NewClientBuilder().WithScheme(scheme).Build(), -1),
			"a client that cannot watch": newRunner(t, struct{ client.Client }{fake.NewClientBuilder().WithScheme(scheme).Build()}, 0),
		} {
			if rr.watch != nil || rr.wake(t.Context()) {
				t.Errorf("%s: a watch is open, or woke", name)
			}
		}
	})
}
