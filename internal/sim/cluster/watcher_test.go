package cluster_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/sim/cluster"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// watchWorld is a cluster on a fake client whose deletionTimestamps are on
// the virtual clock, and its client as a client.WithWatch.
type watchWorld struct {
	clock *vclock.Clock
	cl    *cluster.Cluster
	c     client.WithWatch
}

func newWatchWorld(t *testing.T) *watchWorld {
	t.Helper()
	clock := vclock.New(time.Time{})
	fc, err := cluster.NewFakeClient(cluster.FakeOptions{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := cluster.New(cluster.Options{Client: fc, Clock: clock, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	c, ok := cl.Client().(client.WithWatch)
	if !ok {
		t.Fatalf("the cluster's client %T does not watch", cl.Client())
	}
	return &watchWorld{clock: clock, cl: cl, c: c}
}

// drain reads what the channel holds now, without blocking, as
// "TYPE name", and whether it is closed.
func drain(ch <-chan watch.Event) (got []string, closed bool) {
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return got, true
			}
			o := ev.Object.(client.Object)
			got = append(got, fmt.Sprintf("%s %s", ev.Type, o.GetName()))
		default:
			return got, false
		}
	}
}

// TestWatchEvents: every write becomes an event during the write, in
// order: the initial objects as Added, a Create as Added, Updates and
// status writes as Modified, a deletion that finalizers hold as Modified
// (with its deletionTimestamp, on the virtual clock), the removal as
// Deleted with the object's last state.
func TestWatchEvents(t *testing.T) {
	ctx := t.Context()
	w := newWatchWorld(t)
	first, err := w.cl.LaunchNode(ctx, cluster.NodeSpec{})
	if err != nil {
		t.Fatal(err)
	}
	wt, err := w.c.Watch(ctx, &corev1.NodeList{})
	if err != nil {
		t.Fatal(err)
	}
	defer wt.Stop()
	if got, _ := drain(wt.ResultChan()); !slices.Equal(got, []string{"ADDED " + first}) {
		t.Fatalf("initial events %v, want the node there", got)
	}

	w.clock.Advance(90 * time.Second)
	held, err := w.cl.LaunchNode(ctx, cluster.NodeSpec{Finalizers: []string{"example.com/hold"}})
	if err != nil {
		t.Fatal(err)
	}
	// A launch with no delay registers at once: the Node is created, then
	// its status written.
	if got, _ := drain(wt.ResultChan()); !slices.Equal(got, []string{"ADDED " + held, "MODIFIED " + held}) {
		t.Errorf("after the launch: %v", got)
	}
	if err := w.cl.TaintNode(ctx, first, corev1.Taint{Key: "example.com/t", Effect: corev1.TaintEffectNoSchedule}); err != nil {
		t.Fatal(err)
	}
	if err := w.cl.TerminateInstance(ctx, first); err != nil {
		t.Fatal(err)
	}
	if got, _ := drain(wt.ResultChan()); !slices.Equal(got, []string{"MODIFIED " + first, "DELETED " + first}) {
		t.Errorf("after the taint and the termination: %v", got)
	}

	w.clock.Advance(1500 * time.Millisecond)
	if err := w.c.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: held}}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-wt.ResultChan():
		n := ev.Object.(*corev1.Node)
		want := w.clock.Now().Truncate(time.Second)
		if ev.Type != watch.Modified || n.DeletionTimestamp == nil || !n.DeletionTimestamp.Time.Equal(want) {
			t.Errorf("a held deletion: %s with deletionTimestamp %v, want MODIFIED at %v", ev.Type, n.DeletionTimestamp, want)
		}
	default:
		t.Fatal("a held deletion gave no event")
	}
	n := &corev1.Node{}
	if err := w.c.Get(ctx, client.ObjectKey{Name: held}, n); err != nil {
		t.Fatal(err)
	}
	n.Finalizers = nil
	if err := w.c.Update(ctx, n); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-wt.ResultChan():
		if o := ev.Object.(*corev1.Node); ev.Type != watch.Deleted || o.Name != held || len(o.Status.Addresses) == 0 {
			t.Errorf("the last finalizer removed: %s %s, want DELETED with its last state", ev.Type, o.Name)
		}
	default:
		t.Fatal("the removal gave no event")
	}
}

