package main

// simulate_campaign_text.go: simulate --scenario campaign's flags (the
// ones it refuses), its run from runSimulate, its text (the plan, a row
// per target group, the requests lost under way at a cutover's start and
// those lost after it to the load balancer's target quota, the wall time against the critical path, the calls per account, the
// load balancers' limits) and its exit status.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/internal/sim/timing"
	"github.com/qstools/tgmigrate/internal/textcell"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// campaignColumns is the width the text's wrapped lines keep to.
const campaignColumns = 110

// campaignRatioBound is the acceptance's bound on the campaign's wall
// time against its critical path.
const campaignRatioBound = 1.05

// validateCampaign refuses the flags the campaign does not use.
func (f *simFlags) validateCampaign() error {
	switch {
	case f.envelope:
		return usagef("--envelope with --scenario %s: the envelope runs one target group's strategies; run --scenario %s without --envelope", scenarioCampaign, scenarioCampaign)
	case f.wire:
		return usagef("--wire with --scenario %s: the campaign's fleet gives its code Go clients, not the SDK over a loopback endpoint", scenarioCampaign)
	case f.preludeSet:
		return usagef("--prelude with --scenario %s: the campaign tells no story; --lead-in is the fleet's time under churn before the plan", scenarioCampaign)
	case f.campaignQuota() > tgmigratetest.MaxTargetsPerLoadBalancer:
		nodes, pods := f.campaignSize()
		return usagef("--nodes %d and --pods %d with --scenario %s: near-alb's quota, 2 x nodes + pods + 1 = %d, must stay within %d, ELBv2's default",
			nodes, pods, scenarioCampaign, f.campaignQuota(), tgmigratetest.MaxTargetsPerLoadBalancer)
	}
	return nil
}

// simulateCampaign runs the campaign scenario and prints it.
func (a *app) simulateCampaign(ctx context.Context, f *simFlags, tm timing.Timings, rep *simReport) error {
	if a.format == "text" {
		fmt.Fprintf(a.stderr, "simulating a campaign over %d clusters (%v of lead-in, then the campaign, then at least %v)...\n",
			len(simFleet), f.leadIn, campaignAfter)
	}
	cr, err := a.runCampaign(ctx, f, tm)
	if err != nil {
		if cerr := context.Cause(ctx); cerr != nil {
			return fmt.Errorf("simulate campaign: %w", err)
		}
		cr = &campaignReport{Error: oneLine(err.Error()), Assumptions: campaignAssumptions(f, tm)}
	}
	rep.Campaign = cr
	// The header's figures are the fleet's: every cluster's nodes, every
	// application's pods, the churn's pace.
	rep.Nodes, rep.Pods = f.campaignSize()
	rep.ChurnInterval, rep.Scenarios = f.campaignChurnInterval().Seconds(), []simOutcome{}
	if err := a.printSimReport(*rep, func() {
		if a.format == "markdown" {
			writeCampaignMarkdown(a.stdout, cr)
			return
		}
		heading(a.stdout, fmt.Sprintf("Campaign: %d accounts, %d clusters, %s, seed %d, %s churn", len(cr.Accounts), len(simFleet),
			textcell.Plural(len(cr.TargetGroups), "target group", "target groups"), rep.Seed, rep.Churn))
		writeCampaign(a.stdout, cr)
	}); err != nil {
		return err
	}
	return cr.failure()
}

// failure is the error simulate exits with (3) when the campaign's run
// failed, a migrated target group lost a request from its cutover's
// start on (its window and after it) that a call at that start could
// have saved, or a load balancer went above its quota. The requests
// under way at its start (campaignTG.FailedUnderWayAtStart) are the
// cutover's claim's exception, as simulate's other scenarios count them,
// and so are those lost after it to its load balancer's target quota
// (campaignTG.FailedAtQuotaAfter: the controller's target group then,
// its registrations refused by ELBv2): the text reports them, row by
// row, and they fail nothing.
func (r *campaignReport) failure() error {
	if r.Error != "" {
		return &failedError{err: errors.New("simulate: campaign failed: " + r.Error)}
	}
	var bad []string
	for _, tg := range r.TargetGroups {
		if n := tg.avoidable(); tg.Status == campaign.StatusDone && n > 0 {
			atQuota := ""
			if tg.FailedAtQuotaAfter > 0 {
				atQuota = fmt.Sprintf(", %d after it at its load balancer's target quota", tg.FailedAtQuotaAfter)
			}
			bad = append(bad, fmt.Sprintf("%s (%s) lost %s from its cutover's start on that a call at its start could have saved (and %d under way at it%s)",
				tg.Name, tg.Cluster, textcell.Plural(n, "request", "requests"), tg.FailedUnderWayAtStart, atQuota))
		}
	}
	for _, lb := range r.LoadBalancers {
		if lb.PeakTargets > lb.Quota {
			bad = append(bad, fmt.Sprintf("%s peaked at %d targets, above its quota %d", lb.Name, lb.PeakTargets, lb.Quota))
		}
	}
	if len(bad) > 0 {
		return &failedError{err: fmt.Errorf("simulate: campaign: %s", strings.Join(bad, "; "))}
	}
	return nil
}

