package main

import (
	"strings"
	"testing"
)

// TestAssumeRoleSyntax: a malformed --assume-role is one line and exit 2,
// before any kubeconfig or credentials are looked for (isolate leaves
// neither, so a late check would say "no kubeconfig" instead).
func TestAssumeRoleSyntax(t *testing.T) {
	isolate(t)
	const tg = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef"
	tests := []struct {
		role    string
		wantErr string // empty: the ARN is accepted, and the next error is the missing kubeconfig
	}{
		{role: "arn:aws:iam::123456789012:user/x", wantErr: "not an IAM role ARN"},
		{role: "arn:aws:iam::123456789012:role/", wantErr: "not an IAM role ARN"},
		{role: "arn:aws:iam::123456789012:policy/ReadOnly", wantErr: "not an IAM role ARN"},
		{role: "arn:aws:sts::123456789012:assumed-role/ro/session", wantErr: "not an IAM role ARN"},
		{role: "arn:aws:iam::12345:role/ro", wantErr: "not an IAM role ARN"},
		{role: "ro", wantErr: "not an IAM role ARN"},
		{role: "arn:aws:iam::123456789012:role/ro"},
		{role: "arn:aws-cn:iam::123456789012:role/ops/ro"},
	}
	for _, tt := range tests {
		t.Run(tt.role, func(t *testing.T) {
			code, _, stderr := runCLI(t, "diagnose", "--target-group", tg, "--assume-role", "arn:aws:iam::111111111111:role/ok", "--assume-role", tt.role)
			want := tt.wantErr
			if want == "" {
				want = "no kubeconfig"
			} else {
				want = `--assume-role "` + tt.role + `": ` + want
			}
			if code != exitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and one line containing %q", code, stderr, want)
			}
		})
	}
}
