package helmgov

// The probes' own test (issue 32, point 4): for each template idiom of
// real charts, a chart of this project's own under testdata/probe, the
// route the template reader alone would take (a wrong values path, or
// none), and the values path the renderer's probes find, written by Fix
// and proven by a re-check of the written chart.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v4/pkg/chart/loader"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
)

// readerRoute is where the template reader alone (the masked YAML of the
// object's template and the actions around the key, as Fix read it before
// the probes) would put a fix: "values a.b.c", "template", or "none: why".
func readerRoute(r *Rendered, f Finding) string {
	obj := findObject(r.Objects, f)
	info, rel, ok := r.chartOf(obj.Source.Template)
	if !ok || info.dir == "" {
		return "none: a packaged subchart"
	}
	data, err := os.ReadFile(filepath.Join(info.dir, filepath.FromSlash(rel)))
	if err != nil {
		return "none: " + err.Error()
	}
	tf, err := parseSource(rel, data, true)
	var sr setResult
	if err == nil {
		var doc int
		if doc, err = tf.findDoc(obj.Kind, obj.Name); err == nil {
			sr, err = tf.set(tf.root(doc), f.Fix.Path, f.Fix.Value, obj.Fields)
		}
	}
	switch {
	case err != nil:
		return "none: " + strings.TrimPrefix(err.Error(), errUnfixable.Error()+": ")
	case sr.edit != nil:
		return "template"
	}
	return "values " + strings.Join(rootValuesPath(info, append(slices.Clone(sr.values), sr.rest...)), ".")
}

// probeCase is a chart of testdata/probe and a values path one of its fixes
// must take.
type probeExpect struct {
	rule   RuleID
	object string // Kind name
	// reader is what the template reader alone answers.
	reader string
	// file and path are where the fix must go: the file relative to the
	// chart ("values.yaml") or "user-values.yaml" beside it, and the key
	// path in it.
	file string
	path []string
}

const (
	annH003       = "alb.ingress.kubernetes.io/target-type"
	annLBTypeKey  = "service.beta.kubernetes.io/aws-load-balancer-type"
	annNLBTarget  = "service.beta.kubernetes.io/aws-load-balancer-nlb-target-type"
	notOneValue   = "spec is written by template actions that do not read one value"
	userValuesYml = "user-values.yaml"
)

