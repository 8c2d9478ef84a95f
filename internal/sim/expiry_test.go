package sim_test

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
)

// TestExpiryChurn: Config.ChurnShape expiry expires one node every
// ChurnInterval from the first one, oldest first, each where its
// NodeClaim's creationTimestamp plus spec.expireAfter says, whatever the
// budgets and the pods' do-not-disrupt (expiry is forceful; the drain
// then waits for the do-not-disrupt pods, which the terminator never
// evicts). A replacement is launched by the provisioner after its
// batching window, and expires expireAfter after that.
func TestExpiryChurn(t *testing.T) {
	const interval = 90 * time.Second
	w := newWorld(t, sim.Config{Seed: 5, Nodes: 4, Pods: 8, ChurnInterval: interval, ChurnShape: karpenter.ShapeExpiry,
		NodePool: karpenter.NodePool{Budgets: []karpenter.Budget{{Nodes: "0"}}}, Workload: sim.Workload{DoNotDisrupt: true}}, nil)
	var initial []string
	expiry := map[string]time.Time{}
	for _, n := range w.Cluster().Nodes() {
		initial = append(initial, n.Name)
		claim, _ := w.Karpenter().NodeClaim(n.Name)
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(karpenter.NodeClaimGVK)
		if err := w.Client().Get(t.Context(), client.ObjectKey{Name: claim}, u); err != nil {
			t.Fatal(err)
		}
		exp, _, _ := unstructured.NestedString(u.Object, "spec", "expireAfter")
		d, err := time.ParseDuration(exp)
		if err != nil || d != 4*interval {
			t.Fatalf("nodeclaim %s: expireAfter %q, want %v", claim, exp, 4*interval)
		}
		expiry[n.Name] = u.GetCreationTimestamp().Add(d)
	}
	first := w.Start().Add(interval).Truncate(time.Second)
	if first.Before(w.Start().Add(interval)) {
		first = first.Add(time.Second)
	}
	for i, n := range initial {
		if want := first.Add(time.Duration(i) * interval); !expiry[n].Equal(want) {
			t.Errorf("node %d %s expires at %v, want %v", i, n, expiry[n].Sub(w.Start()), want.Sub(w.Start()))
		}
	}
	w.Run(7*interval + karpenter.ProvisionerBatchIdle)
	ds := w.Karpenter().Disruptions()
	if len(ds) != 7 {
		t.Fatalf("%d disruptions in 7 intervals, want 7", len(ds))
	}
	for i, d := range ds {
		want := first.Add(time.Duration(i) * interval)
		if i >= 4 {
			want = want.Add(karpenter.ProvisionerBatchIdle)
		}
		if d.Reason != karpenter.ReasonExpired || !d.StartedAt.Equal(want) || (i < 4 && d.Node != initial[i]) {
			t.Errorf("disruption %d: %s %s at %v, want Expired at %v", i, d.Node, d.Reason, d.StartedAt.Sub(w.Start()), want.Sub(w.Start()))
		}
	}
	if ds[4].Node != ds[0].Replacement {
		t.Errorf("the fifth expiry is %s, want the first replacement %s", ds[4].Node, ds[0].Replacement)
	}
}

// TestDeleteNodeClaimThroughClient: the system under test deletes the
// NodeClaim of a node annotated do-not-disrupt, whose pods are too,
// through World.Client(); Karpenter taints the node in the same instant,
// drains it, terminates it, and the NodeClaim and the Node go, as
// Karpenter's termination controllers finalize a deletion. The
// do-not-disrupt pods are never evicted: the NodePool's
// terminationGracePeriod has them deleted before its deadline.
func TestDeleteNodeClaimThroughClient(t *testing.T) {
	w := newWorld(t, sim.Config{Seed: 8, Nodes: 3, Pods: 6, Workload: sim.Workload{DoNotDisrupt: true},
		NodePool: karpenter.NodePool{TerminationGracePeriod: 2 * time.Minute}}, nil)
	ctx := t.Context()
	node := w.Cluster().Nodes()[0].Name
	n := &corev1.Node{}
	if err := w.Client().Get(ctx, client.ObjectKey{Name: node}, n); err != nil {
		t.Fatal(err)
	}
	n.Annotations = map[string]string{karpenter.AnnotationDoNotDisrupt: "true"}
	if err := w.Client().Update(ctx, n); err != nil {
		t.Fatal(err)
	}
	claim, _ := w.Karpenter().NodeClaim(node)
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(karpenter.NodeClaimGVK)
	u.SetName(claim)
	if err := w.Client().Delete(ctx, u); err != nil {
		t.Fatal(err)
	}
	deleted := w.Clock().Now()
	w.Run(0)
	if v, _ := w.Cluster().Node(node); !slices.ContainsFunc(v.Taints, func(tn corev1.Taint) bool { return tn.Key == karpenter.TaintDisrupted }) {
		t.Errorf("taints %v at the deletion's instant, want %s", v.Taints, karpenter.TaintDisrupted)
	}
	w.Run(5 * time.Minute)
	ds := w.Karpenter().Disruptions()
	if len(ds) != 1 || ds[0].Node != node || ds[0].Reason != karpenter.ReasonDeleted || !ds[0].StartedAt.Equal(deleted) || ds[0].TerminatedAt.IsZero() {
		t.Fatalf("disruptions %+v: want %s Deleted at %v, terminated", ds, node, deleted)
	}
	if err := w.Client().Get(ctx, client.ObjectKey{Name: claim}, u); !apierrors.IsNotFound(err) {
		t.Errorf("nodeclaim after the termination: %v, want it gone", err)
	}
	if err := w.Client().Get(ctx, client.ObjectKey{Name: node}, &corev1.Node{}); !apierrors.IsNotFound(err) {
		t.Errorf("node after the termination: %v, want it gone", err)
	}
}
