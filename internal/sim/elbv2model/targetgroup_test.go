package elbv2model_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/vclock"
)

func TestNewValidatesOptions(t *testing.T) {
	clock := vclock.New(time.Time{})
	tests := []struct {
		name string
		opts elbv2model.Options
	}{
		{"no clock", elbv2model.Options{Network: newFakeNet()}},
		{"no network", elbv2model.Options{Clock: clock}},
		{"bad CIDR", elbv2model.Options{Clock: clock, Network: newFakeNet(), VPCs: map[string]string{"vpc-1": "10.0.0.0/33"}}},
		{"bad account", elbv2model.Options{Clock: clock, Network: newFakeNet(), AccountID: "42"}},
		{"bad region", elbv2model.Options{Clock: clock, Network: newFakeNet(), Region: "Mars"}},
		{"new-target checks above 10", elbv2model.Options{Clock: clock, Network: newFakeNet(), NewTargetChecks: 11}},
		{"negative new-target checks", elbv2model.Options{Clock: clock, Network: newFakeNet(), NewTargetChecks: -2}},
		{"negative deregistration lag", elbv2model.Options{Clock: clock, Network: newFakeNet(), DeregistrationLag: -time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := elbv2model.New(tt.opts)
			var oe *elbv2model.OptionsError
			if m != nil || !errors.As(err, &oe) || !errors.Is(err, elbv2model.ErrInvalidOptions) {
				t.Errorf("New = %v, %v; want an *OptionsError", m, err)
			}
		})
	}
}

func TestCreateTargetGroupDefaultsAndARN(t *testing.T) {
	w := newWorld(t, nil)
	out, err := w.model.CreateTargetGroup(&elbv2.CreateTargetGroupInput{
		Name: aws.String("legacy-tg"), TargetType: types.TargetTypeEnumIp, Protocol: types.ProtocolEnumHttp,
		Port: aws.Int32(30080), VpcId: aws.String(vpcID),
	})
	if err != nil {
		t.Fatal(err)
	}
	got := out.TargetGroups[0]
	a, err := awserr.ParseTargetGroupARN(*got.TargetGroupArn)
	if err != nil || a.Name != "legacy-tg" || a.AccountID != elbv2model.DefaultAccountID || a.Region != elbv2model.DefaultRegion {
		t.Errorf("ARN %s does not parse as this model's target group ARN: %v", *got.TargetGroupArn, err)
	}
	want := types.TargetGroup{
		TargetGroupArn: got.TargetGroupArn, TargetGroupName: aws.String("legacy-tg"), TargetType: types.TargetTypeEnumIp,
		Protocol: types.ProtocolEnumHttp, ProtocolVersion: aws.String("HTTP1"), Port: aws.Int32(30080), VpcId: aws.String(vpcID),
		IpAddressType: types.TargetGroupIpAddressTypeEnumIpv4, HealthCheckEnabled: aws.Bool(true),
		HealthCheckProtocol: types.ProtocolEnumHttp, HealthCheckPort: aws.String("traffic-port"), HealthCheckPath: aws.String("/"),
		HealthCheckIntervalSeconds: aws.Int32(30), HealthCheckTimeoutSeconds: aws.Int32(5),
		HealthyThresholdCount: aws.Int32(5), UnhealthyThresholdCount: aws.Int32(2),
		Matcher: &types.Matcher{HttpCode: aws.String("200")}, LoadBalancerArns: []string{},
	}
	if diff := cmp.Diff(want, got, cmpSDK); diff != "" {
		t.Errorf("created target group (-want +got):\n%s", diff)
	}
}

