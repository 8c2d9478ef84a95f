package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
	"github.com/qstools/tgmigrate/subnets"
)

// TestSubnetsBadInputs: every malformed flag of the subnets commands is a
// usage error (exit 2) of one line naming the flag and its form, found
// before the environment is built: no kubeconfig, no credential, no call.
func TestSubnetsBadInputs(t *testing.T) {
	home := isolate(t)
	corrupt := filepath.Join(home, "corrupt.json")
	if err := os.WriteFile(corrupt, []byte(`{"schemaVersion": 1, "id": "move-x"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cluster := []string{"--cluster-name", "prod", "--cluster-vpc", "vpc-0123456789abcdef0"}
	check := func(args ...string) []string {
		return append(append([]string{"subnets", "check"}, cluster...), args...)
	}
	plan := func(args ...string) []string { return append(append([]string{"subnets", "plan"}, cluster...), args...) }
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"check without cluster", []string{"subnets", "check", "--cluster-vpc", "vpc-0123456789abcdef0"}, "--cluster-name is required"},
		{"check without VPC", []string{"subnets", "check", "--cluster-name", "prod"}, "--cluster-vpc is required: the cluster's VPC ID (vpc- and 8 or 17 hex digits)"},
		{"check short VPC", []string{"subnets", "check", "--cluster-name", "prod", "--cluster-vpc", "vpc-12"}, `--cluster-vpc "vpc-12": want a VPC ID, vpc- and 8 or 17 hex digits`},
		{"check subnet not an ID", check("--private-subnet", "private-a"), `--private-subnet "private-a": want a subnet ID, subnet- and 8 or 17 hex digits`},
		{"check tag without value", check("--private-subnet-tag", "tier="), `--private-subnet-tag "tier=": tag tier has no value (use * for any): want KEY=VALUE[,KEY=VALUE...]`},
		{"check tag not KEY=VALUE", check("--private-subnet-tag", "tier"), `--private-subnet-tag "tier": "tier" is not KEY=VALUE`},
		{"check tag twice", check("--private-subnet-tag", "a=1,a=2"), "tag a twice"},
		{"check node class", check("--node-class", "Default_Class"), `--node-class "Default_Class": want an EC2NodeClass's name`},
		{"check negative launch", check("--launch-time", "-1m"), "--launch-time -1m0s: want a duration of 0 or more"},
		{"check negative drain", check("--drain-time", "-5s"), "--drain-time -5s"},
		{"check sarif", append([]string{"--format", "sarif"}, check()...), `--format "sarif": tgmigrate subnets check prints text, json or markdown`},
		{"check bad role", append([]string{"--assume-role", "arn:aws:iam::12:role/x"}, check()...), "--assume-role"},
		{"plan zero budget", plan("--move-budget", "0"), `--move-budget "0": want a count of 1 or more or a percentage from 1% to 100%`},
		{"plan zero percent", plan("--move-budget", "0%"), `--move-budget "0%"`},
		{"plan budget over 100%", plan("--move-budget", "150%"), `--move-budget "150%"`},
		{"plan budget word", plan("--move-budget", "one"), `--move-budget "one"`},
		{"plan markdown", append([]string{"-o", "markdown"}, plan()...), `--format "markdown": tgmigrate subnets plan prints text or json`},
		{"execute without plan", []string{"subnets", "execute", "--yes"}, "--plan is required"},
		{"execute missing plan", []string{"subnets", "execute", "--plan", filepath.Join(home, "move.json")}, "move.json"},
		{"execute corrupt plan", []string{"subnets", "execute", "--plan", corrupt}, "not a subnets plan"},
		{"execute namespace", []string{"subnets", "execute", "--plan", corrupt, "-n", "Ops_1"}, `--namespace "Ops_1": want a namespace's name`},
		{"execute zero poll", []string{"subnets", "execute", "--plan", corrupt, "--poll-interval", "0s"}, "--poll-interval 0s: want a duration above 0"},
		{"execute negative timeout", []string{"subnets", "execute", "--plan", corrupt, "--timeout", "-1m"}, "--timeout -1m0s"},
		{"rollback without source", []string{"subnets", "rollback", "--yes"}, "give --plan FILE, or --cluster-name NAME"},
		{"rollback both sources", []string{"subnets", "rollback", "--plan", corrupt, "--cluster-name", "prod"}, "--plan and --cluster-name: give one"},
		{"rollback corrupt plan", []string{"subnets", "rollback", "--plan", corrupt, "--yes"}, "not a subnets plan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}
			built := 0
			a.newSubnetsEnv = func(context.Context) (*subnetsEnv, error) {
				built++
				return nil, context.Canceled
			}
			code := a.run(t.Context(), tt.args)
			if code != exitUsage {
				t.Errorf("exit code %d, want %d (stderr %q)", code, exitUsage, stderr.String())
			}
			if lines := strings.Split(strings.TrimSpace(stderr.String()), "\n"); len(lines) != 1 || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr %q, want one line containing %q", stderr.String(), tt.want)
			}
			if built != 0 {
				t.Errorf("the environment was built %d times: a call could have been made", built)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q, want nothing", stdout.String())
			}
		})
	}
}

