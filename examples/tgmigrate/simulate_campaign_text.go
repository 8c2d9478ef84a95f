package main

// simulate_campaign_text.go: simulate --scenario campaign's flags (the
// ones it refuses), its run from runSimulate, its text (the plan, a row
// per target group, the wall time against the critical path, the calls
// per account, the load balancers' limits) and its exit status.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/internal/sim/timing"
	"github.com/qstools/tgmigrate/internal/textcell"
)

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
	}
	return nil
}

// simulateCampaign runs the campaign scenario and prints it.
func (a *app) simulateCampaign(ctx context.Context, f *simFlags, tm timing.Timings, rep *simReport) error {
	if a.format == "text" {
		fmt.Fprintf(a.stderr, "simulating a campaign over %d clusters (%v of lead-in, then the campaign, then at least %v)...\n",
			len(campaignFleet), f.leadIn, campaignAfter)
	}
	cr, err := a.runCampaign(ctx, f, tm)
	if err != nil {
		if cerr := context.Cause(ctx); cerr != nil {
			return fmt.Errorf("simulate campaign: %w", err)
		}
		cr = &campaignReport{Error: oneLine(err.Error()), Assumptions: campaignAssumptions(f, tm)}
	}
	rep.Campaign = cr
	if err := a.printSimReport(*rep, func() {
		heading(a.stdout, fmt.Sprintf("Campaign: %d accounts, %d clusters, seed %d, %s churn", len(cr.Accounts), len(campaignFleet), rep.Seed, rep.Churn))
		writeCampaign(a.stdout, cr)
	}); err != nil {
		return err
	}
	return cr.failure()
}

// failure is the error simulate exits with (3) when the campaign's run
// failed, or a migrated target group lost a request in its windows.
func (r *campaignReport) failure() error {
	if r.Error != "" {
		return &failedError{err: errors.New("simulate: campaign failed: " + r.Error)}
	}
	var lost []string
	for _, tg := range r.TargetGroups {
		if tg.Status == campaign.StatusDone && tg.failed() > 0 {
			lost = append(lost, fmt.Sprintf("%s (%s) %d", tg.Name, tg.Cluster, tg.failed()))
		}
	}
	if len(lost) > 0 {
		return &failedError{err: fmt.Errorf("simulate: campaign: migrated target groups lost requests: %s", strings.Join(lost, ", "))}
	}
	return nil
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
	fmt.Fprintln(tw, "target group\tcluster\taccount\twave\tstatus\twindow s\tsettle s\tfloor s\tfailed before/window/after\trequests")
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
		settle := "-"
		if tg.ToSeconds > 0 {
			settle = fmt.Sprintf("%.0f", tg.SettleSeconds)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n", tg.Name, tg.Cluster, tg.AccountID, tg.Wave, tg.Status, window, settle, floor, failed,
			tg.Before.Requests+tg.Window.Requests+tg.After.Requests)
	}
	_ = tw.Flush()
	for _, tg := range r.TargetGroups {
		if tg.Reason == "" && tg.Next == "" {
			continue
		}
		fmt.Fprintf(w, "  %s (%s): %s\n", tg.Name, tg.Status, textcell.OrDash(tg.Reason))
		if tg.Next != "" {
			fmt.Fprintf(w, "    next: %s\n", tg.Next)
		}
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
	fmt.Fprintf(w, "  against the same path with what no plan knows (each migrated cutover's settle, each failed one's measured time), %d s: ratio %.3f, %s %.2f.\n",
		r.SettledPathSeconds, r.SettledRatio, verdict, campaignRatioBound)
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
	fmt.Fprintln(tw, "load balancer\taccount\tquota\tsource\ttargets at plan\tbudget\tat once\ttarget groups")
	for _, lb := range r.LoadBalancers {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d\t%d\t%d\t%s\n", lbName(lb.ARN), lb.AccountID, lb.Quota, lb.QuotaSource, lb.Now, lb.Budget, lb.MaxConcurrent, strings.Join(lb.TargetGroups, ", "))
	}
	_ = tw.Flush()
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
