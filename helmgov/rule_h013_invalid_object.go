package helmgov

// This file holds rule TGM-H013, the objects helmgov checks decode into their
// Kubernetes types: its ID, documentation and check (it has no fix). The
// decoding itself is the walk's (checkState.index, check.go).

// RuleInvalidObject: checked objects decode into their types.
const RuleInvalidObject RuleID = "TGM-H013"

// invalidObject is rule TGM-H013.
type invalidObject struct{}

func (invalidObject) doc() Rule {
	return Rule{
		ID: RuleInvalidObject, Name: "invalid-object", Severity: SeverityError,
		Summary: "objects that helmgov checks decode into their Kubernetes types",
		Doc: "A Service, Ingress, workload, PodDisruptionBudget or TargetGroupBinding whose fields have the wrong " +
			"types would be rejected by the API server, and helmgov cannot check it.",
	}
}

func (invalidObject) check(s *checkState) {
	for _, it := range s.items {
		if it.decodeErr != nil {
			s.add(it, RuleInvalidObject, "", nil, "cannot decode %s: %v", it.obj.Kind, it.decodeErr)
		}
	}
}
