package elbv2wire

// ec2netencode.go: encoding EC2's subnets, route tables and VPC endpoints
// as XML (DescribeSubnets, DescribeRouteTables, DescribeVpcEndpoints).

import (
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	smithytime "github.com/aws/smithy-go/time"
)

// The names below are those the SDK's deserializer reads, from
// github.com/aws/aws-sdk-go-v2/service/ec2@v1.349.0/deserializers.go, as
// ec2encode.go explains. Every member of a Subnet, a RouteTable and a
// VpcEndpoint is written, nested ones included.

// stringSet is a list of strings, <name><item>v</item>…</name>
// (deserializers.go: awsEc2query_deserializeDocumentValueStringList).
func stringSet(in []string) *itemSet[string] {
	return itemsOf(in, func(s string) string { return s })
}

// deserializers.go: awsEc2query_deserializeDocumentSubnet, and the
// documents of its members: BlockPublicAccessStates,
// SubnetIpv6CidrBlockAssociationSet and SubnetIpv6CidrBlockAssociation,
// SubnetCidrBlockState, PrivateDnsNameOptionsOnLaunch, TagList.
type (
	ec2Subnet struct {
		AssignIpv6AddressOnCreation   *bool                        `xml:"assignIpv6AddressOnCreation"`
		AvailabilityZone              *string                      `xml:"availabilityZone"`
		AvailabilityZoneId            *string                      `xml:"availabilityZoneId"`
		AvailableIpAddressCount       *int32                       `xml:"availableIpAddressCount"`
		BlockPublicAccessStates       *ec2BlockPublicAccess        `xml:"blockPublicAccessStates"`
		CidrBlock                     *string                      `xml:"cidrBlock"`
		CustomerOwnedIpv4Pool         *string                      `xml:"customerOwnedIpv4Pool"`
		DefaultForAz                  *bool                        `xml:"defaultForAz"`
		EnableDns64                   *bool                        `xml:"enableDns64"`
		EnableLniAtDeviceIndex        *int32                       `xml:"enableLniAtDeviceIndex"`
		Ipv6CidrBlockAssociationSet   *itemSet[ec2SubnetIpv6Assoc] `xml:"ipv6CidrBlockAssociationSet"`
		Ipv6Native                    *bool                        `xml:"ipv6Native"`
		MapCustomerOwnedIpOnLaunch    *bool                        `xml:"mapCustomerOwnedIpOnLaunch"`
		MapPublicIpOnLaunch           *bool                        `xml:"mapPublicIpOnLaunch"`
		OutpostArn                    *string                      `xml:"outpostArn"`
		OwnerId                       *string                      `xml:"ownerId"`
		PrivateDnsNameOptionsOnLaunch *ec2PrivateDNSOnLaunch       `xml:"privateDnsNameOptionsOnLaunch"`
		State                         ec2types.SubnetState         `xml:"state,omitempty"`
		SubnetArn                     *string                      `xml:"subnetArn"`
		SubnetId                      *string                      `xml:"subnetId"`
		TagSet                        *itemSet[ec2Tag]             `xml:"tagSet"`
		Type                          *string                      `xml:"type"`
		VpcId                         *string                      `xml:"vpcId"`
	}
	ec2BlockPublicAccess struct {
		InternetGatewayBlockMode ec2types.BlockPublicAccessMode `xml:"internetGatewayBlockMode,omitempty"`
	}
	ec2SubnetIpv6Assoc struct {
		AssociationId        *string                       `xml:"associationId"`
		IpSource             ec2types.IpSource             `xml:"ipSource,omitempty"`
		Ipv6AddressAttribute ec2types.Ipv6AddressAttribute `xml:"ipv6AddressAttribute,omitempty"`
		Ipv6CidrBlock        *string                       `xml:"ipv6CidrBlock"`
		Ipv6CidrBlockState   *ec2SubnetCidrState           `xml:"ipv6CidrBlockState"`
	}
	ec2SubnetCidrState struct {
		State         ec2types.SubnetCidrBlockStateCode `xml:"state,omitempty"`
		StatusMessage *string                           `xml:"statusMessage"`
	}
	ec2PrivateDNSOnLaunch struct {
		EnableResourceNameDnsAAAARecord *bool                 `xml:"enableResourceNameDnsAAAARecord"`
		EnableResourceNameDnsARecord    *bool                 `xml:"enableResourceNameDnsARecord"`
		HostnameType                    ec2types.HostnameType `xml:"hostnameType,omitempty"`
	}
)

