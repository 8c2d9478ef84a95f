package ec2sim

// client.go: the Client: EC2 operations with the SDK's signatures, and call
// counts.

import (
	"context"
	"maps"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/smithy-go"
)

// Operation names, as [Client.Counts] and the fault methods spell them.
const (
	OpDescribeVpcs                  = "DescribeVpcs"
	OpDescribeSecurityGroups        = "DescribeSecurityGroups"
	OpAuthorizeSecurityGroupIngress = "AuthorizeSecurityGroupIngress"
	OpRevokeSecurityGroupIngress    = "RevokeSecurityGroupIngress"
	OpDescribeNetworkInterfaces     = "DescribeNetworkInterfaces"
	OpDescribeSubnets               = "DescribeSubnets"
	OpDescribeRouteTables           = "DescribeRouteTables"
	OpDescribeVpcEndpoints          = "DescribeVpcEndpoints"
	OpDescribeInstances             = "DescribeInstances"
)

// Ops lists every operation a [Client] serves.
var Ops = []string{
	OpDescribeVpcs, OpDescribeSecurityGroups, OpAuthorizeSecurityGroupIngress, OpRevokeSecurityGroupIngress, OpDescribeNetworkInterfaces,
	OpDescribeSubnets, OpDescribeRouteTables, OpDescribeVpcEndpoints, OpDescribeInstances,
}

// Client is the Go-interface facade of a [Model]: it has the method set and
// signatures of the SDK's *ec2.Client for the operations of [API], and adds
// a call count per operation and faults. Several clients may share one
// model (the system under test's and the LBC stand-in's, counted apart).
// The optFns arguments are accepted and ignored. A Client is safe for
// concurrent use; every method of a nil *Client returns [ErrNilClient].
type Client struct {
	model *Model

	mu     sync.Mutex
	counts map[string]int
	faults map[string]*opFaults
}

// NewClient returns a client of m with no faults. It fails with an
// [*OptionsError] when m is nil.
func NewClient(m *Model) (*Client, error) {
	if m == nil {
		return nil, &OptionsError{Pkg: "ec2sim", Op: "new client", Field: "model", Reason: "required"}
	}
	return &Client{model: m, counts: map[string]int{}, faults: map[string]*opFaults{}}, nil
}

// Model returns the client's model.
func (c *Client) Model() *Model {
	if c == nil {
		return nil
	}
	return c.model
}

// Counts returns how many calls reached the client, by operation: every
// call with a non-nil receiver, failed and faulted ones included.
func (c *Client) Counts() map[string]int {
	if c == nil {
		return map[string]int{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.counts)
}

// ResetCounts clears the counts, to start a new measurement. Armed faults
// stay.
func (c *Client) ResetCounts() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts = map[string]int{}
}

// dryRunError is EC2's answer to a DryRun request that would have
// succeeded.
func dryRunError() error {
	return &smithy.GenericAPIError{Code: CodeDryRunOperation, Message: "Request would have succeeded, but DryRun flag is set.", Fault: smithy.FaultClient}
}

// invoke runs one call: count, faults, DryRun, then the model; errors come
// back wrapped as the SDK wraps them, in a *smithy.OperationError.
func invoke[O any](ctx context.Context, c *Client, op string, dryRun *bool, call func() (*O, error)) (*O, error) {
	wrap := func(err error) error {
		return &smithy.OperationError{ServiceID: ec2.ServiceID, OperationName: op, Err: err}
	}
	if c == nil || c.model == nil {
		return nil, wrap(ErrNilClient)
	}
	c.mu.Lock()
	c.counts[op]++
	err := c.faultLocked(op)
	c.mu.Unlock()
	if err == nil && ctx != nil {
		if ctx.Err() != nil {
			err = context.Cause(ctx)
		}
	}
	if err == nil && aws.ToBool(dryRun) {
		err = dryRunError()
	}
	if err != nil {
		return nil, wrap(err)
	}
	out, err := call()
	if err != nil {
		return nil, wrap(err)
	}
	return out, nil
}

