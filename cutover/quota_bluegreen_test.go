package cutover_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/sim/lbc"
)

// The blue/green quota scenarios run the quota scenarios' small world (20
// node targets, 30 pods) with an instance target group, so that the plan
// is blue/green: the new ip target group sits on the same Application Load
// Balancer as the old one, and both count against its quota on targets.
// The quota is lowered to 40: the old target group's 20 targets and the
// new one's 30 pod targets, 50, pass it, while a bounded overlap (the old
// target group down to a floor of 10 before the pod targets go in) fits.

const (
	bgQuotaLB    = 40 // the ALB's quota on targets
	bgQuotaFloor = 10 // Request.MinHealthy
)

// bgQuotaWatch records what the load balancer holds: after every
// RegisterTargets of the controller, and after every RegisterTargets,
// ModifyListener and ModifyRule of the system under test (the calls that
// can raise the count: a registration, or a route that makes the load
// balancer use a target group again), it counts the targets, draining ones
// included, of the target groups the load balancer uses now, as ELBv2
// counts them against its quota. It also counts the calls refused as
// TooManyTargets, the controller's and the system under test's apart.
type bgQuotaWatch struct {
	model *elbv2model.Model
	lb    string

	mu        sync.Mutex
	lbMax     int
	lbMaxAt   string // what call the peak followed
	lbcTooMny int
	sutTooMny []string
}

// count returns the targets of the target groups lb uses now, and their
// count per target group.
func (w *bgQuotaWatch) count() (int, map[string]int) {
	w.mu.Lock()
	m, lb := w.model, w.lb
	w.mu.Unlock()
	if m == nil {
		return 0, nil // the world is being built
	}
	out, err := m.DescribeTargetGroups(&elbv2.DescribeTargetGroupsInput{LoadBalancerArn: aws.String(lb)})
	if err != nil {
		return 0, nil
	}
	per := map[string]int{}
	n := 0
	for _, tg := range out.TargetGroups {
		k := len(m.Targets(aws.ToString(tg.TargetGroupArn)))
		per[aws.ToString(tg.TargetGroupName)] = k
		n += k
	}
	return n, per
}

func (w *bgQuotaWatch) note(after string) {
	n, per := w.count()
	w.mu.Lock()
	defer w.mu.Unlock()
	if n > w.lbMax {
		w.lbMax, w.lbMaxAt = n, fmt.Sprintf("%s: %v", after, per)
	}
}

func (w *bgQuotaWatch) peak() (int, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lbMax, w.lbMaxAt
}

func (w *bgQuotaWatch) refusals() (lbcN int, sut []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lbcTooMny, slices.Clone(w.sutTooMny)
}

func tooManyTargets(err error) bool {
	var tmt *elbv2types.TooManyTargetsException
	return errors.As(err, &tmt)
}

// bgLBCWatch wraps the controller's ELBv2 client.
type bgLBCWatch struct {
	lbc.ELBv2API
	w *bgQuotaWatch
}

func (c *bgLBCWatch) RegisterTargets(ctx context.Context, in *elbv2.RegisterTargetsInput, o ...func(*elbv2.Options)) (*elbv2.RegisterTargetsOutput, error) {
	out, err := c.ELBv2API.RegisterTargets(ctx, in, o...)
	if tooManyTargets(err) {
		c.w.mu.Lock()
		c.w.lbcTooMny++
		c.w.mu.Unlock()
	}
	c.w.note(fmt.Sprintf("the controller's RegisterTargets of %d", len(in.Targets)))
	return out, err
}

// bgSUTWatch wraps the system under test's ELBv2 client: it notes the
// load balancer's count after the calls that can raise it, and when each
// DeregisterTargets succeeded and how many targets it named.
type bgSUTWatch struct {
	cutover.ELBv2API
	w     *bgQuotaWatch
	clock func() time.Time

	mu     sync.Mutex
	deregs []timedCall
}

func (a *bgSUTWatch) refused(op string, err error) {
	if tooManyTargets(err) {
		a.w.mu.Lock()
		a.w.sutTooMny = append(a.w.sutTooMny, op+": "+err.Error())
		a.w.mu.Unlock()
	}
}

