package tgmigratetest

// options.go: Options, Churn and its shapes, Timings, and the one error a
// bad option gives (ErrInvalidOptions, OptionsError), with the translation
// of the simulator's configuration into them.

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
	"github.com/qstools/tgmigrate/internal/sim/simopt"
	"github.com/qstools/tgmigrate/internal/sim/timing"
)

// The simulated world's account, region and cluster: every [World] has
// them. Give AccountID and Region to diagnose.Account, ClusterName to
// cutover.Env.ClusterName.
// A world of a [Fleet] has the account and cluster name its
// [ClusterOptions] give ([World.AccountID], [World.ClusterName]).
const (
	AccountID   = "123456789012"
	Region      = "us-east-1"
	ClusterName = "sim"
)

// Options configure a [World]. Every zero value means the default its
// comment gives; the zero Options are a fault-free world of 20 nodes and 60
// pods, with traffic and no scheduled churn.
type Options struct {
	// fleet places the world in a fleet ([NewFleet]): its clock, account
	// and cluster name. Zero: a world of its own.
	fleet fleetPlace
	// Seed seeds every random stream of the world: the same Options give
	// the same world, event for event. Zero is a valid seed.
	Seed uint64
	// Nodes is the number of Karpenter nodes at the start, 1 to
	// [MaxNodes]. Zero: 20.
	Nodes int
	// Pods is the replica count of the Service behind the target group,
	// 1 to [MaxPods]. Zero: 60.
	Pods int
	// RPS is the client traffic through the load balancer's listener, in
	// requests per second, which [World.Requests] counts, at most
	// [MaxRPS]. Zero: 20. Negative: no traffic.
	RPS int
	// TargetType is the hand-made target group's type: "ip" (every node's
	// nodeIP:NodePort, which cutover's in-place strategy moves) or
	// "instance" (every node's instance, which the blue/green strategy
	// moves). Zero: "ip".
	TargetType string
	// Churn is the scheduled churn of Karpenter. Zero: none (churn on
	// demand with [World.ReplaceAllNodes]).
	Churn Churn
	// ReadinessGateInjection labels the Service's namespace for the AWS Load
	// Balancer Controller's pod readiness gate, as a well-prepared cluster
	// is: pods created behind an ip-mode binding get the gate, and
	// cutover's plan has no pod-settings precondition. Zero: not labelled.
	ReadinessGateInjection bool
	// Fargate gives the Service's namespace an EKS Fargate profile: each
	// of its pods runs on a Node of its own (label
	// eks.amazonaws.com/compute-type: fargate) whose InternalIP is the
	// pod's address and which serves no NodePort, and an ip target group
	// pins each such pod by its address besides the Karpenter nodes'
	// nodeIP:NodePort. Zero: every pod on the Karpenter nodes.
	Fargate bool
	// StoppedLBC starts the world with the AWS Load Balancer Controller
	// stand-in not running: a TargetGroupBinding is admitted by its webhook
	// but never reconciled, until [World.StartLBC]. Zero: running.
	StoppedLBC bool
	// Timings are the AWS timing assumptions of the world. Each zero knob
	// is its default, but for two: a zero ELBv2Latency or KubeLatency is
	// none here (calls take no virtual time), where the simulator's
	// default is 50 ms and 10 ms. Diagnose reads with concurrent workers,
	// and the world's clock is driven by one goroutine at a time: set a
	// latency only for code that calls from one goroutine (cutover,
	// tgbind), or run Diagnose with diagnose.WithConcurrency(1).
	Timings Timings
	// Move builds the world of step 4, the move to private subnets: the
	// nodes in public subnets, private ones beside them, EC2's subnets,
	// route tables and endpoints, Karpenter's EC2NodeClass (see [Move]).
	// Nil: none, the world of steps 1 to 3.
	Move *Move
	// Apps are the world's other applications besides the seed's, each
	// with its own hand-made target group behind a listener rule of the
	// world's ALB or of an ALB it shares with other apps, and its own
	// traffic (see [App]; [World.Apps], [World.RequestsOf]). At most
	// [MaxApps]; not with Fargate or Move. Nil: the seed's application
	// alone.
	Apps []App
	// TargetsPerLoadBalancer is the "Targets per Application Load
	// Balancer" quota (L-7E6692B2) of the world's account: what its ELBv2
	// enforces on every ALB (RegisterTargets, and a listener or rule that
	// would take an ALB above it, fail with TooManyTargets) and what its
	// Service Quotas answers ([World.ServiceQuotas]), so that a world of a
	// few nodes can be near its quota. 1 to [MaxTargetsPerLoadBalancer],
	// and no fewer than the targets an ALB starts with (one per node for
	// each hand-made target group behind it, and with Fargate one per pod
	// of the seed's); the clusters of one
	// account in a [Fleet] give the same. Zero: 1,000, AWS's default.
	TargetsPerLoadBalancer int
	// Wire serves the world's AWS over HTTP on 127.0.0.1 and gives the
	// code under test the real aws-sdk-go-v2 clients of it (see [Wire]).
	// Nil: the clients are Go values, with no HTTP.
	Wire *Wire
}

