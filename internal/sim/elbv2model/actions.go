package elbv2model

// actions.go: listener and rule actions and conditions: validation and
// copies.

import (
	"regexp"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
)

// Limits of a forward action.
const (
	maxForwardTargetGroups = 5
	maxWeight              = 999
)

var fixedStatusRe = regexp.MustCompile(`^(2|4|5)[0-9][0-9]$`)

// checkedActions is a validated, deep-copied action list and the target
// groups it forwards to.
type checkedActions struct {
	actions []types.Action
	tgs     []*targetGroup
}

// checkActionsLocked validates the actions of a listener or rule of lb and
// returns a normalised deep copy. The simulator models one routing action per
// rule: forward (to one target group, or weighted across up to 5), redirect
// or fixed-response; authentication actions are not modelled.
func (m *Model) checkActionsLocked(lb *loadBalancer, actions []types.Action) (checkedActions, error) {
	if len(actions) == 0 {
		return checkedActions{}, validationf("at least one action is required")
	}
	for _, a := range actions {
		switch a.Type {
		case types.ActionTypeEnumForward, types.ActionTypeEnumRedirect, types.ActionTypeEnumFixedResponse:
		case "":
			return checkedActions{}, validationf("every action needs a Type")
		default:
			return checkedActions{}, validationf("action type %s is not modelled by the simulator (forward, redirect, fixed-response)", a.Type)
		}
	}
	if len(actions) > 1 {
		return checkedActions{}, invalidAction("a rule can have only one forward, redirect or fixed-response action")
	}
	a := actions[0]
	if a.Order != nil && (*a.Order < 1 || *a.Order > 50000) {
		return checkedActions{}, validationf("action Order %d is outside 1-50000", *a.Order)
	}
	out := types.Action{Type: a.Type, Order: aws.Int32(1)}
	if a.Order != nil {
		out.Order = aws.Int32(*a.Order)
	}
	var tgs []*targetGroup
	switch a.Type {
	case types.ActionTypeEnumForward:
		fc, list, err := m.checkForwardLocked(lb, a)
		if err != nil {
			return checkedActions{}, err
		}
		out.ForwardConfig, tgs = fc, list
		if len(list) == 1 {
			out.TargetGroupArn = aws.String(list[0].arn)
		}
	case types.ActionTypeEnumFixedResponse:
		c := a.FixedResponseConfig
		if c == nil || c.StatusCode == nil || !fixedStatusRe.MatchString(*c.StatusCode) {
			return checkedActions{}, validationf("a fixed-response action needs a FixedResponseConfig with a StatusCode 2XX, 4XX or 5XX")
		}
		out.FixedResponseConfig = &types.FixedResponseActionConfig{StatusCode: cp(c.StatusCode), ContentType: cp(c.ContentType), MessageBody: cp(c.MessageBody)}
	case types.ActionTypeEnumRedirect:
		c := a.RedirectConfig
		if c == nil || (c.StatusCode != types.RedirectActionStatusCodeEnumHttp301 && c.StatusCode != types.RedirectActionStatusCodeEnumHttp302) {
			return checkedActions{}, validationf("a redirect action needs a RedirectConfig with StatusCode HTTP_301 or HTTP_302")
		}
		out.RedirectConfig = &types.RedirectActionConfig{StatusCode: c.StatusCode, Host: cp(c.Host), Path: cp(c.Path), Port: cp(c.Port), Protocol: cp(c.Protocol), Query: cp(c.Query)}
	}
	return checkedActions{actions: []types.Action{out}, tgs: tgs}, nil
}

// checkForwardLocked validates a forward action and returns its normalised
// ForwardConfig (weights filled in, default 1) and its target groups.
func (m *Model) checkForwardLocked(lb *loadBalancer, a types.Action) (*types.ForwardActionConfig, []*targetGroup, error) {
	var tuples []types.TargetGroupTuple
	var stick *types.TargetGroupStickinessConfig
	switch {
	case a.ForwardConfig != nil:
		tuples = a.ForwardConfig.TargetGroups
		if a.TargetGroupArn != nil && (len(tuples) != 1 || tuples[0].TargetGroupArn == nil || *tuples[0].TargetGroupArn != *a.TargetGroupArn) {
			return nil, nil, invalidAction("TargetGroupArn and ForwardConfig must name the same single target group when both are given")
		}
		if s := a.ForwardConfig.TargetGroupStickinessConfig; s != nil {
			stick = &types.TargetGroupStickinessConfig{Enabled: cpBool(s.Enabled), DurationSeconds: cpInt32(s.DurationSeconds)}
			if s.Enabled != nil && *s.Enabled && (s.DurationSeconds == nil || *s.DurationSeconds < 1 || *s.DurationSeconds > 604800) {
				return nil, nil, validationf("TargetGroupStickinessConfig.DurationSeconds must be 1-604800 when stickiness is enabled")
			}
		}
	case a.TargetGroupArn != nil:
		tuples = []types.TargetGroupTuple{{TargetGroupArn: a.TargetGroupArn}}
	default:
		return nil, nil, invalidAction("a forward action needs TargetGroupArn or ForwardConfig")
	}
	if len(tuples) == 0 {
		return nil, nil, validationf("ForwardConfig.TargetGroups must not be empty")
	}
	if len(tuples) > maxForwardTargetGroups {
		return nil, nil, validationf("a forward action can have at most %d target groups, not %d", maxForwardTargetGroups, len(tuples))
	}
	if stick == nil {
		stick = &types.TargetGroupStickinessConfig{Enabled: aws.Bool(false)}
	}
	fc := &types.ForwardActionConfig{TargetGroupStickinessConfig: stick}
	tgs := make([]*targetGroup, 0, len(tuples))
	for _, tu := range tuples {
		if tu.TargetGroupArn == nil {
			return nil, nil, validationf("every ForwardConfig target group needs a TargetGroupArn")
		}
		w := int32(1)
		if tu.Weight != nil {
			w = *tu.Weight
		}
		if w < 0 || w > maxWeight {
			return nil, nil, validationf("weight %d of %s is outside 0-%d", w, *tu.TargetGroupArn, maxWeight)
		}
		tg, err := m.tgLocked(*tu.TargetGroupArn)
		if err != nil {
			return nil, nil, err
		}
		if slices.Contains(tgs, tg) {
			return nil, nil, validationf("target group %s appears twice in one forward action", tg.arn)
		}
		if tg.vpcID != lb.vpcID {
			return nil, nil, invalidAction("target group %s is in VPC %s, the load balancer in %s", tg.arn, tg.vpcID, lb.vpcID)
		}
		if tg.lb != nil && tg.lb != lb {
			return nil, nil, &types.TargetGroupAssociationLimitException{Message: aws.String("target group " + tg.arn + " is already used by load balancer " + tg.lb.arn + "; a target group can be used by only one load balancer")}
		}
		tgs = append(tgs, tg)
		fc.TargetGroups = append(fc.TargetGroups, types.TargetGroupTuple{TargetGroupArn: aws.String(tg.arn), Weight: aws.Int32(w)})
	}
	return fc, tgs, nil
}

