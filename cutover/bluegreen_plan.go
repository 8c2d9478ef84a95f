package cutover

// bluegreen_plan.go holds the blue/green strategy's planning: the new ip
// target group (its name, health check and cloned attributes), the routes
// whose weights shift, the floor, its steps and its estimate.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate/tgbind"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// clonedAttributes are the target group attributes blue/green copies to
// the new target group when the old one reports them, with the value
// ELBv2 gives a new HTTP or HTTPS target group (its documented default).
var clonedAttributes = []struct{ key, def string }{
	{"deregistration_delay.timeout_seconds", "300"},
	{"slow_start.duration_seconds", "0"},
	{"load_balancing.algorithm.type", "round_robin"},
	{"stickiness.enabled", "false"},
	{"stickiness.type", "lb_cookie"},
	{"stickiness.lb_cookie.duration_seconds", "86400"},
	{"target_group_health.unhealthy_state_routing.minimum_healthy_targets.count", "1"},
}

// attributesDiffer reports whether the create step must set attrs after
// CreateTargetGroup (ModifyTargetGroupAttributes): some value differs from
// a new target group's default, or has no known default. The plan's
// policy grants ModifyTargetGroupAttributes only then.
func attributesDiffer(attrs map[string]string) bool {
	for k, v := range attrs {
		i := slices.IndexFunc(clonedAttributes, func(a struct{ key, def string }) bool { return a.key == k })
		if i < 0 || clonedAttributes[i].def != v {
			return true
		}
	}
	return false
}

// newTargetGroupName is "<old>-ip", or, when that exceeds 32 characters,
// the old name cut short, a hash of the old ARN and "-ip".
func newTargetGroupName(old, oldARN string) string {
	if n := old + "-ip"; len(n) <= 32 {
		return n
	}
	sum := sha256.Sum256([]byte(oldARN))
	suffix := "-" + hex.EncodeToString(sum[:])[:6] + "-ip"
	return strings.TrimRight(old[:32-len(suffix)], "-") + suffix
}

// blueGreen is the strategy for target groups of type instance, whose type
// cannot change: a new ip target group is bound to the Service and the
// traffic shifts to it through the listeners' weights.
type blueGreen struct{}

func (blueGreen) name() Strategy { return StrategyBlueGreen }

// estimate is blueGreenEstimate.
func (blueGreen) estimate(p *Plan) Estimate { return blueGreenEstimate(p) }

// incomplete says what a blue/green plan lacks: its routes.
func (blueGreen) incomplete(p *Plan) string {
	if p.BlueGreen == nil || len(p.BlueGreen.Routes) == 0 {
		return "a blue/green plan without its routes"
	}
	return ""
}

