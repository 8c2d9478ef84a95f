package sim

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

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
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// Legacy names the seed's case: the hand-made target group and what it
// fronts.
type Legacy struct {
	// LoadBalancerARN and ListenerARN: the ALB and its HTTP :80 listener,
	// whose default action forwards to the target group (the path an API
	// Gateway VPC Link would hit).
	LoadBalancerARN, ListenerARN string
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
	start   time.Time

	// With Config.Wire: the endpoints in front of sut and of the LBC's
	// client, and the system under test's SDK client.
	sutWire, lbcWire *elbv2wire.Endpoint
	sutSDK           *elbv2.Client

	// kube is the system under test's Kubernetes client: the world's,
	// with Timings.KubeLatency per call.
	kube client.Client

	mu  sync.Mutex
	log []string
	// regOwner is what held a target's address when it was registered, by
	// target group and IP:port.
	regOwner map[string]string
}

// New builds the world of cfg, seeds the seed's case, and warms it up until
// every legacy target is healthy; the scenario starts then ([World.Start]),
// with traffic and scheduled churn. ctx bounds the setup.
func New(ctx context.Context, cfg Config) (_ *World, err error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	w := &World{cfg: cfg, clock: vclock.New(time.Time{})}
	defer func() {
		if err != nil {
			w.Close()
		}
	}()
	w.hub = cluster.NewHub(w.clock)
	kc := cfg.Client
	if kc == nil {
		fc, err := cluster.NewFakeClient(cluster.FakeOptions{Faults: cfg.KubeFaults, ServerSideApply: cfg.ServerSideApply})
		if err != nil {
			return nil, err
		}
		kc = fc
	}
	tm := cfg.Timings
	w.cl, err = cluster.New(cluster.Options{
		Client: kc, Clock: w.clock, Hub: w.hub, Seed: cfg.Seed, Region: DefaultRegion,
		EndpointDelay: cfg.EndpointDelay, ProxyDelay: cfg.ProxyDelay, IPReuse: tm.IPReuse,
		ServerEnforcesPDBs: cfg.Client != nil,
		OnEvent:            w.logger("cluster"),
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
	w.model, err = elbv2model.New(elbv2model.Options{
		AccountID: DefaultAccountID, Region: DefaultRegion,
		VPCs:  map[string]string{w.cl.VPCID(): w.cl.VPCCIDR()},
		Clock: w.clock, Network: firewall{w},
		OnTransition:      w.transition,
		RegistrationDelay: offOr(tm.Registration()), NewTargetChecks: tm.NewTargetChecks,
		DeregistrationLag: tm.Lag(), FailOpenInitial: tm.FailOpenInitial,
		Quotas: cfg.Quotas,
	})
	if err != nil {
		return nil, fmt.Errorf("sim: new: %w", err)
	}
	sutOpts := cfg.SUT
	sutOpts.Name = "sut"
	if sutOpts.Latency == 0 {
		sutOpts.Latency = tm.ELBv2()
	}
	if w.sut, err = elbv2sim.New(w.model, sutOpts); err != nil {
		return nil, fmt.Errorf("sim: new: %w", err)
	}
	if err := w.seedNetwork(); err != nil {
		return nil, fmt.Errorf("sim: new: %w", err)
	}
	if cfg.Wire != nil {
		if w.sutWire, w.sutSDK, w.sutEC2SDK, err = w.startWire(w.sut, w.sutEC2, true); err != nil {
			return nil, fmt.Errorf("sim: new: wire: %w", err)
		}
	}
	var lbcEC2 lbc.EC2API = w.lbcEC2
	if w.lbcAWS, err = elbv2sim.New(w.model, elbv2sim.Options{Name: "lbc", Throttle: cfg.SUT.Throttle}); err != nil {
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
		EC2: lbcEC2, VPCID: w.cl.VPCID(), ClusterName: ClusterName, PodSecurityGroup: w.nodeSG, Seed: int64(cfg.Seed),
		// The reconcile's writes land after the controller's reaction and
		// the reads it makes first (a Kubernetes read, DescribeTargetHealth):
		// package timing's ControllerReaction, KubeLatency, ELBv2Latency.
		RequeueAfter: cfg.LBCRequeueAfter, ReactionDelay: tm.Reaction() + tm.Kube() + tm.ELBv2(), SyncPeriod: cfg.LBCSyncPeriod,
		OnEvent: w.logger("lbc"),
	})
	if err != nil {
		return nil, fmt.Errorf("sim: new: %w", err)
	}
	w.kube = latencyClient(w.cl.Client(), w.clock, tm.Kube())
	w.hub.AddAdmission(w.admit)
	w.hub.Subscribe(func(ch cluster.Change) { w.lbc.Observe(ch.Kind, ch.Key, ch.Labels, ch.Origin) })
	pool := cfg.NodePool
	pool.Public = cfg.PublicSubnets
	w.karp, err = karpenter.New(karpenter.Options{
		Cluster: w.cl, Seed: cfg.Seed, NodePool: pool, LaunchDelay: cfg.LaunchDelay,
		PublishObjects: cfg.Client == nil || servesKarpenter(cfg.Client), OnEvent: w.logger("karpenter"),
	})
	if err != nil {
		return nil, fmt.Errorf("sim: new: %w", err)
	}
	if err := w.seed(ctx); err != nil {
		return nil, err
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
	case cfg.Neighbours < 0:
		return bad("Neighbours", "is negative")
	case cfg.ChurnDelay < 0:
		return bad("ChurnDelay", "is negative")
	case cfg.RPS > traffic.MaxRPS:
		return bad("RPS", fmt.Sprintf("%d is above %d", cfg.RPS, traffic.MaxRPS))
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
	wl := &cfg.Workload
	if wl.PreStop == 0 {
		safe := SafePodSettings(cfg.Timings)
		wl.PreStop = safe.PreStop
		if wl.TerminationGracePeriod == 0 {
			wl.TerminationGracePeriod = safe.TerminationGracePeriod
		}
	}
	if wl.PreStop < 0 {
		wl.PreStop = 0
	}
	if wl.MaxUnavailable == "" {
		wl.MaxUnavailable = "1"
	}
	return nil
}

// servesKarpenter reports whether the API server serves karpenter.sh/v1
// NodeClaims (their CRD is installed).
func servesKarpenter(c client.Client) bool {
	_, err := c.RESTMapper().RESTMapping(karpenter.NodeClaimGVK.GroupKind(), karpenter.NodeClaimGVK.Version)
	return err == nil
}

// seed builds the seed's case.
func (w *World) seed(ctx context.Context) error {
	cfg := w.cfg
	ns := DefaultNamespace
	w.legacy = Legacy{
		VPCID: w.cl.VPCID(), Namespace: ns, Service: DefaultService, PortName: "http",
		ServicePort: DefaultServicePort, NodePort: DefaultNodePort, ContainerPort: DefaultContainerPort,
		TargetGroupName: cfg.Legacy.Name, TargetType: cfg.Legacy.TargetType,
	}
	if err := w.karp.Start(ctx); err != nil {
		return fmt.Errorf("sim: new: %w", err)
	}
	if _, err := w.karp.Provision(ctx, cfg.Nodes); err != nil {
		return fmt.Errorf("sim: new: %w", err)
	}
	var nsLabels map[string]string
	if cfg.ReadinessGateInjection {
		nsLabels = map[string]string{lbc.LabelReadinessGateInject: "enabled"}
	}
	if err := w.cl.EnsureNamespace(ctx, ns, nsLabels); err != nil {
		return err
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: DefaultService, Labels: map[string]string{"app": DefaultService}},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeNodePort,
			Selector: map[string]string{"app": DefaultService},
			Ports: []corev1.ServicePort{{
				Name: "http", Protocol: corev1.ProtocolTCP, Port: DefaultServicePort,
				TargetPort: intstr.FromString("http"), NodePort: DefaultNodePort,
			}},
			ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyCluster,
		},
	}
	if err := w.cl.AddService(ctx, svc); err != nil {
		return err
	}
	wl := cluster.Workload{
		Namespace: ns, Name: DefaultService, Replicas: cfg.Pods,
		Labels: map[string]string{"app": DefaultService}, ContainerPort: DefaultContainerPort, PortName: "http",
		ReadinessPath: cfg.Workload.ReadinessPath, StartupDelay: cfg.Workload.StartupDelay,
		ReadinessDelay: cfg.Workload.ReadinessDelay, PreStop: cfg.Workload.PreStop,
		TerminationGracePeriod: cfg.Workload.TerminationGracePeriod, DoNotDisrupt: cfg.Workload.DoNotDisrupt,
		AlreadyRunning: true,
	}
	if cfg.Workload.MaxUnavailable != "none" {
		v := intstr.Parse(cfg.Workload.MaxUnavailable)
		wl.PDB = &cluster.PDBSpec{MaxUnavailable: &v}
	}
	if err := w.cl.AddWorkload(ctx, wl); err != nil {
		return err
	}
	if cfg.Neighbours > 0 {
		nb := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: NeighbourService, Labels: map[string]string{"app": NeighbourService}},
			Spec: corev1.ServiceSpec{
				Type:     corev1.ServiceTypeClusterIP,
				Selector: map[string]string{"app": NeighbourService},
				Ports:    []corev1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: DefaultServicePort, TargetPort: intstr.FromString("http")}},
			},
		}
		if err := w.cl.AddService(ctx, nb); err != nil {
			return err
		}
		if err := w.cl.AddWorkload(ctx, cluster.Workload{
			Namespace: ns, Name: NeighbourService, Replicas: cfg.Neighbours,
			Labels: map[string]string{"app": NeighbourService}, ContainerPort: DefaultContainerPort, PortName: "http",
			PreStop: LegacyPreStop, AlreadyRunning: true,
		}); err != nil {
			return err
		}
	}
	return w.seedALB()
}