func subnetXML(s ec2types.Subnet) ec2Subnet {
	out := ec2Subnet{
		AssignIpv6AddressOnCreation: s.AssignIpv6AddressOnCreation, AvailabilityZone: s.AvailabilityZone,
		AvailabilityZoneId: s.AvailabilityZoneId, AvailableIpAddressCount: s.AvailableIpAddressCount, CidrBlock: s.CidrBlock,
		CustomerOwnedIpv4Pool: s.CustomerOwnedIpv4Pool, DefaultForAz: s.DefaultForAz, EnableDns64: s.EnableDns64,
		EnableLniAtDeviceIndex: s.EnableLniAtDeviceIndex,
		Ipv6CidrBlockAssociationSet: itemsOf(s.Ipv6CidrBlockAssociationSet, func(a ec2types.SubnetIpv6CidrBlockAssociation) ec2SubnetIpv6Assoc {
			out := ec2SubnetIpv6Assoc{AssociationId: a.AssociationId, IpSource: a.IpSource, Ipv6AddressAttribute: a.Ipv6AddressAttribute, Ipv6CidrBlock: a.Ipv6CidrBlock}
			if st := a.Ipv6CidrBlockState; st != nil {
				out.Ipv6CidrBlockState = &ec2SubnetCidrState{State: st.State, StatusMessage: st.StatusMessage}
			}
			return out
		}),
		Ipv6Native: s.Ipv6Native, MapCustomerOwnedIpOnLaunch: s.MapCustomerOwnedIpOnLaunch, MapPublicIpOnLaunch: s.MapPublicIpOnLaunch,
		OutpostArn: s.OutpostArn, OwnerId: s.OwnerId, State: s.State, SubnetArn: s.SubnetArn, SubnetId: s.SubnetId,
		TagSet: itemsOf(s.Tags, tagXML), Type: s.Type, VpcId: s.VpcId,
	}
	if b := s.BlockPublicAccessStates; b != nil {
		out.BlockPublicAccessStates = &ec2BlockPublicAccess{InternetGatewayBlockMode: b.InternetGatewayBlockMode}
	}
	if o := s.PrivateDnsNameOptionsOnLaunch; o != nil {
		out.PrivateDnsNameOptionsOnLaunch = &ec2PrivateDNSOnLaunch{
			EnableResourceNameDnsAAAARecord: o.EnableResourceNameDnsAAAARecord, EnableResourceNameDnsARecord: o.EnableResourceNameDnsARecord,
			HostnameType: o.HostnameType,
		}
	}
	return out
}

// deserializers.go: awsEc2query_deserializeDocumentRouteTable, and the
// documents of its members: RouteTableAssociationList and
// RouteTableAssociation, RouteTableAssociationState, PropagatingVgwList
// and PropagatingVgw, RouteList and Route, TagList.
type (
	ec2RouteTable struct {
		AssociationSet    *itemSet[ec2RouteTableAssoc] `xml:"associationSet"`
		OwnerId           *string                      `xml:"ownerId"`
		PropagatingVgwSet *itemSet[ec2PropagatingVgw]  `xml:"propagatingVgwSet"`
		RouteSet          *itemSet[ec2Route]           `xml:"routeSet"`
		RouteTableId      *string                      `xml:"routeTableId"`
		TagSet            *itemSet[ec2Tag]             `xml:"tagSet"`
		VpcId             *string                      `xml:"vpcId"`
	}
	ec2RouteTableAssoc struct {
		AssociationState        *ec2RouteTableAssocState `xml:"associationState"`
		GatewayId               *string                  `xml:"gatewayId"`
		Main                    *bool                    `xml:"main"`
		PublicIpv4Pool          *string                  `xml:"publicIpv4Pool"`
		RouteTableAssociationId *string                  `xml:"routeTableAssociationId"`
		RouteTableId            *string                  `xml:"routeTableId"`
		SubnetId                *string                  `xml:"subnetId"`
	}
	ec2RouteTableAssocState struct {
		State         ec2types.RouteTableAssociationStateCode `xml:"state,omitempty"`
		StatusMessage *string                                 `xml:"statusMessage"`
	}
	ec2PropagatingVgw struct {
		GatewayId *string `xml:"gatewayId"`
	}
	ec2Route struct {
		CarrierGatewayId            *string              `xml:"carrierGatewayId"`
		CoreNetworkArn              *string              `xml:"coreNetworkArn"`
		DestinationCidrBlock        *string              `xml:"destinationCidrBlock"`
		DestinationIpv6CidrBlock    *string              `xml:"destinationIpv6CidrBlock"`
		DestinationPrefixListId     *string              `xml:"destinationPrefixListId"`
		EgressOnlyInternetGatewayId *string              `xml:"egressOnlyInternetGatewayId"`
		GatewayId                   *string              `xml:"gatewayId"`
		InstanceId                  *string              `xml:"instanceId"`
		InstanceOwnerId             *string              `xml:"instanceOwnerId"`
		IpAddress                   *string              `xml:"ipAddress"`
		LocalGatewayId              *string              `xml:"localGatewayId"`
		NatGatewayId                *string              `xml:"natGatewayId"`
		NetworkInterfaceId          *string              `xml:"networkInterfaceId"`
		OdbNetworkArn               *string              `xml:"odbNetworkArn"`
		Origin                      ec2types.RouteOrigin `xml:"origin,omitempty"`
		State                       ec2types.RouteState  `xml:"state,omitempty"`
		TransitGatewayId            *string              `xml:"transitGatewayId"`
		VpcPeeringConnectionId      *string              `xml:"vpcPeeringConnectionId"`
	}
)