// validReadiness checks that data, the output of check -o json, is a
// readiness report that validates against subnets.ReadinessSchema, and
// returns it.
func validReadiness(t *testing.T, data []byte) *subnets.Readiness {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(subnets.ReadinessSchema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("readiness.v1.json", doc); err != nil {
		t.Fatal(err)
	}
	c.AssertFormat()
	schema, err := c.Compile("readiness.v1.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("check -o json is not JSON: %v\n%s", err, data)
	}
	if err := schema.Validate(inst); err != nil {
		t.Errorf("check -o json does not validate against subnets.ReadinessSchema: %v", err)
	}
	var r subnets.Readiness
	if err := json.Unmarshal(data, &r); err != nil || r.SchemaVersion != subnets.ReadinessSchemaVersion {
		t.Fatalf("check -o json: schema version %d, %v", r.SchemaVersion, err)
	}
	return &r
}

// TestSubnetsEnvErrors: with no seam the commands load the kubeconfig, then
// the credentials, and say which is missing in one line (exit 2).
func TestSubnetsEnvErrors(t *testing.T) {
	home := isolate(t)
	kubeconfig := writeKubeconfig(t, home)
	check := []string{"subnets", "check", "--cluster-name", "prod", "--cluster-vpc", "vpc-0123456789abcdef0"}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no kubeconfig", check, "no kubeconfig"},
		{"no credentials", append([]string{"--kubeconfig", kubeconfig}, check...), "no AWS credentials"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != exitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tt.want) || stdout != "" {
				t.Errorf("exit %d, want %d; stderr %q, want one line containing %q; stdout %q", code, exitUsage, stderr, tt.want, stdout)
			}
		})
	}
}

