package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/timing"
)

// TestPlanAndExecutePreconditions: plan prints the pod-settings
// precondition of a Service whose pods are not safe under the default
// assumptions (the simulator's 15 s preStop against the 130 s a 120 s
// deregistration lag needs), and says how execute treats it; execute
// refuses the plan (exit 2, nothing changed) until
// --accept-preconditions pod-settings, and refuses a kind it does not
// know.
func TestPlanAndExecutePreconditions(t *testing.T) {
	isolate(t)
	// The original app's pods (15 s preStop, 30 s grace), no churn.
	w := testWorld(t, simFlags{seed: 7, nodes: 4, pods: 8, rps: 20, churn: "steady"}, strategyPhasedAsIs)
	run := onWorld(t, w)
	l := w.Legacy()
	planFile := filepath.Join(t.TempDir(), "plan.json")
	code, stdout, stderr := run("plan", "--target-group", l.TargetGroupARN, "-n", l.Namespace, "--service", l.Service, "--port", l.PortName,
		"--cluster-vpc", l.VPCID, "--out", planFile)
	if code != exitOK {
		t.Fatalf("plan: exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"Precondition pod-settings:", "preStop: seen 15 s on 8 of 8 pods; need a preStop sleep of at least 130 s",
		"terminationGracePeriodSeconds: seen 30 s on 8 of 8 pods; need terminationGracePeriodSeconds of at least 160"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("plan's output lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "execute refuses this plan unless --accept-preconditions pod-settings") {
		t.Errorf("plan's stderr %q: want the hint", stderr)
	}

	failedBefore := w.Traffic().Failed
	code, _, stderr = run("execute", "--plan", planFile, "--yes", "--cluster-vpc", l.VPCID)
	if code != exitUsage || !strings.Contains(stderr, "plan precondition not accepted") || !strings.Contains(stderr, "--accept-preconditions pod-settings") {
		t.Fatalf("execute without the flag: exit %d, stderr %q: want a refusal naming the flag", code, stderr)
	}
	if m := mutatingCalls(w); m != 0 {
		t.Errorf("the refused execute made %d mutating calls", m)
	}
	code, _, stderr = run("execute", "--plan", planFile, "--yes", "--accept-preconditions", "pods")
	if code != exitUsage || !strings.Contains(stderr, `--accept-preconditions "pods"`) {
		t.Errorf("an unknown kind: exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr = run("execute", "--plan", planFile, "--yes", "--cluster-vpc", l.VPCID, "--accept-preconditions", "pod-settings")
	if code != exitOK || !strings.Contains(stdout, "(in-place): completed") || !strings.Contains(stdout, "precondition pod-settings accepted") {
		t.Fatalf("execute with the flag: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if failed := w.Traffic().Failed - failedBefore; failed != 0 {
		t.Errorf("%d requests failed", failed)
	}
}

// mutatingCalls counts the simulator's mutating ELBv2 calls.
func mutatingCalls(w *sim.World) int {
	n := 0
	for _, c := range w.ELBv2().Calls() {
		switch c.Op {
		case "RegisterTargets", "DeregisterTargets", "ModifyTargetGroup", "CreateTargetGroup", "DeleteTargetGroup", "ModifyListener", "ModifyRule", "AddTags", "ModifyTargetGroupAttributes":
			n++
		}
	}
	return n
}

// TestPlanSecurityGroups: on a world whose nodes' security group does not
// let the load balancer reach the pods' port, plan says so and has the
// controller open it (spec.networking), and --controller-policy prints
// what the controller's role then needs; with --leave-security-groups the
// plan carries the security-group precondition naming the missing rule,
// and execute refuses it, changing nothing.
func TestPlanSecurityGroups(t *testing.T) {
	isolate(t)
	cfg := (&simFlags{seed: 7, nodes: 4, pods: 8, rps: 20, churn: "steady"}).config(strategyPhased, timing.Defaults())
	cfg.PodPortBlocked = true
	w, err := sim.New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	run := onWorld(t, w)
	l := w.Legacy()
	base := []string{"plan", "--target-group", l.TargetGroupARN, "-n", l.Namespace, "--service", l.Service, "--port", l.PortName, "--cluster-vpc", l.VPCID}
	code, stdout, stderr := run(base...)
	if code != exitOK || !strings.Contains(stdout, "network:       tcp/8080 from "+sim.LoadBalancerSecurityGroup+" to "+sim.NodeSecurityGroup+": blocked") ||
		!strings.Contains(stdout, "spec.networking lets the controller authorize") {
		t.Fatalf("plan: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	code, stdout, stderr = run(append(base, "--controller-policy")...)
	if code != exitOK || !strings.Contains(stdout, "ec2:AuthorizeSecurityGroupIngress") || !strings.Contains(stdout, "ec2:DescribeVpcs") ||
		!strings.Contains(stdout, "security-group/"+sim.NodeSecurityGroup) {
		t.Fatalf("plan --controller-policy: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	planFile := filepath.Join(t.TempDir(), "plan.json")
	code, stdout, stderr = run(append(base, "--leave-security-groups", "--out", planFile)...)
	rule := "missing ingress tcp/8080 on " + sim.NodeSecurityGroup + " from " + sim.LoadBalancerSecurityGroup
	if code != exitOK || !strings.Contains(stdout, "Precondition security-group:") || !strings.Contains(stderr, rule) {
		t.Fatalf("plan --leave-security-groups: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	code, _, stderr = run("execute", "--plan", planFile, "--yes", "--cluster-vpc", l.VPCID, "--accept-preconditions", "pod-settings")
	if code != exitUsage || !strings.Contains(stderr, rule) || !strings.Contains(stderr, "--accept-preconditions security-group") {
		t.Fatalf("execute: exit %d, stderr %q: want a refusal naming the rule and the flag", code, stderr)
	}
	if m := mutatingCalls(w); m != 0 {
		t.Errorf("the refused execute made %d mutating calls", m)
	}
}

// testWorld builds the simulated world of f under strategy, closed when
// the test ends.
func testWorld(t *testing.T, f simFlags, strategy string) *sim.World {
	t.Helper()
	w, err := sim.New(t.Context(), f.config(strategy, timing.Defaults()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w
}

// testPlan plans the cutover of w's legacy target group, as simulate does.
func testPlan(t *testing.T, w *sim.World) *cutover.Plan {
	t.Helper()
	req, err := request(w)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := cutover.PlanCutover(t.Context(), newEnv(w), req)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// onWorld returns a runner of the CLI whose cutover commands act on w.
func onWorld(t *testing.T, w *sim.World) func(args ...string) (int, string, string) {
	return func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}
		a.newCutoverEnv = func(context.Context, string, string) (cutover.Env, error) { return newEnv(w), nil }
		code := a.run(t.Context(), args)
		return code, stdout.String(), stderr.String()
	}
}
