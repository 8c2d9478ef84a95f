package helmgov_test

// TestCorpus: issue 32's acceptance on every chart of the second corpus
// (see corpus2_test.go): `fix --yes -f user-values.yaml`, then `check`.

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/helmgov"
)

// TestCorpus runs Fix on a copy of every corpus2 chart, as `fix --yes -f
// user-values.yaml` (with the truth's --set), and asserts: each finding's
// route is the truth's (the values it writes into the user's file, the
// template it edits, or the words of the reason it is not fixed); the
// user's file changes only at the truth's paths and keeps its comments;
// the re-rendered release changes only at the fixed findings' fields (a
// budget may be added); the chart's directory is byte-identical unless
// the truth routes a fix to a template, and then only that template
// changes; the check of the fixed chart has exactly the findings the
// truth skips or sees overridden by a --set, none on a hook object; the summary's counts add up; the
// exit code is the truth's.
func TestCorpus(t *testing.T) {
	checker := newCorpusChecker(t)
	for _, c := range loadCorpus2(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := copyChart(t, filepath.Join(corpus2Root, c.name))
			chart, user := filepath.Join(dir, "chart"), filepath.Join(dir, "user-values.yaml")
			opts := c.renderOpts(user)
			chartBefore := treeHash(t, chart)
			userText, err := os.ReadFile(user)
			if err != nil {
				t.Fatal(err)
			}
			userBefore := readValues(t, user)
			before, err := helmgov.Render(t.Context(), chart, opts...)
			if err != nil {
				t.Fatal(err)
			}
			res, err := checker.Fix(t.Context(), chart, helmgov.WithRenderOptions(opts...))
			if err != nil {
				t.Fatalf("fix: %v", err)
			}
			report := fixText(t, res, dir)
			t.Logf("fix report:\n%s", report)
			userAfter := readValues(t, user)

			// Routes.
			applied := map[string]helmgov.AppliedFix{}
			for _, a := range res.Applied {
				applied[findingKey2(a.Finding)] = a
			}
			notFixed := map[string]string{}
			for _, s := range res.Skipped {
				notFixed[findingKey2(s.Finding)] = "not fixed: " + s.Reason
			}
			for _, d := range res.Dropped {
				notFixed[findingKey2(d.Finding)] = "dropped: " + d.Reason
			}
			var truthPaths [][]string
			templates := map[string]bool{}
			for _, tf := range c.truth.Findings {
				for _, s := range tf.Set {
					truthPaths = append(truthPaths, s.Path)
				}
				if tf.Route == "template" {
					templates[tf.File] = true
				}
				if err := routeError(tf, applied, notFixed, dir, userBefore, userAfter); err != "" {
					t.Errorf("%s: want %s: %s", tf.key(), tf.Route, err)
				}
				for _, w := range tf.Unsaid {
					if said := applied[tf.key()].Why + notFixed[tf.key()]; strings.Contains(said, w) {
						t.Errorf("%s: the report says %q, which the renderer does not show there: %s", tf.key(), w, said)
					}
				}
			}
			listed := slices.Concat(slices.Collect(maps.Keys(applied)), slices.Collect(maps.Keys(notFixed)))
			for _, k := range listed {
				if !slices.ContainsFunc(c.truth.Findings, func(tf truthFinding) bool { return tf.key() == k }) {
					t.Errorf("%s: listed by the fix, not in the truth", k)
				}
			}

			// The user's file: only the truth's paths, comments kept.
			for _, p := range changedLeaves(userBefore, userAfter, nil) {
				if !slices.ContainsFunc(truthPaths, func(tp []string) bool { return hasPrefix(p, tp) }) {
					t.Errorf("user-values.yaml: %v changed, and no truth route writes it", p)
				}
			}
			after, _ := os.ReadFile(user)
			for _, line := range strings.Split(string(userText), "\n") {
				if l := strings.TrimSpace(line); strings.HasPrefix(l, "#") && !bytes.Contains(after, []byte(l)) {
					t.Errorf("user-values.yaml lost its comment %q", l)
				}
			}

			// The chart: byte-identical but for the truth's templates.
			for _, f := range changedFiles(chartBefore, treeHash(t, chart)) {
				if !templates[f] {
					t.Errorf("chart file %s changed; the truth routes no fix to it", f)
				}
			}
			for _, f := range removedFiles(chartBefore, treeHash(t, chart)) {
				t.Errorf("chart file %s removed", f)
			}

			// The re-render: only the fixed fields changed.
			fixed, err := helmgov.Render(t.Context(), chart, opts...)
			if err != nil {
				t.Fatalf("the fixed chart does not render: %v", err)
			}
			for _, e := range collateralChanges(before.Objects, fixed.Objects, res.Applied, c.ns()) {
				t.Error(e)
			}

			// Check again: what the truth skips, nothing else.
			again, rendered, err := checker.CheckChart(t.Context(), chart, opts...)
			if err != nil {
				t.Fatal(err)
			}
			var left, wantLeft []string
			for _, f := range again.Findings {
				if !f.Suppressed {
					left = append(left, findingKey2(f))
				}
			}
			for _, tf := range c.truth.Findings {
				if tf.stays() {
					wantLeft = append(wantLeft, tf.key())
				}
			}
			slices.Sort(left)
			slices.Sort(wantLeft)
			if diff := cmp.Diff(wantLeft, left); diff != "" {
				t.Errorf("findings after the fix (-truth's skips +check):\n%s", diff)
			}
			assertHooks(t, c, rendered.Objects, again)
			assertHooks(t, c, before.Objects, res.Before)

			// The report and the exit code.
			assertSummary(t, res, report)
			for _, tf := range c.truth.Findings {
				if tf.Overridden != "" && !strings.Contains(report, "overridden: "+tf.Overridden) {
					t.Errorf("%s: the report does not name the --set %q that overrides the fix", tf.key(), tf.Overridden)
				}
			}
			if got := res.ExitCode(helmgov.SeverityWarning); got != c.truth.Exit {
				t.Errorf("exit code %d, want %d; remaining: %v", got, c.truth.Exit, res.Remaining(helmgov.SeverityWarning))
			}
			if got := helmgov.ExitCode(again, helmgov.SeverityWarning); got != c.truth.Exit {
				t.Errorf("the re-check's exit code %d, want %d", got, c.truth.Exit)
			}
		})
	}
}

