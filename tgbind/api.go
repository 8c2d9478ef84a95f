package tgbind

import (
	"context"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
)

//go:generate go tool mockgen -typed -destination=mock_api_test.go -package=tgbind -self_package=github.com/qstools/tgmigrate/tgbind . ELBv2API

// ELBv2API is the part of the ELBv2 API that tgbind calls. tgbind changes
// Kubernetes, never AWS: the interface is read-only. Each method has the
// SDK's own signature, so *elasticloadbalancingv2.Client satisfies it as it is.
type ELBv2API interface {
	// DescribeTargetGroups is the SDK call behind IAM action elasticloadbalancing:DescribeTargetGroups.
	DescribeTargetGroups(ctx context.Context, params *elbv2.DescribeTargetGroupsInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error)
	// DescribeTargetHealth is the SDK call behind IAM action elasticloadbalancing:DescribeTargetHealth.
	DescribeTargetHealth(ctx context.Context, params *elbv2.DescribeTargetHealthInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error)
	// DescribeTags is the SDK call behind IAM action elasticloadbalancing:DescribeTags.
	DescribeTags(ctx context.Context, params *elbv2.DescribeTagsInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeTagsOutput, error)
	// DescribeLoadBalancers is the SDK call behind IAM action
	// elasticloadbalancing:DescribeLoadBalancers. Build calls it only with
	// [WithLoadBalancerSecurityGroups].
	DescribeLoadBalancers(ctx context.Context, params *elbv2.DescribeLoadBalancersInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeLoadBalancersOutput, error)
}

var (
	_ ELBv2API                             = (*elbv2.Client)(nil)
	_ elbv2.DescribeTargetHealthAPIClient  = ELBv2API(nil)
	_ elbv2.DescribeTargetGroupsAPIClient  = ELBv2API(nil)
	_ elbv2.DescribeLoadBalancersAPIClient = ELBv2API(nil)
)
