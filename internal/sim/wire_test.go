package sim_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/mock/gomock"

	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire"
	"github.com/qstools/tgmigrate/internal/sim/timing"
)

// The suites of this package through the real SDK client: Config.Wire puts
// an ELBv2 Query-protocol endpoint in front of the system under test's
// facade and of the LBC stand-in's, on loopback.

func newWireWorld(t testing.TB, cfg sim.Config, c *contract) *sim.World {
	t.Helper()
	if cfg.Wire == nil {
		cfg.Wire = &sim.WireOptions{}
	}
	w := newWorld(t, cfg, c)
	t.Cleanup(w.Close)
	if w.Wire() == nil {
		t.Fatal("Config.Wire set, no endpoint")
	}
	if _, ok := w.AWS().(*elbv2.Client); !ok {
		t.Fatalf("World.AWS() is %T, want the real SDK client", w.AWS())
	}
	return w
}

// lbcLog is the LBC's call log without wall-clock details: what it called,
// when (virtual time), with how many targets, and the outcome.
func lbcLog(w *sim.World) []string {
	var out []string
	for _, c := range w.LBCELBv2().Calls() {
		out = append(out, fmt.Sprintf("%s %s %s targets=%d %s", c.At.Format(time.TimeOnly), c.Op, strings.Join(c.Resources, ","), c.Targets, c.ErrCode))
	}
	return out
}

// TestWireIsTransparent: the same world with and without the wire gives
// the same event log, traffic and LBC calls, and the endpoints count what
// the facades count. The LBC's call contract (batches of at most 200
// targets, Port on every deregistered target) is asserted on the inputs
// the endpoint decoded.
func TestWireIsTransparent(t *testing.T) {
	tests := []struct {
		name  string
		cfg   sim.Config
		multi bool
	}{
		{"naive binding, 450 pods: batches of 200", sim.Config{Seed: 4, Nodes: 20, Pods: 450}, false},
		{"multi-cluster binding under churn", sim.Config{Seed: 5, ChurnInterval: 90 * time.Second, ReadinessGateInjection: true}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := func(wire bool) *sim.World {
				c := &contract{ctrl: gomock.NewController(t), before: !tt.multi}
				var w *sim.World
				if wire {
					w = newWireWorld(t, tt.cfg, c)
				} else {
					w = newWorld(t, tt.cfg, c)
				}
				w.Run(time.Minute)
				if err := w.Client().Create(t.Context(), w.NewBinding("web", tt.multi)); err != nil {
					t.Fatal(err)
				}
				w.Run(10 * time.Minute)
				return w
			}
			facade, wire := run(false), run(true)
			if d := cmp.Diff(facade.EventLog(), wire.EventLog()); d != "" {
				t.Errorf("event logs differ (-facade +wire):\n%s", d)
			}
			if d := cmp.Diff(facade.Traffic(), wire.Traffic()); d != "" {
				t.Errorf("traffic differs (-facade +wire):\n%s", d)
			}
			if d := cmp.Diff(lbcLog(facade), lbcLog(wire)); d != "" {
				t.Errorf("LBC calls differ (-facade +wire):\n%s", d)
			}
			// The endpoint serves the controller's ELBv2 and EC2 calls.
			facadeCounts := wire.LBCELBv2().Counts()
			maps.Copy(facadeCounts, wire.LBCEC2().Counts())
			if d := cmp.Diff(facadeCounts, wire.LBCWire().Counts()); d != "" {
				t.Errorf("LBC calls: facade and endpoint counts differ (-facade +endpoint):\n%s", d)
			}
			if n := wire.LBCWire().Counts()[elbv2sim.OpRegisterTargets]; n == 0 || len(facade.EventLog()) < 100 {
				t.Errorf("%d registrations through the wire, %d events: the scenario did little", n, len(facade.EventLog()))
			}
			for _, r := range wire.LBCWire().Requests() {
				if r.Status != 200 {
					t.Errorf("LBC request %+v", r)
				}
			}
		})
	}
}

