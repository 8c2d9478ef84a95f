package helmgov

// This file holds rule TGM-H012, every kind is served by the cluster: its ID,
// documentation and check (it has no fix), and the notice for a kind helmgov
// does not know when the caller does not give the served kinds.

import (
	"fmt"

	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// RuleKindNotServed: every kind is served by the cluster.
const RuleKindNotServed RuleID = "TGM-H012"

// kindServed is rule TGM-H012.
type kindServed struct{}

func (kindServed) doc() Rule {
	return Rule{
		ID: RuleKindNotServed, Name: "kind-not-served", Severity: SeverityError,
		Summary: "every object's kind is served by the cluster (when the caller gives the served kinds)",
		Doc: "Checked only when the caller passes the cluster's served kinds (Options.ServedKinds). An object of a kind " +
			"the cluster does not serve, and that no CustomResourceDefinition in the same manifests defines, fails to " +
			"install: for a TargetGroupBinding, the LBC or its CRDs are missing.",
	}
}

func (kindServed) check(s *checkState) {
	for _, it := range s.items {
		s.checkKind(it)
	}
}

// checkKind reports kinds that helmgov does not know, and kinds the cluster
// does not serve.
func (s *checkState) checkKind(it *item) {
	gvk := it.obj.GroupVersionKind()
	inStream := s.crdKinds[gvk]
	if served := s.c.opts.ServedKinds; served != nil {
		if !served[gvk] && !inStream {
			hint := ""
			if it.gk == gkTGB {
				hint = "; install the AWS Load Balancer Controller and its CRDs"
			} else if s.crdGroups[it.gk] {
				hint = "; the manifests define this kind, but not this version"
			}
			s.add(it, RuleKindNotServed, "", nil, "%s %s is not served by the cluster%s", it.obj.APIVersion, it.obj.Kind, hint)
		}
		return
	}
	if checkedKinds[it.gk] || inStream || clientgoscheme.Scheme.Recognizes(gvk) {
		return
	}
	s.notice(it, fmt.Sprintf("unknown kind %s %s: not checked (no CRD for it in the manifests; pass the cluster's served kinds to check it is installed)", it.obj.APIVersion, it.obj.Kind))
}
