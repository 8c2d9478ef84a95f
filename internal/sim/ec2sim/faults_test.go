package ec2sim_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
)

func revokeIDs(group string, ids ...string) *ec2.RevokeSecurityGroupIngressInput {
	return &ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String(group), SecurityGroupRuleIds: ids}
}

func describe(t *testing.T, c *ec2sim.Client) error {
	t.Helper()
	_, err := c.DescribeSecurityGroups(t.Context(), &ec2.DescribeSecurityGroupsInput{})
	return err
}

func TestReadyMadeErrors(t *testing.T) {
	tests := []struct {
		err    error
		code   string
		fault  smithy.ErrorFault
		prefix string
	}{
		{ec2sim.ErrUnauthorized("DescribeVpcs"), "UnauthorizedOperation", smithy.FaultClient, "You are not authorized to perform this operation."},
		{ec2sim.ErrThrottled(), "RequestLimitExceeded", smithy.FaultClient, "Request limit exceeded."},
		{ec2sim.ErrUnavailable(), "Unavailable", smithy.FaultServer, ""},
		{ec2sim.ErrInternal(), "InternalError", smithy.FaultServer, ""},
	}
	for _, tt := range tests {
		var api smithy.APIError
		if !errors.As(tt.err, &api) || api.ErrorCode() != tt.code || api.ErrorFault() != tt.fault || !strings.HasPrefix(api.ErrorMessage(), tt.prefix) {
			t.Errorf("%v: want %s, %v, %q", tt.err, tt.code, tt.fault, tt.prefix)
		}
	}
	if !ec2sim.IsCode(fmt.Errorf("wrapped: %w", ec2sim.ErrThrottled()), ec2sim.CodeRequestLimitExceeded) || ec2sim.IsCode(errors.New("plain"), "") {
		t.Error("IsCode")
	}
	if msg := ec2sim.ErrUnauthorized("").(smithy.APIError).ErrorMessage(); msg != ec2sim.UnauthorizedMessage {
		t.Errorf("message %q", msg)
	}
}

