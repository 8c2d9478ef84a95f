// Package ec2sim is the simulated EC2 network API: the VPCs and security
// groups of the world, with the SDK's own types (ec2types.IpPermission,
// ec2types.SecurityGroup, ec2types.Vpc), its subnets, route tables and VPC
// endpoints, the network interfaces that carry the groups to addresses,
// the instances behind the nodes, the reachability rule the simulator
// applies to traffic, and a Go facade with the SDK's signatures, call
// counts and faults. The AWS Load Balancer Controller stand-in opens
// security groups to its targets through it, cutover's planner reads
// them, the private-subnet readiness checks read the subnets, their routes
// and the endpoints, and diagnose's public-subnet check the instances and
// the route tables; package elbv2wire
// serves it on the wire in EC2's Query protocol for the real *ec2.Client.
//
// # Files
//
//   - doc.go: this comment.
//   - api.go: the narrow interfaces the Client satisfies: Reader,
//     NetworkReader, InstanceReader, IngressWriter, API.
//   - client.go: the Client: EC2 operations with the SDK's signatures, and
//     call counts.
//   - describe.go: DescribeVpcs and DescribeSecurityGroups on the model, and
//     the paging of every Describe call.
//   - describe_network.go: DescribeSubnets, DescribeRouteTables and
//     DescribeVpcEndpoints on the model, their filters, and the read-backs
//     Subnet, RouteTable, RouteTableFor and VpcEndpoint.
//   - errors.go: EC2's error codes, the errors the Client returns, and the
//     package's own errors.
//   - faults.go: fault injection on the Client: Fail, FailNext, Clear.
//   - filters.go: the Describe calls' filters.
//   - interfaces.go: network interfaces (Interface, InterfaceSource) and
//     DescribeNetworkInterfaces.
//   - instances.go: instances (Instance, InstanceSource) and
//     DescribeInstances.
//   - model.go: the Model of VPCs and security groups: Options, New, AddVPC,
//     AddSecurityGroup, Authorize.
//   - network.go: the network's layout: subnets (AddSubnet), route tables
//     (AddRouteTable, SetRoutes) and VPC endpoints (AddVpcEndpoint), and
//     their validation.
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
// The network's layout is seeded the same way, each call validated whole
// before it changes anything (an [*OptionsError] naming the field at
// fault otherwise):
//
//   - [Model.AddSubnet]: a subnet of a VPC ([SubnetSpec]) in one
//     Availability Zone of the model's region, its IPv4 block (/16 to /28)
//     inside the VPC's and overlapping no other subnet's, whether it maps
//     public addresses on launch, its tags, and Available, the source of
//     its free address count: the world's cluster, called anew by every
//     DescribeSubnets without the model's lock; without it, the block's
//     size less the 5 addresses AWS reserves. Its zone ID is derived from
//     the zone's name ("euw1-az1" for eu-west-1a) unless given.
//   - [Model.AddRouteTable]: a route table ([RouteTableSpec]), the VPC's
//     main one or not, its explicit subnet associations (a subnet has at
//     most one) and its routes ([Route]: an IPv4 destination and exactly
//     one target, an internet or virtual private gateway, a NAT gateway, a
//     transit gateway, a network interface or a peering connection). The
//     model adds the local route to the VPC's block to every table, first.
//     A subnet without an explicit association is routed by its VPC's main
//     table ([Model.RouteTableFor]); as in EC2, the main table does not
//     list it. [Model.SetRoutes] replaces a table's routes, as a broken
//     world loses its NAT gateway.
//   - [Model.AddVpcEndpoint]: an Interface endpoint (in subnets of the
//     VPC, one per zone, with or without private DNS) or a Gateway one
//     (on route tables of the VPC), of a service name, in a state
//     (available unless told). DescribeVpcEndpoints spells states as EC2
//     does, "available", "pendingAcceptance", which is not the spelling
//     of the SDK's ec2types.State constants ("Available"): compare them
//     with strings.EqualFold.
//
// IDs are the caller's ("subnet-private-eu-west-1a", with hyphens, reads
// well in a report) or, when empty, generated as EC2's are
// (rtb-<17 hex digits>). [Model.Subnet], [Model.RouteTable] and
// [Model.VpcEndpoint] read them back as the Describe calls show them.
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
// Instances are not stored either: the world hands the model an
// [InstanceSource] ([Model.SetInstanceSource]; an [InstanceFunc] is one),
// which lists [Instance] values, one per node: its ID, state, type, VPC,
// subnet, zone, private address and DNS name, security groups, tags and
// launch time. DescribeInstances answers each in a reservation of its
// own.
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
// has an instance), DescribeInstances (InstanceIds; Filters instance-id,
// instance-state-name, instance-state-code, instance-type, vpc-id,
// subnet-id, availability-zone, private-ip-address, private-dns-name,
// instance.group-id, tag:<key>, tag-key and owner-id; one reservation per
// instance), DescribeSubnets (SubnetIds; Filters vpc-id, subnet-id,
// availability-zone, availability-zone-id, cidr-block,
// map-public-ip-on-launch, default-for-az, state, owner-id, subnet-arn,
// tag:<key>, tag-key, and EC2's other spellings availabilityZone, cidr,
// cidrBlock...), DescribeRouteTables (RouteTableIds; Filters vpc-id,
// route-table-id, association.subnet-id, association.main,
// association.route-table-id, association.route-table-association-id,
// route.destination-cidr-block, route.gateway-id, route.nat-gateway-id,
// route.transit-gateway-id, route.vpc-peering-connection-id, route.origin,
// route.state, owner-id, tag:<key>, tag-key), DescribeVpcEndpoints
// (VpcEndpointIds; Filters vpc-id, service-name, vpc-endpoint-type,
// vpc-endpoint-state, vpc-endpoint-id, tag:<key>, tag-key),
// AuthorizeSecurityGroupIngress and RevokeSecurityGroupIngress (by
// IpPermissions or SecurityGroupRuleIds). Filter values take the
// wildcards * and ?; the Describe calls sort by ID and page by MaxResults
// and NextToken: 5 to 1000 (DescribeRouteTables 5 to 100;
// DescribeVpcEndpoints at least 1, more than 1000 answering 1000). Errors
// are
// *smithy.GenericAPIError values with EC2's codes
// (InvalidGroup.NotFound, InvalidVpcID.NotFound,
// InvalidNetworkInterfaceID.NotFound, InvalidInstanceID.NotFound, InvalidSubnetID.NotFound,
// InvalidRouteTableID.NotFound, InvalidVpcEndpointId.NotFound,
// InvalidPermission.Duplicate,
// InvalidPermission.NotFound, MissingParameter, ...; see the Code
// constants), wrapped in a
// *smithy.OperationError as the SDK wraps them: classify them with
// errors.As and ErrorCode ([IsCode]). A nil Describe input is an empty
// request, as the SDK makes it; a nil Authorize or Revoke input fails with
// MissingParameter, as EC2 answers the SDK's empty request. DryRun answers
// DryRunOperation.
//
// The consumer-side roles are [Reader] (DescribeVpcs,
// DescribeSecurityGroups, DescribeNetworkInterfaces), [NetworkReader]
// (DescribeSubnets, DescribeRouteTables, DescribeVpcEndpoints),
// [InstanceReader] (DescribeInstances), [IngressWriter] and [API];
// *ec2.Client and *Client satisfy all five, and
// the SDK's paginators accept a Client.
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
// VPCs and other accounts' groups, network ACLs, tags on VPCs,
// the IPv6 filters of DescribeVpcs, rate throttling and latency (inject
// RequestLimitExceeded instead), the propagation delay of rule changes,
// quotas on rules per group, and the characters EC2 allows in
// descriptions. Of network interfaces: IPv6 addresses, prefixes, public
// addresses and Elastic IP associations, MAC addresses, DNS names, tags,
// attachment details beyond the instance ID, statuses other than in-use,
// managed interfaces (IncludeManagedResources is ignored), and the other
// filters of DescribeNetworkInterfaces (InvalidParameterValue). Of
// instances: everything but the fields above (no AMI, key pair, block
// devices, network interfaces, public addresses, state reasons), the
// other filters of DescribeInstances (InvalidParameterValue), and
// IncludeAllInstances-like options; a terminated instance is listed for as
// long as its source lists it. Of the
// network's layout: IPv6 (blocks, routes, IPv6-only subnets), prefix lists
// (so a Gateway endpoint adds no route to its tables: read its
// RouteTableIds), route propagation, blackhole routes (every route is
// active) and routes' reachability (a route's target need not exist),
// gateway and edge associations, Local Zones and Outposts, default
// subnets, NACLs, an Interface endpoint's network interfaces, security
// groups, DNS entries, policy and creation time, the Malformed codes of
// subnet, route table and endpoint IDs (an unknown one is NotFound,
// whatever its form), the filters of the three calls not listed above
// (InvalidParameterValue: available-ip-address-count,
// route.destination-prefix-list-id, ip-address-type...), and changes to a
// subnet or an endpoint once added. The optFns arguments are ignored.
package ec2sim
