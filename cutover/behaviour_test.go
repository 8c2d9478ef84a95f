package cutover_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/internal/sim/timing"
)

// TestStopAfterAndApproval: Execute stops after a named step and resumes
// from the journal; the approval callback is asked before each phase, and
// a refusal stops between phases with the lock released.
func TestStopAfterAndApproval(t *testing.T) {
	t.Parallel() // a world of its own
	s := newScenario(t, smallWorld(107))
	p := s.plan(nil)

	res, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithStopAfter(cutover.StepGate))
	if err != nil || !res.Stopped || res.StoppedAfter != cutover.StepGate || res.Completed {
		t.Fatalf("stop after gate: %+v, %v", res, err)
	}
	if !s.bindingExists(p) || len(s.w.NodeTargets()) != 8 {
		t.Fatalf("after gate: binding %t, %d node targets; want the binding and all 8 node targets", s.bindingExists(p), len(s.w.NodeTargets()))
	}

	var asked []string
	refuse := errors.New("not now")
	res, err = cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithApproval(func(_ context.Context, ph cutover.Phase) error {
		asked = append(asked, ph.Name)
		if ph.Name == "verify" {
			return refuse
		}
		return nil
	}))
	if !cutover.IsNotApproved(err) || !errors.Is(err, refuse) || res.Completed {
		t.Fatalf("refused phase: %+v, %v", res, err)
	}
	if want := []string{"remove", "verify"}; fmt.Sprint(asked) != fmt.Sprint(want) {
		t.Errorf("asked %v, want %v", asked, want)
	}
	// The lock was released: another operator may resume at once.
	other := s.env
	other.Holder = "operator-2"
	res, err = cutover.Execute(t.Context(), other, p, simPods)
	if err != nil || !res.Completed || !res.Resumed {
		t.Fatalf("resume by another operator: %+v, %v", res, err)
	}
	for _, st := range res.Steps {
		if ran := st.ID == cutover.StepVerify || st.ID == cutover.StepReleaseDisruption; ran == st.Skipped {
			t.Errorf("step %s skipped %t", st.ID, st.Skipped)
		}
	}
	s.w.Run(5 * time.Minute)
	if st := s.w.Traffic(); st.Failed != 0 {
		t.Errorf("traffic %s", st.String())
	}
	s.checkPodsOnly(p.TargetGroup.ARN.Raw)
}

// TestLockHeldByCrashedOperator: a crashed operator's lease blocks another
// one until it expires, then it is taken over and the cutover resumes.
func TestLockHeldByCrashedOperator(t *testing.T) {
	t.Parallel() // a world of its own
	s := newScenario(t, smallWorld(108))
	p := s.plan(nil)
	if _, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithHook(crashAt(2, nil))); !errors.Is(err, errCrash) {
		t.Fatal(err)
	}
	other := s.env
	other.Holder = "operator-2"
	_, err := cutover.Execute(t.Context(), other, p, simPods)
	var locked *cutover.LockedError
	if !errors.As(err, &locked) || locked.Holder != "operator-1" {
		t.Fatalf("second operator: %v, want a LockedError naming operator-1", err)
	}
	s.w.Run(cutover.DefaultLeaseDuration + time.Second)
	res, err := cutover.Execute(t.Context(), other, p, simPods)
	if err != nil || !res.Completed || !res.Resumed {
		t.Fatalf("after the lease expired: %+v, %v", res, err)
	}
	if st := s.w.Traffic(); st.Failed != 0 {
		t.Errorf("traffic %s", st.String())
	}
}

