package tgmigratetest_test

// faults_test.go: World.Inject on EC2 and Service Quotas operations, on
// the Go clients and over the wire: each fault answers with the service's
// own code, fires as many times as armed on its operation only, and a bad
// fault is refused by field.

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	sqtypes "github.com/aws/aws-sdk-go-v2/service/servicequotas/types"
	"github.com/aws/smithy-go"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// errCode is the AWS error code of err, "" for none.
func errCode(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return ""
}

// TestInjectEC2AndServiceQuotas: a Throttling or AccessDenied fault on an
// EC2 or Service Quotas operation answers the next calls of it with the
// code that service uses (RequestLimitExceeded, UnauthorizedOperation,
// TooManyRequestsException, AccessDeniedException, the last two as the
// SDK's typed exceptions), then the operation answers again; the calls
// are counted, and another operation is untouched. Over the wire, with
// the SDK's retries off, the real clients read the same codes back.
func TestInjectEC2AndServiceQuotas(t *testing.T) {
	ctx := t.Context()
	sgs := func(w *tgmigratetest.World) error {
		_, err := w.EC2().DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{})
		return err
	}
	enis := func(w *tgmigratetest.World) error {
		_, err := w.EC2().DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{})
		return err
	}
	applied := func(w *tgmigratetest.World) error {
		_, err := w.ServiceQuotas().GetServiceQuota(ctx, &servicequotas.GetServiceQuotaInput{
			ServiceCode: aws.String("elasticloadbalancing"), QuotaCode: aws.String(tgmigratetest.QuotaTargetsPerTargetGroup)})
		return err
	}
	defaults := func(w *tgmigratetest.World) error {
		_, err := w.ServiceQuotas().GetAWSDefaultServiceQuota(ctx, &servicequotas.GetAWSDefaultServiceQuotaInput{
			ServiceCode: aws.String("elasticloadbalancing"), QuotaCode: aws.String(tgmigratetest.QuotaTargetsPerNLB)})
		return err
	}
	tests := []struct {
		name      string
		fault     tgmigratetest.Fault
		call      func(*tgmigratetest.World) error // the faulted operation
		other     func(*tgmigratetest.World) error // an operation of the same service
		code      string
		typed     func(error) bool // the SDK's typed exception, when it has one
		callsOfOp int
	}{
		{name: "EC2 throttling", fault: tgmigratetest.Fault{Op: "DescribeSecurityGroups", Code: tgmigratetest.Throttling, Times: 2},
			call: sgs, other: enis, code: "RequestLimitExceeded"},
		{name: "EC2 denied", fault: tgmigratetest.Fault{Op: "DescribeNetworkInterfaces", Code: tgmigratetest.AccessDenied},
			call: enis, other: sgs, code: "UnauthorizedOperation"},
		{name: "Service Quotas throttling", fault: tgmigratetest.Fault{Op: "GetServiceQuota", Code: tgmigratetest.Throttling, Times: 2},
			call: applied, other: defaults, code: "TooManyRequestsException",
			typed: func(err error) bool { var e *sqtypes.TooManyRequestsException; return errors.As(err, &e) }},
		{name: "Service Quotas denied", fault: tgmigratetest.Fault{Op: "GetAWSDefaultServiceQuota", Code: tgmigratetest.AccessDenied},
			call: defaults, other: applied, code: "AccessDeniedException",
			typed: func(err error) bool { var e *sqtypes.AccessDeniedException; return errors.As(err, &e) }},
	}
	for _, wire := range []bool{false, true} {
		for _, tt := range tests {
			name := tt.name
			if wire {
				name += " over the wire"
			}
			t.Run(name, func(t *testing.T) {
				opts := tgmigratetest.Options{Seed: 1, Nodes: 2, Pods: 2}
				if wire {
					opts.Wire = &tgmigratetest.Wire{MaxAttempts: 1}
				}
				w := newWorld(t, opts)
				t.Cleanup(w.Close)
				if err := w.Inject(tt.fault); err != nil {
					t.Fatal(err)
				}
				times := max(tt.fault.Times, 1)
				if err := tt.other(w); err != nil {
					t.Errorf("another operation of the service: %v, want no fault", err)
				}
				for i := range times {
					err := tt.call(w)
					if errCode(err) != tt.code {
						t.Errorf("call %d: %v, want code %s", i+1, err, tt.code)
					}
					if tt.typed != nil && !tt.typed(err) {
						t.Errorf("call %d: %T %v is not the SDK's typed exception", i+1, err, err)
					}
				}
				if err := tt.call(w); err != nil {
					t.Errorf("call %d, after the fault: %v", times+1, err)
				}
				if got := w.Calls()[tt.fault.Op]; got != times+1 {
					t.Errorf("Calls()[%s] = %d, want %d", tt.fault.Op, got, times+1)
				}
			})
		}
	}
}

