package karpenter_test

// fidelity_test.go: the behaviours of the real Karpenter v1 the stand-in
// encodes, each test naming the file of kubernetes-sigs/karpenter it
// follows (commit 2266468104f3, read August 2026) or the observation of
// issue 34 (the real Karpenter with its kwok provider).

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/sim/cluster"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// disruptionOf returns the disruption of node, nil when none started.
func (f *fixture) disruptionOf(node string) *karpenter.Disruption {
	for _, d := range f.k.Disruptions() {
		if d.Node == node {
			return &d
		}
	}
	return nil
}

// annotateNode sets karpenter.sh/do-not-disrupt on a node, as a user would.
func (f *fixture) annotateNode(t *testing.T, name string) {
	t.Helper()
	var n corev1.Node
	c := f.cl.Client()
	if err := c.Get(t.Context(), client.ObjectKey{Name: name}, &n); err != nil {
		t.Fatal(err)
	}
	n.Annotations = map[string]string{karpenter.AnnotationDoNotDisrupt: "true"}
	if err := c.Update(t.Context(), &n); err != nil {
		t.Fatal(err)
	}
}

// TestBudgetScheduleWindow follows pkg/apis/v1/nodepool.go
// (Budget.IsActive, GetAllowedDisruptionsByReason): a budget with a
// schedule (cron, UTC, parsed by robfig/cron's ParseStandard) and a
// duration is active only while the schedule's last hit is at most the
// duration ago; outside its window it limits nothing. Here "0" nodes from
// 09:00 for 8 hours every day: a drift queued at 08:50 or 17:00 starts,
// one queued at 09:00 or 16:50 waits until 17:00.
func TestBudgetScheduleWindow(t *testing.T) {
	day := vclock.Epoch
	tests := []struct {
		name      string
		queue     time.Time
		wantStart time.Time // zero: not before the window closes
	}{
		{"before the window", day.Add(8*time.Hour + 50*time.Minute), day.Add(9 * time.Hour)},
		{"at its opening", day.Add(9 * time.Hour), time.Time{}},
		{"in its last minutes", day.Add(16*time.Hour + 50*time.Minute), time.Time{}},
		{"at its end", day.Add(17 * time.Hour), day.Add(17*time.Hour + karpenter.DefaultPollInterval)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, setup{nodes: 3, replicas: 3, pool: karpenter.NodePool{Budgets: []karpenter.Budget{
				{Nodes: "0", Schedule: "0 9 * * *", Duration: 8 * time.Hour}, {Nodes: "1"},
			}}})
			f.clock.RunUntil(tt.queue)
			node := f.cl.Nodes()[0].Name
			if err := f.k.ReplaceNode(node, karpenter.ReasonDrifted); err != nil {
				t.Fatal(err)
			}
			window := day.Add(17 * time.Hour)
			until := tt.wantStart
			if until.IsZero() {
				until = window.Add(-time.Second)
			}
			f.clock.RunUntil(until)
			d := f.disruptionOf(node)
			switch {
			case tt.wantStart.IsZero() && d != nil:
				t.Errorf("started at %v, inside the window", d.StartedAt)
			case !tt.wantStart.IsZero() && d == nil:
				t.Errorf("not started by %v; queued %v", tt.wantStart, f.k.Queued())
			}
			if tt.wantStart.IsZero() {
				f.clock.RunUntil(window.Add(karpenter.DefaultPollInterval))
				if d := f.disruptionOf(node); d == nil || d.StartedAt.Before(window) {
					t.Errorf("disruption %+v: want it started when the window closed at %v", d, window)
				}
			}
		})
	}
}