// TestInvariantLBCTrackedRollsBack: a recorded node target appears in the
// LBC's ConfigMap before its batch: Execute stops before any
// DeregisterTargets with an *InvariantError and rolls back; with
// WithAutoRollback(false) it leaves everything as it was.
func TestInvariantLBCTrackedRollsBack(t *testing.T) {
	t.Parallel() // a world of its own
	for _, auto := range []bool{true, false} {
		t.Run(fmt.Sprintf("auto rollback %t", auto), func(t *testing.T) {
			s := newScenario(t, smallWorld(109))
			p := s.plan(nil)
			if _, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithStopAfter(cutover.StepGate)); err != nil {
				t.Fatal(err)
			}
			var cm corev1.ConfigMap
			key := types.NamespacedName{Namespace: p.Binding.Namespace, Name: "aws-lbc-targets-" + p.Binding.Name}
			if err := s.w.Client().Get(t.Context(), key, &cm); err != nil {
				t.Fatal(err)
			}
			victim := p.Recorded[0].TargetAddr.String()
			cm.Data["targets"] += "," + victim
			if err := s.w.Client().Update(t.Context(), &cm); err != nil {
				t.Fatal(err)
			}
			s.w.ELBv2().ResetCounts()
			res, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithAutoRollback(auto))
			var inv *cutover.InvariantError
			if !errors.As(err, &inv) || inv.Check != "lbc-tracked" || !strings.Contains(inv.Detail, victim) {
				t.Fatalf("err = %v, want an lbc-tracked InvariantError naming %s", err, victim)
			}
			for _, c := range s.w.ELBv2().Calls() {
				if c.Op == "DeregisterTargets" && c.At.Equal(s.w.Clock().Now()) && !auto {
					t.Errorf("DeregisterTargets after the breach: %+v", c)
				}
			}
			if res.RolledBack != auto {
				t.Errorf("rolled back %t, want %t", res.RolledBack, auto)
			}
			s.w.Run(6 * time.Minute)
			if st := s.w.Traffic(); st.Failed != 0 {
				t.Errorf("traffic %s", st.String())
			}
			if auto {
				s.checkNodesOnly()
				s.checkHealthCheck(true)
				if s.bindingExists(p) {
					t.Error("binding left after the rollback")
				}
				return
			}
			if n := len(s.w.NodeTargets()); n != 8 || !s.bindingExists(p) {
				t.Errorf("without rollback: %d node targets, binding %t; want everything as it was", n, s.bindingExists(p))
			}
		})
	}
}

// TestInvariantFloor: pods leave (evicted) just before the deregistration;
// with no grace the floor breach stops Execute and rolls back; with the
// default grace it waits until their replacements are healthy and
// completes.
func TestInvariantFloor(t *testing.T) {
	t.Parallel() // a world of its own
	for _, tt := range []struct {
		name   string
		grace  time.Duration
		breach bool
	}{{"no grace: breach", -1, true}, {"default grace: waits", 0, false}} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := smallWorld(110)
			cfg.Workload.MaxUnavailable = "none"
			s := newScenario(t, cfg)
			p := s.plan(func(r *cutover.Request) { r.MinHealthy = 24 })
			if p.Floor != 24 {
				t.Fatalf("floor %d", p.Floor)
			}
			if _, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithStopAfter(cutover.StepGate)); err != nil {
				t.Fatal(err)
			}
			for _, pod := range s.w.Cluster().Pods()[:4] {
				if err := s.w.Cluster().Evict(t.Context(), pod.Key()); err != nil {
					t.Fatal(err)
				}
			}
			res, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithFloorGrace(tt.grace))
			var inv *cutover.InvariantError
			switch {
			case tt.breach && (!errors.As(err, &inv) || inv.Check != "floor" || inv.Floor != 24 || inv.Healthy != 20 || !res.RolledBack):
				t.Fatalf("err = %v (rolled back %t), want a floor InvariantError with 20 healthy for 24, rolled back", err, res.RolledBack)
			case !tt.breach && (err != nil || !res.Completed):
				t.Fatalf("with grace: %+v, %v", res, err)
			case !tt.breach:
				for _, st := range res.Steps {
					if st.ID == cutover.StepDeregister && !st.FinishedAt.After(st.StartedAt) {
						t.Errorf("deregister took no time: it did not wait for the floor")
					}
				}
			}
			s.w.Run(6 * time.Minute)
			if st := s.w.Traffic(); st.Failed != 0 {
				t.Errorf("traffic %s", st.String())
			}
			if tt.breach {
				s.checkNodesOnly()
			} else {
				s.checkPodsOnly(p.TargetGroup.ARN.Raw)
			}
		})
	}
}

