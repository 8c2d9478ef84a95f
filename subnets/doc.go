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
//     before any call (diagnose.Validate for the gate's), the reads (the
//     cluster listed once through internal/read's ListCluster, for the
//     gate and the checks alike, and ListUnstructured; EC2 and ELBv2
//     through its Caller and the SDK's paginators), the checks in order,
//     the verdict.
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
//   - render.go: [Readiness.JSON], [Readiness.Markdown], [Readiness.Text]
//     (in diagnose.TextColumns, what does not fit under its table).
//     schema.go: [ReadinessSchema] (schema/readiness.v1.json).
//   - options.go: [WithClock], [WithLogger], [WithRateLimit],
//     [WithMaxAttempts].
//   - errors.go: [ErrInvalidInput] and [InputError].
//
// The move half (writes):
//   - plan.go: the move's plan as data (Plan, Step, NodeClassChange,
//     NodePoolChange, WatchedTargetGroup, PlanRef), PlanMove and its
//     options (MoveBudget, MaxAge, PlanClock), the digest and Validate.
//   - plan_text.go: the plan's renderings: Text, JSON, and DecodePlan.
//   - move.go: Execute, Env, MoveOption, Observer, Result, the runner
//     (lock, journal, steps) and the guarded writes.
//   - watch.go: the watch of the replacement, wave by wave, with the
//     invariants (it lists only the moved classes' and pools' nodes, by
//     label selector), and the verification that every node is private.
//   - rollback.go: Rollback.
//   - journal.go: MoveState, StepState, the Journal interface and
//     ConfigMapJournal.
//   - permissions.go: the IAM actions and RBAC rules, as data.
//   - move_errors.go: the move's sentinels and error types (ErrNotReady,
//     *NotReadyError, *DriftedObjectError, *InvariantError, ...).
//
// Example: example_test.go (CheckReadiness on fakes of its inputs; it
// copies alone into another module).
//
// # Readiness
//
// [CheckReadiness] reads one cluster and its account, changes nothing (its
// clients hold no write: [EC2API], [ELBv2API] and a client.Reader), and
// returns a [Readiness]: one report per cluster. The cluster is listed
// once: nodes, pods, Services, namespaces, TargetGroupBindings and
// NodeClaims, one list each, serve both the gate (diagnose is given the
// listing as a snapshot, diagnose.WithSnapshot, and lists nothing) and
// the checks; then EC2NodeClasses, NodePools and PodDisruptionBudgets,
// one list each. Each failed check is a
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
//
// # The move
//
// Step 4 ends with the move itself: PlanMove turns a Ready report into a
// Plan, and Execute runs it.
//
//	p, err := subnets.PlanMove(ctx, readiness, subnets.MoveBudget("1"))
//	fmt.Print(p.Text())               // approve it; p.JSON() stores it
//	env := subnets.Env{Client: kc, ELBv2: elb, Namespace: "tgmigrate", Clock: clk, Logger: log}
//	res, err := subnets.Execute(ctx, p, env)
//	// later, or after a hold: subnets.Rollback(ctx, p, env)
//
// The plan is data, a no-op until executed: PlanMove reads nothing and
// holds no client. It refuses a report that is not Ready, or holds a
// finding of severity high or critical (a *NotReadyError naming the
// codes, errors.Is ErrNotReady), one older than MaxAge (default one hour;
// a *StaleReadinessError), and a nil or malformed report or option (a
// *MoveInputError). Its steps, in order:
//
//  1. tighten-budgets (only with MoveBudget): write a budget of the
//     given nodes for reason Drifted IN FRONT of each NodePool's budgets.
//     Karpenter applies the smallest budget that applies, so this never
//     loosens a pool, and the pool's budgets for other reasons stay. A
//     pool with no budgets gets Karpenter's default (10%) written out
//     beside the move's, so other reasons keep it.
//  2. patch-node-classes: spec.subnetSelectorTerms = the report's
//     SelectorTerms, spec.associatePublicIPAddress = false, every other
//     field kept (internal/karpenterapi.SetSubnetSelection). The fields as
//     read are in the plan: what Rollback restores.
//  3. watch-replacement: the nodes that will drift are recorded (every
//     node of a class whose associatePublicIPAddress changes, else those
//     public or outside the new selection); the watch polls on the
//     injected clock (WithPollInterval) until all have left, within
//     WithTimeout. Each poll lists only the nodes of the plan's node
//     classes and pools (two disjoint label selectors: the plan's
//     NodePools, and the moved classes' nodes outside them), never the
//     whole cluster's nodes and never a pod: a node departs when its Node
//     object is gone, and the invariants rest on the target groups'
//     health. A wave is a round of departures. At every poll each
//     watched target group must keep its healthy targets at or above its
//     Floor (a dip shorter than WithFloorGrace is tolerated) and have no
//     target unused (Target.NotInUse) or in a zone its load balancers do
//     not enable. A violation holds the move: the step is journaled held
//     with the violations, and an *InvariantError says where.
//  4. verify-private: no node of the cluster has an ExternalIP, and every
//     InternalIP is in one of the plan's private subnets (a *VerifyError
//     names the nodes); this step lists every node of the cluster, once. Managed node groups are not automated: their
//     manual steps are the plan's notes, and this step fails until their
//     nodes are private too.
//  5. restore-budgets: each NodePool's budgets back as read.
//
// Execute writes through a controller-runtime client with an optimistic
// guard: before any write every object must hold the fields as read or as
// planned (else a *DriftedObjectError naming it, and nothing is written),
// and each write is an Update under the resourceVersion just read. It holds
// a Lease (cutover.NewNamedLeaseLock, named JournalName(cluster) in
// Env.Namespace) and journals each step pending, running, done, failed or
// held in a ConfigMap of the same name (ConfigMapJournal: resourceVersion
// preconditions, a *JournalConflictError on a lost update, a schemaVersion,
// unknown fields refused). A re-run of the same plan continues where it
// stopped; another plan's journal is a *PlanMismatchError. WithDryRun
// checks everything and returns the writes it would make, writing nothing.
//
// Rollback writes each EC2NodeClass back as read, watches the replacement
// back with the same invariants, then writes the budgets back; it is
// journaled beside the move and resumable, and may be given the journal
// alone (a nil plan and WithJournal). After it, Execute refuses the plan
// (ErrRolledBack).
//
// Least privilege as data: ReadinessIAMActions, MoveIAMActions (only
// elasticloadbalancing:DescribeTargetHealth: Karpenter launches the
// instances), ReadinessClusterRules, MoveClusterRules and
// MoveNamespaceRules (rbacv1.PolicyRule values).
package subnets
