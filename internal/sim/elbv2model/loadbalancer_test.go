package elbv2model_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
)

func TestLoadBalancerSetupAndDescribe(t *testing.T) {
	w := newWorld(t, nil)
	tg := w.tg(t, "tg", nil)
	lb, listener := w.alb(t, "alb", tg)
	if _, err := awserr.ParseLoadBalancerARN(lb); err != nil {
		t.Errorf("load balancer ARN: %v", err)
	}
	rule, err := w.model.AddRule(listener, 10, []types.RuleCondition{{Field: aws.String("path-pattern"), Values: []string{"/api/*"}}}, []types.Action{forward(tg)})
	if err != nil {
		t.Fatal(err)
	}

	lbs, err := w.model.DescribeLoadBalancers(&elbv2.DescribeLoadBalancersInput{Names: []string{"alb"}})
	if err != nil || len(lbs.LoadBalancers) != 1 || *lbs.LoadBalancers[0].LoadBalancerArn != lb || *lbs.LoadBalancers[0].VpcId != vpcID {
		t.Fatalf("DescribeLoadBalancers = %+v, %v", lbs, err)
	}
	ls, err := w.model.DescribeListeners(&elbv2.DescribeListenersInput{LoadBalancerArn: aws.String(lb)})
	if err != nil {
		t.Fatal(err)
	}
	wantListener := types.Listener{
		ListenerArn: aws.String(listener), LoadBalancerArn: aws.String(lb), Port: aws.Int32(80), Protocol: types.ProtocolEnumHttp,
		DefaultActions: []types.Action{{
			Type: types.ActionTypeEnumForward, Order: aws.Int32(1), TargetGroupArn: aws.String(tg),
			ForwardConfig: &types.ForwardActionConfig{
				TargetGroups:                []types.TargetGroupTuple{{TargetGroupArn: aws.String(tg), Weight: aws.Int32(1)}},
				TargetGroupStickinessConfig: &types.TargetGroupStickinessConfig{Enabled: aws.Bool(false)},
			},
		}},
	}
	if diff := cmp.Diff([]types.Listener{wantListener}, ls.Listeners, cmpSDK); diff != "" {
		t.Errorf("DescribeListeners (-want +got):\n%s", diff)
	}
	rules, err := w.model.DescribeRules(&elbv2.DescribeRulesInput{ListenerArn: aws.String(listener)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rules.Rules {
		got = append(got, fmt.Sprintf("%s default=%v %s", *r.Priority, *r.IsDefault, *r.Actions[0].TargetGroupArn))
	}
	if diff := cmp.Diff([]string{"10 default=false " + tg, "default default=true " + tg}, got); diff != "" {
		t.Errorf("DescribeRules (-want +got):\n%s", diff)
	}
	if *rules.Rules[0].RuleArn != rule {
		t.Errorf("first rule %s, want %s", *rules.Rules[0].RuleArn, rule)
	}

	for _, tt := range []struct {
		name string
		call func() error
		code string
	}{
		{"listeners without a filter", func() error { _, err := w.model.DescribeListeners(&elbv2.DescribeListenersInput{}); return err }, "ValidationError"},
		{"rules without a filter", func() error { _, err := w.model.DescribeRules(&elbv2.DescribeRulesInput{}); return err }, "ValidationError"},
		{"unknown listener", func() error {
			_, err := w.model.DescribeRules(&elbv2.DescribeRulesInput{ListenerArn: aws.String(listener + "0")})
			return err
		}, "ListenerNotFound"},
		{"unknown rule", func() error {
			_, err := w.model.DescribeRules(&elbv2.DescribeRulesInput{RuleArns: []string{rule + "0"}})
			return err
		}, "RuleNotFound"},
		{"unknown load balancer", func() error {
			_, err := w.model.DescribeLoadBalancers(&elbv2.DescribeLoadBalancersInput{Names: []string{"nope"}})
			return err
		}, "LoadBalancerNotFound"},
		{"duplicate load balancer", func() error { _, err := w.model.AddLoadBalancer("alb", vpcID); return err }, "DuplicateLoadBalancerName"},
		{"load balancer in an unknown VPC", func() error { _, err := w.model.AddLoadBalancer("other", "vpc-9"); return err }, "ValidationError"},
		{"duplicate listener port", func() error { _, err := w.model.AddListener(lb, 80, []types.Action{forward(tg)}); return err }, "DuplicateListener"},
		{"priority in use", func() error {
			_, err := w.model.AddRule(listener, 10, []types.RuleCondition{{Field: aws.String("path-pattern"), Values: []string{"/x"}}}, []types.Action{forward(tg)})
			return err
		}, "PriorityInUse"},
		{"rule page size 0", func() error {
			_, err := w.model.DescribeRules(&elbv2.DescribeRulesInput{ListenerArn: aws.String(listener), PageSize: aws.Int32(0)})
			return err
		}, "ValidationError"},
	} {
		if got := code(tt.call()); got != tt.code {
			t.Errorf("%s: code %q, want %q", tt.name, got, tt.code)
		}
	}

	// Paging the rules one at a time visits each once, the default last.
	var paged []string
	var marker *string
	for {
		out, err := w.model.DescribeRules(&elbv2.DescribeRulesInput{ListenerArn: aws.String(listener), PageSize: aws.Int32(1), Marker: marker})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range out.Rules {
			paged = append(paged, *r.Priority)
		}
		if marker = out.NextMarker; marker == nil {
			break
		}
	}
	if diff := cmp.Diff([]string{"10", "default"}, paged); diff != "" {
		t.Errorf("paged rules (-want +got):\n%s", diff)
	}
}

func TestModifyListenerValidation(t *testing.T) {
	w := newWorld(t, nil)
	var tgs []string
	for i := range 6 {
		tgs = append(tgs, w.tg(t, fmt.Sprintf("tg-%d", i), nil))
	}
	other := w.tg(t, "other-vpc", func(in *elbv2.CreateTargetGroupInput) { in.VpcId = aws.String("vpc-2") })
	_, listener := w.alb(t, "alb", tgs[0])
	// tg-5 belongs to a second load balancer.
	w.alb(t, "alb2", tgs[5])
	weights := func(arns ...string) map[string]int32 {
		m := map[string]int32{}
		for _, a := range arns {
			m[a] = 1
		}
		return m
	}
	tests := []struct {
		name    string
		actions []types.Action
		code    string
	}{
		{"no actions is no change", nil, ""},
		{"six target groups", []types.Action{weighted(weights(tgs...), tgs...)}, "ValidationError"},
		{"weight 1000", []types.Action{weighted(map[string]int32{tgs[0]: 1000}, tgs[0])}, "ValidationError"},
		{"weight -1", []types.Action{weighted(map[string]int32{tgs[0]: -1}, tgs[0])}, "ValidationError"},
		{"the same group twice", []types.Action{weighted(weights(tgs[0]), tgs[0], tgs[0])}, "ValidationError"},
		{"a group of another load balancer", []types.Action{weighted(weights(tgs[0], tgs[5]), tgs[0], tgs[5])}, "TargetGroupAssociationLimit"},
		{"an unknown group", []types.Action{forward(tgs[0] + "0")}, "TargetGroupNotFound"},
		{"a group of another VPC", []types.Action{forward(other)}, "InvalidLoadBalancerAction"},
		{"TargetGroupArn disagreeing with ForwardConfig", []types.Action{{
			Type: types.ActionTypeEnumForward, TargetGroupArn: aws.String(tgs[1]),
			ForwardConfig: weighted(weights(tgs[0]), tgs[0]).ForwardConfig,
		}}, "InvalidLoadBalancerAction"},
		{"forward without a target", []types.Action{{Type: types.ActionTypeEnumForward}}, "InvalidLoadBalancerAction"},
		{"two actions", []types.Action{forward(tgs[0]), forward(tgs[1])}, "InvalidLoadBalancerAction"},
		{"authenticate (not modelled)", []types.Action{{Type: types.ActionTypeEnumAuthenticateOidc}}, "ValidationError"},
		{"fixed response 302", []types.Action{{Type: types.ActionTypeEnumFixedResponse, FixedResponseConfig: &types.FixedResponseActionConfig{StatusCode: aws.String("302")}}}, "ValidationError"},
	}
	before, _ := w.model.DescribeListeners(&elbv2.DescribeListenersInput{ListenerArns: []string{listener}})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := w.model.ModifyListener(&elbv2.ModifyListenerInput{ListenerArn: aws.String(listener), DefaultActions: tt.actions})
			if got := code(err); got != tt.code {
				t.Fatalf("code %q (%v), want %q", got, err, tt.code)
			}
			after, _ := w.model.DescribeListeners(&elbv2.DescribeListenersInput{ListenerArns: []string{listener}})
			if diff := cmp.Diff(before.Listeners, after.Listeners, cmpSDK); diff != "" {
				t.Errorf("the listener changed (-before +after):\n%s", diff)
			}
		})
	}
	if _, err := w.model.ModifyListener(&elbv2.ModifyListenerInput{ListenerArn: aws.String(listener + "0")}); code(err) != "ListenerNotFound" {
		t.Errorf("unknown listener: %v", err)
	}
}

