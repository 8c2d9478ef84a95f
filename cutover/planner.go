package cutover

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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/awserr"
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

const attrDeregistrationDelay = "deregistration_delay.timeout_seconds"

// PlanCutover inspects AWS and the cluster and returns the plan of a
// cutover: the strategy, the guards' outcomes, the binding to create, the
// health-check change, the recorded targets to deregister, the floor, the
// steps and the estimate. It changes nothing: it calls only ELBv2
// Describe* operations (through the read-only diagnose.ELBv2API) and reads
// the cluster. Its reads are retried with [DefaultRetry] on Env.Clock: AWS
// throttling, and the API server's transient failures (throttling,
// timeouts, unavailability, internal errors, a refused or reset
// connection); a Forbidden, NotFound or Invalid read fails at once.
//
// Malformed input gives an *InputError before any call; a guard that
// refuses the target group a *GuardError; a strategy that cannot apply a
// *StrategyError; a binding tgbind cannot build its *tgbind.ValidationError;
// AWS failures unwrap to the tgmigrate sentinels (ErrNotFound...).
func PlanCutover(ctx context.Context, env Env, req Request) (*Plan, error) {
	e, err := env.resolve("plan")
	if err != nil {
		return nil, err
	}
	arn, err := req.validate()
	if err != nil {
		return nil, err
	}
	// Every cluster read of the plan, tgbind's and the snapshot's too,
	// retries the API server's transient failures (kuberead.go).
	kube := newRetryingReader(e.Client, e.clock, DefaultRetry, e.log.WithName("plan"))
	e.Client = kube
	binder, err := e.binder(e.ELBv2, false)
	if err != nil {
		return nil, err
	}
	pl := &planner{e: e, req: req, arn: arn, aws: newAWSReader(e.ELBv2, e.clock, DefaultRetry, e.log.WithName("plan")), binder: binder}
	p, err := pl.plan(ctx)
	if err != nil {
		return nil, err
	}
	e.log.Info("planned", "plan", p.ID, "strategy", p.Strategy, "targetGroup", p.TargetGroup.ARN,
		"recorded", len(p.Recorded), "floor", p.Floor, "steps", len(p.Steps), "clusterRetries", kube.retries.Load())
	return p, nil
}

type planner struct {
	e      *env
	req    Request
	arn    awserr.ARN
	aws    *awsReader
	binder *tgbind.Binder

	p       *Plan
	tg      *elbv2types.TargetGroup
	svc     *corev1.Service
	sp      *corev1.ServicePort
	reports []diagnose.TargetReport
	// podIPs are the addresses of the Service's ready pods (the
	// security-group check's).
	podIPs []string
	// roomScope indexes the headroom whose quota limits Plan.Quota.Room.
	roomScope int
}

func (pl *planner) fail(err error) (*Plan, error) { return nil, fmt.Errorf("cutover: plan: %w", err) }

func (pl *planner) plan(ctx context.Context) (*Plan, error) {
	req := &pl.req
	p := &Plan{SchemaVersion: PlanSchemaVersion, CreatedAt: pl.e.clock.Now().UTC(), Request: pl.req, Reads: slices.Clone(planReads)}
	p.Request.Assumptions = req.Assumptions.WithDefaults()
	pl.p = p
	in := guardInput{arn: pl.arn, clusterName: pl.e.ClusterName, clusterVPCID: pl.e.ClusterVPCID, req: req}

	// The account guard needs no call: a target group of another account
	// is never described with this client.
	g, err := accountGuard(in)
	if err != nil {
		return nil, err
	}
	p.Guards = append(p.Guards, g)

	tg, err := pl.aws.targetGroup(ctx, pl.arn.Raw, false)
	if err != nil {
		return pl.fail(err)
	}
	pl.tg = tg
	tags, err := pl.aws.tags(ctx, pl.arn.Raw, false)
	if err != nil {
		return pl.fail(err)
	}
	in.tags, in.vpcID = tags, aws.ToString(tg.VpcId)
	for _, guard := range []func(guardInput) (GuardCheck, error){ownerGuard, vpcGuard} {
		g, err := guard(in)
		if err != nil {
			return nil, err
		}
		p.Guards = append(p.Guards, g)
	}

	if err := pl.chooseStrategy(); err != nil {
		return nil, err
	}
	attrs, err := pl.aws.attributes(ctx, pl.arn.Raw, false)
	if err != nil {
		return pl.fail(err)
	}
	health, err := pl.aws.health(ctx, pl.arn.Raw, false)
	if err != nil {
		return pl.fail(err)
	}
	p.TargetGroup = targetGroupInfo(pl.arn, tg, tags, attrs, health)

	if err := pl.readService(ctx); err != nil {
		return nil, err
	}
	snap, err := pl.e.snapshot(ctx)
	if err != nil {
		return pl.fail(err)
	}
	pl.reports = classify(snap, tg, health)
	p.Warnings = append(p.Warnings, snap.Notes()...)

	switch p.Strategy {
	case StrategyInPlace:
		err = pl.inPlace(ctx)
	default:
		err = pl.blueGreen(ctx)
	}
	if err != nil {
		return nil, err
	}
	p.ID = planID(p.Strategy, pl.arn.Raw, req.Namespace, req.Service, req.Port)
	if err := p.seal(); err != nil {
		return nil, err
	}
	return p, nil
}

