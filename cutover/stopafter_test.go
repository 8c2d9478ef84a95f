package cutover_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/cutover"
)

// TestStopAfterDoneStep: Execute stopped after the gate once; a second
// Execute with the same WithStopAfter stops there again, before running
// anything further: every step it reports is skipped, it makes no
// mutating call, and the node targets are all still registered.
func TestStopAfterDoneStep(t *testing.T) {
	t.Parallel() // a world of its own
	for _, st := range strategies {
		t.Run(st.name, func(t *testing.T) {
			s := newScenario(t, matrixWorld(202, st.instance, nil))
			p := s.plan(nil)
			res, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithStopAfter(cutover.StepGate))
			if err != nil || !res.Stopped || res.StoppedAfter != cutover.StepGate {
				t.Fatalf("first Execute: stopped %t after %q, err %v", res.Stopped, res.StoppedAfter, err)
			}
			nodes := len(s.w.NodeTargets())
			route := s.route()
			s.w.ELBv2().ResetCounts()
			res, err = cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithStopAfter(cutover.StepGate))
			if err != nil {
				t.Fatal(err)
			}
			if !res.Stopped || res.StoppedAfter != cutover.StepGate || res.Completed {
				t.Errorf("second Execute: stopped %t after %q, completed %t; want stopped after %s", res.Stopped, res.StoppedAfter, res.Completed, cutover.StepGate)
			}
			var ran []string
			for _, sr := range res.Steps {
				if !sr.Skipped {
					ran = append(ran, sr.ID)
				}
			}
			if len(ran) > 0 || len(res.Steps) != slices.Index(p.StepIDs(), cutover.StepGate)+1 {
				t.Errorf("second Execute reported steps %+v; want only the steps up to the gate, all skipped (ran %v)", res.Steps, ran)
			}
			if n := mutatingOps(s.w.ELBv2().Counts()); n != 0 || res.MutatingCalls != 0 || res.Deregistered != 0 {
				t.Errorf("second Execute: %d mutating calls (result %d), %d deregistered; want none", n, res.MutatingCalls, res.Deregistered)
			}
			if got := len(s.w.NodeTargets()); got != nodes {
				t.Errorf("%d node targets after the second Execute, %d before", got, nodes)
			}
			if diff := cmp.Diff(route, s.route()); diff != "" {
				t.Errorf("the route changed (-before +after):\n%s", diff)
			}
			// Without WithStopAfter it goes on from there.
			res, err = cutover.Execute(t.Context(), s.env, p, simPods)
			if err != nil || !res.Completed {
				t.Fatalf("third Execute: completed %t, err %v", res.Completed, err)
			}
		})
	}
}
