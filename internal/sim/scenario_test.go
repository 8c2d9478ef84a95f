package sim_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/mock/gomock"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/internal/mocks"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
	"github.com/qstools/tgmigrate/internal/sim/lbc"
	"github.com/qstools/tgmigrate/internal/sim/timing"
	"github.com/qstools/tgmigrate/internal/sim/traffic"
)

// contract wraps the LBC's client in a mock (the one ELBv2 mock,
// internal/mocks, which fits lbc.ELBv2API) that delegates every call to the
// simulator and asserts the LBC's call contract: every batch names the
// legacy target group and holds at most 200 targets, every
// DeregisterTargets carries Port on every target, and whatever extra
// matches dereg adds; beforeRegister, when set, sees every RegisterTargets
// before the simulator does.
type contract struct {
	ctrl   *gomock.Controller
	arn    *string // the legacy target group, known once the world is built
	dereg  []gomock.Matcher
	before bool // the first DeregisterTargets comes before any RegisterTargets
	// beforeRegister runs inside the LBC's reconcile, before the call
	// reaches the simulator, to check the state the LBC left behind it.
	beforeRegister func(ctx context.Context, in *elbv2.RegisterTargetsInput)
}

func (c *contract) wrap(real lbc.ELBv2API) lbc.ELBv2API {
	m := mocks.NewMockELBv2API(c.ctrl)
	inTG := gomock.Cond(func(x any) bool { return elbv2sim.InTargetGroup(*c.arn).Matches(x) })
	m.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any()).DoAndReturn(real.DescribeTargetGroups).AnyTimes()
	m.EXPECT().DescribeTargetHealth(gomock.Any(), inTG).DoAndReturn(real.DescribeTargetHealth).AnyTimes()
	dereg := m.EXPECT().DeregisterTargets(gomock.Any(), gomock.All(append([]gomock.Matcher{inTG, elbv2sim.EveryTargetHasPort(), elbv2sim.AtMostTargets(200)}, c.dereg...)...)).
		DoAndReturn(real.DeregisterTargets)
	register := real.RegisterTargets
	if c.beforeRegister != nil {
		register = func(ctx context.Context, in *elbv2.RegisterTargetsInput, optFns ...func(*elbv2.Options)) (*elbv2.RegisterTargetsOutput, error) {
			c.beforeRegister(ctx, in)
			return real.RegisterTargets(ctx, in, optFns...)
		}
	}
	reg := m.EXPECT().RegisterTargets(gomock.Any(), gomock.All(inTG, elbv2sim.EveryTargetHasPort(), elbv2sim.AtMostTargets(200))).
		DoAndReturn(register).AnyTimes()
	if c.before {
		dereg.MinTimes(1)
		reg.After(dereg.Call)
	} else {
		dereg.AnyTimes()
	}
	return m
}

func newWorld(t testing.TB, cfg sim.Config, c *contract) *sim.World {
	t.Helper()
	if c != nil {
		c.arn = new(string)
		cfg.WrapLBCELBv2 = c.wrap
	}
	w, err := sim.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c != nil {
		*c.arn = w.Legacy().TargetGroupARN
	}
	return w
}

