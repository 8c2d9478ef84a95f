package diagnose

// This file is the optional EC2 reads: the subnets of the node instances,
// and whether their route tables send the default route to an internet
// gateway (PublicSubnetNode).

import (
	"context"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/qstools/tgmigrate/internal/netcheck"
	"github.com/qstools/tgmigrate/internal/read"
)

// guardedEC2 adapts an accountScan to the EC2 paginators' client
// interfaces: each page is a read.Call. A nil output with a nil error is an [ErrNilResponse] error here, before a
// paginator dereferences it.
type guardedEC2 struct{ a *accountScan }

var (
	_ ec2.DescribeInstancesAPIClient   = guardedEC2{}
	_ ec2.DescribeRouteTablesAPIClient = guardedEC2{}
)

// DescribeInstances is the rate-limited, retried and counted call.
func (g guardedEC2) DescribeInstances(ctx context.Context, in *ec2.DescribeInstancesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error) {
	return read.Call(ctx, g.a.c, "DescribeInstances", "", func(ctx context.Context) (*ec2.DescribeInstancesOutput, error) {
		return g.a.acct.EC2.DescribeInstances(ctx, in, optFns...)
	})
}

// DescribeRouteTables is the rate-limited, retried and counted call.
func (g guardedEC2) DescribeRouteTables(ctx context.Context, in *ec2.DescribeRouteTablesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error) {
	return read.Call(ctx, g.a.c, "DescribeRouteTables", "", func(ctx context.Context) (*ec2.DescribeRouteTablesOutput, error) {
		return g.a.acct.EC2.DescribeRouteTables(ctx, in, optFns...)
	})
}

// placement is where an instance sits.
type placement struct {
	subnetID string
	public   bool
}

// placements finds the subnet of each instance and whether that subnet
// routes to an internet gateway: one paged DescribeInstances per
// InstanceBatch instances (by filter, so that a terminated instance does not
// fail the call) and one paged DescribeRouteTables for their VPCs.
func (a *accountScan) placements(ctx context.Context, instanceIDs []string) (map[string]placement, error) {
	g := guardedEC2{a}
	subnetOf := map[string]string{}
	vpcOf := map[string]string{}
	vpcs := map[string]bool{}
	for chunk := range slices.Chunk(instanceIDs, InstanceBatch) {
		reservations, err := read.Drain(ctx, g.a.c, "DescribeInstances", ec2.NewDescribeInstancesPaginator(g, &ec2.DescribeInstancesInput{
			Filters:    []ec2types.Filter{{Name: aws.String("instance-id"), Values: chunk}},
			MaxResults: aws.Int32(1000),
		}), func(o *ec2.DescribeInstancesOutput) ([]ec2types.Reservation, *string) {
			return o.Reservations, o.NextToken
		})
		if err != nil {
			return nil, err
		}
		for _, r := range reservations {
			for _, in := range r.Instances {
				if in.SubnetId != nil {
					id := aws.ToString(in.InstanceId)
					subnetOf[id] = aws.ToString(in.SubnetId)
					vpcOf[id] = aws.ToString(in.VpcId)
					vpcs[vpcOf[id]] = true
				}
			}
		}
	}
	if len(subnetOf) == 0 {
		return map[string]placement{}, nil
	}
	vpcList := slices.Sorted(maps.Keys(vpcs))
	tables, err := read.Drain(ctx, g.a.c, "DescribeRouteTables", ec2.NewDescribeRouteTablesPaginator(g, &ec2.DescribeRouteTablesInput{
		Filters:    []ec2types.Filter{{Name: aws.String("vpc-id"), Values: vpcList}},
		MaxResults: aws.Int32(100),
	}), func(o *ec2.DescribeRouteTablesOutput) ([]ec2types.RouteTable, *string) {
		return o.RouteTables, o.NextToken
	})
	if err != nil {
		return nil, err
	}
	rts := netcheck.IndexRouteTables(tables)
	out := map[string]placement{}
	for id, subnet := range subnetOf {
		// Not explicitly associated: its VPC's main route table applies.
		rt := rts.For(subnet, vpcOf[id])
		out[id] = placement{subnetID: subnet, public: rt != nil && netcheck.RoutesToIGW(*rt)}
	}
	return out, nil
}