func (a *bgSUTWatch) RegisterTargets(ctx context.Context, in *elbv2.RegisterTargetsInput, o ...func(*elbv2.Options)) (*elbv2.RegisterTargetsOutput, error) {
	out, err := a.ELBv2API.RegisterTargets(ctx, in, o...)
	a.refused("RegisterTargets", err)
	a.w.note(fmt.Sprintf("tgmigrate's RegisterTargets of %d", len(in.Targets)))
	return out, err
}

func (a *bgSUTWatch) ModifyListener(ctx context.Context, in *elbv2.ModifyListenerInput, o ...func(*elbv2.Options)) (*elbv2.ModifyListenerOutput, error) {
	out, err := a.ELBv2API.ModifyListener(ctx, in, o...)
	a.refused("ModifyListener", err)
	a.w.note("tgmigrate's ModifyListener")
	return out, err
}

func (a *bgSUTWatch) ModifyRule(ctx context.Context, in *elbv2.ModifyRuleInput, o ...func(*elbv2.Options)) (*elbv2.ModifyRuleOutput, error) {
	out, err := a.ELBv2API.ModifyRule(ctx, in, o...)
	a.refused("ModifyRule", err)
	a.w.note("tgmigrate's ModifyRule")
	return out, err
}

func (a *bgSUTWatch) DeregisterTargets(ctx context.Context, in *elbv2.DeregisterTargetsInput, o ...func(*elbv2.Options)) (*elbv2.DeregisterTargetsOutput, error) {
	out, err := a.ELBv2API.DeregisterTargets(ctx, in, o...)
	if err == nil {
		a.mu.Lock()
		a.deregs = append(a.deregs, timedCall{a.clock(), len(in.Targets)})
		a.mu.Unlock()
	}
	return out, err
}

// deregisteredDuring sums the targets deregistered while the step ran.
func (a *bgSUTWatch) deregisteredDuring(res *cutover.Result, step string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return targetsDuring(a.deregs, res, step)
}

// newQuotaBlueGreen is the quota scenarios' world (20 nodes, 30 pods)
// with an instance target group, under an ALB quota of lbQuota targets, a
// Service Quotas client that answers it, and the load balancer's count
// watched.
func newQuotaBlueGreen(t *testing.T, seed uint64, lbQuota int) (*scenario, *bgQuotaWatch, *bgSUTWatch) {
	t.Helper()
	w := &bgQuotaWatch{}
	cfg := sim.Config{Seed: seed, Nodes: quotaNodes, Pods: quotaPods, RPS: 20,
		Quotas:       elbv2model.Quotas{TargetsPerLoadBalancer: lbQuota},
		WrapLBCELBv2: func(api lbc.ELBv2API) lbc.ELBv2API { return &bgLBCWatch{ELBv2API: api, w: w} }}
	cfg.Legacy.TargetType = "instance"
	s := newScenario(t, cfg)
	w.mu.Lock()
	w.model, w.lb = s.w.Model(), s.w.Legacy().LoadBalancerARN
	w.mu.Unlock()
	s.env.ServiceQuotas = appliedQuotas{
		diagnose.QuotaCodeTargetsPerTargetGroup: 1000,
		diagnose.QuotaCodeTargetsPerALB:         float64(lbQuota),
		diagnose.QuotaCodeTargetsPerNLB:         3000,
	}
	sut := &bgSUTWatch{ELBv2API: s.env.ELBv2, w: w, clock: s.w.Clock().Now}
	s.env.ELBv2 = sut
	if n, _ := w.count(); n != quotaNodes {
		t.Fatalf("the load balancer holds %d targets at the start, want the %d node targets", n, quotaNodes)
	}
	return s, w, sut
}