func TestFaults(t *testing.T) {
	w := newWorld(t)
	// Persistent: every call fails, with no effect, until cleared.
	must(t, w.c.Fail(ec2sim.OpAuthorizeSecurityGroupIngress, ec2sim.ErrUnauthorized(ec2sim.OpAuthorizeSecurityGroupIngress)))
	in := &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-lb"), IpPermissions: []ec2types.IpPermission{tcp(443, 443, cidrs("0.0.0.0/0"))}}
	for range 3 {
		if _, err := w.c.AuthorizeSecurityGroupIngress(t.Context(), in); code(err) != ec2sim.CodeUnauthorizedOperation {
			t.Fatalf("error %v", err)
		}
	}
	if g, _ := w.m.SecurityGroup("sg-lb"); len(g.IpPermissions) != 0 {
		t.Errorf("a faulted call took effect: %+v", g.IpPermissions)
	}
	// Other operations are unaffected.
	if err := describe(t, w.c); err != nil {
		t.Error(err)
	}
	// A DryRun with the fault answers UnauthorizedOperation, not DryRunOperation.
	dry := *in
	dry.DryRun = aws.Bool(true)
	if _, err := w.c.AuthorizeSecurityGroupIngress(t.Context(), &dry); code(err) != ec2sim.CodeUnauthorizedOperation {
		t.Errorf("dry run: %v", err)
	}
	w.c.Clear(ec2sim.OpAuthorizeSecurityGroupIngress)
	if _, err := w.c.AuthorizeSecurityGroupIngress(t.Context(), &dry); code(err) != ec2sim.CodeDryRunOperation {
		t.Errorf("dry run: %v", err)
	}
	if _, err := w.c.AuthorizeSecurityGroupIngress(t.Context(), in); err != nil {
		t.Errorf("after Clear: %v", err)
	}

	// Next N: two throttles, then one outage, then success; a persistent
	// fault fires after them.
	must(t, w.c.FailNext(ec2sim.OpDescribeSecurityGroups, 2, ec2sim.ErrThrottled()))
	must(t, w.c.FailNext(ec2sim.OpDescribeSecurityGroups, 1, ec2sim.ErrUnavailable()))
	var got []string
	for range 4 {
		got = append(got, code(describe(t, w.c)))
	}
	must(t, w.c.Fail(ec2sim.OpDescribeSecurityGroups, ec2sim.ErrInternal()))
	must(t, w.c.FailNext(ec2sim.OpDescribeSecurityGroups, 1, ec2sim.ErrThrottled()))
	for range 2 {
		got = append(got, code(describe(t, w.c)))
	}
	w.c.Clear("")
	got = append(got, code(describe(t, w.c)))
	want := []string{"RequestLimitExceeded", "RequestLimitExceeded", "Unavailable", "", "RequestLimitExceeded", "InternalError", ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
	wantCounts := map[string]int{ec2sim.OpAuthorizeSecurityGroupIngress: 6, ec2sim.OpDescribeSecurityGroups: 8}
	if diff := cmp.Diff(wantCounts, w.c.Counts()); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	w.c.ResetCounts()
	if n := len(w.c.Counts()); n != 0 {
		t.Errorf("%d counts after reset", n)
	}
}

// TestFaultsArePerClient: two clients of one model count and fail apart.
func TestFaultsArePerClient(t *testing.T) {
	w := newWorld(t)
	other, err := ec2sim.NewClient(w.m)
	must(t, err)
	must(t, w.c.Fail(ec2sim.OpDescribeSecurityGroups, ec2sim.ErrUnavailable()))
	if err := describe(t, other); err != nil {
		t.Error(err)
	}
	if w.c.Counts()[ec2sim.OpDescribeSecurityGroups] != 0 || other.Counts()[ec2sim.OpDescribeSecurityGroups] != 1 {
		t.Errorf("counts %v %v", w.c.Counts(), other.Counts())
	}
}

func TestBadArguments(t *testing.T) {
	w := newWorld(t)
	for _, err := range []error{
		w.c.Fail("RunInstances", ec2sim.ErrThrottled()),
		w.c.Fail(ec2sim.OpDescribeVpcs, nil),
		w.c.FailNext(ec2sim.OpDescribeVpcs, 0, ec2sim.ErrThrottled()),
		w.c.FailNext("", 1, ec2sim.ErrThrottled()),
	} {
		var oe *ec2sim.OptionsError
		if !errors.As(err, &oe) || !errors.Is(err, ec2sim.ErrInvalidOptions) {
			t.Errorf("%v is not an OptionsError", err)
		}
	}
	if _, err := ec2sim.NewClient(nil); !errors.Is(err, ec2sim.ErrInvalidOptions) {
		t.Errorf("NewClient(nil): %v", err)
	}
	for _, o := range []ec2sim.Options{{AccountID: "12"}, {Region: "Mars"}} {
		if _, err := ec2sim.New(o); !errors.Is(err, ec2sim.ErrInvalidOptions) {
			t.Errorf("New(%+v): %v", o, err)
		}
	}
	for _, err := range []error{
		w.m.AddVPC("vpc-1", "10.2.0.0/16"),
		w.m.AddVPC("vpc-3", "10.2.0.0"),
		w.m.AddVPC("vpc-3", "fd00::/8"),
		w.m.AddVPC("net-3", "10.2.0.0/16"),
	} {
		if !errors.Is(err, ec2sim.ErrInvalidOptions) {
			t.Errorf("AddVPC: %v", err)
		}
	}
	for _, spec := range []ec2sim.SecurityGroupSpec{
		{Name: "x", VpcID: "vpc-9"},
		{VpcID: "vpc-1"},
		{Name: "app", VpcID: "vpc-1"},
		{ID: "sg-app", Name: "y", VpcID: "vpc-1"},
		{ID: "group", Name: "y", VpcID: "vpc-1"},
	} {
		if _, err := w.m.AddSecurityGroup(spec); !errors.Is(err, ec2sim.ErrInvalidOptions) {
			t.Errorf("AddSecurityGroup(%+v): %v", spec, err)
		}
	}
	// A name may repeat in another VPC.
	if _, err := w.m.AddSecurityGroup(ec2sim.SecurityGroupSpec{Name: "app", VpcID: "vpc-2"}); err != nil {
		t.Error(err)
	}
}

// TestNilReceivers: errors, not panics.
func TestNilReceivers(t *testing.T) {
	var c *ec2sim.Client
	ctx := t.Context()
	var errs []error
	_, err := c.DescribeVpcs(ctx, nil)
	errs = append(errs, err)
	_, err = c.DescribeSecurityGroups(ctx, nil)
	errs = append(errs, err)
	_, err = c.AuthorizeSecurityGroupIngress(ctx, nil)
	errs = append(errs, err)
	_, err = c.RevokeSecurityGroupIngress(ctx, nil)
	errs = append(errs, err)
	_, err = c.DescribeNetworkInterfaces(ctx, nil)
	errs = append(errs, err)
	errs = append(errs, c.Fail(ec2sim.OpDescribeVpcs, ec2sim.ErrThrottled()), c.FailNext(ec2sim.OpDescribeVpcs, 1, ec2sim.ErrThrottled()))
	for i, err := range errs {
		if !errors.Is(err, ec2sim.ErrNilClient) {
			t.Errorf("%d: %v", i, err)
		}
	}
	c.Clear("")
	c.ResetCounts()
	if c.Counts() == nil || c.Model() != nil {
		t.Error("nil client's Counts or Model")
	}
	var m *ec2sim.Model
	if ok, _ := m.Allows(ec2sim.Source{}, []string{"sg-1"}, "tcp", 1); ok {
		t.Error("a nil model allows")
	}
	if _, err := m.Authorize("sg-1"); !errors.Is(err, ec2sim.ErrNilModel) {
		t.Error(err)
	}
	m.SetInterfaceSource(ec2sim.InterfaceFunc(nil))
}

// TestCanceledContext: a canceled call fails with the context's cause and
// has no effect.
func TestCanceledContext(t *testing.T) {
	w := newWorld(t)
	ctx, cancel := context.WithCancelCause(t.Context())
	cause := errors.New("the test gave up")
	cancel(cause)
	_, err := w.c.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-lb"), IpPermissions: []ec2types.IpPermission{tcp(1, 1, cidrs("10.0.0.0/8"))}})
	if !errors.Is(err, cause) {
		t.Errorf("error %v", err)
	}
	if g, _ := w.m.SecurityGroup("sg-lb"); len(g.IpPermissions) != 0 {
		t.Error("a canceled call took effect")
	}
}

// TestConcurrentUse runs authorizes, revokes, describes, Allows and faults
// from many goroutines; run with -race.
func TestConcurrentUse(t *testing.T) {
	w := newWorld(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			port := int32(1000 + i)
			perm := tcp(port, port, pairs("sg-lb", fmt.Sprint("worker ", i)))
			for range 50 {
				if _, err := w.c.AuthorizeSecurityGroupIngress(t.Context(), &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-app"), IpPermissions: []ec2types.IpPermission{perm}}); err != nil {
					t.Error(err)
					return
				}
				if ok, why := w.m.Allows(ec2sim.Source{GroupIDs: []string{"sg-lb"}}, []string{"sg-app"}, "tcp", port); !ok {
					t.Error(why)
					return
				}
				if _, err := w.c.DescribeSecurityGroups(t.Context(), &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{filter("ip-permission.from-port", fmt.Sprint(port))}}); err != nil {
					t.Error(err)
					return
				}
				if _, err := w.c.RevokeSecurityGroupIngress(t.Context(), &ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String("sg-app"), IpPermissions: []ec2types.IpPermission{perm}}); err != nil {
					t.Error(err)
					return
				}
				_ = w.c.FailNext(ec2sim.OpDescribeVpcs, 1, ec2sim.ErrThrottled())
				_, _ = w.c.DescribeVpcs(t.Context(), nil)
				_ = w.c.Counts()
			}
		})
	}
	wg.Wait()
	if got := w.c.Counts()[ec2sim.OpAuthorizeSecurityGroupIngress]; got != 400 {
		t.Errorf("%d authorizes counted, want 400", got)
	}
	if diff := cmp.Diff([]string{"tcp 8080-8080 sg-lb", "tcp 30000-32767 10.0.0.0/16"}, ingress(t, w.m, "sg-app")); diff != "" {
		t.Errorf("rules left (-want +got):\n%s", diff)
	}
}
