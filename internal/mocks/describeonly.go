package mocks

// describeonly.go holds DescribeOnly, the one read-only ELBv2 client of the
// tests: the seven Describe methods of tgmigrate.ELBv2ReadAPI and nothing
// else, each passed on to another client.

import (
	"context"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"

	"github.com/qstools/tgmigrate"
)

// DescribeOnly is a [tgmigrate.ELBv2ReadAPI] and nothing more: the seven
// Describe methods, each passed on to Next. It embeds nothing, so it is no
// [tgmigrate.ELBv2API] and no writer role, by type, and no write can reach
// Next through it. The tests of a read-only path (Diagnose, PlanCutover)
// hand it over to show that the path compiles and runs with no write
// method.
type DescribeOnly struct {
	// Next answers the calls: the simulator's client, a mock, or the SDK's.
	Next tgmigrate.ELBv2ReadAPI
}

var _ tgmigrate.ELBv2ReadAPI = DescribeOnly{}

// DescribeTargetGroups passes the call on to Next.
func (d DescribeOnly) DescribeTargetGroups(ctx context.Context, in *elbv2.DescribeTargetGroupsInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
	return d.Next.DescribeTargetGroups(ctx, in, o...)
}

// DescribeTargetHealth passes the call on to Next.
func (d DescribeOnly) DescribeTargetHealth(ctx context.Context, in *elbv2.DescribeTargetHealthInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
	return d.Next.DescribeTargetHealth(ctx, in, o...)
}

// DescribeTargetGroupAttributes passes the call on to Next.
func (d DescribeOnly) DescribeTargetGroupAttributes(ctx context.Context, in *elbv2.DescribeTargetGroupAttributesInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupAttributesOutput, error) {
	return d.Next.DescribeTargetGroupAttributes(ctx, in, o...)
}

// DescribeTags passes the call on to Next.
func (d DescribeOnly) DescribeTags(ctx context.Context, in *elbv2.DescribeTagsInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTagsOutput, error) {
	return d.Next.DescribeTags(ctx, in, o...)
}

// DescribeLoadBalancers passes the call on to Next.
func (d DescribeOnly) DescribeLoadBalancers(ctx context.Context, in *elbv2.DescribeLoadBalancersInput, o ...func(*elbv2.Options)) (*elbv2.DescribeLoadBalancersOutput, error) {
	return d.Next.DescribeLoadBalancers(ctx, in, o...)
}

// DescribeListeners passes the call on to Next.
func (d DescribeOnly) DescribeListeners(ctx context.Context, in *elbv2.DescribeListenersInput, o ...func(*elbv2.Options)) (*elbv2.DescribeListenersOutput, error) {
	return d.Next.DescribeListeners(ctx, in, o...)
}

// DescribeRules passes the call on to Next.
func (d DescribeOnly) DescribeRules(ctx context.Context, in *elbv2.DescribeRulesInput, o ...func(*elbv2.Options)) (*elbv2.DescribeRulesOutput, error) {
	return d.Next.DescribeRules(ctx, in, o...)
}
