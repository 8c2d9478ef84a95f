package sim

// apps.go: the world's other applications (Config.Apps): App, its
// defaults and validation, their seeding (namespace, NodePort Service,
// workload, hand-made target group, listener rule, on the world's ALB or
// on a shared one), their client traffic, and the accessors Apps,
// TrafficOf and FailedRequestsOf.

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate/internal/sim/lbc"
	"github.com/qstools/tgmigrate/internal/sim/timing"
	"github.com/qstools/tgmigrate/internal/sim/traffic"
)

// Bounds of [App].
const (
	// MaxApps bounds len(Config.Apps).
	MaxApps = 32
	// MinNodePort and MaxNodePort are Kubernetes' default NodePort range
	// (--service-node-port-range), which an App's NodePort must be in.
	MinNodePort = int32(30000)
	MaxNodePort = int32(32767)
)

// App is one more application of the world besides the seed's (Config.Apps):
// a NodePort Service and its workload's pods, its own hand-made target
// group of every initial node's nodeIP:NodePort (of Config.Legacy's
// target type, health check and deregistration delay), reached through a
// listener rule of its own on the :80 listener of the world's ALB or of
// an ALB it shares with other apps, and its own client traffic through
// that rule. Every zero value means the default its comment gives.
type App struct {
	// Name is the Service's and its workload's name: a DNS label, unique in
	// its namespace (the seed's Service, [DefaultService], and with
	// Config.Neighbours [NeighbourService], hold theirs). Required.
	Name string
	// Namespace is the Service's namespace. Zero: the seed's,
	// [DefaultNamespace]. Another one is created, with the controller's
	// readiness-gate label only if ReadinessGateInjection says so.
	Namespace string
	// ReadinessGateInjection labels Namespace
	// elbv2.k8s.aws/pod-readiness-gate-inject=enabled from the start. It
	// applies to a namespace of the apps' own: every app of one namespace
	// must give the same value, and an app in the seed's namespace must
	// give Config.ReadinessGateInjection's (or false, taking it). Zero:
	// not labelled.
	ReadinessGateInjection bool
	// TargetGroupName is the hand-made target group's name: 1 to 32
	// letters, digits or hyphens, not beginning or ending with a hyphen,
	// unique in the world. Zero: "<Legacy.Name>-<Name>" (so unique per
	// cluster in a shared [Account], as Legacy.Name must be).
	TargetGroupName string
	// LoadBalancerName is the ALB the target group is behind. Zero (or
	// Legacy.LoadBalancerName): the world's ALB. Another name: an ALB of
	// that name, created for the first app that names it (with a :80
	// listener whose default action answers 404) and shared by every app
	// that names it; in a shared [Account] it must not be another world's.
	LoadBalancerName string
	// NodePort is the Service's NodePort, in [MinNodePort]-[MaxNodePort],
	// distinct from the seed's ([DefaultNodePort]) and every other app's.
	// Zero: the lowest free port above DefaultNodePort.
	NodePort int32
	// Pods is the workload's replica count. Zero: Config.Pods.
	Pods int
	// RPS is the app's client traffic through its rule, in requests per
	// second, at most traffic.MaxRPS. Zero: Config.RPS (none when that is
	// negative). Negative: none.
	RPS int
	// Workload configures the pods. Zero: Config.Workload, defaults
	// applied; otherwise its own zero fields are defaulted as
	// Config.Workload's are.
	Workload Workload
}

// appState is an app of the world: its configuration, its case, its
// traffic.
type appState struct {
	cfg     App
	legacy  Legacy
	traffic *traffic.Generator
}