// TestBudgetScheduleInvalid: a schedule without a duration, a schedule
// cron refuses, or a duration that is not whole minutes is refused, as
// the CRD (schedule must be set with duration; duration of hours and
// minutes) and robfig/cron would.
func TestBudgetScheduleInvalid(t *testing.T) {
	for _, b := range []karpenter.Budget{
		{Nodes: "0", Schedule: "@daily"},
		{Nodes: "0", Duration: time.Hour},
		{Nodes: "0", Schedule: "0 25 * * *", Duration: time.Hour},
		{Nodes: "0", Schedule: "@daily", Duration: 90 * time.Second},
	} {
		fc, err := cluster.NewFakeClient(cluster.FakeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cl, err := cluster.New(cluster.Options{Client: fc, Clock: vclock.New(time.Time{}), Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		_, err = karpenter.New(karpenter.Options{Cluster: cl, NodePool: karpenter.NodePool{Budgets: []karpenter.Budget{b}}})
		var ce *karpenter.ConfigError
		if !errors.As(err, &ce) || ce.Field != "NodePool.Budgets[0]" {
			t.Errorf("budget %+v: error %v, want a ConfigError on NodePool.Budgets[0]", b, err)
		}
	}
}

// TestConsolidationEmpty follows disruption/emptiness.go and
// validation.go (EmptinessValidator): the Consolidatable nodes without
// pods are deleted together, as many as the Empty budget allows, in one
// command validated 15 s after its decision, with no replacement.
func TestConsolidationEmpty(t *testing.T) {
	tests := []struct {
		name      string
		budget    string
		wantFirst int // deleted by the first command
	}{
		{"three empty nodes, one command", "10", 3},
		{"the Empty budget caps the command", "2", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, setup{nodes: 5, replicas: 2, pool: karpenter.NodePool{Budgets: []karpenter.Budget{{Nodes: tt.budget}}}})
			var empty []string
			for _, n := range f.cl.Nodes() {
				if len(f.cl.PodsOnNode(n.Name)) == 0 {
					empty = append(empty, n.Name)
					if err := f.k.ReplaceNode(n.Name, karpenter.ReasonUnderutilized); err != nil {
						t.Fatal(err)
					}
				}
			}
			if len(empty) != 3 {
				t.Fatalf("%d empty nodes, want 3", len(empty))
			}
			f.clock.Advance(karpenter.DefaultPollInterval) // the loop's first poll decides
			decided := f.clock.Now()
			f.clock.Advance(karpenter.ValidationDelay - time.Second)
			if ds := f.k.Disruptions(); len(ds) != 0 {
				t.Fatalf("disruptions %+v before the validation", ds)
			}
			f.clock.Advance(time.Second)
			ds := f.k.Disruptions()
			if len(ds) != tt.wantFirst {
				t.Fatalf("%d deleted by the first command, want %d", len(ds), tt.wantFirst)
			}
			for _, d := range ds {
				if d.Reason != karpenter.ReasonEmpty || d.Replacement != "" || !d.StartedAt.Equal(decided.Add(karpenter.ValidationDelay)) {
					t.Errorf("%+v: want Empty, no replacement, started at the validation", d)
				}
			}
			f.clock.Advance(5 * time.Minute)
			if n := len(f.cl.Nodes()); n != 2 {
				t.Errorf("%d nodes, want the 2 with pods", n)
			}
		})
	}
}

// TestConsolidationUnderutilized follows disruption/
// singlenodeconsolidation.go and consolidation.go computeConsolidation: a
// node with pods is deleted when its pods fit on the other nodes,
// replaced when they do not and a cheaper instance type holds them, and
// left alone (Unconsolidatable) otherwise; validation.go drops the
// command when its candidate changed in the 15 s (here annotated
// do-not-disrupt meanwhile).
func TestConsolidationUnderutilized(t *testing.T) {
	tests := []struct {
		name          string
		maxPods       int
		types         []string
		annotate      bool // the node annotated do-not-disrupt during the validation
		wantDisrupted bool
		wantRepl      string // the replacement's instance type; "": none
	}{
		{"pods fit elsewhere: deleted", 0, nil, false, true, ""},
		{"no room, no cheaper type: left alone", 2, nil, false, false, ""},
		{"no room, a cheaper type: replaced by it", 2, []string{"m5.large", "m5.xlarge", "c6a.large"}, false, true, "c6a.large"},
		{"changed during the validation: dropped", 0, nil, true, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, setup{nodes: 3, replicas: 6, maxPods: tt.maxPods,
				pool: karpenter.NodePool{InstanceTypes: tt.types, Budgets: []karpenter.Budget{{Nodes: "1"}}}})
			node := f.cl.Nodes()[0].Name
			if err := f.k.ReplaceNode(node, karpenter.ReasonUnderutilized); err != nil {
				t.Fatal(err)
			}
			if tt.annotate {
				f.clock.Advance(karpenter.ValidationDelay / 2)
				f.annotateNode(t, node)
			}
			f.clock.Advance(5 * time.Minute)
			d := f.disruptionOf(node)
			if (d != nil) != tt.wantDisrupted {
				t.Fatalf("disruption %+v, want disrupted %v; queued %v", d, tt.wantDisrupted, f.k.Queued())
			}
			if d == nil {
				return
			}
			if d.Reason != karpenter.ReasonUnderutilized || d.TerminatedAt.IsZero() {
				t.Errorf("%+v: want Underutilized, terminated", d)
			}
			switch v, _ := f.cl.Node(d.Replacement); {
			case tt.wantRepl == "" && d.Replacement != "":
				t.Errorf("replacement %s, want none", d.Replacement)
			case tt.wantRepl != "" && v.Labels[corev1.LabelInstanceTypeStable] != tt.wantRepl:
				t.Errorf("replacement %q of type %q, want %s", d.Replacement, v.Labels[corev1.LabelInstanceTypeStable], tt.wantRepl)
			}
			if n := len(f.cl.Pods()); n != 6 {
				t.Errorf("%d pods, want the 6 replicas running elsewhere", n)
			}
		})
	}
}

