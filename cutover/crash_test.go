package cutover_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/sim"
)

// strategies are the two worlds of the matrices: the seed's ip target
// group (in-place) and an instance one (blue/green).
var strategies = []struct {
	name     string
	instance bool
}{{"in-place", false}, {"blue-green", true}}

// transport is how the cutover reaches the simulated ELBv2: the Go facade,
// or the real SDK client (its default options: the standard retryer)
// against the simulator's Query-protocol endpoint.
type transport struct {
	name string
	wire *sim.WireOptions
	// keep picks the hook points the crash matrices crash at on this
	// transport; nil keeps every one.
	keep func(points []string, i int) bool
}

// transports are the crash matrices' transports: the facade crashes at
// every hook point (44 scenarios: 10 in-place and 12 blue/green points,
// each resumed and rolled back), the wire at three points a strategy
// (acrossTheRun: 12 scenarios). Their cost is in the README's "Testing"
// section.
var transports = []transport{{name: "facade"}, {name: "wire", wire: &sim.WireOptions{}, keep: acrossTheRun}}

// matrixTransports returns transports, or with -short (make test-short)
// the facade alone. make test always runs both.
func matrixTransports() []transport {
	if testing.Short() {
		return transports[:1]
	}
	return transports
}

// acrossTheRun keeps three hook points for the wire: the first past the
// disruption hold (the first AWS change: the health check's alignment, or
// the new target group's creation), the middle one (a deregistration
// batch in-place, a weight step part-way blue/green), and the last (a
// finished run, which a rollback undoes whole). A resume or a rollback
// from a point runs every call after it through the SDK client, so these
// three send each mutating call of the run, and of its undoing, through
// the wire; which points the journal resumes from is the facade's matrix,
// since the simulator is the same behind either transport.
func acrossTheRun(points []string, i int) bool {
	first := slices.Index(points, "step "+cutover.StepHoldDisruption) + 1
	return i == first || i == len(points)/2 || i == len(points)-1
}

// matrixStrategies returns strategies, or with -short in-place alone (its
// 10 hook points, each resumed and rolled back: 20 scenarios; blue/green's
// run in make test).
func matrixStrategies() []struct {
	name     string
	instance bool
} {
	if testing.Short() {
		return strategies[:1]
	}
	return strategies
}

func matrixWorld(seed uint64, instance bool, wire *sim.WireOptions) sim.Config {
	cfg := smallWorld(seed)
	cfg.Wire = wire
	if instance {
		cfg.Legacy.TargetType = "instance"
	}
	return cfg
}

// hookPoints runs the cutover once, under churn, on the facade, and
// returns every point its hook is called at: after each step and each
// deregistration batch. The simulator is deterministic and the wire
// transparent, so the same world reaches the same points in the same
// order on either transport: the wired matrix reuses the facade's run
// (each crash scenario checks that it crashed at the point it expected).
// The run is made once per seed and world, whichever matrix asks first.
func hookPoints(t *testing.T, seed uint64, instance bool) []string {
	t.Helper()
	v, _ := hookRuns.LoadOrStore(fmt.Sprint(seed, instance), &hookRun{})
	run := v.(*hookRun)
	run.once.Do(func() {
		s := newScenario(t, matrixWorld(seed, instance, nil))
		p := s.plan(nil)
		s.churn()
		_, run.err = cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithHook(crashAt(0, &run.points)))
	})
	if run.err != nil {
		t.Fatalf("the run that finds the hook points: %v", run.err)
	}
	return run.points
}

// hookRun is one run of hookPoints, shared by the matrices.
type hookRun struct {
	once   sync.Once
	points []string
	err    error
}

var hookRuns sync.Map // seed and world -> *hookRun

// TestAcceptanceCrashThenResume: a crash after each step and after each
// batch, then a new Execute with the same journal: it resumes, and ends
// with every pod a healthy target, no node target left, and no failed
// request.
func TestAcceptanceCrashThenResume(t *testing.T) {
	t.Parallel() // a world of its own
	for _, tr := range matrixTransports() {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			crashThenResume(t, tr)
		})
	}
}

