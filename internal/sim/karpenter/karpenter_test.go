package karpenter_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/sim/cluster"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
	"github.com/qstools/tgmigrate/internal/vclock"
)

type fixture struct {
	clock  *vclock.Clock
	cl     *cluster.Cluster
	k      *karpenter.Karpenter
	events []string
}

type setup struct {
	nodes, replicas int
	pool            karpenter.NodePool
	pdb             *cluster.PDBSpec
	doNotDisrupt    bool
	publish         bool
	maxPods         int // the cluster's MaxPodsPerNode; zero: its default
}

func newFixture(t *testing.T, s setup) *fixture {
	t.Helper()
	fc, err := cluster.NewFakeClient(cluster.FakeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{clock: vclock.New(time.Time{})}
	log := func(src string) func(string, string, string) {
		return func(r, o, m string) { f.events = append(f.events, src+" "+r+" "+o+" "+m) }
	}
	if f.cl, err = cluster.New(cluster.Options{Client: fc, Clock: f.clock, Seed: 1, MaxPodsPerNode: s.maxPods, OnEvent: log("cluster")}); err != nil {
		t.Fatal(err)
	}
	if f.k, err = karpenter.New(karpenter.Options{Cluster: f.cl, Seed: 1, NodePool: s.pool, PublishObjects: s.publish, OnEvent: log("karpenter")}); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	f.start(t, s.nodes)
	err = f.cl.AddWorkload(ctx, cluster.Workload{Namespace: "shop", Name: "web", Replicas: s.replicas, PreStop: 15 * time.Second,
		PDB: s.pdb, DoNotDisrupt: s.doNotDisrupt, AlreadyRunning: true})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// start starts Karpenter, provisions nodes and creates namespace shop.
func (f *fixture) start(t *testing.T, nodes int) {
	t.Helper()
	ctx := t.Context()
	if err := f.k.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := f.k.Provision(ctx, nodes); err != nil {
		t.Fatal(err)
	}
	if err := f.cl.EnsureNamespace(ctx, "shop", nil); err != nil {
		t.Fatal(err)
	}
}

// maxConcurrent returns the largest number of disruptions in flight at
// once (started, not terminated).
func maxConcurrent(ds []karpenter.Disruption) int {
	best := 0
	for _, d := range ds {
		n := 0
		for _, o := range ds {
			if !o.StartedAt.After(d.StartedAt) && (o.TerminatedAt.IsZero() || o.TerminatedAt.After(d.StartedAt)) {
				n++
			}
		}
		best = max(best, n)
	}
	return best
}

func TestBudgetsAndReasons(t *testing.T) {
	tests := []struct {
		name           string
		pool           karpenter.NodePool
		reason         karpenter.Reason
		wantConcurrent int // exact maximum of disruptions in flight
	}{
		{"budget 1: one at a time", karpenter.NodePool{Budgets: []karpenter.Budget{{Nodes: "1"}}}, karpenter.ReasonDrifted, 1},
		// 10% of 10 is 1, but once a replacement is Ready the pool has 11
		// nodes and 10% of 11 rounds up to 2, as in Karpenter.
		{"default budget 10%, rounded up", karpenter.NodePool{}, karpenter.ReasonDrifted, 2},
		// A node with pods waits while a replacement is not initialized
		// (helpers.go SimulateScheduling): the next starts when the last
		// replacement is Ready, as its node drains, so never more than 2.
		{"budget 3 nodes: paced to 2 by uninitialized replacements", karpenter.NodePool{Budgets: []karpenter.Budget{{Nodes: "3"}}}, karpenter.ReasonDrifted, 2},
		{"budget 0 for consolidation only: drift still goes", karpenter.NodePool{Budgets: []karpenter.Budget{{Nodes: "0", Reasons: []karpenter.Reason{karpenter.ReasonUnderutilized}}, {Nodes: "2"}}}, karpenter.ReasonDrifted, 2},
		{"expiry is forceful: budgets do not apply", karpenter.NodePool{Budgets: []karpenter.Budget{{Nodes: "1"}}}, karpenter.ReasonExpired, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, setup{nodes: 10, replicas: 10, pool: tt.pool})
			initial := f.cl.Nodes()
			if err := f.k.ReplaceAll(tt.reason, 0); err != nil {
				t.Fatal(err)
			}
			f.clock.Advance(2 * time.Hour)
			ds := f.k.Disruptions()
			if len(ds) != len(initial) {
				t.Fatalf("%d disruptions, want %d", len(ds), len(initial))
			}
			if got := maxConcurrent(ds); got != tt.wantConcurrent {
				t.Errorf("at most %d disruptions at once, want %d", got, tt.wantConcurrent)
			}
			for _, n := range initial {
				if v, _ := f.cl.Node(n.Name); v.Phase != "Terminated" {
					t.Errorf("node %s %s, want terminated", n.Name, v.Phase)
				}
			}
			if n := len(f.cl.Nodes()); n != 10 {
				t.Errorf("%d nodes after replacement, want 10", n)
			}
		})
	}
}

