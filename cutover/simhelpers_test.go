package cutover_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// The acceptance scenarios run on internal/sim, in the external test
// package: elbv2sim's tests import cutover, so cutover's internal tests
// must not import the simulator.

// contractAPI wraps the simulator's client and checks cutover's call
// contract on every call that goes through it: every RegisterTargets and
// DeregisterTargets carries at most 200 targets, each with its Port. It
// also notes the target groups created with tags.
type contractAPI struct {
	cutover.ELBv2API
	mu         sync.Mutex
	violations []string
	tagged     []string // target groups created with tags
	// deregistered counts, per target group and target, the
	// DeregisterTargets calls that named it and succeeded.
	deregistered map[string]int
}

func (c *contractAPI) check(op string, targets []elbv2types.TargetDescription) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(targets) > 200 {
		c.violations = append(c.violations, fmt.Sprintf("%s with %d targets", op, len(targets)))
	}
	for _, t := range targets {
		if t.Port == nil {
			c.violations = append(c.violations, fmt.Sprintf("%s of %s without Port", op, aws.ToString(t.Id)))
		}
	}
}

func (c *contractAPI) RegisterTargets(ctx context.Context, in *elbv2.RegisterTargetsInput, o ...func(*elbv2.Options)) (*elbv2.RegisterTargetsOutput, error) {
	c.check("RegisterTargets", in.Targets)
	return c.ELBv2API.RegisterTargets(ctx, in, o...)
}

func (c *contractAPI) DeregisterTargets(ctx context.Context, in *elbv2.DeregisterTargetsInput, o ...func(*elbv2.Options)) (*elbv2.DeregisterTargetsOutput, error) {
	c.check("DeregisterTargets", in.Targets)
	out, err := c.ELBv2API.DeregisterTargets(ctx, in, o...)
	if err == nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.deregistered == nil {
			c.deregistered = map[string]int{}
		}
		for _, t := range in.Targets {
			c.deregistered[fmt.Sprintf("%s %s:%d", aws.ToString(in.TargetGroupArn), aws.ToString(t.Id), aws.ToInt32(t.Port))]++
		}
	}
	return out, err
}

// deregistrations returns, per target group and target, how many
// successful DeregisterTargets calls named it.
func (c *contractAPI) deregistrations() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.deregistered)
}

func (c *contractAPI) CreateTargetGroup(ctx context.Context, in *elbv2.CreateTargetGroupInput, o ...func(*elbv2.Options)) (*elbv2.CreateTargetGroupOutput, error) {
	out, err := c.ELBv2API.CreateTargetGroup(ctx, in, o...)
	if err == nil && len(in.Tags) > 0 {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, tg := range out.TargetGroups {
			c.tagged = append(c.tagged, aws.ToString(tg.TargetGroupArn))
		}
	}
	return out, err
}

// taggedOnCreate reports whether a CreateTargetGroup that went through
// created arn with tags.
func (c *contractAPI) taggedOnCreate(arn string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Contains(c.tagged, arn)
}

// scenario is one world and the cutover's environment in it.
type scenario struct {
	t        testing.TB
	w        *sim.World
	env      cutover.Env
	api      *contractAPI
	original []string // the nodes at the start
	hc       elbv2types.TargetGroup
	// churnedAt is when churn started the replacement of every node.
	churnedAt time.Time
}

// smallWorld is the world of the crash and rollback matrices: 8 nodes, 24
// pods, 20 requests a second, and a NodePool budget of 25% (two nodes
// replaced at a time) so that Karpenter replaces every node in minutes.
func smallWorld(seed uint64) sim.Config {
	return sim.Config{Seed: seed, Nodes: 8, Pods: 24, RPS: 20,
		NodePool: karpenter.NodePool{Budgets: []karpenter.Budget{{Nodes: "25%"}}}}
}