// TestAnalysisRejectsWeight: the caller's analysis rejects 50%: the weights
// go back to the old target group, the new one is deleted, no request
// fails.
func TestAnalysisRejectsWeight(t *testing.T) {
	t.Parallel() // a world of its own
	cfg := smallWorld(111)
	cfg.Legacy.TargetType = "instance"
	s := newScenario(t, cfg)
	p := s.plan(nil)
	bad := errors.New("p99 latency above budget")
	res, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithAnalysis(func(_ context.Context, st cutover.Step) error {
		if st.Weight == 50 {
			return bad
		}
		return nil
	}))
	var inv *cutover.InvariantError
	if !errors.As(err, &inv) || inv.Check != "analysis" || !errors.Is(err, bad) || !res.RolledBack {
		t.Fatalf("err = %v, rolled back %t", err, res.RolledBack)
	}
	s.w.Run(2 * time.Minute)
	if st := s.w.Traffic(); st.Failed != 0 {
		t.Errorf("traffic %s", st.String())
	}
	if r := s.route(); len(r) != 1 || r[0].ARN != p.TargetGroup.ARN.Raw {
		t.Errorf("route %v, want the old target group alone", r)
	}
	if arns := s.w.Model().TargetGroupARNs(); len(arns) != 1 {
		t.Errorf("target groups %v, want the old one alone", arns)
	}
	s.checkNodesOnly()
}

// TestHealthCheckTiming: the health check is aligned before the binding
// when the node targets pass the new one too, after their deregistration
// when they would not (externalTrafficPolicy Local), and a health check
// that fails the pods with no safe order is refused. A rollback of the
// late alignment restores the health check first.
func TestHealthCheckTiming(t *testing.T) {
	t.Parallel() // a world of its own
	tests := []struct {
		name      string
		local     bool
		hcPort    string
		want      cutover.HealthCheckTiming
		wantSteps string
		refused   bool
	}{
		{name: "Cluster policy: before the binding", want: cutover.HealthCheckBeforeBinding,
			wantSteps: "[hold-disruption align-health-check bind gate deregister drain verify release-disruption]"},
		{name: "NodePort health check, Cluster policy: before the binding", hcPort: "30080", want: cutover.HealthCheckBeforeBinding,
			wantSteps: "[hold-disruption align-health-check bind gate deregister drain verify release-disruption]"},
		{name: "Local policy: after the deregistration", local: true, want: cutover.HealthCheckAfterDeregistration,
			wantSteps: "[hold-disruption bind gate deregister align-health-check drain verify release-disruption]"},
		{name: "NodePort health check, Local policy: refused", local: true, hcPort: "30080", refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScenario(t, smallWorld(118))
			failedBefore := 0
			if tt.local {
				var svc corev1.Service
				key := types.NamespacedName{Namespace: s.w.Legacy().Namespace, Name: s.w.Legacy().Service}
				if err := s.w.Client().Get(t.Context(), key, &svc); err != nil {
					t.Fatal(err)
				}
				svc.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
				if err := s.w.Client().Update(t.Context(), &svc); err != nil {
					t.Fatal(err)
				}
				// The simulator's kube-proxy reprograms the Service: a second
				// of failures that is not the cutover's.
				s.w.Run(10 * time.Second)
				failedBefore = s.w.Traffic().Failed
			}
			if tt.hcPort != "" {
				if _, err := s.w.Model().ModifyTargetGroup(&elbv2.ModifyTargetGroupInput{TargetGroupArn: aws.String(s.w.Legacy().TargetGroupARN), HealthCheckPort: aws.String(tt.hcPort)}); err != nil {
					t.Fatal(err)
				}
			}
			p, err := cutover.PlanCutover(t.Context(), s.env, s.request())
			if tt.refused {
				if !cutover.IsStrategy(err) {
					t.Fatalf("err = %v, want a StrategyError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.HealthCheck.Timing != tt.want || fmt.Sprint(p.StepIDs()) != tt.wantSteps || p.HealthCheck.Target.Port != "traffic-port" || p.HealthCheck.Target.Path != "/healthz" {
				t.Fatalf("timing %s, steps %v, target %+v", p.HealthCheck.Timing, p.StepIDs(), p.HealthCheck.Target)
			}
			if !tt.local {
				return
			}
			res, err := cutover.Execute(t.Context(), s.env, p, simPods)
			if err != nil || !res.Completed {
				t.Fatalf("%+v %v", res, err)
			}
			s.checkHealthCheck(false)
			rb, err := cutover.Rollback(t.Context(), s.env, p)
			if err != nil || len(rb.Actions) < 2 || rb.Actions[0].ID != cutover.RollbackHoldDisruption ||
				rb.Actions[1].ID != cutover.RollbackRestoreHealthCheck || rb.Actions[1].MutatingCalls != 1 {
				t.Fatalf("rollback %+v, %v: want the hold, then the health check restored first", rb, err)
			}
			s.checkHealthCheck(true)
			s.w.Run(6 * time.Minute)
			if st := s.w.Traffic(); st.Failed != failedBefore {
				t.Errorf("traffic %s; %d failed before the cutover", st.String(), failedBefore)
			}
		})
	}
}

// TestBlueGreenForcedOnIPTargetGroup: blue/green works on an ip target
// group too when the caller asks for it; its rollback registers the live
// nodes' IPs, and returns with a healthy target per live node and no
// failed request. Its release lets the drift the holds kept back go on:
// every node is then replaced, and the static node targets are exposed to
// it as they were before the cutover (the rollback warns of it).
func TestBlueGreenForcedOnIPTargetGroup(t *testing.T) {
	t.Parallel() // a world of its own
	s := newScenario(t, smallWorld(119))
	p := s.plan(func(r *cutover.Request) {
		r.Strategy = cutover.StrategyBlueGreen
		r.WeightSteps = []int32{50, 100}
		r.StepHoldSeconds = -1
	})
	if p.Strategy != cutover.StrategyBlueGreen || fmt.Sprint(p.BlueGreen.WeightSteps) != "[0 50 100]" || p.BlueGreen.StepHoldSeconds != 0 {
		t.Fatalf("plan %s %v hold %d", p.Strategy, p.BlueGreen.WeightSteps, p.BlueGreen.StepHoldSeconds)
	}
	s.churn()
	res, err := cutover.Execute(t.Context(), s.env, p, simPods)
	if err != nil || !res.Completed {
		t.Fatalf("%+v %v", res, err)
	}
	if r := s.route(); len(r) != 1 || r[0].ARN == p.TargetGroup.ARN.Raw {
		t.Fatalf("route %v", r)
	}
	rb, err := cutover.Rollback(t.Context(), s.env, p)
	if err != nil {
		t.Fatal(err)
	}
	s.checkRolledBack(rb)
	if r := s.route(); len(r) != 1 || r[0].ARN != p.TargetGroup.ARN.Raw {
		t.Errorf("route %v, want the old target group alone", r)
	}
	s.checkReleasedDrift(rb)
}

// TestBlueGreenEventualConsistency: ELBv2's eventual consistency as every
// caller meets it (an elbv2sim.Consistency in Config.SUT, which the world
// shares with the LBC stand-in's client): the target group blue/green
// creates is invisible to the system under test for a few seconds, and to
// the controller for longer, its webhooks included. Cutover's own calls
// that do not see it yet fail with TargetGroupNotFound and are retried;
// the controller's validating webhook then denies the binding ("unable to
// get target group IP address type: ... TargetGroupNotFound") although
// cutover sees the target group, and the bind step applies it again until
// the webhook sees it too, journaling each denial. The cutover completes
// on both transports, and no request fails.
func TestBlueGreenEventualConsistency(t *testing.T) {
	t.Parallel() // a world of its own
	for _, tr := range matrixTransports() {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel() // a world of its own
			blueGreenEventualConsistency(t, tr.wire)
		})
	}
}

