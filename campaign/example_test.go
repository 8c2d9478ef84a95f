package campaign_test

import (
	"context"
	"fmt"

	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// PlanCampaign on the test kit's fleet: three clusters, each in an
// account of its own, on one virtual clock. The prepared clusters'
// target groups are runnable, each its cluster's canary; staging's
// Service lacks the controller's readiness gate, so its cutover plan has
// a precondition and the campaign records it, blocked, with its reason.
// Planning reads only: the fleet counts no write.
func ExamplePlanCampaign() {
	ctx := context.Background()
	world := func(seed uint64, gate bool) tgmigratetest.Options {
		return tgmigratetest.Options{Seed: seed, Nodes: 3, Pods: 6, ReadinessGateInjection: gate}
	}
	f, err := tgmigratetest.NewFleet(ctx, tgmigratetest.FleetOptions{Clusters: []tgmigratetest.ClusterOptions{
		{Name: "prod-a", AccountID: "111111111111", Options: world(1, true)},
		{Name: "prod-b", AccountID: "222222222222", Options: world(2, true)},
		{Name: "staging", AccountID: "333333333333", Options: world(3, false)},
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	in := campaign.Input{Selection: campaign.Selection{All: true}}
	for _, w := range f.Worlds() {
		in.Accounts = append(in.Accounts, campaign.Account{ID: w.AccountID(), Region: tgmigratetest.Region,
			ELBv2: w.ELBv2Read(), ServiceQuotas: w.ServiceQuotas()})
		c := w.Cluster()
		in.Clusters = append(in.Clusters, campaign.Cluster{Name: c.Name, Reader: c.Reader, VPCID: c.VPCID,
			AccountID: w.AccountID(), Assumptions: w.Assumptions()})
	}
	p, err := campaign.PlanCampaign(ctx, in, campaign.WithClock(f.Clock()))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, wave := range p.Waves {
		fmt.Printf("%s (approval before it: %t):\n", wave.Name, wave.Approval)
		for _, a := range wave.TargetGroupARNs {
			e, _ := p.Entry(a)
			fmt.Printf("  %s in %s, expected %ds to %ds\n", e.Name, e.Cluster, e.StartSeconds, e.EndSeconds)
		}
	}
	for _, e := range p.Entries {
		if !e.Runnable() {
			fmt.Printf("blocked: %s in %s: %s\n", e.Name, e.Cluster, e.Blocked.Reason)
		}
	}
	fmt.Printf("expected %ds (critical path), %ds one at a time\n", p.Estimate.TotalSeconds, p.Estimate.SerialSeconds)
	writes := 0
	for _, w := range f.Worlds() {
		writes += w.Calls()["RegisterTargets"] + w.Calls()["DeregisterTargets"] + w.Calls()["ModifyTargetGroup"]
	}
	fmt.Println("writes:", writes)
	// Output:
	// canary (approval before it: false):
	//   legacy-web in prod-a, expected 0s to 360s
	//   legacy-web in prod-b, expected 0s to 360s
	// blocked: legacy-web in staging: precondition
	// expected 360s (critical path), 720s one at a time
	// writes: 0
}