// writeUnderWay says, for each target group that lost requests under way
// at its cutover's start, how many, to which nodes, and how many a call
// could have saved.
func writeUnderWay(w io.Writer, r *campaignReport) {
	for _, tg := range r.TargetGroups {
		if tg.FailedUnderWayAtStart == 0 {
			continue
		}
		fmt.Fprint(w, textcell.Wrap(fmt.Sprintf("%s: %d of the %d requests lost from its cutover's start (%.0f s) on were under way at it, "+
			"sent before %.0f s to the targets of %s, which Karpenter had begun to replace before it: no call could save them; "+
			"%d lost that one could.", tg.Name, tg.FailedUnderWayAtStart, tg.Window.Failed+tg.After.Failed, tg.FromSeconds,
			tg.FromSeconds+r.DeregistrationLagSeconds, strings.Join(tg.UnderWayNodes, ", "), tg.avoidable()), campaignColumns, "  ", "    "))
	}
}

// writeAtQuota says, for each target group that lost requests after its
// cutover to its load balancer's target quota, how many, on which nodes'
// spot interruptions, and why no call of tgmigrate's could save them.
func writeAtQuota(w io.Writer, r *campaignReport) {
	for _, tg := range r.TargetGroups {
		if tg.FailedAtQuotaAfter == 0 {
			continue
		}
		fmt.Fprint(w, textcell.Wrap(fmt.Sprintf("%s: %d of the %d requests lost after its cutover (from %.0f s) were lost to %s's target quota "+
			"(%d, draining targets counted), on the spot interruptions of %s: ELBv2 refused the controller's RegisterTargets of replacement "+
			"pods (TooManyTargets), which it retries only with its per-item back-off or at the binding's next change, as the real one does; "+
			"their readiness gates stayed False, so the pods' PodDisruptionBudget refused the drain's evictions until the two-minute deadline "+
			"killed the pods still registered, and the load balancer sent them requests until their deregistration and its lag. The target "+
			"group is the controller's then: no call could save them; headroom under the quota would. %d lost that a call could save.",
			tg.Name, tg.FailedAtQuotaAfter, tg.After.Failed, tg.ToSeconds, tg.LoadBalancer, r.TargetsPerLoadBalancer,
			strings.Join(tg.AtQuotaNodes, ", "), tg.avoidable()), campaignColumns, "  ", "    "))
	}
}

