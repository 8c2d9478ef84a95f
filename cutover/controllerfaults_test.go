package cutover_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
	"github.com/qstools/tgmigrate/internal/sim/lbc"
	"github.com/qstools/tgmigrate/internal/sim/timing"
	"github.com/qstools/tgmigrate/tgbind"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// TestExecuteControllerFaults runs Execute with each fault of the AWS Load
// Balancer Controller armed before it. Where the controller cannot do its
// part, Execute stops with a typed error naming the cause (read from what
// the controller wrote on the binding, never from a message), the node
// targets are untouched (no DeregisterTargets of the tool's), the
// automatic rollback restores the target group, and no request fails;
// once the fault is cleared the controller finishes the binding's
// deletion. A fault the controller recovers from on its own (a restart
// between its ConfigMap and RegisterTargets) lets Execute complete, and a
// Rollback then restores the target group. On the facade and, unless
// -short, through the wire for the faults whose errors cross it (the
// controller's EC2 and ELBv2 refusals, which its real SDK clients decode).
func TestExecuteControllerFaults(t *testing.T) {
	t.Parallel()
	type fault struct {
		name string
		// arm and clear start and end it.
		arm, clear func(s *scenario, b types.NamespacedName)
		// check judges Execute's error.
		check func(t *testing.T, err error)
		// wire: the fault's errors travel through the wire (the
		// controller's own AWS calls), so it also runs there.
		wire bool
	}
	controller := func(cause cutover.ControllerCause, reasons ...string) func(*testing.T, error) {
		return func(t *testing.T, err error) {
			var ce *cutover.ControllerError
			if !errors.As(err, &ce) || !cutover.IsController(err) {
				t.Fatalf("Execute: %v; want a *ControllerError", err)
			}
			if ce.Cause != cause {
				t.Errorf("cause %q, want %q: %v", ce.Cause, cause, err)
			}
			for _, r := range reasons {
				if !slices.Contains(ce.Reasons, r) {
					t.Errorf("reasons %v, want %s among them", ce.Reasons, r)
				}
			}
			if len(reasons) == 0 && len(ce.Reasons) != 0 {
				t.Errorf("reasons %v, want none", ce.Reasons)
			}
		}
	}
	noop := func(*scenario, types.NamespacedName) {}
	faults := []fault{
		{
			name:  "not-running",
			arm:   func(s *scenario, _ types.NamespacedName) { s.w.LBC().Stop() },
			clear: func(s *scenario, _ types.NamespacedName) { s.start() },
			check: controller(cutover.ControllerNotReconciling),
		},
		{
			name: "crash-loop",
			arm: func(s *scenario, b types.NamespacedName) {
				if err := s.w.LBC().InjectCrashes(lbc.Crashes{Binding: b, Point: lbc.CrashOnReconcile}); err != nil {
					s.t.Fatal(err)
				}
			},
			clear: func(s *scenario, _ types.NamespacedName) {
				if err := s.w.LBC().InjectCrashes(lbc.Crashes{}); err != nil {
					s.t.Fatal(err)
				}
				s.start()
			},
			check: controller(cutover.ControllerNotReconciling),
		},
		{
			name: "ec2-denied",
			arm: func(s *scenario, _ types.NamespacedName) {
				for _, op := range []string{ec2sim.OpDescribeVpcs, ec2sim.OpDescribeSecurityGroups} {
					if err := s.w.LBCEC2().Fail(op, ec2sim.ErrUnauthorized(op)); err != nil {
						s.t.Fatal(err)
					}
				}
			},
			clear: func(s *scenario, _ types.NamespacedName) { s.w.LBCEC2().Clear("") },
			check: controller(cutover.ControllerFailing, cutover.EventFailedNetworkReconcile, cutover.EventFailedReconcile),
			wire:  true,
		},
		{
			name: "register-denied",
			arm: func(s *scenario, _ types.NamespacedName) {
				if err := s.w.DenyController("RegisterTargets"); err != nil {
					s.t.Fatal(err)
				}
			},
			clear: func(s *scenario, _ types.NamespacedName) { s.w.AllowController("RegisterTargets") },
			check: controller(cutover.ControllerFailing, cutover.EventFailedReconcile),
			wire:  true,
		},
		{
			name:  "webhook-down",
			arm:   func(s *scenario, _ types.NamespacedName) { s.w.SetWebhookDown(true) },
			clear: func(s *scenario, _ types.NamespacedName) { s.w.SetWebhookDown(false) },
			check: func(t *testing.T, err error) {
				var we *tgbind.WebhookUnavailableError
				if !errors.As(err, &we) || we.Webhook != sim.MutatingWebhook {
					t.Fatalf("Execute: %v; want a *tgbind.WebhookUnavailableError naming %s", err, sim.MutatingWebhook)
				}
			},
		},
		{
			name: "restart-before-register",
			arm: func(s *scenario, b types.NamespacedName) {
				if err := s.w.LBC().InjectCrashes(lbc.Crashes{Binding: b, Point: lbc.CrashBeforeRegister, Times: 1}); err != nil {
					s.t.Fatal(err)
				}
			},
			clear: noop,
			check: func(t *testing.T, err error) {
				if err != nil {
					t.Fatalf("Execute: %v; want it to complete once the controller is back", err)
				}
			},
		},
	}
	for _, tr := range matrixTransports() {
		for i, f := range faults {
			if tr.wire != nil && !f.wire {
				continue // nothing of this fault crosses the wire
			}
			t.Run(tr.name+"/"+f.name, func(t *testing.T) {
				t.Parallel()
				cfg := smallWorld(uint64(300 + i))
				cfg.Wire = tr.wire
				s := newScenario(t, cfg)
				p := s.plan(nil)
				b := types.NamespacedName{Namespace: p.Binding.Namespace, Name: p.Binding.Name}
				f.arm(s, b)
				res, err := cutover.Execute(t.Context(), s.env, p, simPods)
				f.check(t, err)
				var rb *cutover.RollbackResult
				if err == nil {
					if crashes := s.w.LBC().Stats().Crashes; crashes != 1 {
						t.Errorf("%d crashes, want the one injected", crashes)
					}
					if rb, err = cutover.Rollback(t.Context(), s.env, p); err != nil {
						t.Fatalf("Rollback: %v", err)
					}
				} else {
					if res == nil || !res.RolledBack || res.Rollback == nil {
						t.Fatalf("result %+v: want the automatic rollback to have completed", res)
					}
					rb = res.Rollback
					if n := s.api.deregistrations(); len(n) != 0 {
						t.Errorf("the tool deregistered %v: the node targets must stay untouched", n)
					}
				}
				s.checkRolledBack(rb)
				s.checkHealthCheck(true)
				f.clear(s, b)
				s.w.Run(3 * time.Minute)
				for deadline := s.w.Clock().Now().Add(10 * time.Minute); s.draining() && s.w.Clock().Now().Before(deadline); {
					s.w.Run(30 * time.Second) // the pod targets a completed cutover left drain
				}
				if s.bindingExists(p) {
					t.Error("the binding still exists once the controller is fixed")
				}
				s.checkNodesOnly()
				if st := s.w.Traffic(); st.Failed != 0 {
					t.Errorf("traffic: %s", st.String())
				}
			})
		}
	}
}

