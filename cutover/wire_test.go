package cutover_test

// The acceptance scenarios a second time, through the real aws-sdk-go-v2
// ELBv2 client and the simulator's ELBv2 Query-protocol endpoint
// (internal/sim/elbv2wire, Config.Wire): request serialisation, error
// decoding and the SDK's retryer are then part of the cutover under test.
// The SDK's retries are off (MaxAttempts 1) where the library's own
// retrying is what a scenario measures.

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-logr/logr/funcr"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire"
)

func TestWireAcceptanceInPlace(t *testing.T) {
	skipWireRepetition(t)
	acceptanceInPlace(t, &sim.WireOptions{})
}

func TestWireAcceptanceBlueGreen(t *testing.T) {
	skipWireRepetition(t)
	acceptanceBlueGreen(t, &sim.WireOptions{})
}

func TestWireAcceptanceThrottled(t *testing.T) {
	skipWireRepetition(t)
	acceptanceThrottled(t, &sim.WireOptions{Client: elbv2wire.ClientOptions{MaxAttempts: 1}})
}

// skipWireRepetition skips, with -short (make test-short), a suite that
// repeats through the wire what another test runs on the facade. make
// test runs both.
func skipWireRepetition(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("a repetition through the wire: make test runs it, make test-short (-short) does not")
	}
}

// TestWireRerunFinished: through the wire too, re-running a finished plan
// sends no mutating request to the endpoint, and the endpoint counts what
// the Result counts.
func TestWireRerunFinished(t *testing.T) {
	skipWireRepetition(t)
	t.Parallel() // a world of its own
	cfg := smallWorld(103)
	cfg.Wire = &sim.WireOptions{Client: elbv2wire.ClientOptions{MaxAttempts: 1}}
	s := newScenario(t, cfg)
	p := s.plan(nil)
	before := s.w.AWSCounts()
	res, err := cutover.Execute(t.Context(), s.env, p, simPods)
	if err != nil || !res.Completed {
		t.Fatalf("Execute: %+v, %v", res, err)
	}
	s.checkCounted(before, res)
	mid := s.w.AWSCounts()
	res, err = cutover.Execute(t.Context(), s.env, p, simPods)
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

// TestWireThrottledStandardRetryer: 30% of the ELBv2 requests answered
// HTTP 400 Throttling, through a client with the SDK's default options
// (its standard retryer: 3 attempts, jittered backoff) under the library's
// own backoff. No request fails, the cutover completes, and no side effect
// is duplicated: every target the cutover deregistered was named by
// exactly one successful DeregisterTargets, the service executed exactly
// those (its successful calls carry as many targets), and Execute
// registered nothing.
func TestWireThrottledStandardRetryer(t *testing.T) {
	t.Parallel() // a world of its own
	for _, tt := range []struct {
		name     string
		instance bool
	}{{"in-place", false}, {"blue-green", true}} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := churnWorld(smallWorld(104))
			cfg.Wire = &sim.WireOptions{} // the SDK's standard retryer
			cfg.SUT = elbv2sim.Options{Seed: 7, ThrottleProbability: map[elbv2sim.OpClass]float64{
				elbv2sim.ClassDescribe: 0.3, elbv2sim.ClassTargets: 0.3, elbv2sim.ClassMutate: 0.3}}
			if tt.instance {
				cfg.Legacy.TargetType = "instance"
			}
			s := newScenario(t, cfg)
			var libRetries atomic.Int64
			s.env.Logger = funcr.New(func(_, args string) {
				if strings.Contains(args, `"msg"="retrying"`) {
					libRetries.Add(1)
				}
			}, funcr.Options{Verbosity: 1})
			p := s.plan(nil)
			s.churn()
			s.w.ELBv2().ResetCounts()
			s.w.Wire().ResetCounts()
			res, err := cutover.Execute(t.Context(), s.env, p, simPods)
			if err != nil {
				t.Fatal(err)
			}
			at := s.figures()
			s.checkHeld(res, at)
			if !res.Completed || res.RolledBack {
				t.Fatalf("result %+v", res)
			}

			sdkThrottled := 0
			for _, r := range s.w.Wire().Requests() {
				if r.Code == "Throttling" {
					if r.Status != 400 {
						t.Errorf("throttled request %s answered HTTP %d, want 400", r.ID, r.Status)
					}
					sdkThrottled++
				}
			}
			if sdkThrottled == 0 || libRetries.Load() == 0 {
				t.Errorf("%d requests throttled at the endpoint, %d retries by the library: want both, or the test proves nothing", sdkThrottled, libRetries.Load())
			}

			perTarget := s.api.deregistrations()
			for target, n := range perTarget {
				if n != 1 {
					t.Errorf("target %s named by %d successful DeregisterTargets, want 1", target, n)
				}
			}
			atService := 0
			for _, c := range s.w.ELBv2().Calls() {
				switch {
				case c.ErrCode != "":
				case c.Op == "DeregisterTargets":
					atService += c.Targets
				case c.Op == "RegisterTargets":
					t.Errorf("Execute registered %d targets", c.Targets)
				}
			}
			if atService != len(perTarget) || len(perTarget) == 0 {
				t.Errorf("the service deregistered %d targets in successful calls; the cutover %d distinct targets", atService, len(perTarget))
			}
			if want := res.Deregistered; len(perTarget) != want {
				t.Errorf("%d targets deregistered, the result says %d", len(perTarget), want)
			}
			s.settle()
			s.checkRun()
			t.Logf("%s: %d requests throttled at the endpoint, %d library retries; %d targets deregistered once each; when Execute returned %s; after settling %d failed of %d",
				tt.name, sdkThrottled, libRetries.Load(), len(perTarget), at, s.w.Traffic().Failed, s.w.Traffic().Total)
		})
	}
}
