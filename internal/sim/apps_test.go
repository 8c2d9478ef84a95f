package sim_test

// apps_test.go: worlds of several applications (Config.Apps): their
// validation, their seeding on the world's ALB and a shared one, each
// one's traffic, an adoption of one app's target group beside the
// others, the controller denied on one target group, and the peak
// targets of a load balancer.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/sim"
)

// TestAppsValidated: a bad app is a *ConfigError naming its field, and
// nothing is built.
func TestAppsValidated(t *testing.T) {
	long := strings.Repeat("a", 30)
	tests := []struct {
		name  string
		cfg   sim.Config
		field string
	}{
		{"no name", sim.Config{Apps: []sim.App{{}}}, "Apps[0].Name"},
		{"name not a label", sim.Config{Apps: []sim.App{{Name: "Api"}}}, "Apps[0].Name"},
		{"the seed's Service", sim.Config{Apps: []sim.App{{Name: sim.DefaultService}}}, "Apps[0].Name"},
		{"the neighbour's", sim.Config{Neighbours: 2, Apps: []sim.App{{Name: sim.NeighbourService}}}, "Apps[0].Name"},
		{"twice in a namespace", sim.Config{Apps: []sim.App{{Name: "api"}, {Name: "api"}}}, "Apps[1].Name"},
		{"bad namespace", sim.Config{Apps: []sim.App{{Name: "api", Namespace: "Pay"}}}, "Apps[0].Namespace"},
		{"derived name too long", sim.Config{Apps: []sim.App{{Name: long}}}, "Apps[0].TargetGroupName"},
		{"target group name taken", sim.Config{Apps: []sim.App{{Name: "api", TargetGroupName: "legacy-web"}}}, "Apps[0].TargetGroupName"},
		{"bad load balancer name", sim.Config{Apps: []sim.App{{Name: "api", LoadBalancerName: "internal-x"}}}, "Apps[0].LoadBalancerName"},
		{"NodePort out of range", sim.Config{Apps: []sim.App{{Name: "api", NodePort: 80}}}, "Apps[0].NodePort"},
		{"the seed's NodePort", sim.Config{Apps: []sim.App{{Name: "api", NodePort: sim.DefaultNodePort}}}, "Apps[0].NodePort"},
		{"negative pods", sim.Config{Apps: []sim.App{{Name: "api", Pods: -1}}}, "Apps[0].Pods"},
		{"too much traffic", sim.Config{Apps: []sim.App{{Name: "api", RPS: 100000}}}, "Apps[0].RPS"},
		{"gate against the seed's namespace", sim.Config{Apps: []sim.App{{Name: "api", ReadinessGateInjection: true}}}, "Apps[0].ReadinessGateInjection"},
		{"gate split in a namespace", sim.Config{Apps: []sim.App{{Name: "a", Namespace: "pay", ReadinessGateInjection: true}, {Name: "b", Namespace: "pay"}}}, "Apps[1].ReadinessGateInjection"},
		{"with Fargate", sim.Config{Fargate: true, Apps: []sim.App{{Name: "api"}}}, "Apps"},
		{"with Move", sim.Config{Move: sim.MoveWorld{Enabled: true}, Apps: []sim.App{{Name: "api"}}}, "Apps"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Nodes, tt.cfg.Pods = 2, 2
			w, err := sim.New(context.Background(), tt.cfg)
			var ce *sim.ConfigError
			if w != nil || !errors.As(err, &ce) || ce.Field != tt.field || !errors.Is(err, sim.ErrInvalidConfig) {
				t.Fatalf("New() = %v, %v; want a *ConfigError on %s", w, err, tt.field)
			}
		})
	}
}

// appsConfig is a world of three apps besides the seed's: api on the
// world's ALB, orders and search on a shared ALB, search in a namespace
// of its own without the readiness-gate label.
func appsConfig() sim.Config {
	return sim.Config{Seed: 21, Nodes: 3, Pods: 4, RPS: 10, ReadinessGateInjection: true, Apps: []sim.App{
		{Name: "api"},
		{Name: "orders", LoadBalancerName: "shared-alb", Pods: 3, RPS: 5},
		{Name: "search", Namespace: "find", LoadBalancerName: "shared-alb", RPS: 5},
	}}
}