// TestSystemUnderTestThroughTheWire is TestSystemUnderTestDrivesTheWorld
// with the real SDK client: the latency of Config.SUT is spent on the
// virtual clock by the caller, probability throttling answers HTTP 400
// Throttling, which the SDK's retryer and then adopt's own loop retry.
func TestSystemUnderTestThroughTheWire(t *testing.T) {
	tests := []struct {
		name string
		sut  elbv2sim.Options
	}{
		{"no faults", elbv2sim.Options{}},
		{"latency and 30% throttling", elbv2sim.Options{Latency: 50 * time.Millisecond, Seed: 9,
			ThrottleProbability: map[elbv2sim.OpClass]float64{elbv2sim.ClassDescribe: 0.3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// New targets need HealthyThresholdCount checks: adopt polls
			// about 30 times, enough for the 30% throttling to hit.
			w := newWireWorld(t, sim.Config{Seed: 11, Nodes: 6, Pods: 18, SUT: tt.sut,
				Timings: timing.Timings{NewTargetChecks: timing.HealthyThreshold}}, nil)
			start := w.Clock().Now()
			if err := adopt(t.Context(), w.Clock(), w.AWS(), w.Client(), w); err != nil {
				t.Fatal(err)
			}
			if w.Clock().Since(start) < w.Model().RegistrationDelay() {
				t.Errorf("adoption took %v of virtual time: the waits did not move the world", w.Clock().Since(start))
			}
			w.Run(6 * time.Minute)
			if st := w.Traffic(); st.Failed != 0 {
				t.Errorf("traffic %s: want no failure", st.String())
			}
			if nt := w.NodeTargets(); len(nt) != 0 {
				t.Errorf("node targets left: %v", nt)
			}
			counts := w.AWSCounts()
			if counts[elbv2sim.OpDeregisterTargets] != 1 || counts[elbv2sim.OpDescribeTargetHealth] < 2 {
				t.Errorf("system under test's calls at the endpoint %v", counts)
			}
			if d := cmp.Diff(w.ELBv2().Counts(), counts); d != "" {
				t.Errorf("facade and endpoint counts differ (-facade +endpoint):\n%s", d)
			}
			// Every request spent the latency on the virtual clock, before
			// it was sent.
			var requests int
			for _, n := range counts {
				requests += n
			}
			if tt.sut.Latency > 0 && w.Clock().Since(start) < time.Duration(requests)*tt.sut.Latency {
				t.Errorf("%d requests in %v of virtual time", requests, w.Clock().Since(start))
			}
			throttled := 0
			for _, r := range w.Wire().Requests() {
				if r.Code == "Throttling" {
					throttled++
					if r.Status != 400 {
						t.Errorf("throttled request answered %d", r.Status)
					}
				}
			}
			if (tt.sut.ThrottleProbability != nil) != (throttled > 0) {
				t.Errorf("%d throttled requests", throttled)
			}
		})
	}
}

// TestWireDescribesTheSeedsCase: the world's state read through the real
// SDK client is the facade's, field for field.
func TestWireDescribesTheSeedsCase(t *testing.T) {
	w := newWireWorld(t, sim.Config{Seed: 1, Nodes: 5, Pods: 10}, nil)
	arn := w.Legacy().TargetGroupARN
	got, err := w.AWS().DescribeTargetHealth(t.Context(), &elbv2.DescribeTargetHealthInput{TargetGroupArn: &arn})
	if err != nil {
		t.Fatal(err)
	}
	want, err := w.ELBv2().DescribeTargetHealth(t.Context(), &elbv2.DescribeTargetHealthInput{TargetGroupArn: &arn})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.TargetHealthDescriptions) != 5 {
		t.Errorf("%d targets, want the 5 node targets", len(got.TargetHealthDescriptions))
	}
	for i := range want.TargetHealthDescriptions {
		g, wt := got.TargetHealthDescriptions[i], want.TargetHealthDescriptions[i]
		if *g.Target.Id != *wt.Target.Id || *g.Target.Port != *wt.Target.Port || g.TargetHealth.State != wt.TargetHealth.State ||
			g.TargetHealth.State != elbv2types.TargetHealthStateEnumHealthy {
			t.Errorf("target %d: wire %+v, facade %+v", i, g, wt)
		}
	}
}

