package tgmigratetest

// world.go: the World: NewWorld, the clients the code under test takes
// (ELBv2, read-only ELBv2, Kubernetes, clock), the seed's case it acts on,
// and what a test reads and does (Run, Requests, Calls, the targets,
// churn on demand, the controller on and off).

import (
	"context"
	"time"

	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// World is a simulated AWS account and EKS cluster, on a virtual clock:
// an ALB whose listener forwards to a hand-made target group of node
// targets (the case tgmigrate migrates), a NodePort Service with its pods,
// Karpenter nodes, the AWS Load Balancer Controller stand-in, and client
// traffic through the listener. Build it with [NewWorld].
//
// One goroutine drives it: the code under test, in the test's goroutine,
// moves the world's time by waiting on [World.Clock] (every wait of
// diagnose, cutover and tgbind does), and the test moves it with
// [World.Run]. Its methods must not be called from another goroutine
// while the code under test runs.
type World struct {
	w      *sim.World
	legacy Legacy
	// sq is the world's Service Quotas; with Options.Wire, sqWire serves
	// it and sqSDK is the SDK's client of it (quotas.go, wire.go).
	sq     *quotaService
	sqWire *quotaEndpoint
	sqSDK  ServiceQuotasAPI
	// move: a step-4 world (Options.Move; move.go).
	move bool
	// fleet is the clock of the world's Fleet; nil for a world of its own.
	fleet *fleetClock
	// apps are the cases of Options.Apps (apps.go).
	apps []Legacy
}

// Legacy is the seed's case, or an app's ([World.Apps]): the hand-made
// target group and the Service whose pods should be its targets.
type Legacy struct {
	// TargetGroupARN is the hand-made target group: ip targets of every
	// node's nodeIP:NodePort, or instance targets on the NodePort.
	TargetGroupARN tgmigrate.ARN
	// TargetGroupName is its name, "legacy-web" ("legacy-web-<cluster>"
	// in a [Fleet] cluster that shares its account).
	TargetGroupName string
	// TargetType is "ip" or "instance" (Options.TargetType).
	TargetType tgmigrate.TargetType
	// LoadBalancerARN is the ALB ("legacy-alb", or "legacy-alb-<cluster>"
	// in a cluster that shares its account) whose listener forwards to
	// the target group.
	LoadBalancerARN tgmigrate.ARN
	// ListenerARN is its HTTP :80 listener. A string: tgmigrate.ARN names
	// target groups and load balancers, the resources the packages take
	// as input, and none takes a listener.
	ListenerARN string
	// RuleARN is the listener rule that forwards to the target group: an
	// app's (Options.Apps; path /<namespace>/<name>/*). "" for the seed's,
	// which the listener's default action reaches.
	RuleARN string
	// Namespace and Service: the NodePort Service in front of the pods,
	// "shop/web".
	Namespace, Service string
	// PortName is the Service port's name, "http" (port 80, NodePort
	// 30080, the pods' 8080).
	PortName string
}

// NewWorld builds a world of opts and warms it up until every legacy
// target is healthy: the world's time then stands at its start, with
// traffic flowing and the churn scheduled. ctx bounds the setup. A bad
// option gives an [*OptionsError] naming it, and nothing is built.
func NewWorld(ctx context.Context, opts Options) (*World, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	w, err := sim.New(ctx, opts.config())
	if err != nil {
		return nil, newWorldError(err)
	}
	if opts.StoppedLBC {
		w.LBC().Stop()
	}
	legacy, err := legacyOf(w.Legacy())
	if err != nil {
		w.Close()
		return nil, newWorldError(err)
	}
	world := &World{w: w, sq: newQuotaService(opts.TargetsPerLoadBalancer), move: opts.Move != nil, legacy: legacy}
	for _, a := range w.Apps() {
		l, err := legacyOf(a)
		if err != nil {
			w.Close()
			return nil, newWorldError(err)
		}
		world.apps = append(world.apps, l)
	}
	world.startWire(opts)
	return world, nil
}

// legacyOf is the kit's form of a simulator's case.
func legacyOf(l sim.Legacy) (Legacy, error) {
	tg, err := tgmigrate.ParseTargetGroupARN(l.TargetGroupARN)
	if err != nil {
		return Legacy{}, err
	}
	lb, err := tgmigrate.ParseLoadBalancerARN(l.LoadBalancerARN)
	if err != nil {
		return Legacy{}, err
	}
	return Legacy{
		TargetGroupARN: tg, TargetGroupName: l.TargetGroupName, TargetType: tgmigrate.TargetType(l.TargetType),
		LoadBalancerARN: lb, ListenerARN: l.ListenerARN, RuleARN: l.RuleARN,
		Namespace: l.Namespace, Service: l.Service, PortName: l.PortName,
	}, nil
}

// ELBv2 returns the ELBv2 client of the code under test, read-write: give
// it to cutover.Env.ELBv2 (Execute, Rollback). Its calls act on the world
// at once, are counted ([World.Calls]) and fail as [World.Inject] arms.
func (w *World) ELBv2() tgmigrate.ELBv2API { return w.w.AWS() }

// ELBv2Read returns the same client with its Describe* operations only:
// no type assertion recovers a write method from it. Give it to
// diagnose.Account.ELBv2, tgbind.Options.ELBv2 or cutover.ReadEnv.ELBv2.
func (w *World) ELBv2Read() tgmigrate.ELBv2ReadAPI { return readOnly{w.w.AWS()} }

// readOnly hides every method of its client but the reads.
type readOnly struct{ tgmigrate.ELBv2ReadAPI }

// Client returns the Kubernetes client over the world's cluster, kept in
// step with ELBv2: the nodes, pods, Service, EndpointSlices and
// Karpenter's NodeClaims the load balancer's targets are; its scheme
// registers tgbind/v1beta1, and the controller stand-in's webhooks admit
// what is written through it. Give it to cutover.Env.Client,
// tgbind.Options, or [World.Cluster]'s Reader.
func (w *World) Client() client.Client { return w.w.Client() }

// Cluster returns the world's cluster as diagnose reads it: its name
// ([World.ClusterName]), [World.Client] as its reader, its VPC and its address
// range. It is a diagnose.Cluster.
func (w *World) Cluster() tgmigrate.Cluster {
	return tgmigrate.Cluster{Name: w.ClusterName(), Reader: w.w.Client(), VPCID: w.VPCID(), CIDRs: []string{w.w.Cluster().VPCCIDR()}}
}

// VPCID returns the VPC of the cluster and of the target group: give it
// to cutover.Env.ClusterVPCID.
func (w *World) VPCID() string { return w.w.Legacy().VPCID }

// Clock returns the world's virtual clock: give it to diagnose.WithClock,
// cutover.Env.Clock and tgbind.Options.Clock. Nothing sleeps for real: a
// wait on it runs the world until the wait is over.
func (w *World) Clock() clock.WithTicker {
	if w.fleet != nil {
		return w.fleet
	}
	return w.w.Clock()
}

// Run runs the world for d of virtual time: traffic, health checks,
// Karpenter, the controller. It must not be called while the code under
// test waits.
func (w *World) Run(d time.Duration) { w.Clock().Sleep(d) }

// Elapsed returns the virtual time since the world's start.
func (w *World) Elapsed() time.Duration { return w.w.Elapsed() }

// Legacy returns the seed's case: the target group to migrate, and the
// Service whose pods should be its targets.
func (w *World) Legacy() Legacy { return w.legacy }

// Assumptions returns the timing assumptions a plan made in this world
// should use (cutover.Request.Assumptions, the same type): the world's
// new-target checks, registration delay and deregistration lag, so that
// the plan's floor and its pod preconditions are the world's.
func (w *World) Assumptions() tgmigrate.Assumptions { return w.w.Assumptions() }

// AccountID returns the world's AWS account: [AccountID], or in a
// [Fleet] the one its [ClusterOptions] give. Give it to
// diagnose.Account.ID.
func (w *World) AccountID() string { return w.w.Config().AccountID }

// ClusterName returns the world's cluster name: [ClusterName], or in a
// [Fleet] the one its [ClusterOptions] give. Give it to
// cutover.Env.ClusterName.
func (w *World) ClusterName() string { return w.w.Config().ClusterName }

// Requests counts the client requests sent through the load balancer's
// listener since the world's start.
type Requests struct {
	// Total = Served + Failed.
	Total, Served, Failed int
	// LongestOutage is the longest run of seconds in which requests
	// failed; zero when none did.
	LongestOutage time.Duration
}

// Requests returns the client traffic so far: a migration that keeps the
// service up leaves Failed at zero.
func (w *World) Requests() Requests {
	st := w.w.Traffic()
	return Requests{Total: st.Total, Served: st.Served, Failed: st.Failed, LongestOutage: st.Longest.Duration()}
}

// Calls returns the code under test's AWS calls so far by operation
// ("DescribeTargetHealth", "DeregisterTargets", "DescribeSecurityGroups",
// "GetServiceQuota"), of ELBv2, EC2 and Service Quotas, failed and
// throttled ones included; the controller stand-in's are not among them.
// With Options.Wire each HTTP request counts, the SDK's retries included.
func (w *World) Calls() map[string]int {
	out := w.w.AWSCounts()
	for op, n := range w.sq.Counts() {
		out[op] += n
	}
	return out
}

// NodeTargets returns how many targets of the world's target groups are a
// node's address (nodeIP:NodePort), live or ghost: zero once a migration
// has moved the target group to the pods.
func (w *World) NodeTargets() int { return len(w.w.NodeTargets()) }

// Ghosts returns how many registered targets, not draining, no node or
// pod holds the address of any more (or whose address came back to
// something that does not serve the Service): the targets that take
// requests and fail them, which diagnose's GhostTargets finding reports
// and the CLI's ghostsLeft counts. A draining target is not among them,
// even when its pod is gone: see [World.Draining].
func (w *World) Ghosts() int {
	n := 0
	for _, t := range w.w.Ghosts() {
		if t.State != elbv2types.TargetHealthStateEnumDraining {
			n++
		}
	}
	return n
}

// Draining returns how many registered targets are draining, in any of
// the world's target groups: deregistered, and removed once the target
// group's deregistration delay has passed. Under churn after a migration,
// the controller deregisters each evicted pod: those targets drain, and
// are not ghosts.
func (w *World) Draining() int {
	n := 0
	for _, arn := range w.w.TargetGroupARNs() {
		for _, t := range w.w.Targets(arn) {
			if t.State == elbv2types.TargetHealthStateEnumDraining {
				n++
			}
		}
	}
	return n
}

// ReplaceAllNodes has Karpenter replace every node (drift), spread over
// within of virtual time; the NodePool's budget and the pods' disruption
// budget may stretch it. The replacements run as the world runs.
func (w *World) ReplaceAllNodes(within time.Duration) error {
	if within < 0 {
		return optionsError("replace all nodes", "within", "is negative")
	}
	return w.w.ReplaceAllNodes(within)
}

// StopLBC stops the AWS Load Balancer Controller stand-in: it reconciles
// nothing until [World.StartLBC]; its webhooks still admit.
func (w *World) StopLBC() { w.w.LBC().Stop() }

// StartLBC starts the controller stand-in again (it resyncs every binding
// at once). ctx bounds that resync.
func (w *World) StartLBC(ctx context.Context) error { return w.w.LBC().Start(ctx) }

// Interface checks: the world's clients are the SDK's interfaces.
var (
	_ tgmigrate.ELBv2ReadAPI = readOnly{}
	_ clock.WithTicker       = (*vclock.Clock)(nil)
)
