package diagnose

// This file is the DefaultModeBindingOnSharedGroup rule, and the Service a
// binding names.

import (
	"fmt"
	"slices"

	"github.com/qstools/tgmigrate/internal/textcell"
)

// CodeDefaultModeBindingOnSharedGroup: a default-mode
// TargetGroupBinding on a target group that holds targets it does not
// own; the LBC deregisters them on its next reconcile.
const CodeDefaultModeBindingOnSharedGroup Code = "DefaultModeBindingOnSharedGroup"

// SignalDefaultModeBindingOnSharedGroup is the seed signal of [CodeDefaultModeBindingOnSharedGroup].
const SignalDefaultModeBindingOnSharedGroup = "all targets drain at once when the TargetGroupBinding reconciles"

// defaultModeRule makes DefaultModeBindingOnSharedGroup, once per
// default-mode binding on a target group that holds targets the binding
// does not own.
type defaultModeRule struct{}

var _ targetGroupRule = defaultModeRule{}

func (defaultModeRule) rules() []Rule {
	return []Rule{{CodeDefaultModeBindingOnSharedGroup, SeverityCritical, SignalDefaultModeBindingOnSharedGroup,
		"tgbind.Build with MultiClusterTargetGroup true, replacing the binding before its next reconcile (the flag cannot be flipped in place)"}}
}

func (defaultModeRule) judge(a *analysis) []Finding {
	var out []Finding
	for _, b := range a.bindings {
		if b.ref.Mode != ModeDefault || !b.snap.listed(ListPods) || !b.snap.listed(ListNodes) || !b.snap.listed(ListServices) {
			continue // not default mode, or the evidence is missing
		}
		svcName := b.tgb.Namespace + "/" + b.tgb.Spec.ServiceRef.Name
		instance := b.ref.TargetType == "instance" || (b.ref.TargetType == "" && a.rep.TargetType == "instance")
		counts := map[string]int{}
		var names []string
		for _, t := range a.rep.Targets {
			owned := t.Cluster == b.snap.cluster.Name && slices.Contains(t.Services, svcName) &&
				((instance && t.Class == ClassNode) || (!instance && t.Class == ClassPod))
			// The LBC ignores draining targets: they are deregistered
			// already, by it or by someone else.
			if owned || t.Draining() {
				continue
			}
			counts["notOwned"]++
			counts[string(t.Class)]++
			names = append(names, t.Key())
		}
		if counts["notOwned"] == 0 {
			continue
		}
		counts["targets"] = len(a.rep.Targets)
		ref := b.ref.Cluster + "/" + b.ref.Namespace + "/" + b.ref.Name
		msg := fmt.Sprintf("binding %s runs in default mode on a target group that holds %s it does not own (%d node, %d pod, %d ghost, %d foreign): the LBC deregisters them on its next reconcile",
			ref, textcell.Plural(counts["notOwned"], "target", "targets"), counts[string(ClassNode)], counts[string(ClassPod)], counts[string(ClassGhost)], counts[string(ClassForeign)])
		rem := fmt.Sprintf("tgbind.Build for Service %s in cluster %s with MultiClusterTargetGroup true, replacing binding %s/%s before its next reconcile",
			svcName, b.ref.Cluster, b.ref.Namespace, b.ref.Name)
		next := NextCall{Op: OpBuildBinding, TargetGroupARN: a.arn, Replaces: ref, Service: a.bindingService(b)}
		if a.rep.TargetType != "ip" {
			// tgbind builds ip bindings only: it cannot replace an
			// instance binding, and PlanCutover's blue/green path moves
			// the traffic to an ip target group it binds in
			// multi-cluster mode.
			next = a.cutoverCall()
			rem = a.cutoverProse(next, fmt.Sprintf("tgbind builds ip bindings only, so binding %s/%s cannot be replaced through it: a new ip target group bound in multi-cluster mode takes the traffic (until then, recreate the binding with multiClusterTargetGroup true by hand before its next reconcile)", b.ref.Namespace, b.ref.Name))
		}
		out = append(out, a.finding(CodeDefaultModeBindingOnSharedGroup, msg, Evidence{Names: append([]string{ref}, names...), Counts: counts}, rem, next))
	}
	return out
}

// bindingService is the Service a binding names, as a ServiceRef.
func (a *analysis) bindingService(b boundTGB) *ServiceRef {
	if a.service != nil && a.service.ref.Source == ServiceFromBinding && a.bindings[0].tgb == b.tgb {
		ref := a.service.ref
		return &ref
	}
	ref := ServiceRef{Cluster: b.ref.Cluster, Namespace: b.ref.Namespace, Name: b.ref.ServiceName, Source: ServiceFromBinding}
	svc := b.snap.services[b.ref.Namespace+"/"+b.ref.ServiceName]
	ref.Found = svc != nil
	if svc != nil {
		if sp := servicePort(svc, b.ref.ServicePort); sp != nil {
			ref.Port, ref.PortName, ref.NodePort, ref.TargetPort = sp.Port, sp.Name, sp.NodePort, sp.TargetPort.String()
		}
	}
	return &ref
}
