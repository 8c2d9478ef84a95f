package cutover_test

// rollback_estimate_test.go: EstimateRollback from a plan is the floor the
// rollback then reports, and derives from the plan's assumptions and the
// health check it restores; from the journal of an interrupted rollback it
// counts only what is left; a finished one is zero; a bad source is an
// *InputError.

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/qstools/tgmigrate/cutover"
)

func TestEstimateRollback(t *testing.T) {
	t.Parallel() // a world of its own
	s := newScenario(t, smallWorld(141))
	p := s.plan(nil)
	est, err := cutover.EstimateRollback(p)
	if err != nil {
		t.Fatal(err)
	}
	// In-place, unbounded: one wait, the node targets' registration and
	// checks at the interval of the original health check.
	a := p.Request.Assumptions
	interval, healthy, _ := p.HealthCheck.Original.Timing()
	want := int32(a.Registration().Seconds()) + (a.Checks(healthy)-1)*interval
	if len(est.Waits) != 1 || est.Waits[0].Step != cutover.RollbackWaitNodes || est.Seconds != want || est.Waits[0].Seconds != want {
		t.Fatalf("estimate %+v, want one wait-nodes wait of %d s", est, want)
	}
	if !strings.Contains(est.Assumption, "(assumed)") || !strings.Contains(est.String(), "about ") || !strings.Contains(est.String(), "assumes registration delay") {
		t.Errorf("estimate %q: want it to name the assumed registration delay", est.String())
	}
	wantActs := []string{cutover.RollbackHoldDisruption, cutover.RollbackRegisterNodes, cutover.RollbackWaitNodes,
		cutover.RollbackDeleteBinding, cutover.RollbackRestoreHealthCheck, cutover.RollbackReleaseDisruption}
	if !slices.Equal(est.Actions, wantActs) {
		t.Errorf("actions %v, want %v", est.Actions, wantActs)
	}

	if _, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithStopAfter(cutover.StepDrain)); err != nil {
		t.Fatal(err)
	}
	// A rollback interrupted once wait-nodes is journaled: what is left
	// waits for nothing.
	errStop := errors.New("stop after wait-nodes")
	_, err = cutover.Rollback(t.Context(), s.env, p, cutover.WithHook(func(_ context.Context, e cutover.Event) error {
		if e.Kind == cutover.EventRollback && e.Step == cutover.RollbackWaitNodes {
			return errStop
		}
		return nil
	}))
	if !errors.Is(err, errStop) {
		t.Fatalf("Rollback: %v, want the hook's stop", err)
	}
	st := s.journal(p)
	left, err := cutover.EstimateRollback(st)
	if err != nil {
		t.Fatal(err)
	}
	if wantLeft := wantActs[3:]; left.Seconds != 0 || len(left.Waits) != 0 || !slices.Equal(left.Actions, wantLeft) {
		t.Errorf("estimate after wait-nodes: %+v, want 0 s and the actions %v", left, wantLeft)
	}
	// From the journal before any rollback action, a State estimates as
	// its plan does.
	fresh := st.Clone()
	fresh.Rollback = nil
	if e, err := cutover.EstimateRollback(fresh); err != nil || e.Seconds != est.Seconds || !slices.Equal(e.Actions, est.Actions) {
		t.Errorf("estimate from the journal's state: %+v, %v; want the plan's %+v", e, err, est)
	}

	// The rollback's own floor is the plan's estimate.
	rb, err := cutover.Rollback(t.Context(), s.env, p)
	if err != nil || !rb.Completed {
		t.Fatalf("Rollback: %+v, %v", rb, err)
	}
	if done, err := cutover.EstimateRollback(s.journal(p)); err != nil || done.Seconds != 0 || len(done.Actions) != 0 {
		t.Errorf("estimate of a finished rollback: %+v, %v", done, err)
	}

	for name, src := range map[string]cutover.Source{"nil": nil, "nil state": (*cutover.State)(nil), "other": otherSource{}} {
		if _, err := cutover.EstimateRollback(src); !cutover.IsInvalidInput(err) {
			t.Errorf("%s: %v, want an *InputError", name, err)
		}
	}
}

// TestRollbackFloorIsTheEstimate: a rollback that registers node targets
// reports as its floor the seconds its plan's estimate gave.
func TestRollbackFloorIsTheEstimate(t *testing.T) {
	t.Parallel() // a world of its own
	s := newScenario(t, smallWorld(142))
	p := s.plan(nil)
	est, err := cutover.EstimateRollback(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithStopAfter(cutover.StepDrain)); err != nil {
		t.Fatal(err)
	}
	rb, err := cutover.Rollback(t.Context(), s.env, p)
	if err != nil || !rb.Completed || len(rb.Registered) == 0 {
		t.Fatalf("Rollback: %+v, %v", rb, err)
	}
	if rb.FloorSeconds != float64(est.Seconds) {
		t.Errorf("rollback floor %v s, estimate %d s", rb.FloorSeconds, est.Seconds)
	}
}

// otherSource is a Source of a type Rollback does not take.
type otherSource struct{}

func (otherSource) Ref() cutover.PlanRef { return cutover.PlanRef{} }