// routeError says how a finding's outcome differs from its truth, or "".
func routeError(tf truthFinding, applied map[string]helmgov.AppliedFix, notFixed map[string]string, dir string, before, after map[string]any) string {
	a, fixed := applied[tf.key()]
	why, listed := notFixed[tf.key()]
	if words, skip := tf.skipWords(); skip {
		switch {
		case fixed:
			return fmt.Sprintf("it was fixed in %s [%s]", a.File, a.Route)
		case !listed:
			return "the fix does not list it"
		case !strings.Contains(strings.ToLower(why), strings.ToLower(words)):
			return fmt.Sprintf("the reason does not say %q: %s", words, why)
		}
		return ""
	}
	if !fixed {
		if listed {
			return why
		}
		return "the fix does not list it"
	}
	file := relTo(dir, a.File)
	switch tf.Route {
	case "template":
		if a.Route != helmgov.RouteTemplate || file != filepath.ToSlash(filepath.Join("chart", tf.File)) {
			return fmt.Sprintf("fixed in %s [%s]; why: %s", file, a.Route, a.Why)
		}
	case "values":
		if a.Route != helmgov.RouteUserValues || file != tf.File {
			return fmt.Sprintf("fixed in %s [%s]; why: %s", file, a.Route, a.Why)
		}
		var errs []string
		for _, s := range tf.Set {
			want := s.wanted(a.Finding)
			got, ok := helmgov.LookupValue(after, s.Path)
			was, _ := helmgov.LookupValue(before, s.Path)
			switch {
			case !ok:
				errs = append(errs, fmt.Sprintf("%v is not set", s.Path))
			case !cmp.Equal(plain(got), want):
				errs = append(errs, fmt.Sprintf("%v is %v, want %v", s.Path, plain(got), want))
			case cmp.Equal(plain(was), want):
				errs = append(errs, fmt.Sprintf("%v already was %v: the fix wrote elsewhere", s.Path, want))
			}
		}
		if tf.Overridden != "" && !strings.Contains(a.OverriddenBy, tf.Overridden) {
			errs = append(errs, fmt.Sprintf("the fix does not name the --set %q that overrides it (overridden by %q)", tf.Overridden, a.OverriddenBy))
		}
		if tf.Overridden == "" && a.OverriddenBy != "" {
			errs = append(errs, "overridden by "+a.OverriddenBy+", which the run does not pass")
		}
		if len(errs) > 0 {
			return strings.Join(errs, "; ") + "; why: " + a.Why
		}
	}
	return ""
}

