// Package diagnose finds what is wrong with a fleet's target groups before
// anyone touches production: ghost targets, target groups that still pin
// node IPs, who owns each target group, and what to do next.
//
// # Files
//
// One file per role, in the order a scan goes through them:
//   - sources.go: what to read ([Sources], [Account], [Cluster]) and which
//     target groups ([Scope]). options.go: the options and [Progress].
//     api.go: the read-only clients, [ELBv2API] and [EC2API].
//   - diagnose.go: [Diagnose] and its run: the phases on one worker pool,
//     and the report's assembly; [Validate], its input errors before any
//     call, and [ValidateScope], those of the scope and options alone.
//   - aws.go: one account's scan: discovery, targets' health and routes,
//     each call through internal/read (rate-limited, retried, counted).
//     ec2.go: the subnet checks. nilcheck.go: the typed-nil check.
//   - snapshot.go: [Snapshot], one cluster listed once. projection.go:
//     what a listing keeps of each object (only the fields diagnose
//     reads, copied page by page). classify.go: [Classify], who serves
//     each target. compute.go: who serves an address a node and a pod
//     share (EKS Fargate, hostNetwork pods).
//   - analyze.go: the analysis of one target group: counts, unknowns,
//     owner. service.go: the Service it serves, and its ports.
//   - quota.go: ELBv2's quotas on targets ([ReadTargetQuotas]) and
//     [Headroom]. headroom.go: each cutover's overlap against them.
//   - rules.go: [Code], [Severity], [Rule], [Rules], and the one ordered
//     table of the rules. finding.go: what the rules share to make a
//     finding and its next call. handoff.go: the typed handoff
//     (tgmigrate.Handoff) a complete PlanCutover call carries.
//   - rule_*.go: one rule, or one small family, each with its codes and
//     seed signals: rule_owner.go (OutsideTargetGroup,
//     UnmanagedTargetGroup, InstanceTypeTargetGroup), rule_ghost.go,
//     rule_staticnode.go, rule_karpenter.go, rule_healthcheck.go,
//     rule_ports.go, rule_publicsubnet.go, rule_readinessgate.go,
//     rule_defaultmode.go, rule_quota.go (TargetQuotaOverlap,
//     TargetQuotaExceeded) and rule_bindingcrd.go
//     (TargetGroupBindingCRDMissing, a cluster's).
//   - report.go: [Report] and its JSON. render.go: its Markdown.
//     render_text.go: its text ([Report.Text], fitted to [TextColumns],
//     and [Report.WideText], a line per row).
//     schema.go: [ReportSchema]. stringers.go: the one-line String of a
//     [NextCall] and a [Finding].
//   - vocabulary.go: the report's views built from the root vocabulary
//     (a target group's report, from [tgmigrate.TargetGroup]; its health
//     check, from [tgmigrate.HealthCheck]).
//   - errors.go: sentinels, [InputError], [ResourceError], [IsInvalidInput].
//
// Examples: example_test.go (Diagnose and Classify on a fake of their own
// inputs); example_churn_test.go (Diagnose on the test kit's world under
// Karpenter churn). Each copies alone into another module (hack/examplecopy).
//
// The package is read-only by construction: [Diagnose] takes an
// [ELBv2API] that holds only Describe* operations, an optional read-only
// [EC2API], and controller-runtime client.Reader values for the clusters.
//
// # Inputs
//
// [Sources] lists one read-only ELBv2 client per AWS account and Region
// ([Account], with an optional EC2 client for the subnet checks and an
// optional Service Quotas client for the quotas on targets) and one
// client.Reader per cluster ([Cluster], with an optional VPC ID and address
// ranges). [Scope] selects target groups by ARN, by name, by load balancer,
// by tags, or all of them; its ARNs are typed (tgmigrate.ARN, parsed by the
// caller with tgmigrate.ParseTargetGroupARN or ParseLoadBalancerARN). Options: [WithClock], [WithLogger],
// [WithConcurrency], [WithRateLimit], [WithMaxAttempts],
// [WithListPageSize], [WithSnapshot] (a cluster the caller has listed
// already, used instead of listing it again), [WithProgress].
//
// # API economy
//
// The number of calls is part of the contract, and the tests assert it:
//   - DescribeTargetGroups is paged at [PageSize] (400). ARNs and names go
//     [ARNBatch] to a call; a load balancer costs one paged call. A batch
//     that AWS rejects as NotFound is halved until the unknown ARN or name
//     is isolated, so the others are still found.
//   - DescribeTags carries [TagBatch] (20) ARNs per call. A Tags scope lists
//     every target group of the account and reads all their tags before it
//     filters: it costs the tag batches of the whole account.
//   - Exactly one DescribeTargetHealth per target group in scope.
//   - DescribeListeners once per load balancer that an in-scope target group
//     names, and DescribeRules once per listener of an ALB.
//   - With an EC2 client: one DescribeInstances per [InstanceBatch] node
//     instances behind node targets or hosting the pods behind pod targets,
//     over all target groups of the account, and one DescribeRouteTables
//     for their VPCs.
//   - With a Service Quotas client: one GetServiceQuota per quota on
//     targets (three per account), and a GetAWSDefaultServiceQuota for a
//     quota with no applied value, whatever the scope.
//   - The quota checks, only for the load balancers of the target groups
//     with a cutover overlap (see Quotas): one paged DescribeTargetGroups
//     per such load balancer whose target groups discovery did not list
//     (it lists them for All, a Tags-only scope, and the load balancers in
//     the scope), and one DescribeTargetHealth per target group of theirs
//     whose targets the scan did not read. A target group in scope is
//     never read twice.
//   - Each Kubernetes kind is listed once per cluster per call (nodes, pods,
//     Services, namespaces, TargetGroupBindings, Karpenter NodeClaims),
//     never per target group; not at all for a cluster given with
//     [WithSnapshot]. Each page is projected as it arrives
//     (projection.go): of a pod, its name, namespace, labels, deletion
//     mark, node, hostNetwork, readiness gates, its containers' ports and
//     HTTP readiness probes, its phase, addresses and Ready and
//     ContainersReady conditions are kept, and the rest (managedFields,
//     env, volumes, statuses) is let go before the next page is read; a
//     node, a Service, a namespace and a NodeClaim likewise keep only
//     what the classification and the rules read. TargetGroupBindings are
//     kept whole. On a cluster of 5,000 nodes and 150,000 pods listed in
//     pages of 500, the heap's peak is about a third of what whole
//     objects need, and its live part a fifth (BenchmarkDiagnoseBigCluster).
//   - Nothing at all for target groups outside the scope.
//
// Every AWS call waits on a per-account token bucket (golang.org/x/time/rate,
// paced on the injected clock) and retries throttling with exponential
// backoff; the calls of all accounts run on one bounded worker pool. The
// Service Quotas calls share the bucket and are counted in
// [AccountReport].APICalls like the others.
//
// # Classification
//
// [Classify] says who serves each target's ip:port now, from [Snapshot]
// values (one cluster, listed once): a pod, a node (with its Karpenter node
// pool, NodeClaim expiry, drift and disruption state), a ghost, or foreign
// (another cluster, another VPC, several clusters at once, outside the
// clusters' ranges, or unknown). A node serves the cluster's NodePorts and
// the host ports of its pods; a pod serves the ports its containers declare
// and the target ports of the Services that select it. The VPC CNI hands
// freed addresses out again, so holding the address is not enough: a
// target whose address a node or pod holds but does not serve is a ghost,
// and [TargetReport.HeldBy] names the holder. A ghost is also a target no
// node or pod holds whose address is inside the cluster's CIDRs, or whose
// port is one of its NodePorts or container ports. A cluster is a candidate
// owner only when its VPC matches the target group's, so clusters that
// reuse address space in other VPCs never claim a target; a cluster whose
// nodes or pods could not be listed makes no target a ghost. cutover calls
// [TakeSnapshot] and [Classify] for the one target group it migrates, so
// the two packages share one definition of a ghost, and PlanCutover
// deregisters a ghost on a reused address like any other.
//
// # Compute types
//
// Holding an address is not serving it, and on EKS a node and a pod can
// share one. Where they do, the one that serves the target's port holds
// it (compute.go), and the target is then a pod target with the node
// beside it ([TargetReport].Pod and .Node):
//   - EKS Fargate runs each pod on a Node of its own, labelled (and
//     tainted) eks.amazonaws.com/compute-type=fargate ([LabelComputeType],
//     [NodeRef].Fargate), named fargate-ip-..., whose one address, its
//     InternalIP, is its pod's IP, and which no EC2 instance backs. No
//     kube-proxy runs there, so the address serves the pod's ports and no
//     NodePort. An ip:port on a Fargate node's address is the pod's target
//     when the pod serves the port; otherwise a ghost the pod holds (a
//     NodePort there reaches nothing); a Fargate node whose pod has gone
//     serves nothing. Live Fargate pods are never ghosts and never node
//     targets: no GhostTarget rests on them, their Services are inferred,
//     and MissingReadinessGate applies to them as to any pod target.
//   - A hostNetwork pod's IP is its node's ([PodRef].HostNetwork). A
//     target nodeIP:port where such a pod on that node serves the port (a
//     container port it declares, which for hostNetwork is its host port
//     too, or a Service's target port) is that pod's target: the Service
//     that selects the pod lists exactly nodeIP:targetPort in its
//     EndpointSlice, so that Service is inferred, the next call has it,
//     and the LBC, in ip mode, registers that very target. On a port that
//     is also a NodePort, kube-proxy answers first: a node target. A pod's
//     hostPort without hostNetwork makes its node serve the port, but its
//     endpoint is podIP:containerPort: a node target, as before.
//   - Karpenter's nodes, managed node groups' nodes and Fargate nodes side
//     by side are each judged by these rules; the corpus's mixed-compute
//     fleet holds all three.
//
// What these rules rest on, and where it was read:
//   - The AWS Load Balancer Controller (kubernetes-sigs/
//     aws-load-balancer-controller, main at 225f445): in ip mode it
//     registers each EndpointSlice endpoint whose targetRef is a Pod, at
//     the endpoint's first address and the slice's port
//     (pkg/backend/endpoint_resolver.go); its default instance-mode node
//     selector leaves out nodes labelled eks.amazonaws.com/compute-type in
//     (fargate) (pkg/backend/endpoint_utils.go, and
//     docs/guide/targetgroupbinding/targetgroupbinding.md); it resolves a
//     Fargate pod's network interface by the pod's IP among the VPC's
//     interfaces, since "Fargate based nodes are not EC2 instances"
//     (pkg/networking/pod_eni_info_resolver.go).
//   - The EKS user guide, "Simplify compute management with AWS Fargate",
//     its considerations: each Fargate pod has its own isolation boundary
//     and network interface; ALBs and NLBs reach Fargate pods with ip
//     targets only, and Services on Fargate run in ip target mode only;
//     DaemonSets (kube-proxy is one on EKS) are not supported; a pod on
//     Fargate cannot use hostPort or hostNetwork.
//   - A real Fargate node as kubectl describe shows it (the public
//     walkthrough ruzickap/k8s-fargate-eks): name
//     fargate-ip-192-168-105-82.eu-central-1.compute.internal, label and
//     taint eks.amazonaws.com/compute-type=fargate(:NoSchedule), one
//     InternalIP 192.168.105.82, capacity one pod, a providerID
//     aws:///<zone>/<id>/fargate-ip-..., its one pod; kubectl get pods
//     elsewhere shows a Fargate pod's IP equal to its node name's address.
//   - Kubernetes (kubernetes/kubernetes): the kubelet gives a hostNetwork
//     pod its node's IPs as its PodIPs (pkg/kubelet/kubelet_pods.go,
//     generateAPIPodStatus: "HostNetwork Pods inherit the node IPs as
//     PodIPs"), and the EndpointSlice controller lists a pod's PodIPs on
//     the Service's target port resolved on the pod (getEndpointAddresses
//     and the port lookup in the endpointslice utilities): a hostNetwork
//     pod's endpoint is nodeIP:targetPort.
//
// # Owners and Services
//
// A target group is owned by a TargetGroupBinding in a scanned cluster
// (default or multi-cluster mode), by an LBC stack (the LBC's tags name
// another stack or cluster), or by nobody (made by hand). Its owner is
// unknown when it has no LBC tag and the bindings (or its tags) could not
// be read. It is outside, and left alone, when it is not the scanned
// clusters' business: a Lambda or ALB target group, a VPC where no scanned
// cluster runs, instances that are no scanned cluster's nodes, or
// addresses outside every scanned cluster's VPC and CIDRs; its only
// finding is an OutsideTargetGroup line saying why. The Service it
// serves ([ServiceRef].Source) comes from the binding's serviceRef
// ("binding"); failing that, from the LBC's tags ("tags"), when
// elbv2.k8s.aws/cluster names a scanned cluster and the Service exists
// there: service.k8s.aws/resource "namespace/name:port",
// ingress.k8s.aws/resource "namespace/ingress-service:port" (the one
// Service of the namespace whose name ends it and that has the port), or
// service.k8s.aws/stack "namespace/name" without a port; failing that,
// from the NodePort its node targets (and ghosts) use ("node-port");
// failing that, from the Services that select its pod targets ("pods").
// Named target ports are resolved on the Service's pods.
//
// # Findings
//
// Each [Finding] has a stable [Code], a [Severity], the seed signal it
// explains (the symptom a team sees), evidence (ARNs, names, counts,
// compared values), a remediation that names the next library call, and
// the same call as data ([NextCall]: the operation, the target group, the
// strategy and the Service), which a script can act on without parsing
// text. Every call a finding names is one the callee accepts: an instance
// target group is named with strategy blue-green, which PlanCutover takes
// for it, and never with tgbind.Build, which refuses it; where PlanCutover
// would refuse (no load balancer forwards to an instance target group, a
// weighted forward shares its traffic, or its tags say another LBC stack
// or cluster owns it, which the owner guard refuses) the next call is a
// manual change ([OpManual]) that says which. A call whose Service or port
// could not be inferred lists them in [NextCall].Missing.
//
// A PlanCutover call with nothing missing also carries its argument as one
// typed value, [NextCall].Handoff ([tgmigrate.Handoff]): the target group,
// its account, Region, VPC and type, the strategy, the cluster and the
// Service with its port, the load balancers, and what this report saw of
// the targets (by class, healthy) and when (GeneratedAt). It is on the
// next call, not the finding, because it is that call's argument: set
// exactly when Op is OpPlanCutover and Missing is empty, nil otherwise.
// cutover.RequestFrom turns it into a Request (tgbind.RequestFrom into a
// binding's), and PlanCutover refuses it if the target group changed
// since. [Rules] returns this table:
//
//	code                             severity  seed signal
//	DefaultModeBindingOnSharedGroup  critical  all targets drain at once when the TargetGroupBinding reconciles
//	GhostTarget                      critical  5xx/503 spikes after Karpenter rotates nodes
//	TargetQuotaExceeded              critical  pods never become targets: RegisterTargets fails with TooManyTargets whatever the cutover does
//	InstanceTypeTargetGroup          high      the target type cannot be switched to ip in place
//	KarpenterDisruptionRisk          high      outages line up with Karpenter consolidation, drift or expiry
//	PortMismatch                     high      health checks pass but requests hit the wrong port, or the LBC registers nothing
//	StaticNodeTarget                 high      traffic goes to node IPs registered by hand; new nodes never receive any
//	TargetQuotaOverlap               high      the cutover stalls: RegisterTargets fails with TooManyTargets while node and pod targets overlap
//	HealthCheckMismatch              medium    targets stay unhealthy (or flap) while the pods are Ready
//	MissingReadinessGate             medium    502/504 during rolling deploys: old pods stop before new targets are healthy
//	UnmanagedTargetGroup             medium    targets go stale: nothing registers new pods or deregisters old ones
//	PublicSubnetNode                 low       nodes are reachable from the internet, and moving them breaks the ALB
//	OutsideTargetGroup               info      none: it serves something other than the scanned clusters
//	TargetGroupBindingCRDMissing     info      nothing in the cluster can keep target groups current
//
// and the next call for each (a finding's own remediation fills in the
// target group, Service, port and cluster):
//
//	code                             next call
//	DefaultModeBindingOnSharedGroup  tgbind.Build with MultiClusterTargetGroup true, replacing the binding before its next reconcile (ip); cutover.PlanCutover blue-green (instance)
//	GhostTarget                      cutover.PlanCutover, in-place for ip (it deregisters the ghosts first, with their Port), blue-green for instance
//	TargetQuotaExceeded              manual: request an increase of the quota (the finding's Reason says how), then cutover.PlanCutover
//	InstanceTypeTargetGroup          cutover.PlanCutover with strategy blue-green
//	KarpenterDisruptionRisk          cutover.PlanCutover (in-place or blue-green by target type), before the next disruption
//	PortMismatch                     tgbind.Build with the Service port that maps to the targets' port (ip); cutover.PlanCutover blue-green (instance)
//	StaticNodeTarget                 cutover.PlanCutover (in-place or blue-green by target type); it builds the binding
//	TargetQuotaOverlap               cutover.PlanCutover, which bounds the overlap (NextCall.Reason says how), or an increase of the quota
//	HealthCheckMismatch              cutover.PlanCutover (health-check step: traffic-port, the probe's path and protocol)
//	MissingReadinessGate             label the Service's namespace elbv2.k8s.aws/pod-readiness-gate-inject=enabled before tgbind.Build
//	UnmanagedTargetGroup             tgbind.Build for the Service it serves (ip), cutover.PlanCutover blue-green (instance)
//	PublicSubnetNode                 cutover.PlanCutover then Execute first; move the nodes to private subnets afterwards
//	OutsideTargetGroup               none: left alone
//	TargetGroupBindingCRDMissing     install the AWS Load Balancer Controller (v2.10.0 or later), then tgbind.Build
//
// TargetGroupBindingCRDMissing is a cluster finding ([Report.Findings]); the
// others belong to a target group ([TargetGroupReport.Findings]).
//
// Findings rest on the targets that take traffic. A draining target is
// deregistered already: it is classified and counted, but no finding rests
// on it (it takes no new requests, the LBC ignores it, and it leaves when
// the deregistration delay ends).
//
// PublicSubnetNode names every public node (an ExternalIP, or with an EC2
// client a subnet whose route table sends the default route to an internet
// gateway) that holds node targets or hosts the pods behind pod targets,
// each with why in its evidence (details node/NAME). Moving such nodes to
// private subnets, step 4 of the migration, breaks node targets until the
// cutover and reschedules the pods behind pod targets, which only a
// binding re-registers.
//
// # Quotas
//
// A cutover registers the pod targets while the node targets are still
// there, and ELBv2 counts both against its quotas on targets: per target
// group ("Targets per Target Group per Region", 1,000 by default) and per
// load balancer across all its target groups ("Targets per Application
// Load Balancer", 1,000; "per Network Load Balancer", 3,000). Diagnose
// reads them once per account through the optional Service Quotas client
// ([ReadTargetQuotas]: the applied value, else Service Quotas' default,
// else AWS's documented default with a note that names the error code,
// never its text); without a client it takes AWS's documented defaults
// and says so. [AccountReport].Quotas shows the values and their source.
//
// A target group has a cutover overlap when it serves a known Service
// (with its port, its pods and Services listed) whose ready endpoints on
// the target port (Ready pods, and pods that wait on the controller's
// readiness gate only) are not all registered: those are the pod targets
// the controller would add. [TargetGroupReport].Headroom compares the
// overlap with each quota, whether it fits or not ([Headroom]): now is
// every registered target, draining ones included (they count until
// their deregistration delay ends); peak is now plus the pod targets;
// after deducts the node targets and ghosts the cutover deregisters. For
// a load balancer, now also counts the targets of its other target
// groups (Others). For an instance target group, blue/green puts the pods
// in a new ip target group ([ScopeNewTargetGroup], which holds only them)
// and retires this one.
//
// A peak over a quota whose end state fits is a TargetQuotaOverlap
// finding: PlanCutover bounds the overlap, deregistering node targets down
// to the healthy floor before the controller registers the pods. An end
// state over a quota is a TargetQuotaExceeded finding: the quota must be
// raised first, and its Reason says how ([Quota.IncreaseHint]). Both carry
// the numbers in the message and the [Headroom] in their evidence.
//
// KarpenterDisruptionRisk names the next disruption the nodes and their
// NodeClaims show, most imminent first: a node being disrupted now (the
// karpenter.sh/disrupted taint, the exclude-from-external-load-balancers
// label, cordoned or deleted); an expiry that has passed; a NodeClaim whose
// Drifted, then Consolidatable condition is True, unless
// karpenter.sh/do-not-disrupt holds it back; then the nearest expiry
// (creationTimestamp plus spec.expireAfter).
//
// # Report
//
// A [Report] is plain data in a deterministic order. [Report.JSON] writes
// it as versioned JSON (schemaVersion [SchemaVersion]) that validates
// against [ReportSchema] (the file schema/report.v1.json);
// [Report.Markdown] and [Report.Text] render it for people, each with the
// quota headroom of the target groups that have one; Text fits
// [TextColumns] (each finding's message and next call under its table),
// [Report.WideText] keeps a line per row, however wide. The summary
// counts targets by class and findings by code and by severity, and
// [Report.Worst] gives the most severe finding for graded exit codes.
//
// # Errors and partial results
//
// Malformed Sources, Scope or options give an [*InputError] before any call,
// and so does a typed-nil client (a nil *elasticloadbalancingv2.Client in a
// non-nil interface). Diagnose never panics: an SDK call that returns
// neither an output nor an error is an [ErrNilResponse] on its resource, a
// paging marker that comes back ends the paging, and a panic inside a
// worker (a client's, or the analysis of one target group) is recovered as
// an [ErrPanic] on its resource, with the rest of the report still
// produced. Everything else is per resource: an unknown ARN, or one that is
// zero, not made by a parser or of the wrong kind, a target
// group of another account or Region, a cluster without the
// TargetGroupBinding CRD (a finding), a reader without RBAC, throttling
// beyond the retry budget. Each is a [ResourceError] in [Report.Errors]
// (and in the target group's Error), whose Unwrap reaches the tgmigrate
// sentinels (ErrNotFound, ErrThrottled, ErrWrongRegion, ErrWrongAccount...),
// and the rest of the fleet is still reported. Diagnose returns a non-nil
// error only with the report of a cancelled context, or when nothing could
// be scanned ([ErrNothingScanned]). A cancellation is category cancelled
// (deadline-exceeded for a deadline), and its error matches both
// context.Canceled and the cause given to context.WithCancelCause.
//
// Each kind a cluster lists is read on its own: a list the reader is
// forbidden, or that fails, takes away only the judgements that rest on it
// ([ListFailure]). A finding whose evidence is missing is not made, and
// each target group's [TargetGroupReport.Unknowns] says what could not be
// read and which judgements were not made. Ownership still comes from the
// bindings or the tags, whichever could be read. Diagnose lists no
// EndpointSlices: a Service's target ports are resolved on its pods.
package diagnose