// planID is deterministic from the request: "tgm-" and 12 hex digits.
func planID(s Strategy, arn, namespace, service string, port intstr.IntOrString) string {
	sum := sha256.Sum256([]byte(strings.Join([]string{string(s), arn, namespace, service, port.String()}, "\n")))
	return "tgm-" + hex.EncodeToString(sum[:])[:12]
}

func (pl *planner) chooseStrategy() error {
	p, req := pl.p, &pl.req
	tt := pl.tg.TargetType
	switch {
	case tt == elbv2types.TargetTypeEnumIp && req.Strategy == StrategyAuto:
		p.Strategy, p.StrategyReason = StrategyInPlace, "the target group is of type ip: it is handed to the LBC as it is"
	case tt == elbv2types.TargetTypeEnumIp:
		p.Strategy, p.StrategyReason = req.Strategy, "requested"
	case tt == elbv2types.TargetTypeEnumInstance && req.Strategy == StrategyInPlace:
		return &StrategyError{Strategy: StrategyInPlace, TargetGroupARN: pl.arn.Raw,
			Reason: "the target group is of type instance and a target type cannot change; pod IPs cannot be registered in it: use blue-green"}
	case tt == elbv2types.TargetTypeEnumInstance:
		p.Strategy, p.StrategyReason = StrategyBlueGreen, "the target group is of type instance, which cannot change: a new ip target group takes over through weighted forwarding"
	default:
		s := req.Strategy
		if s == StrategyAuto {
			s = StrategyInPlace
		}
		return &StrategyError{Strategy: s, TargetGroupARN: pl.arn.Raw,
			Reason: fmt.Sprintf("target type %s cannot be bound by the LBC", tt)}
	}
	return nil
}

func targetGroupInfo(arn awserr.ARN, tg *elbv2types.TargetGroup, tags, attrs map[string]string, health []elbv2types.TargetHealthDescription) TargetGroupInfo {
	info := TargetGroupInfo{
		ARN: arn.Raw, Name: aws.ToString(tg.TargetGroupName), AccountID: arn.AccountID, Region: arn.Region,
		TargetType: string(tg.TargetType), Protocol: string(tg.Protocol), ProtocolVersion: aws.ToString(tg.ProtocolVersion),
		Port: aws.ToInt32(tg.Port), VPCID: aws.ToString(tg.VpcId), IPAddressType: string(tg.IpAddressType),
		LoadBalancerARNs: slices.Clone(tg.LoadBalancerArns), HealthCheck: healthCheckOf(tg),
		Tags: tags, Targets: len(health),
	}
	if len(info.Tags) == 0 {
		info.Tags = nil
	}
	if v, err := strconv.Atoi(attrs[attrDeregistrationDelay]); err == nil {
		info.DeregistrationDelaySeconds = int32(v)
	} else {
		info.DeregistrationDelaySeconds = 300
	}
	for _, d := range health {
		if d.TargetHealth != nil && d.TargetHealth.State == elbv2types.TargetHealthStateEnumHealthy {
			info.HealthyTargets++
		}
	}
	return info
}

