package diagnose

// This file is what the rules share to make a finding: the Finding with
// its code's fixed parts, the next call (PlanCutover with the strategy it
// accepts, tgbind.Build, or the manual change to make when PlanCutover
// would refuse), its wording, and small wording helpers.

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/qstools/tgmigrate"
)

func (a *analysis) finding(code Code, msg string, ev Evidence, remediation string, next NextCall) Finding {
	r, _ := RuleFor(code)
	ev.ARNs = append([]string{a.rep.ARN}, ev.ARNs...)
	slices.Sort(ev.ARNs)
	ev.ARNs = slices.Compact(ev.ARNs)
	slices.Sort(ev.Names)
	ev.Names = slices.Compact(ev.Names)
	if remediation == "" {
		remediation = r.Remediation
	}
	return Finding{Code: code, Severity: r.Severity, Signal: r.Signal, Message: msg, TargetGroupARN: a.arn, Evidence: ev, Remediation: remediation, Next: next}
}

// withService fills the call's Service, or names it as missing. A
// tgbind.Build or PlanCutover call also needs the Service port: when it is
// not known (the targets' port is no port of the Service, or a tag names
// the Service alone), it is named as missing too, since a zero port would
// mean the Service's only port, which may be the wrong one.
func (a *analysis) withService(c NextCall) NextCall {
	if a.service == nil || a.service.svc == nil {
		c.Missing = append(c.Missing, "service")
		return c
	}
	ref := a.service.ref
	c.Service = &ref
	if a.service.port == nil && (c.Op == OpBuildBinding || c.Op == OpPlanCutover) {
		c.Missing = append(c.Missing, "port")
	}
	return c
}

// cutoverCall is the PlanCutover call the findings of this target group
// name, with the strategy PlanCutover accepts for it: in-place for an ip
// target group; blue-green for an instance one, whose type cannot change.
// Where PlanCutover would refuse blue-green (no load balancer forwards to
// the target group, or a forward action shares the traffic with other
// target groups), the call is OpManual, with the change to make first.
// A PlanCutover call with nothing missing carries its Handoff
// (handoff.go).
func (a *analysis) cutoverCall() NextCall {
	c := NextCall{Op: OpPlanCutover, TargetGroupARN: a.arn, Strategy: strategyInPlace}
	switch a.rep.TargetType {
	case "ip":
	case "instance":
		c.Strategy = strategyBlueGreen
		switch {
		case len(a.rep.LoadBalancerARNs) == 0:
			return NextCall{Op: OpManual, TargetGroupARN: a.arn,
				Reason: "no load balancer forwards to it, so blue/green has no traffic to shift: deregister its targets, or delete it once nothing uses it"}
		case slices.ContainsFunc(a.rep.Routes, func(r Route) bool { return r.Weight != nil }):
			return NextCall{Op: OpManual, TargetGroupARN: a.arn,
				Reason: "a forward action shares its traffic with other target groups, and blue/green shifts only a forward that names it alone: give it a forward of its own first"}
		}
	default:
		return NextCall{Op: OpNone, TargetGroupARN: a.arn, Reason: fmt.Sprintf("target type %s cannot be bound by the LBC", a.rep.TargetType)}
	}
	if why := a.foreignOwner(); why != "" {
		return NextCall{Op: OpManual, TargetGroupARN: a.arn, Reason: why}
	}
	return a.withHandoff(a.withService(c))
}

// foreignOwner says why PlanCutover's owner guard would refuse the target
// group, "" when it would not: its LBC tags name a stack
// (ingress.k8s.aws/stack, service.k8s.aws/stack), or a cluster
// (elbv2.k8s.aws/cluster) other than the one whose Service takes over
// (when the Service is unknown, other than every scanned cluster).
func (a *analysis) foreignOwner() string {
	var why []string
	for _, k := range tgmigrate.LBCStacksIn(a.tags) {
		why = append(why, fmt.Sprintf("tag %s=%s says an LBC stack manages it", k, a.tags[k]))
	}
	if v, ok := a.tags[TagCluster]; ok {
		switch {
		case a.service != nil && a.service.svc != nil:
			if v != a.service.ref.Cluster {
				why = append(why, fmt.Sprintf("tag %s=%s names another cluster than %s, whose Service takes over", TagCluster, v, a.service.ref.Cluster))
			}
		case a.snapshot(v) == nil:
			why = append(why, fmt.Sprintf("tag %s=%s names a cluster that was not scanned", TagCluster, v))
		}
	}
	if len(why) == 0 {
		return ""
	}
	return strings.Join(why, "; ") + ": cutover.PlanCutover's owner guard refuses it (unless forced with foreign-owner); let its owner fix it, or hand it over from that stack first"
}

// The strategies' names, as cutover.Strategy spells them.
const (
	strategyInPlace   = "in-place"
	strategyBlueGreen = "blue-green"
)

// cutoverProse says the cutover call in words, with what it does first.
func (a *analysis) cutoverProse(c NextCall, does string) string {
	switch c.Op {
	case OpPlanCutover:
		return fmt.Sprintf("cutover.PlanCutover for %s and %s with strategy %s: %s", a.rep.Name, a.serviceArg(), c.Strategy, does)
	default:
		return c.Reason
	}
}

// serviceArg names the Service for a remediation.
func (a *analysis) serviceArg() string {
	if a.service == nil || a.service.svc == nil {
		return "the Service it serves (not inferred: name it)"
	}
	r := a.service.ref
	port := strconv.Itoa(int(r.Port))
	if r.PortName != "" {
		port = r.PortName
	}
	if r.Port == 0 && r.PortName == "" {
		port = "?"
	}
	return fmt.Sprintf("Service %s/%s port %s in cluster %s", r.Namespace, r.Name, port, r.Cluster)
}

func joinPorts(ports map[int32]bool) string {
	var s []string
	for _, p := range slices.Sorted(maps.Keys(ports)) {
		s = append(s, strconv.Itoa(int(p)))
	}
	return strings.Join(s, ",")
}
