package karpenter_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/qstools/tgmigrate/internal/karpenterapi"
	"github.com/qstools/tgmigrate/internal/sim/cluster"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
	"github.com/qstools/tgmigrate/internal/vclock"
)

const (
	tierTag    = "tgmigrate.sim/tier"
	driftDelay = 30 * time.Second
)

var (
	publicTerms  = []karpenterapi.SelectorTerm{{Tags: map[string]string{tierTag: "public"}}}
	privateTerms = []karpenterapi.SelectorTerm{{Tags: map[string]string{tierTag: "private"}}}
)

type classSetup struct {
	nodes   int
	budgets []karpenter.Budget
	class   karpenter.NodeClass
	client  client.WithWatch // nil: cluster.NewFakeClient
	noSubs  bool             // Options.Subnets nil
	publish *bool            // nil: true
}

// newClassFixture builds a cluster whose Karpenter follows an
// EC2NodeClass over the cluster's subnets, as the world will wire it.
func newClassFixture(t *testing.T, s classSetup) *fixture {
	t.Helper()
	fc := s.client
	if fc == nil {
		var err error
		if fc, err = cluster.NewFakeClient(cluster.FakeOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	f := &fixture{clock: vclock.New(time.Time{})}
	log := func(src string) func(string, string, string) {
		return func(r, o, m string) { f.events = append(f.events, src+" "+r+" "+o+" "+m) }
	}
	var err error
	if f.cl, err = cluster.New(cluster.Options{Client: fc, Clock: f.clock, Seed: 1, OnEvent: log("cluster")}); err != nil {
		t.Fatal(err)
	}
	subnets := func() []karpenter.Subnet {
		var out []karpenter.Subnet
		for _, z := range f.cl.Zones() {
			out = append(out,
				karpenter.Subnet{ID: "subnet-private-" + z, Zone: z, Tags: map[string]string{tierTag: "private"}},
				karpenter.Subnet{ID: "subnet-public-" + z, Zone: z, Public: true, Tags: map[string]string{tierTag: "public"}})
		}
		return out
	}
	if s.noSubs {
		subnets = nil
	}
	if s.class.SubnetSelectorTerms == nil && s.class.AssociatePublicIPAddress == nil && !s.noSubs {
		s.class = karpenter.NodeClass{SubnetSelectorTerms: publicTerms, AssociatePublicIPAddress: ptr.To(true)}
	}
	opts := karpenter.Options{
		Cluster: f.cl, Seed: 1, NodePool: karpenter.NodePool{Budgets: s.budgets, Public: true},
		PublishObjects: s.publish == nil || *s.publish, Subnets: subnets, NodeClass: s.class, DriftDelay: driftDelay,
		OnEvent: log("karpenter"),
	}
	if f.k, err = karpenter.New(opts); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	f.start(t, s.nodes)
	if err := f.cl.AddWorkload(ctx, cluster.Workload{Namespace: "shop", Name: "web", Replicas: s.nodes, PreStop: 15 * time.Second, AlreadyRunning: true}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Second) // deliver the setup's changes
	return f
}

func getObject(t *testing.T, f *fixture, gvk schema.GroupVersionKind, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	if err := f.cl.Client().Get(t.Context(), client.ObjectKey{Name: name}, u); err != nil {
		t.Fatal(err)
	}
	return u
}

// patchClass writes the EC2NodeClass's subnet selection, as the move's
// Execute does (through the observed client, from outside the world).
func patchClass(t *testing.T, f *fixture, terms []karpenterapi.SelectorTerm, assoc *bool) {
	t.Helper()
	u := getObject(t, f, karpenterapi.EC2NodeClassGVK, karpenter.NodeClassName)
	if err := karpenterapi.SetSubnetSelection(u, terms, assoc); err != nil {
		t.Fatal(err)
	}
	if err := f.cl.Client().Update(t.Context(), u); err != nil {
		t.Fatal(err)
	}
}

func setPoolBudgets(t *testing.T, f *fixture, budgets []karpenterapi.Budget) {
	t.Helper()
	u := getObject(t, f, karpenterapi.NodePoolGVK, "default")
	if err := karpenterapi.SetBudgets(u, budgets); err != nil {
		t.Fatal(err)
	}
	if err := f.cl.Client().Update(t.Context(), u); err != nil {
		t.Fatal(err)
	}
}

func liveNodes(f *fixture) []cluster.NodeView {
	var out []cluster.NodeView
	for _, n := range f.cl.Nodes() {
		if n.Phase != "Terminated" {
			out = append(out, n)
		}
	}
	return out
}

func statusSubnetIDs(t *testing.T, f *fixture) []string {
	t.Helper()
	u := getObject(t, f, karpenterapi.EC2NodeClassGVK, karpenter.NodeClassName)
	items, _, _ := unstructured.NestedSlice(u.Object, "status", "subnets")
	var ids []string
	for _, it := range items {
		m, _ := it.(map[string]any)
		id, _ := m["id"].(string)
		ids = append(ids, id)
	}
	return ids
}

func hasEvent(f *fixture, substr ...string) bool {
	return slices.ContainsFunc(f.events, func(e string) bool {
		for _, s := range substr {
			if !strings.Contains(e, s) {
				return false
			}
		}
		return true
	})
}

// assertAll checks every live node's placement.
func assertAll(t *testing.T, f *fixture, n int, public bool) {
	t.Helper()
	live := liveNodes(f)
	if len(live) != n {
		t.Errorf("%d live nodes, want %d", len(live), n)
	}
	prefix := "subnet-private-"
	if public {
		prefix = "subnet-public-"
	}
	for _, v := range live {
		if v.Public != public || (v.ExternalIP != "") != public || !strings.HasPrefix(v.SubnetID, prefix) || v.Phase != "Ready" {
			t.Errorf("node %s: public %v, ExternalIP %q, subnet %s, %s; want public %v in %s*", v.Name, v.Public, v.ExternalIP, v.SubnetID, v.Phase, public, prefix)
		}
	}
}

func TestNodeClassPublishedWithStatus(t *testing.T) {
	f := newClassFixture(t, classSetup{nodes: 3})
	assertAll(t, f, 3, true)
	zones := map[string]bool{}
	for _, v := range liveNodes(f) {
		zones[v.Zone] = true
	}
	if len(zones) != min(3, len(f.cl.Zones())) {
		t.Errorf("nodes in zones %v: want the selected zones in turn", zones)
	}
	var want []string
	for _, z := range f.cl.Zones() {
		want = append(want, "subnet-public-"+z)
	}
	slices.Sort(want)
	if got := statusSubnetIDs(t, f); !slices.Equal(got, want) {
		t.Errorf("status.subnets %v, want %v", got, want)
	}
	p, err := karpenterapi.NodePoolOf(getObject(t, f, karpenterapi.NodePoolGVK, "default"))
	if err != nil || !p.NodeClassRef.IsEC2NodeClass() || p.NodeClassRef.Name != karpenter.NodeClassName {
		t.Errorf("nodepool %+v, %v: want a reference to EC2NodeClass %s", p, err, karpenter.NodeClassName)
	}
}

func TestPrivateSubnetDriftWave(t *testing.T) {
	tests := []struct {
		name      string
		tighten   bool // set the budget to "1" on the NodePool object first
		wantAtOnc int
	}{
		{"budget 2 from the options", false, 2},
		{"budget tightened to 1 on the NodePool object", true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newClassFixture(t, classSetup{nodes: 8, budgets: []karpenter.Budget{{Nodes: "2"}}})
			if tt.tighten {
				setPoolBudgets(t, f, []karpenterapi.Budget{{Nodes: "1"}})
				f.clock.Advance(time.Second)
				if !hasEvent(f, "BudgetsChanged", "nodepool/default") {
					t.Errorf("no BudgetsChanged event: %v", f.events)
				}
			}
			initial := liveNodes(f)
			changedAt := f.clock.Now()
			patchClass(t, f, privateTerms, nil)
			f.clock.Advance(driftDelay - time.Second)
			if q, ds := f.k.Queued(), f.k.Disruptions(); len(q) != 0 || len(ds) != 0 {
				t.Fatalf("before DriftDelay: queued %v, disruptions %d", q, len(ds))
			}
			if got := statusSubnetIDs(t, f); len(got) == 0 || !strings.HasPrefix(got[0], "subnet-private-") {
				t.Errorf("status.subnets %v, want the private subnets", got)
			}
			f.clock.Advance(4 * time.Hour)
			ds := f.k.Disruptions()
			if len(ds) != len(initial) {
				t.Fatalf("%d disruptions, want %d", len(ds), len(initial))
			}
			for _, d := range ds {
				if d.Reason != karpenter.ReasonDrifted || d.QueuedAt.Before(changedAt.Add(driftDelay)) {
					t.Errorf("disruption %+v: want Drifted, queued after the DriftDelay", d)
				}
			}
			if got := maxConcurrent(ds); got != tt.wantAtOnc {
				t.Errorf("at most %d drifted at once, want %d", got, tt.wantAtOnc)
			}
			assertAll(t, f, len(initial), false)
		})
	}
}

func TestRollbackDriftsPrivateNodesBack(t *testing.T) {
	f := newClassFixture(t, classSetup{nodes: 6, budgets: []karpenter.Budget{{Nodes: "1"}}})
	patchClass(t, f, privateTerms, nil)
	f.clock.Advance(driftDelay + 150*time.Second)
	var private []string
	for _, v := range liveNodes(f) {
		if !v.Public {
			private = append(private, v.Name)
		}
	}
	if len(private) == 0 || len(private) == 6 {
		t.Fatalf("%d private nodes mid-wave: want some", len(private))
	}
	waiting := f.k.Queued()
	if len(waiting) == 0 {
		t.Fatal("no node waits for its turn mid-wave")
	}
	patchClass(t, f, publicTerms, ptr.To(true))
	f.clock.Advance(4 * time.Hour)
	for n := range waiting {
		if v, _ := f.cl.Node(n); v.Phase != "Ready" || !v.Public {
			t.Errorf("node %s, still public and waiting at the rollback, is %s public %v: want kept", n, v.Phase, v.Public)
		}
	}
	if !hasEvent(f, "DriftCleared") {
		t.Errorf("no DriftCleared event")
	}
	for _, n := range private {
		if v, _ := f.cl.Node(n); v.Phase != "Terminated" {
			t.Errorf("node %s launched private is %s: want drifted back to public", n, v.Phase)
		}
	}
	assertAll(t, f, 6, true)
}

func TestAssociatePublicIPAddressFalseAloneDrifts(t *testing.T) {
	f := newClassFixture(t, classSetup{nodes: 4, budgets: []karpenter.Budget{{Nodes: "2"}}})
	initial := liveNodes(f)
	patchClass(t, f, publicTerms, ptr.To(false))
	f.clock.Advance(4 * time.Hour)
	if ds := f.k.Disruptions(); len(ds) != len(initial) {
		t.Fatalf("%d disruptions, want %d", len(ds), len(initial))
	}
	live := liveNodes(f)
	if len(live) != len(initial) {
		t.Fatalf("%d live nodes, want %d", len(live), len(initial))
	}
	for _, v := range live {
		if v.ExternalIP != "" {
			t.Errorf("node %s has ExternalIP %s under associatePublicIPAddress false", v.Name, v.ExternalIP)
		}
	}
}

func TestMalformedObjectsChangeNothing(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(u *unstructured.Unstructured)
		gvk    schema.GroupVersionKind
		object string
	}{
		{"terms not a list", func(u *unstructured.Unstructured) {
			u.Object["spec"].(map[string]any)["subnetSelectorTerms"] = "private"
		},
			karpenterapi.EC2NodeClassGVK, "ec2nodeclass/default"},
		{"associatePublicIPAddress not a boolean", func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"tags": map[string]any{tierTag: "private"}}}, "spec", "subnetSelectorTerms")
			u.Object["spec"].(map[string]any)["associatePublicIPAddress"] = "no"
		}, karpenterapi.EC2NodeClassGVK, "ec2nodeclass/default"},
		{"terms select no subnet", func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"id": "subnet-nowhere"}}, "spec", "subnetSelectorTerms")
		}, karpenterapi.EC2NodeClassGVK, "ec2nodeclass/default"},
		{"budget nodes malformed", func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"nodes": "all"}}, "spec", "disruption", "budgets")
		}, karpenterapi.NodePoolGVK, "nodepool/default"},
		{"budget reason forceful", func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"nodes": "5", "reasons": []any{"Expired"}}}, "spec", "disruption", "budgets")
		}, karpenterapi.NodePoolGVK, "nodepool/default"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newClassFixture(t, classSetup{nodes: 4, budgets: []karpenter.Budget{{Nodes: "1"}}})
			before := statusSubnetIDs(t, f)
			name := strings.SplitN(tt.object, "/", 2)[1]
			u := getObject(t, f, tt.gvk, name)
			tt.mutate(u)
			if err := f.cl.Client().Update(t.Context(), u); err != nil {
				t.Fatal(err)
			}
			f.clock.Advance(driftDelay + time.Minute)
			if !hasEvent(f, "karpenter Error "+tt.object) {
				t.Errorf("no Error event for %s: %v", tt.object, f.events)
			}
			if ds, q := f.k.Disruptions(), f.k.Queued(); len(ds) != 0 || len(q) != 0 {
				t.Errorf("disruptions %d, queued %v: want none", len(ds), q)
			}
			if got := statusSubnetIDs(t, f); !slices.Equal(got, before) {
				t.Errorf("status.subnets %v, want %v unchanged", got, before)
			}
			// The budget in force is still 1, and launches still go public.
			if err := f.k.ReplaceAll(karpenter.ReasonDrifted, 0); err != nil {
				t.Fatal(err)
			}
			f.clock.Advance(2 * time.Hour)
			if got := maxConcurrent(f.k.Disruptions()); got != 1 {
				t.Errorf("at most %d at once after the malformed write, want 1", got)
			}
			assertAll(t, f, 4, true)
		})
	}
}

