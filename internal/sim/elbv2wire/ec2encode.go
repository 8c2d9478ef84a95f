package elbv2wire

import (
	"bytes"
	"encoding/xml"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
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

// ec2Empty is a response with nothing but its request ID.
type ec2Empty struct {
	RequestID string `xml:"requestId"`
}

// The responses, one per action. deserializers.go:
// awsEc2query_deserializeOpDocumentDescribeVpcsOutput ("nextToken",
// "vpcSet"), DescribeSecurityGroupsOutput ("nextToken",
// "securityGroupInfo"), AuthorizeSecurityGroupIngressOutput ("return",
// "securityGroupRuleSet") and RevokeSecurityGroupIngressOutput ("return",
// "revokedSecurityGroupRuleSet", "unknownIpPermissionSet").
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