func TestModifyRule(t *testing.T) {
	w := newWorld(t, nil)
	a := w.tg(t, "a", nil)
	b := w.tg(t, "b", nil)
	_, listener := w.alb(t, "alb", a)
	rule, err := w.model.AddRule(listener, 5, []types.RuleCondition{{Field: aws.String("host-header"), Values: []string{"api.example.com"}}}, []types.Action{forward(a)})
	if err != nil {
		t.Fatal(err)
	}
	out, err := w.model.ModifyRule(&elbv2.ModifyRuleInput{RuleArn: aws.String(rule), Actions: []types.Action{weighted(map[string]int32{a: 90, b: 10}, a, b)}})
	if err != nil {
		t.Fatal(err)
	}
	got := out.Rules[0]
	if len(got.Conditions) != 1 || *got.Conditions[0].Field != "host-header" {
		t.Errorf("conditions not kept: %+v", got.Conditions)
	}
	fc := got.Actions[0].ForwardConfig
	if len(fc.TargetGroups) != 2 || *fc.TargetGroups[1].Weight != 10 || got.Actions[0].TargetGroupArn != nil {
		t.Errorf("weighted actions: %+v", got.Actions[0])
	}
	r, err := w.model.Route(listener, rule)
	if err != nil {
		t.Fatal(err)
	}
	want := elbv2model.Route{Kind: elbv2model.RouteForward, TargetGroups: []elbv2model.WeightedTargetGroup{{ARN: a, Weight: 90}, {ARN: b, Weight: 10}}}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("route (-want +got):\n%s", diff)
	}

	rules, _ := w.model.DescribeRules(&elbv2.DescribeRulesInput{ListenerArn: aws.String(listener)})
	defaultRule := *rules.Rules[len(rules.Rules)-1].RuleArn
	if _, err := w.model.ModifyRule(&elbv2.ModifyRuleInput{RuleArn: aws.String(defaultRule), Actions: []types.Action{forward(b)}}); code(err) != "OperationNotPermitted" {
		t.Errorf("ModifyRule on the default rule: %v, want OperationNotPermitted", err)
	}
	if _, err := w.model.ModifyRule(&elbv2.ModifyRuleInput{RuleArn: aws.String(rule + "0")}); code(err) != "RuleNotFound" {
		t.Errorf("unknown rule: %v", err)
	}
	if _, err := w.model.ModifyRule(&elbv2.ModifyRuleInput{RuleArn: aws.String(rule), Transforms: []types.RuleTransform{{}}}); code(err) != "ValidationError" {
		t.Errorf("transforms: %v", err)
	}
}

