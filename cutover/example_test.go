package cutover_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

const (
	exampleTG       = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef"
	exampleListener = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:listener/app/web-alb/50dc6c495c0c9188/f2f7dc8efc522ab2"
)

// The least-privilege policy of a blue/green cutover: it may create (and
// tag on creation) and, for rollback, delete only the target group it
// names, and touch only the listener it shifts.
func ExamplePolicyFor() {
	tg, err := tgmigrate.ParseTargetGroupARN(exampleTG) // once, where the ARN comes in
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := cutover.PolicyFor(cutover.PolicyInput{
		TargetGroupARN:       tg,
		ListenerARNs:         []string{exampleListener},
		NewTargetGroupName:   "legacy-web-pods",
		DeleteNewTargetGroup: true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, st := range p.Statement {
		fmt.Println(st.Sid, st.Action)
	}
	newTG := "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web-pods/1111222233334444"
	fmt.Println("delete new TG:", p.Allows("elasticloadbalancing:DeleteTargetGroup", newTG))
	fmt.Println("delete legacy TG:", p.Allows("elasticloadbalancing:DeleteTargetGroup", exampleTG))
	// Output:
	// ReadELBv2 [elasticloadbalancing:Describe*]
	// TargetWrites [elasticloadbalancing:DeregisterTargets elasticloadbalancing:RegisterTargets]
	// TargetGroupCreate [elasticloadbalancing:AddTags elasticloadbalancing:CreateTargetGroup]
	// ListenerWrites [elasticloadbalancing:ModifyListener]
	// TargetGroupCleanup [elasticloadbalancing:DeleteTargetGroup]
	// delete new TG: true
	// delete legacy TG: false
}

// A cutover saves its state after each step; after a crash, a new process
// loads it and goes on. A process that kept an old copy cannot overwrite it.
func ExampleFileJournal() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "tgmigrate-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() { _ = os.RemoveAll(dir) }()
	path := filepath.Join(dir, "plan-1.journal.json")
	plan := cutover.PlanRef{ID: "plan-1", Digest: "sha256:0f1e2d3c"}
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))

	j, _ := cutover.NewFileJournal(path, cutover.FileJournalOptions{Clock: clk})
	if _, err := j.Load(ctx, plan); cutover.IsNoJournal(err) {
		fmt.Println("no journal: start afresh")
	}
	s := cutover.NewState(plan, "in-place", "bind", "deregister")
	_ = s.SetStep("bind", cutover.StepDone, clk.Now(), nil)
	_ = j.Save(ctx, s)
	s.RecordBatch(cutover.TargetAddr{IP: "10.0.1.17", Port: 31080})
	_ = j.Save(ctx, s)

	// After a crash.
	resumed, _ := cutover.NewFileJournal(path, cutover.FileJournalOptions{Clock: clk})
	got, err := resumed.Load(ctx, plan)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("revision %d, bind %s, %d batch done\n", got.Revision, got.Step("bind").Status, got.Deregistration.BatchesDone)
	_ = resumed.Save(ctx, got)

	// The crashed process's journal is stale now.
	err = j.Save(ctx, s)
	fmt.Println("stale save is a conflict:", cutover.IsConflict(err))
	// Output:
	// no journal: start afresh
	// revision 2, bind done, 1 batch done
	// stale save is a conflict: true
}

// Two operators on one target group: the second is refused until the
// first's lease expires, then takes it over; the first learns it lost it.
func ExampleLeaseLock() {
	ctx := context.Background()
	c := fake.NewClientBuilder().Build()
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	tg, _ := tgmigrate.ParseTargetGroupARN(exampleTG)
	opts := cutover.LeaseLockOptions{Namespace: "web", TargetGroupARN: tg, Clock: clk}

	opts.Holder = "operator-a"
	a, _ := cutover.NewLeaseLock(c, opts)
	opts.Holder = "operator-b"
	b, _ := cutover.NewLeaseLock(c, opts)

	fmt.Println("a acquires:", a.Acquire(ctx))
	var locked *cutover.LockedError
	if err := b.Acquire(ctx); errors.As(err, &locked) {
		fmt.Println("b is refused: held by", locked.Holder, "until", locked.Expires.Format(time.TimeOnly))
	}
	clk.SetTime(clk.Now().Add(2 * time.Minute)) // a stopped renewing
	fmt.Println("b takes over:", b.Acquire(ctx))
	var lost *cutover.LostLockError
	if err := a.Renew(ctx); errors.As(err, &lost) {
		fmt.Println("a lost it to", lost.Current)
	}
	fmt.Println("b releases:", b.Release(ctx))
	// Output:
	// a acquires: <nil>
	// b is refused: held by operator-a until 00:01:00
	// b takes over: <nil>
	// a lost it to operator-b
	// b releases: <nil>
}