// seedALB builds the ALB, its listener and the hand-made target group of
// every node's nodeIP:NodePort (or instance and NodePort), directly on the
// model (setup, not calls).
func (w *World) seedALB() error {
	l := w.cfg.Legacy
	lbARN, err := w.model.AddLoadBalancer("legacy-alb", w.legacy.VPCID)
	if err != nil {
		return fmt.Errorf("sim: new: load balancer: %w", err)
	}
	if err := w.model.SetSecurityGroups(lbARN, LoadBalancerSecurityGroup); err != nil {
		return fmt.Errorf("sim: new: load balancer: %w", err)
	}
	tg, err := w.model.CreateTargetGroup(&elbv2.CreateTargetGroupInput{
		Name: aws.String(l.Name), Protocol: elbv2types.ProtocolEnumHttp, Port: aws.Int32(w.legacy.NodePort),
		VpcId: aws.String(w.legacy.VPCID), TargetType: elbv2types.TargetTypeEnum(l.TargetType),
		HealthCheckProtocol: elbv2types.ProtocolEnumHttp, HealthCheckPath: aws.String(l.HealthCheckPath),
		HealthCheckPort: aws.String(l.HealthCheckPort), HealthCheckIntervalSeconds: aws.Int32(l.HealthCheckIntervalSeconds),
		HealthCheckTimeoutSeconds: aws.Int32(l.HealthCheckTimeoutSeconds),
		HealthyThresholdCount:     aws.Int32(l.HealthyThresholdCount), UnhealthyThresholdCount: aws.Int32(l.UnhealthyThresholdCount),
	})
	if err != nil {
		return fmt.Errorf("sim: new: legacy target group: %w", err)
	}
	tgARN := aws.ToString(tg.TargetGroups[0].TargetGroupArn)
	if _, err := w.model.ModifyTargetGroupAttributes(&elbv2.ModifyTargetGroupAttributesInput{
		TargetGroupArn: aws.String(tgARN),
		Attributes: []elbv2types.TargetGroupAttribute{{
			Key: aws.String("deregistration_delay.timeout_seconds"), Value: aws.String(strconv.Itoa(int(*l.DeregistrationDelay / time.Second))),
		}},
	}); err != nil {
		return fmt.Errorf("sim: new: legacy target group attributes: %w", err)
	}
	listenerARN, err := w.model.AddListener(lbARN, 80, []elbv2types.Action{{
		Type: elbv2types.ActionTypeEnumForward, TargetGroupArn: aws.String(tgARN),
	}})
	if err != nil {
		return fmt.Errorf("sim: new: listener: %w", err)
	}
	var targets []elbv2types.TargetDescription
	for _, n := range w.cl.Nodes() {
		id := n.InternalIP
		if l.TargetType == string(elbv2types.TargetTypeEnumInstance) {
			id = n.InstanceID
		}
		targets = append(targets, elbv2types.TargetDescription{Id: aws.String(id), Port: aws.Int32(w.legacy.NodePort)})
	}
	if _, err := w.model.RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(tgARN), Targets: targets}); err != nil {
		return fmt.Errorf("sim: new: register node targets: %w", err)
	}
	w.legacy.LoadBalancerARN, w.legacy.ListenerARN, w.legacy.TargetGroupARN = lbARN, listenerARN, tgARN
	return nil
}

