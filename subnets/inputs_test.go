package subnets_test

// inputs_test.go: bad input refused before any call; the estimate's
// arithmetic; partial permissions; a Karpenter kind not served; the end
// of ctx.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"golang.org/x/time/rate"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/karpenterapi"
	"github.com/qstools/tgmigrate/internal/vclock"
	"github.com/qstools/tgmigrate/subnets"
)

func TestBadInputMakesNoCall(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*subnets.Input)
		opts  []subnets.Option
		field string
	}{
		{"no cluster name", func(in *subnets.Input) { in.Cluster = "" }, nil, "Input.Cluster"},
		{"a bad account", func(in *subnets.Input) { in.AccountID = "1234" }, nil, "Input.AccountID"},
		{"a bad Region", func(in *subnets.Input) { in.Region = "Europe" }, nil, "Input.Region"},
		{"a malformed VPC ID", func(in *subnets.Input) { in.VPCID = "vpc_1" }, nil, "Input.VPCID"},
		{"no reader", func(in *subnets.Input) { in.Reader = nil }, nil, "Input.Reader"},
		{"a typed-nil reader", func(in *subnets.Input) { in.Reader = client.Reader((client.Client)(nil)) }, nil, "Input.Reader"},
		{"no EC2", func(in *subnets.Input) { in.EC2 = nil }, nil, "Input.EC2"},
		{"a typed-nil EC2", func(in *subnets.Input) { in.EC2 = (*ec2.Client)(nil) }, nil, "Input.EC2"},
		{"no ELBv2", func(in *subnets.Input) { in.ELBv2 = nil }, nil, "Input.ELBv2"},
		{"an empty selector term", func(in *subnets.Input) { in.PrivateSubnets = []karpenterapi.SelectorTerm{{ID: "subnet-1"}, {}} }, nil, "Input.PrivateSubnets[1]"},
		{"a term with an id and tags", func(in *subnets.Input) {
			in.PrivateSubnets = []karpenterapi.SelectorTerm{{ID: "subnet-1", Tags: map[string]string{"a": "b"}}}
		}, nil, "Input.PrivateSubnets[0]"},
		{"an empty tag key", func(in *subnets.Input) {
			in.PrivateSubnets = []karpenterapi.SelectorTerm{{Tags: map[string]string{"": "b"}}}
		}, nil, "Input.PrivateSubnets[0].Tags"},
		{"an empty node class", func(in *subnets.Input) { in.NodeClasses = []string{""} }, nil, "Input.NodeClasses[0]"},
		{"a negative launch time", func(in *subnets.Input) { in.LaunchTime = -time.Second }, nil, "Input.LaunchTime"},
		{"a bad extra account", func(in *subnets.Input) {
			in.Accounts = []diagnose.Account{{ID: "222233334444", Region: region, ELBv2: in.ELBv2}, {ID: "x", Region: region, ELBv2: in.ELBv2}}
		}, nil, "Input.Accounts[1].ID"},
		{"a nil clock", nil, []subnets.Option{subnets.WithClock(nil)}, "WithClock"},
		{"a zero rate", nil, []subnets.Option{subnets.WithRateLimit(0, 1)}, "WithRateLimit"},
		{"no attempts", nil, []subnets.Option{subnets.WithMaxAttempts(0)}, "WithMaxAttempts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld()
			in := w.input(t)
			if tt.edit != nil {
				tt.edit(&in)
			}
			_, err := subnets.CheckReadiness(t.Context(), in, tt.opts...)
			var ie *subnets.InputError
			if !errors.As(err, &ie) || ie.Field != tt.field || ie.Op != "CheckReadiness" || !errors.Is(err, subnets.ErrInvalidInput) {
				t.Fatalf("err = %v, want an *InputError on %s", err, tt.field)
			}
			if n := w.ec2.total() + w.elb.total() + w.lists; n != 0 {
				t.Errorf("%d calls made before the input was refused (EC2 %v, ELBv2 %v, lists %d)", n, w.ec2.Calls, w.elb.Calls, w.lists)
			}
		})
	}
}

func TestEstimate(t *testing.T) {
	tests := []struct {
		name          string
		nodes         int
		budgets       []map[string]any
		launch, drain time.Duration
		allowed       int
		waves         int
		duration      time.Duration
	}{
		{"the default budget, 10% rounded up", 25, nil, time.Minute, 2 * time.Minute, 3, 9, 27 * time.Minute},
		{"a count", 7, []map[string]any{{"nodes": "2"}}, 0, 0, 2, 4, 4 * (subnets.DefaultLaunchTime + subnets.DefaultDrainTime)},
		{"the smallest budget for Drifted", 10, []map[string]any{{"nodes": "50%"}, {"nodes": "3", "reasons": []any{"Drifted"}}, {"nodes": "1", "reasons": []any{"Empty"}}},
			time.Minute, time.Minute, 3, 4, 8 * time.Minute},
		{"all at once", 4, []map[string]any{{"nodes": "100%"}}, time.Minute, time.Minute, 4, 1, 2 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld()
			w.ec2.Subnets[2].AvailableIpAddressCount = ptr32(1000)
			w.ec2.Subnets[3].AvailableIpAddressCount = ptr32(1000)
			w.replace(nodePool("default", "default", tt.budgets...))
			for i := 2; i < tt.nodes; i++ {
				zone := zoneA
				if i%2 == 1 {
					zone = zoneB
				}
				w.objs = append(w.objs, node(fmt.Sprintf("n%d", i+1), zone, fmt.Sprintf("10.0.5.%d", 10+i), "default", false))
			}
			rep := check(t, w, func(in *subnets.Input) { in.LaunchTime, in.DrainTime = tt.launch, tt.drain })
			e := rep.Estimate
			if rep.NodePools[0].AllowedDrift != tt.allowed || e.Nodes != tt.nodes || e.Waves != tt.waves || e.Duration != tt.duration {
				t.Errorf("allowed %d, estimate %+v; want allowed %d, %d nodes, %d waves, %v", rep.NodePools[0].AllowedDrift, e, tt.allowed, tt.nodes, tt.waves, tt.duration)
			}
			src := "given in Input"
			if tt.launch == 0 {
				src = "the default, DefaultLaunchTime"
			}
			if !strings.Contains(e.Assumptions[0], src) || len(e.Assumptions) != 5 {
				t.Errorf("assumptions = %q, want five, the launch time's source %q", e.Assumptions, src)
			}
		})
	}
}