// writeCampaign renders the campaign's report.
func writeCampaign(w io.Writer, r *campaignReport) {
	if r.Error != "" {
		fmt.Fprintf(w, "The campaign's run failed: %s\n", r.Error)
		return
	}
	fmt.Fprintln(w, "The plan, as campaign.PlanCampaign made it:")
	fmt.Fprintln(w)
	fmt.Fprint(w, indentText(r.plan.Text(), "  "))
	fmt.Fprintln(w)
	fmt.Fprintf(w, "campaign.Execute with an error budget of %d (one failure rolled back, the campaign goes on), every wave approved at once:\n\n", r.ErrorBudget)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "target group\tcluster\tload balancer\twave\tstatus\twindow s\tsettle s\tfloor s\tfailed before/window/after\tunder way\trequests")
	for _, tg := range r.TargetGroups {
		window := "-"
		if tg.ToSeconds > 0 {
			window = fmt.Sprintf("%.0f-%.0f", tg.FromSeconds, tg.ToSeconds)
		}
		floor := "-"
		if tg.FloorSeconds > 0 {
			floor = fmt.Sprintf("%.0f", tg.FloorSeconds)
		}
		failed := fmt.Sprintf("%d/%d/%d", tg.Before.Failed, tg.Window.Failed, tg.After.Failed)
		if tg.ToSeconds == 0 {
			failed = fmt.Sprintf("%d/-/-", tg.Before.Failed)
		}
		settle, underWay := "-", "-"
		if tg.ToSeconds > 0 {
			settle, underWay = fmt.Sprintf("%.0f", tg.SettleSeconds), fmt.Sprint(tg.FailedUnderWayAtStart)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n", tg.Name, tg.Cluster, tg.LoadBalancer, tg.Wave, tg.Status, window, settle, floor, failed,
			underWay, tg.Before.Requests+tg.Window.Requests+tg.After.Requests)
	}
	_ = tw.Flush()
	fmt.Fprint(w, textcell.Wrap("before: from the run's start to the cutover's, the hand-made target group under churn; window: "+
		"the campaign entry's start to its end (settle: its hold step letting Karpenter's disruptions under way run out); "+
		"after: to the run's end; under way: of the window's and after's failed requests, those sent within the worlds' "+
		fmt.Sprintf("deregistration lag (%v) of the entry's start ", time.Duration(r.DeregistrationLagSeconds*float64(time.Second)))+
		"to targets of nodes Karpenter had begun to replace before it, which no call could save: the cutover's first act "+
		"retires those targets, and the load balancer still sends them requests for the lag, while the nodes go whatever "+
		"the hold says; exit 3 counts the others only.)", campaignColumns, "  (", "   "))
	writeUnderWay(w, r)
	writeAtQuota(w, r)
	var replanned []string
	changed := map[string]bool{}
	for _, tg := range r.TargetGroups {
		if tg.Replanned != nil {
			replanned = append(replanned, tg.Name)
			for _, c := range tg.Replanned {
				changed[c] = true
			}
		}
	}
	if len(replanned) > 0 {
		fmt.Fprint(w, textcell.Wrap(fmt.Sprintf("Re-planned as they were to start, their plans stale under the churn (%s changed): %s.",
			strings.Join(slices.Sorted(maps.Keys(changed)), ", "), strings.Join(replanned, ", ")), campaignColumns, "  ", "    "))
	}
	for _, tg := range r.TargetGroups {
		if tg.Reason == "" && tg.Next == "" {
			continue
		}
		fmt.Fprint(w, textcell.Wrap(fmt.Sprintf("%s (%s): %s", tg.Name, tg.Status, textcell.OrDash(tg.Reason)), campaignColumns, "  ", "      "))
		if tg.Arranged != "" {
			fmt.Fprint(w, textcell.Wrap("arranged: "+tg.Arranged, campaignColumns, "    ", "      "))
		}
		if tg.Next != "" {
			fmt.Fprint(w, textcell.Wrap("next: "+tg.Next, campaignColumns, "    ", "      "))
		}
	}
	if r.Progress != nil {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "The live view as tgmigrate campaign run draws it (campaign.StepTracker.Status), once %s:\n\n", r.progressAfter)
		fmt.Fprint(w, indentText(r.Progress.Text(), "  "))
	}
	fmt.Fprintln(w)
	t := r.Totals
	fmt.Fprintf(w, "%s: %d done, %d rolled back, %d failed, %d blocked, %d skipped; completed %v, finished %v.\n",
		textcell.Plural(t.Entries, "target group", "target groups"), t.Done, t.RolledBack, t.Failed, t.Blocked, t.Skipped, r.Completed, r.Finished)
	if r.Stop != "" {
		fmt.Fprintf(w, "Execute returned: %s\n", r.Stop)
	}
	verdict := "within"
	if r.SettledRatio > campaignRatioBound {
		verdict = "NOT within"
	}
	fmt.Fprintf(w, "Wall time on the fleet's clock, Execute's start (%.0f s into the run) to its end: %.0f s.\n", r.ExecuteFromSeconds, r.WallSeconds)
	fmt.Fprintf(w, "  against the plan's critical path, %d s (serial %d s): ratio %.3f;\n", r.CriticalPathSeconds, r.SerialSeconds, r.Ratio)
	fmt.Fprintf(w, "  against the same path with each migrated cutover's settle and each failed one's measured time, %d s:\n", r.SettledPathSeconds)
	fmt.Fprintf(w, "  ratio %.3f, %s %.2f.\n", r.SettledRatio, verdict, campaignRatioBound)
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "account\tclusters\tAPI calls: plan\texecute\ttotal\tof which the cutovers' ELBv2 (Result.Calls)")
	for _, a := range r.Accounts {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\n", a.ID, strings.Join(a.Clusters, ", "), a.PlanCalls, a.ExecuteCalls, a.Calls, a.CutoverELBv2Calls)
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "  (API calls: the sum of World.Calls of the account's clusters, ELBv2, EC2 and Service Quotas, the code under test's.)")
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "load balancer\taccount\tpeak targets\tquota\ttargets at plan\tbudget\tat once\ttarget groups it limits")
	over := 0
	for _, lb := range r.LoadBalancers {
		if lb.PeakTargets > lb.Quota {
			over++
		}
		if !lb.Limited {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t-\t-\t-\tnone runnable\n", lb.Name, lb.AccountID, lb.PeakTargets, lb.Quota)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d (%s)\t%d\t%d\t%d\t%s\n", lb.Name, lb.AccountID, lb.PeakTargets, lb.Quota, lb.QuotaSource, lb.Now, lb.Budget, lb.MaxConcurrent, strings.Join(lb.TargetGroups, ", "))
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "  (peak: the most targets at once in the whole run, draining ones included, as the quota counts them; %s above its quota.)\n",
		textcell.Plural(over, "load balancer", "load balancers"))
	fmt.Fprintln(w)
	for _, e := range r.PlanErrors {
		fmt.Fprintf(w, "plan error: %s\n", oneLine(e))
	}
	fmt.Fprintln(w, "Assumptions:")
	for _, a := range r.Assumptions {
		fmt.Fprintf(w, "  - %s\n", a)
	}
}

