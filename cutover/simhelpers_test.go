package cutover_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/arntest"
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
	cfg      sim.Config
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
// measured when Execute returns: 60 requests a second, a NodePool budget
// of 25% and a PodDisruptionBudget of 25%, so that Karpenter replaces
// every node of the start while the cutover runs and 10,000 requests pass
// by then. The rate is what the fastest cutover needs: under the world's
// default timings (a new target healthy after one check) a blue/green
// cutover returns about 185 s after the churn starts, its hold's settle
// included, so 50 a second no longer reached 10,000. Faster churn still
// (a budget of 35% on 20 nodes) and the nodes leave before any pod target
// can pass its health checks: the legacy target group runs dry, whatever
// the cutover does.
func churnWorld(cfg sim.Config) sim.Config {
	cfg.RPS = 60
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

// checkDuringExecute checks the figures taken when Execute returned, for a
// run without the hold: Karpenter replaced nodes of the start meanwhile
// (at least a quarter: a node with pods waits while the last replacement
// is not initialized, about a minute a node, so not all 20 in a cutover of
// six minutes), at least 10,000 requests passed, and none failed. With
// the hold, see checkHeld.
func (s *scenario) checkDuringExecute(f figures) {
	s.t.Helper()
	if f.Replaced < f.Original/4 {
		s.t.Errorf("when Execute returned, %d of the %d nodes of the start were replaced; want at least a quarter", f.Replaced, f.Original)
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
	s := &scenario{t: t, cfg: cfg, w: w, api: &contractAPI{ELBv2API: w.AWS()}}
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

// request is the request of the seed's case, under the world's timing
// assumptions.
func (s *scenario) request() cutover.Request {
	l := s.w.Legacy()
	return cutover.Request{TargetGroupARN: arntest.TG(l.TargetGroupARN), Namespace: l.Namespace, Service: l.Service, Port: intstr.FromString(l.PortName),
		Assumptions: worldAssumptions(s.w)}
}

// worldAssumptions are the timing assumptions of the simulated world, so
// that a plan's floor and its pod preconditions are the world's: its new
// targets' checks, its registration delay and deregistration lag
// (package timing's defaults unless the world's Config says otherwise),
// and the envelope's bound on the controller's delay. The world's pods
// default to the safe settings for exactly these (sim.SafePodSettings).
func worldAssumptions(w *sim.World) cutover.Assumptions { return w.Assumptions() }

// simPods accepts the pod-settings precondition that every plan made in
// the simulated worlds of these tests carries: the namespace does not
// inject the LBC's readiness gate (Config.ReadinessGateInjection is off:
// gated pods would turn Ready only once their targets are healthy, which
// slows Karpenter's PDB-bound drains so much that the worlds' churn would
// not settle in the time the scenarios allow). The pods' preStop and grace
// period are the safe ones for the world's own timings
// (sim.SafePodSettings), which the plans assume (worldAssumptions), so the
// readiness gate is the precondition's only setting. Each Execute on the
// simulator passes it, so that it shows. The precondition itself is tested
// in preconditions_test.go and podsettings_test.go.
var simPods = cutover.WithAcceptPreconditions(cutover.PreconditionPodSettings)

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
// budget (10% unless the config says otherwise), and lets the world run
// until Karpenter's disruption loop has polled (every 10 s: a drift starts
// at its next poll, as the real loop's does), so that the first
// disruptions are under way.
func (s *scenario) churn() {
	s.t.Helper()
	s.churnedAt = s.w.Clock().Now()
	if err := s.w.ReplaceAllNodes(0); err != nil {
		s.t.Fatal(err)
	}
	s.w.Run(karpenter.DefaultPollInterval)
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

// holdWindow returns when the disruption hold of res stood: from the end
// of its hold-disruption step to the start of its release-disruption
// step (the end of the run when that did not start).
func holdWindow(t testing.TB, res *cutover.Result) (from, to time.Time) {
	t.Helper()
	to = res.FinishedAt
	for _, st := range res.Steps {
		switch st.ID {
		case cutover.StepHoldDisruption:
			from = st.FinishedAt
		case cutover.StepReleaseDisruption:
			to = st.StartedAt
		}
	}
	if from.IsZero() {
		t.Fatalf("the run has no hold-disruption step: %+v", res.Steps)
	}
	return from, to
}

// checkHeld checks, when Execute returned, what the disruption hold
// promises: the graceful disruptions that had started before the hold
// (at least one, or the check proves nothing) finished within the hold
// step (its settle: every node of the scenarios holds a target or a pod
// of the Service), and when one was still under way as the step began,
// the step lasted at least the assumed deregistration lag (it retired
// that node's target, then waited the lag out) and Result.SettleSeconds
// says so; none started while the hold stood; at least 10,000 requests
// passed and none failed; and the release left no node with the hold's
// mark.
func (s *scenario) checkHeld(res *cutover.Result, f figures) {
	s.t.Helper()
	from, to := holdWindow(s.t, res)
	var began time.Time // the hold step's start
	for _, st := range res.Steps {
		if st.ID == cutover.StepHoldDisruption {
			began = st.StartedAt
		}
	}
	before, during, underWay := 0, 0, 0
	for _, d := range s.w.Karpenter().Disruptions() {
		switch {
		case !d.StartedAt.After(from):
			before++
			if d.TerminatedAt.IsZero() || d.TerminatedAt.After(from) {
				s.t.Errorf("the disruption of %s (%s), started before the hold, had not finished when the hold step ended (%s)", d.Node, d.Reason, from.Format(time.TimeOnly))
			}
			if !began.IsZero() && !d.StartedAt.After(began) && (d.TerminatedAt.IsZero() || d.TerminatedAt.After(began)) {
				underWay++
			}
		case d.Reason.Graceful() && d.StartedAt.Before(to):
			during++
			s.t.Errorf("a graceful disruption (%s of %s) started at %s, while the hold stood (%s to %s)", d.Reason, d.Node,
				d.StartedAt.Format(time.TimeOnly), from.Format(time.TimeOnly), to.Format(time.TimeOnly))
		}
	}
	if before == 0 {
		s.t.Error("no disruption had started before the hold: the scenario proves nothing about the ones under way")
	}
	if settle := from.Sub(began).Seconds(); !began.IsZero() && math.Abs(res.SettleSeconds-settle) > 0.5 {
		s.t.Errorf("Result.SettleSeconds %.2f, the hold step lasted %.2f s", res.SettleSeconds, settle)
	}
	if l := s.w.Assumptions().DeregistrationLag; underWay > 0 && res.SettleSeconds < l.Seconds() {
		s.t.Errorf("%d disruptions under way as the hold step began, and it settled for %.1f s: want at least the deregistration lag, %v", underWay, res.SettleSeconds, l)
	}
	if f.Requests < 10000 {
		s.t.Errorf("when Execute returned, %d requests had passed; want at least 10,000", f.Requests)
	}
	if f.Failed != 0 {
		s.t.Errorf("when Execute returned, %d requests had failed", f.Failed)
	}
	s.checkNoHold()
	s.t.Logf("hold from %s to %s: %d disruptions under way before it finished (%d as it began; settled for %.0f s), %d started during it; %d nodes held, %d released",
		from.Format(time.TimeOnly), to.Format(time.TimeOnly), before, underWay, res.SettleSeconds, during, len(res.Held), len(res.Released))
}

// checkNoHold checks that no node carries the hold's mark: the release
// removed everything the hold added.
func (s *scenario) checkNoHold() {
	s.t.Helper()
	for _, n := range s.heldNodes() {
		s.t.Errorf("node %s still carries %s after the release", n, cutover.AnnotationDisruptionHold)
	}
}

// heldNodes lists the nodes that carry the hold's mark and
// karpenter.sh/do-not-disrupt: "true".
func (s *scenario) heldNodes() []string {
	s.t.Helper()
	var nodes corev1.NodeList
	if err := s.w.Client().List(context.Background(), &nodes); err != nil {
		s.t.Fatal(err)
	}
	var out []string
	for _, n := range nodes.Items {
		if n.Annotations[cutover.AnnotationDisruptionHold] != "" {
			out = append(out, n.Name)
		}
	}
	return out
}

// checkRolledBack checks the state a rollback returns to, when it returns:
// no request failed so far; every node target is of a live node and
// healthy, or draining (retired: its node is leaving); every live node
// (Ready and not being disrupted) has a healthy target on the NodePort;
// the hold's marks are gone. After it, Karpenter's pending disruptions go
// on (the hold is released) and the static node targets are exposed to
// them again, as they were before the cutover: the caller settles the
// world to see that every node is then replaced.
//
// The release is the rollback's last action, and its Kubernetes calls take
// virtual time (Timings.KubeLatency): Karpenter may start a disruption the
// hold kept back before Rollback returns. A node whose graceful disruption
// started once the release had begun counts as live here (the rollback
// handed it back to Karpenter with the healthy target it had), and the
// rollback must have warned of it by name. A node whose disruption started
// before the release is leaving: the rollback had to retire its target.
func (s *scenario) checkRolledBack(rb *cutover.RollbackResult) {
	s.t.Helper()
	if st := s.w.Traffic(); st.Failed != 0 {
		s.t.Errorf("when the rollback returned: %s", st.String())
	}
	released := map[string]bool{}
	if at := releaseStart(rb); !at.IsZero() {
		for _, d := range s.w.Karpenter().Disruptions() {
			if d.Reason.Graceful() && !d.StartedAt.Before(at) {
				released[d.Node] = true
			}
		}
	}
	l := s.w.Legacy()
	live := map[string]bool{}
	for _, n := range s.w.Cluster().Nodes() {
		leaving := n.Phase != "Ready" || n.Unschedulable || n.Labels[karpenter.LabelExcludeFromLB] != ""
		for _, t := range n.Taints {
			leaving = leaving || t.Key == karpenter.TaintDisrupted
		}
		id := n.InternalIP
		if l.TargetType == "instance" {
			id = n.InstanceID
		}
		if leaving && released[n.Name] {
			if !slices.ContainsFunc(rb.Warnings, func(w string) bool { return strings.Contains(w, n.Name) }) {
				s.t.Errorf("Karpenter began to disrupt %s as the rollback released it, and the rollback did not warn of it: %q", n.Name, rb.Warnings)
			}
			leaving = false
		}
		if !leaving {
			live[id] = true
		}
	}
	got := map[string]bool{}
	for _, v := range s.w.Model().Targets(l.TargetGroupARN) {
		switch {
		case v.State == elbv2types.TargetHealthStateEnumDraining:
		case v.State == elbv2types.TargetHealthStateEnumUnused && v.Reason == elbv2types.TargetHealthReasonEnumInvalidState:
		case !live[v.ID] || v.Port != l.NodePort || v.State != elbv2types.TargetHealthStateEnumHealthy:
			s.t.Errorf("when the rollback returned, target %v: want only healthy targets of live nodes on %d (or draining ones)", v, l.NodePort)
		default:
			got[v.ID] = true
		}
	}
	for id := range live {
		if !got[id] {
			s.t.Errorf("when the rollback returned, live node %s has no healthy target", id)
		}
	}
	s.checkNoHold()
	if !rb.Completed {
		s.t.Errorf("rollback %+v: not completed", rb)
	}
}

// releaseStart returns when rb's release-disruption action began, zero
// when this run did not release the hold.
func releaseStart(rb *cutover.RollbackResult) time.Time {
	for _, a := range rb.Actions {
		if a.ID == cutover.RollbackReleaseDisruption && !a.Skipped {
			return a.StartedAt
		}
	}
	return time.Time{}
}

// checkReleasedDrift settles the world after a rollback that released the
// hold of Karpenter's disruption: every node of the start is then
// replaced (the release let the drift the hold kept back go on), and when
// some was still to come as the rollback observed the nodes, it warned of
// it. The static node targets the rollback registered are exposed to that
// drift as they were before the cutover: the requests that fail then are
// the legacy's failure mode, logged here, not the rollback's.
func (s *scenario) checkReleasedDrift(rb *cutover.RollbackResult) {
	s.t.Helper()
	failed := s.w.Traffic().Failed
	warned := slices.ContainsFunc(rb.Warnings, func(w string) bool { return strings.Contains(w, "static node targets do not survive churn") })
	pending := !s.allReplaced()
	s.settle()
	if !s.allReplaced() {
		s.t.Errorf("after the rollback's release, not every node of the start was replaced: %v", s.original)
	}
	s.t.Logf("after the rollback (%.0f s, floor %.0f s, warned of the drift to come: %t; some still to come: %t), Karpenter's drift went on: %d requests failed on the static node targets, %d of %d in all",
		rb.Seconds, rb.FloorSeconds, warned, pending, s.w.Traffic().Failed-failed, s.w.Traffic().Failed, s.w.Traffic().Total)
}

// ARNs of the inputs tests: the legacy target group of the simulated world
// (sim.DefaultConfig's) and a load balancer's.
const (
	legacyTGARN = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/legacy-web/0123456789abcdef"
	bogusLB     = "arn:aws:elasticloadbalancing:us-east-1:123456789012:loadbalancer/app/x/0123456789abcdef"
)
