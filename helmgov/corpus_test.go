package helmgov_test

// The corpus: charts of this project's own that reproduce the patterns of
// widely used public charts (an ingress controller's, a library-based web
// app's, a small demo service's, an umbrella with subcharts, a hand-written
// team chart, a StatefulSet with a values schema), each deployed behind an
// ALB or an NLB, each with the user's own values file (user-values.yaml,
// what `helm upgrade -f` gets) beside it. See issue 20.
//
// Layout: testdata/corpus/<name>/chart/ is the chart,
// testdata/corpus/<name>/user-values.yaml the user's values, and
// testdata/corpus/golden/<name>.txt the golden check, fix and re-check,
// with and without the user's values. go test ./helmgov -run TestCorpus
// -corpus-update rewrites the goldens.

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/qstools/tgmigrate/helmgov"
)

var corpusUpdate = flag.Bool("corpus-update", false, "rewrite the golden files under testdata/corpus/golden")

const corpusRoot = "testdata/corpus"

// oneReplicaWording is what helmgov says, instead of adding a budget, about
// a workload with one replica (issue 20, point 2).
const oneReplicaWording = "one replica: a PDB cannot keep it serving"

// corpusMode says which values a check and a fix render the chart with.
type corpusMode string

const (
	// userMode: `-f user-values.yaml`; fixes go into that file first.
	userMode corpusMode = "user-values"
	// chartMode: the chart's own values only; fixes go into values.yaml.
	chartMode corpusMode = "chart-values"
)

var corpusModes = []corpusMode{userMode, chartMode}

// corpusChart is one chart of the corpus and what the issue expects of it.
type corpusChart struct {
	// name is the directory under testdata/corpus.
	name string
	// namespace is the release namespace; empty is "default".
	namespace string
	// valuesOnly: every field a fix touches is read from values, so no
	// file under a templates/ directory may change, and no file may be
	// added there.
	valuesOnly bool
	// keep are chart files (relative to chart/) that must stay
	// byte-identical whatever the route: the key can come from values.
	keep []string
	// wrappers are the conditions the chart's wrappers read: for each,
	// the --set alternatives. Every combination is rendered.
	wrappers [][]string
	// oneReplica are the workloads ("Kind ns/name") with one replica: no
	// budget may be added for them, and helmgov must say why.
	oneReplica map[corpusMode][]string
	// onePDB are the workloads that must end with exactly one budget (the
	// chart's own, switched on, or a generated one).
	onePDB map[corpusMode][]string
	// dropped are findings ("RULE Kind ns/name") whose fix cannot hold;
	// the fix must drop them, report them with the reason, and write the
	// others.
	dropped map[corpusMode][]string
	// missingDependency: Chart.yaml lists this dependency and charts/ does
	// not hold it; check and fix fail with a render error, as today.
	missingDependency string
}

var corpus = []corpusChart{
	{
		// An ingress controller: NLB Service whose annotations come from a
		// values map through range (values rendered with tpl); Deployment
		// and DaemonSet behind whole-document `{{- if eq .Values.controller.kind
		// ... -}}` wrappers; helpers for names, labels and selectors; its own
		// PDB behind a replicas condition (rendered with the user's three
		// replicas, not with the chart's one); lifecycle and grace period
		// from values (toYaml | nindent); two Services in one file.
		name:       "edge-proxy",
		valuesOnly: true,
		wrappers: [][]string{
			{"controller.kind=Deployment", "controller.kind=DaemonSet"},
			{"controller.replicaCount=1", "controller.replicaCount=3"},
			{"controller.autoscaling.enabled=false", "controller.autoscaling.enabled=true"},
			{"controller.metrics.enabled=false", "controller.metrics.enabled=true"},
			{"controller.service.enabled=true", "controller.service.enabled=false"},
		},
		oneReplica: map[corpusMode][]string{chartMode: {"Deployment default/release-name-edge-proxy-controller"}},
		onePDB:     map[corpusMode][]string{userMode: {"Deployment default/release-name-edge-proxy-controller"}},
	},
	{
		// A library-based web app: names, labels, images and templated
		// values come from a library chart (charts/shared, type: library)
		// through include; global values (image registry, ingress class);
		// ALB Ingress whose annotations are rendered with tpl through a
		// helper (toYaml | nindent); the user's ALB still registers
		// instances and the Service is a NodePort; its own PDB behind
		// pdb.create (off, so not rendered) and a replicas condition;
		// lifecycle hooks (templated) and grace period from values.
		name:       "storefront",
		valuesOnly: true,
		wrappers: [][]string{
			{"ingress.enabled=true", "ingress.enabled=false"},
			{"pdb.create=false", "pdb.create=true"},
			{"replicaCount=1", "replicaCount=2"},
			{"autoscaling.enabled=false", "autoscaling.enabled=true"},
		},
		oneReplica: map[corpusMode][]string{chartMode: {"Deployment default/release-name-storefront"}},
		onePDB:     map[corpusMode][]string{userMode: {"Deployment default/release-name-storefront"}},
	},
	{
		// A small demo service: one replica; NLB Service annotations through
		// `with` and toYaml | nindent, still at instance targets; whole-
		// document `{{- if ... -}}` wrappers (Service, HPA, cache); three
		// documents in one file (the cache); lifecycle and grace from values.
		name:       "greeter",
		valuesOnly: true,
		wrappers: [][]string{
			{"service.enabled=true", "service.enabled=false"},
			{"hpa.enabled=false", "hpa.enabled=true"},
			{"cache.enabled=false", "cache.enabled=true"},
		},
		oneReplica: map[corpusMode][]string{
			userMode:  {"Deployment default/release-name-greeter"},
			chartMode: {"Deployment default/release-name-greeter"},
		},
	},
	{
		// An umbrella: two subcharts present under charts/ (one behind a
		// dependency condition); global values read by the subcharts; the
		// api's ALB Ingress annotations through range with tpl; its container
		// built by a helper that renders lifecycle with toYaml | nindent;
		// its own PDB behind pdb.enabled (off: not rendered); a Namespace
		// behind a whole-document wrapper, labels from values; two ConfigMaps
		// in one file.
		name:       "platform",
		namespace:  "orders",
		valuesOnly: true,
		wrappers: [][]string{
			{"namespace.create=true", "namespace.create=false"},
			{"api.pdb.enabled=false", "api.pdb.enabled=true"},
			{"api.ingress.enabled=true", "api.ingress.enabled=false"},
			{"worker.enabled=true", "worker.enabled=false"},
		},
		onePDB: map[corpusMode][]string{
			userMode:  {"Deployment orders/release-name-api"},
			chartMode: {"Deployment orders/release-name-api"},
		},
	},
	{
		// A hand-written team chart: a whole-document wrapper
		// `{{- if .Values.enabled -}}` around two documents (ConfigMap and
		// Deployment); grace period and container literal in the template,
		// no PDB: those fixes go into the template and a new file, which must
		// render whether the wrapper is on or off. The NLB Service's fixed
		// annotations are literal, but extra ones come from values (toYaml |
		// nindent): the missing one goes there, the Service template stays.
		name:     "ledger",
		keep:     []string{"templates/service.yaml"},
		wrappers: [][]string{{"enabled=true", "enabled=false"}, {"metrics.enabled=true", "metrics.enabled=false"}},
		onePDB: map[corpusMode][]string{
			userMode:  {"Deployment default/ledger"},
			chartMode: {"Deployment default/ledger"},
		},
	},
	{
		// A StatefulSet behind an internal ALB in (default) instance mode,
		// through a NodePort with a fixed node port the health check points
		// at; Ingress annotations through toYaml | nindent; two Services in
		// one file; its own PDB behind podDisruptionBudget.enabled (off). Its
		// values.schema.json caps terminationGracePeriodSeconds at 120, so
		// the grace-period fix cannot hold: it is dropped and reported, and
		// the other fixes are written.
		name:       "report-builder",
		valuesOnly: true,
		wrappers:   [][]string{{"ingress.enabled=true", "ingress.enabled=false"}, {"podDisruptionBudget.enabled=false", "podDisruptionBudget.enabled=true"}},
		onePDB: map[corpusMode][]string{
			userMode:  {"StatefulSet default/release-name-report-builder"},
			chartMode: {"StatefulSet default/release-name-report-builder"},
		},
		dropped: map[corpusMode][]string{
			userMode:  {"TGM-H009 StatefulSet default/release-name-report-builder"},
			chartMode: {"TGM-H009 StatefulSet default/release-name-report-builder"},
		},
	},
	{
		// A chart whose dependency (keystore) was never fetched into
		// charts/: check and fix fail with a clear render error.
		name:              "session-gateway",
		missingDependency: "keystore",
	},
}

