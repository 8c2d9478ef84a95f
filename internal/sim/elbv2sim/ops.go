package elbv2sim

// ops.go: the ELBv2 operations, with the SDK's signatures.

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
)

// The SDK-shaped operations. Each builds the call's request (its resources,
// for the call log, the faults and the IAM check) and hands the Input to
// the model unchanged.

func str(p *string) []string {
	if p == nil {
		return nil
	}
	return []string{*p}
}

// DescribeTargetGroups implements the ELBv2 operation.
func (c *Client) DescribeTargetGroups(ctx context.Context, params *elbv2.DescribeTargetGroupsInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
	req := request{op: OpDescribeTargetGroups}
	if params != nil {
		req.resources = append(append(req.resources, params.TargetGroupArns...), str(params.LoadBalancerArn)...)
		req.names = params.Names
		req.lists = len(params.TargetGroupArns) == 0 && len(params.Names) == 0
	} else {
		req.lists = true
	}
	out, err := invoke(ctx, c, req, params, c.model.DescribeTargetGroups, nil)
	if err == nil && req.lists {
		c.hideInvisible(out, c.clock.Now())
	}
	return out, err
}

// hideInvisible drops the invisible target groups from a listing made at
// now.
func (c *Client) hideInvisible(out *elbv2.DescribeTargetGroupsOutput, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cs := c.opts.Consistency
	if len(c.invisible) == 0 && cs == nil {
		return
	}
	kept := out.TargetGroups[:0]
	for _, tg := range out.TargetGroups {
		arn := aws.ToString(tg.TargetGroupArn)
		if cs.hidden(c.opts.Name, arn, now) {
			continue
		}
		if c.invisible[arn] > 0 {
			c.seenLocked(arn)
			continue
		}
		kept = append(kept, tg)
	}
	out.TargetGroups = kept
}

// DescribeTargetHealth implements the ELBv2 operation.
func (c *Client) DescribeTargetHealth(ctx context.Context, params *elbv2.DescribeTargetHealthInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
	req := request{op: OpDescribeTargetHealth}
	if params != nil {
		req.resources, req.targets = str(params.TargetGroupArn), len(params.Targets)
	}
	return invoke(ctx, c, req, params, c.model.DescribeTargetHealth, nil)
}

// DescribeTargetGroupAttributes implements the ELBv2 operation.
func (c *Client) DescribeTargetGroupAttributes(ctx context.Context, params *elbv2.DescribeTargetGroupAttributesInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupAttributesOutput, error) {
	req := request{op: OpDescribeTargetGroupAttributes}
	if params != nil {
		req.resources = str(params.TargetGroupArn)
	}
	return invoke(ctx, c, req, params, c.model.DescribeTargetGroupAttributes, nil)
}

// DescribeTags implements the ELBv2 operation.
func (c *Client) DescribeTags(ctx context.Context, params *elbv2.DescribeTagsInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeTagsOutput, error) {
	req := request{op: OpDescribeTags}
	if params != nil {
		req.resources = append([]string(nil), params.ResourceArns...)
	}
	return invoke(ctx, c, req, params, c.model.DescribeTags, nil)
}

// DescribeLoadBalancers implements the ELBv2 operation.
func (c *Client) DescribeLoadBalancers(ctx context.Context, params *elbv2.DescribeLoadBalancersInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeLoadBalancersOutput, error) {
	req := request{op: OpDescribeLoadBalancers}
	if params != nil {
		req.resources = append([]string(nil), params.LoadBalancerArns...)
	}
	return invoke(ctx, c, req, params, c.model.DescribeLoadBalancers, nil)
}

// DescribeListeners implements the ELBv2 operation.
func (c *Client) DescribeListeners(ctx context.Context, params *elbv2.DescribeListenersInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeListenersOutput, error) {
	req := request{op: OpDescribeListeners}
	if params != nil {
		req.resources = append(append([]string(nil), params.ListenerArns...), str(params.LoadBalancerArn)...)
	}
	return invoke(ctx, c, req, params, c.model.DescribeListeners, nil)
}

// DescribeRules implements the ELBv2 operation.
func (c *Client) DescribeRules(ctx context.Context, params *elbv2.DescribeRulesInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeRulesOutput, error) {
	req := request{op: OpDescribeRules}
	if params != nil {
		req.resources = append(append([]string(nil), params.RuleArns...), str(params.ListenerArn)...)
	}
	return invoke(ctx, c, req, params, c.model.DescribeRules, nil)
}

// RegisterTargets implements the ELBv2 operation.
func (c *Client) RegisterTargets(ctx context.Context, params *elbv2.RegisterTargetsInput, optFns ...func(*elbv2.Options)) (*elbv2.RegisterTargetsOutput, error) {
	req := request{op: OpRegisterTargets}
	if params != nil {
		req.resources, req.targets = str(params.TargetGroupArn), len(params.Targets)
	}
	return invoke(ctx, c, req, params, c.model.RegisterTargets, nil)
}

// DeregisterTargets implements the ELBv2 operation.
func (c *Client) DeregisterTargets(ctx context.Context, params *elbv2.DeregisterTargetsInput, optFns ...func(*elbv2.Options)) (*elbv2.DeregisterTargetsOutput, error) {
	req := request{op: OpDeregisterTargets}
	if params != nil {
		req.resources, req.targets = str(params.TargetGroupArn), len(params.Targets)
	}
	return invoke(ctx, c, req, params, c.model.DeregisterTargets, nil)
}

