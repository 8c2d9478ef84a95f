package netcheck

// routes.go: RoutesToIGW, RoutesToNAT and RouteTables, the route-table
// facts a subnet's publicness and egress rest on.

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// isDefault reports whether a route is a default route (0.0.0.0/0 or ::/0).
func isDefault(r ec2types.Route) bool {
	return aws.ToString(r.DestinationCidrBlock) == "0.0.0.0/0" || aws.ToString(r.DestinationIpv6CidrBlock) == "::/0"
}

// RoutesToIGW reports whether the table sends a default route (0.0.0.0/0
// or ::/0) to an internet gateway (igw-…): the subnets it governs are
// public.
func RoutesToIGW(rt ec2types.RouteTable) bool {
	for _, r := range rt.Routes {
		if isDefault(r) && strings.HasPrefix(aws.ToString(r.GatewayId), "igw-") {
			return true
		}
	}
	return false
}

// RoutesToNAT returns the NAT gateway (nat-…) the table sends 0.0.0.0/0
// to, and "" when it sends it nowhere or elsewhere.
func RoutesToNAT(rt ec2types.RouteTable) string {
	for _, r := range rt.Routes {
		if aws.ToString(r.DestinationCidrBlock) == "0.0.0.0/0" && strings.HasPrefix(aws.ToString(r.NatGatewayId), "nat-") {
			return aws.ToString(r.NatGatewayId)
		}
	}
	return ""
}

// RouteTables indexes route tables by what they govern: a subnet's
// explicit association, else its VPC's main table.
type RouteTables struct {
	explicit map[string]*ec2types.RouteTable // subnet ID -> table
	main     map[string]*ec2types.RouteTable // VPC ID -> main table
}

// IndexRouteTables indexes tables.
func IndexRouteTables(tables []ec2types.RouteTable) RouteTables {
	rts := RouteTables{explicit: map[string]*ec2types.RouteTable{}, main: map[string]*ec2types.RouteTable{}}
	for i := range tables {
		rt := &tables[i]
		for _, as := range rt.Associations {
			switch {
			case aws.ToBool(as.Main):
				rts.main[aws.ToString(rt.VpcId)] = rt
			case as.SubnetId != nil:
				rts.explicit[aws.ToString(as.SubnetId)] = rt
			}
		}
	}
	return rts
}

// For returns the table that governs subnet in vpc: its explicit
// association, else the VPC's main table; nil when neither is known.
func (r RouteTables) For(subnet, vpc string) *ec2types.RouteTable {
	if rt, ok := r.explicit[subnet]; ok {
		return rt
	}
	return r.main[vpc]
}