// copyActions deep-copies stored (already normalised) actions for output.
func copyActions(in []types.Action) []types.Action {
	out := make([]types.Action, 0, len(in))
	for _, a := range in {
		c := types.Action{Type: a.Type, Order: cpInt32(a.Order), TargetGroupArn: cp(a.TargetGroupArn)}
		if f := a.ForwardConfig; f != nil {
			c.ForwardConfig = &types.ForwardActionConfig{}
			for _, tu := range f.TargetGroups {
				c.ForwardConfig.TargetGroups = append(c.ForwardConfig.TargetGroups, types.TargetGroupTuple{TargetGroupArn: cp(tu.TargetGroupArn), Weight: cpInt32(tu.Weight)})
			}
			if s := f.TargetGroupStickinessConfig; s != nil {
				c.ForwardConfig.TargetGroupStickinessConfig = &types.TargetGroupStickinessConfig{Enabled: cpBool(s.Enabled), DurationSeconds: cpInt32(s.DurationSeconds)}
			}
		}
		if f := a.FixedResponseConfig; f != nil {
			c.FixedResponseConfig = &types.FixedResponseActionConfig{StatusCode: cp(f.StatusCode), ContentType: cp(f.ContentType), MessageBody: cp(f.MessageBody)}
		}
		if r := a.RedirectConfig; r != nil {
			c.RedirectConfig = &types.RedirectActionConfig{StatusCode: r.StatusCode, Host: cp(r.Host), Path: cp(r.Path), Port: cp(r.Port), Protocol: cp(r.Protocol), Query: cp(r.Query)}
		}
		out = append(out, c)
	}
	return out
}

var conditionFields = []string{"http-header", "http-request-method", "host-header", "path-pattern", "query-string", "source-ip"}

// checkConditions validates rule conditions and returns a deep copy. The
// simulator stores conditions but does not match requests against them:
// traffic names the rule it goes through.
func checkConditions(in []types.RuleCondition) ([]types.RuleCondition, error) {
	out := make([]types.RuleCondition, 0, len(in))
	for _, c := range in {
		if c.Field == nil || !slices.Contains(conditionFields, *c.Field) {
			return nil, validationf("every condition needs a Field among %v", conditionFields)
		}
		d := types.RuleCondition{Field: cp(c.Field), Values: slices.Clone(c.Values), RegexValues: slices.Clone(c.RegexValues)}
		if h := c.HostHeaderConfig; h != nil {
			d.HostHeaderConfig = &types.HostHeaderConditionConfig{Values: slices.Clone(h.Values), RegexValues: slices.Clone(h.RegexValues)}
		}
		if h := c.HttpHeaderConfig; h != nil {
			d.HttpHeaderConfig = &types.HttpHeaderConditionConfig{HttpHeaderName: cp(h.HttpHeaderName), Values: slices.Clone(h.Values), RegexValues: slices.Clone(h.RegexValues)}
		}
		if h := c.HttpRequestMethodConfig; h != nil {
			d.HttpRequestMethodConfig = &types.HttpRequestMethodConditionConfig{Values: slices.Clone(h.Values)}
		}
		if p := c.PathPatternConfig; p != nil {
			d.PathPatternConfig = &types.PathPatternConditionConfig{Values: slices.Clone(p.Values), RegexValues: slices.Clone(p.RegexValues)}
		}
		if q := c.QueryStringConfig; q != nil {
			d.QueryStringConfig = &types.QueryStringConditionConfig{}
			for _, kv := range q.Values {
				d.QueryStringConfig.Values = append(d.QueryStringConfig.Values, types.QueryStringKeyValuePair{Key: cp(kv.Key), Value: cp(kv.Value)})
			}
		}
		if s := c.SourceIpConfig; s != nil {
			d.SourceIpConfig = &types.SourceIpConditionConfig{IpAddressType: s.IpAddressType, Values: slices.Clone(s.Values)}
		}
		out = append(out, d)
	}
	return out, nil
}

func copyConditions(in []types.RuleCondition) []types.RuleCondition {
	out, _ := checkConditions(in) // stored conditions were checked on the way in
	return out
}

func cp(s *string) *string {
	if s == nil {
		return nil
	}
	v := *s
	return &v
}

func cpInt32(p *int32) *int32 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func cpBool(p *bool) *bool {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
