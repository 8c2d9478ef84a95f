package ec2sim

// api.go: the narrow interfaces the Client satisfies: Reader,
// NetworkReader, InstanceReader, IngressWriter, API.

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
)

// Reader is the read-only EC2 role: the VPCs, the security groups with
// their rules, and the network interfaces that carry the groups to
// addresses. A planner that only reads takes a Reader.
type Reader interface {
	// DescribeVpcs is the SDK call behind IAM action ec2:DescribeVpcs.
	DescribeVpcs(ctx context.Context, params *ec2.DescribeVpcsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeVpcsOutput, error)
	// DescribeSecurityGroups is the SDK call behind IAM action ec2:DescribeSecurityGroups.
	DescribeSecurityGroups(ctx context.Context, params *ec2.DescribeSecurityGroupsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error)
	// DescribeNetworkInterfaces is the SDK call behind IAM action ec2:DescribeNetworkInterfaces.
	DescribeNetworkInterfaces(ctx context.Context, params *ec2.DescribeNetworkInterfacesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeNetworkInterfacesOutput, error)
}

// NetworkReader is the read-only role over the network's layout: the
// subnets, the route tables that carry their traffic, and the VPC
// endpoints. A check of whether nodes may move to private subnets takes
// it (with the security groups of [Reader]).
type NetworkReader interface {
	// DescribeSubnets is the SDK call behind IAM action ec2:DescribeSubnets.
	DescribeSubnets(ctx context.Context, params *ec2.DescribeSubnetsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error)
	// DescribeRouteTables is the SDK call behind IAM action ec2:DescribeRouteTables.
	DescribeRouteTables(ctx context.Context, params *ec2.DescribeRouteTablesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error)
	// DescribeVpcEndpoints is the SDK call behind IAM action ec2:DescribeVpcEndpoints.
	DescribeVpcEndpoints(ctx context.Context, params *ec2.DescribeVpcEndpointsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeVpcEndpointsOutput, error)
}

// InstanceReader is the read-only role over the instances: where each
// sits (its VPC, subnet and address), its state and its tags. Diagnose's
// public-subnet check takes it, with the route tables of [NetworkReader].
type InstanceReader interface {
	// DescribeInstances is the SDK call behind IAM action ec2:DescribeInstances.
	DescribeInstances(ctx context.Context, params *ec2.DescribeInstancesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error)
}

// IngressWriter is the role that changes security groups' ingress rules,
// as the AWS Load Balancer Controller does for its targets.
type IngressWriter interface {
	// AuthorizeSecurityGroupIngress is the SDK call behind IAM action ec2:AuthorizeSecurityGroupIngress.
	AuthorizeSecurityGroupIngress(ctx context.Context, params *ec2.AuthorizeSecurityGroupIngressInput, optFns ...func(*ec2.Options)) (*ec2.AuthorizeSecurityGroupIngressOutput, error)
	// RevokeSecurityGroupIngress is the SDK call behind IAM action ec2:RevokeSecurityGroupIngress.
	RevokeSecurityGroupIngress(ctx context.Context, params *ec2.RevokeSecurityGroupIngressInput, optFns ...func(*ec2.Options)) (*ec2.RevokeSecurityGroupIngressOutput, error)
}

// API is every EC2 operation the simulator serves, with the SDK's own
// signatures: *ec2.Client and *Client both satisfy it.
type API interface {
	Reader
	NetworkReader
	InstanceReader
	IngressWriter
}

var (
	_ API = (*Client)(nil)
	_ API = (*ec2.Client)(nil)
	// The SDK's paginators take the Client too.
	_ ec2.DescribeSecurityGroupsAPIClient    = (*Client)(nil)
	_ ec2.DescribeVpcsAPIClient              = (*Client)(nil)
	_ ec2.DescribeNetworkInterfacesAPIClient = (*Client)(nil)
	_ ec2.DescribeSubnetsAPIClient           = (*Client)(nil)
	_ ec2.DescribeRouteTablesAPIClient       = (*Client)(nil)
	_ ec2.DescribeVpcEndpointsAPIClient      = (*Client)(nil)
	_ ec2.DescribeInstancesAPIClient         = (*Client)(nil)
	_ Reader                                 = (*ec2.Client)(nil)
	_ Reader                                 = (*Client)(nil)
	_ NetworkReader                          = (*ec2.Client)(nil)
	_ NetworkReader                          = (*Client)(nil)
	_ InstanceReader                         = (*ec2.Client)(nil)
	_ InstanceReader                         = (*Client)(nil)
)
