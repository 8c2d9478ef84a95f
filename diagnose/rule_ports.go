package diagnose

// This file is the PortMismatch rule: the target group's and the targets'
// ports against the Service's port, targetPort and NodePort.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// CodePortMismatch: the target group's or the targets' ports do not line
// up with the Service's port, targetPort or NodePort.
const CodePortMismatch Code = "PortMismatch"

// SignalPortMismatch is the seed signal of [CodePortMismatch].
const SignalPortMismatch = "health checks pass but requests hit the wrong port, or the LBC registers nothing"

// portRule makes PortMismatch: the target group's or the targets' ports do
// not line up with the Service's port, targetPort or NodePort.
type portRule struct{}

var _ targetGroupRule = portRule{}

func (portRule) rules() []Rule {
	return []Rule{{CodePortMismatch, SeverityHigh, SignalPortMismatch,
		"tgbind.Build with the Service port that maps to the targets' port"}}
}

func (portRule) judge(a *analysis) []Finding {
	st := a.service
	if st == nil || !st.snap.listed(ListServices) || !st.snap.listed(ListPods) {
		return nil // the evidence is missing: Unknowns says so
	}
	var aspects, names []string
	details := map[string]string{"targetGroupPort": strconv.Itoa(int(a.rep.Port))}
	counts := map[string]int{}
	svcName := st.ref.Namespace + "/" + st.ref.Name
	switch {
	case st.svc == nil:
		aspects = append(aspects, fmt.Sprintf("Service %s does not exist in cluster %s", svcName, st.ref.Cluster))
	case st.port == nil && st.ref.Source == ServiceFromBinding:
		b := a.bindings[0]
		aspects = append(aspects, fmt.Sprintf("binding %s/%s names port %s, which Service %s does not have", b.tgb.Namespace, b.tgb.Name, b.ref.ServicePort, svcName))
	case st.port == nil && st.ref.Source == ServiceFromPods:
		// The pods serve the targets' port (a port they declare), but no
		// port of their Service targets it: a binding would register
		// them on another port.
		ports := map[int32]bool{}
		for _, t := range a.rep.Targets {
			if t.Class == ClassPod && !t.Draining() && t.Cluster == st.ref.Cluster && slices.Contains(t.Services, svcName) {
				counts["podTargetsOffServicePorts"]++
				ports[t.Port] = true
			}
		}
		details["podTargetPorts"] = joinPorts(ports)
		aspects = append(aspects, fmt.Sprintf("pod targets on port %s, which no port of Service %s targets: %d", joinPorts(ports), svcName, counts["podTargetsOffServicePorts"]))
	}
	if st.svc != nil && st.ref.Source == ServiceFromBinding && len(a.bindings) > 0 {
		names = append(names, a.bindings[0].ref.Cluster+"/"+a.bindings[0].ref.Namespace+"/"+a.bindings[0].ref.Name)
	}
	if st.svc != nil {
		names = append(names, svcName)
	}
	if st.port != nil {
		details["servicePort"] = strconv.Itoa(int(st.port.Port))
		details["targetPort"] = st.ref.TargetPort
		if st.port.NodePort != 0 {
			details["nodePort"] = strconv.Itoa(int(st.port.NodePort))
		}
		tp := st.ref.ResolvedTargetPort
		switch {
		case tp != 0:
			details["resolvedTargetPort"] = strconv.Itoa(int(tp))
		case len(st.snap.podsOfService(st.svc)) > 0:
			aspects = append(aspects, fmt.Sprintf("targetPort %q resolves to no container port of the Service's pods", st.ref.TargetPort))
		default:
			details["resolvedTargetPort"] = "unknown: the Service has no pods"
		}
		for _, t := range a.rep.Targets {
			switch {
			case t.Draining(): // takes no new requests
			case t.Class == ClassNode && t.Cluster == st.ref.Cluster && t.Port != st.port.NodePort:
				counts["nodeTargetsOffNodePort"]++
			case t.Class == ClassPod && t.Cluster == st.ref.Cluster && tp != 0 && t.Port != tp && slices.Contains(t.Services, svcName):
				counts["podTargetsOffTargetPort"]++
			}
		}
		if n := counts["nodeTargetsOffNodePort"]; n > 0 {
			if st.port.NodePort == 0 {
				aspects = append(aspects, fmt.Sprintf("node targets although Service %s has no NodePort: %d", svcName, n))
			} else {
				aspects = append(aspects, fmt.Sprintf("node targets off the NodePort %d: %d", st.port.NodePort, n))
			}
		}
		if n := counts["podTargetsOffTargetPort"]; n > 0 {
			aspects = append(aspects, fmt.Sprintf("pod targets off the targetPort %d: %d", tp, n))
		}
		if a.rep.Port != 0 && a.rep.Port != tp && a.rep.Port != st.port.NodePort && a.rep.Port != st.port.Port {
			aspects = append(aspects, fmt.Sprintf("target group port %d is neither the Service port %d, its targetPort %s, nor its NodePort", a.rep.Port, st.port.Port, st.ref.TargetPort))
		}
	}
	if len(aspects) == 0 {
		return nil
	}
	counts["aspects"] = len(aspects)
	msg := "ports: " + strings.Join(aspects, "; ")
	next := a.withService(NextCall{Op: OpBuildBinding, TargetGroupARN: a.arn})
	rem := fmt.Sprintf("tgbind.Build for %s", a.serviceArg())
	if st.port == nil {
		rem = fmt.Sprintf("tgbind.Build with a Service port that exists on %s (fix the binding before the LBC empties the target group)", svcName)
		if st.ref.Source != ServiceFromBinding {
			rem = fmt.Sprintf("tgbind.Build with a port of %s that targets the pods' port (add one to the Service first)", svcName)
		}
		if !slices.Contains(next.Missing, "port") {
			next.Missing = append(next.Missing, "port")
		}
	}
	if st.svc == nil {
		rem = fmt.Sprintf("tgbind.Build for a Service that exists in cluster %s (Service %s does not)", st.ref.Cluster, svcName)
		next.Service, next.Missing = nil, []string{"service"}
	}
	switch {
	case a.rep.TargetType != "ip":
		// tgbind builds ip bindings only, for a new binding or to
		// replace an instance one: blue/green moves the traffic to an ip
		// target group whose binding registers the pods.
		next = a.cutoverCall()
		rem = a.cutoverProse(next, "the new ip target group's binding registers the pods on their target port")
	case len(a.bindings) > 0:
		b := a.bindings[0].ref
		next.Replaces = b.Cluster + "/" + b.Namespace + "/" + b.Name
		rem += ", replacing binding " + next.Replaces
	}
	return []Finding{a.finding(CodePortMismatch, msg, Evidence{Names: names, Counts: counts, Details: details}, rem, next)}
}