// plan plans the blue/green strategy.
func (blueGreen) plan(ctx context.Context, pl *planner) error {
	p, req := pl.p, &pl.req
	old := p.TargetGroup
	// Observe a binding that is never applied to learn the ready endpoints
	// (tgbind cannot build one on an instance target group).
	probe := &v1beta1.TargetGroupBinding{}
	probe.Namespace = req.Namespace
	probe.Spec.TargetGroupARN = pl.arn.Raw
	probe.Spec.ServiceRef = v1beta1.ServiceReference{Name: req.Service, Port: pl.portRef()}
	var st *tgbind.TargetState
	err := pl.aws.retryTransient(ctx, false, func(ctx context.Context) (err error) {
		st, err = pl.binder.Observe(ctx, probe)
		return err
	})
	if err != nil {
		_, err = pl.fail(err)
		return err
	}
	p.Service.ReadyEndpoints = st.Total
	for _, e := range st.Endpoints {
		if !slices.Contains(p.Service.PodPorts, e.Port) {
			p.Service.PodPorts = append(p.Service.PodPorts, e.Port)
		}
	}
	slices.Sort(p.Service.PodPorts)

	name := req.NewTargetGroupName
	if name == "" {
		name = newTargetGroupName(old.Name, old.ARN.Raw)
	}
	if existing, err := pl.aws.targetGroupByName(ctx, name); err != nil {
		_, err = pl.fail(err)
		return err
	} else if existing != nil {
		tags, err := pl.aws.tags(ctx, aws.ToString(existing.TargetGroupArn), false)
		if err != nil {
			_, err = pl.fail(err)
			return err
		}
		if !isOurs(tags, old.ARN.Raw) {
			return &StrategyError{Strategy: StrategyBlueGreen, TargetGroupARN: old.ARN,
				Reason: fmt.Sprintf("a target group named %s exists and tgmigrate did not create it for %s: choose Request.NewTargetGroupName", name, old.Name)}
		}
		p.Warnings = append(p.Warnings, fmt.Sprintf("target group %s exists, made by tgmigrate for this target group: it is reused", name))
	}

	healthy := 0
	for _, r := range pl.reports {
		rt := recorded(r)
		p.Others = append(p.Others, rt)
		if r.State == string(elbv2types.TargetHealthStateEnumHealthy) && !leaving(r) {
			healthy++
		}
	}
	sortRecorded(p.Others)
	if err := pl.floor(healthy, "targets of the old target group"); err != nil {
		return err
	}

	routes, err := pl.routes(ctx)
	if err != nil {
		return err
	}
	steps, _ := weightSteps(req.WeightSteps)
	hc := old.HealthCheck.Clone()
	hc.Port = "traffic-port"
	if p.Service.ReadinessPath != "" {
		hc.Path = p.Service.ReadinessPath
	}
	hold := req.StepHoldSeconds
	switch {
	case hold == 0 && hc.IntervalSeconds != nil:
		hold = *hc.IntervalSeconds
	case hold == 0:
		hold = 30
	case hold < 0:
		hold = 0
	}
	port := old.Port
	if len(p.Service.PodPorts) == 1 {
		port = p.Service.PodPorts[0]
	}
	attrs := map[string]string{}
	all, err := pl.aws.attributes(ctx, pl.arn.Raw, false)
	if err != nil {
		_, err = pl.fail(err)
		return err
	}
	for _, a := range clonedAttributes {
		if v, ok := all[a.key]; ok {
			attrs[a.key] = v
		}
	}
	p.BlueGreen = &BlueGreenPlan{
		NewTargetGroup: NewTargetGroupSpec{
			Name: name, Protocol: old.Protocol, ProtocolVersion: old.ProtocolVersion, Port: port, VPCID: old.VPCID,
			IPAddressType: old.IPAddressType, HealthCheck: hc, Attributes: attrs,
			Tags: map[string]string{TagCreatedBy: ManagedBy, TagSourceTargetGroup: old.ARN.Raw,
				TagPlanID: planID(StrategyBlueGreen, pl.arn.Raw, req.Namespace, req.Service, req.Port)},
		},
		Routes: routes, WeightSteps: steps, StepHoldSeconds: hold,
	}
	bindingName := req.BindingName
	if bindingName == "" {
		bindingName = tgbind.Name(req.Service, pl.portRef(), name)
	}
	// The new target group sits behind the same load balancers as the old.
	groups, err := pl.network(ctx, p.Service.PodPorts)
	if err != nil {
		return err
	}
	p.Binding = BindingPlan{Namespace: req.Namespace, Name: bindingName, MultiCluster: true,
		Notes: []string{"built by tgbind once the new target group exists"}, IngressSecurityGroups: groups}
	p.HealthCheck = HealthCheckPlan{Original: old.HealthCheck, Target: hc, Timing: HealthCheckOnNewTargetGroup,
		Reason: "the old target group keeps its health check; the new one checks the pods on traffic-port"}
	// The new target group counts on the old one's load balancers.
	if err := pl.quota(ctx, "", name, 0, 0, p.Service.ReadyEndpoints, old.LoadBalancerARNs, old.Targets); err != nil {
		return err
	}
	if err := pl.boundBlueGreen(healthy); err != nil {
		return err
	}
	return nil
}

