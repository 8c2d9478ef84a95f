package main

import (
	"bytes"
	"strings"
	"testing"
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
		{"unknown flag", []string{"--no-such-flag"}, "unknown flag: --no-such-flag"},
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