// DescribeVpcs implements the EC2 operation: the VPCs of VpcIds (an unknown
// one fails with InvalidVpcID.NotFound) or all, that match Filters, sorted
// by ID, paged by MaxResults and NextToken. A nil params is an empty
// request, as the SDK makes it.
func (c *Client) DescribeVpcs(ctx context.Context, params *ec2.DescribeVpcsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeVpcsOutput, error) {
	if params == nil {
		params = &ec2.DescribeVpcsInput{}
	}
	return invoke(ctx, c, OpDescribeVpcs, params.DryRun, func() (*ec2.DescribeVpcsOutput, error) { return c.model.describeVpcs(params) })
}

// DescribeSecurityGroups implements the EC2 operation: the groups of
// GroupIds (an unknown one fails with InvalidGroup.NotFound, a malformed
// one with InvalidGroupId.Malformed) or all, that match Filters, sorted by
// ID, paged by MaxResults and NextToken. GroupNames address the default
// VPC, which the model does not have: they fail with InvalidGroup.NotFound.
// A nil params is an empty request, as the SDK makes it.
func (c *Client) DescribeSecurityGroups(ctx context.Context, params *ec2.DescribeSecurityGroupsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error) {
	if params == nil {
		params = &ec2.DescribeSecurityGroupsInput{}
	}
	return invoke(ctx, c, OpDescribeSecurityGroups, params.DryRun, func() (*ec2.DescribeSecurityGroupsOutput, error) {
		return c.model.describeSecurityGroups(params)
	})
}

// DescribeNetworkInterfaces implements the EC2 operation: the interfaces
// of the model's [InterfaceSource], read anew by every call, those of
// NetworkInterfaceIds (an unknown one fails with
// InvalidNetworkInterfaceID.NotFound, a malformed one with
// InvalidNetworkInterfaceID.Malformed) or all, that match Filters, sorted
// by ID, paged by MaxResults and NextToken. MaxResults with
// NetworkInterfaceIds fails with InvalidParameterCombination, as EC2
// answers it. Groups name the model's groups: a group the model does not
// have is listed with an empty name. IncludeManagedResources is ignored. A
// nil params is an empty request, as the SDK makes it.
func (c *Client) DescribeNetworkInterfaces(ctx context.Context, params *ec2.DescribeNetworkInterfacesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeNetworkInterfacesOutput, error) {
	if params == nil {
		params = &ec2.DescribeNetworkInterfacesInput{}
	}
	return invoke(ctx, c, OpDescribeNetworkInterfaces, params.DryRun, func() (*ec2.DescribeNetworkInterfacesOutput, error) {
		return c.model.describeNetworkInterfaces(params)
	})
}

// DescribeSubnets implements the EC2 operation: the subnets of SubnetIds
// (an unknown one fails with InvalidSubnetID.NotFound) or all, that match
// Filters, sorted by ID, paged by MaxResults (5 to 1000) and NextToken.
// AvailableIpAddressCount is the subnet's Available, called anew by every
// call. A nil params is an empty request, as the SDK makes it.
func (c *Client) DescribeSubnets(ctx context.Context, params *ec2.DescribeSubnetsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error) {
	if params == nil {
		params = &ec2.DescribeSubnetsInput{}
	}
	return invoke(ctx, c, OpDescribeSubnets, params.DryRun, func() (*ec2.DescribeSubnetsOutput, error) { return c.model.describeSubnets(params) })
}

// DescribeRouteTables implements the EC2 operation: the route tables of
// RouteTableIds (an unknown one fails with InvalidRouteTableID.NotFound)
// or all, that match Filters, sorted by ID, paged by MaxResults (5 to 100)
// and NextToken. Each has its local route first and its associations, the
// main one first; a subnet without an explicit association is not listed
// in the main table's, as EC2 does not list it. A nil params is an empty
// request, as the SDK makes it.
func (c *Client) DescribeRouteTables(ctx context.Context, params *ec2.DescribeRouteTablesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error) {
	if params == nil {
		params = &ec2.DescribeRouteTablesInput{}
	}
	return invoke(ctx, c, OpDescribeRouteTables, params.DryRun, func() (*ec2.DescribeRouteTablesOutput, error) {
		return c.model.describeRouteTables(params)
	})
}

