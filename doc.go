// Package tgmigrate moves hand-made AWS ALB target groups that pin static EKS
// node IPs (nodeIP:NodePort targets, often behind an API Gateway VPC Link) to
// target groups that the AWS Load Balancer Controller (LBC) keeps current
// through a TargetGroupBinding with targetType ip, with zero downtime while
// Karpenter keeps replacing nodes.
//
// The ALB, its listeners and the API Gateway routes stay as they are: the
// existing target group is handed to the LBC, not recreated.
//
// # Files
//
//   - doc.go: this comment: the package's files, its packages and seams.
//   - arn.go: [ARN], the typed ARN every input takes, [ARNError],
//     [ARNPart], and its constructors [ParseTargetGroupARN] and
//     [ParseLoadBalancerARN].
//   - elbv2.go: [ELBv2ReadAPI] and [ELBv2API], the read-only and read-write
//     ELBv2 interfaces every package takes, and the writer roles
//     [TargetWriter], [TargetGroupWriter] and [ListenerWriter].
//   - errors.go: the error sentinels, such as [ErrNotFound] and [ErrThrottled].
//   - healthcheck.go: [HealthCheck], the one model of a target group's
//     health check, its one conversion from the SDK ([HealthCheckOf]) and
//     its behaviour (Clone, ChangesFrom, Timing, IsZero, RequestFields).
//   - targetgroup.go: [TargetGroup] and [Target], the one model of a
//     target group and of a registered target, with their one conversion
//     from the SDK ([TargetGroupOf], [TargetOf]), and [TargetType] with its
//     constants.
//   - service.go: [ServicePort], the one model of a Service reference (a
//     Service port), and its one conversion from the Kubernetes Service,
//     [ServicePortOf].
//   - shapes.go: the shapes of the names and IDs a user gives
//     ([ValidTargetGroupName], [ValidRegion], [ValidAccountID],
//     [ValidVPCID], [ValidSecurityGroupID]), the packages' own checks, for
//     a program to check its input before any call.
//   - cluster.go: [Cluster], the one model of a cluster as the read paths
//     see it (diagnose.Cluster is an alias).
//   - scheme.go: [NewScheme] and [AddToScheme], the Kubernetes types the
//     packages read and write, for a real cluster's client.
//   - lbc.go: the AWS Load Balancer Controller's well-known names: its
//     owner tags ([TagLBCCluster] and the stack and resource tags), its
//     readiness gate ([LabelReadinessGateInject], [ReadinessGatePrefix]),
//     and the one stack-tag ownership rule, [LBCStacksIn].
//   - assumptions.go: [Assumptions], the AWS timings a plan is made under
//     (cutover.Request's, the test kit's World.Assumptions), their bounds
//     and defaults ([HealthyThreshold], [MaxDeregistrationLag] and the
//     others, [DefaultAssumptions]), their validation ([AssumptionError],
//     [ErrInvalidAssumption]), the safe pod settings and the JSON form;
//     internal/envelope aliases them.
//   - handoff.go: [Handoff], the typed handoff from diagnose to cutover
//     and tgbind (what the next call needs and what diagnose saw), its
//     parts [HandoffService] and [HandoffObservation], [Handoff.Validate],
//     [HandoffError] and [ErrInvalidHandoff].
//
// Tests: arn_example_test.go and scheme_example_test.go (the examples),
// errors_test.go, handoff_test.go, publicapi_test.go (no exported
// declaration of a public package names an internal package). Every
// example file of a public package copies alone into
// another module and passes there (hack/examplecopy proves it).
//
// ARCHITECTURE.md, at the repository root, is the map of the house: what
// each package is for, which way data flows, and where a thing lives.
//
// # The four steps, in the order a user takes them
//
//  1. Hand the existing target group to the AWS Load Balancer Controller
//     with a TargetGroupBinding (targetType ip), without recreating the
//     ALB or touching API Gateway.
//     [github.com/qstools/tgmigrate/diagnose] (read-only) finds ghost
//     targets, target groups that pin node IPs, their owners, the room a
//     cutover has under ELBv2's target quotas, and says which call comes
//     next; a PlanCutover call with nothing missing carries its argument
//     as a typed [Handoff]. [github.com/qstools/tgmigrate/tgbind] builds,
//     validates, applies and waits on the binding (API types in
//     [github.com/qstools/tgmigrate/tgbind/v1beta1]).
//     [github.com/qstools/tgmigrate/cutover] plans, executes and rolls
//     back the migration (cutover.RequestFrom makes its Request from a
//     [Handoff]): in place for ip target groups (bind in multi-cluster
//     mode, wait for healthy pod targets, deregister the node targets and
//     ghosts in guarded batches, drain, verify), blue/green for instance
//     target groups (a new ip target group, then weighted forwarding in
//     steps); the overlap of node and pod targets counted against
//     ELBv2's quotas; resumable from a journal, locked by a Lease, and
//     reversible from any point.
//  2. Align ports and health checks: diagnose reports the mismatches
//     (HealthCheckMismatch, the Service's ports), and cutover's plan
//     aligns the health check on the pods' readiness probe before any
//     target moves.
//  3. Put the controller's annotations into the Helm charts:
//     [github.com/qstools/tgmigrate/helmgov] checks the charts and fixes
//     their sources, so the next deploy does not go back to manual
//     targets.
//  4. Move the nodes to private subnets, once nothing pins a node IP:
//     [github.com/qstools/tgmigrate/subnets] checks readiness (read-only:
//     no pinned node IP in any scanned account, a private subnet with
//     room and egress in each zone, the load balancers' zones, the
//     security-group path, Karpenter's node classes, pools, budgets and
//     the replacement's estimate), then PlanMove, Execute and Rollback
//     patch the EC2NodeClasses to the private subnets and watch the
//     drift-driven replacement wave by wave, journaled, locked and
//     reversible.
//
// Across a fleet, [github.com/qstools/tgmigrate/campaign] plans steps 1
// and 2 for many target groups in many accounts and clusters as one plan
// (waves, limits per account, cluster and load balancer, an estimate, a
// digest, each target group's blast radius) and executes it over
// cutover.Execute with a campaign journal that several runners share; its
// progress (each running cutover's step, the ETA from the plan's
// estimates) and its final report (JSON with a schema, Markdown, the
// requests each cutover kept serving) read that journal from any machine.
//
// # What "zero downtime" means, measured
//
// Zero means: from Execute's start, no request fails that a call made at
// that start could have saved. Two kinds of loss are outside it, and
// every figure tgmigrate prints tells them apart. Requests under way at
// Execute's start: sent, within the deregistration lag of that start, to
// a target whose node Karpenter had begun to replace before it (a ghost,
// or a node already draining); a load balancer keeps sending a target
// requests for the lag after its deregistration, so no tool can save
// them, and cutover's Execute retires such targets as its first act so
// that nothing more is lost to them. And the residual of forceful
// disruption nothing foresees: a spot interruption, whose instance goes
// two minutes after its notice, against a lag of up to two minutes. An
// expiry is foreseen: the plan names the nodes that expire during the run
// (a forceful-disruption precondition) and Execute replaces them first.
//
// The simulator's envelope measures it (go run ./examples/tgmigrate
// simulate --envelope: 5 churn shapes x 5 seeds x 16 points of AWS
// timings, every plan at the product's defaults, not told the world's):
// under steady, wave and consolidation churn, and under expiry with the
// nodes replaced first, phased lost nothing else at any of the 320 runs;
// under steady churn, up to 9 requests were under way at Execute's start
// (20 of 80 runs, all at a 120 s lag); under spot, up to 3 in the cutover
// and 135 after it (the pods the controller deregisters when EC2 takes
// their node). Doing nothing lost 297 to 16,415 requests at every point.
// In worlds worse than the plan assumes (a 3-minute lag), reported apart,
// the pods' safe preStop no longer covers the lag. The README's tour and
// its table of the claim have the figures per shape.
//
// To test automation built on these packages,
// [github.com/qstools/tgmigrate/tgmigratetest] is the test kit: a simulated
// account and cluster under Karpenter churn, on a virtual clock, whose
// clients go straight into diagnose, tgbind and cutover.
//
// # Seams
//
// Every package takes AWS through narrow interfaces whose methods copy the
// aws-sdk-go-v2 signatures, so *elasticloadbalancingv2.Client fits with no
// adapter. The ELBv2 ones are declared once, here: read-only paths
// (diagnose, tgbind) take [ELBv2ReadAPI], which has no write method, and
// cutover's Execute and Rollback take [ELBv2API], which embeds it; each
// package's ELBv2API is an alias of one of the two. Kubernetes goes through
// controller-runtime's client.Reader (reads) and client.Client (writes).
// Time goes through k8s.io/utils/clock and logs through logr.
//
// # Errors
//
// AWS failures are classified in one place and unwrap to the sentinels this
// package re-exports, such as [ErrNotFound] and [ErrThrottled]. A failure of
// the wire itself (no AWS answer could be read) unwraps to [ErrTransport], a
// narrower [ErrUnknown]. Malformed or foreign ARNs give an [*ARNError] that
// names the [ARNPart] at fault and unwraps to [ErrARNMalformed],
// [ErrARNService] or [ErrARNResourceType] (each of them an [ErrInvalidARN]),
// or to [ErrWrongRegion] (an [ErrWrongAccount]) or [ErrWrongAccount].
//
// # Internals
//
//   - internal/awserr: AWS error classification and ARN parsing (the one
//     place AWS errors are interpreted).
//   - internal/envelope: the AWS timing assumptions a plan is made under
//     (cutover.Assumptions), and the pod settings that are safe across
//     them: what cutover's pod-settings precondition asks for and what
//     helmgov's TGM-H008/H009 write are its numbers.
//   - internal/kube: LBC discovery (is the CRD served, is the webhook
//     registered), and the one Service getter and Service port lookup.
//   - internal/karpenterapi: the part of Karpenter v1's API tgmigrate
//     reads and writes (EC2NodeClass, NodePool, NodeClaim, selector terms,
//     budgets) and our own structural CRDs of it, shared by subnets, the
//     simulator's Karpenter and envtest.
//   - internal/netcheck: the one reading of route tables (internet
//     gateway, NAT) and of security-group rules, shared by diagnose,
//     cutover and subnets. internal/nilcheck: the typed-nil check.
//     internal/textcell: the text helpers diagnose's and subnets' reports
//     render with.
//   - internal/mocks: the one generated gomock of [ELBv2API], which the
//     packages' tests share.
//   - internal/arntest: the typed ARNs the packages' tests build their
//     inputs from (parsed, or hand-made to be refused).
//   - internal/retry: every wait and retry, backoff/v4 on an injected clock.
//   - internal/vclock: the deterministic virtual clock simulations run on.
//   - internal/testenv: the envtest control plane of the integration tier.
//   - internal/sim: the Karpenter churn simulator the scenario tests and the
//     demo run on (ELBv2 model, Go facade, traffic, cluster, Karpenter, the
//     LBC stand-in); internal/sim/timing holds every AWS timing it assumes,
//     with its documented default and range, and the envelope simulate
//     -envelope sweeps; internal/sim/elbv2wire serves it over the ELBv2 Query
//     protocol so the real AWS SDK client runs end to end, and
//     internal/sim/elbv2wire/wiretest puts the packages' gomock suites
//     behind it.
//
// # Examples
//
// examples/tgmigrate is the command-line tool built on these packages:
// diagnose, plan, execute, rollback, bind, helm check and fix, and simulate,
// which runs the whole story on the simulator with no AWS account and no
// cluster: go run ./examples/tgmigrate simulate.
package tgmigrate