func TestBudgetBlocksAll(t *testing.T) {
	f := newFixture(t, setup{nodes: 3, replicas: 3, pool: karpenter.NodePool{Budgets: []karpenter.Budget{{Nodes: "0"}}}})
	if err := f.k.ReplaceAll(karpenter.ReasonDrifted, 0); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Hour)
	if ds := f.k.Disruptions(); len(ds) != 0 {
		t.Errorf("%d disruptions under a budget of 0", len(ds))
	}
	if q := f.k.Queued(); len(q) != 3 {
		t.Errorf("queued %v, want the 3 nodes waiting", q)
	}
}

func TestDoNotDisrupt(t *testing.T) {
	tests := []struct {
		name     string
		reason   karpenter.Reason
		onNode   bool
		wantDone bool
	}{
		{"pods: drift is blocked", karpenter.ReasonDrifted, false, false},
		{"pods: consolidation is blocked", karpenter.ReasonUnderutilized, false, false},
		// Expiry deletes the NodeClaim whatever the annotation, but the
		// terminator never evicts a do-not-disrupt pod (eviction.go): with
		// no terminationGracePeriod the drain waits for ever.
		{"pods: expiry starts, its drain waits for them", karpenter.ReasonExpired, false, false},
		{"pods: interruption goes on", karpenter.ReasonInterrupted, false, true},
		{"node annotation: drift is blocked", karpenter.ReasonDrifted, true, false},
		{"node annotation: manual deletion goes on", karpenter.ReasonDeleted, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, setup{nodes: 2, replicas: 2, doNotDisrupt: !tt.onNode})
			node := f.cl.Nodes()[0]
			if tt.onNode {
				var n corev1.Node
				c := f.cl.Client()
				if err := c.Get(t.Context(), client.ObjectKey{Name: node.Name}, &n); err != nil {
					t.Fatal(err)
				}
				n.Annotations = map[string]string{karpenter.AnnotationDoNotDisrupt: "true"}
				if err := c.Update(t.Context(), &n); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.k.ReplaceNode(node.Name, tt.reason); err != nil {
				t.Fatal(err)
			}
			f.clock.Advance(30 * time.Minute)
			v, _ := f.cl.Node(node.Name)
			if done := v.Phase == "Terminated"; done != tt.wantDone {
				t.Errorf("node %s: terminated %v, want %v; queued %v", node.Name, done, tt.wantDone, f.k.Queued())
			}
		})
	}
}

func TestTerminationSequence(t *testing.T) {
	f := newFixture(t, setup{nodes: 3, replicas: 6, pdb: &cluster.PDBSpec{MaxUnavailable: ptr.To(intstr.FromInt32(1))}, publish: true})
	node := f.cl.Nodes()[0]
	podsBefore := f.cl.PodsOnNode(node.Name)
	if err := f.k.ReplaceNode(node.Name, karpenter.ReasonDrifted); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(10 * time.Minute)
	ds := f.k.Disruptions()
	if len(ds) != 1 {
		t.Fatalf("disruptions %+v", ds)
	}
	d := ds[0]
	repl, ok := f.cl.Node(d.Replacement)
	if !ok || repl.Phase != "Ready" || repl.InternalIP == node.InternalIP {
		t.Fatalf("replacement %+v", repl)
	}
	// Graceful: the replacement was Ready before the drain began.
	if repl.ReadyAt.After(d.DrainStartedAt) || !d.StartedAt.Before(d.DrainStartedAt) || !d.DrainStartedAt.Before(d.TerminatedAt) {
		t.Errorf("started %v, replacement ready %v, drain %v, terminated %v: want start < ready <= drain < terminated", d.StartedAt, repl.ReadyAt, d.DrainStartedAt, d.TerminatedAt)
	}
	if d.BlockedEvictions == 0 {
		t.Errorf("no eviction was refused by the PDB (maxUnavailable 1, %d pods on the node)", len(podsBefore))
	}
	// The documented order: taint, exclude label, evictions, termination.
	want := []string{
		"cluster NodeTainted node/" + node.Name,
		"cluster NodeLabeled node/" + node.Name,
		"cluster PodTerminating pod/shop/" + podsBefore[0].Name,
		"cluster InstanceTerminated node/" + node.Name,
	}
	idx := 0
	for _, e := range f.events {
		if idx < len(want) && len(e) >= len(want[idx]) && e[:len(want[idx])] == want[idx] {
			idx++
		}
	}
	if idx != len(want) {
		t.Errorf("event order: matched %d of %v in\n%v", idx, want, f.events)
	}
	for _, p := range f.cl.Pods() {
		if p.Node == node.Name {
			t.Errorf("pod %s still on the terminated node", p.Name)
		}
		for _, old := range podsBefore {
			if p.IP == old.IP {
				t.Errorf("address %s reused", p.IP)
			}
		}
	}
	// NodeClaims: the old one is gone, the replacement's names its node.
	var l unstructured.UnstructuredList
	l.SetGroupVersionKind(karpenter.NodeClaimGVK.GroupVersion().WithKind("NodeClaimList"))
	if err := f.cl.Client().List(t.Context(), &l); err != nil {
		t.Fatal(err)
	}
	var nodes []string
	for _, u := range l.Items {
		n, _, _ := unstructured.NestedString(u.Object, "status", "nodeName")
		nodes = append(nodes, n)
		if u.GetLabels()[karpenter.LabelNodePool] != "default" {
			t.Errorf("nodeclaim %s labels %v", u.GetName(), u.GetLabels())
		}
	}
	if len(nodes) != 3 || slices.Contains(nodes, node.Name) || !slices.Contains(nodes, d.Replacement) {
		t.Errorf("nodeclaims name nodes %v; want 3, with %s and without %s", nodes, d.Replacement, node.Name)
	}
}