// warmUp runs the world until every legacy target is healthy.
func (w *World) warmUp(ctx context.Context) error {
	deadline := w.clock.Now().Add(w.cfg.WarmUp)
	for {
		if err := context.Cause(ctx); err != nil {
			return fmt.Errorf("sim: new: warm up: %w", err)
		}
		healthy := 0
		ts := w.model.Targets(w.legacy.TargetGroupARN)
		for _, t := range ts {
			if t.State == elbv2types.TargetHealthStateEnumHealthy {
				healthy++
			}
		}
		if healthy == len(ts) && w.cl.PendingPods() == 0 {
			return nil
		}
		if !w.clock.Now().Before(deadline) {
			return fmt.Errorf("sim: new: warm up: %d of %d legacy targets healthy after %v", healthy, len(ts), w.cfg.WarmUp)
		}
		w.clock.Advance(time.Second)
	}
}

// admit runs the LBC's webhooks on the world's client.
func (w *World) admit(ctx context.Context, op cluster.Op, obj client.Object) error {
	switch o := obj.(type) {
	case *corev1.Pod:
		if op == cluster.OpCreate {
			return w.lbc.InjectReadinessGates(ctx, o)
		}
	case *v1beta1.TargetGroupBinding:
		if w.webhookDown && (op == cluster.OpCreate || op == cluster.OpUpdate) {
			return webhookUnavailable()
		}
		if !o.DeletionTimestamp.IsZero() {
			return nil
		}
		if op == cluster.OpCreate {
			if err := w.lbc.MutateTargetGroupBinding(ctx, o); err != nil {
				return err
			}
			return w.lbc.ValidateTargetGroupBinding(ctx, nil, o)
		}
		old := &v1beta1.TargetGroupBinding{}
		if err := w.cl.Client().Get(ctx, client.ObjectKeyFromObject(o), old); err != nil {
			return nil // the update fails on its own
		}
		return w.lbc.ValidateTargetGroupBinding(ctx, old, o)
	}
	return nil
}