// TestAttachAndDetachTargetGroup: a target group gets health checks only
// while a listener or rule forwards to it, weight 0 included.
func TestAttachAndDetachTargetGroup(t *testing.T) {
	const pod = "10.0.1.10"
	w := newWorld(t, nil)
	legacy := w.tg(t, "legacy", nil)
	fresh := w.tg(t, "fresh", nil)
	_, listener := w.alb(t, "alb", legacy)
	w.net.up(pod, 8080)
	w.register(t, fresh, td(pod))
	w.at(time.Minute)
	if s, r := w.state(fresh, pod, 8080); s != unused || r != notInUse {
		t.Fatalf("before attach: %s (%s)", s, r)
	}
	if _, err := w.model.ModifyListener(&elbv2.ModifyListenerInput{ListenerArn: aws.String(listener), DefaultActions: []types.Action{
		weighted(map[string]int32{legacy: 1, fresh: 0}, legacy, fresh),
	}}); err != nil {
		t.Fatal(err)
	}
	for _, cp := range []checkpoint{{time.Minute, initial, regInProgress}, {90 * time.Second, healthy, ""}} {
		w.at(cp.at)
		if s, r := w.state(fresh, pod, 8080); s != cp.state || r != cp.reason {
			t.Errorf("at %v: %s (%s), want %s (%s)", cp.at, s, r, cp.state, cp.reason)
		}
	}
	out, _ := w.model.DescribeTargetGroups(&elbv2.DescribeTargetGroupsInput{TargetGroupArns: []string{fresh}})
	if len(out.TargetGroups[0].LoadBalancerArns) != 1 {
		t.Errorf("LoadBalancerArns of the attached group: %v", out.TargetGroups[0].LoadBalancerArns)
	}
	if _, err := w.model.ModifyListener(&elbv2.ModifyListenerInput{ListenerArn: aws.String(listener), DefaultActions: []types.Action{forward(legacy)}}); err != nil {
		t.Fatal(err)
	}
	if s, r := w.state(fresh, pod, 8080); s != unused || r != notInUse {
		t.Errorf("after detach: %s (%s)", s, r)
	}
}

