package campaign_test

// bench_test.go: PlanCampaign's cost at fleet sizes: clusters of several
// applications, each its own target group, in two accounts.

import (
	"fmt"
	"testing"

	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// BenchmarkPlanCampaign plans every target group of a fleet of clusters
// (half in each of two accounts) of 8 applications each, 3 nodes and 3
// pods an application: diagnose once per account, a cutover plan per
// target group, the waves, the limits, the estimate and the digest. The
// fleet is built once per size, outside the timing.
func BenchmarkPlanCampaign(b *testing.B) {
	for _, clusters := range []int{2, 8, 16} {
		b.Run(fmt.Sprintf("%dx8", clusters), func(b *testing.B) {
			var opts tgmigratetest.FleetOptions
			for i := range clusters {
				o := tgmigratetest.Options{Seed: uint64(i + 1), Nodes: 3, Pods: 3, RPS: -1, ReadinessGateInjection: true}
				for a := range 7 {
					o.Apps = append(o.Apps, tgmigratetest.App{Name: fmt.Sprintf("app%d", a)})
				}
				account := "111111111111"
				if i%2 == 1 {
					account = "222222222222"
				}
				opts.Clusters = append(opts.Clusters, tgmigratetest.ClusterOptions{Name: fmt.Sprintf("c%d", i), AccountID: account, Options: o})
			}
			f, err := tgmigratetest.NewFleet(b.Context(), opts)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			in := f.CampaignInput(campaign.Selection{All: true})
			var p *campaign.Plan
			for b.Loop() {
				if p, err = campaign.PlanCampaign(b.Context(), in, campaign.WithClock(f.Clock())); err != nil {
					b.Fatal(err)
				}
			}
			if want := clusters * 8; len(p.Entries) != want {
				b.Fatalf("%d entries, want %d", len(p.Entries), want)
			}
			b.ReportMetric(float64(len(p.Entries)), "targetgroups")
		})
	}
}