// TestInjectEC2IntoCutover: cutover's security-group check retries a
// throttled EC2 read and checks all the same; denied, the plan says the
// check did not run and why.
func TestInjectEC2IntoCutover(t *testing.T) {
	plan := func(t *testing.T, f *tgmigratetest.Fault) *cutover.Plan {
		w := newWorld(t, tgmigratetest.Options{Seed: 1, Nodes: 3, Pods: 6, ReadinessGateInjection: true})
		if f != nil {
			if err := w.Inject(*f); err != nil {
				t.Fatal(err)
			}
		}
		l := w.Legacy()
		env := cutover.ReadEnv{ELBv2: w.ELBv2Read(), EC2: w.EC2(), Client: w.Client(), Clock: w.Clock(), ClusterVPCID: w.VPCID()}
		p, err := cutover.PlanCutover(context.Background(), env, cutover.Request{TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace,
			Service: l.Service, Port: intstr.FromString(l.PortName), Assumptions: w.Assumptions()})
		if err != nil {
			t.Fatalf("PlanCutover() = %v", err)
		}
		if p.Network == nil {
			t.Fatal("the plan has no security-group check")
		}
		return p
	}
	if p := plan(t, nil); !p.Network.Checked || !p.Network.Allowed {
		t.Errorf("no fault: network %+v, want checked and allowed", p.Network)
	}
	if p := plan(t, &tgmigratetest.Fault{Op: "DescribeSecurityGroups", Code: tgmigratetest.Throttling, Times: 2}); !p.Network.Checked || !p.Network.Allowed {
		t.Errorf("throttled twice: network %+v, want checked and allowed", p.Network)
	}
	if p := plan(t, &tgmigratetest.Fault{Op: "DescribeNetworkInterfaces", Code: tgmigratetest.AccessDenied}); p.Network.Checked || p.Network.Note == "" {
		t.Errorf("denied: network %+v, want not checked, with a note", p.Network)
	}
}

// TestInjectRefusesBadFaults: a fault no operation of the world's
// services takes is an *OptionsError naming its field, and nothing is
// armed.
func TestInjectRefusesBadFaults(t *testing.T) {
	w := newWorld(t, tgmigratetest.Options{Seed: 1, Nodes: 2, Pods: 2})
	tg := w.Legacy().TargetGroupARN
	for _, tt := range []struct {
		name  string
		f     tgmigratetest.Fault
		field string
	}{
		{"unknown op", tgmigratetest.Fault{Op: "RunInstances", Code: tgmigratetest.Throttling}, "Fault.Op"},
		{"write of EC2", tgmigratetest.Fault{Op: "AuthorizeSecurityGroupIngress", Code: tgmigratetest.Throttling}, "Fault.Op"},
		{"EC2 code", tgmigratetest.Fault{Op: "DescribeSubnets", Code: "RequestLimitExceeded"}, "Fault.Code"},
		{"EC2 times", tgmigratetest.Fault{Op: "DescribeSubnets", Code: tgmigratetest.Throttling, Times: -2}, "Fault.Times"},
		{"EC2 target group", tgmigratetest.Fault{Op: "DescribeSecurityGroups", Code: tgmigratetest.AccessDenied, TargetGroup: tg}, "Fault.TargetGroup"},
		{"quota target group", tgmigratetest.Fault{Op: "GetServiceQuota", Code: tgmigratetest.Throttling, TargetGroup: tg}, "Fault.TargetGroup"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := w.Inject(tt.f)
			var oe *tgmigratetest.OptionsError
			if !errors.As(err, &oe) || oe.Field != tt.field || oe.Op != "inject" || !errors.Is(err, tgmigratetest.ErrInvalidOptions) {
				t.Fatalf("Inject(%+v) = %v, want an *OptionsError of %s", tt.f, err, tt.field)
			}
		})
	}
	if _, err := w.EC2().DescribeSecurityGroups(t.Context(), &ec2.DescribeSecurityGroupsInput{}); err != nil {
		t.Errorf("a refused fault was armed: %v", err)
	}
	if _, err := w.ServiceQuotas().GetServiceQuota(t.Context(), &servicequotas.GetServiceQuotaInput{
		ServiceCode: aws.String("elasticloadbalancing"), QuotaCode: aws.String(tgmigratetest.QuotaTargetsPerALB)}); err != nil {
		t.Errorf("a refused fault was armed: %v", err)
	}
}
