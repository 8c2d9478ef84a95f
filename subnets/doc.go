// Package subnets is step 4 of the migration: moving a cluster's nodes
// from public to private subnets, checked before anything moves.
//
// # Files
//
// The readiness half (read-only):
//   - doc.go: this comment.
//   - api.go: the read-only clients [CheckReadiness] takes: [EC2API] and
//     [ELBv2API] (the root's ELBv2ReadAPI).
//   - readiness.go: [Input], [CheckReadiness] and its run: validation
//     before any call, the reads (the cluster through internal/read's
//     ListCluster and ListUnstructured; EC2 and ELBv2 through its Caller
//     and the SDK's paginators), the checks in order, the verdict.
//   - readiness_types.go: the report: [Readiness], [Subnet],
//     [ZoneReport], [NodeClassReport], [NodePoolReport],
//     [NodeGroupReport], [BoundTargetGroup], [Estimate].
//   - check_rules.go: [Rules] and [RuleFor], the fixed part of each code,
//     and the making of a finding.
//   - check_pinned.go: the gate (NodeIPsPinned, PinnedNotChecked).
//   - check_subnets.go: private subnets, room and egress (SubnetsNotRead,
//     SubnetNotEligible, NoPrivateSubnet, SubnetTooSmall, NoEgress).
//   - check_loadbalancers.go: the load balancers' zones (ZoneNotEnabled),
//     and the bound target groups.
//   - check_securitygroups.go: the path from the load balancers to the
//     pods' port (SecurityGroupPath), and what spec.networking manages.
//   - check_karpenter.go: node classes, pools, budgets, node groups and
//     the estimate (DriftBlocked, ManagedNodeGroup, SelfManagedNodes).
//   - render.go: [Readiness.JSON], [Readiness.Markdown], [Readiness.Text].
//     schema.go: [ReadinessSchema] (schema/readiness.v1.json).
//   - options.go: [WithClock], [WithLogger], [WithRateLimit],
//     [WithMaxAttempts].
//   - errors.go: [ErrInvalidInput] and [InputError].
//
// Example: example_test.go (CheckReadiness on fakes of its inputs; it
// copies alone into another module).
//
// # Readiness
//
// [CheckReadiness] reads one cluster and its account, changes nothing (its
// clients hold no write: [EC2API], [ELBv2API] and a client.Reader), and
// returns a [Readiness]: one report per cluster. Each failed check is a
// diagnose.Finding with one of this package's codes ([Rules]), its
// evidence, its remediation and its next call (diagnose.OpManual with the
// AWS-side fix in its Reason, or, for a pinned target group, diagnose's
// PlanCutover call). The report is Ready when no finding is high or
// critical; PlanMove refuses one that is not.
//
// The checks, in order:
//
//	code               severity  check
//	NodeIPsPinned      critical  the gate: diagnose.Diagnose (scope All) over the cluster's account and Input.Accounts finds no StaticNodeTarget; one finding per target group, whose next call is diagnose's PlanCutover
//	PinnedNotChecked   high      diagnose could scan nothing: the gate is unknown
//	SubnetsNotRead     high      the VPC's subnets or route tables could not be read
//	SubnetNotEligible  high      a subnet Input.PrivateSubnets selects is public, or an id names no subnet of the VPC
//	NoPrivateSubnet    high      a zone the nodes use has no private subnet (route table without 0.0.0.0/0 to igw-…, MapPublicIpOnLaunch false)
//	SubnetTooSmall     high      a zone's private subnets have fewer free addresses than Need = its nodes + their pods that are not hostNetwork (the VPC CNI gives each an address)
//	NoEgress           high      a private subnet has no 0.0.0.0/0 route to a NAT gateway and lacks an available endpoint of com.amazonaws.<region>.ecr.api, .ecr.dkr, .s3 (Interface, or Gateway on its route table), .sts or .ec2; the missing ones are named
//	ZoneNotEnabled     high      a load balancer of a target group bound in the cluster (TargetGroupBinding) does not enable a zone of the chosen subnets (DescribeLoadBalancers' AvailabilityZones): its targets there would be unused, Target.NotInUse
//	SecurityGroupPath  high      the moved node class's security groups (status.securityGroups) let no load balancer security group reach the pods' target port, and the binding's spec.networking does not manage it
//	DriftBlocked       high      a moved NodePool's budgets allow 0 Drifted disruptions
//	ManagedNodeGroup   medium    nodes of an EKS managed node group: the steps to take by hand (create a node group in the private subnets, cordon and drain the old, delete it)
//	SelfManagedNodes   medium    nodes no NodePool and no node group owns: the steps to take by hand
//
// The private subnets are Input.PrivateSubnets' (Karpenter's selector
// rule: terms ORed, tags ANDed, "*" any value), or, when nil, every
// private subnet of the VPC in a zone the nodes use; [Readiness].SelectorTerms
// are the terms the move writes. The node classes moved are the
// EC2NodeClasses (Input.NodeClasses' when given) whose terms select a
// public subnet or that set associatePublicIPAddress true.
//
// Security groups for pods (a pod annotated vpc.amazonaws.com/pod-eni)
// keep their own groups, which the move does not change: their path is
// not judged, and a note says so.
//
// # Estimate
//
// [Estimate] is what the drift-driven replacement takes: every node of a
// moved NodePool drifts (the move sets associatePublicIPAddress, which
// changes the node class's hash); a pool replaces at most its budgets'
// Drifted allowance at once (internal/karpenterapi.AllowedDisruptions,
// percentages rounded up, scheduled budgets counted as active), so it
// takes ceil(nodes/allowed) waves; the pools' waves add up (an upper
// bound); and Duration = Waves × (Launch + Drain). Launch and Drain are
// assumptions: Input.LaunchTime and Input.DrainTime, or
// [DefaultLaunchTime] (3 min: a node's launch until Ready) and
// [DefaultDrainTime] (5 min: its pods' graceful stop and the default
// deregistration delay of 300 s). Estimate.Assumptions names each, and
// the text form prints them.
//
// # Errors and partial results
//
// A nil or typed-nil client, an empty cluster name, a malformed account
// ID, Region or VPC ID, an empty or double selector term, an empty node
// class name, a negative time, a bad option, or a malformed extra account
// (diagnose's own validation, renamed to Input.Accounts) is an
// [*InputError] before any call. An AWS read the service refuses
// (UnauthorizedOperation, AccessDenied) or fails after its retries is a
// note, and the other checks still run; a check that then has nothing to
// stand on is a finding (SubnetsNotRead, PinnedNotChecked). A Karpenter
// kind the cluster does not serve is a note. A listing of nodes, pods,
// Services or TargetGroupBindings that fails, and the end of ctx, are
// errors. No SDK output is dereferenced before internal/read's guard has
// turned a nil one into an error.
package subnets