// consistencyDelays are the consistency of the eventual-consistency
// tests: the system under test sees a new target group 3 s after its
// creation, the controller 20 s after it.
var consistencyDelays = elbv2sim.ConsistencyOptions{Delay: 3 * time.Second, ClientDelay: map[string]time.Duration{"lbc": 20 * time.Second}}

func blueGreenEventualConsistency(t *testing.T, wire *sim.WireOptions) {
	cfg := smallWorld(120)
	cfg.Legacy.TargetType = "instance"
	cfg.Wire = wire
	cs, err := elbv2sim.NewConsistency(consistencyDelays)
	if err != nil {
		t.Fatal(err)
	}
	cfg.SUT = elbv2sim.Options{Consistency: cs}
	s := newScenario(t, cfg)
	p := s.plan(nil)
	var waits []cutover.Wait
	obs := cutover.ObserverFuncs{OnWaiting: func(w cutover.Wait) {
		if w.Step == cutover.StepBind {
			waits = append(waits, w)
		}
	}}
	res, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithObserver(obs))
	if err != nil || !res.Completed {
		t.Fatalf("%+v %v", res, err)
	}
	notFound := func(c *elbv2sim.Client) (n int) {
		for _, call := range c.Calls() {
			if call.ErrCode == "TargetGroupNotFound" {
				n++
			}
		}
		return n
	}
	if notFound(s.w.ELBv2()) == 0 {
		t.Error("no call of the system under test saw the new target group missing: the consistency did not apply to it")
	}
	// The controller's webhook reads the target group once per admission
	// of the binding (the validating webhook: every field the mutating
	// one would fill is set), so each of its failed reads is one denial.
	denials := notFound(s.w.LBCELBv2())
	if denials == 0 {
		t.Fatal("the controller's webhook never failed to see the new target group: the consistency did not apply to it")
	}
	var notes []string
	for _, n := range s.journal(p).Notes {
		if strings.Contains(n, "vtargetgroupbinding.elbv2.k8s.aws") && strings.Contains(n, "TargetGroupNotFound") {
			notes = append(notes, n)
		}
	}
	if len(notes) != denials {
		t.Errorf("the journal notes %d denials by the controller's webhook, the webhook denied %d times: %q", len(notes), denials, notes)
	}
	if len(waits) != 1 || !strings.Contains(waits[0].What, "webhook") {
		t.Errorf("the observer saw the bind wait %+v; want one wait for the controller's webhook", waits)
	}
	if st := s.w.Traffic(); st.Failed != 0 {
		t.Errorf("traffic %s", st.String())
	}
	t.Logf("%d calls of the system under test saw the new target group missing; the controller's webhook denied the binding %d times; first note: %q", notFound(s.w.ELBv2()), denials, notes[0])
}