// TestSeedOutage: the seed's case under Karpenter churn. Nobody maintains
// the static nodeIP:NodePort targets, so every replaced node leaves a ghost
// target that times out (unhealthy, Target.Timeout), requests fail, and the
// ghosts accumulate.
func TestSeedOutage(t *testing.T) {
	tests := []struct {
		name    string
		cfg     sim.Config
		minutes int
	}{
		{"drift every 90s, private subnets", sim.Config{Seed: 1, ChurnInterval: 90 * time.Second}, 30},
		{"mixed reasons, public subnets", sim.Config{Seed: 2, ChurnInterval: 2 * time.Minute, PublicSubnets: true, Nodes: 10, Pods: 30,
			ChurnReasons: []karpenter.Reason{karpenter.ReasonDrifted, karpenter.ReasonExpired, karpenter.ReasonUnderutilized}}, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, tt.cfg, nil)
			if g := w.Ghosts(); len(g) != 0 {
				t.Fatalf("ghosts at the start: %v", g)
			}
			prev := 0
			for m := 10; m <= tt.minutes; m += 10 {
				w.Run(10 * time.Minute)
				g := len(w.Ghosts())
				if g < prev {
					t.Errorf("after %d min: %d ghosts, fewer than %d before: ghosts do not go away by themselves", m, g, prev)
				}
				prev = g
			}
			terminated := 0
			for _, n := range w.Cluster().NodeHistory() {
				if n.Phase == "Terminated" {
					terminated++
				}
			}
			ghosts := w.Ghosts()
			if terminated == 0 || len(ghosts) != terminated {
				t.Errorf("%d ghosts for %d terminated nodes, want one each", len(ghosts), terminated)
			}
			// The health checker needs UnhealthyThresholdCount (2) failed
			// checks, 30 s apart, to see that a ghost is gone.
			detect := 3 * 30 * time.Second
			for _, g := range ghosts {
				if !strings.HasPrefix(g.FormerOwner, "node/") || g.Port != w.Legacy().NodePort {
					t.Errorf("ghost %v: want a former node's nodeIP:NodePort", g)
				}
				n, _ := w.Cluster().Node(strings.TrimPrefix(g.FormerOwner, "node/"))
				if w.Clock().Since(n.TerminatedAt) > detect &&
					(g.State != elbv2types.TargetHealthStateEnumUnhealthy || g.Reason != elbv2types.TargetHealthReasonEnumTimeout) {
					t.Errorf("ghost %v (%s), gone since %v: want unhealthy, %s (nothing answers at its IP)",
						g, g.Reason, n.TerminatedAt, elbv2types.TargetHealthReasonEnumTimeout)
				}
			}
			st := w.Traffic()
			if st.Failed == 0 || st.TargetFailed == 0 {
				t.Errorf("traffic %+v: want failed requests (a ghost's IP does not answer)", st.String())
			}
			nodes := tt.cfg.Nodes
			if nodes == 0 {
				nodes = sim.DefaultNodes
			}
			if nt := w.NodeTargets(); len(nt) != nodes {
				t.Errorf("node targets = %d, want the %d registered at the start", len(nt), nodes)
			}
			live := 0
			for _, nt := range w.NodeTargets() {
				if nt.Owner != "" {
					live++
					if nt.State != elbv2types.TargetHealthStateEnumHealthy {
						t.Errorf("live node's target %v: want healthy", nt)
					}
				}
			}
			if live+len(ghosts) != len(w.NodeTargets()) || live != nodes-terminated {
				t.Errorf("%d live + %d ghosts, %d node targets, %d nodes left", live, len(ghosts), len(w.NodeTargets()), nodes-terminated)
			}
		})
	}
}

// TestNaiveBindingOutage: a default-mode binding on the live legacy target
// group. The LBC deregisters every node target before it registers the pod
// endpoints, in the same reconcile: until the pod targets pass their health
// checks the group has only draining and initial targets, and every request
// fails. The worlds take the envelope's corner where the outage is longest:
// new targets need HealthyThresholdCount checks, and no deregistration lag
// bridges the gap (TestNaiveBindingBridgedByLag shows the other end).
func TestNaiveBindingOutage(t *testing.T) {
	worst := timing.Timings{NewTargetChecks: timing.HealthyThreshold, DeregistrationLag: -1}
	tests := []struct {
		name string
		cfg  sim.Config
	}{
		{"60 pods", sim.Config{Seed: 3, Timings: worst}},
		{"450 pods: registration in batches of 200", sim.Config{Seed: 4, Nodes: 20, Pods: 450, Timings: worst}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &contract{ctrl: gomock.NewController(t), before: true}
			w := newWorld(t, tt.cfg, c)
			w.Run(time.Minute)
			nodeTargets := len(w.NodeTargets())
			bound := w.Clock().Now()
			if err := w.Client().Create(t.Context(), w.NewBinding("web", false)); err != nil {
				t.Fatal(err)
			}
			w.Run(10 * time.Minute)

			var firstDereg, firstReg *elbv2sim.Call
			regTargets := 0
			for _, call := range w.LBCELBv2().Calls() {
				switch call.Op {
				case elbv2sim.OpDeregisterTargets:
					if firstDereg == nil {
						firstDereg = &call
					}
				case elbv2sim.OpRegisterTargets:
					if firstReg == nil {
						firstReg = &call
					}
					regTargets += call.Targets
				}
			}
			if firstDereg == nil || firstReg == nil || !firstDereg.At.Equal(firstReg.At) {
				t.Fatalf("deregister %+v and register %+v: want both, in the same reconcile", firstDereg, firstReg)
			}
			if firstDereg.Targets != nodeTargets {
				t.Errorf("first deregistration: %d targets, want the %d node targets", firstDereg.Targets, nodeTargets)
			}
			if pods := len(w.Cluster().Pods()); regTargets != pods {
				t.Errorf("registered %d targets, want the %d pods", regTargets, pods)
			}
			st := w.Traffic()
			if len(st.Outages) != 1 {
				t.Fatalf("outages %v: want one window", st.Outages)
			}
			o := st.Outages[0]
			minimum := w.Model().RegistrationDelay() + 4*30*time.Second // 5 passes, 30 s apart
			// Every request fails from the deregistration on, which lands
			// the controller's reaction after the binding (tens of
			// milliseconds and its reads); the window is counted in whole
			// seconds, so its first second may hold requests served before.
			edge := w.Timings().Reaction() + w.Timings().Kube() + w.Timings().ELBv2()
			served := int(max(edge, time.Second).Seconds()*float64(sim.DefaultRPS)) + 1
			if o.Start.Sub(bound) > 2*time.Second || o.Duration() < minimum || o.Requests-o.Failed > served {
				t.Errorf("outage %v-%v (%d of %d failed): want every request failing from the binding (%v) plus %v for at least %v",
					o.Start, o.End, o.Failed, o.Requests, bound, edge, minimum)
			}
			if st.NoTarget != st.Failed {
				t.Errorf("failures %s: want all 503 no-target (only draining and initial targets)", st.String())
			}
			if nt := w.NodeTargets(); len(nt) != 0 {
				t.Errorf("node targets %v: want none once the deregistration delay is over", nt)
			}
		})
	}
}

