package main

// report.go: run, the work of fleetreport: Diagnose per account, the
// Markdown, and the exit code: findings at or above --fail-on, or an
// account not scanned.

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/qstools/tgmigrate/diagnose"
)

// The exit codes, tgmigrate's (see the package comment).
const (
	exitClean    = 0
	exitFindings = 1
	exitUsage    = 2
	exitScan     = 3
)

// account is one account of the fleet: its name in the report, what
// Diagnose reads, and the options of its run (a test's clock).
type account struct {
	Name    string
	Sources diagnose.Sources
	Options []diagnose.Option
}

// run diagnoses every target group of each account, writes the fleet's
// Markdown to out and returns the exit code: exitFindings when a finding
// is at or above failOn ("": none is), exitScan when an account was not
// scanned, in part or at all. An account that fails does not stop the
// others.
func run(ctx context.Context, accounts []account, failOn diagnose.Severity, out io.Writer) int {
	var b strings.Builder
	code := exitClean
	b.WriteString("# Fleet report: hand-made target groups\n")
	for _, a := range accounts {
		fmt.Fprintf(&b, "\n## Account %s\n\n", a.Name)
		rep, err := diagnose.Diagnose(ctx, a.Sources, diagnose.Scope{All: true}, a.Options...)
		if err != nil {
			fmt.Fprintf(&b, "Not scanned: %v\n", err)
			code = exitScan
			continue
		}
		s := rep.Summary
		fmt.Fprintf(&b, "%d target groups, %d targets (%d node, %d ghost), %d findings.\n\n",
			s.TargetGroups, s.Targets, s.ByClass[diagnose.ClassNode], s.ByClass[diagnose.ClassGhost], s.Findings)
		for _, f := range rep.AllFindings() {
			fmt.Fprintf(&b, "- **%s** `%s` %s: %s\n  - next: %s\n", f.Severity, f.Code, f.TargetGroupARN, oneLine(f.Message), oneLine(f.Remediation))
		}
		for _, e := range rep.Errors {
			fmt.Fprintf(&b, "- **not read** %+v\n", e)
			code = exitScan
		}
		if worst, ok := rep.Worst(); ok && code != exitScan {
			code = max(code, exitCode(worst, failOn))
		}
	}
	if _, err := io.WriteString(out, b.String()); err != nil {
		return exitScan
	}
	return code
}

// exitCode maps a report's worst severity to the exit code: exitFindings
// at or above failOn ("": never).
func exitCode(worst, failOn diagnose.Severity) int {
	if failOn != "" && worst.Rank() <= failOn.Rank() {
		return exitFindings
	}
	return exitClean
}

// oneLine keeps a message on its Markdown list item.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
