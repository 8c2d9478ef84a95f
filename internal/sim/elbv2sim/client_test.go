package elbv2sim_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
)

func TestNewValidatesOptions(t *testing.T) {
	w := newWorld(t)
	tests := []struct {
		name string
		opts elbv2sim.Options
	}{
		{"probability above 1", elbv2sim.Options{ThrottleProbability: map[elbv2sim.OpClass]float64{elbv2sim.ClassDescribe: 1.5}}},
		{"unknown class", elbv2sim.Options{ThrottleProbability: map[elbv2sim.OpClass]float64{"list": 0.5}}},
		{"negative latency", elbv2sim.Options{Latency: -time.Second}},
		{"latency of an unknown operation", elbv2sim.Options{OpLatency: map[string]time.Duration{"DeleteLoadBalancer": time.Second}}},
		{"negative invisible calls", elbv2sim.Options{InvisibleCalls: -1}},
		{"injected error without Err", elbv2sim.Options{Errors: []elbv2sim.InjectedError{{Op: elbv2sim.OpRegisterTargets}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := elbv2sim.New(w.model, tt.opts)
			var oe *elbv2sim.OptionsError
			if c != nil || !errors.As(err, &oe) || !errors.Is(err, elbv2sim.ErrInvalidOptions) {
				t.Errorf("New = %v, %v; want an *OptionsError", c, err)
			}
		})
	}
	if _, err := elbv2sim.NewThrottle(map[elbv2sim.OpClass]elbv2sim.Bucket{elbv2sim.ClassDescribe: {Capacity: 0, RefillPerSecond: 1}}); !errors.Is(err, elbv2sim.ErrInvalidOptions) {
		t.Errorf("NewThrottle with an empty bucket: %v", err)
	}
	c := newClient(t, w, elbv2sim.Options{})
	if err := c.Inject(elbv2sim.InjectedError{Op: "Nope", Err: errors.New("x")}); !errors.Is(err, elbv2sim.ErrInvalidOptions) {
		t.Errorf("Inject with an unknown operation: %v", err)
	}
}

// TestCallLog checks the resources each operation is logged with: what a
// least-privilege IAM check reads.
func TestCallLog(t *testing.T) {
	w := newWorld(t)
	c := newClient(t, w, elbv2sim.Options{Name: "sut"})
	ctx := t.Context()
	rules, err := w.model.DescribeRules(&elbv2.DescribeRulesInput{ListenerArn: aws.String(w.ln)})
	if err != nil {
		t.Fatal(err)
	}
	rule := *rules.Rules[0].RuleArn
	fwd := []types.Action{{Type: types.ActionTypeEnumForward, TargetGroupArn: aws.String(w.tg)}}
	var created string
	steps := []func() error{
		func() error { _, err := c.DescribeTargetGroups(ctx, nil); return err },
		func() error {
			_, err := c.DescribeTargetGroups(ctx, &elbv2.DescribeTargetGroupsInput{TargetGroupArns: []string{w.tg}})
			return err
		},
		func() error {
			_, err := c.DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(w.tg), Targets: targets(2)})
			return err
		},
		func() error {
			_, err := c.DescribeTargetGroupAttributes(ctx, &elbv2.DescribeTargetGroupAttributesInput{TargetGroupArn: aws.String(w.tg)})
			return err
		},
		func() error {
			_, err := c.DescribeTags(ctx, &elbv2.DescribeTagsInput{ResourceArns: []string{w.tg, w.lb}})
			return err
		},
		func() error {
			_, err := c.DescribeLoadBalancers(ctx, &elbv2.DescribeLoadBalancersInput{LoadBalancerArns: []string{w.lb}})
			return err
		},
		func() error {
			_, err := c.DescribeListeners(ctx, &elbv2.DescribeListenersInput{LoadBalancerArn: aws.String(w.lb)})
			return err
		},
		func() error {
			_, err := c.DescribeRules(ctx, &elbv2.DescribeRulesInput{ListenerArn: aws.String(w.ln)})
			return err
		},
		func() error {
			_, err := c.RegisterTargets(ctx, &elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(w.tg), Targets: targets(3)})
			return err
		},
		func() error {
			_, err := c.DeregisterTargets(ctx, &elbv2.DeregisterTargetsInput{TargetGroupArn: aws.String(w.tg), Targets: targets(1)})
			return err
		},
		func() error {
			out, err := c.CreateTargetGroup(ctx, &elbv2.CreateTargetGroupInput{Name: aws.String("new"), TargetType: types.TargetTypeEnumIp, Protocol: types.ProtocolEnumHttp, Port: aws.Int32(80), VpcId: aws.String(vpcID)})
			if err == nil {
				created = *out.TargetGroups[0].TargetGroupArn
			}
			return err
		},
		func() error {
			_, err := c.CreateTargetGroup(ctx, &elbv2.CreateTargetGroupInput{Name: aws.String("new"), TargetType: types.TargetTypeEnumIp, Protocol: types.ProtocolEnumHttp, Port: aws.Int32(81), VpcId: aws.String(vpcID)})
			return err
		},
		func() error {
			_, err := c.ModifyTargetGroup(ctx, &elbv2.ModifyTargetGroupInput{TargetGroupArn: aws.String(w.tg), HealthCheckPath: aws.String("/healthz")})
			return err
		},
		func() error {
			_, err := c.ModifyTargetGroupAttributes(ctx, &elbv2.ModifyTargetGroupAttributesInput{TargetGroupArn: aws.String(w.tg), Attributes: []types.TargetGroupAttribute{{Key: aws.String(elbv2model.AttrDeregistrationDelay), Value: aws.String("30")}}})
			return err
		},
		func() error {
			_, err := c.AddTags(ctx, &elbv2.AddTagsInput{ResourceArns: []string{w.tg}, Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}})
			return err
		},
		func() error {
			_, err := c.ModifyListener(ctx, &elbv2.ModifyListenerInput{ListenerArn: aws.String(w.ln), DefaultActions: fwd})
			return err
		},
		func() error {
			_, err := c.ModifyRule(ctx, &elbv2.ModifyRuleInput{RuleArn: aws.String(rule), Actions: fwd})
			return err
		},
		func() error {
			_, err := c.DeleteTargetGroup(ctx, &elbv2.DeleteTargetGroupInput{TargetGroupArn: aws.String(w.tg)})
			return err
		},
	}
	for i, step := range steps {
		err := step()
		if i == 11 || i == 16 || i == 17 {
			if err == nil {
				t.Errorf("step %d: want an error", i)
			}
			continue
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	pattern := w.model.TargetGroupARNPattern("new")
	want := []elbv2sim.Call{
		{Op: "DescribeTargetGroups"},
		{Op: "DescribeTargetGroups", Resources: []string{w.tg}},
		{Op: "DescribeTargetHealth", Resources: []string{w.tg}, Targets: 2},
		{Op: "DescribeTargetGroupAttributes", Resources: []string{w.tg}},
		{Op: "DescribeTags", Resources: []string{w.tg, w.lb}},
		{Op: "DescribeLoadBalancers", Resources: []string{w.lb}},
		{Op: "DescribeListeners", Resources: []string{w.lb}},
		{Op: "DescribeRules", Resources: []string{w.ln}},
		{Op: "RegisterTargets", Resources: []string{w.tg}, Targets: 3},
		{Op: "DeregisterTargets", Resources: []string{w.tg}, Targets: 1},
		{Op: "CreateTargetGroup", Resources: []string{created}},
		{Op: "CreateTargetGroup", Resources: []string{pattern}, ErrCode: "DuplicateTargetGroupName"},
		{Op: "ModifyTargetGroup", Resources: []string{w.tg}},
		{Op: "ModifyTargetGroupAttributes", Resources: []string{w.tg}},
		{Op: "AddTags", Resources: []string{w.tg}},
		{Op: "ModifyListener", Resources: []string{w.ln}, Refs: []string{w.tg}},
		{Op: "ModifyRule", Resources: []string{rule}, Refs: []string{w.tg}, ErrCode: "OperationNotPermitted"},
		{Op: "DeleteTargetGroup", Resources: []string{w.tg}, ErrCode: "ResourceInUse"},
	}
	for i := range want {
		want[i].Client, want[i].At = "sut", w.clock.Now()
	}
	if diff := cmp.Diff(want, c.Calls(), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("call log (-want +got):\n%s", diff)
	}
	wantCounts := map[string]int{
		"DescribeTargetGroups": 2, "DescribeTargetHealth": 1, "DescribeTargetGroupAttributes": 1, "DescribeTags": 1,
		"DescribeLoadBalancers": 1, "DescribeListeners": 1, "DescribeRules": 1, "RegisterTargets": 1, "DeregisterTargets": 1,
		"CreateTargetGroup": 2, "ModifyTargetGroup": 1, "ModifyTargetGroupAttributes": 1, "AddTags": 1,
		"ModifyListener": 1, "ModifyRule": 1, "DeleteTargetGroup": 1,
	}
	if diff := cmp.Diff(wantCounts, c.Counts()); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	c.ResetCounts()
	if len(c.Counts()) != 0 || len(c.Calls()) != 0 {
		t.Errorf("after ResetCounts: %v, %d calls", c.Counts(), len(c.Calls()))
	}
}

func TestErrorsAreWrappedAsTheSDKWrapsThem(t *testing.T) {
	w := newWorld(t)
	c := newClient(t, w, elbv2sim.Options{})
	_, err := c.DescribeTargetHealth(t.Context(), &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(w.tg + "0")})
	var op *smithy.OperationError
	var nf *types.TargetGroupNotFoundException
	if !errors.As(err, &op) || op.OperationName != "DescribeTargetHealth" || op.ServiceID != elbv2.ServiceID || !errors.As(err, &nf) {
		t.Fatalf("error %#v is not an OperationError around TargetGroupNotFoundException", err)
	}
	if !errors.Is(awserr.Classify("DescribeTargetHealth", w.tg, err), awserr.ErrNotFound) {
		t.Errorf("awserr.Classify does not see not-found in %v", err)
	}
}