// TestApps: every app is seeded with its own target group of node
// targets, healthy at the start, behind its rule on the right ALB, its
// traffic flowing and counted apart; the shared ALB's peak is its two
// target groups' targets.
func TestApps(t *testing.T) {
	cfg := appsConfig()
	w := newWorld(t, cfg, nil)
	apps := w.Apps()
	if len(apps) != 3 {
		t.Fatalf("%d apps, want 3", len(apps))
	}
	seed := w.Legacy()
	tests := []struct {
		i                int
		ns, tgName       string
		nodePort         int32
		onSeedALB, gated bool
	}{
		{0, sim.DefaultNamespace, "legacy-web-api", 30081, true, true},
		{1, sim.DefaultNamespace, "legacy-web-orders", 30082, false, true},
		{2, "find", "legacy-web-search", 30083, false, false},
	}
	for _, tt := range tests {
		a := apps[tt.i]
		t.Run(a.Service, func(t *testing.T) {
			if a.Namespace != tt.ns || a.TargetGroupName != tt.tgName || a.NodePort != tt.nodePort || a.RuleARN == "" {
				t.Errorf("app %+v", a)
			}
			if (a.LoadBalancerARN == seed.LoadBalancerARN) != tt.onSeedALB || (a.ListenerARN == seed.ListenerARN) != tt.onSeedALB {
				t.Errorf("load balancer %s, listener %s; on the seed's: %v", a.LoadBalancerARN, a.ListenerARN, tt.onSeedALB)
			}
			ts := w.Targets(a.TargetGroupARN)
			if len(ts) != cfg.Nodes {
				t.Fatalf("%d targets, want the %d nodes'", len(ts), cfg.Nodes)
			}
			for _, tg := range ts {
				if tg.State != elbv2types.TargetHealthStateEnumHealthy || tg.Port != tt.nodePort || !strings.HasPrefix(tg.Owner, "node/") {
					t.Errorf("target %s, want a healthy node target on %d", tg, tt.nodePort)
				}
			}
			rules, err := w.Model().DescribeRules(&elbv2.DescribeRulesInput{RuleArns: []string{a.RuleARN}})
			if err != nil || len(rules.Rules) != 1 || aws.ToString(rules.Rules[0].Actions[0].TargetGroupArn) != a.TargetGroupARN {
				t.Errorf("rule %v: %+v", err, rules)
			}
			ns := &corev1.Namespace{}
			if err := w.Client().Get(t.Context(), client.ObjectKey{Name: a.Namespace}, ns); err != nil {
				t.Fatal(err)
			}
			if gated := ns.Labels["elbv2.k8s.aws/pod-readiness-gate-inject"] == "enabled"; gated != tt.gated {
				t.Errorf("namespace %s gated %v, want %v", a.Namespace, gated, tt.gated)
			}
		})
	}
	if apps[1].LoadBalancerARN != apps[2].LoadBalancerARN {
		t.Errorf("orders and search on %s and %s, want one shared ALB", apps[1].LoadBalancerARN, apps[2].LoadBalancerARN)
	}
	w.Run(2 * time.Minute)
	for _, arn := range []string{seed.TargetGroupARN, apps[0].TargetGroupARN, apps[1].TargetGroupARN, apps[2].TargetGroupARN} {
		st := w.TrafficOf(arn)
		if st.Total == 0 || st.Failed != 0 {
			t.Errorf("%s: traffic %s, want requests and none failed", arn, st)
		}
	}
	if a, s := w.TrafficOf(apps[0].TargetGroupARN).Total, w.Traffic().Total; a != s {
		t.Errorf("api sent %d requests, the seed %d: want the same at the same rate", a, s)
	}
	if o, s := w.TrafficOf(apps[1].TargetGroupARN).Total, w.Traffic().Total; o*2 < s-2 || o*2 > s+2 {
		t.Errorf("orders sent %d requests at 5 rps, the seed %d at 10", o, s)
	}
	if st := w.TrafficOf("arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/nope/0"); st.Total != 0 {
		t.Errorf("an unknown target group's traffic: %s", st)
	}
	if got := w.Model().PeakTargets(apps[1].LoadBalancerARN); got != 2*cfg.Nodes {
		t.Errorf("the shared ALB's peak: %d, want its two target groups' %d", got, 2*cfg.Nodes)
	}
	if got := w.Model().PeakTargets(seed.LoadBalancerARN); got != 2*cfg.Nodes {
		t.Errorf("the world's ALB's peak: %d, want the seed's and api's %d", got, 2*cfg.Nodes)
	}
}