// MutatingWebhook is the name of the LBC's mutating webhook for
// TargetGroupBindings, the first the API server calls.
const MutatingWebhook = "mtargetgroupbinding.elbv2.k8s.aws"

// SetWebhookDown makes the LBC's webhook service unreachable (down: true)
// or reachable again: while it is down, every create and update of a
// TargetGroupBinding is refused as the API server refuses it when a
// webhook with failurePolicy Fail cannot be called (k8s.io/apiserver's
// webhook dispatchers: apierrors.NewInternalError of ErrCallingWebhook).
// The controller's own updates of bindings (its finalizer) fail too. The
// pod webhook (readiness gates) is not modelled as down.
func (w *World) SetWebhookDown(down bool) { w.webhookDown = down }

func webhookUnavailable() error {
	return apierrors.NewInternalError(fmt.Errorf(`failed calling webhook %q: failed to call webhook: Post "https://aws-load-balancer-webhook-service.kube-system.svc:443/mutate-elbv2-k8s-aws-v1beta1-targetgroupbinding?timeout=10s": dial tcp 10.100.48.17:443: connect: connection refused`, MutatingWebhook))
}

// seedNetwork builds the network's security groups: the load balancer's,
// and the nodes' (tagged as the cluster's, which the pods share under the
// VPC CNI), which lets the load balancer reach the NodePort range and the
// pods' port; and the controller's EC2 client.
func (w *World) seedNetwork() error {
	m, err := ec2sim.New(ec2sim.Options{AccountID: DefaultAccountID, Region: DefaultRegion})
	if err != nil {
		return err
	}
	vpc := w.cl.VPCID()
	if err := m.AddVPC(vpc, w.cl.VPCCIDR()); err != nil {
		return err
	}
	if w.lbSG, err = m.AddSecurityGroup(ec2sim.SecurityGroupSpec{ID: LoadBalancerSecurityGroup, Name: "alb", VpcID: vpc}); err != nil {
		return err
	}
	if w.nodeSG, err = m.AddSecurityGroup(ec2sim.SecurityGroupSpec{ID: NodeSecurityGroup, Name: "nodes", VpcID: vpc,
		Tags: map[string]string{"kubernetes.io/cluster/" + ClusterName: "owned"}}); err != nil {
		return err
	}
	from := []ec2types.UserIdGroupPair{{GroupId: aws.String(w.lbSG), Description: aws.String("the ALB to the NodePorts")}}
	perms := []ec2types.IpPermission{{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(30000), ToPort: aws.Int32(32767), UserIdGroupPairs: from}}
	if !w.cfg.PodPortBlocked {
		perms = append(perms, ec2types.IpPermission{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(DefaultContainerPort), ToPort: aws.Int32(DefaultContainerPort),
			UserIdGroupPairs: []ec2types.UserIdGroupPair{{GroupId: aws.String(w.lbSG), Description: aws.String("the ALB to the pods")}}})
	}
	if _, err := m.Authorize(w.nodeSG, perms...); err != nil {
		return err
	}
	m.SetInterfaceSource(ec2sim.InterfaceFunc(w.interfaces))
	w.ec2 = m
	if w.lbcEC2, err = ec2sim.NewClient(m); err != nil {
		return err
	}
	w.sutEC2, err = ec2sim.NewClient(m)
	return err
}