// TestMultiClusterBindingLeavesNodeTargets: in multiClusterTargetGroup mode
// the LBC deregisters only what it registered, tracked in the ConfigMap
// aws-lbc-targets-<name>, which it writes before every RegisterTargets (so a
// registration whose answer is lost is still tracked): the node targets
// stay, and the binding adds the pod targets alongside them with no failed
// request.
func TestMultiClusterBindingLeavesNodeTargets(t *testing.T) {
	tests := []struct {
		name  string
		churn time.Duration
	}{
		{"no churn", 0},
		{"churn: pods move, only pod targets are deregistered", 90 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w *sim.World
			podTarget := gomock.Cond(func(x any) bool {
				in := x.(*elbv2.DeregisterTargetsInput)
				for _, tg := range in.Targets {
					owner, _ := w.Cluster().FormerOwner(aws.ToString(tg.Id))
					if !strings.HasPrefix(owner, "pod/") {
						return false
					}
				}
				return true
			})
			// Every target a RegisterTargets names is in the ConfigMap
			// already, read through the world's client at the call.
			registrations := 0
			trackedFirst := func(ctx context.Context, in *elbv2.RegisterTargetsInput) {
				registrations++
				var cm corev1.ConfigMap
				key := types.NamespacedName{Namespace: w.Legacy().Namespace, Name: lbc.TrackedTargetsPrefix + "web"}
				// Inside the LBC's call, a world event: the cluster's own
				// client, which spends no latency on the clock.
				if err := w.Cluster().Client().Get(ctx, key, &cm); err != nil {
					t.Errorf("RegisterTargets at %v before the ConfigMap is written: %v", w.Clock().Now(), err)
					return
				}
				tracked := strings.Split(cm.Data[lbc.TrackedTargetsKey], ",")
				for _, tg := range in.Targets {
					id := fmt.Sprintf("%s:%d", aws.ToString(tg.Id), aws.ToInt32(tg.Port))
					if !slices.Contains(tracked, id) {
						t.Errorf("RegisterTargets at %v: %s is not in the ConfigMap yet", w.Clock().Now(), id)
					}
				}
			}
			c := &contract{ctrl: gomock.NewController(t), dereg: []gomock.Matcher{podTarget}, beforeRegister: trackedFirst}
			w = newWorld(t, sim.Config{Seed: 5, ChurnInterval: tt.churn}, c)
			nodeTargets := len(w.NodeTargets())
			if err := w.Client().Create(t.Context(), w.NewBinding("web", true)); err != nil {
				t.Fatal(err)
			}
			w.Run(10 * time.Minute)
			// Let the last moves settle before comparing the tracking.
			w.Karpenter().Stop()
			w.Run(5 * time.Minute)
			if got := len(w.NodeTargets()); got != nodeTargets {
				t.Errorf("node targets %d, want the %d there were", got, nodeTargets)
			}
			for _, nt := range w.NodeTargets() {
				if nt.State == elbv2types.TargetHealthStateEnumDraining {
					t.Errorf("node target %v draining", nt)
				}
			}
			var cm corev1.ConfigMap
			if err := w.Client().Get(t.Context(), types.NamespacedName{Namespace: w.Legacy().Namespace, Name: lbc.TrackedTargetsPrefix + "web"}, &cm); err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, p := range w.Cluster().Pods() {
				if p.Phase != "Terminating" {
					want = append(want, fmt.Sprintf("%s:%d", p.IP, w.Legacy().ContainerPort))
				}
			}
			// The controller writes them in no particular order.
			tracked := slices.Sorted(slices.Values(strings.Split(cm.Data[lbc.TrackedTargetsKey], ",")))
			if d := cmp.Diff(slices.Sorted(slices.Values(want)), tracked); d != "" {
				t.Errorf("tracked targets (-pods +configmap):\n%s", d)
			}
			healthyPods := 0
			for _, tg := range w.Targets(w.Legacy().TargetGroupARN) {
				if strings.HasPrefix(tg.Owner, "pod/") && tg.State == elbv2types.TargetHealthStateEnumHealthy {
					healthyPods++
				}
			}
			if healthyPods != len(want) {
				t.Errorf("%d healthy pod targets for %d pods", healthyPods, len(want))
			}
			if n := w.LBC().Stats().Deregistered; (tt.churn > 0) != (n > 0) {
				t.Errorf("the LBC deregistered %d targets (churn %v)", n, tt.churn)
			}
			if st := w.Traffic(); tt.churn == 0 && st.Failed != 0 {
				t.Errorf("traffic %s: want no failure while the binding adopts the group", st.String())
			}
			if registrations == 0 || (tt.churn > 0) != (registrations > 1) {
				t.Errorf("%d RegisterTargets checked against the ConfigMap (churn %v)", registrations, tt.churn)
			}
		})
	}
}

