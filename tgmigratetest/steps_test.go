package tgmigratetest_test

// steps_test.go: the kit's EC2 client (and diagnose's public-subnet
// check through it), its Service Quotas, the step-4
// world (Options.Move) under subnets' readiness, Options.Wire, and the
// bounds of the new options.

import (
	"github.com/qstools/tgmigrate/internal/sim"

	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	sqtypes "github.com/aws/aws-sdk-go-v2/service/servicequotas/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/subnets"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// ingressWriter is the write a read-only EC2 client must not have.
type ingressWriter interface {
	AuthorizeSecurityGroupIngress(context.Context, *ec2.AuthorizeSecurityGroupIngressInput, ...func(*ec2.Options)) (*ec2.AuthorizeSecurityGroupIngressOutput, error)
}

// TestEC2 reads the world's network through World.EC2, on the Go client
// and over the wire: the load balancer's and the nodes' security groups,
// the nodes' group tagged as the cluster's; one network interface per
// node carrying its pods' addresses; one instance per node, running, on
// the same address, tagged as Karpenter's; the step-4 world's subnets (a
// public and a private one per zone), route tables and endpoints. The
// client has no write, and its calls are counted.
func TestEC2(t *testing.T) {
	for _, wire := range []bool{false, true} {
		t.Run(map[bool]string{false: "go", true: "wire"}[wire], func(t *testing.T) {
			ctx := t.Context()
			opts := tgmigratetest.Options{Seed: 1, Nodes: 3, Pods: 6, Move: &tgmigratetest.Move{Egress: tgmigratetest.EgressEndpoints}}
			if wire {
				opts.Wire = &tgmigratetest.Wire{}
			}
			w := newWorld(t, opts)
			t.Cleanup(w.Close)
			if _, ok := w.EC2().(ingressWriter); ok {
				t.Error("EC2() has AuthorizeSecurityGroupIngress")
			}
			sgs, err := w.EC2().DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{})
			if err != nil {
				t.Fatal(err)
			}
			var tagged []string
			for _, g := range sgs.SecurityGroups {
				for _, tag := range g.Tags {
					if aws.ToString(tag.Key) == "kubernetes.io/cluster/"+tgmigratetest.ClusterName {
						tagged = append(tagged, aws.ToString(g.GroupName))
					}
				}
			}
			if len(sgs.SecurityGroups) != 2 || !slices.Equal(tagged, []string{"nodes"}) {
				t.Errorf("security groups %+v: want the ALB's and the nodes', the nodes' tagged", sgs.SecurityGroups)
			}

			var pods corev1.PodList
			if err := w.Client().List(ctx, &pods); err != nil {
				t.Fatal(err)
			}
			enis, err := w.EC2().DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{})
			if err != nil {
				t.Fatal(err)
			}
			addrs := map[string]bool{}
			for _, ni := range enis.NetworkInterfaces {
				for _, a := range ni.PrivateIpAddresses {
					addrs[aws.ToString(a.PrivateIpAddress)] = true
				}
			}
			if len(enis.NetworkInterfaces) != 3 {
				t.Errorf("%d network interfaces, want one per node", len(enis.NetworkInterfaces))
			}
			for _, p := range pods.Items {
				if !addrs[p.Status.PodIP] {
					t.Errorf("pod %s (%s) is on no network interface", p.Name, p.Status.PodIP)
				}
			}

			subs, err := w.EC2().DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{})
			if err != nil {
				t.Fatal(err)
			}
			public := 0
			for _, s := range subs.Subnets {
				if aws.ToBool(s.MapPublicIpOnLaunch) {
					public++
				}
			}
			if zones := len(w.Zones()); len(subs.Subnets) != 2*zones || public != zones {
				t.Errorf("%d subnets, %d public; want a public and a private one in each of %d zones", len(subs.Subnets), public, zones)
			}
			rts, err := w.EC2().DescribeRouteTables(ctx, &ec2.DescribeRouteTablesInput{})
			if err != nil || len(rts.RouteTables) == 0 {
				t.Errorf("DescribeRouteTables() = %v, %v", rts, err)
			}
			eps, err := w.EC2().DescribeVpcEndpoints(ctx, &ec2.DescribeVpcEndpointsInput{})
			if err != nil || len(eps.VpcEndpoints) != 5 {
				t.Errorf("DescribeVpcEndpoints() = %v, %v; want ECR's two, S3, STS and EC2", eps, err)
			}
			insts, err := w.EC2().DescribeInstances(ctx, &ec2.DescribeInstancesInput{})
			if err != nil {
				t.Fatal(err)
			}
			running := 0
			for _, r := range insts.Reservations {
				for _, in := range r.Instances {
					tags := map[string]string{}
					for _, tag := range in.Tags {
						tags[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
					}
					if in.State.Name == "running" && in.SubnetId != nil && aws.ToString(in.VpcId) == w.VPCID() && addrs[aws.ToString(in.PrivateIpAddress)] &&
						tags["kubernetes.io/cluster/"+tgmigratetest.ClusterName] == "owned" && tags["karpenter.sh/nodepool"] != "" {
						running++
					}
				}
			}
			if running != 3 {
				t.Errorf("DescribeInstances() = %+v: want 3 running instances, in the VPC, on the interfaces' addresses, tagged as Karpenter's", insts.Reservations)
			}
			calls := w.Calls()
			for _, op := range []string{"DescribeSecurityGroups", "DescribeNetworkInterfaces", "DescribeSubnets", "DescribeRouteTables", "DescribeVpcEndpoints", "DescribeInstances"} {
				if calls[op] != 1 {
					t.Errorf("Calls()[%s] = %d, want 1", op, calls[op])
				}
			}
		})
	}
}

