package elbv2wire_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire"
)

// withNetwork lays a network out in w's vpc-1, as the private-subnet
// readiness checks read it:
//
//	subnet-public-a  eu-west-1a 10.0.0.0/24  public (tier=public)
//	subnet-private-a eu-west-1a 10.0.10.0/24 (tier=private), 42 addresses free
//	subnet-private-b eu-west-1b 10.0.11.0/24 (tier=private)
//	rtb-main    main; 0.0.0.0/0 → igw-1
//	rtb-private subnet-private-a, subnet-private-b; 0.0.0.0/0 → nat-1 (tier=private)
//	vpce-s3     Gateway   com.amazonaws.eu-west-1.s3      rtb-private
//	vpce-ecr    Interface com.amazonaws.eu-west-1.ecr.api both private subnets, private DNS
//	vpce-sts    Interface com.amazonaws.eu-west-1.sts     pending
func withNetwork(t *testing.T, w *ec2World) {
	t.Helper()
	for _, s := range []ec2sim.SubnetSpec{
		{ID: "subnet-public-a", VpcID: "vpc-1", Zone: "eu-west-1a", CIDR: "10.0.0.0/24", MapPublicIPOnLaunch: true, Tags: map[string]string{"tier": "public"}},
		{ID: "subnet-private-a", VpcID: "vpc-1", Zone: "eu-west-1a", CIDR: "10.0.10.0/24", Tags: map[string]string{"tier": "private"}, Available: func() int { return 42 }},
		{ID: "subnet-private-b", VpcID: "vpc-1", Zone: "eu-west-1b", CIDR: "10.0.11.0/24", Tags: map[string]string{"tier": "private"}},
	} {
		if err := w.net.AddSubnet(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, rt := range []ec2sim.RouteTableSpec{
		{ID: "rtb-main", VpcID: "vpc-1", Main: true, Routes: []ec2sim.Route{{Destination: "0.0.0.0/0", GatewayID: "igw-1"}}},
		{ID: "rtb-private", VpcID: "vpc-1", Subnets: []string{"subnet-private-a", "subnet-private-b"},
			Routes: []ec2sim.Route{{Destination: "0.0.0.0/0", NatGatewayID: "nat-1"}}, Tags: map[string]string{"tier": "private"}},
	} {
		if _, err := w.net.AddRouteTable(rt); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range []ec2sim.VpcEndpointSpec{
		{ID: "vpce-s3", VpcID: "vpc-1", ServiceName: "com.amazonaws.eu-west-1.s3", Type: "Gateway", RouteTableIDs: []string{"rtb-private"}},
		{ID: "vpce-ecr", VpcID: "vpc-1", ServiceName: "com.amazonaws.eu-west-1.ecr.api", Type: "Interface", SubnetIDs: []string{"subnet-private-a", "subnet-private-b"}, PrivateDNS: true},
		{ID: "vpce-sts", VpcID: "vpc-1", ServiceName: "com.amazonaws.eu-west-1.sts", Type: "Interface", State: "pending"},
	} {
		if _, err := w.net.AddVpcEndpoint(e); err != nil {
			t.Fatal(err)
		}
	}
}

func netFilter(name string, values ...string) ec2types.Filter {
	return ec2types.Filter{Name: aws.String(name), Values: values}
}

// sameThroughTheWire calls op through the SDK client and through the Go
// facade with in, and checks that both answer the same, every field of
// every item; it returns the SDK's answer.
func sameThroughTheWire[I, O any](t *testing.T, name string, sdk, facade func(*I) (*O, error), in *I) *O {
	t.Helper()
	got, err := sdk(in)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	want, err := facade(in)
	if err != nil {
		t.Fatalf("%s: facade: %v", name, err)
	}
	if diff := cmp.Diff(want, got, sameAnswer); diff != "" {
		t.Errorf("%s (-facade +SDK):\n%s", name, diff)
	}
	return got
}

// TestEC2NetworkThroughTheSDK: DescribeSubnets, DescribeRouteTables and
// DescribeVpcEndpoints through the real *ec2.Client, each answer compared
// in full with the Go facade's on the same state: their filters, their
// paging with the SDK's paginators, their NotFound codes and ec2sim's
// faults.
func TestEC2NetworkThroughTheSDK(t *testing.T) {
	w := newEC2World(t, elbv2wire.Options{})
	withNetwork(t, w)
	c := w.ep.NewEC2Client(elbv2wire.ClientOptions{})
	ctx := t.Context()

	subnets := func(in *ec2.DescribeSubnetsInput) []string {
		out := sameThroughTheWire(t, fmt.Sprintf("DescribeSubnets(%+v)", in),
			func(in *ec2.DescribeSubnetsInput) (*ec2.DescribeSubnetsOutput, error) {
				return c.DescribeSubnets(ctx, in)
			},
			func(in *ec2.DescribeSubnetsInput) (*ec2.DescribeSubnetsOutput, error) {
				return w.ec2.DescribeSubnets(ctx, in)
			}, in)
		var ids []string
		for _, s := range out.Subnets {
			ids = append(ids, aws.ToString(s.SubnetId))
		}
		return ids
	}
	for _, tt := range []struct {
		in   *ec2.DescribeSubnetsInput
		want []string
	}{
		{&ec2.DescribeSubnetsInput{}, []string{"subnet-private-a", "subnet-private-b", "subnet-public-a"}},
		{&ec2.DescribeSubnetsInput{SubnetIds: []string{"subnet-public-a", "subnet-private-b"}}, []string{"subnet-private-b", "subnet-public-a"}},
		{&ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{netFilter("vpc-id", "vpc-1"), netFilter("tag:tier", "private"), netFilter("availability-zone", "eu-west-1a")}}, []string{"subnet-private-a"}},
		{&ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{netFilter("map-public-ip-on-launch", "true")}}, []string{"subnet-public-a"}},
		{&ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{netFilter("cidr-block", "10.0.11.0/24"), netFilter("state", "available"), netFilter("tag-key", "tier")}}, []string{"subnet-private-b"}},
		{&ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{netFilter("subnet-id", "subnet-9")}}, nil},
	} {
		if diff := cmp.Diff(tt.want, subnets(tt.in)); diff != "" {
			t.Errorf("DescribeSubnets(%+v) (-want +got):\n%s", tt.in, diff)
		}
	}
	// The fields a readiness check reads, as the SDK decoded them.
	out, err := c.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{SubnetIds: []string{"subnet-private-a"}})
	if err != nil {
		t.Fatal(err)
	}
	if s := out.Subnets[0]; aws.ToInt32(s.AvailableIpAddressCount) != 42 || aws.ToBool(s.MapPublicIpOnLaunch) || aws.ToString(s.AvailabilityZoneId) != "euw1-az1" ||
		s.State != ec2types.SubnetStateAvailable || aws.ToString(s.SubnetArn) != "arn:aws:ec2:eu-west-1:123456789012:subnet/subnet-private-a" || len(s.Tags) != 1 {
		t.Errorf("subnet %+v", s)
	}

	tables := func(in *ec2.DescribeRouteTablesInput) []string {
		out := sameThroughTheWire(t, fmt.Sprintf("DescribeRouteTables(%+v)", in),
			func(in *ec2.DescribeRouteTablesInput) (*ec2.DescribeRouteTablesOutput, error) {
				return c.DescribeRouteTables(ctx, in)
			},
			func(in *ec2.DescribeRouteTablesInput) (*ec2.DescribeRouteTablesOutput, error) {
				return w.ec2.DescribeRouteTables(ctx, in)
			}, in)
		var ids []string
		for _, rt := range out.RouteTables {
			ids = append(ids, aws.ToString(rt.RouteTableId))
		}
		return ids
	}
	for _, tt := range []struct {
		in   *ec2.DescribeRouteTablesInput
		want []string
	}{
		{&ec2.DescribeRouteTablesInput{}, []string{"rtb-main", "rtb-private"}},
		{&ec2.DescribeRouteTablesInput{RouteTableIds: []string{"rtb-private"}}, []string{"rtb-private"}},
		{&ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{netFilter("association.subnet-id", "subnet-private-b")}}, []string{"rtb-private"}},
		{&ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{netFilter("vpc-id", "vpc-1"), netFilter("association.main", "true")}}, []string{"rtb-main"}},
		{&ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{netFilter("route.destination-cidr-block", "0.0.0.0/0"), netFilter("route.gateway-id", "igw-*")}}, []string{"rtb-main"}},
		{&ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{netFilter("route.nat-gateway-id", "nat-1"), netFilter("tag:tier", "private")}}, []string{"rtb-private"}},
	} {
		if diff := cmp.Diff(tt.want, tables(tt.in)); diff != "" {
			t.Errorf("DescribeRouteTables(%+v) (-want +got):\n%s", tt.in, diff)
		}
	}
	rt, err := c.DescribeRouteTables(ctx, &ec2.DescribeRouteTablesInput{RouteTableIds: []string{"rtb-private"}})
	if err != nil {
		t.Fatal(err)
	}
	if r := rt.RouteTables[0]; len(r.Routes) != 2 || aws.ToString(r.Routes[0].GatewayId) != "local" || r.Routes[0].Origin != ec2types.RouteOriginCreateRouteTable ||
		aws.ToString(r.Routes[1].NatGatewayId) != "nat-1" || r.Routes[1].State != ec2types.RouteStateActive || len(r.Associations) != 2 ||
		aws.ToString(r.Associations[1].SubnetId) != "subnet-private-b" || aws.ToBool(r.Associations[1].Main) ||
		r.Associations[1].AssociationState.State != ec2types.RouteTableAssociationStateCodeAssociated {
		t.Errorf("route table %+v", r)
	}
	// A broken world: the private subnets lose their NAT gateway.
	if err := w.net.SetRoutes("rtb-private", nil); err != nil {
		t.Fatal(err)
	}
	if got := tables(&ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{netFilter("route.destination-cidr-block", "0.0.0.0/0")}}); !cmp.Equal(got, []string{"rtb-main"}) {
		t.Errorf("default routes after SetRoutes: %v", got)
	}

	endpoints := func(in *ec2.DescribeVpcEndpointsInput) []string {
		out := sameThroughTheWire(t, fmt.Sprintf("DescribeVpcEndpoints(%+v)", in),
			func(in *ec2.DescribeVpcEndpointsInput) (*ec2.DescribeVpcEndpointsOutput, error) {
				return c.DescribeVpcEndpoints(ctx, in)
			},
			func(in *ec2.DescribeVpcEndpointsInput) (*ec2.DescribeVpcEndpointsOutput, error) {
				return w.ec2.DescribeVpcEndpoints(ctx, in)
			}, in)
		var ids []string
		for _, e := range out.VpcEndpoints {
			ids = append(ids, aws.ToString(e.VpcEndpointId))
		}
		return ids
	}
	for _, tt := range []struct {
		in   *ec2.DescribeVpcEndpointsInput
		want []string
	}{
		{&ec2.DescribeVpcEndpointsInput{}, []string{"vpce-ecr", "vpce-s3", "vpce-sts"}},
		{&ec2.DescribeVpcEndpointsInput{VpcEndpointIds: []string{"vpce-s3"}}, []string{"vpce-s3"}},
		{&ec2.DescribeVpcEndpointsInput{Filters: []ec2types.Filter{netFilter("vpc-id", "vpc-1"), netFilter("vpc-endpoint-state", "available")}}, []string{"vpce-ecr", "vpce-s3"}},
		{&ec2.DescribeVpcEndpointsInput{Filters: []ec2types.Filter{netFilter("service-name", "com.amazonaws.eu-west-1.sts", "com.amazonaws.eu-west-1.ecr.api")}}, []string{"vpce-ecr", "vpce-sts"}},
		{&ec2.DescribeVpcEndpointsInput{Filters: []ec2types.Filter{netFilter("vpc-endpoint-type", "Gateway"), netFilter("vpc-endpoint-id", "vpce-*")}}, []string{"vpce-s3"}},
	} {
		if diff := cmp.Diff(tt.want, endpoints(tt.in)); diff != "" {
			t.Errorf("DescribeVpcEndpoints(%+v) (-want +got):\n%s", tt.in, diff)
		}
	}
	eps, err := c.DescribeVpcEndpoints(ctx, &ec2.DescribeVpcEndpointsInput{VpcEndpointIds: []string{"vpce-ecr", "vpce-s3"}})
	if err != nil {
		t.Fatal(err)
	}
	if ecr, s3 := eps.VpcEndpoints[0], eps.VpcEndpoints[1]; ecr.VpcEndpointType != ec2types.VpcEndpointTypeInterface || !aws.ToBool(ecr.PrivateDnsEnabled) ||
		!cmp.Equal(ecr.SubnetIds, []string{"subnet-private-a", "subnet-private-b"}) || ecr.RouteTableIds == nil || len(ecr.RouteTableIds) != 0 ||
		!strings.EqualFold(string(s3.State), string(ec2types.StateAvailable)) || !cmp.Equal(s3.RouteTableIds, []string{"rtb-private"}) || len(s3.SubnetIds) != 0 {
		t.Errorf("endpoints %+v", eps.VpcEndpoints)
	}

	// Unknown IDs arrive as EC2's NotFound codes; an unknown filter as
	// InvalidParameterValue; none is retried.
	for _, tt := range []struct {
		name string
		call func() error
		code string
	}{
		{"subnet", func() error {
			_, err := c.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{SubnetIds: []string{"subnet-9"}})
			return err
		}, ec2sim.CodeInvalidSubnetIDNotFound},
		{"route table", func() error {
			_, err := c.DescribeRouteTables(ctx, &ec2.DescribeRouteTablesInput{RouteTableIds: []string{"rtb-9"}})
			return err
		}, ec2sim.CodeInvalidRouteTableIDNotFound},
		{"endpoint", func() error {
			_, err := c.DescribeVpcEndpoints(ctx, &ec2.DescribeVpcEndpointsInput{VpcEndpointIds: []string{"vpce-9"}})
			return err
		}, ec2sim.CodeInvalidVpcEndpointIDNotFound},
		{"filter", func() error {
			_, err := c.DescribeRouteTables(ctx, &ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{netFilter("route.instance-id", "i-1")}})
			return err
		}, ec2sim.CodeInvalidParameterValue},
		{"MaxResults", func() error {
			_, err := c.DescribeRouteTables(ctx, &ec2.DescribeRouteTablesInput{MaxResults: aws.Int32(200)})
			return err
		}, ec2sim.CodeInvalidParameterValue},
	} {
		w.ep.ResetCounts()
		err := tt.call()
		if code(err) != tt.code || status(err) != 400 {
			t.Errorf("%s: %v (status %d), want %s", tt.name, err, status(err), tt.code)
		}
		if n := len(w.ep.Requests()); n != 1 {
			t.Errorf("%s: %d requests", tt.name, n)
		}
	}
}

