package elbv2wire

// ec2encode.go: encoding EC2 outputs as XML.

import (
	"bytes"
	"encoding/xml"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	smithytime "github.com/aws/smithy-go/time"
)

// EC2's responses are not awsQuery's: the root element is <XResponse> in
// namespace [EC2Namespace] with a <requestId> and the Output's members
// directly under it (no <XResult>), names begin in lowercase and are often
// not the Go field's ("securityGroupInfo", "vpcSet", "groups",
// "groupDescription", "tagSet"), and list items are <item>. The names below
// are those the SDK's deserializer reads, from
// github.com/aws/aws-sdk-go-v2/service/ec2@v1.349.0/deserializers.go
// (awsEc2query_deserializeOpDocument<Op>Output and
// awsEc2query_deserializeDocument<Shape>; the deserializer matches names
// case-insensitively and skips unknown elements, so the names are written
// as EC2 writes them). The SDK reads the request ID from the
// x-amzn-RequestId header on success, and from <RequestID> in an error.
//
// A nil list is left out and an empty one written as an empty element,
// which the SDK reads back as nil and as an empty slice.

// itemSet is a wrapped list: <name><item>…</item></name>.
type itemSet[T any] struct {
	Item []T `xml:"item"`
}

func itemsOf[S, T any](in []S, f func(S) T) *itemSet[T] {
	if in == nil {
		return nil
	}
	out := &itemSet[T]{Item: make([]T, 0, len(in))}
	for _, v := range in {
		out.Item = append(out.Item, f(v))
	}
	return out
}

// deserializers.go: awsEc2query_deserializeDocumentTag.
type ec2Tag struct {
	Key   *string `xml:"key"`
	Value *string `xml:"value"`
}

func tagXML(t ec2types.Tag) ec2Tag { return ec2Tag{Key: t.Key, Value: t.Value} }

// deserializers.go: awsEc2query_deserializeDocumentIpRange, Ipv6Range,
// PrefixListId, UserIdGroupPair.
type (
	ec2IpRange struct {
		CidrIp      *string `xml:"cidrIp"`
		Description *string `xml:"description"`
	}
	ec2Ipv6Range struct {
		CidrIpv6    *string `xml:"cidrIpv6"`
		Description *string `xml:"description"`
	}
	ec2PrefixListID struct {
		Description  *string `xml:"description"`
		PrefixListId *string `xml:"prefixListId"`
	}
	ec2GroupPair struct {
		Description            *string `xml:"description"`
		GroupId                *string `xml:"groupId"`
		GroupName              *string `xml:"groupName"`
		PeeringStatus          *string `xml:"peeringStatus"`
		UserId                 *string `xml:"userId"`
		VpcId                  *string `xml:"vpcId"`
		VpcPeeringConnectionId *string `xml:"vpcPeeringConnectionId"`
	}
)

// deserializers.go: awsEc2query_deserializeDocumentIpPermission.
type ec2IpPermission struct {
	FromPort      *int32                    `xml:"fromPort"`
	IpProtocol    *string                   `xml:"ipProtocol"`
	IpRanges      *itemSet[ec2IpRange]      `xml:"ipRanges"`
	Ipv6Ranges    *itemSet[ec2Ipv6Range]    `xml:"ipv6Ranges"`
	PrefixListIds *itemSet[ec2PrefixListID] `xml:"prefixListIds"`
	ToPort        *int32                    `xml:"toPort"`
	Groups        *itemSet[ec2GroupPair]    `xml:"groups"`
}