func TestRateThrottling(t *testing.T) {
	w := newWorld(t)
	th, err := elbv2sim.NewThrottle(map[elbv2sim.OpClass]elbv2sim.Bucket{
		elbv2sim.ClassDescribe: elbv2sim.DocumentedDescribeBucket,
		elbv2sim.ClassTargets:  {Capacity: 2, RefillPerSecond: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	sut := newClient(t, w, elbv2sim.Options{Name: "sut", Throttle: th})
	lbc := newClient(t, w, elbv2sim.Options{Name: "lbc", Throttle: th})
	ctx := t.Context()
	describe := func(c *elbv2sim.Client) error {
		_, err := c.DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(w.tg)})
		return err
	}
	// The two clients share the account's bucket of 40.
	for i := range 40 {
		c := sut
		if i%2 == 1 {
			c = lbc
		}
		if err := describe(c); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	err = describe(sut)
	var api smithy.APIError
	if !errors.As(err, &api) || api.ErrorCode() != "Throttling" || api.ErrorMessage() != "Rate exceeded" {
		t.Fatalf("41st call: %v, want Throttling / Rate exceeded", err)
	}
	if !errors.Is(awserr.Classify("DescribeTargetHealth", "", err), awserr.ErrThrottled) {
		t.Errorf("awserr does not classify %v as throttled", err)
	}
	if !awserr.IsRetryable(awserr.Classify("DescribeTargetHealth", "", err), false) {
		t.Errorf("a throttled call is not retryable")
	}
	// Another class has its own bucket.
	if _, err := sut.DescribeTargetGroups(ctx, nil); code(err) != "Throttling" {
		t.Errorf("Describe* share one bucket: %v", err)
	}
	if _, err := sut.ModifyTargetGroup(ctx, &elbv2.ModifyTargetGroupInput{TargetGroupArn: aws.String(w.tg), HealthCheckPath: aws.String("/x")}); err != nil {
		t.Errorf("the mutate class has no bucket: %v", err)
	}
	// One second refills 10 tokens.
	w.clock.Advance(time.Second)
	n := 0
	for describe(sut) == nil {
		n++
	}
	if n != 10 {
		t.Errorf("%d calls after a second, want 10", n)
	}
	// A throttled RegisterTargets has no effect.
	reg := func() error {
		_, err := sut.RegisterTargets(ctx, &elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(w.tg), Targets: targets(1)})
		return err
	}
	_ = reg()
	_ = reg()
	if _, err := sut.DeregisterTargets(ctx, &elbv2.DeregisterTargetsInput{TargetGroupArn: aws.String(w.tg), Targets: targets(1)}); code(err) != "Throttling" {
		t.Fatalf("third target call: %v, want Throttling", err)
	}
	if got := w.model.Targets(w.tg); len(got) != 1 || got[0].State == types.TargetHealthStateEnumDraining {
		t.Errorf("a throttled DeregisterTargets changed the targets: %v", got)
	}
	if got := sut.Counts()["DeregisterTargets"]; got != 1 {
		t.Errorf("throttled calls are counted: %d, want 1", got)
	}
	if last := sut.Calls()[len(sut.Calls())-1]; last.ErrCode != "Throttling" {
		t.Errorf("the call log records %q", last.ErrCode)
	}
}

func TestProbabilityThrottling(t *testing.T) {
	run := func(seed uint64, p float64) []bool {
		w := newWorld(t)
		c := newClient(t, w, elbv2sim.Options{Seed: seed, ThrottleProbability: map[elbv2sim.OpClass]float64{elbv2sim.ClassDescribe: p}})
		var out []bool
		for range 200 {
			_, err := c.DescribeTargetGroups(t.Context(), nil)
			out = append(out, code(err) == "Throttling")
		}
		if _, err := c.RegisterTargets(t.Context(), &elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(w.tg), Targets: targets(1)}); err != nil {
			t.Errorf("another class is not throttled: %v", err)
		}
		return out
	}
	count := func(b []bool) int {
		n := 0
		for _, v := range b {
			if v {
				n++
			}
		}
		return n
	}
	if n := count(run(1, 0)); n != 0 {
		t.Errorf("p=0: %d throttled", n)
	}
	if n := count(run(1, 1)); n != 200 {
		t.Errorf("p=1: %d of 200 throttled", n)
	}
	a, b := run(7, 0.3), run(7, 0.3)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("same seed, different throttling (-a +b):\n%s", diff)
	}
	if n := count(a); n < 40 || n > 80 {
		t.Errorf("p=0.3: %d of 200 throttled", n)
	}
	if diff := cmp.Diff(a, run(8, 0.3)); diff == "" {
		t.Errorf("a different seed gave the same sequence")
	}
}

