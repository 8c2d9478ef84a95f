package helmgov

// This file holds rule TGM-H007, a namespace with ip targets injects the
// readiness gate: its ID, documentation, check and fix, and the notice for a
// namespace outside the manifests.

import (
	"fmt"
	"maps"
	"slices"
)

// RuleNamespaceReadiness: namespaces with ip targets inject the readiness gate.
const RuleNamespaceReadiness RuleID = "TGM-H007"

// namespaceReadiness is rule TGM-H007.
type namespaceReadiness struct{}

func (namespaceReadiness) doc() Rule {
	return Rule{
		ID: RuleNamespaceReadiness, Name: "namespace-readiness-gate", Severity: SeverityWarning, Fixable: true,
		Summary: "a namespace with ip targets carries the label " + labelReadinessGate + ": enabled",
		Doc: "The LBC's webhook injects the target-health readiness gate only into pods of labelled namespaces, and " +
			"only at pod creation; without it a rollout can take down pods before their replacements are healthy in " +
			"the target group. Checked when the manifests contain the Namespace; otherwise the result carries a " +
			"notice, since the label lives outside the chart. The fix adds the label.",
	}
}

func (namespaceReadiness) check(s *checkState) {
	for _, ns := range slices.Sorted(maps.Keys(s.ipNamespaces)) {
		has := s.nsTargets[ns].phrase(s.ipNamespaces[ns].ref().String())
		it, ok := s.namespaces[ns]
		if !ok {
			s.res.Notices = append(s.res.Notices, Notice{
				Object:  ObjectRef{APIVersion: "v1", Kind: "Namespace", Name: ns},
				Message: fmt.Sprintf("namespace %s has %s but is not in the manifests: make sure it carries the label %s=enabled", ns, has, labelReadinessGate),
			})
			continue
		}
		path := FieldPath{{Key: "metadata"}, {Key: "labels"}, {Key: labelReadinessGate}}
		if v := it.obj.Labels()[labelReadinessGate]; v != "enabled" {
			msg := fmt.Sprintf("namespace has %s but no label %s=enabled", has, labelReadinessGate)
			if v != "" {
				msg = fmt.Sprintf("namespace has %s but %s is %q, want \"enabled\"", has, labelReadinessGate, v)
			}
			s.add(it, RuleNamespaceReadiness, path.String(), &Change{Op: OpSet, Path: path, Value: "enabled"}, "%s", msg)
		}
	}
}
