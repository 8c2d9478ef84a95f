package tgmigratetest

// ec2.go: the world's EC2 as the code under test reads it: EC2API (the
// security groups, network interfaces, instances, subnets, route tables
// and VPC endpoints, read-only) and World.EC2.

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
)

// EC2API is the read-only EC2 API of a world, with the SDK's own
// signatures: the security groups and the network interfaces that carry
// them to addresses (cutover's security-group check, cutover.EC2API), and
// the VPC's subnets, route tables and endpoints (step 4's readiness,
// subnets.EC2API), and the instances behind the nodes with the route
// tables (diagnose's public-subnet check, diagnose.EC2API). It holds no
// write. *ec2.Client satisfies it as it is.
type EC2API interface {
	// DescribeSecurityGroups is the SDK call behind IAM action ec2:DescribeSecurityGroups.
	DescribeSecurityGroups(ctx context.Context, params *ec2.DescribeSecurityGroupsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error)
	// DescribeNetworkInterfaces is the SDK call behind IAM action ec2:DescribeNetworkInterfaces.
	DescribeNetworkInterfaces(ctx context.Context, params *ec2.DescribeNetworkInterfacesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeNetworkInterfacesOutput, error)
	// DescribeVpcs is the SDK call behind IAM action ec2:DescribeVpcs.
	DescribeVpcs(ctx context.Context, params *ec2.DescribeVpcsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeVpcsOutput, error)
	// DescribeSubnets is the SDK call behind IAM action ec2:DescribeSubnets.
	DescribeSubnets(ctx context.Context, params *ec2.DescribeSubnetsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error)
	// DescribeRouteTables is the SDK call behind IAM action ec2:DescribeRouteTables.
	DescribeRouteTables(ctx context.Context, params *ec2.DescribeRouteTablesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error)
	// DescribeVpcEndpoints is the SDK call behind IAM action ec2:DescribeVpcEndpoints.
	DescribeVpcEndpoints(ctx context.Context, params *ec2.DescribeVpcEndpointsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeVpcEndpointsOutput, error)
	// DescribeInstances is the SDK call behind IAM action ec2:DescribeInstances.
	DescribeInstances(ctx context.Context, params *ec2.DescribeInstancesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error)
}

// ec2Ops are the operations of [EC2API]: the ones a [Fault] may name on
// EC2.
var ec2Ops = []string{
	"DescribeSecurityGroups", "DescribeNetworkInterfaces", "DescribeVpcs",
	"DescribeSubnets", "DescribeRouteTables", "DescribeVpcEndpoints", "DescribeInstances",
}

// EC2 returns the world's EC2 client of the code under test, read-only:
// give it to cutover.Env.EC2 or cutover.ReadEnv.EC2 (PlanCutover then
// checks that the load balancer's security groups let it reach the pods'
// port), to subnets.Input.EC2 and to diagnose.Account.EC2 (its
// public-subnet check). It reads the world's network: the load
// balancer's and the nodes' security groups (the nodes' tagged
// kubernetes.io/cluster/[ClusterName], which the pods share), one network
// interface per node carrying its pods' addresses, one instance per node
// (its subnet, VPC, address and state, tagged as Karpenter tags what it
// launches: Name, karpenter.sh/nodepool, kubernetes.io/cluster/[ClusterName]
// and eks:eks-cluster-name; a terminated node's as terminated), and with
// Options.Move the subnets, route tables and endpoints of step 4. Its calls are
// counted ([World.Calls]) and fail as [World.Inject] arms; with
// Options.Wire they go through the real *ec2.Client. No type assertion
// recovers a write method from it.
func (w *World) EC2() EC2API { return readOnlyEC2{w.w.EC2()} }

// readOnlyEC2 hides every method of its client but the reads.
type readOnlyEC2 struct{ EC2API }

var _ EC2API = (*ec2.Client)(nil)
