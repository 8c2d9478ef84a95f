package main

// badinput_test.go: every bad input of issue 35, and the others each
// command checks, is one line naming the flag and the form it accepts,
// exit 2, and made no credential, kubeconfig or network call.

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/qstools/tgmigrate/tgmigratetest"
)

// callTrap is the test's view of every way out of the process: the
// loaders (AWS configuration, kubeconfig), which record each call, and a
// loopback server that the environment points every AWS endpoint and the
// kubeconfig at, which records each request that got past them.
type callTrap struct {
	loads    atomic.Int64 // calls of the loaders
	requests atomic.Int64 // requests at the loopback server
}

// newCallTrap isolates the configuration (isolate), then points
// AWS_ENDPOINT_URL and the kubeconfig at a recording loopback server and
// gives the environment credentials, so that a call that bypassed the
// loaders would reach the server, not AWS, and be counted.
func newCallTrap(t *testing.T) *callTrap {
	t.Helper()
	home := isolate(t)
	trap := &callTrap{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		trap.requests.Add(1)
		http.Error(w, "the bad-input test's server: no request was expected", http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("AWS_ENDPOINT_URL", srv.URL)
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDBADINPUTTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "bad-input-test-secret")
	t.Setenv("AWS_MAX_ATTEMPTS", "1")
	kubeconfig := filepath.Join(home, "kubeconfig")
	cfg := "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: \"" + srv.URL + "\"}}]\n" +
		"users: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n"
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", kubeconfig)
	return trap
}

// loaders are loaders that record each call and then load for real (so
// that a call, were one made, would reach the trap's server).
func (c *callTrap) loaders() loaders {
	return loaders{
		awsConfig: func(ctx context.Context, opts ...func(*config.LoadOptions) error) (aws.Config, error) {
			c.loads.Add(1)
			return config.LoadDefaultConfig(ctx, opts...)
		},
		kubeconfig: func(rules *clientcmd.ClientConfigLoadingRules, overrides *clientcmd.ConfigOverrides) (*rest.Config, error) {
			c.loads.Add(1)
			return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
		},
	}
}

// run runs args in-process with the trap's loaders.
func (c *callTrap) run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, load: c.loaders()}
	code = a.run(t.Context(), args)
	return code, out.String(), errOut.String()
}

