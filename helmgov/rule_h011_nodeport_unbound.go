package helmgov

// This file holds rule TGM-H011, a NodePort Service with a fixed nodePort is
// bound by a TargetGroupBinding or an ALB Ingress: its ID, documentation and
// check (it has no fix).

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// RuleNodePortUnbound: a fixed nodePort is bound by a TGB or an ALB Ingress.
const RuleNodePortUnbound RuleID = "TGM-H011"

// nodePortUnbound is rule TGM-H011.
type nodePortUnbound struct{}

func (nodePortUnbound) doc() Rule {
	return Rule{
		ID: RuleNodePortUnbound, Name: "nodeport-unbound", Severity: SeverityWarning,
		Summary: "a NodePort Service with a fixed nodePort is bound by a TargetGroupBinding or an ALB Ingress",
		Doc: "A fixed nodePort that nothing in the manifests binds is the signature of a hand-made target group of " +
			"nodeIP:NodePort targets. There is no automatic fix: the binding needs the target group's ARN. Adopt the " +
			"target group with tgbind and cutover, then add the TargetGroupBinding to the chart; suppress the rule on " +
			"the Service if the binding lives outside the chart.",
	}
}

func (nodePortUnbound) check(s *checkState) {
	for _, it := range s.items {
		if it.svc == nil || it.svc.Spec.Type != corev1.ServiceTypeNodePort || s.boundServices[nsName(it.ns, it.obj.Name)] {
			continue
		}
		var fixed []string
		for _, p := range it.svc.Spec.Ports {
			if p.NodePort != 0 {
				fixed = append(fixed, strconv.Itoa(int(p.NodePort)))
			}
		}
		if len(fixed) > 0 {
			s.add(it, RuleNodePortUnbound, "spec.ports", nil,
				"NodePort Service pins nodePort %s but no TargetGroupBinding or ALB Ingress in the manifests binds it: the pattern of a hand-made target group of nodeIP:NodePort targets",
				strings.Join(fixed, ", "))
		}
	}
}