// moveWorld is step 4's world (the nodes in public subnets, Karpenter's
// EC2NodeClass selecting them, the VPC's subnets in EC2), as simulate's
// scenario private-subnets builds it. cutOver runs phased's cutover in it,
// after which no target group pins a node IP.
func moveWorld(t *testing.T) (w *sim.World, cutOver func()) {
	t.Helper()
	f := simFlags{seed: 7, nodes: 6, pods: 12, rps: 20, churnInterval: time.Minute, churn: "steady", scenario: scenarioPrivateSubnets}
	w = testWorld(t, f, strategyPhased)
	return w, func() {
		t.Helper()
		if _, err := runPhased(t.Context(), w, newEnv(w), testPlan(t, w), scenarioPrivateSubnets, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// subnetsOn returns a runner of the CLI whose subnets commands act on w.
// Every run is given the cluster's flags where the command takes them.
func subnetsOn(t *testing.T, w *sim.World) func(ctx context.Context, stdout, stderr io.Writer, args ...string) int {
	return func(ctx context.Context, stdout, stderr io.Writer, args ...string) int {
		a := &app{stdin: strings.NewReader(""), stdout: stdout, stderr: stderr}
		a.newSubnetsEnv = func(context.Context) (*subnetsEnv, error) {
			return &subnetsEnv{AccountID: sim.DefaultAccountID, Region: sim.DefaultRegion, Client: w.Client(), EC2: w.EC2(), ELBv2: w.AWS(),
				Clock: w.Clock(), Holder: "tgmigrate-test"}, nil
		}
		return a.run(ctx, args)
	}
}

// TestSubnetsCheckPlanExecuteRollback walks step 4 on the simulated
// world: before the cutover check finds the node IPs pinned (exit 1) and
// plan plans nothing; after it check is ready in every format, plan saves
// the plan; execute without --yes lists its writes and changes nothing;
// execute --yes moves every node to a private subnet with no failed
// request; rollback puts the node classes back as read, after which
// execute refuses the plan.
func TestSubnetsCheckPlanExecuteRollback(t *testing.T) {
	isolate(t)
	w, cutOver := moveWorld(t)
	run := subnetsOn(t, w)
	cluster := []string{"--cluster-name", sim.ClusterName, "--cluster-vpc", w.Legacy().VPCID}
	planFile := filepath.Join(t.TempDir(), "move.json")
	var stdout, stderr bytes.Buffer
	do := func(args ...string) int {
		t.Helper()
		stdout.Reset()
		stderr.Reset()
		return run(t.Context(), &stdout, &stderr, args...)
	}

	if code := do(append([]string{"subnets", "check"}, cluster...)...); code != exitFindings ||
		!strings.Contains(stdout.String(), "NOT READY") || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "NodeIPsPinned") {
		t.Fatalf("check before the cutover: exit %d, want %d and NodeIPsPinned\nstdout %s\nstderr %s", code, exitFindings, stdout.String(), stderr.String())
	}
	if code := do(append([]string{"subnets", "check", "-o", "json"}, cluster...)...); code != exitFindings {
		t.Fatalf("check -o json before the cutover: exit %d, want %d\nstderr %s", code, exitFindings, stderr.String())
	}
	if r := validReadiness(t, stdout.Bytes()); r.Ready {
		t.Errorf("check -o json before the cutover: ready")
	}
	if code := do(append([]string{"subnets", "plan", "--out", planFile}, cluster...)...); code != exitFindings || stdout.Len() != 0 || !strings.Contains(stderr.String(), "nothing planned") {
		t.Fatalf("plan before the cutover: exit %d\nstdout %s\nstderr %s", code, stdout.String(), stderr.String())
	}
	if _, err := os.Stat(planFile); !os.IsNotExist(err) {
		t.Fatalf("plan of a cluster not ready wrote %s: %v", planFile, err)
	}

	cutOver()
	for _, format := range []string{"text", "json", "markdown"} {
		if code := do(append([]string{"subnets", "check", "-o", format}, cluster...)...); code != exitOK {
			t.Fatalf("check -o %s after the cutover: exit %d\nstdout %s\nstderr %s", format, code, stdout.String(), stderr.String())
		}
		switch format {
		case "json":
			if r := validReadiness(t, stdout.Bytes()); !r.Ready || len(r.NodeClasses) == 0 {
				t.Errorf("check -o json: ready %t, %d node classes; want ready, with the node classes to move", r.Ready, len(r.NodeClasses))
			}
		case "markdown":
			if !strings.HasPrefix(stdout.String(), "# Readiness to move cluster "+sim.ClusterName) {
				t.Errorf("check -o markdown:\n%s", stdout.String())
			}
		default:
			if !strings.Contains(stdout.String(), "READY: no finding blocks the move") {
				t.Errorf("check:\n%s", stdout.String())
			}
		}
	}
	if code := do(append([]string{"subnets", "plan", "--move-budget", "1", "--out", planFile}, cluster...)...); code != exitOK || !strings.Contains(stdout.String(), "Step 1 "+subnets.StepTightenBudgets) {
		t.Fatalf("plan: exit %d\nstdout %s\nstderr %s", code, stdout.String(), stderr.String())
	}
	data, err := os.ReadFile(planFile)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := subnets.DecodePlan(data)
	if err != nil {
		t.Fatalf("the plan file: %v", err)
	}
	if !strings.Contains(stdout.String(), "Plan "+plan.ID) {
		t.Errorf("plan prints another plan than it saved (%s):\n%s", plan.ID, stdout.String())
	}

	before, err := karpenterObjects(t.Context(), w)
	if err != nil {
		t.Fatal(err)
	}
	_, publicBefore := nodesByTier(w)
	if code := do("subnets", "execute", "--plan", planFile, "-n", sim.DefaultNamespace); code != exitOK ||
		!strings.Contains(stdout.String(), "would write EC2NodeClass/") || !strings.Contains(stdout.String(), "would write NodePool/") ||
		!strings.Contains(stderr.String(), "dry run: nothing was changed; pass --yes to execute") {
		t.Fatalf("execute (dry run): exit %d\nstdout %s\nstderr %s", code, stdout.String(), stderr.String())
	}
	after, err := karpenterObjects(t.Context(), w)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before, after); d != "" {
		t.Errorf("the dry run changed the node classes, pools or journal (-before +after):\n%s", d)
	}
	if _, public := nodesByTier(w); publicBefore == 0 || public != publicBefore {
		t.Errorf("public nodes %d before the dry run, %d after; want the same, and some", publicBefore, public)
	}

	failed, total := w.Traffic().Failed, w.Traffic().Total
	if code := do("subnets", "execute", "--plan", planFile, "-n", sim.DefaultNamespace, "--yes"); code != exitOK ||
		!strings.Contains(stdout.String(), "move "+plan.ID+": completed;") {
		t.Fatalf("execute --yes: exit %d\nstdout %s\nstderr %s", code, stdout.String(), stderr.String())
	}
	if served := w.Traffic().Total - total; served < 1000 {
		t.Errorf("%d requests served during the move: the traffic did not run", served)
	}
	for _, step := range []string{subnets.StepPatchNodeClasses, subnets.StepWatchReplacement, subnets.StepVerifyPrivate} {
		if !strings.Contains(stderr.String(), step+": done") {
			t.Errorf("no progress line %q:\n%s", step+": done", stderr.String())
		}
	}
	if private, public := nodesByTier(w); public != 0 || private == 0 {
		t.Errorf("after the move: %d private, %d public nodes; want all private", private, public)
	}
	if f := w.Traffic().Failed - failed; f != 0 {
		t.Errorf("%d requests failed during the move, want 0", f)
	}

	moved, err := karpenterObjects(t.Context(), w)
	if err != nil {
		t.Fatal(err)
	}
	if code := do("subnets", "rollback", "--plan", planFile, "-n", sim.DefaultNamespace, "-o", "json"); code != exitOK ||
		!strings.Contains(stderr.String(), "dry run: nothing was changed; pass --yes to roll back") {
		t.Fatalf("rollback (dry run): exit %d\nstdout %s\nstderr %s", code, stdout.String(), stderr.String())
	}
	var dry subnets.Result
	if err := json.Unmarshal(stdout.Bytes(), &dry); err != nil || !dry.DryRun || dry.PlanID != plan.ID || len(dry.Writes) != len(plan.NodeClasses) {
		t.Errorf("rollback -o json (dry run): %+v, %v; want a dry run of %s writing the %d node classes back", dry, err, plan.ID, len(plan.NodeClasses))
	}
	if now, err := karpenterObjects(t.Context(), w); err != nil || !cmp.Equal(moved, now) {
		t.Errorf("the rollback's dry run changed the node classes, pools or journal: %s", cmp.Diff(moved, now))
	}

	if code := do("subnets", "rollback", "--cluster-name", sim.ClusterName, "-n", sim.DefaultNamespace, "--yes"); code != exitOK ||
		!strings.Contains(stdout.String(), "rollback "+plan.ID+": completed;") {
		t.Fatalf("rollback --yes from the journal: exit %d\nstdout %s\nstderr %s", code, stdout.String(), stderr.String())
	}
	restored, err := karpenterObjects(t.Context(), w)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range before {
		if !strings.HasPrefix(k, "ConfigMap/") && restored[k] != v {
			t.Errorf("%s after the rollback:\n%s\nwant as read:\n%s", k, restored[k], v)
		}
	}
	if _, public := nodesByTier(w); public == 0 {
		t.Errorf("after the rollback no node is public: the replacement was not watched back")
	}
	if code := do("subnets", "execute", "--plan", planFile, "-n", sim.DefaultNamespace, "--yes"); code != exitUsage || !strings.Contains(stderr.String(), "rolled back") {
		t.Errorf("execute of a rolled-back plan: exit %d, want %d\nstderr %s", code, exitUsage, stderr.String())
	}
	if f := w.Traffic().Failed - failed; f != 0 {
		t.Errorf("%d requests failed during the move and its rollback, want 0", f)
	}
}

// TestSubnetsExecuteResumes: Ctrl-C while the watch sees the first nodes
// leave leaves the journal with the node classes patched and prints the
// command lines that resume and roll back; the resume line finishes the
// move from the journal, the patch already done, with no failed request.
func TestSubnetsExecuteResumes(t *testing.T) {
	isolate(t)
	w, cutOver := moveWorld(t)
	cutOver()
	run := subnetsOn(t, w)
	planFile := filepath.Join(t.TempDir(), "move.json")
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), &stdout, &stderr, "subnets", "plan", "--cluster-name", sim.ClusterName, "--cluster-vpc", w.Legacy().VPCID, "--out", planFile); code != exitOK {
		t.Fatalf("plan: exit %d\n%s", code, stderr.String())
	}
	failed := w.Traffic().Failed
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	interrupted := &cancelOn{marker: "; left: ", cancel: cancel}
	stdout.Reset()
	if code := run(ctx, &stdout, interrupted, "subnets", "execute", "--plan", planFile, "-n", sim.DefaultNamespace, "--poll-interval", "5s", "--yes"); code == exitOK {
		t.Fatalf("interrupted execute exits 0\nstdout %s\nstderr %s", stdout.String(), interrupted)
	}
	out := interrupted.String()
	var resume, rollback string
	for _, line := range strings.Split(out, "\n") {
		if r, ok := strings.CutPrefix(line, "  resume:    "); ok {
			resume = r
		}
		if r, ok := strings.CutPrefix(line, "  roll back: "); ok {
			rollback = r
		}
	}
	flags := " --plan " + planFile + " --namespace " + sim.DefaultNamespace + " --poll-interval 5s --yes"
	if resume != "tgmigrate subnets execute"+flags || rollback != "tgmigrate subnets rollback"+flags {
		t.Fatalf("hints:\n resume    %s\n roll back %s\nwant the commands with%s\nstderr:\n%s", resume, rollback, flags, out)
	}
	j, err := subnets.NewConfigMapJournal(w.Client(), sim.DefaultNamespace, sim.ClusterName, w.Clock())
	if err != nil {
		t.Fatal(err)
	}
	st, err := j.Inspect(t.Context())
	if err != nil || st == nil {
		t.Fatalf("journal after the interrupt: %v, %v", st, err)
	}
	got := map[string]subnets.StepStatus{}
	for _, s := range st.Steps {
		got[s.ID] = s.Status
	}
	if got[subnets.StepPatchNodeClasses] != subnets.StepDone || got[subnets.StepWatchReplacement] != subnets.StepRunning {
		t.Fatalf("journal after the interrupt: %v; want the patch done, the watch running", got)
	}

	w.Run(10 * time.Second) // the operator comes back
	var stderr2 bytes.Buffer
	stdout.Reset()
	if code := run(t.Context(), &stdout, &stderr2, shellWords(t, resume)[1:]...); code != exitOK ||
		!strings.Contains(stdout.String(), "completed (resumed from the journal)") || !strings.Contains(stderr2.String(), subnets.StepPatchNodeClasses+": already done") {
		t.Fatalf("the resume hint: exit %d\nstdout %s\nstderr %s", code, stdout.String(), stderr2.String())
	}
	if private, public := nodesByTier(w); public != 0 || private == 0 {
		t.Errorf("after the resumed move: %d private, %d public nodes; want all private", private, public)
	}
	if f := w.Traffic().Failed - failed; f != 0 {
		t.Errorf("%d requests failed during the interrupted and resumed move, want 0", f)
	}
	t.Logf("interrupted:\n%s\nresumed:\n%s%s", out, stderr2.String(), stdout.String())
}

