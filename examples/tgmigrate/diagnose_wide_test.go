package main

// diagnose_wide_test.go: diagnose --wide is a text layout only.

import (
	"strings"
	"testing"
)

// TestDiagnoseWideNeedsText: --wide with another format than text is a
// usage error naming both flags, before any cluster or AWS call.
func TestDiagnoseWideNeedsText(t *testing.T) {
	for _, format := range []string{"json", "markdown"} {
		t.Run(format, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "diagnose", "--wide", "--format", format, "--all", "--kubeconfig", "/nonexistent/kubeconfig")
			if code != exitUsage || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Fatalf("exit code %d, stdout %q, stderr %q; want %d, nothing, one line", code, stdout, stderr, exitUsage)
			}
			if !strings.Contains(stderr, "--wide with --format "+format) {
				t.Errorf("stderr %q does not name --wide and --format %s", stderr, format)
			}
		})
	}
}