// classify says what holds each target's address now, with diagnose's
// definitions, in the order of health.
func classify(snap *diagnose.Snapshot, tg *elbv2types.TargetGroup, health []elbv2types.TargetHealthDescription) []diagnose.TargetReport {
	set := diagnose.TargetSet{VPCID: aws.ToString(tg.VpcId), TargetType: string(tg.TargetType)}
	for _, d := range health {
		if d.Target == nil {
			continue
		}
		t := diagnose.Target{ID: aws.ToString(d.Target.Id), Port: aws.ToInt32(d.Target.Port), AvailabilityZone: aws.ToString(d.Target.AvailabilityZone)}
		if t.Port == 0 {
			t.Port = aws.ToInt32(tg.Port)
		}
		if d.TargetHealth != nil {
			t.State, t.Reason = string(d.TargetHealth.State), string(d.TargetHealth.Reason)
		}
		set.Targets = append(set.Targets, t)
	}
	return diagnose.Classify(set, snap)
}

// readService reads the Service and its port, the pods' readiness path.
func (pl *planner) readService(ctx context.Context) error {
	req := &pl.req
	svc, err := service(ctx, pl.e.Client, req.Namespace, req.Service)
	if err != nil {
		_, err = pl.fail(err)
		return err
	}
	if svc == nil {
		return &InputError{Op: "plan", Field: "Service", Reason: fmt.Sprintf("no Service %s/%s", req.Namespace, req.Service), Err: tgbind.ErrServiceNotFound}
	}
	sp, why := servicePort(svc, req.Port)
	if sp == nil {
		return &InputError{Op: "plan", Field: "Port", Reason: fmt.Sprintf("%q: %s", req.Port.String(), why), Err: tgbind.ErrPortNotFound}
	}
	pods, err := servicePods(ctx, pl.e.Client, svc)
	if err != nil {
		_, err = pl.fail(err)
		return err
	}
	path := readinessPath(pods, sp)
	for _, pod := range pods {
		if pod.Status.PodIP != "" && podReady(pod) {
			pl.podIPs = append(pl.podIPs, pod.Status.PodIP)
		}
	}
	slices.Sort(pl.podIPs)
	pc, notes, err := podSettings(ctx, pl.e.Client, svc, sp, pods, pl.p.Request.Assumptions)
	if err != nil {
		_, err = pl.fail(err)
		return err
	}
	if pc != nil {
		pl.p.Preconditions = append(pl.p.Preconditions, *pc)
	}
	pl.p.Warnings = append(pl.p.Warnings, notes...)
	pl.svc, pl.sp = svc, sp
	target := sp.TargetPort.String()
	if target == "0" || target == "" {
		target = strconv.Itoa(int(sp.Port))
	}
	pl.p.Service = ServiceInfo{
		Namespace: svc.Namespace, Name: svc.Name, Port: sp.Port, PortName: sp.Name, TargetPort: target,
		NodePort: sp.NodePort, ReadinessPath: path, ExternalTrafficPolicy: string(svc.Spec.ExternalTrafficPolicy),
	}
	return nil
}

// portRef is the Service port the binding names: the request's, or the
// resolved number when the request left it zero.
func (pl *planner) portRef() intstr.IntOrString {
	p := pl.req.Port
	if (p.Type == intstr.Int && p.IntVal == 0) || (p.Type == intstr.String && p.StrVal == "") {
		return intstr.FromInt32(pl.sp.Port)
	}
	return p
}

