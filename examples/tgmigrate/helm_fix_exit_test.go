package main

// helm fix's exit codes and report (issue 32, point 4), on charts of
// helmgov's second corpus.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/qstools/tgmigrate/helmgov"
)

// corpus2Case copies a chart of helmgov/testdata/corpus2 into a temporary
// directory: its chart/ and user-values.yaml.
func corpus2Case(t *testing.T, name string) (chart, user string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "helmgov", "testdata", "corpus2", name))); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "chart"), filepath.Join(dir, "user-values.yaml")
}

// severityRank orders the severities as --fail-on reads them.
var severityRank = map[string]int{"info": 0, "warning": 1, "error": 2}

// TestHelmFixExitCode: helm fix exits 1 exactly when the fixed chart (as
// its JSON report's after has it) keeps a finding at or above --fail-on,
// and then names each on stderr; the dry run speaks of the chart as the fix
// would leave it and writes nothing; the JSON summary's counts add up.
func TestHelmFixExitCode(t *testing.T) {
	isolate(t)
	tests := []struct {
		chart  string
		failOn string
		yes    bool
	}{
		{chart: "catalog", failOn: "warning", yes: true},
		{chart: "dashboards", failOn: "warning", yes: true},
		{chart: "dashboards", failOn: "error", yes: true},
		{chart: "bindings", failOn: "error", yes: true},
		{chart: "bindings", failOn: "warning"},
		{chart: "twin-web", failOn: "info"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s --fail-on %s yes=%v", tt.chart, tt.failOn, tt.yes), func(t *testing.T) {
			chart, user := corpus2Case(t, tt.chart)
			was, _ := os.ReadFile(user)
			args := []string{"helm", "fix", "--format", "json", chart, "-f", user, "--fail-on", tt.failOn}
			if tt.yes {
				args = append(args, "--yes")
			}
			code, stdout, stderr := runCLI(t, args...)
			var rep struct {
				Summary                   struct{ Findings, Fixed, NotFixable, Dropped int }
				Applied, Skipped, Dropped []json.RawMessage
				After                     struct {
					Findings []struct {
						Rule, Severity string
						Object         helmgov.ObjectRef
						Suppressed     bool
					}
				}
			}
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("exit %d, stdout is not a fix report: %v\n%s\n%s", code, err, stdout, stderr)
			}
			var left []string
			for _, f := range rep.After.Findings {
				if !f.Suppressed && severityRank[f.Severity] >= severityRank[tt.failOn] {
					left = append(left, f.Rule+" "+f.Object.String())
				}
			}
			want := exitOK
			if len(left) > 0 {
				want = exitFindings
			}
			if code != want {
				t.Fatalf("exit %d, want %d: left at or above %s: %v; stderr %q", code, want, tt.failOn, left, stderr)
			}
			for _, l := range left {
				if !strings.Contains(stderr, l) {
					t.Errorf("stderr %q does not name %s", stderr, l)
				}
			}
			s := rep.Summary
			if s.Fixed+s.NotFixable+s.Dropped != s.Findings || s.Fixed != len(rep.Applied) || s.NotFixable != len(rep.Skipped) || s.Dropped != len(rep.Dropped) {
				t.Errorf("summary %+v does not add up to %d applied, %d skipped, %d dropped", s, len(rep.Applied), len(rep.Skipped), len(rep.Dropped))
			}
			if now, _ := os.ReadFile(user); !tt.yes && string(now) != string(was) {
				t.Error("the dry run wrote the user's values file")
			}
		})
	}
}

// summaryRE is the text report's first line.
var summaryRE = regexp.MustCompile(`^(?:dry run: )?(\d+) findings?: (\d+) fixed(?: in \d+ rounds?)?(?: \(\d+ overridden by --set\))?, (\d+) not fixable, (\d+) dropped; `)

