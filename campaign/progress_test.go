package campaign_test

// progress_test.go: ProgressOf over journal states built by hand (the
// ETA against the plan's own estimates, the counts, the text), Status on
// a FileJournal and a ConfigMapJournal stopped mid-run and resumed (the
// ETA falling as entries finish, 0 at the end), bad input.

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// handState is the journal state of p with nothing started.
func handState(p *campaign.Plan) *campaign.JournalState {
	st := &campaign.JournalState{SchemaVersion: campaign.JournalSchemaVersion, PlanID: p.ID, PlanDigest: p.Digest}
	for _, e := range p.Entries {
		es := campaign.EntryState{TargetGroupARN: e.TargetGroupARN.Raw, Name: e.Name, Cluster: e.Cluster, Wave: e.Wave, Status: campaign.StatusPending}
		if !e.Runnable() {
			es.Status, es.Reason = campaign.StatusBlocked, string(e.Blocked.Reason)
		}
		st.Entries = append(st.Entries, es)
	}
	for _, w := range p.Waves {
		st.Waves = append(st.Waves, campaign.WaveState{Name: w.Name, Approval: w.Approval})
	}
	return st
}

// set changes the state of the entry of cluster in st.
func set(st *campaign.JournalState, cluster string, f func(*campaign.EntryState)) {
	for i := range st.Entries {
		if st.Entries[i].Cluster == cluster {
			f(&st.Entries[i])
		}
	}
}

// pluralOfOne finds a count of one with its noun in the plural ("1
// entries"), as diagnose's and subnets' render tests do.
var pluralOfOne = regexp.MustCompile(`(^|[^\d.,/])1 [a-z]*[^s\s]s\b`)

// fits checks that every line of text is at most TextColumns wide and
// that no count of one is in the plural.
func fits(t *testing.T, name, text string) {
	t.Helper()
	for i, line := range strings.Split(text, "\n") {
		if n := len([]rune(line)); n > campaign.TextColumns {
			t.Errorf("%s: line %d is %d wide: %q", name, i+1, n, line)
		}
	}
	if m := pluralOfOne.FindAllString(text, -1); len(m) > 0 {
		t.Errorf("%s says %q:\n%s", name, m, text)
	}
}

