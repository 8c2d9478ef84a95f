package campaign_test

// steps_test.go: StepTracker: driven by hand (two entries' steps kept
// apart, a wait with its deadline, the caller's observer still called,
// only running entries named), and under a real Execute on the fleet
// (each running entry's Progress names the step its cutover is at, the
// steps seen are its plan's in order, entries running at once do not
// mix).

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/cutover"
)

// TestStepTrackerByHand drives two entries' observers in turn.
func TestStepTrackerByHand(t *testing.T) {
	f := execFleet(t)
	p := execPlan(t, f)
	a, _ := p.Entry(f.World("prod-a").Legacy().TargetGroupARN)
	b, _ := p.Entry(f.World("prod-b").Legacy().TargetGroupARN)
	c, _ := p.Entry(f.World("staging").Legacy().TargetGroupARN)
	if len(a.Plan.Steps) < 3 || len(b.Plan.Steps) < 3 {
		t.Fatalf("plans of %d and %d steps, want 3 or more", len(a.Plan.Steps), len(b.Plan.Steps))
	}
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	var tr campaign.StepTracker // the zero value
	var mine []string
	own := cutover.ObserverFuncs{OnStepFinished: func(e cutover.StepEvent) { mine = append(mine, e.Step.ID) }}
	oa := tr.Observer(a, nil, own)
	ob := tr.Observer(b)
	oc := tr.Observer(c)

	sa, sb := a.Plan.Steps[0], b.Plan.Steps[2]
	oa.StepStarted(cutover.StepEvent{Step: sa, At: t0})
	ob.StepStarted(cutover.StepEvent{Step: b.Plan.Steps[1], At: t0})
	ob.StepFinished(cutover.StepEvent{Step: b.Plan.Steps[1], At: t0})
	ob.StepStarted(cutover.StepEvent{Step: sb, At: t0})
	oa.Waiting(cutover.Wait{Step: sa.ID, What: "the new pod targets healthy", Until: t0.Add(90 * time.Second)})
	ob.Waiting(cutover.Wait{Step: "not-" + sb.ID, What: "another step's wait"})
	ob.StepFinished(cutover.StepEvent{Step: sb, At: t0.Add(time.Second)})
	oc.StepStarted(cutover.StepEvent{Step: cutover.Step{ID: "delete-binding", Title: "a rollback action"}, At: t0})

	st := handState(p)
	for _, cl := range []string{"prod-a", "prod-b"} {
		set(st, cl, func(e *campaign.EntryState) {
			e.Status, e.Holder, e.StartedAt, e.ClaimedAt = campaign.StatusRunning, "runner-1", t0, t0
		})
	}
	pr, err := tr.Progress(p, st, t0.Add(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*campaign.StepProgress{}
	for _, w := range pr.Waves {
		for _, e := range w.Entries {
			got[e.Cluster] = e.Step
		}
	}
	n := len(a.Plan.Steps)
	for _, tc := range []struct {
		cluster string
		want    *campaign.StepProgress
		text    string
	}{
		{"prod-a", &campaign.StepProgress{ID: sa.ID, Title: sa.Title, Index: 1, Of: n, At: t0, Waiting: "the new pod targets healthy", Until: t0.Add(90 * time.Second)},
			fmt.Sprintf("%s (1 of %d) until 10:01:30; %s left", sa.ID, n, time.Duration(a.Seconds-10)*time.Second)},
		{"prod-b", &campaign.StepProgress{ID: sb.ID, Title: sb.Title, Index: 3, Of: len(b.Plan.Steps), At: t0.Add(time.Second), Finished: true},
			fmt.Sprintf("%s done (3 of %d); %s left of", sb.ID, len(b.Plan.Steps), time.Duration(b.Seconds-10)*time.Second)},
		// Tracked, but pending in the journal: no step.
		{"staging", nil, ""},
	} {
		g := got[tc.cluster]
		if (g == nil) != (tc.want == nil) || g != nil && *g != *tc.want {
			t.Errorf("%s: step %+v, want %+v", tc.cluster, g, tc.want)
		}
		if tc.text != "" && !strings.Contains(pr.Text(), tc.text) {
			t.Errorf("%s: the text has no %q:\n%s", tc.cluster, tc.text, pr.Text())
		}
	}
	fits(t, "progress", pr.Text())
	t.Logf("\n%s", pr.Text())
	if strings.Join(mine, ",") != "" {
		t.Errorf("the caller's observer of prod-a saw %v, want nothing finished yet", mine)
	}
	oa.StepFinished(cutover.StepEvent{Step: sa, At: t0})
	if len(mine) != 1 || mine[0] != sa.ID {
		t.Errorf("the caller's observer saw %v, want %s", mine, sa.ID)
	}
	if s := (campaign.StepProgress{ID: "delete-binding", Finished: true, Failed: true}).String(); s != "delete-binding failed" {
		t.Errorf("a failed rollback action: %q", s)
	}
}

// stepPos is a step event's place in a plan of steps: 2×index for its
// start, one more for its end; -1 when the plan has no such step.
func stepPos(steps []cutover.Step, id string, finished bool) int {
	for i, s := range steps {
		if s.ID == id {
			if finished {
				return 2*i + 1
			}
			return 2 * i
		}
	}
	return -1
}

// TestStepTrackerExecute runs the fleet (prod-a and prod-b at once in
// wave 1) with a tracker; at each step event the Progress read then
// names, for the entry of the event, that step, and for every other
// running entry the step its own events reached (or the one after it,
// whose observer waits on the check's lock).
func TestStepTrackerExecute(t *testing.T) {
	f := execFleet(t)
	p := execPlan(t, f)
	env := execEnv(t, f, "runner-1")
	tr := campaign.NewStepTracker()
	byARN := map[string]campaign.Entry{}
	for _, e := range p.Entries {
		byARN[e.TargetGroupARN.Raw] = e
	}
	var mu sync.Mutex
	seen := map[string][]string{} // per entry, "id started" and "id done"
	last := map[string]int{}      // per entry, its last event's stepPos
	together := 0                 // the most running entries named at once
	check := func(e campaign.Entry, ev cutover.StepEvent, finished bool) {
		mu.Lock()
		defer mu.Unlock()
		arn := e.TargetGroupARN.Raw
		how := " started"
		if finished {
			how = " done"
		}
		seen[arn] = append(seen[arn], ev.Step.ID+how)
		pos := stepPos(e.Plan.Steps, ev.Step.ID, finished)
		last[arn] = pos
		pr, err := tr.Status(t.Context(), p, env.Journal, f.Clock().Now())
		if err != nil {
			t.Error(err)
			return
		}
		named := 0
		for _, w := range pr.Waves {
			for _, ep := range w.Entries {
				if ep.Step == nil {
					continue
				}
				named++
				other := byARN[ep.TargetGroupARN]
				got := stepPos(other.Plan.Steps, ep.Step.ID, ep.Step.Finished)
				switch {
				case ep.Status != campaign.StatusRunning:
					t.Errorf("%s is %s with step %s", ep.Name, ep.Status, ep.Step)
				case ep.TargetGroupARN == arn && (got != pos || ep.Step.Index != pos/2+1 || ep.Step.Of != len(e.Plan.Steps)):
					t.Errorf("%s at %s %s: progress says %s", e.Name, ev.Step.ID, how, ep.Step)
				case ep.TargetGroupARN != arn && got != last[ep.TargetGroupARN] && got != last[ep.TargetGroupARN]+1:
					t.Errorf("%s's event: %s is at %s, its own events at position %d", e.Name, ep.Name, ep.Step, last[ep.TargetGroupARN])
				case ep.TargetGroupARN == arn && !strings.Contains(pr.Text(), ep.Step.String()):
					t.Errorf("the text does not name %s:\n%s", ep.Step, pr.Text())
				}
			}
		}
		together = max(together, named)
	}
	res, err := run(t.Context(), t, env, p, parallel(f), campaign.WithWorkers(3),
		campaign.WithCutoverOptions(func(e campaign.Entry) []cutover.Option {
			return append(tr.Options(e, cutover.ObserverFuncs{
				OnStepStarted:  func(ev cutover.StepEvent) { check(e, ev, false) },
				OnStepFinished: func(ev cutover.StepEvent) { check(e, ev, true) },
			}), cutover.WithPollInterval(cutover.DefaultPollInterval))
		}))
	if err != nil || !res.Completed {
		t.Fatalf("%v, %+v", err, res)
	}
	for _, e := range p.Entries {
		var want []string
		for _, s := range e.Plan.Steps {
			want = append(want, s.ID+" started", s.ID+" done")
		}
		if got := strings.Join(seen[e.TargetGroupARN.Raw], ", "); got != strings.Join(want, ", ") {
			t.Errorf("%s: steps seen\n%s\nwant the plan's\n%s", e.Name, got, strings.Join(want, ", "))
		}
	}
	if together < 2 {
		t.Errorf("at most %d running entries named at once: prod-a and prod-b did not overlap", together)
	}
	pr, err := tr.Status(t.Context(), p, env.Journal, f.Clock().Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, ep := range pr.Blocked {
		t.Errorf("blocked %s", ep.Name)
	}
	for _, w := range pr.Waves {
		for _, ep := range w.Entries {
			if ep.Step != nil {
				t.Errorf("%s, %s, still has step %s", ep.Name, ep.Status, ep.Step)
			}
		}
	}
}
