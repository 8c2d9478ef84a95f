package ec2sim

// describe_network.go: DescribeSubnets, DescribeRouteTables and
// DescribeVpcEndpoints on the model, their filters, and the read-backs
// Subnet, RouteTable, RouteTableFor and VpcEndpoint.

import (
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// subnetState, routeState and associationState are the only states the
// model's subnets, routes and route table associations have.
const (
	subnetState      = ec2types.SubnetStateAvailable
	routeState       = ec2types.RouteStateActive
	associationState = ec2types.RouteTableAssociationStateCodeAssociated
)

// subnetFilters are the DescribeSubnets filters the model supports, with
// the other names EC2 accepts for some of them (availabilityZone, cidr,
// cidrBlock...).
var subnetFilters = func() []filter[*subnet] {
	zone := func(s *subnet) string { return s.zone }
	zoneID := func(s *subnet) string { return s.zoneID }
	cidr := func(s *subnet) string { return s.cidr.String() }
	return []filter[*subnet]{
		field("availability-zone", zone), field("availabilityZone", zone),
		field("availability-zone-id", zoneID), field("availabilityZoneId", zoneID),
		field("cidr-block", cidr), field("cidr", cidr), field("cidrBlock", cidr),
		constant[*subnet]("default-for-az", "false"), constant[*subnet]("defaultForAz", "false"),
		field("map-public-ip-on-launch", func(s *subnet) string { return strconv.FormatBool(s.public) }),
		ownerFilter[*subnet](),
		constant[*subnet]("state", string(subnetState)),
		{name: "subnet-arn", values: func(m *Model, s *subnet, _ string) []string { return []string{m.arn("subnet/" + s.id)} }},
		field("subnet-id", func(s *subnet) string { return s.id }),
		field("vpc-id", func(s *subnet) string { return s.vpc }),
		tagFilter(func(s *subnet) map[string]string { return s.tags }),
		tagKeyFilter(func(s *subnet) map[string]string { return s.tags }),
	}
}()

// tableFilters are the DescribeRouteTables filters the model supports. A
// table's association values are those of its main association and its
// explicit ones; its route values include the local route's.
var tableFilters = []filter[*routeTable]{
	{name: "association.route-table-association-id", values: assocValues(func(_ *routeTable, a association) string { return a.id })},
	{name: "association.route-table-id", values: assocValues(func(t *routeTable, _ association) string { return t.id })},
	{name: "association.subnet-id", values: assocValues(func(_ *routeTable, a association) string { return a.subnet })},
	{name: "association.main", values: assocValues(func(_ *routeTable, a association) string { return strconv.FormatBool(a.subnet == "") })},
	ownerFilter[*routeTable](),
	field("route-table-id", func(t *routeTable) string { return t.id }),
	{name: "route.destination-cidr-block", values: routeValues(func(r ec2types.Route) *string { return r.DestinationCidrBlock })},
	{name: "route.gateway-id", values: routeValues(func(r ec2types.Route) *string { return r.GatewayId })},
	{name: "route.nat-gateway-id", values: routeValues(func(r ec2types.Route) *string { return r.NatGatewayId })},
	{name: "route.transit-gateway-id", values: routeValues(func(r ec2types.Route) *string { return r.TransitGatewayId })},
	{name: "route.vpc-peering-connection-id", values: routeValues(func(r ec2types.Route) *string { return r.VpcPeeringConnectionId })},
	{name: "route.origin", values: routeValues(func(r ec2types.Route) *string { return aws.String(string(r.Origin)) })},
	{name: "route.state", values: routeValues(func(r ec2types.Route) *string { return aws.String(string(r.State)) })},
	field("vpc-id", func(t *routeTable) string { return t.vpc }),
	tagFilter(func(t *routeTable) map[string]string { return t.tags }),
	tagKeyFilter(func(t *routeTable) map[string]string { return t.tags }),
}

// assocValues are the values of a table's associations, the main one (its
// subnet empty) first.
func assocValues(f func(*routeTable, association) string) func(*Model, *routeTable, string) []string {
	return func(_ *Model, t *routeTable, _ string) []string {
		var out []string
		for _, a := range t.associations() {
			if v := f(t, a); v != "" {
				out = append(out, v)
			}
		}
		return out
	}
}

// routeValues are the values of a table's routes, the local one included.
func routeValues(f func(ec2types.Route) *string) func(*Model, *routeTable, string) []string {
	return func(m *Model, t *routeTable, _ string) []string {
		var out []string
		for _, r := range m.routesLocked(t) {
			if v := aws.ToString(f(r)); v != "" {
				out = append(out, v)
			}
		}
		return out
	}
}

// endpointFilters are the DescribeVpcEndpoints filters the model supports.
var endpointFilters = []filter[*endpoint]{
	field("service-name", func(e *endpoint) string { return e.service }),
	field("vpc-id", func(e *endpoint) string { return e.vpc }),
	field("vpc-endpoint-id", func(e *endpoint) string { return e.id }),
	field("vpc-endpoint-state", func(e *endpoint) string { return string(e.state) }),
	field("vpc-endpoint-type", func(e *endpoint) string { return string(e.kind) }),
	tagFilter(func(e *endpoint) map[string]string { return e.tags }),
	tagKeyFilter(func(e *endpoint) map[string]string { return e.tags }),
}

func (m *Model) describeSubnets(in *ec2.DescribeSubnetsInput) (*ec2.DescribeSubnetsOutput, error) {
	k := kind[*subnet]{all: m.subnets, filters: subnetFilters, notFound: subnetNotFound, limits: defaultLimits}
	list, next, err := describeIn(m, k, request{in.SubnetIds, in.Filters, in.MaxResults, in.NextToken}, func(s *subnet) *subnet { return s })
	if err != nil {
		return nil, err
	}
	// Subnets never change once added: they render without the lock, so
	// that Available may read the world (and the model).
	out := &ec2.DescribeSubnetsOutput{Subnets: make([]ec2types.Subnet, 0, len(list)), NextToken: next}
	for _, s := range list {
		out.Subnets = append(out.Subnets, m.renderSubnet(s))
	}
	return out, nil
}

func (m *Model) describeRouteTables(in *ec2.DescribeRouteTablesInput) (*ec2.DescribeRouteTablesOutput, error) {
	k := kind[*routeTable]{all: m.tables, filters: tableFilters, notFound: routeTableNotFound, limits: routeTableLimits}
	tables, next, err := describeIn(m, k, request{in.RouteTableIds, in.Filters, in.MaxResults, in.NextToken}, m.renderTableLocked)
	if err != nil {
		return nil, err
	}
	return &ec2.DescribeRouteTablesOutput{RouteTables: tables, NextToken: next}, nil
}

func (m *Model) describeVpcEndpoints(in *ec2.DescribeVpcEndpointsInput) (*ec2.DescribeVpcEndpointsOutput, error) {
	k := kind[*endpoint]{all: m.endpoints, filters: endpointFilters, notFound: vpcEndpointNotFound, limits: endpointLimits}
	endpoints, next, err := describeIn(m, k, request{in.VpcEndpointIds, in.Filters, in.MaxResults, in.NextToken}, m.renderEndpoint)
	if err != nil {
		return nil, err
	}
	return &ec2.DescribeVpcEndpointsOutput{VpcEndpoints: endpoints, NextToken: next}, nil
}

// renderSubnet returns a subnet as DescribeSubnets shows it, calling its
// Available. The caller must not hold the model's lock.
func (m *Model) renderSubnet(s *subnet) ec2types.Subnet {
	usable := 1<<(32-s.cidr.Bits()) - ReservedAddresses
	free := usable
	if s.available != nil {
		free = max(0, min(s.available(), usable))
	}
	return ec2types.Subnet{
		AssignIpv6AddressOnCreation: aws.Bool(false),
		AvailabilityZone:            aws.String(s.zone),
		AvailabilityZoneId:          aws.String(s.zoneID),
		AvailableIpAddressCount:     aws.Int32(int32(free)),
		CidrBlock:                   aws.String(s.cidr.String()),
		DefaultForAz:                aws.Bool(false),
		EnableDns64:                 aws.Bool(false),
		Ipv6CidrBlockAssociationSet: []ec2types.SubnetIpv6CidrBlockAssociation{},
		Ipv6Native:                  aws.Bool(false),
		MapCustomerOwnedIpOnLaunch:  aws.Bool(false),
		MapPublicIpOnLaunch:         aws.Bool(s.public),
		OwnerId:                     aws.String(m.account),
		State:                       subnetState,
		SubnetArn:                   aws.String(m.arn("subnet/" + s.id)),
		SubnetId:                    aws.String(s.id),
		Tags:                        tagList(s.tags),
		VpcId:                       aws.String(s.vpc),
	}
}

// associations are a table's associations, the main one (with no subnet)
// first.
func (t *routeTable) associations() []association {
	out := make([]association, 0, len(t.assocs)+1)
	if t.mainAssoc != "" {
		out = append(out, association{id: t.mainAssoc})
	}
	return append(out, t.assocs...)
}

// routesLocked are a table's routes as EC2 shows them: the local route
// first, then the table's own, in the order they were set.
func (m *Model) routesLocked(t *routeTable) []ec2types.Route {
	out := []ec2types.Route{{
		DestinationCidrBlock: aws.String(m.vpcs[t.vpc].cidr.String()), GatewayId: aws.String("local"),
		Origin: ec2types.RouteOriginCreateRouteTable, State: routeState,
	}}
	for _, r := range t.routes {
		out = append(out, ec2types.Route{
			DestinationCidrBlock: aws.String(r.Destination), GatewayId: optional(r.GatewayID), NatGatewayId: optional(r.NatGatewayID),
			TransitGatewayId: optional(r.TransitGatewayID), NetworkInterfaceId: optional(r.NetworkInterfaceID),
			VpcPeeringConnectionId: optional(r.VpcPeeringConnectionID), Origin: ec2types.RouteOriginCreateRoute, State: routeState,
		})
	}
	return out
}

func (m *Model) renderTableLocked(t *routeTable) ec2types.RouteTable {
	out := ec2types.RouteTable{
		Associations:    []ec2types.RouteTableAssociation{},
		OwnerId:         aws.String(m.account),
		PropagatingVgws: []ec2types.PropagatingVgw{},
		RouteTableId:    aws.String(t.id),
		Routes:          m.routesLocked(t),
		Tags:            tagList(t.tags),
		VpcId:           aws.String(t.vpc),
	}
	for _, a := range t.associations() {
		out.Associations = append(out.Associations, ec2types.RouteTableAssociation{
			AssociationState:        &ec2types.RouteTableAssociationState{State: associationState},
			Main:                    aws.Bool(a.subnet == ""),
			RouteTableAssociationId: aws.String(a.id),
			RouteTableId:            aws.String(t.id),
			SubnetId:                optional(a.subnet),
		})
	}
	return out
}

func (m *Model) renderEndpoint(e *endpoint) ec2types.VpcEndpoint {
	return ec2types.VpcEndpoint{
		OwnerId:           aws.String(m.account),
		PrivateDnsEnabled: aws.Bool(e.privateDNS),
		RequesterManaged:  aws.Bool(false),
		RouteTableIds:     append([]string{}, e.tables...),
		ServiceName:       aws.String(e.service),
		State:             e.state,
		SubnetIds:         append([]string{}, e.subnets...),
		Tags:              tagList(e.tags),
		VpcEndpointId:     aws.String(e.id),
		VpcEndpointType:   e.kind,
		VpcId:             aws.String(e.vpc),
	}
}

// Subnet returns a subnet as DescribeSubnets shows it (calling its
// Available), and whether it exists.
func (m *Model) Subnet(id string) (ec2types.Subnet, bool) {
	if m == nil {
		return ec2types.Subnet{}, false
	}
	m.mu.Lock()
	s, ok := m.subnets[id]
	m.mu.Unlock()
	if !ok {
		return ec2types.Subnet{}, false
	}
	return m.renderSubnet(s), true
}

// RouteTable returns a route table as DescribeRouteTables shows it, and
// whether it exists.
func (m *Model) RouteTable(id string) (ec2types.RouteTable, bool) {
	if m == nil {
		return ec2types.RouteTable{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tables[id]
	if !ok {
		return ec2types.RouteTable{}, false
	}
	return m.renderTableLocked(t), true
}

// RouteTableFor returns the ID of the route table that routes a subnet's
// traffic: the table explicitly associated with it, else its VPC's main
// table; false when the subnet does not exist or its VPC has no main
// table.
func (m *Model) RouteTableFor(subnetID string) (string, bool) {
	if m == nil {
		return "", false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.subnets[subnetID]
	if !ok {
		return "", false
	}
	if id, _ := m.explicitTableLocked(subnetID); id != "" {
		return id, true
	}
	id := m.mainTableLocked(s.vpc)
	return id, id != ""
}

// VpcEndpoint returns a VPC endpoint as DescribeVpcEndpoints shows it, and
// whether it exists.
func (m *Model) VpcEndpoint(id string) (ec2types.VpcEndpoint, bool) {
	if m == nil {
		return ec2types.VpcEndpoint{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.endpoints[id]
	if !ok {
		return ec2types.VpcEndpoint{}, false
	}
	return m.renderEndpoint(e), true
}