func TestLatencyMovesTheVirtualClock(t *testing.T) {
	w := newWorld(t)
	c := newClient(t, w, elbv2sim.Options{Latency: 200 * time.Millisecond, OpLatency: map[string]time.Duration{elbv2sim.OpRegisterTargets: 2 * time.Second}})
	start := w.clock.Now()
	if _, err := c.DescribeTargetGroups(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if got := w.clock.Since(start); got != 200*time.Millisecond {
		t.Errorf("a Describe took %v of virtual time, want 200ms", got)
	}
	if _, err := c.RegisterTargets(t.Context(), &elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(w.tg), Targets: targets(1)}); err != nil {
		t.Fatal(err)
	}
	if got := w.clock.Since(start); got != 2200*time.Millisecond {
		t.Errorf("after RegisterTargets: %v, want 2.2s", got)
	}
	if at := c.Calls()[1].At; !at.Equal(start.Add(2200 * time.Millisecond)) {
		t.Errorf("the call reached the service at %v, want after its latency", at)
	}

	ctx, cancel := context.WithCancelCause(t.Context())
	cause := errors.New("operator abort")
	cancel(cause)
	before := w.clock.Now()
	if _, err := c.DescribeTargetGroups(ctx, nil); !errors.Is(err, cause) {
		t.Errorf("cancelled context: %v, want its cause", err)
	}
	if !w.clock.Now().Equal(before) || c.Counts()[elbv2sim.OpDescribeTargetGroups] != 1 {
		t.Errorf("a cancelled call moved time or was counted")
	}
}

