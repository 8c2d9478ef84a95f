// Package elbv2model is the simulated Elastic Load Balancing v2 service the
// churn simulator runs on: the state machine of one account and region,
// kept apart from any facade. Its operations take and return the
// aws-sdk-go-v2 elasticloadbalancingv2 Input and Output types and fail with
// the SDK's typed exceptions, so the Go-interface facade (package elbv2sim)
// and a later wire-protocol facade serve the same state with no second model.
//
// # Files
//
//   - doc.go: this comment.
//   - actions.go: listener and rule actions and conditions: validation and
//     copies.
//   - arn.go: ARNs: minting, their kinds, TargetGroupARNPattern.
//   - attributes.go: target group attributes: ranges, defaults, describe and
//     modify.
//   - errors.go: ELBv2's error codes as the SDK's typed errors.
//   - health.go: the target health state machine: registration, health checks,
//     draining, instance termination.
//   - healthcheck.go: health-check settings, their defaults and matchers.
//   - loadbalancer.go: load balancers, listeners and rules, each load
//     balancer's high-water mark of targets (PeakTargets), and the
//     registrations its target quota refused (QuotaRefusals).
//   - model.go: the Model: Options, Quotas, New and its accessors, AddVPC
//     (a second cluster's VPC in the same service) and TargetGroupVPC.
//   - network.go: the Network seam: Network, InstanceResolver, Answer,
//     ProbeResult.
//   - paging.go: paging markers.
//   - routing.go: routing through a listener: Route, Selection, the routable
//     targets.
//   - tags.go: AddTags and DescribeTags.
//   - target.go: a target's state, Transition, TargetView, Targets and
//     TargetGroupARNs.
//   - targetgroup.go: target groups: create, modify, delete, describe.
//   - targets.go: RegisterTargets, DeregisterTargets, DescribeTargetHealth.
//   - zones.go: Availability Zones: a load balancer's enabled zones, the
//     zone source, and the targets parked in a zone no load balancer
//     serves.
//
// # Seam
//
// [Network] is where the model meets the simulated cluster: health checks
// call Probe, the traffic model calls Serve, RegisterTargets calls InVPC
// (when [Options].VPCs does not give the VPC's CIDR). The model never calls
// the Network while it holds its lock. A Network that also implements
// [InstanceResolver] makes instance targets usable.
//
// # Operations
//
// SDK-shaped, one method per ELBv2 operation: DescribeTargetGroups,
// DescribeTargetHealth, DescribeTargetGroupAttributes, DescribeTags,
// DescribeLoadBalancers, DescribeListeners, DescribeRules, RegisterTargets,
// DeregisterTargets, CreateTargetGroup, ModifyTargetGroup,
// ModifyTargetGroupAttributes, DeleteTargetGroup, AddTags, ModifyListener,
// ModifyRule. Every request is validated in full before anything changes.
//
// Setup helpers that are not SDK calls build the load balancer a scenario
// needs: [Model.AddLoadBalancer], [Model.AddListener], [Model.AddRule],
// [Model.SetSecurityGroups], [Model.SetLoadBalancerZones] (read back with
// [Model.LoadBalancerZones]), and the world's [Model.SetZoneSource].
//
// Events from the rest of the world: [Model.InstanceTerminated].
//
// Reads for tests and reports: [Model.PeakTargets], a load balancer's most
// targets at once, counted as its TargetsPerLoadBalancer quota is;
// [Model.QuotaRefusals], when that quota refused a RegisterTargets on a
// target group.
//
// Read-only views for tests, reports and the traffic model:
// [Model.Targets], [Model.TargetGroupARNs], [Model.Route],
// [Model.RoutingVersion], [Model.AppendRoutable], [Model.PickRoutable], and
// the [Options].OnTransition hook, which reports every change of a target's
// state.
//
// # Target lifecycle
//
// All on the virtual clock, as world events:
//
//   - RegisterTargets: the target is initial / Elb.RegistrationInProgress for
//     the registration delay ([DefaultRegistrationDelay], 10 s, configurable),
//     then initial / Elb.InitialHealthChecking. It is checked at once and then
//     every HealthCheckIntervalSeconds. If its target group is used by no
//     load balancer it is unused / Target.NotInUse instead, and is not
//     checked until a listener or rule forwards to the group.
//   - A check probes IP:port, where port is the target's port when
//     HealthCheckPort is "traffic-port" and the fixed HealthCheckPort
//     otherwise (so a health-check port pinned to a NodePort fails pod
//     targets), on HealthCheckPath. A new target turns healthy after
//     Options.NewTargetChecks consecutive passes (one by default, as the ALB
//     user guide says; [HealthyThreshold] for HealthyThresholdCount); a
//     target that was healthy needs HealthyThresholdCount passes to be
//     healthy again. UnhealthyThresholdCount consecutive failures make it
//     unhealthy with the reason of the last failure: Target.Timeout (nothing
//     answers at the IP), Target.FailedHealthChecks (connection refused),
//     Target.ResponseCodeMismatch (a code the matcher rejects).
//   - DeregisterTargets: draining / Target.DeregistrationInProgress for the
//     target group's deregistration_delay.timeout_seconds, unchecked, then
//     gone. Registering it again while draining starts a new registration.
//     With Options.DeregistrationLag, a target that took requests when it
//     was deregistered stays in the load balancer's rotation for the lag, as
//     if healthy, even after it has left the group: the load balancer's
//     nodes have not all learnt of the deregistration yet. Registering it
//     again, or its instance's termination, ends that at once.
//   - Availability Zones: a load balancer has every zone enabled until
//     [Model.SetLoadBalancerZones] names its zones and their subnets
//     (DescribeLoadBalancers then lists them as AvailabilityZones; with
//     every zone enabled it lists none, as the model knows no subnet).
//     With a zone source ([Model.SetZoneSource], the cluster's ZoneOf), a
//     target whose address is in a zone its target group's load balancer
//     has not enabled is unused / Target.NotInUse, described "Target is in
//     an Availability Zone that is not enabled for the load balancer":
//     not checked, no requests. It starts registration again when the
//     zone is enabled. An ip target registered with AvailabilityZone all
//     is never parked for its zone; an address the source knows no zone
//     for, and every target without a zone source, neither. An instance
//     target's zone is that of its resolved private IP, which lies in the
//     instance's subnet. The zone is read when a target is registered or
//     becomes used, and whenever the zones or the zone source change.
//   - DescribeTargetHealth with a Targets filter reports an unregistered
//     target as unused / Target.NotRegistered.
//   - [Model.InstanceTerminated] (EC2 telling ELB an instance is gone):
//     that instance's targets become unused / Target.InvalidState at once,
//     take no requests and are no longer checked, and stay registered.
//     IP targets on the same address are not affected (the seed's ghosts).
//
// Targets are identified by (Id, Port). DeregisterTargets without the Port
// of a target registered on another port than the group's succeeds and does
// nothing, as AWS does. An IP outside the VPC fails with InvalidTarget.
//
// # Limits and errors
//
// Health-check ranges (interval 5-300 s, timeout 2-120 s and smaller than
// the interval, thresholds 2-10, matcher codes 200-499), attribute ranges
// (deregistration delay 0-3600, slow start 0 or 30-900), paging (PageSize
// 1-400 with Marker), DescribeTags (at most 20 ARNs), forward actions (at
// most 5 target groups, weights 0-999, a target group used by one load
// balancer only) and the default quotas ([Quotas]: 1,000 targets per group
// and per load balancer, 3,000 groups per region, 100 groups per load
// balancer, 100 registrations of one target per load balancer, 50 tags).
// Failures carry the codes AWS uses: TargetGroupNotFound, InvalidTarget,
// TooManyTargets, TooManyRegistrationsForTargetId, ResourceInUse,
// InvalidConfigurationRequest, TargetGroupAssociationLimit,
// TooManyTargetGroups, DuplicateTargetGroupName, ValidationError, and the
// typed not-found exception of each resource kind for unknown ARNs. The
// codes follow the error lists of the API reference; which of
// ValidationError, InvalidConfigurationRequest and InvalidLoadBalancerAction
// AWS returns for each individual parameter check was not verified one by one.
//
// # Routing
//
// [Model.Route] resolves a listener's default action or a rule into its
// weighted target groups. [Model.AppendRoutable] returns the targets that
// take new requests ([Model.PickRoutable] picks one of them without
// copying): the healthy ones and those still in the rotation for the
// deregistration lag, or, when fewer are healthy than the target group's
// target_group_health.unhealthy_state_routing.minimum_healthy_targets.count
// (default 1), every healthy and unhealthy one (fail open), and the initial
// ones too with Options.FailOpenInitial. Otherwise initial, draining and
// unused targets (a target parked for its zone among them) never take new
// requests.
//
// # Not modelled
//
//   - Network and Gateway Load Balancers, and target groups that are not
//     HTTP/HTTPS of type ip or instance (lambda, alb, TCP, GENEVE, gRPC,
//     IPv6); such requests fail with a ValidationError that says so.
//   - Authentication actions, HTTPS listeners and certificates, rule
//     transforms: rejected with a ValidationError.
//   - Rule conditions are stored but not evaluated: traffic names the rule
//     it goes through.
//   - Cross-zone load balancing and the load balancer's own nodes per zone
//     (a served target takes requests whatever zone they enter by);
//     subnets are not checked against EC2. Stickiness, slow start and the
//     load-balancing algorithm are stored attributes with no effect on
//     routing.
//   - The health-check timeout: a probe's result counts at the check's
//     instant. unhealthy.draining, unavailable and anomaly detection.
//   - The propagation delay of listener and rule changes: they take effect
//     at once.
//   - Deletion of load balancers, listeners and rules; RemoveTags.
package elbv2model