func TestBadInputMakesNoCall(t *testing.T) {
	trap := newCallTrap(t)
	dir := t.TempDir()
	const (
		tg     = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef"
		tgUS   = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/legacy-api/0123456789abcdef"
		badARN = "arn:aws:elasticloadbalancing:eu-west-1:123:targetgroup/legacy-web/0123456789abcdef"
	)
	plan := func(extra ...string) []string {
		return append([]string{"plan", "--target-group", tg, "-n", "shop", "--service", "web"}, extra...)
	}
	bind := func(extra ...string) []string {
		return append([]string{"bind", "--target-group", tg, "-n", "shop", "--service", "web"}, extra...)
	}
	const (
		role1 = "arn:aws:iam::111111111111:role/tgmigrate"
		role2 = "arn:aws:iam::222222222222:role/tgmigrate"
	)
	cplan := func(extra ...string) []string {
		return append([]string{"campaign", "plan", "--all", "--cluster", "prod-a=ctx-a"}, extra...)
	}
	// A campaign plan of two clusters, prod-a (account 111111111111) and
	// staging (222222222222), and the same with its digest edited.
	planFile, cp := campaignPlanFile(t, campaignFleet(t), dir)
	tampered := filepath.Join(dir, "tampered.json")
	data, err := os.ReadFile(planFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tampered, []byte(strings.Replace(string(data), cp.Digest, "sha256:"+strings.Repeat("0", 64), 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	notPlan := filepath.Join(dir, "not-a-plan.json")
	if err := os.WriteFile(notPlan, []byte(`{"schemaVersion": 1, "id": "campaign-x"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	crun := func(extra ...string) []string {
		return append([]string{"campaign", "run", "--plan", planFile, "--journal", "configmap:prod-a/tgmigrate/campaign",
			"--cluster", "prod-a=ctx-a", "--cluster", "staging=ctx-s"}, extra...)
	}
	cstatus := func(extra ...string) []string {
		return append([]string{"campaign", "status", "--plan", planFile}, extra...)
	}
	tests := []struct {
		name string
		args []string
		// flag is what the line must name; want, the form it accepts.
		flag, want string
		// notWant must not be in the line: an encoding or a parser's words.
		notWant string
	}{
		// Issue 35's list.
		{"diagnose --cidr /33", []string{"diagnose", "--all", "--cidr", "10.0.0.0/33"}, `--cidr "10.0.0.0/33"`, "a CIDR such as 10.0.0.0/16", ""},
		{"diagnose --cidr word", []string{"diagnose", "--all", "--cidr", "10.0.0.0/16", "--cidr", "pods"}, `--cidr "pods"`, "a CIDR", ""},
		{"plan --expect-account 12", plan("--expect-account", "12"), `--expect-account "12"`, "12-digit AWS account ID", ""},
		{"plan --min-healthy -4", plan("--min-healthy", "-4"), `--min-healthy "-4"`, "0 or more", ""},
		{"simulate --new-target-checks 0", []string{"simulate", "--new-target-checks", "0"}, `--new-target-checks "0"`, "1 to 10, or threshold", ""},
		{"simulate --new-target-checks -1", []string{"simulate", "--new-target-checks", "-1"}, `--new-target-checks "-1"`, "1 to 10, or threshold", ""},
		{"simulate --new-target-checks 11", []string{"simulate", "--new-target-checks", "11"}, `--new-target-checks "11"`, "1 to 10, or threshold", "(-1)"},
		{"diagnose --concurrency -3", []string{"diagnose", "--all", "--concurrency", "-3"}, `--concurrency "-3"`, "1 or more", "WithConcurrency"},
		{"diagnose --concurrency 0", []string{"diagnose", "--all", "--concurrency", "0"}, `--concurrency "0"`, "1 or more", ""},
		{"simulate --seed -1", []string{"simulate", "--seed", "-1"}, `--seed "-1"`, "a whole number, 0 or more", "strconv"},
		{"diagnose malformed ARN", []string{"diagnose", "--target-group", badARN}, "--target-group", tgARNForm, ""},
		{"plan malformed ARN", []string{"plan", "--target-group", badARN, "-n", "shop", "--service", "web"}, "--target-group", tgARNForm, ""},
		{"bind ARN of a load balancer", []string{"bind", "--target-group", "arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app/web/0123456789abcdef", "-n", "shop", "--service", "web"}, "--target-group", tgARNForm, ""},
		{"rollback malformed ARN", []string{"rollback", "--target-group", "arn:aws:ec2:eu-west-1:123456789012:instance/i-1", "-n", "shop"}, "--target-group", tgARNForm, ""},
		{"unknown --format", []string{"diagnose", "--all", "--format", "yaml"}, `--format "yaml"`, "json", ""},
		{"plan name with a space", []string{"plan", "--target-group", "legacy web", "-n", "shop", "--service", "web"}, `--target-group "legacy web"`, tgARNForm, ""},
		{"bind name ending with a hyphen", []string{"bind", "--target-group", "legacy-", "-n", "shop", "--service", "web"}, `--target-group "legacy-"`, "a target group name", ""},
		{"diagnose name of 33 characters", []string{"diagnose", "--target-group", strings.Repeat("a", 33)}, "--target-group", "1 to 32 letters", ""},
		{"rollback name internal-", []string{"rollback", "--target-group", "internal-web", "-n", "shop"}, `--target-group "internal-web"`, "a target group name", ""},
		{"plan --region against the ARN", plan("--region", "us-east-1"), "--region us-east-1", "eu-west-1", ""},
		{"bind --region against the ARN", bind("--region", "us-east-1"), "--region us-east-1", "eu-west-1", ""},
		{"diagnose --region against the ARN", []string{"diagnose", "--region", "us-east-1", "--target-group", tg}, "--region us-east-1", "eu-west-1", ""},
		{"diagnose ARNs of two Regions", []string{"diagnose", "--target-group", tg, "--target-group", tgUS}, "--target-group", "us-east-1", ""},
		// The others each command checks.
		{"--region malformed", []string{"diagnose", "--all", "--region", "Ireland"}, `--region "Ireland"`, "a Region such as eu-west-1", ""},
		{"--assume-role not a role", []string{"diagnose", "--all", "--assume-role", "arn:aws:iam::123456789012:user/x"}, "--assume-role", "arn:aws:iam::ACCOUNT_ID:role/NAME", ""},
		{"plan --expect-region", plan("--expect-region", "EU"), `--expect-region "EU"`, "a Region", ""},
		{"plan --port 70000", plan("--port", "70000"), `--port "70000"`, "1 to 65535", ""},
		{"bind --port -1", bind("--port", "-1"), `--port "-1"`, "1 to 65535", ""},
		{"plan --namespace", []string{"plan", "--target-group", tg, "-n", "Shop_1", "--service", "web"}, `--namespace "Shop_1"`, "a namespace name", ""},
		{"bind --service", []string{"bind", "--target-group", tg, "-n", "shop", "--service", "9web"}, `--service "9web"`, "a Service name", ""},
		{"plan --cluster-vpc", plan("--cluster-vpc", "vpc-xyz"), `--cluster-vpc "vpc-xyz"`, "vpc- and 8 or 17 hexadecimal digits", ""},
		{"diagnose --cluster-vpc", []string{"diagnose", "--all", "--cluster-vpc", "10.0.0.0/16"}, "--cluster-vpc", "a VPC ID", ""},
		{"bind --ingress-from", bind("--ingress-from", "alb-sg"), `--ingress-from "alb-sg"`, "sg- and 8 or 17", ""},
		{"bind --name", bind("--name", "Web_Binding"), `--name "Web_Binding"`, "a Kubernetes object name", ""},
		{"bind --wait alone", bind("--wait"), "--wait", "--apply --yes", ""},
		{"plan --strategy", plan("--strategy", "yolo"), `--strategy "yolo"`, "in-place or blue-green", ""},
		{"plan --force", plan("--force", "all"), `--force "all"`, "foreign-owner", ""},
		{"plan --rbac-subject", plan("--rbac", "--rbac-subject", "robot"), "--rbac-subject", "serviceaccount:", ""},
		{"plan --min-healthy word", plan("--min-healthy", "most"), `--min-healthy "most"`, "a whole number", "strconv"},
		{"rollback --namespace", []string{"rollback", "--target-group", tg, "-n", "Shop"}, `--namespace "Shop"`, "a namespace name", ""},
		{"rollback --journal-file", []string{"rollback", "--target-group", tg, "-n", "shop", "--journal-file", filepath.Join(dir, "none", "j.json")}, "--journal-file", "not usable", ""},
		{"rollback --cluster-vpc", []string{"rollback", "--target-group", tg, "-n", "shop", "--cluster-vpc", "vpc-1"}, `--cluster-vpc "vpc-1"`, "vpc- and 8 or 17", ""},
		{"diagnose --fail-on", []string{"diagnose", "--all", "--fail-on", "severe"}, `--fail-on "severe"`, "critical, high, medium, low, info or none", ""},
		{"diagnose --tag", []string{"diagnose", "--tag", "=web"}, `--tag "=web"`, "KEY=VALUE or KEY", ""},
		{"diagnose --load-balancer", []string{"diagnose", "--load-balancer", tg}, "--load-balancer", "loadbalancer/app/NAME/ID", ""},
		{"simulate --nodes word", []string{"simulate", "--nodes", "many"}, `--nodes "many"`, "a whole number", "strconv"},
		{"simulate --duration number", []string{"simulate", "--duration", "5"}, `--duration "5"`, "a duration such as 90s", "time:"},
		// campaign plan, run and status.
		{"campaign plan no selection", []string{"campaign", "plan", "--cluster", "prod-a=ctx-a"}, "--all", "--target-group or --tag", ""},
		{"campaign plan no cluster", []string{"campaign", "plan", "--all"}, "--cluster is required", "NAME[=CONTEXT][@ACCOUNT_ID]", ""},
		{"campaign plan --cluster without a name", cplan("--cluster", "=ctx-s"), `--cluster "=ctx-s"`, "NAME[=CONTEXT][@ACCOUNT_ID]", ""},
		{"campaign plan --cluster empty context", cplan("--cluster", "staging="), `--cluster "staging="`, "NAME[=CONTEXT][@ACCOUNT_ID]", ""},
		{"campaign plan two clusters without a context", []string{"campaign", "plan", "--all", "--cluster", "prod-a", "--cluster", "staging@222222222222"}, `--cluster "staging@222222222222"`, "give each cluster its context", ""},
		{"campaign plan --cluster bad name", cplan("--cluster", "prod a=ctx"), `--cluster "prod a=ctx"`, "letters, digits, hyphens", ""},
		{"campaign plan --cluster twice", cplan("--cluster", "prod-a=ctx-b"), `--cluster "prod-a=ctx-b"`, "given twice", ""},
		{"campaign plan --cluster one context twice", cplan("--cluster", "staging=ctx-a"), `--cluster "staging=ctx-a"`, "prod-a's already", ""},
		{"campaign plan several accounts, no @ACCOUNT_ID", cplan("--assume-role", role1, "--assume-role", role2), "--cluster prod-a=ctx-a", "@ACCOUNT_ID", ""},
		{"campaign plan @ACCOUNT_ID not a role's", []string{"campaign", "plan", "--all", "--assume-role", role1, "--cluster", "prod-a=ctx-a@222222222222"}, "--cluster prod-a=ctx-a@222222222222", "not one of --assume-role's", ""},
		{"campaign plan --all and --target-group", cplan("--target-group", "legacy-web"), "--all and --target-group", "give one", ""},
		{"campaign plan --target-group", []string{"campaign", "plan", "--cluster", "prod-a=ctx-a", "--target-group", "legacy web"}, `--target-group "legacy web"`, "a target group name", ""},
		{"campaign plan --tag", cplan("--tag", "=web"), `--tag "=web"`, "KEY=VALUE or KEY", ""},
		{"campaign plan --concurrency 0", cplan("--concurrency", "0"), "--concurrency 0", "below 1", "WithConcurrency"},
		{"campaign plan --per-account -2", cplan("--per-account", "-2"), "--per-account -2", "below 1", "WithPerAccount"},
		{"campaign plan --max-per-wave -1", cplan("--max-per-wave", "-1"), "--max-per-wave -1", "negative", "WithMaxPerWave"},
		{"campaign plan --order", cplan("--order", "random"), `--order "random"`, "longest-first or least-exposed-first", ""},
		{"campaign plan --canary name", cplan("--canary", "legacy-web"), `--canary "legacy-web"`, tgARNForm, ""},
		{"campaign plan --canary and --no-canary", cplan("--canary", tg, "--no-canary"), "--no-canary and --canary", "give one", ""},
		{"campaign plan --accept-preconditions", cplan("--accept-preconditions", "all"), `--accept-preconditions "all"`, "pod-settings", ""},
		{"campaign plan --format markdown", append([]string{"--format", "markdown"}, cplan()...), `--format "markdown"`, "text or json", ""},
		{"campaign run no --plan", []string{"campaign", "run", "--journal", "file:" + filepath.Join(dir, "j.json")}, "--plan is required", "campaign plan --out", ""},
		{"campaign run not a plan", crun("--plan", notPlan), "--plan " + notPlan, "not the campaign plan that was approved", ""},
		{"campaign run a kubeconfig as the plan", crun("--plan", os.Getenv("KUBECONFIG")), "--plan", "not the campaign plan", ""},
		{"campaign run tampered digest", crun("--plan", tampered), "--plan " + tampered, "the plan was edited", ""},
		{"campaign run --yes tampered digest", crun("--plan", tampered, "--yes", "--approve-waves"), "--plan", "the plan was edited", ""},
		{"campaign run no --journal", []string{"campaign", "run", "--plan", planFile}, "--journal is required", "file:PATH or configmap:CLUSTER/NAMESPACE/NAME", ""},
		{"campaign run --journal kind", crun("--journal", "s3://bucket/j"), `--journal "s3://bucket/j"`, "file:PATH or configmap:CLUSTER/NAMESPACE/NAME", ""},
		{"campaign run --journal parts", crun("--journal", "configmap:prod-a/campaign"), `--journal "configmap:prod-a/campaign"`, "configmap:CLUSTER/NAMESPACE/NAME", ""},
		{"campaign run --journal namespace", crun("--journal", "configmap:prod-a/Ops_1/campaign"), `--journal "configmap:prod-a/Ops_1/campaign"`, "NAMESPACE is a namespace's name", ""},
		{"campaign run --journal directory", crun("--journal", "file:"+filepath.Join(dir, "none", "j.json")), "--journal", "does not exist", ""},
		{"campaign run --journal cluster not given", crun("--journal", "configmap:prod-b/tgmigrate/campaign"), "--journal configmap:prod-b/tgmigrate/campaign", "--cluster prod-b=CONTEXT", ""},
		{"campaign run --cluster not in the plan", crun("--cluster", "prod-b=ctx-b"), "--cluster prod-b=ctx-b", "not in the plan", ""},
		{"campaign run a cluster of the plan missing", []string{"campaign", "run", "--plan", planFile, "--journal", "configmap:prod-a/tgmigrate/campaign", "--cluster", "prod-a=ctx-a"}, "--cluster", "add --cluster staging=CONTEXT", ""},
		{"campaign run --cluster account", []string{"campaign", "run", "--plan", planFile, "--journal", "file:" + filepath.Join(dir, "j.json"), "--cluster", "prod-a=ctx-a@222222222222", "--cluster", "staging=ctx-s"}, "--cluster prod-a=ctx-a@222222222222", "account 111111111111", ""},
		{"campaign run --error-budget -1", crun("--error-budget", "-1", "--yes"), "--error-budget -1", "negative", "WithErrorBudget"},
		{"campaign run --holder empty", crun("--holder", " ", "--yes"), "--holder", "not empty", ""},
		{"campaign run --region", crun("--region", "eu-west-1", "--yes"), "--region eu-west-1", tgmigratetest.Region, ""},
		{"campaign run --assume-role of one account", crun("--assume-role", role1, "--yes"), "--assume-role", "account 222222222222", ""},
		{"campaign status no --journal", cstatus(), "--journal is required", "file:PATH or configmap:CLUSTER/NAMESPACE/NAME", ""},
		{"campaign status --journal", cstatus("--journal", "configmap:prod-a/tgmigrate"), `--journal "configmap:prod-a/tgmigrate"`, "configmap:CLUSTER/NAMESPACE/NAME", ""},
		{"campaign status --journal cluster not given", cstatus("--journal", "configmap:prod-a/tgmigrate/campaign"), "--journal configmap:prod-a/tgmigrate/campaign", "--cluster prod-a=CONTEXT", ""},
		{"campaign status tampered digest", cstatus("--plan", tampered, "--journal", "file:"+filepath.Join(dir, "j.json")), "--plan", "the plan was edited", ""},
		{"campaign status --cluster not in the plan", cstatus("--journal", "configmap:prod-a/tgmigrate/campaign", "--cluster", "prod-a=ctx-a", "--cluster", "prod-b=ctx-b"), "--cluster prod-b=ctx-b", "not in the plan", ""},
		{"campaign status --format sarif", cstatus("--journal", "file:"+filepath.Join(dir, "j.json"), "--format", "sarif"), `--format "sarif"`, "text, json or markdown", ""},
		{"helm check chart and --manifests with --cluster", []string{"helm", "check", "--cluster", "--manifests", "-", dir}, "--manifests", "not both", ""},
		{"helm fix --into with --cluster", []string{"helm", "fix", "--cluster", "--into", "nowhere", dir}, "--into", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loads, requests := trap.loads.Load(), trap.requests.Load()
			code, stdout, stderr := trap.run(t, tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			line := strings.TrimSuffix(stderr, "\n")
			if line == "" || strings.Contains(line, "\n") || !strings.Contains(line, tt.flag) || !strings.Contains(line, tt.want) {
				t.Errorf("stderr %q: want exactly one line naming %q and showing %q", stderr, tt.flag, tt.want)
			}
			if tt.notWant != "" && strings.Contains(line, tt.notWant) {
				t.Errorf("stderr %q has %q", stderr, tt.notWant)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if n := trap.loads.Load() - loads; n != 0 {
				t.Errorf("%d loads of the AWS configuration or the kubeconfig before the input was refused", n)
			}
			if n := trap.requests.Load() - requests; n != 0 {
				t.Errorf("%d requests reached the network before the input was refused", n)
			}
		})
	}
}

// TestCallTrapCatches: the trap of TestBadInputMakesNoCall sees what it
// is there to see. Good input goes through the loaders, and a run whose
// loaders load for real reaches the loopback server (STS's
// GetCallerIdentity), so a bad input that made either would fail there.
func TestCallTrapCatches(t *testing.T) {
	trap := newCallTrap(t)
	const tg = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef"
	code, _, stderr := trap.run(t, "diagnose", "--target-group", tg)
	if trap.loads.Load() == 0 || trap.requests.Load() == 0 {
		t.Fatalf("good input: %d loads, %d requests (exit %d, stderr %q): want both", trap.loads.Load(), trap.requests.Load(), code, stderr)
	}
	if code != exitUsage || !strings.Contains(stderr, "STS") {
		t.Errorf("exit %d, stderr %q: want 2 and the STS call's failure", code, stderr)
	}
}