// bgQuotaPlan plans the scenario's cutover with the floor of 10 and checks
// what every test of this file rests on: a blue/green plan whose overlap
// is bounded under the ALB's quota.
func bgQuotaPlan(t *testing.T, s *scenario) *cutover.Plan {
	t.Helper()
	p := s.plan(func(r *cutover.Request) { r.MinHealthy = bgQuotaFloor })
	if p.Strategy != cutover.StrategyBlueGreen || p.BlueGreen == nil {
		t.Fatalf("plan: strategy %s, want blue/green for an instance target group", p.Strategy)
	}
	if q := p.Quota; q == nil || !q.Bounded {
		t.Fatalf("plan's quota %+v: want a bounded overlap", p.Quota)
	}
	if p.Floor != bgQuotaFloor {
		t.Fatalf("floor %d, want %d", p.Floor, bgQuotaFloor)
	}
	return p
}

// TestQuotaBlueGreenBounded: a blue/green cutover whose old instance
// target group (20 targets) and new ip target group (30 pod targets)
// together pass the ALB's quota of 40. The plan bounds the overlap, the
// floor shared by weight: its headroom counts the old target group's
// targets on the load balancer, its waves make room before the bind (down
// to the floor of 10) and follow each weight, and a make-room step comes
// before the bind. Execute completes with no failed request, the routes
// forward to the new target group alone, which holds every pod target
// healthy, and the load balancer never holds more than its quota. The
// run takes at least its floor.
func TestQuotaBlueGreenBounded(t *testing.T) {
	t.Parallel()
	s, watch, sut := newQuotaBlueGreen(t, 370, bgQuotaLB)
	p := bgQuotaPlan(t, s)
	q := p.Quota
	l := s.w.Legacy()

	// The count: the new target group's own (it does not exist yet: its
	// name), then the load balancer's, whose Now is the old target
	// group's 20 targets; after the cutover only the pod targets count
	// (the old target group is detached).
	if len(q.Headroom) != 2 || q.Headroom[0].Scope != diagnose.ScopeTargetGroup || q.Headroom[0].ARN != p.BlueGreen.NewTargetGroup.Name ||
		q.Headroom[1].Scope != diagnose.ScopeLoadBalancer || q.Headroom[1].ARN != l.LoadBalancerARN {
		t.Fatalf("headroom %+v: want the new target group's, then the ALB's", q.Headroom)
	}
	if got, want := countsOf(q.Headroom[0]), (quotaCounts{Now: 0, Adding: quotaPods, Peak: quotaPods, Room: 1000 - quotaPods, After: quotaPods, Quota: 1000}); got != want {
		t.Errorf("the new target group's headroom %+v, want %+v", got, want)
	}
	wantLB := quotaCounts{Now: quotaNodes, Others: quotaNodes, Adding: quotaPods, Peak: quotaNodes + quotaPods, Room: bgQuotaLB - quotaNodes - quotaPods, After: quotaPods, Quota: bgQuotaLB}
	if got := countsOf(q.Headroom[1]); got != wantLB {
		t.Errorf("the load balancer's headroom %+v, want %+v", got, wantLB)
	}
	if q.Headroom[1].Quota.Code != diagnose.QuotaCodeTargetsPerALB {
		t.Errorf("the load balancer's quota %s, want %s", q.Headroom[1].Quota.Code, diagnose.QuotaCodeTargetsPerALB)
	}
	// The room is the two target groups' together.
	if q.Room != bgQuotaLB {
		t.Errorf("room %d, want %d: the ALB's quota, which only the two target groups use", q.Room, bgQuotaLB)
	}
	// The waves: before the first shift the old target group goes down
	// to the floor (10 deregistered) and the one controller batch of 30
	// fits beside it; each shift then follows, with nothing more to
	// register; once detached the old target group no longer counts.
	wantWaves := []cutover.QuotaWave{
		{Weight: 0, Deregister: quotaNodes - bgQuotaFloor, Nodes: bgQuotaFloor, Register: quotaPods, Pods: quotaPods, Healthy: bgQuotaFloor},
		{Weight: 10, Nodes: bgQuotaFloor, Pods: quotaPods, Healthy: bgQuotaFloor + quotaPods},
		{Weight: 50, Nodes: bgQuotaFloor, Pods: quotaPods, Healthy: bgQuotaFloor + quotaPods},
		{Weight: 100, Nodes: bgQuotaFloor, Pods: quotaPods, Healthy: quotaPods},
	}
	if d := cmp.Diff(wantWaves, q.Waves); d != "" {
		t.Errorf("waves (-want +got):\n%s", d)
	}
	if len(q.Waves) == 0 {
		t.Fatal("a bounded plan without waves")
	}
	var weights []int32
	for _, w := range q.Waves {
		weights = append(weights, w.Weight)
		if n := w.Nodes + w.Pods; w.Weight < 100 && n > q.Room {
			t.Errorf("wave at %d%%: %d old + %d pod targets, over the room of %d", w.Weight, w.Nodes, w.Pods, q.Room)
		}
	}
	if !slices.Equal(weights, p.BlueGreen.WeightSteps) {
		t.Errorf("the waves' weights %v, want the plan's weight steps %v", weights, p.BlueGreen.WeightSteps)
	}
	if last := q.Waves[len(q.Waves)-1]; last.Pods != quotaPods {
		t.Errorf("the last wave ends with %d pod targets, want %d", last.Pods, quotaPods)
	}
	ids := p.StepIDs()
	room, bind := slices.Index(ids, cutover.StepMakeRoom), slices.Index(ids, cutover.StepBind)
	if room < 0 || bind < 0 || room > bind {
		t.Errorf("steps %v: want make-room before bind", ids)
	}
	if st := p.Step(cutover.StepMakeRoom); st == nil || !st.Mutates {
		t.Errorf("make-room step %+v: want a mutating step", st)
	}
	if !slices.ContainsFunc(p.Warnings, func(w string) bool { return strings.Contains(w, "floor shared by weight") }) {
		t.Errorf("warnings %q: want one that says the overlap is bounded, the floor shared by weight", p.Warnings)
	}

	res := bgQuotaExecute(t, s, watch, p)
	// make-room deregistered the first wave's old targets, before the
	// bind.
	if got := sut.deregisteredDuring(res, cutover.StepMakeRoom); got != q.Waves[0].Deregister {
		t.Errorf("make-room deregistered %d old targets, want the first wave's %d", got, q.Waves[0].Deregister)
	}
	mr, bd := stepResult(res, cutover.StepMakeRoom), stepResult(res, cutover.StepBind)
	if mr == nil || bd == nil || mr.Skipped || mr.FinishedAt.After(bd.StartedAt) {
		t.Errorf("make-room %+v, bind %+v: want make-room run, and done before the bind", mr, bd)
	}
	// The floor is a floor.
	if res.Ratio < 1.0 {
		t.Errorf("cutover %.0fs (the hold's settle %.0fs) for a floor of %.0fs: ratio %.3f, below 1: the floor is not a floor", res.CutoverSeconds, res.SettleSeconds, res.FloorSeconds, res.Ratio)
	}
	lbMax, at := watch.peak()
	lbcRefused, _ := watch.refusals()
	t.Logf("bounded blue/green: %s; peak %d targets on the load balancer (after %s), %d TooManyTargets refusals of the controller; cutover %.0fs (the hold's settle %.0fs), floor %.0fs, ratio %.3f; steps %v",
		s.w.Traffic().String(), lbMax, at, lbcRefused, res.CutoverSeconds, res.SettleSeconds, res.FloorSeconds, res.Ratio, stepTimes(res))
}

