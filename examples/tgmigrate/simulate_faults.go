package main

// simulate_faults.go: simulate --scenario controller-faults: the phased
// cutover once per fault of the AWS Load Balancer Controller, the check that
// the target group is restored, and the fault table.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
	"github.com/qstools/tgmigrate/internal/sim/lbc"
	"github.com/qstools/tgmigrate/internal/sim/timing"
	"github.com/qstools/tgmigrate/internal/textcell"
	"github.com/qstools/tgmigrate/tgbind"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// scenarioControllerFaults runs the phased cutover once per fault of the
// AWS Load Balancer Controller.
const scenarioControllerFaults = "controller-faults"

// controllerFault is one way the controller fails Execute. The run arms it
// before Execute, lets Execute (and its automatic rollback) return, runs
// the operator's Rollback when Execute completed, then clears it (the
// operator's fix), checks the target group is as it was once the
// controller has finished the binding's deletion, and cuts over again
// with a new plan; the world then runs to the end.
type controllerFault struct {
	name string
	// what says what the fault is, for the text table.
	what string
	// arm starts the fault; clear ends it.
	arm, clear func(w *sim.World, binding types.NamespacedName) error
}

func none(*sim.World, types.NamespacedName) error { return nil }

// controllerFaults are the faults, in the order they run.
var controllerFaults = []controllerFault{
	{
		name: "not-running", what: "the controller is stopped before Execute; started again after",
		arm: func(w *sim.World, _ types.NamespacedName) error { w.LBC().Stop(); return nil },
		clear: func(w *sim.World, _ types.NamespacedName) error {
			return w.LBC().Start(context.Background())
		},
	},
	{
		name: "crash-loop", what: "every reconcile of the binding kills the controller (CrashLoopBackOff 10 s to 5 min); fixed after",
		arm: func(w *sim.World, b types.NamespacedName) error {
			return w.LBC().InjectCrashes(lbc.Crashes{Binding: b, Point: lbc.CrashOnReconcile})
		},
		clear: func(w *sim.World, _ types.NamespacedName) error {
			if err := w.LBC().InjectCrashes(lbc.Crashes{}); err != nil {
				return err
			}
			return w.LBC().Start(context.Background())
		},
	},
	{
		name: "ec2-denied", what: "EC2 refuses the controller DescribeVpcs and DescribeSecurityGroups (UnauthorizedOperation); granted after",
		arm: func(w *sim.World, _ types.NamespacedName) error {
			for _, op := range []string{"DescribeVpcs", "DescribeSecurityGroups"} {
				if err := w.LBCEC2().Fail(op, ec2sim.ErrUnauthorized(op)); err != nil {
					return err
				}
			}
			return nil
		},
		clear: func(w *sim.World, _ types.NamespacedName) error {
			w.LBCEC2().Clear("DescribeVpcs")
			w.LBCEC2().Clear("DescribeSecurityGroups")
			return nil
		},
	},
	{
		name: "register-denied", what: "the controller lacks elasticloadbalancing:RegisterTargets (AccessDenied); granted after",
		arm: func(w *sim.World, _ types.NamespacedName) error { return w.DenyController("RegisterTargets") },
		clear: func(w *sim.World, _ types.NamespacedName) error {
			w.AllowController("RegisterTargets")
			return nil
		},
	},
	{
		name: "webhook-down", what: "the controller's webhook service is unreachable (failurePolicy Fail); back after",
		arm:   func(w *sim.World, _ types.NamespacedName) error { w.SetWebhookDown(true); return nil },
		clear: func(w *sim.World, _ types.NamespacedName) error { w.SetWebhookDown(false); return nil },
	},
	{
		name: "restart-before-register", what: "the controller dies after writing its ConfigMap, before RegisterTargets, once; restarts 10 s later",
		arm: func(w *sim.World, b types.NamespacedName) error {
			return w.LBC().InjectCrashes(lbc.Crashes{Binding: b, Point: lbc.CrashBeforeRegister, Times: 1})
		},
		clear: none,
	},
}

