package cutover_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
)

// TestPlanCutoverThrottled: planning is read-only, so every read it makes
// (its own and tgbind's) is retried on throttling. With 30% of the ELBv2
// calls throttled, PlanCutover succeeds, and its plan is the plan of the
// same world unthrottled, byte for byte.
func TestPlanCutoverThrottled(t *testing.T) {
	t.Parallel() // a world of its own
	for _, tt := range []struct {
		name       string
		targetType string
	}{{"in-place", "ip"}, {"blue-green", "instance"}} {
		t.Run(tt.name, func(t *testing.T) {
			planJSON := func(throttle float64, seed uint64) ([]byte, int) {
				cfg := smallWorld(105)
				cfg.Legacy.TargetType = tt.targetType
				if throttle > 0 {
					cfg.SUT = elbv2sim.Options{Seed: seed, ThrottleProbability: map[elbv2sim.OpClass]float64{
						elbv2sim.ClassDescribe: throttle, elbv2sim.ClassTargets: throttle, elbv2sim.ClassMutate: throttle}}
				}
				s := newScenario(t, cfg)
				p, err := cutover.PlanCutover(t.Context(), s.env, s.request())
				if err != nil {
					t.Fatalf("PlanCutover with %.0f%% throttled (seed %d): %v", throttle*100, seed, err)
				}
				b, err := p.JSON()
				if err != nil {
					t.Fatal(err)
				}
				return b, throttledCalls(s.w)
			}
			want, _ := planJSON(0, 0)
			throttled := 0
			for seed := uint64(1); seed <= 8; seed++ {
				got, n := planJSON(0.3, seed)
				throttled += n
				if diff := cmp.Diff(string(want), string(got)); diff != "" {
					t.Errorf("throttle seed %d: the throttled plan differs from the unthrottled one (-want +got):\n%s", seed, diff)
				}
			}
			if throttled == 0 {
				t.Fatal("no call was throttled: the test proves nothing")
			}
			t.Logf("%s: %d calls throttled over 8 plans", tt.name, throttled)
		})
	}
}

// throttledCalls counts the calls the world's ELBv2 answered with
// Throttling.
func throttledCalls(w *sim.World) int {
	n := 0
	for _, c := range w.ELBv2().Calls() {
		if c.ErrCode == "Throttling" {
			n++
		}
	}
	return n
}
