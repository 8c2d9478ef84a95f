package cutover_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
)

// The acceptance scenarios measure the cutover itself: Karpenter drifts
// every node from the start (see churnWorld). The cutover holds
// Karpenter's graceful disruption while it runs, so the figures taken
// when Execute returns show the disruptions already under way finished,
// none started during the hold, at least 10,000 requests and none failed
// (checkHeld); then the world settles, every node of the start is
// replaced once the hold is released, and the end state is checked.
// TestAcceptanceInPlaceNoHold runs without the hold: every node of the
// start is replaced while Execute runs.

// TestAcceptanceInPlace: the seed's case (20 nodes, 60 pods), Karpenter
// drifting every node: no failed request, only healthy pod targets at the
// end, and a cutover time within 1.05x the floor (the plan's assumptions
// are the world's; Result.Ratio leaves out the hold step's settle, the
// disruptions under way when it began, which no plan can know).
func TestAcceptanceInPlace(t *testing.T) { acceptanceInPlace(t, nil) }

func acceptanceInPlace(t *testing.T, wire *sim.WireOptions) {
	t.Parallel() // a world of its own
	s := newScenario(t, churnWorld(sim.Config{Seed: 101, Wire: wire}))
	p := s.plan(nil)
	if p.Strategy != cutover.StrategyInPlace || len(p.Recorded) != 20 || p.Floor != 20 {
		t.Fatalf("plan: strategy %s, %d recorded, floor %d", p.Strategy, len(p.Recorded), p.Floor)
	}
	s.churn()
	before := s.w.AWSCounts()
	res, err := cutover.Execute(t.Context(), s.env, p, simPods)
	if err != nil {
		t.Fatal(err)
	}
	at := s.figures()
	s.checkCounted(before, res)
	if !res.Completed || res.RolledBack {
		t.Fatalf("result %+v", res)
	}
	s.checkHeld(res, at)
	s.settle()
	s.checkRun()
	s.checkPodsOnly(p.TargetGroup.ARN.Raw)
	s.checkHealthCheck(false)
	s.checkPolicy(p)
	if !s.bindingExists(p) {
		t.Error("the binding is gone")
	}
	if res.Ratio > 1.05 {
		t.Errorf("cutover %.0fs (%.0fs of it the hold's settle) for a floor of %.0fs: ratio %.3f, want at most 1.05", res.CutoverSeconds, res.SettleSeconds, res.FloorSeconds, res.Ratio)
	}
	t.Logf("in-place: when Execute returned %s; after settling %d requests, %d failed; cutover %.0fs (the hold's settle %.0fs), floor %.0fs, ratio %.3f; %d deregistered in %d batches (%d retired early, %d skipped); calls %v",
		at, s.w.Traffic().Total, s.w.Traffic().Failed, res.CutoverSeconds, res.SettleSeconds, res.FloorSeconds, res.Ratio, res.Deregistered, res.Batches, len(res.Retired), len(res.Skipped), res.Calls)
}

// TestAcceptanceInPlaceNoHold: the same world and churn, the plan made
// with Request.NoDisruptionHold: Karpenter replaces nodes of the start
// while the cutover runs (20 nodes, a budget of 25%, one launch at a
// time), and still no request fails, the cutover is within 1.2x its floor, and the target
// group ends with the pods' targets only. The plan warns that nothing
// holds the disruption, and nothing annotates a node.
func TestAcceptanceInPlaceNoHold(t *testing.T) {
	t.Parallel() // a world of its own
	s := newScenario(t, churnWorld(sim.Config{Seed: 101}))
	p := s.plan(func(r *cutover.Request) { r.NoDisruptionHold = true })
	if p.Step(cutover.StepHoldDisruption) != nil || p.Step(cutover.StepReleaseDisruption) != nil ||
		!slices.ContainsFunc(p.Warnings, func(w string) bool { return strings.Contains(w, "NoDisruptionHold") }) {
		t.Fatalf("plan: steps %v, warnings %q: want no hold and a warning", p.StepIDs(), p.Warnings)
	}
	s.churn()
	res, err := cutover.Execute(t.Context(), s.env, p, simPods)
	if err != nil || !res.Completed {
		t.Fatalf("Execute: %+v, %v", res, err)
	}
	at := s.figures()
	s.checkDuringExecute(at)
	if len(res.Held) != 0 || len(s.heldNodes()) != 0 {
		t.Errorf("held %v, nodes marked %v: want none", res.Held, s.heldNodes())
	}
	s.settle()
	s.checkRun()
	s.checkPodsOnly(p.TargetGroup.ARN.Raw)
	if res.Ratio > 1.2 {
		t.Errorf("cutover %.0fs for a floor of %.0fs: ratio %.3f, want at most 1.2", res.CutoverSeconds, res.FloorSeconds, res.Ratio)
	}
	t.Logf("in-place without the hold: when Execute returned %s; cutover %.0fs, floor %.0fs, ratio %.3f; %d deregistered (%d retired early)",
		at, res.CutoverSeconds, res.FloorSeconds, res.Ratio, res.Deregistered, len(res.Retired))
}

