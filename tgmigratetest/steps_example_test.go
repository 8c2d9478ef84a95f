package tgmigratetest_test

// steps_example_test.go: one example per step of the migration on the
// kit: diagnose (step 1), tgbind (step 2), cutover with the
// security-group and quota checks (step 3), the move to private subnets
// (step 4), and a cutover through the real AWS SDK over the wire. Each
// prints outcomes, not counts.

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/subnets"
	"github.com/qstools/tgmigrate/tgbind"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// Step 1: diagnose reads the world with its read-only clients, ELBv2, EC2
// and Service Quotas, and finds the hand-made target group pinning the
// nodes' addresses, with a handoff to cutover; through EC2 it places the
// nodes in their subnets, private in this world (a step-4 world,
// Options.Move, has them public). It writes nothing.
func Example_diagnose() {
	ctx := context.Background()
	w, err := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{Seed: 1, Nodes: 4, Pods: 8})
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := diagnose.Diagnose(ctx, diagnose.Sources{
		Accounts: []diagnose.Account{{ID: tgmigratetest.AccountID, Region: tgmigratetest.Region,
			ELBv2: w.ELBv2Read(), EC2: w.EC2(), ServiceQuotas: w.ServiceQuotas()}},
		Clusters: []diagnose.Cluster{w.Cluster()},
	}, diagnose.Scope{TargetGroupARNs: []tgmigrate.ARN{w.Legacy().TargetGroupARN}}, diagnose.WithClock(w.Clock()))
	if err != nil {
		fmt.Println(err)
		return
	}
	pinned, handoff, public := false, false, false
	for _, f := range rep.AllFindings() {
		switch f.Code {
		case diagnose.CodeStaticNodeTarget:
			pinned, handoff = true, f.Next.Handoff != nil
		case diagnose.CodePublicSubnetNode:
			public = true
		}
	}
	q := rep.Accounts[0].Quotas
	fmt.Println("node addresses pinned:", pinned, "handoff to cutover:", handoff)
	fmt.Println("quotas from Service Quotas:", q != nil && q.PerTargetGroup.Source == diagnose.QuotaApplied)
	fmt.Println("subnets checked through EC2:", rep.Accounts[0].EC2, "nodes in public subnets:", public)
	fmt.Println("read errors:", len(rep.Errors), "writes:", w.Calls()["DeregisterTargets"]+w.Calls()["ModifyTargetGroup"])
	// Output:
	// node addresses pinned: true handoff to cutover: true
	// quotas from Service Quotas: true
	// subnets checked through EC2: true nodes in public subnets: false
	// read errors: 0 writes: 0
}

// Step 2: tgbind builds and applies the TargetGroupBinding of the
// hand-made target group; the controller stand-in registers the pods
// beside the node targets, which stay until the cutover.
func Example_tgbind() {
	ctx := context.Background()
	w, err := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{Seed: 1, Nodes: 4, Pods: 8})
	if err != nil {
		fmt.Println(err)
		return
	}
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
	if _, err := b.Apply(ctx, binding.TargetGroupBinding); err != nil {
		fmt.Println(err)
		return
	}
	st, err := b.Wait(ctx, binding.TargetGroupBinding)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("every pod a healthy target:", st.Total > 0 && st.Healthy == st.Total)
	fmt.Println("node targets still there:", w.NodeTargets() > 0, "failed requests:", w.Requests().Failed)
	// Output:
	// every pod a healthy target: true
	// node targets still there: true failed requests: 0
}

