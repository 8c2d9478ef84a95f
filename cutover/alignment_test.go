package cutover_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"

	"github.com/qstools/tgmigrate/cutover"
)

// podPortCheck turns the cutover's health-check alignment (to the pods'
// readiness path) into one that probes the pods' container port: the pod
// targets pass it, the node targets (nodeIP:NodePort) refuse it. The
// simulator's nodes pass any check the pods pass, so this is how a test
// makes the plan's assumption (the node targets pass the aligned check)
// false. Other ModifyTargetGroup calls (the rollback's) go through as they
// are.
type podPortCheck struct {
	cutover.ELBv2API
	port    string
	path    string
	applied int
}

func (a *podPortCheck) ModifyTargetGroup(ctx context.Context, in *elbv2.ModifyTargetGroupInput, o ...func(*elbv2.Options)) (*elbv2.ModifyTargetGroupOutput, error) {
	if aws.ToString(in.HealthCheckPath) == a.path {
		c := *in
		c.HealthCheckPort = aws.String(a.port)
		in = &c
		a.applied++
	}
	return a.ELBv2API.ModifyTargetGroup(ctx, in, o...)
}

// TestAlignmentBreachRollsBack: the health check is aligned before the
// binding because the node targets should pass it too; they do not. Within
// the confirmation window (the node targets must stay healthy for
// UnhealthyThresholdCount intervals of the new check) the gate finds node
// targets of live nodes unhealthy and stops with an *InvariantError (check
// "health-check") naming them, before any node target is deregistered;
// the automatic rollback (under the hold that still stands) restores the
// health check first, registers nothing twice, waits for the node targets
// to be healthy again, deletes the binding and releases the hold. No
// request fails.
func TestAlignmentBreachRollsBack(t *testing.T) {
	t.Parallel() // a world of its own
	s := newScenario(t, smallWorld(124))
	p := s.plan(nil)
	if p.HealthCheck.Timing != cutover.HealthCheckBeforeBinding {
		t.Fatalf("timing %s, want %s", p.HealthCheck.Timing, cutover.HealthCheckBeforeBinding)
	}
	api := &podPortCheck{ELBv2API: s.api, port: "8080", path: p.HealthCheck.Target.Path}
	env := s.env
	env.ELBv2 = api
	start := s.w.Clock().Now()
	res, err := cutover.Execute(t.Context(), env, p, simPods)
	var ie *cutover.InvariantError
	if !errors.As(err, &ie) || ie.Check != "health-check" || ie.Step != cutover.StepGate || len(ie.Targets) == 0 {
		t.Fatalf("Execute: %v, want an *InvariantError of the gate's health-check check", err)
	}
	if api.applied != 1 {
		t.Fatalf("the aligned check was sent %d times", api.applied)
	}
	for _, x := range ie.Targets {
		if !slices.Contains(p.RecordedAddrs(), x) {
			t.Errorf("%s is not a recorded node target", x)
		}
	}
	if res.Deregistered != 0 {
		t.Errorf("%d node targets deregistered before the breach was found", res.Deregistered)
	}
	if !res.RolledBack || res.Rollback == nil || len(res.Rollback.Actions) < 2 || res.Rollback.Actions[0].ID != cutover.RollbackHoldDisruption ||
		res.Rollback.Actions[1].ID != cutover.RollbackRestoreHealthCheck {
		t.Fatalf("rollback %+v: want it done, holding the disruption (Execute's hold stands), then restoring the health check first", res.Rollback)
	}
	t.Logf("%v after the start: %s; rolled back in %.0f s", s.w.Clock().Since(start), ie.Detail, res.Rollback.Seconds)
	s.checkHealthCheck(true)
	if s.bindingExists(p) {
		t.Error("the binding is still there")
	}
	s.settle()
	s.checkNodesOnly()
	if st := s.w.Traffic(); st.Failed != 0 {
		t.Errorf("traffic: %s", st.String())
	}
}
