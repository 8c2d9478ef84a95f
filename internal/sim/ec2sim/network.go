package ec2sim

// network.go: the network's layout: subnets (AddSubnet), route tables
// (AddRouteTable, SetRoutes) and VPC endpoints (AddVpcEndpoint), and their
// validation.

import (
	"fmt"
	"maps"
	"net/netip"
	"regexp"
	"slices"
	"strings"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// The sizes of a subnet's IPv4 CIDR block EC2 accepts: /16 to /28.
const (
	minSubnetBits = 16
	maxSubnetBits = 28
)

// ReservedAddresses is how many addresses of every subnet AWS keeps for
// itself (the network address, the VPC router, DNS, one for future use and
// the broadcast address): a subnet's available addresses, when nothing is
// running in it, are its CIDR block's size less these.
const ReservedAddresses = 5

// SubnetSpec describes a subnet for [Model.AddSubnet].
type SubnetSpec struct {
	// ID is the subnet's ID: "subnet-" and lowercase letters and digits,
	// with single hyphens between them ("subnet-private-eu-west-1a" reads
	// well in a report). Zero: a new subnet-<17 hex digits>, which
	// DescribeSubnets finds by its cidr-block.
	ID string
	// VpcID is the subnet's VPC, added with [Model.AddVPC]. Required.
	VpcID string
	// Zone is the subnet's Availability Zone: the model's region and one
	// letter ("eu-west-1a"). Required.
	Zone string
	// ZoneID is the Availability Zone's ID. Zero: derived from Zone as
	// AWS spells zone IDs, "euw1-az1" for "eu-west-1a" (the real mapping
	// of names to IDs differs from account to account).
	ZoneID string
	// CIDR is the subnet's IPv4 CIDR block, /16 to /28, a network address
	// inside the VPC's block, overlapping no other subnet of the VPC.
	// Required.
	CIDR string
	// MapPublicIPOnLaunch is whether instances launched in the subnet get a
	// public IPv4 address. Zero: they do not.
	MapPublicIPOnLaunch bool
	// Tags are the subnet's tags. Nil: none.
	Tags map[string]string
	// Available returns how many of the subnet's addresses are free. The
	// model calls it on every DescribeSubnets (for the subnets it answers
	// with) and [Model.Subnet], without holding its own lock, and keeps
	// the answer between 0 and the block's size less [ReservedAddresses].
	// Nil: always the size less [ReservedAddresses].
	Available func() int
}

// subnet is one subnet. It never changes once added, so it may be read
// without the model's lock.
type subnet struct {
	id, vpc, zone, zoneID string
	cidr                  netip.Prefix
	public                bool
	tags                  map[string]string
	available             func() int
}

// Route is one route of a route table: a destination and exactly one
// target.
type Route struct {
	// Destination is the IPv4 CIDR block the route sends ("0.0.0.0/0"
	// for the default route). Required; not the VPC's own block, which
	// the local route holds.
	Destination string
	// GatewayID is an internet gateway ("igw-…") or a virtual private
	// gateway ("vgw-…").
	GatewayID string
	// NatGatewayID is a NAT gateway ("nat-…").
	NatGatewayID string
	// TransitGatewayID is a transit gateway ("tgw-…").
	TransitGatewayID string
	// NetworkInterfaceID is a network interface ("eni-…").
	NetworkInterfaceID string
	// VpcPeeringConnectionID is a VPC peering connection ("pcx-…").
	VpcPeeringConnectionID string
}

// RouteTableSpec describes a route table for [Model.AddRouteTable].
type RouteTableSpec struct {
	// ID is the table's ID: "rtb-" and lowercase letters and digits, with
	// single hyphens between them. Zero: a new rtb-<17 hex digits>.
	ID string
	// VpcID is the table's VPC. Required.
	VpcID string
	// Main makes it the VPC's main route table, which routes every subnet
	// of the VPC that no table names explicitly. A VPC has at most one.
	Main bool
	// Subnets are the subnets of the VPC explicitly associated with the
	// table. A subnet has at most one explicit association. Nil: none.
	Subnets []string
	// Routes are the table's routes, besides the local route to the VPC's
	// CIDR block, which the model adds. Nil: the local route only.
	Routes []Route
	// Tags are the table's tags. Nil: none.
	Tags map[string]string
}

type routeTable struct {
	id, vpc string
	// mainAssoc is the ID of the main association; empty when the table
	// is not its VPC's main one.
	mainAssoc string
	assocs    []association // explicit, in the order given
	routes    []Route       // normalised, without the local route
	tags      map[string]string
}

type association struct{ id, subnet string }

// VpcEndpointSpec describes a VPC endpoint for [Model.AddVpcEndpoint].
type VpcEndpointSpec struct {
	// ID is the endpoint's ID: "vpce-" and lowercase letters and digits,
	// with single hyphens between them. Zero: a new vpce-<17 hex digits>.
	ID string
	// VpcID is the endpoint's VPC. Required.
	VpcID string
	// ServiceName is the service it reaches, for example
	// "com.amazonaws.eu-west-1.ecr.api": lowercase letters, digits, dots
	// and hyphens. Required.
	ServiceName string
	// Type is "Interface" or "Gateway" (ec2types.VpcEndpointType).
	// Required.
	Type string
	// SubnetIDs are an Interface endpoint's subnets, in the VPC, at most
	// one per Availability Zone. A Gateway endpoint has none.
	SubnetIDs []string
	// RouteTableIDs are a Gateway endpoint's route tables, in the VPC. An
	// Interface endpoint has none.
	RouteTableIDs []string
	// PrivateDNS is whether an Interface endpoint has private DNS enabled.
	// A Gateway endpoint has no private DNS.
	PrivateDNS bool
	// State is the endpoint's state: one of ec2types.State's values, in
	// any case ("available", "Pending", "failed"...). DescribeVpcEndpoints
	// spells it as EC2 does, in camel case ("available",
	// "pendingAcceptance"), which is not the SDK's constants' spelling
	// ("Available"): compare with strings.EqualFold. Zero: "available".
	State string
	// Tags are the endpoint's tags. Nil: none.
	Tags map[string]string
}

type endpoint struct {
	id, vpc, service string
	kind             ec2types.VpcEndpointType
	subnets, tables  []string
	privateDNS       bool
	state            ec2types.State
	tags             map[string]string
}

var (
	// nameRe is the part of a network ID after its prefix.
	nameRe = regexp.MustCompile(`^[0-9a-z]+(-[0-9a-z]+)*$`)
	// serviceRe is a VPC endpoint service name.
	serviceRe = regexp.MustCompile(`^[0-9a-z]+([.-][0-9a-z]+)*$`)
)

// validNetworkID reports whether id is prefix-name, as the layout's IDs
// are.
func validNetworkID(prefix, id string) bool {
	name, ok := strings.CutPrefix(id, prefix+"-")
	return ok && len(name) <= 64 && nameRe.MatchString(name)
}

func netErr(op, field, format string, args ...any) error {
	return &OptionsError{Pkg: "ec2sim", Op: op, Field: field, Reason: fmt.Sprintf(format, args...)}
}

// checkID checks a spec's optional ID against prefix and taken, the IDs in
// use; an empty ID passes.
func checkID[T any](op, prefix, id string, taken map[string]T) error {
	if id == "" {
		return nil
	}
	if !validNetworkID(prefix, id) {
		return netErr(op, "ID", "%q is not %s- and lowercase letters or digits", id, prefix)
	}
	if _, ok := taken[id]; ok {
		return netErr(op, "ID", "%s exists", id)
	}
	return nil
}

// member is a subnet or a route table, as a spec names them.
type member interface{ vpcID() string }

func (s *subnet) vpcID() string     { return s.vpc }
func (t *routeTable) vpcID() string { return t.vpc }

// checkMembers checks the IDs of kind ("subnet") a spec names in field:
// each in have, in the VPC vpcID, and named once; then more, when set,
// which returns why one is refused, or "".
func checkMembers[T member](op, field, kind, vpcID string, ids []string, have map[string]T, more func(T) string) error {
	for i, id := range ids {
		f := fmt.Sprintf("%s[%d]", field, i)
		r, ok := have[id]
		switch {
		case !ok:
			return netErr(op, f, "no %s %q", kind, id)
		case r.vpcID() != vpcID:
			return netErr(op, f, "%s is in %s, not %s", id, r.vpcID(), vpcID)
		case slices.Index(ids, id) < i:
			return netErr(op, f, "%s is named twice", id)
		}
		if more != nil {
			if reason := more(r); reason != "" {
				return netErr(op, f, "%s", reason)
			}
		}
	}
	return nil
}

// AddSubnet adds a subnet (state available) to a VPC. It fails with an
// [*OptionsError], and changes nothing, for an unknown VPC, a missing,
// malformed or taken ID, zone or CIDR block, a zone outside the model's
// region, or a block that is not inside the VPC's or overlaps another
// subnet's.
func (m *Model) AddSubnet(spec SubnetSpec) error {
	if m == nil {
		return ErrNilModel
	}
	const op = "add subnet"
	zoneID, err := m.zoneID(spec.Zone, spec.ZoneID)
	if err != nil {
		return err
	}
	p, err := netip.ParsePrefix(spec.CIDR)
	switch {
	case err != nil || !p.Addr().Is4():
		return netErr(op, "CIDR", "%q is not an IPv4 CIDR block", spec.CIDR)
	case p != p.Masked():
		return netErr(op, "CIDR", "%s is not a network address: %s", spec.CIDR, p.Masked())
	case p.Bits() < minSubnetBits || p.Bits() > maxSubnetBits:
		return netErr(op, "CIDR", "%s: a subnet is /%d to /%d", spec.CIDR, minSubnetBits, maxSubnetBits)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.vpcs[spec.VpcID]
	if !ok {
		return netErr(op, "VpcID", "no VPC %q", spec.VpcID)
	}
	if err := checkID(op, "subnet", spec.ID, m.subnets); err != nil {
		return err
	}
	if p.Bits() < v.cidr.Bits() || !v.cidr.Contains(p.Addr()) {
		return netErr(op, "CIDR", "%s is not inside %s's %s", p, v.id, v.cidr)
	}
	for _, id := range slices.Sorted(maps.Keys(m.subnets)) {
		if o := m.subnets[id]; o.vpc == v.id && o.cidr.Overlaps(p) {
			return netErr(op, "CIDR", "%s overlaps %s's %s", p, id, o.cidr)
		}
	}
	id := spec.ID
	if id == "" {
		id = m.newIDLocked("subnet")
	}
	m.subnets[id] = &subnet{
		id: id, vpc: v.id, zone: spec.Zone, zoneID: zoneID, cidr: p, public: spec.MapPublicIPOnLaunch,
		tags: maps.Clone(spec.Tags), available: spec.Available,
	}
	return nil
}

// zoneID checks a subnet's zone and returns its zone ID: id when set, else
// derived from the zone's name.
func (m *Model) zoneID(zone, id string) (string, error) {
	const op = "add subnet"
	letter, ok := strings.CutPrefix(zone, m.region)
	if zone == "" {
		return "", netErr(op, "Zone", "required")
	}
	if !ok || len(letter) != 1 || letter[0] < 'a' || letter[0] > 'z' {
		return "", netErr(op, "Zone", "%q is not an Availability Zone of %s (%sa, %sb...)", zone, m.region, m.region, m.region)
	}
	if id != "" {
		if !nameRe.MatchString(id) {
			return "", netErr(op, "ZoneID", "%q is not lowercase letters or digits with single hyphens", id)
		}
		return id, nil
	}
	return fmt.Sprintf("%s-az%d", regionCode(m.region), letter[0]-'a'+1), nil
}

// regionCode is the short form of a region in zone IDs: "euw1" for
// eu-west-1, "apse2" for ap-southeast-2, "usgw1" for us-gov-west-1.
func regionCode(region string) string {
	words := strings.Split(region, "-")
	short := map[string]string{
		"north": "n", "south": "s", "east": "e", "west": "w", "central": "c",
		"northeast": "ne", "northwest": "nw", "southeast": "se", "southwest": "sw",
	}
	var b strings.Builder
	for i, w := range words {
		switch s, ok := short[w]; {
		case i == 0 || i == len(words)-1:
			b.WriteString(w)
		case ok:
			b.WriteString(s)
		case w != "":
			b.WriteString(w[:1])
		}
	}
	return b.String()
}

// routeTargets are a Route's targets: the field's name, its value, and
// the prefixes its IDs take.
func routeTargets(r Route) []struct {
	field, value string
	prefixes     []string
} {
	return []struct {
		field, value string
		prefixes     []string
	}{
		{"GatewayID", r.GatewayID, []string{"igw", "vgw"}},
		{"NatGatewayID", r.NatGatewayID, []string{"nat"}},
		{"TransitGatewayID", r.TransitGatewayID, []string{"tgw"}},
		{"NetworkInterfaceID", r.NetworkInterfaceID, []string{"eni"}},
		{"VpcPeeringConnectionID", r.VpcPeeringConnectionID, []string{"pcx"}},
	}
}

// checkRoutes validates a table's routes for a VPC and returns them with
// their destinations normalised.
func checkRoutes(op string, v *vpc, routes []Route) ([]Route, error) {
	out := make([]Route, 0, len(routes))
	seen := map[netip.Prefix]int{}
	for i, r := range routes {
		field := fmt.Sprintf("Routes[%d]", i)
		p, err := netip.ParsePrefix(r.Destination)
		switch {
		case err != nil || !p.Addr().Is4():
			return nil, netErr(op, field+".Destination", "%q is not an IPv4 CIDR block", r.Destination)
		case p != p.Masked():
			return nil, netErr(op, field+".Destination", "%s is not a network address: %s", r.Destination, p.Masked())
		case p == v.cidr:
			return nil, netErr(op, field+".Destination", "%s is %s's block, which the local route holds", p, v.id)
		}
		if j, ok := seen[p]; ok {
			return nil, netErr(op, field+".Destination", "%s is Routes[%d]'s destination too", p, j)
		}
		seen[p] = i
		var set []string
		for _, t := range routeTargets(r) {
			if t.value == "" {
				continue
			}
			set = append(set, t.field)
			if !slices.ContainsFunc(t.prefixes, func(prefix string) bool { return validNetworkID(prefix, t.value) }) {
				return nil, netErr(op, field+"."+t.field, "%q is not %s- and lowercase letters or digits", t.value, strings.Join(t.prefixes, "- or "))
			}
		}
		switch len(set) {
		case 0:
			return nil, netErr(op, field, "no target: set one of GatewayID, NatGatewayID, TransitGatewayID, NetworkInterfaceID, VpcPeeringConnectionID")
		case 1:
		default:
			return nil, netErr(op, field, "two targets, %s: a route has one", strings.Join(set, " and "))
		}
		r.Destination = p.String()
		out = append(out, r)
	}
	return out, nil
}

// AddRouteTable adds a route table to a VPC, with the local route to the
// VPC's CIDR block and spec's routes, associated with spec's subnets (and
// as the VPC's main table when spec.Main), and returns its ID. It fails
// with an [*OptionsError], and changes nothing, for an unknown VPC or
// subnet, a malformed or taken ID, a second main table, a subnet of
// another VPC, named twice or already associated with a table, or a bad
// route (see [Route]).
func (m *Model) AddRouteTable(spec RouteTableSpec) (string, error) {
	if m == nil {
		return "", ErrNilModel
	}
	const op = "add route table"
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.vpcs[spec.VpcID]
	if !ok {
		return "", netErr(op, "VpcID", "no VPC %q", spec.VpcID)
	}
	if err := checkID(op, "rtb", spec.ID, m.tables); err != nil {
		return "", err
	}
	if spec.Main {
		if id := m.mainTableLocked(v.id); id != "" {
			return "", netErr(op, "Main", "%s has a main route table: %s", v.id, id)
		}
	}
	err := checkMembers(op, "Subnets", "subnet", v.id, spec.Subnets, m.subnets, func(s *subnet) string {
		if t, _ := m.explicitTableLocked(s.id); t != "" {
			return fmt.Sprintf("%s is associated with %s already", s.id, t)
		}
		return ""
	})
	if err != nil {
		return "", err
	}
	routes, err := checkRoutes(op, v, spec.Routes)
	if err != nil {
		return "", err
	}
	id := spec.ID
	if id == "" {
		id = m.newIDLocked("rtb")
	}
	t := &routeTable{id: id, vpc: v.id, routes: routes, tags: maps.Clone(spec.Tags)}
	if spec.Main {
		t.mainAssoc = m.newIDLocked("rtbassoc")
	}
	for _, s := range spec.Subnets {
		t.assocs = append(t.assocs, association{id: m.newIDLocked("rtbassoc"), subnet: s})
	}
	m.tables[id] = t
	return id, nil
}

// SetRoutes replaces a route table's routes (the local route stays), as a
// world breaks or mends its egress. It fails with an [*OptionsError], and
// changes nothing, for an unknown table or a bad route (see [Route]).
func (m *Model) SetRoutes(routeTableID string, routes []Route) error {
	if m == nil {
		return ErrNilModel
	}
	const op = "set routes"
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tables[routeTableID]
	if !ok {
		return netErr(op, "routeTableID", "no route table %q", routeTableID)
	}
	checked, err := checkRoutes(op, m.vpcs[t.vpc], routes)
	if err != nil {
		return err
	}
	t.routes = checked
	return nil
}

// mainTableLocked returns the ID of a VPC's main route table, "" when it
// has none.
func (m *Model) mainTableLocked(vpcID string) string {
	for id, t := range m.tables {
		if t.vpc == vpcID && t.mainAssoc != "" {
			return id
		}
	}
	return ""
}

// explicitTableLocked returns the table a subnet is explicitly associated
// with and the association's ID; "" when none.
func (m *Model) explicitTableLocked(subnetID string) (string, string) {
	for id, t := range m.tables {
		for _, a := range t.assocs {
			if a.subnet == subnetID {
				return id, a.id
			}
		}
	}
	return "", ""
}

// AddVpcEndpoint adds a VPC endpoint and returns its ID. It fails with an
// [*OptionsError], and changes nothing, for an unknown VPC, subnet or
// route table, a malformed or taken ID, a missing or malformed service
// name, a type that is not Interface or Gateway, a Gateway endpoint with
// subnets or private DNS, an Interface endpoint with route tables, two
// subnets in one zone, a subnet or table of another VPC or named twice,
// or an unknown state.
func (m *Model) AddVpcEndpoint(spec VpcEndpointSpec) (string, error) {
	if m == nil {
		return "", ErrNilModel
	}
	const op = "add vpc endpoint"
	kind := ec2types.VpcEndpointType(spec.Type)
	switch {
	case spec.ServiceName == "":
		return "", netErr(op, "ServiceName", "required")
	case !serviceRe.MatchString(spec.ServiceName):
		return "", netErr(op, "ServiceName", "%q is not lowercase letters, digits, dots and hyphens", spec.ServiceName)
	case kind != ec2types.VpcEndpointTypeInterface && kind != ec2types.VpcEndpointTypeGateway:
		return "", netErr(op, "Type", "%q is not Interface or Gateway", spec.Type)
	case kind == ec2types.VpcEndpointTypeGateway && len(spec.SubnetIDs) > 0:
		return "", netErr(op, "SubnetIDs", "a Gateway endpoint has route tables, not subnets")
	case kind == ec2types.VpcEndpointTypeGateway && spec.PrivateDNS:
		return "", netErr(op, "PrivateDNS", "a Gateway endpoint has no private DNS")
	case kind == ec2types.VpcEndpointTypeInterface && len(spec.RouteTableIDs) > 0:
		return "", netErr(op, "RouteTableIDs", "an Interface endpoint has subnets, not route tables")
	}
	state, err := endpointState(spec.State)
	if err != nil {
		return "", err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.vpcs[spec.VpcID]
	if !ok {
		return "", netErr(op, "VpcID", "no VPC %q", spec.VpcID)
	}
	if err := checkID(op, "vpce", spec.ID, m.endpoints); err != nil {
		return "", err
	}
	zones := map[string]string{}
	err = checkMembers(op, "SubnetIDs", "subnet", v.id, spec.SubnetIDs, m.subnets, func(s *subnet) string {
		if other := zones[s.zone]; other != "" {
			return fmt.Sprintf("%s and %s are both in %s: one subnet per zone", other, s.id, s.zone)
		}
		zones[s.zone] = s.id
		return ""
	})
	if err == nil {
		err = checkMembers(op, "RouteTableIDs", "route table", v.id, spec.RouteTableIDs, m.tables, nil)
	}
	if err != nil {
		return "", err
	}
	id := spec.ID
	if id == "" {
		id = m.newIDLocked("vpce")
	}
	m.endpoints[id] = &endpoint{
		id: id, vpc: v.id, service: spec.ServiceName, kind: kind,
		subnets: slices.Clone(spec.SubnetIDs), tables: slices.Clone(spec.RouteTableIDs),
		privateDNS: spec.PrivateDNS, state: state, tags: maps.Clone(spec.Tags),
	}
	return id, nil
}

// endpointState returns a VPC endpoint's state as EC2 spells it on the
// wire: the SDK's enum value with its first letter in lowercase
// ("available", "pendingAcceptance"; aws/aws-sdk-go-v2 issues 1619 and
// 2785).
func endpointState(state string) (ec2types.State, error) {
	if state == "" {
		state = string(ec2types.StateAvailable)
	}
	for _, v := range ec2types.State("").Values() {
		if strings.EqualFold(state, string(v)) {
			return ec2types.State(strings.ToLower(string(v[:1])) + string(v[1:])), nil
		}
	}
	return "", netErr("add vpc endpoint", "State", "%q is not one of %v", state, ec2types.State("").Values())
}
