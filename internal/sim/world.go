package sim

// world.go: the World: its state, New (which wires the parts and starts the
// scenario), Close, and the accessors of its parts.

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/envelope"
	"github.com/qstools/tgmigrate/internal/sim/cluster"
	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
	"github.com/qstools/tgmigrate/internal/sim/lbc"
	"github.com/qstools/tgmigrate/internal/sim/timing"
	"github.com/qstools/tgmigrate/internal/sim/traffic"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// Legacy names the seed's case: the hand-made target group and what it
// fronts.
type Legacy struct {
	// LoadBalancerARN and ListenerARN: the ALB and its HTTP :80 listener,
	// whose default action forwards to the target group (the path an API
	// Gateway VPC Link would hit).
	LoadBalancerARN, ListenerARN string
	// RuleARN is the listener rule that forwards to the target group: an
	// app's (Config.Apps, path /<namespace>/<name>/*); "" for the seed's,
	// reached by the listener's default action.
	RuleARN string
	// TargetGroupARN and TargetGroupName: the hand-made target group,
	// registered with every initial node's nodeIP:NodePort (type ip), or
	// with every initial node's instance on the NodePort (type instance).
	TargetGroupARN, TargetGroupName string
	// TargetType is the hand-made target group's type: "ip" or "instance".
	TargetType string
	// VPCID is the cluster's and the target group's VPC.
	VPCID string
	// Namespace and Service: the NodePort Service in front of the pods.
	Namespace, Service string
	// PortName, ServicePort, NodePort and ContainerPort are the Service's
	// port: port 80 named "http", NodePort, and the pods' container port.
	PortName                             string
	ServicePort, NodePort, ContainerPort int32
}

// World is the simulated world: the virtual clock, the ELBv2 model and
// the system under test's facade of it, the cluster on a controller-runtime
// client, Karpenter, the LBC stand-in and client traffic. Build it with
// [New].
//
// One goroutine drives it: the system under test, in the caller's
// goroutine, moves the world by waiting on [World.Clock] (or the caller by
// [World.Run]). The World's methods must not be called concurrently with
// a running advance.
type World struct {
	cfg    Config
	clock  *vclock.Clock
	hub    *cluster.Hub
	cl     *cluster.Cluster
	model  *elbv2model.Model
	sut    *elbv2sim.Client
	lbcAWS *elbv2sim.Client
	// ec2 is the network's security groups; lbcEC2 the controller's EC2
	// client; nodeSG and lbSG the nodes' and the load balancer's groups.
	ec2    *ec2sim.Model
	lbcEC2 *ec2sim.Client
	// sutEC2 is the system under test's EC2 client (sutEC2SDK through
	// the wire).
	sutEC2       *ec2sim.Client
	sutEC2SDK    *ec2.Client
	nodeSG, lbSG string
	lbc          *lbc.Controller
	// webhookDown: see SetWebhookDown.
	webhookDown bool
	// role is the controller's IAM role (DenyController).
	role    *controllerRole
	karp    *karpenter.Karpenter
	traffic *traffic.Generator
	legacy  Legacy
	// apps are Config.Apps as seeded, in their order (apps.go).
	apps  []appState
	start time.Time

	// With Config.Wire: the endpoints in front of sut and of the LBC's
	// client, and the system under test's SDK client.
	sutWire, lbcWire *elbv2wire.Endpoint
	sutSDK           *elbv2.Client

	// kube is the system under test's Kubernetes client: the world's,
	// with Timings.KubeLatency per call.
	kube client.WithWatch

	mu  sync.Mutex
	log []string
	// regOwner is what held a target's address when it was registered, by
	// target group and IP:port.
	regOwner map[string]string
	// spans are every registration of a target, in registration order;
	// openSpan indexes the current one by target group and IP:port.
	spans    []TargetSpan
	openSpan map[string]int
}