func routeXML(r ec2types.Route) ec2Route {
	return ec2Route{
		CarrierGatewayId: r.CarrierGatewayId, CoreNetworkArn: r.CoreNetworkArn, DestinationCidrBlock: r.DestinationCidrBlock,
		DestinationIpv6CidrBlock: r.DestinationIpv6CidrBlock, DestinationPrefixListId: r.DestinationPrefixListId,
		EgressOnlyInternetGatewayId: r.EgressOnlyInternetGatewayId, GatewayId: r.GatewayId, InstanceId: r.InstanceId,
		InstanceOwnerId: r.InstanceOwnerId, IpAddress: r.IpAddress, LocalGatewayId: r.LocalGatewayId, NatGatewayId: r.NatGatewayId,
		NetworkInterfaceId: r.NetworkInterfaceId, OdbNetworkArn: r.OdbNetworkArn, Origin: r.Origin, State: r.State,
		TransitGatewayId: r.TransitGatewayId, VpcPeeringConnectionId: r.VpcPeeringConnectionId,
	}
}

func routeTableXML(t ec2types.RouteTable) ec2RouteTable {
	return ec2RouteTable{
		AssociationSet: itemsOf(t.Associations, func(a ec2types.RouteTableAssociation) ec2RouteTableAssoc {
			out := ec2RouteTableAssoc{
				GatewayId: a.GatewayId, Main: a.Main, PublicIpv4Pool: a.PublicIpv4Pool,
				RouteTableAssociationId: a.RouteTableAssociationId, RouteTableId: a.RouteTableId, SubnetId: a.SubnetId,
			}
			if st := a.AssociationState; st != nil {
				out.AssociationState = &ec2RouteTableAssocState{State: st.State, StatusMessage: st.StatusMessage}
			}
			return out
		}),
		OwnerId: t.OwnerId,
		PropagatingVgwSet: itemsOf(t.PropagatingVgws, func(v ec2types.PropagatingVgw) ec2PropagatingVgw {
			return ec2PropagatingVgw{GatewayId: v.GatewayId}
		}),
		RouteSet:     itemsOf(t.Routes, routeXML),
		RouteTableId: t.RouteTableId, TagSet: itemsOf(t.Tags, tagXML), VpcId: t.VpcId,
	}
}

