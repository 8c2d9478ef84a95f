package tgmigratetest_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/tgbind"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// A world of four nodes whose hand-made target group pins the nodes'
// addresses: under Karpenter's churn, each replaced node leaves a ghost
// target, and requests fail until the load balancer marks it unhealthy.
func ExampleNewWorld() {
	ctx := context.Background()
	w, err := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{
		Seed: 1, Nodes: 4, Pods: 8,
		Churn: tgmigratetest.Churn{Shape: tgmigratetest.ChurnSteady, Interval: 2 * time.Minute},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	l := w.Legacy()
	fmt.Println(l.TargetGroupName, l.TargetType, "targets of", l.Namespace+"/"+l.Service)
	fmt.Println("node targets:", w.NodeTargets())
	w.Run(10 * time.Minute)
	fmt.Println("after 10 min of churn: ghosts:", w.Ghosts() > 0, "failed requests:", w.Requests().Failed > 0)
	// Output:
	// legacy-web ip targets of shop/web
	// node targets: 4
	// after 10 min of churn: ghosts: true failed requests: true
}

// Diagnose reads the world through the read-only client and the cluster's
// reader, on the world's clock.
func ExampleWorld_ELBv2Read() {
	ctx := context.Background()
	w, _ := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{Seed: 1, Nodes: 4, Pods: 8})
	rep, err := diagnose.Diagnose(ctx, diagnose.Sources{
		Accounts: []diagnose.Account{{ID: tgmigratetest.AccountID, Region: tgmigratetest.Region, ELBv2: w.ELBv2Read()}},
		Clusters: []diagnose.Cluster{w.Cluster()},
	}, diagnose.Scope{TargetGroupARNs: []tgmigrate.ARN{w.Legacy().TargetGroupARN}}, diagnose.WithClock(w.Clock()))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range rep.AllFindings() {
		fmt.Println(f.Code, "->", f.Next.Op)
	}
	fmt.Println("writes:", w.Calls()["DeregisterTargets"]+w.Calls()["ModifyTargetGroup"])
	// Output:
	// KarpenterDisruptionRisk -> cutover.PlanCutover
	// StaticNodeTarget -> cutover.PlanCutover
	// HealthCheckMismatch -> cutover.PlanCutover
	// MissingReadinessGate -> label-namespace
	// UnmanagedTargetGroup -> tgbind.Build
	// writes: 0
}

// tgbind on the world: build and apply the binding of the hand-made target
// group, then wait until the controller stand-in has registered every
// ready pod as a healthy target.
func ExampleWorld_Client() {
	ctx := context.Background()
	w, _ := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{Seed: 1, Nodes: 4, Pods: 8})
	b, err := tgbind.New(tgbind.Options{
		ELBv2: w.ELBv2Read(), Reader: w.Client(), Writer: w.Client(), Clock: w.Clock(), ClusterVPCID: w.VPCID(),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	l := w.Legacy()
	binding, err := b.Build(ctx, tgbind.Request{TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace, Service: l.Service, Port: intstr.FromString(l.PortName)})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := b.Apply(ctx, binding.TargetGroupBinding)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Name, res.Operation)
	st, err := b.Wait(ctx, binding.TargetGroupBinding)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d/%d pods healthy; node targets still registered: %d\n", st.Healthy, st.Total, len(st.Others))
	// Output:
	// web-http-legacy-web created
	// 8/8 pods healthy; node targets still registered: 4
}

// A cutover on the world, under churn: plan it under the world's own
// timings, execute it, and let the churn go on. No request fails, and the
// target group ends with the pods' targets only.
func ExampleWorld_ELBv2() {
	ctx := context.Background()
	w, _ := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{
		Seed: 2, Nodes: 4, Pods: 8, ReadinessGateInjection: true,
		Churn: tgmigratetest.Churn{Shape: tgmigratetest.ChurnConsolidation, Interval: 2 * time.Minute},
	})
	env := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock(), ClusterName: tgmigratetest.ClusterName, ClusterVPCID: w.VPCID()}
	l := w.Legacy()
	plan, err := cutover.PlanCutover(ctx, env, cutover.Request{
		TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace, Service: l.Service, Port: intstr.FromString(l.PortName),
		Assumptions: w.Assumptions(),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := cutover.Execute(ctx, env, plan)
	if err != nil {
		fmt.Println(err)
		return
	}
	w.Run(20 * time.Minute)
	fmt.Println("completed:", res.Completed, "node targets left:", w.NodeTargets())
	fmt.Println("failed requests:", w.Requests().Failed)
	// Output:
	// completed: true node targets left: 0
	// failed requests: 0
}

// Throttling on one operation: the SDK's reads retry it with backoff on
// the world's clock, and the plan is made all the same.
func ExampleWorld_Inject() {
	ctx := context.Background()
	w, _ := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{Seed: 1, Nodes: 4, Pods: 8})
	_ = w.Inject(tgmigratetest.Fault{Op: "DescribeTargetHealth", Code: tgmigratetest.Throttling, Times: 2})
	l := w.Legacy()
	env := cutover.ReadEnv{ELBv2: w.ELBv2Read(), Client: w.Client(), Clock: w.Clock(), ClusterVPCID: w.VPCID()}
	_, err := cutover.PlanCutover(ctx, env, cutover.Request{
		TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace, Service: l.Service, Port: intstr.FromString(l.PortName),
		Assumptions: w.Assumptions(),
	})
	fmt.Println("planned:", err == nil, "DescribeTargetHealth calls:", w.Calls()["DescribeTargetHealth"])

	_ = w.Inject(tgmigratetest.Fault{Op: "DescribeTargetGroups", Code: tgmigratetest.AccessDenied})
	_, err = cutover.PlanCutover(ctx, env, cutover.Request{
		TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace, Service: l.Service, Port: intstr.FromString(l.PortName),
	})
	fmt.Println("denied:", err != nil)
	// Output:
	// planned: true DescribeTargetHealth calls: 4
	// denied: true
}

// A crash after the second step of a cutover, as a killed process: the
// journal stays, and Execute again resumes from it.
func ExampleCrashAfter() {
	ctx := context.Background()
	w, _ := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{Seed: 3, Nodes: 4, Pods: 8, ReadinessGateInjection: true})
	env := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock(), ClusterVPCID: w.VPCID(), Holder: "example"}
	l := w.Legacy()
	plan, _ := cutover.PlanCutover(ctx, env, cutover.Request{
		TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace, Service: l.Service, Port: intstr.FromString(l.PortName),
		Assumptions: w.Assumptions(),
	})
	_, err := cutover.Execute(ctx, env, plan, cutover.WithHook(tgmigratetest.CrashAfter[cutover.Event](2)))
	fmt.Println(err)
	fmt.Println("crash:", errors.Is(err, tgmigratetest.ErrCrash), "interrupted:", cutover.IsInterrupted(err))
	w.Run(5 * time.Second) // the process restarts; the world goes on
	res, err := cutover.Execute(ctx, env, plan)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("resumed and completed:", res.Completed, "failed requests:", w.Requests().Failed)
	// Output:
	// cutover: after step align-health-check: interrupted by hook: tgmigratetest: simulated crash after step align-health-check
	// crash: true interrupted: true
	// resumed and completed: true failed requests: 0
}
