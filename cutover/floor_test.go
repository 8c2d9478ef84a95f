package cutover_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/envelope"
	"github.com/qstools/tgmigrate/internal/sim/timing"
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
// the world's, an in-place cutover takes within 1.05x the plan's floor,
// and every fixed wait reaches the observer with its reason and what it
// derives from. Each case sets the world's Timings.NewTargetChecks to
// what it is about, and the plan assumes the same (worldAssumptions):
//
//   - the defaults: a new target is healthy after one passing check (the
//     ALB user guide), whatever HealthyThresholdCount says; the seed's
//     HealthyThresholdCount 5 then costs nothing, and the floor is
//     max(the registration delay 10 s to the first check, the early
//     alignment's confirmation 2 × 30 s) + the deregistration delay 300 s
//     = 360 s;
//   - a new target needs HealthyThresholdCount passing checks
//     (timing.HealthyThreshold, the reading of Elb.InitialHealthChecking),
//     with a HealthyThresholdCount of 2 (the least ELBv2 allows):
//     max(10 s + (2 - 1) × 30 s, 60 s) + 300 s = 360 s;
//   - the same with the seed's 5:
//     max(10 s + (5 - 1) × 30 s, 60 s) + 300 s = 430 s.
//
// The cutover no longer waits out HealthyThresholdCount intervals after
// the alignment on top: it used to take 450 s where the threshold was 2,
// whatever the pods' health.
func TestInPlaceWithinFloor(t *testing.T) {
	t.Parallel() // a world of its own
	for _, tt := range []struct {
		name      string
		checks    int // Timings.NewTargetChecks
		healthy   int32
		wantFloor int32
		gateFrom  string
	}{
		{"one passing check (the defaults), HealthyThresholdCount 5", 0, 5, 360, "1 passing check one interval (30 s) apart"},
		{"HealthyThresholdCount 2, new targets need it", timing.HealthyThreshold, 2, 360, "HealthyThresholdCount 2 one interval (30 s) apart"},
		{"HealthyThresholdCount 5 (the seed's), new targets need it", timing.HealthyThreshold, 5, 430, "HealthyThresholdCount 5 one interval (30 s) apart"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := smallWorld(132)
			cfg.Timings.NewTargetChecks = tt.checks
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
				t.Errorf("cutover %.0f s (%.0f s of it the hold's settle) for a floor of %.0f s: ratio %.3f, want at most 1.05", res.CutoverSeconds, res.SettleSeconds, res.FloorSeconds, res.Ratio)
			}
			for _, want := range []struct{ step, from string }{
				{cutover.StepGate, tt.gateFrom},
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
			t.Logf("%s: in-place cutover %.0f s (settle %.0f s) for a floor of %.0f s (ratio %.3f); waits %v", tt.name, res.CutoverSeconds, res.SettleSeconds, res.FloorSeconds, res.Ratio, p.Estimate.Waits)
		})
	}
}

// TestRollbackWithinFloor: a rollback after a completed cutover, no churn:
// it registers the nodes, waits for their checks and deletes the binding
// within 1.2x its own floor (the registration delay to the first check,
// then the passing checks after it, one interval apart), and says so. It
// takes at least that floor: a rollback faster than that did not wait for
// the node targets' health. Each case sets the world's
// Timings.NewTargetChecks to what it is about, and the plan assumes the
// same: the defaults (one passing check: a floor of 10 s) and
// HealthyThresholdCount (the seed's 5: 10 s + 4 × 30 s). The API calls
// take no virtual time here (Timings.ELBv2Latency and KubeLatency off), so
// the ratio measures the rollback's waits alone; with the default latency
// the twenty-odd calls of a rollback add about a second.
func TestRollbackWithinFloor(t *testing.T) {
	t.Parallel() // worlds of their own
	for _, tt := range []struct {
		name      string
		checks    int // Timings.NewTargetChecks
		wantFloor float64
		least     float64 // registration 10 s + (checks - 1) × 30 s
	}{
		{"one passing check (the defaults)", 0, 10, 10},
		{"HealthyThresholdCount 5 (the seed's)", timing.HealthyThreshold, 130, 130},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := smallWorld(133)
			cfg.Timings.NewTargetChecks = tt.checks
			cfg.Timings.ELBv2Latency, cfg.Timings.KubeLatency = -1, -1
			s := newScenario(t, cfg)
			p := s.plan(nil)
			if res, err := cutover.Execute(t.Context(), s.env, p, simPods); err != nil || !res.Completed {
				t.Fatalf("Execute: %+v, %v", res, err)
			}
			rb, err := cutover.Rollback(t.Context(), s.env, p)
			if err != nil || !rb.Completed {
				t.Fatalf("Rollback: %+v, %v", rb, err)
			}
			if rb.FloorSeconds != tt.wantFloor || rb.Ratio > 1.2 || rb.Seconds < tt.least {
				t.Errorf("rollback %.0f s for a floor of %.0f s (ratio %.3f): want a floor of %.0f s, a ratio of at most 1.2, and at least %.0f s",
					rb.Seconds, rb.FloorSeconds, rb.Ratio, tt.wantFloor, tt.least)
			}
			s.checkRolledBack(rb)
			t.Logf("%s: rollback %.0f s for a floor of %.0f s (ratio %.3f)", tt.name, rb.Seconds, rb.FloorSeconds, rb.Ratio)
		})
	}
}
