package cutover

// bluegreen_run.go holds the blue/green strategy's execution: its steps
// dispatched (run), the new target group's creation, its binding, the weight
// shifts with their holds, the early cut of a dry old target group, the
// detach and the verification.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/read"
	"github.com/qstools/tgmigrate/internal/retry"
	"github.com/qstools/tgmigrate/tgbind"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// gateDue adds nothing: the old target group's health check never
// changes.
func (blueGreen) gateDue(_ *runner, due time.Time) time.Time { return due }

// gateShare: a bounded blue/green overlap needs, before its first shift,
// only the new target group's share of the floor: the rest of the pod
// targets find room as the old target group gives its share up.
func (blueGreen) gateShare(r *runner) int {
	ws := r.plan.BlueGreen.WeightSteps
	share, _ := r.shareFloors(ws[min(1, len(ws)-1)])
	return share
}

// gateRoom deregisters targets of the old target group to make room in
// the two target groups together.
func (blueGreen) gateRoom(ctx context.Context, r *runner, room *roomWatch, tgb *v1beta1.TargetGroupBinding, v *view) (bool, error) {
	old, s, err := r.bgRoom(ctx, v, room.room)
	if err != nil {
		return false, err
	}
	return room.stepWith(ctx, r, StepGate, tgb, v, old, s, r.st.Restore.Floor)
}

// gateStalled leaves it to the controller's patience: room is made in
// the old target group.
func (blueGreen) gateStalled(context.Context, *runner, *roomWatch, *v1beta1.TargetGroupBinding, *view) error {
	return nil
}

// gateObserved protects the old target group (see protectOld).
func (blueGreen) gateObserved(ctx context.Context, r *runner, v *view, healthy int) (time.Time, error) {
	return time.Time{}, r.protectOld(ctx, StepGate, v.snap, healthy)
}

// bgLook observes the two target groups for the make-room step.
func (r *runner) bgLook(ctx context.Context, room int) (*view, roomState, error) {
	return r.bgRoom(ctx, nil, room)
}

// run executes one of the blue/green steps.
func (blueGreen) run(ctx context.Context, r *runner, step Step) error {
	switch step.ID {
	case StepCreateTargetGroup:
		return r.createTargetGroup(ctx)
	case StepMakeRoom:
		return r.makeRoom(ctx, r.bgLook)
	case StepBind:
		return r.bindBlueGreen(ctx)
	case StepGate:
		return r.gate(ctx, blueGreen{})
	case StepDetach:
		return r.detach(ctx)
	case StepVerify:
		return r.verifyBlueGreen(ctx)
	}
	if isShift(step) {
		return r.shift(ctx, step)
	}
	return unknownStep(step)
}

// createTargetGroup creates the new ip target group, tagged as
// tgmigrate's, and copies the old one's attributes. A target group of that
// name that tgmigrate created for the same old one is reused; any other is
// refused.
func (r *runner) createTargetGroup(ctx context.Context) error {
	spec := r.plan.BlueGreen.NewTargetGroup
	if r.st.CreatedTargetGroupARN.IsZero() {
		existing, err := r.aws.targetGroupByName(ctx, spec.Name)
		if err != nil {
			return err
		}
		var tg *elbv2types.TargetGroup
		if existing != nil {
			arn := aws.ToString(existing.TargetGroupArn)
			tags, err := r.aws.tags(ctx, arn, true)
			if err != nil {
				return err
			}
			if !isOurs(tags, r.plan.TargetGroup.ARN.Raw) {
				return &NotManagedError{Object: "target group " + arn,
					Reason: fmt.Sprintf("its tags do not say tgmigrate created it for %s (%s=%q)", r.plan.TargetGroup.Name, TagCreatedBy, tags[TagCreatedBy])}
			}
			if existing.TargetType != elbv2types.TargetTypeEnumIp {
				return &NotManagedError{Object: "target group " + arn, Reason: "it is of type " + string(existing.TargetType) + ", not ip"}
			}
			tg = existing
		} else {
			if tg, err = r.aws.createTargetGroup(ctx, createInput(spec)); err != nil {
				return err
			}
			r.e.log.Info("target group created", "created", aws.ToString(tg.TargetGroupArn))
		}
		created, err := read.ARNOf(tg)
		if err != nil {
			return fmt.Errorf("cutover: %s: the target group AWS answered: %w", StepCreateTargetGroup, err)
		}
		r.st.CreatedTargetGroupARN = created
		if err := r.save(ctx); err != nil {
			return err
		}
	}
	arn := r.st.CreatedTargetGroupARN.Raw
	cur, err := r.aws.attributes(ctx, arn, true)
	if err != nil {
		return err
	}
	diff := map[string]string{}
	for k, v := range spec.Attributes {
		if cur[k] != v {
			diff[k] = v
		}
	}
	if len(diff) == 0 {
		return nil
	}
	return r.aws.modifyAttributes(ctx, arn, diff, true)
}