// Timings are the AWS timing assumptions of a world: how many passing
// checks a new target needs, the registration delay, the deregistration
// lag, the connect timeout, the controller's reaction, the latency of
// each ELBv2 and Kubernetes call, and whether freed addresses come back.
// Every zero value means the default its comment gives; a negative
// duration switches a delay off. [World.Assumptions] gives what a plan made
// in the world should assume from them. A knob out of its range is an
// [*OptionsError] naming it ("Timings.DeregistrationLag").
type Timings struct {
	// NewTargetChecks is how many consecutive passing health checks a
	// newly registered target needs before it is healthy: 1 to 10, or
	// tgmigrate.HealthyThreshold (-1: the target group's
	// HealthyThresholdCount). Zero: 1 (the ALB user guide).
	NewTargetChecks int
	// RegistrationDelay is how long a new target stays initial
	// (Elb.RegistrationInProgress) before its first health check, at most
	// 1 minute. Zero: 10 s. Negative: none.
	RegistrationDelay time.Duration
	// DeregistrationLag is how long load balancer nodes keep sending new
	// requests to a target after it is deregistered (or its instance
	// terminated), at most 10 minutes. Zero: 15 s. Negative: none.
	DeregistrationLag time.Duration
	// ConnectTimeout is how long the load balancer waits for a connection
	// to an address nobody holds before it answers 504, at most 2
	// minutes. Zero: 10 s. Negative: such a request fails at once with 502.
	ConnectTimeout time.Duration
	// FailOpenInitial: when the load balancer fails open (no healthy
	// target), targets still initial get requests too, not only unhealthy
	// ones. Zero: false.
	FailOpenInitial bool
	// ControllerReaction is the AWS Load Balancer Controller's delay from
	// a watched change to its reconcile, at most 5 minutes. Zero: 30 ms.
	// Negative: none.
	ControllerReaction time.Duration
	// ELBv2Latency is the virtual time each ELBv2 API call takes, at most
	// 30 s. Zero here: none (see Options.Timings).
	ELBv2Latency time.Duration
	// KubeLatency is the virtual time each Kubernetes API call takes, at
	// most 30 s. Zero here: none (see Options.Timings).
	KubeLatency time.Duration
	// IPReuse says whether freed addresses come back. Zero: they do not.
	IPReuse IPReuse
}

// IPReuse says whether and how freed addresses are handed out again, as
// the VPC CNI and EC2 do: a ghost target's address may then come back as
// another node's or pod's.
type IPReuse struct {
	// Enabled hands a freed address out again once its cool-down has
	// passed, before any address never used. Zero: every address is handed
	// out once.
	Enabled bool
	// CoolDown is how long a freed address rests first, at most an hour.
	// Zero: 30 s (the VPC CNI's IP_COOLDOWN_PERIOD default).
	CoolDown time.Duration
	// To is who may take it. Zero: [IPHolderAny].
	To IPHolder
}

// IPHolder is who may take a reused address.
type IPHolder string

// The holders of a reused address.
const (
	// IPHolderAny: whichever asks first, a new node or a new pod.
	IPHolderAny IPHolder = "any"
	// IPHolderNode: only a new node (EC2 gives the address to a new
	// instance).
	IPHolderNode IPHolder = "node"
	// IPHolderPod: only a new pod (the VPC CNI gives it to a pod).
	IPHolderPod IPHolder = "pod"
)

// timings is the simulator's form of t.
func (t Timings) timings() timing.Timings {
	return timing.Timings{
		NewTargetChecks: t.NewTargetChecks, RegistrationDelay: t.RegistrationDelay, DeregistrationLag: t.DeregistrationLag,
		ConnectTimeout: t.ConnectTimeout, FailOpenInitial: t.FailOpenInitial, ControllerReaction: t.ControllerReaction,
		ELBv2Latency: t.ELBv2Latency, KubeLatency: t.KubeLatency,
		IPReuse: timing.IPReuse{Enabled: t.IPReuse.Enabled, CoolDown: t.IPReuse.CoolDown, To: timing.Holder(t.IPReuse.To)},
	}
}

