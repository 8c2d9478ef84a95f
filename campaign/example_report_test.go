package campaign_test

// example_report_test.go: a campaign run on the test kit's fleet with a
// live progress view (Status after each entry's end), then its final
// report with the requests each cutover kept serving in its window.

import (
	"context"
	"fmt"
	"time"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// NewReport after an Execute on the test kit's fleet (two clusters in
// two accounts). An Observer reads the campaign's progress from the
// journal after each entry's end (a CLI redraws Progress.Text there);
// WithTraffic gives the report each world's requests to its target
// group in that entry's cutover window (World.RequestsBetween).
func ExampleNewReport() {
	ctx := context.Background()
	world := func(seed uint64) tgmigratetest.Options {
		return tgmigratetest.Options{Seed: seed, Nodes: 3, Pods: 6, ReadinessGateInjection: true}
	}
	f, err := tgmigratetest.NewFleet(ctx, tgmigratetest.FleetOptions{Clusters: []tgmigratetest.ClusterOptions{
		{Name: "prod", AccountID: "111111111111", Options: world(1)},
		{Name: "staging", AccountID: "222222222222", Options: world(2)},
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	journal, err := campaign.NewConfigMapJournal(f.World("prod").Client(), "default", "campaign-journal")
	if err != nil {
		fmt.Println(err)
		return
	}
	in := f.CampaignInput(campaign.Selection{All: true})
	env := f.CampaignEnv(journal, "laptop-1")
	// staging first, alone; prod after it.
	plan, err := campaign.PlanCampaign(ctx, in, campaign.WithClock(f.Clock()),
		campaign.WithCanaries(f.World("staging").Legacy().TargetGroupARN))
	if err != nil {
		fmt.Println(err)
		return
	}
	before, err := campaign.Status(ctx, plan, journal, f.Clock().Now())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("before: %d waiting, ETA %ds\n", before.Totals.Pending, before.ETASeconds)

	obs := campaign.ObserverFuncs{
		OnEntryFinished: func(e campaign.EntryEvent) {
			// A live view redraws pr.Text() here.
			if pr, err := campaign.Status(ctx, plan, journal, e.At); err == nil {
				fmt.Printf("%s ended: done %d/%d, ETA %ds\n", e.Cluster, pr.Totals.Done, pr.Totals.Entries, pr.ETASeconds)
			}
		},
	}
	res, err := campaign.Execute(ctx, env, plan, campaign.WithParallel(f.Parallel), campaign.WithObserver(obs))
	if err != nil {
		fmt.Println(err)
		return
	}
	// The requests each target group's world sent it in a window: the
	// report asks for each cutover's.
	meter := func(tg tgmigrate.ARN, from, to time.Time) (campaign.TrafficCount, bool) {
		for _, w := range f.Worlds() {
			if w.Legacy().TargetGroupARN == tg {
				r := w.RequestsBetween(tg, from, to)
				return campaign.TrafficCount{Total: r.Total, Served: r.Served, Failed: r.Failed}, true
			}
		}
		return campaign.TrafficCount{}, false
	}
	rep, err := campaign.NewReport(plan, res, campaign.WithTraffic("simulator", meter))
	if err != nil {
		fmt.Println(err)
		return
	}
	// The wall time is the fleet's virtual time: the plan's critical path
	// (Fleet.Parallel runs the workers that meet at one instant in a fixed
	// order, so a run takes the same time every time).
	fmt.Printf("completed: %t, %.0fs against the plan's %ds\n", rep.Completed, rep.WallSeconds, rep.EstimateSeconds)
	for _, a := range rep.Accounts {
		for _, c := range a.Clusters {
			for _, tg := range c.TargetGroups {
				fmt.Printf("%s %s %s: %s in %s, %d requests served, %d failed\n", a.ID, c.Name, tg.Name, tg.Status, tg.WaveName,
					tg.Traffic.Served, tg.Traffic.Failed)
			}
		}
	}
	// rep.JSON() validates against campaign.ReportSchema(); rep.Markdown()
	// is for a ticket.

	// Output:
	// before: 2 waiting, ETA 720s
	// staging ended: done 1/2, ETA 360s
	// prod ended: done 2/2, ETA 0s
	// completed: true, 720s against the plan's 720s
	// 111111111111 prod legacy-web: done in wave 1, 7200 requests served, 0 failed
	// 222222222222 staging legacy-web: done in canary, 7200 requests served, 0 failed
}