// bgQuotaExecute runs the plan to the end and checks the end state: no
// failed request, the routes forward to the new target group alone, which
// holds every pod target healthy and nothing else; the load balancer never
// held more than its quota, and ELBv2 refused none of tgmigrate's calls
// as TooManyTargets.
func bgQuotaExecute(t *testing.T, s *scenario, watch *bgQuotaWatch, p *cutover.Plan) *cutover.Result {
	t.Helper()
	l := s.w.Legacy()
	res, err := cutover.Execute(t.Context(), s.env, p, simPods)
	if err != nil || !res.Completed || res.RolledBack {
		t.Fatalf("Execute: %+v, %v", res, err)
	}
	if st := s.w.Traffic(); st.Failed != 0 || st.Total == 0 {
		t.Errorf("traffic: %s", st.String())
	}
	r := s.route()
	if len(r) != 1 || r[0].ARN == l.TargetGroupARN {
		t.Fatalf("route %v: want the new target group alone", r)
	}
	nw := r[0].ARN
	s.checkPodsOnly(nw)
	if n := len(s.w.Model().Targets(nw)); n != quotaPods {
		t.Errorf("the new target group holds %d targets, want the %d pods'", n, quotaPods)
	}
	lbMax, at := watch.peak()
	if lbMax > bgQuotaLB {
		t.Errorf("the load balancer held %d targets (after %s), over its quota of %d", lbMax, at, bgQuotaLB)
	}
	if lbMax < quotaPods {
		t.Errorf("peak %d on the load balancer: the controller's registrations were not seen", lbMax)
	}
	if _, sutRefused := watch.refusals(); len(sutRefused) > 0 {
		t.Errorf("ELBv2 refused tgmigrate's calls as TooManyTargets: %q", sutRefused)
	}
	s.api.mu.Lock()
	if len(s.api.violations) > 0 {
		t.Errorf("call contract violated: %v", s.api.violations)
	}
	s.api.mu.Unlock()
	return res
}

