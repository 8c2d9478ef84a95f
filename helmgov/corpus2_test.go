package helmgov_test

// The second corpus (issue 32): charts of this project's own, each
// reproducing the template idioms of a family of widely used public charts
// (a library chart's helpers, named pod helpers, toYaml at column 0, with
// and range maps beside a labels block, maps of services, packaged and
// unpacked subcharts with aliases, global values, hook Pods, tpl values, a
// user's file that already sets the annotations map), with the legacy
// values file of a platform team still on hand-made target groups, and a
// ground-truth table of the findings and the route each fix must take.
//
// Layout: testdata/corpus2/<name>/chart/ is the chart,
// testdata/corpus2/<name>/user-values.yaml the user's values, and
// testdata/corpus2/<name>/truth.yaml the ground truth ([corpusTruth]).
// testdata/corpus2/<name>/packaged/<sub>/ is the source of a packaged
// subchart, chart/charts/<sub>-<version>.tgz (TestCorpusPackagedSource).
//
// This file holds the truth's types, its loading, and TestCorpusTruth, the
// proof that the truth is right, made with the renderer and a plain YAML
// edit of the values, without Fix.

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/qstools/tgmigrate/helmgov"
)

const corpus2Root = "testdata/corpus2"

// corpusTruth is a chart's truth.yaml.
type corpusTruth struct {
	// Idioms are the template idioms the chart reproduces, and where.
	Idioms []string `json:"idioms"`
	// Namespace is the release namespace; empty is "default".
	Namespace string `json:"namespace,omitempty"`
	// Set are --set overrides of the run (besides -f user-values.yaml).
	Set []string `json:"set,omitempty"`
	// Exit is the exit code of `fix --yes -f user-values.yaml` at the
	// default threshold (warning).
	Exit int `json:"exit"`
	// Hooks are hook objects ("Kind ns/name") that the chart renders and
	// that must have no findings.
	Hooks []string `json:"hooks,omitempty"`
	// Findings are every finding of the check, and the route of its fix.
	Findings []truthFinding `json:"findings"`
}

// truthFinding is one finding and where its fix must go.
type truthFinding struct {
	Rule   string `json:"rule"`
	Object string `json:"object"`
	// Field is the finding's path ([helmgov.Finding.Path]).
	Field string `json:"field"`
	// Route is "values", "template", or "skip: <words the reason says>".
	Route string `json:"route"`
	// File is the file the fix changes: user-values.yaml for values, the
	// template (relative to chart/) for template.
	File string `json:"file,omitempty"`
	// Set are the values the fix writes (route values).
	Set []truthSet `json:"set,omitempty"`
	// Overridden, on a values route, says that a --set of the run sets
	// the same key: the fix is written all the same, the finding stays
	// while the --set does, and the report names it with these words.
	Overridden string `json:"overridden,omitempty"`
	// Traps are values paths that look right and are not: each either
	// does not put the wanted value at the field, or changes something
	// else too. TestCorpusTruth proves it.
	Traps []truthTrap `json:"traps,omitempty"`
	// Unsaid are words the fix's why or reason must not say: a values
	// path that a reading of the template text binds to the field and
	// the renderer does not show there.
	Unsaid []string `json:"unsaid,omitempty"`
}

// truthSet is a values path and its value; no value means the finding's
// own fix value.
type truthSet struct {
	Path  []string `json:"path"`
	Value any      `json:"value,omitempty"`
}

// truthTrap is a wrong values path, and why it is wrong.
type truthTrap struct {
	Path []string `json:"path"`
	Why  string   `json:"why"`
}

func (f truthFinding) key() string { return f.Rule + " " + f.Object + " " + f.Field }

// stays: the finding is still there after the fix (a skip, or a fix a
// --set overrides).
func (f truthFinding) stays() bool {
	_, skip := f.skipWords()
	return skip || f.Overridden != ""
}

func (f truthFinding) skipWords() (string, bool) {
	w, ok := strings.CutPrefix(f.Route, "skip:")
	return strings.TrimSpace(w), ok
}

func findingKey2(f helmgov.Finding) string {
	return string(f.Rule) + " " + f.Object.String() + " " + f.Path
}

// corpus2Chart is one chart of the second corpus.
type corpus2Chart struct {
	name  string
	truth corpusTruth
}

