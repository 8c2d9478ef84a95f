package tgmigratetest_test

// campaign_test.go: Fleet.CampaignInput and Fleet.CampaignEnv on a fleet
// whose two clusters share an account: PlanCampaign and Execute take
// them as they are.

import (
	"testing"

	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// TestFleetCampaign: the input lists each account once and every
// cluster with its account; the plan has every world's target group; the
// env runs it to completion with no failed request.
func TestFleetCampaign(t *testing.T) {
	opts := func(seed uint64) tgmigratetest.Options {
		return tgmigratetest.Options{Seed: seed, Nodes: 3, Pods: 3, ReadinessGateInjection: true}
	}
	f, err := tgmigratetest.NewFleet(t.Context(), tgmigratetest.FleetOptions{Clusters: []tgmigratetest.ClusterOptions{
		{Name: "a", AccountID: "111111111111", Options: opts(1)},
		{Name: "b", AccountID: "111111111111", Options: opts(2)},
		{Name: "c", AccountID: "222222222222", Options: opts(3)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in := f.CampaignInput(campaign.Selection{All: true})
	if len(in.Accounts) != 2 || in.Accounts[0].ID != "111111111111" || in.Accounts[1].ID != "222222222222" || len(in.Clusters) != 3 {
		t.Fatalf("input: %d accounts, %d clusters; want 2 (in order) and 3", len(in.Accounts), len(in.Clusters))
	}
	for i, c := range in.Clusters {
		if w := f.Worlds()[i]; c.Name != w.ClusterName() || c.AccountID != w.AccountID() || c.VPCID != w.VPCID() || c.Assumptions != w.Assumptions() {
			t.Errorf("cluster %d: %+v, want world %s's", i, c, w.ClusterName())
		}
	}
	plan, err := campaign.PlanCampaign(t.Context(), in, campaign.WithClock(f.Clock()))
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Entries) != 3 {
		t.Fatalf("%d entries, want every world's target group", len(plan.Entries))
	}
	j, err := campaign.NewConfigMapJournal(f.World("a").Client(), "default", "campaign")
	if err != nil {
		t.Fatal(err)
	}
	res, err := campaign.Execute(t.Context(), f.CampaignEnv(j, "runner"), plan, campaign.WithParallel(f.Parallel))
	if err != nil || !res.Completed || res.Totals.Done != 3 {
		t.Fatalf("Execute: %v, %+v; want every entry done", err, res.Totals)
	}
	for _, w := range f.Worlds() {
		if r := w.Requests(); r.Failed != 0 || r.Total == 0 {
			t.Errorf("%s: %+v, want none failed", w.ClusterName(), r)
		}
	}
}
