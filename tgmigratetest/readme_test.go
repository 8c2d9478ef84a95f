package tgmigratetest_test

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// TestMigrationUnderChurn migrates the world's hand-made target group to
// its pods under Karpenter's churn, and asserts that no request failed.
func TestMigrationUnderChurn(t *testing.T) {
	ctx := t.Context()
	w, err := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{
		Seed: 1, Nodes: 4, Pods: 8,
		// A prepared cluster: pods behind the binding get the controller's
		// readiness gate. Without it, the plan's precondition refuses Execute.
		ReadinessGateInjection: true,
		Churn:                  tgmigratetest.Churn{Shape: tgmigratetest.ChurnSteady, Interval: 2 * time.Minute},
	})
	if err != nil {
		t.Fatal(err)
	}
	env := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock(),
		ClusterName: w.ClusterName(), ClusterVPCID: w.VPCID()}
	l := w.Legacy()
	plan, err := cutover.PlanCutover(ctx, env, cutover.Request{
		TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace, Service: l.Service,
		Port:        intstr.FromString(l.PortName),
		Assumptions: w.Assumptions(), // the world's AWS timings
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cutover.Execute(ctx, env, plan); err != nil {
		t.Fatal(err)
	}
	w.Run(10 * time.Minute) // the churn goes on
	if r := w.Requests(); r.Failed != 0 || w.NodeTargets() != 0 || w.Ghosts() != 0 {
		t.Errorf("requests %+v, %d node targets, %d ghosts; want none failed and none left", r, w.NodeTargets(), w.Ghosts())
	}
}
