package main

// names_test.go: a target group's name is taken wherever its ARN is
// (resolved through DescribeTargetGroups), and the Region of the AWS calls
// comes from the ARN when --region is absent.

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// TestPlanByName: plan --target-group NAME plans the same target group as
// its ARN (the name resolved through the simulator's DescribeTargetGroups),
// and a name no target group has is one line saying so, exit 2.
func TestPlanByName(t *testing.T) {
	isolate(t)
	w := testWorld(t, simFlags{seed: 7, nodes: 4, pods: 8, rps: 20, churn: "steady"}, strategyPhased)
	run := onWorld(t, w)
	l := w.Legacy()
	tg, err := parseTargetGroup(l.TargetGroupARN)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	planned := map[string]string{}
	for _, ref := range []string{l.TargetGroupARN, tg.Name} {
		out := filepath.Join(dir, strings.ReplaceAll(ref, "/", "_")+".json")
		code, _, stderr := run("plan", "--target-group", ref, "-n", l.Namespace, "--service", l.Service, "--port", l.PortName, "--out", out)
		if code != exitOK {
			t.Fatalf("plan --target-group %s: exit %d, stderr %q", ref, code, stderr)
		}
		plan, err := readPlan(out)
		if err != nil {
			t.Fatal(err)
		}
		planned[ref] = plan.TargetGroup.ARN.String()
	}
	if planned[tg.Name] != l.TargetGroupARN || planned[l.TargetGroupARN] != l.TargetGroupARN {
		t.Errorf("planned target groups %v: want %s for both", planned, l.TargetGroupARN)
	}
	code, stdout, stderr := run("plan", "--target-group", "no-such-group", "-n", l.Namespace, "--service", l.Service)
	if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 ||
		!strings.Contains(stderr, `--target-group "no-such-group": no target group of that name`) {
		t.Errorf("unknown name: exit %d, stderr %q: want 2 and one line saying no target group has that name", code, stderr)
	}
}

// TestRegionFromARN: without --region (and with no Region in the
// environment), the AWS configuration is loaded in the Region the
// --target-group ARN (or the plan's) names; with --region, in that one.
func TestRegionFromARN(t *testing.T) {
	home := isolate(t)
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	const tg = "arn:aws:elasticloadbalancing:ap-south-2:123456789012:targetgroup/legacy-web/0123456789abcdef"
	// A plan file: the world's, whose target group is in the world's Region.
	w := testWorld(t, simFlags{seed: 7, nodes: 4, pods: 8, rps: 20, churn: "steady"}, strategyPhased)
	plan := testPlan(t, w)
	data, err := plan.JSON()
	if err != nil {
		t.Fatal(err)
	}
	planRegion := plan.TargetGroup.ARN.Region
	planFile := filepath.Join(home, "plan.json")
	writeFile(t, planFile, string(data))
	errStop := errors.New("the test stops here")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"plan", []string{"plan", "--target-group", tg, "-n", "shop", "--service", "web"}, "ap-south-2"},
		{"plan --region", []string{"plan", "--region", "ap-south-2", "--target-group", tg, "-n", "shop", "--service", "web"}, "ap-south-2"},
		{"plan by name --region", []string{"plan", "--region", "eu-north-1", "--target-group", "legacy-web", "-n", "shop", "--service", "web"}, "eu-north-1"},
		{"bind", []string{"bind", "--target-group", tg, "-n", "shop", "--service", "web"}, "ap-south-2"},
		{"diagnose", []string{"diagnose", "--target-group", tg, "--target-group", "legacy-api"}, "ap-south-2"},
		{"rollback", []string{"rollback", "--target-group", tg, "-n", "shop", "--yes"}, "ap-south-2"},
		{"rollback --plan", []string{"rollback", "--plan", planFile, "--yes"}, planRegion},
		{"execute --plan", []string{"execute", "--plan", planFile, "--yes"}, planRegion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			var stdout, stderr bytes.Buffer
			a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, load: loaders{
				kubeconfig: func(*clientcmd.ClientConfigLoadingRules, *clientcmd.ConfigOverrides) (*rest.Config, error) {
					return &rest.Config{Host: "http://127.0.0.1:1"}, nil // never contacted: the AWS loader stops the run
				},
				awsConfig: func(_ context.Context, opts ...func(*config.LoadOptions) error) (aws.Config, error) {
					var o config.LoadOptions
					for _, opt := range opts {
						if err := opt(&o); err != nil {
							return aws.Config{}, err
						}
					}
					got = append(got, o.Region)
					return aws.Config{}, errStop
				},
			}}
			code := a.run(t.Context(), tt.args)
			if len(got) != 1 || got[0] != tt.want || code != exitUsage || !strings.Contains(stderr.String(), errStop.Error()) {
				t.Errorf("AWS configuration loaded in Regions %q (exit %d, stderr %q): want once, in %s", got, code, stderr.String(), tt.want)
			}
		})
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}