func TestAppendRoutable(t *testing.T) {
	const a, b, c = "10.0.1.1", "10.0.1.2", "10.0.1.3"
	tests := []struct {
		name     string
		up       []string
		register []string
		minCount string
		after    time.Duration
		want     []string
		sel      elbv2model.Selection
	}{
		{"healthy targets only", []string{a, b}, []string{a, b, c}, "", time.Minute, []string{a, b}, elbv2model.SelectHealthy},
		{"none healthy: fail open to the unhealthy", nil, []string{a, b}, "", time.Minute, []string{a, b}, elbv2model.SelectFailOpen},
		{"initial targets take nothing", []string{a}, []string{a}, "", 15 * time.Second, nil, elbv2model.SelectNone},
		{"no targets", nil, nil, "", time.Minute, nil, elbv2model.SelectNone},
		{"below the minimum healthy count: every target", []string{a}, []string{a, b, c}, "2", time.Minute, []string{a, b, c}, elbv2model.SelectFailOpen},
		{"at the minimum healthy count: healthy only", []string{a, b}, []string{a, b, c}, "2", time.Minute, []string{a, b}, elbv2model.SelectHealthy},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, nil)
			tg := w.tg(t, "tg", nil)
			w.alb(t, "alb", tg)
			if tt.minCount != "" {
				if _, err := w.model.ModifyTargetGroupAttributes(&elbv2.ModifyTargetGroupAttributesInput{TargetGroupArn: aws.String(tg), Attributes: []types.TargetGroupAttribute{
					{Key: aws.String(elbv2model.AttrMinHealthyTargets), Value: aws.String(tt.minCount)},
				}}); err != nil {
					t.Fatal(err)
				}
			}
			for _, ip := range tt.up {
				w.net.up(ip, 8080)
			}
			for _, ip := range tt.register {
				w.register(t, tg, td(ip))
			}
			w.at(tt.after)
			eps, sel := w.model.AppendRoutable(nil, tg)
			var got []string
			for _, e := range eps {
				got = append(got, e.IP)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" || sel != tt.sel {
				t.Errorf("selection %v, want %v; targets (-want +got):\n%s", sel, tt.sel, diff)
			}
			// PickRoutable chooses among the same targets, in the same order.
			for i := range len(eps) + 1 {
				n := -1
				e, s := w.model.PickRoutable(tg, func(k int) int { n = k; return i })
				switch {
				case i < len(eps) && (e != eps[i] || s != sel || n != len(eps)):
					t.Errorf("PickRoutable(%d) = %v, %v (n=%d); want %v, %v (n=%d)", i, e, s, n, eps[i], sel, len(eps))
				case i == len(eps) && s != elbv2model.SelectNone:
					t.Errorf("PickRoutable out of range = %v, %v; want SelectNone", e, s)
				}
			}
		})
	}
}