func TestEventualConsistency(t *testing.T) {
	w := newWorld(t)
	c := newClient(t, w, elbv2sim.Options{InvisibleCalls: 2})
	other := newClient(t, w, elbv2sim.Options{})
	ctx := t.Context()
	out, err := c.CreateTargetGroup(ctx, &elbv2.CreateTargetGroupInput{Name: aws.String("fresh"), TargetType: types.TargetTypeEnumIp, Protocol: types.ProtocolEnumHttp, Port: aws.Int32(80), VpcId: aws.String(vpcID)})
	if err != nil {
		t.Fatal(err)
	}
	arn := *out.TargetGroups[0].TargetGroupArn
	byARN := func(c *elbv2sim.Client) error {
		_, err := c.DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(arn)})
		return err
	}
	if err := byARN(other); err != nil {
		t.Errorf("another client sees it at once: %v", err)
	}
	if err := byARN(c); code(err) != "TargetGroupNotFound" {
		t.Errorf("first call: %v, want TargetGroupNotFound", err)
	}
	if err := byARN(c); code(err) != "TargetGroupNotFound" || !awserr.IsRetryable(awserr.Classify("DescribeTargetHealth", arn, err), true) {
		t.Errorf("second call: %v, want a not-found that is retryable after a create", err)
	}
	if err := byARN(c); err != nil {
		t.Errorf("third call: %v, want visible", err)
	}

	// A listing leaves an invisible group out, and that counts as a call.
	if _, err := c.CreateTargetGroup(ctx, &elbv2.CreateTargetGroupInput{Name: aws.String("fresh2"), TargetType: types.TargetTypeEnumIp, Protocol: types.ProtocolEnumHttp, Port: aws.Int32(80), VpcId: aws.String(vpcID)}); err != nil {
		t.Fatal(err)
	}
	names := func() []string {
		out, err := c.DescribeTargetGroups(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var n []string
		for _, tg := range out.TargetGroups {
			n = append(n, *tg.TargetGroupName)
		}
		return n
	}
	if diff := cmp.Diff([]string{"tg", "fresh"}, names()); diff != "" {
		t.Errorf("first listing (-want +got):\n%s", diff)
	}
	if _, err := c.DescribeTargetGroups(ctx, &elbv2.DescribeTargetGroupsInput{Names: []string{"fresh2"}}); code(err) != "TargetGroupNotFound" {
		t.Errorf("by name: %v", err)
	}
	if diff := cmp.Diff([]string{"tg", "fresh", "fresh2"}, names()); diff != "" {
		t.Errorf("third listing (-want +got):\n%s", diff)
	}
	// Re-creating an existing group does not hide it.
	if _, err := c.CreateTargetGroup(ctx, &elbv2.CreateTargetGroupInput{Name: aws.String("fresh"), TargetType: types.TargetTypeEnumIp, Protocol: types.ProtocolEnumHttp, Port: aws.Int32(80), VpcId: aws.String(vpcID)}); err != nil {
		t.Fatal(err)
	}
	if err := byARN(c); err != nil {
		t.Errorf("after an idempotent create: %v", err)
	}
}

