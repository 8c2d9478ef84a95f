package main

// simulate_campaign_test.go: simulate --scenario campaign end to end: the
// acceptance of issue 36's point 5 on its report, checked against the
// fleet's own counts; the flags it refuses.

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// runCampaignCLI runs simulate --scenario campaign in-process with args
// and returns its exit code, output, and the fleet it built.
func runCampaignCLI(t *testing.T, args ...string) (int, string, string, *tgmigratetest.Fleet) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	var fleet *tgmigratetest.Fleet
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, onFleet: func(f *tgmigratetest.Fleet) { fleet = f }}
	code := a.run(t.Context(), append([]string{"simulate", "--scenario", "campaign"}, args...))
	return code, stdout.String(), stderr.String(), fleet
}

// TestSimulateCampaign: every migrated target group lost no request in
// any of its windows, and every runnable one migrated; the windows add
// up to its world's requests; the campaign's wall time is within 1.05 of
// its critical path once the settles no plan knows are added, and not
// below the plan's own path; every account's calls are its worlds' sums;
// the text says it all.
func TestSimulateCampaign(t *testing.T) {
	t.Parallel()
	code, stdout, stderr, fleet := runCampaignCLI(t, "--format", "json", "--seed", "3", "--duration", "5m")
	if code != exitOK {
		t.Fatalf("exit code %d, stderr %q", code, stderr)
	}
	var rep simReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("output is not one JSON object: %v\n%s", err, stdout)
	}
	c := rep.Campaign
	if rep.Scenario != scenarioCampaign || c == nil || c.Error != "" {
		t.Fatalf("report %+v, campaign %+v", rep, c)
	}
	if len(c.Accounts) != 2 || len(c.Clusters) != 3 || len(c.TargetGroups) != len(fleet.Worlds()) {
		t.Fatalf("%d accounts, %d clusters, %d target groups", len(c.Accounts), len(c.Clusters), len(c.TargetGroups))
	}
	byARN := map[string]*tgmigratetest.World{}
	for _, w := range fleet.Worlds() {
		byARN[w.Legacy().TargetGroupARN.Raw] = w
	}
	for _, tg := range c.TargetGroups {
		w := byARN[tg.TargetGroupARN]
		switch {
		case w == nil:
			t.Errorf("%s: no world of the fleet holds it", tg.Name)
			continue
		case tg.Status != campaign.StatusDone:
			t.Errorf("%s: %s (%s), want done", tg.Name, tg.Status, tg.Reason)
		case tg.failed() != 0:
			t.Errorf("%s: failed %d/%d/%d before, in and after its window, want none", tg.Name, tg.Before.Failed, tg.Window.Failed, tg.After.Failed)
		case tg.ToSeconds <= tg.FromSeconds || tg.FromSeconds < c.ExecuteFromSeconds || tg.Window.Requests == 0 || tg.After.Requests == 0:
			t.Errorf("%s: window %v-%v (Execute from %v), %d requests in it, %d after", tg.Name, tg.FromSeconds, tg.ToSeconds, c.ExecuteFromSeconds, tg.Window.Requests, tg.After.Requests)
		}
		// Each target group is its world's only one: its windows hold
		// every request its world counted since the warm-up.
		if got, all := tg.Before.Requests+tg.Window.Requests+tg.After.Requests, w.Requests().Total; got == 0 || got > all {
			t.Errorf("%s: windows add up to %d requests, its world counted %d", tg.Name, got, all)
		}
	}
	if c.Totals.Done != len(c.TargetGroups) || !c.Completed || c.Stop != "" {
		t.Errorf("totals %+v, completed %v, stop %q", c.Totals, c.Completed, c.Stop)
	}
	// The wall time against the critical path.
	switch {
	case c.CriticalPathSeconds <= 0 || c.WallSeconds < float64(c.CriticalPathSeconds):
		t.Errorf("wall %vs below the critical path %ds", c.WallSeconds, c.CriticalPathSeconds)
	case c.SettledPathSeconds < c.CriticalPathSeconds || c.SettledRatio > campaignRatioBound || c.SettledRatio < 1:
		t.Errorf("wall %vs against the settled path %ds: ratio %v, want 1 to %v", c.WallSeconds, c.SettledPathSeconds, c.SettledRatio, campaignRatioBound)
	}
	// The calls per account are the sums of its worlds' World.Calls.
	sums := map[string]int{}
	for _, w := range fleet.Worlds() {
		for _, n := range w.Calls() {
			sums[w.AccountID()] += n
		}
	}
	for _, a := range c.Accounts {
		if a.Calls != sums[a.ID] || a.PlanCalls <= 0 || a.ExecuteCalls <= 0 || a.PlanCalls+a.ExecuteCalls != a.Calls || a.CutoverELBv2Calls <= 0 || a.CutoverELBv2Calls > a.ExecuteCalls {
			t.Errorf("account %s: %+v, its worlds counted %d", a.ID, a, sums[a.ID])
		}
	}
	if len(c.LoadBalancers) == 0 {
		t.Errorf("no load balancer in the plan's limits")
	}
	for _, lb := range c.LoadBalancers {
		if lb.Quota <= 0 || lb.Now <= 0 || lb.Now > lb.Quota || len(lb.TargetGroups) == 0 {
			t.Errorf("load balancer %+v", lb)
		}
	}

	// The same run in text says the same.
	code, text, stderr, _ := runCampaignCLI(t, "--seed", "3", "--duration", "5m")
	if code != exitOK {
		t.Fatalf("text: exit code %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"The plan, as campaign.PlanCampaign made it", "error budget of 1", "failed before/window/after",
		"within 1.05", "API calls: plan", "Assumptions:", c.TargetGroups[0].Name} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

// TestSimulateCampaignRefusedFlags: the flags the campaign does not use
// are refused, in one line, before anything runs.
func TestSimulateCampaignRefusedFlags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--envelope"}, "--envelope with --scenario campaign"},
		{[]string{"--wire"}, "--wire with --scenario campaign"},
		{[]string{"--prelude", "5m"}, "--prelude with --scenario campaign"},
		{[]string{"--seeds", "3"}, "--seeds 3: only --envelope"},
	} {
		t.Run(tt.args[0], func(t *testing.T) {
			code, stdout, stderr, fleet := runCampaignCLI(t, tt.args...)
			if code != exitUsage || fleet != nil || stdout != "" {
				t.Errorf("exit code %d, fleet built %v, stdout %q; want a usage error before anything runs", code, fleet != nil, stdout)
			}
			if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 || !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q, want one line with %q", stderr, tt.want)
			}
		})
	}
}
