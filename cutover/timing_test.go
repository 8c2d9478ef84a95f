package cutover

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"
)

// TestEstimateFromAssumptions: the floor and the waits of a plan derive
// from its assumptions and its target group's settings, each wait with
// what it derives from.
func TestEstimateFromAssumptions(t *testing.T) {
	hc := func(interval, healthy, unhealthy int32) HealthCheckSettings {
		return HealthCheckSettings{IntervalSeconds: ptr.To(interval), HealthyThresholdCount: ptr.To(healthy), UnhealthyThresholdCount: ptr.To(unhealthy)}
	}
	tests := []struct {
		name    string
		a       Assumptions
		hc      HealthCheckSettings
		timing  HealthCheckTiming
		dereg   int32
		want    Estimate
		wantIn  []string // substrings of the waits' From, in order
		bg      bool
		holds   []int32
		holdSec int32
	}{
		{name: "defaults, early alignment: one check, the confirmation is longer", hc: hc(30, 5, 2), timing: HealthCheckBeforeBinding, dereg: 300,
			want:   Estimate{RegistrationSeconds: 10, HealthCheckSeconds: 0, AlignmentSeconds: 60, DeregistrationDelaySeconds: 300, FloorSeconds: 360},
			wantIn: []string{"registration delay 10s (assumed) to the first check, 1 passing check one interval (30 s) apart", "UnhealthyThresholdCount 2 × interval 30 s", "deregistration_delay.timeout_seconds 300"}},
		{name: "HealthyThresholdCount checks, early alignment: the new targets are longer", a: Assumptions{NewTargetChecks: HealthyThreshold}, hc: hc(30, 5, 2), timing: HealthCheckBeforeBinding, dereg: 300,
			want:   Estimate{RegistrationSeconds: 10, HealthCheckSeconds: 120, AlignmentSeconds: 60, DeregistrationDelaySeconds: 300, FloorSeconds: 430},
			wantIn: []string{"HealthyThresholdCount 5 one interval (30 s) apart", "UnhealthyThresholdCount 2 × interval 30 s", "deregistration_delay.timeout_seconds 300"}},
		{name: "late alignment: no confirmation", hc: hc(30, 5, 2), timing: HealthCheckAfterDeregistration, dereg: 300,
			want:   Estimate{RegistrationSeconds: 10, HealthCheckSeconds: 0, DeregistrationDelaySeconds: 300, FloorSeconds: 310},
			wantIn: []string{"1 passing check", "deregistration_delay.timeout_seconds 300"}},
		{name: "three checks, no registration delay, short interval", a: Assumptions{NewTargetChecks: 3, RegistrationDelay: -1}, hc: hc(10, 2, 4), timing: HealthCheckBeforeBinding, dereg: 30,
			want:   Estimate{RegistrationSeconds: 0, HealthCheckSeconds: 20, AlignmentSeconds: 40, DeregistrationDelaySeconds: 30, FloorSeconds: 70},
			wantIn: []string{"registration delay 0s (assumed) to the first check, 3 passing checks one interval (10 s) apart", "UnhealthyThresholdCount 4 × interval 10 s", "deregistration_delay.timeout_seconds 30"}},
		{name: "ELBv2's defaults when the health check is unset", hc: HealthCheckSettings{}, timing: HealthCheckUnchanged, dereg: 0,
			want:   Estimate{RegistrationSeconds: 10, HealthCheckSeconds: 0, FloorSeconds: 10},
			wantIn: []string{"1 passing check one interval (30 s) apart", "deregistration_delay.timeout_seconds 0"}},
		{name: "blue/green: the new targets, then the holds", a: Assumptions{NewTargetChecks: 2, RegistrationDelay: 20 * time.Second}, hc: hc(15, 5, 2), bg: true,
			holds: []int32{0, 10, 50, 100}, holdSec: 45,
			want:   Estimate{RegistrationSeconds: 20, HealthCheckSeconds: 15, HoldSeconds: 135, FloorSeconds: 170},
			wantIn: []string{"registration delay 20s (assumed) to the first check, 2 passing checks one interval (15 s) apart", "Request.StepHoldSeconds 45", "Request.StepHoldSeconds 45", "Request.StepHoldSeconds 45"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Plan{Request: Request{Assumptions: tt.a.WithDefaults(), StepHoldSeconds: tt.holdSec},
				HealthCheck: HealthCheckPlan{Target: tt.hc, Timing: tt.timing}, TargetGroup: TargetGroupInfo{DeregistrationDelaySeconds: tt.dereg}}
			var got Estimate
			if tt.bg {
				p.BlueGreen = &BlueGreenPlan{NewTargetGroup: NewTargetGroupSpec{HealthCheck: tt.hc}, WeightSteps: tt.holds, StepHoldSeconds: tt.holdSec}
				got = blueGreenEstimate(p)
			} else {
				got = inPlaceEstimate(p)
			}
			var from []string
			sum := int32(0)
			for _, w := range got.Waits {
				from = append(from, w.From)
				if w.Reason == "" || w.Step == "" {
					t.Errorf("wait %+v: no step or reason", w)
				}
				sum += w.Seconds
			}
			if len(from) != len(tt.wantIn) {
				t.Fatalf("waits %v, want %d", from, len(tt.wantIn))
			}
			for i, w := range tt.wantIn {
				if !strings.Contains(from[i], w) {
					t.Errorf("wait %d derives from %q, want it to name %q", i, from[i], w)
				}
			}
			got.Waits = nil
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("estimate (-want +got):\n%s", d)
			}
			if tt.want.AlignmentSeconds == 0 && sum != got.FloorSeconds {
				t.Errorf("the waits sum to %d s, the floor is %d s", sum, got.FloorSeconds)
			}
		})
	}
}

// TestAlignmentWindow: the confirmation of an early alignment lasts
// UnhealthyThresholdCount intervals of the new check, whatever its
// HealthyThresholdCount: a healthy target turns unhealthy only after that
// many failed checks.
func TestAlignmentWindow(t *testing.T) {
	for _, tt := range []struct {
		interval, healthy, unhealthy int32
		want                         time.Duration
	}{
		{30, 5, 2, 60 * time.Second},
		{30, 2, 5, 150 * time.Second},
		{10, 10, 3, 30 * time.Second},
	} {
		r := &runner{plan: &Plan{HealthCheck: HealthCheckPlan{Target: HealthCheckSettings{IntervalSeconds: &tt.interval,
			HealthyThresholdCount: &tt.healthy, UnhealthyThresholdCount: &tt.unhealthy}}}}
		if got := r.alignmentWindow(); got != tt.want {
			t.Errorf("interval %d, healthy %d, unhealthy %d: window %v, want %v", tt.interval, tt.healthy, tt.unhealthy, got, tt.want)
		}
	}
}