// createInput is the CreateTargetGroup request of spec.
func createInput(spec NewTargetGroupSpec) *elbv2.CreateTargetGroupInput {
	hc := spec.HealthCheck
	in := &elbv2.CreateTargetGroupInput{
		Name: aws.String(spec.Name), TargetType: elbv2types.TargetTypeEnumIp,
		Protocol: elbv2types.ProtocolEnum(spec.Protocol), Port: aws.Int32(spec.Port), VpcId: aws.String(spec.VPCID),
		HealthCheckEnabled: hc.Enabled, HealthCheckIntervalSeconds: hc.IntervalSeconds, HealthCheckTimeoutSeconds: hc.TimeoutSeconds,
		HealthyThresholdCount: hc.HealthyThresholdCount, UnhealthyThresholdCount: hc.UnhealthyThresholdCount,
	}
	if spec.ProtocolVersion != "" {
		in.ProtocolVersion = aws.String(spec.ProtocolVersion)
	}
	if spec.IPAddressType != "" {
		in.IpAddressType = elbv2types.TargetGroupIpAddressTypeEnum(spec.IPAddressType)
	}
	in.HealthCheckProtocol, in.HealthCheckPort, in.HealthCheckPath, in.Matcher = hc.RequestFields()
	for _, k := range slices.Sorted(maps.Keys(spec.Tags)) {
		in.Tags = append(in.Tags, elbv2types.Tag{Key: aws.String(k), Value: aws.String(spec.Tags[k])})
	}
	return in
}

// bindBlueGreen builds the binding for the new target group through tgbind
// (which could not build it before the target group existed) and applies
// it. The new target group's ARN is AWS's answer, parsed once when the
// create step recorded it in the journal.
func (r *runner) bindBlueGreen(ctx context.Context) error {
	p := r.plan
	created := r.st.CreatedTargetGroupARN
	if err := created.ValidTargetGroup(); err != nil {
		return fmt.Errorf("cutover: %s: the created target group: %w", StepBind, err)
	}
	var b *tgbind.Binding
	err := retry.Do(ctx, r.e.clock, r.aws.policy, func(ctx context.Context) (err error) {
		b, err = r.binder.Build(ctx, tgbind.Request{
			TargetGroupARN: created, Namespace: p.Request.Namespace, Service: p.Request.Service,
			Port: p.Request.Port, Name: p.Binding.Name, MultiCluster: true, IngressSecurityGroups: p.Binding.IngressSecurityGroups,
		})
		return err
	}, retry.WithRetryable(func(err error) bool {
		// A target group created an instant before may not be visible yet.
		return transient(err) || errors.Is(err, tgbind.ErrTargetGroupNotFound)
	}))
	var gaveUp *retry.GaveUpError
	if errors.As(err, &gaveUp) && gaveUp.Last != nil {
		err = gaveUp.Last
	}
	if err != nil {
		return err
	}
	return r.apply(ctx, b.TargetGroupBinding)
}

// routeActions reads a route's current actions: a listener's default
// actions, or a rule's.
func (r *runner) routeActions(ctx context.Context, resource string) ([]elbv2types.Action, error) {
	if isRuleARN(resource) {
		rule, err := r.aws.rule(ctx, resource)
		if err != nil {
			return nil, err
		}
		return rule.Actions, nil
	}
	l, err := r.aws.listener(ctx, resource)
	if err != nil {
		return nil, err
	}
	return l.DefaultActions, nil
}

func isRuleARN(arn string) bool { return strings.Contains(arn, ":listener-rule/") }