func TestCreateTargetGroupRejectsAndCreatesNothing(t *testing.T) {
	base := func() *elbv2.CreateTargetGroupInput {
		return &elbv2.CreateTargetGroupInput{
			Name: aws.String("new-tg"), TargetType: types.TargetTypeEnumIp, Protocol: types.ProtocolEnumHttp,
			Port: aws.Int32(8080), VpcId: aws.String(vpcID),
		}
	}
	tests := []struct {
		name string
		mod  func(*elbv2.CreateTargetGroupInput)
		code string
	}{
		{"no name", func(in *elbv2.CreateTargetGroupInput) { in.Name = nil }, "ValidationError"},
		{"bad name", func(in *elbv2.CreateTargetGroupInput) { in.Name = aws.String("-bad") }, "ValidationError"},
		{"internal- name", func(in *elbv2.CreateTargetGroupInput) { in.Name = aws.String("internal-x") }, "ValidationError"},
		{"33-character name", func(in *elbv2.CreateTargetGroupInput) { in.Name = aws.String("abcdefghijabcdefghijabcdefghijabc") }, "ValidationError"},
		{"interval 4", func(in *elbv2.CreateTargetGroupInput) { in.HealthCheckIntervalSeconds = aws.Int32(4) }, "ValidationError"},
		{"interval 301", func(in *elbv2.CreateTargetGroupInput) { in.HealthCheckIntervalSeconds = aws.Int32(301) }, "ValidationError"},
		{"timeout 1", func(in *elbv2.CreateTargetGroupInput) { in.HealthCheckTimeoutSeconds = aws.Int32(1) }, "ValidationError"},
		{"timeout not below interval", func(in *elbv2.CreateTargetGroupInput) {
			in.HealthCheckIntervalSeconds, in.HealthCheckTimeoutSeconds = aws.Int32(10), aws.Int32(10)
		}, "ValidationError"},
		{"healthy threshold 1", func(in *elbv2.CreateTargetGroupInput) { in.HealthyThresholdCount = aws.Int32(1) }, "ValidationError"},
		{"unhealthy threshold 11", func(in *elbv2.CreateTargetGroupInput) { in.UnhealthyThresholdCount = aws.Int32(11) }, "ValidationError"},
		{"matcher 500", func(in *elbv2.CreateTargetGroupInput) { in.Matcher = &types.Matcher{HttpCode: aws.String("500")} }, "ValidationError"},
		{"matcher garbage", func(in *elbv2.CreateTargetGroupInput) { in.Matcher = &types.Matcher{HttpCode: aws.String("2xx")} }, "ValidationError"},
		{"matcher reversed range", func(in *elbv2.CreateTargetGroupInput) { in.Matcher = &types.Matcher{HttpCode: aws.String("299-200")} }, "ValidationError"},
		{"health check port 0", func(in *elbv2.CreateTargetGroupInput) { in.HealthCheckPort = aws.String("0") }, "ValidationError"},
		{"health check path without /", func(in *elbv2.CreateTargetGroupInput) { in.HealthCheckPath = aws.String("healthz") }, "ValidationError"},
		{"health checks disabled", func(in *elbv2.CreateTargetGroupInput) { in.HealthCheckEnabled = aws.Bool(false) }, "InvalidConfigurationRequest"},
		{"TCP health check", func(in *elbv2.CreateTargetGroupInput) { in.HealthCheckProtocol = types.ProtocolEnumTcp }, "InvalidConfigurationRequest"},
		{"unknown VPC", func(in *elbv2.CreateTargetGroupInput) { in.VpcId = aws.String("vpc-9") }, "ValidationError"},
		{"no port", func(in *elbv2.CreateTargetGroupInput) { in.Port = nil }, "ValidationError"},
		{"port 0", func(in *elbv2.CreateTargetGroupInput) { in.Port = aws.Int32(0) }, "ValidationError"},
		{"lambda (not modelled)", func(in *elbv2.CreateTargetGroupInput) { in.TargetType = types.TargetTypeEnumLambda }, "ValidationError"},
		{"TCP (not modelled)", func(in *elbv2.CreateTargetGroupInput) { in.Protocol = types.ProtocolEnumTcp }, "ValidationError"},
		{"reserved tag key", func(in *elbv2.CreateTargetGroupInput) {
			in.Tags = []types.Tag{{Key: aws.String("aws:x"), Value: aws.String("v")}}
		}, "ValidationError"},
		{"duplicate tag key", func(in *elbv2.CreateTargetGroupInput) {
			in.Tags = []types.Tag{{Key: aws.String("k"), Value: aws.String("1")}, {Key: aws.String("k"), Value: aws.String("2")}}
		}, "DuplicateTagKeys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, nil)
			in := base()
			tt.mod(in)
			_, err := w.model.CreateTargetGroup(in)
			if got := code(err); got != tt.code {
				t.Fatalf("code %q (%v), want %q", got, err, tt.code)
			}
			if arns := w.model.TargetGroupARNs(); len(arns) != 0 {
				t.Errorf("a rejected call created %v", arns)
			}
		})
	}
}