// TestWatchSelectors: a namespace, a label selector and a field selector
// select the objects; an object that leaves the selection is Deleted, one
// that enters it Added, and a watch from a resource version starts with no
// initial events.
func TestWatchSelectors(t *testing.T) {
	ctx := t.Context()
	w := newWatchWorld(t)
	for _, ns := range []string{"a", "b"} {
		if err := w.cl.EnsureNamespace(ctx, ns, nil); err != nil {
			t.Fatal(err)
		}
	}
	cm := func(ns, name, tier string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"tier": tier}}, Data: map[string]string{"k": name}}
	}
	for _, o := range []*corev1.ConfigMap{cm("a", "one", "web"), cm("b", "two", "web")} {
		if err := w.c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	byLabel, err := w.c.Watch(ctx, &corev1.ConfigMapList{}, client.InNamespace("a"), client.MatchingLabels{"tier": "web"})
	if err != nil {
		t.Fatal(err)
	}
	defer byLabel.Stop()
	byField, err := w.c.Watch(ctx, &corev1.ConfigMapList{}, client.MatchingFieldsSelector{Selector: fields.OneTermEqualSelector("data.k", "two")})
	if err != nil {
		t.Fatal(err)
	}
	defer byField.Stop()
	fromVersion, err := w.c.Watch(ctx, &corev1.ConfigMapList{}, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: "42"}})
	if err != nil {
		t.Fatal(err)
	}
	defer fromVersion.Stop()

	one := &corev1.ConfigMap{}
	if err := w.c.Get(ctx, client.ObjectKey{Namespace: "a", Name: "one"}, one); err != nil {
		t.Fatal(err)
	}
	one.Labels["tier"] = "db" // leaves byLabel's selection
	if err := w.c.Update(ctx, one); err != nil {
		t.Fatal(err)
	}
	one.Labels["tier"] = "web" // enters it again
	if err := w.c.Update(ctx, one); err != nil {
		t.Fatal(err)
	}
	if err := w.c.Create(ctx, cm("a", "three", "db")); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"byLabel":     {"ADDED one", "DELETED one", "ADDED one"},
		"byField":     {"ADDED two"},
		"fromVersion": {"MODIFIED one", "MODIFIED one", "ADDED three"},
	}
	for name, wt := range map[string]watch.Interface{"byLabel": byLabel, "byField": byField, "fromVersion": fromVersion} {
		if got, _ := drain(wt.ResultChan()); !slices.Equal(got, want[name]) {
			t.Errorf("%s: %v, want %v", name, got, want[name])
		}
	}
}

// TestWatchKinds: a watch of a kind the cluster does not serve is a typed
// error; an unstructured CRD kind the hub was told it serves is watched
// through unstructured lists.
func TestWatchKinds(t *testing.T) {
	ctx := t.Context()
	w := newWatchWorld(t)
	widgets := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(widgets.GroupVersion().WithKind("WidgetList"))
	for _, l := range []client.ObjectList{&appsv1.DeploymentList{}, list} {
		if _, err := w.c.Watch(ctx, l); !cluster.IsKindNotServed(err) {
			t.Errorf("watch %T: %v, want a kind not served", l, err)
		}
	}
	if _, err := w.c.Watch(ctx, &metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "NodeList"}}); !cluster.IsInvalidConfig(err) {
		t.Errorf("a metadata-only watch: %v, want an unsupported list", err)
	}

	w.cl.Hub().Serve(widgets)
	wt, err := w.c.Watch(ctx, list, client.MatchingLabelsSelector{Selector: labels.SelectorFromSet(labels.Set{"size": "big"})})
	if err != nil {
		t.Fatal(err)
	}
	defer wt.Stop()
	for _, size := range []string{"small", "big"} {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(widgets)
		u.SetName(size)
		u.SetLabels(map[string]string{"size": size})
		if err := w.c.Create(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := drain(wt.ResultChan())
	if !slices.Equal(got, []string{"ADDED big"}) {
		t.Errorf("widgets: %v, want the big one", got)
	}
}

// TestWatchSlowConsumer: a consumer that lets WatchBuffer events pile up
// has its watch closed, as an API server closes a watcher that falls
// behind; the writes go on, nothing blocks, and another watch is not
// affected.
func TestWatchSlowConsumer(t *testing.T) {
	ctx := t.Context()
	w := newWatchWorld(t)
	if err := w.cl.EnsureNamespace(ctx, "a", nil); err != nil {
		t.Fatal(err)
	}
	slow, err := w.c.Watch(ctx, &corev1.ConfigMapList{})
	if err != nil {
		t.Fatal(err)
	}
	fast, err := w.c.Watch(ctx, &corev1.ConfigMapList{})
	if err != nil {
		t.Fatal(err)
	}
	defer fast.Stop()
	var fastSeen int
	for i := range cluster.WatchBuffer + 5 {
		if err := w.c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: fmt.Sprintf("cm-%04d", i)}}); err != nil {
			t.Fatal(err)
		}
		got, closed := drain(fast.ResultChan())
		if closed {
			t.Fatalf("the fast watch closed after %d events", fastSeen)
		}
		fastSeen += len(got)
	}
	got, closed := drain(slow.ResultChan())
	if !closed || len(got) != cluster.WatchBuffer {
		t.Errorf("the slow watch: %d events, closed %v; want %d, closed", len(got), closed, cluster.WatchBuffer)
	}
	if fastSeen != cluster.WatchBuffer+5 {
		t.Errorf("the fast watch saw %d events, want %d", fastSeen, cluster.WatchBuffer+5)
	}
	slow.Stop() // after the close: nothing happens
}

