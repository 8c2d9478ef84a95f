package elbv2model_test

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
)

// TestNewTargetChecks: a new target turns healthy after NewTargetChecks
// passing checks (one by default, as the ALB user guide says), capped at
// HealthyThresholdCount; HealthyThreshold asks for HealthyThresholdCount.
// A target that was healthy and turned unhealthy needs
// HealthyThresholdCount passes again, whatever NewTargetChecks says.
func TestNewTargetChecks(t *testing.T) {
	const ip = "10.0.1.1"
	tests := []struct {
		name   string
		checks int
		// healthyAt is when the target turns healthy: registration delay
		// 10 s, then one check every 10 s from the first at 10 s.
		healthyAt time.Duration
	}{
		{"default: one check", 0, 10 * time.Second},
		{"two checks", 2, 20 * time.Second},
		{"more than the threshold: the threshold", 7, 30 * time.Second},
		{"HealthyThreshold: HealthyThresholdCount (3)", elbv2model.HealthyThreshold, 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, func(o *elbv2model.Options) { o.NewTargetChecks = tt.checks })
			tg := w.tg(t, "tg", nil) // interval 10 s, healthy 3, unhealthy 2
			w.alb(t, "alb", tg)
			w.net.up(ip, 8080)
			w.register(t, tg, td(ip))
			w.at(tt.healthyAt - time.Second)
			if st, _ := w.state(tg, ip, 8080); st != types.TargetHealthStateEnumInitial {
				t.Fatalf("just before %v: %s, want initial", tt.healthyAt, st)
			}
			w.at(tt.healthyAt)
			if st, _ := w.state(tg, ip, 8080); st != types.TargetHealthStateEnumHealthy {
				t.Fatalf("at %v: %s, want healthy", tt.healthyAt, st)
			}
			// Two failed checks make it unhealthy; back up, it needs
			// HealthyThresholdCount (3) passes again.
			w.net.setReady(ip, 8080, false)
			w.at(tt.healthyAt + 20*time.Second)
			if st, _ := w.state(tg, ip, 8080); st != types.TargetHealthStateEnumUnhealthy {
				t.Fatalf("after two failed checks: %s, want unhealthy", st)
			}
			w.net.setReady(ip, 8080, true)
			w.at(tt.healthyAt + 40*time.Second)
			if st, _ := w.state(tg, ip, 8080); st != types.TargetHealthStateEnumUnhealthy {
				t.Fatalf("after two passes: %s, want still unhealthy", st)
			}
			w.at(tt.healthyAt + 50*time.Second)
			if st, _ := w.state(tg, ip, 8080); st != types.TargetHealthStateEnumHealthy {
				t.Fatalf("after three passes: %s, want healthy", st)
			}
		})
	}
}

// TestRegistrationDelayNone: a negative delay starts the checks at once.
func TestRegistrationDelayNone(t *testing.T) {
	const ip = "10.0.1.1"
	w := newWorld(t, func(o *elbv2model.Options) { o.RegistrationDelay = -1; o.NewTargetChecks = 0 })
	tg := w.tg(t, "tg", nil)
	w.alb(t, "alb", tg)
	w.net.up(ip, 8080)
	w.register(t, tg, td(ip))
	w.at(0)
	if st, _ := w.state(tg, ip, 8080); st != types.TargetHealthStateEnumHealthy {
		t.Fatalf("with no registration delay and one check: %s at once, want healthy", st)
	}
}

func routable(t *testing.T, w *world, tg string) []string {
	t.Helper()
	eps, _ := w.model.AppendRoutable(nil, tg)
	var out []string
	for _, e := range eps {
		out = append(out, e.IP)
	}
	return out
}

