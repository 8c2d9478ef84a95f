package main

// flags_test.go: fleetreport's command line on the examples' conventions
// (tgmigrate's doc.go): flags written --name, usage errors one line and
// exit 2 before any AWS or cluster call, --help exit 0.

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/qstools/tgmigrate/diagnose"
)

const role = "arn:aws:iam::111111111111:role/tgmigrate-read"

// singleDashLong is a long flag written with one dash.
var singleDashLong = regexp.MustCompile("(^|[\\s(\\[\"'`=,;])-[a-zA-Z][a-zA-Z0-9-]+")

func TestHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := cli(t.Context(), []string{"--help"}, &stdout, &stderr); code != exitClean || stderr.Len() != 0 {
		t.Fatalf("--help: exit %d, stderr %q; want 0 and nothing on stderr", code, stderr.String())
	}
	help := stdout.String()
	for _, name := range []string{"region", "cluster", "role", "fail-on"} {
		if !regexp.MustCompile(`(?m)^ +--` + name + `\b`).MatchString(help) {
			t.Errorf("--%s is not listed:\n%s", name, help)
		}
	}
	if m := singleDashLong.FindAllString(help, -1); m != nil {
		t.Errorf("single-dash long flags in the help: %q", m)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Setenv("AWS_REGION", "")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-region", "eu-west-1"}, `unknown flag "-region": write --region`},
		{[]string{"-bogus"}, `unknown flag "-bogus"`},
		{[]string{"--bogus"}, `unknown flag "--bogus"`},
		{[]string{"--cluster", "prod", "--role", role}, "--region, --cluster and at least one --role are required"},
		{[]string{"--region", "eu-west-1", "--cluster", "prod", "--role", "arn:aws:iam::1:user/u"}, `--role "arn:aws:iam::1:user/u": not an IAM role ARN`},
		{[]string{"--region", "eu-west-1", "--cluster", "prod", "--role", role, "--fail-on", "severe"}, `--fail-on "severe": want critical, high, medium, low, info or none`},
		{[]string{"--region", "eu-west-1", "--cluster", "prod", "--role", role, "extra"}, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := cli(t.Context(), tt.args, &stdout, &stderr)
		if code != exitUsage || stdout.Len() != 0 || strings.Count(strings.TrimSpace(stderr.String()), "\n") != 0 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d, one line containing %q", tt.args, code, stderr.String(), exitUsage, tt.want)
		}
	}
}

func TestFailOnWords(t *testing.T) {
	for word, want := range map[string]diagnose.Severity{
		"critical": diagnose.SeverityCritical, "high": diagnose.SeverityHigh, "medium": diagnose.SeverityMedium,
		"low": diagnose.SeverityLow, "info": diagnose.SeverityInfo, "none": "",
		"error": diagnose.SeverityHigh, "warning": diagnose.SeverityLow,
	} {
		o, err := parseFlags([]string{"--region", "eu-west-1", "--cluster", "prod", "--role", role, "--fail-on", word}, &bytes.Buffer{})
		if err != nil || o.failOn != want {
			t.Errorf("--fail-on %s: %q, %v; want %q", word, o.failOn, err, want)
		}
	}
}