// TestRollbackUnderSteadyChurn: with Karpenter queueing a node's drift
// every minute, some node is always new and in its first health checks,
// and some node always leaving. The rollback holds Karpenter's graceful
// disruption while it runs (the disruption under way goes on: its node
// targets are retired), so it does not wait for the nodes to settle (they
// never would): it finishes within 1.2x its own floor (the node targets'
// registration and first checks under the plan's assumptions) and says so,
// fails no request, releases what its hold added, and warns of the drift
// its release lets go on.
func TestRollbackUnderSteadyChurn(t *testing.T) {
	t.Parallel() // a world of its own
	for _, tr := range matrixTransports() {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel() // a world of its own
			rollbackUnderSteadyChurn(t, tr.wire)
		})
	}
}

func rollbackUnderSteadyChurn(t *testing.T, wire *sim.WireOptions) {
	// The API calls take no virtual time, so that the ratio measures the
	// rollback's waits (TestRollbackWithinFloor says why).
	cfg := sim.Config{Seed: 41, Nodes: 8, Pods: 24, RPS: 20, ChurnInterval: time.Minute, Wire: wire,
		Timings: timing.Timings{ELBv2Latency: -1, KubeLatency: -1}}
	s := newScenario(t, cfg)
	p := s.plan(nil)
	if _, err := cutover.Execute(t.Context(), s.env, p, simPods); err != nil {
		t.Fatal(err)
	}
	failed := s.w.Traffic().Failed
	rb, err := cutover.Rollback(t.Context(), s.env, p)
	if err != nil {
		t.Fatalf("Rollback under steady churn: %v", err)
	}
	if !rb.Completed || len(rb.Registered) == 0 {
		t.Fatalf("rollback %+v", rb)
	}
	if got := s.w.Traffic().Failed - failed; got != 0 {
		t.Errorf("%d requests failed during the rollback", got)
	}
	if rb.FloorSeconds <= 0 || rb.Ratio > 1.2 {
		t.Errorf("rollback %.0f s for a floor of %.0f s: ratio %.3f, want at most 1.2", rb.Seconds, rb.FloorSeconds, rb.Ratio)
	}
	if !slices.ContainsFunc(rb.Warnings, func(w string) bool { return strings.Contains(w, "static node targets do not survive churn") }) {
		t.Errorf("no warning of the drift the release lets go on: %q", rb.Warnings)
	}
	if len(rb.Held) == 0 || len(rb.Released) == 0 {
		t.Errorf("held %v, released %v: want the rollback's own hold (Execute released its own) and its release", rb.Held, rb.Released)
	}
	s.checkNoHold()
	if s.bindingExists(p) {
		t.Error("the binding is still there")
	}
	t.Logf("rollback took %.0f s for a floor of %.0f s (ratio %.3f), %d node targets registered, warnings %q", rb.Seconds, rb.FloorSeconds, rb.Ratio, len(rb.Registered), rb.Warnings)
}
