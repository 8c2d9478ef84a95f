package cutover

// counting.go holds countingAPI, which counts every ELBv2 call of a run by
// operation, retries included (Result.Calls).

import (
	"context"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
)

// countingAPI counts every call that goes through it, by operation,
// retries included, before passing it on unchanged. Execute and Rollback
// report the counts in their results.
type countingAPI struct {
	next   ELBv2API
	counts *callCounts
}

var _ ELBv2API = (*countingAPI)(nil)

func (c *countingAPI) DescribeTargetGroups(ctx context.Context, in *elbv2.DescribeTargetGroupsInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
	c.counts.add("DescribeTargetGroups")
	return c.next.DescribeTargetGroups(ctx, in, o...)
}

func (c *countingAPI) DescribeTargetHealth(ctx context.Context, in *elbv2.DescribeTargetHealthInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
	c.counts.add("DescribeTargetHealth")
	return c.next.DescribeTargetHealth(ctx, in, o...)
}

func (c *countingAPI) DescribeTargetGroupAttributes(ctx context.Context, in *elbv2.DescribeTargetGroupAttributesInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupAttributesOutput, error) {
	c.counts.add("DescribeTargetGroupAttributes")
	return c.next.DescribeTargetGroupAttributes(ctx, in, o...)
}

func (c *countingAPI) DescribeTags(ctx context.Context, in *elbv2.DescribeTagsInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTagsOutput, error) {
	c.counts.add("DescribeTags")
	return c.next.DescribeTags(ctx, in, o...)
}

func (c *countingAPI) DescribeLoadBalancers(ctx context.Context, in *elbv2.DescribeLoadBalancersInput, o ...func(*elbv2.Options)) (*elbv2.DescribeLoadBalancersOutput, error) {
	c.counts.add("DescribeLoadBalancers")
	return c.next.DescribeLoadBalancers(ctx, in, o...)
}

func (c *countingAPI) DescribeListeners(ctx context.Context, in *elbv2.DescribeListenersInput, o ...func(*elbv2.Options)) (*elbv2.DescribeListenersOutput, error) {
	c.counts.add("DescribeListeners")
	return c.next.DescribeListeners(ctx, in, o...)
}

func (c *countingAPI) DescribeRules(ctx context.Context, in *elbv2.DescribeRulesInput, o ...func(*elbv2.Options)) (*elbv2.DescribeRulesOutput, error) {
	c.counts.add("DescribeRules")
	return c.next.DescribeRules(ctx, in, o...)
}

func (c *countingAPI) RegisterTargets(ctx context.Context, in *elbv2.RegisterTargetsInput, o ...func(*elbv2.Options)) (*elbv2.RegisterTargetsOutput, error) {
	c.counts.add("RegisterTargets")
	return c.next.RegisterTargets(ctx, in, o...)
}

func (c *countingAPI) DeregisterTargets(ctx context.Context, in *elbv2.DeregisterTargetsInput, o ...func(*elbv2.Options)) (*elbv2.DeregisterTargetsOutput, error) {
	c.counts.add("DeregisterTargets")
	return c.next.DeregisterTargets(ctx, in, o...)
}

func (c *countingAPI) CreateTargetGroup(ctx context.Context, in *elbv2.CreateTargetGroupInput, o ...func(*elbv2.Options)) (*elbv2.CreateTargetGroupOutput, error) {
	c.counts.add("CreateTargetGroup")
	return c.next.CreateTargetGroup(ctx, in, o...)
}

func (c *countingAPI) DeleteTargetGroup(ctx context.Context, in *elbv2.DeleteTargetGroupInput, o ...func(*elbv2.Options)) (*elbv2.DeleteTargetGroupOutput, error) {
	c.counts.add("DeleteTargetGroup")
	return c.next.DeleteTargetGroup(ctx, in, o...)
}

func (c *countingAPI) ModifyTargetGroup(ctx context.Context, in *elbv2.ModifyTargetGroupInput, o ...func(*elbv2.Options)) (*elbv2.ModifyTargetGroupOutput, error) {
	c.counts.add("ModifyTargetGroup")
	return c.next.ModifyTargetGroup(ctx, in, o...)
}

func (c *countingAPI) ModifyTargetGroupAttributes(ctx context.Context, in *elbv2.ModifyTargetGroupAttributesInput, o ...func(*elbv2.Options)) (*elbv2.ModifyTargetGroupAttributesOutput, error) {
	c.counts.add("ModifyTargetGroupAttributes")
	return c.next.ModifyTargetGroupAttributes(ctx, in, o...)
}

func (c *countingAPI) AddTags(ctx context.Context, in *elbv2.AddTagsInput, o ...func(*elbv2.Options)) (*elbv2.AddTagsOutput, error) {
	c.counts.add("AddTags")
	return c.next.AddTags(ctx, in, o...)
}

func (c *countingAPI) ModifyListener(ctx context.Context, in *elbv2.ModifyListenerInput, o ...func(*elbv2.Options)) (*elbv2.ModifyListenerOutput, error) {
	c.counts.add("ModifyListener")
	return c.next.ModifyListener(ctx, in, o...)
}

func (c *countingAPI) ModifyRule(ctx context.Context, in *elbv2.ModifyRuleInput, o ...func(*elbv2.Options)) (*elbv2.ModifyRuleOutput, error) {
	c.counts.add("ModifyRule")
	return c.next.ModifyRule(ctx, in, o...)
}