func TestInjectedErrors(t *testing.T) {
	w := newWorld(t)
	boom := &types.TooManyTargetsException{Message: aws.String("injected")}
	c := newClient(t, w, elbv2sim.Options{Errors: []elbv2sim.InjectedError{{Op: elbv2sim.OpRegisterTargets, Err: boom}}})
	ctx := t.Context()
	reg := func(arn string) error {
		_, err := c.RegisterTargets(ctx, &elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(arn), Targets: targets(1)})
		return err
	}
	if err := reg(w.tg); !errors.As(err, &boom) {
		t.Fatalf("first call: %v, want the injected error", err)
	}
	if len(w.model.Targets(w.tg)) != 0 {
		t.Errorf("the failed call registered targets")
	}
	if err := reg(w.tg); err != nil {
		t.Errorf("second call: %v; a one-shot error fires once", err)
	}
	// An ARN-scoped fault waits for a call naming that ARN.
	out, err := w.model.CreateTargetGroup(&elbv2.CreateTargetGroupInput{Name: aws.String("other"), TargetType: types.TargetTypeEnumIp, Protocol: types.ProtocolEnumHttp, Port: aws.Int32(80), VpcId: aws.String(vpcID)})
	if err != nil {
		t.Fatal(err)
	}
	otherARN := *out.TargetGroups[0].TargetGroupArn
	if err := c.Inject(elbv2sim.InjectedError{Op: elbv2sim.OpRegisterTargets, ARN: otherARN, Err: &smithy.GenericAPIError{Code: "InternalFailure"}}); err != nil {
		t.Fatal(err)
	}
	if err := reg(w.tg); err != nil {
		t.Errorf("a call on another ARN: %v", err)
	}
	if err := reg(otherARN); code(err) != "InternalFailure" {
		t.Errorf("the call on the ARN: %v", err)
	}
	if got := c.Calls()[len(c.Calls())-1].ErrCode; got != "InternalFailure" {
		t.Errorf("logged code %q", got)
	}
}

