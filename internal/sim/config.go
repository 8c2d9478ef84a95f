package sim

// config.go: Config and its defaults and validation (Validate), ConfigError, the
// Default constants and ClusterName, and PodSettings and SafePodSettings.

import (
	"errors"
	"fmt"
	"time"

	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/envelope"
	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
	"github.com/qstools/tgmigrate/internal/sim/lbc"
	"github.com/qstools/tgmigrate/internal/sim/timing"
	"github.com/qstools/tgmigrate/internal/sim/traffic"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// Defaults of [Config].
const (
	DefaultNodes     = 20
	DefaultPods      = 60
	DefaultRPS       = 20
	DefaultNamespace = "shop"
	DefaultService   = "web"
	// NeighbourService is the second application of Config.Neighbours.
	NeighbourService     = "cart"
	DefaultNodePort      = int32(30080)
	DefaultServicePort   = int32(80)
	DefaultContainerPort = int32(8080)
	// LegacyPreStop is the preStop sleep of the seed's original app, the
	// one teams that moved in a hurry have: shorter than the
	// deregistration lag at most points of the envelope.
	LegacyPreStop    = 15 * time.Second
	DefaultWarmUp    = 10 * time.Minute
	DefaultRegion    = "us-east-1"
	DefaultAccountID = "123456789012"
)

// ClusterName is the name of the world's cluster: the LBC stand-in's
// --cluster-name, and the kubernetes.io/cluster/<ClusterName> tag of the
// nodes' security group.
const ClusterName = "sim"

// ErrInvalidConfig: a [Config] field is invalid; nothing was built.
var ErrInvalidConfig = errors.New("invalid configuration")

// ConfigError names the field at fault. It unwraps to [ErrInvalidConfig].
type ConfigError struct {
	// Field is the Config field, for example "Nodes".
	Field string
	// Reason says what is wrong with it.
	Reason string
}

// Error implements error.
func (e *ConfigError) Error() string { return fmt.Sprintf("sim: new: %s: %s", e.Field, e.Reason) }

// Unwrap returns [ErrInvalidConfig].
func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

// Config describes a world: the seed's case (a hand-made ip target group of
// nodeIP:NodePort targets behind an ALB listener, a NodePort Service with
// pods, Karpenter nodes) and how it is stressed. Every zero value means the
// default its comment gives.
type Config struct {
	// Seed seeds every random stream of the world. The same Config gives
	// the same event log.
	Seed uint64
	// Timings holds every AWS timing assumption of the world (new-target
	// checks, registration delay, deregistration lag, connect timeout,
	// fail-open of initial targets, the LBC's reaction, API latencies, IP
	// reuse). Each zero knob is its documented default: package timing's
	// table.
	Timings timing.Timings
	// Nodes is the number of nodes at the start. Zero: [DefaultNodes].
	Nodes int
	// Pods is the replica count of the Service's workload. Zero:
	// [DefaultPods].
	Pods int
	// Neighbours is the replica count of a second application in the
	// namespace, [NeighbourService] (a ClusterIP Service, pods on the same
	// container port, no PodDisruptionBudget), which Karpenter's churn
	// moves too: with Timings.IPReuse, the addresses the Service's pods
	// and the nodes free can come back as its pods'. Zero: none.
	Neighbours int
	// RPS is the client traffic through the ALB listener, in requests per
	// second. Zero: [DefaultRPS]. Negative: no traffic.
	RPS int
	// PublicSubnets puts the nodes in public subnets, with ExternalIPs.
	PublicSubnets bool
	// Fargate gives the Service's namespace ([DefaultNamespace]) an EKS
	// Fargate profile (cluster.Options.FargateNamespace): each of its pods
	// runs on a Node of its own whose InternalIP is the pod's address and
	// which serves no NodePort, beside the Karpenter nodes, which serve
	// the NodePort (kube-proxy forwards to the Fargate pods). The
	// hand-made ip target group then pins each of the Service's Fargate
	// pods by its address too (podIP:containerPort, the only way to reach
	// a Fargate pod) besides every Karpenter node's nodeIP:NodePort; an
	// instance target group pins the nodes' instances only. Zero: no
	// Fargate profile.
	Fargate bool
	// ChurnInterval starts scheduled churn: every interval the oldest node
	// is queued for disruption (see ChurnShape for the other shapes). Zero:
	// no scheduled churn (use [World.ReplaceAllNodes] or [World.Karpenter]).
	ChurnInterval time.Duration
	// ChurnReasons are the reasons of the scheduled disruptions, in turn
	// (steady churn). Nil: Drifted.
	ChurnReasons []karpenter.Reason
	// ChurnShape is the kind of scheduled churn (karpenter.Shapes): steady
	// (the oldest node every ChurnInterval), wave (ChurnShare of the nodes
	// drifted every ChurnInterval, paced by the NodePool's budget),
	// consolidation (at random intervals of mean ChurnInterval), expiry
	// (one node's NodeClaim expiring every ChurnInterval, oldest first:
	// the NodePool's expireAfter becomes Nodes x ChurnInterval, replacing
	// NodePool.ExpireAfter, and the nodes' ages are spread; forceful) or
	// spot (at random intervals of mean ChurnInterval). Zero: steady.
	ChurnShape karpenter.Shape
	// ChurnShare is the share of the nodes a wave drifts. Zero: "50%".
	ChurnShare string
	// ChurnDelay is the time from [World.Start] to the first scheduled
	// disruption. Zero: one ChurnInterval.
	ChurnDelay time.Duration
	// NodePool configures Karpenter's pool (budgets, expiry, grace period,
	// capacity type). Its Public field is set from PublicSubnets.
	NodePool karpenter.NodePool
	// LaunchDelay is the time a new node takes to be Ready. Zero:
	// karpenter.DefaultLaunchDelay.
	LaunchDelay time.Duration
	// Legacy configures the hand-made target group.
	Legacy LegacyTargetGroup
	// Workload configures the pods behind the Service.
	Workload Workload
	// ReadinessGateInjection labels the namespace
	// elbv2.k8s.aws/pod-readiness-gate-inject=enabled from the start, so
	// pods created after an ip-mode binding exists get its readiness gate.
	ReadinessGateInjection bool
	// SUT configures the faults and latency of the system under test's
	// ELBv2 client; its Name is set to "sut". A rate Throttle given here
	// is shared with the LBC's client, as both spend the same account's
	// quota, and so is a Consistency, as both read the same service: a
	// target group the system under test creates is then invisible to the
	// LBC stand-in too (its webhooks and its reconciles) until the
	// Consistency's delay for "lbc" has passed. InvisibleCalls stays the
	// system under test's alone.
	SUT elbv2sim.Options
	// Client is the Kubernetes API the world lives in. Nil: a fake client
	// (cluster.NewFakeClient). With a real API server (envtest) the
	// PodDisruptionBudget check of evictions is left to the server.
	Client client.Client
	// PodPortBlocked leaves out of the nodes' security group (the pods'
	// under the VPC CNI) the rule that lets the load balancer reach the
	// pods' port: only the NodePort range is allowed, as on a cluster made
	// for instance targets. A pod target is then never healthy, until a
	// binding's spec.networking has the controller authorize the port.
	PodPortBlocked bool
	// KubeFaults injects faults into the fake client. Ignored with Client.
	KubeFaults *interceptor.Funcs
	// ServerSideApply gives TargetGroupBindings real server-side apply
	// on the fake client (field ownership, conflicts, managedFields);
	// every other kind keeps the plain tracker, so it costs little. Ignored
	// with Client. See cluster.FakeOptions.
	ServerSideApply bool
	// Quotas are the ELBv2 service quotas the model enforces (targets per
	// target group and per load balancer, and the others of
	// elbv2model.Quotas), for a world near a quota without thousands of
	// targets. Each zero field: AWS's default.
	Quotas elbv2model.Quotas
	// Move builds the world of step 4, the move to private subnets: the
	// VPC's subnets, route tables and endpoints in EC2, Karpenter's
	// EC2NodeClass, and the load balancer's zones. Zero: none of them
	// (the worlds of steps 1 to 3 are unchanged by it).
	Move MoveWorld
	// WrapLBCELBv2, when set, wraps the LBC stand-in's ELBv2 client, for
	// example in a gomock mock that delegates to it with DoAndReturn and
	// asserts the LBC's call contract.
	WrapLBCELBv2 func(lbc.ELBv2API) lbc.ELBv2API
	// LBCRequeueAfter is the LBC's target-health requeue. Zero: 15 s.
	LBCRequeueAfter time.Duration
	// LBCSyncPeriod is the LBC's periodic resync: every period from
	// [World.Start] every binding is reconciled, whether or not a watch
	// reported a change. Zero: lbc.DefaultSyncPeriod, the LBC's
	// --sync-period default of 10 h, which a scenario of minutes never
	// reaches. A resync whose endpoints are unchanged is cut short by the
	// checkpoint.
	LBCSyncPeriod time.Duration
	// EndpointDelay and ProxyDelay are the EndpointSlice controller's and
	// kube-proxy's lags. Zero: 1 s each. Negative: none.
	EndpointDelay, ProxyDelay time.Duration
	// WarmUp bounds the warm-up New runs until every legacy target is
	// healthy. Zero: [DefaultWarmUp].
	WarmUp time.Duration
	// Clock is the world's virtual clock. Nil: a clock of its own, at
	// vclock.Epoch. Worlds given the same clock share one time line (a
	// fleet): each world's events run as any of them, or the code under
	// test in any of them, waits on it; each world's scenario starts when
	// its own warm-up ends ([World.Start]). The clock serialises the
	// goroutines that move it: waits of code running in several goroutines
	// add up rather than overlap, unless they wait on a clock that
	// overlaps them (Waits).
	Clock *vclock.Clock
	// Waits is the clock the system under test's API latencies
	// (Timings.ELBv2Latency, KubeLatency) are waited on, in its
	// goroutines: a fleet's clock, on which the code under test of several
	// worlds waits at once in virtual time (package tgmigratetest's
	// Fleet.Parallel). It must run Clock's events as it waits. Nil:
	// Clock.
	Waits clock.Clock
	// AccountID is the world's AWS account: its ARNs', its security
	// groups' and its IAM refusals'. Zero: [DefaultAccountID].
	AccountID string
	// Account is the AWS account whose ELBv2 service the world shares with
	// the other worlds given it, each a cluster in a VPC of its own
	// (VPCID, VPCCIDR: distinct, with CIDRs that do not overlap), on one
	// Clock, with one AccountID and the same service timings (see
	// [Account]); the names of the seed's ALB and target group
	// (Legacy.Name, Legacy.LoadBalancerName) must differ between them.
	// Not with Move. Nil: an ELBv2 service of the world's own.
	Account *Account
	// VPCID and VPCCIDR are the cluster's VPC and its IPv4 CIDR (package
	// cluster's Options). Zero: cluster.DefaultVPCID and DefaultVPCCIDR.
	VPCID, VPCCIDR string
	// ClusterName is the world's cluster: the LBC stand-in's
	// --cluster-name, the tags of the nodes' security group and subnets.
	// Zero: [ClusterName].
	ClusterName string
	// Apps are the world's other applications, each a NodePort Service
	// with its pods, its own hand-made target group of every initial
	// node's nodeIP:NodePort behind a listener rule of the world's ALB
	// (or of an ALB it shares with other apps), and its own client
	// traffic (see [App]; [World.Apps], [World.TrafficOf]). Not with
	// Fargate or Move. Nil: the seed's application alone, the world
	// event for event as without the field.
	Apps []App
	// Wire routes ELBv2 traffic through the real aws-sdk-go-v2 client and
	// an ELBv2 Query-protocol endpoint on loopback (package elbv2wire): the
	// system under test's ([World.AWS]) and, unless Wire.FacadeLBC, the LBC
	// stand-in's. The facades behind the endpoints, and so the model, the
	// counts and the faults of SUT, are the same. Call [World.Close] when
	// done. Nil: the Go facade only.
	Wire *WireOptions
}

// WireOptions configure [Config].Wire. Every zero value means the default
// its comment gives.
type WireOptions struct {
	// Client configures the real SDK clients: retries (the SDK's standard
	// retryer, 3 attempts, by default), backoff (milliseconds of real
	// time), region ([DefaultRegion]). Set MaxAttempts to 1 where a test
	// counts the library's own retries exactly. For the system under
	// test's client the world adds a BeforeAttempt that spends Config.SUT's
	// latency on the virtual clock, before the caller's own BeforeAttempt.
	Client elbv2wire.ClientOptions
	// FacadeLBC keeps the LBC stand-in on the Go facade. Zero: its calls
	// go through an endpoint of their own too.
	FacadeLBC bool
}

// LegacyTargetGroup is the hand-made target group of the seed's case.
// Zero values are the ELBv2 defaults or the stated ones.
type LegacyTargetGroup struct {
	// Name of the target group. Zero: "legacy-web".
	Name string
	// LoadBalancerName is the ALB's name. Zero: "legacy-alb".
	LoadBalancerName string
	// TargetType is "ip" (every node's nodeIP:NodePort, the seed's case)
	// or "instance" (every node's instance ID on the NodePort, the case
	// cutover's blue/green strategy handles: a target type cannot change).
	// Zero: "ip".
	TargetType string
	// HealthCheckPath. Zero: "/".
	HealthCheckPath string
	// HealthCheckPort. Zero: "traffic-port".
	HealthCheckPort string
	// HealthCheckIntervalSeconds. Zero: 30.
	HealthCheckIntervalSeconds int32
	// HealthCheckTimeoutSeconds. Zero: 5.
	HealthCheckTimeoutSeconds int32
	// HealthyThresholdCount. Zero: 5.
	HealthyThresholdCount int32
	// UnhealthyThresholdCount. Zero: 2.
	UnhealthyThresholdCount int32
	// DeregistrationDelay is deregistration_delay.timeout_seconds. Nil:
	// 300 s.
	DeregistrationDelay *time.Duration
}

// Workload configures the Service's pods. See cluster.Workload for the
// meaning of each field.
type Workload struct {
	// PreStop sleep. Zero: the product's safe value for the world's own
	// timings, [SafePodSettings] (the deregistration lag plus the
	// controller's delay: 25 s at the default lag of 15 s). Negative: no
	// preStop hook. [LegacyPreStop] is the seed's original app's.
	PreStop time.Duration
	// TerminationGracePeriod. Zero: the product's safe value for the
	// world's timings, [SafePodSettings] (the preStop plus 30 s); with an
	// explicit PreStop, the cluster package's default (30 s) unless set.
	TerminationGracePeriod time.Duration
	// StartupDelay, ReadinessDelay. Zero: the cluster package's defaults
	// (5 s, 5 s).
	StartupDelay, ReadinessDelay time.Duration
	// ReadinessPath. Zero: "/healthz".
	ReadinessPath string
	// MaxUnavailable of the PodDisruptionBudget, a count or a percentage.
	// Zero: "1". "none": no PodDisruptionBudget.
	MaxUnavailable string
	// DoNotDisrupt annotates the pods karpenter.sh/do-not-disrupt.
	DoNotDisrupt bool
}

// Validate checks cfg as [New] does, its defaults applied to a copy, and
// builds nothing: a bad field is a [*ConfigError] naming it.
func (cfg Config) Validate() error { return cfg.defaults() }

func (cfg *Config) defaults() error {
	bad := func(field, reason string) error { return &ConfigError{Field: field, Reason: reason} }
	switch {
	case cfg.Nodes < 0:
		return bad("Nodes", "is negative")
	case cfg.Pods < 0:
		return bad("Pods", "is negative")
	case cfg.ChurnInterval < 0:
		return bad("ChurnInterval", "is negative")
	case cfg.WarmUp < 0:
		return bad("WarmUp", "is negative")
	case cfg.LBCSyncPeriod < 0:
		return bad("LBCSyncPeriod", "is negative")
	case cfg.Account != nil && cfg.Move.Enabled:
		return bad("Move", "a world of a shared Account cannot be step 4's: the ELBv2 service takes its targets' zones from one cluster")
	case cfg.Neighbours < 0:
		return bad("Neighbours", "is negative")
	case cfg.ChurnDelay < 0:
		return bad("ChurnDelay", "is negative")
	case cfg.AccountID != "" && !awserr.ValidAccountID(cfg.AccountID):
		return bad("AccountID", fmt.Sprintf("%q is not 12 digits", cfg.AccountID))
	case cfg.RPS > traffic.MaxRPS:
		return bad("RPS", fmt.Sprintf("%d is above %d", cfg.RPS, traffic.MaxRPS))
	}
	switch cfg.Move.PrivateEgress {
	case "":
		cfg.Move.PrivateEgress = EgressNAT
	case EgressNAT, EgressEndpoints, EgressNone:
	default:
		return bad("Move.PrivateEgress", fmt.Sprintf("%q is not %s, %s or %s", cfg.Move.PrivateEgress, EgressNAT, EgressEndpoints, EgressNone))
	}
	if cfg.Move.LoadBalancerZones != nil && len(cfg.Move.LoadBalancerZones) < 2 {
		return bad("Move.LoadBalancerZones", fmt.Sprintf("%d zones: an ALB enables at least two", len(cfg.Move.LoadBalancerZones)))
	}
	if err := cfg.Timings.Validate(); err != nil {
		var ie *timing.InvalidError
		if errors.As(err, &ie) {
			return bad("Timings."+ie.Knob, ie.Reason)
		}
		return bad("Timings", err.Error())
	}
	cfg.Timings = cfg.Timings.WithDefaults()
	if wo := cfg.Wire; wo != nil {
		switch {
		case wo.Client.Region != "" && wo.Client.Region != DefaultRegion:
			return bad("Wire.Client.Region", fmt.Sprintf("%q is not the world's region, %s", wo.Client.Region, DefaultRegion))
		case wo.Client.MaxAttempts < 0:
			return bad("Wire.Client.MaxAttempts", "is negative")
		case wo.Client.MaxBackoff < 0:
			return bad("Wire.Client.MaxBackoff", "is negative")
		case wo.Client.Timeout < 0:
			return bad("Wire.Client.Timeout", "is negative")
		}
	}
	if cfg.AccountID == "" {
		cfg.AccountID = DefaultAccountID
	}
	if cfg.ClusterName == "" {
		cfg.ClusterName = ClusterName
	}
	if cfg.Nodes == 0 {
		cfg.Nodes = DefaultNodes
	}
	if cfg.Pods == 0 {
		cfg.Pods = DefaultPods
	}
	if cfg.RPS == 0 {
		cfg.RPS = DefaultRPS
	}
	if cfg.WarmUp == 0 {
		cfg.WarmUp = DefaultWarmUp
	}
	for _, d := range []*time.Duration{&cfg.EndpointDelay, &cfg.ProxyDelay} {
		switch {
		case *d == 0:
			*d = time.Second
		case *d < 0:
			*d = 0
		}
	}
	l := &cfg.Legacy
	if l.Name == "" {
		l.Name = "legacy-web"
	}
	if l.LoadBalancerName == "" {
		l.LoadBalancerName = "legacy-alb"
	}
	switch l.TargetType {
	case "":
		l.TargetType = string(elbv2types.TargetTypeEnumIp)
	case string(elbv2types.TargetTypeEnumIp), string(elbv2types.TargetTypeEnumInstance):
	default:
		return bad("Legacy.TargetType", fmt.Sprintf("%q is neither ip nor instance", l.TargetType))
	}
	if l.HealthCheckPath == "" {
		l.HealthCheckPath = "/"
	}
	if l.HealthCheckPort == "" {
		l.HealthCheckPort = "traffic-port"
	}
	if l.HealthCheckIntervalSeconds == 0 {
		l.HealthCheckIntervalSeconds = 30
	}
	if l.HealthCheckTimeoutSeconds == 0 {
		l.HealthCheckTimeoutSeconds = 5
	}
	if l.HealthyThresholdCount == 0 {
		l.HealthyThresholdCount = 5
	}
	if l.UnhealthyThresholdCount == 0 {
		l.UnhealthyThresholdCount = 2
	}
	if l.DeregistrationDelay == nil {
		d := 300 * time.Second
		l.DeregistrationDelay = &d
	}
	cfg.Workload.defaults(cfg.Timings)
	return cfg.appDefaults()
}

// PodSettings are a workload's shutdown settings.
type PodSettings struct {
	// PreStop is the preStop sleep; TerminationGracePeriod the pod's
	// terminationGracePeriodSeconds.
	PreStop, TerminationGracePeriod time.Duration
}

// SafePodSettings returns the settings the product recommends for a world
// of timings t: a preStop that outlasts the deregistration lag and the
// controller's delay, and a grace period 30 s longer (package envelope).
// At the envelope's worst lag (Timings.DeregistrationLag 120 s) they are
// what helmgov writes and what cutover's plan asks for by default.
func SafePodSettings(t timing.Timings) PodSettings {
	a := t.Assumptions(envelope.DefaultControllerDelay)
	return PodSettings{PreStop: a.SafePreStop(), TerminationGracePeriod: a.SafeTerminationGracePeriod()}
}

// MoveWorld configures the world of step 4 ([Config].Move).
type MoveWorld struct {
	// Enabled seeds EC2 with the cluster's subnets (each tagged
	// kubernetes.io/role/elb or kubernetes.io/role/internal-elb,
	// karpenter.sh/discovery: [ClusterName] and [TagTier]: public or
	// private), their route tables (the public ones to an internet
	// gateway), the egress PrivateEgress says, and publishes Karpenter's
	// EC2NodeClass "default" selecting the subnets of the nodes' tier by
	// [TagTier] with associatePublicIPAddress set to PublicSubnets. The
	// load balancer enables the zones of LoadBalancerZones and ip targets
	// in another zone are unused (Target.NotInUse).
	Enabled bool
	// PrivateEgress is how the private subnets reach AWS's APIs:
	// [EgressNAT] (a NAT gateway per zone, the zero value), [EgressEndpoints]
	// (VPC endpoints for ECR, S3, STS and EC2, no NAT) or [EgressNone]
	// (neither: a broken world).
	PrivateEgress string
	// LoadBalancerZones are the zones the load balancer enables. Nil: all
	// the cluster's zones. At least two (an ALB's rule).
	LoadBalancerZones []string
}

// The values of [MoveWorld].PrivateEgress.
const (
	EgressNAT       = "nat"
	EgressEndpoints = "endpoints"
	EgressNone      = "none"
)

// TagTier is the tag whose value, public or private, says a simulated
// subnet's tier; the seed's EC2NodeClass selects subnets by it.
const TagTier = "tgmigrate.sim/tier"