// interfaces are the network interfaces of the world: one per node that
// is not terminated, its address primary and its pods' secondary (the VPC
// CNI's), in the nodes' security group.
func (w *World) interfaces() []ec2sim.Interface {
	byNode := map[string][]string{}
	for _, p := range w.cl.Pods() {
		if p.IP != "" && p.Node != "" {
			byNode[p.Node] = append(byNode[p.Node], p.IP)
		}
	}
	var out []ec2sim.Interface
	for _, n := range w.cl.Nodes() {
		if n.Phase == "Terminated" || n.InternalIP == "" {
			continue
		}
		out = append(out, ec2sim.Interface{
			ID: "eni-" + strings.TrimPrefix(n.InstanceID, "i-"), VpcID: w.cl.VPCID(), SubnetID: n.SubnetID, AvailabilityZone: n.Zone,
			PrivateIPs: append([]string{n.InternalIP}, byNode[n.Name]...), GroupIDs: []string{w.nodeSG}, InstanceID: n.InstanceID,
			Description: "the primary interface of " + n.Name,
		})
	}
	return out
}

// firewall is the network the load balancer sees: the cluster's, behind
// the nodes' security group (which the pods share under the VPC CNI). A
// health check or a request to a port the group does not let the load
// balancer reach times out, as a dropped SYN does: a pod target whose port
// is blocked never turns healthy.
type firewall struct{ w *World }

func (f firewall) allowed(ip string, port int32) bool {
	if f.w.ec2 == nil {
		return true // the network is not built yet
	}
	if _, held := f.w.cl.Owner(ip); !held {
		return true // nothing there: the cluster answers a timeout anyway
	}
	ok, _ := f.w.ec2.Allows(ec2sim.Source{GroupIDs: []string{f.w.lbSG}}, []string{f.w.nodeSG}, "tcp", port)
	return ok
}

// Probe implements elbv2model.Network.
func (f firewall) Probe(ip string, port int32, path string) elbv2model.ProbeResult {
	if !f.allowed(ip, port) {
		return elbv2model.ProbeTimeout
	}
	return f.w.cl.Probe(ip, port, path)
}

// Serve implements elbv2model.Network.
func (f firewall) Serve(ip string, port int32) elbv2model.Answer {
	if !f.allowed(ip, port) {
		return elbv2model.Answer{Result: elbv2model.ProbeTimeout}
	}
	return f.w.cl.Serve(ip, port)
}

// InVPC implements elbv2model.Network.
func (f firewall) InVPC(vpcID, ip string) bool { return f.w.cl.InVPC(vpcID, ip) }

// InstanceIP implements elbv2model.InstanceResolver.
func (f firewall) InstanceIP(id string) (string, bool) { return f.w.cl.InstanceIP(id) }

var _ elbv2model.InstanceResolver = firewall{}

// The security groups of the world's network.
const (
	// LoadBalancerSecurityGroup is the load balancer's.
	LoadBalancerSecurityGroup = "sg-0a1b0000000000a1b"
	// NodeSecurityGroup is the nodes' (and, under the VPC CNI, the
	// pods'), tagged kubernetes.io/cluster/<ClusterName>=owned.
	NodeSecurityGroup = "sg-0e0d0000000000e0d"
)

// EC2 returns the EC2 API to give the system under test (cutover's
// Env.EC2): with Config.Wire, the real *ec2.Client pointed at the
// system under test's endpoint; otherwise [World.SUTEC2] itself.
func (w *World) EC2() ec2sim.API {
	if w.sutEC2SDK != nil {
		return w.sutEC2SDK
	}
	return w.sutEC2
}

// SUTEC2 returns the system under test's EC2 facade: its counts and its
// fault injection, behind the endpoint with Config.Wire.
func (w *World) SUTEC2() *ec2sim.Client { return w.sutEC2 }

// EC2Model returns the network's security groups.
func (w *World) EC2Model() *ec2sim.Model { return w.ec2 }

// LBCEC2 returns the controller's EC2 client, with its fault injection:
// an EC2 that refuses the controller leaves every binding stuck.
func (w *World) LBCEC2() *ec2sim.Client { return w.lbcEC2 }

// Clock returns the world's virtual clock: give it to the system under
// test as its k8s.io/utils/clock.
func (w *World) Clock() *vclock.Clock { return w.clock }