// setRoute sets the forward action of a route to want. The action must
// forward only to target groups in allowed (the old and the new one), and
// check, when set, may refuse its current weights; either failure is an
// *InvariantError and nothing is changed. It makes no call when the
// weights are already want.
func (r *runner) setRoute(ctx context.Context, step, resource string, want []TargetGroupWeight, allowed []string, check func([]TargetGroupWeight) error) error {
	actions, err := r.routeActions(ctx, resource)
	if err != nil {
		return err
	}
	idx := -1
	var cur []TargetGroupWeight
	for i, a := range actions {
		if a.Type != elbv2types.ActionTypeEnumForward {
			continue
		}
		tgs := forwardTargets(a)
		if slices.ContainsFunc(tgs, func(w TargetGroupWeight) bool { return slices.Contains(allowed, w.TargetGroupARN) }) {
			idx, cur = i, tgs
			break
		}
	}
	if idx < 0 {
		return &InvariantError{Step: step, Check: "route", Detail: fmt.Sprintf("%s no longer forwards to the old or the new target group", resource)}
	}
	for _, w := range cur {
		if !slices.Contains(allowed, w.TargetGroupARN) {
			return &InvariantError{Step: step, Check: "route", Detail: fmt.Sprintf("%s forwards to %s too, which the plan does not know: someone changed it", resource, w.TargetGroupARN)}
		}
	}
	if check != nil {
		if err := check(cur); err != nil {
			return err
		}
	}
	if sameWeights(cur, want) {
		return nil
	}
	next := slices.Clone(actions)
	fc := &elbv2types.ForwardActionConfig{}
	if old := actions[idx].ForwardConfig; old != nil {
		fc.TargetGroupStickinessConfig = old.TargetGroupStickinessConfig
	}
	for _, w := range want {
		fc.TargetGroups = append(fc.TargetGroups, elbv2types.TargetGroupTuple{TargetGroupArn: aws.String(w.TargetGroupARN), Weight: aws.Int32(w.Weight)})
	}
	next[idx] = elbv2types.Action{Type: elbv2types.ActionTypeEnumForward, Order: actions[idx].Order, ForwardConfig: fc}
	if isRuleARN(resource) {
		err = r.aws.modifyRule(ctx, resource, next)
	} else {
		err = r.aws.modifyListener(ctx, resource, next)
	}
	if err != nil {
		return err
	}
	r.st.Weights = append(r.st.Weights, WeightRecord{Resource: resource, Weights: slices.Clone(want), AppliedAt: r.e.clock.Now()})
	r.e.log.Info("weights set", "step", step, "route", resource, "weights", weightsString(want))
	return r.save(ctx)
}

func sameWeights(a, b []TargetGroupWeight) bool { return slices.Equal(a, b) }

// errAhead stops setRoute on a route already past the wanted weight.
var errAhead = errors.New("route already ahead")

// newShare is the new target group's share of a forward action, in
// percent.
func newShare(ws []TargetGroupWeight, nw string) int32 {
	var total, share int32
	for _, w := range ws {
		total += w.Weight
		if w.TargetGroupARN == nw {
			share = w.Weight
		}
	}
	if total == 0 {
		return 0
	}
	return share * 100 / total
}

func weightsString(ws []TargetGroupWeight) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		name := w.TargetGroupARN
		if i := strings.Index(name, "targetgroup/"); i >= 0 {
			name = strings.SplitN(name[i+len("targetgroup/"):], "/", 2)[0]
		}
		parts[i] = fmt.Sprintf("%s=%d", name, w.Weight)
	}
	return strings.Join(parts, " ")
}

// shift gives the new target group step.Weight percent of every route.
// Above 0 the new target group's health is checked first; after the
// change the weight is held for the plan's hold, then health is checked
// again and the analysis hook judges it.
func (r *runner) shift(ctx context.Context, step Step) error {
	p := r.plan
	old, nw := p.TargetGroup.ARN, r.st.CreatedTargetGroupARN.Raw
	if nw == "" {
		return &InvariantError{Step: step.ID, Check: "route", Detail: "the new target group is not in the journal"}
	}
	prev := int32(0)
	for _, w := range p.BlueGreen.WeightSteps {
		if w < step.Weight {
			prev = w
		}
	}
	if step.Weight > 0 {
		if err := r.newHealthy(ctx, step.ID, step.Weight, prev); err != nil {
			return err
		}
	}
	want := []TargetGroupWeight{{TargetGroupARN: old.Raw, Weight: 100 - step.Weight}, {TargetGroupARN: nw, Weight: step.Weight}}
	for _, rt := range p.BlueGreen.Routes {
		// Shifting only ever moves traffic to the new target group: a route
		// already further along (the old one ran dry) stays as it is.
		ahead := func(cur []TargetGroupWeight) error {
			if newShare(cur, nw) > step.Weight {
				return errAhead
			}
			return nil
		}
		err := r.setRoute(ctx, step.ID, rt.resource(), want, []string{old.Raw, nw}, ahead)
		if err != nil && !errors.Is(err, errAhead) {
			return err
		}
	}
	if step.Weight == 0 {
		return nil
	}
	if err := r.hold(ctx, step.ID, time.Duration(p.BlueGreen.StepHoldSeconds)*time.Second); err != nil {
		return err
	}
	if err := r.newHealthy(ctx, step.ID, step.Weight, step.Weight); err != nil {
		return err
	}
	if r.o.analysis != nil {
		if err := r.o.analysis(ctx, step); err != nil {
			return &InvariantError{Step: step.ID, Check: "analysis", Detail: fmt.Sprintf("the analysis rejected weight %d%%", step.Weight), Err: err}
		}
	}
	return nil
}