// TestProgressOf: the plan of the execution fleet (the staging canary,
// then prod-a and prod-b at once) at several points, each journal state
// built by hand: the counts, the current wave and the ETA, which is the
// plan's own estimate for what is left.
func TestProgressOf(t *testing.T) {
	f := execFleet(t)
	p := execPlan(t, f)
	if len(p.Waves) != 2 || p.Estimate.Waves[1].EndSeconds != p.Estimate.TotalSeconds {
		t.Fatalf("waves %+v, estimate %+v: want the canary and wave 1", p.Waves, p.Estimate)
	}
	canary, _ := p.Entry(f.World("staging").Legacy().TargetGroupARN)
	a, _ := p.Entry(f.World("prod-a").Legacy().TargetGroupARN)
	wave1 := p.Estimate.Waves[1].EndSeconds - p.Estimate.Waves[1].StartSeconds
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	done := func(cluster string) func(*campaign.JournalState) {
		return func(st *campaign.JournalState) {
			set(st, cluster, func(e *campaign.EntryState) {
				e.Status, e.Holder, e.Attempts, e.StartedAt, e.FinishedAt = campaign.StatusDone, "runner-1", 1, t0, t0.Add(time.Minute)
			})
		}
	}
	running := func(cluster string, started time.Time) func(*campaign.JournalState) {
		return func(st *campaign.JournalState) {
			set(st, cluster, func(e *campaign.EntryState) {
				e.Status, e.Holder, e.Attempts, e.StartedAt, e.ClaimedAt = campaign.StatusRunning, "runner-1", 1, started, started
			})
		}
	}
	approved := func(st *campaign.JournalState) { st.Waves[1].Approved, st.Waves[1].ApprovedBy = true, "ops" }
	for _, tc := range []struct {
		name       string
		nilState   bool
		edits      []func(*campaign.JournalState)
		at         time.Time
		eta        int
		current    int
		totals     campaign.Totals
		text       []string
		finished   bool
		completed  bool
		approval1  campaign.ApprovalState
		runningRow bool
	}{
		{name: "not started", nilState: true, at: t0, eta: p.Estimate.TotalSeconds, current: 0,
			totals: campaign.Totals{Entries: 3, Pending: 3}, text: []string{"done 0/3", "not started"}, approval1: campaign.ApprovalWaiting},
		{name: "canary 10s in", edits: []func(*campaign.JournalState){running("staging", t0)}, at: t0.Add(10 * time.Second),
			eta: canary.Seconds - 10 + wave1, current: 0, totals: campaign.Totals{Entries: 3, Pending: 2, Running: 1},
			text: []string{"1 running, 2 waiting", "ETA "}, approval1: campaign.ApprovalWaiting, runningRow: true},
		{name: "canary past its estimate", edits: []func(*campaign.JournalState){running("staging", t0)}, at: t0.Add(time.Duration(canary.Seconds+100) * time.Second),
			eta: wave1, current: 0, totals: campaign.Totals{Entries: 3, Pending: 2, Running: 1}, approval1: campaign.ApprovalWaiting, runningRow: true},
		{name: "wave 1, prod-a 30s in, prod-b rolled back",
			edits: []func(*campaign.JournalState){done("staging"), approved, running("prod-a", t0.Add(2*time.Minute)), func(st *campaign.JournalState) {
				set(st, "prod-b", func(e *campaign.EntryState) {
					e.Status, e.Disposition, e.Error, e.StartedAt, e.FinishedAt = campaign.StatusRolledBack, "rollback", "the controller registered no target", t0, t0.Add(2*time.Minute)
				})
			}}, at: t0.Add(2*time.Minute + 30*time.Second), eta: a.Seconds - 30, current: 1,
			totals:    campaign.Totals{Entries: 3, Done: 1, Running: 1, RolledBack: 1},
			text:      []string{"done 1/3, 1 running, 1 rolled back; ETA 5m30s at 10:08:00", "approved by ops", "rolled-back", "rollback: the controller registered no target"},
			approval1: campaign.ApprovalApproved, runningRow: true, finished: false},
		{name: "all done", edits: []func(*campaign.JournalState){done("staging"), approved, done("prod-a"), done("prod-b")}, at: t0.Add(time.Hour),
			eta: 0, current: -1, totals: campaign.Totals{Entries: 3, Done: 3}, text: []string{"done 3/3", "completed"},
			finished: true, completed: true, approval1: campaign.ApprovalApproved},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var st *campaign.JournalState
			if !tc.nilState {
				st = handState(p)
				for _, e := range tc.edits {
					e(st)
				}
			}
			pr, err := campaign.ProgressOf(p, st, tc.at)
			if err != nil {
				t.Fatal(err)
			}
			text := pr.Text()
			t.Logf("\n%s", text)
			if pr.ETASeconds != tc.eta || !pr.ETA.Equal(tc.at.Add(time.Duration(tc.eta)*time.Second)) {
				t.Errorf("ETA %ds (%s), want %ds", pr.ETASeconds, pr.ETA, tc.eta)
			}
			if pr.Totals != tc.totals || pr.CurrentWave != tc.current || pr.Finished != tc.finished || pr.Completed != tc.completed {
				t.Errorf("totals %+v, current %d, finished %v, completed %v", pr.Totals, pr.CurrentWave, pr.Finished, pr.Completed)
			}
			if pr.Started == tc.nilState || pr.Waves[1].Approval != tc.approval1 || pr.Waves[0].Approval != campaign.ApprovalNone {
				t.Errorf("started %v, approvals %s, %s", pr.Started, pr.Waves[0].Approval, pr.Waves[1].Approval)
			}
			var sum campaign.Totals
			for _, w := range pr.Waves {
				sum.Entries += w.Counts.Entries
				sum.Done += w.Counts.Done
				sum.Running += w.Counts.Running
			}
			if sum.Entries != 3 || sum.Done != tc.totals.Done || sum.Running != tc.totals.Running {
				t.Errorf("the waves count %+v, the totals %+v", sum, pr.Totals)
			}
			for _, want := range tc.text {
				if !strings.Contains(text, want) {
					t.Errorf("text does not say %q", want)
				}
			}
			if got := strings.Contains(text, "\n  running "); got != tc.runningRow {
				t.Errorf("a running row: %v, want %v", got, tc.runningRow)
			}
			fits(t, "Progress.Text", text)
			if strings.Count(text, "\n") != 1+len(pr.Waves)+pr.Totals.Running+pr.Totals.RolledBack {
				t.Errorf("%d lines: want a header, a line per wave and per running or failed entry", strings.Count(text, "\n"))
			}
			if _, err := pr.JSON(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestProgressOfBlocked: the planning fleet (staging blocked by a
// precondition): its line says so, in no wave; one of each is in the
// singular.
func TestProgressOfBlocked(t *testing.T) {
	f := newFleet(t)
	p := planFleet(t.Context(), t, f)
	pr, err := campaign.ProgressOf(p, nil, f.Clock().Now())
	if err != nil {
		t.Fatal(err)
	}
	text := pr.Text()
	t.Logf("\n%s", text)
	if len(pr.Blocked) != 1 || pr.Blocked[0].Cluster != "staging" || pr.Totals.Blocked != 1 {
		t.Fatalf("blocked %+v, totals %+v", pr.Blocked, pr.Totals)
	}
	if !strings.Contains(text, "1 blocked") || !strings.Contains(text, "\n  blocked  ") || !strings.Contains(text, "precondition") {
		t.Errorf("text:\n%s", text)
	}
	fits(t, "Progress.Text", text)
}

// TestProgressOfBadInput: a nil plan is an InputError naming it; a state
// of another plan (digest, entries) is ErrJournalMismatch.
func TestProgressOfBadInput(t *testing.T) {
	f := execFleet(t)
	p := execPlan(t, f)
	var ie *campaign.InputError
	if _, err := campaign.ProgressOf(nil, nil, time.Time{}); !errors.As(err, &ie) || ie.Field != "plan" {
		t.Errorf("nil plan: %v", err)
	}
	if _, err := campaign.Status(t.Context(), p, nil, time.Time{}); !errors.As(err, &ie) || ie.Field != "journal" {
		t.Errorf("nil journal: %v", err)
	}
	other := handState(p)
	other.PlanDigest = "sha256:" + strings.Repeat("0", 64)
	short := handState(p)
	short.Entries = short.Entries[:2]
	for name, st := range map[string]*campaign.JournalState{"digest": other, "entries": short} {
		if pr, err := campaign.ProgressOf(p, st, time.Time{}); pr != nil || !errors.Is(err, campaign.ErrJournalMismatch) {
			t.Errorf("%s: %v, %v; want a mismatch", name, pr, err)
		}
	}
}

// TestStatusMidRun: on a FileJournal and on a ConfigMapJournal, a runner
// stopped after its claim of the canary: Status says the canary runs,
// with the ETA no more than the plan's (a crash writes no stop); a
// second run resumes, and Status read at each entry's end gives an ETA
// that never rises and ends at 0.
func TestStatusMidRun(t *testing.T) {
	for _, kind := range []string{"file", "configmap"} {
		t.Run(kind, func(t *testing.T) {
			f := execFleet(t)
			p := execPlan(t, f)
			env := execEnv(t, f, "runner-1")
			if kind == "file" {
				j, err := campaign.NewFileJournal(filepath.Join(t.TempDir(), "campaign.json"))
				if err != nil {
					t.Fatal(err)
				}
				env.Journal = j
			}
			pr, err := campaign.Status(t.Context(), p, env.Journal, f.Clock().Now())
			if err != nil || pr.Started || pr.ETASeconds != p.Estimate.TotalSeconds {
				t.Fatalf("before the run: %v, %+v", err, pr)
			}
			// Write 1 starts the journal, write 2 claims the canary.
			_, err = run(t.Context(), t, env, p, parallel(f), campaign.WithHook(tgmigratetest.CrashAfter[campaign.Event](2)))
			if !errors.Is(err, tgmigratetest.ErrCrash) {
				t.Fatalf("err %v, want the crash", err)
			}
			pr, err = campaign.Status(t.Context(), p, env.Journal, f.Clock().Now())
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("stopped:\n%s", pr.Text())
			if !pr.Started || pr.Totals.Running != 1 || pr.CurrentWave != 0 || pr.Waves[0].Entries[0].Holder != "runner-1" ||
				pr.ETASeconds <= 0 || pr.ETASeconds > p.Estimate.TotalSeconds || len(pr.Stops) != 0 {
				t.Errorf("after the crash: %+v", pr)
			}
			var mu sync.Mutex
			var etas []int
			obs := campaign.ObserverFuncs{OnEntryFinished: func(e campaign.EntryEvent) {
				pr, err := campaign.Status(context.WithoutCancel(t.Context()), p, env.Journal, e.At)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				etas = append(etas, pr.ETASeconds)
				mu.Unlock()
			}}
			res, err := run(t.Context(), t, env, p, parallel(f), campaign.WithWorkers(3), campaign.WithObserver(obs))
			if err != nil || !res.Completed {
				t.Fatalf("resumed: %v, %+v", err, res)
			}
			pr, err = campaign.Status(t.Context(), p, env.Journal, f.Clock().Now())
			if err != nil || !pr.Completed || pr.ETASeconds != 0 || pr.Totals.Done != 3 {
				t.Fatalf("at the end: %v, %+v", err, pr)
			}
			t.Logf("ETAs at each end: %v\n%s", etas, pr.Text())
			if len(etas) != 3 || etas[0] <= 0 || etas[2] != 0 {
				t.Fatalf("ETAs %v: want 3, the first positive, the last 0", etas)
			}
			for i := 1; i < len(etas); i++ {
				if etas[i] > etas[i-1] {
					t.Errorf("ETAs %v: rose", etas)
				}
			}
		})
	}
}

// TestOneOfEachIsSingular: a progress and a report with one target group
// of each status, one wave, one call: no count of one in the plural, and
// the counts say one of each.
func TestOneOfEachIsSingular(t *testing.T) {
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	one := campaign.Totals{Entries: 7, Pending: 1, Running: 1, Done: 1, Failed: 1, RolledBack: 1, Blocked: 1, Skipped: 1}
	var entries []campaign.EntryProgress
	var tgs []campaign.TargetGroupReport
	for _, s := range []campaign.EntryStatus{campaign.StatusPending, campaign.StatusRunning, campaign.StatusDone, campaign.StatusFailed,
		campaign.StatusRolledBack, campaign.StatusBlocked, campaign.StatusSkipped} {
		entries = append(entries, campaign.EntryProgress{Name: "tg-" + string(s), Cluster: "prod", Status: s, Holder: "runner-1",
			Since: at.Add(-time.Second), Reason: "1 target failed its health check", EstimateSeconds: 1, LeftSeconds: 1})
		tg := campaign.TargetGroupReport{Name: "tg-" + string(s), Status: s, Seconds: 1, EstimateSeconds: 1,
			Reason: "1 target failed its health check", Next: &campaign.NextStep{Op: "manual", Reason: "raise 1 quota"}}
		if s == campaign.StatusDone {
			tg.StartedAt, tg.FinishedAt = at, at.Add(time.Second)
			tg.Traffic = &campaign.TrafficCount{Source: "simulator", Total: 1, Served: 1, From: tg.StartedAt, To: tg.FinishedAt}
		}
		tgs = append(tgs, tg)
	}
	pr := &campaign.Progress{PlanID: "campaign-000000000001", At: at, Started: true, CurrentWave: 0, Totals: one, ETASeconds: 1, ETA: at.Add(time.Second),
		Waves: []campaign.WaveProgress{{Name: "canary", Canary: true, Approval: campaign.ApprovalNone, Counts: one, Entries: entries}},
		Stops: []campaign.Stop{{Reason: campaign.StopBudget, By: "runner-1", At: at, Detail: "1 entry failed, above the error budget of 0"}}}
	rep := &campaign.Report{PlanID: "campaign-000000000001", Holder: "runner-1", Finished: true, StartedAt: at, FinishedAt: at.Add(time.Second),
		WallSeconds: 1, EstimateSeconds: 1, Ratio: 1, Totals: one, CallsRecorded: true, TrafficSource: "simulator",
		Accounts: []campaign.AccountReport{{Account: "111111111111/eu-west-1", ID: "111111111111", Region: "eu-west-1",
			Calls: map[string]int{"DescribeTargetHealth": 1}, CallsTotal: 1, Totals: one,
			Clusters: []campaign.ClusterReport{{Name: "prod", Totals: one, TargetGroups: tgs}}}}}
	for name, text := range map[string]string{"Progress.Text": pr.Text(), "Report.Markdown": rep.Markdown()} {
		if m := pluralOfOne.FindAllString(text, -1); len(m) > 0 {
			t.Errorf("%s says %q:\n%s", name, m, text)
		}
	}
	for name, want := range map[string]string{
		"Progress.Text":   "done 1/7, 1 running, 1 waiting, 1 blocked, 1 failed, 1 rolled back, 1 skipped; ETA 1s",
		"Report.Markdown": "7 target groups: 1 done, 1 failed, 1 rolled back, 1 blocked, 1 skipped, 1 running, 1 pending. ELBv2 calls: 1 call (DescribeTargetHealth 1).",
	} {
		text := map[string]string{"Progress.Text": pr.Text(), "Report.Markdown": rep.Markdown()}[name]
		if !strings.Contains(text, want) {
			t.Errorf("%s does not say %q:\n%s", name, want, text)
		}
	}
	if !strings.Contains(rep.Markdown(), "| 1 call by the runner's cutovers |") || !strings.Contains(rep.Markdown(), "(1 of 1 cutover window measured)") {
		t.Errorf("Report.Markdown:\n%s", rep.Markdown())
	}
}