// TestClusterIPServiceBinding: ip mode works with a ClusterIP Service (only
// instance mode needs a NodePort). A multi-cluster binding on a ClusterIP
// Service in front of the same pods registers their IP:containerPort; once
// those targets are healthy the node targets are deregistered by hand (the
// safe adoption's last step), and the pod targets alone serve every request.
func TestClusterIPServiceBinding(t *testing.T) {
	w := newWorld(t, sim.Config{Seed: 9, Nodes: 6, Pods: 18}, nil)
	ctx := t.Context()
	l := w.Legacy()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: l.Namespace, Name: "web-internal"},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: map[string]string{"app": l.Service},
			Ports:    []corev1.ServicePort{{Name: l.PortName, Protocol: corev1.ProtocolTCP, Port: l.ServicePort, TargetPort: intstr.FromString(l.PortName)}},
		},
	}
	if err := w.Cluster().AddService(ctx, svc); err != nil {
		t.Fatal(err)
	}
	b := w.NewBinding("web-internal", true)
	b.Spec.ServiceRef.Name = svc.Name
	if err := w.Client().Create(ctx, b); err != nil {
		t.Fatal(err)
	}
	w.Run(5 * time.Minute)

	pods := map[string]bool{}
	for _, p := range w.Cluster().Pods() {
		pods[fmt.Sprintf("%s:%d", p.IP, l.ContainerPort)] = true
	}
	healthy := 0
	for _, tg := range w.Targets(l.TargetGroupARN) {
		if !strings.HasPrefix(tg.Owner, "pod/") {
			continue
		}
		if !pods[fmt.Sprintf("%s:%d", tg.IP, tg.Port)] || tg.State != elbv2types.TargetHealthStateEnumHealthy {
			t.Errorf("pod target %v: want a pod's IP:%d, healthy", tg, l.ContainerPort)
			continue
		}
		healthy++
	}
	if healthy != len(pods) {
		t.Fatalf("%d healthy pod targets for %d pods", healthy, len(pods))
	}

	var nodes []elbv2types.TargetDescription
	for _, nt := range w.NodeTargets() {
		nodes = append(nodes, elbv2types.TargetDescription{Id: aws.String(nt.IP), Port: aws.Int32(nt.Port)})
	}
	if _, err := w.ELBv2().DeregisterTargets(ctx, &elbv2.DeregisterTargetsInput{TargetGroupArn: aws.String(l.TargetGroupARN), Targets: nodes}); err != nil {
		t.Fatal(err)
	}
	before := w.Traffic().Total
	w.Run(6 * time.Minute) // past the deregistration delay (300 s)
	if nt := w.NodeTargets(); len(nt) != 0 {
		t.Fatalf("node targets %v: want none", nt)
	}
	st := w.Traffic()
	if st.Failed != 0 || st.Total-before < 6*60*sim.DefaultRPS-sim.DefaultRPS {
		t.Errorf("traffic %s (%d requests since the node targets went): want every request served by the pod targets",
			st.String(), st.Total-before)
	}
}