// TestAppsAdoptOne: one app's target group is adopted by a binding (the
// safe adoption of sut_test.go, for that app) while the others keep
// their node targets: every app's requests are served throughout, the
// shared ALB's peak counts the overlap, and the other target groups are
// untouched. With RegisterTargets denied on another app's target group,
// that one's binding gets no target while the adopted one's does.
func TestAppsAdoptOne(t *testing.T) {
	cfg := appsConfig()
	w := newWorld(t, cfg, nil)
	apps := w.Apps()
	orders, search := apps[1], apps[2]
	if err := w.DenyControllerOn("DescribeTargetHealth", search.TargetGroupARN); !errors.Is(err, sim.ErrInvalidConfig) {
		t.Errorf("DenyControllerOn(DescribeTargetHealth) = %v, want a config error: it takes no resource", err)
	}
	if err := w.DenyControllerOn("RegisterTargets", "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/nope/0"); !errors.Is(err, sim.ErrInvalidConfig) {
		t.Errorf("DenyControllerOn(an unknown target group) = %v, want a config error", err)
	}
	if err := w.DenyControllerOn("RegisterTargets", search.TargetGroupARN); err != nil {
		t.Fatal(err)
	}
	if err := w.Client().Create(t.Context(), search.NewBinding("search", true)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := adoptApp(ctx, w, orders, cfg.Apps[1].Pods); err != nil {
		t.Fatal(err)
	}
	w.Run(time.Minute)
	pods := 0
	for _, tg := range w.Targets(orders.TargetGroupARN) {
		if strings.HasPrefix(tg.Owner, "pod/"+orders.Namespace+"/") && tg.State == elbv2types.TargetHealthStateEnumHealthy {
			pods++
		}
	}
	if pods != cfg.Apps[1].Pods {
		t.Errorf("orders: %d healthy pod targets, want %d", pods, cfg.Apps[1].Pods)
	}
	for _, tg := range w.Targets(search.TargetGroupARN) {
		if !strings.HasPrefix(tg.Owner, "node/") {
			t.Errorf("search: target %s registered although RegisterTargets is denied on it", tg)
		}
	}
	for _, a := range append([]sim.Legacy{w.Legacy()}, apps...) {
		if st := w.TrafficOf(a.TargetGroupARN); st.Total == 0 || st.Failed != 0 {
			t.Errorf("%s: traffic %s, want every request served", a.Service, st)
		}
		if a.Service != orders.Service && len(w.Targets(a.TargetGroupARN)) != cfg.Nodes {
			t.Errorf("%s: %d targets, want its %d node targets untouched", a.Service, len(w.Targets(a.TargetGroupARN)), cfg.Nodes)
		}
	}
	if got, want := w.Model().PeakTargets(orders.LoadBalancerARN), 2*cfg.Nodes+cfg.Apps[1].Pods; got != want {
		t.Errorf("the shared ALB's peak: %d, want %d (both groups' nodes and orders' pods at once)", got, want)
	}
	w.AllowController("RegisterTargets")
	w.Run(2 * time.Minute)
	registered := 0
	for _, tg := range w.Targets(search.TargetGroupARN) {
		if strings.HasPrefix(tg.Owner, "pod/find/") {
			registered++
		}
	}
	if registered == 0 {
		t.Errorf("search: no pod registered once the controller is allowed again")
	}
}

// adoptApp is sut_test.go's adopt for one app: bind in multi-cluster
// mode, wait until its pods' targets are healthy, deregister its node
// targets.
func adoptApp(ctx context.Context, w *sim.World, app sim.Legacy, pods int) error {
	if err := w.Client().Create(ctx, app.NewBinding(app.Service, true)); err != nil {
		return fmt.Errorf("adopt: bind: %w", err)
	}
	arn := app.TargetGroupARN
	for {
		out, err := w.ELBv2().DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: &arn})
		if err != nil {
			return fmt.Errorf("adopt: describe: %w", err)
		}
		healthy, nodes := 0, []elbv2types.TargetDescription{}
		for _, d := range out.TargetHealthDescriptions {
			if aws.ToInt32(d.Target.Port) == app.NodePort {
				nodes = append(nodes, *d.Target)
			} else if d.TargetHealth.State == elbv2types.TargetHealthStateEnumHealthy {
				healthy++
			}
		}
		if healthy == pods {
			_, err := w.ELBv2().DeregisterTargets(ctx, &elbv2.DeregisterTargetsInput{TargetGroupArn: &arn, Targets: nodes})
			return err
		}
		if err := context.Cause(ctx); err != nil {
			return err
		}
		w.Run(5 * time.Second)
	}
}

// TestAppsInstanceTargets: with an instance legacy target group, each
// app's target group is of instances too (every node's on the app's
// NodePort), healthy at the start, and its traffic is served.
func TestAppsInstanceTargets(t *testing.T) {
	w := newWorld(t, sim.Config{Seed: 5, Nodes: 2, Pods: 2, RPS: 5, Legacy: sim.LegacyTargetGroup{TargetType: "instance"},
		Apps: []sim.App{{Name: "api", LoadBalancerName: "api-alb"}}}, nil)
	app := w.Apps()[0]
	if app.TargetType != "instance" {
		t.Fatalf("app target type %q", app.TargetType)
	}
	views := w.Model().Targets(app.TargetGroupARN)
	if len(views) != 2 {
		t.Fatalf("%d targets, want the 2 nodes' instances", len(views))
	}
	for _, v := range views {
		if !strings.HasPrefix(v.ID, "i-") || v.Port != app.NodePort || v.State != elbv2types.TargetHealthStateEnumHealthy {
			t.Errorf("target %s, want a healthy instance on %d", v, app.NodePort)
		}
	}
	w.Run(time.Minute)
	if st := w.TrafficOf(app.TargetGroupARN); st.Total == 0 || st.Failed != 0 {
		t.Errorf("traffic %s, want every request served", st)
	}
}