// churnWorld stresses cfg for the acceptance scenarios, whose figures are
// measured when Execute returns: 50 requests a second, a NodePool budget
// of 25% and a PodDisruptionBudget of 25%, so that Karpenter replaces
// every node of the start while the cutover runs and 10,000 requests pass
// by then. Faster still (a budget of 35% on 20 nodes) and the nodes leave
// before any pod target can pass its health checks: the legacy target
// group runs dry, whatever the cutover does.
func churnWorld(cfg sim.Config) sim.Config {
	cfg.RPS = 50
	cfg.NodePool.Budgets = []karpenter.Budget{{Nodes: "25%"}}
	cfg.Workload.MaxUnavailable = "25%"
	return cfg
}

// figures are what the world showed at one moment of a run.
type figures struct {
	// Replaced counts the nodes of the start that are gone or terminated;
	// Original the nodes of the start.
	Replaced, Original int
	// Requests and Failed count the requests so far.
	Requests, Failed int
	// Elapsed is the time since the churn started.
	Elapsed time.Duration
}

func (f figures) String() string {
	return fmt.Sprintf("%d of %d nodes replaced, %d requests (%d failed), %s into the churn", f.Replaced, f.Original, f.Requests, f.Failed, f.Elapsed)
}

// figures reads the world's figures now.
func (s *scenario) figures() figures {
	st := s.w.Traffic()
	f := figures{Original: len(s.original), Requests: st.Total, Failed: st.Failed}
	for _, name := range s.original {
		if n, ok := s.w.Cluster().Node(name); !ok || n.Phase == "Terminated" {
			f.Replaced++
		}
	}
	if !s.churnedAt.IsZero() {
		f.Elapsed = s.w.Clock().Since(s.churnedAt)
	}
	return f
}

// checkDuringExecute checks the figures taken when Execute returned:
// Karpenter replaced every node of the start during the cutover itself,
// and at least 10,000 requests passed, none failed.
func (s *scenario) checkDuringExecute(f figures) {
	s.t.Helper()
	if f.Replaced != f.Original {
		s.t.Errorf("when Execute returned, %d of the %d nodes of the start were replaced; want every one", f.Replaced, f.Original)
	}
	if f.Requests < 10000 {
		s.t.Errorf("when Execute returned, %d requests had passed; want at least 10,000", f.Requests)
	}
	if f.Failed != 0 {
		s.t.Errorf("when Execute returned, %d requests had failed", f.Failed)
	}
}

func newScenario(t testing.TB, cfg sim.Config) *scenario {
	t.Helper()
	cfg.ServerSideApply = true // tgbind applies server-side
	w, err := sim.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close) // Config.Wire's endpoints; nothing otherwise
	if cfg.Wire != nil {
		t.Cleanup(func() {
			if len(w.Wire().Counts()) == 0 {
				t.Error("Config.Wire is set, yet no request reached the endpoint")
			}
		})
	}
	// World.AWS is the Go facade, or with Config.Wire the real SDK client
	// pointed at the world's ELBv2 endpoint.
	s := &scenario{t: t, w: w, api: &contractAPI{ELBv2API: w.AWS()}}
	s.env = cutover.Env{ELBv2: s.api, Client: w.Client(), Clock: w.Clock(), ClusterVPCID: w.Legacy().VPCID, Holder: "operator-1"}
	for _, n := range w.Cluster().Nodes() {
		s.original = append(s.original, n.Name)
	}
	out, err := w.Model().DescribeTargetGroups(&elbv2.DescribeTargetGroupsInput{TargetGroupArns: []string{w.Legacy().TargetGroupARN}})
	if err != nil {
		t.Fatal(err)
	}
	s.hc = out.TargetGroups[0]
	return s
}

// request is the request of the seed's case.
func (s *scenario) request() cutover.Request {
	l := s.w.Legacy()
	return cutover.Request{TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace, Service: l.Service, Port: intstr.FromString(l.PortName)}
}

func (s *scenario) plan(mod func(*cutover.Request)) *cutover.Plan {
	s.t.Helper()
	req := s.request()
	if mod != nil {
		mod(&req)
	}
	p, err := cutover.PlanCutover(s.t.Context(), s.env, req)
	if err != nil {
		s.t.Fatal(err)
	}
	return p
}

// churn has Karpenter drift every node at once, paced by the NodePool's
// budget (10% unless the config says otherwise), and lets the world take
// the first step.
func (s *scenario) churn() {
	s.t.Helper()
	s.churnedAt = s.w.Clock().Now()
	if err := s.w.ReplaceAllNodes(0); err != nil {
		s.t.Fatal(err)
	}
	s.w.Run(time.Second)
}

