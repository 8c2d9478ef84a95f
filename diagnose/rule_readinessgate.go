package diagnose

// This file is the MissingReadinessGate rule: namespaces without the
// injection label, and bound pods without the target-health gate.

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// CodeMissingReadinessGate: ip targets whose pods run without the LBC's
// target-health readiness gate.
const CodeMissingReadinessGate Code = "MissingReadinessGate"

// SignalMissingReadinessGate is the seed signal of [CodeMissingReadinessGate].
const SignalMissingReadinessGate = "502/504 during rolling deploys: old pods stop before new targets are healthy"

// readinessGateRule makes MissingReadinessGate: ip targets whose
// namespace lacks the injection label, or whose bound pods lack the gate.
type readinessGateRule struct{}

var _ targetGroupRule = readinessGateRule{}

func (readinessGateRule) rules() []Rule {
	return []Rule{{CodeMissingReadinessGate, SeverityMedium, SignalMissingReadinessGate,
		"label the namespace elbv2.k8s.aws/pod-readiness-gate-inject=enabled before tgbind.Build, and restart the pods once the binding exists"}}
}

func (readinessGateRule) judge(a *analysis) []Finding {
	if a.rep.TargetType != "ip" {
		return nil
	}
	type nsKey struct {
		snap *Snapshot
		ns   string
	}
	// The namespace that needs the label is the Service's (and the
	// bindings'); only when the Service is unknown do the pod targets
	// (pods that serve the target's port) say it.
	nss := map[nsKey]bool{}
	if a.service != nil && a.service.svc != nil {
		nss[nsKey{a.service.snap, a.service.svc.Namespace}] = true
	} else {
		for _, t := range a.rep.Targets {
			if t.Class == ClassPod {
				nss[nsKey{a.snapshot(t.Cluster), t.Pod.Namespace}] = true
			}
		}
	}
	for _, b := range a.bindings {
		nss[nsKey{b.snap, b.tgb.Namespace}] = true
	}
	var unlabelled []string
	for k := range nss {
		if k.snap == nil || !k.snap.listed(ListNamespaces) {
			continue
		}
		if k.snap.namespaces[k.ns][LabelReadinessGateInject] != "enabled" {
			unlabelled = append(unlabelled, k.snap.cluster.Name+"/"+k.ns)
		}
	}
	slices.Sort(unlabelled)
	// Pods that predate the label or the binding carry no gate: the webhook
	// injects it at creation only.
	var ungated []string
	for _, b := range a.bindings {
		if b.ref.TargetType != "" && b.ref.TargetType != "ip" {
			continue
		}
		if b.snap.namespaces[b.tgb.Namespace][LabelReadinessGateInject] != "enabled" {
			continue // already reported as unlabelled
		}
		svc := b.snap.services[b.tgb.Namespace+"/"+b.tgb.Spec.ServiceRef.Name]
		if svc == nil {
			continue
		}
		gate := corev1.PodConditionType(ReadinessGatePrefix + b.tgb.Name)
		for _, p := range b.snap.podsOfService(svc) {
			if !slices.ContainsFunc(p.Spec.ReadinessGates, func(g corev1.PodReadinessGate) bool { return g.ConditionType == gate }) {
				ungated = append(ungated, b.snap.cluster.Name+"/"+p.Namespace+"/"+p.Name)
			}
		}
	}
	if len(unlabelled) == 0 && len(ungated) == 0 {
		return nil
	}
	var parts []string
	if len(unlabelled) > 0 {
		parts = append(parts, fmt.Sprintf("namespaces without %s=enabled: %s", LabelReadinessGateInject, strings.Join(unlabelled, ", ")))
	}
	if len(ungated) > 0 {
		parts = append(parts, fmt.Sprintf("pods of the bound Service without the target-health gate (created before the label or the binding): %d; restart them", len(ungated)))
	}
	msg := "ip targets without the LBC readiness gate: " + strings.Join(parts, "; ")
	rem := "label the namespace " + LabelReadinessGateInject + "=enabled before tgbind.Build, then restart the pods once the binding exists"
	next := NextCall{Op: OpLabelNamespace, Namespaces: unlabelled}
	if len(unlabelled) > 0 {
		next.Cluster, _, _ = strings.Cut(unlabelled[0], "/")
	}
	if len(unlabelled) == 0 {
		rem = "restart the pods of the bound Service (a rollout restart) so the webhook injects the gate"
		next = a.withService(NextCall{Op: OpRestartPods})
	}
	return []Finding{a.finding(CodeMissingReadinessGate, msg, Evidence{
		Names:  append(slices.Clone(unlabelled), ungated...),
		Counts: map[string]int{"namespaces": len(unlabelled), "podsWithoutGate": len(ungated)},
	}, rem, next)}
}