// ChurnShape is the kind of scheduled churn: how Karpenter disrupts nodes.
type ChurnShape string

// The churn shapes. Steady, wave and consolidation are graceful: the
// NodePool's budget and karpenter.sh/do-not-disrupt hold them (cutover's
// hold does). Expiry and spot are forceful: nothing holds an expiry or an
// interruption.
const (
	// ChurnSteady: every interval, Karpenter replaces the oldest node
	// (drift).
	ChurnSteady ChurnShape = "steady"
	// ChurnWave: every interval, Churn.Share of the nodes drift at once (a
	// new AMI); the budget paces their replacement.
	ChurnWave ChurnShape = "wave"
	// ChurnConsolidation: at random intervals of mean Churn.Interval,
	// Karpenter consolidates the node with the fewest pods.
	ChurnConsolidation ChurnShape = "consolidation"
	// ChurnExpiry: every interval, the oldest node's NodeClaim expires
	// (the NodePool's expireAfter is the node count times the interval,
	// and the nodes' ages are spread); each replacement expires in turn.
	ChurnExpiry ChurnShape = "expiry"
	// ChurnSpot: at random intervals of mean Churn.Interval, EC2
	// interrupts a random node of a spot NodePool.
	ChurnSpot ChurnShape = "spot"
)

// churnShapes are the shapes, in the order an error lists them.
var churnShapes = []ChurnShape{ChurnSteady, ChurnWave, ChurnConsolidation, ChurnExpiry, ChurnSpot}

// Churn is Karpenter's scheduled churn. The zero value is no churn.
type Churn struct {
	// Shape is the kind of churn. Zero: [ChurnSteady].
	Shape ChurnShape
	// Interval is the time between disruptions (the mean one for
	// consolidation and spot, between waves for a wave, between expiries
	// for expiry), [MinChurnInterval] to [MaxChurnInterval]. Zero: no
	// scheduled churn.
	Interval time.Duration
	// Delay is the time from the world's start to the first disruption,
	// at most [MaxChurnInterval]. Zero: one Interval.
	Delay time.Duration
	// Share is the part of the nodes a wave drifts, a count of at least 1
	// ("2") or a percentage of 1 to 100 ("25%"). Zero: "50%".
	Share string
	// Budget is the NodePool's disruption budget, a count ("1"; "0"
	// blocks graceful disruption) or a percentage of 0 to 100 of the
	// nodes. Zero: Karpenter's default, "10%".
	Budget string
}

// ErrInvalidOptions is the category of the error [NewWorld], [NewFleet]
// and [World.Inject] return for a bad option: every [*OptionsError]
// unwraps to it.
var ErrInvalidOptions = errors.New("invalid options")

// OptionsError names the option at fault, as its Options path (Field
// "Nodes", "Churn.Shape", "Timings.DeregistrationLag", "Fault.Op"), with
// Pkg "tgmigratetest" and Op the function that refused it ("new world",
// "new fleet", "inject"). It unwraps to [ErrInvalidOptions].
type OptionsError struct {
	// Pkg is the package that refused the option: "tgmigratetest".
	Pkg string
	// Op is the function that refused it: "new world", "inject".
	Op string
	// Field is the option's path in Options (or Fault), for example
	// "Churn.Interval".
	Field string
	// Reason is one line saying what is wrong with it and, for a number,
	// the range accepted.
	Reason string
}

// Error implements error: "tgmigratetest: new world: invalid options:
// Nodes: 100000 is above 1000 (...)".
func (e *OptionsError) Error() string {
	return fmt.Sprintf("%s: %s: %v: %s: %s", e.Pkg, e.Op, ErrInvalidOptions, e.Field, e.Reason)
}

// Unwrap returns [ErrInvalidOptions].
func (e *OptionsError) Unwrap() error { return ErrInvalidOptions }