// The kit's EC2 client is diagnose's.
var _ diagnose.EC2API = tgmigratetest.EC2API(nil)

// TestDiagnoseEC2: diagnose, given the kit's EC2 client on the step-4
// world, on the Go client and over the wire, places every node target's
// node in its public subnet (one routed to the internet gateway), and
// PublicSubnetNode counts them so; without the client it knows only the
// nodes' ExternalIPs.
func TestDiagnoseEC2(t *testing.T) {
	for _, wire := range []bool{false, true} {
		t.Run(map[bool]string{false: "go", true: "wire"}[wire], func(t *testing.T) {
			ctx := t.Context()
			opts := tgmigratetest.Options{Seed: 3, Nodes: 3, Pods: 6, Move: &tgmigratetest.Move{}}
			if wire {
				opts.Wire = &tgmigratetest.Wire{}
			}
			w := newWorld(t, opts)
			t.Cleanup(w.Close)
			run := func(ec2c diagnose.EC2API) (*diagnose.Report, *diagnose.Finding) {
				t.Helper()
				acct := diagnose.Account{ID: tgmigratetest.AccountID, Region: tgmigratetest.Region, ELBv2: w.ELBv2Read()}
				if ec2c != nil {
					acct.EC2 = ec2c
				}
				rep, err := diagnose.Diagnose(ctx, diagnose.Sources{Accounts: []diagnose.Account{acct}, Clusters: []diagnose.Cluster{w.Cluster()}},
					diagnose.Scope{TargetGroupARNs: []tgmigrate.ARN{w.Legacy().TargetGroupARN}}, diagnose.WithClock(w.Clock()))
				if err != nil {
					t.Fatal(err)
				}
				if len(rep.Errors) != 0 {
					t.Fatalf("read errors: %+v", rep.Errors)
				}
				for _, f := range rep.AllFindings() {
					if f.Code == diagnose.CodePublicSubnetNode {
						return rep, &f
					}
				}
				t.Fatalf("no %s finding", diagnose.CodePublicSubnetNode)
				return nil, nil
			}

			_, without := run(nil)
			rep, with := run(w.EC2())
			if !rep.Accounts[0].EC2 || w.Calls()["DescribeInstances"] == 0 || w.Calls()["DescribeRouteTables"] == 0 {
				t.Errorf("EC2 %v, calls %v: want diagnose to read the instances and the route tables", rep.Accounts[0].EC2, w.Calls())
			}
			if without.Evidence.Counts["publicSubnet"] != 0 || with.Evidence.Counts["publicSubnet"] != 3 || with.Evidence.Counts["nodes"] != 3 {
				t.Errorf("counts without EC2 %v, with %v: want the 3 nodes in a public subnet only with EC2", without.Evidence.Counts, with.Evidence.Counts)
			}
			placed := 0
			for _, tg := range rep.TargetGroups {
				for _, tr := range tg.Targets {
					if tr.Class == diagnose.ClassNode && tr.Node != nil && tr.Node.PublicSubnet && strings.HasPrefix(tr.Node.SubnetID, "subnet-") {
						placed++
					}
				}
			}
			if placed == 0 {
				t.Errorf("no node target placed in a public subnet: %+v", rep.TargetGroups)
			}
			if !strings.Contains(with.Message, "3 in a subnet routed to an internet gateway") || with.Evidence.Details["subnets"] == "" {
				t.Errorf("finding %q, details %v", with.Message, with.Evidence.Details)
			}
		})
	}
}

