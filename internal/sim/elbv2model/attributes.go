package elbv2model

// attributes.go: target group attributes: ranges, defaults, describe and
// modify.

import (
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
)

// Target group attribute keys the model knows. Only the first two change
// behaviour; the others are validated and stored (see the package doc).
const (
	// AttrDeregistrationDelay: seconds a deregistered target stays draining, 0-3600, default 300.
	AttrDeregistrationDelay = "deregistration_delay.timeout_seconds"
	// AttrMinHealthyTargets: below this many healthy targets the ALB fails
	// open and routes to every target, healthy or not. Default 1.
	AttrMinHealthyTargets = "target_group_health.unhealthy_state_routing.minimum_healthy_targets.count"
	// AttrSlowStart: 0 (off) or 30-900. Stored; the traffic ramp is not modelled.
	AttrSlowStart = "slow_start.duration_seconds"
)

type attrSpec struct {
	def   string
	valid func(v string) bool
}

func intIn(lo, hi int) func(string) bool {
	return func(v string) bool {
		n, err := strconv.Atoi(v)
		return err == nil && n >= lo && n <= hi
	}
}

func oneOf(vals ...string) func(string) bool {
	return func(v string) bool { return slices.Contains(vals, v) }
}

// tgAttributes are the attributes of an HTTP/HTTPS target group of type ip
// or instance, with their defaults and valid values.
var tgAttributes = map[string]attrSpec{
	AttrDeregistrationDelay: {"300", intIn(0, 3600)},
	AttrSlowStart: {"0", func(v string) bool {
		return v == "0" || intIn(30, 900)(v)
	}},
	AttrMinHealthyTargets:                         {"1", intIn(1, 1000)},
	"stickiness.enabled":                          {"false", oneOf("true", "false")},
	"stickiness.type":                             {"lb_cookie", oneOf("lb_cookie", "app_cookie")},
	"stickiness.lb_cookie.duration_seconds":       {"86400", intIn(1, 604800)},
	"stickiness.app_cookie.cookie_name":           {"", func(v string) bool { return len(v) <= 256 }},
	"stickiness.app_cookie.duration_seconds":      {"86400", intIn(1, 604800)},
	"load_balancing.algorithm.type":               {"round_robin", oneOf("round_robin", "least_outstanding_requests", "weighted_random")},
	"load_balancing.algorithm.anomaly_mitigation": {"off", oneOf("on", "off")},
	"load_balancing.cross_zone.enabled":           {"use_load_balancer_configuration", oneOf("true", "false", "use_load_balancer_configuration")},
}

// tgAttributeKeys lists tgAttributes in sorted order, the order
// DescribeTargetGroupAttributes returns them in.
var tgAttributeKeys = func() []string {
	keys := make([]string, 0, len(tgAttributes))
	for k := range tgAttributes {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}()

func defaultAttributes() map[string]string {
	a := make(map[string]string, len(tgAttributes))
	for k, s := range tgAttributes {
		a[k] = s.def
	}
	return a
}

func (tg *targetGroup) attributeList() []types.TargetGroupAttribute {
	out := make([]types.TargetGroupAttribute, 0, len(tgAttributeKeys))
	for _, k := range tgAttributeKeys {
		out = append(out, types.TargetGroupAttribute{Key: aws.String(k), Value: aws.String(tg.attrs[k])})
	}
	return out
}

// intAttr returns an integer attribute; values were validated on the way in.
func (tg *targetGroup) intAttr(key string) int {
	n, _ := strconv.Atoi(tg.attrs[key])
	return n
}

// DescribeTargetGroupAttributes returns every attribute of a target group.
func (m *Model) DescribeTargetGroupAttributes(in *elbv2.DescribeTargetGroupAttributesInput) (*elbv2.DescribeTargetGroupAttributesOutput, error) {
	if in == nil || in.TargetGroupArn == nil {
		return nil, validationf("TargetGroupArn is required")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	tg, err := m.tgLocked(*in.TargetGroupArn)
	if err != nil {
		return nil, err
	}
	return &elbv2.DescribeTargetGroupAttributesOutput{Attributes: tg.attributeList()}, nil
}

// ModifyTargetGroupAttributes changes attributes of a target group. Every
// attribute is validated before any is changed. It returns all attributes.
func (m *Model) ModifyTargetGroupAttributes(in *elbv2.ModifyTargetGroupAttributesInput) (*elbv2.ModifyTargetGroupAttributesOutput, error) {
	if in == nil || in.TargetGroupArn == nil {
		return nil, validationf("TargetGroupArn is required")
	}
	if len(in.Attributes) == 0 {
		return nil, validationf("Attributes must not be empty")
	}
	changes := make(map[string]string, len(in.Attributes))
	for _, a := range in.Attributes {
		if a.Key == nil || a.Value == nil {
			return nil, validationf("every attribute needs a Key and a Value")
		}
		spec, ok := tgAttributes[*a.Key]
		if !ok {
			return nil, validationf("attribute %q is not supported by an HTTP target group (or not modelled by the simulator)", *a.Key)
		}
		if !spec.valid(*a.Value) {
			return nil, validationf("attribute %q: value %q is not valid", *a.Key, *a.Value)
		}
		changes[*a.Key] = *a.Value
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	tg, err := m.tgLocked(*in.TargetGroupArn)
	if err != nil {
		return nil, err
	}
	for k, v := range changes {
		tg.attrs[k] = v
	}
	return &elbv2.ModifyTargetGroupAttributesOutput{Attributes: tg.attributeList()}, nil
}
