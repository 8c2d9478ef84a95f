// Package tgmigratetest is tgmigrate's test kit, as net/http/httptest is
// net/http's and client-go's kubernetes/fake is client-go's: a simulated
// AWS account and EKS cluster under Karpenter churn, on a virtual clock,
// that diagnose, tgbind and cutover run against with no fake or clock of
// the caller's own. A user testing automation built on tgmigrate writes:
//
//	w, err := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{
//		Seed: 1, Nodes: 4, Pods: 8, ReadinessGateInjection: true,
//		Churn: tgmigratetest.Churn{Shape: tgmigratetest.ChurnSteady, Interval: time.Minute},
//	})
//	env := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock(), ClusterVPCID: w.VPCID()}
//	// ... PlanCutover (Assumptions: w.Assumptions()), Execute, on the world's clock ...
//	if r := w.Requests(); r.Failed != 0 { t.Errorf("%d requests failed", r.Failed) }
//
// readme_test.go is that test whole, as the README shows it.
//
// # Files
//
//   - doc.go: this comment.
//   - options.go: Options, Churn and its shapes (ChurnShape), Timings and
//     IPReuse (the kit's own types, converted to the simulator's), and the
//     one error a bad option gives (ErrInvalidOptions, OptionsError); Move
//     and Wire have files of their own.
//   - bounds.go: the range of every option (MaxNodes, MaxPods, MaxRPS,
//     MinChurnInterval, MaxChurnInterval), checked before anything is
//     built.
//   - world.go: the World: NewWorld, the clients the code under test takes
//     (ELBv2, ELBv2Read, Client, Clock, Cluster), the seed's case (Legacy),
//     and what a test reads and does (Run, Requests, Calls, NodeTargets,
//     Ghosts, Draining, ReplaceAllNodes, StopLBC and StartLBC), its
//     AccountID and ClusterName.
//   - apps.go: Options.Apps (App, MaxApps, MinNodePort, MaxNodePort) and
//     Options.TargetsPerLoadBalancer (MaxTargetsPerLoadBalancer): a
//     world's other applications, each with its own hand-made target
//     group behind a rule of the world's ALB or a shared one, and its
//     per-ALB target quota; World.Apps, RequestsOf, RequestsBetween,
//     FailedUnderWay (UnderWay: the failed requests no call at an instant
//     could have saved), FailedAtQuota (AtQuota: those lost to the load
//     balancer's target quota), PeakTargets and DenyControllerOn.
//   - ec2.go: EC2API and World.EC2: the world's network, read-only
//     (security groups, network interfaces, subnets, route tables, VPC
//     endpoints).
//   - quotas.go: ServiceQuotasAPI and World.ServiceQuotas: a simulated
//     Service Quotas answering ELBv2's quotas on targets, and its
//     endpoint for Options.Wire.
//   - move.go: Options.Move (Move, Egress), the world of step 4, and
//     World.PublicNodes, World.Zones and World.EnableZones.
//   - wire.go: Options.Wire (Wire), the world's AWS over HTTP on
//     127.0.0.1 for the real SDK clients, and World.Close.
//   - fleet.go: Fleet (Worlds, World, Clock, Run, Parallel, Close),
//     NewFleet, FleetOptions and ClusterOptions (MaxFleetClusters,
//     MaxSharedClusterName): several clusters in one or more accounts, on
//     one virtual clock; the clusters of one account share its ELBv2
//     service, each in a VPC of its own.
//   - fleetclock.go: the fleet's clock: Parallel's participants wait on
//     it at once, in virtual time (a barrier), and run one at a time, in
//     the order of fns at each instant; other waits are taken one at a
//     time.
//   - campaign.go: Fleet.CampaignInput and Fleet.CampaignEnv, the fleet
//     as package campaign's PlanCampaign and Execute take it.
//   - faults.go: Fault and World.Inject (throttling and AccessDenied on
//     named ELBv2, EC2 and Service Quotas operations, each as its service
//     answers them), CrashAfter and ErrCrash (a cutover crashed after its
//     Nth event).
//
// Examples: example_test.go (the world and each of its parts);
// steps_example_test.go (one per step: diagnose, tgbind, cutover,
// subnets, and a cutover over the wire); fleet_example_test.go (a fleet
// of three clusters in two accounts, migrated by Fleet.Parallel). Each
// copies alone into another module.
//
// # The world
//
// [NewWorld] builds, from [Options] (size, seed, churn, target type,
// timings): Options.Nodes Karpenter nodes; a namespace shop with a
// NodePort Service web (port "http") and Options.Pods pods; an ALB whose
// listener forwards to a hand-made target group, legacy-web, of every
// node's nodeIP:NodePort ([World.Legacy]): the case tgmigrate migrates.
// The AWS Load Balancer Controller stand-in runs (unless
// Options.StoppedLBC) and reconciles the TargetGroupBindings written
// through [World.Client]; client traffic flows through the listener and
// [World.Requests] counts it; Karpenter replaces nodes as [Churn] says.
// The same Options give the same world, event for event.
//
// # Giving it to the SDK
//
// The kit imports no capability package; a test gives the world's parts
// to them:
//
//   - diagnose: diagnose.Sources{Accounts: []diagnose.Account{{ID:
//     [AccountID], Region: [Region], ELBv2: w.ELBv2Read(), ServiceQuotas:
//     w.ServiceQuotas(), EC2: w.EC2()}}, Clusters:
//     []diagnose.Cluster{w.Cluster()}}, with diagnose.WithClock(w.Clock()).
//     With EC2, diagnose places the nodes in their subnets
//     (DescribeInstances, DescribeRouteTables): on a step-4 world
//     (Options.Move) PublicSubnetNode counts them in public subnets.
//   - cutover: cutover.Env{ELBv2: w.ELBv2(), EC2: w.EC2(), ServiceQuotas:
//     w.ServiceQuotas(), Client: w.Client(), Clock: w.Clock(),
//     ClusterName: [ClusterName], ClusterVPCID: w.VPCID()}, and
//     Request.Assumptions: w.Assumptions() so that the plan assumes the
//     world's timings. With EC2 the plan checks that the load balancer's
//     security groups let it reach the pods' port (Plan.Network), with
//     ServiceQuotas it counts the overlap against the quotas it reads.
//     PlanCutover also takes a cutover.ReadEnv with w.ELBv2Read().
//   - tgbind: tgbind.Options{ELBv2: w.ELBv2Read(), Reader: w.Client(),
//     Writer: w.Client(), Clock: w.Clock(), ClusterVPCID: w.VPCID()}.
//   - subnets (step 4, in a world of Options.Move): subnets.Input{Cluster:
//     [ClusterName], AccountID: [AccountID], Region: [Region], VPCID:
//     w.VPCID(), Reader: w.Client(), EC2: w.EC2(), ELBv2: w.ELBv2Read()},
//     and subnets.Env{Client: w.Client(), ELBv2: w.ELBv2Read(), Namespace:
//     w.Legacy().Namespace, Clock: w.Clock()}.
//
// [World.ELBv2] is a [tgmigrate.ELBv2API]; [World.ELBv2Read] a
// [tgmigrate.ELBv2ReadAPI] and [World.EC2] an [EC2API] with no write
// method behind them; [World.ServiceQuotas] a [ServiceQuotasAPI]. Each
// satisfies the capability packages' interfaces of the same role.
//
// # Step 4
//
// Options.Move ([Move]) builds the world of the move to private subnets:
// the nodes start in public subnets with public addresses
// ([World.PublicNodes]), each zone ([World.Zones]) has a private subnet
// beside its public one, EC2 serves the subnets, route tables and
// endpoints (Move.Egress: a NAT gateway per zone, VPC endpoints, or
// neither), and Karpenter's EC2NodeClass selects the public subnets.
// Once a cutover has unpinned the nodes' addresses, subnets finds it
// Ready and its move replaces every node in the private subnets, on the
// world's clock. [World.EnableZones] leaves zones out of the load
// balancer, as a broken world does.
//
// # The wire
//
// Options.Wire ([Wire]) serves the world's ELBv2, EC2 and Service Quotas
// over HTTP on 127.0.0.1, and the clients above are then the real
// aws-sdk-go-v2 ones pointed at it: the SDK's serialisation, error
// decoding and retryer run with the code under test. Everything else is
// the same world: its counts ([World.Calls], each HTTP request), its
// faults (fired behind the endpoint), its clock. Close the world when
// done ([World.Close]).
//
// # Time
//
// [World.Clock] is a k8s.io/utils/clock. Nothing sleeps for real: when the
// code under test waits on it (a retry's backoff, a drain, a poll), the
// world runs until the wait is over: health checks, traffic, Karpenter, the
// controller. Between calls, the test runs it with [World.Run]. One
// goroutine drives the world at a time; so that Diagnose's concurrent
// reads never wait on the clock, the world's API calls take no virtual
// time unless Options.Timings gives them a latency.
//
// # Fleets
//
// [NewFleet] builds several worlds, one per [ClusterOptions], each a
// cluster in an AWS account (its own clients, account ID, cluster name,
// traffic and counters), on one virtual clock: a migration in one
// cluster runs while the others' churn and traffic go on. Clusters of one
// AccountID share that account's ELBv2 service: one service holds every
// cluster's load balancer and target group (legacy-alb-<cluster>,
// legacy-web-<cluster>), each cluster is in a VPC of its own (the k-th
// of the account in 10.k.0.0/16), health checks and requests reach the
// cluster whose VPC holds the target's address, and each cluster's
// controller stand-in reconciles its own TargetGroupBindings against the
// shared service. A cluster alone in its account is as [NewWorld]
// builds it.
// [Fleet.Parallel] runs code under test in parallel, one participant per
// goroutine (a cutover per cluster, say): a participant's wait on the
// clock blocks until every participant still running waits too, then the
// worlds run to the earliest deadline and the waits it ends return, one
// at a time in the order of the participants, each running until it
// waits again (one participant runs at a time). The fleet's virtual time
// then measures the parallel run as real time would: two 6-minute
// cutovers take 6 minutes, not 12; and participants that meet at one
// instant (two workers reading one journal, two cutovers calling one
// ELBv2 service) act in the same order on every run, so the same fleet,
// seeds and participants give the same times, states and counts on
// every run. The worlds' API latencies (Timings) wait on the same clock,
// so they may be set in a fleet. Each participant runs and waits from
// one goroutine at a time (Diagnose with diagnose.WithConcurrency(1) when
// a latency is set), and participants wait for each other only through
// the clock (one blocked on a lock or channel of another stops the
// fleet). Waits outside Parallel are taken one at a time, their lengths
// adding up.
//
// What an account's clusters do not share: each world has its own EC2
// (security groups and interfaces, with the same IDs in every cluster)
// and Service Quotas, its own API rate (no throttling is shared: the
// kit's faults are per world), and World.Calls counts its own code
// under test's calls; a step-4 world (Options.Move) has an account of
// its own.
//
// # Faults
//
//   - [World.Inject]: the next calls of a named ELBv2, EC2 or Service
//     Quotas operation fail with [Throttling] or [AccessDenied], as each
//     service fails them (EC2: RequestLimitExceeded and
//     UnauthorizedOperation; Service Quotas: TooManyRequestsException and
//     AccessDeniedException).
//   - [CrashAfter]: a hook for cutover.WithHook that stops Execute or
//     Rollback after its Nth event as a crash would ([ErrCrash]); run the
//     world on, then Execute again: it resumes from the journal.
//   - [World.StopLBC] and [World.StartLBC]: the controller not running.
//   - [World.ReplaceAllNodes]: churn on demand.
//
// # Stability
//
// The kit is covered by the README's stability rules as the capability
// packages are. The simulator behind it stays internal: the kit is its
// façade: every type in the kit's signatures is the kit's own or a public
// package's ([Timings] are converted to the simulator's knobs, whose set
// only grows), as the root package's publicapi_test.go checks.
package tgmigratetest