// TestWireConfigErrors: bad wire options fail New with a ConfigError and
// build nothing.
func TestWireConfigErrors(t *testing.T) {
	for _, tt := range []struct {
		opts  sim.WireOptions
		field string
	}{
		{sim.WireOptions{Client: elbv2wire.ClientOptions{Region: "eu-west-1"}}, "Wire.Client.Region"},
		{sim.WireOptions{Client: elbv2wire.ClientOptions{MaxAttempts: -1}}, "Wire.Client.MaxAttempts"},
		{sim.WireOptions{Client: elbv2wire.ClientOptions{MaxBackoff: -time.Second}}, "Wire.Client.MaxBackoff"},
	} {
		w, err := sim.New(context.Background(), sim.Config{Wire: &tt.opts})
		var ce *sim.ConfigError
		if !errors.As(err, &ce) || ce.Field != tt.field || !errors.Is(err, sim.ErrInvalidConfig) || w != nil {
			t.Errorf("New(%+v) = %v, %v; want a ConfigError on %s", tt.opts, w, err, tt.field)
		}
	}
}

// TestCloseWithoutWire: Close is safe on any world, twice.
func TestCloseWithoutWire(t *testing.T) {
	w := newWorld(t, sim.Config{Seed: 1, Nodes: 3, Pods: 3}, nil)
	w.Close()
	w.Close()
	if w.Wire() != nil || w.LBCWire() != nil {
		t.Error("endpoints without Config.Wire")
	}
	if _, ok := w.AWS().(*elbv2sim.Client); !ok {
		t.Errorf("World.AWS() is %T, want the facade", w.AWS())
	}
}

// TestWireEC2SpendsNoLatency: the system under test's EC2 calls spend no
// virtual time on either transport, as the EC2 facade spends none; the
// ELBv2 latency is spent once per ELBv2 call on both. A wire run and a
// facade run of the same plan then keep the same clock (simulate's
// -wire rows have the facade's request counts).
func TestWireEC2SpendsNoLatency(t *testing.T) {
	latency := 50 * time.Millisecond
	for _, wire := range []bool{false, true} {
		t.Run(fmt.Sprintf("wire=%v", wire), func(t *testing.T) {
			cfg := sim.Config{Seed: 3, Nodes: 3, Pods: 6, SUT: elbv2sim.Options{Latency: latency}}
			var w *sim.World
			if wire {
				w = newWireWorld(t, cfg, nil)
			} else {
				w = newWorld(t, cfg, nil)
				t.Cleanup(w.Close)
			}
			start := w.Clock().Now()
			if _, err := w.EC2().DescribeSecurityGroups(t.Context(), &ec2.DescribeSecurityGroupsInput{}); err != nil {
				t.Fatal(err)
			}
			if _, err := w.EC2().DescribeSubnets(t.Context(), &ec2.DescribeSubnetsInput{}); err != nil {
				t.Fatal(err)
			}
			if d := w.Clock().Since(start); d != 0 {
				t.Errorf("two EC2 calls took %v of virtual time, want none", d)
			}
			if _, err := w.AWS().DescribeTargetGroups(t.Context(), &elbv2.DescribeTargetGroupsInput{}); err != nil {
				t.Fatal(err)
			}
			if d := w.Clock().Since(start); d != latency {
				t.Errorf("one ELBv2 call took %v of virtual time, want the latency, %v", d, latency)
			}
		})
	}
}
