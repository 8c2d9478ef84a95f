package cutover

// This file counts a cutover's targets against ELBv2's quotas. While the
// node targets and the pod targets are both registered, a target group
// holds both sets, and its load balancer counts them beside the targets of
// its other target groups. Past a quota, RegisterTargets fails with
// TooManyTargets: the controller registers nothing more and the cutover
// stalls. The plan counts the peak; when it would pass a quota, it bounds
// the overlap (node targets leave, down to the floor, to make room for the
// pod targets), or refuses with a *QuotaError that names the increase to
// request.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/textcell"
)

// ControllerBatch is how many targets the AWS Load Balancer Controller
// puts in one RegisterTargets call (its targets manager's chunk size).
// ELBv2 refuses a whole call that would pass a quota, and the controller
// stops at the first refused call: room for fewer than a batch registers
// nothing.
const ControllerBatch = 200

// QuotaPlan is the plan's count of targets against ELBv2's quotas.
type QuotaPlan struct {
	// Quotas are the quotas counted against, and Source says where they
	// come from (Service Quotas, or AWS's documented defaults).
	Quotas diagnose.TargetQuotas `json:"quotas"`
	Source string                `json:"source"`
	// Headroom compares the peak with each quota: the target group's
	// (first), then each load balancer's across its target groups.
	// Blue/green counts the new target group on the same load balancers.
	Headroom []diagnose.Headroom `json:"headroom"`
	// Room is the most targets the bound target group may hold at once
	// under every quota (each load balancer's quota less its other target
	// groups' targets).
	Room int `json:"room"`
	// Bounded says the unbounded overlap would pass a quota, so the plan
	// bounds it: Waves is how it expects the room to be made and filled.
	Bounded bool        `json:"bounded"`
	Waves   []QuotaWave `json:"waves,omitempty"`
	// DrainFirst says the first wave waits for the targets it deregisters
	// to drain: without them the room is short of the controller's first
	// batch.
	DrainFirst bool `json:"drainFirst,omitempty"`
	// Assumptions are what the count rests on.
	Assumptions []string `json:"assumptions"`
	// Rollback says what room a rollback after the pod targets are in
	// needs, and whether it has it.
	Rollback string `json:"rollback,omitempty"`
}

// QuotaWave is one wave of a bounded overlap: node targets deregistered to
// make room, then the pod targets the controller can register in it.
type QuotaWave struct {
	// Weight is, for blue/green, the new target group's weight the wave
	// follows (0: before the first shift; 100: after the detach).
	Weight int32 `json:"weight,omitempty"`
	// Deregister counts the node targets deregistered before the wave
	// (ghosts and targets that do not serve first); Nodes those still
	// registered after.
	Deregister int `json:"deregister"`
	Nodes      int `json:"nodes"`
	// Register counts the pod targets registered in the wave (whole
	// controller batches), Pods the pod targets registered after it.
	Register int `json:"register"`
	Pods     int `json:"pods"`
	// Healthy is the fewest healthy targets during the wave: the node
	// targets kept and the pod targets of earlier waves.
	Healthy int `json:"healthy"`
}

// ErrQuota is matched by every [QuotaError].
var ErrQuota = errors.New("ELBv2 target quota")

// QuotaError is a cutover no plan can fit in ELBv2's quotas on targets:
// PlanCutover refuses it before any change, and Execute stops with it when
// the controller's registrations are refused as TooManyTargets.
type QuotaError struct {
	// Op is "plan" or the step.
	Op string
	// TargetGroupARN is the target group.
	TargetGroupARN tgmigrate.ARN
	// Headroom is the count that does not fit (zero Scope when Execute
	// found it in the controller's events).
	Headroom diagnose.Headroom
	// Need is the quota value a plan needs.
	Need int
	// Reason says why no plan fits.
	Reason string
	// Message is the controller's event message, when Execute found it.
	Message string
}

// Error implements error.
func (e *QuotaError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cutover: %s: %v: %s", e.Op, ErrQuota, e.Reason)
	if e.Headroom.Scope != "" {
		fmt.Fprintf(&b, " (%s)", e.Headroom)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, "; the controller: %q", e.Message)
	}
	if h := e.Hint(); h != "" {
		b.WriteString(": " + h)
	}
	return b.String()
}

// Hint says which quota to raise, to what, and how.
func (e *QuotaError) Hint() string {
	if e.Headroom.Quota.Code == "" || e.Need <= 0 {
		return ""
	}
	region := ""
	if e.TargetGroupARN.ValidTargetGroup() == nil {
		region = e.TargetGroupARN.Region
	}
	return e.Headroom.Quota.IncreaseHint(e.Need, region)
}

// Unwrap returns [ErrQuota].
func (e *QuotaError) Unwrap() error { return ErrQuota }