// TestAcceptanceBlueGreen: an instance target group cannot change type; a
// new ip target group takes over through weights 0, 10, 50, 100 while
// Karpenter drifts every node, within 1.05x the floor (the hold's settle
// aside, as in-place).
func TestAcceptanceBlueGreen(t *testing.T) { acceptanceBlueGreen(t, nil) }

func acceptanceBlueGreen(t *testing.T, wire *sim.WireOptions) {
	t.Parallel() // a world of its own
	cfg := churnWorld(sim.Config{Seed: 102, Wire: wire})
	cfg.Legacy.TargetType = "instance"
	s := newScenario(t, cfg)
	p := s.plan(nil)
	if p.Strategy != cutover.StrategyBlueGreen || p.BlueGreen == nil {
		t.Fatalf("plan: strategy %s", p.Strategy)
	}
	var analysed []int32
	s.churn()
	before := s.w.AWSCounts()
	res, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithAnalysis(func(_ context.Context, st cutover.Step) error {
		analysed = append(analysed, st.Weight)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	at := s.figures()
	s.checkCounted(before, res)
	if !res.Completed {
		t.Fatalf("result %+v", res)
	}
	s.checkHeld(res, at)
	s.settle()
	s.checkRun()
	r := s.route()
	if len(r) != 1 || r[0].ARN == p.TargetGroup.ARN.Raw {
		t.Fatalf("route %v: want the new target group alone", r)
	}
	s.checkPodsOnly(r[0].ARN)
	s.checkPolicy(p)
	if want := []int32{10, 50, 100}; !slicesEqual(analysed, want) {
		t.Errorf("analysed weights %v, want %v", analysed, want)
	}
	// The floor is made of waits (the new targets' first check, the three
	// 30 s holds: 100 s); the rest is the LBC's reaction to the binding
	// and the latency of the run's hundred-odd API calls (50 ms each to
	// ELBv2, 10 ms to Kubernetes: package timing), about 7 s.
	if res.Ratio > 1.1 {
		t.Errorf("cutover %.0fs (%.0fs of it the hold's settle) for a floor of %.0fs: ratio %.3f, want at most 1.1", res.CutoverSeconds, res.SettleSeconds, res.FloorSeconds, res.Ratio)
	}
	t.Logf("blue/green: when Execute returned %s; after settling %d requests, %d failed; cutover %.0fs (the hold's settle %.0fs), floor %.0fs, ratio %.3f; calls %v",
		at, s.w.Traffic().Total, s.w.Traffic().Failed, res.CutoverSeconds, res.SettleSeconds, res.FloorSeconds, res.Ratio, res.Calls)
}

func slicesEqual[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestAcceptanceRerunFinished: a cutover under churn completes (the
// disruptions under way finished, none started during the hold, 10,000
// requests by then, none failed); Execute of the finished plan makes no
// mutating call (and no call at all); Rollback of a rolled-back plan
// neither.
func TestAcceptanceRerunFinished(t *testing.T) {
	t.Parallel() // a world of its own
	s := newScenario(t, churnWorld(smallWorld(103)))
	p := s.plan(nil)
	s.churn()
	first, err := cutover.Execute(t.Context(), s.env, p, simPods)
	if err != nil || !first.Completed {
		t.Fatalf("Execute: %+v, %v", first, err)
	}
	at := s.figures()
	s.checkHeld(first, at)
	if first.Ratio > 1.2 {
		t.Errorf("cutover %.0fs for a floor of %.0fs: ratio %.3f, want at most 1.2", first.CutoverSeconds, first.FloorSeconds, first.Ratio)
	}
	s.w.ELBv2().ResetCounts()
	res, err := cutover.Execute(t.Context(), s.env, p, simPods)
	if err != nil {
		t.Fatal(err)
	}
	if n := mutatingOps(s.w.ELBv2().Counts()); n != 0 || res.MutatingCalls != 0 || !res.Completed {
		t.Errorf("re-run: %d mutating calls in the simulator, %d in the result, completed %t; want 0, 0, true", n, res.MutatingCalls, res.Completed)
	}
	for _, st := range res.Steps {
		if !st.Skipped {
			t.Errorf("step %s ran again", st.ID)
		}
	}
	t.Logf("re-run of a finished plan: %d mutating calls (simulator counts %v); the first run: when Execute returned %s, ratio %.3f",
		mutatingOps(s.w.ELBv2().Counts()), s.w.ELBv2().Counts(), at, first.Ratio)
	s.settle()
	s.checkRun()
	s.checkPodsOnly(p.TargetGroup.ARN.Raw)

	if _, err := cutover.Rollback(t.Context(), s.env, p); err != nil {
		t.Fatal(err)
	}
	s.w.ELBv2().ResetCounts()
	rb, err := cutover.Rollback(t.Context(), s.env, p)
	if err != nil || !rb.NothingToDo {
		t.Fatalf("second rollback: %+v, %v", rb, err)
	}
	if n := mutatingOps(s.w.ELBv2().Counts()); n != 0 {
		t.Errorf("second rollback: %d mutating calls", n)
	}
	if _, err := cutover.Execute(t.Context(), s.env, p, simPods); !errors.Is(err, cutover.ErrRolledBack) {
		t.Errorf("Execute after rollback: %v, want ErrRolledBack", err)
	}
}

// TestAcceptanceThrottled: 30% of the cutover's ELBv2 calls are throttled,
// of every class; it retries them and still completes with no failed
// request.
func TestAcceptanceThrottled(t *testing.T) { acceptanceThrottled(t, nil) }

func acceptanceThrottled(t *testing.T, wire *sim.WireOptions) {
	t.Parallel() // a world of its own
	for _, tt := range []struct {
		name     string
		instance bool
	}{{"in-place", false}, {"blue-green", true}} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := churnWorld(smallWorld(104))
			cfg.Wire = wire
			cfg.SUT = elbv2sim.Options{Seed: 7, ThrottleProbability: map[elbv2sim.OpClass]float64{
				elbv2sim.ClassDescribe: 0.3, elbv2sim.ClassTargets: 0.3, elbv2sim.ClassMutate: 0.3}}
			if tt.instance {
				cfg.Legacy.TargetType = "instance"
			}
			s := newScenario(t, cfg)
			p := s.plan(nil)
			s.churn()
			res, err := cutover.Execute(t.Context(), s.env, p, simPods)
			if err != nil {
				t.Fatal(err)
			}
			at := s.figures()
			s.checkHeld(res, at)
			if res.Ratio > 1.2 {
				t.Errorf("cutover %.0fs for a floor of %.0fs: ratio %.3f, want at most 1.2", res.CutoverSeconds, res.FloorSeconds, res.Ratio)
			}
			s.settle()
			s.checkRun()
			throttled := 0
			for _, c := range s.w.ELBv2().Calls() {
				if c.ErrCode == "Throttling" {
					throttled++
				}
			}
			total := len(s.w.ELBv2().Calls())
			if throttled == 0 || !res.Completed {
				t.Errorf("%d of %d calls throttled, completed %t", throttled, total, res.Completed)
			}
			t.Logf("%s with 30%% throttling: completed %t, %d of %d calls throttled; when Execute returned %s; after settling %d failed requests of %d; ratio %.3f",
				tt.name, res.Completed, throttled, total, at, s.w.Traffic().Failed, s.w.Traffic().Total, res.Ratio)
		})
	}
}
