package helmgov_test

// The fix report (issue 32, point 4): counts that add up, the remaining
// findings and the exit code, reasons in a chart user's words, the count
// logged after success only.

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"

	"github.com/qstools/tgmigrate/helmgov"
)

// parserInternals are what the YAML parsers say that a chart user cannot
// act on.
var parserInternals = regexp.MustCompile(`(?i)mapping values are not allowed|in this context|did not find expected|could not find expected|` +
	`cannot start any token|unmarshal|!!\w+|converting YAML to JSON|already defined at|is repeated|while (parsing|scanning)|(^|[^.\w])yaml: |tab character|block sequence|masked`)

// TestPlainReason: each parser message a reason can carry comes out in
// plain words that keep the file and the line; a reason without one is
// unchanged. The reasons run through a real Fix (the skipped and dropped
// fixes of every corpus2 chart) say nothing of the parser either.
func TestPlainReason(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"masked template", "cannot edit the source safely: templates/ingress.yaml: not YAML once template actions are masked: mapping values are not allowed in this context",
			[]string{"templates/ingress.yaml: its template actions build the YAML there, so it cannot be edited safely"}},
		{"render, repeated key", `templates/service.yaml [template]: the fixed chart does not render: helmgov: read manifests: rendered manifests (document 2) from web/templates/service.yaml: line 26: key "service.beta.kubernetes.io/aws-load-balancer-type" is repeated`,
			[]string{`from web/templates/service.yaml: the key "service.beta.kubernetes.io/aws-load-balancer-type" would be written twice (line 26)`}},
		{"render, Helm's YAML to JSON", `values.yaml [chart-values]: the fixed chart does not render: helmgov: render c: YAML parse error on web/templates/a.yaml: error converting YAML to JSON: yaml: line 9: mapping key "x" already defined at line 7`,
			[]string{`web/templates/a.yaml: the key "x" would be written twice (line 9)`}},
		{"scanner", "prod.yaml: yaml: line 4: found character that cannot start any token", []string{"prod.yaml: the YAML is not valid (line 4)"}},
		{"parser", "templates/x.yaml: yaml: line 12: did not find expected key", []string{"templates/x.yaml: the YAML is not valid (line 12)"}},
		{"block sequence", "a.yaml: yaml: line 3: block sequence entries are not allowed in this context", []string{"a.yaml: the YAML is not valid (line 3)"}},
		{"type", "prod.yaml: yaml: unmarshal errors:\n  line 7: cannot unmarshal !!str `abc` into int64", []string{"prod.yaml: a value has the wrong type (line 7)"}},
		{"no line", "yaml: did not find expected node content", []string{"the YAML is not valid"}},
		{"schema", "values.yaml [chart-values]: the fixed chart does not render: helmgov: render chart: values don't meet the specifications of the schema(s) in the following chart(s):\nreport-builder:\n- at '/terminationGracePeriodSeconds': maximum: got 160, want 120\n",
			[]string{"the values break chart report-builder's values.schema.json at terminationGracePeriodSeconds (maximum: got 160, want 120)"}},
		{"plain already", "one replica: a PDB cannot keep it serving", []string{"one replica: a PDB cannot keep it serving"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := helmgov.PlainReason(tt.in)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("got %q, want it to say %q", got, w)
				}
			}
			if m := parserInternals.FindString(got); m != "" {
				t.Errorf("got %q: still says %q", got, m)
			}
		})
	}
	checker := newCorpusChecker(t)
	for _, c := range loadCorpus2(t) {
		dir := copyChart(t, filepath.Join(corpus2Root, c.name))
		res, err := checker.Fix(t.Context(), filepath.Join(dir, "chart"), helmgov.WithDryRun(),
			helmgov.WithRenderOptions(c.renderOpts(filepath.Join(dir, "user-values.yaml"))...))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, r := range res.Remaining(helmgov.SeverityInfo) {
			if m := parserInternals.FindString(r.Why); m != "" {
				t.Errorf("%s: %s %s: %q says %q", c.name, r.Finding.Rule, r.Finding.Object, r.Why, m)
			}
		}
	}
}