func crashThenResume(t *testing.T, tr transport) {
	for _, st := range matrixStrategies() {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel() // hookPoints' run has a world of its own
			const seed = 105
			points := hookPoints(t, seed, st.instance)
			t.Logf("%d hook points: %v", len(points), points)
			for i, point := range points {
				if tr.keep != nil && !tr.keep(points, i) {
					continue
				}
				t.Run(fmt.Sprintf("%02d %s", i+1, point), func(t *testing.T) {
					t.Parallel()
					s := newScenario(t, matrixWorld(seed, st.instance, tr.wire))
					p := s.plan(nil)
					s.churn()
					var seen []string
					_, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithHook(crashAt(i+1, &seen)))
					if !errors.Is(err, cutover.ErrInterrupted) || !errors.Is(err, errCrash) || seen[len(seen)-1] != point {
						t.Fatalf("crash at %q: %v after %v", point, err, seen)
					}
					res, err := cutover.Execute(t.Context(), s.env, p, simPods)
					if err != nil {
						t.Fatal(err)
					}
					if !res.Completed || !res.Resumed {
						t.Fatalf("resume: completed %t, resumed %t", res.Completed, res.Resumed)
					}
					s.settle()
					s.checkRun()
					tg := p.TargetGroup.ARN
					if st.instance {
						r := s.route()
						if len(r) != 1 || r[0].ARN == tg.Raw {
							t.Fatalf("route %v: want the new target group alone", r)
						}
						tg = arntest.TG(r[0].ARN)
					}
					s.checkPodsOnly(tg.Raw)
				})
			}
		})
	}
}

// TestAcceptanceCrashThenRollback: a crash after each step and after each
// batch, completion included, then Rollback, from the plan or from the
// journal alone: it returns with a healthy target per live node, the
// binding gone, the health check and the routes as they were, the hold's
// annotations removed, and no failed request. Its release then lets the
// drift the hold kept back go on (see checkReleasedDrift).
func TestAcceptanceCrashThenRollback(t *testing.T) {
	t.Parallel() // a world of its own
	for _, tr := range matrixTransports() {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			crashThenRollback(t, tr)
		})
	}
}

func crashThenRollback(t *testing.T, tr transport) {
	for _, st := range matrixStrategies() {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel() // hookPoints' run has a world of its own
			const seed = 106
			points := hookPoints(t, seed, st.instance)
			for i, point := range points {
				if tr.keep != nil && !tr.keep(points, i) {
					continue
				}
				fromJournal := i%2 == 1
				name := fmt.Sprintf("%02d %s", i+1, point)
				if fromJournal {
					name += " from the journal"
				}
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					s := newScenario(t, matrixWorld(seed, st.instance, tr.wire))
					p := s.plan(nil)
					s.churn()
					if _, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithHook(crashAt(i+1, nil))); !errors.Is(err, errCrash) {
						t.Fatalf("crash at %q: %v", point, err)
					}
					var src cutover.Source = p
					if fromJournal {
						j, err := cutover.NewConfigMapJournal(s.w.Client(), cutover.ConfigMapJournalOptions{Namespace: p.Binding.Namespace, TargetGroupARN: p.TargetGroup.ARN})
						if err != nil {
							t.Fatal(err)
						}
						state, err := j.Inspect(t.Context())
						if err != nil {
							t.Fatal(err)
						}
						src = state
					}
					rb, err := cutover.Rollback(t.Context(), s.env, src)
					if err != nil {
						t.Fatal(err)
					}
					if !rb.Completed {
						t.Fatalf("rollback %+v", rb)
					}
					s.checkRolledBack(rb)
					s.checkHealthCheck(true)
					if s.bindingExists(p) {
						t.Error("the binding is still there")
					}
					if st.instance {
						r := s.route()
						if len(r) != 1 || r[0].ARN != p.TargetGroup.ARN.Raw {
							t.Errorf("route %v: want the old target group alone", r)
						}
						for _, arn := range s.w.Model().TargetGroupARNs() {
							if arn != p.TargetGroup.ARN.Raw {
								t.Errorf("target group %s left behind", arn)
							}
						}
					}
					if _, err := cutover.Execute(t.Context(), s.env, p, simPods); !errors.Is(err, cutover.ErrRolledBack) {
						t.Errorf("Execute after the rollback: %v, want ErrRolledBack", err)
					}
					s.checkPolicy(p)
					s.checkReleasedDrift(rb)
				})
			}
		})
	}
}