// TestPeakTargets: a load balancer's high-water mark of targets counts
// every target group it uses, as its quota does: registrations in a used
// group and a group it starts using raise it; a group it does not use,
// deregistrations and detaching leave it.
func TestPeakTargets(t *testing.T) {
	w := newWorld(t, nil)
	legacy := w.tg(t, "legacy", nil)
	fresh := w.tg(t, "fresh", nil)
	lb, listener := w.alb(t, "alb", legacy)
	steps := []struct {
		name string
		do   func() error
		want int
	}{
		{"created", func() error { return nil }, 0},
		{"two in the used group", func() error {
			_, err := w.model.RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(legacy), Targets: []types.TargetDescription{td("10.0.1.1"), td("10.0.1.2")}})
			return err
		}, 2},
		{"three in a group it does not use", func() error {
			_, err := w.model.RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(fresh), Targets: []types.TargetDescription{td("10.0.2.1"), td("10.0.2.2"), td("10.0.2.3")}})
			return err
		}, 2},
		{"that group attached", func() error {
			_, err := w.model.ModifyListener(&elbv2.ModifyListenerInput{ListenerArn: aws.String(listener), DefaultActions: []types.Action{
				weighted(map[string]int32{legacy: 1, fresh: 0}, legacy, fresh),
			}})
			return err
		}, 5},
		{"one deregistered", func() error {
			_, err := w.model.DeregisterTargets(&elbv2.DeregisterTargetsInput{TargetGroupArn: aws.String(legacy), Targets: []types.TargetDescription{td("10.0.1.1")}})
			return err
		}, 5},
		{"detached", func() error {
			_, err := w.model.ModifyListener(&elbv2.ModifyListenerInput{ListenerArn: aws.String(listener), DefaultActions: []types.Action{forward(legacy)}})
			return err
		}, 5},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := w.model.PeakTargets(lb); got != s.want {
			t.Errorf("%s: PeakTargets = %d, want %d", s.name, got, s.want)
		}
	}
	if got := w.model.PeakTargets("arn:aws:elasticloadbalancing:us-east-1:123456789012:loadbalancer/app/nope/0"); got != 0 {
		t.Errorf("an unknown load balancer: %d, want 0", got)
	}
}

// TestQuotaRefusals: a RegisterTargets refused for the load balancer's
// target quota is recorded on its target group, with its instant; a
// draining target still counts, so a registration after a
// deregistration is refused too; one that fits, one refused for the
// target group's own quota and an unknown group record nothing.
func TestQuotaRefusals(t *testing.T) {
	w := newWorld(t, func(o *elbv2model.Options) {
		o.Quotas.TargetsPerLoadBalancer = 3
		o.Quotas.TargetsPerTargetGroup = 4
	})
	tg := w.tg(t, "behind", nil)
	alone := w.tg(t, "alone", nil)
	w.alb(t, "alb", tg)
	reg := func(arn string, ips ...string) error {
		var tds []types.TargetDescription
		for _, ip := range ips {
			tds = append(tds, td(ip))
		}
		_, err := w.model.RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(arn), Targets: tds})
		return err
	}
	if err := reg(tg, "10.0.1.1", "10.0.1.2"); err != nil {
		t.Fatal(err)
	}
	if got := w.model.QuotaRefusals(tg); got != nil {
		t.Fatalf("after a registration that fits: %v, want none", got)
	}
	w.at(10 * time.Second)
	if err := reg(tg, "10.0.1.3", "10.0.1.4"); code(err) != "TooManyTargets" {
		t.Fatalf("four targets on a quota of three: %v, want TooManyTargets", err)
	}
	if _, err := w.model.DeregisterTargets(&elbv2.DeregisterTargetsInput{TargetGroupArn: aws.String(tg), Targets: []types.TargetDescription{td("10.0.1.1")}}); err != nil {
		t.Fatal(err)
	}
	w.at(20 * time.Second)
	if err := reg(tg, "10.0.1.3", "10.0.1.4"); code(err) != "TooManyTargets" {
		t.Fatalf("with a target draining: %v, want TooManyTargets (draining targets count)", err)
	}
	if err := reg(alone, "10.0.2.1", "10.0.2.2", "10.0.2.3", "10.0.2.4", "10.0.2.5"); code(err) != "TooManyTargets" {
		t.Fatalf("five targets on a target group quota of four: %v, want TooManyTargets", err)
	}
	want := []time.Time{w.start.Add(10 * time.Second), w.start.Add(20 * time.Second)}
	if got := w.model.QuotaRefusals(tg); !slices.Equal(got, want) {
		t.Errorf("QuotaRefusals = %v, want %v", got, want)
	}
	if got := w.model.QuotaRefusals(alone); got != nil {
		t.Errorf("a refusal for the target group's own quota: %v, want none", got)
	}
	if got := w.model.QuotaRefusals("arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/nope/0"); got != nil {
		t.Errorf("an unknown target group: %v, want none", got)
	}
}