func stepTimes(res *cutover.Result) []string {
	var out []string
	for _, st := range res.Steps {
		out = append(out, fmt.Sprintf("%s %.0fs", st.ID, st.FinishedAt.Sub(st.StartedAt).Seconds()))
	}
	return out
}

// TestQuotaBlueGreenFloorCountsMakeRoom: the bounded blue/green plan's
// floor counts make-room's wait. Room for the controller's one batch of
// 30 pod targets beside the old target group's 20 targets under the quota
// of 40 exists only once the 10 targets make-room deregisters have
// drained (draining targets count against the quota): make-room waits the
// old target group's deregistration delay before the bind, as the
// in-place plan's first wave does (Plan.Quota.DrainFirst, a make-room
// wait in the estimate; TestQuotaBoundedExecute holds it to 1.05). The
// estimate must name that wait, and the run must come within 1.1 of the
// floor, as TestAcceptanceBlueGreen's does.
func TestQuotaBlueGreenFloorCountsMakeRoom(t *testing.T) {
	t.Parallel()
	s, watch, _ := newQuotaBlueGreen(t, 372, bgQuotaLB)
	p := bgQuotaPlan(t, s)
	q := p.Quota
	dereg := int(p.TargetGroup.DeregistrationDelaySeconds)
	// The room without the first wave's deregistrations is short of the
	// controller's first batch: the bind must wait for their drain.
	if short := q.Room - p.TargetGroup.Targets; short >= min(cutover.ControllerBatch, quotaPods) {
		t.Fatalf("room %d less the old target group's %d targets is %d: enough for the first batch, the scenario proves nothing", q.Room, p.TargetGroup.Targets, short)
	}
	drainWait := slices.ContainsFunc(p.Estimate.Waits, func(w cutover.PlannedWait) bool {
		return w.Step == cutover.StepMakeRoom && int(w.Seconds) >= dereg
	})
	if !drainWait {
		t.Errorf("the estimate's waits %+v (floor %ds) have no make-room wait of the deregistration delay (%ds): make-room waits it before the bind", p.Estimate.Waits, p.Estimate.FloorSeconds, dereg)
	}
	res := bgQuotaExecute(t, s, watch, p)
	if res.Ratio < 1.0 || res.Ratio > 1.1 {
		t.Errorf("cutover %.0fs (the hold's settle %.0fs) for a floor of %.0fs: ratio %.3f, want within [1, 1.1] (make-room took %v; steps %v)",
			res.CutoverSeconds, res.SettleSeconds, res.FloorSeconds, res.Ratio, stepTook(res, cutover.StepMakeRoom), stepTimes(res))
	}
	t.Logf("cutover %.0fs, floor %.0fs, ratio %.3f; make-room %v; deregistration delay %ds", res.CutoverSeconds, res.FloorSeconds, res.Ratio, stepTook(res, cutover.StepMakeRoom), dereg)
}