var probeCases = []struct {
	name  string
	dir   string // under testdata/probe
	chart string // the chart, under dir
	user  bool   // render with dir/user-values.yaml
	want  []probeExpect
}{
	{
		// The Ingress's labels: an include and a with+toYaml; then its
		// annotations: a with and a range. The reader walks up over the
		// action-only lines into the labels' with. The pod spec is a
		// helper under a with of pod annotations.
		name: "with and range, next to a labels block", dir: "with-range", chart: ".",
		want: []probeExpect{
			{rule: RuleIngressTargetType, object: "Ingress release-name-portal", reader: "values ingress.labels." + annH003,
				file: "values.yaml", path: []string{"ingress", "annotations", annH003}},
			{rule: RuleWorkloadGracePeriod, object: "Deployment release-name-portal", reader: "none: templates/deployment.yaml:20: " + notOneValue,
				file: "values.yaml", path: []string{"terminationGracePeriodSeconds"}},
		},
	},
	{
		name: "toYaml | indent at column 0", dir: "toyaml-col0", chart: ".",
		want: []probeExpect{{rule: RuleWorkloadPreStop, object: "Deployment release-name-relay", reader: "template",
			file: "values.yaml", path: []string{"controller", "lifecycle", "preStop", "exec", "command"}}},
	},
	{
		// kit.render(dict "value" .Values.lifecycleHooks "context" $), in a
		// container whose name a helper writes, beside a sidecar whose name
		// a value writes.
		name: "a library chart's render helper", dir: "library-helper", chart: ".",
		want: []probeExpect{{rule: RuleWorkloadPreStop, object: "Deployment release-name-catalog",
			reader: `none: templates/deployment.yaml:17: cannot tell which list item is "catalog"`,
			file:   "values.yaml", path: []string{"lifecycleHooks", "preStop"}}},
	},
	{
		// The pod spec is the helper "ledger.pod" (_pod.tpl), reading
		// values not named after the fields.
		name: "fields in a named pod helper", dir: "pod-helper", chart: ".",
		want: []probeExpect{
			{rule: RuleWorkloadPreStop, object: "Deployment release-name-ledger", reader: "none: templates/deployment.yaml:14: " + notOneValue,
				file: "values.yaml", path: []string{"pod", "hooks", "preStop"}},
			{rule: RuleWorkloadGracePeriod, object: "Deployment release-name-ledger", reader: "none: templates/deployment.yaml:14: " + notOneValue,
				file: "values.yaml", path: []string{"pod", "gracePeriod"}},
		},
	},
	{
		// range $name, $service := .Values.services; web sets no
		// annotations yet.
		name: "a map of services", dir: "service-map", chart: ".",
		want: []probeExpect{
			{rule: RuleServiceLBType, object: "Service release-name-web", reader: "none: templates/services.yaml:8: annotations is written by template actions that do not read one value",
				file: "values.yaml", path: []string{"services", "web", "annotations", annLBTypeKey}},
			{rule: RuleServiceTargetType, object: "Service release-name-api", reader: "none: templates/services.yaml:8: annotations is written by template actions that do not read one value",
				file: "values.yaml", path: []string{"services", "api", "annotations", annNLBTarget}},
		},
	},
	{
		// The user's file sets the key (target-type: instance); the fix
		// changes it there, and adds no second one.
		name: "a value the user's file already sets", dir: "user-set", chart: ".", user: true,
		want: []probeExpect{{rule: RuleIngressTargetType, object: "Ingress release-name-board",
			reader: `none: templates/ingress.yaml:6: metadata.annotations["` + annH003 + `"] is written by a template action that does not read .Values`,
			file:   userValuesYml, path: []string{"server", "ingress", "annotations", annH003}}},
	},
	{
		// charts/web-1.0.0.tgz under the alias frontend.
		name: "a packaged subchart with an alias", dir: "packaged-alias", chart: "chart", user: true,
		want: []probeExpect{
			{rule: RuleServiceLBType, object: "Service release-name-frontend", reader: "none: a packaged subchart",
				file: userValuesYml, path: []string{"frontend", "service", "annotations", annLBTypeKey}},
			{rule: RuleServiceTargetType, object: "Service release-name-frontend", reader: "none: a packaged subchart",
				file: userValuesYml, path: []string{"frontend", "service", "annotations", annNLBTarget}},
			{rule: RuleWorkloadPreStop, object: "Deployment release-name-frontend", reader: "none: a packaged subchart",
				file: userValuesYml, path: []string{"frontend", "lifecycle", "preStop"}},
			{rule: RuleWorkloadGracePeriod, object: "Deployment release-name-frontend", reader: "none: a packaged subchart",
				file: userValuesYml, path: []string{"frontend", "terminationGracePeriodSeconds"}},
		},
	},
	{
		// The subchart reads .Values.global.ingress into a variable.
		name: "global values", dir: "global", chart: ".",
		want: []probeExpect{{rule: RuleIngressTargetType, object: "Ingress release-name-api",
			reader: "none: templates/ingress.yaml:7: annotations is written by template actions that do not read one value",
			file:   "values.yaml", path: []string{"global", "ingress", "annotations", annH003}}},
	},
	{
		// range over $root.Values.ingress.annotations, each value through
		// tpl in the root context.
		name: "tpl values", dir: "tpl-values", chart: ".",
		want: []probeExpect{{rule: RuleIngressTargetType, object: "Ingress release-name-press",
			reader: "none: templates/ingress.yaml:6: annotations is written by template actions that do not read one value",
			file:   "values.yaml", path: []string{"ingress", "annotations", annH003}}},
	},
}

