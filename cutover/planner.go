package cutover

// planner.go holds PlanCutover and the planner: the reads every plan makes
// (the target group, its tags, attributes and health, the Service and its
// pods, the cluster's snapshot), the guards, the strategy's plan called
// through strategyOf, the floor, the hold of Karpenter's disruption around
// the steps, and the calls the steps name.

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

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/tgbind"
)

const attrDeregistrationDelay = "deregistration_delay.timeout_seconds"

// PlanCutover inspects AWS and the cluster and returns the plan of a
// cutover: the strategy, the guards' outcomes, the binding to create, the
// health-check change, the recorded targets to deregister, the floor, the
// steps and the estimate. It changes nothing: it calls only ELBv2
// Describe* operations (through the read-only diagnose.ELBv2API) and reads
// the cluster. env is an [Env] or a [ReadEnv] ([PlanEnv]): either way it
// plans through the ReadEnv's read-only interfaces, the same plan. Its
// reads are retried with [DefaultRetry] on the env's Clock: AWS
// throttling, and the API server's transient failures (throttling,
// timeouts, unavailability, internal errors, a refused or reset
// connection); a Forbidden, NotFound or Invalid read fails at once.
//
// A request made from diagnose's handoff ([RequestFrom], Request.From)
// is planned as the same request written by hand, after one more check:
// the live target group's type and VPC must be what diagnose saw, else an
// *InputError naming the field ([ErrStaleHandoff]) before any other read;
// changed target counts are a warning. PlanCutover still reads
// everything live, handoff or not: a plan made on what diagnose saw would
// be unsafe.
//
// Malformed input gives an *InputError before any call (a nil env one on
// "env"; a field of an Env one on "Env.ELBv2"..., of a ReadEnv on
// "ReadEnv.ELBv2"...); a guard that refuses the target group a
// *GuardError; a strategy that cannot apply a *StrategyError; a binding
// tgbind cannot build its *tgbind.ValidationError; AWS failures unwrap to
// the tgmigrate sentinels (ErrNotFound...).
func PlanCutover(ctx context.Context, env PlanEnv, req Request) (*Plan, error) {
	e, elb, err := resolvePlanEnv(env)
	if err != nil {
		return nil, err
	}
	arn, err := req.validate()
	if err != nil {
		return nil, err
	}
	if err := req.checkFromInput(); err != nil {
		return nil, err
	}
	// Every cluster read of the plan, tgbind's and the snapshot's too,
	// retries the API server's transient failures (kuberead.go).
	kube := newRetryingReader(e.reader, e.clock, DefaultRetry, e.log.WithName("plan"))
	e.reader = kube
	binder, err := e.binder(elb, false)
	if err != nil {
		return nil, err
	}
	pl := &planner{e: e, req: req, arn: arn, aws: newAWSReader(elb, e.clock, DefaultRetry, e.log.WithName("plan")), binder: binder}
	p, err := pl.plan(ctx)
	if err != nil {
		return nil, err
	}
	e.log.Info("planned", "plan", p.ID, "strategy", p.Strategy, "targetGroup", p.TargetGroup.ARN.Raw,
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
	// security-group check's), and podNodes their nodes.
	podIPs, podNodes []string
	// endpoints are the Service port's ready endpoints (endpoints.go):
	// what the controller registers, so never a target to deregister.
	endpoints map[TargetAddr]bool
	// snap is the snapshot of the cluster the targets were classified
	// with.
	snap *diagnose.Snapshot
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
	if err := pl.checkFrom(); err != nil {
		return nil, err
	}
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
	pl.reports, pl.snap = classify(snap, p.TargetGroup, health), snap
	p.Warnings = append(p.Warnings, snap.Notes()...)
	p.Warnings = append(p.Warnings, pl.fromDrift()...)

	// The strategy reads what it needs and fills the plan; its steps go
	// inside the hold of Karpenter's disruption.
	s := strategyOf(p.Strategy)
	if err := s.plan(ctx, pl); err != nil {
		return nil, err
	}
	s.steps(pl)
	pl.holdSteps()
	p.Estimate = s.estimate(p)
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

func targetGroupInfo(arn awserr.ARN, tg *elbv2types.TargetGroup, tags, attrs map[string]string, health []elbv2types.TargetHealthDescription) TargetGroupInfo {
	g := tgmigrate.TargetGroupOf(tg, arn)
	info := TargetGroupInfo{
		ARN: arn, Name: g.Name, AccountID: g.AccountID, Region: g.Region,
		TargetType: string(g.TargetType), Protocol: g.Protocol, ProtocolVersion: g.ProtocolVersion,
		Port: g.Port, VPCID: g.VPCID, IPAddressType: g.IPAddressType,
		LoadBalancerARNs: g.LoadBalancerARNs, HealthCheck: g.HealthCheck,
		Tags: tags, Targets: len(health),
	}
	if len(info.Tags) == 0 {
		info.Tags = nil
	}
	info.DeregistrationDelaySeconds = deregistrationDelay(attrs)
	for _, d := range health {
		if d.TargetHealth != nil && d.TargetHealth.State == elbv2types.TargetHealthStateEnumHealthy {
			info.HealthyTargets++
		}
	}
	return info
}

// classify says what holds each target's address now, with diagnose's
// definitions, in the order of health.
func classify(snap *diagnose.Snapshot, tg TargetGroupInfo, health []elbv2types.TargetHealthDescription) []diagnose.TargetReport {
	set := diagnose.TargetSet{VPCID: tg.VPCID, TargetType: tg.TargetType, Targets: targetsOf(health, tg.Port)}
	return diagnose.Classify(set, snap)
}

// targetsOf reads the targets of health, in order; a target registered
// without a port takes port, the target group's.
func targetsOf(health []elbv2types.TargetHealthDescription, port int32) []diagnose.Target {
	var ts []diagnose.Target
	for _, d := range health {
		t, ok := tgmigrate.TargetOf(d)
		if !ok {
			continue
		}
		if t.Port == 0 {
			t.Port = port
		}
		ts = append(ts, t)
	}
	return ts
}

// readService reads the Service and its port, the pods' readiness path.
func (pl *planner) readService(ctx context.Context) error {
	req := &pl.req
	svc, err := service(ctx, pl.e.reader, req.Namespace, req.Service)
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
	pods, err := servicePods(ctx, pl.e.reader, svc)
	if err != nil {
		_, err = pl.fail(err)
		return err
	}
	path := readinessPath(pods, sp)
	pl.endpoints = readyEndpoints(pods, sp)
	for _, pod := range pods {
		if pod.Status.PodIP != "" && podReady(pod) {
			pl.podIPs = append(pl.podIPs, pod.Status.PodIP)
		}
		if pod.Spec.NodeName != "" && !slices.Contains(pl.podNodes, pod.Spec.NodeName) {
			pl.podNodes = append(pl.podNodes, pod.Spec.NodeName)
		}
	}
	slices.Sort(pl.podIPs)
	slices.Sort(pl.podNodes)
	pc, notes, err := podSettings(ctx, pl.e.reader, svc, sp, pods, pl.p.Request.Assumptions)
	if err != nil {
		_, err = pl.fail(err)
		return err
	}
	if pc != nil {
		pl.p.Preconditions = append(pl.p.Preconditions, *pc)
	}
	pl.p.Warnings = append(pl.p.Warnings, notes...)
	pl.svc, pl.sp = svc, sp
	ref := tgmigrate.ServicePortOf(svc, sp)
	pl.p.Service = ServiceInfo{
		Namespace: ref.Namespace, Name: ref.Name, Port: ref.Port, PortName: ref.PortName, TargetPort: ref.TargetPort,
		NodePort: ref.NodePort, ReadinessPath: path, ExternalTrafficPolicy: string(svc.Spec.ExternalTrafficPolicy),
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

const (
	callDescribe     = "elasticloadbalancing:Describe*"
	callApplyTGB     = "kubernetes:apply targetgroupbindings"
	callDeleteTGB    = "kubernetes:delete targetgroupbindings"
	callListKube     = "kubernetes:list services,endpointslices,pods,nodes"
	callModifyTG     = "elasticloadbalancing:ModifyTargetGroup"
	callDereg        = "elasticloadbalancing:DeregisterTargets"
	callReg          = "elasticloadbalancing:RegisterTargets"
	callCreateTG     = "elasticloadbalancing:CreateTargetGroup"
	callAddTags      = "elasticloadbalancing:AddTags"
	callModifyAttr   = "elasticloadbalancing:ModifyTargetGroupAttributes"
	callDeleteTG     = "elasticloadbalancing:DeleteTargetGroup"
	callListener     = "elasticloadbalancing:ModifyListener"
	callRule         = "elasticloadbalancing:ModifyRule"
	callNodes        = "kubernetes:get,patch nodes"
	callDeleteClaims = "kubernetes:delete nodeclaims.karpenter.sh"
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

// holdSteps puts the hold of Karpenter's graceful disruption around the
// strategy's steps, or warns when the request skips it.
func (pl *planner) holdSteps() {
	p := pl.p
	if p.Request.NoDisruptionHold {
		p.Warnings = append(p.Warnings, "Karpenter's graceful disruption is not held during the cutover (Request.NoDisruptionHold): it may replace the nodes of the target group's node targets while they still serve; their targets are deregistered early when Karpenter marks the node, but a node that goes before its target drains fails the requests in flight")
		return
	}
	which := "a target of " + p.TargetGroup.Name
	if p.BlueGreen != nil {
		which = "a target of " + p.TargetGroup.Name + " or of " + p.BlueGreen.NewTargetGroup.Name
	}
	hold := Step{
		ID: StepHoldDisruption, Phase: "prepare", Title: "hold Karpenter's graceful disruption of the nodes that serve",
		Effect: fmt.Sprintf("first, before any wait, deregister (with Port) the recorded targets that cannot serve: ghosts, and those of nodes Karpenter is already removing; then annotate %s: \"true\" (and %s: the plan's ID) every node that holds %s or a pod of %s/%s, journaling whether it carried the annotation and its value; until the release, every observation holds the nodes that join too. Graceful disruption (consolidation, drift) of those nodes does not start; one already started goes on, and the step waits until those have run out and the deregistration lag has passed since the last target it retired; forceful disruption (spot interruption, expiry, repair, deletion) cannot be held",
			AnnotationDoNotDisrupt, AnnotationDisruptionHold, which, p.Service.Namespace, p.Service.Name),
		Rollback: "the rollback holds disruption during its own run, then removes what the hold added",
		Calls:    []string{callDescribe, callListKube, callNodes, callDereg}, Mutates: true,
	}
	if pc := p.precondition(PreconditionForcefulDisruption); pc != nil {
		var names []string
		for _, n := range pc.Nodes {
			names = append(names, n.Node)
		}
		hold.Effect += fmt.Sprintf("; with WithReplaceFirst, also first: deregister the recorded targets of the nodes that expire during the run (%s), wait out the deregistration lag, then delete their NodeClaims so that Karpenter drains and replaces them now, and wait until they have gone", strings.Join(names, ", "))
		hold.Calls = append(hold.Calls, callDeleteClaims)
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

// deregistrationDelay is a target group's deregistration delay, in
// seconds, from its attributes: ELBv2's default, 300, when they do not
// say.
func deregistrationDelay(attrs map[string]string) int32 {
	if v, err := strconv.Atoi(attrs[attrDeregistrationDelay]); err == nil {
		return int32(v)
	}
	return 300
}