func ipPermissionXML(p ec2types.IpPermission) ec2IpPermission {
	return ec2IpPermission{
		FromPort: p.FromPort, IpProtocol: p.IpProtocol, ToPort: p.ToPort,
		IpRanges: itemsOf(p.IpRanges, func(r ec2types.IpRange) ec2IpRange {
			return ec2IpRange{CidrIp: r.CidrIp, Description: r.Description}
		}),
		Ipv6Ranges: itemsOf(p.Ipv6Ranges, func(r ec2types.Ipv6Range) ec2Ipv6Range {
			return ec2Ipv6Range{CidrIpv6: r.CidrIpv6, Description: r.Description}
		}),
		PrefixListIds: itemsOf(p.PrefixListIds, func(r ec2types.PrefixListId) ec2PrefixListID {
			return ec2PrefixListID{Description: r.Description, PrefixListId: r.PrefixListId}
		}),
		Groups: itemsOf(p.UserIdGroupPairs, func(g ec2types.UserIdGroupPair) ec2GroupPair {
			return ec2GroupPair{
				Description: g.Description, GroupId: g.GroupId, GroupName: g.GroupName, PeeringStatus: g.PeeringStatus,
				UserId: g.UserId, VpcId: g.VpcId, VpcPeeringConnectionId: g.VpcPeeringConnectionId,
			}
		}),
	}
}

// deserializers.go: awsEc2query_deserializeDocumentSecurityGroup.
type ec2SecurityGroup struct {
	GroupDescription    *string                   `xml:"groupDescription"`
	GroupId             *string                   `xml:"groupId"`
	GroupName           *string                   `xml:"groupName"`
	IpPermissions       *itemSet[ec2IpPermission] `xml:"ipPermissions"`
	IpPermissionsEgress *itemSet[ec2IpPermission] `xml:"ipPermissionsEgress"`
	OwnerId             *string                   `xml:"ownerId"`
	SecurityGroupArn    *string                   `xml:"securityGroupArn"`
	TagSet              *itemSet[ec2Tag]          `xml:"tagSet"`
	VpcId               *string                   `xml:"vpcId"`
}

func securityGroupXML(g ec2types.SecurityGroup) ec2SecurityGroup {
	return ec2SecurityGroup{
		GroupDescription: g.Description, GroupId: g.GroupId, GroupName: g.GroupName,
		IpPermissions:       itemsOf(g.IpPermissions, ipPermissionXML),
		IpPermissionsEgress: itemsOf(g.IpPermissionsEgress, ipPermissionXML),
		OwnerId:             g.OwnerId, SecurityGroupArn: g.SecurityGroupArn,
		TagSet: itemsOf(g.Tags, tagXML), VpcId: g.VpcId,
	}
}

// deserializers.go: awsEc2query_deserializeDocumentVpc,
// VpcCidrBlockAssociation and VpcCidrBlockState.
type (
	ec2Vpc struct {
		CidrBlock               *string                `xml:"cidrBlock"`
		CidrBlockAssociationSet *itemSet[ec2CidrAssoc] `xml:"cidrBlockAssociationSet"`
		DhcpOptionsId           *string                `xml:"dhcpOptionsId"`
		InstanceTenancy         ec2types.Tenancy       `xml:"instanceTenancy,omitempty"`
		IsDefault               *bool                  `xml:"isDefault"`
		OwnerId                 *string                `xml:"ownerId"`
		State                   ec2types.VpcState      `xml:"state,omitempty"`
		TagSet                  *itemSet[ec2Tag]       `xml:"tagSet"`
		VpcId                   *string                `xml:"vpcId"`
	}
	ec2CidrAssoc struct {
		AssociationId  *string       `xml:"associationId"`
		CidrBlock      *string       `xml:"cidrBlock"`
		CidrBlockState *ec2CidrState `xml:"cidrBlockState"`
	}
	ec2CidrState struct {
		State         ec2types.VpcCidrBlockStateCode `xml:"state,omitempty"`
		StatusMessage *string                        `xml:"statusMessage"`
	}
)

