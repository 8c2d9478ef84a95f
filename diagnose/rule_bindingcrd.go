package diagnose

import (
	"fmt"
)

// clusterFindings are the findings not tied to a target group.
func clusterFindings(snaps []*Snapshot) []Finding {
	var out []Finding
	r, _ := RuleFor(CodeBindingCRDMissing)
	for _, s := range snaps {
		if !s.objs.NoBindingCRD {
			continue
		}
		out = append(out, Finding{
			Code: r.Code, Severity: r.Severity, Signal: r.Signal, Cluster: s.cluster.Name,
			Message:     fmt.Sprintf("cluster %s does not serve the TargetGroupBinding CRD: the AWS Load Balancer Controller is not installed", s.cluster.Name),
			Evidence:    Evidence{Names: []string{s.cluster.Name}},
			Remediation: r.Remediation,
			Next:        NextCall{Op: OpInstallController, Cluster: s.cluster.Name},
		})
	}
	return out
}