// config is the simulator's configuration of o.
func (o Options) config() sim.Config {
	cfg := sim.Config{
		Seed: o.Seed, Nodes: o.Nodes, Pods: o.Pods, RPS: o.RPS, Timings: o.Timings.timings(),
		Legacy:                 sim.LegacyTargetGroup{TargetType: o.TargetType},
		ChurnInterval:          o.Churn.Interval,
		ChurnShape:             karpenter.Shape(o.Churn.Shape),
		ChurnShare:             o.Churn.Share,
		ChurnDelay:             o.Churn.Delay,
		ReadinessGateInjection: o.ReadinessGateInjection,
		Fargate:                o.Fargate,
		// tgbind applies TargetGroupBindings server-side.
		ServerSideApply: true,
		Clock:           o.fleet.clock,
		Waits:           o.fleet.waits,
		AccountID:       cmp.Or(o.fleet.account, AccountID),
		ClusterName:     cmp.Or(o.fleet.cluster, ClusterName),
		Apps:            o.appsSim(),
		Quotas:          elbv2model.Quotas{TargetsPerLoadBalancer: o.TargetsPerLoadBalancer},
	}
	// No API latency by default: see Options.Timings.
	for _, d := range []*time.Duration{&cfg.Timings.ELBv2Latency, &cfg.Timings.KubeLatency} {
		if *d == 0 {
			*d = -1
		}
	}
	if o.Churn.Budget != "" {
		cfg.NodePool.Budgets = []karpenter.Budget{{Nodes: o.Churn.Budget}}
	}
	if o.Churn.Shape == ChurnSpot {
		cfg.NodePool.CapacityType = "spot"
	}
	if s := o.fleet.shared; s != nil {
		// A cluster that shares its account: a VPC of its own, and names
		// of its own in the account's ELBv2 service.
		cfg.Account = s.account
		cfg.VPCID = fmt.Sprintf("vpc-0a1b2c3d4e5f6%04x", 0x0718+s.index)
		cfg.VPCCIDR = fmt.Sprintf("10.%d.0.0/16", s.index)
		cfg.Legacy.Name = "legacy-web-" + o.fleet.cluster
		cfg.Legacy.LoadBalancerName = "legacy-alb-" + o.fleet.cluster
	}
	o.Move.apply(&cfg)
	cfg.Wire = o.Wire.config()
	return cfg
}

// check refuses what the simulator would take for something else: a
// shape, share or budget given without an interval schedules nothing, and
// a churn the simulator only checks once it starts.
func (o Options) check() error {
	if err := o.Move.check(); err != nil {
		return err
	}
	if err := o.Wire.check(); err != nil {
		return err
	}
	c := o.Churn
	switch {
	case c.Interval < 0:
		return optionsError("new world", "Churn.Interval", "is negative")
	case c.Interval == 0 && (c.Shape != "" || c.Share != "" || c.Delay != 0):
		return optionsError("new world", "Churn.Interval", "is required with a Shape, Share or Delay")
	}
	if err := o.checkBounds(); err != nil {
		return err
	}
	return o.checkApps("legacy-web", "legacy-alb")
}

// optionsError is an [*OptionsError] of this package.
func optionsError(op, field, reason string) error {
	return &OptionsError{Pkg: "tgmigratetest", Op: op, Field: field, Reason: reason}
}

// simFields maps the simulator's Config fields (and Karpenter's, prefixed
// "karpenter.") to the Options path a user sets.
var simFields = map[string]string{
	"ChurnInterval":                   "Churn.Interval",
	"ChurnDelay":                      "Churn.Delay",
	"Legacy.TargetType":               "TargetType",
	"karpenter.Shape":                 "Churn.Shape",
	"karpenter.Share":                 "Churn.Share",
	"karpenter.Interval":              "Churn.Interval",
	"karpenter.NodePool.CapacityType": "Churn.Shape",
}

// newWorldError translates an error of sim.New into the kit's: an
// [*OptionsError] naming the Options field when an option was at fault,
// the error wrapped otherwise.
func newWorldError(err error) error {
	var ce *sim.ConfigError
	if errors.As(err, &ce) {
		return optionsError("new world", fieldOf(ce.Field), ce.Reason)
	}
	var ke *karpenter.ConfigError
	if errors.As(err, &ke) {
		return optionsError("new world", fieldOf("karpenter."+ke.Field), ke.Reason)
	}
	var oe *simopt.OptionsError
	if errors.As(err, &oe) {
		return optionsError("new world", oe.Field, oe.Reason)
	}
	return fmt.Errorf("tgmigratetest: new world: %w", err)
}

// fieldOf is the Options path of a simulator's field.
func fieldOf(field string) string {
	if f, ok := simFields[field]; ok {
		return f
	}
	if strings.HasPrefix(field, "karpenter.NodePool.Budgets") {
		return "Churn.Budget"
	}
	return strings.TrimPrefix(field, "karpenter.")
}
