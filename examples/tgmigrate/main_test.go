package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/sim"
)

// runCLI runs the command in-process and returns its exit code and output.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(t.Context(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestUsageErrorsExit2WithOneLine(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"--no-such-flag"}, `unknown flag "--no-such-flag"`},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != exitUsage {
				t.Errorf("exit code = %d, want %d", code, exitUsage)
			}
			if strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr = %q, want one line containing %q", stderr, tt.want)
			}
			if strings.Contains(stderr, "goroutine") || strings.Contains(stderr, "panic") {
				t.Errorf("stderr has a stack trace: %q", stderr)
			}
		})
	}
}

// isolate points every configuration lookup at an empty temporary home, so
// the tests see no kubeconfig and no AWS credentials of the machine's.
func isolate(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KUBECONFIG", filepath.Join(home, "no-kubeconfig"))
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE",
		"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(home, "no-aws-config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(home, "no-aws-credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_REGION", "eu-west-1")
	return home
}

func writeKubeconfig(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "kubeconfig")
	cfg := `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: "t0ps3cret"}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestErrorPathsExit2WithOneLine(t *testing.T) {
	home := isolate(t)
	kubeconfig := writeKubeconfig(t, home)
	const goodTG = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef"
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"diagnose", "--frobnicate"}, `unknown flag "--frobnicate"`},
		{"bad format", []string{"--format", "yaml", "diagnose", "--all"}, `--format "yaml"`},
		{"bad ARN", []string{"diagnose", "--target-group", "arn:aws:elasticloadbalancing:eu-west-1:123:targetgroup/x/y"}, "invalid arn"},
		{"bad ARN in bind", []string{"bind", "--target-group", "arn:aws:ec2:eu-west-1:123456789012:instance/i-1", "-n", "shop", "--service", "web"}, "invalid arn"},
		{"no scope", []string{"diagnose"}, "nothing to diagnose"},
		{"no kubeconfig", []string{"diagnose", "--target-group", goodTG}, "no kubeconfig"},
		{"no credentials", []string{"--kubeconfig", kubeconfig, "diagnose", "--target-group", goodTG}, "no AWS credentials"},
		{"campaign no kubeconfig", []string{"campaign", "plan", "--all", "--cluster", "prod=x"}, "no kubeconfig"},
		{"campaign no context", []string{"--kubeconfig", kubeconfig, "campaign", "plan", "--all", "--cluster", "prod=nowhere"}, `--cluster prod=nowhere: load kubeconfig: context "nowhere" does not exist`},
		{"campaign --context", []string{"--kubeconfig", kubeconfig, "--context", "nowhere", "campaign", "plan", "--all", "--cluster", "prod"}, `--cluster prod: load kubeconfig: context "nowhere" does not exist`},
		{"campaign no credentials", []string{"--kubeconfig", kubeconfig, "campaign", "plan", "--all", "--cluster", "prod=x"}, "no AWS credentials"},
		{"plan bad name", []string{"plan", "--target-group", "legacy web", "-n", "shop", "--service", "web"}, `--target-group "legacy web": want a target group name`},
		{"plan bad strategy", []string{"plan", "--target-group", goodTG, "-n", "shop", "--service", "web", "--strategy", "yolo"}, `--strategy "yolo"`},
		{"plan bad force", []string{"plan", "--target-group", goodTG, "-n", "shop", "--service", "web", "--force", "everything"}, `--force "everything"`},
		{"plan two policies", []string{"plan", "--target-group", goodTG, "-n", "shop", "--service", "web", "--iam-policy", "--controller-policy"}, "give one"},
		{"execute without plan", []string{"execute"}, "--plan is required"},
		{"execute missing plan file", []string{"execute", "--plan", filepath.Join(home, "plan.json")}, "plan.json"},
		{"execute corrupt plan", []string{"execute", "--plan", kubeconfig}, "--plan"},
		{"rollback without source", []string{"rollback"}, "give --plan"},
		{"simulate bad scenario", []string{"simulate", "-scenario", "chaos"}, `-scenario "chaos"`},
		{"simulate bad nodes", []string{"simulate", "-nodes", "1"}, "-nodes 1"},
		{"simulate bad churn", []string{"simulate", "-churn", "storm"}, `-churn "storm"`},
		{"simulate bad checks", []string{"simulate", "-new-target-checks", "11"}, "-new-target-checks"},
		{"simulate bad checks word", []string{"simulate", "-new-target-checks", "many"}, `-new-target-checks "many"`},
		{"simulate bad lag", []string{"simulate", "-deregistration-lag", "2h"}, "-deregistration-lag"},
		{"simulate bad reuse", []string{"simulate", "-ip-reuse", "always"}, `-ip-reuse "always"`},
		{"helm check missing chart", []string{"helm", "check", filepath.Join(home, "no-chart")}, "no-chart"},
		{"helm check bad manifests", []string{"helm", "check", "--manifests", filepath.Join(home, "nope.yaml")}, "nope.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != exitUsage {
				t.Errorf("exit code = %d, want %d (stderr %q)", code, exitUsage, stderr)
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if len(lines) != 1 || !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr = %q, want one line containing %q", stderr, tt.want)
			}
			if strings.Contains(stderr+stdout, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Errorf("output has a stack trace: %q", stderr)
			}
			if strings.Contains(stderr+stdout, "t0ps3cret") {
				t.Errorf("output leaks the kubeconfig token")
			}
		})
	}
}

// TestSimulateWire runs `simulate --wire` in-process, the story in text:
// its worlds pass checkWire, and the story has its diagnose step.
func TestSimulateWire(t *testing.T) {
	if testing.Short() {
		t.Skip("a repetition through the wire: make test runs it, make test-short (-short) does not")
	}
	t.Parallel() // a simulate run of its own: the package's long tests share both cores
	var stdout, stderr bytes.Buffer
	worlds := map[string]*sim.World{}
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		onWorld: func(name string, w *sim.World) { worlds[name] = w }}
	code := a.run(t.Context(), []string{"simulate", "--wire", "--seed", "5", "--nodes", "8", "--pods", "24",
		"--rps", "20", "--churn-interval", "45s", "--duration", "5m", "--prelude", "2m"})
	if code != exitOK {
		t.Fatalf("exit code %d, stderr %q", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "2. diagnose") {
		t.Errorf("no diagnose step in the story:\n%s", stdout.String())
	}
	checkWire(t, worlds)
}

// checkWire checks a `simulate --wire` run's worlds: every ELBv2 call of
// the story, the diagnose steps' included, reached the simulator through
// the real SDK client and the loopback endpoint (the endpoint logged
// every call the facade behind it served, in the same order), EC2's too,
// and the phased strategy failed no request.
func checkWire(t *testing.T, worlds map[string]*sim.World) {
	t.Helper()
	story := worlds["story"]
	if story == nil || story.Wire() == nil {
		t.Fatalf("the story's world %v has no endpoint", story)
	}
	var served, requested []string
	for _, c := range story.ELBv2().Calls() {
		served = append(served, c.Op)
	}
	ec2Requested := map[string]int{}
	for _, r := range story.Wire().Requests() {
		if r.Service == "ec2" {
			ec2Requested[r.Action]++
			continue
		}
		requested = append(requested, r.Action)
	}
	if d := cmp.Diff(served, requested); d != "" {
		t.Errorf("calls the facade served (-) and requests at the endpoint (+) differ: a call bypassed the wire\n%s", d)
	}
	// The plan's security-group check reads EC2 through the same endpoint.
	if d := cmp.Diff(story.SUTEC2().Counts(), ec2Requested); d != "" || ec2Requested["DescribeSecurityGroups"] == 0 {
		t.Errorf("EC2 calls the facade served (-) and requests at the endpoint (+) differ, or none:\n%s", d)
	}
	// The story's first calls are the diagnose step's, before the plan's.
	counts := story.Wire().Counts()
	if len(requested) == 0 || requested[0] != "DescribeTargetGroups" || counts["DescribeTargetHealth"] < 2 || counts["DescribeTags"] == 0 {
		t.Errorf("endpoint counts %v, first request %q: want diagnose's DescribeTargetGroups first, DescribeTargetHealth and DescribeTags",
			counts, requested[:min(1, len(requested))])
	}
	phased := worlds[strategyPhased]
	if phased == nil || phased.Wire() == nil {
		t.Fatalf("the phased world %v has no endpoint", phased)
	}
	if st := phased.Traffic(); st.Total == 0 || st.Failed != 0 {
		t.Errorf("phased over the wire: %d of %d requests failed, want 0 of some", st.Failed, st.Total)
	}
	if n := phased.Wire().Counts()["DeregisterTargets"]; n == 0 {
		t.Errorf("phased over the wire: no DeregisterTargets at the endpoint")
	}
}
