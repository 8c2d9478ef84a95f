package subnets

// api.go: the read-only clients CheckReadiness takes: EC2API (subnets,
// route tables, VPC endpoints, security groups), ELBv2API (the root's
// read-only ELBv2ReadAPI), with their compile-time checks.

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/qstools/tgmigrate"
)

// EC2API is the read-only part of the EC2 API that [CheckReadiness]
// calls, with the SDK's own signatures: *ec2.Client satisfies it as it
// is, and so do the SDK's paginators' client interfaces. It holds no
// write: a readiness check cannot change AWS, by construction.
type EC2API interface {
	// DescribeSubnets is the SDK call behind IAM action ec2:DescribeSubnets.
	DescribeSubnets(ctx context.Context, params *ec2.DescribeSubnetsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error)
	// DescribeRouteTables is the SDK call behind IAM action ec2:DescribeRouteTables.
	DescribeRouteTables(ctx context.Context, params *ec2.DescribeRouteTablesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error)
	// DescribeVpcEndpoints is the SDK call behind IAM action ec2:DescribeVpcEndpoints.
	DescribeVpcEndpoints(ctx context.Context, params *ec2.DescribeVpcEndpointsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeVpcEndpointsOutput, error)
	// DescribeSecurityGroups is the SDK call behind IAM action ec2:DescribeSecurityGroups.
	DescribeSecurityGroups(ctx context.Context, params *ec2.DescribeSecurityGroupsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error)
}

// ELBv2API is the read-only ELBv2 API [CheckReadiness] calls:
// [tgmigrate.ELBv2ReadAPI], the one declaration of it.
type ELBv2API = tgmigrate.ELBv2ReadAPI

var (
	_ EC2API                              = (*ec2.Client)(nil)
	_ ec2.DescribeSubnetsAPIClient        = EC2API(nil)
	_ ec2.DescribeRouteTablesAPIClient    = EC2API(nil)
	_ ec2.DescribeVpcEndpointsAPIClient   = EC2API(nil)
	_ ec2.DescribeSecurityGroupsAPIClient = EC2API(nil)
)