// bgRoutes lists every forward action's target groups and weights on the
// legacy ALB's listener (default action and rules), for a before/after
// comparison.
func bgRoutes(t *testing.T, s *scenario) []string {
	t.Helper()
	m := s.w.Model()
	l := s.w.Legacy()
	var out []string
	add := func(what string, actions []elbv2types.Action) {
		for _, a := range actions {
			var tgs []string
			if a.ForwardConfig != nil {
				for _, tg := range a.ForwardConfig.TargetGroups {
					tgs = append(tgs, fmt.Sprintf("%s=%d", aws.ToString(tg.TargetGroupArn), aws.ToInt32(tg.Weight)))
				}
			} else if a.TargetGroupArn != nil {
				tgs = append(tgs, aws.ToString(a.TargetGroupArn))
			}
			out = append(out, fmt.Sprintf("%s %s %v", what, a.Type, tgs))
		}
	}
	ls, err := m.DescribeListeners(&elbv2.DescribeListenersInput{LoadBalancerArn: aws.String(l.LoadBalancerARN)})
	if err != nil {
		t.Fatal(err)
	}
	for _, li := range ls.Listeners {
		add("listener "+aws.ToString(li.ListenerArn), li.DefaultActions)
		rs, err := m.DescribeRules(&elbv2.DescribeRulesInput{ListenerArn: li.ListenerArn})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs.Rules {
			if !aws.ToBool(r.IsDefault) {
				add("rule "+aws.ToString(r.RuleArn), r.Actions)
			}
		}
	}
	return out
}

// bgRollback is a bounded blue/green cutover stopped after its first
// shift above 0, then rolled back.
type bgRollback struct {
	s     *scenario
	watch *bgQuotaWatch
	p     *cutover.Plan
	first int32
	// healthyOld counts the old target group's healthy targets, fit the
	// missing node targets the room has free for, before the rollback;
	// wantRefusal is the product's rule: a refusal when the node targets
	// in would then be fewer than the floor.
	healthyOld, fit int
	wantRefusal     bool
	// before and beforeRoutes are the world and the routes before the
	// rollback.
	before       worldSnapshot
	beforeRoutes []string
	rb           *cutover.RollbackResult
	err          error
}

func runBlueGreenRollback(t *testing.T, seed uint64) *bgRollback {
	t.Helper()
	s, watch, _ := newQuotaBlueGreen(t, seed, bgQuotaLB)
	p := bgQuotaPlan(t, s)
	l := s.w.Legacy()
	x := &bgRollback{s: s, watch: watch, p: p}
	for _, w := range p.BlueGreen.WeightSteps {
		if w > 0 {
			x.first = w
			break
		}
	}
	if x.first == 0 {
		t.Fatalf("weight steps %v: no shift above 0", p.BlueGreen.WeightSteps)
	}
	shift := cutover.StepShift(x.first)
	res, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithStopAfter(shift))
	if err != nil || !res.Stopped || res.StoppedAfter != shift {
		t.Fatalf("Execute: %+v, %v: want stopped after %s", res, err, shift)
	}
	r := s.route()
	var nw string
	for _, tg := range r {
		if tg.ARN != l.TargetGroupARN {
			nw = tg.ARN
		}
	}
	if len(r) != 2 || nw == "" {
		t.Fatalf("route %v after %s: want the old and the new target group", r, shift)
	}
	oldN, newN := len(s.w.Model().Targets(l.TargetGroupARN)), len(s.w.Model().Targets(nw))
	for _, v := range s.w.Model().Targets(l.TargetGroupARN) {
		if v.State == elbv2types.TargetHealthStateEnumHealthy {
			x.healthyOld++
		}
	}
	// What the product's rule says the rollback may do: it registers the
	// missing live nodes that fit in the room now; it refuses, before any
	// change, when the node targets in would then be fewer than the floor.
	x.fit = max(p.Quota.Room-oldN-newN, 0)
	x.wantRefusal = min(x.healthyOld+x.fit, quotaNodes) < min(p.Floor, quotaNodes)
	t.Logf("after %s: old target group %d targets (%d healthy), new %d; room %d, %d fit now; the floor %d: want a refusal: %t",
		shift, oldN, x.healthyOld, newN, p.Quota.Room, x.fit, p.Floor, x.wantRefusal)
	x.before, x.beforeRoutes = s.snapshot(), bgRoutes(t, s)
	x.rb, x.err = cutover.Rollback(t.Context(), s.env, p)
	return x
}

