package cutover

// plan_text.go holds Plan.Text, the plan rendered for an operator, and its
// formatting helpers.

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/qstools/tgmigrate/internal/textcell"
)

// Text renders the plan for an operator: what was found, the guards, the
// recorded targets, the steps with their preconditions, effects, rollbacks
// and calls, and the estimate.
func (p *Plan) Text() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	tg := p.TargetGroup
	w("Plan %s (%s), schema v%d, made %s\n", p.ID, p.Strategy, p.SchemaVersion, p.CreatedAt.UTC().Format(time.RFC3339))
	w("  digest:        %s\n", p.Digest)
	w("  strategy:      %s: %s\n", p.Strategy, p.StrategyReason)
	w("  target group:  %s (%s, %s:%d, %s, account %s, %s)\n", tg.Name, tg.TargetType, tg.Protocol, tg.Port, tg.VPCID, tg.AccountID, tg.Region)
	w("                 %s, %d healthy; deregistration delay %ds\n", textcell.Plural(int(tg.Targets), "target", "targets"), tg.HealthyTargets, tg.DeregistrationDelaySeconds)
	w("  service:       %s/%s port %d -> %s (NodePort %d), %d ready endpoints on %v\n",
		p.Service.Namespace, p.Service.Name, p.Service.Port, p.Service.TargetPort, p.Service.NodePort, p.Service.ReadyEndpoints, p.Service.PodPorts)
	w("  binding:       %s/%s, multiClusterTargetGroup %t\n", p.Binding.Namespace, p.Binding.Name, p.Binding.MultiCluster)
	if n := p.Network; n != nil {
		switch {
		case !n.Checked:
			w("  network:       %s\n", n.Note)
		case n.Networking:
			w("  network:       %s/%d from %s to %s: %s\n", n.Protocol, n.Port, strings.Join(n.LoadBalancerSecurityGroups, ", "), strings.Join(n.PodSecurityGroups, ", "), n.Note)
		case n.Allowed:
			w("  network:       %s/%d from %s to %s: allowed (%s)\n", n.Protocol, n.Port, strings.Join(n.LoadBalancerSecurityGroups, ", "), strings.Join(n.PodSecurityGroups, ", "), n.By)
		default:
			w("  network:       %s/%d from %s to %s: blocked (%s)\n", n.Protocol, n.Port, strings.Join(n.LoadBalancerSecurityGroups, ", "), strings.Join(n.PodSecurityGroups, ", "), n.By)
		}
	}
	w("  controller:    the AWS Load Balancer Controller's IAM role needs %s (Plan.ControllerPolicy)\n", strings.Join(p.controllerActions(), ", "))
	w("  health check:  %s: %s\n", p.HealthCheck.Timing, p.HealthCheck.Reason)
	if p.HealthCheck.Timing != HealthCheckUnchanged {
		w("                 %s -> %s\n", hcString(p.HealthCheck.Original), hcString(p.HealthCheck.Target))
	}
	w("  floor:         %d healthy targets (%s)\n", p.Floor, p.FloorReason)
	if q := p.Quota; q != nil {
		w("  quotas:        %d targets per target group, %d per Application Load Balancer (%s)\n", q.Quotas.PerTargetGroup.Value, q.Quotas.PerApplicationLoadBalancer.Value, q.Source)
		for _, h := range q.Headroom {
			w("                 %s\n", h)
		}
		if q.Bounded {
			w("  overlap:       bounded to %s, in %s:\n", textcell.Plural(int(q.Room), "target", "targets"), textcell.Plural(len(q.Waves), "wave", "waves"))
			for i, wv := range q.Waves {
				w("                 %d. deregister %d, keep %d node targets, register %d pod targets (%d in all); at least %d healthy\n", i+1, wv.Deregister, wv.Nodes, wv.Register, wv.Pods, wv.Healthy)
			}
		}
		if q.Rollback != "" {
			w("  rollback room: %s\n", q.Rollback)
		}
	}
	w("  assumptions:   %s\n", p.Request.Assumptions.String())
	if p.Request.NoDisruptionHold {
		w("  disruption:    not held (Request.NoDisruptionHold)\n")
	} else {
		w("  disruption:    held: %s on the nodes of the target group's targets and of the Service's pods, from %s to %s\n", AnnotationDoNotDisrupt, StepHoldDisruption, StepReleaseDisruption)
	}
	if bg := p.BlueGreen; bg != nil {
		w("  new group:     %s (ip, %s:%d), weights %v, hold %ds each\n", bg.NewTargetGroup.Name, bg.NewTargetGroup.Protocol, bg.NewTargetGroup.Port, bg.WeightSteps, bg.StepHoldSeconds)
		for _, r := range bg.Routes {
			what := "listener " + r.ListenerARN + " default action"
			if r.RuleARN != "" {
				what = "rule " + r.RuleARN
			}
			w("  route:         %s\n", what)
		}
	}
	w("Guards:\n")
	for _, g := range p.Guards {
		w("  %-8s %-7s %s\n", g.Status, g.ID, g.Detail)
	}
	for _, pc := range p.Preconditions {
		w("Precondition %s: %s\n", pc.Kind, pc.Reason)
		for _, c := range pc.Settings {
			w("  %s\n", c.String())
		}
		if pc.Rule != nil {
			w("  missing: %s\n", pc.Rule.String())
		}
		for _, n := range pc.Nodes {
			w("  node %s (NodeClaim %s): targets %s\n", n.brief(p.CreatedAt), orDash(n.NodeClaim), joinAddrs(n.Targets))
		}
		w("  Execute refuses the plan unless accepted: %s\n", pc.Kind.Option())
	}
	for _, k := range p.Risks {
		w("Risk %s\n", k.String())
	}
	if len(p.Recorded) > 0 {
		w("Recorded targets to deregister (%d):\n", len(p.Recorded))
		for _, r := range p.Recorded {
			w("  %-22s %-6s %-9s %s\n", r.String(), r.Class, orDash(r.State), r.Note)
		}
	}
	if len(p.Others) > 0 {
		w("Other targets, left alone (%d):\n", len(p.Others))
		for _, r := range p.Others {
			w("  %-22s %-7s %-9s %s\n", r.String(), r.Class, orDash(r.State), r.Note)
		}
	}
	w("Steps:\n")
	for i, s := range p.Steps {
		w("  %d. %s [%s] %s\n", i+1, s.ID, s.Phase, s.Title)
		for _, pre := range s.Preconditions {
			w("       requires: %s\n", pre)
		}
		w("       effect:   %s\n", s.Effect)
		w("       rollback: %s\n", s.Rollback)
		if len(s.Calls) > 0 {
			w("       calls:    %s\n", strings.Join(s.Calls, ", "))
		}
	}
	e := p.Estimate
	if e.AlignmentSeconds > 0 {
		w("Estimate: floor %ds = max(registration %ds + health checks %ds, alignment confirmation %ds) + deregistration delay %ds\n",
			e.FloorSeconds, e.RegistrationSeconds, e.HealthCheckSeconds, e.AlignmentSeconds, e.DeregistrationDelaySeconds)
	} else {
		w("Estimate: floor %ds = registration %ds + health checks %ds + deregistration delay %ds + holds %ds\n",
			e.FloorSeconds, e.RegistrationSeconds, e.HealthCheckSeconds, e.DeregistrationDelaySeconds, e.HoldSeconds)
	}
	for _, wt := range e.Waits {
		w("  wait %s\n", wt.String())
	}
	if len(p.Reads) > 0 {
		w("Planning read: %s\n", strings.Join(p.Reads, ", "))
	}
	for _, s := range p.Warnings {
		w("Warning: %s\n", s)
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// hcString renders a health check on one line.
func hcString(h HealthCheckSettings) string {
	n := func(p *int32) string {
		if p == nil {
			return "-"
		}
		return strconv.Itoa(int(*p))
	}
	return fmt.Sprintf("%s %s %s every %ss, healthy after %s, matcher %s", orDash(h.Protocol), orDash(h.Port), orDash(h.Path),
		n(h.IntervalSeconds), n(h.HealthyThresholdCount), orDash(h.Matcher))
}