// TestProbeIdioms: for each idiom, the template reader alone picks a wrong
// path or none; Fix, by the probes, writes the right values path, changes
// no template, and the re-rendered chart no longer has the finding.
func TestProbeIdioms(t *testing.T) {
	c, err := NewChecker(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range probeCases {
		t.Run(tt.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), tt.dir)
			if err := copyTree(filepath.Join("testdata", "probe", tt.dir), root); err != nil {
				t.Fatal(err)
			}
			chart := filepath.Join(root, tt.chart)
			var opts []RenderOption
			if tt.user {
				opts = append(opts, WithValuesFiles(filepath.Join(root, userValuesYml)))
			}
			before, r, err := c.CheckChart(t.Context(), chart, opts...)
			if err != nil {
				t.Fatal(err)
			}
			find := func(res *Result, e probeExpect) *Finding {
				for i, f := range res.Findings {
					if f.Rule == e.rule && f.Object.Kind+" "+f.Object.Name == e.object {
						return &res.Findings[i]
					}
				}
				return nil
			}
			for _, e := range tt.want {
				f := find(before, e)
				if f == nil {
					t.Fatalf("no %s finding on %s", e.rule, e.object)
				}
				if got := readerRoute(r, *f); got != e.reader {
					t.Errorf("%s %s: the template reader says %q, want %q", e.rule, e.object, got, e.reader)
				}
			}
			files := hashTree(t, root)
			res, err := c.Fix(t.Context(), chart, WithRenderOptions(opts...))
			if err != nil {
				t.Fatal(err)
			}
			changed := map[string]bool{}
			for _, e := range tt.want {
				f := find(before, e)
				i := slices.IndexFunc(res.Applied, func(a AppliedFix) bool { return findingKey(a.Finding) == findingKey(*f) })
				if i < 0 {
					t.Errorf("%s %s: not applied; skipped %v, dropped %v", e.rule, e.object, res.Skipped, res.Dropped)
					continue
				}
				file := filepath.Join(chart, e.file)
				if e.file == userValuesYml {
					file = filepath.Join(root, userValuesYml)
				}
				if a := res.Applied[i]; !samePath(resolveFile(chart, a.File), file) || a.How != FixValues {
					t.Errorf("%s %s: written into %s (%s), want %s", e.rule, e.object, a.File, a.How, file)
				}
				changed[file] = true
				got, ok := lookupValue(readValues(file), e.path)
				if !ok || !sameJSON(got, f.Fix.Value) {
					t.Errorf("%s %s: %s at %s = %v (set %v), want %v", e.rule, e.object, filepath.Base(file), strings.Join(e.path, "."), got, ok, f.Fix.Value)
				}
				if e.file == userValuesYml {
					data, _ := os.ReadFile(file)
					if k := e.path[len(e.path)-1]; strings.Count(string(data), k+":") != 1 {
						t.Errorf("%s: the key %s is written %d times:\n%s", filepath.Base(file), k, strings.Count(string(data), k+":"), data)
					}
				}
			}
			for p, h := range hashTree(t, root) {
				if files[p] != h && !changed[filepath.Join(root, p)] {
					t.Errorf("%s changed", p)
				}
			}
			after, _, err := c.CheckChart(t.Context(), chart, opts...)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range tt.want {
				if f := find(after, e); f != nil {
					t.Errorf("the written chart still has %s %s: %s", e.rule, e.object, f.Message)
				}
			}
			t.Logf("renders %d (probes %d)", res.Renders, res.ProbeRenders)
		})
	}
}

// resolveFile maps a file a fix names (relative to the chart, or as given)
// onto a path.
func resolveFile(chart, f string) string {
	if filepath.IsAbs(f) {
		return f
	}
	return filepath.Join(chart, filepath.FromSlash(f))
}