// newHealthy waits, for at most the floor grace, until the new target
// group has at least the floor healthy pod targets and none unhealthy;
// past it, an *InvariantError. w is the weight the step gives the new
// target group, at the weight in effect now: a bounded overlap
// (Plan.Quota) needs only w% of the floor, makes room in the old target
// group down to its (100-at)% share, and waits for a wave's drain too.
func (r *runner) newHealthy(ctx context.Context, step string, w, at int32) error {
	tgb, err := r.binding(ctx)
	if err != nil {
		return err
	}
	if tgb == nil {
		return &InvariantError{Step: step, Check: "binding", Detail: "the binding does not exist"}
	}
	floor := r.st.Restore.Floor
	var last *view
	grace, _ := r.floorGrace()
	timeout := max(grace, r.o.poll)
	var room *roomWatch
	oldFloor := 0
	if n, ok := r.bounded(); ok {
		room = &roomWatch{room: n}
		_, oldFloor = r.shareFloors(at)
		floor, _ = r.shareFloors(w)
		t := r.timing()
		timeout += t.drain() + t.newTarget()
	}
	err = r.poll(ctx, step, "healthy pod targets in the new target group", timeout, func(ctx context.Context) (bool, string, error) {
		v, err := r.observe(ctx, tgb.Spec.TargetGroupARN, tgb, "ip", r.plan.TargetGroup.VPCID)
		if err != nil {
			return false, "", err
		}
		if room != nil {
			old, s, err := r.bgRoom(ctx, v, room.room)
			if err != nil {
				return false, "", err
			}
			if _, err := room.stepWith(ctx, r, step, tgb, v, old, s, oldFloor); err != nil {
				return false, "", err
			}
		}
		healthy, err := r.keepOld(ctx, step, v)
		if err != nil {
			return false, "", err
		}
		last = v
		unhealthy := false
		for _, vt := range v.targets {
			unhealthy = unhealthy || vt.state == stateUnhealthy
		}
		r.progress(step, tgb.Spec.TargetGroupARN, v, healthy, len(v.endpoints))
		return healthy >= floor && !unhealthy, v.summary(), nil
	})
	if IsTimeout(err) {
		summary := "no observation"
		if last != nil {
			summary = last.summary()
		}
		return &InvariantError{Step: step, Check: "floor", Floor: floor,
			Detail: fmt.Sprintf("the new target group does not hold %d healthy pod targets and none unhealthy: %s", floor, summary)}
	}
	return err
}

// hold keeps the current weights for d, observing the new target group
// every poll interval.
func (r *runner) hold(ctx context.Context, step string, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	tgb, err := r.binding(ctx)
	if err != nil {
		return err
	}
	start := r.e.clock.Now()
	from := fmt.Sprintf("Request.StepHoldSeconds %d", r.plan.BlueGreen.StepHoldSeconds)
	for _, w := range r.plan.Estimate.Waits {
		if w.Step == step {
			from = w.From
		}
	}
	r.waiting(Wait{Step: step, What: "the weight's hold", Reason: reasonHold, From: from, Until: start.Add(d)})
	// The hold ends at its due time, not at the next poll after it.
	return r.pollDue(ctx, step, "the end of the hold", d+2*r.o.poll, start.Add(d), func(ctx context.Context) (bool, string, error) {
		if tgb != nil {
			v, err := r.observe(ctx, tgb.Spec.TargetGroupARN, tgb, "ip", r.plan.TargetGroup.VPCID)
			if err != nil {
				return false, "", err
			}
			healthy, err := r.keepOld(ctx, step, v)
			if err != nil {
				return false, "", err
			}
			r.progress(step, tgb.Spec.TargetGroupARN, v, healthy, len(v.endpoints))
		}
		return r.e.clock.Since(start) >= d, "", nil
	})
}

// keepOld keeps the hold over the nodes of v, an observation of the new
// target group, and protects the old target group (protectOld); it
// returns the healthy ready endpoints of v.
func (r *runner) keepOld(ctx context.Context, step string, v *view) (int, error) {
	if err := r.keepHold(ctx, step, v); err != nil {
		return 0, err
	}
	healthy, _ := endpointHealth(v, nil)
	return healthy, r.protectOld(ctx, step, v.snap, healthy)
}