func TestDrainCutOff(t *testing.T) {
	tests := []struct {
		name   string
		pool   karpenter.NodePool
		reason karpenter.Reason
		within time.Duration
		// cutOff: the pods are killed at the deadline (Disruption.CutOff),
		// rather than deleted gracefully ahead of it.
		cutOff bool
	}{
		{"terminationGracePeriod caps a drain a PDB blocks", karpenter.NodePool{TerminationGracePeriod: 5 * time.Minute}, karpenter.ReasonExpired, 5*time.Minute + 10*time.Second, false},
		{"a spot interruption reclaims the instance after 2 minutes", karpenter.NodePool{}, karpenter.ReasonInterrupted, karpenter.SpotInterruptionNotice + 10*time.Second, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// minAvailable = every replica: no eviction is ever allowed.
			f := newFixture(t, setup{nodes: 2, replicas: 4, pool: tt.pool, pdb: &cluster.PDBSpec{MinAvailable: ptr.To(intstr.FromInt32(4))}})
			node := f.cl.Nodes()[0]
			on := map[string]bool{}
			for _, p := range f.cl.PodsOnNode(node.Name) {
				on[p.Namespace+"/"+p.Name] = true
			}
			if err := f.k.ReplaceNode(node.Name, tt.reason); err != nil {
				t.Fatal(err)
			}
			f.clock.Advance(time.Hour)
			ds := f.k.Disruptions()
			if len(ds) != 1 {
				t.Fatalf("disruptions %+v", ds)
			}
			d := ds[0]
			if d.ForceDeleted == 0 || d.TerminatedAt.IsZero() || d.TerminatedAt.Sub(d.DrainStartedAt) > tt.within {
				t.Errorf("drain %v -> %v, %d force-deleted: want cut off within %v", d.DrainStartedAt, d.TerminatedAt, d.ForceDeleted, tt.within)
			}
			// The pods the deadline killed are named, each one of the
			// node's: every pod there, as no eviction was allowed; none
			// when their grace deletion ran ahead of the deadline.
			want := 0
			if tt.cutOff {
				want = len(on)
			}
			if len(d.CutOff) != want || len(d.CutOff) > d.ForceDeleted {
				t.Errorf("cut off %v (%d force-deleted): want %d of the node's %d pods", d.CutOff, d.ForceDeleted, want, len(on))
			}
			for _, p := range d.CutOff {
				if !on[p] {
					t.Errorf("cut off %s, not a pod of %s", p, node.Name)
				}
			}
		})
	}
}