// TestQuotaBlueGreenRollback: the bounded blue/green cutover of
// TestQuotaBlueGreenBounded stopped after its first shift above 0 (10%):
// the old target group keeps the floor of 10 node targets, the new one
// holds the 30 pod targets, the load balancer's room of 40 is full. The
// rollback has room for no node target beside the pod targets, but the 10
// left in are the floor: it must not refuse. It registers none of the 10
// missing live nodes until the new target group is out of the routes and
// deleted (register-rest), then registers them: no request fails, the old
// target group ends serving alone with a healthy target per live node,
// the new target group is gone, and the load balancer never passes its
// quota. Were the room short of the floor, the product's contract is a
// *QuotaError before any change: that branch compares every target group's
// targets, the bindings, the holds, the mutating calls and the routes
// before and after the failed call.
func TestQuotaBlueGreenRollback(t *testing.T) {
	t.Parallel()
	x := runBlueGreenRollback(t, 371)
	s, p, rb, err := x.s, x.p, x.rb, x.err
	l := s.w.Legacy()
	var qe *cutover.QuotaError
	refused := errors.As(err, &qe)
	if refused != x.wantRefusal {
		t.Fatalf("Rollback: %+v, %v: a *QuotaError %t, want %t (%d healthy old targets, %d fit, floor %d)", rb, err, refused, x.wantRefusal, x.healthyOld, x.fit, p.Floor)
	}
	if refused {
		if d := cmp.Diff(x.before, s.snapshot()); d != "" {
			t.Errorf("the refused rollback changed the world (-before +after):\n%s", d)
		}
		if d := cmp.Diff(x.beforeRoutes, bgRoutes(t, s)); d != "" {
			t.Errorf("the refused rollback changed the routes (-before +after):\n%s", d)
		}
		if qe.Headroom.Quota.Code != diagnose.QuotaCodeTargetsPerALB || qe.Need <= bgQuotaLB {
			t.Errorf("refusal %+v: want the ALB's quota named, with a value above %d", qe, bgQuotaLB)
		}
		t.Logf("the rollback refused before any change: %v", err)
		return
	}
	if err != nil {
		t.Fatalf("Rollback: %+v, %v", rb, err)
	}
	s.checkRolledBack(rb)
	if r := s.route(); len(r) != 1 || r[0].ARN != l.TargetGroupARN {
		t.Errorf("route %v: want the old target group alone", r)
	}
	if arns := s.w.Model().TargetGroupARNs(); len(arns) != 1 || arns[0] != l.TargetGroupARN {
		t.Errorf("target groups %v: want the old one alone (the new one deleted)", arns)
	}
	if s.bindingExists(p) {
		t.Error("the binding is still there after the rollback")
	}
	if n := len(s.w.Model().Targets(l.TargetGroupARN)); n < quotaNodes {
		t.Errorf("the old target group holds %d targets, want one per node (%d)", n, quotaNodes)
	}
	if len(rb.Registered) != quotaNodes-x.healthyOld {
		t.Errorf("the rollback registered %d node targets, want the %d make-room deregistered", len(rb.Registered), quotaNodes-x.healthyOld)
	}
	var rest, regNodes *cutover.StepResult
	var order []string
	for i := range rb.Actions {
		order = append(order, rb.Actions[i].ID)
		switch rb.Actions[i].ID {
		case cutover.RollbackRegisterRest:
			rest = &rb.Actions[i]
		case cutover.RollbackRegisterNodes:
			regNodes = &rb.Actions[i]
		}
	}
	if x.fit == 0 && (regNodes == nil || regNodes.MutatingCalls != 0) {
		t.Errorf("register-nodes %+v: with no room free beside the pod targets, want it to register nothing", regNodes)
	}
	if rest == nil || rest.Skipped || rest.MutatingCalls == 0 {
		t.Errorf("register-rest %+v: want it to register the node targets that did not fit (actions %v)", rest, order)
	}
	if i, j := slices.Index(order, cutover.RollbackDeleteTargetGroup), slices.Index(order, cutover.RollbackRegisterRest); i < 0 || j != i+1 {
		t.Errorf("actions %v: want register-rest right after delete-target-group", order)
	}
	lbMax, at := x.watch.peak()
	if lbMax > bgQuotaLB {
		t.Errorf("the load balancer held %d targets (after %s), over its quota of %d", lbMax, at, bgQuotaLB)
	}
	if _, sutRefused := x.watch.refusals(); len(sutRefused) > 0 {
		t.Errorf("ELBv2 refused tgmigrate's calls as TooManyTargets: %q", sutRefused)
	}
	if st := s.w.Traffic(); st.Failed != 0 {
		t.Errorf("traffic: %s", st.String())
	}
	t.Logf("rollback after %s: completed in %.0fs (floor %.0fs, ratio %.3f), %d registered; peak %d on the load balancer (after %s); actions %v; warnings %q",
		cutover.StepShift(x.first), rb.Seconds, rb.FloorSeconds, rb.Ratio, len(rb.Registered), lbMax, at, actionTimes(rb), rb.Warnings)
}

