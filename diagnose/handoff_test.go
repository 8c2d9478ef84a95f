package diagnose

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestHandoffExactlyOnCompleteCutoverCalls: over every world of the
// finding cases (near misses included) and the golden one, a finding's
// next call carries a Handoff exactly when it is a PlanCutover call with
// nothing missing; the handoff is valid, names the call's target group,
// strategy and Service, and says what the report saw of the targets and
// when.
func TestHandoffExactlyOnCompleteCutoverCalls(t *testing.T) {
	var with, missing, other int
	check := func(t *testing.T, rep *Report) {
		t.Helper()
		for _, f := range rep.AllFindings() {
			n := f.Next
			complete := n.Op == OpPlanCutover && len(n.Missing) == 0
			switch {
			case complete != (n.Handoff != nil):
				t.Errorf("%s on %s: next %s, missing %v, handoff %v", f.Code, f.TargetGroupARN, n.Op, n.Missing, n.Handoff)
				continue
			case n.Op == OpPlanCutover && !complete:
				missing++
				continue
			case !complete:
				other++
				continue
			}
			with++
			h := n.Handoff
			if err := h.Validate(); err != nil {
				t.Errorf("%s: handoff %+v: %v", f.Code, h, err)
			}
			var tg *TargetGroupReport
			for i := range rep.TargetGroups {
				if rep.TargetGroups[i].ARN == n.TargetGroupARN.String() {
					tg = &rep.TargetGroups[i]
				}
			}
			port := intstr.FromInt32(n.Service.Port)
			if n.Service.PortName != "" {
				port = intstr.FromString(n.Service.PortName)
			}
			o := h.Observed
			if tg == nil || h.TargetGroupARN != n.TargetGroupARN || h.Strategy != n.Strategy || h.TargetType != tg.TargetType ||
				h.VPCID != tg.VPCID || h.AccountID != tg.Account || h.Region != tg.Region || h.ClusterName != n.Service.Cluster ||
				h.Service.Namespace != n.Service.Namespace || h.Service.Name != n.Service.Name || h.Service.Port != port ||
				!o.At.Equal(rep.GeneratedAt) || o.Targets != tg.Counts.Total || o.Nodes != tg.Counts.ByClass[ClassNode] ||
				o.Pods != tg.Counts.ByClass[ClassPod] || o.Ghosts != tg.Counts.ByClass[ClassGhost] ||
				o.Foreign != tg.Counts.ByClass[ClassForeign] || o.Healthy != tg.Counts.ByState["healthy"] ||
				len(h.LoadBalancerARNs) != len(tg.LoadBalancerARNs) {
				t.Errorf("%s: handoff %+v does not match the call %+v and the target group", f.Code, h, n)
			}
		}
	}
	t.Run("golden", func(t *testing.T) { check(t, goldenReport(t)) })
	for _, tt := range findingCases {
		t.Run(string(tt.code)+"/"+tt.name, func(t *testing.T) {
			w := tt.world()
			h := newHarness(t, w)
			expectAll(h.elb, w)
			if w.EC2 != nil {
				expectEC2(h.ec2, w)
			}
			rep, err := h.run(t, Scope{All: true})
			if err != nil {
				t.Fatal(err)
			}
			check(t, rep)
		})
	}
	t.Logf("%d calls with a handoff, %d PlanCutover calls with something missing, %d other calls", with, missing, other)
	if with == 0 || missing == 0 || other == 0 {
		t.Errorf("the worlds gave %d calls with a handoff, %d PlanCutover calls with something missing, %d other calls: each kind must show", with, missing, other)
	}
}