// TestDoNotDisruptPodUnderGracePeriod follows disruption/types.go
// NewCandidate (drift is EventualDisruptionClass: with a NodeClaim
// terminationGracePeriod a do-not-disrupt pod does not keep its node from
// being a drift candidate) and node/termination/terminator/eviction.go
// (the pod is never evicted; it is deleted at the node's termination time
// minus its own grace period, so it is gone before the deadline). Without
// a terminationGracePeriod, or for consolidation, the pod still blocks.
func TestDoNotDisruptPodUnderGracePeriod(t *testing.T) {
	const tgp = 5 * time.Minute
	tests := []struct {
		name     string
		tgp      time.Duration
		reason   karpenter.Reason
		wantDone bool
	}{
		{"drift under a grace period: eventual", tgp, karpenter.ReasonDrifted, true},
		{"drift without one: blocked", 0, karpenter.ReasonDrifted, false},
		{"consolidation under a grace period: blocked", tgp, karpenter.ReasonUnderutilized, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, setup{nodes: 2, replicas: 2, doNotDisrupt: true, pool: karpenter.NodePool{TerminationGracePeriod: tt.tgp}})
			node := f.cl.Nodes()[0].Name
			if err := f.k.ReplaceNode(node, tt.reason); err != nil {
				t.Fatal(err)
			}
			f.clock.Advance(30 * time.Minute)
			d := f.disruptionOf(node)
			if !tt.wantDone {
				if d != nil {
					t.Errorf("disruption %+v, want the node held", d)
				}
				return
			}
			if d == nil {
				t.Fatalf("no disruption; queued %v", f.k.Queued())
			}
			// The pod (grace 30 s, preStop 15 s) is deleted 30 s before
			// the deadline and gone 15 s later; no eviction was tried.
			deadline := d.DrainStartedAt.Add(tgp)
			if d.Evictions != 0 || d.ForceDeleted != 1 || !d.TerminatedAt.Equal(deadline.Add(-15*time.Second)) {
				t.Errorf("%+v: want no eviction, the pod deleted, the node terminated at %v", d, deadline.Add(-15*time.Second))
			}
		})
	}
}

// TestPDBBlocksGracefulCandidate follows state/statenode.go
// ValidatePodsDisruptable and utils/pdb/pdb.go CanEvictPods ("pdb prevents
// pod evictions"): a node whose pod's PodDisruptionBudget allows no
// disruption is not a graceful candidate: no taint, no replacement, the
// request waits; under a terminationGracePeriod drift goes on (eventual),
// consolidation does not.
func TestPDBBlocksGracefulCandidate(t *testing.T) {
	tests := []struct {
		name      string
		tgp       time.Duration
		reason    karpenter.Reason
		wantStart bool
	}{
		{"drift", 0, karpenter.ReasonDrifted, false},
		{"consolidation", 0, karpenter.ReasonUnderutilized, false},
		{"drift under a grace period", time.Minute, karpenter.ReasonDrifted, true},
		{"consolidation under a grace period", time.Minute, karpenter.ReasonUnderutilized, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, setup{nodes: 3, replicas: 3, pdb: &cluster.PDBSpec{MaxUnavailable: ptr.To(intstr.FromInt32(0))},
				pool: karpenter.NodePool{TerminationGracePeriod: tt.tgp}})
			node := f.cl.Nodes()[0].Name
			if err := f.k.ReplaceNode(node, tt.reason); err != nil {
				t.Fatal(err)
			}
			f.clock.Advance(time.Minute)
			if started := f.disruptionOf(node) != nil; started != tt.wantStart {
				t.Fatalf("started %v, want %v", started, tt.wantStart)
			}
			if tt.wantStart {
				return
			}
			v, _ := f.cl.Node(node)
			if slices.ContainsFunc(v.Taints, func(t corev1.Taint) bool { return t.Key == karpenter.TaintDisrupted }) {
				t.Error("the node is tainted")
			}
			if n := len(f.cl.Nodes()); n != 3 {
				t.Errorf("%d nodes, want 3 (no replacement)", n)
			}
			if why := f.k.Queued()[node]; !strings.Contains(why, "prevents pod evictions") {
				t.Errorf("queued %q, want the PDB named", why)
			}
		})
	}
}

