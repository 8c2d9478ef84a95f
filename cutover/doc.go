// Package cutover plans, executes and rolls back the zero-downtime move of a
// target group from hand-registered node targets (nodeIP:NodePort) to
// LBC-managed pod targets, while Karpenter keeps replacing nodes.
//
// It is the only package whose [ELBv2API] can change AWS.
//
// # Files
//
// The package's files, by role (Strategies below says how a strategy is
// split):
//
// The inputs and the outside world:
//   - doc.go: this comment.
//   - api.go: ELBv2API and its roles. counting.go: the call counter.
//   - env.go, request.go, options.go, observer.go: the inputs (Env, Request
//     with its no-call check Request.Validate, and Strategy, the Options,
//     the Observer); readenv.go: ReadEnv and
//     PlanEnv, what planning reads through; handoff.go: RequestFrom (a
//     Request from diagnose's tgmigrate.Handoff) and the plan's checks of
//     the live target group against it.
//   - aws.go: every ELBv2 call, through internal/read (its reads, and its
//     engine for the writes), counted and retried; cluster.go: the
//     cluster reads; kuberead.go: the plan's retried cluster reads.
//   - errors.go: sentinels, error types, IsX helpers; disposition.go:
//     Classify, ShouldRollback and Disposition, what a caller does after
//     Execute failed (the list the automatic rollback follows).
//
// Planning:
//   - planner.go: PlanCutover and the planner (the shared reads, the floor,
//     the hold's steps, the calls the steps name); endpoints.go: the
//     Service port's ready endpoints, which a plan never records.
//   - plan.go: the Plan and its plain data; plan_json.go: its digest,
//     validation, JSON and ParsePlan; plan_text.go: Plan.Text;
//     plan_policy.go: Plan.PolicyInput, IAMPolicy, ControllerPolicy.
//   - rbac.go: the ordered table of what Execute and Rollback do in the
//     cluster (each need with its condition on the plan and its reason),
//     RBACInput, RBACFor, Plan.ClusterRules and the RBAC they give;
//     rbac_render.go: its Role, ClusterRole, bindings and YAML.
//   - guards.go: the guards; policy.go: PolicyFor and the IAM Policy;
//     preconditions.go: the pods' settings a plan checks; network.go: the
//     security-group check and EC2API; timing.go: the assumptions and the
//     waits they give; quota.go: the count against ELBv2's quotas, the
//     bounded overlap's waves and QuotaError.
//
// The strategies (one interface, one table, a file per strategy and role):
//   - strategy.go: the strategy interface, the ordered table strategies
//     (the one place a Strategy value maps to its implementation) and
//     chooseStrategy.
//   - inplace_plan.go, inplace_run.go, inplace_undo.go: in-place's plan
//     (reads, health-check timing, steps, estimate), execution and undo.
//   - bluegreen_plan.go, bluegreen_run.go, bluegreen_undo.go: blue/green's
//     plan (new target group, routes, steps, estimate), execution (create,
//     shift, detach) and undo (attach-old, restore-routes,
//     delete-target-group).
//
// Execution and rollback:
//   - execute.go: Execute, Result and the run of the steps in order.
//   - preflight.go: the permission check of Execute and Rollback
//     (SelfSubjectAccessReviews of the plan's rules), PermissionError and
//     WithPermissionCheck.
//   - runner.go: the runner's lifecycle: lock, journal saves, guards
//     re-checked, step start and end, hook, a step handed to its strategy.
//   - view.go: one observation of a target group (view, observe);
//     scope.go: what it reads of the cluster (see Execute).
//   - wait.go: polls and waits; gate.go: what both strategies' steps
//     share (apply, the gate and its gateRules, early retirement, the
//     pods' verification); bindretry.go: the bind's retry of the
//     controller's webhook denying a target group it cannot see yet
//     (DefaultBindVisibilityTimeout, BindDeniedError).
//   - hold.go: the hold of Karpenter's disruption and its release, the
//     hold step's first act (retiring what cannot serve) and its settle;
//     forceful.go: Karpenter's forceful disruption (the expiring nodes'
//     precondition, WithReplaceFirst, the spot Risk); watch.go: the watch
//     (nodes, NodeClaims, the pods) that wakes the waits and caches them;
//     controller.go: the watch on the controller and ControllerError;
//     room.go: making room under the quotas during Execute and Rollback.
//   - resume.go: Resume, SavedPlan (the plan the journal holds),
//     InspectableJournal and NoSavedPlanError.
//   - rollback.go: Rollback, RollbackResult, the rollback's lifecycle;
//     undo.go: the rollback actions both strategies share;
//     rollback_estimate.go: EstimateRollback, the rollback's expected
//     floor before it starts, from a plan or a journal's State.
//
// The journal and the lock:
//   - the subpackage journal ([github.com/qstools/tgmigrate/cutover/journal]):
//     State, the Journal interface, its ConfigMap and file backends, their
//     one Load and Inspect, and their errors.
//   - state.go, journal.go, journal_configmap.go, journal_file.go: cutover's
//     names for them (aliases and thin wrappers), so that cutover.State,
//     cutover.ConfigMapJournal and the rest stay as they were.
//   - lock.go: the Lock and LeaseLock.
//   - lock_named.go: NewNamedLeaseLock, the LeaseLock on a Lease the
//     caller names (package subnets' lock of a cluster's move).
//
// # Calls, in order
//
//	// arn: a tgmigrate.ARN, parsed once where it comes in (tgmigrate.ParseTargetGroupARN)
//	env := cutover.Env{ELBv2: elb, Client: kc, Clock: clk, Logger: log, ClusterName: "prod", ClusterVPCID: vpc}
//	plan, err := cutover.PlanCutover(ctx, env, cutover.Request{TargetGroupARN: arn, Namespace: "shop", Service: "web", Port: intstr.FromString("http")})
//	fmt.Print(plan.Text())                   // or plan.JSON(); ParsePlan reads it back
//	policy, err := plan.IAMPolicy()          // least privilege for Execute and Rollback
//	rules, err := plan.ClusterRules()        // and in the cluster: rules.YAML(subject) to apply
//	res, err := cutover.Execute(ctx, env, plan, cutover.WithObserver(obs), cutover.WithApproval(ask))
//	est, err := cutover.EstimateRollback(plan)  // its expected floor and what it assumes, before it starts
//	rb, err := cutover.Rollback(ctx, env, plan) // from any point, or from the journal's State
//
// [Env] holds the ELBv2 API, the controller-runtime client, the clock
// (k8s.io/utils/clock; a virtual one makes every wait instant) and the
// logger, plus what the guards compare against (ClusterName, ClusterVPCID)
// and the lock's holder identity.
//
// # Plan
//
// [PlanCutover] inspects AWS and the cluster and changes nothing: it holds
// only the read-only diagnose.ELBv2API and a read-only tgbind Binder, so it
// cannot mutate by construction. It takes a [PlanEnv]: an [Env], or a
// [ReadEnv], whose ELBv2 is a [tgmigrate.ELBv2ReadAPI] and whose Client a
// client.Reader, so that a caller who only plans holds no writer at all,
// by type. Both give the same plan ([Env.ReadOnly] is an Env's ReadEnv).
// It validates the [Request] before any call, runs the guards, chooses the
// strategy, classifies every target with diagnose (node, ghost, pod,
// foreign: one definition of a ghost across tgmigrate), builds the binding
// with tgbind, and returns a [Plan].
//
// # From diagnose's handoff
//
// A finding whose next call is PlanCutover with nothing missing carries that
// call's argument, a [tgmigrate.Handoff] (diagnose's NextCall.Handoff).
// [RequestFrom] turns it into the [Request]: target group, namespace, Service,
// port, strategy, account and Region, with Request.From set to the handoff;
// set any other field on the result. Request.From, rather than a second entry
// point, because the handoff changes nothing of what is planned: a request
// from a handoff plans exactly as the same request written by hand, digest and
// all (From is left out of the plan and its JSON). It adds one check, right
// after DescribeTargetGroups and before anything else is read: a live target
// type or VPC other than diagnose saw is an [*InputError] naming the field of
// From ("From.TargetType", "From.VPCID") that unwraps to [ErrStaleHandoff]; an
// Env.ClusterName other than the handoff's is one on "From.ClusterName"; a
// malformed handoff, or one of another target group, account or Region, is
// refused before any call. Target counts (by class, healthy) other than
// diagnose saw are a plan warning naming both figures and the handoff's time.
// PlanCutover still reads the live state, handoff or not: a plan made on what
// diagnose saw would be unsafe, since targets come and go between the two
// calls.
//
// A plan is plain data: the target group as found, the Service, the binding to
// create, the health-check change and when it happens, the recorded targets to
// deregister (node targets and ghosts, never one the controller registers: a
// ready endpoint of the Service's, such as a hostNetwork pod's nodeIP:port or
// a Fargate pod's address, is left to it), the floor, the timing [Assumptions]
// it was made under, the guards' outcomes, its [Precondition]s, the Kubernetes
// verbs planning used (Plan.Reads), and the [Step]s. Each step states its
// preconditions, its effect, its rollback, and the API calls it may make (IAM
// actions and Kubernetes verbs). [Plan.Text] renders it for an operator;
// [Plan.JSON] writes versioned JSON (schemaVersion [PlanSchemaVersion]) with a
// digest of its content, and [ParsePlan] refuses an unknown version, an
// unknown field, a malformed ARN (parsed as the JSON is read) or an edited
// plan. The ID is deterministic from the request; the digest from the content.
//
// The floor is the fewest healthy targets the target group may hold at any
// point of the cutover: by default the healthy node targets at plan time,
// capped by the Service's ready endpoints, and at least 1; or
// Request.MinHealthy, which may not exceed the ready endpoints. The gate
// waits for at least the floor of healthy pod targets; every deregistration
// batch must leave at least the floor serving.
//
// # Timing assumptions
//
// AWS does not pin down every timing a zero-downtime cutover rests on: how
// many passing checks a new target needs (the user guide says one, the API
// reason Elb.InitialHealthChecking "the minimum number"), the registration
// delay, how long load balancer nodes keep sending new requests to a
// deregistered target (reports range up to about two minutes), and the LBC's
// delay to deregister a terminating pod. Request.Assumptions ([Assumptions])
// says what the plan assumes; every zero field is the documented value or the
// worst reported one, and the plan records them with the defaults applied (one
// line of [Plan.Text]). An assumption out of its range is an [*InputError]
// naming the field, before any call.
//
// The plan's [Estimate] derives from them and from the target group's
// settings. A new pod target is expected healthy after the registration delay
// plus the passing checks it needs at the health check's interval. After an
// early health-check alignment the gate confirms, for UnhealthyThresholdCount
// intervals of the new check, that the node targets still pass it: a target
// already healthy turns unhealthy only after that many failed checks, the
// first within one interval of the change. FloorSeconds, the least any safe
// cutover takes, is in-place the longer of the two, then the deregistration
// delay; blue/green, the new pod targets' health and the weight holds.
// Estimate.Waits lists each wait ([PlannedWait]) with its reason and what it
// derives from ("UnhealthyThresholdCount 2 × interval 30 s",
// "deregistration_delay.timeout_seconds 300"). Execute's fixed waits (the
// gate's confirmation, the floor grace, the drain, the weight holds) and
// Rollback's come from the same place and are reported with their reason and
// basis to the [Observer] ([Wait]) and the log. [Result] reports the cutover's
// time against the floor.
//
// # Preconditions
//
// Once the LBC manages a Service's pod targets, its safety rests on its pods:
// a preStop sleep of at least Assumptions.SafePreStop (the controller's delay
// plus the deregistration lag, 130 s by default) in each container serving the
// target port, a terminationGracePeriodSeconds of at least
// Assumptions.SafeTerminationGracePeriod (160 s by default), the LBC's
// readiness gate (the namespace labelled
// elbv2.k8s.aws/pod-readiness-gate-inject=enabled) and a PodDisruptionBudget
// that selects the pods. PlanCutover reads them from the Service's pods (a
// preStop is a sleep action or an exec of sleep N, /bin/sleep N or sh -c
// "sleep N"; another hook's length is unknown, and reported as such) and puts
// what is unsafe into the plan as a [Precondition] of kind
// [PreconditionPodSettings], each [SettingCheck] with what it saw and what it
// needs. Execute refuses a plan with a precondition, with a
// [*PreconditionError] before it reads the journal or takes the lock, unless
// the caller accepts its kind with [WithAcceptPreconditions].
//
// # Forceful disruption
//
// The hold cannot stop Karpenter's forceful disruption: expiry (a NodeClaim's
// creationTimestamp plus spec.expireAfter), spot interruption, repair,
// deletion. Karpenter drains such a node (PDBs apply; the NodeClaim's
// terminationGracePeriod caps the drain), and the load balancer may still send
// its retired targets requests for the deregistration lag: a drain shorter
// than the lag fails them. PlanCutover lists every recorded node target's node
// that expires within the run's window (the estimate, without a bounded
// overlap's waves, plus the lag) as a [Precondition] of kind
// [PreconditionForcefulDisruption] ([ForcefulNode]), and leaves those nodes
// out of the floor. Execute refuses it unless the caller accepts the risk
// ([WithAcceptPreconditions]) or replaces them first ([WithReplaceFirst]: in
// the hold step their targets are deregistered, never below the floor, the lag
// waited out, their NodeClaims deleted so that Karpenter replaces them now,
// journaled in State.Replacements), and checks the window again from its own
// start, before the journal and the lock. Spot nodes among the serving ones
// are a [Risk] ([RiskSpotInterruption]) with its bound under the plan's
// assumptions (lag plus controller delay, less the two-minute notice); Execute
// meets an interruption as it happens: a watch on the nodes and NodeClaims
// (Env.Client a client.WithWatch, RBAC permitting) wakes the wait in progress
// within [WithReaction] ([DefaultReaction], 500 ms), and the steps that retire
// leaving targets do so at once.
//
// # Security groups
//
// Pod targets are reached on the pods' port, not on the NodePort, and security
// groups that let the load balancer reach the NodePort range often do not let
// it reach the pods: their targets would never turn healthy. Given Env.EC2
// ([EC2API]), PlanCutover reads the security groups of the load balancers that
// forward to the target group (DescribeLoadBalancers), those of the pods'
// network interfaces (DescribeNetworkInterfaces by address: their nodes' under
// the VPC CNI, their own with security groups for pods) and the latter's rules
// (DescribeSecurityGroups), and checks the pods' port ([NetworkPlan]).
// Blocked, the plan sets the binding's spec.networking (ingress from the load
// balancer's groups on the pods' port), so that the controller authorizes the
// rule, and [Plan.ControllerPolicy] then names
// ec2:AuthorizeSecurityGroupIngress; with Request.LeaveSecurityGroups it
// records a [PreconditionSecurityGroup] whose [MissingRule] names the rule to
// add instead, which Execute refuses unless accepted. Without Env.EC2, or when
// EC2 refuses the reads, the check is skipped and the plan says so; the gate
// would then time out on targets that stay unhealthy.
//
// [Plan.ControllerPolicy] is what the controller's own IAM role needs for
// the binding: besides the target writes, ec2:DescribeVpcs and
// ec2:DescribeSecurityGroups (it reads the security groups on each
// reconcile until the read first succeeds in its process, the VPC before
// it registers).
//
// # Holding Karpenter's disruption
//
// Unless Request.NoDisruptionHold, both strategies begin with
// [StepHoldDisruption] and end, after the verification, with
// [StepReleaseDisruption]. The hold puts [AnnotationDoNotDisrupt]: "true"
// (and [AnnotationDisruptionHold], naming the plan) on every node that
// holds a target of the target group (by IP, or instance ID) or a pod of
// the Service, and journals for each whether it carried the annotation and
// its value, before it patches it. While it stands, every observation of
// the gate, the deregistration, the drain, the weight steps and the
// verification holds the nodes that joined since. The release removes only
// what the hold added: an annotation the hold found stays, and so does one
// changed since by someone else. A crash between the two leaves the
// annotations, and the journal says so; Execute resumes and releases, and
// Rollback holds during its own run (unless the hold still stands) and
// releases everything the journal says the hold added.
//
// The annotation blocks graceful disruption (consolidation, drift) only: one
// that had started goes on, and forceful disruption (spot interruption,
// expiry, node repair, deletion of the Node or NodeClaim) cannot be held.
// Those are why the early deregistration of a recorded target whose node
// Karpenter marks for disruption stays. The hold step's first act, before its
// writes to the nodes and before any wait, takes out of rotation what cannot
// serve: the recorded targets that are ghosts or whose node Karpenter is
// already removing, under the deregistration's invariants (recorded, not a
// ready pod endpoint, not the LBC's, never the last serving target), journaled
// like a batch; a rollback registers only the nodes alive then. Every second
// counts there: a target retired at Execute's start still takes requests for
// the lag, and a node whose drain began before Execute may go before the lag
// has passed, which no call can prevent. The hold step also waits for the
// disruptions already under way when it began: it deregisters their nodes'
// targets at once and goes on when none of those nodes is left and the
// deregistration lag (Assumptions.DeregistrationLag) has passed since, at most
// the gate's timeout (then with a warning). With a lag, a node that goes less
// than the lag after its target's deregistration still gets requests it cannot
// serve: changing the target group before those have run out would mix their
// failures with the cutover's. [Result].SettleSeconds reports that wait, which
// the plan's floor cannot include: Result.Ratio is the cutover's steps against
// the floor, and Result.RatioWhole Execute's whole time against the settle
// plus the floor.
//
// # Strategies
//
// Each strategy is a type behind one unexported interface (strategy.go), as
// Karpenter's disruption methods are: it owns its plan steps, their execution
// and their undo (its rollback actions), in files of its own. One ordered
// table maps a Strategy value to its implementation. The planner keeps the
// reads every plan makes, the guards and the hold around the steps; the runner
// keeps the lifecycle: the lock, the journal, the invariants and the observer.
// The steps both strategies have (the gate, the room made under a quota) are
// shared code that asks the strategy for its part (gate.go's gateRules).
//
// In-place, for target groups of type ip (the seed's case), steps
// [StepHoldDisruption], [StepAlignHealthCheck], ([StepMakeRoom] when the
// overlap is bounded: see Quotas on targets), [StepBind], [StepGate],
// [StepDeregister], [StepDrain], [StepVerify], [StepReleaseDisruption]
// (the hold and its release: see above):
//
//  1. Align the health check (traffic-port and the pods' readiness path)
//     first when the node targets pass the new check too (kube-proxy
//     forwards their NodePort to a pod: externalTrafficPolicy Cluster);
//     otherwise after the deregistration. Unchanged when already aligned.
//  2. Apply the TargetGroupBinding through tgbind with
//     multiClusterTargetGroup true: the LBC registers the pod endpoints beside
//     the node targets and will deregister only what it registered.
//  3. Gate: every ready endpoint present when the gate started (and still
//     ready) is registered and healthy, none is unhealthy, and at least the
//     floor are healthy. Endpoints that appear meanwhile (Karpenter
//     reschedules pods) only need to be on their way. After an early
//     alignment the gate also confirms, for UnhealthyThresholdCount
//     intervals of the new check from the change, that the node targets
//     healthy before it still pass: a node target of a node that is not
//     leaving turning unhealthy is an [*InvariantError]
//     (check "health-check"), and the rollback then restores the health
//     check before it waits for node targets.
//  4. Deregister the recorded targets in batches of at most 200, every
//     target with its Port, never below the floor.
//  5. Wait until no recorded target is left, draining included.
//  6. Verify: no recorded target left; every ready endpoint registered and
//     healthy (one whose pod turned Ready within the last health-check
//     window may still be in its first checks: under churn some always
//     is), no pod target unhealthy, at least the floor healthy; and no
//     target that is not a pod's (a ready endpoint, or tracked by the
//     LBC). Such targets (node targets registered after the plan,
//     addresses nothing holds) are left in place and stop Execute with a
//     [*NonPodTargetsError], without a rollback, unless
//     [WithAllowNonPodTargets] turns them into a warning.
//
// Under churn, a recorded target whose node Karpenter is removing (tainted
// karpenter.sh/disrupted, labelled exclude-from-external-load-balancers,
// cordoned, not Ready, being deleted) or that is a ghost already is
// deregistered before its turn, during the gate, so that it drains instead
// of failing requests when its instance goes; such a target never counts
// towards the floor, and is kept while nothing else serves.
//
// Blue/green, for target groups of type instance (whose type cannot
// change), steps [StepHoldDisruption], [StepCreateTargetGroup],
// [StepShift](0), [StepBind], [StepGate], StepShift for each weight,
// [StepDetach], [StepVerify], [StepReleaseDisruption]:
//
//  1. Create an ip target group cloned from the old one (protocol, VPC,
//     health check on traffic-port and the pods' path, attributes), named
//     "<old>-ip" (shortened with a hash to 32 characters) and tagged
//     [TagCreatedBy], [TagSourceTargetGroup] and [TagPlanID].
//  2. Attach it at weight 0 (a target group no load balancer uses is never
//     health checked), bind it through tgbind, and gate on its health.
//     ELBv2 is eventually consistent: cutover's calls that do not see the
//     new target group yet (TargetGroupNotFound) are retried, and the
//     controller, whose webhooks read it through its own client on every
//     create of a binding, may see it later than cutover does and deny the
//     binding ("unable to get target group IP address type: ...
//     TargetGroupNotFound"). So when one of the LBC's two webhooks (known
//     by name: tgbind's *WebhookDeniedError) denies the binding of the
//     target group this plan created, and every check of tgbind's own
//     preflight passed (it reads that target group through cutover's
//     client, and checks from cutover's view what else the webhooks deny),
//     the bind applies it again, backing off from a second to the poll
//     interval, for at most [DefaultBindVisibilityTimeout] (2 minutes;
//     [WithBindVisibilityTimeout]) from the first denial. The message is
//     never read. Each denial is a journal note (State.Notes: the webhook,
//     the binding, the target group, the attempt, and the API server's
//     message) and a log line; the first is an Observer Wait until the
//     bound. Past the bound the step fails with a *[BindDeniedError]
//     (ErrTimeout, the last denial inside) and Execute rolls back as for
//     any failed step. An in-place bind's target group existed before
//     the plan: its denials are never retried.
//  3. Shift the listeners' default actions and rules that forward to the
//     old target group, through ForwardConfig weights, step by step
//     ([DefaultWeightSteps]: 0, 10, 50, 100). Each weight is gated on the
//     new target group's health, held for Request.StepHoldSeconds, checked
//     again, and judged by the caller's [AnalysisFunc] ([WithAnalysis]).
//  4. Detach the old target group: the forward actions name the new one
//     alone. The old one stays, with its targets.
//
// While the old target group still takes traffic, its targets whose node
// Karpenter is removing are deregistered early, as in-place does; nothing
// else of it changes. Nothing registers the nodes that replace its own, so
// under churn it runs dry: when it holds no healthy target that will keep
// serving while the new one has healthy pod targets, every route forwards
// to the new one at once, ahead of the weight steps (an early cut beats an
// outage; the result warns), and later steps never move traffic back.
//
// # Quotas on targets
//
// During the overlap a target group holds its node targets and its pod
// targets at once, and its load balancer counts them beside its other
// target groups' targets. Past ELBv2's quotas (by default 1,000 targets
// per target group and 1,000 per Application Load Balancer) the
// controller's RegisterTargets fails with TooManyTargets and the cutover
// stalls. PlanCutover counts the peak against each quota (Plan.Quota: a
// [diagnose.Headroom] for the target group and one per load balancer, its
// other target groups read with DescribeTargetGroups and
// DescribeTargetHealth; blue/green counts the new target group on the old
// one's load balancers). The quotas are read through Service Quotas when
// Env.ServiceQuotas is given (servicequotas:GetServiceQuota), else they
// are AWS's documented defaults, and the plan says which. The count rests
// on stated assumptions (QuotaPlan.Assumptions): a draining target counts
// until its deregistration delay ends, and the controller registers
// [ControllerBatch] targets per call and stops at the first call ELBv2
// refuses, so room for less than a batch registers nothing.
//
// When the peak would pass a quota the plan bounds the overlap
// (QuotaPlan.Bounded, QuotaPlan.Waves). In-place, [StepMakeRoom] (before the
// binding) deregisters the recorded targets that do not serve, then healthy
// node targets down to the floor, and waits until the room is free; the gate
// then expects the controller's TooManyTargets refusals while the room is
// full, deregisters more node targets as pod targets turn healthy (never below
// the floor), and touches the binding ([AnnotationNudge]) when room is free
// and the controller waits out its backoff. Blue/green shares the floor by
// weight: a target group that takes w% of the traffic keeps w% of the floor
// healthy, so each shift lets the old target group give its share up, and the
// detach frees the rest. When no order of the steps fits (the end state passes
// a quota, or the floor leaves no room for one batch), PlanCutover refuses
// with a [*QuotaError] that names the quota, its code, the value to request
// and how; Execute stops with one at once when the controller's refusals come
// with no room left to make. QuotaPlan.Rollback says whether a rollback has
// room to register the node targets beside the pod targets: a rollback
// registers only what fits (and stops before any change when that is below the
// floor), then the rest once the binding is gone.
//
// # Execute
//
// [Execute] validates the plan, checks Env.Client's permissions (see RBAC),
// loads the journal, takes the lock, runs the guards again, then the steps in
// order. A step done in the journal is skipped without a call: re-running a
// finished plan makes no call at all. Each step checks the world before it
// acts (the health check already aligned, the binding unchanged, the target
// group already created, the weights already set), so a step re-run after a
// crash does not repeat a change.
//
// AWS calls are classified by internal/awserr and retried with
// cenkalti/backoff/v4 on the injected clock ([WithRetry], [DefaultRetry]),
// only on throttling and, right after the target group's creation, on its
// eventual consistency; a validation error is never retried. PlanCutover,
// which only reads, also retries its cluster reads on the API server's
// transient failures (throttling, timeouts, unavailability, internal
// errors, a refused or reset connection), with [DefaultRetry] on the same
// clock; Forbidden, NotFound and Invalid fail at once. Waits poll at
// a short fixed interval ([WithPollInterval], [DefaultPollInterval]) so
// that the cutover ends within seconds of when it could.
//
// Execute and Rollback read only the target group's part of the cluster
// (scope.go says what and why): its Service, EndpointSlices and pods, the
// nodes from a watch's cache, pods by address, every Service once; never
// every pod. PlanCutover alone reads the whole cluster, once.
//
// Before every destructive call the invariants are checked on a fresh read
// of DescribeTargetHealth and of the cluster: every target of the batch is a
// recorded one, is not a ready pod endpoint now (addresses are reused) and
// is not in the LBC's ConfigMap aws-lbc-targets-<binding>; and the healthy
// targets that keep serving after it are at least the floor (a shortfall
// is waited out for [WithFloorGrace], as pods Karpenter reschedules become
// healthy). Recorded targets already gone are skipped and journaled;
// targets registered after the plan are reported, never removed. Before a
// weight changes, the forward action must still name only the old and the
// new target group. A breach stops Execute with an [*InvariantError]
// before the call and, unless [WithAutoRollback](false), rolls back.
//
// The gate also watches the AWS Load Balancer Controller do its part. A
// controller that is not running, crash-loops, or whose reconciles fail (EC2
// refusing DescribeVpcs or DescribeSecurityGroups, which it calls on every
// reconcile; RegisterTargets refused) leaves the binding stuck, not slow: when
// ready endpoints stay unregistered with no registration at all for
// [WithControllerPatience] ([DefaultControllerPatience], 2 minutes, well above
// the controller's reaction of tens of milliseconds and its 15 s requeue),
// Execute stops with a [*ControllerError] and rolls back, without waiting for
// the gate's timeout. Its cause comes from what the controller wrote on the
// binding (the reasons of its Warning Events since the gate began:
// FailedReconcile, FailedNetworkReconcile, ...), never from a message's text;
// no Event at all is [ControllerNotReconciling]. Execute reads the Events of
// the binding's namespace for it. Nothing in Execute counts the controller's
// reconciles or waits on one: it waits on targets and their health. The
// controller's webhook down makes the bind step fail with tgbind's
// *WebhookUnavailableError, naming the webhook; nothing is created.
//
// [WithStopAfter] stops after a named step (one the plan lacks is an
// [*InputError] before anything is read; one already done stops the run
// again before anything further runs); [WithApproval] asks before each
// phase; [WithHook] is called after each step and each batch (a test's
// crash point: an error returns at once, as a crash would).
//
// # Guards
//
// PlanCutover refuses a target group, with a [*GuardError], when its tags say
// another LBC stack (ingress.k8s.aws/stack, service.k8s.aws/stack) or another
// cluster (elbv2.k8s.aws/cluster other than Env.ClusterName) owns it
// ([ErrForeignOwner]); when its VPC is not Env.ClusterVPCID
// ([ErrVPCMismatch]); when its account or Region is not
// Request.AccountID/Region ([ErrAccountMismatch], checked before any call).
// Each yields only to its named [Force] in Request.Force, and the plan records
// the outcome of each ([GuardCheck]: passed, forced, or skipped when there is
// nothing to compare with). Execute runs them again before its first mutation.
//
// # IAM policy
//
// [Plan.IAMPolicy] is the least-privilege policy of a plan: [PolicyFor] of
// [Plan.PolicyInput], which says what the plan's steps and its rollback call.
// [PolicyFor] turns that and the plan's ARNs ([PolicyInput]) into the IAM
// [Policy]: ELBv2 Describe* on "*" (those actions have no resource-level
// permissions); DeregisterTargets and RegisterTargets (the rollback's) on the
// target group; ModifyTargetGroup on it only when the plan aligns its health
// check; for blue/green, CreateTargetGroup, AddTags (the tags of a
// CreateTargetGroup are authorized as AddTags) and DeleteTargetGroup on the
// new target group's name pattern only, ModifyTargetGroupAttributes there only
// when the attributes copied from the old one differ from a new target group's
// defaults, and ModifyListener and ModifyRule on the listeners and rules the
// plan shifts. [NewPolicy] builds one from any list of [PolicyNeed]s.
// [Policy.Allows] evaluates an action and a resource with IAM's wildcard
// rules, and [Policy.JSON] prints what IAM takes. The scenario tests check
// both ways that the policy is what Execute and Rollback call: every call the
// simulator recorded is allowed, and every action the policy grants on every
// resource was called in some scenario.
//
// # RBAC
//
// [Plan.ClusterRules] is what Execute and Rollback of a plan do in the
// cluster, as plain data ([RBAC]): one [RBACRule] per thing they do, with
// its verbs, its resource, the objects it is narrowed to, its scope and a
// one-line reason. It comes from one ordered table in rbac.go, each entry
// with its condition on the plan ([RBACInput], from [Plan.RBACInput];
// [RBACFor] evaluates it), so that a change that makes a new call adds
// one line. Every verb the code uses is there, and nothing else: an
// integration test runs Execute and Rollback on a real kube-apiserver as
// a service account bound to exactly these rules, records every request,
// and finds none refused and none outside them.
//
// The Role, in the binding's namespace, covers the journal ConfigMap, the
// lock Lease, the controller's aws-lbc-targets ConfigMap, the binding (a
// server-side apply that creates is authorized as a create of its name),
// the Service, EndpointSlices and Events; the ClusterRole the nodes (the
// hold's get and patch unless Request.NoDisruptionHold), the observations'
// lists, the NodeClaims (delete only to replace expiring nodes first,
// [WithReplaceFirst]) and tgbind's preflight. Optional rules (the
// watches, the webhook configurations, the reviews) are ones a run goes
// on without; Part [RBACPartJournal] and [RBACPartLock] serve the default
// journal and lock only. PlanCutover's own reads are Plan.Reads.
//
// [RBAC.Role], [RBAC.ClusterRole], [RBAC.RoleBinding],
// [RBAC.ClusterRoleBinding] and [RBAC.Objects] render it as rbacv1 values
// (rbacv1.PolicyRule, as subnets' MoveClusterRules; rules on the same objects
// merged), all named [RBACNamePrefix] and the plan's ID and annotated with it;
// [RBAC.YAML] as multi-document YAML that kubectl apply takes, each rule's
// reason a comment (tgmigrate plan --rbac).
//
// Before anything else, after the preconditions, Execute and Rollback
// check the rules ([WithPermissionCheck], on by default): one
// SelfSubjectAccessReview per verb and named object, once per run, which
// every authenticated user may create (system:basic-user). A required
// rule refused stops the run with a [*PermissionError] that names every
// one (verb, resource, namespace, object, reason) and unwraps to
// [ErrPermission]: nothing was read or changed, no journal, no lease. An
// optional rule refused is a warning of the result. The default journal's
// and lock's rules are not asked when [WithJournal] or [WithLock] replace
// them. A client that cannot answer reviews does not stop the run: the
// check is skipped, with a log line, when the client's scheme lacks
// authorization.k8s.io/v1 (the simulator's), when the create of the review
// is refused (not served, forbidden, or invalid: the controller-runtime
// fake client wants a name) and when the review of the review's own
// permission comes back denied (a client that does not evaluate them).
//
// # Journal and lock
//
// A cutover saves its [State] after every step and every deregistration batch
// through a [Journal], so that Execute resumes after a crash and Rollback
// knows what to undo, even without the plan ([RestoreInfo]). State is plain
// data with a schemaVersion: the plan it belongs to (a [PlanRef]: ID and
// digest), the strategy, a [StepRecord] per step (pending, running, done,
// failed, rolled-back), the deregistration progress, the skipped targets, the
// health-check and binding steps, the target group created, the weights
// applied, the disruption hold (a [DisruptionHold]: each [HeldNode] with what
// it carried before and what the release did), the rollback's progress, notes,
// UpdatedAt and a Revision that grows by one per save.
// The state holds the plan too (State.SavedPlan), so [Resume] continues a
// crashed cutover from the journal alone; an older journal without it
// resumes with the plan's JSON ([*NoSavedPlanError]).
//
// Two journals implement it, both in the subpackage journal, which also
// holds the one Load and Inspect they share:
//
//   - [ConfigMapJournal] (the default): a ConfigMap named by
//     [JournalConfigMapName] in the TargetGroupBinding's namespace,
//     labelled app.kubernetes.io/managed-by: tgmigrate, key state.json.
//   - [FileJournal]: one file per plan, written atomically (temporary file,
//     fsync, rename), mode 0600.
//
// Both are optimistic. Save writes only over the version last loaded or
// saved (a resourceVersion, or the Revision in the file), so a lost update
// is a [*ConflictError] and nothing is overwritten. Load refuses a journal
// of another plan, or of the same plan ID with another digest, with a
// [*PlanMismatchError]; an empty journal is [ErrNoJournal]; an unreadable
// one is a [*CorruptJournalError]. Execute replaces the journal of another
// plan only when that plan is finished or rolled back.
//
// A [LeaseLock] (the default [Lock]) is a coordination.k8s.io/v1 Lease per
// target group (named by [LeaseName]) that keeps two operators from cutting
// over the same target group. Acquire creates it, or takes over one that
// has expired (renewTime + leaseDurationSeconds before now, on the injected
// clock); another live holder gives a [*LockedError] naming it and when its
// hold expires. Renew and Release work only for the holder; a lock taken
// over by someone else gives a [*LostLockError]. Every write carries the
// last-seen resourceVersion, so racing operators get a [*ConflictError]
// rather than both winning. Renewal is synchronous: the executor renews
// before every attempt of a mutating call, retries included, so a retried
// write stops with the *LostLockError as soon as another operator holds
// the lease, and never reaches AWS after that; before other calls and
// observations it renews once a third of the lease has passed. No
// goroutine runs in the background (simulations run on a virtual clock
// where only one goroutine may wait). Execute and Rollback refuse, with an
// [*InputError], a retry policy or a poll interval that may pause half
// the lease or more. A crashed operator's lease is taken back at once by
// the same Env.Holder, and by another after it expires.
//
// # Rollback
//
// [Rollback] starts from a *Plan (its journal is loaded) or from a *State (for
// example [ConfigMapJournal.Inspect] when the plan is gone), and returns to a
// working pre-migration state from any point, completion included. It holds
// Karpenter's graceful disruption as Execute does (unless the hold still
// stands, or the plan skips it), registers, on the NodePort, the nodes alive
// now (not the recorded IPs: those nodes may be gone), waits until they are
// healthy, retiring the targets of nodes whose disruption was under way, then
// deletes the binding (in multi-cluster mode the LBC deregisters only its own
// targets), restores the health check, and releases everything the journal
// says the hold added. Without the hold (Request.NoDisruptionHold) it also
// waits, before it deletes the binding, until Karpenter replaces no node, for
// at most the gate timeout: static node targets are what breaks under churn.
// With it, it does not wait for Karpenter, and its release lets the
// disruptions the hold kept back go on: the static node targets are then
// exposed to them as before the cutover, and the result warns, naming the
// nodes. For blue/green, the old target group is attached again if it was
// detached, its nodes registered and healthy, and the weights go back to it
// before the binding and the created target group (only when its tags say
// tgmigrate created it) are deleted. [RollbackResult] reports its time against
// its own floor: the registration and the passing checks of the node targets
// it registered, under the plan's assumptions. Each action checks the world
// first, so Rollback is idempotent; it is journaled, resumes after a crash,
// and leaves the plan's steps rolled-back: Execute then refuses the plan with
// [ErrRolledBack].
//
// # Errors
//
// Every error unwraps to at most one of the package's sentinels:
// [ErrInvalidInput] (a missing or malformed argument; nothing was changed),
// [ErrGuard] with [ErrForeignOwner], [ErrVPCMismatch] or [ErrAccountMismatch],
// [ErrStrategy], [ErrInvariant], [ErrTimeout], [ErrController],
// [ErrNotApproved], [ErrRolledBack], [ErrNotStarted], [ErrInterrupted], [ErrNonPodTargets],
// [ErrPrecondition], [ErrQuota], [ErrPermission], and the journal's and the
// lock's [ErrNoJournal], [ErrConflict], [ErrLocked], [ErrLostLock],
// [ErrPlanMismatch], [ErrCorruptJournal], [ErrNotManaged]; test with errors.Is
// or the IsX helpers ([IsInvariant], [IsGuard], ...). A failed step is a
// [*StepError] wrapping the cause; a bind the controller's webhook kept
// denying past its bound is a [*BindDeniedError] ([ErrTimeout]). AWS failures
// unwrap to the tgmigrate sentinels (ErrNotFound, ErrThrottled, ...) through
// internal/awserr, never by message text; tgbind's validation failures to its
// *ValidationError. Messages begin with "cutover: " and the operation.
// [Classify] and [ShouldRollback] say what an Execute error calls for
// (the list the automatic rollback follows); Rollback of a plan that
// never ran is a [*NotStartedError].
//
// # Observability
//
// An [Observer] ([ObserverFuncs] for a few functions) sees each step start
// and finish (skipped ones too), each observation of the target group
// ([Progress]: healthy, total, draining, the floor, a summary line), and
// each wait with its expected end ([Wait], for a countdown). Env.Logger gets
// one line per step and per mutating call, and V(1) lines per observation
// and retry, each with the plan's ID and the target group (plan,
// targetGroup). [Result] and [RollbackResult] are plain data: per-step status
// and mutating calls, the cutover's virtual wall time against the floor
// (CutoverSeconds, FloorSeconds, Ratio), ELBv2 calls by operation, the
// targets deregistered, retired early, skipped and unplanned.
package cutover