// Start returns the virtual time the scenario started (after warm-up).
func (w *World) Start() time.Time { return w.start }

// Elapsed returns the virtual time since the scenario started.
func (w *World) Elapsed() time.Duration { return w.clock.Since(w.start) }

// Run runs the world for d of virtual time. It must not be called from a
// world event or while the system under test is waiting.
func (w *World) Run(d time.Duration) { w.clock.Advance(d) }

// RunUntil runs the world until the virtual time t.
func (w *World) RunUntil(t time.Time) { w.clock.RunUntil(t) }

// startWire serves backend (and ec2Backend, when not nil) on a loopback
// endpoint and returns it with real SDK clients of it (the EC2 one nil
// without ec2Backend). The system under test's client spends
// Config.SUT's latency on the virtual clock before each attempt, in the
// caller's goroutine, as the Go facade does; the endpoint's handlers never
// wait on the clock.
func (w *World) startWire(backend, ec2Backend any, sut bool) (*elbv2wire.Endpoint, *elbv2.Client, *ec2.Client, error) {
	ep, err := elbv2wire.Start(elbv2wire.Options{Backend: backend, EC2: ec2Backend, Region: DefaultRegion})
	if err != nil {
		return nil, nil, nil, err
	}
	opts := w.cfg.Wire.Client
	opts.Region = DefaultRegion
	if sut {
		own := opts.BeforeAttempt
		opts.BeforeAttempt = func(ctx context.Context, op string) error {
			if err := w.sut.Wait(ctx, op); err != nil {
				return err
			}
			if own != nil {
				return own(ctx, op)
			}
			return nil
		}
	} else {
		opts.BeforeAttempt = nil // the LBC calls from world events, which must not wait
	}
	var ec2Client *ec2.Client
	if ec2Backend != nil {
		ec2Client = ep.NewEC2Client(opts)
	}
	return ep, ep.NewClient(opts), ec2Client, nil
}

// AWS returns the ELBv2 API to give the system under test: with
// Config.Wire, the real *elasticloadbalancingv2.Client pointed at the
// endpoint in front of [World.ELBv2]; otherwise [World.ELBv2] itself.
// Either satisfies cutover.ELBv2API, diagnose.ELBv2API and tgbind.ELBv2API.
func (w *World) AWS() elbv2wire.API {
	if w.sutSDK != nil {
		return w.sutSDK
	}
	return w.sut
}

// AWSCounts returns the system under test's AWS calls (ELBv2, and EC2
// through [World.EC2]) by operation, counted where the service sees them:
// at the endpoint with Config.Wire (every HTTP request, each of the SDK's
// retries included), at the facades otherwise. A call-count assertion
// written on it holds on both transports when the SDK does not retry.
func (w *World) AWSCounts() map[string]int {
	if w.sutWire != nil {
		return w.sutWire.Counts()
	}
	out := w.sut.Counts()
	for op, n := range w.sutEC2.Counts() {
		if n > 0 {
			out[op] += n
		}
	}
	return out
}

// Wire returns the endpoint of the system under test's calls, for its
// request log and wire faults; nil without Config.Wire.
func (w *World) Wire() *elbv2wire.Endpoint { return w.sutWire }

// LBCWire returns the endpoint of the LBC stand-in's calls; nil without
// Config.Wire or with Wire.FacadeLBC.
func (w *World) LBCWire() *elbv2wire.Endpoint { return w.lbcWire }

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

// ELBv2 returns the system under test's ELBv2 client: it satisfies
// cutover.ELBv2API (hence diagnose's and tgbind's), counts calls by
// operation, logs them, and injects the faults of Config.SUT (more with
// Inject). With Config.Wire it sits behind the endpoint, where its faults
// and counts apply unchanged: give the system under test [World.AWS].
func (w *World) ELBv2() *elbv2sim.Client { return w.sut }

// LBCELBv2 returns the LBC stand-in's own ELBv2 client, counted apart.
func (w *World) LBCELBv2() *elbv2sim.Client { return w.lbcAWS }

// Client returns the Kubernetes client of the world (the LBC's webhooks run
// on it): give it to the system under test. Each call spends the
// Timings.KubeLatency on the virtual clock first, in the caller's
// goroutine, so it must not be called from a world event.
func (w *World) Client() client.Client { return w.kube }

// Timings returns the world's timing assumptions, defaults applied.
func (w *World) Timings() timing.Timings { return w.cfg.Timings }

