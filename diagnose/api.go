package diagnose

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
)

//go:generate go tool mockgen -typed -destination=mock_api_test.go -package=diagnose -self_package=github.com/qstools/tgmigrate/diagnose . ELBv2API,EC2API

// ELBv2API is the read-only part of the ELBv2 API that Diagnose calls. It
// holds Describe* operations only, so a Diagnose run cannot change AWS, by
// construction. Each method has the SDK's own signature:
// *elasticloadbalancingv2.Client satisfies ELBv2API as it is, and so do the
// SDK's paginators' client interfaces.
type ELBv2API interface {
	// DescribeTargetGroups is the SDK call behind IAM action elasticloadbalancing:DescribeTargetGroups.
	DescribeTargetGroups(ctx context.Context, params *elbv2.DescribeTargetGroupsInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error)
	// DescribeTargetHealth is the SDK call behind IAM action elasticloadbalancing:DescribeTargetHealth.
	DescribeTargetHealth(ctx context.Context, params *elbv2.DescribeTargetHealthInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error)
	// DescribeTargetGroupAttributes is the SDK call behind IAM action elasticloadbalancing:DescribeTargetGroupAttributes.
	DescribeTargetGroupAttributes(ctx context.Context, params *elbv2.DescribeTargetGroupAttributesInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupAttributesOutput, error)
	// DescribeTags is the SDK call behind IAM action elasticloadbalancing:DescribeTags.
	DescribeTags(ctx context.Context, params *elbv2.DescribeTagsInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeTagsOutput, error)
	// DescribeLoadBalancers is the SDK call behind IAM action elasticloadbalancing:DescribeLoadBalancers.
	DescribeLoadBalancers(ctx context.Context, params *elbv2.DescribeLoadBalancersInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeLoadBalancersOutput, error)
	// DescribeListeners is the SDK call behind IAM action elasticloadbalancing:DescribeListeners.
	DescribeListeners(ctx context.Context, params *elbv2.DescribeListenersInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeListenersOutput, error)
	// DescribeRules is the SDK call behind IAM action elasticloadbalancing:DescribeRules.
	DescribeRules(ctx context.Context, params *elbv2.DescribeRulesInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeRulesOutput, error)
}

// EC2API is the optional, read-only part of the EC2 API that Diagnose uses
// to tell whether a node sits in a public subnet (one whose route table sends
// 0.0.0.0/0 to an internet gateway). *ec2.Client satisfies it as it is.
type EC2API interface {
	// DescribeInstances is the SDK call behind IAM action ec2:DescribeInstances.
	DescribeInstances(ctx context.Context, params *ec2.DescribeInstancesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error)
	// DescribeSubnets is the SDK call behind IAM action ec2:DescribeSubnets.
	DescribeSubnets(ctx context.Context, params *ec2.DescribeSubnetsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error)
	// DescribeRouteTables is the SDK call behind IAM action ec2:DescribeRouteTables.
	DescribeRouteTables(ctx context.Context, params *ec2.DescribeRouteTablesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error)
}

// The real SDK clients satisfy the interfaces with no adapter, and so do the
// SDK's own paginator and waiter client interfaces.
var (
	_ ELBv2API                             = (*elbv2.Client)(nil)
	_ EC2API                               = (*ec2.Client)(nil)
	_ elbv2.DescribeTargetGroupsAPIClient  = ELBv2API(nil)
	_ elbv2.DescribeTargetHealthAPIClient  = ELBv2API(nil)
	_ elbv2.DescribeLoadBalancersAPIClient = ELBv2API(nil)
	_ elbv2.DescribeListenersAPIClient     = ELBv2API(nil)
	_ ec2.DescribeInstancesAPIClient       = EC2API(nil)
	_ ec2.DescribeSubnetsAPIClient         = EC2API(nil)
	_ ec2.DescribeRouteTablesAPIClient     = EC2API(nil)
)
