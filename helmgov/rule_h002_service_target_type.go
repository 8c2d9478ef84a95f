package helmgov

// This file holds rule TGM-H002, a LoadBalancer Service has nlb-target-type ip:
// its ID, documentation, check and fix.

// RuleServiceTargetType: a LoadBalancer Service has nlb-target-type ip.
const RuleServiceTargetType RuleID = "TGM-H002"

// serviceTargetType is rule TGM-H002.
type serviceTargetType struct{}

func (serviceTargetType) doc() Rule {
	return Rule{
		ID: RuleServiceTargetType, Name: "service-nlb-target-type-ip", Severity: SeverityError, Fixable: true,
		Summary: "a LoadBalancer Service carries " + annNLBTargetType + ": ip",
		Doc: "The LBC's default for NLB Services is instance: node IPs and NodePorts, the pattern this migration removes. " +
			"The fix sets the annotation to ip.",
	}
}

func (serviceTargetType) check(s *checkState) {
	for _, it := range s.items {
		if it.svc == nil || !s.lbcManaged(it.svc) {
			continue
		}
		s.wantAnnotation(it, RuleServiceTargetType, annNLBTargetType, "ip",
			"LoadBalancer Service has no %s annotation; the LBC would register instance targets")
	}
}