// TestServiceQuotas: diagnose reads the world's quotas through
// World.ServiceQuotas, on the Go client and over the wire: the per target
// group and per ALB quotas applied, the per NLB one at Service Quotas'
// default; a code the world has not is NoSuchResourceException.
func TestServiceQuotas(t *testing.T) {
	for _, wire := range []bool{false, true} {
		t.Run(map[bool]string{false: "go", true: "wire"}[wire], func(t *testing.T) {
			opts := tgmigratetest.Options{Seed: 1, Nodes: 2, Pods: 2}
			if wire {
				opts.Wire = &tgmigratetest.Wire{MaxAttempts: 1}
			}
			w := newWorld(t, opts)
			t.Cleanup(w.Close)
			rep, err := diagnose.Diagnose(t.Context(), diagnose.Sources{
				Accounts: []diagnose.Account{{ID: tgmigratetest.AccountID, Region: tgmigratetest.Region, ELBv2: w.ELBv2Read(), ServiceQuotas: w.ServiceQuotas()}},
				Clusters: []diagnose.Cluster{w.Cluster()},
			}, diagnose.Scope{All: true}, diagnose.WithClock(w.Clock()))
			if err != nil {
				t.Fatal(err)
			}
			q := rep.Accounts[0].Quotas
			if q == nil || q.PerTargetGroup.Source != diagnose.QuotaApplied || q.PerTargetGroup.Value != 1000 ||
				q.PerApplicationLoadBalancer.Source != diagnose.QuotaApplied || q.PerApplicationLoadBalancer.Value != 1000 ||
				q.PerNetworkLoadBalancer.Source != diagnose.QuotaServiceDefault || q.PerNetworkLoadBalancer.Value != 3000 {
				t.Errorf("quotas %+v", q)
			}
			if got := w.Calls(); got["GetServiceQuota"] != 3 || got["GetAWSDefaultServiceQuota"] != 1 {
				t.Errorf("calls %v, want 3 GetServiceQuota and 1 GetAWSDefaultServiceQuota", got)
			}
			_, err = w.ServiceQuotas().GetServiceQuota(t.Context(), &servicequotas.GetServiceQuotaInput{ServiceCode: aws.String("ec2"), QuotaCode: aws.String("L-1216C47A")})
			var nsr *sqtypes.NoSuchResourceException
			if !errors.As(err, &nsr) {
				t.Errorf("an unknown quota: %v, want NoSuchResourceException", err)
			}
		})
	}
}