func TestWithoutSubnetsOrObjectsNoNodeClass(t *testing.T) {
	for _, s := range []classSetup{{nodes: 2, noSubs: true}, {nodes: 2, publish: ptr.To(false)}} {
		f := newClassFixture(t, s)
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(karpenterapi.EC2NodeClassGVK)
		if err := f.cl.Client().Get(t.Context(), client.ObjectKey{Name: karpenter.NodeClassName}, u); err == nil {
			t.Errorf("setup %+v: an EC2NodeClass was published", s)
		}
		assertAll(t, f, 2, true)
	}
}

// TestStatusSubresource: on a client whose Karpenter kinds have the status
// subresource (as karpenterapi's CRDs give them on a real API server),
// status.subnets and the NodeClaims' status are still written.
func TestStatusSubresource(t *testing.T) {
	scheme, err := cluster.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	withStatus := func(gvk schema.GroupVersionKind) client.Object {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		return u
	}
	fc := fake.NewClientBuilder().WithScheme(scheme).
		WithStatusSubresource(withStatus(karpenterapi.EC2NodeClassGVK), withStatus(karpenterapi.NodeClaimGVK)).Build()
	f := newClassFixture(t, classSetup{nodes: 2, client: fc})
	if got := statusSubnetIDs(t, f); len(got) == 0 {
		t.Errorf("status.subnets empty through the subresource")
	}
	claims := &unstructured.UnstructuredList{}
	claims.SetGroupVersionKind(karpenterapi.NodeClaimGVK.GroupVersion().WithKind("NodeClaimList"))
	if err := f.cl.Client().List(t.Context(), claims); err != nil {
		t.Fatal(err)
	}
	if len(claims.Items) != 2 {
		t.Fatalf("%d nodeclaims, want 2", len(claims.Items))
	}
	for _, c := range claims.Items {
		if name, _, _ := unstructured.NestedString(c.Object, "status", "nodeName"); name == "" {
			t.Errorf("nodeclaim %s: no status.nodeName", c.GetName())
		}
	}
	patchClass(t, f, privateTerms, nil)
	f.clock.Advance(time.Second)
	if got := statusSubnetIDs(t, f); len(got) == 0 || !strings.HasPrefix(got[0], "subnet-private-") {
		t.Errorf("status.subnets %v after the patch, want the private subnets", got)
	}
}