// DescribeVpcEndpoints implements the EC2 operation: the endpoints of
// VpcEndpointIds (an unknown one fails with
// InvalidVpcEndpointId.NotFound) or all, that match Filters, sorted by ID,
// paged by MaxResults (at least 1; more than 1000 returns 1000) and
// NextToken. A nil params is an empty request, as the SDK makes it.
func (c *Client) DescribeVpcEndpoints(ctx context.Context, params *ec2.DescribeVpcEndpointsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeVpcEndpointsOutput, error) {
	if params == nil {
		params = &ec2.DescribeVpcEndpointsInput{}
	}
	return invoke(ctx, c, OpDescribeVpcEndpoints, params.DryRun, func() (*ec2.DescribeVpcEndpointsOutput, error) {
		return c.model.describeVpcEndpoints(params)
	})
}

// DescribeInstances implements the EC2 operation: the instances of the
// model's [InstanceSource], read anew by every call, those of InstanceIds
// (an unknown one fails with InvalidInstanceID.NotFound, a malformed one
// with InvalidInstanceID.Malformed) or all, that match Filters, sorted by
// ID, each in a reservation of its own, paged by MaxResults (5 to 1000)
// and NextToken. MaxResults with InstanceIds fails with
// InvalidParameterCombination, as EC2 answers it. A nil params is an empty
// request, as the SDK makes it.
func (c *Client) DescribeInstances(ctx context.Context, params *ec2.DescribeInstancesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error) {
	if params == nil {
		params = &ec2.DescribeInstancesInput{}
	}
	return invoke(ctx, c, OpDescribeInstances, params.DryRun, func() (*ec2.DescribeInstancesOutput, error) {
		return c.model.describeInstances(params)
	})
}

// AuthorizeSecurityGroupIngress implements the EC2 operation: it adds the
// rules of IpPermissions (or of the top-level IpProtocol, FromPort, ToPort
// and CidrIp) to GroupId, all or none, and returns them with their rule
// IDs. A rule that exists fails with InvalidPermission.Duplicate; a nil
// params (or no GroupId) with MissingParameter.
func (c *Client) AuthorizeSecurityGroupIngress(ctx context.Context, params *ec2.AuthorizeSecurityGroupIngressInput, optFns ...func(*ec2.Options)) (*ec2.AuthorizeSecurityGroupIngressOutput, error) {
	if params == nil {
		params = &ec2.AuthorizeSecurityGroupIngressInput{}
	}
	return invoke(ctx, c, OpAuthorizeSecurityGroupIngress, params.DryRun, func() (*ec2.AuthorizeSecurityGroupIngressOutput, error) {
		return c.model.authorizeIngress(params)
	})
}

// RevokeSecurityGroupIngress implements the EC2 operation: it removes the
// rules of IpPermissions (matched but for descriptions) or of
// SecurityGroupRuleIds from GroupId, all or none. A rule that does not
// exist fails with InvalidPermission.NotFound (or
// InvalidSecurityGroupRuleId.NotFound), as in a non-default VPC; a nil
// params with MissingParameter.
func (c *Client) RevokeSecurityGroupIngress(ctx context.Context, params *ec2.RevokeSecurityGroupIngressInput, optFns ...func(*ec2.Options)) (*ec2.RevokeSecurityGroupIngressOutput, error) {
	if params == nil {
		params = &ec2.RevokeSecurityGroupIngressInput{}
	}
	return invoke(ctx, c, OpRevokeSecurityGroupIngress, params.DryRun, func() (*ec2.RevokeSecurityGroupIngressOutput, error) {
		return c.model.revokeIngress(params)
	})
}
