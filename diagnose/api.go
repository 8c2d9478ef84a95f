package diagnose

// api.go: the AWS interfaces Diagnose takes: ELBv2API (the root's
// read-only ELBv2ReadAPI) and EC2API, with their compile-time checks.

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/qstools/tgmigrate"
)

//go:generate go tool mockgen -typed -destination=mock_api_test.go -package=diagnose -self_package=github.com/qstools/tgmigrate/diagnose . EC2API

// ELBv2API is the read-only part of the ELBv2 API that Diagnose calls:
// [tgmigrate.ELBv2ReadAPI], the one declaration of it. It holds Describe*
// operations only, so a Diagnose run cannot change AWS, by construction.
// *elasticloadbalancingv2.Client satisfies it as it is, and so do the SDK's
// paginators' client interfaces.
type ELBv2API = tgmigrate.ELBv2ReadAPI

// EC2API is the optional, read-only part of the EC2 API that Diagnose uses
// to tell whether a node sits in a public subnet (one whose route table sends
// 0.0.0.0/0 to an internet gateway). *ec2.Client satisfies it as it is.
//
// Unlike ELBv2API it is declared here, not in package tgmigrate: no other
// package reads these EC2 operations (cutover.EC2API is a disjoint set), so
// the narrow interface stays where it is used.
type EC2API interface {
	// DescribeInstances is the SDK call behind IAM action ec2:DescribeInstances.
	DescribeInstances(ctx context.Context, params *ec2.DescribeInstancesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error)
	// DescribeSubnets is the SDK call behind IAM action ec2:DescribeSubnets.
	DescribeSubnets(ctx context.Context, params *ec2.DescribeSubnetsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error)
	// DescribeRouteTables is the SDK call behind IAM action ec2:DescribeRouteTables.
	DescribeRouteTables(ctx context.Context, params *ec2.DescribeRouteTablesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error)
}

// The real SDK client satisfies EC2API with no adapter, and so do the SDK's
// own paginator client interfaces. Package tgmigrate asserts the same of
// ELBv2API.
var (
	_ EC2API                           = (*ec2.Client)(nil)
	_ ec2.DescribeInstancesAPIClient   = EC2API(nil)
	_ ec2.DescribeSubnetsAPIClient     = EC2API(nil)
	_ ec2.DescribeRouteTablesAPIClient = EC2API(nil)
)
