package ec2sim_test

import (
	"errors"
	"reflect"
	"regexp"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
)

// netWorld is newWorld's model with a network laid out in it:
//
//	vpc-1 10.0.0.0/16
//	  subnet-public-a  eu-west-1a 10.0.0.0/24  public  (tier=public, kubernetes.io/role/elb=1)
//	  subnet-public-b  eu-west-1b 10.0.1.0/24  public  (tier=public)
//	  subnet-private-a eu-west-1a 10.0.10.0/24         (tier=private), Available: free
//	  subnet-private-b eu-west-1b 10.0.11.0/24         (tier=private)
//	  rtb-main    main; 0.0.0.0/0 → igw-1
//	  rtb-public  subnet-public-a, subnet-public-b; 0.0.0.0/0 → igw-1 (tier=public)
//	  rtb-private-a subnet-private-a; 0.0.0.0/0 → nat-a (tier=private)
//	  rtb-private-b subnet-private-b; no route but the local one
//	  vpce-s3     Gateway   com.amazonaws.eu-west-1.s3      rtb-private-b
//	  vpce-ecr    Interface com.amazonaws.eu-west-1.ecr.api subnet-private-a, subnet-private-b, private DNS
//	  vpce-sts    Interface com.amazonaws.eu-west-1.sts     pending (team=platform)
//	vpc-2 10.1.0.0/16
//	  subnet-db   eu-west-1c 10.1.0.0/28
//	  rtb-db      main
type netWorld struct {
	*world
	// free is subnet-private-a's available address count; calls counts
	// the calls of its Available.
	free, calls atomic.Int64
}