var (
	// dnsLabelRe is an RFC 1123 label: a namespace's or a Service's name.
	dnsLabelRe = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	// elbNameRe is an ELBv2 target group's or load balancer's name.
	elbNameRe = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,30}[A-Za-z0-9])?$`)
)

// appDefaults validates Config.Apps and fills in their defaults; it runs
// after every other field's defaults (it reads Legacy, Pods, RPS,
// Workload).
func (cfg *Config) appDefaults() error {
	if len(cfg.Apps) == 0 {
		return nil
	}
	bad := func(i int, field, format string, args ...any) error {
		return &ConfigError{Field: fmt.Sprintf("Apps[%d].%s", i, field), Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case len(cfg.Apps) > MaxApps:
		return &ConfigError{Field: "Apps", Reason: fmt.Sprintf("%d apps: at most %d", len(cfg.Apps), MaxApps)}
	case cfg.Fargate:
		return &ConfigError{Field: "Apps", Reason: "a Fargate world has the seed's application only"}
	case cfg.Move.Enabled:
		return &ConfigError{Field: "Apps", Reason: "a step-4 world (Move) has the seed's application only"}
	}
	apps := make([]App, len(cfg.Apps))
	copy(apps, cfg.Apps)
	services := map[string]string{DefaultNamespace + "/" + DefaultService: "the seed's Service"}
	if cfg.Neighbours > 0 {
		services[DefaultNamespace+"/"+NeighbourService] = "the neighbour Service"
	}
	tgNames := map[string]string{cfg.Legacy.Name: "Legacy.Name"}
	ports := map[int32]string{DefaultNodePort: "the seed's Service"}
	gates := map[string]bool{DefaultNamespace: cfg.ReadinessGateInjection}
	for i := range apps {
		a := &apps[i]
		if a.Namespace == "" {
			a.Namespace = DefaultNamespace
			if !a.ReadinessGateInjection {
				a.ReadinessGateInjection = cfg.ReadinessGateInjection
			}
		}
		if a.LoadBalancerName == cfg.Legacy.LoadBalancerName {
			a.LoadBalancerName = ""
		}
		switch {
		case !dnsLabelRe.MatchString(a.Name):
			return bad(i, "Name", "%q is not a DNS label (1 to 63 lowercase letters, digits or hyphens)", a.Name)
		case !dnsLabelRe.MatchString(a.Namespace):
			return bad(i, "Namespace", "%q is not a DNS label", a.Namespace)
		case a.Pods < 0:
			return bad(i, "Pods", "is negative")
		case a.RPS > traffic.MaxRPS:
			return bad(i, "RPS", "%d is above %d", a.RPS, traffic.MaxRPS)
		case a.LoadBalancerName != "" && (!elbNameRe.MatchString(a.LoadBalancerName) || strings.HasPrefix(a.LoadBalancerName, "internal-")):
			return bad(i, "LoadBalancerName", "%q is not 1 to 32 letters, digits or hyphens, not beginning or ending with a hyphen nor beginning with internal-", a.LoadBalancerName)
		}
		key := a.Namespace + "/" + a.Name
		if who, dup := services[key]; dup {
			return bad(i, "Name", "%s is %s too", key, who)
		}
		services[key] = fmt.Sprintf("Apps[%d]'s", i)
		if g, seen := gates[a.Namespace]; seen && g != a.ReadinessGateInjection {
			field := "ReadinessGateInjection"
			if a.Namespace == DefaultNamespace {
				return bad(i, field, "the seed's namespace %s is labelled as Config.ReadinessGateInjection says (%v)", a.Namespace, g)
			}
			return bad(i, field, "another app of namespace %s gives %v: a namespace is labelled or not", a.Namespace, g)
		}
		gates[a.Namespace] = a.ReadinessGateInjection
		if a.TargetGroupName == "" {
			a.TargetGroupName = cfg.Legacy.Name + "-" + a.Name
		}
		if !elbNameRe.MatchString(a.TargetGroupName) {
			return bad(i, "TargetGroupName", "%q is not 1 to 32 letters, digits or hyphens, not beginning or ending with a hyphen", a.TargetGroupName)
		}
		if who, dup := tgNames[a.TargetGroupName]; dup {
			return bad(i, "TargetGroupName", "%q is %s too", a.TargetGroupName, who)
		}
		tgNames[a.TargetGroupName] = fmt.Sprintf("Apps[%d]'s", i)
		if a.NodePort != 0 {
			if a.NodePort < MinNodePort || a.NodePort > MaxNodePort {
				return bad(i, "NodePort", "%d is outside %d-%d", a.NodePort, MinNodePort, MaxNodePort)
			}
			if who, dup := ports[a.NodePort]; dup {
				return bad(i, "NodePort", "%d is %s too", a.NodePort, who)
			}
			ports[a.NodePort] = fmt.Sprintf("Apps[%d]'s", i)
		}
		if a.Workload == (Workload{}) {
			a.Workload = cfg.Workload
		} else {
			a.Workload.defaults(cfg.Timings)
		}
		if a.Pods == 0 {
			a.Pods = cfg.Pods
		}
		if a.RPS == 0 {
			a.RPS = cfg.RPS
		}
	}
	// The zero NodePorts, once every explicit one is known.
	next := DefaultNodePort + 1
	for i := range apps {
		if apps[i].NodePort != 0 {
			continue
		}
		for ports[next] != "" {
			next++
		}
		if next > MaxNodePort {
			return bad(i, "NodePort", "no free NodePort left up to %d", MaxNodePort)
		}
		apps[i].NodePort = next
		ports[next] = fmt.Sprintf("Apps[%d]'s", i)
	}
	cfg.Apps = apps
	return nil
}

// defaults fills in the zero fields of a workload for a world of timings t.
func (wl *Workload) defaults(t timing.Timings) {
	if wl.PreStop == 0 {
		safe := SafePodSettings(t)
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
}

// seedApps builds every app of Config.Apps, after the seed's ALB: its
// namespace, Service, workload, target group and rule, directly on the
// model and the cluster (setup, not calls).
func (w *World) seedApps(ctx context.Context) error {
	if err := w.appNamesFree(); err != nil {
		return err
	}
	lbs := map[string][2]string{} // ALB name -> its ARN and :80 listener's
	priorities := map[string]int32{}
	nsDone := map[string]bool{DefaultNamespace: true}
	for i, a := range w.cfg.Apps {
		if !nsDone[a.Namespace] {
			var labels map[string]string
			if a.ReadinessGateInjection {
				labels = map[string]string{lbc.LabelReadinessGateInject: "enabled"}
			}
			if err := w.cl.EnsureNamespace(ctx, a.Namespace, labels); err != nil {
				return err
			}
			nsDone[a.Namespace] = true
		}
		if err := w.addNodePortApp(ctx, a.Namespace, a.Name, a.NodePort, a.Pods, a.Workload); err != nil {
			return err
		}
		lbARN, listenerARN := w.legacy.LoadBalancerARN, w.legacy.ListenerARN
		if a.LoadBalancerName != "" {
			got, ok := lbs[a.LoadBalancerName]
			if !ok {
				var err error
				if got, err = w.seedSharedALB(a.LoadBalancerName); err != nil {
					return fmt.Errorf("sim: new: Apps[%d]: %w", i, err)
				}
				lbs[a.LoadBalancerName] = got
			}
			lbARN, listenerARN = got[0], got[1]
		}
		st := appState{cfg: a, legacy: Legacy{
			VPCID: w.legacy.VPCID, Namespace: a.Namespace, Service: a.Name, PortName: "http",
			ServicePort: DefaultServicePort, NodePort: a.NodePort, ContainerPort: DefaultContainerPort,
			TargetGroupName: a.TargetGroupName, TargetType: w.cfg.Legacy.TargetType,
			LoadBalancerARN: lbARN, ListenerARN: listenerARN,
		}}
		tgARN, err := w.seedTargetGroup(a.TargetGroupName, a.NodePort)
		if err != nil {
			return fmt.Errorf("sim: new: Apps[%d]: %w", i, err)
		}
		priorities[listenerARN]++
		ruleARN, err := w.model.AddRule(listenerARN, priorities[listenerARN], []elbv2types.RuleCondition{{
			Field: aws.String("path-pattern"), Values: []string{"/" + a.Namespace + "/" + a.Name + "/*"},
		}}, []elbv2types.Action{{Type: elbv2types.ActionTypeEnumForward, TargetGroupArn: aws.String(tgARN)}})
		if err != nil {
			return fmt.Errorf("sim: new: Apps[%d]: rule: %w", i, err)
		}
		if err := w.registerNodes(tgARN, a.NodePort); err != nil {
			return fmt.Errorf("sim: new: Apps[%d]: %w", i, err)
		}
		st.legacy.TargetGroupARN, st.legacy.RuleARN = tgARN, ruleARN
		w.apps = append(w.apps, st)
	}
	return nil
}

// appNamesFree refuses, in a shared [Account], an app's target group or
// load balancer name another world of the account holds: ELBv2 names are
// unique per account and region. A world of its own holds every name it
// seeds.
func (w *World) appNamesFree() error {
	if w.cfg.Account == nil {
		return nil
	}
	for i, a := range w.cfg.Apps {
		if _, err := w.model.DescribeTargetGroups(&elbv2.DescribeTargetGroupsInput{Names: []string{a.TargetGroupName}}); err == nil {
			return &ConfigError{Field: fmt.Sprintf("Apps[%d].TargetGroupName", i), Reason: fmt.Sprintf("%q is another world's target group in the shared Account", a.TargetGroupName)}
		}
		if a.LoadBalancerName == "" {
			continue
		}
		if _, err := w.model.DescribeLoadBalancers(&elbv2.DescribeLoadBalancersInput{Names: []string{a.LoadBalancerName}}); err == nil {
			return &ConfigError{Field: fmt.Sprintf("Apps[%d].LoadBalancerName", i), Reason: fmt.Sprintf("%q is another world's load balancer in the shared Account", a.LoadBalancerName)}
		}
	}
	return nil
}

// seedSharedALB builds an ALB of the apps' own, with the seed's security
// group and a :80 listener whose default action answers 404, and returns
// its ARN and the listener's.
func (w *World) seedSharedALB(name string) ([2]string, error) {
	lbARN, err := w.model.AddLoadBalancer(name, w.legacy.VPCID)
	if err != nil {
		return [2]string{}, fmt.Errorf("load balancer %s: %w", name, err)
	}
	if err := w.model.SetSecurityGroups(lbARN, LoadBalancerSecurityGroup); err != nil {
		return [2]string{}, fmt.Errorf("load balancer %s: %w", name, err)
	}
	listenerARN, err := w.model.AddListener(lbARN, 80, []elbv2types.Action{{
		Type: elbv2types.ActionTypeEnumFixedResponse, FixedResponseConfig: &elbv2types.FixedResponseActionConfig{StatusCode: aws.String("404")},
	}})
	if err != nil {
		return [2]string{}, fmt.Errorf("load balancer %s: listener: %w", name, err)
	}
	return [2]string{lbARN, listenerARN}, nil
}

// seedTargetGroup creates a hand-made target group named name on port,
// with Config.Legacy's type, health check and deregistration delay, and
// returns its ARN.
func (w *World) seedTargetGroup(name string, port int32) (string, error) {
	l := w.cfg.Legacy
	tg, err := w.model.CreateTargetGroup(&elbv2.CreateTargetGroupInput{
		Name: aws.String(name), Protocol: elbv2types.ProtocolEnumHttp, Port: aws.Int32(port),
		VpcId: aws.String(w.legacy.VPCID), TargetType: elbv2types.TargetTypeEnum(l.TargetType),
		HealthCheckProtocol: elbv2types.ProtocolEnumHttp, HealthCheckPath: aws.String(l.HealthCheckPath),
		HealthCheckPort: aws.String(l.HealthCheckPort), HealthCheckIntervalSeconds: aws.Int32(l.HealthCheckIntervalSeconds),
		HealthCheckTimeoutSeconds: aws.Int32(l.HealthCheckTimeoutSeconds),
		HealthyThresholdCount:     aws.Int32(l.HealthyThresholdCount), UnhealthyThresholdCount: aws.Int32(l.UnhealthyThresholdCount),
	})
	if err != nil {
		return "", fmt.Errorf("target group %s: %w", name, err)
	}
	tgARN := aws.ToString(tg.TargetGroups[0].TargetGroupArn)
	if _, err := w.model.ModifyTargetGroupAttributes(&elbv2.ModifyTargetGroupAttributesInput{
		TargetGroupArn: aws.String(tgARN),
		Attributes: []elbv2types.TargetGroupAttribute{{
			Key: aws.String("deregistration_delay.timeout_seconds"), Value: aws.String(strconv.Itoa(int(*l.DeregistrationDelay / time.Second))),
		}},
	}); err != nil {
		return "", fmt.Errorf("target group %s attributes: %w", name, err)
	}
	return tgARN, nil
}

// registerNodes registers every node's nodeIP:port (or instance and port)
// with the target group tgARN, as a hand-made fleet pins them.
func (w *World) registerNodes(tgARN string, port int32) error {
	var targets []elbv2types.TargetDescription
	for _, n := range w.cl.Nodes() {
		id := n.InternalIP
		if w.cfg.Legacy.TargetType == string(elbv2types.TargetTypeEnumInstance) {
			id = n.InstanceID
		}
		targets = append(targets, elbv2types.TargetDescription{Id: aws.String(id), Port: aws.Int32(port)})
	}
	if _, err := w.model.RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(tgARN), Targets: targets}); err != nil {
		return fmt.Errorf("register node targets: %w", err)
	}
	return nil
}

// startAppTraffic starts each app's client traffic through its rule, at
// the scenario's start.
func (w *World) startAppTraffic() error {
	for i := range w.apps {
		a := &w.apps[i]
		if a.cfg.RPS <= 0 {
			continue
		}
		g, err := traffic.New(w.model, w.cl, traffic.Options{
			ListenerARN: a.legacy.ListenerARN, RuleARN: a.legacy.RuleARN, RPS: a.cfg.RPS,
			Seed: w.cfg.Seed + uint64(i+1)*0x9e3779b97f4a7c15, ConnectTimeout: w.cfg.Timings.Timeout(),
			App: a.legacy.Namespace + "/" + a.legacy.Service,
		})
		if err != nil {
			return fmt.Errorf("traffic of app %s/%s: %w", a.legacy.Namespace, a.legacy.Service, err)
		}
		a.traffic = g
	}
	return nil
}

// Apps returns the case of each app of Config.Apps, in their order: its
// Service, its hand-made target group, and the load balancer, listener
// and rule (Legacy.RuleARN) that reach it. The seed's case is
// [World.Legacy].
func (w *World) Apps() []Legacy {
	out := make([]Legacy, len(w.apps))
	for i, a := range w.apps {
		out[i] = a.legacy
	}
	return out
}

// trafficOf returns the generator of the target group tgARN's client
// traffic: the seed's for Legacy().TargetGroupARN, an app's for its own;
// found is false for any other target group.
func (w *World) trafficOf(tgARN string) (g *traffic.Generator, found bool) {
	if tgARN == w.legacy.TargetGroupARN {
		return w.traffic, true
	}
	for _, a := range w.apps {
		if a.legacy.TargetGroupARN == tgARN {
			return a.traffic, true
		}
	}
	return nil, false
}

// TrafficOf returns the client traffic so far of the application whose
// hand-made target group is tgARN (the seed's, [World.Traffic], or an
// app's), through its listener or rule wherever its requests go since
// (a binding's target group, after a blue/green cutover); Stats.Span
// gives a window of it. Zero for another target group, or an app
// without traffic.
func (w *World) TrafficOf(tgARN string) traffic.Stats {
	if g, _ := w.trafficOf(tgARN); g != nil {
		return g.Stats()
	}
	return traffic.Stats{}
}

// FailedRequestsOf returns the failed requests so far of the application
// whose hand-made target group is tgARN, as [World.FailedRequests] does
// for the seed's; nil for another target group or no traffic.
func (w *World) FailedRequestsOf(tgARN string) []traffic.Request {
	if g, _ := w.trafficOf(tgARN); g != nil {
		return g.Failures()
	}
	return nil
}

// appOf returns the application ("namespace/name") the target group
// tgARN serves: an app's for its hand-made target group, the seed's for
// any other (a target group the system under test made included).
func (w *World) appOf(tgARN string) string {
	for _, a := range w.apps {
		if a.legacy.TargetGroupARN == tgARN {
			return a.legacy.Namespace + "/" + a.legacy.Service
		}
	}
	return w.legacy.Namespace + "/" + w.legacy.Service
}