func TestCreateTargetGroupIsIdempotentOnSameSettings(t *testing.T) {
	w := newWorld(t, nil)
	first := w.tg(t, "tg", nil)
	if again := w.tg(t, "tg", nil); again != first {
		t.Errorf("same settings: ARN %s, want the existing %s", again, first)
	}
	_, err := w.model.CreateTargetGroup(&elbv2.CreateTargetGroupInput{
		Name: aws.String("tg"), TargetType: types.TargetTypeEnumIp, Protocol: types.ProtocolEnumHttp,
		Port: aws.Int32(9999), VpcId: aws.String(vpcID),
	})
	if code(err) != "DuplicateTargetGroupName" {
		t.Errorf("other settings: %v, want DuplicateTargetGroupName", err)
	}
	if n := len(w.model.TargetGroupARNs()); n != 1 {
		t.Errorf("%d target groups, want 1", n)
	}
}

func TestDescribeTargetGroupsPaging(t *testing.T) {
	w := newWorld(t, nil)
	var all []string
	for i := range 7 {
		all = append(all, w.tg(t, fmt.Sprintf("tg-%d", i), nil))
	}
	var got []string
	var marker *string
	pages := 0
	for {
		out, err := w.model.DescribeTargetGroups(&elbv2.DescribeTargetGroupsInput{PageSize: aws.Int32(3), Marker: marker})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, tg := range out.TargetGroups {
			got = append(got, *tg.TargetGroupArn)
		}
		if out.NextMarker == nil {
			break
		}
		marker = out.NextMarker
		if pages == 2 {
			// A target group created between pages comes last and is not skipped.
			all = append(all, w.tg(t, "late", nil))
		}
	}
	if pages != 3 {
		t.Errorf("%d pages of 3 for 8 target groups, want 3", pages)
	}
	if diff := cmp.Diff(all, got); diff != "" {
		t.Errorf("paged listing (-want +got):\n%s", diff)
	}

	// The SDK's paginator drives the model through a one-method adapter.
	p := elbv2.NewDescribeTargetGroupsPaginator(describeTGFunc(w.model.DescribeTargetGroups), &elbv2.DescribeTargetGroupsInput{PageSize: aws.Int32(2)})
	n := 0
	for p.HasMorePages() {
		out, err := p.NextPage(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		n += len(out.TargetGroups)
	}
	if n != len(all) {
		t.Errorf("paginator saw %d target groups, want %d", n, len(all))
	}
}

type describeTGFunc func(*elbv2.DescribeTargetGroupsInput) (*elbv2.DescribeTargetGroupsOutput, error)

func (f describeTGFunc) DescribeTargetGroups(_ context.Context, in *elbv2.DescribeTargetGroupsInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
	return f(in)
}

func TestDescribeTargetGroupsFilters(t *testing.T) {
	w := newWorld(t, nil)
	a := w.tg(t, "a", nil)
	b := w.tg(t, "b", nil)
	lb, _ := w.alb(t, "alb", b)
	unknownTG := "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/zz/0123456789abcdef"
	tests := []struct {
		name string
		in   *elbv2.DescribeTargetGroupsInput
		want []string
		code string
	}{
		{"all", nil, []string{a, b}, ""},
		{"by name", &elbv2.DescribeTargetGroupsInput{Names: []string{"b"}}, []string{b}, ""},
		{"by ARN", &elbv2.DescribeTargetGroupsInput{TargetGroupArns: []string{b, a}}, []string{a, b}, ""},
		{"by load balancer", &elbv2.DescribeTargetGroupsInput{LoadBalancerArn: aws.String(lb)}, []string{b}, ""},
		{"unknown name", &elbv2.DescribeTargetGroupsInput{Names: []string{"zz"}}, nil, "TargetGroupNotFound"},
		{"unknown ARN", &elbv2.DescribeTargetGroupsInput{TargetGroupArns: []string{unknownTG}}, nil, "TargetGroupNotFound"},
		{"unknown load balancer", &elbv2.DescribeTargetGroupsInput{LoadBalancerArn: aws.String("arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app/x/0123456789abcdef")}, nil, "LoadBalancerNotFound"},
		{"two filters", &elbv2.DescribeTargetGroupsInput{Names: []string{"a"}, TargetGroupArns: []string{a}}, nil, "ValidationError"},
		{"page size 0", &elbv2.DescribeTargetGroupsInput{PageSize: aws.Int32(0)}, nil, "ValidationError"},
		{"page size 401", &elbv2.DescribeTargetGroupsInput{PageSize: aws.Int32(401)}, nil, "ValidationError"},
		{"page size 400", &elbv2.DescribeTargetGroupsInput{PageSize: aws.Int32(400)}, []string{a, b}, ""},
		{"bad marker", &elbv2.DescribeTargetGroupsInput{Marker: aws.String("!!")}, nil, "ValidationError"},
		{"marker of another listing", &elbv2.DescribeTargetGroupsInput{Marker: aws.String("bGI6MQ==")}, nil, "ValidationError"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := w.model.DescribeTargetGroups(tt.in)
			if got := code(err); got != tt.code {
				t.Fatalf("code %q (%v), want %q", got, err, tt.code)
			}
			if err != nil {
				return
			}
			var got []string
			for _, tg := range out.TargetGroups {
				got = append(got, *tg.TargetGroupArn)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestModifyTargetGroup(t *testing.T) {
	w := newWorld(t, nil)
	tg := w.tg(t, "tg", nil)
	describe := func() types.TargetGroup {
		out, err := w.model.DescribeTargetGroups(&elbv2.DescribeTargetGroupsInput{TargetGroupArns: []string{tg}})
		if err != nil {
			t.Fatal(err)
		}
		return out.TargetGroups[0]
	}
	before := describe()
	tests := []struct {
		in   *elbv2.ModifyTargetGroupInput
		code string
	}{
		{&elbv2.ModifyTargetGroupInput{TargetGroupArn: aws.String(tg), HealthCheckIntervalSeconds: aws.Int32(3)}, "ValidationError"},
		{&elbv2.ModifyTargetGroupInput{TargetGroupArn: aws.String(tg), HealthCheckTimeoutSeconds: aws.Int32(10)}, "ValidationError"}, // not below the interval 10
		{&elbv2.ModifyTargetGroupInput{TargetGroupArn: aws.String(tg), HealthCheckEnabled: aws.Bool(false)}, "InvalidConfigurationRequest"},
		{&elbv2.ModifyTargetGroupInput{TargetGroupArn: aws.String(tg), HealthCheckPath: aws.String("/x"), HealthyThresholdCount: aws.Int32(20)}, "ValidationError"},
		{&elbv2.ModifyTargetGroupInput{TargetGroupArn: aws.String(tg + "0")}, "TargetGroupNotFound"},
	}
	for _, tt := range tests {
		_, err := w.model.ModifyTargetGroup(tt.in)
		if got := code(err); got != tt.code {
			t.Errorf("code %q (%v), want %q", got, err, tt.code)
		}
	}
	if diff := cmp.Diff(before, describe(), cmpSDK); diff != "" {
		t.Errorf("rejected modifications changed the target group (-before +after):\n%s", diff)
	}
	out, err := w.model.ModifyTargetGroup(&elbv2.ModifyTargetGroupInput{
		TargetGroupArn: aws.String(tg), HealthCheckPort: aws.String("traffic-port"), HealthCheckPath: aws.String("/ready"),
		HealthCheckIntervalSeconds: aws.Int32(15), HealthyThresholdCount: aws.Int32(2), Matcher: &types.Matcher{HttpCode: aws.String("200-299")},
	})
	if err != nil {
		t.Fatal(err)
	}
	after := out.TargetGroups[0]
	if *after.HealthCheckPath != "/ready" || *after.HealthCheckIntervalSeconds != 15 || *after.HealthyThresholdCount != 2 || *after.Matcher.HttpCode != "200-299" || *after.Port != 8080 {
		t.Errorf("after ModifyTargetGroup: %+v", after)
	}
}

// TestModifyTargetGroupFixesHealthCheck is the project's step 2: a pod
// target failing a health check pinned to the NodePort passes once the
// check goes to traffic-port; the new interval applies from the next check.
func TestModifyTargetGroupFixesHealthCheck(t *testing.T) {
	const pod = "10.0.1.10"
	w := newWorld(t, nil)
	tg := w.tg(t, "tg", func(in *elbv2.CreateTargetGroupInput) { in.HealthCheckPort = aws.String("30080") })
	w.alb(t, "alb", tg)
	w.net.up(pod, 8080)
	w.register(t, tg, td(pod))
	w.at(time.Minute)
	if s, r := w.state(tg, pod, 8080); s != unhealthy || r != failedHC {
		t.Fatalf("with the NodePort health check: %s (%s)", s, r)
	}
	if _, err := w.model.ModifyTargetGroup(&elbv2.ModifyTargetGroupInput{
		TargetGroupArn: aws.String(tg), HealthCheckPort: aws.String("traffic-port"), HealthCheckIntervalSeconds: aws.Int32(30),
	}); err != nil {
		t.Fatal(err)
	}
	// Checks at 1:30, 2:00, 2:30 with the new interval.
	for _, cp := range []checkpoint{{149 * time.Second, unhealthy, failedHC}, {150 * time.Second, healthy, ""}} {
		w.at(cp.at)
		if s, r := w.state(tg, pod, 8080); s != cp.state || r != cp.reason {
			t.Errorf("at %v: %s (%s), want %s (%s)", cp.at, s, r, cp.state, cp.reason)
		}
	}
}

func TestTargetGroupAttributes(t *testing.T) {
	w := newWorld(t, nil)
	tg := w.tg(t, "tg", nil)
	attrs := func() map[string]string {
		out, err := w.model.DescribeTargetGroupAttributes(&elbv2.DescribeTargetGroupAttributesInput{TargetGroupArn: aws.String(tg)})
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, a := range out.Attributes {
			m[*a.Key] = *a.Value
		}
		return m
	}
	before := attrs()
	if before[elbv2model.AttrDeregistrationDelay] != "300" || before[elbv2model.AttrSlowStart] != "0" {
		t.Errorf("defaults: %v", before)
	}
	set := func(kv ...string) error {
		var list []types.TargetGroupAttribute
		for i := 0; i < len(kv); i += 2 {
			list = append(list, types.TargetGroupAttribute{Key: aws.String(kv[i]), Value: aws.String(kv[i+1])})
		}
		_, err := w.model.ModifyTargetGroupAttributes(&elbv2.ModifyTargetGroupAttributesInput{TargetGroupArn: aws.String(tg), Attributes: list})
		return err
	}
	for _, bad := range [][]string{
		{elbv2model.AttrDeregistrationDelay, "3601"},
		{elbv2model.AttrDeregistrationDelay, "-1"},
		{elbv2model.AttrSlowStart, "29"},
		{elbv2model.AttrSlowStart, "901"},
		{elbv2model.AttrDeregistrationDelay, "10", "no.such.attribute", "1"},
		{"stickiness.enabled", "yes"},
	} {
		if err := set(bad...); code(err) != "ValidationError" {
			t.Errorf("%v: %v, want ValidationError", bad, err)
		}
	}
	if diff := cmp.Diff(before, attrs()); diff != "" {
		t.Errorf("rejected changes changed attributes (-before +after):\n%s", diff)
	}
	if err := set(elbv2model.AttrDeregistrationDelay, "0", elbv2model.AttrSlowStart, "30"); err != nil {
		t.Fatal(err)
	}
	if got := attrs(); got[elbv2model.AttrDeregistrationDelay] != "0" || got[elbv2model.AttrSlowStart] != "30" {
		t.Errorf("after a valid change: %v", got)
	}
}

func TestDeleteTargetGroup(t *testing.T) {
	w := newWorld(t, nil)
	used := w.tg(t, "used", nil)
	free := w.tg(t, "free", nil)
	w.alb(t, "alb", used)
	w.register(t, free, td("10.0.1.1"))
	if _, err := w.model.DeleteTargetGroup(&elbv2.DeleteTargetGroupInput{TargetGroupArn: aws.String(used)}); code(err) != "ResourceInUse" {
		t.Errorf("deleting a target group in use: %v, want ResourceInUse", err)
	}
	if _, err := w.model.DeleteTargetGroup(&elbv2.DeleteTargetGroupInput{TargetGroupArn: aws.String(free)}); err != nil {
		t.Errorf("deleting a free target group: %v", err)
	}
	if diff := cmp.Diff([]string{used}, w.model.TargetGroupARNs()); diff != "" {
		t.Errorf("target groups left (-want +got):\n%s", diff)
	}
	if _, err := w.model.DescribeTargetHealth(&elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(free)}); code(err) != "TargetGroupNotFound" {
		t.Errorf("describing a deleted target group: %v", err)
	}
}

func TestQuotas(t *testing.T) {
	t.Run("targets per target group", func(t *testing.T) {
		w := newWorld(t, func(o *elbv2model.Options) { o.Quotas.TargetsPerTargetGroup = 2 })
		tg := w.tg(t, "tg", nil)
		w.register(t, tg, td("10.0.1.1"), td("10.0.1.2"))
		_, err := w.model.RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(tg), Targets: []types.TargetDescription{td("10.0.1.2"), td("10.0.1.3")}})
		if code(err) != "TooManyTargets" {
			t.Errorf("third target: %v, want TooManyTargets", err)
		}
		if n := len(w.model.Targets(tg)); n != 2 {
			t.Errorf("%d targets after the rejected call, want 2", n)
		}
	})
	t.Run("target groups per region", func(t *testing.T) {
		w := newWorld(t, func(o *elbv2model.Options) { o.Quotas.TargetGroupsPerRegion = 1 })
		w.tg(t, "one", nil)
		_, err := w.model.CreateTargetGroup(&elbv2.CreateTargetGroupInput{Name: aws.String("two"), TargetType: types.TargetTypeEnumIp, Protocol: types.ProtocolEnumHttp, Port: aws.Int32(80), VpcId: aws.String(vpcID)})
		if code(err) != "TooManyTargetGroups" {
			t.Errorf("second target group: %v, want TooManyTargetGroups", err)
		}
	})
	t.Run("registrations per target", func(t *testing.T) {
		w := newWorld(t, func(o *elbv2model.Options) { o.Quotas.RegistrationsPerTarget = 2 })
		tg := w.tg(t, "tg", nil)
		w.alb(t, "alb", tg)
		w.register(t, tg, td("10.0.1.1", 80), td("10.0.1.1", 81))
		_, err := w.model.RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(tg), Targets: []types.TargetDescription{td("10.0.1.1", 82)}})
		if code(err) != "TooManyRegistrationsForTargetId" {
			t.Errorf("third registration of one IP: %v, want TooManyRegistrationsForTargetId", err)
		}
	})
	t.Run("targets per load balancer, on attach", func(t *testing.T) {
		w := newWorld(t, func(o *elbv2model.Options) { o.Quotas.TargetsPerLoadBalancer = 2 })
		a := w.tg(t, "a", nil)
		b := w.tg(t, "b", nil)
		_, listener := w.alb(t, "alb", a)
		w.register(t, a, td("10.0.1.1"), td("10.0.1.2"))
		w.register(t, b, td("10.0.1.3"))
		_, err := w.model.ModifyListener(&elbv2.ModifyListenerInput{ListenerArn: aws.String(listener), DefaultActions: []types.Action{weighted(map[string]int32{a: 1, b: 1}, a, b)}})
		if code(err) != "TooManyTargets" {
			t.Errorf("attaching a group past the limit: %v, want TooManyTargets", err)
		}
	})
	t.Run("target groups per load balancer", func(t *testing.T) {
		w := newWorld(t, func(o *elbv2model.Options) { o.Quotas.TargetGroupsPerLoadBalancer = 1 })
		a := w.tg(t, "a", nil)
		b := w.tg(t, "b", nil)
		_, listener := w.alb(t, "alb", a)
		_, err := w.model.AddRule(listener, 10, []types.RuleCondition{{Field: aws.String("path-pattern"), Values: []string{"/b"}}}, []types.Action{forward(b)})
		if code(err) != "TooManyUniqueTargetGroupsPerLoadBalancer" {
			t.Errorf("second group on the load balancer: %v", err)
		}
	})
}

