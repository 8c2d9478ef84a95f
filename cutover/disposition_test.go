package cutover_test

// disposition_test.go: Classify and ShouldRollback over every error type
// Execute returns, in the shapes it returns them; the same decisions on
// real runs of a tgmigratetest world (a fault that calls for a rollback,
// a refusal before any change, a crash), where Execute's automatic
// rollback follows them too; and Rollback of a plan that never ran.

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

func TestClassify(t *testing.T) {
	step := func(err error) error { return &cutover.StepError{Step: cutover.StepDeregister, Err: err} }
	execute := func(err error) error { return fmt.Errorf("cutover: execute: %w", err) }
	tests := []struct {
		name string
		err  error
		want cutover.Disposition
	}{
		{"nil", nil, cutover.DispositionNone},
		// Refused before any change: the arguments, the plan, the journal.
		{"input", &cutover.InputError{Op: "execute", Field: "WithStopAfter", Reason: "not a step"}, cutover.DispositionRefused},
		{"precondition", &cutover.PreconditionError{PlanID: "p"}, cutover.DispositionRefused},
		{"permission", &cutover.PermissionError{Op: "execute", PlanID: "p"}, cutover.DispositionRefused},
		{"guard", &cutover.GuardError{Guard: "vpc", Kind: cutover.ErrVPCMismatch}, cutover.DispositionRefused},
		{"strategy", &cutover.StrategyError{Strategy: cutover.StrategyInPlace, Reason: "instance targets"}, cutover.DispositionRefused},
		{"plan mismatch", &cutover.PlanMismatchError{Journal: "j"}, cutover.DispositionRefused},
		{"corrupt journal", &cutover.CorruptJournalError{Journal: "j", Reason: "not JSON"}, cutover.DispositionRefused},
		{"not managed", &cutover.NotManagedError{Object: "configmap x", Reason: "no label"}, cutover.DispositionRefused},
		{"rolled back", &cutover.RolledBackError{PlanID: "p"}, cutover.DispositionRefused},
		{"quota at plan time", &cutover.QuotaError{Op: "plan"}, cutover.DispositionRefused},
		// Someone else acts.
		{"locked", execute(&cutover.LockedError{Lease: "l", Holder: "other"}), cutover.DispositionHandsOff},
		{"lost lock in a step", step(&cutover.LostLockError{Op: "renew", Lease: "l"}), cutover.DispositionHandsOff},
		{"conflict in a step", step(&cutover.ConflictError{Op: "save", Object: "configmap x"}), cutover.DispositionHandsOff},
		{"conflict saving after a step", &cutover.ConflictError{Op: "save", Object: "configmap x"}, cutover.DispositionHandsOff},
		// Stopped without a failed step: resume.
		{"cancelled", &cutover.StepError{Step: cutover.StepDrain, Err: fmt.Errorf("wait: %w", context.Canceled), Cancelled: true}, cutover.DispositionResume},
		{"deadline", &cutover.StepError{Step: cutover.StepDrain, Err: fmt.Errorf("wait: %w", context.DeadlineExceeded), Cancelled: true}, cutover.DispositionResume},
		{"cancelled before any step", fmt.Errorf("cutover: execute: %w", context.Canceled), cutover.DispositionResume},
		{"hook", fmt.Errorf("cutover: after step bind: %w: %w", cutover.ErrInterrupted, errors.New("crash")), cutover.DispositionResume},
		{"not approved", fmt.Errorf("cutover: execute: phase cutover: %w: %w", cutover.ErrNotApproved, errors.New("no")), cutover.DispositionResume},
		{"journal unreachable after a step", errors.New("cutover: save journal: connection refused"), cutover.DispositionResume},
		// The pods serve; a rollback would not remove the others.
		{"non-pod targets", step(&cutover.NonPodTargetsError{Step: cutover.StepVerify}), cutover.DispositionFixTargets},
		// A step failed after changes: roll back.
		{"invariant", step(&cutover.InvariantError{Step: cutover.StepDeregister, Check: "floor", Healthy: 1, Floor: 2}), cutover.DispositionRollback},
		{"timeout", step(&cutover.TimeoutError{Step: cutover.StepBind, What: "health gate", Elapsed: time.Minute}), cutover.DispositionRollback},
		{"controller", step(&cutover.ControllerError{Step: cutover.StepBind}), cutover.DispositionRollback},
		{"bind denied", step(&cutover.BindDeniedError{Step: cutover.StepBind}), cutover.DispositionRollback},
		{"quota in a step", step(&cutover.QuotaError{Op: cutover.StepBind}), cutover.DispositionRollback},
		{"aws error", step(errors.New("operation error Elastic Load Balancing v2: DeregisterTargets: AccessDenied")), cutover.DispositionRollback},
		{"transport timeout, context alive", step(fmt.Errorf("operation error Elastic Load Balancing v2: DeregisterTargets: %w", context.DeadlineExceeded)), cutover.DispositionRollback},
		{"step failed, journal failed", errors.Join(step(errors.New("AccessDenied")), errors.New("save: unavailable")), cutover.DispositionRollback},
		{"rollback under way", &cutover.RolledBackError{PlanID: "p", InProgress: true}, cutover.DispositionRollback},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cutover.Classify(tt.err); got != tt.want {
				t.Errorf("Classify(%v) = %s, want %s", tt.err, got, tt.want)
			}
			if got, want := cutover.ShouldRollback(tt.err), tt.want == cutover.DispositionRollback; got != want {
				t.Errorf("ShouldRollback(%v) = %t, want %t", tt.err, got, want)
			}
		})
	}
}