// relTo maps a file a fix names (relative to the chart, or absolute) onto
// a slash path relative to the case directory.
func relTo(dir, file string) string {
	p := file
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, "chart", filepath.FromSlash(p))
	}
	rel, err := filepath.Rel(dir, filepath.Clean(p))
	if err != nil {
		return file
	}
	return filepath.ToSlash(rel)
}

// changedLeaves lists the paths where two values trees differ: a key added,
// removed or changed, not descending into what only one side has.
func changedLeaves(a, b any, at []string) [][]string {
	ma, okA := a.(map[string]any)
	mb, okB := b.(map[string]any)
	if !okA || !okB {
		if cmp.Equal(plain(a), plain(b)) {
			return nil
		}
		return [][]string{slices.Clone(at)}
	}
	var out [][]string
	keys := slices.Sorted(maps.Keys(ma))
	for k := range mb {
		if _, ok := ma[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		va, inA := ma[k]
		vb, inB := mb[k]
		p := append(slices.Clone(at), k)
		switch {
		case !inA:
			va = emptyLike(vb)
		case !inB:
			vb = emptyLike(va)
		}
		out = append(out, changedLeaves(va, vb, p)...)
	}
	return out
}

// emptyLike is an empty map for a map, so that the leaves of a map only
// one side has are listed one by one; nil otherwise.
func emptyLike(v any) any {
	if _, ok := v.(map[string]any); ok {
		return map[string]any{}
	}
	return nil
}

func hasPrefix(p, prefix []string) bool {
	return len(p) >= len(prefix) && slices.Equal(p[:len(prefix)], prefix)
}

// removedFiles lists the paths of before that after lacks.
func removedFiles(before, after map[string]string) []string {
	var out []string
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// assertSummary: the counts add up, the text's summary line says them, and
// the text lists one line per finding counted.
func assertSummary(t *testing.T, res *helmgov.FixResult, report string) {
	t.Helper()
	n := res.Counts()
	if n.Fixed+n.NotFixable+n.Dropped != n.Findings || n.Fixed != len(res.Applied) || n.NotFixable != len(res.Skipped) || n.Dropped != len(res.Dropped) {
		t.Errorf("counts %+v do not add up to the lists (%d applied, %d skipped, %d dropped)", n, len(res.Applied), len(res.Skipped), len(res.Dropped))
	}
	first, _, _ := strings.Cut(report, "\n")
	for _, want := range []string{fmt.Sprintf("%d finding", n.Findings), fmt.Sprintf("%d fixed", n.Fixed),
		fmt.Sprintf("%d not fixable", n.NotFixable), fmt.Sprintf("%d dropped", n.Dropped)} {
		if n.Findings > 0 && !strings.Contains(first, want) {
			t.Errorf("summary line %q does not say %q", first, want)
		}
	}
	lines := 0
	for _, l := range strings.Split(report, "\n") {
		if strings.HasPrefix(l, "fixed ") || strings.HasPrefix(l, "dropped ") || strings.HasPrefix(l, "not fixed ") {
			lines++
		}
	}
	if lines != n.Findings {
		t.Errorf("the report lists %d findings, its summary counts %d", lines, n.Findings)
	}
}
