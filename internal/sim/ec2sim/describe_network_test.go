package ec2sim_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
)

func subnetIDs(out *ec2.DescribeSubnetsOutput) []string {
	ids := []string{}
	for _, s := range out.Subnets {
		ids = append(ids, aws.ToString(s.SubnetId))
	}
	return ids
}

func tableIDs(out *ec2.DescribeRouteTablesOutput) []string {
	ids := []string{}
	for _, t := range out.RouteTables {
		ids = append(ids, aws.ToString(t.RouteTableId))
	}
	return ids
}

func endpointIDs(out *ec2.DescribeVpcEndpointsOutput) []string {
	ids := []string{}
	for _, e := range out.VpcEndpoints {
		ids = append(ids, aws.ToString(e.VpcEndpointId))
	}
	return ids
}

// wantOperationError checks err's code and that it is wrapped as the SDK
// wraps it, for op.
func wantOperationError(t *testing.T, err error, op, want string) {
	t.Helper()
	if code(err) != want {
		t.Fatalf("error %v, want code %q", err, want)
	}
	var oe *smithy.OperationError
	if err != nil && (!errors.As(err, &oe) || oe.Operation() != op || oe.Service() != ec2.ServiceID) {
		t.Errorf("error %v is not wrapped as the SDK wraps it", err)
	}
}

