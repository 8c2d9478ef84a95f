package cutover_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/envelope"
)

// TestPlanRecordsAssumptions: the plan records its assumptions with the
// defaults applied (the zero request gets the documented and the worst
// reported values), says them in one line of its text, and reads them
// back from its JSON.
func TestPlanRecordsAssumptions(t *testing.T) {
	t.Parallel() // a world of its own
	s := newScenario(t, smallWorld(131))
	for _, tt := range []struct {
		name string
		in   cutover.Assumptions
		want cutover.Assumptions
	}{
		{"zero: the defaults", cutover.Assumptions{}, envelope.Default()},
		{"the world's", worldAssumptions(s.w), worldAssumptions(s.w)},
		{"some given", cutover.Assumptions{NewTargetChecks: 3, DeregistrationLag: 30 * time.Second},
			cutover.Assumptions{NewTargetChecks: 3, RegistrationDelay: 10 * time.Second, DeregistrationLag: 30 * time.Second, ControllerDelay: 10 * time.Second}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := s.plan(func(r *cutover.Request) { r.Assumptions = tt.in })
			if got := p.Request.Assumptions; got != tt.want {
				t.Errorf("recorded %+v, want %+v", got, tt.want)
			}
			if line := "  assumptions:   " + tt.want.String() + "\n"; !strings.Contains(p.Text(), line) {
				t.Errorf("the text lacks %q", line)
			}
			b, err := p.JSON()
			if err != nil {
				t.Fatal(err)
			}
			back, err := cutover.ParsePlan(b)
			if err != nil || back.Request.Assumptions != p.Request.Assumptions {
				t.Errorf("parsed back %+v, %v", back.Request.Assumptions, err)
			}
		})
	}
}

// TestInPlaceWithinFloor: on the simulator, with the plan's assumptions
// the world's, an in-place cutover takes within 1.05x the plan's floor.
// Today's simulator turns a new target healthy after HealthyThresholdCount
// passing checks; with a HealthyThresholdCount of 2 (the least ELBv2
// allows, the nearest it comes to "healthy after one check") the floor is
// max(registration 10 s + 2 × 30 s, the early alignment's confirmation
// 2 × 30 s) + the deregistration delay 300 s = 370 s, and the cutover no
// longer waits out HealthyThresholdCount (5 in the seed's case) intervals
// after the alignment: it used to take 450 s there, whatever the pods'
// health. Every fixed wait reaches the observer with its reason and what
// it derives from.
func TestInPlaceWithinFloor(t *testing.T) {
	t.Parallel() // a world of its own
	for _, tt := range []struct {
		name      string
		healthy   int32
		wantFloor int32
	}{
		{"HealthyThresholdCount 2", 2, 370},
		{"HealthyThresholdCount 5 (the seed's)", 5, 460},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := smallWorld(132)
			cfg.Legacy.HealthyThresholdCount = tt.healthy
			s := newScenario(t, cfg)
			p := s.plan(nil)
			if p.Estimate.FloorSeconds != tt.wantFloor {
				t.Fatalf("floor %d s, want %d s: %+v", p.Estimate.FloorSeconds, tt.wantFloor, p.Estimate)
			}
			var waits []cutover.Wait
			res, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithObserver(cutover.ObserverFuncs{
				OnWaiting: func(w cutover.Wait) { waits = append(waits, w) },
			}))
			if err != nil || !res.Completed {
				t.Fatalf("Execute: %+v, %v", res, err)
			}
			if res.Ratio > 1.05 {
				t.Errorf("cutover %.0f s for a floor of %.0f s: ratio %.3f, want at most 1.05", res.CutoverSeconds, res.FloorSeconds, res.Ratio)
			}
			for _, want := range []struct{ step, from string }{
				{cutover.StepGate, fmt.Sprintf("HealthyThresholdCount %d × interval 30 s", tt.healthy)},
				{cutover.StepGate, "UnhealthyThresholdCount 2 × interval 30 s"},
				{cutover.StepDrain, "deregistration_delay.timeout_seconds 300"},
			} {
				if !slices.ContainsFunc(waits, func(w cutover.Wait) bool {
					return w.Step == want.step && strings.Contains(w.From, want.from) && w.Reason != "" && !w.Until.IsZero()
				}) {
					t.Errorf("no wait of %s with a reason and an end, derived from %q: %+v", want.step, want.from, waits)
				}
			}
			if st := s.w.Traffic(); st.Failed != 0 {
				t.Errorf("traffic: %s", st.String())
			}
			t.Logf("%s: in-place cutover %.0f s for a floor of %.0f s (ratio %.3f); waits %v", tt.name, res.CutoverSeconds, res.FloorSeconds, res.Ratio, p.Estimate.Waits)
		})
	}
}

// TestRollbackWithinFloor: a rollback after a completed cutover, no churn:
// it registers the nodes, waits for their first checks and deletes the
// binding within 1.2x its own floor, and says so.
func TestRollbackWithinFloor(t *testing.T) {
	t.Parallel() // a world of its own
	s := newScenario(t, smallWorld(133))
	p := s.plan(nil)
	if res, err := cutover.Execute(t.Context(), s.env, p, simPods); err != nil || !res.Completed {
		t.Fatalf("Execute: %+v, %v", res, err)
	}
	rb, err := cutover.Rollback(t.Context(), s.env, p)
	if err != nil || !rb.Completed {
		t.Fatalf("Rollback: %+v, %v", rb, err)
	}
	// registration 10 s + HealthyThresholdCount 5 × 30 s, the world's.
	if rb.FloorSeconds != 160 || rb.Ratio > 1.2 || rb.Ratio < 0.5 {
		t.Errorf("rollback %.0f s for a floor of %.0f s (ratio %.3f): want a floor of 160 s and a ratio of at most 1.2", rb.Seconds, rb.FloorSeconds, rb.Ratio)
	}
	s.checkRolledBack(rb)
	t.Logf("rollback %.0f s for a floor of %.0f s (ratio %.3f)", rb.Seconds, rb.FloorSeconds, rb.Ratio)
}
