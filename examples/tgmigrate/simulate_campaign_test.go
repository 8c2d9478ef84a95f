package main

// simulate_campaign_test.go: simulate --scenario campaign end to end: the
// acceptance of issue 36's point 5 on its report, checked against the
// fleet's own counts; its text and Markdown; the requests under way at a
// cutover's start, at a one-minute churn, and the exit status; those lost
// after a cutover to the load balancer's target quota under spot churn;
// the flags it refuses.

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// runCampaignCLI runs simulate --scenario campaign in-process with args
// and returns its exit code, output, and the fleet and report of its run
// (nil when it ran none).
func runCampaignCLI(t *testing.T, args ...string) (int, string, string, *tgmigratetest.Fleet, *campaignReport) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	var fleet *tgmigratetest.Fleet
	var rep *campaignReport
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		onCampaign: func(f *tgmigratetest.Fleet, r *campaignReport) { fleet, rep = f, r }}
	code := a.run(t.Context(), append([]string{"simulate", "--scenario", "campaign"}, args...))
	return code, stdout.String(), stderr.String(), fleet, rep
}

// TestSimulateCampaign: two accounts, three clusters, twelve target
// groups under churn. Every runnable target group but the one whose
// controller is denied RegisterTargets migrated, with no failed request
// in its cutover window or after it; that one is rolled back, with its
// reason and next call, and the campaign went on (budget 1); the one in
// the namespace without the readiness-gate label is blocked by its
// precondition, with its next call; the near-quota ALB's two target
// groups ran one after the other; no load balancer went above its quota;
// the wall time is within 1.05 of the critical path with the settles no
// plan knows; every account's calls are its worlds' sums; the text and
// the Markdown say it, and the README shows this run.
func TestSimulateCampaign(t *testing.T) {
	t.Parallel() // a simulate run of its own
	// The README's run: its block is an abridged transcript of this
	// output (TestREADMESimulateTour's rules), so what it shows is what
	// this test asserts. The JSON is TestSimulateCampaignSpot's.
	code, stdout, stderr, fleet, c := runCampaignCLI(t, "--seed", "3")
	if code != exitOK || c == nil {
		t.Fatalf("exit code %d, report %v, stderr %q", code, c != nil, stderr)
	}
	tour := readmeBlock(t, campaignTourHead)
	if missing := abridgedOf(tour, strings.Split(stdout, "\n")); len(missing) > 0 {
		t.Errorf("README.md's campaign block is not what simulate --scenario campaign --seed 3 prints now; from this line on, nothing in the output matches in order:\n%s", strings.Join(missing, "\n"))
	}
	// The live view, once, after the canaries: every wave-1 entry still
	// running names its cutover step (campaign.StepTracker).
	if c.Progress == nil || c.Progress.Totals.Running == 0 || len(c.Progress.Waves) != len(c.plan.Waves) {
		t.Fatalf("progress %+v: want the live view with entries running", c.Progress)
	}
	for _, w := range c.Progress.Waves {
		for _, e := range w.Entries {
			if e.Status == campaign.StatusRunning && (e.Step == nil || e.Step.Of == 0 || !strings.Contains(c.Progress.Text(), e.Step.String())) {
				t.Errorf("%s runs with no step in the live view: %+v", e.Name, e.Step)
			}
		}
	}
	if len(c.Accounts) != 2 || len(c.Clusters) != 3 || len(c.TargetGroups) < 12 {
		t.Fatalf("%d accounts, %d clusters, %d target groups; want 2, 3, at least 12", len(c.Accounts), len(c.Clusters), len(c.TargetGroups))
	}
	cases, _ := fleetCases(fleet)
	blocked, denied := 0, 0
	near := map[string]campaignTG{}
	for _, tg := range c.TargetGroups {
		fc, ok := cases[tg.TargetGroupARN]
		if !ok {
			t.Errorf("%s: no world of the fleet holds it", tg.Name)
			continue
		}
		if all := fc.world.RequestsOf(fc.legacy.TargetGroupARN).Total; tg.Before.Requests+tg.Window.Requests+tg.After.Requests > all || all == 0 {
			t.Errorf("%s: windows add up to more than its %d requests", tg.Name, all)
		}
		if tg.LoadBalancer == nearALB {
			near[tg.Name] = tg
		}
		switch tg.Arranged {
		case arrangedUngated:
			blocked++
			if tg.Status != campaign.StatusBlocked || !strings.HasPrefix(tg.Reason, string(campaign.ReasonPrecondition)+": pod-settings") || !strings.Contains(tg.Next, "PlanCampaign") || tg.ToSeconds != 0 {
				t.Errorf("%s: %s (%s), next %q; want blocked by its pod-settings precondition, with its next call, never run", tg.Name, tg.Status, tg.Reason, tg.Next)
			}
		case arrangedDenied:
			denied++
			if tg.Status != campaign.StatusRolledBack || !strings.Contains(tg.Reason, "RegisterTargets") || !strings.Contains(tg.Next, "RegisterTargets") || tg.ToSeconds <= tg.FromSeconds {
				t.Errorf("%s: %s (%s), next %q; want rolled back for RegisterTargets, with its next call", tg.Name, tg.Status, tg.Reason, tg.Next)
			}
		default:
			switch {
			case tg.Status != campaign.StatusDone:
				t.Errorf("%s: %s (%s), want done", tg.Name, tg.Status, tg.Reason)
			case tg.Window.Failed != 0 || tg.After.Failed != 0:
				t.Errorf("%s: failed %d in its window and %d after it, want none", tg.Name, tg.Window.Failed, tg.After.Failed)
			case tg.ToSeconds <= tg.FromSeconds || tg.FromSeconds < c.ExecuteFromSeconds || tg.Window.Requests == 0 || tg.After.Requests == 0:
				t.Errorf("%s: window %v-%v (Execute from %v), %d requests in it, %d after", tg.Name, tg.FromSeconds, tg.ToSeconds, c.ExecuteFromSeconds, tg.Window.Requests, tg.After.Requests)
			}
		}
	}
	if blocked != 1 || denied != 1 {
		t.Errorf("%d blocked and %d denied target groups, want one each", blocked, denied)
	}
	if c.Totals.Done != len(c.TargetGroups)-2 || c.Totals.RolledBack != 1 || c.Totals.Blocked != 1 || c.Totals.Skipped != 0 || !c.Finished || c.Stop != "" {
		t.Errorf("totals %+v, finished %v, stop %q; want every other one done, the campaign on to its end", c.Totals, c.Finished, c.Stop)
	}
	// The near-quota ALB: its two target groups one after the other, its
	// peak within its quota.
	if len(near) != 2 {
		t.Fatalf("%d target groups on %s, want 2", len(near), nearALB)
	}
	var spans []campaignTG
	for _, tg := range near {
		spans = append(spans, tg)
	}
	if a, b := spans[0], spans[1]; a.FromSeconds < b.ToSeconds && b.FromSeconds < a.ToSeconds {
		t.Errorf("%s %v-%v and %s %v-%v overlapped on %s", a.Name, a.FromSeconds, a.ToSeconds, b.Name, b.FromSeconds, b.ToSeconds, nearALB)
	}
	for _, lb := range c.LoadBalancers {
		switch {
		case lb.PeakTargets <= 0 || lb.PeakTargets > lb.Quota || lb.Quota != c.TargetsPerLoadBalancer:
			t.Errorf("load balancer %s: peak %d against quota %d (the fleet's %d)", lb.Name, lb.PeakTargets, lb.Quota, c.TargetsPerLoadBalancer)
		case lb.Name == nearALB && (!lb.Limited || lb.MaxConcurrent != 1 || len(lb.TargetGroups) != 2 || lb.PeakTargets <= lb.Now):
			t.Errorf("%s: %+v, want its two target groups one at a time, its peak above its %d targets at plan", nearALB, lb, lb.Now)
		}
	}
	// The wall time against the critical path.
	switch {
	case c.CriticalPathSeconds <= 0 || c.WallSeconds < float64(c.CriticalPathSeconds):
		t.Errorf("wall %vs below the critical path %ds", c.WallSeconds, c.CriticalPathSeconds)
	case c.SettledPathSeconds < c.CriticalPathSeconds || c.SettledRatio > campaignRatioBound || c.SettledRatio < 0.95:
		t.Errorf("wall %vs against the settled path %ds: ratio %v, want within %v", c.WallSeconds, c.SettledPathSeconds, c.SettledRatio, campaignRatioBound)
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
	// The campaign's own report measured the same windows.
	for _, a := range c.Report.Accounts {
		for _, cl := range a.Clusters {
			for _, tg := range cl.TargetGroups {
				if tg.Status == campaign.StatusDone && (tg.Traffic == nil || tg.Traffic.Total == 0 || tg.Traffic.Failed != 0) {
					t.Errorf("report: %s: traffic %+v, want measured, none failed", tg.Name, tg.Traffic)
				}
			}
		}
	}

	var text, md bytes.Buffer
	writeCampaign(&text, c)
	for _, want := range []string{"The plan, as campaign.PlanCampaign made it", "error budget of 1", "failed before/window/after",
		"within 1.05", "API calls: plan", "peak targets", "0 load balancers above its quota", "arranged: " + arrangedUngated,
		"next: grant the controller elasticloadbalancing:RegisterTargets", "Assumptions:"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	writeCampaignMarkdown(&md, c)
	for _, want := range []string{"# Campaign " + c.plan.ID, "## Blocked and failed", "## Simulated fleet", "| " + nearALB + " |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}

// TestCampaignFailure: simulate --scenario campaign exits 3 for a request
// a call at its cutover's start could have saved, not for one under way
// at it nor one lost after it to its load balancer's target quota.
func TestCampaignFailure(t *testing.T) {
	t.Parallel()
	done := func(window, after, underWay int) campaignTG {
		return campaignTG{Name: "tg", Cluster: "c", Status: campaign.StatusDone, Window: campaignWindow{Failed: window},
			After: campaignWindow{Failed: after}, FailedUnderWayAtStart: underWay}
	}
	atQuota := func(tg campaignTG, n int) campaignTG {
		tg.FailedAtQuotaAfter, tg.AtQuotaNodes = n, []string{"n1"}
		return tg
	}
	for _, tt := range []struct {
		name string
		tg   campaignTG
		want string
	}{
		{"none lost", done(0, 0, 0), ""},
		{"none under way", done(2, 0, 0), "lost 2 requests from"},
		{"all under way", done(30, 0, 30), ""},
		{"one more in the window", done(31, 0, 30), "lost 1 request from its cutover's start on that a call at its start could have saved (and 30 under way at it)"},
		{"one after", done(30, 1, 30), "lost 1 request from"},
		{"all after at quota", atQuota(done(0, 40, 0), 40), ""},
		{"one after beside those at quota", atQuota(done(30, 41, 30), 40), "lost 1 request from its cutover's start on that a call at its start could have saved (and 30 under way at it, 40 after it at its load balancer's target quota)"},
		{"rolled back", campaignTG{Status: campaign.StatusRolledBack, Window: campaignWindow{Failed: 5}}, ""},
	} {
		err := (&campaignReport{TargetGroups: []campaignTG{tt.tg}}).failure()
		var failed *failedError
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v, want none", tt.name, err)
		case tt.want != "" && (!errors.As(err, &failed) || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: %v, want a *failedError with %q", tt.name, err, tt.want)
		}
	}
}

// TestSimulateCampaignRefusedFlags: the flags the campaign does not use
// are refused, in one line, before anything runs; markdown is the
// campaign's only.
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
		{[]string{"--nodes", "400", "--pods", "300"}, "near-alb's quota, 2 x nodes + pods + 1 = 1101, must stay within 1000"},
	} {
		t.Run(tt.args[0], func(t *testing.T) {
			code, stdout, stderr, fleet, _ := runCampaignCLI(t, tt.args...)
			if code != exitUsage || fleet != nil || stdout != "" {
				t.Errorf("exit code %d, fleet built %v, stdout %q; want a usage error before anything runs", code, fleet != nil, stdout)
			}
			if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 || !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q, want one line with %q", stderr, tt.want)
			}
		})
	}
	var stdout, stderr bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}
	if code := a.run(t.Context(), []string{"simulate", "--format", "markdown"}); code != exitUsage || !strings.Contains(stderr.String(), "markdown with --scenario campaign") {
		t.Errorf("simulate --format markdown: exit code %d, stderr %q; want a usage error naming the campaign", code, stderr.String())
	}
}

