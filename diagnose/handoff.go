package diagnose

// This file builds the typed handoff (tgmigrate.Handoff) a PlanCutover
// call carries: what cutover.RequestFrom needs, and what this report saw of
// the target group.

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate"
)

// withHandoff sets c.Handoff when c is a PlanCutover call with nothing
// missing, and leaves it nil otherwise: the handoff is the call's
// argument, made only when every part of it is known.
func (a *analysis) withHandoff(c NextCall) NextCall {
	if c.Op != OpPlanCutover || len(c.Missing) > 0 || a.service == nil || a.service.svc == nil || a.service.port == nil {
		return c
	}
	port := intstr.FromInt32(a.service.port.Port)
	if a.service.port.Name != "" {
		port = intstr.FromString(a.service.port.Name)
	}
	ref := a.service.ref
	n := a.rep.Counts.ByClass
	c.Handoff = &tgmigrate.Handoff{
		TargetGroupARN: a.rep.ARN, AccountID: a.rep.Account, Region: a.rep.Region, VPCID: a.rep.VPCID,
		TargetType: a.rep.TargetType, Strategy: c.Strategy, ClusterName: ref.Cluster,
		Service:          tgmigrate.HandoffService{Namespace: ref.Namespace, Name: ref.Name, Port: port},
		LoadBalancerARNs: slices.Clone(a.rep.LoadBalancerARNs),
		Observed: tgmigrate.HandoffObservation{
			At: a.now.UTC(), Targets: a.rep.Counts.Total,
			Nodes: n[ClassNode], Pods: n[ClassPod], Ghosts: n[ClassGhost], Foreign: n[ClassForeign],
			Healthy: a.rep.Counts.ByState["healthy"],
		},
	}
	return c
}
