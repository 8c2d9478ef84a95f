// Package ec2sim is the simulated EC2 network API: the VPCs and security
// groups of the world, with the SDK's own types (ec2types.IpPermission,
// ec2types.SecurityGroup, ec2types.Vpc), the network interfaces that carry
// the groups to addresses, the reachability rule the simulator applies to
// traffic, and a Go facade with the SDK's signatures, call counts and
// faults. The AWS Load Balancer Controller stand-in opens security groups
// to its targets through it, and cutover's planner reads them; package
// elbv2wire serves it on the wire in EC2's Query protocol for the real
// *ec2.Client.
//
// # Files
//
//   - doc.go: this comment.
//   - api.go: the narrow interfaces the Client satisfies: Reader,
//     IngressWriter, API.
//   - client.go: the Client: EC2 operations with the SDK's signatures, and
//     call counts.
//   - describe.go: DescribeVpcs and DescribeSecurityGroups on the model, with
//     paging.
//   - errors.go: EC2's error codes, the errors the Client returns, and the
//     package's own errors.
//   - faults.go: fault injection on the Client: Fail, FailNext, Clear.
//   - filters.go: the Describe calls' filters.
//   - interfaces.go: network interfaces (Interface, InterfaceSource) and
//     DescribeNetworkInterfaces.
//   - model.go: the Model of VPCs and security groups: Options, New, AddVPC,
//     AddSecurityGroup, Authorize.
//   - reachability.go: Allows: whether security groups let a source reach a
//     port.
//   - rules.go: security-group rules: normalisation, validation and their
//     text.
//
// # The model
//
// [New] returns an empty [Model] for an account and a region. The world
// seeds it: [Model.AddVPC] (a non-default VPC and its IPv4 CIDR block),
// [Model.AddSecurityGroup] (a group with EC2's default egress rule and no
// ingress rule) and [Model.Authorize] (ingress rules, with the same
// validation and errors as AuthorizeSecurityGroupIngress).
// [Model.SecurityGroup] and [Model.VPC] read them back as the Describe
// calls show them.
//
// Network interfaces are not stored in the model: the simulated cluster
// owns the addresses, which churn with its nodes and pods. The world hands
// the model an [InterfaceSource] ([Model.SetInterfaceSource]; an
// [InterfaceFunc] is one), which lists [Interface] values: an ENI's VPC,
// subnet and zone, its private addresses (the first is the primary), its
// security group IDs, the instance it is attached to, and its type. Under
// the VPC CNI a node's ENI ([InterfaceTypeInterface]) carries its pods'
// addresses as secondary ones, with the node's groups; with security
// groups for pods a pod has a branch ENI ([InterfaceTypeBranch]) with its
// own groups and no instance. DescribeNetworkInterfaces calls the source
// anew each time, without holding the model's lock, and copies what it
// returns; without a source there is no interface.
//
// Each ingress rule is one protocol, one port range and one source (a CIDR
// block or a security group) with a security group rule ID (sgr-…), as EC2
// stores them; DescribeSecurityGroups folds them into IpPermissions by
// protocol and port range. Protocols are normalised as EC2 does: "6" is
// tcp, "-1" is all traffic (its ports are ignored).
//
// # Reachability
//
// [Model.Allows] answers whether a connection from a [Source] (its
// security groups, its address) to a destination's security groups passes
// their ingress rules, and says why: the rule that let it in, or "no
// ingress rule of sg-x, sg-y allows tcp/8080 from sg-lb". It is a pure
// function of the model's state.
//
// # The facade
//
// [NewClient] returns a [Client] of a model with the SDK's method set for
// the operations of [API]: DescribeVpcs, DescribeSecurityGroups (Filters
// group-id, group-name, vpc-id, description, owner-id, tag:<key>, tag-key
// and the ip-permission.* filters on CIDR blocks, groups, protocols and
// ports), DescribeNetworkInterfaces (NetworkInterfaceIds; Filters
// addresses.private-ip-address (any address), private-ip-address (the
// primary only), network-interface-id, vpc-id, subnet-id,
// availability-zone, group-id, group-name, attachment.instance-id,
// interface-type, description, owner-id and status; each interface with
// its groups named from the model's, "in-use", and an Attachment when it
// has an instance), AuthorizeSecurityGroupIngress and
// RevokeSecurityGroupIngress (by IpPermissions or SecurityGroupRuleIds).
// Filter values take the wildcards * and ?; the Describe calls sort by ID
// and page by MaxResults (5 to 1000) and NextToken. Errors are
// *smithy.GenericAPIError values with EC2's codes
// (InvalidGroup.NotFound, InvalidVpcID.NotFound,
// InvalidNetworkInterfaceID.NotFound, InvalidPermission.Duplicate,
// InvalidPermission.NotFound, MissingParameter, ...; see the Code
// constants), wrapped in a
// *smithy.OperationError as the SDK wraps them: classify them with
// errors.As and ErrorCode ([IsCode]). A nil Describe input is an empty
// request, as the SDK makes it; a nil Authorize or Revoke input fails with
// MissingParameter, as EC2 answers the SDK's empty request. DryRun answers
// DryRunOperation.
//
// The consumer-side roles are [Reader] (the three Describe calls),
// [IngressWriter] and [API]; *ec2.Client and *Client satisfy all three,
// and the SDK's paginators accept a Client.
//
// # Faults and counts
//
// [Client.Fail] fails every call of an operation, [Client.FailNext] the
// next n, [Client.Clear] disarms them; a faulted call never reaches the
// model. The ready-made errors are EC2's: [ErrUnauthorized]
// (UnauthorizedOperation), [ErrThrottled] (RequestLimitExceeded, which the
// SDK's standard retryer retries), [ErrUnavailable] (Unavailable) and
// [ErrInternal] (InternalError). [Client.Counts] counts calls by operation,
// faulted ones included.
//
// # Not modelled
//
// Default VPCs (so group names address nothing: use group IDs), egress
// rules beyond the default one (never evaluated), prefix lists, peered
// VPCs and other accounts' groups, network ACLs and routes, tags on VPCs,
// the IPv6 filters of DescribeVpcs, rate throttling and latency (inject
// RequestLimitExceeded instead), the propagation delay of rule changes,
// quotas on rules per group, and the characters EC2 allows in
// descriptions. Of network interfaces: IPv6 addresses, prefixes, public
// addresses and Elastic IP associations, MAC addresses, DNS names, tags,
// attachment details beyond the instance ID, statuses other than in-use,
// managed interfaces (IncludeManagedResources is ignored), and the other
// filters of DescribeNetworkInterfaces (InvalidParameterValue). The optFns
// arguments are ignored.
package ec2sim