// annotationRules are the findings values can always carry: they must be
// gone after a fix.
var annotationRules = []helmgov.RuleID{"TGM-H001", "TGM-H002", "TGM-H003", "TGM-H006", "TGM-H007"}

// corpusCase is a copy of a corpus directory in a temporary directory.
type corpusCase struct {
	c      corpusChart
	dir    string // the copy: chart/ and user-values.yaml
	chart  string // dir/chart
	values string // dir/user-values.yaml
}

func newCorpusCase(t *testing.T, c corpusChart) *corpusCase {
	t.Helper()
	dst := copyChart(t, filepath.Join(corpusRoot, c.name))
	return &corpusCase{c: c, dir: dst, chart: filepath.Join(dst, "chart"), values: filepath.Join(dst, "user-values.yaml")}
}

// renderOpts are the options of `helm template` (and of check and fix) in
// a mode, plus extra --set overrides.
func (cc *corpusCase) renderOpts(mode corpusMode, set ...string) []helmgov.RenderOption {
	var o []helmgov.RenderOption
	if cc.c.namespace != "" {
		o = append(o, helmgov.WithNamespace(cc.c.namespace))
	}
	if mode == userMode {
		o = append(o, helmgov.WithValuesFiles(cc.values))
	}
	if len(set) > 0 {
		o = append(o, helmgov.WithSet(set...))
	}
	return o
}

func (cc *corpusCase) ns() string {
	if cc.c.namespace != "" {
		return cc.c.namespace
	}
	return "default"
}

// resolve maps a file a fix result names (relative to the chart, or
// absolute) onto a path relative to the case directory.
func (cc *corpusCase) resolve(file string) string {
	p := file
	if !filepath.IsAbs(p) {
		p = filepath.Join(cc.chart, filepath.FromSlash(p))
	}
	rel, err := filepath.Rel(cc.dir, filepath.Clean(p))
	if err != nil {
		return file
	}
	return filepath.ToSlash(rel)
}

// route is where a file (relative to the case directory) puts a fix, in the
// issue's words.
func route(rel string) string {
	switch {
	case rel == "user-values.yaml":
		return "user values"
	case strings.Contains("/"+rel, "/templates/"):
		return "template"
	case strings.HasSuffix(rel, "/values.yaml"):
		return "chart values"
	}
	return "other"
}

// templatePathRE finds the template paths a fix's why names.
var templatePathRE = regexp.MustCompile(`(?:[\w.-]+/)*templates/[\w.-]+\.(?:yaml|yml|tpl)\b`)

// routeOf maps route's words onto the engine's routes.
var routeOf = map[string]helmgov.FixRoute{
	"user values":  helmgov.RouteUserValues,
	"chart values": helmgov.RouteChartValues,
	"template":     helmgov.RouteTemplate,
}

// normalize makes a report independent of the temporary directories.
var scratchRE = regexp.MustCompile(`[^\s"'()]*helmgov-fix-[0-9]+`)

func (cc *corpusCase) normalize(s string) string {
	s = strings.ReplaceAll(s, cc.dir+string(filepath.Separator), "")
	s = strings.ReplaceAll(s, cc.dir, ".")
	return scratchRE.ReplaceAllString(s, "<scratch>")
}

func combinations(alts [][]string) [][]string {
	out := [][]string{nil}
	for _, a := range alts {
		var next [][]string
		for _, prefix := range out {
			for _, v := range a {
				next = append(next, append(slices.Clone(prefix), v))
			}
		}
		out = next
	}
	return out
}

