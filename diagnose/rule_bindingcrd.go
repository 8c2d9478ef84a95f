package diagnose

// This file is the TargetGroupBindingCRDMissing rule, the one rule on a
// cluster rather than a target group.

import (
	"fmt"
)

// CodeBindingCRDMissing: a cluster does not serve the
// TargetGroupBinding CRD, so the AWS Load Balancer Controller is not
// installed there (or is too old). Not tied to a target group.
const CodeBindingCRDMissing Code = "TargetGroupBindingCRDMissing"

// SignalBindingCRDMissing is the seed signal of [CodeBindingCRDMissing].
const SignalBindingCRDMissing = "nothing in the cluster can keep target groups current"

// bindingCRDRule makes TargetGroupBindingCRDMissing, a cluster's finding
// ([Report.Findings]) rather than a target group's.
type bindingCRDRule struct{}

var _ clusterRule = bindingCRDRule{}

func (bindingCRDRule) rules() []Rule {
	return []Rule{{CodeBindingCRDMissing, SeverityInfo, SignalBindingCRDMissing,
		"install the AWS Load Balancer Controller (v2.10.0 or later for MultiClusterTargetGroup), then tgbind.Build"}}
}

// judgeCluster reports a cluster that does not serve the
// TargetGroupBinding CRD.
func (bindingCRDRule) judgeCluster(s *Snapshot) []Finding {
	if !s.objs.NoBindingCRD {
		return nil
	}
	r, _ := RuleFor(CodeBindingCRDMissing)
	return []Finding{{
		Code: r.Code, Severity: r.Severity, Signal: r.Signal, Cluster: s.cluster.Name,
		Message:     fmt.Sprintf("cluster %s does not serve the TargetGroupBinding CRD: the AWS Load Balancer Controller is not installed", s.cluster.Name),
		Evidence:    Evidence{Names: []string{s.cluster.Name}},
		Remediation: r.Remediation,
		Next:        NextCall{Op: OpInstallController, Cluster: s.cluster.Name},
	}}
}