// floor applies the request's MinHealthy or the default: the healthy
// targets at plan time capped by the ready endpoints, at least 1.
func (pl *planner) floor(healthy int, what string) error {
	p := pl.p
	ready := p.Service.ReadyEndpoints
	if ready == 0 {
		return &InputError{Op: "plan", Field: "Service", Reason: fmt.Sprintf("%s/%s has no ready endpoint on port %d: the LBC would register nothing", p.Service.Namespace, p.Service.Name, p.Service.Port), Err: tgbind.ErrNoReadyEndpoints}
	}
	if m := pl.req.MinHealthy; m > 0 {
		if m > ready {
			return &InputError{Op: "plan", Field: "MinHealthy", Reason: fmt.Sprintf("%d exceeds the Service's %d ready endpoints: the health gate could never pass", m, ready)}
		}
		p.Floor, p.FloorReason = m, "Request.MinHealthy"
		return nil
	}
	p.Floor = min(healthy, ready)
	p.FloorReason = fmt.Sprintf("%d healthy %s at plan time, capped by %d ready endpoints", healthy, what, ready)
	if p.Floor < 1 {
		p.Floor = 1
		p.FloorReason += "; at least 1"
	}
	return nil
}

// inPlace plans the in-place strategy.
func (pl *planner) inPlace(ctx context.Context) error {
	p, req := pl.p, &pl.req
	// Planning is read-only: tgbind's reads are retried like the planner's
	// own, on throttling and the API server's transient failures.
	var b *tgbind.Binding
	err := pl.aws.retryTransient(ctx, false, func(ctx context.Context) (err error) {
		b, err = pl.binder.Build(ctx, tgbind.Request{
			TargetGroupARN: pl.arn.Raw, Namespace: req.Namespace, Service: req.Service, Port: req.Port,
			Name: req.BindingName, MultiCluster: true,
		})
		return err
	})
	if err != nil {
		_, err = pl.fail(err)
		return err
	}
	p.Service.PodPorts = b.Service.PodPorts
	p.Service.ReadyEndpoints = b.Service.ReadyEndpoints
	groups, err := pl.network(ctx, b.Service.PodPorts)
	if err != nil {
		return err
	}
	if len(groups) > 0 {
		// The load balancer cannot reach the pods: the binding asks the
		// controller to open the port.
		err := pl.aws.retryTransient(ctx, false, func(ctx context.Context) (err error) {
			b, err = pl.binder.Build(ctx, tgbind.Request{
				TargetGroupARN: pl.arn.Raw, Namespace: req.Namespace, Service: req.Service, Port: req.Port,
				Name: req.BindingName, MultiCluster: true, IngressSecurityGroups: groups,
			})
			return err
		})
		if err != nil {
			_, err = pl.fail(err)
			return err
		}
	}
	obj := b.TargetGroupBinding.DeepCopy()
	p.Binding = BindingPlan{
		Namespace: obj.Namespace, Name: obj.Name, TargetGroupARN: pl.arn.Raw,
		MultiCluster: obj.Spec.MultiClusterTargetGroup, Object: obj, Notes: b.Notes, IngressSecurityGroups: groups,
	}

	healthyNodes, podTargets := 0, 0
	for _, r := range pl.reports {
		rt := recorded(r)
		switch r.Class {
		case diagnose.ClassNode, diagnose.ClassGhost:
			p.Recorded = append(p.Recorded, rt)
			if r.Class == diagnose.ClassNode && r.State == string(elbv2types.TargetHealthStateEnumHealthy) && !leaving(r) {
				healthyNodes++
			}
		case diagnose.ClassPod:
			rt.Note = "a pod's address: left to the LBC"
			p.Others = append(p.Others, rt)
			podTargets++
		default:
			p.Others = append(p.Others, rt)
			p.Warnings = append(p.Warnings, fmt.Sprintf("target %s is %s (%s): it is left in the target group", rt, r.Foreign, r.Note))
		}
	}
	sortRecorded(p.Recorded)
	sortRecorded(p.Others)
	if err := pl.floor(healthyNodes, "node targets"); err != nil {
		return err
	}
	if err := pl.healthCheck(); err != nil {
		return err
	}
	podTargets = min(podTargets, p.Service.ReadyEndpoints)
	if err := pl.quota(ctx, pl.arn.Raw, p.TargetGroup.Name, p.TargetGroup.Targets, len(p.Recorded), p.Service.ReadyEndpoints-podTargets, p.TargetGroup.LoadBalancerARNs, 0); err != nil {
		return err
	}
	if err := pl.boundInPlace(healthyNodes, len(p.Others)-podTargets, podTargets); err != nil {
		return err
	}
	pl.inPlaceSteps()
	pl.holdSteps()
	p.Estimate = inPlaceEstimate(p)
	return nil
}

