package ec2sim

// interfaces.go: network interfaces (Interface, InterfaceSource) and
// DescribeNetworkInterfaces.

import (
	"cmp"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// The interface types an [Interface] may have.
const (
	// InterfaceTypeInterface is a node's own ENI: its primary address and,
	// under the VPC CNI, its pods' addresses as secondary ones.
	InterfaceTypeInterface = "interface"
	// InterfaceTypeBranch is a branch ENI of security groups for pods: one
	// pod's address, with the pod's own groups, on a trunk ENI.
	InterfaceTypeBranch = "branch"
)

// Interface is one elastic network interface as the world sees it. The
// model does not store interfaces: the simulated cluster owns the
// addresses, which churn with its nodes and pods, and hands them to the
// model through an [InterfaceSource].
type Interface struct {
	// ID is the interface's ID ("eni-…"), unique among a source's
	// interfaces. Required: an interface without one is not listed.
	ID string
	// VpcID, SubnetID and AvailabilityZone place the interface. Zero: the
	// field is absent from the answer.
	VpcID, SubnetID, AvailabilityZone string
	// PrivateIPs are its private IPv4 addresses; the first is the primary
	// one. Nil: none.
	PrivateIPs []string
	// GroupIDs are the IDs of its security groups, in the order they are
	// listed. A group the model does not have is listed with an empty
	// name. Nil: none.
	GroupIDs []string
	// InstanceID is the instance it is attached to. Zero: not attached to
	// an instance (a branch ENI).
	InstanceID string
	// Description is its description. Zero: empty.
	Description string
	// InterfaceType is [InterfaceTypeInterface] or [InterfaceTypeBranch].
	// Zero: [InterfaceTypeInterface].
	InterfaceType string
}

// InterfaceSource lists the world's network interfaces. The model calls
// it on every DescribeNetworkInterfaces, without holding its own lock (so
// a source may read the model), and never keeps or changes what it
// returns. It must be safe for concurrent use.
type InterfaceSource interface {
	// Interfaces lists the interfaces, in any order.
	Interfaces() []Interface
}

// InterfaceFunc is a function that is an [InterfaceSource]. A nil
// InterfaceFunc lists no interface.
type InterfaceFunc func() []Interface

// Interfaces implements [InterfaceSource] by calling f.
func (f InterfaceFunc) Interfaces() []Interface {
	if f == nil {
		return nil
	}
	return f()
}

// SetInterfaceSource makes src the source of the network interfaces
// DescribeNetworkInterfaces lists, replacing an earlier one. A nil src
// lists none, which is also a new model's state.
func (m *Model) SetInterfaceSource(src InterfaceSource) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ifaces = src
}

// interfaces calls the source, outside the model's lock, and returns its
// interfaces sorted by ID, without those with no ID, and with the first
// of those that share an ID.
func (m *Model) interfaces() []*Interface {
	m.mu.Lock()
	src := m.ifaces
	m.mu.Unlock()
	if src == nil {
		return nil
	}
	return byID(src.Interfaces(), func(i *Interface) string { return i.ID })
}

// byID returns pointers to list's items sorted by id, without those with
// no ID, and with the first of those that share an ID: what a source's
// listing becomes before a Describe call filters it.
func byID[T any](list []T, id func(*T) string) []*T {
	out := make([]*T, 0, len(list))
	for i := range list {
		if id(&list[i]) != "" {
			out = append(out, &list[i])
		}
	}
	slices.SortStableFunc(out, func(a, b *T) int { return cmp.Compare(id(a), id(b)) })
	return slices.CompactFunc(out, func(a, b *T) bool { return id(a) == id(b) })
}

func (ifc *Interface) kind() string {
	if ifc.InterfaceType == "" {
		return InterfaceTypeInterface
	}
	return ifc.InterfaceType
}

// interfaceStatus is every listed interface's status: attached to an
// instance or, for a branch ENI, to its trunk.
const interfaceStatus = ec2types.NetworkInterfaceStatusInUse

// interfaceFilters are the DescribeNetworkInterfaces filters the model
// supports. private-ip-address matches the primary address only;
// addresses.private-ip-address matches any.
var interfaceFilters = []filter[*Interface]{
	{name: "network-interface-id", values: func(_ *Model, i *Interface, _ string) []string { return []string{i.ID} }},
	{name: "addresses.private-ip-address", values: func(_ *Model, i *Interface, _ string) []string { return i.PrivateIPs }},
	{name: "private-ip-address", values: func(_ *Model, i *Interface, _ string) []string { return i.PrivateIPs[:min(1, len(i.PrivateIPs))] }},
	{name: "vpc-id", values: func(_ *Model, i *Interface, _ string) []string { return []string{i.VpcID} }},
	{name: "subnet-id", values: func(_ *Model, i *Interface, _ string) []string { return []string{i.SubnetID} }},
	{name: "availability-zone", values: func(_ *Model, i *Interface, _ string) []string { return []string{i.AvailabilityZone} }},
	{name: "group-id", values: func(_ *Model, i *Interface, _ string) []string { return i.GroupIDs }},
	{name: "group-name", values: func(m *Model, i *Interface, _ string) []string {
		var out []string
		for _, id := range i.GroupIDs {
			if g, ok := m.groups[id]; ok {
				out = append(out, g.name)
			}
		}
		return out
	}},
	{name: "attachment.instance-id", values: func(_ *Model, i *Interface, _ string) []string {
		if i.InstanceID == "" {
			return nil
		}
		return []string{i.InstanceID}
	}},
	{name: "interface-type", values: func(_ *Model, i *Interface, _ string) []string { return []string{i.kind()} }},
	{name: "description", values: func(_ *Model, i *Interface, _ string) []string { return []string{i.Description} }},
	{name: "owner-id", values: func(m *Model, _ *Interface, _ string) []string { return []string{m.account} }},
	{name: "status", values: func(*Model, *Interface, string) []string { return []string{string(interfaceStatus)} }},
}