// TestMoveWorld: a step-4 world starts with every node public, and
// subnets' readiness judges it by its Move options once the cutover has
// unpinned the nodes' addresses: Ready with NAT or endpoints, NoEgress
// with neither, ZoneNotEnabled when the load balancer leaves a zone out
// (World.EnableZones).
func TestMoveWorld(t *testing.T) {
	tests := []struct {
		name  string
		move  tgmigratetest.Move
		zones []string // the load balancer's, after the cutover
		ready bool
		code  diagnose.Code
	}{
		{"nat", tgmigratetest.Move{}, nil, true, ""},
		{"endpoints", tgmigratetest.Move{Egress: tgmigratetest.EgressEndpoints}, nil, true, ""},
		{"no egress", tgmigratetest.Move{Egress: tgmigratetest.EgressNone}, nil, false, subnets.CodeNoEgress},
		{"two zones", tgmigratetest.Move{}, []string{"us-east-1a", "us-east-1b"}, false, subnets.CodeZoneNotEnabled},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			w := newWorld(t, tgmigratetest.Options{Seed: uint64(10 + i), Nodes: 3, Pods: 6, ReadinessGateInjection: true, Move: &tt.move})
			if got := w.PublicNodes(); got != 3 {
				t.Errorf("PublicNodes() = %d at the start, want 3", got)
			}
			l := w.Legacy()
			env := cutover.Env{ELBv2: w.ELBv2(), EC2: w.EC2(), Client: w.Client(), Clock: w.Clock(), ClusterName: tgmigratetest.ClusterName, ClusterVPCID: w.VPCID()}
			plan, err := cutover.PlanCutover(ctx, env, cutover.Request{TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace,
				Service: l.Service, Port: intstr.FromString(l.PortName), Assumptions: w.Assumptions()})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cutover.Execute(ctx, env, plan); err != nil {
				t.Fatal(err)
			}
			if tt.zones != nil {
				if err := w.EnableZones(tt.zones...); err != nil {
					t.Fatal(err)
				}
			}
			r, err := subnets.CheckReadiness(ctx, subnets.Input{Cluster: tgmigratetest.ClusterName, AccountID: tgmigratetest.AccountID,
				Region: tgmigratetest.Region, VPCID: w.VPCID(), Reader: w.Client(), EC2: w.EC2(), ELBv2: w.ELBv2Read()}, subnets.WithClock(w.Clock()))
			if err != nil {
				t.Fatal(err)
			}
			var codes []diagnose.Code
			for _, f := range r.Findings {
				codes = append(codes, f.Code)
			}
			if r.Ready != tt.ready || (tt.code != "" && !slices.Contains(codes, tt.code)) {
				t.Errorf("Ready %v with %v; want %v with %q", r.Ready, codes, tt.ready, tt.code)
			}
		})
	}
}

// TestWire: with Options.Wire the code under test's clients are the real
// SDK's (the read-only ones hiding the writes still), their calls are
// counted at the endpoint, a throttled call is retried by the SDK as
// Wire.MaxAttempts says, and Close may be called twice.
func TestWire(t *testing.T) {
	for _, tt := range []struct {
		attempts, calls int // calls: of one call throttled once
	}{{0, 2}, {1, 1}} {
		w := newWorld(t, tgmigratetest.Options{Seed: 1, Nodes: 2, Pods: 2, Wire: &tgmigratetest.Wire{MaxAttempts: tt.attempts}})
		if _, ok := w.ELBv2().(*elbv2.Client); !ok {
			t.Errorf("ELBv2() is %T, want *elasticloadbalancingv2.Client", w.ELBv2())
		}
		if _, ok := w.ServiceQuotas().(*servicequotas.Client); !ok {
			t.Errorf("ServiceQuotas() is %T, want *servicequotas.Client", w.ServiceQuotas())
		}
		if _, ok := w.ELBv2Read().(tgmigrate.TargetWriter); ok {
			t.Error("ELBv2Read() is a TargetWriter")
		}
		if err := w.Inject(tgmigratetest.Fault{Op: "DescribeTargetGroups", Code: tgmigratetest.Throttling}); err != nil {
			t.Fatal(err)
		}
		_, err := w.ELBv2Read().DescribeTargetGroups(t.Context(), &elbv2.DescribeTargetGroupsInput{})
		if got := w.Calls()["DescribeTargetGroups"]; got != tt.calls || (tt.attempts == 1) != (errCode(err) == "Throttling") {
			t.Errorf("MaxAttempts %d: %d requests, error %v; want %d", tt.attempts, got, err, tt.calls)
		}
		w.Close()
		w.Close()
	}
}