func loadCorpus2(t *testing.T) []corpus2Chart {
	t.Helper()
	entries, err := os.ReadDir(corpus2Root)
	if err != nil {
		t.Fatal(err)
	}
	var out []corpus2Chart
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(corpus2Root, e.Name(), "truth.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var tr corpusTruth
		if err := yaml.UnmarshalStrict(b, &tr); err != nil {
			t.Fatalf("%s/truth.yaml: %v", e.Name(), err)
		}
		for _, f := range tr.Findings {
			_, skip := f.skipWords()
			if f.Route != "values" && f.Route != "template" && !skip {
				t.Fatalf("%s/truth.yaml: %s: route %q: want values, template or skip: <reason>", e.Name(), f.key(), f.Route)
			}
			switch {
			case f.Route == "values" && (len(f.Set) == 0 || f.File == ""),
				f.Route == "template" && (len(f.Set) > 0 || f.File == ""),
				skip && (len(f.Set) > 0 || f.File != ""):
				t.Fatalf("%s/truth.yaml: %s: a values route needs file and set, a template route a file, a skip neither", e.Name(), f.key())
			}
		}
		out = append(out, corpus2Chart{name: e.Name(), truth: tr})
	}
	return out
}

func (c corpus2Chart) ns() string {
	if c.truth.Namespace != "" {
		return c.truth.Namespace
	}
	return "default"
}

// renderOpts are the options of the corpus run, with this values file.
func (c corpus2Chart) renderOpts(values string) []helmgov.RenderOption {
	o := c.renderOptsWithoutSet(values)
	if len(c.truth.Set) > 0 {
		o = append(o, helmgov.WithSet(c.truth.Set...))
	}
	return o
}

// renderOptsWithoutSet are the options of the run without its --set.
func (c corpus2Chart) renderOptsWithoutSet(values string) []helmgov.RenderOption {
	o := []helmgov.RenderOption{helmgov.WithValuesFiles(values)}
	if c.truth.Namespace != "" {
		o = append(o, helmgov.WithNamespace(c.truth.Namespace))
	}
	return o
}

