// Package sim is the Karpenter churn simulator tgmigrate's scenario tests
// run on: a deterministic simulation, on a virtual clock, of an ALB and its
// target groups, the AWS Load Balancer Controller's TargetGroupBinding
// reconciler, an EKS cluster whose nodes Karpenter keeps replacing, and
// client traffic. Nothing sleeps for real: a 30-minute scenario takes a
// fraction of a second of CPU (BenchmarkChurn30m).
//
// # Files
//
//   - doc.go: this comment.
//   - account.go: Account, one account's ELBv2 service shared by the
//     worlds of several clusters (Config.Account), each in a VPC of its
//     own: the network that dispatches health checks and requests to the
//     cluster whose VPC holds the address, and target transitions to the
//     world whose VPC holds the target group.
//   - apps.go: the world's other applications (Config.Apps, App): their
//     validation, their seeding (a NodePort Service, its pods, a hand-made
//     target group behind a listener rule of the world's ALB or of a
//     shared one), their traffic, and Apps, TrafficOf and
//     FailedRequestsOf.
//   - aws.go: the AWS side of the system under test and of the LBC stand-in:
//     the ELBv2 facades, the wire endpoints in front of them (Config.Wire),
//     and the call counts where the service sees them.
//   - config.go: Config and its defaults and validation (Validate),
//     ConfigError, the Default constants and ClusterName, and PodSettings
//     and SafePodSettings.
//   - events.go: the world's event log: one line per event, with virtual
//     timestamps, and the ELBv2 model's target transitions written to it
//     and to the targets' spans.
//   - kube.go: the Kubernetes side the system under test meets: the world's
//     client with its API latency and its watches, a TargetGroupBinding of
//     the seed's case or an app's (Legacy.NewBinding), and the Service's
//     pods.
//   - network.go: the world's network: its security groups and network
//     interfaces (package ec2sim), the firewall between the load balancer and
//     the cluster, and the EC2 clients of the system under test and the LBC.
//   - permissions.go: the controller's IAM role: the ELBv2 actions
//     DenyController refuses (DenyControllerOn on one target group) and
//     AllowController grants again, and AccessDenied, the error IAM
//     refuses an action with.
//   - run.go: the running of the world: its virtual clock, the scenario's
//     start, Run and RunUntil, client traffic and its failed requests, and
//     churn on demand.
//   - seed.go: the seed's case: the namespace, the Service, its pods and their
//     PodDisruptionBudget, the neighbour application, the ALB, its listener
//     and the hand-made target group (then Config.Apps), and the warm-up
//     until every legacy target, the apps' included, is healthy.
//   - targets.go: the ground truth of targets: every registered target with
//     what holds its address now and what held it at registration, the ghosts
//     among them, the node targets, every registration's span
//     (registered, deregistered, removed), the failed requests no call
//     at an instant could have saved (UnderWayOf), and those lost to a
//     load balancer's target quota (AtQuotaOf).
//   - webhook.go: the LBC's webhooks on the world's client: admission of pods
//     and TargetGroupBindings, and the webhook service going down.
//   - world.go: the World: its state, New (which wires the parts and starts
//     the scenario), Close, and the accessors of its parts.
//
// # Packages
//
//   - [github.com/qstools/tgmigrate/internal/vclock]: the virtual clock.
//   - internal/sim/elbv2model: the ELBv2 state machine (target groups,
//     target health, load balancers, listeners, rules) and the Network seam.
//   - internal/sim/elbv2sim: its Go-interface facade with the SDK's
//     signatures, call counts, a call log and faults.
//   - internal/sim/elbv2wire: its wire-protocol facade, an ELBv2
//     Query-protocol endpoint in front of the Go facade, for the real SDK
//     client; internal/sim/elbv2wire/wiretest runs a package's gomock
//     suites through it.
//   - internal/sim/traffic: client requests through an ALB listener.
//   - internal/sim/cluster: nodes, pods, Services, EndpointSlices,
//     PodDisruptionBudgets, kube-proxy, on a controller-runtime client; the
//     Network the ALB meets.
//   - internal/sim/karpenter: the churn driver.
//   - internal/sim/lbc: the LBC stand-in and its webhooks.
//   - internal/sim/simopt: ErrInvalidOptions and OptionsError, the one
//     error the simulator's packages fail with for a bad option; each
//     re-exports them under its own names.
//   - this package: the [World] that wires them, seeds the seed's case, and
//     is what tests and the demo call.
//
// # The seed's case
//
// [New] builds, from a [Config]: Config.Nodes Karpenter nodes (in public
// subnets with ExternalIPs when Config.PublicSubnets); a namespace shop
// with a NodePort Service web (port 80 "http", NodePort 30080, targetPort
// the pods' 8080) and Config.Pods pods behind it, with a
// PodDisruptionBudget; an ALB legacy-alb whose HTTP :80 listener forwards
// to a hand-made ip target group legacy-web (port 30080) registered with
// every node's nodeIP:NodePort, as the API Gateway VPC Link path would hit
// it (with Config.Legacy.TargetType "instance", an instance target group
// of every node's instance on the NodePort instead, the case a blue/green
// cutover handles). With Config.Fargate the namespace has an EKS Fargate
// profile (package cluster's Fargate): each pod runs on a Fargate node of
// its own, and the ip target group pins each of them by its address
// (podIP:8080) besides the Karpenter nodes' nodeIP:NodePort, as a fleet
// that could reach a Fargate pod no other way did. It warms up until
// every target is healthy; the scenario starts then ([World.Start]), with
// Config.RPS requests per second through the listener and, with
// Config.ChurnInterval, Karpenter replacing the oldest node every interval
// (or another Config.ChurnShape).
//
// Config.Apps adds applications beside the seed's (a cluster with a dozen
// hand-made target groups): each a NodePort Service (NodePort 30081 and
// up) with its pods, in the seed's namespace or one of its own (labelled
// for the readiness gate only if its App says so), and a hand-made target
// group of every node's nodeIP:NodePort reached through a listener rule
// (path /<namespace>/<name>/*) of the world's ALB or of an ALB that apps
// naming it share (its default action answers 404); each app's traffic
// goes through its rule and is counted apart ([World.TrafficOf]). The
// warm-up waits for every app's targets too. With no Apps the world is
// event for event the one above.
//
// # Running a system under test
//
// The system under test runs in the caller's goroutine with
// [World.Clock] as its k8s.io/utils/clock, [World.ELBv2] as its ELBv2 API
// (it satisfies cutover.ELBv2API, diagnose.ELBv2API and tgbind.ELBv2API)
// and [World.Client] as its Kubernetes client. Time moves only when it
// waits on the clock (a Sleep, a timer's C, a ticker): the world's events
// (health checks, traffic, Karpenter, the LBC, kubelets) run then. One
// goroutine drives the world at a time; between calls the test may run it
// further with [World.Run]. Worlds given one Config.Clock share a time
// line (a fleet); Config.Waits is then the clock the system under test's
// API latencies wait on (package tgmigratetest's fleet clock, on which
// several worlds' code under test waits at once). Worlds given one
// Config.Account also share its ELBv2 service, each cluster in a VPC of
// its own (Config.VPCID, VPCCIDR), and each world's targets, ghosts and
// node targets are then its own target groups' ([World.TargetGroupARNs]).
// A test of a system under test reads:
//
//	w, err := sim.New(ctx, sim.Config{Seed: 1, ChurnInterval: 90 * time.Second})
//	// The system under test, in this goroutine, on the world's clock, AWS
//	// and Kubernetes clients:
//	err = migrate(ctx, w.Clock(), w.ELBv2(), w.Client(), w.Legacy().TargetGroupARN)
//	w.Run(10 * time.Minute) // churn goes on
//	if st := w.Traffic(); st.Failed != 0 { ... }
//	if g := w.Ghosts(); len(g) != 0 { ... }
//
// What a test reads:
//
//   - [World.Traffic]: totals, failures by outcome, per-second counts and
//     outage windows (package traffic's Stats); [World.FailedRequests]:
//     every failed request (when, target group, target, outcome, status),
//     and [World.TargetSpans] and [World.TargetSpanAt]: every registration
//     of a target (when registered, deregistered, removed, and what held
//     its address), to attribute each failure to its target, the target to
//     its holder, and a node to its disruption
//     (World.Karpenter().Disruptions()).
//   - [World.ELBv2].Counts and Calls: the system under test's calls by
//     operation and their log ([World.AWSCounts] with or without the
//     wire); [World.LBCELBv2] the LBC's, counted apart.
//   - [World.Ghosts]: the ground truth of ghost targets (targets whose IP no
//     node or pod holds now), to compare with Diagnose's findings;
//     [World.NodeTargets]: the nodeIP:NodePort targets, live or ghost;
//     [World.Targets]: one target group's targets with their owners.
//   - The world as diagnose.Diagnose reads it: one account
//     ([DefaultAccountID] in [DefaultRegion]) with [World.AWS], one cluster
//     [ClusterName] read through [World.Client], Legacy().VPCID and
//     Cluster().VPCCIDR(); run diagnose on [World.Clock]. This package
//     imports no capability package: the adapter to diagnose.Sources
//     lives with its users (diagnose's scenario tests, the demo in
//     examples/tgmigrate).
//   - [World.EventLog]: one line per world event, with virtual timestamps,
//     identical for identical Configs.
//   - [World.Model], [World.Cluster], [World.Karpenter], [World.LBC],
//     [World.EC2Model]: the parts, for inspection and on-demand events.
//
// What a test does:
//
//   - Apply a TargetGroupBinding: build one with [World.NewBinding] (or by
//     hand) and create it through [World.Client]; the LBC's webhooks admit
//     it (a dry run is validated too) and the LBC reacts.
//   - Inject faults: Config.SUT (throttling by rate or probability,
//     latency, eventual consistency shared with the LBC's client,
//     one-shot errors; more with
//     World.ELBv2().Inject), Config.KubeFaults (interceptor.Funcs on the
//     fake client), the controller's: [World.LBCEC2] (EC2 refusing it),
//     [World.DenyController] (an ELBv2 action taken from its IAM role;
//     Config.WrapLBCELBv2 for anything else), World.LBC().Stop, Crash and
//     InjectCrashes (not running, crash-looping, a restart at a chosen
//     point), [World.SetWebhookDown] (its webhook unreachable).
//   - Churn: [World.ReplaceAllNodes] replaces every node within a window;
//     World.Karpenter().ReplaceNode one node for any reason;
//     Config.ChurnInterval a schedule of Config.ChurnShape (steady, wave,
//     consolidation, expiry, spot). Deleting a NodeClaim or a Node through
//     [World.Client] is Karpenter's forceful Deleted disruption of it.
//   - Watch: World.Client().Watch, for Nodes, NodeClaims (unstructured
//     karpenter.sh/v1 NodeClaimList) or any kind the cluster serves; drain
//     the channel without blocking after each wait.
//   - Crash and resume: stop calling the system under test, keep running
//     the world, and start a new one on the same World.
//
// # Through the wire
//
// With Config.Wire the world serves its ELBv2 facades on loopback endpoints
// (package elbv2wire) and gives the system under test a real
// *elasticloadbalancingv2.Client: [World.AWS]. The SDK's serialisation,
// signing, paging markers, error decoding and standard retryer then run on
// every call; the model, the faults of Config.SUT and the facade's counts
// are the same, and the LBC stand-in's calls go through an endpoint of
// their own unless Wire.FacadeLBC. [World.AWSCounts] counts the system
// under test's calls where the service sees them (at the endpoint with the
// wire, at the facade without), so one assertion holds on both transports.
// A suite runs on both like this:
//
//	for _, wire := range []bool{false, true} {
//		cfg := sim.Config{Seed: 1}
//		if wire {
//			cfg.Wire = &sim.WireOptions{Client: elbv2wire.ClientOptions{MaxAttempts: 1}}
//		}
//		w, err := sim.New(ctx, cfg)
//		defer w.Close()
//		err = migrate(ctx, w.Clock(), w.AWS(), w.Client(), w.Legacy().TargetGroupARN)
//		if n := w.AWSCounts()["DeregisterTargets"]; n != 1 { ... }
//	}
//
// HTTP calls never move the virtual clock: Config.SUT's latency is spent by
// the caller before each attempt, on the clock, and the SDK's own retries
// sleep milliseconds of real time, so a rate-throttled call's retries find
// the bucket still empty until the system under test's backoff waits on
// the clock.
//
// # Timings
//
// Every AWS timing the world assumes is a knob of Config.Timings (package
// timing, whose doc has the table of defaults, ranges and sources): the
// checks a new target needs (one, as the ALB user guide says), the
// registration delay, the deregistration lag (a deregistered target stays
// in the rotation), a dead address's 504 after the connect timeout, fail-open
// to initial targets, the LBC's reaction, the latency of each ELBv2 and
// Kubernetes call, and whether freed addresses are handed out again (with
// Config.Neighbours, a second application can take them). [World.Timings]
// returns them and [World.Assumptions] what a plan made in the world
// should assume. The world's pods default to the product's safe settings
// for its own timings ([SafePodSettings]); [LegacyPreStop] is the original
// app's. timing_test.go shows each knob's effect in a small world.
//
// # What the model reproduces
//
//   - Instance targets: EC2 tells ELB when an instance is terminated, so a
//     replaced node's instance target turns unused / Target.InvalidState at
//     once and takes no request; it stays registered, and the target group
//     shrinks as Karpenter replaces nodes (TestInstanceLegacyTargetGroup).
//   - The seed's outage: nothing maintains nodeIP:NodePort targets, so each
//     node Karpenter replaces leaves a ghost target whose IP no longer
//     answers; requests routed to it fail until UnhealthyThresholdCount
//     checks mark it unhealthy, and ghosts accumulate (TestSeedOutage).
//   - The naive binding's outage: a default-mode TargetGroupBinding on the
//     live group deregisters every node target before it registers the pod
//     endpoints, in the same reconcile; until the pod targets pass
//     HealthyThresholdCount checks the group holds only draining and
//     initial targets and every request fails (TestNaiveBindingOutage).
//   - multiClusterTargetGroup: the LBC tracks its targets in the ConfigMap
//     aws-lbc-targets-<name>, never deregisters anyone else's, and the node
//     targets stay (TestMultiClusterBindingLeavesNodeTargets).
//   - ip mode needs no NodePort: a binding on a ClusterIP Service registers
//     the pods' IP:containerPort from its EndpointSlices, and the pod
//     targets alone serve once the node targets are gone
//     (TestClusterIPServiceBinding).
//   - Karpenter v1's disruption: budgets for graceful reasons only,
//     do-not-disrupt, replacement before drain, the taint, the exclude
//     label, PDB-respecting evictions with retries, new nodes with new IPs,
//     termination after the drain, grace-period and spot-notice cut-offs.
//   - Forceful disruption, which nothing holds (package karpenter cites
//     Karpenter's source): expiry at each NodeClaim's creationTimestamp
//     plus spec.expireAfter, which a reader of the NodeClaims finds to the
//     second (the expiry churn shape spreads the nodes' ages so that one
//     expires every interval); the deletion of a NodeClaim or a Node of
//     Karpenter's by the system under test (the termination finalizer
//     holds it, the node is tainted at once, drained, terminated, and both
//     objects go); spot interruption. For none of them does Karpenter wait
//     for a new node before the drain; the NodePool's
//     terminationGracePeriod caps the drain.
//   - Watches: World.Client().Watch turns every write, the world's and the
//     system under test's, into a watch event on the channel during the
//     write itself (inside the world event or the client call), so a
//     consumer that drains it after each wait sees exactly what happened
//     until then, the same on every run; without a resource version it
//     starts with the objects there; label and field selectors; a
//     consumer that lets cluster.WatchBuffer events pile up has its watch
//     closed, as an API server closes a slow watcher; Stop and the
//     context's cancellation end it. deletionTimestamps are on the virtual
//     clock.
//   - Failure records: every failed request with its target, and every
//     target registration's span, for a report that says which failures
//     went to which target and which node held it.
//   - Pods: startup, readiness probe, readiness gates (injected at creation
//     only, behind an ip-mode binding's Service, when the namespace is
//     labelled), preStop serving, PodDisruptionBudgets, EndpointSlice
//     conditions (ready, serving, terminating), kube-proxy forwarding of
//     NodePorts from any live node to any endpoint.
//   - Requests: a target serves while something listens at its IP:port,
//     ready or not (package traffic through the cluster's Serve): a pod
//     waiting on its readiness gate, or sleeping in preStop, answers; a
//     gone node or pod, or a NodePort with no endpoint, fails with a 502.
//   - The LBC, as its source reads (package lbc cites the files): batches
//     of 200, the 5-minute targets cache, reconciles on its own writes,
//     the checkpoint skip and the deferred reset 30 to 45 minutes after a
//     restarted controller's skip, the endpoints it registers (Pod
//     targetRefs only, the binding's address family, fail-open on nodes
//     whose readiness is Unknown), the unsorted multi-cluster ConfigMap
//     written before RegisterTargets, its EC2 reads (through
//     [World.LBCEC2]: DescribeSecurityGroups on each reconcile until it
//     first succeeds in a process, DescribeVpcs (cached 10 minutes) before
//     registering; spec.networking's rules on the nodes' security group),
//     the readiness-gate condition from target health, the 15 s requeue,
//     the periodic resync (every Config.LBCSyncPeriod from [World.Start],
//     10 h by default; TestPeriodicResync in package lbc), its events
//     (BackendNotFound, FailedReconcile, FailedNetworkReconcile,
//     SuccessfullyReconciled...), finalizer cleanup, the webhooks'
//     validation and defaulting.
//   - The network (package ec2sim): the VPC, the load balancer's security
//     group (LoadBalancerSecurityGroup) and the nodes' (NodeSecurityGroup,
//     the pods' too under the VPC CNI), which lets it reach the NodePort
//     range and the pods' port (not the pods' with Config.PodPortBlocked);
//     a health check or a request the groups do not let through times
//     out, so a blocked pod target never turns healthy until a binding's
//     spec.networking has the controller authorize its port. Each node has
//     a network interface holding its address and its pods' (the VPC
//     CNI's), which DescribeNetworkInterfaces lists. [World.EC2] is the
//     system under test's EC2 client (cutover's Env.EC2), through the wire
//     with Config.Wire.
//   - ELBv2 (package elbv2model): registration delay, health checks on the
//     target's port or a fixed one, thresholds, reasons, draining for the
//     deregistration delay, fail-open routing, quotas, validation ranges
//     and error codes; the SDK's signatures and typed errors.
//   - Eventual consistency, per caller, on the virtual clock: with an
//     elbv2sim.Consistency in Config.SUT (the world shares it with the LBC
//     stand-in's client, as a Throttle), a target group any client creates
//     is invisible to the system under test and to the LBC, its webhooks
//     and reconciles included, each until its own delay after the
//     creation (ConsistencyOptions.Delay, ClientDelay["lbc"] for the
//     controller): calls naming it fail with TargetGroupNotFound, listings
//     leave it out. A binding applied as soon as the system under test
//     sees its new target group is then denied by the LBC's webhook while
//     the controller's delay runs ("unable to get target group IP address
//     type: ... TargetGroupNotFound", as the real validator denies it;
//     package lbc; cutover's TestBlueGreenEventualConsistency). Config.SUT's
//     InvisibleCalls is a count fault of the system under test's client
//     alone.
//   - Determinism: every random stream is a PCG seeded from Config.Seed,
//     maps are iterated in sorted order; the same Config gives the same
//     event log (TestDeterminism).
//
// # What it deliberately does not
//
// From package cluster: Deployments and ReplicaSets as objects, owner
// references and garbage collection; unschedulable pods as Pending objects;
// resources other than a pod count per node, affinity, spread, tolerations,
// DaemonSets; apps that ignore SIGTERM, probe failures after readiness,
// restarts; externalTrafficPolicy Local, LoadBalancer Services, ClusterIP
// routing, NetworkPolicies, IPv6; kube-proxy picks round-robin, not at
// random.
//
// From package karpenter: provisioning and bin-packing (one node replaces
// one node); consolidation's own choice of nodes and its waits; budget
// schedules; node repair; several NodePools; the Node's deletionTimestamp
// during a drain Karpenter started itself (the Node goes at termination);
// the termination-timestamp annotation. The expiry shape rewrites the
// initial NodeClaims' creationTimestamp and spec.expireAfter at the
// scenario's start, which a real API server would not accept (it keeps
// its own creationTimestamp; Karpenter's NodeClaim spec is immutable): it
// stands for nodes launched at those times.
//
// Watches (package cluster): no replay from a resource version, no
// bookmarks or metadata-only watches; Watch spends no API latency; a
// read the watch makes after a write that Config.KubeFaults refuses loses
// that event; only writes through the world's client are seen.
//
// From package lbc: instance mode; cross-account; IPv6 targets; the
// LBC's client-side throttle; its concurrent reconciles; Ingress and
// Service reconcilers.
//
// From package elbv2model (S1's list): Network and Gateway Load Balancers,
// and target groups that are not HTTP/HTTPS of type ip or instance;
// authentication actions, HTTPS listeners and certificates, rule
// transforms; rule conditions are stored but not evaluated; availability
// zones and cross-zone load balancing; stickiness, slow start and the
// load-balancing algorithm have no effect on routing; the health-check
// timeout (a probe's result counts at the check's instant),
// unhealthy.draining, unavailable and anomaly detection; the propagation
// delay of listener and rule changes; deletion of load balancers,
// listeners and rules; RemoveTags.
//
// From package elbv2sim (S1's list): the optFns arguments (retryers,
// endpoints, middleware) are ignored; the SDK's own client-side validation
// and retries do not run (with Config.Wire they do: the real SDK client
// runs, through package elbv2wire). Of eventual consistency (see What the
// model reproduces): a caller that saw a new target group missing it
// again (AWS promises no such monotony), a delay drawn at random rather
// than set per caller, and the consistency of anything but a new target
// group (targets, listeners, rules and attributes change at once for
// every caller).
//
// From package traffic (S1's list): a listening app always answers 200,
// so a pod that is up but not ready never answers with an error; HTTP
// keep-alive, in-flight requests, connection draining and request
// duration (a request is instantaneous, so draining targets only stop
// taking new requests); retries; round-robin or
// least-outstanding-requests balancing, stickiness, slow start,
// availability zones (the target is drawn uniformly among the eligible
// ones); rule conditions.
//
// And overall: the fake client by default (a real API server through
// Config.Client, as the integration tier does); server-side apply only with
// Config.ServerSideApply, and only for TargetGroupBindings (the one kind
// tgmigrate applies server-side; cluster.FakeOptions); one VPC, one region,
// one account; EC2 only as the controller sees it (VPCs and security
// groups: package ec2sim), no instances, subnets or route tables (public
// subnets are visible as node ExternalIPs only).
package sim