func recorded(r diagnose.TargetReport) RecordedTarget {
	rt := RecordedTarget{TargetAddr: TargetAddr{IP: r.ID, Port: r.Port}, Class: string(r.Class), State: r.State, Reason: r.Reason, Note: r.Note}
	if r.Node != nil {
		rt.Node = r.Node.Name
		if rt.Note == "" {
			rt.Note = "node " + r.Node.Name
			if leaving(r) {
				rt.Note += ": " + leavingWhy(r)
			}
		}
	}
	if r.Pod != nil && rt.Note == "" {
		rt.Note = "pod " + r.Pod.Namespace + "/" + r.Pod.Name
	}
	return rt
}

func sortRecorded(list []RecordedTarget) {
	slices.SortFunc(list, func(a, b RecordedTarget) int {
		if c := strings.Compare(a.IP, b.IP); c != 0 {
			return c
		}
		return int(a.Port - b.Port)
	})
}

// healthCheck plans the in-place health-check alignment: traffic-port and
// the pods' readiness path. Now, when the node targets pass the new check
// too (kube-proxy forwards their NodePort to a pod that answers the path:
// externalTrafficPolicy Cluster); otherwise after their deregistration.
func (pl *planner) healthCheck() error {
	p := pl.p
	orig := p.TargetGroup.HealthCheck
	want := orig.Clone()
	want.Port = "traffic-port"
	if p.Service.ReadinessPath != "" && (orig.Protocol == "HTTP" || orig.Protocol == "HTTPS" || orig.Protocol == "") {
		want.Path = p.Service.ReadinessPath
	}
	p.HealthCheck = HealthCheckPlan{Original: orig, Target: want}
	if want.Port == orig.Port && want.Path == orig.Path {
		p.HealthCheck.Timing, p.HealthCheck.Reason = HealthCheckUnchanged, "already traffic-port and the pods' readiness path"
		return nil
	}
	nodesPass := p.Service.ExternalTrafficPolicy != string(corev1.ServiceExternalTrafficPolicyLocal)
	if nodesPass {
		p.HealthCheck.Timing = HealthCheckBeforeBinding
		p.HealthCheck.Reason = "the node targets pass it too: on traffic-port (their NodePort) kube-proxy forwards to a pod that answers " + orDash(want.Path)
		return nil
	}
	// Node targets would fail the new check (externalTrafficPolicy Local:
	// only nodes with a local endpoint answer). Pods fail the old one when
	// it probes a fixed port that is not theirs: then there is no safe order.
	if orig.Port != "traffic-port" && orig.Port != "" && !slices.Contains(p.Service.PodPorts, atoi32(orig.Port)) {
		return &StrategyError{Strategy: StrategyInPlace, TargetGroupARN: pl.arn.Raw,
			Reason: fmt.Sprintf("the health check probes port %s, which the pods fail, and with externalTrafficPolicy Local the node targets would fail traffic-port: set externalTrafficPolicy Cluster first", orig.Port)}
	}
	p.HealthCheck.Timing = HealthCheckAfterDeregistration
	p.HealthCheck.Reason = "externalTrafficPolicy Local: nodes without a local endpoint would fail the new check, so it changes once the node targets are deregistered"
	return nil
}

func atoi32(s string) int32 {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return int32(n)
}