// Assumptions returns the timing assumptions a plan made in this world
// should use, so that its floor and its pod preconditions are the
// world's: its new-target checks, registration delay and deregistration
// lag, and the envelope's bound on the controller's delay.
func (w *World) Assumptions() envelope.Assumptions {
	return w.cfg.Timings.Assumptions(envelope.DefaultControllerDelay)
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

// offOr maps an effective duration of zero to a negative one: "none" for
// options whose zero means a default.
func offOr(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// noWatch gives a client.Client the Watch of a client.WithWatch, so that
// interceptor.NewClient takes it; the world's clients are never watched.
type noWatch struct{ client.Client }

func (noWatch) Watch(context.Context, client.ObjectList, ...client.ListOption) (watch.Interface, error) {
	return nil, errors.New("sim: the world's client does not watch")
}

// latencyClient returns c with every call spending d on clock first, in
// the caller's goroutine (interceptor.Funcs from controller-runtime).
func latencyClient(c client.Client, clock *vclock.Clock, d time.Duration) client.Client {
	if d <= 0 {
		return c
	}
	wait := func() { clock.Sleep(d) }
	return interceptor.NewClient(noWatch{c}, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			wait()
			return c.Get(ctx, key, obj, opts...)
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			wait()
			return c.List(ctx, list, opts...)
		},
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			wait()
			return c.Create(ctx, obj, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			wait()
			return c.Delete(ctx, obj, opts...)
		},
		DeleteAllOf: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteAllOfOption) error {
			wait()
			return c.DeleteAllOf(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			wait()
			return c.Update(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			wait()
			return c.Patch(ctx, obj, patch, opts...)
		},
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			wait()
			return c.Apply(ctx, obj, opts...)
		},
		SubResourceGet: func(ctx context.Context, c client.Client, sub string, obj, subObj client.Object, opts ...client.SubResourceGetOption) error {
			wait()
			return c.SubResource(sub).Get(ctx, obj, subObj, opts...)
		},
		SubResourceCreate: func(ctx context.Context, c client.Client, sub string, obj, subObj client.Object, opts ...client.SubResourceCreateOption) error {
			wait()
			return c.SubResource(sub).Create(ctx, obj, subObj, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			wait()
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			wait()
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
	})
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

// Traffic returns the client traffic so far (zero without traffic).
func (w *World) Traffic() traffic.Stats {
	if w.traffic == nil {
		return traffic.Stats{}
	}
	return w.traffic.Stats()
}

// StopTraffic ends the client traffic; its stats stay readable.
func (w *World) StopTraffic() {
	if w.traffic != nil {
		w.traffic.Stop()
	}
}

// ReplaceAllNodes has Karpenter replace every current node, for drift,
// spread over within. Budgets and PodDisruptionBudgets may stretch it.
func (w *World) ReplaceAllNodes(within time.Duration) error {
	return w.karp.ReplaceAll(karpenter.ReasonDrifted, within)
}

// NewBinding returns a TargetGroupBinding of the legacy target group to the
// Service, targetType ip, in multiClusterTargetGroup mode or not. Create it
// through [World.Client]: the LBC's webhooks admit it and the LBC reacts.
func (w *World) NewBinding(name string, multiCluster bool) *v1beta1.TargetGroupBinding {
	ip := v1beta1.TargetTypeIP
	return &v1beta1.TargetGroupBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: w.legacy.Namespace, Name: name},
		Spec: v1beta1.TargetGroupBindingSpec{
			TargetGroupARN:          w.legacy.TargetGroupARN,
			TargetType:              &ip,
			ServiceRef:              v1beta1.ServiceReference{Name: w.legacy.Service, Port: intstr.FromInt32(w.legacy.ServicePort)},
			MultiClusterTargetGroup: multiCluster,
		},
	}
}

// Target is a registered target, with what held its address.
type Target struct {
	// TargetGroupARN, IP and Port identify the target.
	TargetGroupARN string
	IP             string
	Port           int32
	// State and Reason are what DescribeTargetHealth reports.
	State  elbv2types.TargetHealthStateEnum
	Reason elbv2types.TargetHealthReasonEnum
	// Owner is what answers at IP now ("node/<name>", "pod/<ns>/<name>"),
	// "" for nobody.
	Owner string
	// FormerOwner is what held IP last, "" for an address the cluster never
	// handed out.
	FormerOwner string
	// Registered is what held IP when the target was registered ("" when
	// nothing did); Reused says the address has been handed out again
	// since, to another holder (which may hold it now, or have let it go
	// too).
	Registered string
	Reused     bool
}

// String renders the target as "IP:port state owner".
func (t Target) String() string {
	owner := t.Owner
	if owner == "" {
		owner = "nobody (was " + t.FormerOwner + ")"
	}
	if t.Reused {
		owner += " (reused; registered for " + t.Registered + ")"
	}
	return fmt.Sprintf("%s:%d %s %s", t.IP, t.Port, t.State, owner)
}

func (w *World) targets(keep func(Target) bool) []Target {
	var out []Target
	arns := w.model.TargetGroupARNs()
	sort.Strings(arns)
	for _, arn := range arns {
		for _, v := range w.model.Targets(arn) {
			t := Target{TargetGroupARN: arn, IP: v.IP, Port: v.Port, State: v.State, Reason: v.Reason}
			t.Owner, _ = w.cl.Owner(v.IP)
			t.FormerOwner, _ = w.cl.FormerOwner(v.IP)
			w.mu.Lock()
			t.Registered = w.regOwner[regKey(arn, v.IP, v.Port)]
			w.mu.Unlock()
			t.Reused = t.Registered != "" && t.FormerOwner != "" && t.FormerOwner != t.Registered
			if keep(t) {
				out = append(out, t)
			}
		}
	}
	return out
}

// Ghosts returns the ground truth of ghost targets: every target, in any
// target group and any state (draining included), whose IP no node and no
// pod holds now, or whose IP was handed out again (Target.Reused) to a
// holder that does not serve the legacy Service's application on that port
// (another application's pod; a new node still serves the NodePort, a new
// pod of the Service its port: those targets work again).
func (w *World) Ghosts() []Target {
	app := w.legacy.Namespace + "/" + w.legacy.Service
	return w.targets(func(t Target) bool {
		if t.Owner == "" {
			return true
		}
		if !t.Reused {
			return false
		}
		served, ok := w.cl.Answers(t.IP, t.Port)
		return !ok || served != app
	})
}

// NodeTargets returns the targets, in any target group, whose IP is or was
// a node's: the nodeIP:NodePort targets of the seed's case, live or ghost.
func (w *World) NodeTargets() []Target {
	return w.targets(func(t Target) bool {
		return strings.HasPrefix(t.Owner, "node/") || (t.Owner == "" && strings.HasPrefix(t.FormerOwner, "node/"))
	})
}

// Targets returns the targets of one target group.
func (w *World) Targets(tgARN string) []Target {
	return w.targets(func(t Target) bool { return t.TargetGroupARN == tgARN })
}

// EventLog returns the world's events so far, one line each, with virtual
// timestamps: deterministic for a given Config.
func (w *World) EventLog() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.log...)
}