// TestClassifyRuns: Execute's own errors, on a world. Without the
// automatic rollback the caller's decision (ShouldRollback) is the one
// Execute makes with it: a fault in a step rolls back, a refusal and a
// crash do not.
func TestClassifyRuns(t *testing.T) {
	tests := []struct {
		name string
		// gate is the readiness gate's injection (without it, Execute
		// refuses the plan with a precondition).
		gate   bool
		fault  *tgmigratetest.Fault
		crash  bool
		cancel bool // the caller cancels its context at the first observation
		want   cutover.Disposition
		writes bool // whether the failed run changed the target group
	}{
		{name: "access denied on deregister", gate: true, fault: &tgmigratetest.Fault{Op: "DeregisterTargets", Code: tgmigratetest.AccessDenied},
			want: cutover.DispositionRollback, writes: true},
		{name: "no readiness gate", want: cutover.DispositionRefused},
		{name: "crash", gate: true, crash: true, want: cutover.DispositionResume, writes: true},
		{name: "cancelled", gate: true, cancel: true, want: cutover.DispositionResume, writes: true},
	}
	for _, tt := range tests {
		for _, auto := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/auto=%t", tt.name, auto), func(t *testing.T) {
				w, err := tgmigratetest.NewWorld(t.Context(), tgmigratetest.Options{Seed: 4, Nodes: 3, Pods: 6, ReadinessGateInjection: tt.gate})
				if err != nil {
					t.Fatal(err)
				}
				env := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock(), ClusterVPCID: w.VPCID(), Holder: "test"}
				l := w.Legacy()
				plan, err := cutover.PlanCutover(t.Context(), env, cutover.Request{TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace,
					Service: l.Service, Port: intstr.FromString(l.PortName), Assumptions: w.Assumptions()})
				if err != nil {
					t.Fatal(err)
				}
				if tt.fault != nil {
					if err := w.Inject(*tt.fault); err != nil {
						t.Fatal(err)
					}
				}
				opts := []cutover.Option{cutover.WithAutoRollback(auto)}
				if tt.crash {
					opts = append(opts, cutover.WithHook(tgmigratetest.CrashAfter[cutover.Event](2)))
				}
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if tt.cancel {
					opts = append(opts, cutover.WithObserver(cutover.ObserverFuncs{OnTargets: func(cutover.Progress) { cancel() }}))
				}
				res, err := cutover.Execute(ctx, env, plan, opts...)
				if se, ok := errors.AsType[*cutover.StepError](err); tt.cancel && (!ok || !se.Cancelled) {
					t.Errorf("cancelled: Execute() = %v, want a *StepError with Cancelled", err)
				}
				if got := cutover.Classify(err); got != tt.want {
					t.Fatalf("Classify(%v) = %s, want %s", err, got, tt.want)
				}
				rolledBack := res != nil && res.RolledBack
				if want := auto && cutover.ShouldRollback(err); rolledBack != want {
					t.Errorf("auto-rollback %t: Execute rolled back %t, want %t (ShouldRollback %t)", auto, rolledBack, want, cutover.ShouldRollback(err))
				}
				writes := w.Calls()["ModifyTargetGroup"] + w.Calls()["DeregisterTargets"] + w.Calls()["RegisterTargets"]
				if (writes > 0) != tt.writes {
					t.Errorf("%d target group writes; want some: %t", writes, tt.writes)
				}
				if auto || !cutover.ShouldRollback(err) {
					return
				}
				// The caller's own rollback, as Execute would have run it.
				rb, err := cutover.Rollback(t.Context(), env, plan)
				if err != nil || !rb.Completed {
					t.Fatalf("Rollback() = %+v, %v", rb, err)
				}
				if f := w.Requests().Failed; f != 0 {
					t.Errorf("%d requests failed", f)
				}
			})
		}
	}
}

// TestRollbackNotStarted: Rollback of a plan that never ran says so with
// a *NotStartedError and changes nothing.
func TestRollbackNotStarted(t *testing.T) {
	w, err := tgmigratetest.NewWorld(t.Context(), tgmigratetest.Options{Seed: 4, Nodes: 3, Pods: 6, ReadinessGateInjection: true})
	if err != nil {
		t.Fatal(err)
	}
	env := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock(), ClusterVPCID: w.VPCID(), Holder: "test"}
	l := w.Legacy()
	plan, err := cutover.PlanCutover(t.Context(), env, cutover.Request{TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace,
		Service: l.Service, Port: intstr.FromString(l.PortName), Assumptions: w.Assumptions()})
	if err != nil {
		t.Fatal(err)
	}
	before := w.Calls()
	rb, err := cutover.Rollback(t.Context(), env, plan)
	var ns *cutover.NotStartedError
	if rb != nil || !cutover.IsNotStarted(err) || !errors.As(err, &ns) || ns.PlanID != plan.ID {
		t.Fatalf("Rollback() = %+v, %v; want no result and a *NotStartedError for %s", rb, err, plan.ID)
	}
	if want := "cutover: rollback: plan " + plan.ID + ": plan never started (no journal): nothing to roll back"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if cutover.ShouldRollback(err) {
		t.Error("ShouldRollback(not started) = true")
	}
	after := w.Calls()
	for _, op := range []string{"RegisterTargets", "DeregisterTargets", "ModifyTargetGroup"} {
		if after[op] != before[op] {
			t.Errorf("%s: %d calls, before %d", op, after[op], before[op])
		}
	}
}