// inPlaceEstimate is the floor of an in-place plan: the new pod targets
// healthy (or, after an early alignment, its confirmation window when
// longer: the gate waits for both), then the drain.
func inPlaceEstimate(p *Plan) Estimate {
	t := newTiming(p.Request.Assumptions, p.HealthCheck.Target, p.TargetGroup.DeregistrationDelaySeconds)
	e := Estimate{RegistrationSeconds: t.registration(), HealthCheckSeconds: t.checks(), DeregistrationDelaySeconds: t.dereg}
	gate := seconds(t.newTarget())
	e.Waits = append(e.Waits, PlannedWait{Step: StepGate, Reason: reasonNewTargets, Seconds: gate, From: t.newTargetFrom()})
	if p.HealthCheck.Timing == HealthCheckBeforeBinding {
		e.AlignmentSeconds = seconds(t.alignment())
		e.Waits = append(e.Waits, PlannedWait{Step: StepGate, Reason: reasonAlignment, Seconds: e.AlignmentSeconds, From: t.alignmentFrom()})
	}
	q := p.Quota
	if q != nil && q.Bounded && q.Waves[len(q.Waves)-1].Nodes == 0 {
		// The last wave deregisters every node target left and waits for
		// their drain before its pod targets fit: the drain step then has
		// nothing left to wait for.
		e.FloorSeconds = max(gate, e.AlignmentSeconds)
	} else {
		e.Waits = append(e.Waits, PlannedWait{Step: StepDrain, Reason: reasonDrain, Seconds: t.dereg, From: t.drainFrom()})
		e.FloorSeconds = max(gate, e.AlignmentSeconds) + e.DeregistrationDelaySeconds
	}
	if q != nil && q.Bounded {
		// Each wave after the first waits for the room its
		// deregistrations make to drain, then for its pod targets' checks;
		// the first too when the room without them is short.
		if q.DrainFirst {
			e.Waits = append(e.Waits, PlannedWait{Step: StepMakeRoom, Reason: reasonDrain, Seconds: t.dereg, From: t.drainFrom()})
			e.FloorSeconds += t.dereg
		}
		for range len(q.Waves) - 1 {
			e.Waits = append(e.Waits, PlannedWait{Step: StepGate, Reason: reasonBoundedWave, Seconds: t.dereg + gate, From: t.drainFrom() + "; " + t.newTargetFrom()})
			e.FloorSeconds += t.dereg + gate
		}
	}
	return e
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

const (
	callDescribe   = "elasticloadbalancing:Describe*"
	callApplyTGB   = "kubernetes:apply targetgroupbindings"
	callDeleteTGB  = "kubernetes:delete targetgroupbindings"
	callListKube   = "kubernetes:list services,endpointslices,pods,nodes"
	callModifyTG   = "elasticloadbalancing:ModifyTargetGroup"
	callDereg      = "elasticloadbalancing:DeregisterTargets"
	callReg        = "elasticloadbalancing:RegisterTargets"
	callCreateTG   = "elasticloadbalancing:CreateTargetGroup"
	callAddTags    = "elasticloadbalancing:AddTags"
	callModifyAttr = "elasticloadbalancing:ModifyTargetGroupAttributes"
	callDeleteTG   = "elasticloadbalancing:DeleteTargetGroup"
	callListener   = "elasticloadbalancing:ModifyListener"
	callRule       = "elasticloadbalancing:ModifyRule"
	callNodes      = "kubernetes:get,patch nodes"
)

// planReads are the Kubernetes verbs PlanCutover uses (Plan.Reads):
// diagnose's snapshot, tgbind's preflight (its server-side dry run
// included), the Service's pods and their settings' namespace and
// PodDisruptionBudgets.
var planReads = []string{
	"kubernetes:list nodes,pods,services,namespaces,targetgroupbindings,nodeclaims.karpenter.sh",
	"kubernetes:get services,namespaces",
	"kubernetes:list endpointslices,validatingwebhookconfigurations",
	"kubernetes:list poddisruptionbudgets.policy",
	"kubernetes:create targetgroupbindings (dry run)",
}

func (pl *planner) inPlaceSteps() {
	p := pl.p
	floor := fmt.Sprintf("at least %d healthy targets (the floor)", p.Floor)
	tgName := p.TargetGroup.Name
	align := Step{
		ID: StepAlignHealthCheck, Title: "align the health check with the pods",
		Preconditions: []string{"the target group still exists, of type ip"},
		Effect:        fmt.Sprintf("ModifyTargetGroup %s: health check %s", tgName, hcString(p.HealthCheck.Target)),
		Rollback:      "ModifyTargetGroup back to " + hcString(p.HealthCheck.Original),
		Calls:         []string{callDescribe, callModifyTG}, Mutates: true,
	}
	bind := Step{
		ID: StepBind, Phase: "adopt", Title: fmt.Sprintf("bind %s to the Service %s/%s", tgName, p.Service.Namespace, p.Service.Name),
		Preconditions: []string{"tgbind's preflight passes (every check, server-side dry run included)"},
		Effect:        fmt.Sprintf("server-side apply TargetGroupBinding %s/%s with multiClusterTargetGroup true: the LBC registers the pod endpoints beside the node targets and deregisters only what it registered", p.Binding.Namespace, p.Binding.Name),
		Rollback:      "delete the binding once node targets are registered and healthy again: the LBC deregisters only its pod targets",
		Calls:         []string{callApplyTGB, callDescribe}, Mutates: true,
	}
	gate := Step{
		ID: StepGate, Phase: "adopt", Title: "wait until the pod targets are healthy",
		Preconditions: []string{"the binding exists"},
		Effect:        fmt.Sprintf("none, unless Karpenter removes a recorded node meanwhile: its target is deregistered early (with Port) so that no request reaches it; done when every ready endpoint present at the start is registered and healthy, none is unhealthy, and at least %d pod targets are healthy", p.Floor),
		Rollback:      "nothing to undo",
		Calls:         []string{callDescribe, callListKube, callDereg}, Mutates: true,
	}
	dereg := Step{
		ID: StepDeregister, Phase: "remove", Title: fmt.Sprintf("deregister the %d recorded node targets and ghosts", len(p.Recorded)),
		Preconditions: []string{
			"before each batch, re-read: the healthy targets left after it are " + floor,
			"every target of the batch is a recorded one, is not a ready pod endpoint now, and is not in the LBC's ConfigMap " + lbcTrackedPrefix + p.Binding.Name,
		},
		Effect:   "DeregisterTargets in batches of at most 200, every target with its Port; recorded targets already gone are skipped; targets added since the plan are reported, not removed",
		Rollback: "register the nodes alive at rollback time on their NodePort, and wait until they are healthy",
		Calls:    []string{callDescribe, callListKube, callDereg}, Mutates: true,
	}
	drain := Step{
		ID: StepDrain, Phase: "remove", Title: "wait out the deregistration delay",
		Effect:   fmt.Sprintf("none: wait until no recorded target is left, draining included (deregistration delay %ds)", p.TargetGroup.DeregistrationDelaySeconds),
		Rollback: "nothing to undo",
		Calls:    []string{callDescribe},
	}
	verify := Step{
		ID: StepVerify, Phase: "verify", Title: "verify the target group holds only pod endpoints",
		Effect:   fmt.Sprintf("none: checks that no recorded target is left, every ready endpoint is registered and healthy (a pod Ready for less than a health-check window may still be in its first checks), no pod target is unhealthy, at least %d are healthy, and no target is other than a pod's (or tracked by the LBC): such targets stop it unless allowed", p.Floor),
		Rollback: "nothing to undo",
		Calls:    []string{callDescribe, callListKube},
	}
	adopt := []Step{bind, gate}
	if q := p.Quota; q != nil && q.Bounded {
		w := q.Waves[0]
		room := Step{
			ID: StepMakeRoom, Phase: "adopt", Title: "make room for the pod targets under the quota",
			Preconditions: []string{"before each batch, re-read: the healthy targets left after it are " + floor,
				"every target of the batch is a recorded one, is not a ready pod endpoint now, and is not in the LBC's ConfigMap"},
			Effect: fmt.Sprintf("DeregisterTargets (with Port): the recorded targets that do not serve first, then healthy node targets down to the floor, until the target group has room for the pod targets under its quota of %d (planned: %d deregistered, %d node targets kept, room for %d pod targets); then wait until the room is free (draining targets count)",
				q.Room, w.Deregister, w.Nodes, w.Register),
			Rollback: "register the nodes alive at rollback time on their NodePort, and wait until they are healthy",
			Calls:    []string{callDescribe, callListKube, callDereg}, Mutates: true,
		}
		gate.Effect += fmt.Sprintf("; the overlap is bounded (%d waves planned): the controller's TooManyTargets refusals are expected while the room is full; as pod targets turn healthy, node targets are deregistered down to the floor to make more room, and the binding is touched so that the controller registers into it at once", len(q.Waves))
		gate.Calls = append(gate.Calls, callApplyTGB) // the touch of the binding
		adopt = []Step{room, bind, gate}
	}
	switch p.HealthCheck.Timing {
	case HealthCheckBeforeBinding:
		align.Phase = "prepare"
		gate.Effect += "; and the node targets healthy before the early alignment must stay healthy under it for UnhealthyThresholdCount intervals of the new check (a healthy target turns unhealthy only after that many failed checks, the first within one interval), else it stops and the rollback restores the health check first"
		adopt[len(adopt)-1] = gate
		p.Steps = append(append([]Step{align}, adopt...), dereg, drain, verify)
	case HealthCheckAfterDeregistration:
		align.Phase = "remove"
		align.Preconditions = append(align.Preconditions, "no recorded node target is left registered (they would fail the new check)")
		p.Steps = append(adopt, dereg, align, drain, verify)
	default:
		p.Steps = append(adopt, dereg, drain, verify)
	}
}

// holdSteps puts the hold of Karpenter's graceful disruption around the
// strategy's steps, or warns when the request skips it.
func (pl *planner) holdSteps() {
	p := pl.p
	if p.Request.NoDisruptionHold {
		p.Warnings = append(p.Warnings, "Karpenter's graceful disruption is not held during the cutover (Request.NoDisruptionHold): it may replace the nodes of the target group's node targets while they still serve; their targets are deregistered early when Karpenter marks the node, but a node that goes before its target drains fails the requests in flight")
		return
	}
	which := "a target of " + p.TargetGroup.Name
	if p.Strategy == StrategyBlueGreen {
		which = "a target of " + p.TargetGroup.Name + " or of " + p.BlueGreen.NewTargetGroup.Name
	}
	hold := Step{
		ID: StepHoldDisruption, Phase: "prepare", Title: "hold Karpenter's graceful disruption of the nodes that serve",
		Effect: fmt.Sprintf("annotate %s: \"true\" (and %s: the plan's ID) every node that holds %s or a pod of %s/%s, journaling whether it carried the annotation and its value; until the release, every observation holds the nodes that join too. Graceful disruption (consolidation, drift) of those nodes does not start; one already started goes on; forceful disruption (spot interruption, expiry, repair, deletion) cannot be held",
			AnnotationDoNotDisrupt, AnnotationDisruptionHold, which, p.Service.Namespace, p.Service.Name),
		Rollback: "the rollback holds disruption during its own run, then removes what the hold added",
		Calls:    []string{callDescribe, callListKube, callNodes}, Mutates: true,
	}
	release := Step{
		ID: StepReleaseDisruption, Phase: "verify", Title: "release the hold of Karpenter's graceful disruption",
		Preconditions: []string{"every earlier step is done"},
		Effect:        fmt.Sprintf("remove what the hold added: %s where the hold set it and nobody changed it since (an annotation the hold found, or one changed since, stays)", AnnotationDoNotDisrupt),
		Rollback:      "nothing to undo",
		Calls:         []string{callNodes}, Mutates: true,
	}
	p.Steps = append(append([]Step{hold}, p.Steps...), release)
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

// blueGreen plans the blue/green strategy.
func (pl *planner) blueGreen(ctx context.Context) error {
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
		name = newTargetGroupName(old.Name, old.ARN)
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
		if !isOurs(tags, old.ARN) {
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
			Tags: map[string]string{TagCreatedBy: ManagedBy, TagSourceTargetGroup: old.ARN,
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
	pl.blueGreenSteps()
	pl.holdSteps()
	p.Estimate = blueGreenEstimate(p)
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
				return &StrategyError{Strategy: StrategyBlueGreen, TargetGroupARN: old,
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
		return nil, &StrategyError{Strategy: StrategyBlueGreen, TargetGroupARN: old,
			Reason: "no listener or rule forwards to it: there is no traffic to shift"}
	}
	return out, nil
}

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

func (pl *planner) blueGreenSteps() {
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
			if p.Steps[i].ID == StepGate || strings.HasPrefix(p.Steps[i].ID, "shift-") {
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
