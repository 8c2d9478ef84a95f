package main

// flags_test.go: guardedmigration's command line on the examples'
// conventions (tgmigrate's doc.go): flags written --name, usage errors one
// line and exit 2 before any AWS or cluster call, --help exit 0.

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

const tgARN = "arn:aws:elasticloadbalancing:eu-west-1:111111111111:targetgroup/legacy-web/0123456789abcdef"

// singleDashLong is a long flag written with one dash.
var singleDashLong = regexp.MustCompile("(^|[\\s(\\[\"'`=,;])-[a-zA-Z][a-zA-Z0-9-]+")

func TestHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := cli(t.Context(), []string{"--help"}, &stdout, &stderr); code != exitCompleted || stderr.Len() != 0 {
		t.Fatalf("--help: exit %d, stderr %q; want 0 and nothing on stderr", code, stderr.String())
	}
	help := stdout.String()
	for _, name := range []string{"target-group", "namespace", "service", "port", "cluster", "vpc"} {
		if !regexp.MustCompile(`(?m)^ +--` + name + `\b`).MatchString(help) {
			t.Errorf("--%s is not listed:\n%s", name, help)
		}
	}
	if m := singleDashLong.FindAllString(help, -1); m != nil {
		t.Errorf("single-dash long flags in the help: %q", m)
	}
}

func TestUsageErrors(t *testing.T) {
	full := []string{"--target-group", tgARN, "--namespace", "shop", "--service", "web", "--cluster", "prod"}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-target-group", tgARN}, `unknown flag "-target-group": write --target-group`},
		{[]string{"-bogus"}, `unknown flag "-bogus"`},
		{[]string{"--bogus"}, `unknown flag "--bogus"`},
		{[]string{"--namespace", "shop", "--service", "web", "--cluster", "prod"}, "--target-group, --namespace, --service and --cluster are required"},
		{[]string{"--target-group", "legacy-web", "--namespace", "shop", "--service", "web", "--cluster", "prod"}, "--target-group: "},
		{append(full, "extra"), `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := cli(t.Context(), tt.args, &stdout, &stderr)
		if code != exitUsage || stdout.Len() != 0 || strings.Count(strings.TrimSpace(stderr.String()), "\n") != 0 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d, one line containing %q", tt.args, code, stderr.String(), exitUsage, tt.want)
		}
	}
	o, err := parseFlags(append(full, "--port", "http"), &bytes.Buffer{})
	if err != nil || o.req.Region != "eu-west-1" || o.req.AccountID != "111111111111" || o.req.Port.String() != "http" || o.cluster != "prod" {
		t.Errorf("parseFlags = %+v, %v; want the Region and account from the ARN, port http", o, err)
	}
}