// CreateTargetGroup implements the ELBv2 operation. With
// Options.InvisibleCalls, the target group it creates starts invisible to
// this client; with Options.Consistency, to every client sharing it, from
// the instant the create reached the service.
func (c *Client) CreateTargetGroup(ctx context.Context, params *elbv2.CreateTargetGroupInput, optFns ...func(*elbv2.Options)) (*elbv2.CreateTargetGroupOutput, error) {
	req := request{op: OpCreateTargetGroup}
	name := ""
	if params != nil && params.Name != nil {
		name = *params.Name
		req.resources = []string{c.model.TargetGroupARNPattern(name)}
	}
	hides := c.opts.InvisibleCalls > 0 || c.opts.Consistency != nil
	existed := false
	if hides && name != "" {
		_, err := c.model.DescribeTargetGroups(&elbv2.DescribeTargetGroupsInput{Names: []string{name}})
		existed = err == nil
	}
	var at time.Time
	out, err := invoke(ctx, c, req, params, c.model.CreateTargetGroup, func(o *elbv2.CreateTargetGroupOutput) []string {
		at = c.clock.Now()
		return arnsOf(o.TargetGroups)
	})
	if err != nil || existed || !hides || len(out.TargetGroups) != 1 {
		return out, err
	}
	arn := aws.ToString(out.TargetGroups[0].TargetGroupArn)
	c.opts.Consistency.record(arn, name, at)
	if c.opts.InvisibleCalls > 0 {
		c.mu.Lock()
		c.invisible[arn] = c.opts.InvisibleCalls
		c.names[name] = arn
		c.mu.Unlock()
	}
	return out, err
}

func arnsOf(tgs []types.TargetGroup) []string {
	out := make([]string, 0, len(tgs))
	for _, tg := range tgs {
		out = append(out, aws.ToString(tg.TargetGroupArn))
	}
	return out
}

// ModifyTargetGroup implements the ELBv2 operation.
func (c *Client) ModifyTargetGroup(ctx context.Context, params *elbv2.ModifyTargetGroupInput, optFns ...func(*elbv2.Options)) (*elbv2.ModifyTargetGroupOutput, error) {
	req := request{op: OpModifyTargetGroup}
	if params != nil {
		req.resources = str(params.TargetGroupArn)
	}
	return invoke(ctx, c, req, params, c.model.ModifyTargetGroup, nil)
}

// ModifyTargetGroupAttributes implements the ELBv2 operation.
func (c *Client) ModifyTargetGroupAttributes(ctx context.Context, params *elbv2.ModifyTargetGroupAttributesInput, optFns ...func(*elbv2.Options)) (*elbv2.ModifyTargetGroupAttributesOutput, error) {
	req := request{op: OpModifyTargetGroupAttributes}
	if params != nil {
		req.resources = str(params.TargetGroupArn)
	}
	return invoke(ctx, c, req, params, c.model.ModifyTargetGroupAttributes, nil)
}

// DeleteTargetGroup implements the ELBv2 operation.
func (c *Client) DeleteTargetGroup(ctx context.Context, params *elbv2.DeleteTargetGroupInput, optFns ...func(*elbv2.Options)) (*elbv2.DeleteTargetGroupOutput, error) {
	req := request{op: OpDeleteTargetGroup}
	if params != nil {
		req.resources = str(params.TargetGroupArn)
	}
	out, err := invoke(ctx, c, req, params, c.model.DeleteTargetGroup, nil)
	if err == nil && params != nil {
		c.opts.Consistency.forget(aws.ToString(params.TargetGroupArn))
	}
	return out, err
}

// AddTags implements the ELBv2 operation.
func (c *Client) AddTags(ctx context.Context, params *elbv2.AddTagsInput, optFns ...func(*elbv2.Options)) (*elbv2.AddTagsOutput, error) {
	req := request{op: OpAddTags}
	if params != nil {
		req.resources = append([]string(nil), params.ResourceArns...)
	}
	return invoke(ctx, c, req, params, c.model.AddTags, nil)
}

// ModifyListener implements the ELBv2 operation.
func (c *Client) ModifyListener(ctx context.Context, params *elbv2.ModifyListenerInput, optFns ...func(*elbv2.Options)) (*elbv2.ModifyListenerOutput, error) {
	req := request{op: OpModifyListener}
	if params != nil {
		req.resources, req.refs = str(params.ListenerArn), actionTargetGroups(params.DefaultActions)
	}
	return invoke(ctx, c, req, params, c.model.ModifyListener, nil)
}

// ModifyRule implements the ELBv2 operation.
func (c *Client) ModifyRule(ctx context.Context, params *elbv2.ModifyRuleInput, optFns ...func(*elbv2.Options)) (*elbv2.ModifyRuleOutput, error) {
	req := request{op: OpModifyRule}
	if params != nil {
		req.resources, req.refs = str(params.RuleArn), actionTargetGroups(params.Actions)
	}
	return invoke(ctx, c, req, params, c.model.ModifyRule, nil)
}

// actionTargetGroups lists the target groups actions forward to, once each.
func actionTargetGroups(actions []types.Action) []string {
	var out []string
	add := func(p *string) {
		if p == nil {
			return
		}
		for _, a := range out {
			if a == *p {
				return
			}
		}
		out = append(out, *p)
	}
	for _, a := range actions {
		add(a.TargetGroupArn)
		if a.ForwardConfig != nil {
			for _, tu := range a.ForwardConfig.TargetGroups {
				add(tu.TargetGroupArn)
			}
		}
	}
	return out
}