func (w *World) logger(source string) func(reason, object, message string) {
	return func(reason, object, message string) { w.logf(source, reason, object, "%s", message) }
}

func (w *World) logf(source, reason, object, format string, args ...any) {
	d := w.clock.Now().Sub(vclock.Epoch)
	ts := fmt.Sprintf("%02d:%02d:%02d.%03d", int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60, d.Milliseconds()%1000)
	line := fmt.Sprintf("%s %-9s %-18s %s %s", ts, source, reason, object, fmt.Sprintf(format, args...))
	w.mu.Lock()
	w.log = append(w.log, strings.TrimRight(line, " "))
	w.mu.Unlock()
}

func regKey(tgARN, ip string, port int32) string {
	return tgARN + " " + ip + ":" + strconv.Itoa(int(port))
}

func (w *World) transition(t elbv2model.Transition) {
	if t.From == "" && !t.Removed {
		// A new registration: note what holds the address now, to tell a
		// reused address later.
		owner, _ := w.cl.Owner(t.ID)
		w.mu.Lock()
		if w.regOwner == nil {
			w.regOwner = map[string]string{}
		}
		w.regOwner[regKey(t.TargetGroupARN, t.ID, t.Port)] = owner
		w.mu.Unlock()
	}
	name := t.TargetGroupARN
	if i := strings.Index(name, "targetgroup/"); i >= 0 {
		name = strings.SplitN(name[i+len("targetgroup/"):], "/", 2)[0]
	}
	from, to := string(t.From), string(t.To)
	if from == "" {
		from = "-"
	}
	if t.Removed {
		to = "gone"
	}
	if t.Reason != "" {
		to += " (" + string(t.Reason) + ")"
	}
	w.logf("elbv2", "Target", "targetgroup/"+name, "%s:%d %s -> %s", t.ID, t.Port, from, to)
}

// PodKeys returns the keys of the Service's pods now, in creation order.
func (w *World) PodKeys() []types.NamespacedName {
	var out []types.NamespacedName
	for _, p := range w.cl.Pods() {
		if p.Workload != w.legacy.Service {
			continue
		}
		out = append(out, p.Key())
	}
	return out
}