// start starts the controller again.
func (s *scenario) start() {
	s.t.Helper()
	if err := s.w.LBC().Start(context.Background()); err != nil {
		s.t.Fatal(err)
	}
}

// TestGateWaitsForASlowController: a controller that is slow, not stuck,
// does not stop the gate: at package timing's slow setting (1 s) and at a
// reaction of 90 s, below the default patience, Execute completes. The
// patience is what tells the two apart: shorter than the controller's
// reaction, it stops the gate with a *ControllerError (the caller's
// choice, WithControllerPatience); negative, only the gate's timeout ends
// the wait.
func TestGateWaitsForASlowController(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		reaction time.Duration
		patience time.Duration
		stuck    bool
	}{
		{"slow setting", timing.SlowControllerReaction, 0, false},
		{"90 s", 90 * time.Second, 0, false},
		{"90 s, patience 30 s", 90 * time.Second, 30 * time.Second, true},
		{"90 s, patience off", 90 * time.Second, -1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := smallWorld(41)
			cfg.Timings.ControllerReaction = tt.reaction
			s := newScenario(t, cfg)
			p := s.plan(nil)
			res, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithControllerPatience(tt.patience))
			if tt.stuck {
				var ce *cutover.ControllerError
				if !errors.As(err, &ce) || ce.Step != cutover.StepGate || ce.Cause != cutover.ControllerNotReconciling {
					t.Fatalf("Execute: %v; want a *ControllerError at the gate", err)
				}
				if !res.RolledBack {
					t.Error("not rolled back")
				}
				return
			}
			if err != nil {
				t.Fatalf("Execute: %v", err)
			}
			if st := s.w.Traffic(); st.Failed != 0 {
				t.Errorf("traffic: %s", st.String())
			}
		})
	}
}