// TestSimulateCampaignSpot: under spot churn (seed 4, 5 requests a
// second) two kinds of loss no call could save show, each counted apart
// and explained, and exit 3 counts neither: requests under way at a
// cutover's start to the targets of a node Karpenter was already
// replacing (failedUnderWayAtStart: World.FailedUnderWay's figure, to
// one node each), and requests lost after a cutover to its load
// balancer's target quota (failedAtQuotaAfter: draining targets filled
// it, the controller's registrations were refused, the spot deadline
// killed pods still registered; the load balancer at its quota, never
// above). The JSON carries both.
func TestSimulateCampaignSpot(t *testing.T) {
	t.Parallel() // a simulate run of its own
	code, stdout, stderr, fleet, c := runCampaignCLI(t, "--format", "json", "--seed", "4", "--churn", "spot", "--rps", "5")
	if code != exitOK || c == nil {
		t.Fatalf("exit code %d, report %v, stderr %q", code, c != nil, stderr)
	}
	var rep struct {
		Campaign struct {
			TargetGroups []struct {
				Name                  string   `json:"name"`
				FailedUnderWayAtStart *int     `json:"failedUnderWayAtStart"`
				FailedAtQuotaAfter    *int     `json:"failedAtQuotaAfter"`
				AtQuotaNodes          []string `json:"atQuotaNodes"`
			} `json:"targetGroups"`
			DeregistrationLagSeconds float64 `json:"deregistrationLagSeconds"`
		} `json:"campaign"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || len(rep.Campaign.TargetGroups) != len(c.TargetGroups) || rep.Campaign.DeregistrationLagSeconds != 15 {
		t.Fatalf("JSON %+v (%v), want every row and the 15 s lag", rep.Campaign, err)
	}
	cases, _ := fleetCases(fleet)
	underWay, atQuota := 0, 0
	for i, tg := range c.TargetGroups {
		j := rep.Campaign.TargetGroups[i]
		if j.FailedUnderWayAtStart == nil || *j.FailedUnderWayAtStart != tg.FailedUnderWayAtStart {
			t.Errorf("%s: JSON failedUnderWayAtStart %v, want %d", tg.Name, j.FailedUnderWayAtStart, tg.FailedUnderWayAtStart)
		}
		if j.FailedAtQuotaAfter == nil || *j.FailedAtQuotaAfter != tg.FailedAtQuotaAfter || !slices.Equal(j.AtQuotaNodes, tg.AtQuotaNodes) {
			t.Errorf("%s: JSON failedAtQuotaAfter %v on %v, want %d on %v", tg.Name, j.FailedAtQuotaAfter, j.AtQuotaNodes, tg.FailedAtQuotaAfter, tg.AtQuotaNodes)
		}
		if tg.Status != campaign.StatusDone {
			continue
		}
		fc := cases[tg.TargetGroupARN]
		k := slices.IndexFunc(c.result.Entries, func(e campaign.EntryResult) bool { return e.TargetGroupARN == tg.TargetGroupARN })
		if k < 0 {
			t.Fatalf("%s: not in Execute's result", tg.Name)
		}
		u := fc.world.FailedUnderWay(fc.legacy.TargetGroupARN, c.result.Entries[k].StartedAt)
		switch {
		case tg.avoidable() != 0:
			t.Errorf("%s: lost %d/%d/%d before/window/after, %d under way at its start, %d after it at quota: %d a call could have saved", tg.Name,
				tg.Before.Failed, tg.Window.Failed, tg.After.Failed, tg.FailedUnderWayAtStart, tg.FailedAtQuotaAfter, tg.avoidable())
		case u.Failed != tg.FailedUnderWayAtStart || !slices.Equal(u.Nodes, tg.UnderWayNodes):
			t.Errorf("%s: %d under way at its start, to %v; World.FailedUnderWay says %+v", tg.Name, tg.FailedUnderWayAtStart, tg.UnderWayNodes, u)
		case tg.FailedUnderWayAtStart > 0 && len(tg.UnderWayNodes) != 1:
			t.Errorf("%s: %d under way at its start, to %v; want the one node Karpenter was replacing", tg.Name, tg.FailedUnderWayAtStart, tg.UnderWayNodes)
		case tg.FailedAtQuotaAfter > tg.After.Failed || (tg.FailedAtQuotaAfter > 0) != (len(tg.AtQuotaNodes) > 0):
			t.Errorf("%s: %d at quota on %v of %d failed after its cutover", tg.Name, tg.FailedAtQuotaAfter, tg.AtQuotaNodes, tg.After.Failed)
		}
		if tg.FailedAtQuotaAfter > 0 {
			// Its load balancer was at its quota, never above it.
			if peak := fc.world.PeakTargets(fc.legacy.LoadBalancerARN); peak != c.TargetsPerLoadBalancer {
				t.Errorf("%s: %s peaked at %d targets, want its quota %d", tg.Name, tg.LoadBalancer, peak, c.TargetsPerLoadBalancer)
			}
		}
		underWay += tg.FailedUnderWayAtStart
		atQuota += tg.FailedAtQuotaAfter
	}
	if underWay == 0 || atQuota == 0 {
		t.Fatalf("%d under way at a cutover's start, %d at quota after: the run no longer shows both cases", underWay, atQuota)
	}
	var text, md bytes.Buffer
	writeCampaign(&text, c)
	writeCampaignMarkdown(&md, c)
	flat := strings.Join(strings.Fields(text.String()), " ") // the text wraps
	for _, want := range []string{"under way", "were under way at it", "deregistration lag (15s)", "(TooManyTargets)", "PodDisruptionBudget",
		"no call could save them; headroom under the quota would."} {
		if !strings.Contains(flat, want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if !strings.Contains(md.String(), "| Under way at its start |") || !strings.Contains(md.String(), "target quota") {
		t.Errorf("markdown lacks the under-way column or the at-quota line:\n%s", md.String())
	}
}