// readValues reads a values file as plain data.
func readValues(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// setValue sets the value at path, creating maps on the way.
func setValue(m map[string]any, path []string, v any) {
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}

// plain turns a value into what a YAML or JSON read of it gives (numbers
// are float64), so that values compare whatever their Go types.
func plain(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// wanted is the value a truth set writes: its own, or the finding's fix's.
func (s truthSet) wanted(f helmgov.Finding) any {
	if s.Value != nil {
		return plain(s.Value)
	}
	if f.Fix == nil {
		return nil
	}
	return plain(f.Fix.Value)
}

// writeValues writes a values map into a new file in dir.
func writeValues(t *testing.T, dir, name string, m map[string]any) string {
	t.Helper()
	b, err := yaml.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// isHook: the object carries helm.sh/hook.
func isHook(o helmgov.Object) bool {
	_, ok := o.Annotations()["helm.sh/hook"]
	return ok
}

// TestCorpusTruth proves the ground truth with the renderer alone, so that
// it never bends to the code under test: every chart renders with the
// user's values and its check lists exactly the truth's findings, none on
// a hook object; each values route, written by a plain YAML edit of the
// user's values, removes its finding and changes the rendered release at
// that finding's field only (or, for a budget, only adds the budget); a
// route a --set overrides holds without the --set and not with it; all of
// them together remove every finding routed to values and change nothing
// else; and each trap fails: it leaves the finding or changes something
// else.
func TestCorpusTruth(t *testing.T) {
	checker := newCorpusChecker(t)
	for _, c := range loadCorpus2(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			chart := filepath.Join(corpus2Root, c.name, "chart")
			userFile := filepath.Join(corpus2Root, c.name, "user-values.yaml")
			res, rendered, err := checker.CheckChart(t.Context(), chart, c.renderOpts(userFile)...)
			if err != nil {
				t.Fatal(err)
			}
			byKey := map[string]helmgov.Finding{}
			var got []string
			for _, f := range res.Findings {
				if !f.Suppressed {
					byKey[findingKey2(f)] = f
					got = append(got, findingKey2(f))
				}
			}
			var want []string
			for _, f := range c.truth.Findings {
				want = append(want, f.key())
			}
			slices.Sort(got)
			slices.Sort(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("findings (-truth +check):\n%s", diff)
			}
			assertHooks(t, c, rendered.Objects, res)

			user := readValues(t, userFile)
			dir := t.TempDir()
			all := plainMap(user)
			var allApplied []helmgov.AppliedFix
			for i, tf := range c.truth.Findings {
				f, ok := byKey[tf.key()]
				if !ok {
					continue
				}
				if tf.Route != "values" {
					if f.Fix != nil {
						proveTraps(t, checker, c, dir, i, user, rendered.Objects, f, tf, plain(f.Fix.Value))
					}
					continue
				}
				one := plainMap(user)
				for _, s := range tf.Set {
					setValue(one, s.Path, s.wanted(f))
					setValue(all, s.Path, s.wanted(f))
				}
				applied := []helmgov.AppliedFix{{Finding: f}}
				if tf.Overridden == "" {
					allApplied = append(allApplied, applied...)
				}
				oneFile := writeValues(t, dir, fmt.Sprintf("one-%d.yaml", i), one)
				if tf.Overridden != "" {
					// The values hold without the run's --set, and not with it.
					bare := c
					bare.truth.Set = nil
					r0, err := helmgov.Render(t.Context(), chart, bare.renderOpts(userFile)...)
					if err != nil {
						t.Fatal(err)
					}
					if errs := proveValues(t, checker, bare, oneFile, r0.Objects, f, applied); len(errs) > 0 {
						t.Errorf("%s: without the --set, the truth's values %v do not hold:\n%s", tf.key(), tf.Set, strings.Join(errs, "\n"))
					}
					if errs := proveValues(t, checker, c, oneFile, rendered.Objects, f, applied); len(errs) == 0 {
						t.Errorf("%s: the run's --set does not override the truth's values %v", tf.key(), tf.Set)
					}
					continue
				}
				if errs := proveValues(t, checker, c, oneFile, rendered.Objects, f, applied); len(errs) > 0 {
					t.Errorf("%s: the truth's values %v do not hold:\n%s", tf.key(), tf.Set, strings.Join(errs, "\n"))
				}
				proveTraps(t, checker, c, dir, i, user, rendered.Objects, f, tf, tf.Set[0].wanted(f))
			}
			res2, r2, err := checker.CheckChart(t.Context(), chart, c.renderOpts(writeValues(t, dir, "all.yaml", all))...)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range collateralChanges(rendered.Objects, r2.Objects, allApplied, c.ns()) {
				t.Errorf("every truth value written: %s", e)
			}
			left := map[string]bool{}
			for _, f := range res2.Findings {
				left[findingKey2(f)] = true
			}
			for _, tf := range c.truth.Findings {
				if tf.Route == "values" && left[tf.key()] != (tf.Overridden != "") {
					t.Errorf("%s: found %v with every truth value written, want %v", tf.key(), left[tf.key()], tf.Overridden != "")
				}
			}
		})
	}
}

// proveTraps: each of the finding's traps, the wanted value written there,
// leaves the finding or changes something else.
func proveTraps(t *testing.T, checker *helmgov.Checker, c corpus2Chart, dir string, i int, user map[string]any,
	before []helmgov.Object, f helmgov.Finding, tf truthFinding, want any) {
	t.Helper()
	for j, trap := range tf.Traps {
		wrong := plainMap(user)
		setValue(wrong, trap.Path, want)
		file := writeValues(t, dir, fmt.Sprintf("trap-%d-%d.yaml", i, j), wrong)
		if errs := proveValues(t, checker, c, file, before, f, []helmgov.AppliedFix{{Finding: f}}); len(errs) == 0 {
			t.Errorf("%s: trap %v (%s) is a right route after all", tf.key(), trap.Path, trap.Why)
		}
	}
}

// plainMap is a deep copy of a values map.
func plainMap(m map[string]any) map[string]any {
	out, _ := plain(m).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	return out
}

// proveValues renders the chart with a values file in place of the user's
// and says what is wrong: the finding stays, or the release changed beyond
// the finding's field (a budget may only be added).
func proveValues(t *testing.T, checker *helmgov.Checker, c corpus2Chart, values string, before []helmgov.Object, f helmgov.Finding, applied []helmgov.AppliedFix) []string {
	t.Helper()
	res, r, err := checker.CheckChart(t.Context(), filepath.Join(corpus2Root, c.name, "chart"), c.renderOpts(values)...)
	if err != nil {
		return []string{err.Error()}
	}
	var errs []string
	for _, g := range res.Findings {
		if findingKey2(g) == findingKey2(f) {
			errs = append(errs, "the finding stays: "+g.Message)
		}
	}
	return append(errs, collateralChanges(before, r.Objects, applied, c.ns())...)
}

// assertHooks: the truth's hook objects render, carry helm.sh/hook, and
// no finding names a hook object.
func assertHooks(t *testing.T, c corpus2Chart, objs []helmgov.Object, res *helmgov.Result) {
	t.Helper()
	hooks := map[string]bool{}
	for _, o := range objs {
		if isHook(o) {
			ref := o.Ref()
			if ref.Namespace == "" && o.Kind != "Namespace" {
				ref.Namespace = c.ns()
			}
			hooks[ref.String()] = true
		}
	}
	for _, h := range c.truth.Hooks {
		if !hooks[h] {
			t.Errorf("hook %s: not rendered, or without helm.sh/hook (hooks: %v)", h, hooks)
		}
	}
	for _, f := range res.Findings {
		if hooks[f.Object.String()] {
			t.Errorf("%s on a hook object: hooks are not workloads behind the load balancer", findingKey2(f))
		}
	}
}

// TestCorpusIdioms: the second corpus holds at least 12 charts and every
// idiom issue 32 names, each in at least one chart (found in the charts'
// files, packaged subcharts' sources included), and each chart's truth
// lists the idioms it reproduces.
func TestCorpusIdioms(t *testing.T) {
	charts := loadCorpus2(t)
	if len(charts) < 12 {
		t.Errorf("%d charts, want at least 12", len(charts))
	}
	idioms := []struct{ what, file, re string }{
		{"a library chart's helper", "Chart.yaml", `(?m)^type: library`},
		{"common.tplvalues.render", "templates", `include "common\.tplvalues\.render"`},
		{"a named pod helper the workload includes", "templates", `(?m)^  template:\n    \{\{- include "[\w.-]+\.pod(Template)?" \. \| nindent 4 \}\}`},
		{"toYaml at column 0", "templates", `(?m)^\{\{ toYaml \.Values\.[\w.]+ \| indent \d+ \}\}`},
		{"with + range over an annotations map beside a labels block", "templates", `(?s)labels:.{0,300}\{\{- with \.Values\.[\w.]*labels \}\}.{0,100}\{\{- end \}\}\s*\{\{- with \.Values\.[\w.]*annotations \}\}\s*annotations:\s*\{\{- range \$key, \$value := \. \}\}`},
		{"a map of services", "templates", `(?s)\{\{- range \$\w+, \$\w+ := \.Values\.\w+ \}\}\s*---\s*apiVersion: v1\s*kind: Service`},
		{"a packaged subchart", "charts", `\.tgz$`},
		{"a subchart under an alias", "Chart.yaml", `(?m)^\s+alias: \w+`},
		{"global values", "templates", `\.Values\.global\.`},
		{"a hook test Pod", "templates", `(?s)kind: Pod.*"?helm\.sh/hook"?: test`},
		{"tpl values", "templates", `\btpl \(?(toYaml )?(\.Values|\$value|\.)`},
		{"a literal annotations block the user's values extend", "templates", `(?m)^    kubernetes\.io/ingress\.class: alb\n(.*\n){1,3}\s*\{\{- with \.Values\.ingress\.annotations \}\}`},
	}
	for _, c := range charts {
		if len(c.truth.Idioms) == 0 {
			t.Errorf("%s: the truth lists no idioms", c.name)
		}
	}
	for _, id := range idioms {
		re := regexp.MustCompile(id.re)
		var in []string
		for _, c := range charts {
			found := false
			_ = filepath.WalkDir(filepath.Join(corpus2Root, c.name), func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || found {
					return err
				}
				slash := filepath.ToSlash(p)
				switch id.file {
				case "charts":
					found = re.MatchString(slash) && strings.Contains(slash, "/chart/charts/")
					return nil
				case "Chart.yaml":
					if d.Name() != "Chart.yaml" {
						return nil
					}
				case "templates":
					if !strings.Contains(slash, "/templates/") {
						return nil
					}
				}
				b, err := os.ReadFile(p)
				found = err == nil && re.Match(b)
				return err
			})
			if found {
				in = append(in, c.name)
			}
		}
		t.Logf("%s: %v", id.what, in)
		if len(in) == 0 {
			t.Errorf("%s: in no chart", id.what)
		}
	}
}