// routes finds the forward actions that send to the old target group: the
// listeners' default actions and their rules, on every load balancer that
// uses it. Each must forward to the old target group alone.
func (pl *planner) routes(ctx context.Context) ([]RoutePlan, error) {
	old := pl.arn.Raw
	var out []RoutePlan
	check := func(listener, rule string, actions []elbv2types.Action) error {
		for _, a := range actions {
			if a.Type != elbv2types.ActionTypeEnumForward {
				continue
			}
			tgs := forwardTargets(a)
			if !slices.ContainsFunc(tgs, func(w TargetGroupWeight) bool { return w.TargetGroupARN == old }) {
				continue
			}
			if len(tgs) != 1 {
				where := "listener " + listener
				if rule != "" {
					where = "rule " + rule
				}
				return &StrategyError{Strategy: StrategyBlueGreen, TargetGroupARN: pl.arn,
					Reason: fmt.Sprintf("%s forwards to %d target groups; blue/green shifts only a forward action that names the old target group alone", where, len(tgs))}
			}
			out = append(out, RoutePlan{ListenerARN: listener, RuleARN: rule, Weights: tgs})
		}
		return nil
	}
	lbs := slices.Clone(pl.tg.LoadBalancerArns)
	slices.Sort(lbs)
	for _, lb := range lbs {
		ls, err := pl.aws.listeners(ctx, lb)
		if err != nil {
			return nil, fmt.Errorf("cutover: plan: %w", err)
		}
		for _, l := range ls {
			la := aws.ToString(l.ListenerArn)
			if err := check(la, "", l.DefaultActions); err != nil {
				return nil, err
			}
			rs, err := pl.aws.rules(ctx, la)
			if err != nil {
				return nil, fmt.Errorf("cutover: plan: %w", err)
			}
			for _, r := range rs {
				if aws.ToBool(r.IsDefault) {
					continue // the listener's default action, seen above
				}
				if err := check(la, aws.ToString(r.RuleArn), r.Actions); err != nil {
					return nil, err
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, &StrategyError{Strategy: StrategyBlueGreen, TargetGroupARN: pl.arn,
			Reason: "no listener or rule forwards to it: there is no traffic to shift"}
	}
	return out, nil
}

// isShift says whether s is one of the weight steps (StepShift).
func isShift(s Step) bool { return s.ID == StepShift(s.Weight) }

// forwardTargets lists a forward action's target groups and weights.
func forwardTargets(a elbv2types.Action) []TargetGroupWeight {
	var out []TargetGroupWeight
	if a.ForwardConfig != nil && len(a.ForwardConfig.TargetGroups) > 0 {
		for _, t := range a.ForwardConfig.TargetGroups {
			w := int32(1)
			if t.Weight != nil {
				w = *t.Weight
			}
			out = append(out, TargetGroupWeight{TargetGroupARN: aws.ToString(t.TargetGroupArn), Weight: w})
		}
		return out
	}
	if a.TargetGroupArn != nil {
		out = append(out, TargetGroupWeight{TargetGroupARN: *a.TargetGroupArn, Weight: 1})
	}
	return out
}

// steps are the blue/green steps: create, attach at weight 0, bind, gate,
// each shift, detach, verify (and make room when the overlap is bounded).
func (blueGreen) steps(pl *planner) {
	p := pl.p
	bg := p.BlueGreen
	ntg := bg.NewTargetGroup.Name
	routes := fmt.Sprintf("%d forward actions", len(bg.Routes))
	if len(bg.Routes) == 1 {
		routes = "forward action"
	}
	modify := []string{callDescribe}
	for _, r := range bg.Routes {
		c := callListener
		if r.RuleARN != "" {
			c = callRule
		}
		if !slices.Contains(modify, c) {
			modify = append(modify, c)
		}
	}
	// Tags on creation are authorized as AddTags; the attributes are set
	// only when they differ from a new target group's.
	createCalls := []string{callDescribe, callCreateTG, callAddTags}
	if attributesDiffer(bg.NewTargetGroup.Attributes) {
		createCalls = append(createCalls, callModifyAttr)
	}
	p.Steps = append(p.Steps, Step{
		ID: StepCreateTargetGroup, Phase: "prepare", Title: "create the ip target group " + ntg,
		Preconditions: []string{"no target group of that name, or one tgmigrate created for this one (its tags say so)"},
		Effect:        fmt.Sprintf("CreateTargetGroup %s (ip, %s:%d, health check %s), tagged %s=%s; its attributes copied from %s", ntg, bg.NewTargetGroup.Protocol, bg.NewTargetGroup.Port, hcString(bg.NewTargetGroup.HealthCheck), TagCreatedBy, ManagedBy, p.TargetGroup.Name),
		Rollback:      "DeleteTargetGroup, once no forward action uses it and only if its tags say tgmigrate created it",
		Calls:         createCalls, Mutates: true,
	})
	for _, w := range bg.WeightSteps {
		s := Step{ID: StepShift(w), Phase: "shift-" + strconv.Itoa(int(w)), Weight: w, Calls: modify, Mutates: true,
			Rollback: "put the original forward actions back (the old target group alone)"}
		if w == 0 {
			s.Phase = "prepare"
			s.Title = "attach " + ntg + " at weight 0"
			s.Preconditions = []string{"each forward action still sends to the old target group alone"}
			s.Effect = fmt.Sprintf("the %s: the old target group at 100 and %s at 0: no traffic, but a target group no load balancer uses is never health checked", routes, ntg)
			p.Steps = append(p.Steps, s)
			p.Steps = append(p.Steps,
				Step{ID: StepBind, Phase: "adopt", Title: "bind " + ntg + " to the Service " + p.Service.Namespace + "/" + p.Service.Name,
					Preconditions: []string{"tgbind builds the binding for the new target group; its preflight passes"},
					Effect:        fmt.Sprintf("server-side apply TargetGroupBinding %s/%s: the LBC registers the pod endpoints in %s", p.Binding.Namespace, p.Binding.Name, ntg),
					Rollback:      "delete the binding after the weights are back on the old target group",
					Calls:         []string{callApplyTGB, callDescribe}, Mutates: true},
				Step{ID: StepGate, Phase: "adopt", Title: "wait until the pod targets of " + ntg + " are healthy",
					Effect:   fmt.Sprintf("none, unless Karpenter removes a node of the old target group meanwhile: its target there is deregistered early (with Port) so that no request reaches it, and should the old target group run out of healthy targets, every route forwards to the new one at once; done when every ready endpoint present at the start is registered and healthy, none is unhealthy, and at least %d are healthy", p.Floor),
					Rollback: "nothing to undo", Calls: []string{callDescribe, callListKube, callDereg}, Mutates: true})
			continue
		}
		s.Title = fmt.Sprintf("shift %d%% of the traffic to %s", w, ntg)
		s.Preconditions = []string{fmt.Sprintf("%s has at least %d healthy targets and none unhealthy", ntg, p.Floor),
			"each forward action still sends to the two target groups as set before"}
		s.Effect = fmt.Sprintf("the %s: %d to the old target group and %d to %s; held %ds watching health (as in the gate, old targets of nodes Karpenter removes are deregistered early), then judged by the analysis hook; a route already further along is left as it is", routes, 100-w, w, ntg, bg.StepHoldSeconds)
		s.Calls = append(slices.Clone(modify), callDereg)
		p.Steps = append(p.Steps, s)
	}
	if q := p.Quota; q != nil && q.Bounded {
		for i := range p.Steps {
			if p.Steps[i].ID == StepGate || isShift(p.Steps[i]) {
				// They make room and touch the binding.
				p.Steps[i].Calls = append(p.Steps[i].Calls, callDereg, callApplyTGB)
				slices.Sort(p.Steps[i].Calls)
				p.Steps[i].Calls = slices.Compact(p.Steps[i].Calls)
			}
		}
		w := q.Waves[0]
		i := slices.IndexFunc(p.Steps, func(s Step) bool { return s.ID == StepBind })
		p.Steps = slices.Insert(p.Steps, i, Step{
			ID: StepMakeRoom, Phase: "adopt", Title: "make room for the new target group's pod targets under the load balancer's quota",
			Preconditions: []string{fmt.Sprintf("before each batch, re-read: the old target group keeps at least the floor of %d healthy targets", p.Floor)},
			Effect: fmt.Sprintf("DeregisterTargets (with Port) from %s: its targets that do not serve first, then healthy ones down to the floor, until the two target groups have room together under %d (planned: %d deregistered, %d kept, room for %d pod targets); then wait until the room is free (draining targets count). Each later shift to w%% waits until %s holds w%% of the floor healthy, then lets %s drop to the rest of it, and touches the binding so that the controller registers into the room at once",
				p.TargetGroup.Name, q.Room, w.Deregister, w.Nodes, w.Register, ntg, p.TargetGroup.Name),
			Rollback: "the rollback registers the nodes alive now in the old target group",
			Calls:    []string{callDescribe, callListKube, callDereg}, Mutates: true,
		})
	}
	p.Steps = append(p.Steps,
		Step{ID: StepDetach, Phase: "detach", Title: "detach the old target group " + p.TargetGroup.Name,
			Preconditions: []string{"every forward action sends 100% to " + ntg},
			Effect:        fmt.Sprintf("the %s: %s alone; the old target group stays, with its targets, unused", routes, ntg),
			Rollback:      "attach the old target group again, register the live nodes in it, wait until healthy, then put the original forward actions back",
			Calls:         modify, Mutates: true},
		Step{ID: StepVerify, Phase: "verify", Title: "verify " + ntg + " serves alone",
			Effect:   fmt.Sprintf("none: checks that every forward action sends to %s alone, that every ready endpoint is registered and healthy there (a pod Ready for less than a health-check window may still be in its first checks), none unhealthy, at least %d healthy, and no target other than a pod's: such targets stop it unless allowed", ntg, p.Floor),
			Rollback: "nothing to undo", Calls: []string{callDescribe, callListKube}})
}

// blueGreenEstimate is the floor of a blue/green plan: the new pod targets
// healthy, then each weight's hold.
func blueGreenEstimate(p *Plan) Estimate {
	bg := p.BlueGreen
	t := newTiming(p.Request.Assumptions, bg.NewTargetGroup.HealthCheck, 0)
	e := Estimate{RegistrationSeconds: t.registration(), HealthCheckSeconds: t.checks()}
	e.Waits = append(e.Waits, PlannedWait{Step: StepGate, Reason: reasonNewTargets, Seconds: seconds(t.newTarget()), From: t.newTargetFrom()})
	from := fmt.Sprintf("Request.StepHoldSeconds %d", p.Request.StepHoldSeconds)
	if p.Request.StepHoldSeconds == 0 {
		from = fmt.Sprintf("one health-check interval, %d s (Request.StepHoldSeconds unset)", t.interval)
	}
	for _, w := range bg.WeightSteps {
		if w == 0 || bg.StepHoldSeconds <= 0 {
			continue
		}
		e.HoldSeconds += bg.StepHoldSeconds
		e.Waits = append(e.Waits, PlannedWait{Step: StepShift(w), Reason: reasonHold, Seconds: bg.StepHoldSeconds, From: from})
	}
	e.FloorSeconds = e.RegistrationSeconds + e.HealthCheckSeconds + e.HoldSeconds
	if q := p.Quota; q != nil && q.Bounded {
		// Each wave after the first waits for the old target group's
		// deregistered targets to drain, then for the pod targets
		// registered into the room to pass their checks.
		old := newTiming(p.Request.Assumptions, p.TargetGroup.HealthCheck, p.TargetGroup.DeregistrationDelaySeconds)
		gate := seconds(t.newTarget())
		if q.DrainFirst {
			e.Waits = append(e.Waits, PlannedWait{Step: StepMakeRoom, Reason: reasonDrain, Seconds: old.dereg, From: old.drainFrom()})
			e.FloorSeconds += old.dereg
		}
		for _, w := range q.Waves[1:] {
			if w.Register == 0 {
				continue
			}
			wait, from := gate, t.newTargetFrom()
			if w.Deregister > 0 {
				wait, from = old.dereg+gate, old.drainFrom()+"; "+from
			}
			e.Waits = append(e.Waits, PlannedWait{Step: StepShift(w.Weight), Reason: reasonBoundedWave, Seconds: wait, From: from})
			e.FloorSeconds += wait
		}
	}
	return e
}