func vpcXML(v ec2types.Vpc) (ec2Vpc, error) {
	if v.BlockPublicAccessStates != nil || v.EncryptionControl != nil || v.Ipv6CidrBlockAssociationSet != nil {
		return ec2Vpc{}, fmt.Errorf("elbv2wire: encode: the endpoint does not write a VPC's BlockPublicAccessStates, EncryptionControl or Ipv6CidrBlockAssociationSet (%s)", deref(v.VpcId))
	}
	return ec2Vpc{
		CidrBlock: v.CidrBlock, DhcpOptionsId: v.DhcpOptionsId, InstanceTenancy: v.InstanceTenancy, IsDefault: v.IsDefault,
		OwnerId: v.OwnerId, State: v.State, TagSet: itemsOf(v.Tags, tagXML), VpcId: v.VpcId,
		CidrBlockAssociationSet: itemsOf(v.CidrBlockAssociationSet, func(a ec2types.VpcCidrBlockAssociation) ec2CidrAssoc {
			out := ec2CidrAssoc{AssociationId: a.AssociationId, CidrBlock: a.CidrBlock}
			if a.CidrBlockState != nil {
				out.CidrBlockState = &ec2CidrState{State: a.CidrBlockState.State, StatusMessage: a.CidrBlockState.StatusMessage}
			}
			return out
		}),
	}, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// deserializers.go: awsEc2query_deserializeDocumentSecurityGroupRule and
// ReferencedSecurityGroup.
type (
	ec2SecurityGroupRule struct {
		CidrIpv4             *string          `xml:"cidrIpv4"`
		CidrIpv6             *string          `xml:"cidrIpv6"`
		Description          *string          `xml:"description"`
		FromPort             *int32           `xml:"fromPort"`
		GroupId              *string          `xml:"groupId"`
		GroupOwnerId         *string          `xml:"groupOwnerId"`
		IpProtocol           *string          `xml:"ipProtocol"`
		IsEgress             *bool            `xml:"isEgress"`
		PrefixListId         *string          `xml:"prefixListId"`
		ReferencedGroupInfo  *ec2Referenced   `xml:"referencedGroupInfo"`
		SecurityGroupRuleArn *string          `xml:"securityGroupRuleArn"`
		SecurityGroupRuleId  *string          `xml:"securityGroupRuleId"`
		TagSet               *itemSet[ec2Tag] `xml:"tagSet"`
		ToPort               *int32           `xml:"toPort"`
	}
	ec2Referenced struct {
		GroupId                *string `xml:"groupId"`
		PeeringStatus          *string `xml:"peeringStatus"`
		UserId                 *string `xml:"userId"`
		VpcId                  *string `xml:"vpcId"`
		VpcPeeringConnectionId *string `xml:"vpcPeeringConnectionId"`
	}
)

func securityGroupRuleXML(r ec2types.SecurityGroupRule) ec2SecurityGroupRule {
	out := ec2SecurityGroupRule{
		CidrIpv4: r.CidrIpv4, CidrIpv6: r.CidrIpv6, Description: r.Description, FromPort: r.FromPort, GroupId: r.GroupId,
		GroupOwnerId: r.GroupOwnerId, IpProtocol: r.IpProtocol, IsEgress: r.IsEgress, PrefixListId: r.PrefixListId,
		SecurityGroupRuleArn: r.SecurityGroupRuleArn, SecurityGroupRuleId: r.SecurityGroupRuleId,
		TagSet: itemsOf(r.Tags, tagXML), ToPort: r.ToPort,
	}
	if ref := r.ReferencedGroupInfo; ref != nil {
		out.ReferencedGroupInfo = &ec2Referenced{GroupId: ref.GroupId, PeeringStatus: ref.PeeringStatus, UserId: ref.UserId, VpcId: ref.VpcId, VpcPeeringConnectionId: ref.VpcPeeringConnectionId}
	}
	return out
}

// deserializers.go: awsEc2query_deserializeDocumentRevokedSecurityGroupRule.
type ec2RevokedRule struct {
	CidrIpv4            *string `xml:"cidrIpv4"`
	CidrIpv6            *string `xml:"cidrIpv6"`
	Description         *string `xml:"description"`
	FromPort            *int32  `xml:"fromPort"`
	GroupId             *string `xml:"groupId"`
	IpProtocol          *string `xml:"ipProtocol"`
	IsEgress            *bool   `xml:"isEgress"`
	PrefixListId        *string `xml:"prefixListId"`
	ReferencedGroupId   *string `xml:"referencedGroupId"`
	SecurityGroupRuleId *string `xml:"securityGroupRuleId"`
	ToPort              *int32  `xml:"toPort"`
}

func revokedRuleXML(r ec2types.RevokedSecurityGroupRule) ec2RevokedRule {
	return ec2RevokedRule{
		CidrIpv4: r.CidrIpv4, CidrIpv6: r.CidrIpv6, Description: r.Description, FromPort: r.FromPort, GroupId: r.GroupId,
		IpProtocol: r.IpProtocol, IsEgress: r.IsEgress, PrefixListId: r.PrefixListId, ReferencedGroupId: r.ReferencedGroupId,
		SecurityGroupRuleId: r.SecurityGroupRuleId, ToPort: r.ToPort,
	}
}

// deserializers.go: awsEc2query_deserializeDocumentNetworkInterface, and
// the documents of its members: AssociatedSubnetList,
// NetworkInterfaceAssociation, NetworkInterfaceAttachment (attachTime in
// smithytime.ParseDateTime's format), AttachmentEnaSrdSpecification,
// AttachmentEnaSrdUdpSpecification, ConnectionTrackingConfiguration,
// GroupIdentifierList and GroupIdentifier, Ipv4PrefixesList and
// Ipv4PrefixSpecification, NetworkInterfaceIpv6AddressesList and
// NetworkInterfaceIpv6Address, Ipv6PrefixesList and
// Ipv6PrefixSpecification, OperatorResponse,
// NetworkInterfacePrivateIpAddressList and
// NetworkInterfacePrivateIpAddress, PublicIpDnsNameOptions, TagList.
type (
	ec2NetworkInterface struct {
		AssociatedSubnetSet             *itemSet[string]                `xml:"associatedSubnetSet"`
		Association                     *ec2InterfaceAssociation        `xml:"association"`
		Attachment                      *ec2InterfaceAttachment         `xml:"attachment"`
		AvailabilityZone                *string                         `xml:"availabilityZone"`
		AvailabilityZoneId              *string                         `xml:"availabilityZoneId"`
		ConnectionTrackingConfiguration *ec2ConnectionTracking          `xml:"connectionTrackingConfiguration"`
		DenyAllIgwTraffic               *bool                           `xml:"denyAllIgwTraffic"`
		Description                     *string                         `xml:"description"`
		GroupSet                        *itemSet[ec2GroupIdentifier]    `xml:"groupSet"`
		InterfaceType                   ec2types.NetworkInterfaceType   `xml:"interfaceType,omitempty"`
		Ipv4PrefixSet                   *itemSet[ec2Ipv4Prefix]         `xml:"ipv4PrefixSet"`
		Ipv6Address                     *string                         `xml:"ipv6Address"`
		Ipv6AddressesSet                *itemSet[ec2InterfaceIpv6]      `xml:"ipv6AddressesSet"`
		Ipv6Native                      *bool                           `xml:"ipv6Native"`
		Ipv6PrefixSet                   *itemSet[ec2Ipv6Prefix]         `xml:"ipv6PrefixSet"`
		MacAddress                      *string                         `xml:"macAddress"`
		NetworkInterfaceId              *string                         `xml:"networkInterfaceId"`
		Operator                        *ec2Operator                    `xml:"operator"`
		OutpostArn                      *string                         `xml:"outpostArn"`
		OwnerId                         *string                         `xml:"ownerId"`
		PrivateDnsName                  *string                         `xml:"privateDnsName"`
		PrivateIpAddress                *string                         `xml:"privateIpAddress"`
		PrivateIpAddressesSet           *itemSet[ec2InterfacePrivateIP] `xml:"privateIpAddressesSet"`
		PublicDnsName                   *string                         `xml:"publicDnsName"`
		PublicIpDnsNameOptions          *ec2PublicDNSOptions            `xml:"publicIpDnsNameOptions"`
		RequesterId                     *string                         `xml:"requesterId"`
		RequesterManaged                *bool                           `xml:"requesterManaged"`
		SourceDestCheck                 *bool                           `xml:"sourceDestCheck"`
		Status                          ec2types.NetworkInterfaceStatus `xml:"status,omitempty"`
		SubnetId                        *string                         `xml:"subnetId"`
		TagSet                          *itemSet[ec2Tag]                `xml:"tagSet"`
		VpcId                           *string                         `xml:"vpcId"`
	}
	ec2InterfaceAssociation struct {
		AllocationId    *string `xml:"allocationId"`
		AssociationId   *string `xml:"associationId"`
		CarrierIp       *string `xml:"carrierIp"`
		CustomerOwnedIp *string `xml:"customerOwnedIp"`
		IpOwnerId       *string `xml:"ipOwnerId"`
		PublicDnsName   *string `xml:"publicDnsName"`
		PublicIp        *string `xml:"publicIp"`
	}
	ec2InterfaceAttachment struct {
		AttachTime          *string                   `xml:"attachTime"`
		AttachmentId        *string                   `xml:"attachmentId"`
		DeleteOnTermination *bool                     `xml:"deleteOnTermination"`
		DeviceIndex         *int32                    `xml:"deviceIndex"`
		EnaQueueCount       *int32                    `xml:"enaQueueCount"`
		EnaSrdSpecification *ec2EnaSrd                `xml:"enaSrdSpecification"`
		InstanceId          *string                   `xml:"instanceId"`
		InstanceOwnerId     *string                   `xml:"instanceOwnerId"`
		NetworkCardIndex    *int32                    `xml:"networkCardIndex"`
		Status              ec2types.AttachmentStatus `xml:"status,omitempty"`
	}
	ec2EnaSrd struct {
		EnaSrdEnabled          *bool         `xml:"enaSrdEnabled"`
		EnaSrdUdpSpecification *ec2EnaSrdUdp `xml:"enaSrdUdpSpecification"`
	}
	ec2EnaSrdUdp struct {
		EnaSrdUdpEnabled *bool `xml:"enaSrdUdpEnabled"`
	}
	ec2ConnectionTracking struct {
		TcpEstablishedTimeout *int32 `xml:"tcpEstablishedTimeout"`
		UdpStreamTimeout      *int32 `xml:"udpStreamTimeout"`
		UdpTimeout            *int32 `xml:"udpTimeout"`
	}
	ec2GroupIdentifier struct {
		GroupId   *string `xml:"groupId"`
		GroupName *string `xml:"groupName"`
	}
	ec2Ipv4Prefix struct {
		Ipv4Prefix *string `xml:"ipv4Prefix"`
	}
	ec2Ipv6Prefix struct {
		Ipv6Prefix *string `xml:"ipv6Prefix"`
	}
	ec2InterfaceIpv6 struct {
		Ipv6Address       *string `xml:"ipv6Address"`
		IsPrimaryIpv6     *bool   `xml:"isPrimaryIpv6"`
		PublicIpv6DnsName *string `xml:"publicIpv6DnsName"`
	}
	ec2Operator struct {
		HiddenByDefault *bool   `xml:"hiddenByDefault"`
		Managed         *bool   `xml:"managed"`
		Principal       *string `xml:"principal"`
	}
	ec2InterfacePrivateIP struct {
		Association      *ec2InterfaceAssociation `xml:"association"`
		Primary          *bool                    `xml:"primary"`
		PrivateDnsName   *string                  `xml:"privateDnsName"`
		PrivateIpAddress *string                  `xml:"privateIpAddress"`
	}
	ec2PublicDNSOptions struct {
		DnsHostnameType        *string `xml:"dnsHostnameType"`
		PublicDualStackDnsName *string `xml:"publicDualStackDnsName"`
		PublicIpv4DnsName      *string `xml:"publicIpv4DnsName"`
		PublicIpv6DnsName      *string `xml:"publicIpv6DnsName"`
	}
)

func interfaceAssociationXML(a *ec2types.NetworkInterfaceAssociation) *ec2InterfaceAssociation {
	if a == nil {
		return nil
	}
	return &ec2InterfaceAssociation{
		AllocationId: a.AllocationId, AssociationId: a.AssociationId, CarrierIp: a.CarrierIp, CustomerOwnedIp: a.CustomerOwnedIp,
		IpOwnerId: a.IpOwnerId, PublicDnsName: a.PublicDnsName, PublicIp: a.PublicIp,
	}
}

func interfaceAttachmentXML(a *ec2types.NetworkInterfaceAttachment) *ec2InterfaceAttachment {
	if a == nil {
		return nil
	}
	out := &ec2InterfaceAttachment{
		AttachmentId: a.AttachmentId, DeleteOnTermination: a.DeleteOnTermination, DeviceIndex: a.DeviceIndex,
		EnaQueueCount: a.EnaQueueCount, InstanceId: a.InstanceId, InstanceOwnerId: a.InstanceOwnerId,
		NetworkCardIndex: a.NetworkCardIndex, Status: a.Status,
	}
	if a.AttachTime != nil {
		t := smithytime.FormatDateTime(*a.AttachTime)
		out.AttachTime = &t
	}
	if srd := a.EnaSrdSpecification; srd != nil {
		out.EnaSrdSpecification = &ec2EnaSrd{EnaSrdEnabled: srd.EnaSrdEnabled}
		if udp := srd.EnaSrdUdpSpecification; udp != nil {
			out.EnaSrdSpecification.EnaSrdUdpSpecification = &ec2EnaSrdUdp{EnaSrdUdpEnabled: udp.EnaSrdUdpEnabled}
		}
	}
	return out
}

func networkInterfaceXML(n ec2types.NetworkInterface) ec2NetworkInterface {
	out := ec2NetworkInterface{
		AssociatedSubnetSet: stringSet(n.AssociatedSubnets),
		Association:         interfaceAssociationXML(n.Association),
		Attachment:          interfaceAttachmentXML(n.Attachment),
		AvailabilityZone:    n.AvailabilityZone, AvailabilityZoneId: n.AvailabilityZoneId,
		DenyAllIgwTraffic: n.DenyAllIgwTraffic, Description: n.Description,
		GroupSet: itemsOf(n.Groups, func(g ec2types.GroupIdentifier) ec2GroupIdentifier {
			return ec2GroupIdentifier{GroupId: g.GroupId, GroupName: g.GroupName}
		}),
		InterfaceType: n.InterfaceType,
		Ipv4PrefixSet: itemsOf(n.Ipv4Prefixes, func(p ec2types.Ipv4PrefixSpecification) ec2Ipv4Prefix {
			return ec2Ipv4Prefix{Ipv4Prefix: p.Ipv4Prefix}
		}),
		Ipv6Address: n.Ipv6Address,
		Ipv6AddressesSet: itemsOf(n.Ipv6Addresses, func(a ec2types.NetworkInterfaceIpv6Address) ec2InterfaceIpv6 {
			return ec2InterfaceIpv6{Ipv6Address: a.Ipv6Address, IsPrimaryIpv6: a.IsPrimaryIpv6, PublicIpv6DnsName: a.PublicIpv6DnsName}
		}),
		Ipv6Native: n.Ipv6Native,
		Ipv6PrefixSet: itemsOf(n.Ipv6Prefixes, func(p ec2types.Ipv6PrefixSpecification) ec2Ipv6Prefix {
			return ec2Ipv6Prefix{Ipv6Prefix: p.Ipv6Prefix}
		}),
		MacAddress: n.MacAddress, NetworkInterfaceId: n.NetworkInterfaceId, OutpostArn: n.OutpostArn, OwnerId: n.OwnerId,
		PrivateDnsName: n.PrivateDnsName, PrivateIpAddress: n.PrivateIpAddress,
		PrivateIpAddressesSet: itemsOf(n.PrivateIpAddresses, func(a ec2types.NetworkInterfacePrivateIpAddress) ec2InterfacePrivateIP {
			return ec2InterfacePrivateIP{Association: interfaceAssociationXML(a.Association), Primary: a.Primary, PrivateDnsName: a.PrivateDnsName, PrivateIpAddress: a.PrivateIpAddress}
		}),
		PublicDnsName: n.PublicDnsName, RequesterId: n.RequesterId, RequesterManaged: n.RequesterManaged,
		SourceDestCheck: n.SourceDestCheck, Status: n.Status, SubnetId: n.SubnetId, TagSet: itemsOf(n.TagSet, tagXML), VpcId: n.VpcId,
	}
	if c := n.ConnectionTrackingConfiguration; c != nil {
		out.ConnectionTrackingConfiguration = &ec2ConnectionTracking{TcpEstablishedTimeout: c.TcpEstablishedTimeout, UdpStreamTimeout: c.UdpStreamTimeout, UdpTimeout: c.UdpTimeout}
	}
	if o := n.Operator; o != nil {
		out.Operator = &ec2Operator{HiddenByDefault: o.HiddenByDefault, Managed: o.Managed, Principal: o.Principal}
	}
	if o := n.PublicIpDnsNameOptions; o != nil {
		out.PublicIpDnsNameOptions = &ec2PublicDNSOptions{
			DnsHostnameType: o.DnsHostnameType, PublicDualStackDnsName: o.PublicDualStackDnsName,
			PublicIpv4DnsName: o.PublicIpv4DnsName, PublicIpv6DnsName: o.PublicIpv6DnsName,
		}
	}
	return out
}

// ec2Empty is a response with nothing but its request ID.
type ec2Empty struct {
	RequestID string `xml:"requestId"`
}

// The responses, one per action. deserializers.go:
// awsEc2query_deserializeOpDocumentDescribeVpcsOutput ("nextToken",
// "vpcSet"), DescribeSecurityGroupsOutput ("nextToken",
// "securityGroupInfo"), AuthorizeSecurityGroupIngressOutput ("return",
// "securityGroupRuleSet"), RevokeSecurityGroupIngressOutput ("return",
// "revokedSecurityGroupRuleSet", "unknownIpPermissionSet") and
// DescribeNetworkInterfacesOutput ("networkInterfaceSet", read by
// awsEc2query_deserializeDocumentNetworkInterfaceList as <item>s, and
// "nextToken").
type (
	describeVpcsResponse struct {
		RequestID string           `xml:"requestId"`
		NextToken *string          `xml:"nextToken"`
		VpcSet    *itemSet[ec2Vpc] `xml:"vpcSet"`
	}
	describeSecurityGroupsResponse struct {
		RequestID         string                     `xml:"requestId"`
		NextToken         *string                    `xml:"nextToken"`
		SecurityGroupInfo *itemSet[ec2SecurityGroup] `xml:"securityGroupInfo"`
	}
	authorizeSecurityGroupIngressResponse struct {
		RequestID            string                         `xml:"requestId"`
		Return               *bool                          `xml:"return"`
		SecurityGroupRuleSet *itemSet[ec2SecurityGroupRule] `xml:"securityGroupRuleSet"`
	}
	revokeSecurityGroupIngressResponse struct {
		RequestID                   string                    `xml:"requestId"`
		Return                      *bool                     `xml:"return"`
		RevokedSecurityGroupRuleSet *itemSet[ec2RevokedRule]  `xml:"revokedSecurityGroupRuleSet"`
		UnknownIpPermissionSet      *itemSet[ec2IpPermission] `xml:"unknownIpPermissionSet"`
	}
	describeNetworkInterfacesResponse struct {
		RequestID           string                        `xml:"requestId"`
		NetworkInterfaceSet *itemSet[ec2NetworkInterface] `xml:"networkInterfaceSet"`
		NextToken           *string                       `xml:"nextToken"`
	}
)

func encodeDescribeVpcs(requestID string, out *ec2.DescribeVpcsOutput) (any, error) {
	r := &describeVpcsResponse{RequestID: requestID, NextToken: out.NextToken}
	if out.Vpcs != nil {
		r.VpcSet = &itemSet[ec2Vpc]{Item: []ec2Vpc{}}
		for _, v := range out.Vpcs {
			x, err := vpcXML(v)
			if err != nil {
				return nil, err
			}
			r.VpcSet.Item = append(r.VpcSet.Item, x)
		}
	}
	return r, nil
}

func encodeDescribeSecurityGroups(requestID string, out *ec2.DescribeSecurityGroupsOutput) (any, error) {
	return &describeSecurityGroupsResponse{RequestID: requestID, NextToken: out.NextToken, SecurityGroupInfo: itemsOf(out.SecurityGroups, securityGroupXML)}, nil
}

func encodeAuthorizeSecurityGroupIngress(requestID string, out *ec2.AuthorizeSecurityGroupIngressOutput) (any, error) {
	return &authorizeSecurityGroupIngressResponse{RequestID: requestID, Return: out.Return, SecurityGroupRuleSet: itemsOf(out.SecurityGroupRules, securityGroupRuleXML)}, nil
}

func encodeRevokeSecurityGroupIngress(requestID string, out *ec2.RevokeSecurityGroupIngressOutput) (any, error) {
	return &revokeSecurityGroupIngressResponse{
		RequestID:                   requestID,
		Return:                      out.Return,
		RevokedSecurityGroupRuleSet: itemsOf(out.RevokedSecurityGroupRules, revokedRuleXML),
		UnknownIpPermissionSet:      itemsOf(out.UnknownIpPermissions, ipPermissionXML),
	}, nil
}

func encodeDescribeNetworkInterfaces(requestID string, out *ec2.DescribeNetworkInterfacesOutput) (any, error) {
	return &describeNetworkInterfacesResponse{RequestID: requestID, NetworkInterfaceSet: itemsOf(out.NetworkInterfaces, networkInterfaceXML), NextToken: out.NextToken}, nil
}

// ec2ResultBody writes a response (from an encode function) as the body of
// the answer to action: the root element <actionResponse> in
// [EC2Namespace], the response's fields inside.
func ec2ResultBody(action string, resp any) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	root := xml.StartElement{Name: xml.Name{Local: action + "Response"}, Attr: []xml.Attr{{Name: xml.Name{Local: "xmlns"}, Value: EC2Namespace}}}
	if err := xml.NewEncoder(&b).EncodeElement(resp, root); err != nil {
		return nil, fmt.Errorf("elbv2wire: encode: %w", err)
	}
	return b.Bytes(), nil
}

// ec2ErrorBody encodes an EC2 error response, which the SDK reads with
// aws/protocol/ec2query.GetErrorResponseComponents: Errors>Error>Code,
// Errors>Error>Message and RequestID.
func ec2ErrorBody(code, message, requestID string) []byte {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString("<Response><Errors><Error><Code>")
	_ = xml.EscapeText(&b, []byte(code))
	b.WriteString("</Code><Message>")
	_ = xml.EscapeText(&b, []byte(message))
	b.WriteString("</Message></Error></Errors><RequestID>")
	_ = xml.EscapeText(&b, []byte(requestID))
	b.WriteString("</RequestID></Response>")
	return b.Bytes()
}
