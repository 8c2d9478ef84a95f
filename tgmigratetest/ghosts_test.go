package tgmigratetest_test

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// TestGhostsAndDraining: a static target group under churn has ghosts
// that take requests; after a migration under churn, the controller
// deregisters each evicted pod: those targets drain (Draining rises) and
// are not ghosts (Ghosts stays zero), as diagnose and the CLI count them.
func TestGhostsAndDraining(t *testing.T) {
	ctx := t.Context()
	opts := tgmigratetest.Options{Seed: 1, Nodes: 4, Pods: 8, ReadinessGateInjection: true,
		Churn: tgmigratetest.Churn{Shape: tgmigratetest.ChurnSteady, Interval: time.Minute}}

	static := newWorld(t, opts)
	static.Run(5 * time.Minute)
	if static.Ghosts() == 0 || static.Requests().Failed == 0 {
		t.Errorf("static under churn: %d ghosts, requests %+v; want ghosts that fail requests", static.Ghosts(), static.Requests())
	}

	w := newWorld(t, opts)
	l := w.Legacy()
	env := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock(), ClusterName: w.ClusterName(), ClusterVPCID: w.VPCID()}
	plan, err := cutover.PlanCutover(ctx, env, cutover.Request{TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace,
		Service: l.Service, Port: intstr.FromString(l.PortName), Assumptions: w.Assumptions()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cutover.Execute(ctx, env, plan); err != nil {
		t.Fatal(err)
	}
	maxGhosts, maxDraining := 0, 0
	for range 20 {
		w.Run(30 * time.Second)
		maxGhosts, maxDraining = max(maxGhosts, w.Ghosts()), max(maxDraining, w.Draining())
	}
	t.Logf("after the migration: up to %d ghosts, up to %d draining; requests %+v", maxGhosts, maxDraining, w.Requests())
	if maxGhosts != 0 || maxDraining == 0 || w.Requests().Failed != 0 {
		t.Errorf("after the migration, under churn: up to %d ghosts, up to %d draining, requests %+v; want no ghost, some draining, none failed",
			maxGhosts, maxDraining, w.Requests())
	}
}