// TestDeterminism: the same seed gives an identical event log; another seed
// gives another.
func TestDeterminism(t *testing.T) {
	run := func(seed uint64) ([]string, traffic.Stats) {
		w := newWorld(t, sim.Config{Seed: seed, Nodes: 6, Pods: 18, ChurnInterval: time.Minute, ReadinessGateInjection: true}, nil)
		w.Run(3 * time.Minute)
		if err := w.Client().Create(t.Context(), w.NewBinding("web", true)); err != nil {
			t.Fatal(err)
		}
		w.Run(12 * time.Minute)
		return w.EventLog(), w.Traffic()
	}
	a, sa := run(7)
	b, sb := run(7)
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("same seed, different event logs (-first +second):\n%s", d)
	}
	if d := cmp.Diff(sa, sb); d != "" {
		t.Errorf("same seed, different traffic (-first +second):\n%s", d)
	}
	if len(a) < 100 {
		t.Errorf("event log of %d lines: the scenario did little", len(a))
	}
	c, _ := run(8)
	if cmp.Equal(a, c) {
		t.Error("seeds 7 and 8 gave the same event log")
	}
}

// TestInstanceLegacyTargetGroup: the legacy target group of type instance,
// under churn. EC2 tells ELB when an instance is terminated, so a replaced
// node's target stops taking requests at once: no request fails, but
// nothing registers the replacements, and the target group shrinks to the
// nodes that are left.
func TestInstanceLegacyTargetGroup(t *testing.T) {
	w := newWorld(t, sim.Config{Seed: 6, Nodes: 6, Pods: 18, ChurnInterval: 90 * time.Second,
		Legacy: sim.LegacyTargetGroup{TargetType: "instance"}}, nil)
	if tt := w.Legacy().TargetType; tt != "instance" {
		t.Fatalf("legacy target type %q", tt)
	}
	start := w.Targets(w.Legacy().TargetGroupARN)
	if len(start) != 6 {
		t.Fatalf("%d targets at the start, want one per node", len(start))
	}
	for _, tg := range start {
		if !strings.HasPrefix(tg.Owner, "node/") || tg.Port != w.Legacy().NodePort || tg.State != elbv2types.TargetHealthStateEnumHealthy {
			t.Errorf("target %v: want a healthy node instance on the NodePort", tg)
		}
	}
	w.Run(10 * time.Minute)
	if st := w.Traffic(); st.Failed != 0 || st.Total == 0 {
		t.Errorf("traffic %s: want requests and no failure", st.String())
	}
	terminated := 0
	for _, n := range w.Cluster().NodeHistory() {
		if n.Phase == "Terminated" {
			terminated++
		}
	}
	invalid, healthy := 0, 0
	for _, v := range w.Model().Targets(w.Legacy().TargetGroupARN) {
		switch {
		case v.State == elbv2types.TargetHealthStateEnumUnused && v.Reason == elbv2types.TargetHealthReasonEnumInvalidState:
			invalid++
		case v.State == elbv2types.TargetHealthStateEnumHealthy:
			healthy++
		default:
			t.Errorf("target %v", v)
		}
	}
	if terminated == 0 || invalid != terminated || healthy != 6-terminated {
		t.Errorf("%d terminated nodes: %d Target.InvalidState and %d healthy targets, want one each and the rest healthy", terminated, invalid, healthy)
	}
}

// TestLegacyTargetTypeValidated: only ip and instance are accepted.
func TestLegacyTargetTypeValidated(t *testing.T) {
	_, err := sim.New(t.Context(), sim.Config{Legacy: sim.LegacyTargetGroup{TargetType: "lambda"}})
	var ce *sim.ConfigError
	if !errors.As(err, &ce) || ce.Field != "Legacy.TargetType" {
		t.Errorf("err = %v, want a ConfigError on Legacy.TargetType", err)
	}
}
