package helmgov

// This file holds rule TGM-H003, an ALB Ingress, and any Service that overrides
// it, has target-type ip: its ID, documentation, check and fix.

// RuleIngressTargetType: an ALB Ingress, and Services overriding it, have target-type ip.
const RuleIngressTargetType RuleID = "TGM-H003"

// ingressTargetType is rule TGM-H003.
type ingressTargetType struct{}

func (ingressTargetType) doc() Rule {
	return Rule{
		ID: RuleIngressTargetType, Name: "alb-ingress-target-type-ip", Severity: SeverityError, Fixable: true,
		Summary: "an ALB Ingress, and any Service that overrides it, carries " + annALBTargetType + ": ip",
		Doc: "An Ingress is an ALB Ingress when its ingressClassName, or its legacy kubernetes.io/ingress.class annotation, " +
			"names an ALB class (alb, or an IngressClass of controller ingress.k8s.aws/alb in the same manifests). " +
			"The LBC's default target type is instance. A backend Service may override the Ingress with its own " +
			"annotation, so a Service that sets it to anything but ip is reported too. The fix sets ip.",
	}
}

func (ingressTargetType) check(s *checkState) {
	for _, it := range s.items {
		switch {
		case it.svc != nil:
			// A Service's own annotation overrides its Ingress's.
			if v, ok := it.obj.Annotations()[annALBTargetType]; ok && v != "ip" {
				s.add(it, RuleIngressTargetType, annPath(annALBTargetType).String(), setTo(annPath(annALBTargetType), "ip"),
					"Service overrides the ALB target type with %s: %q, want \"ip\"", annALBTargetType, v)
			}
		case s.isALBIngress(it):
			s.wantAnnotation(it, RuleIngressTargetType, annALBTargetType, "ip",
				"ALB Ingress has no %s annotation; the LBC's default is instance")
		}
	}
}