// lbName is a load balancer ARN's name ("legacy-alb-prod-a").
func lbName(arn string) string {
	_, rest, ok := strings.Cut(arn, ":loadbalancer/")
	if !ok {
		return arn
	}
	parts := strings.Split(rest, "/")
	if len(parts) >= 2 {
		return parts[1]
	}
	return rest
}

// indentText prefixes every non-empty line of s.
func indentText(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// writeCampaignMarkdown renders the campaign's own report
// (campaign.Report.Markdown), then what the simulator measured besides:
// each load balancer's peak against its quota, the wall time against the
// settled path, the calls per account, the assumptions.
func writeCampaignMarkdown(w io.Writer, r *campaignReport) {
	if r.Error != "" || r.Report == nil {
		fmt.Fprintf(w, "# Campaign\n\nThe campaign's run failed: %s\n", textcell.Markdown(r.Error))
		return
	}
	fmt.Fprint(w, r.Report.Markdown())
	md := textcell.Markdown
	fmt.Fprintf(w, "\n## Simulated fleet\n\n")
	fmt.Fprintf(w, "Wall time %.0f s against the critical path's %d s (ratio %.3f); with the settles no plan knows and the failed cutover's measured time, %d s (ratio %.3f, bound %.2f).\n\n",
		r.WallSeconds, r.CriticalPathSeconds, r.Ratio, r.SettledPathSeconds, r.SettledRatio, campaignRatioBound)
	fmt.Fprintf(w, "| Target group | Cluster | Status | Failed before / window / after | Under way at its start | Settle s |\n|---|---|---|---:|---:|---:|\n")
	for _, tg := range r.TargetGroups {
		failed, underWay := fmt.Sprintf("%d / - / -", tg.Before.Failed), "-"
		if tg.ToSeconds > 0 {
			failed, underWay = fmt.Sprintf("%d / %d / %d", tg.Before.Failed, tg.Window.Failed, tg.After.Failed), fmt.Sprint(tg.FailedUnderWayAtStart)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %.0f |\n", md(tg.Name), md(tg.Cluster), tg.Status, failed, underWay, tg.SettleSeconds)
	}
	fmt.Fprintf(w, "\nUnder way at its start: of the failed requests from a target group's cutover's start on, those sent within the deregistration lag (%v) of it to targets of nodes Karpenter had begun to replace before it, which no call could save.\n",
		time.Duration(r.DeregistrationLagSeconds*float64(time.Second)))
	for _, tg := range r.TargetGroups {
		if tg.FailedAtQuotaAfter > 0 {
			fmt.Fprintf(w, "\n%s lost %d of its %d failed requests after its cutover to %s's target quota (%d, draining targets counted), on the spot interruptions of %s: ELBv2 refused the controller's registrations of replacement pods (retried with its per-item back-off), their readiness gates stayed False, and the pods' PodDisruptionBudget held the drains until the two-minute deadline killed the pods still registered. No call could save them.\n",
				md(tg.Name), tg.FailedAtQuotaAfter, tg.After.Failed, md(tg.LoadBalancer), r.TargetsPerLoadBalancer, md(strings.Join(tg.AtQuotaNodes, ", ")))
		}
	}
	fmt.Fprintf(w, "\n| Load balancer | Account | Peak targets | Quota | At once | Target groups it limits |\n|---|---|---:|---:|---:|---|\n")
	for _, lb := range r.LoadBalancers {
		at, tgs := "-", "none runnable"
		if lb.Limited {
			at, tgs = fmt.Sprint(lb.MaxConcurrent), strings.Join(lb.TargetGroups, ", ")
		}
		fmt.Fprintf(w, "| %s | %s | %d | %d | %s | %s |\n", md(lb.Name), lb.AccountID, lb.PeakTargets, lb.Quota, at, md(tgs))
	}
	fmt.Fprintf(w, "\n| Account | Clusters | API calls: plan | execute | total |\n|---|---|---:|---:|---:|\n")
	for _, a := range r.Accounts {
		fmt.Fprintf(w, "| %s | %s | %d | %d | %d |\n", a.ID, md(strings.Join(a.Clusters, ", ")), a.PlanCalls, a.ExecuteCalls, a.Calls)
	}
	fmt.Fprintf(w, "\nAssumptions:\n\n")
	for _, a := range r.Assumptions {
		fmt.Fprintf(w, "- %s\n", md(a))
	}
}