// settle runs the world until every original node is terminated, no node
// is being replaced, and nothing drains, then three more minutes for the
// last pods' targets; at most 40 minutes.
func (s *scenario) settle() {
	s.t.Helper()
	deadline := s.w.Clock().Now().Add(40 * time.Minute)
	for s.w.Clock().Now().Before(deadline) {
		if s.allReplaced() && !s.draining() && !s.replacing() {
			break
		}
		s.w.Run(10 * time.Second)
	}
	s.w.Run(3 * time.Minute)
}

func (s *scenario) replacing() bool {
	for _, n := range s.w.Cluster().Nodes() {
		if n.Phase != "Ready" {
			return true
		}
		for _, t := range n.Taints {
			if t.Key == karpenter.TaintDisrupted {
				return true
			}
		}
	}
	return false
}

func (s *scenario) draining() bool {
	for _, arn := range s.w.Model().TargetGroupARNs() {
		for _, v := range s.w.Model().Targets(arn) {
			if v.State == elbv2types.TargetHealthStateEnumDraining {
				return true
			}
		}
	}
	return false
}

// allReplaced reports whether every node of the start is terminated.
func (s *scenario) allReplaced() bool {
	f := s.figures()
	return f.Replaced == f.Original
}

// checkRun checks what every scenario must show: Karpenter replaced every
// node of the start, at least 10,000 requests, none failed, and cutover
// kept its call contract.
func (s *scenario) checkRun() {
	s.t.Helper()
	if !s.allReplaced() {
		s.t.Errorf("not every node was replaced during the run: %v", s.original)
	}
	st := s.w.Traffic()
	if st.Total < 10000 {
		s.t.Errorf("%d requests, want at least 10,000", st.Total)
	}
	if st.Failed != 0 {
		s.t.Errorf("traffic: %s", st.String())
	}
	s.api.mu.Lock()
	defer s.api.mu.Unlock()
	if len(s.api.violations) > 0 {
		s.t.Errorf("call contract violated: %v", s.api.violations)
	}
}

// podTargets says whether the target group holds exactly the Service's
// serving pods, healthy, and nothing else.
func (s *scenario) checkPodsOnly(tgARN string) {
	s.t.Helper()
	want := map[string]bool{}
	for _, p := range s.w.Cluster().Pods() {
		if p.Phase == "Running" && p.Ready {
			want[fmt.Sprintf("%s:%d", p.IP, s.w.Legacy().ContainerPort)] = true
		}
	}
	got := map[string]bool{}
	for _, tg := range s.w.Targets(tgARN) {
		key := fmt.Sprintf("%s:%d", tg.IP, tg.Port)
		got[key] = true
		if !strings.HasPrefix(tg.Owner, "pod/") || tg.State != elbv2types.TargetHealthStateEnumHealthy {
			s.t.Errorf("target %v: want only healthy pod targets", tg)
		}
	}
	for k := range want {
		if !got[k] {
			s.t.Errorf("pod endpoint %s is not a target: lost", k)
		}
	}
	if nt := s.w.NodeTargets(); len(nt) != 0 && tgARN == s.w.Legacy().TargetGroupARN {
		s.t.Errorf("node targets left behind: %v", nt)
	}
}

// checkNodesOnly says whether the target group holds a healthy target per
// live node on the NodePort, and nothing else (for instance targets,
// replaced nodes' instances may stay unused, Target.InvalidState).
func (s *scenario) checkNodesOnly() {
	s.t.Helper()
	l := s.w.Legacy()
	want := map[string]bool{}
	for _, n := range s.w.Cluster().Nodes() {
		id := n.InternalIP
		if l.TargetType == "instance" {
			id = n.InstanceID
		}
		want[id] = true
	}
	got := map[string]bool{}
	for _, v := range s.w.Model().Targets(l.TargetGroupARN) {
		if v.State == elbv2types.TargetHealthStateEnumUnused && v.Reason == elbv2types.TargetHealthReasonEnumInvalidState {
			continue
		}
		got[v.ID] = true
		if !want[v.ID] || v.Port != l.NodePort || v.State != elbv2types.TargetHealthStateEnumHealthy {
			s.t.Errorf("target %v: want only healthy live node targets on %d", v, l.NodePort)
		}
	}
	for id := range want {
		if !got[id] {
			s.t.Errorf("live node %s has no target", id)
		}
	}
	if g := s.w.Ghosts(); l.TargetType == "ip" && len(g) != 0 {
		s.t.Errorf("ghosts: %v", g)
	}
}