// TestWatchStop: Stop closes the channel and ends the events, twice is
// harmless, and the cancellation of the watch's context stops it too.
func TestWatchStop(t *testing.T) {
	w := newWatchWorld(t)
	wt, err := w.c.Watch(t.Context(), &corev1.NodeList{})
	if err != nil {
		t.Fatal(err)
	}
	wt.Stop()
	wt.Stop()
	if _, err := w.cl.LaunchNode(t.Context(), cluster.NodeSpec{}); err != nil {
		t.Fatal(err)
	}
	if got, closed := drain(wt.ResultChan()); len(got) != 0 || !closed {
		t.Errorf("after Stop: %v, closed %v", got, closed)
	}

	ctx, cancel := context.WithCancel(t.Context())
	wc, err := w.c.Watch(ctx, &corev1.NodeList{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-wc.ResultChan():
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("the cancelled watch was not closed")
		}
	}
}

// TestWatchDeterminism: the same writes give the same events, objects
// included (resource versions, timestamps on the virtual clock).
func TestWatchDeterminism(t *testing.T) {
	run := func() []watch.Event {
		ctx := t.Context()
		w := newWatchWorld(t)
		wt, err := w.c.Watch(ctx, &corev1.PodList{})
		if err != nil {
			t.Fatal(err)
		}
		defer wt.Stop()
		for range 3 {
			if _, err := w.cl.LaunchNode(ctx, cluster.NodeSpec{}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.cl.EnsureNamespace(ctx, "shop", nil); err != nil {
			t.Fatal(err)
		}
		if err := w.cl.AddWorkload(ctx, cluster.Workload{Namespace: "shop", Name: "web", Replicas: 4, PreStop: 5 * time.Second}); err != nil {
			t.Fatal(err)
		}
		var evs []watch.Event
		read := func() {
			for {
				select {
				case ev := <-wt.ResultChan():
					evs = append(evs, ev)
				default:
					return
				}
			}
		}
		for range 20 {
			w.clock.Advance(700 * time.Millisecond)
			read()
		}
		if err := w.cl.TerminateInstance(ctx, w.cl.Nodes()[0].Name); err != nil {
			t.Fatal(err)
		}
		// A pod deleted through the client stays, Terminating, until its
		// kubelet has stopped it: its deletionTimestamp is in the events.
		p := w.cl.Pods()[0]
		if err := w.c.Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name}}); err != nil {
			t.Fatal(err)
		}
		for range 60 {
			w.clock.Advance(time.Second)
			read()
		}
		return evs
	}
	a, b := run(), run()
	if len(a) < 20 {
		t.Fatalf("%d events: the run did little", len(a))
	}
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("same writes, different events (-first +second):\n%s", d)
	}
}