func actionTimes(rb *cutover.RollbackResult) []string {
	var out []string
	for _, a := range rb.Actions {
		out = append(out, fmt.Sprintf("%s %.0fs (%d mutating)", a.ID, a.FinishedAt.Sub(a.StartedAt).Seconds(), a.MutatingCalls))
	}
	return out
}

// TestQuotaBlueGreenRollbackFloor: the rollback of
// TestQuotaBlueGreenRollback's floor is a floor. Its register-rest
// registers the node targets that did not fit as soon as the new target
// group is out of the routes and deleted: a target group no load balancer
// uses counts against no load balancer's quota, so, unlike in-place,
// nothing waits for the pod targets' drain. Its floor is then the node
// targets' registration and checks, not the deregistration delay as well.
func TestQuotaBlueGreenRollbackFloor(t *testing.T) {
	t.Parallel()
	x := runBlueGreenRollback(t, 373)
	rb := x.rb
	if x.err != nil || rb == nil || !rb.Completed {
		t.Fatalf("Rollback: %+v, %v: want it completed (TestQuotaBlueGreenRollback)", rb, x.err)
	}
	var rest *cutover.StepResult
	for i := range rb.Actions {
		if rb.Actions[i].ID == cutover.RollbackRegisterRest {
			rest = &rb.Actions[i]
		}
	}
	if rest == nil || rest.MutatingCalls == 0 {
		t.Fatalf("register-rest %+v: want it to have registered node targets", rest)
	}
	dereg := time.Duration(x.p.TargetGroup.DeregistrationDelaySeconds) * time.Second
	restTook := rest.FinishedAt.Sub(rest.StartedAt)
	if restTook >= dereg {
		t.Fatalf("register-rest took %v, the deregistration delay %v: it waited for a drain after all", restTook, dereg)
	}
	if rb.Ratio < 1.0 {
		t.Errorf("rollback %.0fs for a floor of %.0fs: ratio %.3f, below 1: the floor counts a wait the blue/green rollback does not make (register-rest took %v; the deregistration delay %v; actions %v)",
			rb.Seconds, rb.FloorSeconds, rb.Ratio, restTook, dereg, actionTimes(rb))
	}
	t.Logf("rollback %.0fs, floor %.0fs, ratio %.3f; register-rest %v", rb.Seconds, rb.FloorSeconds, rb.Ratio, restTook)
}
