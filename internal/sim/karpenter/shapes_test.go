package karpenter_test

import (
	"errors"
	"testing"
	"time"

	"github.com/qstools/tgmigrate/internal/sim/karpenter"
)

// TestChurnShapes: each shape disrupts the nodes it says, for the reason
// it says, and the graceful ones obey the NodePool's budget while spot
// interruptions do not.
func TestChurnShapes(t *testing.T) {
	reasons := func(ds []karpenter.Disruption) map[karpenter.Reason]int {
		m := map[karpenter.Reason]int{}
		for _, d := range ds {
			m[d.Reason]++
		}
		return m
	}
	t.Run("steady: one node per interval", func(t *testing.T) {
		f := newFixture(t, setup{nodes: 5, replicas: 5})
		// Each starts at the disruption loop's next poll; with the budget
		// of 1 (10% of 5) a node's disruption takes about a minute (its
		// replacement's launch, its drain), so the interval is longer.
		if err := f.k.StartChurn(karpenter.Churn{Interval: 2 * time.Minute}); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(6*time.Minute + karpenter.DefaultPollInterval)
		if got := len(f.k.Disruptions()); got != 3 {
			t.Errorf("%d disruptions after 3 intervals, want 3", got)
		}
	})
	t.Run("wave: a share drifted at once, paced by the budget", func(t *testing.T) {
		f := newFixture(t, setup{nodes: 10, replicas: 10, pool: karpenter.NodePool{Budgets: []karpenter.Budget{{Nodes: "20%"}}}})
		if err := f.k.StartChurn(karpenter.Churn{Shape: karpenter.ShapeWave, Interval: time.Hour, Share: "60%"}); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(time.Hour + time.Second)
		if q := len(f.k.Queued()) + len(f.k.Disruptions()); q != 6 {
			t.Fatalf("%d nodes marked by the wave, want 6 (60%% of 10)", q)
		}
		f.clock.Advance(30 * time.Minute)
		ds := f.k.Disruptions()
		if len(ds) != 6 || reasons(ds)[karpenter.ReasonDrifted] != 6 {
			t.Errorf("disruptions %v: want the 6 drifted", reasons(ds))
		}
		// The budget is a share of the pool's nodes, replacements that are
		// Ready included: 20% of up to 12, rounded up.
		if c := maxConcurrent(ds); c > 3 {
			t.Errorf("%d disruptions at once, want at most 3 (20%% of at most 12 nodes)", c)
		}
	})
	t.Run("consolidation: the emptiest node, empty: deleted, not replaced", func(t *testing.T) {
		f := newFixture(t, setup{nodes: 4, replicas: 3}) // one node has no pod
		empty := ""
		for _, n := range f.cl.Nodes() {
			if len(f.cl.PodsOnNode(n.Name)) == 0 {
				empty = n.Name
			}
		}
		if empty == "" {
			t.Fatal("no empty node to consolidate")
		}
		if err := f.k.StartChurn(karpenter.Churn{Shape: karpenter.ShapeConsolidation, Interval: 10 * time.Minute, Start: f.clock.Now().Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(time.Minute + karpenter.DefaultPollInterval + karpenter.ValidationDelay)
		ds := f.k.Disruptions()
		if len(ds) != 1 || ds[0].Node != empty || ds[0].Reason != karpenter.ReasonEmpty || ds[0].Replacement != "" {
			t.Errorf("disruptions %+v: want %s, empty, no replacement", ds, empty)
		}
		if n := len(f.cl.Nodes()); n != 3 {
			t.Errorf("%d nodes, want 3", n)
		}
	})
	t.Run("spot: interruptions ignore do-not-disrupt and budgets", func(t *testing.T) {
		f := newFixture(t, setup{nodes: 4, replicas: 4, doNotDisrupt: true,
			pool: karpenter.NodePool{Budgets: []karpenter.Budget{{Nodes: "0"}}, CapacityType: "spot"}})
		if err := f.k.StartChurn(karpenter.Churn{Shape: karpenter.ShapeSpot, Interval: 5 * time.Minute}); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(time.Hour)
		ds := f.k.Disruptions()
		if len(ds) == 0 || reasons(ds)[karpenter.ReasonInterrupted] != len(ds) {
			t.Fatalf("disruptions %v: want interruptions only", reasons(ds))
		}
		for _, d := range ds {
			if !d.TerminatedAt.IsZero() && d.TerminatedAt.Sub(d.StartedAt) > karpenter.SpotInterruptionNotice {
				t.Errorf("%s terminated %v after the notice began, want at most %v", d.Node, d.TerminatedAt.Sub(d.StartedAt), karpenter.SpotInterruptionNotice)
			}
		}
		// Exponential intervals with a mean of 5 minutes: about 12 in an
		// hour; the seed fixes how many.
		if len(ds) < 4 || len(ds) > 30 {
			t.Errorf("%d interruptions in an hour at a mean of 5 minutes", len(ds))
		}
	})
	t.Run("bad shapes", func(t *testing.T) {
		f := newFixture(t, setup{nodes: 1, replicas: 1})
		for _, ch := range []karpenter.Churn{{Shape: "storm", Interval: time.Minute}, {Shape: karpenter.ShapeWave, Interval: time.Minute, Share: "150%"}} {
			if err := f.k.StartChurn(ch); !errors.Is(err, karpenter.ErrInvalidConfig) {
				t.Errorf("%+v: %v, want ErrInvalidConfig", ch, err)
			}
		}
	})
}