// IsQuota reports whether err is a [QuotaError].
func IsQuota(err error) bool { return errors.Is(err, ErrQuota) }

// quotaAssumptions are what every count rests on.
var quotaAssumptions = []string{
	"a draining target counts against the quotas until its deregistration delay ends (AWS does not document it; the simulator enforces it)",
	fmt.Sprintf("the controller registers every endpoint it does not find, %d per RegisterTargets call, in address order, and stops at the first call ELBv2 refuses", ControllerBatch),
	"the pod targets to register are the Service's ready endpoints at plan time; a scale-up or a rolling update's surge during the cutover adds more, and Execute makes room for them too, down to the floor",
}

// lbTargets counts the targets of a load balancer's target groups other
// than skip, draining ones included.
func (pl *planner) lbTargets(ctx context.Context, lbARN, skip string) (int, error) {
	tgs, err := pl.aws.r.TargetGroups(ctx, elbv2.DescribeTargetGroupsInput{LoadBalancerArn: aws.String(lbARN)})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, tg := range tgs {
		arn := aws.ToString(tg.TargetGroupArn)
		if arn == skip || arn == "" {
			continue
		}
		h, err := pl.aws.health(ctx, arn, false)
		if err != nil {
			return 0, err
		}
		n += len(h)
	}
	return n, nil
}

// quota counts the plan's targets against the quotas and fills p.Quota.
// bound is the bound target group's ARN, label its name (blue/green: the
// new target group, which does not exist yet: bound is ""); now are its
// targets, leaving those the plan deregisters, adding the pod targets the
// controller will register; lbs its load balancers. old counts, for
// blue/green, the old target group's targets: on the same load
// balancers, they count until it is detached.
func (pl *planner) quota(ctx context.Context, bound, label string, now, leaving, adding int, lbs []string, old int) error {
	p := pl.p
	q := diagnose.ReadTargetQuotas(ctx, pl.e.ServiceQuotas, pl.e.clock, DefaultRetry.internal())
	qp := &QuotaPlan{Quotas: q, Source: q.Sourced(), Assumptions: slices.Clone(quotaAssumptions)}
	id := bound
	if id == "" {
		id = label // blue/green: the new target group, by name
	}
	tgh := diagnose.NewHeadroom(diagnose.ScopeTargetGroup, id, q.PerTargetGroup, now, 0, adding, leaving)
	qp.Headroom = append(qp.Headroom, tgh)
	qp.Room, pl.roomScope = q.PerTargetGroup.Value, 0
	lbs = slices.Clone(lbs)
	slices.Sort(lbs)
	for _, lb := range lbs {
		lq, ok := q.ForLoadBalancer(lb)
		if !ok {
			continue
		}
		others, err := pl.lbTargets(ctx, lb, bound)
		if err != nil {
			_, err = pl.fail(err)
			return err
		}
		h := diagnose.NewHeadroom(diagnose.ScopeLoadBalancer, lb, lq, now+others, others, adding, leaving)
		h.After -= old
		qp.Headroom = append(qp.Headroom, h)
		if lq.Value-others < qp.Room {
			qp.Room, pl.roomScope = lq.Value-others, len(qp.Headroom)-1
		}
	}
	p.Quota = qp
	if pl.e.ServiceQuotas != nil {
		p.Reads = append(p.Reads, "servicequotas:GetServiceQuota,GetAWSDefaultServiceQuota (elasticloadbalancing)")
	}
	if !q.AllRead() {
		p.Warnings = append(p.Warnings, "ELBv2 quotas: "+qp.Source)
	}
	for _, h := range qp.Headroom {
		if h.After > h.Quota.Value {
			return &QuotaError{Op: "plan", TargetGroupARN: pl.arn, Headroom: h, Need: h.After,
				Reason: fmt.Sprintf("after the cutover the %s would hold %s, over its quota of %d: no order of the steps fits", h.Scope, textcell.Plural(h.After, "target", "targets"), h.Quota.Value)}
		}
	}
	return nil
}

// need is the value the quota that limits the room must have for the
// bound target group to hold want targets at once.
func (pl *planner) need(want int) (diagnose.Headroom, int) {
	qp := pl.p.Quota
	h := qp.Headroom[pl.roomScope]
	return h, h.Quota.Value + (want - qp.Room)
}

// exceeded returns the first headroom whose peak passes its quota.
func (qp *QuotaPlan) exceeded() (diagnose.Headroom, bool) {
	for _, h := range qp.Headroom {
		if h.Exceeded() {
			return h, true
		}
	}
	return diagnose.Headroom{}, false
}