// deserializers.go: awsEc2query_deserializeDocumentVpcEndpoint
// (creationTimestamp in smithytime.ParseDateTime's format), and the
// documents of its members: DnsEntrySet and DnsEntry, DnsOptions and
// PrivateDnsSpecifiedDomainSet, GroupIdentifierSet and
// SecurityGroupIdentifier, SubnetIpPrefixesList and SubnetIpPrefixes,
// LastError, ValueStringList, PayerResponsibilitySet and
// PayerResponsibilityEntry, TagList.
type (
	ec2VpcEndpoint struct {
		CreationTimestamp        *string                          `xml:"creationTimestamp"`
		DnsEntrySet              *itemSet[ec2DNSEntry]            `xml:"dnsEntrySet"`
		DnsOptions               *ec2DNSOptions                   `xml:"dnsOptions"`
		FailureReason            *string                          `xml:"failureReason"`
		GroupSet                 *itemSet[ec2GroupIdentifier]     `xml:"groupSet"`
		IpAddressType            ec2types.IpAddressType           `xml:"ipAddressType,omitempty"`
		Ipv4PrefixSet            *itemSet[ec2SubnetPrefixes]      `xml:"ipv4PrefixSet"`
		Ipv6PrefixSet            *itemSet[ec2SubnetPrefixes]      `xml:"ipv6PrefixSet"`
		LastError                *ec2LastError                    `xml:"lastError"`
		NetworkInterfaceIdSet    *itemSet[string]                 `xml:"networkInterfaceIdSet"`
		OwnerId                  *string                          `xml:"ownerId"`
		PayerResponsibilitySet   *itemSet[ec2PayerResponsibility] `xml:"payerResponsibilitySet"`
		PolicyDocument           *string                          `xml:"policyDocument"`
		PrivateDnsEnabled        *bool                            `xml:"privateDnsEnabled"`
		RequesterManaged         *bool                            `xml:"requesterManaged"`
		ResourceConfigurationArn *string                          `xml:"resourceConfigurationArn"`
		RouteTableIdSet          *itemSet[string]                 `xml:"routeTableIdSet"`
		ServiceName              *string                          `xml:"serviceName"`
		ServiceNetworkArn        *string                          `xml:"serviceNetworkArn"`
		ServiceRegion            *string                          `xml:"serviceRegion"`
		State                    ec2types.State                   `xml:"state,omitempty"`
		SubnetIdSet              *itemSet[string]                 `xml:"subnetIdSet"`
		TagSet                   *itemSet[ec2Tag]                 `xml:"tagSet"`
		VpcEndpointId            *string                          `xml:"vpcEndpointId"`
		VpcEndpointType          ec2types.VpcEndpointType         `xml:"vpcEndpointType,omitempty"`
		VpcId                    *string                          `xml:"vpcId"`
	}
	ec2DNSEntry struct {
		DnsName      *string `xml:"dnsName"`
		HostedZoneId *string `xml:"hostedZoneId"`
	}
	ec2DNSOptions struct {
		DnsRecordIpType                          ec2types.DnsRecordIpType `xml:"dnsRecordIpType,omitempty"`
		PrivateDnsOnlyForInboundResolverEndpoint *bool                    `xml:"privateDnsOnlyForInboundResolverEndpoint"`
		PrivateDnsPreference                     *string                  `xml:"privateDnsPreference"`
		PrivateDnsSpecifiedDomainSet             *itemSet[string]         `xml:"privateDnsSpecifiedDomainSet"`
	}
	ec2SubnetPrefixes struct {
		IpPrefixSet *itemSet[string] `xml:"ipPrefixSet"`
		SubnetId    *string          `xml:"subnetId"`
	}
	ec2LastError struct {
		Code    *string `xml:"code"`
		Message *string `xml:"message"`
	}
	ec2PayerResponsibility struct {
		PayerResponsibilityType ec2types.PayerResponsibilityType  `xml:"payerResponsibilityType,omitempty"`
		Scope                   ec2types.PayerResponsibilityScope `xml:"scope,omitempty"`
	}
)

func subnetPrefixesXML(p ec2types.SubnetIpPrefixes) ec2SubnetPrefixes {
	return ec2SubnetPrefixes{IpPrefixSet: stringSet(p.IpPrefixes), SubnetId: p.SubnetId}
}

