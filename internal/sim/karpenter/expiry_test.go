package karpenter_test

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/sim/cluster"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
)

// nodeClaim reads the published NodeClaim of a node: its name, and the
// expiry a reader computes from it as Karpenter's expiration controller
// does (creationTimestamp plus spec.expireAfter).
func (f *fixture) nodeClaim(t *testing.T, node string) (*unstructured.Unstructured, time.Time) {
	t.Helper()
	name, ok := f.k.NodeClaim(node)
	if !ok {
		t.Fatalf("node %s has no NodeClaim", node)
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(karpenter.NodeClaimGVK)
	if err := f.cl.Client().Get(t.Context(), client.ObjectKey{Name: name}, u); err != nil {
		t.Fatalf("nodeclaim %s: %v", name, err)
	}
	exp, _, _ := unstructured.NestedString(u.Object, "spec", "expireAfter")
	d, err := time.ParseDuration(exp)
	if err != nil {
		t.Fatalf("nodeclaim %s: expireAfter %q: %v", name, exp, err)
	}
	return u, u.GetCreationTimestamp().Add(d)
}

// TestExpiryShape: the expiry shape expires one node every interval,
// oldest first, where a reader of the NodeClaims expects it. What it
// encodes of Karpenter v1 (nodeclaim/expiration/controller.go, and
// DOMAIN.md's observation that a held node expired on schedule):
//
//   - the expiry is the NodeClaim's creationTimestamp plus its
//     spec.expireAfter, which comes from the NodePool's template;
//   - expiry is forceful: a budget of 0 and do-not-disrupt on every pod do
//     not hold it (the controller deletes the NodeClaim without looking);
//   - no replacement is waited for: the drain starts at the expiry (the
//     new node the simulator launches stands for the provisioner's
//     reaction to the deleting node's pods);
//   - a replacement expires expireAfter after its own creation.
func TestExpiryShape(t *testing.T) {
	const interval = 2 * time.Minute
	f := newFixture(t, setup{nodes: 5, replicas: 5, publish: true, doNotDisrupt: true,
		pool: karpenter.NodePool{Budgets: []karpenter.Budget{{Nodes: "0"}}}})
	// A start off the second: the first expiry is rounded up to it, as
	// creationTimestamps are whole seconds.
	f.clock.Advance(17*time.Minute + 300*time.Millisecond)
	var initial []string
	for _, n := range f.cl.Nodes() {
		initial = append(initial, n.Name)
	}
	if err := f.k.StartChurn(karpenter.Churn{Shape: karpenter.ShapeExpiry, Interval: interval}); err != nil {
		t.Fatal(err)
	}
	first := f.clock.Now().Add(interval).Truncate(time.Second).Add(time.Second)
	want := map[string]time.Time{}
	for i, n := range initial {
		want[n] = first.Add(time.Duration(i) * interval)
		u, read := f.nodeClaim(t, n)
		at, ok := f.k.ExpiresAt(n)
		if !ok || !at.Equal(want[n]) || !read.Equal(want[n]) {
			t.Errorf("node %d %s: expires at %v (simulator) and %v (creationTimestamp %v + expireAfter), want %v",
				i, n, at, read, u.GetCreationTimestamp(), want[n])
		}
		if exp, _, _ := unstructured.NestedString(u.Object, "spec", "expireAfter"); exp != "10m" {
			t.Errorf("node %s: expireAfter %q, want 10m (5 nodes x 2m)", n, exp)
		}
	}
	pool := &unstructured.Unstructured{}
	pool.SetGroupVersionKind(karpenter.NodePoolGVK)
	if err := f.cl.Client().Get(t.Context(), client.ObjectKey{Name: "default"}, pool); err != nil {
		t.Fatal(err)
	}
	if exp, _, _ := unstructured.NestedString(pool.Object, "spec", "template", "spec", "expireAfter"); exp != "10m" {
		t.Errorf("the NodePool's expireAfter %q, want 10m", exp)
	}

	f.clock.RunUntil(want[initial[4]].Add(time.Second))
	ds := f.k.Disruptions()
	if len(ds) != 5 {
		t.Fatalf("%d disruptions by the fifth expiry, want 5: %+v", len(ds), ds)
	}
	for i, d := range ds {
		if d.Node != initial[i] || d.Reason != karpenter.ReasonExpired || !d.QueuedAt.Equal(want[d.Node]) ||
			!d.StartedAt.Equal(d.QueuedAt) || !d.DrainStartedAt.Equal(d.StartedAt) {
			t.Errorf("disruption %d: %s %s queued %v started %v drain %v; want %s Expired at %v, started and draining at once",
				i, d.Node, d.Reason, d.QueuedAt, d.StartedAt, d.DrainStartedAt, initial[i], want[initial[i]])
		}
	}
	// Expiry launches nothing first: the provisioner launches a node for
	// the deleting node's pods after its batching window.
	repl := ds[0].Replacement
	launched := want[initial[0]].Add(karpenter.ProvisionerBatchIdle)
	if v, _ := f.cl.Node(repl); !v.LaunchedAt.Equal(launched) {
		t.Errorf("replacement %s launched at %v, want the expiry %v + the batching window", repl, v.LaunchedAt, want[initial[0]])
	}
	_, read := f.nodeClaim(t, repl)
	if at, _ := f.k.ExpiresAt(repl); !at.Equal(launched.Add(10*time.Minute)) || !read.Equal(at) {
		t.Errorf("replacement %s expires at %v (simulator), %v (its NodeClaim); want its launch %v + 10m", repl, at, read, launched)
	}
	f.clock.RunUntil(launched.Add(10*time.Minute + time.Second))
	ds = f.k.Disruptions()
	if len(ds) != 6 || ds[5].Node != repl || ds[5].Reason != karpenter.ReasonExpired {
		t.Errorf("disruptions %d, the sixth %+v; want the first replacement %s expired", len(ds), ds[len(ds)-1], repl)
	}
}

// TestExpiryTerminationGracePeriod: the NodePool's terminationGracePeriod
// is published on the NodeClaims (spec.terminationGracePeriod) and bounds
// the drain of an expired node whose PodDisruptionBudget allows no
// eviction: each pod is deleted (gracefully) at the node's termination
// time minus its own terminationGracePeriodSeconds, so that it is gone by
// then, and the instance is terminated once they are
// (node/termination/terminator/eviction.go needsForceDelete: the node's
// termination time is the NodeClaim's deletion plus its
// terminationGracePeriod).
func TestExpiryTerminationGracePeriod(t *testing.T) {
	f := newFixture(t, setup{nodes: 3, replicas: 3, publish: true,
		pdb:  &cluster.PDBSpec{MaxUnavailable: ptr.To(intstr.FromInt32(0))},
		pool: karpenter.NodePool{TerminationGracePeriod: 45 * time.Second}})
	if err := f.k.StartChurn(karpenter.Churn{Shape: karpenter.ShapeExpiry, Interval: 10 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	oldest := f.cl.Nodes()[0].Name
	u, expiry := f.nodeClaim(t, oldest)
	if g, _, _ := unstructured.NestedString(u.Object, "spec", "terminationGracePeriod"); g != "45s" {
		t.Errorf("spec.terminationGracePeriod %q, want 45s", g)
	}
	f.clock.RunUntil(expiry.Add(2 * time.Minute))
	ds := f.k.Disruptions()
	if len(ds) != 1 {
		t.Fatalf("%d disruptions, want the oldest node's expiry", len(ds))
	}
	d := ds[0]
	// The pods' grace period is 30 s, their preStop 15 s: deleted 15 s
	// into the drain, gone 30 s into it, before the 45 s deadline.
	if d.Reason != karpenter.ReasonExpired || d.BlockedEvictions == 0 || d.ForceDeleted == 0 || !d.TerminatedAt.Equal(d.DrainStartedAt.Add(30*time.Second)) {
		t.Errorf("%+v: want Expired, evictions refused, pods deleted 15s into the drain and the instance terminated 30s into it", d)
	}
}

// deleteObject deletes an object through the cluster's client as the
// system under test would (no origin on the context).
func (f *fixture) deleteObject(t *testing.T, obj client.Object) {
	t.Helper()
	if err := f.cl.Client().Delete(t.Context(), obj); err != nil {
		t.Fatalf("delete %s: %v", obj.GetName(), err)
	}
}

// TestDeletionByOthers: a NodeClaim or a Node of Karpenter's deleted by
// someone else (the system under test) is terminated at once, reason
// Deleted, as Karpenter v1's termination controllers finalize it
// (nodeclaim/lifecycle finalize, node/termination finalize): tainted
// karpenter.sh/disrupted in the same instant, drained through the
// Eviction API, the instance terminated, the finalizers removed and both
// objects gone. Budgets and do-not-disrupt do not hold it: the node here
// is annotated do-not-disrupt and the budget is 0.
func TestDeletionByOthers(t *testing.T) {
	tests := []struct {
		name string
		// before runs before the deletion: a graceful disruption queued or
		// started first.
		before func(t *testing.T, f *fixture, node string)
		del    func(t *testing.T, f *fixture, node, claim string)
	}{
		{name: "NodeClaim deleted", del: func(t *testing.T, f *fixture, _, claim string) {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(karpenter.NodeClaimGVK)
			u.SetName(claim)
			f.deleteObject(t, u)
		}},
		{name: "Node deleted: Karpenter deletes its NodeClaim", del: func(t *testing.T, f *fixture, node, _ string) {
			f.deleteObject(t, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}})
		}},
		{name: "NodeClaim deleted while a drift waits on the held node",
			before: func(t *testing.T, f *fixture, node string) {
				if err := f.k.ReplaceNode(node, karpenter.ReasonDrifted); err != nil {
					t.Fatal(err)
				}
				f.clock.Advance(30 * time.Second)
				if q := f.k.Queued(); q[node] == "" {
					t.Fatalf("queued %v: want the drift blocked", q)
				}
			},
			del: func(t *testing.T, f *fixture, _, claim string) {
				u := &unstructured.Unstructured{}
				u.SetGroupVersionKind(karpenter.NodeClaimGVK)
				u.SetName(claim)
				f.deleteObject(t, u)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, setup{nodes: 3, replicas: 3, publish: true,
				pool: karpenter.NodePool{Budgets: []karpenter.Budget{{Nodes: "0"}}}})
			ctx := t.Context()
			node := f.cl.Nodes()[1].Name
			claim, _ := f.k.NodeClaim(node)
			n := &corev1.Node{}
			if err := f.cl.Client().Get(ctx, client.ObjectKey{Name: node}, n); err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(n.Finalizers, karpenter.FinalizerTermination) {
				t.Fatalf("node finalizers %v: want %s, as Karpenter's registration puts it", n.Finalizers, karpenter.FinalizerTermination)
			}
			n.Annotations = map[string]string{karpenter.AnnotationDoNotDisrupt: "true"}
			if err := f.cl.Client().Update(ctx, n); err != nil {
				t.Fatal(err)
			}
			if tt.before != nil {
				tt.before(t, f, node)
			}
			at := f.clock.Now()
			tt.del(t, f, node, claim)
			f.clock.Advance(0) // the world reacts in the same instant
			v, _ := f.cl.Node(node)
			if !slices.ContainsFunc(v.Taints, func(tn corev1.Taint) bool { return tn.Key == karpenter.TaintDisrupted }) {
				t.Errorf("taints %v right after the deletion: want %s", v.Taints, karpenter.TaintDisrupted)
			}
			f.clock.Advance(5 * time.Minute)
			ds := f.k.Disruptions()
			if len(ds) != 1 {
				t.Fatalf("disruptions %+v: want the deleted node's", ds)
			}
			d := ds[0]
			if d.Node != node || d.Reason != karpenter.ReasonDeleted || !d.StartedAt.Equal(at) || !d.DrainStartedAt.Equal(at) ||
				d.Evictions == 0 || d.TerminatedAt.IsZero() {
				t.Errorf("%+v: want %s Deleted, started and draining at %v, evicted, terminated", d, node, at)
			}
			if v, _ := f.cl.Node(node); v.Phase != "Terminated" {
				t.Errorf("node phase %s, want Terminated", v.Phase)
			}
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(karpenter.NodeClaimGVK)
			if err := f.cl.Client().Get(ctx, client.ObjectKey{Name: claim}, u); !apierrors.IsNotFound(err) {
				t.Errorf("nodeclaim %s after the termination: %v, want it gone (finalizer removed)", claim, err)
			}
			if err := f.cl.Client().Get(ctx, client.ObjectKey{Name: node}, &corev1.Node{}); !apierrors.IsNotFound(err) {
				t.Errorf("node %s after the termination: %v, want it gone (finalizer removed)", node, err)
			}
			if len(f.cl.Pods()) != 3 {
				t.Errorf("%d pods, want the 3 replicas rescheduled", len(f.cl.Pods()))
			}
		})
	}
}