// The journal in the TargetGroupBinding's namespace, resumed by a new
// process and refused to a different plan.
func ExampleConfigMapJournal() {
	ctx := context.Background()
	c := fake.NewClientBuilder().Build()
	tg, _ := tgmigrate.ParseTargetGroupARN(exampleTG)
	opts := cutover.ConfigMapJournalOptions{Namespace: "web", TargetGroupARN: tg}
	plan := cutover.PlanRef{ID: "plan-1", Digest: "sha256:0f1e2d3c"}

	j, _ := cutover.NewConfigMapJournal(c, opts)
	fmt.Println("configmap:", j.Key().Name)
	_ = j.Save(ctx, cutover.NewState(plan, "in-place", "bind"))

	resumed, _ := cutover.NewConfigMapJournal(c, opts)
	s, err := resumed.Load(ctx, plan)
	fmt.Println("resumed revision:", s.Revision, err)

	_, err = resumed.Load(ctx, cutover.PlanRef{ID: "plan-1", Digest: "sha256:changed"})
	fmt.Println("other digest refused:", cutover.IsPlanMismatch(err))
	// Output:
	// configmap: tgmigrate-journal-legacy-web-d2cc95b38d
	// resumed revision: 1 <nil>
	// other digest refused: true
}

// The seed's case on the simulator: plan the cutover of a hand-made ip
// target group of node targets. Nothing changes yet. The plan assumes the
// simulated world's own timings (World.Assumptions: a new target healthy
// after one passing check, the ALB user guide's), so that its floor is the
// world's; against AWS, leave Request.Assumptions zero: the defaults are
// the documented values and the worst reported ones. The plan says what
// the cutover's safety rests on that the Service's pods do not give: the
// simulated namespace does not inject the LBC's readiness gate (the pods'
// preStop and grace period are the safe ones for the world's timings).
func ExamplePlanCutover() {
	ctx := context.Background()
	w, _ := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{Seed: 1, Nodes: 4, Pods: 8})
	env := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock(), ClusterVPCID: w.VPCID()}
	tg := w.Legacy().TargetGroupARN // typed: parse an ARN once, where it comes in as a string (tgmigrate.ParseTargetGroupARN)
	p, err := cutover.PlanCutover(ctx, env, cutover.Request{
		TargetGroupARN: tg, Namespace: "shop", Service: "web", Port: intstr.FromString("http"),
		Assumptions: w.Assumptions(),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("strategy:", p.Strategy)
	fmt.Println("recorded:", len(p.Recorded), "node targets; floor:", p.Floor)
	fmt.Println("health check:", p.HealthCheck.Timing)
	for _, s := range p.Steps {
		fmt.Printf("%s (%s)\n", s.ID, s.Phase)
	}
	fmt.Println("floor seconds:", p.Estimate.FloorSeconds)
	for _, wt := range p.Estimate.Waits {
		fmt.Printf("  %s %d s (%s)\n", wt.Step, wt.Seconds, wt.From)
	}
	for _, pc := range p.Preconditions {
		for _, c := range pc.Settings {
			fmt.Println("precondition:", pc.Kind, c.Setting)
		}
	}
	fmt.Println("mutating calls:", w.Calls()["ModifyTargetGroup"]+w.Calls()["DeregisterTargets"])
	// Output:
	// strategy: in-place
	// recorded: 4 node targets; floor: 4
	// health check: before-binding
	// hold-disruption (prepare)
	// align-health-check (prepare)
	// bind (adopt)
	// gate (adopt)
	// deregister (remove)
	// drain (remove)
	// verify (verify)
	// release-disruption (verify)
	// floor seconds: 360
	//   gate 10 s (registration delay 10s (assumed) to the first check, 1 passing check one interval (30 s) apart)
	//   gate 60 s (UnhealthyThresholdCount 2 × interval 30 s)
	//   drain 300 s (deregistration_delay.timeout_seconds 300)
	// precondition: pod-settings readinessGate
	// mutating calls: 0
}

// Execute carries the plan out while Karpenter wants to replace every
// node: it holds Karpenter's graceful disruption of the nodes that serve
// until the pods' targets serve alone, then releases it. No request fails,
// and the target group ends with only the pods' targets; once released,
// Karpenter replaces the nodes.
//
// Karpenter had begun to replace one node when Execute started: the hold
// cannot stop that, so its first step retires that node's target at once
// and waits until the node is gone and the deregistration lag has passed
// (Result.SettleSeconds, which the ratio to the floor leaves out). It
// holds the replacement node too, as it joins: five nodes held, four
// released (the fifth was gone by then).
//
// The plan carries the pod-settings precondition (the simulated namespace
// does not inject the readiness gate): this example accepts it knowingly,
// with WithAcceptPreconditions. Against a real cluster, fix the pods
// instead.
func ExampleExecute() {
	ctx := context.Background()
	// The calls take the simulator's latency (cutover calls from one
	// goroutine), so that the replacement begins while Execute reads.
	w, _ := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{Seed: 2, Nodes: 4, Pods: 8,
		Timings: tgmigratetest.Timings{ELBv2Latency: 50 * time.Millisecond, KubeLatency: 10 * time.Millisecond}})
	env := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock(), ClusterVPCID: w.VPCID()}
	tg := w.Legacy().TargetGroupARN // typed: parse an ARN once, where it comes in as a string (tgmigrate.ParseTargetGroupARN)
	p, _ := cutover.PlanCutover(ctx, env, cutover.Request{
		TargetGroupARN: tg, Namespace: "shop", Service: "web", Port: intstr.FromString("http"),
		Assumptions: w.Assumptions(),
	})
	_, err := cutover.Execute(ctx, env, p)
	fmt.Println("refused:", cutover.IsPrecondition(err))

	var before corev1.NodeList
	_ = w.Client().List(ctx, &before)
	_ = w.ReplaceAllNodes(0)
	w.Run(10 * time.Second) // Karpenter's disruption loop acts at its next poll
	done := 0
	res, err := cutover.Execute(ctx, env, p,
		cutover.WithAcceptPreconditions(cutover.PreconditionPodSettings),
		cutover.WithObserver(cutover.ObserverFuncs{OnStepFinished: func(cutover.StepEvent) { done++ }}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("completed:", res.Completed, "steps:", done)
	fmt.Println("node targets deregistered:", res.Deregistered, "retired early:", len(res.Retired))
	fmt.Println("settled for the deregistration lag at least:", res.SettleSeconds >= p.Request.Assumptions.DeregistrationLag.Seconds())
	fmt.Printf("within 1.05x the floor: %t\n", res.Ratio <= 1.05)
	fmt.Println("nodes held:", len(res.Held), "released:", len(res.Released))
	fmt.Println("failed requests:", w.Requests().Failed)
	fmt.Println("node targets left:", w.NodeTargets())
	w.Run(20 * time.Minute) // the drift goes on once released
	var after corev1.NodeList
	_ = w.Client().List(ctx, &after)
	replaced := len(before.Items)
	for _, n := range after.Items {
		if slices.ContainsFunc(before.Items, func(o corev1.Node) bool { return o.Name == n.Name }) {
			replaced--
		}
	}
	fmt.Println("first nodes replaced:", replaced, "failed requests:", w.Requests().Failed)
	// Output:
	// refused: true
	// completed: true steps: 8
	// node targets deregistered: 4 retired early: 1
	// settled for the deregistration lag at least: true
	// within 1.05x the floor: true
	// nodes held: 5 released: 4
	// failed requests: 0
	// node targets left: 0
	// first nodes replaced: 4 failed requests: 0
}

// Rollback returns to the node targets from any step: here, once the pod
// targets are healthy and before any node target is removed. It holds
// Karpenter's graceful disruption while it runs (here the hold of the
// stopped Execute still stands) and releases what the hold added at its
// end.
func ExampleRollback() {
	ctx := context.Background()
	w, _ := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{Seed: 3, Nodes: 4, Pods: 8})
	env := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock(), ClusterVPCID: w.VPCID()}
	tg := w.Legacy().TargetGroupARN // typed: parse an ARN once, where it comes in as a string (tgmigrate.ParseTargetGroupARN)
	p, _ := cutover.PlanCutover(ctx, env, cutover.Request{
		TargetGroupARN: tg, Namespace: "shop", Service: "web", Port: intstr.FromString("http"),
		Assumptions: w.Assumptions(),
	})
	// The simulated pods' settings: see ExampleExecute.
	res, _ := cutover.Execute(ctx, env, p, cutover.WithAcceptPreconditions(cutover.PreconditionPodSettings),
		cutover.WithStopAfter(cutover.StepGate))
	fmt.Println("stopped after:", res.StoppedAfter)
	rb, err := cutover.Rollback(ctx, env, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range rb.Actions {
		fmt.Println(a.ID, a.Status)
	}
	fmt.Println("released:", len(rb.Released))
	w.Run(6 * time.Minute) // the pod targets drain
	th, err := w.ELBv2Read().DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(tg.String())})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("node targets:", w.NodeTargets(), "targets:", len(th.TargetHealthDescriptions))
	_, err = cutover.Execute(ctx, env, p, cutover.WithAcceptPreconditions(cutover.PreconditionPodSettings))
	fmt.Println("execute again:", cutover.IsRolledBack(err))
	// Output:
	// stopped after: gate
	// hold-disruption done
	// register-nodes done
	// wait-nodes done
	// delete-binding done
	// restore-health-check done
	// release-disruption done
	// released: 4
	// node targets: 4 targets: 4
	// execute again: true
}