// sameJSON compares two values as JSON: 160 and int64(160) match.
func sameJSON(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

// hashTree returns the files under dir (relative paths) and their contents.
func hashTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestProbePackagedArchiveCurrent: testdata/probe/packaged-alias's
// charts/web-1.0.0.tgz holds exactly the sources beside it (web/).
func TestProbePackagedArchiveCurrent(t *testing.T) {
	base := filepath.Join("testdata", "probe", "packaged-alias")
	ch, err := loader.Load(filepath.Join(base, "chart", "charts", "web-1.0.0.tgz"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range ch.(*chartv2.Chart).Raw {
		got[f.Name] = string(f.Data)
	}
	want := hashTree(t, filepath.Join(base, "web"))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the archive differs from web/ (-sources +archive):\n%s", diff)
	}
}

// TestFixSetOverride: a --set that sets the key a fix writes is found: the
// fix is written into the values file and proven by the render without
// that override, and the result names the override, whose render keeps
// the finding.
func TestFixSetOverride(t *testing.T) {
	c, err := NewChecker(Options{})
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "packaged-alias")
	if err := copyTree(filepath.Join("testdata", "probe", "packaged-alias"), root); err != nil {
		t.Fatal(err)
	}
	user := filepath.Join(root, userValuesYml)
	set := `frontend.service.annotations.service\.beta\.kubernetes\.io/aws-load-balancer-type=nlb`
	res, err := c.Fix(t.Context(), filepath.Join(root, "chart"), WithRenderOptions(WithValuesFiles(user), WithSet(set)))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(res.Applied, func(a AppliedFix) bool { return a.Finding.Rule == RuleServiceLBType })
	if i < 0 {
		t.Fatalf("TGM-H001 not applied: skipped %v, dropped %v", res.Skipped, res.Dropped)
	}
	a := res.Applied[i]
	if a.OverriddenBy != "--set "+set || !strings.Contains(a.Why, "--set "+set+" sets the same key") {
		t.Errorf("overridden by %q, why %q", a.OverriddenBy, a.Why)
	}
	if got, _ := lookupValue(readValues(user), []string{"frontend", "service", "annotations", annLBTypeKey}); got != "external" {
		t.Errorf("%s has %v, want the fix written", userValuesYml, got)
	}
	if !slices.ContainsFunc(res.After.Findings, func(f Finding) bool { return f.Rule == RuleServiceLBType }) {
		t.Error("the render with the --set has no TGM-H001 finding")
	}
	for _, b := range res.Applied {
		if b.Finding.Rule != RuleServiceLBType && b.OverriddenBy != "" {
			t.Errorf("%s overridden by %q", b.Finding.Rule, b.OverriddenBy)
		}
	}
}

// TestFixIntoFile: WithIntoFile sends the values fixes to a file of their
// own, created for them, rendered after the user's; the user's file and
// the chart are left as they were, and the chart rendered with both files
// has none of the fixed findings.
func TestFixIntoFile(t *testing.T) {
	c, err := NewChecker(Options{})
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "packaged-alias")
	if err := copyTree(filepath.Join("testdata", "probe", "packaged-alias"), root); err != nil {
		t.Fatal(err)
	}
	chart, user, into := filepath.Join(root, "chart"), filepath.Join(root, userValuesYml), filepath.Join(root, "migration.yaml")
	files := hashTree(t, root)
	res, err := c.Fix(t.Context(), chart, WithRenderOptions(WithValuesFiles(user)), WithIntoFile(into))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Applied) != 4 {
		t.Fatalf("applied %d fixes, want 4: skipped %v, dropped %v", len(res.Applied), res.Skipped, res.Dropped)
	}
	for _, a := range res.Applied {
		if !samePath(a.File, into) || !strings.Contains(a.Why, "is the file named for the fixes") {
			t.Errorf("%s went into %s: %s", a.Finding.Rule, a.File, a.Why)
		}
	}
	now := hashTree(t, root)
	if now["migration.yaml"] == "" {
		t.Fatal("migration.yaml was not written")
	}
	delete(now, "migration.yaml")
	if diff := cmp.Diff(files, now); diff != "" {
		t.Errorf("other files changed:\n%s", diff)
	}
	after, _, err := c.CheckChart(t.Context(), chart, WithValuesFiles(user, into))
	if err != nil {
		t.Fatal(err)
	}
	if n := after.Count(SeverityInfo); n != 0 {
		t.Errorf("%d findings left with both files: %v", n, after.Findings)
	}
}

