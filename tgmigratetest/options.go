package tgmigratetest

// options.go: Options, Churn and its shapes, Timings, and the one error a
// bad option gives (ErrInvalidOptions, OptionsError), with the translation
// of the simulator's configuration into them.

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
	"github.com/qstools/tgmigrate/internal/sim/simopt"
	"github.com/qstools/tgmigrate/internal/sim/timing"
)

// The simulated world's account, region and cluster: every [World] has
// them. Give AccountID and Region to diagnose.Account, ClusterName to
// cutover.Env.ClusterName.
const (
	AccountID   = sim.DefaultAccountID
	Region      = sim.DefaultRegion
	ClusterName = sim.ClusterName
)

// Options configure a [World]. Every zero value means the default its
// comment gives; the zero Options are a fault-free world of 20 nodes and 60
// pods, with traffic and no scheduled churn.
type Options struct {
	// Seed seeds every random stream of the world: the same Options give
	// the same world, event for event. Zero is a valid seed.
	Seed uint64
	// Nodes is the number of Karpenter nodes at the start. Zero: 20.
	Nodes int
	// Pods is the replica count of the Service behind the target group.
	// Zero: 60.
	Pods int
	// RPS is the client traffic through the load balancer's listener, in
	// requests per second, which [World.Requests] counts. Zero: 20.
	// Negative: no traffic.
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
	// Wire serves the world's AWS over HTTP on 127.0.0.1 and gives the
	// code under test the real aws-sdk-go-v2 clients of it (see [Wire]).
	// Nil: the clients are Go values, with no HTTP.
	Wire *Wire
}

// Timings are the AWS timing assumptions of a world: how many passing
// checks a new target needs, the registration delay, the deregistration
// lag, the connect timeout, the controller's reaction, the latency of
// each ELBv2 and Kubernetes call, and whether freed addresses come back.
// Each field's comment gives its default and range; a negative duration
// switches a delay off. [World.Assumptions] gives what a plan made in the
// world should assume from them.
type Timings = timing.Timings

// ChurnShape is the kind of scheduled churn: how Karpenter disrupts nodes.
type ChurnShape = karpenter.Shape

// The churn shapes. Steady, wave and consolidation are graceful: the
// NodePool's budget and karpenter.sh/do-not-disrupt hold them (cutover's
// hold does). Expiry and spot are forceful: nothing holds an expiry or an
// interruption.
const (
	// ChurnSteady: every interval, Karpenter replaces the oldest node
	// (drift).
	ChurnSteady = karpenter.ShapeSteady
	// ChurnWave: every interval, Churn.Share of the nodes drift at once (a
	// new AMI); the budget paces their replacement.
	ChurnWave = karpenter.ShapeWave
	// ChurnConsolidation: at random intervals of mean Churn.Interval,
	// Karpenter consolidates the node with the fewest pods.
	ChurnConsolidation = karpenter.ShapeConsolidation
	// ChurnExpiry: every interval, the oldest node's NodeClaim expires
	// (the NodePool's expireAfter is the node count times the interval,
	// and the nodes' ages are spread); each replacement expires in turn.
	ChurnExpiry = karpenter.ShapeExpiry
	// ChurnSpot: at random intervals of mean Churn.Interval, EC2
	// interrupts a random node of a spot NodePool.
	ChurnSpot = karpenter.ShapeSpot
)

// Churn is Karpenter's scheduled churn. The zero value is no churn.
type Churn struct {
	// Shape is the kind of churn. Zero: [ChurnSteady].
	Shape ChurnShape
	// Interval is the time between disruptions (the mean one for
	// consolidation and spot, between waves for a wave, between expiries
	// for expiry). Zero: no scheduled churn.
	Interval time.Duration
	// Delay is the time from the world's start to the first disruption.
	// Zero: one Interval.
	Delay time.Duration
	// Share is the part of the nodes a wave drifts, a count or a
	// percentage. Zero: "50%".
	Share string
	// Budget is the NodePool's disruption budget, a count or a
	// percentage of the nodes. Zero: Karpenter's default, "10%".
	Budget string
}

// ErrInvalidOptions is the category of the error [NewWorld] and
// [World.Inject] return for a bad option: every [*OptionsError] unwraps to
// it. It is the simulator's one such category.
var ErrInvalidOptions = simopt.ErrInvalidOptions

// OptionsError names the option at fault, as its Options path (Field
// "Nodes", "Churn.Shape", "Timings.DeregistrationLag", "Fault.Op"), with
// Pkg "tgmigratetest" and Op the function that refused it ("new world",
// "inject"). It unwraps to [ErrInvalidOptions].
type OptionsError = simopt.OptionsError

// config is the simulator's configuration of o.
func (o Options) config() sim.Config {
	cfg := sim.Config{
		Seed: o.Seed, Nodes: o.Nodes, Pods: o.Pods, RPS: o.RPS, Timings: o.Timings,
		Legacy:                 sim.LegacyTargetGroup{TargetType: o.TargetType},
		ChurnInterval:          o.Churn.Interval,
		ChurnShape:             o.Churn.Shape,
		ChurnShare:             o.Churn.Share,
		ChurnDelay:             o.Churn.Delay,
		ReadinessGateInjection: o.ReadinessGateInjection,
		Fargate:                o.Fargate,
		// tgbind applies TargetGroupBindings server-side.
		ServerSideApply: true,
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
	return nil
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
