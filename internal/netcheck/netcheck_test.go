package netcheck_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/qstools/tgmigrate/internal/netcheck"
)

func TestRouteTables(t *testing.T) {
	def := func(gw, nat string) ec2types.Route {
		return ec2types.Route{DestinationCidrBlock: aws.String("0.0.0.0/0"), GatewayId: aws.String(gw), NatGatewayId: aws.String(nat)}
	}
	tables := []ec2types.RouteTable{
		{RouteTableId: aws.String("rtb-main"), VpcId: aws.String("vpc-1"), Routes: []ec2types.Route{def("igw-1", "")},
			Associations: []ec2types.RouteTableAssociation{{Main: aws.Bool(true)}}},
		{RouteTableId: aws.String("rtb-nat"), VpcId: aws.String("vpc-1"), Routes: []ec2types.Route{def("", "nat-1")},
			Associations: []ec2types.RouteTableAssociation{{SubnetId: aws.String("subnet-private")}}},
	}
	rts := netcheck.IndexRouteTables(tables)
	if rt := rts.For("subnet-private", "vpc-1"); rt == nil || netcheck.RoutesToIGW(*rt) || netcheck.RoutesToNAT(*rt) != "nat-1" {
		t.Errorf("subnet-private: table %v, want rtb-nat, private, through nat-1", rt)
	}
	if rt := rts.For("subnet-other", "vpc-1"); rt == nil || !netcheck.RoutesToIGW(*rt) || netcheck.RoutesToNAT(*rt) != "" {
		t.Errorf("an unassociated subnet: table %v, want the VPC's main table, public", rt)
	}
	if rt := rts.For("subnet-x", "vpc-2"); rt != nil {
		t.Errorf("a VPC with no table: %v, want nil", rt)
	}
	v6 := ec2types.RouteTable{Routes: []ec2types.Route{{DestinationIpv6CidrBlock: aws.String("::/0"), GatewayId: aws.String("igw-2")}}}
	if !netcheck.RoutesToIGW(v6) {
		t.Error("a ::/0 route to an internet gateway is public")
	}
}

func TestAllows(t *testing.T) {
	byID := map[string]ec2types.SecurityGroup{
		"sg-nodes": {GroupId: aws.String("sg-nodes"), IpPermissions: []ec2types.IpPermission{
			{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(30000), ToPort: aws.Int32(32767), UserIdGroupPairs: []ec2types.UserIdGroupPair{{GroupId: aws.String("sg-alb")}}},
			{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(9000), ToPort: aws.Int32(9000), IpRanges: []ec2types.IpRange{{CidrIp: aws.String("10.0.0.0/16")}}},
		}},
	}
	tests := []struct {
		port int32
		ok   bool
		by   string
	}{
		{31000, true, "sg-nodes allows tcp/30000-32767 from sg-alb"},
		{8080, false, "no ingress rule of sg-nodes allows tcp/8080 from sg-alb"},
		{9000, true, "sg-nodes allows tcp/9000 from 10.0.0.0/16 (an address range"},
	}
	for _, tt := range tests {
		ok, by := netcheck.Allows(byID, []string{"sg-nodes"}, []string{"sg-alb"}, tt.port)
		if ok != tt.ok || !strings.HasPrefix(by, tt.by) {
			t.Errorf("port %d: %v %q, want %v %q", tt.port, ok, by, tt.ok, tt.by)
		}
	}
}