// TestHelmFixTextReport: the text report's first line counts the findings
// it lists (fixed + not fixable + dropped), each listed on a line of its
// own; a not fixed finding says why in a chart user's words.
func TestHelmFixTextReport(t *testing.T) {
	isolate(t)
	for _, name := range []string{"catalog", "bindings"} {
		t.Run(name, func(t *testing.T) {
			chart, user := corpus2Case(t, name)
			_, stdout, stderr := runCLI(t, "helm", "fix", chart, "-f", user, "--yes")
			first, _, _ := strings.Cut(stdout, "\n")
			m := summaryRE.FindStringSubmatch(first)
			if m == nil {
				t.Fatalf("first line %q is not a summary; stderr %q", first, stderr)
			}
			var n [4]int
			for i := range n {
				fmt.Sscan(m[i+1], &n[i])
			}
			listed := map[string]int{}
			for _, l := range strings.Split(stdout, "\n") {
				for _, p := range []string{"fixed ", "not fixed ", "dropped "} {
					if strings.HasPrefix(l, p) {
						listed[p]++
					}
				}
			}
			if n[1]+n[2]+n[3] != n[0] || listed["fixed "] != n[1] || listed["not fixed "] != n[2] || listed["dropped "] != n[3] {
				t.Errorf("summary %q: counts %v, lines listed %v", first, n, listed)
			}
			if name == "bindings" && !strings.Contains(stdout, "not fixed TGM-H004 TargetGroupBinding default/release-name-checkout-http: spec.targetType is immutable") {
				t.Errorf("the immutable target type is not explained:\n%s", stdout)
			}
		})
	}
}

// TestHelmFixAtomicPrintsNoCount: with --atomic, a fix that cannot hold is
// exit 2 with the error on one line; no count (of the fixes it would have
// made) is printed before it, on stdout or in the -v log.
func TestHelmFixAtomicPrintsNoCount(t *testing.T) {
	isolate(t)
	// report-builder's values.schema.json caps the grace period below what
	// TGM-H009 asks: that fix cannot hold.
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "helmgov", "testdata", "corpus", "report-builder"))); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "-v", "helm", "fix", filepath.Join(dir, "chart"), "-f", filepath.Join(dir, "user-values.yaml"), "--yes", "--atomic")
	if code != exitUsage || !strings.Contains(stderr, "fix did not hold") {
		t.Fatalf("exit %d, stderr %q; want 2, fix did not hold", code, stderr)
	}
	if stdout != "" {
		t.Errorf("stdout %q, want nothing", stdout)
	}
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if strings.Contains(l, `"fixed"`) || strings.Contains(l, `"applied"`) || regexp.MustCompile(`\d+ fix`).MatchString(l) {
			t.Errorf("stderr prints a count before the error: %q", l)
		}
	}
}

// TestHelmReleaseDefault: --release's help states the default that
// rendering uses, release-name (as helm template), and a check without it
// names the objects so.
func TestHelmReleaseDefault(t *testing.T) {
	isolate(t)
	for _, sub := range []string{"check", "fix"} {
		_, stdout, _ := runCLI(t, "helm", sub, "--help")
		if !strings.Contains(stdout, "--release string") || !strings.Contains(stdout, "default: release-name") {
			t.Errorf("helm %s --help does not state --release's default release-name:\n%s", sub, stdout)
		}
	}
	chart, user := corpus2Case(t, "catalog")
	_, found, stderr := helmFindings(t, "helm", "check", chart, "-f", user)
	if len(found) == 0 || !strings.HasPrefix(found[0].Object.Name, "release-name-") {
		t.Errorf("findings %v: want objects named release-name-...; stderr %q", found, stderr)
	}
	_, found, _ = helmFindings(t, "helm", "check", chart, "-f", user, "--release", "shop")
	if len(found) == 0 || !strings.HasPrefix(found[0].Object.Name, "shop-") {
		t.Errorf("findings %v: want objects named shop-...", found)
	}
}
