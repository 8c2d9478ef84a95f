package elbv2wire

// ec2decode.go: decoding EC2 Query-protocol forms into SDK inputs.

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// EC2's Query protocol ("ec2query") flattens an Input differently from
// awsQuery: every list is flattened, its items numbered right after the
// list's name ("GroupId.1", "Filter.1.Name", "Filter.1.Value.1"), with no
// ".member"; names are the ec2QueryName of each member, which is not
// always the Go field's ("GroupIds" is "GroupId", "Filters" is "Filter",
// "UserIdGroupPairs" is "Groups", "TagSpecifications" is
// "TagSpecification"); and an empty list is not sent at all. The names
// below are the SDK's own, read from
// github.com/aws/aws-sdk-go-v2/service/ec2@v1.349.0/serializers.go
// (awsEc2query_serializeOpDocument<Op>Input and
// awsEc2query_serializeDocument<Shape>, which key flattened lists with
// query.Value.FlatKey and number their items from 1, as
// aws/protocol/query's Array does); the round-trip tests hold the decoder
// to that serializer.

// ec2ParamError is a parameter the endpoint cannot read into the Input:
// EC2 answers UnknownParameter or InvalidParameterValue.
type ec2ParamError struct {
	code   string
	param  string
	reason string
}

func (e *ec2ParamError) Error() string {
	if e.param == "" {
		return e.reason
	}
	return fmt.Sprintf("parameter %s: %s", e.param, e.reason)
}

// ec2Node reads one structure of the parameter tree and remembers which
// members it read, so that [ec2Node.done] can reject the others.
type ec2Node struct {
	p    *param
	path string
	used map[string]bool
}

func newEC2Node(p *param, path string) *ec2Node {
	return &ec2Node{p: p, path: path, used: map[string]bool{}}
}

func (n *ec2Node) invalid(path, format string, args ...any) error {
	return &ec2ParamError{code: CodeInvalidParameterValue, param: path, reason: fmt.Sprintf(format, args...)}
}

// take returns member name, marking it read.
func (n *ec2Node) take(name string) (*param, string, bool) {
	c, ok := n.p.children[name]
	if ok {
		n.used[name] = true
	}
	return c, join(n.path, name), ok
}

// leaf returns the value of member name, which must have no children.
func (n *ec2Node) leaf(name string) (string, string, bool, error) {
	c, path, ok := n.take(name)
	if !ok {
		return "", path, false, nil
	}
	if len(c.children) > 0 || c.value == nil {
		return "", path, false, n.invalid(path, "is a value, not a structure or a list")
	}
	return *c.value, path, true, nil
}

func (n *ec2Node) str(name string, dst **string) error {
	v, _, ok, err := n.leaf(name)
	if ok {
		*dst = &v
	}
	return err
}

func (n *ec2Node) int32(name string, dst **int32) error {
	v, path, ok, err := n.leaf(name)
	if !ok {
		return err
	}
	i, perr := strconv.ParseInt(v, 10, 32)
	if perr != nil {
		return n.invalid(path, "%q is not an integer", v)
	}
	i32 := int32(i)
	*dst = &i32
	return nil
}

func (n *ec2Node) bool(name string, dst **bool) error {
	v, path, ok, err := n.leaf(name)
	if !ok {
		return err
	}
	b, perr := strconv.ParseBool(v)
	if perr != nil || (v != "true" && v != "false") {
		return n.invalid(path, "%q is not a boolean", v)
	}
	*dst = &b
	return nil
}

// list reads the flattened list name: its items name.1 to name.N, each
// read by item.
func (n *ec2Node) list(name string, item func(c *ec2Node) error) error {
	c, path, ok := n.take(name)
	if !ok {
		return nil
	}
	if c.value != nil || len(c.children) == 0 {
		return n.invalid(path, "is a list: give its items as %s.N", path)
	}
	list, err := items(c, path)
	if err != nil {
		return n.invalid(path, "item numbers must run from 1 to %d", len(c.children))
	}
	for i, p := range list {
		if err := item(newEC2Node(p, join(path, strconv.Itoa(i+1)))); err != nil {
			return err
		}
	}
	return nil
}