func TestTags(t *testing.T) {
	w := newWorld(t, nil)
	tg := w.tg(t, "tg", func(in *elbv2.CreateTargetGroupInput) {
		in.Tags = []types.Tag{{Key: aws.String("team"), Value: aws.String("a")}}
	})
	lb, _ := w.alb(t, "alb", tg)
	if _, err := w.model.AddTags(&elbv2.AddTagsInput{ResourceArns: []string{tg, lb}, Tags: []types.Tag{
		{Key: aws.String("team"), Value: aws.String("b")}, {Key: aws.String("elbv2.k8s.aws/cluster"), Value: aws.String("prod")},
	}}); err != nil {
		t.Fatal(err)
	}
	out, err := w.model.DescribeTags(&elbv2.DescribeTagsInput{ResourceArns: []string{tg, lb}})
	if err != nil {
		t.Fatal(err)
	}
	tag := func(k, v string) types.Tag { return types.Tag{Key: aws.String(k), Value: aws.String(v)} }
	want := []types.TagDescription{
		{ResourceArn: aws.String(tg), Tags: []types.Tag{tag("team", "b"), tag("elbv2.k8s.aws/cluster", "prod")}},
		{ResourceArn: aws.String(lb), Tags: []types.Tag{tag("team", "b"), tag("elbv2.k8s.aws/cluster", "prod")}},
	}
	if diff := cmp.Diff(want, out.TagDescriptions, cmpSDK); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}

	var many []string
	for range 21 {
		many = append(many, tg)
	}
	unknown := "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/zz/0123456789abcdef"
	for _, tt := range []struct {
		arns []string
		code string
	}{
		{many, "ValidationError"},
		{nil, "ValidationError"},
		{[]string{tg, unknown}, "TargetGroupNotFound"},
		{[]string{"arn:aws:s3:::bucket"}, "ValidationError"},
	} {
		if _, err := w.model.DescribeTags(&elbv2.DescribeTagsInput{ResourceArns: tt.arns}); code(err) != tt.code {
			t.Errorf("DescribeTags(%d ARNs): %v, want %s", len(tt.arns), err, tt.code)
		}
	}
	if _, err := w.model.AddTags(&elbv2.AddTagsInput{ResourceArns: []string{tg, unknown}, Tags: []types.Tag{tag("x", "y")}}); code(err) != "TargetGroupNotFound" {
		t.Errorf("AddTags on an unknown ARN: %v", err)
	}
	again, _ := w.model.DescribeTags(&elbv2.DescribeTagsInput{ResourceArns: []string{tg}})
	if len(again.TagDescriptions[0].Tags) != 2 {
		t.Errorf("a failed AddTags changed the tags: %v", again.TagDescriptions[0].Tags)
	}
}