// TestFixIntoFileRefused: an into file that is not a local file (standard
// input, a URL) is a usage error that names it, before anything is
// rendered or written: the tree is as it was.
func TestFixIntoFileRefused(t *testing.T) {
	c, err := NewChecker(Options{})
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "packaged-alias")
	if err := copyTree(filepath.Join("testdata", "probe", "packaged-alias"), root); err != nil {
		t.Fatal(err)
	}
	chart, user := filepath.Join(root, "chart"), filepath.Join(root, userValuesYml)
	before := hashTree(t, root)
	for _, into := range []string{"-", "s3://bucket/values.yaml"} {
		res, err := c.Fix(t.Context(), chart, WithRenderOptions(WithValuesFiles(user)), WithIntoFile(into))
		if !IsUsage(err) || res != nil || !strings.Contains(err.Error(), into) {
			t.Errorf("WithIntoFile(%q): Fix = %v, %v; want a usage error naming it, no result", into, res, err)
		}
	}
	if d := cmp.Diff(before, hashTree(t, root)); d != "" {
		t.Errorf("the tree changed (-before +after):\n%s", d)
	}
}

// TestFixHooksNotWorkloads: the web chart's test Pod (helm.sh/hook: test)
// matches the Service's selector and declares its port, yet gets no
// finding, and Fix leaves it alone.
func TestFixHooksNotWorkloads(t *testing.T) {
	c, err := NewChecker(Options{})
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "packaged-alias")
	if err := copyTree(filepath.Join("testdata", "probe", "packaged-alias"), root); err != nil {
		t.Fatal(err)
	}
	res, err := c.Fix(t.Context(), filepath.Join(root, "chart"), WithRenderOptions(WithValuesFiles(filepath.Join(root, userValuesYml))), WithDryRun())
	if err != nil {
		t.Fatal(err)
	}
	hooks := 0
	for _, r := range []*Result{res.Before, res.After} {
		for _, f := range r.Findings {
			if f.Object.Kind == "Pod" {
				t.Errorf("finding on the hook: %s %s", f.Rule, f.Message)
			}
		}
	}
	r, err := Render(t.Context(), filepath.Join(root, "chart"), WithValuesFiles(filepath.Join(root, userValuesYml)))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range r.Objects {
		if o.Kind == "Pod" && isHook(&o) {
			hooks++
		}
	}
	if hooks != 1 {
		t.Errorf("%d hook Pods rendered, want the test Pod", hooks)
	}
}

// TestRenderReason: render errors in the chart user's words, from Helm's
// own messages: a key written twice, a template that no longer renders
// YAML, a `fail` or `required`, a values.schema.json refusal.
func TestRenderReason(t *testing.T) {
	const svc = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations:\n"
	tests := []struct {
		name  string
		files map[string]string
		set   []string
		want  string
	}{
		{
			name:  "a key written twice",
			files: map[string]string{"templates/svc.yaml": svc + "    a: x\n    {{- toYaml .Values.extra | nindent 4 }}\n", "values.yaml": "extra:\n  a: y\n"},
			want:  `templates/svc.yaml would write the key "a" twice`,
		},
		{
			name:  "not YAML any more",
			files: map[string]string{"templates/svc.yaml": svc + "    a: {{ .Values.a }}\n", "values.yaml": "a: \"x: y\"\n"},
			want:  "templates/svc.yaml would no longer render valid YAML",
		},
		{
			name:  "fail",
			files: map[string]string{"templates/svc.yaml": svc + "{{- if .Values.a }}{{ fail \"a needs b\" }}{{ end }}\n", "values.yaml": "a: false\n"},
			set:   []string{"a=true"},
			want:  "templates/svc.yaml stops the render: a needs b",
		},
		{
			name: "the schema",
			files: map[string]string{"templates/svc.yaml": svc + "    a: x\n", "values.yaml": "grace: 30\n",
				"values.schema.json": `{"type": "object", "properties": {"grace": {"type": "integer", "maximum": 120}}}`},
			set:  []string{"grace=160"},
			want: "the chart's values.schema.json refuses the values: at '/grace': maximum: got 160, want 120",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "web")
			files := map[string]string{"Chart.yaml": "apiVersion: v2\nname: web\nversion: 1.0.0\n"}
			for k, v := range tt.files {
				files[k] = v
			}
			for name, body := range files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Render(t.Context(), dir, WithSet(tt.set...))
			if err == nil {
				t.Fatal("the chart renders")
			}
			if got := renderReason(err); got != tt.want {
				t.Errorf("renderReason = %q, want %q (Helm: %v)", got, tt.want, err)
			}
		})
	}
}