// Step 3: the cutover, planned with the world's EC2 (the load balancer's
// security groups must let it reach the pods' port) and Service Quotas
// (the overlap of node and pod targets against ELBv2's quotas), then
// executed under Karpenter's churn: no request fails, and no node target
// is left.
func Example_cutover() {
	ctx := context.Background()
	w, err := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{
		Seed: 2, Nodes: 4, Pods: 8, ReadinessGateInjection: true,
		Churn: tgmigratetest.Churn{Shape: tgmigratetest.ChurnSteady, Interval: 2 * time.Minute},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	env := cutover.Env{ELBv2: w.ELBv2(), EC2: w.EC2(), ServiceQuotas: w.ServiceQuotas(), Client: w.Client(), Clock: w.Clock(),
		ClusterName: tgmigratetest.ClusterName, ClusterVPCID: w.VPCID()}
	l := w.Legacy()
	plan, err := cutover.PlanCutover(ctx, env, cutover.Request{
		TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace, Service: l.Service, Port: intstr.FromString(l.PortName),
		Assumptions: w.Assumptions(),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("security groups checked:", plan.Network.Checked, "open to the pods:", plan.Network.Allowed)
	fmt.Println("quotas from Service Quotas:", plan.Quota.Quotas.PerTargetGroup.Source == diagnose.QuotaApplied)
	res, err := cutover.Execute(ctx, env, plan)
	if err != nil {
		fmt.Println(err)
		return
	}
	w.Run(10 * time.Minute)
	fmt.Println("completed:", res.Completed, "node targets left:", w.NodeTargets(), "failed requests:", w.Requests().Failed)
	// Output:
	// security groups checked: true open to the pods: true
	// quotas from Service Quotas: true
	// completed: true node targets left: 0 failed requests: 0
}

// Step 4: in a world whose nodes are in public subnets, once the cutover
// has unpinned their addresses, subnets checks that the move to the
// private subnets is safe, plans it and runs it: Karpenter replaces every
// node in the private subnets, and no request fails.
func Example_subnets() {
	ctx := context.Background()
	w, err := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{
		Seed: 1, Nodes: 4, Pods: 8, ReadinessGateInjection: true,
		Move: &tgmigratetest.Move{Egress: tgmigratetest.EgressNAT},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("public nodes at the start:", w.PublicNodes() == 4)
	l := w.Legacy()
	cenv := cutover.Env{ELBv2: w.ELBv2(), EC2: w.EC2(), Client: w.Client(), Clock: w.Clock(),
		ClusterName: tgmigratetest.ClusterName, ClusterVPCID: w.VPCID()}
	plan, err := cutover.PlanCutover(ctx, cenv, cutover.Request{
		TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace, Service: l.Service, Port: intstr.FromString(l.PortName),
		Assumptions: w.Assumptions(),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := cutover.Execute(ctx, cenv, plan); err != nil {
		fmt.Println(err)
		return
	}
	r, err := subnets.CheckReadiness(ctx, subnets.Input{
		Cluster: tgmigratetest.ClusterName, AccountID: tgmigratetest.AccountID, Region: tgmigratetest.Region, VPCID: w.VPCID(),
		Reader: w.Client(), EC2: w.EC2(), ELBv2: w.ELBv2Read(),
	}, subnets.WithClock(w.Clock()))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ready:", r.Ready, "private subnets in every zone:", len(r.PrivateSubnets) == len(w.Zones()))
	move, err := subnets.PlanMove(ctx, r, subnets.PlanClock(w.Clock()))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := subnets.Execute(ctx, move, subnets.Env{Client: w.Client(), ELBv2: w.ELBv2Read(), Namespace: l.Namespace, Clock: w.Clock()})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("moved:", res.Completed, "public nodes left:", w.PublicNodes(), "failed requests:", w.Requests().Failed)
	// Output:
	// public nodes at the start: true
	// ready: true private subnets in every zone: true
	// moved: true public nodes left: 0 failed requests: 0
}

// Options.Wire: the world's AWS on 127.0.0.1, and the code under test on
// the real SDK clients. EC2 throttles the security-group read twice: the
// SDK's retryer and cutover's retry it, and the cutover completes.
func ExampleWire() {
	ctx := context.Background()
	w, err := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{
		Seed: 2, Nodes: 4, Pods: 8, ReadinessGateInjection: true, Wire: &tgmigratetest.Wire{},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	_, sdkELBv2 := w.ELBv2().(*elbv2.Client)
	_, sdkQuotas := w.ServiceQuotas().(*servicequotas.Client)
	fmt.Println("real SDK clients:", sdkELBv2, sdkQuotas)
	if err := w.Inject(tgmigratetest.Fault{Op: "DescribeSecurityGroups", Code: tgmigratetest.Throttling, Times: 2}); err != nil {
		fmt.Println(err)
		return
	}
	env := cutover.Env{ELBv2: w.ELBv2(), EC2: w.EC2(), ServiceQuotas: w.ServiceQuotas(), Client: w.Client(), Clock: w.Clock(),
		ClusterName: tgmigratetest.ClusterName, ClusterVPCID: w.VPCID()}
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
	fmt.Println("security groups checked:", plan.Network.Checked, "throttled reads retried:", w.Calls()["DescribeSecurityGroups"] > 2)
	fmt.Println("completed:", res.Completed, "node targets left:", w.NodeTargets(), "failed requests:", w.Requests().Failed)
	// Output:
	// real SDK clients: true true
	// security groups checked: true throttled reads retried: true
	// completed: true node targets left: 0 failed requests: 0
}

// The EC2 client's reads, as cutover and subnets make them: the nodes'
// security group, tagged as the cluster's, and its rules.
func ExampleWorld_EC2() {
	ctx := context.Background()
	w, err := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{Seed: 1, Nodes: 2, Pods: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := w.EC2().DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range out.SecurityGroups {
		fmt.Println(*g.GroupName, "ingress rules:", len(g.IpPermissions) > 0)
	}
	// Output:
	// alb ingress rules: false
	// nodes ingress rules: true
}
