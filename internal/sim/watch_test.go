package sim_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/cluster"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
)

// seen is one watch event as a system under test reads it: when it read it
// (after which wait), and what it says.
type seen struct {
	Read     time.Duration // since the scenario's start
	Type     watch.EventType
	Kind     string
	Name     string
	RV       string
	Deleting bool
}

// follow runs the world as a system under test that watches would: it
// waits step on the clock, then drains every watch without blocking, until
// d has passed.
func follow(t *testing.T, w *sim.World, d, step time.Duration, watches map[string]watch.Interface, kinds []string) []seen {
	t.Helper()
	var out []seen
	for w.Elapsed() < d {
		w.Clock().Sleep(step)
		for _, kind := range kinds {
			for done := false; !done; {
				select {
				case ev, ok := <-watches[kind].ResultChan():
					if !ok {
						t.Fatalf("the %s watch closed", kind)
					}
					o := ev.Object.(client.Object)
					out = append(out, seen{Read: w.Elapsed(), Type: ev.Type, Kind: kind, Name: o.GetName(), RV: o.GetResourceVersion(), Deleting: o.GetDeletionTimestamp() != nil})
				default:
					done = true
				}
			}
		}
	}
	return out
}

// nodeClaimList is the unstructured list of karpenter.sh/v1 NodeClaims.
func nodeClaimList() *unstructured.UnstructuredList {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(karpenter.NodeClaimGVK.GroupVersion().WithKind("NodeClaimList"))
	return l
}

// TestWorldWatch: World.Client() watches Nodes and NodeClaims. A system
// under test that drains its channels after each wait reads every change
// in the first read after it happened, never before: the NodeClaim's
// deletion when the drain starts, the Node's removal at the instance's
// termination; and two runs of one Config give the same events.
func TestWorldWatch(t *testing.T) {
	run := func() ([]seen, []karpenter.Disruption, time.Time) {
		w := newWorld(t, sim.Config{Seed: 4, Nodes: 4, Pods: 8, ChurnInterval: 2 * time.Minute}, nil)
		watches := map[string]watch.Interface{}
		var err error
		if watches["Node"], err = w.Client().Watch(t.Context(), &corev1.NodeList{}); err != nil {
			t.Fatal(err)
		}
		if watches["NodeClaim"], err = w.Client().Watch(t.Context(), nodeClaimList()); err != nil {
			t.Fatal(err)
		}
		for _, wt := range watches {
			defer wt.Stop()
		}
		evs := follow(t, w, 7*time.Minute, time.Second, watches, []string{"Node", "NodeClaim"})
		return evs, w.Karpenter().Disruptions(), w.Start()
	}
	evs, ds, start := run()
	added := map[string]int{}
	for _, e := range evs {
		if e.Read == time.Second && e.Type == watch.Added {
			added[e.Kind]++
		}
	}
	if added["Node"] != 4 || added["NodeClaim"] != 4 {
		t.Errorf("initial events %v: want the 4 nodes and their NodeClaims", added)
	}
	if len(ds) < 2 {
		t.Fatalf("%d disruptions: the churn did little", len(ds))
	}
	firstRead := func(kind, name string, match func(seen) bool) (time.Duration, bool) {
		for _, e := range evs {
			if e.Kind == kind && e.Name == name && match(e) {
				return e.Read, true
			}
		}
		return 0, false
	}
	for _, d := range ds {
		if d.TerminatedAt.IsZero() {
			continue
		}
		// The first read at or after the instant: the waits are 1 s long.
		want := func(at time.Time) time.Duration {
			since := at.Sub(start)
			return (since + time.Second - 1).Truncate(time.Second)
		}
		if got, ok := firstRead("NodeClaim", d.NodeClaim, func(e seen) bool { return e.Deleting }); !ok || got != want(d.DrainStartedAt) {
			t.Errorf("nodeclaim %s: its deletion read at %v (%v), want %v (the drain began at %v)", d.NodeClaim, got, ok, want(d.DrainStartedAt), d.DrainStartedAt.Sub(start))
		}
		if got, ok := firstRead("Node", d.Node, func(e seen) bool { return e.Type == watch.Deleted }); !ok || got != want(d.TerminatedAt) {
			t.Errorf("node %s: its removal read at %v (%v), want %v (terminated at %v)", d.Node, got, ok, want(d.TerminatedAt), d.TerminatedAt.Sub(start))
		}
		if got, ok := firstRead("Node", d.Node, func(e seen) bool { return e.Deleting }); !ok || got != want(d.TerminatedAt) {
			t.Errorf("node %s: its deletionTimestamp read at %v (%v), want with its removal at %v", d.Node, got, ok, want(d.TerminatedAt))
		}
	}
	again, _, _ := run()
	if d := cmp.Diff(evs, again); d != "" {
		t.Errorf("same Config, different watch events (-first +second):\n%s", d)
	}
}

// TestWorldWatchKinds: a kind the cluster does not serve is a typed error.
func TestWorldWatchKinds(t *testing.T) {
	w := newWorld(t, sim.Config{Seed: 1, Nodes: 2, Pods: 2}, nil)
	if _, err := w.Client().Watch(t.Context(), &appsv1.DeploymentList{}); !cluster.IsKindNotServed(err) {
		t.Errorf("watch Deployments: %v, want a kind not served", err)
	}
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(karpenter.NodeClaimGVK.GroupVersion().WithKind("NodeOverlayList"))
	if _, err := w.Client().Watch(t.Context(), l); !cluster.IsKindNotServed(err) {
		t.Errorf("watch NodeOverlays: %v, want a kind not served", err)
	}
	pools := &unstructured.UnstructuredList{}
	pools.SetGroupVersionKind(karpenter.NodePoolGVK.GroupVersion().WithKind("NodePoolList"))
	wt, err := w.Client().Watch(t.Context(), pools)
	if err != nil {
		t.Fatalf("watch NodePools: %v", err)
	}
	wt.Stop()
}

// TestWatchLeavesTheWorldAlone: watching reads, it does not write; the
// event log and the traffic of a world watched on every kind the test
// follows are those of the same world unwatched.
func TestWatchLeavesTheWorldAlone(t *testing.T) {
	run := func(watched bool) ([]string, string) {
		w := newWorld(t, sim.Config{Seed: 9, Nodes: 5, Pods: 10, ChurnInterval: 90 * time.Second}, nil)
		if watched {
			for _, l := range []client.ObjectList{&corev1.NodeList{}, &corev1.PodList{}, nodeClaimList()} {
				wt, err := w.Client().Watch(t.Context(), l)
				if err != nil {
					t.Fatal(err)
				}
				defer wt.Stop()
			}
		}
		for range 8 * 60 {
			w.Clock().Sleep(time.Second)
		}
		return w.EventLog(), fmt.Sprint(w.Traffic())
	}
	log, tr := run(false)
	wlog, wtr := run(true)
	if d := cmp.Diff(log, wlog); d != "" {
		t.Errorf("event log (-unwatched +watched):\n%s", d)
	}
	if tr != wtr {
		t.Errorf("traffic unwatched %s, watched %s", tr, wtr)
	}
}