// protectOld guards the old target group while it still takes traffic
// (blue/green leaves it alone otherwise). It retires the recorded targets
// whose node Karpenter is removing (see retireLeaving): an instance target
// would turn unused when its instance goes, an ip target would become a
// ghost and fail requests until its health checks fail. And when the old
// target group has no healthy target left that will keep serving (nothing
// registers the nodes that replace its own), while the new one has healthy
// pod targets (newHealthy), every route forwards to the new one at once,
// ahead of the weight steps: an early cut beats an outage. snap is the
// snapshot of the observation that calls it.
func (r *runner) protectOld(ctx context.Context, step string, snap *diagnose.Snapshot, newHealthy int) error {
	if rec := r.st.Step(StepDetach); rec != nil && rec.Status == StepDone {
		return nil // detached: it takes no traffic
	}
	old, err := r.observeWith(ctx, r.tgARN, nil, r.plan.TargetGroup.TargetType, r.plan.TargetGroup.VPCID, snap)
	if err != nil {
		return err
	}
	if err := r.keepHold(ctx, step, old); err != nil {
		return err
	}
	if err := r.retireLeaving(ctx, old, step); err != nil {
		return err
	}
	if old.servingHealthy > 0 || newHealthy == 0 || r.st.CreatedTargetGroupARN.Raw == "" {
		return nil
	}
	if rec := r.st.Step(StepShift(0)); rec == nil || rec.Status != StepDone {
		return nil // the new target group is not attached yet
	}
	want := []TargetGroupWeight{{TargetGroupARN: r.tgARN, Weight: 0}, {TargetGroupARN: r.st.CreatedTargetGroupARN.Raw, Weight: 100}}
	for _, rt := range r.plan.BlueGreen.Routes {
		before := len(r.st.Weights)
		if err := r.setRoute(ctx, step, rt.resource(), want, []string{r.tgARN, r.st.CreatedTargetGroupARN.Raw}, nil); err != nil {
			return err
		}
		if len(r.st.Weights) > before {
			msg := fmt.Sprintf("the old target group had no healthy target left that keeps serving (Karpenter replaced its nodes): %s forwards to the new one alone, ahead of the weight steps", rt.resource())
			r.res.Warnings = append(r.res.Warnings, msg)
			r.st.Notes = append(r.st.Notes, msg)
			if err := r.save(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// detach makes every route forward to the new target group alone; each
// must give the old one weight 0 already.
func (r *runner) detach(ctx context.Context) error {
	p := r.plan
	old, nw := p.TargetGroup.ARN, r.st.CreatedTargetGroupARN.Raw
	want := []TargetGroupWeight{{TargetGroupARN: nw, Weight: 100}}
	for _, rt := range p.BlueGreen.Routes {
		err := r.setRoute(ctx, StepDetach, rt.resource(), want, []string{old.Raw, nw}, func(cur []TargetGroupWeight) error {
			for _, w := range cur {
				if w.TargetGroupARN == old.Raw && w.Weight != 0 {
					return &InvariantError{Step: StepDetach, Check: "route", Detail: fmt.Sprintf("%s still gives the old target group weight %d", rt.resource(), w.Weight)}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// verifyBlueGreen checks that every route forwards to the new target group
// alone and that it holds the Service's pod endpoints only, healthy, and at
// least the floor of them (see verifyPods).
func (r *runner) verifyBlueGreen(ctx context.Context) error {
	p := r.plan
	nw := r.st.CreatedTargetGroupARN.Raw
	for _, rt := range p.BlueGreen.Routes {
		actions, err := r.routeActions(ctx, rt.resource())
		if err != nil {
			return err
		}
		ok := false
		for _, a := range actions {
			if a.Type == elbv2types.ActionTypeEnumForward {
				tgs := forwardTargets(a)
				ok = ok || (len(tgs) == 1 && tgs[0].TargetGroupARN == nw)
			}
		}
		if !ok {
			return &InvariantError{Step: StepVerify, Check: "route", Detail: fmt.Sprintf("%s does not forward to %s alone", rt.resource(), nw)}
		}
	}
	tgb, err := r.binding(ctx)
	if err != nil {
		return err
	}
	var also func(*view) (bool, string)
	if n, ok := r.bounded(); ok {
		// Detached, the old target group no longer counts: the controller
		// registers the rest, touched if it waits out its backoff.
		room := &roomWatch{room: n}
		also = func(v *view) (bool, string) {
			if _, err := room.step(ctx, r, StepVerify, tgb, v); err != nil {
				r.e.log.Info("could not touch the binding", "error", err.Error())
			}
			return true, "bounded overlap"
		}
	}
	return r.verifyPods(ctx, nw, tgb, also)
}
