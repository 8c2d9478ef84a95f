package cutover_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/cutover"
)

// TestExecuteRefusesBadOptions: a WithStopAfter naming no step of the
// plan (a typo would otherwise run the cutover to the end), and a retry
// or a poll interval that could outlast the lease, or an unknown
// precondition kind, are *InputErrors before anything is read or changed,
// and so is the *PreconditionError of a plan whose precondition was not
// accepted: the world is listed unchanged (no journal, no lease, no
// annotation) and the simulator saw no call.
func TestExecuteRefusesBadOptions(t *testing.T) {
	t.Parallel() // a world of its own
	tests := []struct {
		name  string
		opts  []cutover.Option
		field string
	}{
		{"stop after a typo", []cutover.Option{simPods, cutover.WithStopAfter("gat")}, "WithStopAfter"},
		{"stop after a blue/green step on an in-place plan", []cutover.Option{simPods, cutover.WithStopAfter(cutover.StepDetach)}, "WithStopAfter"},
		{"retry pauses longer than half the lease", []cutover.Option{simPods, cutover.WithRetry(cutover.RetryPolicy{Max: 40 * time.Second})}, "WithRetry"},
		{"poll interval longer than half the lease", []cutover.Option{simPods, cutover.WithPollInterval(40 * time.Second)}, "WithPollInterval"},
		{"an unknown precondition kind", []cutover.Option{simPods, cutover.WithAcceptPreconditions("pod-setting")}, "WithAcceptPreconditions"},
		// The simulator's plans carry the pod-settings precondition (see
		// simPods): without the option Execute refuses, as early.
		{"a precondition not accepted", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScenario(t, smallWorld(201))
			p := s.plan(nil)
			before := worldState(t, s.w)
			s.w.ELBv2().ResetCounts()
			res, err := cutover.Execute(t.Context(), s.env, p, tt.opts...)
			var in *cutover.InputError
			var pe *cutover.PreconditionError
			switch {
			case tt.field == "" && (!errors.As(err, &pe) || !cutover.IsPrecondition(err) || res != nil):
				t.Fatalf("Execute: %v (result %+v), want a *PreconditionError", err, res)
			case tt.field != "" && (!errors.As(err, &in) || in.Field != tt.field || !cutover.IsInvalidInput(err)):
				t.Fatalf("Execute: %v (result %+v), want an *InputError on %s", err, res, tt.field)
			}
			if n := len(s.w.ELBv2().Calls()); n != 0 {
				t.Errorf("%d ELBv2 calls: %v", n, s.w.ELBv2().Counts())
			}
			if diff := cmp.Diff(before, worldState(t, s.w)); diff != "" {
				t.Errorf("the world changed (-before +after):\n%s", diff)
			}
		})
	}
}