// The least-privilege policy of a plan: the IAM actions its steps call,
// scoped to its ARNs.
func ExamplePlan_IAMPolicy() {
	ctx := context.Background()
	w, _ := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{Seed: 4, Nodes: 2, Pods: 4})
	env := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock()}
	tg := w.Legacy().TargetGroupARN // typed: parse an ARN once, where it comes in as a string (tgmigrate.ParseTargetGroupARN)
	p, _ := cutover.PlanCutover(ctx, env, cutover.Request{
		TargetGroupARN: tg, Namespace: "shop", Service: "web", Port: intstr.FromString("http"),
	})
	pol, _ := p.IAMPolicy()
	for _, st := range pol.Statement {
		fmt.Println(st.Sid, st.Action, len(st.Resource), "resource(s)")
	}
	// Output:
	// ReadELBv2 [elasticloadbalancing:Describe*] 1 resource(s)
	// TargetWrites [elasticloadbalancing:DeregisterTargets elasticloadbalancing:RegisterTargets] 1 resource(s)
	// TargetGroupWrites [elasticloadbalancing:ModifyTargetGroup] 1 resource(s)
}

// A wrapper that decides itself whether to roll back
// (WithAutoRollback(false)): ShouldRollback is the list Execute's own
// automatic rollback follows. Here IAM refuses the deregistration: the
// step failed after the binding was made, so it calls for a rollback; the
// same plan rolled back again, or a plan never run, is not one.
func ExampleShouldRollback() {
	ctx := context.Background()
	w, _ := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{Seed: 4, Nodes: 3, Pods: 6, ReadinessGateInjection: true})
	env := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock(), ClusterVPCID: w.VPCID(), Holder: "example"}
	l := w.Legacy()
	plan, err := cutover.PlanCutover(ctx, env, cutover.Request{
		TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace, Service: l.Service, Port: intstr.FromString(l.PortName),
		Assumptions: w.Assumptions(),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = w.Inject(tgmigratetest.Fault{Op: "DeregisterTargets", Code: tgmigratetest.AccessDenied})
	_, err = cutover.Execute(ctx, env, plan, cutover.WithAutoRollback(false))
	fmt.Println(cutover.Classify(err), cutover.ShouldRollback(err))
	if cutover.ShouldRollback(err) {
		rb, err := cutover.Rollback(ctx, env, plan, cutover.WithReason("wrapper: "+err.Error()))
		fmt.Println("rolled back:", err == nil && rb.Completed, "failed requests:", w.Requests().Failed)
	}
	_, err = cutover.Execute(ctx, env, plan)
	fmt.Println(cutover.Classify(err), cutover.ShouldRollback(err))
	// Output:
	// rollback true
	// rolled back: true failed requests: 0
	// refused false
}

// Rollback of a plan that never ran says so, with a *NotStartedError.
func ExampleIsNotStarted() {
	ctx := context.Background()
	w, _ := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{Seed: 4, Nodes: 3, Pods: 6, ReadinessGateInjection: true})
	env := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock(), ClusterVPCID: w.VPCID(), Holder: "example"}
	l := w.Legacy()
	plan, err := cutover.PlanCutover(ctx, env, cutover.Request{
		TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace, Service: l.Service, Port: intstr.FromString(l.PortName),
		Assumptions: w.Assumptions(),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = cutover.Rollback(ctx, env, plan)
	fmt.Println("not started:", cutover.IsNotStarted(err))
	// Output:
	// not started: true
}

// After a crash, a new process resumes the cutover from its journal alone:
// the journal holds the plan, so no plan file is needed.
func ExampleResume() {
	ctx := context.Background()
	w, _ := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{Seed: 5, Nodes: 4, Pods: 8, ReadinessGateInjection: true})
	env := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock(), ClusterVPCID: w.VPCID(), Holder: "example"}
	l := w.Legacy()
	plan, err := cutover.PlanCutover(ctx, env, cutover.Request{
		TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace, Service: l.Service, Port: intstr.FromString(l.PortName),
		Assumptions: w.Assumptions(),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = cutover.Execute(ctx, env, plan, cutover.WithHook(tgmigratetest.CrashAfter[cutover.Event](2)))
	fmt.Println("crashed:", errors.Is(err, tgmigratetest.ErrCrash))

	// The new process knows the target group and the binding's namespace.
	j, err := cutover.NewConfigMapJournal(env.Client, cutover.ConfigMapJournalOptions{Namespace: l.Namespace, TargetGroupARN: l.TargetGroupARN})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := cutover.Resume(ctx, env, j)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("resumed:", res.Resumed, "completed:", res.Completed, "failed requests:", w.Requests().Failed)
	// Output:
	// crashed: true
	// resumed: true completed: true failed requests: 0
}