// TestEC2NetworkPagingThroughTheSDK: the SDK's paginators walk the three
// calls through the wire, one request a page.
func TestEC2NetworkPagingThroughTheSDK(t *testing.T) {
	w := newEC2World(t, elbv2wire.Options{})
	for i := range 11 {
		if err := w.net.AddSubnet(ec2sim.SubnetSpec{ID: fmt.Sprintf("subnet-%02d", i), VpcID: "vpc-1", Zone: "eu-west-1c", CIDR: fmt.Sprintf("10.0.%d.0/24", i)}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.net.AddRouteTable(ec2sim.RouteTableSpec{ID: fmt.Sprintf("rtb-%02d", i), VpcID: "vpc-1", Subnets: []string{fmt.Sprintf("subnet-%02d", i)}}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.net.AddVpcEndpoint(ec2sim.VpcEndpointSpec{ID: fmt.Sprintf("vpce-%02d", i), VpcID: "vpc-1", ServiceName: "com.amazonaws.eu-west-1.ssm", Type: "Interface"}); err != nil {
			t.Fatal(err)
		}
	}
	c := w.ep.NewEC2Client(elbv2wire.ClientOptions{})
	ctx := t.Context()
	type pages struct {
		ids   []string
		sizes []int
	}
	var sp, tp, ep pages
	sPager := ec2.NewDescribeSubnetsPaginator(c, &ec2.DescribeSubnetsInput{}, func(o *ec2.DescribeSubnetsPaginatorOptions) { o.Limit = 5 })
	for sPager.HasMorePages() {
		out, err := sPager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		sp.sizes = append(sp.sizes, len(out.Subnets))
		for _, s := range out.Subnets {
			sp.ids = append(sp.ids, aws.ToString(s.SubnetId))
		}
	}
	tPager := ec2.NewDescribeRouteTablesPaginator(c, &ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{netFilter("association.subnet-id", "subnet-*")}},
		func(o *ec2.DescribeRouteTablesPaginatorOptions) { o.Limit = 10 })
	for tPager.HasMorePages() {
		out, err := tPager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tp.sizes = append(tp.sizes, len(out.RouteTables))
		for _, rt := range out.RouteTables {
			tp.ids = append(tp.ids, aws.ToString(rt.RouteTableId))
		}
	}
	ePager := ec2.NewDescribeVpcEndpointsPaginator(c, &ec2.DescribeVpcEndpointsInput{}, func(o *ec2.DescribeVpcEndpointsPaginatorOptions) { o.Limit = 4 })
	for ePager.HasMorePages() {
		out, err := ePager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ep.sizes = append(ep.sizes, len(out.VpcEndpoints))
		for _, e := range out.VpcEndpoints {
			ep.ids = append(ep.ids, aws.ToString(e.VpcEndpointId))
		}
	}
	for name, tt := range map[string]struct {
		got   pages
		first string
		sizes []int
	}{
		"subnets":   {sp, "subnet-00", []int{5, 5, 1}},
		"tables":    {tp, "rtb-00", []int{10, 1}},
		"endpoints": {ep, "vpce-00", []int{4, 4, 3}},
	} {
		if len(tt.got.ids) != 11 || tt.got.ids[0] != tt.first || !cmp.Equal(tt.got.sizes, tt.sizes) {
			t.Errorf("%s: %v in pages of %v", name, tt.got.ids, tt.got.sizes)
		}
	}
	if diff := cmp.Diff(map[string]int{ec2sim.OpDescribeSubnets: 3, ec2sim.OpDescribeRouteTables: 2, ec2sim.OpDescribeVpcEndpoints: 3}, w.ep.Counts()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// TestEC2NetworkFaultsThroughTheSDK: ec2sim's faults on the new
// operations reach the SDK client: a refusal is not retried, a throttle is
// retried and then served.
func TestEC2NetworkFaultsThroughTheSDK(t *testing.T) {
	w := newEC2World(t, elbv2wire.Options{})
	withNetwork(t, w)
	c := w.ep.NewEC2Client(elbv2wire.ClientOptions{})
	ctx := t.Context()
	calls := map[string]func() (int, error){
		ec2sim.OpDescribeSubnets: func() (int, error) {
			out, err := c.DescribeSubnets(ctx, nil)
			if err != nil {
				return 0, err
			}
			return len(out.Subnets), nil
		},
		ec2sim.OpDescribeRouteTables: func() (int, error) {
			out, err := c.DescribeRouteTables(ctx, nil)
			if err != nil {
				return 0, err
			}
			return len(out.RouteTables), nil
		},
		ec2sim.OpDescribeVpcEndpoints: func() (int, error) {
			out, err := c.DescribeVpcEndpoints(ctx, nil)
			if err != nil {
				return 0, err
			}
			return len(out.VpcEndpoints), nil
		},
	}
	for op, call := range calls {
		if err := w.ec2.Fail(op, ec2sim.ErrUnauthorized(op)); err != nil {
			t.Fatal(err)
		}
		w.ep.ResetCounts()
		_, err := call()
		if code(err) != ec2sim.CodeUnauthorizedOperation || status(err) != 403 || w.ep.Counts()[op] != 1 || !strings.Contains(err.Error(), "ec2:"+op) {
			t.Errorf("%s unauthorized: %v (status %d), %d requests", op, err, status(err), w.ep.Counts()[op])
		}
		w.ec2.Clear(op)
		if err := w.ec2.FailNext(op, 1, ec2sim.ErrThrottled()); err != nil {
			t.Fatal(err)
		}
		w.ep.ResetCounts()
		if n, err := call(); err != nil || n == 0 || w.ep.Counts()[op] != 2 {
			t.Errorf("%s throttled once: %d items, %v, %d requests", op, n, err, w.ep.Counts()[op])
		}
	}
	counts := w.ec2.Counts()
	for op := range calls {
		if counts[op] != 3 {
			t.Errorf("%s: %d calls at the backend, want 3", op, counts[op])
		}
	}
}

// TestEC2NetworkOnTheWire: the requests' parameters and the responses'
// elements as EC2 writes them.
func TestEC2NetworkOnTheWire(t *testing.T) {
	w := newEC2World(t, elbv2wire.Options{})
	withNetwork(t, w)
	signedEC2 := strings.Replace(signed, "/elasticloadbalancing/", "/ec2/", 1)
	v := "&Version=" + elbv2wire.EC2Version
	for _, tt := range []struct {
		name, body string
		want       []string
	}{
		{"subnets", "Action=DescribeSubnets&SubnetId.1=subnet-private-a&SubnetId.2=subnet-public-a&Filter.1.Name=tag:tier&Filter.1.Value.1=private&MaxResults=5" + v, []string{
			`<DescribeSubnetsResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>`,
			`<subnetSet><item><assignIpv6AddressOnCreation>false</assignIpv6AddressOnCreation><availabilityZone>eu-west-1a</availabilityZone>` +
				`<availabilityZoneId>euw1-az1</availabilityZoneId><availableIpAddressCount>42</availableIpAddressCount><cidrBlock>10.0.10.0/24</cidrBlock>`,
			`<ipv6CidrBlockAssociationSet></ipv6CidrBlockAssociationSet>`,
			`<mapPublicIpOnLaunch>false</mapPublicIpOnLaunch><ownerId>123456789012</ownerId><state>available</state>` +
				`<subnetArn>arn:aws:ec2:eu-west-1:123456789012:subnet/subnet-private-a</subnetArn><subnetId>subnet-private-a</subnetId>` +
				`<tagSet><item><key>tier</key><value>private</value></item></tagSet><vpcId>vpc-1</vpcId></item></subnetSet>`,
		}},
		{"route tables", "Action=DescribeRouteTables&RouteTableId.1=rtb-private&Filter.1.Name=association.subnet-id&Filter.1.Value.1=subnet-private-b" + v, []string{
			`<routeTableSet><item><associationSet><item><associationState><state>associated</state></associationState><main>false</main>` +
				`<routeTableAssociationId>rtbassoc-`,
			`<routeTableId>rtb-private</routeTableId><subnetId>subnet-private-a</subnetId></item>`,
			`<propagatingVgwSet></propagatingVgwSet><routeSet><item><destinationCidrBlock>10.0.0.0/16</destinationCidrBlock><gatewayId>local</gatewayId>` +
				`<origin>CreateRouteTable</origin><state>active</state></item><item><destinationCidrBlock>0.0.0.0/0</destinationCidrBlock>` +
				`<natGatewayId>nat-1</natGatewayId><origin>CreateRoute</origin><state>active</state></item></routeSet>`,
		}},
		{"endpoints", "Action=DescribeVpcEndpoints&VpcEndpointId.1=vpce-ecr&VpcEndpointId.2=vpce-s3&Filter.1.Name=vpc-endpoint-state&Filter.1.Value.1=available" + v, []string{
			`<vpcEndpointSet><item><ownerId>123456789012</ownerId><privateDnsEnabled>true</privateDnsEnabled><requesterManaged>false</requesterManaged>` +
				`<routeTableIdSet></routeTableIdSet><serviceName>com.amazonaws.eu-west-1.ecr.api</serviceName><state>available</state>` +
				`<subnetIdSet><item>subnet-private-a</item><item>subnet-private-b</item></subnetIdSet><vpcEndpointId>vpce-ecr</vpcEndpointId>` +
				`<vpcEndpointType>Interface</vpcEndpointType><vpcId>vpc-1</vpcId></item>`,
			`<routeTableIdSet><item>rtb-private</item></routeTableIdSet>`,
		}},
	} {
		status, _, body := post(t, w.ep.URL, signedEC2, tt.body)
		for _, want := range tt.want {
			if status != 200 || !strings.Contains(body, want) {
				t.Errorf("%s: %d %s\ndoes not contain %s", tt.name, status, body, want)
			}
		}
	}
	// The SDK's names, not the Go fields'.
	for _, bad := range []string{"Action=DescribeSubnets&SubnetIds.1=subnet-public-a", "Action=DescribeRouteTables&RouteTableIds.1=rtb-main",
		"Action=DescribeVpcEndpoints&VpcEndpointIds.1=vpce-s3"} {
		status, _, body := post(t, w.ep.URL, signedEC2, bad+v)
		if status != 400 || !strings.Contains(body, "<Code>UnknownParameter</Code>") || !strings.Contains(body, "Ids") {
			t.Errorf("%s: %d %s", bad, status, body)
		}
	}
}
