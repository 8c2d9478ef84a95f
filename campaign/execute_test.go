package campaign_test

// execute_test.go: Execute on the fleet: the waves in order with their
// approval, the per-account limit, 0 failed requests; a controller
// failure rolled back within the error budget; a budget of 0 stopping
// the scheduling.

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/cutover"
)

// span is an entry's run as the observer saw it.
type span struct {
	cluster    string
	start, end time.Time
}

// TestExecuteFleet: the canary (staging) first, then, once approved, the
// two target groups of one account, one at a time under WithPerAccount(1);
// every request served; every step done once; the text fits.
func TestExecuteFleet(t *testing.T) {
	f := execFleet(t)
	p := execPlan(t, f, campaign.WithPerAccount(1))
	if len(p.Waves) != 2 || len(p.Waves[1].TargetGroupARNs) != 2 {
		t.Fatalf("waves %+v, want the canary and a wave of two", p.Waves)
	}
	var mu sync.Mutex
	spans := map[string]*span{}
	var approvals []int
	var waves []string
	obs := campaign.ObserverFuncs{
		OnWaveStarted: func(e campaign.WaveEvent) { mu.Lock(); waves = append(waves, e.Name); mu.Unlock() },
		OnEntryStarted: func(e campaign.EntryEvent) {
			mu.Lock()
			spans[e.Cluster] = &span{cluster: e.Cluster, start: e.At}
			mu.Unlock()
		},
		OnEntryFinished: func(e campaign.EntryEvent) { mu.Lock(); spans[e.Cluster].end = e.At; mu.Unlock() },
	}
	st := newSteps()
	res, err := run(t.Context(), t, execEnv(t, f, "runner-1"), p, parallel(f), campaign.WithWorkers(3), campaign.WithObserver(obs),
		campaign.WithCutoverOptions(st.options(nil)),
		campaign.WithApproval(func(_ context.Context, i int, w campaign.Wave) error {
			mu.Lock()
			defer mu.Unlock()
			approvals = append(approvals, i)
			if s := spans["staging"]; s == nil || s.end.IsZero() {
				t.Errorf("approval of %s asked before the canary ended", w.Name)
			}
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Completed || res.Totals.Done != 3 {
		t.Fatalf("result %+v, want 3 done", res.Totals)
	}
	noFailedRequests(t, f)
	st.once(t, p)
	if len(approvals) != 1 || approvals[0] != 1 || strings.Join(waves, ",") != "canary,wave 1" {
		t.Errorf("approvals %v, waves %v", approvals, waves)
	}
	a, b, c := spans["prod-a"], spans["prod-b"], spans["staging"]
	if a.start.Before(c.end) || b.start.Before(c.end) {
		t.Errorf("wave 1 started before the canary ended: %+v %+v %+v", a, b, c)
	}
	if a.start.Before(b.end) && b.start.Before(a.end) {
		t.Errorf("prod-a %v-%v and prod-b %v-%v overlap under a per-account limit of 1", a.start, a.end, b.start, b.end)
	}
	// No two cutovers on one load balancer overlapped where its limit
	// says one at a time.
	for _, lb := range p.Limits.LoadBalancers {
		if lb.MaxConcurrent > 1 {
			continue
		}
		var on []*span
		for _, s := range lb.Shares {
			e, _ := p.Entry(s.TargetGroupARN)
			on = append(on, spans[e.Cluster])
		}
		for i := range on {
			for j := i + 1; j < len(on); j++ {
				if on[i].start.Before(on[j].end) && on[j].start.Before(on[i].end) {
					t.Errorf("load balancer %s: %s and %s overlapped", lb.ARN, on[i].cluster, on[j].cluster)
				}
			}
		}
	}
	for _, e := range res.Entries {
		if e.Cutover == nil || !e.Cutover.Completed || e.Seconds <= 0 || e.Attempts != 1 {
			t.Errorf("%s: %+v", e.Cluster, e)
		}
	}
	if len(res.Calls) != 2 {
		t.Errorf("calls per account %v, want two accounts", res.Calls)
	}
	text := res.Text()
	for _, line := range strings.Split(text, "\n") {
		if len([]rune(line)) > campaign.TextColumns {
			t.Errorf("line over %d columns: %q", campaign.TextColumns, line)
		}
	}
	if !strings.Contains(text, "completed") || !strings.Contains(text, "3 done") {
		t.Errorf("text:\n%s", text)
	}
	if _, err := res.JSON(); err != nil {
		t.Fatal(err)
	}
	// Again: everything done, nothing runs.
	res2, err := run(t.Context(), t, execEnv(t, f, "runner-1"), p, campaign.WithCutoverOptions(st.options(nil)))
	if err != nil || !res2.Completed {
		t.Fatalf("second run: %v, %+v", err, res2)
	}
	st.once(t, p)
	// The virtual time against the plan's critical path.
	if took := res.FinishedAt.Sub(res.StartedAt).Seconds(); took > 1.05*float64(p.Estimate.TotalSeconds) || took < float64(p.Estimate.TotalSeconds) {
		t.Errorf("the campaign took %.0fs on the fleet's clock, its estimate %ds: want within 1.05", took, p.Estimate.TotalSeconds)
	}
	t.Logf("campaign: %s on the clock, estimate %ds; canary %s-%s, prod-b %s-%s, prod-a %s-%s\n%s",
		res.FinishedAt.Sub(res.StartedAt), p.Estimate.TotalSeconds, c.start.Sub(res.StartedAt), c.end.Sub(res.StartedAt),
		b.start.Sub(res.StartedAt), b.end.Sub(res.StartedAt), a.start.Sub(res.StartedAt), a.end.Sub(res.StartedAt), text)
}

// TestExecuteControllerFailure: staging's controller is stopped: its
// cutover fails and cutover rolls it back; within a budget of 1 the
// others complete; every request is served.
func TestExecuteControllerFailure(t *testing.T) {
	f := execFleet(t)
	p := execPlan(t, f)
	f.World("staging").StopLBC()
	res, err := run(t.Context(), t, execEnv(t, f, "runner-1"), p, parallel(f), campaign.WithWorkers(3), campaign.WithErrorBudget(1))
	if err != nil {
		t.Fatal(err)
	}
	got := statuses(res)
	if got["staging"] != campaign.StatusRolledBack || got["prod-a"] != campaign.StatusDone || got["prod-b"] != campaign.StatusDone {
		t.Fatalf("statuses %v", got)
	}
	for _, e := range res.Entries {
		if e.Cluster == "staging" && (e.Disposition != cutover.DispositionRollback.String() || e.Error == "") {
			t.Errorf("staging: %+v", e)
		}
	}
	if res.Completed || !res.Finished || res.Totals.RolledBack != 1 {
		t.Errorf("result %+v", res.Totals)
	}
	noFailedRequests(t, f)
}

// TestExecuteBudgetZero: the canary fails; with the default budget of 0
// nothing else starts: the rest is skipped and Execute says why.
func TestExecuteBudgetZero(t *testing.T) {
	f := execFleet(t)
	p := execPlan(t, f)
	f.World("staging").StopLBC()
	res, err := run(t.Context(), t, execEnv(t, f, "runner-1"), p, parallel(f), campaign.WithWorkers(3))
	var se *campaign.StopError
	if !errors.As(err, &se) || se.Reason != campaign.StopBudget {
		t.Fatalf("err %v, want a budget stop", err)
	}
	got := statuses(res)
	if got["staging"] != campaign.StatusRolledBack || got["prod-a"] != campaign.StatusSkipped || got["prod-b"] != campaign.StatusSkipped {
		t.Fatalf("statuses %v", got)
	}
	if len(res.Stops) != 1 || res.Stops[0].Reason != campaign.StopBudget {
		t.Errorf("stops %+v", res.Stops)
	}
	for _, w := range f.Worlds() {
		if w.ClusterName() != "staging" && w.NodeTargets() == 0 {
			t.Errorf("%s: migrated, but skipped", w.ClusterName())
		}
	}
	noFailedRequests(t, f)
}