// TestFixCounts: the summary line counts fixed, not fixable and dropped,
// which add up to the findings listed; Remaining and ExitCode speak of the
// fixed chart at the threshold, each remaining finding with its reason.
func TestFixCounts(t *testing.T) {
	ref := func(name string) helmgov.ObjectRef {
		return helmgov.ObjectRef{APIVersion: "v1", Kind: "Service", Namespace: "default", Name: name}
	}
	f := func(rule helmgov.RuleID, sev helmgov.Severity, name string) helmgov.Finding {
		return helmgov.Finding{Rule: rule, Severity: sev, Object: ref(name), Path: "metadata.annotations", Message: "m"}
	}
	a, b, c, d := f("TGM-H001", helmgov.SeverityError, "a"), f("TGM-H011", helmgov.SeverityWarning, "b"),
		f("TGM-H002", helmgov.SeverityError, "c"), f("TGM-H008", helmgov.SeverityWarning, "d")
	tests := []struct {
		name      string
		res       helmgov.FixResult
		summary   string
		remaining map[helmgov.Severity][]string // rule: why, at each threshold
	}{
		{
			name: "fixed, not fixable, dropped",
			res: helmgov.FixResult{Written: true, Rounds: 2, Files: []helmgov.FileChange{{Path: "prod.yaml"}},
				Applied: []helmgov.AppliedFix{{Finding: a}},
				Skipped: []helmgov.SkippedFix{{Finding: b, Reason: "binding it needs the target group's ARN"}},
				Dropped: []helmgov.DroppedFix{{Finding: c, Reason: "--set x=y overrides it"}},
				After:   &helmgov.Result{Findings: []helmgov.Finding{b, c}}},
			summary: "3 findings: 1 fixed in 2 rounds, 1 not fixable, 1 dropped; 1 file written",
			remaining: map[helmgov.Severity][]string{
				helmgov.SeverityWarning: {"TGM-H011: binding it needs the target group's ARN", "TGM-H002: a fix was tried and did not hold: --set x=y overrides it"},
				helmgov.SeverityError:   {"TGM-H002: a fix was tried and did not hold: --set x=y overrides it"},
			},
		},
		{
			name:    "nothing fixable, the old 'nothing to fix, 1 dropped'",
			res:     helmgov.FixResult{Skipped: []helmgov.SkippedFix{{Finding: b, Reason: "r"}, {Finding: d, Reason: "r"}}, Dropped: []helmgov.DroppedFix{{Finding: c, Reason: "r"}}, After: &helmgov.Result{Findings: []helmgov.Finding{b, c, d}}},
			summary: "3 findings: 0 fixed, 2 not fixable, 1 dropped; nothing written",
			remaining: map[helmgov.Severity][]string{
				helmgov.SeverityError: {"TGM-H002: a fix was tried and did not hold: r"},
			},
		},
		{
			name:      "dry run, all fixed",
			res:       helmgov.FixResult{DryRun: true, Rounds: 1, Files: []helmgov.FileChange{{Path: "a"}, {Path: "b"}}, Applied: []helmgov.AppliedFix{{Finding: a}, {Finding: d}}, After: &helmgov.Result{}},
			summary:   "dry run: 2 findings: 2 fixed in 1 round, 0 not fixable, 0 dropped; 2 files would change, nothing written",
			remaining: map[helmgov.Severity][]string{helmgov.SeverityInfo: nil},
		},
		{
			name:      "a suppressed finding and one of another rule stay",
			res:       helmgov.FixResult{After: &helmgov.Result{Findings: []helmgov.Finding{{Rule: "TGM-H003", Severity: helmgov.SeverityError, Object: ref("x"), Suppressed: true}, a}}},
			summary:   "no findings to fix; nothing written",
			remaining: map[helmgov.Severity][]string{helmgov.SeverityError: {"TGM-H001: helmgov did not try to fix it: the fix was limited to other rules"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.res.WriteText(&b, helmgov.ReportOptions{}); err != nil {
				t.Fatal(err)
			}
			if first, _, _ := strings.Cut(b.String(), "\n"); first != tt.summary {
				t.Errorf("summary %q, want %q", first, tt.summary)
			}
			n := tt.res.Counts()
			if n.Findings != n.Fixed+n.NotFixable+n.Dropped || strings.Count(b.String(), "\n") != n.Findings+1 {
				t.Errorf("counts %+v; report:\n%s", n, b.String())
			}
			for sev, want := range tt.remaining {
				var got []string
				for _, r := range tt.res.Remaining(sev) {
					got = append(got, string(r.Finding.Rule)+": "+r.Why)
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("remaining at %s: %q, want %q", sev, got, want)
				}
				wantCode := helmgov.ExitClean
				if len(want) > 0 {
					wantCode = helmgov.ExitFindings
				}
				if code := tt.res.ExitCode(sev); code != wantCode {
					t.Errorf("exit code at %s: %d, want %d", sev, code, wantCode)
				}
			}
		})
	}
	if code := (*helmgov.FixResult)(nil).ExitCode(helmgov.SeverityError); code != helmgov.ExitError {
		t.Errorf("nil result: exit %d, want %d", code, helmgov.ExitError)
	}
}

// TestFixLogsCountOnceAfterSuccess: the fix's counts are logged once, as
// its last line, after the files are written; the rounds log no count,
// so a fix that fails (--atomic) never logged one before its error.
func TestFixLogsCountOnceAfterSuccess(t *testing.T) {
	var lines []string
	log := funcr.New(func(prefix, args string) { lines = append(lines, args) }, funcr.Options{Verbosity: 2})
	checker, err := helmgov.NewChecker(helmgov.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	dir := copyChart(t, filepath.Join(corpus2Root, "catalog"))
	res, err := checker.Fix(t.Context(), filepath.Join(dir, "chart"),
		helmgov.WithRenderOptions(helmgov.WithValuesFiles(filepath.Join(dir, "user-values.yaml"))))
	if err != nil {
		t.Fatal(err)
	}
	counted := 0
	for i, l := range lines {
		if strings.Contains(l, `"fixed"=`) || strings.Contains(l, `"applied"=`) {
			counted++
			if i != len(lines)-1 || !strings.Contains(l, `"fix written"`) {
				t.Errorf("line %d of %d logs a count: %s", i+1, len(lines), l)
			}
		}
	}
	if counted != 1 || len(res.Applied) == 0 {
		t.Errorf("%d lines log a count, %d fixes; want 1 line:\n%s", counted, len(res.Applied), strings.Join(lines, "\n"))
	}
}