// runFault runs the phased cutover under one fault and measures it.
func (a *app) runFault(ctx context.Context, f *simFlags, tm timing.Timings, fault controllerFault) (*simOutcome, error) {
	w, err := a.newWorld(ctx, f.config(strategyPhased, tm), "fault "+fault.name)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	origin := w.Clock().Now()
	w.Run(f.leadIn)
	start := w.Clock().Now()
	env := newEnv(w)
	req, err := request(w)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	plan, err := cutover.PlanCutover(ctx, env, req)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	before := w.AWSCounts()
	ps := settingsOf(strategyPhased)
	out := &simOutcome{Strategy: strategyPhased, Fault: fault.name, FloorSeconds: float64(plan.Estimate.FloorSeconds),
		PodSettings: podSettings{PreStopSeconds: ps.PreStop.Seconds(), TerminationGracePeriodSeconds: ps.TerminationGracePeriod.Seconds()}}
	binding := types.NamespacedName{Namespace: plan.Binding.Namespace, Name: plan.Binding.Name}
	if err := fault.arm(w, binding); err != nil {
		return nil, fmt.Errorf("arm %s: %w", fault.name, err)
	}
	var holdEnd time.Time
	obs := cutover.WithObserver(holdWatch{done: func() {
		if holdEnd.IsZero() {
			holdEnd = w.Clock().Now()
		}
	}})
	execStart := w.Clock().Now()
	res, execErr := cutover.Execute(ctx, env, plan, obs, cutover.WithReplaceFirst())
	cutEnd := w.Clock().Now()
	rbEnd := cutEnd
	outcome := []string{executeOutcome(execErr)}
	var notes, warnings []string
	switch {
	case execErr == nil:
		// Completed: the operator rolls back, to show the reversal holds
		// under the fault too.
		rb, err := cutover.Rollback(ctx, env, plan, cutover.WithReason("simulate: "+fault.name))
		rbEnd = w.Clock().Now()
		outcome = append(outcome, rollbackOutcome(rb, err))
		if err != nil {
			notes = append(notes, "rollback: "+err.Error())
		}
		if rb != nil {
			out.RollbackSeconds, out.RollbackFloorSeconds = rb.Seconds, rb.FloorSeconds
			warnings = rb.Warnings
		}
	case res != nil && res.Rollback != nil:
		// The automatic rollback ran inside Execute: the cutover window
		// ends where it began.
		rb := res.Rollback
		outcome = append(outcome, rollbackOutcome(rb, nil))
		cutEnd, rbEnd = rb.StartedAt, rb.FinishedAt
		out.RollbackSeconds, out.RollbackFloorSeconds = rb.Seconds, rb.FloorSeconds
		warnings = rb.Warnings
	default:
		outcome = append(outcome, "not-rolled-back")
	}
	if execErr != nil {
		notes = append([]string{firstLine(execErr.Error())}, notes...)
	}
	if len(warnings) > 0 {
		times := "once"
		if len(warnings) > 1 {
			times = fmt.Sprintf("%d times", len(warnings))
		}
		notes = append(notes, fmt.Sprintf("the rollback warned %s (first: %s)", times, warnings[0]))
	}
	if res != nil {
		out.CutoverSeconds, out.SettleSeconds = res.CutoverSeconds, res.SettleSeconds
	}
	// The operator fixes the controller, which finishes the binding's
	// deletion; the target group is then as it was.
	if err := fault.clear(w, binding); err != nil {
		return nil, fmt.Errorf("clear %s: %w", fault.name, err)
	}
	for deadline := w.Clock().Now().Add(5 * time.Minute); w.Clock().Now().Before(deadline); w.Run(time.Second) {
		if err := w.Client().Get(ctx, binding, &v1beta1.TargetGroupBinding{}); apierrors.IsNotFound(err) {
			break
		}
	}
	restored, why, err := restoredState(ctx, w, plan, binding)
	if err != nil {
		return nil, err
	}
	out.Restored = &restored
	if !restored {
		notes = append(notes, "not restored: "+why)
	}
	// Then cuts over again, with a new plan.
	if req, err = request(w); err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	retry, err := cutover.PlanCutover(ctx, env, req)
	if err == nil {
		_, err = cutover.Execute(ctx, env, retry, cutover.WithReplaceFirst())
	}
	out.Retry = executeOutcome(err)
	if err != nil {
		notes = append(notes, "retry: "+firstLine(err.Error()))
	}
	end := start.Add(f.duration)
	if now := w.Clock().Now(); now.After(end) {
		end = now
	}
	w.RunUntil(end)
	w.StopTraffic()
	out.Outcome = strings.Join(outcome, "/")
	out.Note = strings.Join(notes, "; ")

	if !rbEnd.After(cutEnd) {
		rbEnd = time.Time{}
	}
	out.measure(w.Traffic(), runMarks{origin: origin, start: execStart, holdEnd: holdEnd, cutEnd: cutEnd, rbEnd: rbEnd, end: end})
	out.FailedInPhasedCutover = out.Windows.Cutover.Failed
	out.FailedInPhasedExecute = out.Windows.Cutover.Failed
	if out.Windows.Settle != nil {
		out.FailedInPhasedExecute += out.Windows.Settle.Failed
	}
	out.APICalls = diffCounts(w.AWSCounts(), before)
	out.GhostsLeft, out.ReusedGhostsLeft = liveGhosts(w, w.Legacy().TargetGroupARN)
	return out, nil
}

