package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim"
	simcluster "github.com/qstools/tgmigrate/internal/sim/cluster"
)

// TestPlanRBAC: plan --rbac prints the plan's Role and ClusterRole as the
// YAML cutover renders (Plan.ClusterRules), with the bindings of each
// --rbac-subject; with --format json the rules and their reasons; a
// malformed subject, or --rbac-subject without --rbac, is a usage error.
func TestPlanRBAC(t *testing.T) {
	isolate(t)
	w := testWorld(t, simFlags{seed: 1, nodes: sim.DefaultNodes, pods: sim.DefaultPods, rps: 20, churn: "steady"}, strategyPhased)
	run := onWorld(t, w)
	l := w.Legacy()
	base := []string{"plan", "--target-group", l.TargetGroupARN, "-n", l.Namespace, "--service", l.Service, "--port", l.PortName, "--cluster-vpc", l.VPCID}
	rules, err := testPlan(t, w).ClusterRules()
	if err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr := run(append(base, "--rbac", "--rbac-subject", "serviceaccount:ops/tgmigrate", "--rbac-subject", "group:platform")...)
	if code != exitOK {
		t.Fatalf("plan --rbac: exit %d, stderr %q", code, stderr)
	}
	want, err := rules.YAML(rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: "ops", Name: "tgmigrate"},
		rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "platform"})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), stdout); d != "" {
		t.Errorf("plan --rbac (-cutover's YAML +printed):\n%s", d)
	}
	for _, s := range []string{"kind: Role\n", "kind: ClusterRole\n", "kind: RoleBinding\n", "kind: ClusterRoleBinding\n", "namespace: " + l.Namespace,
		"#   patch nodes: the hold annotates karpenter.sh/do-not-disrupt"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("plan --rbac lacks %q", s)
		}
	}

	code, stdout, stderr = run(append([]string{"--format", "json"}, append(base, "--rbac")...)...)
	if code != exitOK {
		t.Fatalf("plan --rbac --format json: exit %d, stderr %q", code, stderr)
	}
	var got cutover.RBAC
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	if d := cmp.Diff(*rules, got); d != "" {
		t.Errorf("plan --rbac --format json (-ClusterRules +printed):\n%s", d)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--rbac", "--rbac-subject", "serviceaccount:tgmigrate"}, "needs its namespace"},
		{[]string{"--rbac", "--rbac-subject", "robot:r2d2"}, "unknown kind robot"},
		{[]string{"--rbac-subject", "user:alice"}, "--rbac-subject goes with --rbac"},
		{[]string{"--rbac", "--iam-policy"}, "give one"},
	} {
		code, _, stderr := run(append(base, tt.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("plan %v: exit %d, stderr %q; want a usage error with %q", tt.args, code, stderr, tt.want)
		}
	}
}

// denyingClient is the world's client answering SelfSubjectAccessReviews
// as an API server whose RBAC lacks the hold's node rules would.
type denyingClient struct {
	client.Client
	scheme *runtime.Scheme
}

func (c *denyingClient) Scheme() *runtime.Scheme { return c.scheme }

func (c *denyingClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if r, ok := obj.(*authorizationv1.SelfSubjectAccessReview); ok {
		a := r.Spec.ResourceAttributes
		r.Status.Allowed = a.Resource != "nodes" || a.Verb == "list"
		return nil
	}
	return c.Client.Create(ctx, obj, opts...)
}

// TestExecuteRefusedByPermissionCheck: execute on a cluster that denies
// the hold's node rules exits 2 naming them, says how to print the plan's
// rules, and changes nothing.
func TestExecuteRefusedByPermissionCheck(t *testing.T) {
	isolate(t)
	w := testWorld(t, simFlags{seed: 1, nodes: 4, pods: 8, rps: 20, churn: "steady"}, strategyPhased)
	scheme, err := simcluster.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	if err := authorizationv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	l := w.Legacy()
	planFile := filepath.Join(t.TempDir(), "plan.json")
	if code, _, stderr := onWorld(t, w)("plan", "--target-group", l.TargetGroupARN, "-n", l.Namespace, "--service", l.Service, "--port", l.PortName, "--out", planFile); code != exitOK {
		t.Fatalf("plan: exit %d, stderr %q", code, stderr)
	}
	var stdout, stderr bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}
	a.newCutoverEnv = func(context.Context, string, string) (cutover.Env, error) {
		env := newEnv(w)
		env.Client = &denyingClient{Client: env.Client, scheme: scheme}
		return env, nil
	}
	code := a.run(t.Context(), []string{"execute", "--plan", planFile, "--yes", "--accept-preconditions", "pod-settings"})
	for _, want := range []string{"missing kubernetes permissions", "get nodes (cluster-wide): the hold reads a node", "patch nodes (cluster-wide): the hold annotates",
		"the Kubernetes rules of this plan: tgmigrate plan --target-group " + l.TargetGroupARN + " -n " + l.Namespace + " --service " + l.Service + " --port " + l.PortName + " --rbac"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	if m := mutatingCalls(w); m != 0 {
		t.Errorf("the refused execute made %d mutating calls", m)
	}
}