// TestPacing follows disruption/controller.go (the loop polls every 10 s
// when it has nothing to do: a drift starts at its next poll, not at
// once), helpers.go SimulateScheduling (a node with pods waits while a
// replacement is not initialized: one at a time, whatever the budget),
// nodeclaim/expiration/controller.go (expiry deletes the NodeClaim and
// launches nothing first; the provisioner launches for the pods after its
// batching window) and terminator.go (the exclude-from-external-load-
// balancers label's value is "karpenter"). Issue 34 observed the real
// loop acting 10 to 30 s after Drifted=True: the poll, and the loop's
// other methods (a consolidation's 15 s validation) before drift.
func TestPacing(t *testing.T) {
	t.Run("drift at the next poll", func(t *testing.T) {
		f := newFixture(t, setup{nodes: 3, replicas: 3})
		f.clock.Advance(3 * time.Second) // between two polls
		node := f.cl.Nodes()[0].Name
		if err := f.k.ReplaceNode(node, karpenter.ReasonDrifted); err != nil {
			t.Fatal(err)
		}
		queued := f.clock.Now()
		f.clock.Advance(0)
		if d := f.disruptionOf(node); d != nil {
			t.Fatalf("started at once: %+v", d)
		}
		f.clock.Advance(karpenter.DefaultPollInterval)
		if d := f.disruptionOf(node); d == nil || !d.StartedAt.Equal(queued.Add(7*time.Second)) {
			t.Errorf("disruption %+v: want it started at the next poll, %v", d, queued.Add(7*time.Second))
		}
	})
	t.Run("one at a time while a replacement is uninitialized", func(t *testing.T) {
		f := newFixture(t, setup{nodes: 4, replicas: 4, pool: karpenter.NodePool{Budgets: []karpenter.Budget{{Nodes: "100%"}}}})
		if err := f.k.ReplaceAll(karpenter.ReasonDrifted, 0); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(time.Hour)
		ds := f.k.Disruptions()
		if len(ds) != 4 {
			t.Fatalf("%d disruptions, want 4", len(ds))
		}
		for i := 1; i < len(ds); i++ {
			prev, _ := f.cl.Node(ds[i-1].Replacement)
			if ds[i].StartedAt.Before(prev.ReadyAt) {
				t.Errorf("disruption %d started at %v, before the previous replacement was Ready at %v", i, ds[i].StartedAt, prev.ReadyAt)
			}
		}
	})
	t.Run("expiry launches nothing first; the label says karpenter", func(t *testing.T) {
		f := newFixture(t, setup{nodes: 2, replicas: 2})
		node := f.cl.Nodes()[0].Name
		if err := f.k.ReplaceNode(node, karpenter.ReasonExpired); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(0)
		d := f.disruptionOf(node)
		if d == nil || d.Replacement != "" || len(f.cl.Nodes()) != 2 {
			t.Fatalf("at the expiry: %+v, %d nodes; want the drain started and no node launched", d, len(f.cl.Nodes()))
		}
		if v, _ := f.cl.Node(node); v.Labels[karpenter.LabelExcludeFromLB] != "karpenter" {
			t.Errorf("label %s=%q, want karpenter", karpenter.LabelExcludeFromLB, v.Labels[karpenter.LabelExcludeFromLB])
		}
		f.clock.Advance(karpenter.ProvisionerBatchIdle)
		d = f.disruptionOf(node)
		if v, ok := f.cl.Node(d.Replacement); !ok || !v.LaunchedAt.Equal(d.DrainStartedAt.Add(karpenter.ProvisionerBatchIdle)) {
			t.Errorf("replacement %q launched at %v, want the drain's start plus the batching window", d.Replacement, v.LaunchedAt)
		}
	})
}