func TestInvalidConfig(t *testing.T) {
	f := newFixture(t, setup{nodes: 1, replicas: 1})
	tests := []struct {
		name string
		err  error
	}{
		{"bad budget", func() error {
			_, err := karpenter.New(karpenter.Options{Cluster: f.cl, NodePool: karpenter.NodePool{Budgets: []karpenter.Budget{{Nodes: "ten"}}}})
			return err
		}()},
		{"budget on a forceful reason", func() error {
			_, err := karpenter.New(karpenter.Options{Cluster: f.cl, NodePool: karpenter.NodePool{Budgets: []karpenter.Budget{{Nodes: "1", Reasons: []karpenter.Reason{karpenter.ReasonExpired}}}}})
			return err
		}()},
		{"no cluster", func() error { _, err := karpenter.New(karpenter.Options{}); return err }()},
		{"unknown reason", f.k.ReplaceNode(f.cl.Nodes()[0].Name, "Bored")},
		{"churn without interval", f.k.StartChurn(karpenter.Churn{})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !errors.Is(tt.err, karpenter.ErrInvalidConfig) {
				t.Errorf("err = %v, want invalid configuration", tt.err)
			}
		})
	}
	if err := f.k.ReplaceNode("nope", karpenter.ReasonDrifted); !errors.Is(err, karpenter.ErrNotFound) {
		t.Errorf("unknown node: %v", err)
	}
	if q := f.k.Queued(); len(q) != 0 {
		t.Errorf("invalid requests queued %v", q)
	}
}

// TestDriftedCondition: a drifted node's NodeClaim says so while the
// disruption waits for its budget, as Diagnose would read it.
func TestDriftedCondition(t *testing.T) {
	f := newFixture(t, setup{nodes: 2, replicas: 2, publish: true, pool: karpenter.NodePool{Budgets: []karpenter.Budget{{Nodes: "0"}}}})
	node := f.cl.Nodes()[0].Name
	if err := f.k.ReplaceNode(node, karpenter.ReasonDrifted); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Minute)
	name, _ := f.k.NodeClaim(node)
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(karpenter.NodeClaimGVK)
	if err := f.cl.Client().Get(t.Context(), client.ObjectKey{Name: name}, u); err != nil {
		t.Fatal(err)
	}
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	drifted := false
	for _, c := range conds {
		m := c.(map[string]any)
		if m["type"] == "Drifted" && m["status"] == "True" {
			drifted = true
		}
	}
	if !drifted || len(f.k.Disruptions()) != 0 {
		t.Errorf("conditions %v, disruptions %d: want Drifted while blocked", conds, len(f.k.Disruptions()))
	}
	if exp, _, _ := unstructured.NestedString(u.Object, "spec", "expireAfter"); exp != "720h" {
		t.Errorf("expireAfter %q", exp)
	}
}

// TestNodeClaimCreationTimestamp: a published NodeClaim carries its
// creation on the virtual clock, so that a reader computes the expiry as
// Karpenter does (creationTimestamp plus spec.expireAfter), and the node is
// indeed disrupted for expiry at that instant.
func TestNodeClaimCreationTimestamp(t *testing.T) {
	f := newFixture(t, setup{nodes: 2, replicas: 2, publish: true, pool: karpenter.NodePool{ExpireAfter: 2 * time.Hour}})
	f.clock.Advance(10 * time.Minute)
	old := f.cl.Nodes()[0]
	if err := f.k.ReplaceNode(old.Name, karpenter.ReasonDrifted); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(10 * time.Minute)

	var l unstructured.UnstructuredList
	l.SetGroupVersionKind(karpenter.NodeClaimGVK.GroupVersion().WithKind("NodeClaimList"))
	if err := f.cl.Client().List(t.Context(), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 2 {
		t.Fatalf("%d nodeclaims, want 2", len(l.Items))
	}
	expiry := map[string]time.Time{}
	for _, u := range l.Items {
		node, _, _ := unstructured.NestedString(u.Object, "status", "nodeName")
		n, ok := f.cl.Node(node)
		created := u.GetCreationTimestamp()
		if !ok || created.IsZero() || !created.Time.Equal(n.LaunchedAt) {
			t.Errorf("nodeclaim %s: creationTimestamp %v, want its node's launch %v", u.GetName(), created, n.LaunchedAt)
		}
		exp, _, _ := unstructured.NestedString(u.Object, "spec", "expireAfter")
		d, err := time.ParseDuration(exp)
		if err != nil {
			t.Fatalf("nodeclaim %s: expireAfter %q: %v", u.GetName(), exp, err)
		}
		expiry[node] = created.Add(d)
	}
	// The replacement was launched 10 minutes after the survivor: it
	// expires 10 minutes later.
	survivor := f.cl.Nodes()[0].Name
	f.clock.RunUntil(expiry[survivor])
	var expired []string
	for _, d := range f.k.Disruptions() {
		if d.Reason == karpenter.ReasonExpired {
			expired = append(expired, d.Node)
			if !d.QueuedAt.Equal(expiry[d.Node]) {
				t.Errorf("node %s expired at %v, want %v (creationTimestamp + expireAfter)", d.Node, d.QueuedAt, expiry[d.Node])
			}
		}
	}
	if !slices.Equal(expired, []string{survivor}) {
		t.Errorf("expired nodes %v at %v, want [%s]", expired, f.clock.Now(), survivor)
	}
}
