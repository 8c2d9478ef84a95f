package diagnose_test

import (
	"testing"
	"time"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
)

// TestScenarioExpiryAgreesWithTheSimulator: the expiry diagnose reads from
// a node's NodeClaim (creationTimestamp plus spec.expireAfter, as
// Karpenter's expiration controller computes it) is the instant the
// simulator expires the node: under the expiry churn (back-dated
// NodeClaims, then replacements) and under spot churn, whose replacements
// launch off the second (a creationTimestamp is whole seconds).
func TestScenarioExpiryAgreesWithTheSimulator(t *testing.T) {
	tests := []struct {
		name string
		cfg  sim.Config
	}{
		{"expiry churn", sim.Config{Seed: 61, Nodes: 4, Pods: 8, ChurnInterval: 100 * time.Second, ChurnShape: karpenter.ShapeExpiry}},
		{"spot churn", sim.Config{Seed: 62, Nodes: 4, Pods: 8, ChurnInterval: 70 * time.Second, ChurnShape: karpenter.ShapeSpot,
			NodePool: karpenter.NodePool{ExpireAfter: 2 * time.Hour, CapacityType: "spot"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newSimWorld(t, onFacade, tt.cfg)
			offSecond := 0
			for step := range 4 {
				if step > 0 {
					w.Run(5 * time.Minute)
				}
				snap, err := diagnose.TakeSnapshot(t.Context(), worldSources(w).Clusters[0])
				if err != nil {
					t.Fatal(err)
				}
				nodes := w.Cluster().Nodes()
				if len(nodes) == 0 {
					t.Fatal("no node")
				}
				for _, n := range nodes {
					if n.Phase != "Ready" {
						continue // launching: no Node object yet
					}
					want, ok := w.Karpenter().ExpiresAt(n.Name)
					ref, found := snap.Node(n.Name)
					if !ok || !found || ref.ExpiresAt == nil || !ref.ExpiresAt.Equal(want) {
						t.Errorf("step %d, node %s: diagnose reads an expiry of %v (found %v), the simulator expires it at %v (%v)",
							step, n.Name, ref.ExpiresAt, found, want, ok)
					}
					if !n.LaunchedAt.Equal(n.LaunchedAt.Truncate(time.Second)) {
						offSecond++
					}
				}
			}
			if tt.cfg.ChurnShape == karpenter.ShapeSpot && offSecond == 0 {
				t.Error("no node launched off the second: the case the test is for did not arise")
			}
		})
	}
}