func checkText(t *testing.T, res *helmgov.Result, base string) string {
	t.Helper()
	var b bytes.Buffer
	if err := res.WriteText(&b, helmgov.ReportOptions{BaseDir: base}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func fixText(t *testing.T, res *helmgov.FixResult, base string) string {
	t.Helper()
	var b bytes.Buffer
	if err := res.WriteText(&b, helmgov.ReportOptions{BaseDir: base}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestCorpusPatterns: the corpus covers every pattern issue 20 lists, most
// of them in more than one chart.
func TestCorpusPatterns(t *testing.T) {
	patterns := []struct {
		what  string
		re    string // over the chart's templates, or Chart.yaml for the chart's kind
		files string // "templates" or "Chart.yaml"
		min   int    // charts that must show it
	}{
		{"annotations from a values map through range", `annotations:\s*\n\s*\{\{-? range \$\w+, \$\w+ := (\.|[^}]*annotations) ?\}\}`, "templates", 2},
		{"annotations through toYaml | nindent", `(?s)annotations:[^\n]*\n?\s*\{\{-? (toYaml [^|]*|include "shared.render" [^|]*)\| nindent`, "templates", 3},
		{"whole-document {{- if ... -}} wrapper", `(?m)\A(\{\{/\*.*\*/\}\}\n)?\{\{- if [^\n]*-\}\}\n`, "templates", 4},
		{"helpers for names, labels and selectors", `(?s)define "[\w.-]+\.(fullname|name)".*define "[\w.-]+\.(selectorLabels|matchLabels)"`, "templates", 4},
		{"a PDB template behind a condition", `(?s)\{\{-? if [^}]*\}\}.*kind: PodDisruptionBudget`, "templates", 4},
		{"lifecycle from values", `(?s)lifecycle:[^\n]*\n?\s*\{\{-? (toYaml|include)[^}]*\.Values\.(\w+\.)?lifecycle|with \.Values\.(\w+\.)?lifecycle`, "templates", 4},
		{"grace period from values", `terminationGracePeriodSeconds: \{\{ \.Values\.(\w+\.)?terminationGracePeriodSeconds`, "templates", 4},
		{"several documents in one file", `(?m)^---$`, "templates", 4},
		{"values rendered through tpl", `\btpl\b`, "templates", 3},
		{"global values", `\.Values\.global\.`, "templates", 2},
		{"a subchart under charts/", `(?m)^dependencies:`, "Chart.yaml", 2},
		{"a library chart", `(?m)^type: library`, "Chart.yaml", 1},
	}
	for _, p := range patterns {
		re := regexp.MustCompile(p.re)
		var in []string
		for _, c := range corpus {
			if c.missingDependency != "" {
				continue
			}
			found := false
			err := filepath.WalkDir(filepath.Join(corpusRoot, c.name, "chart"), func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || found {
					return err
				}
				switch p.files {
				case "templates":
					if !strings.Contains(filepath.ToSlash(path), "/templates/") {
						return nil
					}
				case "Chart.yaml":
					if d.Name() != "Chart.yaml" || (p.re == `(?m)^dependencies:` && !subchartPresent(path)) {
						return nil
					}
				}
				b, err := os.ReadFile(path)
				if err == nil && re.Match(b) {
					found = true
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if found {
				in = append(in, c.name)
			}
		}
		t.Logf("%s: %v", p.what, in)
		if len(in) < p.min {
			t.Errorf("%s: in %d charts %v, want at least %d", p.what, len(in), in, p.min)
		}
	}
	var missing, oneReplica, alb, nlb bool
	for _, c := range corpus {
		missing = missing || c.missingDependency != ""
		oneReplica = oneReplica || len(c.oneReplica) > 0
		b, _ := os.ReadFile(filepath.Join(corpusRoot, c.name, "user-values.yaml"))
		alb = alb || bytes.Contains(b, []byte("alb.ingress.kubernetes.io/"))
		nlb = nlb || bytes.Contains(b, []byte("service.beta.kubernetes.io/aws-load-balancer-"))
	}
	if !missing || !oneReplica || !alb || !nlb {
		t.Errorf("missing dependency %v, one replica %v, ALB %v, NLB %v: want all", missing, oneReplica, alb, nlb)
	}
}

// subchartPresent: the Chart.yaml at path lists dependencies, and each is
// unpacked under charts/.
func subchartPresent(path string) bool {
	dir := filepath.Dir(path)
	entries, err := os.ReadDir(filepath.Join(dir, "charts"))
	return err == nil && len(entries) > 0
}

// TestCorpusChartsRender: every corpus chart renders with the current code,
// with and without the user's values, under every combination of its
// wrappers' conditions; the chart with a missing dependency is a render
// error that names it.
func TestCorpusChartsRender(t *testing.T) {
	// Charts with a PodDisruptionBudget template that the user's values
	// leave unrendered: the fix must switch it on, not add a second one.
	var dormant []string
	t.Cleanup(func() {
		t.Logf("PDB templates not rendered with the user's values: %v", dormant)
		if len(dormant) < 2 {
			t.Errorf("charts with a PDB template not rendered with the user's values: %v, want at least 2", dormant)
		}
	})
	for _, c := range corpus {
		t.Run(c.name, func(t *testing.T) {
			cc := &corpusCase{c: c, dir: filepath.Join(corpusRoot, c.name), chart: filepath.Join(corpusRoot, c.name, "chart"),
				values: filepath.Join(corpusRoot, c.name, "user-values.yaml")}
			if c.missingDependency != "" {
				for _, mode := range corpusModes {
					_, err := helmgov.Render(t.Context(), cc.chart, cc.renderOpts(mode)...)
					assertMissingDependency(t, c, err)
				}
				return
			}
			for _, mode := range corpusModes {
				objects := 0
				for _, set := range combinations(c.wrappers) {
					r, err := helmgov.Render(t.Context(), cc.chart, cc.renderOpts(mode, set...)...)
					if err != nil {
						t.Errorf("%s %v: %v", mode, set, err)
						continue
					}
					objects += len(r.Objects)
					for _, e := range pdbOverlaps(r.Objects, cc.ns()) {
						t.Errorf("%s %v: before any fix: %s", mode, set, e)
					}
				}
				if objects == 0 {
					t.Errorf("%s: no combination renders an object", mode)
				}
			}
			if hasPDBTemplate(t, cc.chart) {
				r, err := helmgov.Render(t.Context(), cc.chart, cc.renderOpts(userMode)...)
				if err == nil && !slices.ContainsFunc(r.Objects, func(o helmgov.Object) bool { return o.Kind == "PodDisruptionBudget" }) {
					dormant = append(dormant, c.name)
				}
			}
		})
	}
}

// hasPDBTemplate: a template of the chart (or of a subchart) defines a
// PodDisruptionBudget.
func hasPDBTemplate(t *testing.T, chart string) bool {
	t.Helper()
	found := false
	err := filepath.WalkDir(chart, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(filepath.ToSlash(p), "/templates/") {
			return err
		}
		b, err := os.ReadFile(p)
		found = found || bytes.Contains(b, []byte("kind: PodDisruptionBudget"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

func assertMissingDependency(t *testing.T, c corpusChart, err error) {
	t.Helper()
	var re *helmgov.RenderError
	if !errors.As(err, &re) || !helmgov.IsRender(err) || helmgov.ExitCodeOf(err) != helmgov.ExitError {
		t.Fatalf("err = %v, want a *RenderError (ErrRender, exit code %d)", err, helmgov.ExitError)
	}
	for _, want := range []string{"missing in charts/ directory: " + c.missingDependency, "helm dependency build"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// TestCorpusGolden prints, for each corpus chart, the check, the fix (by
// the user's values file, and without it) and the re-check, and compares
// them with testdata/corpus/golden/<name>.txt.
func TestCorpusGolden(t *testing.T) {
	checker := newCorpusChecker(t)
	for _, c := range corpus {
		t.Run(c.name, func(t *testing.T) {
			var out strings.Builder
			fmt.Fprintf(&out, "# corpus chart %s: check, fix and re-check, with the user's values file and without it.\n", c.name)
			fmt.Fprintf(&out, "# Paths are relative to testdata/corpus/%s.\n", c.name)
			for _, mode := range corpusModes {
				cc := newCorpusCase(t, c)
				flag := ""
				if mode == userMode {
					flag = " -f user-values.yaml"
				}
				opts := cc.renderOpts(mode)
				fmt.Fprintf(&out, "\n== check%s\n", flag)
				res, _, err := checker.CheckChart(t.Context(), cc.chart, opts...)
				if err != nil {
					fmt.Fprintf(&out, "error: %s\n", cc.normalize(err.Error()))
				} else {
					out.WriteString(cc.normalize(checkText(t, res, cc.dir)))
				}
				fmt.Fprintf(&out, "== fix --yes%s\n", flag)
				fixed, err := checker.Fix(t.Context(), cc.chart, helmgov.WithRenderOptions(opts...))
				if err != nil {
					fmt.Fprintf(&out, "error: %s\n", cc.normalize(err.Error()))
					if c.missingDependency == "" {
						t.Errorf("%s: fix: %v", mode, err)
					}
				} else {
					out.WriteString(cc.normalize(fixText(t, fixed, cc.dir)))
				}
				fmt.Fprintf(&out, "== re-check%s\n", flag)
				res, _, err = checker.CheckChart(t.Context(), cc.chart, opts...)
				if err != nil {
					fmt.Fprintf(&out, "error: %s\n", cc.normalize(err.Error()))
				} else {
					out.WriteString(cc.normalize(checkText(t, res, cc.dir)))
				}
			}
			corpusGolden(t, c.name+".txt", out.String())
		})
	}
}

func corpusGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(corpusRoot, "golden", name)
	if *corpusUpdate {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./helmgov -run TestCorpusGolden -corpus-update creates it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got; -corpus-update rewrites it):\n%s", path, diff)
	}
}

func newCorpusChecker(t *testing.T) *helmgov.Checker {
	t.Helper()
	c, err := helmgov.NewChecker(helmgov.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCorpusAcceptance is issue 20's acceptance, on every corpus chart, with
// the user's values file (`fix --yes -f user-values.yaml`) and without one:
// check, fix on a copy, re-check with the same values.
func TestCorpusAcceptance(t *testing.T) {
	checker := newCorpusChecker(t)
	for _, c := range corpus {
		for _, mode := range corpusModes {
			t.Run(c.name+"/"+string(mode), func(t *testing.T) {
				cc := newCorpusCase(t, c)
				if c.missingDependency != "" {
					before := treeHash(t, cc.dir)
					_, _, err := checker.CheckChart(t.Context(), cc.chart, cc.renderOpts(mode)...)
					assertMissingDependency(t, c, err)
					_, err = checker.Fix(t.Context(), cc.chart, helmgov.WithRenderOptions(cc.renderOpts(mode)...))
					assertMissingDependency(t, c, err)
					if diff := cmp.Diff(before, treeHash(t, cc.dir)); diff != "" {
						t.Errorf("a fix that could not render changed the chart:\n%s", diff)
					}
					return
				}
				acceptance(t, checker, cc, mode)
			})
		}
	}
}

func acceptance(t *testing.T, checker *helmgov.Checker, cc *corpusCase, mode corpusMode) {
	opts := cc.renderOpts(mode)

	// Check.
	before, rendered, err := checker.CheckChart(t.Context(), cc.chart, opts...)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	beforeText := checkText(t, before, cc.dir)
	t.Logf("check:\n%s", cc.normalize(beforeText))
	if before.Count(helmgov.SeverityInfo) == 0 {
		t.Fatalf("the chart has no finding; it is meant to have some:\n%s", beforeText)
	}
	// The wording matches the state: a Service still at instance targets
	// is not "behind ip targets".
	for _, e := range wordingErrors(before, rendered.Objects, cc.ns()) {
		t.Errorf("check: %s", e)
	}

	// Fix, written (not a dry run).
	hashBefore := treeHash(t, cc.dir)
	fixed, err := checker.Fix(t.Context(), cc.chart, helmgov.WithRenderOptions(opts...))
	if err != nil {
		t.Fatalf("fix: %v", cc.normalize(err.Error()))
	}
	report := fixText(t, fixed, cc.dir)
	t.Logf("fix report:\n%s", cc.normalize(report))
	if len(fixed.Applied) == 0 {
		t.Fatalf("the fix applied nothing")
	}
	hashAfter := treeHash(t, cc.dir)

	// Where each fix went: the user's values file when -f is given, the
	// chart's values where the template reads the field from values, the
	// template only as a last resort. The report names each fix's file and
	// route.
	for _, a := range fixed.Applied {
		rel := cc.resolve(a.File)
		r := route(rel)
		what := fmt.Sprintf("%s %s in %s (%s)", a.Finding.Rule, a.Finding.Object, rel, r)
		switch {
		case r == "other":
			t.Errorf("fix %s: not a values file or a template", what)
		case mode == userMode && r == "chart values":
			t.Errorf("fix %s: -f user-values.yaml was given; a fix that values carry goes into the user's values file", what)
		case mode == chartMode && r == "user values":
			t.Errorf("fix %s: no user values file was given", what)
		case r == "template" && cc.c.valuesOnly:
			t.Errorf("fix %s: the chart reads this field from values; the template must not change", what)
		}
		if !reportNames(report, string(a.Finding.Rule), a.Finding.Object.String(), filepath.Base(rel), r) {
			t.Errorf("the fix report (logged above) has no line naming fix %s with its file and route %q", what, r)
		}
		if want := routeOf[r]; a.Route != want {
			t.Errorf("fix %s: Route is %q, want %q", what, a.Route, want)
		}
		if strings.TrimSpace(a.Why) == "" || !strings.Contains(report, strings.TrimSpace(a.Why)) {
			t.Errorf("fix %s: why %q is empty or not in the report", what, a.Why)
		}
		// The templates a why names are files of the chart (a subchart's
		// under charts/<name>/).
		for _, f := range templatePathRE.FindAllString(a.Why, -1) {
			if _, err := os.Stat(filepath.Join(cc.chart, filepath.FromSlash(f))); err != nil {
				t.Errorf("fix %s: why names %s, which is not a file of the chart: %q", what, f, a.Why)
			}
		}
	}
	for _, d := range fixed.Dropped {
		if strings.TrimSpace(d.Reason) == "" || !reportNames(report, string(d.Finding.Rule), d.Finding.Object.String()) {
			t.Errorf("dropped fix %s %s: reason %q, or the report does not name it", d.Finding.Rule, d.Finding.Object, d.Reason)
		}
	}

	// The files that changed are the ones the result lists, and only
	// those the routes allow.
	changed := changedFiles(hashBefore, hashAfter)
	var listed []string
	for _, f := range fixed.Files {
		listed = append(listed, cc.resolve(f.Path))
	}
	slices.Sort(listed)
	if diff := cmp.Diff(listed, changed); diff != "" {
		t.Errorf("changed files differ from FixResult.Files (-listed +changed):\n%s", diff)
	}
	for _, p := range changed {
		switch r := route(p); {
		case r == "template" && cc.c.valuesOnly:
			t.Errorf("%s changed: every field this chart's fixes touch comes from values; its templates must stay byte-identical", p)
		case r == "chart values" && mode == userMode:
			t.Errorf("%s changed: with -f user-values.yaml the chart's values stay as they are", p)
		case r == "user values" && mode == chartMode:
			t.Errorf("%s changed without -f", p)
		case r == "other":
			t.Errorf("%s changed: neither a values file nor a template", p)
		}
		if slices.Contains(cc.c.keep, strings.TrimPrefix(p, "chart/")) {
			t.Errorf("%s changed: the key it would take can come from values", p)
		}
	}

	// Re-check with the same values: the re-render passes, and the
	// annotation findings are gone.
	after, rr, err := checker.CheckChart(t.Context(), cc.chart, opts...)
	if err != nil {
		t.Fatalf("re-check: the fixed chart does not render: %v", cc.normalize(err.Error()))
	}
	afterText := checkText(t, after, cc.dir)
	for _, f := range after.Findings {
		if f.Suppressed {
			continue
		}
		if slices.Contains(annotationRules, f.Rule) {
			t.Errorf("re-check: %s %s is still there: %s", f.Rule, f.Object, f.Message)
		} else if f.Fix != nil && !slices.Contains(cc.c.dropped[mode], string(f.Rule)+" "+f.Object.String()) &&
			!(f.Rule == helmgov.RuleWorkloadPDB && slices.Contains(cc.c.oneReplica[mode], f.Object.String())) {
			// The chart carries the field in values (or, for a hand-written
			// chart, in a template helmgov can edit): the fix must not be
			// refused.
			t.Errorf("re-check: %s %s is still there, though the chart can carry its fix: %s", f.Rule, f.Object, f.Message)
		}
		// Every finding left is a dropped or skipped fix, reported with
		// its reason; never a fix reported as applied.
		for _, a := range fixed.Applied {
			if a.Finding.Rule == f.Rule && a.Finding.Object == f.Object && a.Finding.Path == f.Path {
				t.Errorf("re-check: %s %s %s was reported fixed and is still there", f.Rule, f.Object, f.Path)
			}
		}
		if !reportNames(report, string(f.Rule), f.Object.String()) {
			t.Errorf("re-check: %s %s is left, and the fix report (logged above) does not say why", f.Rule, f.Object)
		}
	}
	for _, d := range cc.c.dropped[mode] {
		rule, obj, _ := strings.Cut(d, " ")
		if !slices.ContainsFunc(after.Findings, func(f helmgov.Finding) bool { return string(f.Rule) == rule && f.Object.String() == obj }) {
			t.Errorf("%s: its fix cannot hold (values.schema.json), yet the finding is gone:\n%s", d, cc.normalize(afterText))
		}
		if slices.ContainsFunc(fixed.Applied, func(a helmgov.AppliedFix) bool {
			return string(a.Finding.Rule) == rule && a.Finding.Object.String() == obj
		}) {
			t.Errorf("%s: reported as applied; it must be dropped, with its reason", d)
		}
		if !reportNames(report, rule, obj) {
			t.Errorf("%s: the fix report (logged above) does not name the dropped fix and its reason", d)
		}
		if !slices.ContainsFunc(fixed.Dropped, func(x helmgov.DroppedFix) bool {
			return string(x.Finding.Rule) == rule && x.Finding.Object.String() == obj && x.Reason != ""
		}) && !slices.ContainsFunc(fixed.Skipped, func(x helmgov.SkippedFix) bool {
			return string(x.Finding.Rule) == rule && x.Finding.Object.String() == obj && x.Reason != ""
		}) {
			t.Errorf("%s: not in FixResult.Dropped (or Skipped) with a reason", d)
		}
	}

	// No pod is selected by two PodDisruptionBudgets; the workloads that
	// need one have exactly one; a workload with one replica gets none,
	// and helmgov says why.
	for _, e := range pdbOverlaps(rr.Objects, cc.ns()) {
		t.Errorf("re-render: %s", e)
	}
	budgets := pdbsOf(rr.Objects, cc.ns())
	for _, w := range cc.c.onePDB[mode] {
		if n := len(budgets[w]); n != 1 {
			t.Errorf("%s is selected by %d PodDisruptionBudgets %v after the fix, want 1 (the chart's own switch first)", w, n, budgets[w])
		}
	}
	for _, w := range cc.c.oneReplica[mode] {
		if n := len(budgets[w]); n != 0 {
			t.Errorf("%s has one replica, yet %d PodDisruptionBudgets %v select it after the fix", w, n, budgets[w])
		}
		for _, a := range fixed.Applied {
			if a.Finding.Rule == helmgov.RuleWorkloadPDB && a.Finding.Object.String() == w {
				t.Errorf("%s has one replica, yet the fix added a budget in %s", w, a.File)
			}
		}
		if !reportNames(beforeText+report, w, oneReplicaWording) {
			t.Errorf("%s has one replica: neither the check nor the fix report (logged above) says %q", w, oneReplicaWording)
		}
	}

	// The fix changes nothing else in the rendered release: no object goes
	// away, the only new objects are budgets, and the objects differ only
	// at the fields the applied fixes name (a switch that turns on an
	// autoscaler, or drops replicas, is not a fix).
	for _, e := range collateralChanges(rendered.Objects, rr.Objects, fixed.Applied, cc.ns()) {
		t.Errorf("re-render: %s", e)
	}

	// Every file the fix wrote renders under every combination of the
	// chart's wrapper conditions, and no combination selects a pod by two
	// budgets.
	renderEveryCombination(t, cc, mode, fixed)

	// Fixing again changes nothing.
	again, err := checker.Fix(t.Context(), cc.chart, helmgov.WithRenderOptions(opts...))
	if err != nil {
		t.Fatalf("second fix: %v", err)
	}
	if len(again.Applied) != 0 || again.Written || again.Diff != "" {
		t.Errorf("second fix: applied %d, written %v, diff:\n%s", len(again.Applied), again.Written, again.Diff)
	}
	if diff := cmp.Diff(hashAfter, treeHash(t, cc.dir)); diff != "" {
		t.Errorf("the second fix changed the chart:\n%s", diff)
	}
}

// collateralChanges lists what a fix changed in the rendered release beyond
// the fields its findings name.
func collateralChanges(before, after []helmgov.Object, applied []helmgov.AppliedFix, defaultNS string) []string {
	key := func(o helmgov.Object) string {
		if o.Kind == "Namespace" {
			return o.Kind + " " + o.Name
		}
		ns := o.Namespace
		if ns == "" {
			ns = defaultNS
		}
		return o.Kind + " " + ns + "/" + o.Name
	}
	paths := map[string][]helmgov.FieldPath{}
	for _, a := range applied {
		if a.Finding.Fix != nil && a.Finding.Fix.Op == helmgov.OpSet {
			k := a.Finding.Object.String()
			paths[k] = append(paths[k], a.Finding.Fix.Path)
		}
	}
	norm := func(o helmgov.Object) map[string]any {
		var m map[string]any
		b, _ := json.Marshal(o.Fields)
		_ = json.Unmarshal(b, &m)
		for _, p := range paths[key(o)] {
			deletePath(m, p)
		}
		return m
	}
	was := map[string]helmgov.Object{}
	for _, o := range before {
		was[key(o)] = o
	}
	is := map[string]helmgov.Object{}
	for _, o := range after {
		is[key(o)] = o
	}
	var errs []string
	for _, k := range slices.Sorted(maps.Keys(was)) {
		o, ok := is[k]
		if !ok {
			errs = append(errs, k+" is gone after the fix")
			continue
		}
		if diff := cmp.Diff(norm(was[k]), norm(o)); diff != "" {
			errs = append(errs, fmt.Sprintf("%s changed beyond the fields its fixes name (-before +after):\n%s", k, diff))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(is)) {
		if _, ok := was[k]; !ok && is[k].Kind != "PodDisruptionBudget" {
			errs = append(errs, k+" is new after the fix; a fix adds PodDisruptionBudgets only")
		}
	}
	return errs
}

// deletePath removes the field at p, and the maps it leaves empty.
func deletePath(m map[string]any, p helmgov.FieldPath) {
	if len(p) == 0 || m == nil {
		return
	}
	step := p[0]
	if step.Item != "" {
		return // a list item is reached through its list's key
	}
	if len(p) == 1 {
		delete(m, step.Key)
		return
	}
	next := p[1:]
	switch v := m[step.Key].(type) {
	case map[string]any:
		deletePath(v, next)
		if len(v) == 0 {
			delete(m, step.Key)
		}
	case []any:
		if next[0].Item == "" {
			return
		}
		for _, el := range v {
			if em, ok := el.(map[string]any); ok && em["name"] == next[0].Item {
				deletePath(em, next[1:])
			}
		}
	}
}

// renderEveryCombination renders the fixed chart under every combination of
// its wrappers' conditions, in the mode's values.
func renderEveryCombination(t *testing.T, cc *corpusCase, mode corpusMode, fixed *helmgov.FixResult) {
	t.Helper()
	written := map[string]bool{} // template files the fix wrote, absolute
	added := map[string]int{}    // new template files: objects they rendered, over all combinations
	for _, f := range fixed.Files {
		rel := cc.resolve(f.Path)
		if route(rel) != "template" {
			continue
		}
		abs := filepath.Join(cc.dir, filepath.FromSlash(rel))
		written[abs] = true
		if f.Before == "" {
			added[abs] = 0
		}
	}
	for _, set := range combinations(cc.c.wrappers) {
		r, err := helmgov.Render(t.Context(), cc.chart, cc.renderOpts(mode, set...)...)
		if err != nil {
			t.Errorf("the fixed chart does not render with --set %s: %v", strings.Join(set, ","), err)
			continue
		}
		for _, e := range pdbOverlaps(r.Objects, cc.ns()) {
			t.Errorf("--set %s: %s", strings.Join(set, ","), e)
		}
		for _, o := range r.Objects {
			abs, _ := filepath.Abs(o.Source.File)
			if !written[o.Source.File] && !written[abs] {
				continue
			}
			if o.APIVersion == "" || o.Kind == "" || o.Name == "" {
				t.Errorf("--set %s: %s renders an object without apiVersion, kind or name: %+v", strings.Join(set, ","), o.Source.Template, o.Ref())
			}
			if _, ok := added[o.Source.File]; ok {
				added[o.Source.File]++
			}
		}
	}
	for f, n := range added {
		if n == 0 {
			t.Errorf("%s, written by the fix, renders nothing under any combination of %v", f, cc.c.wrappers)
		}
	}
}

// reportNames: some line of the report holds every one of the words
// (compared without case, with - and _ read as spaces).
func reportNames(report string, words ...string) bool {
	norm := func(s string) string {
		return strings.NewReplacer("-", " ", "_", " ").Replace(strings.ToLower(s))
	}
	for _, line := range strings.Split(report, "\n") {
		l := norm(line)
		if !slices.ContainsFunc(words, func(w string) bool { return !strings.Contains(l, norm(w)) }) {
			return true
		}
	}
	return false
}

// workloadKinds are the kinds whose pods a budget can select.
var workloadKinds = []string{"Deployment", "StatefulSet", "ReplicaSet", "DaemonSet"}

// pdbsOf maps each workload ("Kind ns/name") to the names of the budgets
// that select its pods.
func pdbsOf(objs []helmgov.Object, defaultNS string) map[string][]string {
	type budget struct {
		ns, name string
		sel      labels.Selector
	}
	nsOf := func(o helmgov.Object) string {
		if o.Namespace != "" {
			return o.Namespace
		}
		return defaultNS
	}
	var budgets []budget
	for _, o := range objs {
		if o.Kind != "PodDisruptionBudget" {
			continue
		}
		var ls *metav1.LabelSelector
		if spec, ok := o.Fields["spec"].(map[string]any); ok && spec["selector"] != nil {
			b, _ := json.Marshal(spec["selector"])
			ls = &metav1.LabelSelector{}
			if json.Unmarshal(b, ls) != nil {
				ls = nil
			}
		}
		if ls == nil {
			continue // policy/v1: a budget without a selector selects no pod
		}
		sel, err := metav1.LabelSelectorAsSelector(ls)
		if err != nil {
			continue
		}
		budgets = append(budgets, budget{ns: nsOf(o), name: o.Name, sel: sel})
	}
	out := map[string][]string{}
	for _, o := range objs {
		if !slices.Contains(workloadKinds, o.Kind) {
			continue
		}
		podLabels := labels.Set{}
		if spec, ok := o.Fields["spec"].(map[string]any); ok {
			if tpl, ok := spec["template"].(map[string]any); ok {
				if md, ok := tpl["metadata"].(map[string]any); ok {
					if l, ok := md["labels"].(map[string]any); ok {
						for k, v := range l {
							podLabels[k] = fmt.Sprint(v)
						}
					}
				}
			}
		}
		key := o.Kind + " " + nsOf(o) + "/" + o.Name
		out[key] = []string{}
		for _, b := range budgets {
			if b.ns == nsOf(o) && b.sel.Matches(podLabels) {
				out[key] = append(out[key], b.name)
			}
		}
	}
	return out
}

// pdbOverlaps lists the workloads whose pods two or more budgets select:
// the eviction API refuses to evict them, and node drains block.
func pdbOverlaps(objs []helmgov.Object, defaultNS string) []string {
	var errs []string
	m := pdbsOf(objs, defaultNS)
	for _, w := range slices.Sorted(maps.Keys(m)) {
		if len(m[w]) > 1 {
			errs = append(errs, fmt.Sprintf("the pods of %s are selected by %d PodDisruptionBudgets %v", w, len(m[w]), m[w]))
		}
	}
	return errs
}

// wordingErrors lists the findings and notices that call a Service, an
// Ingress or a namespace "behind ip targets" (or say it "has ip targets")
// while the rendered chart still registers instance targets there.
func wordingErrors(res *helmgov.Result, objs []helmgov.Object, defaultNS string) []string {
	nsOf := func(o helmgov.Object) string {
		if o.Namespace != "" {
			return o.Namespace
		}
		return defaultNS
	}
	ann := func(o helmgov.Object) map[string]string { return o.Annotations() }
	ip := map[string]bool{}       // "Kind ns/name" of objects at ip targets
	balanced := map[string]bool{} // "Kind ns/name" of the load-balanced ones
	services := map[string]helmgov.Object{}
	for _, o := range objs {
		if o.Kind == "Service" {
			services[nsOf(o)+"/"+o.Name] = o
		}
	}
	for _, o := range objs {
		ref := o.Kind + " " + nsOf(o) + "/" + o.Name
		spec, _ := o.Fields["spec"].(map[string]any)
		switch o.Kind {
		case "Service":
			if spec["type"] != "LoadBalancer" {
				continue
			}
			if cl, ok := spec["loadBalancerClass"].(string); ok && cl != "" && cl != "service.k8s.aws/nlb" {
				continue
			}
			balanced[ref] = true
			a := ann(o)
			cl, _ := spec["loadBalancerClass"].(string)
			if (a["service.beta.kubernetes.io/aws-load-balancer-type"] == "external" || cl == "service.k8s.aws/nlb") &&
				a["service.beta.kubernetes.io/aws-load-balancer-nlb-target-type"] == "ip" {
				ip[ref] = true
			}
		case "Ingress":
			cl, _ := spec["ingressClassName"].(string)
			if cl == "" {
				cl = ann(o)["kubernetes.io/ingress.class"]
			}
			if cl != "alb" {
				continue
			}
			balanced[ref] = true
			tt := ann(o)["alb.ingress.kubernetes.io/target-type"]
			if tt == "ip" {
				ip[ref] = true
			}
			for _, b := range ingressServiceNames(spec) {
				svc, ok := services[nsOf(o)+"/"+b]
				if !ok {
					continue
				}
				sref := "Service " + nsOf(o) + "/" + b
				balanced[sref] = true
				stt := tt
				if v, ok := ann(svc)["alb.ingress.kubernetes.io/target-type"]; ok {
					stt = v
				}
				if stt == "ip" {
					ip[sref] = true
				}
			}
		case "TargetGroupBinding":
			if spec["targetType"] == "ip" {
				if sr, ok := spec["serviceRef"].(map[string]any); ok {
					ip[fmt.Sprintf("Service %s/%v", nsOf(o), sr["name"])] = true
				}
			}
		}
	}
	var msgs []string
	for _, f := range res.Findings {
		msgs = append(msgs, string(f.Rule)+" "+f.Object.String()+": "+f.Message)
	}
	for _, n := range res.Notices {
		msgs = append(msgs, "notice "+n.Object.String()+": "+n.Message)
	}
	var errs []string
	for _, ref := range slices.Sorted(maps.Keys(balanced)) {
		if ip[ref] {
			continue
		}
		kind, nsName, _ := strings.Cut(ref, " ")
		_, name, _ := strings.Cut(nsName, "/")
		claims := []string{"has ip targets (" + ref + ")"}
		if kind == "Service" {
			claims = append(claims, "behind ip targets (Service "+name+":")
		}
		for _, m := range msgs {
			for _, claim := range claims {
				if strings.Contains(m, claim) {
					errs = append(errs, fmt.Sprintf("%s still registers instance targets, yet: %s", ref, m))
				}
			}
		}
	}
	return errs
}

// ingressServiceNames lists the Services an Ingress routes to.
func ingressServiceNames(spec map[string]any) []string {
	var names []string
	add := func(b any) {
		if m, ok := b.(map[string]any); ok {
			if s, ok := m["service"].(map[string]any); ok {
				if n, ok := s["name"].(string); ok {
					names = append(names, n)
				}
			}
		}
	}
	add(spec["defaultBackend"])
	rules, _ := spec["rules"].([]any)
	for _, r := range rules {
		rm, _ := r.(map[string]any)
		h, _ := rm["http"].(map[string]any)
		paths, _ := h["paths"].([]any)
		for _, p := range paths {
			pm, _ := p.(map[string]any)
			add(pm["backend"])
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// TestCorpusInto: --into overrides the order of the routes. On every corpus
// chart, with the user's values, each route alone: every applied fix goes
// by that route, every changed file is of that route, the fixed chart
// renders under every combination of its wrappers with no pod under two
// budgets, and what is left is reported.
func TestCorpusInto(t *testing.T) {
	checker := newCorpusChecker(t)
	for _, c := range corpus {
		if c.missingDependency != "" {
			continue
		}
		for _, into := range []string{"values", "chart", "templates"} {
			t.Run(c.name+"/"+into, func(t *testing.T) {
				r, err := helmgov.ParseFixRoute(into)
				if err != nil {
					t.Fatal(err)
				}
				words := map[helmgov.FixRoute]string{helmgov.RouteUserValues: "user values", helmgov.RouteChartValues: "chart values", helmgov.RouteTemplate: "template"}[r]
				cc := newCorpusCase(t, c)
				opts := cc.renderOpts(userMode)
				hashBefore := treeHash(t, cc.dir)
				fixed, err := checker.Fix(t.Context(), cc.chart, helmgov.WithRenderOptions(opts...), helmgov.WithInto(r))
				if err != nil {
					t.Fatalf("fix --into %s: %v", into, cc.normalize(err.Error()))
				}
				report := fixText(t, fixed, cc.dir)
				t.Logf("fix --into %s:\n%s", into, cc.normalize(report))
				for _, a := range fixed.Applied {
					if got := route(cc.resolve(a.File)); got != words || a.Route != r {
						t.Errorf("--into %s: %s %s went into %s (%s, route %q)", into, a.Finding.Rule, a.Finding.Object, a.File, got, a.Route)
					}
				}
				after := treeHash(t, cc.dir)
				for p, h := range after {
					if hashBefore[p] != h && route(p) != words {
						t.Errorf("--into %s: %s changed (%s)", into, p, route(p))
					}
				}
				res, rr, err := checker.CheckChart(t.Context(), cc.chart, opts...)
				if err != nil {
					t.Fatalf("re-check: %v", cc.normalize(err.Error()))
				}
				for _, e := range pdbOverlaps(rr.Objects, cc.ns()) {
					t.Error(e)
				}
				for _, f := range res.Findings {
					if !f.Suppressed && !reportNames(report, string(f.Rule), f.Object.String()) {
						t.Errorf("--into %s: %s %s is left and the report does not say why", into, f.Rule, f.Object)
					}
				}
				renderEveryCombination(t, cc, userMode, fixed)
			})
		}
	}
}

// TestCorpusAtomic: with --atomic, the fix that cannot hold
// (report-builder's grace period, capped by values.schema.json) fails the
// whole fix and nothing is written; without it, the others are written and
// the one that cannot hold is dropped.
func TestCorpusAtomic(t *testing.T) {
	checker := newCorpusChecker(t)
	rb := corpus[slices.IndexFunc(corpus, func(c corpusChart) bool { return c.name == "report-builder" })]
	for _, mode := range corpusModes {
		t.Run(string(mode), func(t *testing.T) {
			cc := newCorpusCase(t, rb)
			before := treeHash(t, cc.dir)
			_, err := checker.Fix(t.Context(), cc.chart, helmgov.WithRenderOptions(cc.renderOpts(mode)...), helmgov.WithAtomic())
			var fe *helmgov.FixError
			if !errors.As(err, &fe) || !helmgov.IsFixNotHeld(err) || helmgov.ExitCodeOf(err) != helmgov.ExitError {
				t.Fatalf("err = %v, want a *FixError that did not hold", err)
			}
			if !strings.Contains(err.Error(), "TGM-H009") {
				t.Errorf("the error does not name the fix that cannot hold: %v", err)
			}
			if diff := cmp.Diff(before, treeHash(t, cc.dir)); diff != "" {
				t.Errorf("--atomic wrote a partial fix:\n%s", diff)
			}

			partial, err := checker.Fix(t.Context(), cc.chart, helmgov.WithRenderOptions(cc.renderOpts(mode)...))
			if err != nil {
				t.Fatalf("without --atomic: %v", err)
			}
			if !partial.Written || len(partial.Applied) == 0 || len(partial.Dropped) == 0 {
				t.Errorf("without --atomic: written %v, applied %d, dropped %d; want the others written and the grace period dropped",
					partial.Written, len(partial.Applied), len(partial.Dropped))
			}
		})
	}
}

// TestCorpusDetectors: the detectors the acceptance relies on see what they
// are meant to see, so that a pass means something.
func TestCorpusDetectors(t *testing.T) {
	read := func(s string) []helmgov.Object {
		t.Helper()
		objs, err := helmgov.ReadManifests(strings.NewReader(s), "test.yaml")
		if err != nil {
			t.Fatal(err)
		}
		return objs
	}
	const deploy = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n" +
		"  template:\n    metadata: {labels: {app: web, tier: front}}\n    spec:\n      terminationGracePeriodSeconds: 30\n      containers: [{name: web, image: x}]\n"
	const svc = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations: {service.beta.kubernetes.io/aws-load-balancer-type: external}\n" +
		"spec: {type: LoadBalancer, selector: {app: web}}\n"
	pdb := func(name, sel string) string {
		return "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: " + name + "}\nspec: {maxUnavailable: 1, selector: {matchLabels: {" + sel + "}}}\n"
	}
	before := read(deploy + "---\n" + svc)

	if e := pdbOverlaps(read(deploy+pdb("a", "app: web")+pdb("b", "tier: front")), "default"); len(e) != 1 {
		t.Errorf("two budgets over one pod: %v", e)
	}
	if e := pdbOverlaps(read(deploy+pdb("a", "app: web")+pdb("b", "app: other")), "default"); len(e) != 0 {
		t.Errorf("one budget over the pod: %v", e)
	}

	// A switch that turns on an autoscaler and drops replicas is collateral;
	// the grace period a fix names, and a new budget, are not.
	grace := helmgov.FieldPath{{Key: "spec"}, {Key: "template"}, {Key: "spec"}, {Key: "terminationGracePeriodSeconds"}}
	fixes := []helmgov.AppliedFix{{Finding: helmgov.Finding{Object: helmgov.ObjectRef{Kind: "Deployment", Namespace: "default", Name: "web"},
		Fix: &helmgov.Change{Op: helmgov.OpSet, Path: grace, Value: 160}}}}
	ok := read(strings.Replace(deploy, "terminationGracePeriodSeconds: 30", "terminationGracePeriodSeconds: 160", 1) + "---\n" + svc + pdb("web", "app: web"))
	if e := collateralChanges(before, ok, fixes, "default"); len(e) != 0 {
		t.Errorf("a fix of the named field: %v", e)
	}
	hpa := "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\nspec: {maxReplicas: 3, scaleTargetRef: {kind: Deployment, name: web}}\n"
	bad := read(strings.Replace(deploy, "  replicas: 2\n", "", 1) + "---\n" + svc + hpa)
	if e := collateralChanges(before, bad, fixes, "default"); len(e) != 2 {
		t.Errorf("replicas dropped and an autoscaler added: %v", e)
	}

	// The Service registers instance targets (no nlb-target-type: ip): a
	// workload behind it is not "behind ip targets".
	res := &helmgov.Result{Findings: []helmgov.Finding{{Rule: "TGM-H010", Object: helmgov.ObjectRef{Kind: "Deployment", Namespace: "default", Name: "web"},
		Message: "Deployment behind ip targets (Service web: it is a LoadBalancer Service of the LBC) has no PodDisruptionBudget"}}}
	if e := wordingErrors(res, before, "default"); len(e) != 1 {
		t.Errorf("instance targets called ip targets: %v", e)
	}
	atIP := read(deploy + "---\n" + strings.Replace(svc, "external}", "external, service.beta.kubernetes.io/aws-load-balancer-nlb-target-type: ip}", 1))
	if e := wordingErrors(res, atIP, "default"); len(e) != 0 {
		t.Errorf("ip targets called ip targets: %v", e)
	}
}