func TestDescribeSubnets(t *testing.T) {
	w := newNetWorld(t)
	all := []string{"subnet-db", "subnet-private-a", "subnet-private-b", "subnet-public-a", "subnet-public-b"}
	for _, tt := range []struct {
		name string
		in   *ec2.DescribeSubnetsInput
		want []string
		code string
	}{
		{name: "nil input lists all", in: nil, want: all},
		{name: "IDs", in: &ec2.DescribeSubnetsInput{SubnetIds: []string{"subnet-public-b", "subnet-db", "subnet-db"}}, want: []string{"subnet-db", "subnet-public-b"}},
		{name: "vpc-id", in: &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("vpc-id", "vpc-2")}}, want: []string{"subnet-db"}},
		{name: "subnet-id wildcard", in: &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("subnet-id", "subnet-p*-a")}}, want: []string{"subnet-private-a", "subnet-public-a"}},
		{name: "availability-zone", in: &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("availability-zone", "eu-west-1b")}}, want: []string{"subnet-private-b", "subnet-public-b"}},
		{name: "availabilityZone", in: &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("availabilityZone", "eu-west-1c")}}, want: []string{"subnet-db"}},
		{name: "availability-zone-id", in: &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("availability-zone-id", "euw1-az3")}}, want: []string{"subnet-db"}},
		{name: "cidr-block", in: &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("cidr-block", "10.0.10.0/24")}}, want: []string{"subnet-private-a"}},
		{name: "cidr-block matches exactly", in: &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("cidr-block", "10.0.0.0/16")}}, want: []string{}},
		{name: "map-public-ip-on-launch", in: &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("map-public-ip-on-launch", "true")}}, want: []string{"subnet-public-a", "subnet-public-b"}},
		{name: "state", in: &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("state", "pending")}}, want: []string{}},
		{name: "default-for-az", in: &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("default-for-az", "false"), filter("owner-id", ec2sim.DefaultAccountID)}}, want: all},
		{name: "tag", in: &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("tag:tier", "private")}}, want: []string{"subnet-private-a", "subnet-private-b"}},
		{name: "tag-key", in: &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("tag-key", "kubernetes.io/role/elb")}}, want: []string{"subnet-public-a"}},
		{name: "filters AND, values OR", in: &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("tag:tier", "public", "private"), filter("availability-zone", "eu-west-1a")}}, want: []string{"subnet-private-a", "subnet-public-a"}},
		{name: "subnet-arn", in: &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("subnet-arn", "arn:aws:ec2:eu-west-1:123456789012:subnet/subnet-db")}}, want: []string{"subnet-db"}},
		{name: "unknown subnet", in: &ec2.DescribeSubnetsInput{SubnetIds: []string{"subnet-db", "subnet-9"}}, code: ec2sim.CodeInvalidSubnetIDNotFound},
		{name: "unknown filter", in: &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("ipv6-native", "false")}}, code: ec2sim.CodeInvalidParameterValue},
		{name: "dry run", in: &ec2.DescribeSubnetsInput{DryRun: aws.Bool(true)}, code: ec2sim.CodeDryRunOperation},
		{name: "MaxResults below 5", in: &ec2.DescribeSubnetsInput{MaxResults: aws.Int32(4)}, code: ec2sim.CodeInvalidParameterValue},
		{name: "MaxResults above 1000", in: &ec2.DescribeSubnetsInput{MaxResults: aws.Int32(1001)}, code: ec2sim.CodeInvalidParameterValue},
		{name: "bad NextToken", in: &ec2.DescribeSubnetsInput{NextToken: aws.String("x")}, code: ec2sim.CodeInvalidPaginationToken},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := w.c.DescribeSubnets(t.Context(), tt.in)
			wantOperationError(t, err, ec2sim.OpDescribeSubnets, tt.code)
			if err == nil {
				if diff := cmp.Diff(tt.want, subnetIDs(out)); diff != "" {
					t.Errorf("subnets (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestSubnetShape: every field of a subnet; AvailableIpAddressCount is
// Available's, read anew by each call and kept within the block, or the
// block's size less 5.
func TestSubnetShape(t *testing.T) {
	w := newNetWorld(t)
	out, err := w.c.DescribeSubnets(t.Context(), &ec2.DescribeSubnetsInput{SubnetIds: []string{"subnet-private-a"}})
	if err != nil {
		t.Fatal(err)
	}
	want := ec2types.Subnet{
		AssignIpv6AddressOnCreation: aws.Bool(false),
		AvailabilityZone:            aws.String("eu-west-1a"),
		AvailabilityZoneId:          aws.String("euw1-az1"),
		AvailableIpAddressCount:     aws.Int32(200),
		CidrBlock:                   aws.String("10.0.10.0/24"),
		DefaultForAz:                aws.Bool(false),
		EnableDns64:                 aws.Bool(false),
		Ipv6CidrBlockAssociationSet: []ec2types.SubnetIpv6CidrBlockAssociation{},
		Ipv6Native:                  aws.Bool(false),
		MapCustomerOwnedIpOnLaunch:  aws.Bool(false),
		MapPublicIpOnLaunch:         aws.Bool(false),
		OwnerId:                     aws.String(ec2sim.DefaultAccountID),
		State:                       ec2types.SubnetStateAvailable,
		SubnetArn:                   aws.String("arn:aws:ec2:eu-west-1:123456789012:subnet/subnet-private-a"),
		SubnetId:                    aws.String("subnet-private-a"),
		Tags:                        []ec2types.Tag{{Key: aws.String("tier"), Value: aws.String("private")}},
		VpcId:                       aws.String("vpc-1"),
	}
	if diff := cmp.Diff([]ec2types.Subnet{want}, out.Subnets, exportAll); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	calls := w.calls.Load()
	free := func(id string) int32 {
		s, ok := w.m.Subnet(id)
		if !ok {
			t.Fatalf("no %s", id)
		}
		return aws.ToInt32(s.AvailableIpAddressCount)
	}
	for _, tt := range []struct {
		set  int64
		want int32
	}{{17, 17}, {-3, 0}, {100000, 251}} {
		w.free.Store(tt.set)
		if got := free("subnet-private-a"); got != tt.want {
			t.Errorf("Available %d: count %d, want %d", tt.set, got, tt.want)
		}
	}
	if n := w.calls.Load() - calls; n != 3 {
		t.Errorf("Available called %d times for 3 reads", n)
	}
	// Without Available: the size less the 5 addresses AWS reserves.
	if got := free("subnet-public-a"); got != 256-5 {
		t.Errorf("/24: %d", got)
	}
	if got := free("subnet-db"); got != 16-5 {
		t.Errorf("/28: %d", got)
	}
	// A subnet that is not asked for is not counted.
	calls = w.calls.Load()
	if _, err := w.c.DescribeSubnets(t.Context(), &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("tag:tier", "public")}}); err != nil {
		t.Fatal(err)
	}
	if n := w.calls.Load() - calls; n != 0 {
		t.Errorf("Available called %d times for subnets not listed", n)
	}
	// The answer is a copy.
	out.Subnets[0].Tags[0].Value = aws.String("public")
	if s, _ := w.m.Subnet("subnet-private-a"); aws.ToString(s.Tags[0].Value) != "private" {
		t.Error("the model shares its tags with an answer")
	}
}

// TestSubnetAvailableMayReadTheModel: Available is called without the
// model's lock (the test would deadlock otherwise).
func TestSubnetAvailableMayReadTheModel(t *testing.T) {
	w := newNetWorld(t)
	must(t, w.m.AddSubnet(ec2sim.SubnetSpec{ID: "subnet-reader", VpcID: "vpc-1", Zone: "eu-west-1c", CIDR: "10.0.12.0/24", Available: func() int {
		if _, ok := w.m.RouteTableFor("subnet-reader"); ok {
			return 7
		}
		return 8
	}}))
	out, err := w.c.DescribeSubnets(t.Context(), &ec2.DescribeSubnetsInput{SubnetIds: []string{"subnet-reader"}})
	if err != nil || aws.ToInt32(out.Subnets[0].AvailableIpAddressCount) != 7 {
		t.Errorf("%+v, %v", out, err)
	}
}

// TestZoneIDs: zone IDs derived from the region's name, or given.
func TestZoneIDs(t *testing.T) {
	for _, tt := range []struct{ region, zone, id, want string }{
		{"eu-west-1", "eu-west-1b", "", "euw1-az2"},
		{"us-east-1", "us-east-1f", "", "use1-az6"},
		{"ap-southeast-2", "ap-southeast-2a", "", "apse2-az1"},
		{"us-gov-west-1", "us-gov-west-1c", "", "usgw1-az3"},
		{"eu-west-1", "eu-west-1a", "euw1-az3", "euw1-az3"},
	} {
		m, err := ec2sim.New(ec2sim.Options{Region: tt.region})
		must(t, err)
		must(t, m.AddVPC("vpc-1", "10.0.0.0/16"))
		must(t, m.AddSubnet(ec2sim.SubnetSpec{ID: "subnet-1", VpcID: "vpc-1", Zone: tt.zone, ZoneID: tt.id, CIDR: "10.0.0.0/24"}))
		if s, _ := m.Subnet("subnet-1"); aws.ToString(s.AvailabilityZoneId) != tt.want {
			t.Errorf("%s: %s, want %s", tt.zone, aws.ToString(s.AvailabilityZoneId), tt.want)
		}
	}
}

func TestDescribeRouteTables(t *testing.T) {
	w := newNetWorld(t)
	vpc1 := []string{"rtb-main", "rtb-private-a", "rtb-private-b", "rtb-public"}
	for _, tt := range []struct {
		name string
		in   *ec2.DescribeRouteTablesInput
		want []string
		code string
	}{
		{name: "nil input lists all", in: nil, want: []string{"rtb-db", "rtb-main", "rtb-private-a", "rtb-private-b", "rtb-public"}},
		{name: "IDs", in: &ec2.DescribeRouteTablesInput{RouteTableIds: []string{"rtb-public", "rtb-db"}}, want: []string{"rtb-db", "rtb-public"}},
		{name: "vpc-id", in: &ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{filter("vpc-id", "vpc-1")}}, want: vpc1},
		{name: "route-table-id", in: &ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{filter("route-table-id", "rtb-private-*")}}, want: []string{"rtb-private-a", "rtb-private-b"}},
		{name: "association.subnet-id", in: &ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{filter("association.subnet-id", "subnet-public-b")}}, want: []string{"rtb-public"}},
		{name: "association.subnet-id: implicit associations are not listed", in: &ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{filter("association.subnet-id", "subnet-db")}}, want: []string{}},
		{name: "association.main true", in: &ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{filter("association.main", "true")}}, want: []string{"rtb-db", "rtb-main"}},
		{name: "association.main false: tables with an explicit association", in: &ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{filter("association.main", "false")}}, want: []string{"rtb-private-a", "rtb-private-b", "rtb-public"}},
		{name: "route.destination-cidr-block", in: &ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{filter("route.destination-cidr-block", "0.0.0.0/0")}}, want: []string{"rtb-main", "rtb-private-a", "rtb-public"}},
		{name: "route.destination-cidr-block: the local route", in: &ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{filter("route.destination-cidr-block", "10.1.0.0/16")}}, want: []string{"rtb-db"}},
		{name: "route.gateway-id", in: &ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{filter("route.gateway-id", "igw-*")}}, want: []string{"rtb-main", "rtb-public"}},
		{name: "route.gateway-id local", in: &ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{filter("route.gateway-id", "local"), filter("vpc-id", "vpc-2")}}, want: []string{"rtb-db"}},
		{name: "route.nat-gateway-id", in: &ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{filter("route.nat-gateway-id", "nat-a")}}, want: []string{"rtb-private-a"}},
		{name: "route.origin", in: &ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{filter("route.origin", "CreateRoute")}}, want: []string{"rtb-main", "rtb-private-a", "rtb-public"}},
		{name: "route.state", in: &ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{filter("route.state", "blackhole")}}, want: []string{}},
		{name: "tag", in: &ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{filter("tag:tier", "p*")}}, want: []string{"rtb-private-a", "rtb-public"}},
		{name: "tag-key", in: &ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{filter("tag-key", "tier")}}, want: []string{"rtb-private-a", "rtb-public"}},
		{name: "unknown table", in: &ec2.DescribeRouteTablesInput{RouteTableIds: []string{"rtb-9"}}, code: ec2sim.CodeInvalidRouteTableIDNotFound},
		{name: "unknown filter", in: &ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{filter("route.instance-id", "i-1")}}, code: ec2sim.CodeInvalidParameterValue},
		{name: "dry run", in: &ec2.DescribeRouteTablesInput{DryRun: aws.Bool(true)}, code: ec2sim.CodeDryRunOperation},
		{name: "MaxResults above 100", in: &ec2.DescribeRouteTablesInput{MaxResults: aws.Int32(101)}, code: ec2sim.CodeInvalidParameterValue},
		{name: "MaxResults 100", in: &ec2.DescribeRouteTablesInput{MaxResults: aws.Int32(100), Filters: []ec2types.Filter{filter("vpc-id", "vpc-1")}}, want: vpc1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := w.c.DescribeRouteTables(t.Context(), tt.in)
			wantOperationError(t, err, ec2sim.OpDescribeRouteTables, tt.code)
			if err == nil {
				if diff := cmp.Diff(tt.want, tableIDs(out)); diff != "" {
					t.Errorf("tables (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestRouteTableShape: every field of a table, the local route first;
// SetRoutes replaces the others; RouteTableFor follows the associations.
func TestRouteTableShape(t *testing.T) {
	w := newNetWorld(t)
	local := ec2types.Route{DestinationCidrBlock: aws.String("10.0.0.0/16"), GatewayId: aws.String("local"), Origin: ec2types.RouteOriginCreateRouteTable, State: ec2types.RouteStateActive}
	// A subnet without an explicit association is routed by the main
	// table, which does not list it.
	must(t, w.m.AddSubnet(ec2sim.SubnetSpec{ID: "subnet-c", VpcID: "vpc-1", Zone: "eu-west-1c", CIDR: "10.0.12.0/24"}))
	if _, ok := w.m.RouteTableFor("subnet-c"); !ok {
		t.Error("subnet-c is not routed by the main table")
	}
	main, _ := w.m.RouteTable("rtb-main")
	mainAssoc := aws.ToString(main.Associations[0].RouteTableAssociationId)
	out, err := w.c.DescribeRouteTables(t.Context(), &ec2.DescribeRouteTablesInput{RouteTableIds: []string{"rtb-main"}})
	if err != nil {
		t.Fatal(err)
	}
	want := ec2types.RouteTable{
		Associations: []ec2types.RouteTableAssociation{{
			AssociationState:        &ec2types.RouteTableAssociationState{State: ec2types.RouteTableAssociationStateCodeAssociated},
			Main:                    aws.Bool(true),
			RouteTableAssociationId: aws.String(mainAssoc),
			RouteTableId:            aws.String("rtb-main"),
		}},
		OwnerId:         aws.String(ec2sim.DefaultAccountID),
		PropagatingVgws: []ec2types.PropagatingVgw{},
		RouteTableId:    aws.String("rtb-main"),
		Routes: []ec2types.Route{local, {
			DestinationCidrBlock: aws.String("0.0.0.0/0"), GatewayId: aws.String("igw-1"), Origin: ec2types.RouteOriginCreateRoute, State: ec2types.RouteStateActive,
		}},
		VpcId: aws.String("vpc-1"),
	}
	if diff := cmp.Diff([]ec2types.RouteTable{want}, out.RouteTables, exportAll); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Explicit associations, in the order given, after the main one.
	pub, _ := w.m.RouteTable("rtb-public")
	var subnets []string
	for _, a := range pub.Associations {
		if aws.ToBool(a.Main) || a.AssociationState.State != ec2types.RouteTableAssociationStateCodeAssociated || aws.ToString(a.RouteTableId) != "rtb-public" {
			t.Errorf("association %+v", a)
		}
		subnets = append(subnets, aws.ToString(a.SubnetId))
	}
	if diff := cmp.Diff([]string{"subnet-public-a", "subnet-public-b"}, subnets); diff != "" {
		t.Errorf("associations (-want +got):\n%s", diff)
	}
	// SetRoutes: the private subnet in zone b gets a NAT gateway, and then
	// loses it; the local route stays.
	nat := []ec2sim.Route{{Destination: "0.0.0.0/0", NatGatewayID: "nat-b"}, {Destination: "192.168.0.0/16", TransitGatewayID: "tgw-1"}}
	must(t, w.m.SetRoutes("rtb-private-b", nat))
	got, _ := w.m.RouteTable("rtb-private-b")
	if len(got.Routes) != 3 || aws.ToString(got.Routes[0].GatewayId) != "local" || aws.ToString(got.Routes[1].NatGatewayId) != "nat-b" ||
		got.Routes[1].GatewayId != nil || aws.ToString(got.Routes[2].TransitGatewayId) != "tgw-1" {
		t.Errorf("routes after SetRoutes %+v", got.Routes)
	}
	nat[0].NatGatewayID = "nat-c" // the model keeps its own copy
	must(t, w.m.SetRoutes("rtb-private-a", nil))
	if got, _ := w.m.RouteTable("rtb-private-a"); len(got.Routes) != 1 || !cmp.Equal(local, got.Routes[0], exportAll) {
		t.Errorf("routes after SetRoutes(nil) %+v", got.Routes)
	}
	if got, _ := w.m.RouteTable("rtb-private-b"); aws.ToString(got.Routes[1].NatGatewayId) != "nat-b" {
		t.Errorf("the model shares the routes it was given: %+v", got.Routes)
	}
	for subnet, want := range map[string]string{"subnet-public-a": "rtb-public", "subnet-private-b": "rtb-private-b", "subnet-c": "rtb-main", "subnet-db": "rtb-db"} {
		if got, ok := w.m.RouteTableFor(subnet); !ok || got != want {
			t.Errorf("%s: %s %t, want %s", subnet, got, ok, want)
		}
	}
	if _, ok := w.m.RouteTableFor("subnet-9"); ok {
		t.Error("an unknown subnet is routed")
	}
	if _, ok := w.m.RouteTable("rtb-9"); ok {
		t.Error("an unknown table exists")
	}
}

func TestDescribeVpcEndpoints(t *testing.T) {
	w := newNetWorld(t)
	for _, tt := range []struct {
		name string
		in   *ec2.DescribeVpcEndpointsInput
		want []string
		code string
	}{
		{name: "nil input lists all", in: nil, want: []string{"vpce-ecr", "vpce-s3", "vpce-sts"}},
		{name: "IDs", in: &ec2.DescribeVpcEndpointsInput{VpcEndpointIds: []string{"vpce-sts"}}, want: []string{"vpce-sts"}},
		{name: "service-name", in: &ec2.DescribeVpcEndpointsInput{Filters: []ec2types.Filter{filter("service-name", "com.amazonaws.eu-west-1.s3", "com.amazonaws.eu-west-1.ecr.*")}}, want: []string{"vpce-ecr", "vpce-s3"}},
		{name: "vpc-endpoint-type", in: &ec2.DescribeVpcEndpointsInput{Filters: []ec2types.Filter{filter("vpc-endpoint-type", "Interface")}}, want: []string{"vpce-ecr", "vpce-sts"}},
		{name: "vpc-endpoint-state", in: &ec2.DescribeVpcEndpointsInput{Filters: []ec2types.Filter{filter("vpc-endpoint-state", "available")}}, want: []string{"vpce-ecr", "vpce-s3"}},
		{name: "vpc-endpoint-id", in: &ec2.DescribeVpcEndpointsInput{Filters: []ec2types.Filter{filter("vpc-endpoint-id", "vpce-s*")}}, want: []string{"vpce-s3", "vpce-sts"}},
		{name: "vpc-id", in: &ec2.DescribeVpcEndpointsInput{Filters: []ec2types.Filter{filter("vpc-id", "vpc-2")}}, want: []string{}},
		{name: "tag", in: &ec2.DescribeVpcEndpointsInput{Filters: []ec2types.Filter{filter("tag:team", "platform")}}, want: []string{"vpce-sts"}},
		{name: "MaxResults above 1000 returns 1000", in: &ec2.DescribeVpcEndpointsInput{MaxResults: aws.Int32(5000)}, want: []string{"vpce-ecr", "vpce-s3", "vpce-sts"}},
		{name: "unknown endpoint", in: &ec2.DescribeVpcEndpointsInput{VpcEndpointIds: []string{"vpce-9"}}, code: ec2sim.CodeInvalidVpcEndpointIDNotFound},
		{name: "unknown filter", in: &ec2.DescribeVpcEndpointsInput{Filters: []ec2types.Filter{filter("ip-address-type", "ipv4")}}, code: ec2sim.CodeInvalidParameterValue},
		{name: "dry run", in: &ec2.DescribeVpcEndpointsInput{DryRun: aws.Bool(true)}, code: ec2sim.CodeDryRunOperation},
		{name: "MaxResults 0", in: &ec2.DescribeVpcEndpointsInput{MaxResults: aws.Int32(0)}, code: ec2sim.CodeInvalidParameterValue},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := w.c.DescribeVpcEndpoints(t.Context(), tt.in)
			wantOperationError(t, err, ec2sim.OpDescribeVpcEndpoints, tt.code)
			if err == nil {
				if diff := cmp.Diff(tt.want, endpointIDs(out)); diff != "" {
					t.Errorf("endpoints (-want +got):\n%s", diff)
				}
			}
		})
	}
	out, err := w.c.DescribeVpcEndpoints(t.Context(), &ec2.DescribeVpcEndpointsInput{VpcEndpointIds: []string{"vpce-ecr", "vpce-s3"}})
	if err != nil {
		t.Fatal(err)
	}
	endpoint := func(id, service string, kind ec2types.VpcEndpointType, subnets, tables []string, dns bool) ec2types.VpcEndpoint {
		return ec2types.VpcEndpoint{
			OwnerId: aws.String(ec2sim.DefaultAccountID), PrivateDnsEnabled: aws.Bool(dns), RequesterManaged: aws.Bool(false),
			RouteTableIds: tables, ServiceName: aws.String(service), State: "available", SubnetIds: subnets,
			VpcEndpointId: aws.String(id), VpcEndpointType: kind, VpcId: aws.String("vpc-1"),
		}
	}
	want := []ec2types.VpcEndpoint{
		endpoint("vpce-ecr", "com.amazonaws.eu-west-1.ecr.api", ec2types.VpcEndpointTypeInterface, []string{"subnet-private-a", "subnet-private-b"}, []string{}, true),
		endpoint("vpce-s3", "com.amazonaws.eu-west-1.s3", ec2types.VpcEndpointTypeGateway, []string{}, []string{"rtb-private-b"}, false),
	}
	if diff := cmp.Diff(want, out.VpcEndpoints, exportAll); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// EC2 spells states in camel case, not as the SDK's constants.
	for in, want := range map[string]ec2types.State{"PendingAcceptance": "pendingAcceptance", "failed": "failed", "": "available"} {
		id, err := w.m.AddVpcEndpoint(ec2sim.VpcEndpointSpec{VpcID: "vpc-2", ServiceName: "com.amazonaws.eu-west-1.ec2", Type: "Interface", State: in})
		if err != nil {
			t.Fatal(err)
		}
		if e, _ := w.m.VpcEndpoint(id); e.State != want {
			t.Errorf("state %q: %q, want %q", in, e.State, want)
		}
	}
	out.VpcEndpoints[0].SubnetIds[0] = "subnet-x"
	if e, _ := w.m.VpcEndpoint("vpce-ecr"); e.SubnetIds[0] != "subnet-private-a" {
		t.Error("the model shares its subnets with an answer")
	}
}

// TestNetworkPaging: the SDK's paginators walk each call in pages.
func TestNetworkPaging(t *testing.T) {
	w := newNetWorld(t)
	for i := range 8 {
		must(t, w.m.AddSubnet(ec2sim.SubnetSpec{ID: fmt.Sprintf("subnet-x%d", i), VpcID: "vpc-1", Zone: "eu-west-1c", CIDR: fmt.Sprintf("10.0.%d.0/24", 100+i)}))
		if _, err := w.m.AddRouteTable(ec2sim.RouteTableSpec{ID: fmt.Sprintf("rtb-x%d", i), VpcID: "vpc-1", Subnets: []string{fmt.Sprintf("subnet-x%d", i)}}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.m.AddVpcEndpoint(ec2sim.VpcEndpointSpec{ID: fmt.Sprintf("vpce-x%d", i), VpcID: "vpc-1", ServiceName: "com.amazonaws.eu-west-1.ssm", Type: "Interface"}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	var sizes []int
	sp := ec2.NewDescribeSubnetsPaginator(w.c, &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("vpc-id", "vpc-1")}}, func(o *ec2.DescribeSubnetsPaginatorOptions) { o.Limit = 5 })
	for sp.HasMorePages() {
		out, err := sp.NextPage(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(out.Subnets))
		got = append(got, subnetIDs(out)...)
	}
	if len(got) != 12 || !cmp.Equal(sizes, []int{5, 5, 2}) || got[0] != "subnet-private-a" || got[11] != "subnet-x7" {
		t.Errorf("subnets %v in pages of %v", got, sizes)
	}
	got, sizes = nil, nil
	tp := ec2.NewDescribeRouteTablesPaginator(w.c, &ec2.DescribeRouteTablesInput{}, func(o *ec2.DescribeRouteTablesPaginatorOptions) { o.Limit = 6 })
	for tp.HasMorePages() {
		out, err := tp.NextPage(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(out.RouteTables))
		got = append(got, tableIDs(out)...)
	}
	if len(got) != 13 || !cmp.Equal(sizes, []int{6, 6, 1}) {
		t.Errorf("tables %v in pages of %v", got, sizes)
	}
	got, sizes = nil, nil
	ep := ec2.NewDescribeVpcEndpointsPaginator(w.c, &ec2.DescribeVpcEndpointsInput{Filters: []ec2types.Filter{filter("service-name", "*ssm")}}, func(o *ec2.DescribeVpcEndpointsPaginatorOptions) { o.Limit = 3 })
	for ep.HasMorePages() {
		out, err := ep.NextPage(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(out.VpcEndpoints))
		got = append(got, endpointIDs(out)...)
	}
	if len(got) != 8 || !cmp.Equal(sizes, []int{3, 3, 2}) || got[0] != "vpce-x0" {
		t.Errorf("endpoints %v in pages of %v", got, sizes)
	}
}

// TestNetworkFaultsAndCounts: the new operations are counted and faulted
// like the others, and a nil client answers ErrNilClient.
func TestNetworkFaultsAndCounts(t *testing.T) {
	w := newNetWorld(t)
	ctx := t.Context()
	calls := map[string]func(c *ec2sim.Client) error{
		ec2sim.OpDescribeSubnets: func(c *ec2sim.Client) error {
			_, err := c.DescribeSubnets(ctx, nil)
			return err
		},
		ec2sim.OpDescribeRouteTables: func(c *ec2sim.Client) error {
			_, err := c.DescribeRouteTables(ctx, nil)
			return err
		},
		ec2sim.OpDescribeVpcEndpoints: func(c *ec2sim.Client) error {
			_, err := c.DescribeVpcEndpoints(ctx, nil)
			return err
		},
	}
	for op, call := range calls {
		must(t, w.c.FailNext(op, 1, ec2sim.ErrThrottled()))
		must(t, w.c.Fail(op, ec2sim.ErrUnauthorized(op)))
		var codes []string
		for range 2 {
			codes = append(codes, code(call(w.c)))
		}
		w.c.Clear(op)
		codes = append(codes, code(call(w.c)))
		if diff := cmp.Diff([]string{ec2sim.CodeRequestLimitExceeded, ec2sim.CodeUnauthorizedOperation, ""}, codes); diff != "" {
			t.Errorf("%s codes (-want +got):\n%s", op, diff)
		}
		if err := call(nil); !errors.Is(err, ec2sim.ErrNilClient) {
			t.Errorf("%s on a nil client: %v", op, err)
		}
	}
	if diff := cmp.Diff(map[string]int{ec2sim.OpDescribeSubnets: 3, ec2sim.OpDescribeRouteTables: 3, ec2sim.OpDescribeVpcEndpoints: 3}, w.c.Counts()); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
}
