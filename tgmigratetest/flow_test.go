package tgmigratetest_test

import (
	"testing"
	"time"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// TestFlowUnderChurn is what a user module writes to test a Diagnose ->
// PlanCutover -> Execute flow under Karpenter churn: no fake and no clock
// of its own.
func TestFlowUnderChurn(t *testing.T) {
	ctx := t.Context()
	w, err := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{Seed: 1, Nodes: 6, Pods: 12, ReadinessGateInjection: true,
		Churn: tgmigratetest.Churn{Shape: tgmigratetest.ChurnSteady, Interval: 2 * time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	tg := w.Legacy().TargetGroupARN
	rep, err := diagnose.Diagnose(ctx, diagnose.Sources{
		Accounts: []diagnose.Account{{ID: tgmigratetest.AccountID, Region: tgmigratetest.Region, ELBv2: w.ELBv2Read()}},
		Clusters: []diagnose.Cluster{w.Cluster()},
	}, diagnose.Scope{TargetGroupARNs: []tgmigrate.ARN{tg}}, diagnose.WithClock(w.Clock()))
	if err != nil {
		t.Fatal(err)
	}
	var req cutover.Request
	for _, f := range rep.AllFindings() {
		if f.Next.Handoff != nil {
			req, err = cutover.RequestFrom(*f.Next.Handoff)
		}
	}
	if err != nil || req.TargetGroupARN != tg {
		t.Fatalf("no PlanCutover handoff for %v in %+v (%v; %+v)", tg, rep.AllFindings(), err, rep.Errors)
	}
	req.Assumptions = w.Assumptions()
	env := cutover.Env{ELBv2: w.ELBv2(), EC2: w.EC2(), ServiceQuotas: w.ServiceQuotas(), Client: w.Client(), Clock: w.Clock(),
		ClusterName: tgmigratetest.ClusterName, ClusterVPCID: w.VPCID()}
	plan, err := cutover.PlanCutover(ctx, env, req)
	if err != nil {
		t.Fatal(err)
	}
	if n := plan.Network; n == nil || !n.Checked || !n.Allowed {
		t.Errorf("security-group check %+v, want checked and open to the pods", n)
	}
	if _, err := cutover.Execute(ctx, env, plan); err != nil {
		t.Fatal(err)
	}
	w.Run(10 * time.Minute) // the churn goes on
	if r := w.Requests(); r.Failed != 0 || r.Served == 0 || w.NodeTargets() != 0 {
		t.Errorf("requests %+v, node targets left %d; want none failed and none left", r, w.NodeTargets())
	}
}