// TestDeletionOfUnregisteredNodeClaim: a NodeClaim deleted before its node
// registered has nothing to drain: its instance is terminated at once (no
// Node exists to delete: nodeclaim/lifecycle deletes Nodes only once
// registered), and the graceful disruption that launched it as its
// replacement launches another.
func TestDeletionOfUnregisteredNodeClaim(t *testing.T) {
	f := newFixture(t, setup{nodes: 2, replicas: 2, publish: true})
	old := f.cl.Nodes()[0].Name
	if err := f.k.ReplaceNode(old, karpenter.ReasonDrifted); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(karpenter.DefaultPollInterval)
	ds := f.k.Disruptions()
	if len(ds) != 1 {
		t.Fatalf("disruptions %+v", ds)
	}
	repl := ds[0].Replacement
	claim, _ := f.k.NodeClaim(repl)
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(karpenter.NodeClaimGVK)
	u.SetName(claim)
	f.deleteObject(t, u)
	f.clock.Advance(0)
	if v, _ := f.cl.Node(repl); v.Phase != "Terminated" {
		t.Errorf("the deleted replacement %s: %s, want Terminated at once", repl, v.Phase)
	}
	f.clock.Advance(5 * time.Minute)
	ds = f.k.Disruptions()
	var drift *karpenter.Disruption
	for i := range ds {
		if ds[i].Node == old {
			drift = &ds[i]
		}
	}
	if drift == nil || drift.Replacement == repl || drift.TerminatedAt.IsZero() {
		t.Fatalf("the drift %+v: want it finished with another replacement", drift)
	}
	if v, _ := f.cl.Node(drift.Replacement); v.Phase != "Ready" {
		t.Errorf("the second replacement %s: %s, want Ready", drift.Replacement, v.Phase)
	}
}