// TestControllerErrorText: the error names the binding, the judgement and
// the reasons, and hints from the reasons alone.
func TestControllerErrorText(t *testing.T) {
	e := &cutover.ControllerError{Step: cutover.StepGate, Binding: "shop/web", Cause: cutover.ControllerFailing,
		Reasons: []string{cutover.EventFailedNetworkReconcile, cutover.EventFailedReconcile}, Message: "Failed reconcile due to UnauthorizedOperation", Pending: 24, Stalled: 2 * time.Minute}
	msg := e.Error()
	for _, want := range []string{"gate", "shop/web", "24 ready endpoints unregistered", "FailedNetworkReconcile, FailedReconcile", "ec2:DescribeSecurityGroups", "elasticloadbalancing:RegisterTargets"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not say %q", msg, want)
		}
	}
	if !errors.Is(e, cutover.ErrController) || !cutover.IsController(fmt.Errorf("wrapped: %w", e)) {
		t.Error("does not unwrap to ErrController")
	}
	nr := (&cutover.ControllerError{Step: cutover.StepGate, Binding: "shop/web", Cause: cutover.ControllerNotReconciling, Pending: 3, Stalled: time.Minute}).Error()
	if !strings.Contains(nr, "is the AWS Load Balancer Controller running") {
		t.Errorf("%q does not ask whether the controller runs", nr)
	}
}

// TestControllerErrorReadsConditions: a binding whose status holds a
// condition that is not True (LBC v3's Ready) is judged failing, with the
// condition named, even without a Warning Event.
func TestControllerErrorReadsConditions(t *testing.T) {
	t.Parallel()
	s := newScenario(t, smallWorld(42))
	p := s.plan(nil)
	s.w.LBC().Stop()
	// What a controller that reconciled nothing but its status would leave.
	mark := func(ctx context.Context, e cutover.Event) error {
		if e.Kind != cutover.EventStep || e.Step != cutover.StepBind {
			return nil
		}
		var b v1beta1.TargetGroupBinding
		if err := s.w.Client().Get(ctx, types.NamespacedName{Namespace: p.Binding.Namespace, Name: p.Binding.Name}, &b); err != nil {
			return err
		}
		b.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, Reason: "FailedCleanup", Message: "x", LastTransitionTime: metav1.NewTime(s.w.Clock().Now())}}
		return s.w.Client().Status().Update(ctx, &b)
	}
	_, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithHook(mark))
	var ce *cutover.ControllerError
	if !errors.As(err, &ce) || ce.Cause != cutover.ControllerFailing || !slices.Contains(ce.Conditions, "Ready=False: FailedCleanup") {
		t.Fatalf("Execute: %v; want a failing *ControllerError naming the condition", err)
	}
}
