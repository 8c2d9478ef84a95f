package campaign_test

// example_execute_test.go: a campaign planned and run on the test kit's
// fleet (two accounts, three clusters), with its journal in a ConfigMap.

import (
	"context"
	"fmt"

	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// Execute on the test kit's fleet: prod-a and prod-b share an account,
// staging has its own. The plan puts one target group per cluster in the
// canary wave; Execute runs them at once under the plan's limits (its
// workers in the fleet's Parallel, so that the virtual time is the
// longest cutover's), records every entry in a ConfigMap journal in
// prod-a, and every request is served.
func ExampleExecute() {
	ctx := context.Background()
	world := func(seed uint64) tgmigratetest.Options {
		return tgmigratetest.Options{Seed: seed, Nodes: 3, Pods: 6, ReadinessGateInjection: true}
	}
	f, err := tgmigratetest.NewFleet(ctx, tgmigratetest.FleetOptions{Clusters: []tgmigratetest.ClusterOptions{
		{Name: "prod-a", AccountID: "111111111111", Options: world(1)},
		{Name: "prod-b", AccountID: "111111111111", Options: world(2)},
		{Name: "staging", AccountID: "222222222222", Options: world(3)},
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	journal, err := campaign.NewConfigMapJournal(f.World("prod-a").Client(), "default", "campaign-journal")
	if err != nil {
		fmt.Println(err)
		return
	}
	// The fleet's accounts and clusters as PlanCampaign and Execute take
	// them (ExamplePlanCampaign builds the Input by hand).
	in := f.CampaignInput(campaign.Selection{All: true})
	env := f.CampaignEnv(journal, "laptop-1")
	plan, err := campaign.PlanCampaign(ctx, in, campaign.WithClock(f.Clock()))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := campaign.Execute(ctx, env, plan, campaign.WithParallel(f.Parallel), campaign.WithWorkers(3))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range res.Entries {
		fmt.Printf("%s in %s: %s in %.0fs\n", e.Name, e.Cluster, e.Status, e.Seconds)
	}
	fmt.Printf("completed: %t, done %d of %d\n", res.Completed, res.Totals.Done, res.Totals.Entries)
	for _, w := range f.Worlds() {
		fmt.Println(w.ClusterName(), "failed requests:", w.Requests().Failed)
	}
	// Output:
	// legacy-web-prod-a in prod-a: done in 360s
	// legacy-web-prod-b in prod-b: done in 360s
	// legacy-web in staging: done in 360s
	// completed: true, done 3 of 3
	// prod-a failed requests: 0
	// prod-b failed requests: 0
	// staging failed requests: 0
}