func interfaceNotFound(id string) error {
	return apiErr(CodeInvalidNetworkInterfaceIDNotFound, "The networkInterface ID '%s' does not exist", id)
}

func malformedInterfaceID(id string) error {
	return apiErr(CodeInvalidNetworkInterfaceIDMalformed, "Invalid id: %q (expecting \"eni-...\")", id)
}

func (m *Model) describeNetworkInterfaces(in *ec2.DescribeNetworkInterfacesInput) (*ec2.DescribeNetworkInterfacesOutput, error) {
	fs, err := compileFilters(interfaceFilters, in.Filters)
	if err != nil {
		return nil, err
	}
	if in.MaxResults != nil && len(in.NetworkInterfaceIds) > 0 {
		return nil, apiErr(CodeInvalidParameterCombination, "The parameter NetworkInterfaceIds cannot be used with the parameter MaxResults")
	}
	all := m.interfaces()
	byID := make(map[string]*Interface, len(all))
	for _, i := range all {
		byID[i.ID] = i
	}
	var ids []string
	for _, id := range in.NetworkInterfaceIds {
		if _, ok := byID[id]; !ok {
			if !strings.HasPrefix(id, "eni-") || !idRe.MatchString(id) {
				return nil, malformedInterfaceID(id)
			}
			return nil, interfaceNotFound(id)
		}
		ids = append(ids, id)
	}
	if len(in.NetworkInterfaceIds) == 0 {
		for _, i := range all {
			ids = append(ids, i.ID)
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	m.mu.Lock()
	defer m.mu.Unlock()
	var kept []string
	for _, id := range ids {
		if matchAll(m, fs, byID[id]) {
			kept = append(kept, id)
		}
	}
	kept, next, err := page(kept, in.MaxResults, in.NextToken)
	if err != nil {
		return nil, err
	}
	out := &ec2.DescribeNetworkInterfacesOutput{NetworkInterfaces: []ec2types.NetworkInterface{}, NextToken: next}
	for _, id := range kept {
		out.NetworkInterfaces = append(out.NetworkInterfaces, m.renderInterfaceLocked(byID[id]))
	}
	return out, nil
}

// renderInterfaceLocked returns the interface as DescribeNetworkInterfaces
// shows it, sharing nothing with the source's value.
func (m *Model) renderInterfaceLocked(i *Interface) ec2types.NetworkInterface {
	out := ec2types.NetworkInterface{
		NetworkInterfaceId: aws.String(i.ID),
		VpcId:              optional(i.VpcID),
		SubnetId:           optional(i.SubnetID),
		AvailabilityZone:   optional(i.AvailabilityZone),
		Description:        aws.String(i.Description),
		InterfaceType:      ec2types.NetworkInterfaceType(i.kind()),
		OwnerId:            aws.String(m.account),
		Status:             interfaceStatus,
		Groups:             make([]ec2types.GroupIdentifier, 0, len(i.GroupIDs)),
		PrivateIpAddresses: make([]ec2types.NetworkInterfacePrivateIpAddress, 0, len(i.PrivateIPs)),
	}
	for _, id := range i.GroupIDs {
		gi := ec2types.GroupIdentifier{GroupId: aws.String(id), GroupName: aws.String("")}
		if g, ok := m.groups[id]; ok {
			gi.GroupName = aws.String(g.name)
		}
		out.Groups = append(out.Groups, gi)
	}
	for n, ip := range i.PrivateIPs {
		out.PrivateIpAddresses = append(out.PrivateIpAddresses, ec2types.NetworkInterfacePrivateIpAddress{
			PrivateIpAddress: aws.String(ip), Primary: aws.Bool(n == 0),
		})
	}
	if len(i.PrivateIPs) > 0 {
		out.PrivateIpAddress = aws.String(i.PrivateIPs[0])
	}
	if i.InstanceID != "" {
		out.Attachment = &ec2types.NetworkInterfaceAttachment{InstanceId: aws.String(i.InstanceID), Status: ec2types.AttachmentStatusAttached}
	}
	return out
}