// New builds the world of cfg, seeds the seed's case, and warms it up until
// every legacy target is healthy; the scenario starts then ([World.Start]),
// with traffic and scheduled churn. ctx bounds the setup.
func New(ctx context.Context, cfg Config) (_ *World, err error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	w := &World{cfg: cfg, clock: cfg.Clock}
	if w.clock == nil {
		w.clock = vclock.New(time.Time{})
	}
	defer func() {
		if err != nil {
			w.Close()
		}
	}()
	w.hub = cluster.NewHub(w.clock)
	kc := cfg.Client
	if kc == nil {
		fc, err := cluster.NewFakeClient(cluster.FakeOptions{Faults: cfg.KubeFaults, ServerSideApply: cfg.ServerSideApply, Clock: w.clock})
		if err != nil {
			return nil, err
		}
		kc = fc
	}
	tm := cfg.Timings
	w.cl, err = cluster.New(cluster.Options{
		Client: kc, Clock: w.clock, Hub: w.hub, Seed: cfg.Seed, Region: DefaultRegion, VPCID: cfg.VPCID, VPCCIDR: cfg.VPCCIDR,
		EndpointDelay: cfg.EndpointDelay, ProxyDelay: cfg.ProxyDelay, IPReuse: tm.IPReuse,
		ServerEnforcesPDBs: cfg.Client != nil, FargateNamespace: fargateNamespace(cfg),
		OnEvent: w.logger("cluster"),
		// EC2 tells ELB when an instance is gone: its instance targets
		// stop taking requests (IP targets do not: the seed's ghosts).
		OnInstanceTerminated: func(id string) {
			if w.model != nil {
				w.model.InstanceTerminated(id)
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("sim: new: %w", err)
	}
	mopts := elbv2model.Options{
		AccountID: cfg.AccountID, Region: DefaultRegion,
		VPCs:  map[string]string{w.cl.VPCID(): w.cl.VPCCIDR()},
		Clock: w.clock, Network: firewall{w},
		OnTransition:      w.transition,
		RegistrationDelay: offOr(tm.Registration()), NewTargetChecks: tm.NewTargetChecks,
		DeregistrationLag: tm.Lag(), FailOpenInitial: tm.FailOpenInitial,
		Quotas: cfg.Quotas,
	}
	if cfg.Account != nil {
		w.model, err = cfg.Account.join(w, mopts)
	} else {
		w.model, err = elbv2model.New(mopts)
	}
	if err != nil {
		return nil, fmt.Errorf("sim: new: %w", err)
	}
	sutOpts := cfg.SUT
	sutOpts.Name = "sut"
	if sutOpts.Latency == 0 {
		sutOpts.Latency = tm.ELBv2()
	}
	if sutOpts.Waits == nil {
		sutOpts.Waits = cfg.Waits
	}
	if w.sut, err = elbv2sim.New(w.model, sutOpts); err != nil {
		return nil, fmt.Errorf("sim: new: %w", err)
	}
	if err := w.seedNetwork(); err != nil {
		return nil, fmt.Errorf("sim: new: %w", err)
	}
	if cfg.Move.Enabled {
		if err := w.seedVPC(); err != nil {
			return nil, fmt.Errorf("sim: new: %w", err)
		}
	}
	if cfg.Wire != nil {
		if w.sutWire, w.sutSDK, w.sutEC2SDK, err = w.startWire(w.sut, w.sutEC2, true); err != nil {
			return nil, fmt.Errorf("sim: new: wire: %w", err)
		}
	}
	var lbcEC2 lbc.EC2API = w.lbcEC2
	if w.lbcAWS, err = elbv2sim.New(w.model, elbv2sim.Options{Name: "lbc", Throttle: cfg.SUT.Throttle, Consistency: cfg.SUT.Consistency}); err != nil {
		return nil, fmt.Errorf("sim: new: %w", err)
	}
	var lbcAWS lbc.ELBv2API = w.lbcAWS
	if cfg.WrapLBCELBv2 != nil {
		lbcAWS = cfg.WrapLBCELBv2(lbcAWS)
	}
	w.role = &controllerRole{ELBv2API: lbcAWS, denied: map[string]bool{}}
	lbcAWS = w.role
	if cfg.Wire != nil && !cfg.Wire.FacadeLBC {
		var sdk *elbv2.Client
		var ec2SDK *ec2.Client
		if w.lbcWire, sdk, ec2SDK, err = w.startWire(lbcAWS, w.lbcEC2, false); err != nil {
			return nil, fmt.Errorf("sim: new: wire: %w", err)
		}
		lbcAWS, lbcEC2 = sdk, ec2SDK
	}
	w.lbc, err = lbc.New(lbc.Options{
		Client: w.cl.Client(), ELBv2: lbcAWS, Clock: w.clock, WithOrigin: cluster.WithOrigin,
		EC2: lbcEC2, VPCID: w.cl.VPCID(), ClusterName: cfg.ClusterName, PodSecurityGroup: w.nodeSG, Seed: int64(cfg.Seed),
		// The reconcile's writes land after the controller's reaction and
		// the reads it makes first (a Kubernetes read, DescribeTargetHealth):
		// package timing's ControllerReaction, KubeLatency, ELBv2Latency.
		RequeueAfter: cfg.LBCRequeueAfter, ReactionDelay: tm.Reaction() + tm.Kube() + tm.ELBv2(), SyncPeriod: cfg.LBCSyncPeriod,
		OnEvent: w.logger("lbc"),
	})
	if err != nil {
		return nil, fmt.Errorf("sim: new: %w", err)
	}
	var waits clock.Clock = w.clock
	if cfg.Waits != nil {
		waits = cfg.Waits
	}
	w.kube = latencyClient(w.cl.Client(), waits, tm.Kube())
	w.hub.AddAdmission(w.admit)
	w.hub.Subscribe(func(ch cluster.Change) { w.lbc.Observe(ch.Kind, ch.Key, ch.Labels, ch.Origin) })
	pool := cfg.NodePool
	pool.Public = cfg.PublicSubnets
	kopts := karpenter.Options{
		Cluster: w.cl, Seed: cfg.Seed, NodePool: pool, LaunchDelay: cfg.LaunchDelay,
		PublishObjects: cfg.Client == nil || servesKarpenter(cfg.Client), OnEvent: w.logger("karpenter"),
	}
	if cfg.Move.Enabled {
		kopts.Subnets, kopts.NodeClass = w.karpenterSubnets, w.nodeClass()
	}
	w.karp, err = karpenter.New(kopts)
	if err != nil {
		return nil, fmt.Errorf("sim: new: %w", err)
	}
	if err := w.seed(ctx); err != nil {
		return nil, err
	}
	if cfg.Move.Enabled {
		if err := w.enableZones(); err != nil {
			return nil, fmt.Errorf("sim: new: %w", err)
		}
	}
	if err := w.warmUp(ctx); err != nil {
		return nil, err
	}
	w.start = w.clock.Now()
	// The LBC's periodic resync counts from the scenario's start.
	if err := w.lbc.Start(ctx); err != nil {
		return nil, fmt.Errorf("sim: new: %w", err)
	}
	w.logf("world", "ScenarioStart", "", "%d nodes, %d pods, legacy target group %s", cfg.Nodes, cfg.Pods, w.legacy.TargetGroupName)
	if cfg.RPS > 0 {
		w.traffic, err = traffic.New(w.model, w.cl, traffic.Options{
			ListenerARN: w.legacy.ListenerARN, RPS: cfg.RPS, Seed: cfg.Seed,
			ConnectTimeout: tm.Timeout(), App: w.legacy.Namespace + "/" + w.legacy.Service,
		})
		if err != nil {
			return nil, fmt.Errorf("sim: new: %w", err)
		}
	}
	if err := w.startAppTraffic(); err != nil {
		return nil, fmt.Errorf("sim: new: %w", err)
	}
	if cfg.ChurnInterval > 0 {
		ch := karpenter.Churn{Shape: cfg.ChurnShape, Interval: cfg.ChurnInterval, Reasons: cfg.ChurnReasons, Share: cfg.ChurnShare}
		if cfg.ChurnDelay > 0 {
			ch.Start = w.clock.Now().Add(cfg.ChurnDelay)
		}
		if err := w.karp.StartChurn(ch); err != nil {
			return nil, fmt.Errorf("sim: new: %w", err)
		}
	}
	return w, nil
}

// Close stops the world's endpoints (Config.Wire), waiting for the
// requests in flight. Without Config.Wire it does nothing. Calling it again
// does nothing.
func (w *World) Close() {
	if w.sutWire != nil {
		w.sutWire.Close()
	}
	if w.lbcWire != nil {
		w.lbcWire.Close()
	}
}

// Config returns the world's configuration, defaults applied.
func (w *World) Config() Config { return w.cfg }

// Timings returns the world's timing assumptions, defaults applied.
func (w *World) Timings() timing.Timings { return w.cfg.Timings }

// Assumptions returns the timing assumptions a plan made in this world
// should use, so that its floor and its pod preconditions are the
// world's: its new-target checks, registration delay and deregistration
// lag, and the envelope's bound on the controller's delay.
func (w *World) Assumptions() envelope.Assumptions {
	return w.cfg.Timings.Assumptions(envelope.DefaultControllerDelay)
}

// offOr maps an effective duration of zero to a negative one: "none" for
// options whose zero means a default.
func offOr(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// Model returns the ELBv2 model, for inspection.
func (w *World) Model() *elbv2model.Model { return w.model }

// Cluster returns the cluster model, for inspection and on-demand events.
func (w *World) Cluster() *cluster.Cluster { return w.cl }

// Karpenter returns the churn driver.
func (w *World) Karpenter() *karpenter.Karpenter { return w.karp }

// LBC returns the LBC stand-in.
func (w *World) LBC() *lbc.Controller { return w.lbc }

// Legacy returns the seed's case.
func (w *World) Legacy() Legacy { return w.legacy }
