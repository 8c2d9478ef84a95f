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
	tr := campaign.NewStepTracker()
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