// boundedWaves plans a bounded overlap. room is the most targets the target
// group may hold; kept its targets the plan leaves alone; idle the
// recorded targets that do not serve (ghosts, unhealthy, leaving), which
// go first; serving the recorded node targets that serve healthy; adding
// the pod targets to register; floor the fewest healthy targets. Each
// wave deregisters node targets, never below the floor counting the pod
// targets of earlier waves as healthy, then the controller registers
// whole batches into the room. It returns false when a wave can register
// nothing: the overlap cannot be bounded.
func boundedWaves(room, kept, idle, serving, adding, floor, batch int) ([]QuotaWave, bool) {
	var waves []QuotaWave
	nodes, pods := serving, 0
	first := true
	for pods < adding {
		w := QuotaWave{}
		if first {
			w.Deregister = idle
			first = false
		}
		free := room - kept - nodes - pods
		want := adding - pods
		if free < want {
			removable := nodes - max(floor-pods, 0)
			n := min(max(removable, 0), want-free)
			nodes -= n
			w.Deregister += n
			free += n
		}
		w.Nodes = nodes
		w.Healthy = nodes + pods
		pods, w.Register = fillBatches(pods, adding, free, batch)
		w.Pods = pods
		if w.Register == 0 {
			return waves, false
		}
		waves = append(waves, w)
	}
	return waves, true
}

// boundInPlace checks the in-place plan's count: it fits, or the plan is
// bounded, or PlanCutover refuses. serving counts the recorded node
// targets that serve healthy; kept the targets the plan leaves alone that
// are not the Service's pods; podTargets the Service's ready endpoints
// registered already.
func (pl *planner) boundInPlace(serving, kept, podTargets int) error {
	p := pl.p
	qp := p.Quota
	idle := len(p.Recorded) - serving
	adding := p.Service.ReadyEndpoints - podTargets
	if _, over := qp.exceeded(); !over {
		pl.rollbackRoom(kept, len(p.Recorded))
		return nil
	}
	waves, ok := boundedWaves(qp.Room, kept, idle, serving, adding, p.Floor, ControllerBatch)
	// The first wave waits for its deregistrations to drain when the room
	// without them is short of the controller's first batch.
	qp.DrainFirst = ok && qp.Room-kept-len(p.Recorded)-podTargets < min(ControllerBatch, adding)
	if !ok {
		// The floor keeps too many node targets for even one batch.
		first := min(ControllerBatch, adding)
		h, need := pl.need(kept + p.Floor + podTargets + first)
		return &QuotaError{Op: "plan", TargetGroupARN: pl.arn, Headroom: h, Need: need,
			Reason: fmt.Sprintf("the overlap passes the quota and no bounded overlap fits: the floor of %d healthy targets keeps %d node targets registered, which leaves room for fewer than the controller's first batch of %d pod targets", p.Floor, p.Floor, first)}
	}
	qp.Bounded, qp.Waves = true, waves
	pl.rollbackRoom(kept, len(p.Recorded))
	h, _ := qp.exceeded()
	p.Warnings = append(p.Warnings, fmt.Sprintf("the overlap would pass %s (%s): the plan bounds it in %s, deregistering node targets down to the floor of %d to make room for the pod targets (Plan.Quota)", h.Quota.Name, h, textcell.Plural(len(waves), "wave", "waves"), p.Floor))
	return nil
}

// rollbackRoom says whether a rollback once the pod targets are in has
// room to register the node targets back beside them (Quota.Rollback).
func (pl *planner) rollbackRoom(kept, nodes int) {
	p := pl.p
	qp := p.Quota
	pods := p.Service.ReadyEndpoints
	free := qp.Room - kept - pods
	switch {
	case free >= nodes:
		qp.Rollback = fmt.Sprintf("a rollback registers up to %d node targets beside %d pod targets: room %d, enough", nodes, pods, free)
	case free >= p.Floor:
		qp.Rollback = fmt.Sprintf("a rollback once the pod targets are in has room for %d node targets beside them (the floor is %d): it registers that many, deletes the binding, then registers the others", free, p.Floor)
	default:
		h, need := pl.need(kept + pods + p.Floor)
		qp.Rollback = fmt.Sprintf("a rollback once the pod targets are in has room for %d node targets beside them, below the floor of %d: it would stop before any change; to keep it possible, %s", max(free, 0), p.Floor, h.Quota.IncreaseHint(need, p.TargetGroup.Region))
		p.Warnings = append(p.Warnings, "rollback: "+qp.Rollback)
	}
}

// ceilShare is the share w% of floor, rounded up: the healthy targets a
// target group that takes w% of the traffic must hold.
func ceilShare(floor int, w int32) int { return (floor*int(w) + 99) / 100 }