// TestSubnetsExecuteRefusesDriftedNodeClass: a node class changed by hand
// since the plan is refused before any write (exit 2, naming it), and the
// journal is not created.
func TestSubnetsExecuteRefusesDriftedNodeClass(t *testing.T) {
	isolate(t)
	w, cutOver := moveWorld(t)
	cutOver()
	run := subnetsOn(t, w)
	planFile := filepath.Join(t.TempDir(), "move.json")
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), &stdout, &stderr, "subnets", "plan", "--cluster-name", sim.ClusterName, "--cluster-vpc", w.Legacy().VPCID, "--out", planFile); code != exitOK {
		t.Fatalf("plan: exit %d\n%s", code, stderr.String())
	}
	nc := &unstructured.Unstructured{}
	nc.SetGroupVersionKind(karpenter.EC2NodeClassGVK)
	if err := w.Client().Get(t.Context(), client.ObjectKey{Name: karpenter.NodeClassName}, nc); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(nc.Object, []any{map[string]any{"id": "subnet-0123456789abcdef0"}}, "spec", "subnetSelectorTerms"); err != nil {
		t.Fatal(err)
	}
	if err := w.Client().Update(t.Context(), nc); err != nil {
		t.Fatal(err)
	}
	before, err := karpenterObjects(t.Context(), w)
	if err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	stderr.Reset()
	code := run(t.Context(), &stdout, &stderr, "subnets", "execute", "--plan", planFile, "-n", sim.DefaultNamespace, "--yes")
	if code != exitUsage || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "EC2NodeClass") || !strings.Contains(stderr.String(), karpenter.NodeClassName) {
		t.Errorf("execute of a drifted node class: exit %d, want %d and one line naming it\nstderr %s", code, exitUsage, stderr.String())
	}
	after, err := karpenterObjects(t.Context(), w)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before, after); d != "" {
		t.Errorf("the refused execute changed (-before +after):\n%s", d)
	}
	t.Logf("refused: %s", stderr.String())
}
