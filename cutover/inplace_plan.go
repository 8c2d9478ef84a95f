package cutover

// inplace_plan.go holds the in-place strategy's planning: its reads (the
// binding built by tgbind, the recorded node targets and ghosts, the floor),
// the health-check alignment and when it happens, its steps and its
// estimate.

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/textcell"
	"github.com/qstools/tgmigrate/tgbind"
)

// inPlace is the strategy for target groups of type ip: the target group
// is handed to the LBC as it is, its pod targets registered beside the
// node targets, which are then deregistered.
type inPlace struct{}

func (inPlace) name() Strategy { return StrategyInPlace }

// estimate is inPlaceEstimate.
func (inPlace) estimate(p *Plan) Estimate { return inPlaceEstimate(p) }

// incomplete says what an in-place plan lacks: its binding.
func (inPlace) incomplete(p *Plan) string {
	if p.Binding.Object == nil {
		return "an in-place plan without its binding"
	}
	return ""
}

// plan plans the in-place strategy.
func (inPlace) plan(ctx context.Context, pl *planner) error {
	p, req := pl.p, &pl.req
	// Planning is read-only: tgbind's reads are retried like the planner's
	// own, on throttling and the API server's transient failures.
	var b *tgbind.Binding
	err := pl.aws.retryTransient(ctx, false, func(ctx context.Context) (err error) {
		b, err = pl.binder.Build(ctx, tgbind.Request{
			TargetGroupARN: pl.arn, Namespace: req.Namespace, Service: req.Service, Port: req.Port,
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
				TargetGroupARN: pl.arn, Namespace: req.Namespace, Service: req.Service, Port: req.Port,
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

	if err := pl.healthCheck(); err != nil {
		return err
	}
	// The nodes Karpenter disrupts forcefully during the run leave the
	// floor out: their targets go whatever the cutover does (or before it,
	// replaced first).
	expiring := forcefulNodes(pl.reports, p.CreatedAt.Add(forcefulWindow(p)))
	isExpiring := func(node string) bool {
		return slices.ContainsFunc(expiring, func(n ForcefulNode) bool { return n.Node == node })
	}
	healthyNodes, podTargets := 0, 0
	for _, r := range pl.reports {
		rt := recorded(r)
		if pl.servesEndpoint(r) {
			// The controller registers it: never recorded for
			// deregistration, whatever the snapshot said of it.
			rt.Note = "a ready endpoint of the Service: left to the LBC (" + rt.Note + ")"
			p.Others = append(p.Others, rt)
			podTargets++
			continue
		}
		switch r.Class {
		case diagnose.ClassNode, diagnose.ClassGhost:
			p.Recorded = append(p.Recorded, rt)
			if r.Class == diagnose.ClassNode && r.State == string(elbv2types.TargetHealthStateEnumHealthy) && !leaving(r) && !isExpiring(r.Node.Name) {
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
	what := "node targets"
	if len(expiring) > 0 {
		what = fmt.Sprintf("node targets not expiring within the run's window (%s)", textcell.Plural(len(expiring), "node does", "nodes do"))
	}
	if err := pl.floor(healthyNodes, what); err != nil {
		return err
	}
	if pc := forcefulPrecondition(expiring, forcefulWindow(p), "the plan"); pc != nil {
		p.Preconditions = append(p.Preconditions, *pc)
	}
	if k := spotRisk(pl.reports, pl.snap, pl.podNodes, p.Request.Assumptions); k != nil {
		p.Risks = append(p.Risks, *k)
	}
	podTargets = min(podTargets, p.Service.ReadyEndpoints)
	if err := pl.quota(ctx, pl.arn.Raw, p.TargetGroup.Name, p.TargetGroup.Targets, len(p.Recorded), p.Service.ReadyEndpoints-podTargets, p.TargetGroup.LoadBalancerARNs, 0); err != nil {
		return err
	}
	if err := pl.boundInPlace(healthyNodes, len(p.Others)-podTargets, podTargets); err != nil {
		return err
	}
	return nil
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
		return &StrategyError{Strategy: StrategyInPlace, TargetGroupARN: pl.arn,
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

// steps are the in-place steps, in the order the health check's timing
// gives.
func (inPlace) steps(pl *planner) {
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
		gate.Effect += fmt.Sprintf("; the overlap is bounded (%s planned): the controller's TooManyTargets refusals are expected while the room is full; as pod targets turn healthy, node targets are deregistered down to the floor to make more room, and the binding is touched so that the controller registers into it at once", textcell.Plural(len(q.Waves), "wave", "waves"))
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