func TestConcurrentClientsAreRaceFree(t *testing.T) {
	w := newWorld(t)
	c := newClient(t, w, elbv2sim.Options{})
	done := make(chan struct{})
	for g := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 50 {
				ip := fmt.Sprintf("10.0.%d.%d", g+1, i+1)
				td := []types.TargetDescription{{Id: aws.String(ip), Port: aws.Int32(8080)}}
				_, _ = c.RegisterTargets(t.Context(), &elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(w.tg), Targets: td})
				_, _ = c.DescribeTargetHealth(t.Context(), &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(w.tg)})
			}
		}()
	}
	for range 20 {
		w.clock.Advance(5 * time.Second)
	}
	for range 4 {
		<-done
	}
	if n := len(w.model.Targets(w.tg)); n != 200 {
		t.Errorf("%d targets, want 200", n)
	}
}

// TestNilInputs: a nil Input is bad input, never a panic.
func TestNilInputs(t *testing.T) {
	w := newWorld(t)
	c := newClient(t, w, elbv2sim.Options{})
	ctx := t.Context()
	errs := map[string]error{}
	_, errs["DescribeTargetHealth"] = c.DescribeTargetHealth(ctx, nil)
	_, errs["DescribeTargetGroupAttributes"] = c.DescribeTargetGroupAttributes(ctx, nil)
	_, errs["DescribeTags"] = c.DescribeTags(ctx, nil)
	_, errs["DescribeListeners"] = c.DescribeListeners(ctx, nil)
	_, errs["DescribeRules"] = c.DescribeRules(ctx, nil)
	_, errs["RegisterTargets"] = c.RegisterTargets(ctx, nil)
	_, errs["DeregisterTargets"] = c.DeregisterTargets(ctx, nil)
	_, errs["CreateTargetGroup"] = c.CreateTargetGroup(ctx, nil)
	_, errs["ModifyTargetGroup"] = c.ModifyTargetGroup(ctx, nil)
	_, errs["ModifyTargetGroupAttributes"] = c.ModifyTargetGroupAttributes(ctx, nil)
	_, errs["DeleteTargetGroup"] = c.DeleteTargetGroup(ctx, nil)
	_, errs["AddTags"] = c.AddTags(ctx, nil)
	_, errs["ModifyListener"] = c.ModifyListener(ctx, nil)
	_, errs["ModifyRule"] = c.ModifyRule(ctx, nil)
	for op, err := range errs {
		if code(err) != "ValidationError" {
			t.Errorf("%s(nil): %v, want ValidationError", op, err)
		}
	}
	if _, err := c.DescribeTargetGroups(ctx, nil); err != nil {
		t.Errorf("DescribeTargetGroups(nil) lists all: %v", err)
	}
	if _, err := c.DescribeLoadBalancers(ctx, nil); err != nil {
		t.Errorf("DescribeLoadBalancers(nil) lists all: %v", err)
	}
	//lint:ignore SA1012 a nil context is the bad input under test
	if _, err := c.DescribeLoadBalancers(nil, nil); err != nil {
		t.Errorf("a nil context is treated as Background: %v", err)
	}
}
