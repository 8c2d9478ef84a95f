package main

// report_test.go: run on tgmigratetest's worlds, one world per account.

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// world is one account of the test's fleet: a tgmigratetest world, as run
// takes it.
func world(t *testing.T, name string, opts tgmigratetest.Options) (account, *tgmigratetest.World) {
	t.Helper()
	w, err := tgmigratetest.NewWorld(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	w.Run(time.Minute)
	return account{Name: name, Options: []diagnose.Option{diagnose.WithClock(w.Clock())}, Sources: diagnose.Sources{
		Accounts: []diagnose.Account{{ID: tgmigratetest.AccountID, Region: tgmigratetest.Region, ELBv2: w.ELBv2Read()}},
		Clusters: []diagnose.Cluster{w.Cluster()},
	}}, w
}

func TestRunFleet(t *testing.T) {
	churn := tgmigratetest.Churn{Shape: tgmigratetest.ChurnSteady, Interval: time.Minute}
	payments, _ := world(t, "payments", tgmigratetest.Options{Seed: 1, Nodes: 3, Pods: 6, Churn: churn})
	search, _ := world(t, "search", tgmigratetest.Options{Seed: 2, Nodes: 3, Pods: 6, ReadinessGateInjection: true})
	var out strings.Builder
	if code := run(t.Context(), []account{payments, search}, diagnose.SeverityHigh, &out); code != exitFindings {
		t.Errorf("exit code %d, want %d (high findings, --fail-on high)", code, exitFindings)
	}
	if code := run(t.Context(), []account{payments, search}, "", io.Discard); code != exitClean {
		t.Errorf("exit code %d, want %d (high findings, --fail-on none)", code, exitClean)
	}
	md := out.String()
	pay, sea, ok := strings.Cut(md, "## Account search")
	if !ok || !strings.Contains(pay, "## Account payments") {
		t.Fatalf("no section per account:\n%s", md)
	}
	for _, want := range []string{"**high** `StaticNodeTarget`", "`HealthCheckMismatch`"} {
		if !strings.Contains(pay, want) || !strings.Contains(sea, want) {
			t.Errorf("%s not in each account's section:\n%s", want, md)
		}
	}
	// Only payments' namespace lacks the readiness-gate label.
	if !strings.Contains(pay, "`MissingReadinessGate`") || strings.Contains(sea, "`MissingReadinessGate`") {
		t.Errorf("MissingReadinessGate should be payments' only:\n%s", md)
	}
}

func TestRunAccountNotScanned(t *testing.T) {
	ok, _ := world(t, "ok", tgmigratetest.Options{Seed: 1, Nodes: 3, Pods: 6})
	denied, w := world(t, "denied", tgmigratetest.Options{Seed: 2, Nodes: 3, Pods: 6})
	if err := w.Inject(tgmigratetest.Fault{Op: "DescribeTargetGroups", Code: tgmigratetest.AccessDenied, Times: 10}); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if code := run(t.Context(), []account{ok, denied}, diagnose.SeverityHigh, &out); code != exitScan {
		t.Errorf("exit code %d, want %d (an account not scanned)", code, exitScan)
	}
	okPart, deniedPart, _ := strings.Cut(out.String(), "## Account denied")
	if !strings.Contains(okPart, "`StaticNodeTarget`") || strings.Contains(deniedPart, "`StaticNodeTarget`") ||
		!strings.Contains(deniedPart, "AccessDenied") {
		t.Errorf("want ok's findings and denied's error:\n%s", out.String())
	}
}

func TestExitCode(t *testing.T) {
	tests := []struct {
		worst, failOn diagnose.Severity
		want          int
	}{
		{diagnose.SeverityCritical, diagnose.SeverityHigh, exitFindings},
		{diagnose.SeverityHigh, diagnose.SeverityHigh, exitFindings},
		{diagnose.SeverityMedium, diagnose.SeverityHigh, exitClean},
		{diagnose.SeverityMedium, diagnose.SeverityLow, exitFindings},
		{diagnose.SeverityLow, diagnose.SeverityLow, exitFindings},
		{diagnose.SeverityInfo, diagnose.SeverityLow, exitClean},
		{diagnose.SeverityInfo, diagnose.SeverityInfo, exitFindings},
		{diagnose.SeverityCritical, "", exitClean},
	}
	for _, tt := range tests {
		if got := exitCode(tt.worst, tt.failOn); got != tt.want {
			t.Errorf("exitCode(%s, --fail-on %q) = %d, want %d", tt.worst, tt.failOn, got, tt.want)
		}
	}
}