func vpcEndpointXML(e ec2types.VpcEndpoint) ec2VpcEndpoint {
	out := ec2VpcEndpoint{
		DnsEntrySet: itemsOf(e.DnsEntries, func(d ec2types.DnsEntry) ec2DNSEntry {
			return ec2DNSEntry{DnsName: d.DnsName, HostedZoneId: d.HostedZoneId}
		}),
		FailureReason: e.FailureReason,
		GroupSet: itemsOf(e.Groups, func(g ec2types.SecurityGroupIdentifier) ec2GroupIdentifier {
			return ec2GroupIdentifier{GroupId: g.GroupId, GroupName: g.GroupName}
		}),
		IpAddressType: e.IpAddressType,
		Ipv4PrefixSet: itemsOf(e.Ipv4Prefixes, subnetPrefixesXML), Ipv6PrefixSet: itemsOf(e.Ipv6Prefixes, subnetPrefixesXML),
		NetworkInterfaceIdSet: stringSet(e.NetworkInterfaceIds), OwnerId: e.OwnerId,
		PayerResponsibilitySet: itemsOf(e.PayerResponsibilities, func(p ec2types.PayerResponsibilityEntry) ec2PayerResponsibility {
			return ec2PayerResponsibility{PayerResponsibilityType: p.PayerResponsibilityType, Scope: p.Scope}
		}),
		PolicyDocument: e.PolicyDocument, PrivateDnsEnabled: e.PrivateDnsEnabled, RequesterManaged: e.RequesterManaged,
		ResourceConfigurationArn: e.ResourceConfigurationArn, RouteTableIdSet: stringSet(e.RouteTableIds),
		ServiceName: e.ServiceName, ServiceNetworkArn: e.ServiceNetworkArn, ServiceRegion: e.ServiceRegion, State: e.State,
		SubnetIdSet: stringSet(e.SubnetIds), TagSet: itemsOf(e.Tags, tagXML), VpcEndpointId: e.VpcEndpointId,
		VpcEndpointType: e.VpcEndpointType, VpcId: e.VpcId,
	}
	if e.CreationTimestamp != nil {
		t := smithytime.FormatDateTime(*e.CreationTimestamp)
		out.CreationTimestamp = &t
	}
	if o := e.DnsOptions; o != nil {
		out.DnsOptions = &ec2DNSOptions{
			DnsRecordIpType: o.DnsRecordIpType, PrivateDnsOnlyForInboundResolverEndpoint: o.PrivateDnsOnlyForInboundResolverEndpoint,
			PrivateDnsPreference: o.PrivateDnsPreference, PrivateDnsSpecifiedDomainSet: stringSet(o.PrivateDnsSpecifiedDomains),
		}
	}
	if l := e.LastError; l != nil {
		out.LastError = &ec2LastError{Code: l.Code, Message: l.Message}
	}
	return out
}

// The responses. deserializers.go:
// awsEc2query_deserializeOpDocumentDescribeSubnetsOutput ("nextToken",
// "subnetSet"), DescribeRouteTablesOutput ("nextToken", "routeTableSet")
// and DescribeVpcEndpointsOutput ("nextToken", "vpcEndpointSet"), each
// list read as <item>s.
type (
	describeSubnetsResponse struct {
		RequestID string              `xml:"requestId"`
		NextToken *string             `xml:"nextToken"`
		SubnetSet *itemSet[ec2Subnet] `xml:"subnetSet"`
	}
	describeRouteTablesResponse struct {
		RequestID     string                  `xml:"requestId"`
		NextToken     *string                 `xml:"nextToken"`
		RouteTableSet *itemSet[ec2RouteTable] `xml:"routeTableSet"`
	}
	describeVpcEndpointsResponse struct {
		RequestID      string                   `xml:"requestId"`
		NextToken      *string                  `xml:"nextToken"`
		VpcEndpointSet *itemSet[ec2VpcEndpoint] `xml:"vpcEndpointSet"`
	}
)

func encodeDescribeSubnets(requestID string, out *ec2.DescribeSubnetsOutput) (any, error) {
	return &describeSubnetsResponse{RequestID: requestID, NextToken: out.NextToken, SubnetSet: itemsOf(out.Subnets, subnetXML)}, nil
}

func encodeDescribeRouteTables(requestID string, out *ec2.DescribeRouteTablesOutput) (any, error) {
	return &describeRouteTablesResponse{RequestID: requestID, NextToken: out.NextToken, RouteTableSet: itemsOf(out.RouteTables, routeTableXML)}, nil
}

func encodeDescribeVpcEndpoints(requestID string, out *ec2.DescribeVpcEndpointsOutput) (any, error) {
	return &describeVpcEndpointsResponse{RequestID: requestID, NextToken: out.NextToken, VpcEndpointSet: itemsOf(out.VpcEndpoints, vpcEndpointXML)}, nil
}