// executeOutcome names what Execute returned, from the error's type.
func executeOutcome(err error) string {
	var ce *cutover.ControllerError
	switch {
	case err == nil:
		return "completed"
	case errors.As(err, &ce):
		return "controller-" + string(ce.Cause)
	case tgbind.IsWebhookUnavailable(err):
		return "webhook-unavailable"
	case cutover.IsTimeout(err):
		return "timeout"
	case cutover.IsInvariant(err):
		return "invariant"
	}
	return "failed"
}

func rollbackOutcome(rb *cutover.RollbackResult, err error) string {
	switch {
	case err != nil:
		return "rollback-failed"
	case rb == nil || !rb.Completed:
		return "rollback-incomplete"
	}
	return "rolled-back"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// restoredState says whether the target group is back as it was before
// the cutover: the plan's binding gone, no pod target left in it (draining
// ones aside), and at least the floor of healthy node targets.
func restoredState(ctx context.Context, w *sim.World, plan *cutover.Plan, binding types.NamespacedName) (bool, string, error) {
	err := w.Client().Get(ctx, binding, &v1beta1.TargetGroupBinding{})
	switch {
	case err == nil:
		return false, fmt.Sprintf("binding %s still exists", binding), nil
	case !apierrors.IsNotFound(err):
		return false, "", fmt.Errorf("get binding %s: %w", binding, err)
	}
	healthyNodes, pods := 0, 0
	for _, t := range w.Targets(w.Legacy().TargetGroupARN) {
		switch {
		case t.State == "draining":
		case strings.HasPrefix(t.Registered, "pod/"):
			pods++
		case strings.HasPrefix(t.Owner, "node/") && t.State == "healthy":
			healthyNodes++
		}
	}
	switch {
	case pods > 0:
		return false, fmt.Sprintf("%s left", textcell.Plural(pods, "pod target", "pod targets")), nil
	case healthyNodes < plan.Floor:
		return false, fmt.Sprintf("%s, fewer than the floor %d", textcell.Plural(healthyNodes, "healthy node target", "healthy node targets"), plan.Floor), nil
	}
	return true, "", nil
}

// runControllerFaults runs every fault and reports them. A run that fails
// (not Execute under the fault: the run itself, e.g. its plan) is a row
// with its error; it returns an error only when ctx ends.
func (a *app) runControllerFaults(ctx context.Context, f *simFlags, tm timing.Timings, rep *simReport) error {
	for _, fault := range controllerFaults {
		if a.format == "text" {
			fmt.Fprintf(a.stderr, "simulating %s under controller fault %s (%v of virtual time)...\n", strategyPhased, fault.name, f.leadIn+f.duration)
		}
		out, err := a.runFault(ctx, f, tm, fault)
		if err != nil {
			if cerr := context.Cause(ctx); cerr != nil {
				return fmt.Errorf("simulate controller fault %s: %w", fault.name, err)
			}
			row := failedOutcome(strategyPhased, err)
			row.Fault = fault.name
			out = &row
		}
		rep.Scenarios = append(rep.Scenarios, *out)
	}
	return nil
}

// writeFaults renders the fault table.
func writeFaults(w io.Writer, rep simReport) {
	fmt.Fprintf(w, "Phased cutover under each fault of the AWS Load Balancer Controller, seed %d, %s churn; AWS timings: %s.\n", rep.Seed, rep.Churn, rep.Timings)
	fmt.Fprintln(w, "Each fault is armed before Execute and cleared (the operator's fix) after Execute and its rollback returned; restored says the target group was")
	fmt.Fprintln(w, "then as before the cutover (binding gone, no pod target, the floor of healthy node targets); retry is the cutover run again with a new plan.")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "fault\trequests\tfailed\tby window\toutcome\trestored\tretry\tcutover s\trollback s")
	for _, s := range rep.Scenarios {
		if s.Error != "" {
			fmt.Fprintf(tw, "%s%s\n", s.Fault, strings.Repeat("\t-", 8))
			continue
		}
		restored := "-"
		if s.Restored != nil {
			restored = fmt.Sprint(*s.Restored)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%.0f\t%.0f\n", s.Fault, s.Requests, s.Failed, byWindow(s), s.Outcome, restored, s.Retry, s.CutoverSeconds, s.RollbackSeconds)
	}
	_ = tw.Flush()
	fmt.Fprintln(w)
	for _, fault := range controllerFaults {
		fmt.Fprintf(w, "  %-24s %s\n", fault.name, fault.what)
	}
	fmt.Fprintln(w)
	for _, s := range rep.Scenarios {
		if msg := noteOrError(s); msg != "" {
			fmt.Fprintf(w, "  %-24s %s\n", s.Fault, msg)
		}
	}
}