// TestNewWorldBadStepOptions: a bad Move or Wire is an *OptionsError
// naming its field, and no world.
func TestNewWorldBadStepOptions(t *testing.T) {
	tests := []struct {
		name  string
		opts  tgmigratetest.Options
		field string
	}{
		{"egress", tgmigratetest.Options{Move: &tgmigratetest.Move{Egress: "vpn"}}, "Move.Egress"},
		{"negative attempts", tgmigratetest.Options{Wire: &tgmigratetest.Wire{MaxAttempts: -1}}, "Wire.MaxAttempts"},
		{"too many attempts", tgmigratetest.Options{Wire: &tgmigratetest.Wire{MaxAttempts: 11}}, "Wire.MaxAttempts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := tgmigratetest.NewWorld(t.Context(), tt.opts)
			var oe *tgmigratetest.OptionsError
			if w != nil || !errors.As(err, &oe) || !errors.Is(err, tgmigratetest.ErrInvalidOptions) {
				t.Fatalf("NewWorld() = %v, %v; want no world and an *OptionsError", w, err)
			}
			if oe.Field != tt.field || oe.Op != "new world" || !strings.Contains(err.Error(), tt.field) {
				t.Errorf("error %q names %s, want %s", err, oe.Field, tt.field)
			}
		})
	}
}

// TestEnableZonesRefused: EnableZones refuses by field what no ALB
// takes, and a world of steps 1 to 3; the load balancer's zones are then
// unchanged (every node target still in use).
func TestEnableZonesRefused(t *testing.T) {
	move := newWorld(t, tgmigratetest.Options{Seed: 1, Nodes: 3, Pods: 3, Move: &tgmigratetest.Move{}})
	plain := newWorld(t, tgmigratetest.Options{Seed: 1, Nodes: 3, Pods: 3})
	for _, tt := range []struct {
		name  string
		w     *tgmigratetest.World
		zones []string
		field string
	}{
		{"one zone", move, []string{"us-east-1a"}, "zones"},
		{"zone twice", move, []string{"us-east-1a", "us-east-1a"}, "zones"},
		{"unknown zone", move, []string{"us-east-1a", "eu-west-1a"}, "zones"},
		{"not a step-4 world", plain, []string{"us-east-1a", "us-east-1b"}, "Move"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.w.EnableZones(tt.zones...)
			var oe *tgmigratetest.OptionsError
			if !errors.As(err, &oe) || oe.Field != tt.field || oe.Op != "enable zones" {
				t.Fatalf("EnableZones(%v) = %v, want an *OptionsError of %s", tt.zones, err, tt.field)
			}
		})
	}
	move.Run(time.Minute)
	if r := move.Requests(); r.Failed != 0 {
		t.Errorf("%d requests failed after the refused changes", r.Failed)
	}
	if err := move.EnableZones(); err != nil {
		t.Errorf("EnableZones() (every zone) = %v", err)
	}
}

// TestEgressIsTheSimulators: the kit's Egress values, literals so that no
// public declaration names the simulator, are the simulator's own.
func TestEgressIsTheSimulators(t *testing.T) {
	for kit, internal := range map[tgmigratetest.Egress]string{tgmigratetest.EgressNAT: sim.EgressNAT, tgmigratetest.EgressEndpoints: sim.EgressEndpoints, tgmigratetest.EgressNone: sim.EgressNone} {
		if string(kit) != internal {
			t.Errorf("tgmigratetest's %q is the simulator's %q", kit, internal)
		}
	}
}