func newNetWorld(t testing.TB) *netWorld {
	t.Helper()
	w := &netWorld{world: newWorld(t)}
	w.free.Store(200)
	for _, s := range []ec2sim.SubnetSpec{
		{ID: "subnet-public-a", VpcID: "vpc-1", Zone: "eu-west-1a", CIDR: "10.0.0.0/24", MapPublicIPOnLaunch: true,
			Tags: map[string]string{"tier": "public", "kubernetes.io/role/elb": "1"}},
		{ID: "subnet-public-b", VpcID: "vpc-1", Zone: "eu-west-1b", CIDR: "10.0.1.0/24", MapPublicIPOnLaunch: true, Tags: map[string]string{"tier": "public"}},
		{ID: "subnet-private-a", VpcID: "vpc-1", Zone: "eu-west-1a", CIDR: "10.0.10.0/24", Tags: map[string]string{"tier": "private"},
			Available: func() int { w.calls.Add(1); return int(w.free.Load()) }},
		{ID: "subnet-private-b", VpcID: "vpc-1", Zone: "eu-west-1b", CIDR: "10.0.11.0/24", Tags: map[string]string{"tier": "private"}},
		{ID: "subnet-db", VpcID: "vpc-2", Zone: "eu-west-1c", CIDR: "10.1.0.0/28"},
	} {
		must(t, w.m.AddSubnet(s))
	}
	for _, rt := range []ec2sim.RouteTableSpec{
		{ID: "rtb-main", VpcID: "vpc-1", Main: true, Routes: []ec2sim.Route{{Destination: "0.0.0.0/0", GatewayID: "igw-1"}}},
		{ID: "rtb-public", VpcID: "vpc-1", Subnets: []string{"subnet-public-a", "subnet-public-b"},
			Routes: []ec2sim.Route{{Destination: "0.0.0.0/0", GatewayID: "igw-1"}}, Tags: map[string]string{"tier": "public"}},
		{ID: "rtb-private-a", VpcID: "vpc-1", Subnets: []string{"subnet-private-a"},
			Routes: []ec2sim.Route{{Destination: "0.0.0.0/0", NatGatewayID: "nat-a"}}, Tags: map[string]string{"tier": "private"}},
		{ID: "rtb-private-b", VpcID: "vpc-1", Subnets: []string{"subnet-private-b"}},
		{ID: "rtb-db", VpcID: "vpc-2", Main: true},
	} {
		if _, err := w.m.AddRouteTable(rt); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range []ec2sim.VpcEndpointSpec{
		{ID: "vpce-s3", VpcID: "vpc-1", ServiceName: "com.amazonaws.eu-west-1.s3", Type: "Gateway", RouteTableIDs: []string{"rtb-private-b"}},
		{ID: "vpce-ecr", VpcID: "vpc-1", ServiceName: "com.amazonaws.eu-west-1.ecr.api", Type: "Interface",
			SubnetIDs: []string{"subnet-private-a", "subnet-private-b"}, PrivateDNS: true},
		{ID: "vpce-sts", VpcID: "vpc-1", ServiceName: "com.amazonaws.eu-west-1.sts", Type: "Interface", State: "pending",
			Tags: map[string]string{"team": "platform"}},
	} {
		if _, err := w.m.AddVpcEndpoint(e); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// netState is everything the three Describe calls answer.
type netState struct {
	Subnets   *ec2.DescribeSubnetsOutput
	Tables    *ec2.DescribeRouteTablesOutput
	Endpoints *ec2.DescribeVpcEndpointsOutput
}

func readNet(t *testing.T, c *ec2sim.Client) netState {
	t.Helper()
	var s netState
	var err error
	if s.Subnets, err = c.DescribeSubnets(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if s.Tables, err = c.DescribeRouteTables(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if s.Endpoints, err = c.DescribeVpcEndpoints(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	return s
}

// exportAll compares the SDK's types, unexported fields included.
var exportAll = cmp.Exporter(func(reflect.Type) bool { return true })

// wantOptionsError checks that err is an *OptionsError naming field.
func wantOptionsError(t *testing.T, what string, err error, field string) {
	t.Helper()
	var oe *ec2sim.OptionsError
	if !errors.As(err, &oe) || !errors.Is(err, ec2sim.ErrInvalidOptions) || oe.Pkg != "ec2sim" || oe.Field != field {
		t.Errorf("%s: error %v, want an OptionsError on %s", what, err, field)
	}
}

// TestAddSubnetRefusals: every refused subnet names its culprit and
// changes nothing.
func TestAddSubnetRefusals(t *testing.T) {
	w := newNetWorld(t)
	before := readNet(t, w.c)
	for _, tt := range []struct {
		name  string
		spec  ec2sim.SubnetSpec
		field string
	}{
		{"unknown VPC", ec2sim.SubnetSpec{ID: "subnet-x", VpcID: "vpc-9", Zone: "eu-west-1a", CIDR: "10.0.20.0/24"}, "VpcID"},
		{"no VPC", ec2sim.SubnetSpec{ID: "subnet-x", Zone: "eu-west-1a", CIDR: "10.0.20.0/24"}, "VpcID"},
		{"malformed ID", ec2sim.SubnetSpec{ID: "sn-x", VpcID: "vpc-1", Zone: "eu-west-1a", CIDR: "10.0.20.0/24"}, "ID"},
		{"ID with a double hyphen", ec2sim.SubnetSpec{ID: "subnet-a--b", VpcID: "vpc-1", Zone: "eu-west-1a", CIDR: "10.0.20.0/24"}, "ID"},
		{"ID in capitals", ec2sim.SubnetSpec{ID: "subnet-A", VpcID: "vpc-1", Zone: "eu-west-1a", CIDR: "10.0.20.0/24"}, "ID"},
		{"taken ID", ec2sim.SubnetSpec{ID: "subnet-public-a", VpcID: "vpc-1", Zone: "eu-west-1a", CIDR: "10.0.20.0/24"}, "ID"},
		{"no zone", ec2sim.SubnetSpec{ID: "subnet-x", VpcID: "vpc-1", CIDR: "10.0.20.0/24"}, "Zone"},
		{"zone of another region", ec2sim.SubnetSpec{ID: "subnet-x", VpcID: "vpc-1", Zone: "us-east-1a", CIDR: "10.0.20.0/24"}, "Zone"},
		{"a region, not a zone", ec2sim.SubnetSpec{ID: "subnet-x", VpcID: "vpc-1", Zone: "eu-west-1", CIDR: "10.0.20.0/24"}, "Zone"},
		{"malformed zone ID", ec2sim.SubnetSpec{ID: "subnet-x", VpcID: "vpc-1", Zone: "eu-west-1a", ZoneID: "EUW1 AZ1", CIDR: "10.0.20.0/24"}, "ZoneID"},
		{"no CIDR", ec2sim.SubnetSpec{ID: "subnet-x", VpcID: "vpc-1", Zone: "eu-west-1a"}, "CIDR"},
		{"an address, not a block", ec2sim.SubnetSpec{ID: "subnet-x", VpcID: "vpc-1", Zone: "eu-west-1a", CIDR: "10.0.20.0"}, "CIDR"},
		{"IPv6", ec2sim.SubnetSpec{ID: "subnet-x", VpcID: "vpc-1", Zone: "eu-west-1a", CIDR: "fd00::/64"}, "CIDR"},
		{"not a network address", ec2sim.SubnetSpec{ID: "subnet-x", VpcID: "vpc-1", Zone: "eu-west-1a", CIDR: "10.0.20.5/24"}, "CIDR"},
		{"too small", ec2sim.SubnetSpec{ID: "subnet-x", VpcID: "vpc-1", Zone: "eu-west-1a", CIDR: "10.0.20.0/29"}, "CIDR"},
		{"too large", ec2sim.SubnetSpec{ID: "subnet-x", VpcID: "vpc-1", Zone: "eu-west-1a", CIDR: "10.0.0.0/15"}, "CIDR"},
		{"outside the VPC", ec2sim.SubnetSpec{ID: "subnet-x", VpcID: "vpc-1", Zone: "eu-west-1a", CIDR: "10.1.20.0/24"}, "CIDR"},
		{"overlaps a subnet", ec2sim.SubnetSpec{ID: "subnet-x", VpcID: "vpc-1", Zone: "eu-west-1a", CIDR: "10.0.0.128/25"}, "CIDR"},
		{"holds a subnet", ec2sim.SubnetSpec{ID: "subnet-x", VpcID: "vpc-1", Zone: "eu-west-1a", CIDR: "10.0.0.0/20"}, "CIDR"},
	} {
		wantOptionsError(t, tt.name, w.m.AddSubnet(tt.spec), tt.field)
	}
	if diff := cmp.Diff(before, readNet(t, w.c), exportAll); diff != "" {
		t.Errorf("refused subnets changed the network (-before +after):\n%s", diff)
	}
	// The same block in another VPC is fine.
	must(t, w.m.AddSubnet(ec2sim.SubnetSpec{ID: "subnet-x", VpcID: "vpc-2", Zone: "eu-west-1a", CIDR: "10.1.0.16/28"}))
}

// TestAddRouteTableRefusals: every refused table or route set names its
// culprit and changes nothing.
func TestAddRouteTableRefusals(t *testing.T) {
	w := newNetWorld(t)
	before := readNet(t, w.c)
	igw := []ec2sim.Route{{Destination: "0.0.0.0/0", GatewayID: "igw-1"}}
	must(t, w.m.AddSubnet(ec2sim.SubnetSpec{ID: "subnet-free", VpcID: "vpc-1", Zone: "eu-west-1c", CIDR: "10.0.12.0/24"}))
	for _, tt := range []struct {
		name  string
		spec  ec2sim.RouteTableSpec
		field string
	}{
		{"unknown VPC", ec2sim.RouteTableSpec{ID: "rtb-x", VpcID: "vpc-9"}, "VpcID"},
		{"malformed ID", ec2sim.RouteTableSpec{ID: "rt-x", VpcID: "vpc-1"}, "ID"},
		{"taken ID", ec2sim.RouteTableSpec{ID: "rtb-public", VpcID: "vpc-1"}, "ID"},
		{"a second main table", ec2sim.RouteTableSpec{ID: "rtb-x", VpcID: "vpc-1", Main: true}, "Main"},
		{"unknown subnet", ec2sim.RouteTableSpec{ID: "rtb-x", VpcID: "vpc-1", Subnets: []string{"subnet-free", "subnet-9"}}, "Subnets[1]"},
		{"subnet of another VPC", ec2sim.RouteTableSpec{ID: "rtb-x", VpcID: "vpc-1", Subnets: []string{"subnet-db"}}, "Subnets[0]"},
		{"subnet named twice", ec2sim.RouteTableSpec{ID: "rtb-x", VpcID: "vpc-1", Subnets: []string{"subnet-free", "subnet-free"}}, "Subnets[1]"},
		{"subnet in two explicit associations", ec2sim.RouteTableSpec{ID: "rtb-x", VpcID: "vpc-1", Subnets: []string{"subnet-public-a"}}, "Subnets[0]"},
		{"route without a target", ec2sim.RouteTableSpec{ID: "rtb-x", VpcID: "vpc-1", Routes: []ec2sim.Route{{Destination: "0.0.0.0/0"}}}, "Routes[0]"},
		{"route with two targets", ec2sim.RouteTableSpec{ID: "rtb-x", VpcID: "vpc-1", Routes: []ec2sim.Route{{Destination: "0.0.0.0/0", GatewayID: "igw-1", NatGatewayID: "nat-a"}}}, "Routes[0]"},
		{"route to the VPC's block", ec2sim.RouteTableSpec{ID: "rtb-x", VpcID: "vpc-1", Routes: []ec2sim.Route{{Destination: "10.0.0.0/16", GatewayID: "igw-1"}}}, "Routes[0].Destination"},
		{"route with no destination", ec2sim.RouteTableSpec{ID: "rtb-x", VpcID: "vpc-1", Routes: []ec2sim.Route{{GatewayID: "igw-1"}}}, "Routes[0].Destination"},
		{"route to an unmasked block", ec2sim.RouteTableSpec{ID: "rtb-x", VpcID: "vpc-1", Routes: []ec2sim.Route{{Destination: "192.168.0.1/16", GatewayID: "igw-1"}}}, "Routes[0].Destination"},
		{"two routes to one destination", ec2sim.RouteTableSpec{ID: "rtb-x", VpcID: "vpc-1", Routes: append(igw, ec2sim.Route{Destination: "0.0.0.0/0", NatGatewayID: "nat-a"})}, "Routes[1].Destination"},
		{"gateway that is a NAT", ec2sim.RouteTableSpec{ID: "rtb-x", VpcID: "vpc-1", Routes: []ec2sim.Route{{Destination: "0.0.0.0/0", GatewayID: "nat-a"}}}, "Routes[0].GatewayID"},
		{"malformed NAT gateway", ec2sim.RouteTableSpec{ID: "rtb-x", VpcID: "vpc-1", Routes: []ec2sim.Route{{Destination: "0.0.0.0/0", NatGatewayID: "igw-1"}}}, "Routes[0].NatGatewayID"},
		{"malformed transit gateway", ec2sim.RouteTableSpec{ID: "rtb-x", VpcID: "vpc-1", Routes: []ec2sim.Route{{Destination: "0.0.0.0/0", TransitGatewayID: "tg-1"}}}, "Routes[0].TransitGatewayID"},
		{"malformed interface", ec2sim.RouteTableSpec{ID: "rtb-x", VpcID: "vpc-1", Routes: []ec2sim.Route{{Destination: "0.0.0.0/0", NetworkInterfaceID: "i-1"}}}, "Routes[0].NetworkInterfaceID"},
		{"malformed peering", ec2sim.RouteTableSpec{ID: "rtb-x", VpcID: "vpc-1", Routes: []ec2sim.Route{{Destination: "0.0.0.0/0", VpcPeeringConnectionID: "peer-1"}}}, "Routes[0].VpcPeeringConnectionID"},
	} {
		id, err := w.m.AddRouteTable(tt.spec)
		wantOptionsError(t, tt.name, err, tt.field)
		if id != "" {
			t.Errorf("%s: ID %q", tt.name, id)
		}
	}
	for _, tt := range []struct {
		name, table string
		routes      []ec2sim.Route
		field       string
	}{
		{"unknown table", "rtb-9", igw, "routeTableID"},
		{"bad route", "rtb-private-a", []ec2sim.Route{{Destination: "0.0.0.0/0"}}, "Routes[0]"},
		{"a good route then a bad one", "rtb-private-a", append(igw, ec2sim.Route{Destination: "10.2.0.0/16", GatewayID: "local"}), "Routes[1].GatewayID"},
	} {
		wantOptionsError(t, tt.name, w.m.SetRoutes(tt.table, tt.routes), tt.field)
	}
	after := readNet(t, w.c)
	after.Subnets = before.Subnets // subnet-free was added on purpose
	if diff := cmp.Diff(before, after, exportAll); diff != "" {
		t.Errorf("refused tables changed the network (-before +after):\n%s", diff)
	}
	// The main table of a VPC that has none, with a generated ID, and the
	// free subnet.
	id, err := w.m.AddRouteTable(ec2sim.RouteTableSpec{VpcID: "vpc-1", Subnets: []string{"subnet-free"}})
	if err != nil || !regexp.MustCompile(`^rtb-[0-9a-f]{17}$`).MatchString(id) {
		t.Errorf("generated ID %q, %v", id, err)
	}
	if got, ok := w.m.RouteTableFor("subnet-free"); !ok || got != id {
		t.Errorf("subnet-free is routed by %q %t, want %s", got, ok, id)
	}
}

// TestAddVpcEndpointRefusals: every refused endpoint names its culprit and
// changes nothing.
func TestAddVpcEndpointRefusals(t *testing.T) {
	w := newNetWorld(t)
	before := readNet(t, w.c)
	const ecr = "com.amazonaws.eu-west-1.ecr.dkr"
	for _, tt := range []struct {
		name  string
		spec  ec2sim.VpcEndpointSpec
		field string
	}{
		{"unknown VPC", ec2sim.VpcEndpointSpec{ID: "vpce-x", VpcID: "vpc-9", ServiceName: ecr, Type: "Interface"}, "VpcID"},
		{"malformed ID", ec2sim.VpcEndpointSpec{ID: "endpoint-x", VpcID: "vpc-1", ServiceName: ecr, Type: "Interface"}, "ID"},
		{"taken ID", ec2sim.VpcEndpointSpec{ID: "vpce-s3", VpcID: "vpc-1", ServiceName: ecr, Type: "Interface"}, "ID"},
		{"no service", ec2sim.VpcEndpointSpec{ID: "vpce-x", VpcID: "vpc-1", Type: "Interface"}, "ServiceName"},
		{"malformed service", ec2sim.VpcEndpointSpec{ID: "vpce-x", VpcID: "vpc-1", ServiceName: "ECR API", Type: "Interface"}, "ServiceName"},
		{"no type", ec2sim.VpcEndpointSpec{ID: "vpce-x", VpcID: "vpc-1", ServiceName: ecr}, "Type"},
		{"a type not modelled", ec2sim.VpcEndpointSpec{ID: "vpce-x", VpcID: "vpc-1", ServiceName: ecr, Type: "GatewayLoadBalancer"}, "Type"},
		{"type in lowercase", ec2sim.VpcEndpointSpec{ID: "vpce-x", VpcID: "vpc-1", ServiceName: ecr, Type: "interface"}, "Type"},
		{"Gateway with subnets", ec2sim.VpcEndpointSpec{ID: "vpce-x", VpcID: "vpc-1", ServiceName: ecr, Type: "Gateway", SubnetIDs: []string{"subnet-private-a"}}, "SubnetIDs"},
		{"Gateway with private DNS", ec2sim.VpcEndpointSpec{ID: "vpce-x", VpcID: "vpc-1", ServiceName: ecr, Type: "Gateway", PrivateDNS: true}, "PrivateDNS"},
		{"Interface with route tables", ec2sim.VpcEndpointSpec{ID: "vpce-x", VpcID: "vpc-1", ServiceName: ecr, Type: "Interface", RouteTableIDs: []string{"rtb-main"}}, "RouteTableIDs"},
		{"unknown subnet", ec2sim.VpcEndpointSpec{ID: "vpce-x", VpcID: "vpc-1", ServiceName: ecr, Type: "Interface", SubnetIDs: []string{"subnet-9"}}, "SubnetIDs[0]"},
		{"subnet of another VPC", ec2sim.VpcEndpointSpec{ID: "vpce-x", VpcID: "vpc-1", ServiceName: ecr, Type: "Interface", SubnetIDs: []string{"subnet-db"}}, "SubnetIDs[0]"},
		{"subnet named twice", ec2sim.VpcEndpointSpec{ID: "vpce-x", VpcID: "vpc-1", ServiceName: ecr, Type: "Interface", SubnetIDs: []string{"subnet-private-a", "subnet-private-a"}}, "SubnetIDs[1]"},
		{"two subnets in one zone", ec2sim.VpcEndpointSpec{ID: "vpce-x", VpcID: "vpc-1", ServiceName: ecr, Type: "Interface", SubnetIDs: []string{"subnet-private-a", "subnet-public-a"}}, "SubnetIDs[1]"},
		{"unknown route table", ec2sim.VpcEndpointSpec{ID: "vpce-x", VpcID: "vpc-1", ServiceName: ecr, Type: "Gateway", RouteTableIDs: []string{"rtb-9"}}, "RouteTableIDs[0]"},
		{"route table of another VPC", ec2sim.VpcEndpointSpec{ID: "vpce-x", VpcID: "vpc-1", ServiceName: ecr, Type: "Gateway", RouteTableIDs: []string{"rtb-db"}}, "RouteTableIDs[0]"},
		{"route table named twice", ec2sim.VpcEndpointSpec{ID: "vpce-x", VpcID: "vpc-1", ServiceName: ecr, Type: "Gateway", RouteTableIDs: []string{"rtb-main", "rtb-main"}}, "RouteTableIDs[1]"},
		{"unknown state", ec2sim.VpcEndpointSpec{ID: "vpce-x", VpcID: "vpc-1", ServiceName: ecr, Type: "Interface", State: "up"}, "State"},
	} {
		id, err := w.m.AddVpcEndpoint(tt.spec)
		wantOptionsError(t, tt.name, err, tt.field)
		if id != "" {
			t.Errorf("%s: ID %q", tt.name, id)
		}
	}
	if diff := cmp.Diff(before, readNet(t, w.c), exportAll); diff != "" {
		t.Errorf("refused endpoints changed the network (-before +after):\n%s", diff)
	}
	id, err := w.m.AddVpcEndpoint(ec2sim.VpcEndpointSpec{VpcID: "vpc-1", ServiceName: ecr, Type: "Interface"})
	if err != nil || !regexp.MustCompile(`^vpce-[0-9a-f]{17}$`).MatchString(id) {
		t.Errorf("generated ID %q, %v", id, err)
	}
	if e, ok := w.m.VpcEndpoint(id); !ok || e.State != "available" || aws.ToString(e.ServiceName) != ecr {
		t.Errorf("endpoint %+v %t", e, ok)
	}
}

// TestNetworkNilModel: a nil model's network methods fail or answer
// nothing, without panicking.
func TestNetworkNilModel(t *testing.T) {
	var m *ec2sim.Model
	_, err1 := m.AddRouteTable(ec2sim.RouteTableSpec{})
	_, err2 := m.AddVpcEndpoint(ec2sim.VpcEndpointSpec{})
	for i, err := range []error{m.AddSubnet(ec2sim.SubnetSpec{}), err1, err2, m.SetRoutes("rtb-1", nil)} {
		if !errors.Is(err, ec2sim.ErrNilModel) {
			t.Errorf("%d: %v", i, err)
		}
	}
	if _, ok := m.Subnet("subnet-1"); ok {
		t.Error("Subnet")
	}
	if _, ok := m.RouteTable("rtb-1"); ok {
		t.Error("RouteTable")
	}
	if _, ok := m.VpcEndpoint("vpce-1"); ok {
		t.Error("VpcEndpoint")
	}
	if _, ok := m.RouteTableFor("subnet-1"); ok {
		t.Error("RouteTableFor")
	}
}