// value reads a list item that is a plain value.
func (n *ec2Node) value() (string, error) {
	if len(n.p.children) > 0 || n.p.value == nil {
		return "", n.invalid(n.path, "is a value, not a structure or a list")
	}
	return *n.p.value, nil
}

func (n *ec2Node) strs(name string, dst *[]string) error {
	return n.list(name, func(c *ec2Node) error {
		v, err := c.value()
		*dst = append(*dst, v)
		return err
	})
}

// done rejects the members the Input has no place for, as EC2 does with
// UnknownParameter.
func (n *ec2Node) done() error {
	names := make([]string, 0, len(n.p.children))
	for name := range n.p.children {
		if !n.used[name] {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names)
	return &ec2ParamError{code: CodeUnknownParameter, param: join(n.path, names[0]), reason: "The parameter " + join(n.path, names[0]) + " is not recognized"}
}

// all runs the reads in order and then done, returning the first error.
func (n *ec2Node) all(reads ...error) error {
	for _, err := range reads {
		if err != nil {
			return err
		}
	}
	return n.done()
}

// ec2Form builds the parameter tree of a request (Action and Version
// left out) as the root node.
func ec2Form(form url.Values) (*ec2Node, error) {
	root, err := paramTree(form)
	if err != nil {
		return nil, &ec2ParamError{code: CodeInvalidParameterValue, reason: err.Error()}
	}
	return newEC2Node(root, ""), nil
}

// serializers.go: awsEc2query_serializeDocumentFilterList, FlatKey "Filter";
// awsEc2query_serializeDocumentFilter: "Name", FlatKey "Value".
func decodeFilters(n *ec2Node, dst *[]ec2types.Filter) error {
	return n.list("Filter", func(c *ec2Node) error {
		var f ec2types.Filter
		err := c.all(c.str("Name", &f.Name), c.strs("Value", &f.Values))
		*dst = append(*dst, f)
		return err
	})
}

// serializers.go: awsEc2query_serializeDocumentIpPermission: "FromPort",
// "IpProtocol", FlatKey "IpRanges" (CidrIp, Description), FlatKey
// "Ipv6Ranges" (CidrIpv6, Description), FlatKey "PrefixListIds"
// (Description, PrefixListId), "ToPort", FlatKey "Groups" (the
// UserIdGroupPairs: Description, GroupId, GroupName, PeeringStatus, UserId,
// VpcId, VpcPeeringConnectionId).
func decodeIpPermissions(n *ec2Node, dst *[]ec2types.IpPermission) error {
	return n.list("IpPermissions", func(c *ec2Node) error {
		var p ec2types.IpPermission
		err := c.all(
			c.int32("FromPort", &p.FromPort),
			c.str("IpProtocol", &p.IpProtocol),
			c.list("IpRanges", func(r *ec2Node) error {
				var v ec2types.IpRange
				err := r.all(r.str("CidrIp", &v.CidrIp), r.str("Description", &v.Description))
				p.IpRanges = append(p.IpRanges, v)
				return err
			}),
			c.list("Ipv6Ranges", func(r *ec2Node) error {
				var v ec2types.Ipv6Range
				err := r.all(r.str("CidrIpv6", &v.CidrIpv6), r.str("Description", &v.Description))
				p.Ipv6Ranges = append(p.Ipv6Ranges, v)
				return err
			}),
			c.list("PrefixListIds", func(r *ec2Node) error {
				var v ec2types.PrefixListId
				err := r.all(r.str("Description", &v.Description), r.str("PrefixListId", &v.PrefixListId))
				p.PrefixListIds = append(p.PrefixListIds, v)
				return err
			}),
			c.int32("ToPort", &p.ToPort),
			c.list("Groups", func(r *ec2Node) error {
				var v ec2types.UserIdGroupPair
				err := r.all(
					r.str("Description", &v.Description), r.str("GroupId", &v.GroupId), r.str("GroupName", &v.GroupName),
					r.str("PeeringStatus", &v.PeeringStatus), r.str("UserId", &v.UserId), r.str("VpcId", &v.VpcId),
					r.str("VpcPeeringConnectionId", &v.VpcPeeringConnectionId))
				p.UserIdGroupPairs = append(p.UserIdGroupPairs, v)
				return err
			}),
		)
		*dst = append(*dst, p)
		return err
	})
}

// serializers.go: awsEc2query_serializeDocumentTagSpecificationList,
// FlatKey "TagSpecification"; awsEc2query_serializeDocumentTagSpecification:
// "ResourceType", FlatKey "Tag" (Key, Value).
func decodeTagSpecifications(n *ec2Node, dst *[]ec2types.TagSpecification) error {
	return n.list("TagSpecification", func(c *ec2Node) error {
		var ts ec2types.TagSpecification
		var rt *string
		err := c.all(
			c.str("ResourceType", &rt),
			c.list("Tag", func(r *ec2Node) error {
				var t ec2types.Tag
				err := r.all(r.str("Key", &t.Key), r.str("Value", &t.Value))
				ts.Tags = append(ts.Tags, t)
				return err
			}),
		)
		if rt != nil {
			ts.ResourceType = ec2types.ResourceType(*rt)
		}
		*dst = append(*dst, ts)
		return err
	})
}

// serializers.go: awsEc2query_serializeOpDocumentDescribeVpcsInput: "DryRun",
// FlatKey "Filter", "MaxResults", "NextToken", FlatKey "VpcId".
func decodeDescribeVpcs(n *ec2Node, in *ec2.DescribeVpcsInput) error {
	return n.all(
		n.bool("DryRun", &in.DryRun), decodeFilters(n, &in.Filters), n.int32("MaxResults", &in.MaxResults),
		n.str("NextToken", &in.NextToken), n.strs("VpcId", &in.VpcIds),
	)
}

// serializers.go: awsEc2query_serializeOpDocumentDescribeSecurityGroupsInput:
// "DryRun", FlatKey "Filter", FlatKey "GroupId", FlatKey "GroupName",
// "MaxResults", "NextToken".
func decodeDescribeSecurityGroups(n *ec2Node, in *ec2.DescribeSecurityGroupsInput) error {
	return n.all(
		n.bool("DryRun", &in.DryRun), decodeFilters(n, &in.Filters), n.strs("GroupId", &in.GroupIds),
		n.strs("GroupName", &in.GroupNames), n.int32("MaxResults", &in.MaxResults), n.str("NextToken", &in.NextToken),
	)
}

// serializers.go:
// awsEc2query_serializeOpDocumentAuthorizeSecurityGroupIngressInput:
// "CidrIp", "DryRun", "FromPort", "GroupId", "GroupName", FlatKey
// "IpPermissions", "IpProtocol", "SourceSecurityGroupName",
// "SourceSecurityGroupOwnerId", FlatKey "TagSpecification", "ToPort".
func decodeAuthorizeSecurityGroupIngress(n *ec2Node, in *ec2.AuthorizeSecurityGroupIngressInput) error {
	return n.all(
		n.str("CidrIp", &in.CidrIp), n.bool("DryRun", &in.DryRun), n.int32("FromPort", &in.FromPort),
		n.str("GroupId", &in.GroupId), n.str("GroupName", &in.GroupName), decodeIpPermissions(n, &in.IpPermissions),
		n.str("IpProtocol", &in.IpProtocol), n.str("SourceSecurityGroupName", &in.SourceSecurityGroupName),
		n.str("SourceSecurityGroupOwnerId", &in.SourceSecurityGroupOwnerId),
		decodeTagSpecifications(n, &in.TagSpecifications), n.int32("ToPort", &in.ToPort),
	)
}

// serializers.go:
// awsEc2query_serializeOpDocumentRevokeSecurityGroupIngressInput: "CidrIp",
// "DryRun", "FromPort", "GroupId", "GroupName", FlatKey "IpPermissions",
// "IpProtocol", FlatKey "SecurityGroupRuleId", "SourceSecurityGroupName",
// "SourceSecurityGroupOwnerId", "ToPort".
func decodeRevokeSecurityGroupIngress(n *ec2Node, in *ec2.RevokeSecurityGroupIngressInput) error {
	return n.all(
		n.str("CidrIp", &in.CidrIp), n.bool("DryRun", &in.DryRun), n.int32("FromPort", &in.FromPort),
		n.str("GroupId", &in.GroupId), n.str("GroupName", &in.GroupName), decodeIpPermissions(n, &in.IpPermissions),
		n.str("IpProtocol", &in.IpProtocol), n.strs("SecurityGroupRuleId", &in.SecurityGroupRuleIds),
		n.str("SourceSecurityGroupName", &in.SourceSecurityGroupName),
		n.str("SourceSecurityGroupOwnerId", &in.SourceSecurityGroupOwnerId), n.int32("ToPort", &in.ToPort),
	)
}

// serializers.go:
// awsEc2query_serializeOpDocumentDescribeNetworkInterfacesInput: "DryRun",
// FlatKey "Filter", "IncludeManagedResources", "MaxResults", FlatKey
// "NetworkInterfaceId" (awsEc2query_serializeDocumentNetworkInterfaceIdList;
// the list's member name "Item" is ignored in a flat list), "NextToken".
func decodeDescribeNetworkInterfaces(n *ec2Node, in *ec2.DescribeNetworkInterfacesInput) error {
	return n.all(
		n.bool("DryRun", &in.DryRun), decodeFilters(n, &in.Filters), n.bool("IncludeManagedResources", &in.IncludeManagedResources),
		n.int32("MaxResults", &in.MaxResults), n.strs("NetworkInterfaceId", &in.NetworkInterfaceIds), n.str("NextToken", &in.NextToken),
	)
}

// serializers.go: awsEc2query_serializeOpDocumentDescribeSubnetsInput:
// "DryRun", FlatKey "Filter", "MaxResults", "NextToken", FlatKey "SubnetId"
// (awsEc2query_serializeDocumentSubnetIdStringList).
func decodeDescribeSubnets(n *ec2Node, in *ec2.DescribeSubnetsInput) error {
	return n.all(
		n.bool("DryRun", &in.DryRun), decodeFilters(n, &in.Filters), n.int32("MaxResults", &in.MaxResults),
		n.str("NextToken", &in.NextToken), n.strs("SubnetId", &in.SubnetIds),
	)
}

// serializers.go: awsEc2query_serializeOpDocumentDescribeRouteTablesInput:
// "DryRun", FlatKey "Filter", "MaxResults", "NextToken", FlatKey
// "RouteTableId" (awsEc2query_serializeDocumentRouteTableIdStringList).
func decodeDescribeRouteTables(n *ec2Node, in *ec2.DescribeRouteTablesInput) error {
	return n.all(
		n.bool("DryRun", &in.DryRun), decodeFilters(n, &in.Filters), n.int32("MaxResults", &in.MaxResults),
		n.str("NextToken", &in.NextToken), n.strs("RouteTableId", &in.RouteTableIds),
	)
}

// serializers.go: awsEc2query_serializeOpDocumentDescribeVpcEndpointsInput:
// "DryRun", FlatKey "Filter", "MaxResults", "NextToken", FlatKey
// "VpcEndpointId" (awsEc2query_serializeDocumentVpcEndpointIdList).
func decodeDescribeVpcEndpoints(n *ec2Node, in *ec2.DescribeVpcEndpointsInput) error {
	return n.all(
		n.bool("DryRun", &in.DryRun), decodeFilters(n, &in.Filters), n.int32("MaxResults", &in.MaxResults),
		n.str("NextToken", &in.NextToken), n.strs("VpcEndpointId", &in.VpcEndpointIds),
	)
}

// serializers.go: awsEc2query_serializeOpDocumentDescribeInstancesInput:
// "DryRun", FlatKey "Filter", "IncludeManagedResources", FlatKey
// "InstanceId" (awsEc2query_serializeDocumentInstanceIdStringList),
// "MaxResults", "NextToken".
func decodeDescribeInstances(n *ec2Node, in *ec2.DescribeInstancesInput) error {
	return n.all(
		n.bool("DryRun", &in.DryRun), decodeFilters(n, &in.Filters), n.bool("IncludeManagedResources", &in.IncludeManagedResources),
		n.strs("InstanceId", &in.InstanceIds), n.int32("MaxResults", &in.MaxResults), n.str("NextToken", &in.NextToken),
	)
}