// blueGreenWaves plans a bounded blue/green overlap. room is the most
// targets the old and the new target groups may hold together (each load
// balancer's quota less its other target groups); idle the old target
// group's targets that do not serve, serving those that serve healthy;
// adding the pod targets; weights the weight steps. The floor is shared by
// weight: a target group that takes w% of the traffic keeps at least w% of
// the floor healthy. Before each shift to w the new target group must hold
// its share (its pod targets of earlier waves, assumed healthy by then);
// after it, the old one may drop to its own; once detached it no longer
// counts. It returns false when a shift cannot be reached.
func blueGreenWaves(room, idle, serving, adding, floor, batch int, weights []int32) ([]QuotaWave, bool) {
	old, pods := serving, 0
	fill := func(w *QuotaWave, oldFloor int, counted bool) {
		free := room - pods
		if counted {
			free -= old
		}
		if want := adding - pods; counted && free < want {
			n := min(max(old-oldFloor, 0), want-free)
			old -= n
			w.Deregister += n
			free += n
		}
		w.Healthy = pods
		if counted {
			w.Healthy += old
		}
		pods, w.Register = fillBatches(pods, adding, free, batch)
		w.Nodes, w.Pods = old, pods
	}
	w0 := QuotaWave{Deregister: idle}
	fill(&w0, floor, true)
	waves := []QuotaWave{w0}
	for _, wt := range weights {
		if wt == 0 {
			continue
		}
		if pods < ceilShare(floor, wt) {
			return waves, false
		}
		w := QuotaWave{Weight: wt}
		fill(&w, ceilShare(floor, 100-wt), wt < 100)
		waves = append(waves, w)
	}
	return waves, pods == adding
}

// boundBlueGreen checks the blue/green plan's count: the new target group
// and the old one on the same load balancers fit, or the plan is bounded,
// or PlanCutover refuses. Plan.Quota.Room becomes the room of the two
// target groups together.
func (pl *planner) boundBlueGreen(serving int) error {
	p := pl.p
	qp := p.Quota
	oldN := p.TargetGroup.Targets
	for i, h := range qp.Headroom {
		if h.Scope != diagnose.ScopeLoadBalancer {
			continue
		}
		if r := h.Quota.Value - (h.Others - oldN); i == 1 || r < qp.Room {
			qp.Room, pl.roomScope = r, i
		}
	}
	h, over := qp.exceeded()
	if !over || h.Scope != diagnose.ScopeLoadBalancer {
		qp.Rollback = "a rollback re-attaches the old target group and registers its nodes beside the new one's pod targets: the count above says whether they fit"
		return nil
	}
	adding := p.Service.ReadyEndpoints
	waves, ok := blueGreenWaves(qp.Room, oldN-serving, serving, adding, p.Floor, ControllerBatch, p.BlueGreen.WeightSteps)
	if !ok {
		first := p.BlueGreen.WeightSteps[min(1, len(p.BlueGreen.WeightSteps)-1)]
		h, need := pl.need(p.Floor + ceilShare(p.Floor, first) + ControllerBatch)
		return &QuotaError{Op: "plan", TargetGroupARN: pl.arn, Headroom: h, Need: need,
			Reason: fmt.Sprintf("the new target group and the old one together pass the load balancer's quota, and no bounded overlap fits: the old target group keeps the floor of %d healthy targets until the first shift, which leaves the new one room for fewer than the %d pod targets its %d%% share needs", p.Floor, ceilShare(p.Floor, first), first)}
	}
	qp.Bounded, qp.Waves = true, waves
	// The first wave waits for the old target group's deregistered
	// targets to drain when the room beside it is short of the first batch.
	qp.DrainFirst = qp.Room-oldN < min(ControllerBatch, adding)
	qp.Rollback = fmt.Sprintf("a rollback after the first shift re-attaches the old target group beside up to %d pod targets of the new one: the load balancer's quota may refuse it; raise the quota first if a rollback must stay possible (%s)", adding, h.Quota.IncreaseHint(h.Now+adding, p.TargetGroup.Region))
	p.Warnings = append(p.Warnings, fmt.Sprintf("the new target group and the old one would pass %s (%s): the plan bounds the overlap in %s, the floor shared by weight (a target group that takes w%% of the traffic keeps w%% of the floor of %d healthy), deregistering the old target group's targets to make room (Plan.Quota)", h.Quota.Name, h, textcell.Plural(len(waves), "wave", "waves"), p.Floor), "rollback: "+qp.Rollback)
	return nil
}

// fillBatches is one pass of the controller over the room: it registers
// the pod targets left of adding in whole calls of batch while each fits in
// free, and stops at the first that does not (ELBv2 refuses a call that
// would pass a quota whole). It returns the pod targets registered after
// the pass, and how many the pass registered.
func fillBatches(pods, adding, free, batch int) (int, int) {
	registered := 0
	for pods < adding {
		c := min(batch, adding-pods)
		if c > free {
			break
		}
		pods += c
		free -= c
		registered += c
	}
	return pods, registered
}