func ptr32(v int32) *int32 { return &v }

func TestPartialPermissions(t *testing.T) {
	t.Run("DescribeVpcEndpoints refused", func(t *testing.T) {
		w := newWorld()
		w.ec2.Fail = map[string]string{"DescribeVpcEndpoints": "UnauthorizedOperation"}
		w.ec2.RouteTables[2] = table("rtb-priv-a", false, []string{"subnet-priv-a"}) // no NAT: egress rests on the endpoints
		w.elb.LBs[0].AvailabilityZones = w.elb.LBs[0].AvailabilityZones[:1]
		rep := check(t, w, nil)
		if !hasNote(rep, "the VPC's endpoints (ec2:DescribeVpcEndpoints): a subnet without a NAT route is not judged on its endpoints not read (access-denied") {
			t.Errorf("notes = %q, want the refused read named", rep.Notes)
		}
		findingOf(t, rep, subnets.CodeZoneNotEnabled) // the other checks still ran
		if rep.PrivateSubnets[0].Egress != "" || len(rep.Zones) != 2 || rep.Estimate.Nodes != 2 {
			t.Errorf("subnets %+v, zones %+v, estimate %+v: want egress unjudged and the rest checked", rep.PrivateSubnets, rep.Zones, rep.Estimate)
		}
	})
	t.Run("DescribeSecurityGroups refused", func(t *testing.T) {
		w := newWorld()
		w.ec2.Fail = map[string]string{"DescribeSecurityGroups": "UnauthorizedOperation"}
		rep := check(t, w, nil)
		if !rep.Ready || !hasNote(rep, "ec2:DescribeSecurityGroups") {
			t.Errorf("Ready = %v, findings %v, notes %q: want a note and the rest ready", rep.Ready, codes(rep), rep.Notes)
		}
	})
	t.Run("DescribeLoadBalancers refused", func(t *testing.T) {
		w := newWorld()
		w.elb.Fail = map[string]string{"DescribeLoadBalancers": "AccessDenied"}
		rep := check(t, w, nil)
		if !hasNote(rep, "their zones and security groups are not judged") || len(rep.TargetGroups) != 1 {
			t.Errorf("notes %q, target groups %+v: want a note and the target group still reported", rep.Notes, rep.TargetGroups)
		}
	})
}

func TestKarpenterNotServed(t *testing.T) {
	w := newWorld()
	w.noKarp = true
	rep := check(t, w, nil)
	if len(rep.NodeClasses) != 0 || len(rep.NodePools) != 0 || rep.Estimate.Waves != 0 {
		t.Errorf("node classes %+v, pools %+v, estimate %+v: want none", rep.NodeClasses, rep.NodePools, rep.Estimate)
	}
	if !hasNote(rep, "ec2nodeclasses (karpenter.k8s.aws/v1) are not served") || !hasNote(rep, "nodepools (karpenter.sh/v1) are not served") {
		t.Errorf("notes = %q, want both kinds said not served", rep.Notes)
	}
	if len(rep.Zones) != 2 || len(rep.TargetGroups) != 1 {
		t.Errorf("zones %+v, target groups %+v: the other checks still run", rep.Zones, rep.TargetGroups)
	}
}

func TestNodeClassesRestrict(t *testing.T) {
	rep := check(t, newWorld(), func(in *subnets.Input) { in.NodeClasses = []string{"other"} })
	if len(rep.NodeClasses) != 0 || !hasNote(rep, "EC2NodeClass other, named in Input.NodeClasses, was not found") {
		t.Errorf("node classes %+v, notes %q", rep.NodeClasses, rep.Notes)
	}
}

func TestEndedContext(t *testing.T) {
	w := newWorld()
	ctx, cancel := context.WithCancelCause(t.Context())
	cause := errors.New("operator stopped it")
	cancel(cause)
	_, err := subnets.CheckReadiness(ctx, w.input(t), subnets.WithClock(vclock.New(epoch)), subnets.WithRateLimit(rate.Inf, 0))
	if !errors.Is(err, context.Canceled) && !errors.Is(err, cause) {
		t.Errorf("err = %v, want the context's end", err)
	}
}