// checkHealthCheck compares the legacy target group's health check with
// the one at the start.
func (s *scenario) checkHealthCheck(wantOriginal bool) {
	s.t.Helper()
	out, err := s.w.Model().DescribeTargetGroups(&elbv2.DescribeTargetGroupsInput{TargetGroupArns: []string{s.w.Legacy().TargetGroupARN}})
	if err != nil {
		s.t.Fatal(err)
	}
	cur := out.TargetGroups[0]
	same := aws.ToString(cur.HealthCheckPath) == aws.ToString(s.hc.HealthCheckPath) && aws.ToString(cur.HealthCheckPort) == aws.ToString(s.hc.HealthCheckPort)
	if same != wantOriginal {
		s.t.Errorf("health check %s %s (start %s %s), want original: %t", aws.ToString(cur.HealthCheckPort), aws.ToString(cur.HealthCheckPath),
			aws.ToString(s.hc.HealthCheckPort), aws.ToString(s.hc.HealthCheckPath), wantOriginal)
	}
}

// bindingExists reports whether the plan's binding is in the cluster.
func (s *scenario) bindingExists(p *cutover.Plan) bool {
	s.t.Helper()
	err := s.w.Client().Get(s.t.Context(), types.NamespacedName{Namespace: p.Binding.Namespace, Name: p.Binding.Name}, &v1beta1.TargetGroupBinding{})
	if err != nil && !apierrors.IsNotFound(err) {
		s.t.Fatal(err)
	}
	return err == nil
}

// route returns the listener's default action's target groups.
func (s *scenario) route() []elbv2model.WeightedTargetGroup {
	s.t.Helper()
	r, err := s.w.Model().Route(s.w.Legacy().ListenerARN, "")
	if err != nil {
		s.t.Fatal(err)
	}
	return r.TargetGroups
}

// checkPolicy checks that every call the simulator recorded was allowed by
// the plan's least-privilege policy.
func (s *scenario) checkPolicy(p *cutover.Plan) {
	s.t.Helper()
	pol, err := p.IAMPolicy()
	if err != nil {
		s.t.Fatal(err)
	}
	calls := s.w.ELBv2().Calls()
	if len(calls) == 0 {
		s.t.Fatal("no call recorded")
	}
	for _, c := range calls {
		action := "elasticloadbalancing:" + c.Op
		res := c.Resources
		if len(res) == 0 {
			res = []string{"*"}
		}
		for _, r := range res {
			if !pol.Allows(action, r) {
				s.t.Errorf("the plan's policy denies %s on %s (call at %s)", action, r, c.At.Format(time.TimeOnly))
			}
		}
	}
}

// crashAt returns a hook that fails the n-th event (1-based) as a crash,
// and records every event it sees.
func crashAt(n int, seen *[]string) cutover.Hook {
	i := 0
	return func(_ context.Context, e cutover.Event) error {
		i++
		if seen != nil {
			*seen = append(*seen, e.String())
		}
		if i == n {
			return errCrash
		}
		return nil
	}
}

var errCrash = errors.New("simulated crash")

// mutatingOps counts the mutating calls in the simulator's counts.
func mutatingOps(counts map[string]int) int {
	n := 0
	for _, op := range []string{elbv2sim.OpRegisterTargets, elbv2sim.OpDeregisterTargets, elbv2sim.OpCreateTargetGroup, elbv2sim.OpDeleteTargetGroup,
		elbv2sim.OpModifyTargetGroup, elbv2sim.OpModifyTargetGroupAttributes, elbv2sim.OpAddTags, elbv2sim.OpModifyListener, elbv2sim.OpModifyRule} {
		n += counts[op]
	}
	return n
}
