package helmgov

// This file holds rule TGM-H001, a LoadBalancer Service is the LBC's (type
// external): its ID, documentation, check and fix.

// RuleServiceLBType: a LoadBalancer Service is the LBC's (type external).
const RuleServiceLBType RuleID = "TGM-H001"

// serviceLBType is rule TGM-H001.
type serviceLBType struct{}

func (serviceLBType) doc() Rule {
	return Rule{
		ID: RuleServiceLBType, Name: "service-lbc-type", Severity: SeverityError, Fixable: true,
		Summary: "a LoadBalancer Service carries " + annLBType + ": external",
		Doc: "Without it the in-tree cloud provider, not the AWS Load Balancer Controller, provisions the load balancer, " +
			"with instance targets. Applies to Services of type LoadBalancer whose loadBalancerClass is empty or " +
			"service.k8s.aws/nlb. The fix sets the annotation; deploying it makes the LBC own the load balancer, " +
			"which replaces one the in-tree provider made, so review the diff.",
	}
}

func (serviceLBType) check(s *checkState) {
	for _, it := range s.items {
		if it.svc == nil || !s.lbcManaged(it.svc) {
			continue
		}
		s.wantAnnotation(it, RuleServiceLBType, annLBType, "external",
			"LoadBalancer Service has no %s annotation, so the in-tree provider owns its load balancer")
	}
}
