package cutover_test

// The acceptance scenarios a second time, through the real aws-sdk-go-v2
// ELBv2 client and the simulator's ELBv2 Query-protocol endpoint
// (internal/sim/elbv2wire, Config.Wire): request serialisation, error
// decoding and the SDK's retryer are then part of the cutover under test.
// The SDK's retries are off (MaxAttempts 1) where the library's own
// retrying is what a scenario measures.

import (
	"testing"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire"
)

func TestWireAcceptanceInPlace(t *testing.T) { acceptanceInPlace(t, &sim.WireOptions{}) }

func TestWireAcceptanceBlueGreen(t *testing.T) { acceptanceBlueGreen(t, &sim.WireOptions{}) }

func TestWireAcceptanceThrottled(t *testing.T) {
	acceptanceThrottled(t, &sim.WireOptions{Client: elbv2wire.ClientOptions{MaxAttempts: 1}})
}

// TestWireRerunFinished: through the wire too, re-running a finished plan
// sends no mutating request to the endpoint, and the endpoint counts what
// the Result counts.
func TestWireRerunFinished(t *testing.T) {
	cfg := smallWorld(103)
	cfg.Wire = &sim.WireOptions{Client: elbv2wire.ClientOptions{MaxAttempts: 1}}
	s := newScenario(t, cfg)
	p := s.plan(nil)
	before := s.w.AWSCounts()
	res, err := cutover.Execute(t.Context(), s.env, p)
	if err != nil || !res.Completed {
		t.Fatalf("Execute: %+v, %v", res, err)
	}
	s.checkCounted(before, res)
	mid := s.w.AWSCounts()
	res, err = cutover.Execute(t.Context(), s.env, p)
	if err != nil {
		t.Fatal(err)
	}
	after := diffOps(s.w.AWSCounts(), mid)
	if n := mutatingOps(after); n != 0 || res.MutatingCalls != 0 {
		t.Errorf("re-run through the wire: %d mutating requests at the endpoint (%v), %d in the result; want 0", n, after, res.MutatingCalls)
	}
	t.Logf("through the wire: first run %v at the endpoint; re-run %v", diffOps(mid, before), after)
}

// checkCounted checks that the calls the Result counts are the calls the
// service saw since before (World.AWSCounts: at the endpoint through the
// wire, each HTTP request; at the facade otherwise), operation by
// operation.
func (s *scenario) checkCounted(before map[string]int, res *cutover.Result) {
	s.t.Helper()
	if got := diffOps(s.w.AWSCounts(), before); !equalCounts(got, res.Calls) {
		s.t.Errorf("calls the service saw %v, the result counts %v", got, res.Calls)
	}
}

func diffOps(after, before map[string]int) map[string]int {
	out := map[string]int{}
	for op, n := range after {
		if d := n - before[op]; d != 0 {
			out[op] = d
		}
	}
	return out
}

func equalCounts(a, b map[string]int) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	for k, v := range b {
		if v != 0 && a[k] != v {
			return false
		}
	}
	return true
}
