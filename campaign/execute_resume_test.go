package campaign_test

// execute_resume_test.go: Execute stopped and resumed: a cancellation
// mid-wave; two runners on one journal, one killed midway; a crash after
// each of the campaign journal's writes. Each resumes to the same end
// state: every entry done, every step done once, every request served.

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// allDone checks the end state every resumed campaign reaches.
func allDone(t *testing.T, f *tgmigratetest.Fleet, p *campaign.Plan, st *steps, res *campaign.Result) {
	t.Helper()
	if !res.Completed || res.Totals.Done != len(p.Entries) {
		t.Errorf("result %+v, want every entry done", res.Totals)
	}
	for _, w := range f.Worlds() {
		if w.NodeTargets() != 0 {
			t.Errorf("%s: %d node targets left", w.ClusterName(), w.NodeTargets())
		}
	}
	noFailedRequests(t, f)
	st.once(t, p)
}

// TestExecuteCancelResume: the context is cancelled while wave 1's
// cutovers run; Execute stops with StopCancelled, the journal has them
// running; a second Execute resumes them from their cutover journals.
func TestExecuteCancelResume(t *testing.T) {
	f := execFleet(t)
	p := execPlan(t, f)
	st := newSteps()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	events := 0
	cancelMid := func(e campaign.Entry) []cutover.Option {
		if e.Wave != 1 {
			return nil
		}
		return []cutover.Option{cutover.WithHook(func(context.Context, cutover.Event) error {
			if events++; events == 3 {
				cancel()
			}
			return nil
		})}
	}
	env := execEnv(t, f, "runner-1")
	res, err := run(ctx, t, env, p, campaign.WithCutoverOptions(st.options(cancelMid)), campaign.WithWorkers(1))
	var se *campaign.StopError
	if !errors.As(err, &se) || se.Reason != campaign.StopCancelled || !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want a cancellation stop", err)
	}
	if res.Totals.Running != 1 || res.Totals.Done != 1 || len(res.Stops) != 1 {
		t.Fatalf("after the cancellation: %+v, stops %+v", res.Totals, res.Stops)
	}
	res, err = run(t.Context(), t, env, p, parallel(f), campaign.WithWorkers(2), campaign.WithCutoverOptions(st.options(nil)))
	if err != nil {
		t.Fatal(err)
	}
	allDone(t, f, p, st, res)
}

// TestExecuteTwoRunners: two runners (two machines) on one plan and one
// ConfigMap journal, in one wave; runner A is killed in the middle of its
// first cutover (a crash after 3 events). B runs its own, then takes A's
// over once A's Lease expires, resuming it from its cutover journal, and
// runs the rest. Every step is done once; none is left half-done.
func TestExecuteTwoRunners(t *testing.T) {
	f := execFleet(t)
	p := execPlan(t, f, campaign.WithCanaries())
	if len(p.Waves) != 1 {
		t.Fatalf("waves %+v, want one", p.Waves)
	}
	st := newSteps()
	crash := tgmigratetest.CrashAfter[cutover.Event](3)
	var resA, resB *campaign.Result
	var errA, errB error
	err := f.Parallel(t.Context(),
		func(ctx context.Context) error {
			resA, errA = run(ctx, t, execEnv(t, f, "runner-a"), p, campaign.WithWorkers(1),
				campaign.WithCutoverOptions(st.options(func(campaign.Entry) []cutover.Option { return []cutover.Option{cutover.WithHook(crash)} })))
			return nil
		},
		func(ctx context.Context) error {
			resB, errB = run(ctx, t, execEnv(t, f, "runner-b"), p, campaign.WithWorkers(1), campaign.WithCutoverOptions(st.options(nil)))
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	var se *campaign.StopError
	if !errors.As(errA, &se) || se.Reason != campaign.StopInterrupted || !errors.Is(errA, tgmigratetest.ErrCrash) {
		t.Fatalf("runner A: %v, want its crash", errA)
	}
	if errB != nil {
		t.Fatalf("runner B: %v", errB)
	}
	_ = resA
	allDone(t, f, p, st, resB)
	takenOver := 0
	for _, e := range resB.Entries {
		if e.Holder != "runner-b" {
			t.Errorf("%s: holder %s, want runner-b", e.Cluster, e.Holder)
		}
		if e.Attempts == 2 {
			takenOver++
		}
	}
	if takenOver != 1 {
		t.Errorf("entries %+v: want one taken over", resB.Entries)
	}
	t.Logf("runner B: %s on the clock, plan estimate %ds\n%s", resB.FinishedAt.Sub(resB.StartedAt), p.Estimate.TotalSeconds, resB.Text())
}

// TestExecuteCrashMatrix: the runner crashes right after each write of
// the campaign journal (its start, each claim, each finish, the
// approval), and a second run with the same identity resumes it to the
// same end state.
func TestExecuteCrashMatrix(t *testing.T) {
	// A clean run's writes: start, claim and finish of the canary, the
	// approval, the claims and finishes of wave 1.
	const writes = 8
	for k := 1; k <= writes+1; k++ {
		t.Run(fmt.Sprintf("after write %d", k), func(t *testing.T) {
			t.Parallel() // a fleet each
			f := execFleet(t)
			p := execPlan(t, f)
			st := newSteps()
			env := execEnv(t, f, "runner-1")
			var at campaign.Event
			hook := func(ctx context.Context, e campaign.Event) error {
				if e.Write == k {
					at = e
					return tgmigratetest.ErrCrash
				}
				return nil
			}
			res, err := run(t.Context(), t, env, p, parallel(f), campaign.WithWorkers(2), campaign.WithHook(hook), campaign.WithCutoverOptions(st.options(nil)))
			if k > writes {
				// No write k: the clean run the matrix covers.
				if err != nil {
					t.Fatal(err)
				}
				allDone(t, f, p, st, res)
				return
			}
			if !errors.Is(err, tgmigratetest.ErrCrash) {
				t.Fatalf("err %v, want the crash after write %d", err, k)
			}
			res, err = run(t.Context(), t, env, p, parallel(f), campaign.WithWorkers(2), campaign.WithCutoverOptions(st.options(nil)))
			if err != nil {
				t.Fatalf("resume after %s: %v", at, err)
			}
			allDone(t, f, p, st, res)
		})
	}
}