// TestDeregistrationLag: a target that took requests stays in the rotation
// for the lag after its deregistration, also once it has left the target
// group; one that took none (initial) does not; registering it again, or
// its instance's termination, ends the lag at once.
func TestDeregistrationLag(t *testing.T) {
	const a, b = "10.0.1.1", "10.0.1.2"
	deregister := func(t *testing.T, w *world, tg string, ips ...string) {
		t.Helper()
		var targets []types.TargetDescription
		for _, ip := range ips {
			targets = append(targets, td(ip))
		}
		if _, err := w.model.DeregisterTargets(&elbv2.DeregisterTargetsInput{TargetGroupArn: aws.String(tg), Targets: targets}); err != nil {
			t.Fatal(err)
		}
	}
	setup := func(t *testing.T, lag time.Duration) (*world, string) {
		w := newWorld(t, func(o *elbv2model.Options) { o.DeregistrationLag = lag; o.NewTargetChecks = 0 })
		tg := w.tg(t, "tg", func(in *elbv2.CreateTargetGroupInput) {})
		if _, err := w.model.ModifyTargetGroupAttributes(&elbv2.ModifyTargetGroupAttributesInput{TargetGroupArn: aws.String(tg), Attributes: []types.TargetGroupAttribute{
			{Key: aws.String(elbv2model.AttrDeregistrationDelay), Value: aws.String("5")},
		}}); err != nil {
			t.Fatal(err)
		}
		w.alb(t, "alb", tg)
		w.net.up(a, 8080)
		w.net.up(b, 8080)
		w.register(t, tg, td(a), td(b))
		w.at(time.Minute)
		return w, tg
	}
	t.Run("no lag: out of the rotation at once", func(t *testing.T) {
		w, tg := setup(t, 0)
		deregister(t, w, tg, a)
		if got := routable(t, w, tg); !cmp.Equal(got, []string{b}) {
			t.Errorf("routable %v, want only %s", got, b)
		}
	})
	t.Run("lag 30s: routed until the lag has passed, after it left the group", func(t *testing.T) {
		w, tg := setup(t, 30*time.Second)
		deregister(t, w, tg, a)
		w.at(time.Minute + 10*time.Second) // the deregistration delay (5 s) is over: a is gone
		if st, _ := w.state(tg, a, 8080); st != "" {
			t.Fatalf("a is %s, want gone from the target group", st)
		}
		if got := routable(t, w, tg); !cmp.Equal(got, []string{b, a}) {
			t.Errorf("10 s after: routable %v, want [%s %s]", got, b, a)
		}
		w.at(time.Minute + 30*time.Second)
		if got := routable(t, w, tg); !cmp.Equal(got, []string{b}) {
			t.Errorf("30 s after: routable %v, want only %s", got, b)
		}
	})
	t.Run("lag: the only target keeps the group serving", func(t *testing.T) {
		w, tg := setup(t, 30*time.Second)
		deregister(t, w, tg, a, b)
		eps, sel := w.model.AppendRoutable(nil, tg)
		if len(eps) != 2 || sel != elbv2model.SelectHealthy {
			t.Errorf("routable %v (%v), want both, as healthy", eps, sel)
		}
	})
	t.Run("lag: registered again, out of the rotation until healthy", func(t *testing.T) {
		w, tg := setup(t, 30*time.Second)
		deregister(t, w, tg, a)
		w.register(t, tg, td(a))
		if got := routable(t, w, tg); !cmp.Equal(got, []string{b}) {
			t.Errorf("routable %v, want only %s while a is initial again", got, b)
		}
	})
	t.Run("lag: a target that took no request is not routed", func(t *testing.T) {
		w, tg := setup(t, 30*time.Second)
		const c = "10.0.1.3"
		w.net.up(c, 8080)
		w.register(t, tg, td(c))
		deregister(t, w, tg, c) // still initial
		if got := routable(t, w, tg); !cmp.Equal(got, []string{a, b}) {
			t.Errorf("routable %v, want [%s %s]", got, a, b)
		}
	})
}

// TestFailOpenInitial: with no healthy target, fail-open routing takes the
// initial targets too when FailOpenInitial says so.
func TestFailOpenInitial(t *testing.T) {
	const a = "10.0.1.1"
	for _, on := range []bool{false, true} {
		w := newWorld(t, func(o *elbv2model.Options) { o.FailOpenInitial = on })
		tg := w.tg(t, "tg", nil)
		w.alb(t, "alb", tg)
		w.net.up(a, 8080)
		w.register(t, tg, td(a))
		w.at(5 * time.Second) // registration in progress
		eps, sel := w.model.AppendRoutable(nil, tg)
		switch {
		case on && (len(eps) != 1 || sel != elbv2model.SelectFailOpen):
			t.Errorf("FailOpenInitial: routable %v (%v), want the initial target, fail-open", eps, sel)
		case !on && (len(eps) != 0 || sel != elbv2model.SelectNone):
			t.Errorf("no FailOpenInitial: routable %v (%v), want none", eps, sel)
		}
	}
}
