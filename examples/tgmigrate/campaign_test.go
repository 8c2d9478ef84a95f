package main

// campaign_test.go: the campaign commands end to end on a simulated
// fleet (the test kit's, two clusters in two accounts) through the
// newCampaignClients seam: plan, the dry run that changes nothing, a run
// whose second wave is refused on a non-terminal stdin, a run interrupted
// as its second wave starts, and the resume its own line prints.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// campaignFleet is two small clusters: prod-a in account 111111111111,
// staging in 222222222222.
func campaignFleet(t *testing.T) *tgmigratetest.Fleet {
	t.Helper()
	opts := func(seed uint64) tgmigratetest.Options {
		return tgmigratetest.Options{Seed: seed, Nodes: 3, Pods: 6, ReadinessGateInjection: true}
	}
	f, err := tgmigratetest.NewFleet(t.Context(), tgmigratetest.FleetOptions{Clusters: []tgmigratetest.ClusterOptions{
		{Name: "prod-a", AccountID: "111111111111", Options: opts(1)},
		{Name: "staging", AccountID: "222222222222", Options: opts(2)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

// fleetClients is the seam's stand-in: each context "ctx-CLUSTER" reaches
// the fleet's world CLUSTER; every account of the fleet, when asked for.
// built counts its calls.
func fleetClients(f *tgmigratetest.Fleet, built *int) func(context.Context, campaignNeed) (*campaignClients, error) {
	return func(_ context.Context, need campaignNeed) (*campaignClients, error) {
		*built++
		out := &campaignClients{Clusters: map[string]campaignCluster{}, Clock: f.Clock(), Parallel: f.Parallel}
		for _, s := range need.Clusters {
			w := f.World(strings.TrimPrefix(s.Context, "ctx-"))
			if w == nil {
				return nil, usagef("--cluster %s: no such context", s)
			}
			out.Clusters[s.Name] = campaignCluster{Client: w.Client(), VPCID: w.VPCID(), CIDRs: w.Cluster().CIDRs, Assumptions: w.Assumptions()}
		}
		if !need.AWS {
			return out, nil
		}
		for _, w := range f.Worlds() {
			out.Accounts = append(out.Accounts, campaignAccount{ID: w.AccountID(), Region: tgmigratetest.Region,
				ELBv2Read: w.ELBv2Read(), ELBv2: w.ELBv2(), ServiceQuotas: w.ServiceQuotas()})
		}
		return out, nil
	}
}

// lockedBuffer is a writer the scheduler's workers and the test share;
// cancel is called once a write holds trigger.
type lockedBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	trigger string
	cancel  func()
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cancel != nil && strings.Contains(string(p), l.trigger) {
		l.cancel()
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// fleetState is what a run may change: each world's target group's
// targets, and the campaign journal ConfigMap (absent: "").
func fleetState(t *testing.T, f *tgmigratetest.Fleet) string {
	t.Helper()
	var b strings.Builder
	for _, w := range f.Worlds() {
		arn := w.Legacy().TargetGroupARN.Raw
		out, err := w.ELBv2Read().DescribeTargetHealth(t.Context(), &elbv2.DescribeTargetHealthInput{TargetGroupArn: &arn})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, d := range out.TargetHealthDescriptions {
			ids = append(ids, fmt.Sprintf("%s:%d", *d.Target.Id, *d.Target.Port))
		}
		slices.Sort(ids)
		fmt.Fprintf(&b, "%s %v\n", w.ClusterName(), ids)
	}
	var cm corev1.ConfigMap
	err := f.World("prod-a").Client().Get(t.Context(), client.ObjectKey{Namespace: "default", Name: "campaign-journal"}, &cm)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		t.Fatal(err)
	default:
		fmt.Fprintf(&b, "journal %s\n", cm.ResourceVersion)
	}
	return b.String()
}

// resumeLine returns the arguments of the "resume:" line of stderr.
func resumeLine(t *testing.T, stderr string) []string {
	t.Helper()
	for _, line := range strings.Split(stderr, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "resume: tgmigrate "); ok {
			return strings.Fields(rest)
		}
	}
	t.Fatalf("no resume line in stderr:\n%s", stderr)
	return nil
}

// TestCampaignPlanRunResume walks a campaign on the fleet: plan saves a
// plan (staging the canary); run without --yes changes nothing and
// builds no client; run --yes on a non-terminal stdin runs the canary,
// refuses the next wave and prints the resume line; that line with
// --approve-waves, interrupted as prod-a starts, prints its own; that one
// completes the campaign with no failed request.
func TestCampaignPlanRunResume(t *testing.T) {
	t.Parallel() // a fleet of its own; no environment read
	f := campaignFleet(t)
	built := 0
	dir := t.TempDir()
	planFile := filepath.Join(dir, "campaign.json")
	staging := f.World("staging").Legacy().TargetGroupARN.Raw
	clusters := []string{"--cluster", "prod-a=ctx-prod-a@111111111111", "--cluster", "staging=ctx-staging@222222222222"}
	do := func(ctx context.Context, stderr *lockedBuffer, args ...string) (int, string) {
		t.Helper()
		var stdout bytes.Buffer
		a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: stderr, newCampaignClients: fleetClients(f, &built)}
		return a.run(ctx, args), stdout.String()
	}

	stderr := &lockedBuffer{}
	code, out := do(t.Context(), stderr, append([]string{"campaign", "plan", "--all", "--canary", staging, "--out", planFile}, clusters...)...)
	if code != exitOK {
		t.Fatalf("plan: exit %d, stderr %q", code, stderr.String())
	}
	data, err := os.ReadFile(planFile)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := campaign.ParsePlan(data)
	if err != nil {
		t.Fatalf("the saved plan: %v", err)
	}
	if out != plan.Text() || len(plan.Waves) != 2 || !plan.Waves[1].Approval || plan.Waves[0].TargetGroupARNs[0].Raw != staging {
		t.Fatalf("plan printed %q; waves %+v: want the plan's text, the canary staging then a wave with an approval", out, plan.Waves)
	}

	run := append([]string{"campaign", "run", "--plan", planFile, "--journal", "configmap:prod-a/default/campaign-journal", "--holder", "laptop-1"}, clusters...)
	before, builtBefore := fleetState(t, f), built
	stderr = &lockedBuffer{}
	if code, out := do(t.Context(), stderr, run...); code != exitOK || out != plan.Text() || !strings.Contains(stderr.String(), "dry run: nothing was changed") {
		t.Fatalf("dry run: exit %d, stdout %q, stderr %q", code, out, stderr.String())
	}
	if after := fleetState(t, f); after != before || built != builtBefore {
		t.Fatalf("the dry run changed the fleet or built its clients (%d):\nbefore %s\nafter  %s", built-builtBefore, before, after)
	}
	if strings.Contains(before, "journal") {
		t.Fatalf("a journal before any run:\n%s", before)
	}

	// --permissions: what the run needs, as data, with no call.
	stderr = &lockedBuffer{}
	code, out = do(t.Context(), stderr, append(run, "--permissions")...)
	var perms campaign.Permissions
	if err := json.Unmarshal([]byte(out), &perms); code != exitOK || err != nil || len(perms.Accounts) != 2 || len(perms.Clusters) != 2 || len(perms.Journal) == 0 {
		t.Fatalf("--permissions: exit %d, %v, %+v; want 2 accounts' policies, 2 clusters' rules and the journal's; stderr %q", code, err, perms, stderr.String())
	}
	if after := fleetState(t, f); after != before || built != builtBefore {
		t.Fatalf("--permissions changed the fleet or built its clients (%d)", built-builtBefore)
	}
	if code, _ := do(t.Context(), &lockedBuffer{}, append(run, "--permissions", "--yes")...); code != exitUsage {
		t.Errorf("--permissions --yes: exit %d, want %d", code, exitUsage)
	}

	// The canary runs; the next wave needs an approval stdin cannot give.
	stderr = &lockedBuffer{}
	code, out = do(t.Context(), stderr, append(run, "--yes")...)
	if code != exitFindings || !strings.Contains(stderr.String(), "stdin is not a terminal: pass --approve-waves") {
		t.Fatalf("run without --approve-waves: exit %d, want %d; stderr %q", code, exitFindings, stderr.String())
	}
	if !strings.Contains(out, "1 done") {
		t.Errorf("result %q: want the canary done", out)
	}
	resume := resumeLine(t, stderr.String())
	if !slices.Contains(resume, "--holder") || !slices.Contains(resume, "configmap:prod-a/default/campaign-journal") {
		t.Errorf("resume line %q: want the holder and the journal", resume)
	}

	// status, from the journal alone: the canary done, wave 1 refused.
	status := []string{"campaign", "status", "--plan", planFile, "--journal", "configmap:prod-a/default/campaign-journal", "--cluster", "prod-a=ctx-prod-a"}
	stderr = &lockedBuffer{}
	code, out = do(t.Context(), stderr, append(status, "-o", "json")...)
	var pr campaign.Progress
	if err := json.Unmarshal([]byte(out), &pr); code != exitOK || err != nil {
		t.Fatalf("status -o json: exit %d, %v; stderr %q", code, err, stderr.String())
	}
	if pr.Totals.Done != 1 || pr.Totals.Pending != 1 || pr.Completed || len(pr.Waves) != 2 || pr.Waves[1].Approval != campaign.ApprovalRefused {
		t.Errorf("status: totals %+v, waves %+v: want the canary done, wave 1 refused", pr.Totals, pr.Waves)
	}
	builtBefore = built
	if code, out = do(t.Context(), stderr, status...); code != exitOK || out != pr.Text() || built != builtBefore+1 {
		t.Errorf("status: exit %d, %q; want the progress's text, one build of the clients", code, out)
	}

	// Approved, and interrupted as prod-a's cutover starts.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stderr = &lockedBuffer{trigger: "(prod-a): started", cancel: cancel}
	code, _ = do(ctx, stderr, append(resume, "--approve-waves")...)
	if code != exitFindings || !strings.Contains(stderr.String(), "interrupted; the journal holds the progress") {
		t.Fatalf("interrupted run: exit %d, want %d; stderr %q", code, exitFindings, stderr.String())
	}
	resume = resumeLine(t, stderr.String())
	if !slices.Contains(resume, "--approve-waves") {
		t.Errorf("resume line %q: want --approve-waves kept", resume)
	}

	// The printed line resumes and completes, with the report's files.
	stderr = &lockedBuffer{}
	reportMD, reportJSON := filepath.Join(dir, "report.md"), filepath.Join(dir, "report.json")
	code, out = do(t.Context(), stderr, append(resume, "--format", "json", "--report", reportMD, "--report-json", reportJSON)...)
	if code != exitOK {
		t.Fatalf("resumed run: exit %d, stderr %q", code, stderr.String())
	}
	var res campaign.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("run --format json: %v\n%s", err, out)
	}
	if !res.Completed || res.Totals.Done != 2 {
		t.Errorf("result %+v: want completed, 2 done", res.Totals)
	}
	for _, w := range f.Worlds() {
		if r := w.Requests(); r.Failed != 0 || r.Total == 0 {
			t.Errorf("%s: requests %+v, want none failed", w.ClusterName(), r)
		}
	}
	var rep campaign.Report
	if data, err := os.ReadFile(reportJSON); err != nil || json.Unmarshal(data, &rep) != nil || len(rep.Accounts) != 2 {
		t.Errorf("--report-json: %v, %d accounts; want the report of 2 accounts", err, len(rep.Accounts))
	}
	md, err := os.ReadFile(reportMD)
	if err != nil || !strings.Contains(string(md), plan.ID) {
		t.Errorf("--report: %v; want the Markdown report of %s:\n%s", err, plan.ID, md)
	}

	// status in markdown is the report from the journal alone.
	stderr = &lockedBuffer{}
	if code, out = do(t.Context(), stderr, append(status, "-o", "markdown")...); code != exitOK || !strings.Contains(out, plan.ID) {
		t.Errorf("status -o markdown: exit %d, stderr %q:\n%s", code, stderr.String(), out)
	}
	stderr = &lockedBuffer{}
	if code, out = do(t.Context(), stderr, append(status, "-o", "json")...); code != exitOK || json.Unmarshal([]byte(out), &pr) != nil || !pr.Completed {
		t.Errorf("status after the run: exit %d, %+v; want completed", code, pr.Totals)
	}
}

// campaignPlanFile plans f, a campaignFleet, through the package
// (staging the canary) and saves it in dir; it returns the file and the
// plan.
func campaignPlanFile(t *testing.T, f *tgmigratetest.Fleet, dir string) (string, *campaign.Plan) {
	t.Helper()
	in := campaign.Input{Selection: campaign.Selection{All: true}}
	for _, w := range f.Worlds() {
		in.Accounts = append(in.Accounts, campaign.Account{ID: w.AccountID(), Region: tgmigratetest.Region, ELBv2: w.ELBv2Read()})
		c := w.Cluster()
		in.Clusters = append(in.Clusters, campaign.Cluster{Name: c.Name, Reader: c.Reader, VPCID: c.VPCID, CIDRs: c.CIDRs,
			AccountID: w.AccountID(), Assumptions: w.Assumptions()})
	}
	p, err := campaign.PlanCampaign(t.Context(), in, campaign.WithClock(f.Clock()), campaign.WithCanaries(f.World("staging").Legacy().TargetGroupARN))
	if err != nil {
		t.Fatal(err)
	}
	data, err := p.JSON()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "campaign.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, p
}

// TestClusterAndJournalSpecs: the forms --cluster and --journal accept,
// as parsed.
func TestClusterAndJournalSpecs(t *testing.T) {
	t.Parallel()
	clusters := []struct {
		in   string
		want clusterSpec
	}{
		{"prod", clusterSpec{Name: "prod"}},
		{"prod@111111111111", clusterSpec{Name: "prod", Account: "111111111111"}},
		{"prod=ctx", clusterSpec{Name: "prod", Context: "ctx"}},
		{"prod=admin@prod", clusterSpec{Name: "prod", Context: "admin@prod"}},
		{"prod=admin@prod@111111111111", clusterSpec{Name: "prod", Context: "admin@prod", Account: "111111111111"}},
		{"prod_a=arn:aws:eks:eu-west-1:111111111111:cluster/prod-a", clusterSpec{Name: "prod_a", Context: "arn:aws:eks:eu-west-1:111111111111:cluster/prod-a"}},
	}
	for _, tt := range clusters {
		got, err := parseClusterSpec(tt.in)
		if err != nil || got != tt.want || got.String() != tt.in {
			t.Errorf("parseClusterSpec(%q) = %+v (%q), %v; want %+v", tt.in, got, got.String(), err, tt.want)
		}
	}
	dir := t.TempDir()
	journals := []struct {
		in   string
		want journalSpec
	}{
		{"file:" + filepath.Join(dir, "j.json"), journalSpec{Path: filepath.Join(dir, "j.json")}},
		{"configmap:prod-a/tgmigrate/campaign-1", journalSpec{Cluster: "prod-a", Namespace: "tgmigrate", Name: "campaign-1"}},
	}
	for _, tt := range journals {
		if got, err := parseJournalSpec(tt.in); err != nil || got != tt.want {
			t.Errorf("parseJournalSpec(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

// TestCampaignRunFailure: staging's controller is stopped, so the
// canary's cutover fails and is rolled back. With the default error
// budget (0) nothing else starts; with --error-budget 1 prod-a is done.
// Either way a target group failed: exit 3, and no request failed.
func TestCampaignRunFailure(t *testing.T) {
	t.Parallel() // fleets of their own; no environment read
	tests := []struct {
		name    string
		extra   []string
		stderr  string
		prodA   campaign.EntryStatus
		stopped bool
	}{
		{"budget 0", nil, "campaign stopped (error-budget)", campaign.StatusSkipped, true},
		{"budget 1", []string{"--error-budget", "1"}, "1 of 2 target groups failed", campaign.StatusDone, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := campaignFleet(t)
			dir := t.TempDir()
			planFile, _ := campaignPlanFile(t, f, dir)
			f.World("staging").StopLBC()
			built := 0
			var stdout, stderr bytes.Buffer
			a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, newCampaignClients: fleetClients(f, &built)}
			args := append([]string{"campaign", "run", "--plan", planFile, "--journal", "file:" + filepath.Join(dir, "journal.json"),
				"--cluster", "prod-a=ctx-prod-a", "--cluster", "staging=ctx-staging", "--yes", "--approve-waves", "-o", "json"}, tt.extra...)
			code := a.run(t.Context(), args)
			if code != exitFailed || !strings.Contains(stderr.String(), tt.stderr) {
				t.Fatalf("exit %d, want %d; stderr %q, want %q", code, exitFailed, stderr.String(), tt.stderr)
			}
			var res campaign.Result
			if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
				t.Fatalf("result: %v\n%s", err, stdout.String())
			}
			got := map[string]campaign.EntryStatus{}
			for _, e := range res.Entries {
				got[e.Cluster] = e.Status
			}
			if got["staging"] != campaign.StatusRolledBack || got["prod-a"] != tt.prodA || (len(res.Stops) == 1) != tt.stopped {
				t.Errorf("statuses %v, stops %+v: want staging rolled back, prod-a %s", got, res.Stops, tt.prodA)
			}
			for _, w := range f.Worlds() {
				if r := w.Requests(); r.Failed != 0 || r.Total == 0 {
					t.Errorf("%s: requests %+v, want none failed", w.ClusterName(), r)
				}
			}
		})
	}
}

// TestLiveView: on a terminal each event draws the progress again over
// the last drawing (the cursor up its lines, the rest cleared); elsewhere
// each event is one line.
func TestLiveView(t *testing.T) {
	t.Parallel()
	f := campaignFleet(t)
	dir := t.TempDir()
	_, p := campaignPlanFile(t, f, dir)
	j, err := campaign.NewFileJournal(filepath.Join(dir, "journal.json"))
	if err != nil {
		t.Fatal(err)
	}
	pr, err := campaign.Status(t.Context(), p, j, f.Clock().Now())
	if err != nil {
		t.Fatal(err)
	}
	wave := campaign.WaveEvent{Index: 0, Name: "canary", Entries: 1, At: f.Clock().Now()}
	entry := campaign.EntryEvent{Name: "legacy-web", Cluster: "staging", Status: campaign.StatusRunning, At: f.Clock().Now()}
	const waveLine, entryLine = "00:00:20  canary: 1 target group\n", "00:00:20  legacy-web (staging): started\n"

	var lines bytes.Buffer
	o := (&liveView{w: &lines, ctx: t.Context(), plan: p, j: j, clock: f.Clock()}).observer()
	o.WaveStarted(wave)
	o.EntryStarted(entry)
	if got := lines.String(); got != waveLine+entryLine {
		t.Errorf("off a terminal: %q, want %q", got, waveLine+entryLine)
	}

	var live bytes.Buffer
	o = (&liveView{w: &live, redraw: true, ctx: t.Context(), plan: p, j: j, clock: f.Clock()}).observer()
	o.WaveStarted(wave)
	first := live.String()
	o.EntryStarted(entry)
	second := strings.TrimPrefix(live.String(), first)
	up := fmt.Sprintf("\033[%dA\033[J", strings.Count(first, "\n"))
	if first != pr.Text()+waveLine || second != up+pr.Text()+entryLine {
		t.Errorf("on a terminal:\n%q\n%q\nwant the progress and the event, then %q and the same", first, second, up)
	}
	liveSteps(t, f, p, j)
}

// liveSteps: the staging canary running, its cutover's step events: off
// a terminal a line per step done (none for one already done, none for a
// wait); on a terminal the progress redrawn in place at a wait and at a
// step's end, the running line naming the step.
func liveSteps(t *testing.T, f *tgmigratetest.Fleet, p *campaign.Plan, j campaign.Journal) {
	t.Helper()
	e, _ := p.Entry(f.World("staging").Legacy().TargetGroupARN)
	st := &campaign.JournalState{SchemaVersion: campaign.JournalSchemaVersion, PlanID: p.ID, PlanDigest: p.Digest}
	for _, pe := range p.Entries {
		es := campaign.EntryState{TargetGroupARN: pe.TargetGroupARN.Raw, Name: pe.Name, Cluster: pe.Cluster, Wave: pe.Wave, Status: campaign.StatusPending}
		if pe.TargetGroupARN.Raw == e.TargetGroupARN.Raw {
			es.Status, es.Holder, es.StartedAt, es.ClaimedAt = campaign.StatusRunning, "runner-1", f.Clock().Now(), f.Clock().Now()
		}
		st.Entries = append(st.Entries, es)
	}
	for _, w := range p.Waves {
		st.Waves = append(st.Waves, campaign.WaveState{Name: w.Name, Approval: w.Approval})
	}
	if _, err := j.Save(t.Context(), st, ""); err != nil {
		t.Fatal(err)
	}
	now := f.Clock().Now()
	s0, s1 := e.Plan.Steps[0], e.Plan.Steps[1]
	wait := cutover.Wait{Step: s1.ID, What: "the new pod targets healthy", Until: now.Add(90 * time.Second)}
	drive := func(o cutover.Observer, draws func()) {
		o.StepFinished(cutover.StepEvent{Step: s0, At: now, Skipped: true})
		o.StepStarted(cutover.StepEvent{Step: s1, At: now})
		o.Waiting(wait)
		draws()
		o.StepFinished(cutover.StepEvent{Step: s1, At: now})
	}
	n := len(e.Plan.Steps)
	stepDone := fmt.Sprintf("00:00:20  legacy-web (staging): %s done (2 of %d)\n", s1.ID, n)

	var lines bytes.Buffer
	v := &liveView{w: &lines, ctx: t.Context(), plan: p, j: j, clock: f.Clock(), steps: campaign.NewStepTracker()}
	drive(v.stepObserver(e), func() {})
	if got := lines.String(); got != stepDone {
		t.Errorf("off a terminal: %q, want %q", got, stepDone)
	}

	var live bytes.Buffer
	v = &liveView{w: &live, redraw: true, ctx: t.Context(), plan: p, j: j, clock: f.Clock(), steps: campaign.NewStepTracker()}
	var waiting string
	drive(v.stepObserver(e), func() { waiting = live.String() })
	done := strings.TrimPrefix(live.String(), waiting)
	pr, err := v.steps.Status(t.Context(), p, j, now)
	if err != nil {
		t.Fatal(err)
	}
	up := fmt.Sprintf("\033[%dA\033[J", strings.Count(waiting, "\n"))
	waitLine := fmt.Sprintf("00:00:20  legacy-web (staging): %s waits for the new pod targets healthy until 00:01:50\n", s1.ID)
	running := fmt.Sprintf("%s (2 of %d) until 00:01:50;", s1.ID, n)
	switch {
	case !strings.HasSuffix(waiting, waitLine) || !strings.Contains(waiting, running):
		t.Errorf("at the wait:\n%s\nwant the running line to name %q, and the line %q", waiting, running, waitLine)
	case done != up+pr.Text()+stepDone || !strings.Contains(done, fmt.Sprintf("%s done (2 of %d);", s1.ID, n)):
		t.Errorf("at the step's end:\n%q\nwant %q, the progress naming the step, and %q", done, up, stepDone)
	}
	t.Logf("\n%s", done)
}
