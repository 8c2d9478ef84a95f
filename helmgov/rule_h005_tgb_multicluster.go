package helmgov

// This file holds rule TGM-H005, a TargetGroupBinding that adopts a target group
// has multiClusterTargetGroup true: its ID, documentation, check and fix.

// RuleTGBMultiCluster: a TargetGroupBinding has multiClusterTargetGroup true.
const RuleTGBMultiCluster RuleID = "TGM-H005"

// tgbMultiCluster is rule TGM-H005.
type tgbMultiCluster struct{}

func (tgbMultiCluster) doc() Rule {
	return Rule{
		ID: RuleTGBMultiCluster, Name: "tgb-multicluster", Severity: SeverityError, Fixable: true,
		Summary: "a TargetGroupBinding that adopts an existing target group has spec.multiClusterTargetGroup: true",
		Doc: "A binding in a chart names a target group made outside the LBC, which helmgov takes to be the legacy one, " +
			"with targets already in it. In the default mode the LBC deregisters every target it did not register, " +
			"node targets included, before the pod targets are healthy. The fix sets the flag, which matches the binding " +
			"cutover creates; the LBC's docs advise against flipping it on a live binding, so review the diff. For a " +
			"target group created empty for this binding, suppress the rule on the object.",
	}
}

func (tgbMultiCluster) check(s *checkState) {
	for _, it := range s.items {
		if it.tgb == nil || it.tgb.Spec.MultiClusterTargetGroup {
			continue
		}
		s.add(it, RuleTGBMultiCluster, "spec.multiClusterTargetGroup", setTo(FieldPath{{Key: "spec"}, {Key: "multiClusterTargetGroup"}}, true),
			"TargetGroupBinding adopts an existing target group without spec.multiClusterTargetGroup: true; the LBC would deregister the targets it did not register")
	}
}
