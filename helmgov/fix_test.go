package helmgov_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/qstools/tgmigrate/helmgov"
)

// writeChart writes a chart from a map of relative paths to contents.
func writeChart(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "chart")
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const chartYAML = "apiVersion: v2\nname: c\nversion: 0.1.0\n"

// TestFixNotHeld: a values file given at render time nulls the
// annotations. By default the fix goes into that file and holds; forced
// into the chart's values.yaml (WithInto) it cannot hold: it is dropped,
// or with WithAtomic, Fix fails and nothing is written.
func TestFixNotHeld(t *testing.T) {
	files := map[string]string{
		"Chart.yaml":  chartYAML,
		"values.yaml": "annotations: {}\n",
		"templates/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  {{- with .Values.annotations }}\n  annotations:\n" +
			"    {{- toYaml . | nindent 4 }}\n  {{- end }}\nspec:\n  type: LoadBalancer\n",
	}
	override := filepath.Join(t.TempDir(), "prod.yaml")
	if err := os.WriteFile(override, []byte("annotations: null\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	render := helmgov.WithRenderOptions(helmgov.WithValuesFiles(override))
	c := newChecker(t, helmgov.Options{})

	t.Run("into the user's values file, it holds", func(t *testing.T) {
		dir := writeChart(t, files)
		res, err := c.Fix(t.Context(), dir, render, helmgov.WithDryRun())
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Applied) != 2 || len(res.Dropped) != 0 || len(res.Files) != 1 || res.Files[0].Path != filepath.ToSlash(override) || !res.Files[0].UserValues {
			t.Fatalf("applied %d, dropped %d, files %+v", len(res.Applied), len(res.Dropped), res.Files)
		}
		want := "annotations:\n  service.beta.kubernetes.io/aws-load-balancer-type: external\n  service.beta.kubernetes.io/aws-load-balancer-nlb-target-type: ip\n"
		if diff := cmp.Diff(want, res.Files[0].After); diff != "" {
			t.Errorf("prod.yaml (-want +got):\n%s", diff)
		}
	})
	t.Run("into values.yaml, dropped", func(t *testing.T) {
		dir := writeChart(t, files)
		before := treeHash(t, dir)
		res, err := c.Fix(t.Context(), dir, render, helmgov.WithInto(helmgov.RouteChartValues))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Applied) != 0 || len(res.Dropped) != 2 || res.Written || len(res.Files) != 0 {
			t.Fatalf("applied %d, dropped %d, written %v, files %d", len(res.Applied), len(res.Dropped), res.Written, len(res.Files))
		}
		for _, d := range res.Dropped {
			if d.Route != helmgov.RouteChartValues || d.File != "values.yaml" || !strings.Contains(d.Reason, "did not hold: the re-rendered chart still has it") {
				t.Errorf("dropped %+v", d)
			}
		}
		if diff := cmp.Diff(before, treeHash(t, dir)); diff != "" {
			t.Fatalf("the chart changed:\n%s", diff)
		}
	})
	t.Run("into values.yaml, atomic", func(t *testing.T) {
		dir := writeChart(t, files)
		before := treeHash(t, dir)
		_, err := c.Fix(t.Context(), dir, render, helmgov.WithInto(helmgov.RouteChartValues), helmgov.WithAtomic())
		var fe *helmgov.FixError
		if !errors.As(err, &fe) || !helmgov.IsFixNotHeld(err) {
			t.Fatalf("err = %v, want a FixError that did not hold", err)
		}
		if len(fe.Remaining) != 1 || !strings.Contains(fe.Diff, "+  service.beta.kubernetes.io/aws-load-balancer-type: external") {
			t.Errorf("remaining %v, diff:\n%s", fe.Remaining, fe.Diff)
		}
		if !strings.Contains(err.Error(), "TGM-H001 Service default/s") || helmgov.ExitCodeOf(err) != helmgov.ExitError {
			t.Errorf("message %q", err)
		}
		if diff := cmp.Diff(before, treeHash(t, dir)); diff != "" {
			t.Fatalf("a fix that did not hold changed the chart:\n%s", diff)
		}
	})
}

// TestFixSkips: findings with no safe fix, suppressed findings, rules left
// out by WithFixRules, and objects whose source cannot be edited are left
// alone and reported.
func TestFixSkips(t *testing.T) {
	dir := writeChart(t, map[string]string{
		"Chart.yaml": chartYAML,
		"templates/tgb.yaml": "apiVersion: elbv2.k8s.aws/v1beta1\nkind: TargetGroupBinding\nmetadata:\n  name: t\n" +
			"  annotations:\n    tgmigrate.qstools.io/ignore: TGM-H005\nspec:\n  targetType: instance\n  serviceRef: {name: web, port: 80}\n",
		"templates/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations:\n    alb.ingress.kubernetes.io/healthcheck-port: \"30080\"\n" +
			"spec:\n  type: NodePort\n  ports: [{port: 80, nodePort: 30080}]\n",
		"templates/legacy.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Values.legacyName | default \"legacy\" }}\n" +
			"  annotations: {alb.ingress.kubernetes.io/healthcheck-port: \"30081\"}\nspec:\n  type: ClusterIP\n",
	})
	before := treeHash(t, dir)
	res, err := newChecker(t, helmgov.Options{}).Fix(t.Context(), dir, helmgov.WithDryRun(),
		helmgov.WithFixRules(helmgov.RuleTGBTargetType, helmgov.RuleTGBMultiCluster, helmgov.RuleHealthCheckPort))
	if err != nil {
		t.Fatal(err)
	}
	var skipped []string
	for _, s := range res.Skipped {
		skipped = append(skipped, string(s.Finding.Rule)+" "+s.Finding.Object.String()+": "+s.Reason)
	}
	want := []string{
		"TGM-H006 Service default/legacy: cannot edit the source safely: no value of the chart sets " +
			`metadata.annotations["alb.ingress.kubernetes.io/healthcheck-port"] of Service legacy alone, and templates/legacy.yaml cannot take it: ` +
			"templates/legacy.yaml:5: cannot set alb.ingress.kubernetes.io/healthcheck-port inside a flow mapping",
		"TGM-H004 TargetGroupBinding default/t: spec.targetType is immutable, it cannot change on a binding that exists: recreate the binding with tgbind and cutover",
	}
	if diff := cmp.Diff(want, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if len(res.Applied) != 1 || res.Applied[0].Finding.Rule != helmgov.RuleHealthCheckPort || res.Applied[0].File != "templates/svc.yaml" {
		t.Errorf("applied %+v", res.Applied)
	}
	if diff := cmp.Diff(before, treeHash(t, dir)); diff != "" {
		t.Fatalf("dry run changed the chart:\n%s", diff)
	}
	var out bytes.Buffer
	if err := res.WriteJSON(&out, helmgov.ReportOptions{BaseDir: dir}); err != nil || !strings.Contains(out.String(), `"kind": "FixReport"`) {
		t.Errorf("json: %v\n%s", err, out.String())
	}

	if _, err := newChecker(t, helmgov.Options{}).Fix(t.Context(), dir, helmgov.WithFixRules("TGM-H999")); !helmgov.IsUsage(err) {
		t.Errorf("unknown rule: err = %v, want a usage error", err)
	}
}

// TestFixPackagedSubchart: the templates of a packaged subchart are never
// edited: fields its values carry are fixed under the subchart's key in
// the root chart's values.yaml, and fields only its templates write are
// skipped, with the reason; the archive is left as it was.
func TestFixPackagedSubchart(t *testing.T) {
	src := filepath.Join("testdata", "charts", "umbrella")
	dir := copyChart(t, src)
	// Package the api subchart as Helm would: charts/api-0.4.0.tgz.
	if err := os.RemoveAll(filepath.Join(dir, "charts", "api")); err != nil {
		t.Fatal(err)
	}
	writeTgz(t, filepath.Join(src, "charts", "api"), filepath.Join(dir, "charts", "api-0.4.0.tgz"))
	archive := treeHash(t, filepath.Join(dir, "charts"))
	res, err := newChecker(t, helmgov.Options{}).Fix(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range res.Applied {
		got = append(got, string(a.Finding.Rule)+": "+a.File+" ["+string(a.Route)+"]")
	}
	for _, s := range res.Skipped {
		got = append(got, string(s.Finding.Rule)+": "+s.Reason)
	}
	packaged := "comes from the packaged subchart api (an archive in charts/), whose templates helmgov never edits"
	want := []string{
		"TGM-H001: values.yaml [chart-values]",
		"TGM-H002: values.yaml [chart-values]",
		"TGM-H005: templates/targetgroupbinding.yaml [template]",
		"TGM-H008: cannot edit the source safely: no value of the chart sets spec.template.spec.containers[name=api].lifecycle.preStop.sleep.seconds " +
			"of Deployment release-name-api alone, and Deployment release-name-api " + packaged,
		"TGM-H009: cannot edit the source safely: no value of the chart sets spec.template.spec.terminationGracePeriodSeconds " +
			"of Deployment release-name-api alone, and Deployment release-name-api " + packaged,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fixes (-want +got):\n%s", diff)
	}
	values, err := os.ReadFile(filepath.Join(dir, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	wantValues := "# Values for the platform umbrella chart.\n\nglobal:\n  team: core\n\n# The api subchart.\napi:\n  replicas: 2\n" +
		"  service:\n    annotations:\n      service.beta.kubernetes.io/aws-load-balancer-type: external\n" +
		"      service.beta.kubernetes.io/aws-load-balancer-nlb-target-type: ip\n"
	if diff := cmp.Diff(wantValues, string(values)); diff != "" {
		t.Errorf("values.yaml (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(archive, treeHash(t, filepath.Join(dir, "charts"))); diff != "" {
		t.Errorf("charts/ changed:\n%s", diff)
	}
}

// TestFixAliasedSubchart: a subchart used under an alias gets its values
// under the alias in the umbrella's values.yaml.
func TestFixAliasedSubchart(t *testing.T) {
	dir := copyChart(t, filepath.Join("testdata", "charts", "umbrella"))
	chart := "apiVersion: v2\nname: platform\nversion: 3.0.0\ndependencies:\n  - name: api\n    version: 0.4.0\n    alias: backend\n"
	if err := os.WriteFile(filepath.Join(dir, "Chart.yaml"), []byte(chart), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "values.yaml"), []byte("backend:\n  replicas: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := newChecker(t, helmgov.Options{}).Fix(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if n := res.After.Count(helmgov.SeverityInfo); n != 0 {
		t.Fatalf("%d findings left", n)
	}
	values, err := os.ReadFile(filepath.Join(dir, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := "backend:\n  replicas: 2\n  service:\n    annotations:\n      service.beta.kubernetes.io/aws-load-balancer-type: external\n" +
		"      service.beta.kubernetes.io/aws-load-balancer-nlb-target-type: ip\n"
	if diff := cmp.Diff(want, string(values)); diff != "" {
		t.Errorf("values.yaml (-want +got):\n%s", diff)
	}
}

// TestFixRefusesSymlink: a changed file that is a symbolic link is not
// replaced; nothing is written.
func TestFixRefusesSymlink(t *testing.T) {
	dir := copyChart(t, filepath.Join("testdata", "charts", "nlb-service"))
	shared := filepath.Join(t.TempDir(), "shared-values.yaml")
	data, err := os.ReadFile(filepath.Join(dir, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shared, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "values.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(shared, filepath.Join(dir, "values.yaml")); err != nil {
		t.Fatal(err)
	}
	before := treeHash(t, dir)
	_, err = newChecker(t, helmgov.Options{}).Fix(t.Context(), dir)
	if err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Fatalf("err = %v, want a refusal", err)
	}
	if diff := cmp.Diff(before, treeHash(t, dir)); diff != "" {
		t.Fatalf("the chart changed:\n%s", diff)
	}
	if got, _ := os.ReadFile(shared); !bytes.Equal(got, data) {
		t.Fatal("the link's target changed")
	}
}

// TestFixPreStopSafeValues: the fix writes the safe values, the envelope's
// (a preStop delay of 130 s, a grace period of 160 s) or configured ones,
// into the template or into values.yaml, and re-rendering the written chart
// proves them; a chart already at or above them is left alone.
func TestFixPreStopSafeValues(t *testing.T) {
	const svc = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations:\n" +
		"    service.beta.kubernetes.io/aws-load-balancer-type: external\n    service.beta.kubernetes.io/aws-load-balancer-nlb-target-type: ip\n" +
		"spec:\n  type: LoadBalancer\n  selector: {app: web}\n  ports: [{port: 80, targetPort: 8080}]\n---\n" +
		"apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n  maxUnavailable: 1\n  selector:\n    matchLabels:\n      app: web\n"
	// deployment is a template whose grace period and preStop hook are the
	// given YAML, the hook indented under preStop.
	deployment := func(grace, hook string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n" +
			"  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      terminationGracePeriodSeconds: " + grace + "\n" +
			"      containers:\n        - name: web\n          ports:\n            - containerPort: 8080\n" + hook
	}
	// literal writes the hook in the template, a block mapping of the
	// lines given.
	literal := func(hook ...string) string {
		return "          lifecycle:\n            preStop:\n              " + strings.Join(hook, "\n              ") + "\n"
	}
	fromValues := "          {{- with .Values.lifecycle }}\n          lifecycle:\n            {{- toYaml . | nindent 12 }}\n          {{- end }}\n"
	tests := []struct {
		name        string
		opts        helmgov.Options
		files       map[string]string
		wantApplied []string // rule and file of each fix, in order
		wantPreStop string   // the preStop hook of the re-rendered chart, as JSON
		wantGrace   int64
		wantValues  string // values.yaml after the fix, when the fix goes there
	}{
		{
			name:        "template: a sleep below the safe delay, the default grace period below it",
			files:       map[string]string{"templates/deployment.yaml": deployment("30", literal("sleep:", "  seconds: 45"))},
			wantApplied: []string{"TGM-H008 templates/deployment.yaml", "TGM-H009 templates/deployment.yaml"},
			wantPreStop: `{"sleep":{"seconds":130}}`, wantGrace: 160,
		},
		{
			name: "template: an exec sleep below the safe delay; the grace period follows in the next round",
			files: map[string]string{"templates/deployment.yaml": deployment("90",
				literal("exec:", `  command: ["/bin/sh", "-c", "sleep 60 && nginx -s quit"]`))},
			wantApplied: []string{"TGM-H008 templates/deployment.yaml", "TGM-H009 templates/deployment.yaml"},
			wantPreStop: `{"exec":{"command":["/bin/sh","-c","sleep 130 && nginx -s quit"]}}`, wantGrace: 160,
		},
		{
			name: "values: the old defaults, 120/120, are raised in values.yaml",
			files: map[string]string{
				"values.yaml":               "# Drain.\ngrace: 120\nlifecycle:\n  preStop:\n    sleep:\n      seconds: 120  # the old default\n",
				"templates/deployment.yaml": deployment("{{ .Values.grace }}", fromValues),
			},
			wantApplied: []string{"TGM-H008 values.yaml", "TGM-H009 values.yaml"},
			wantPreStop: `{"sleep":{"seconds":130}}`, wantGrace: 160,
			wantValues: "# Drain.\ngrace: 160\nlifecycle:\n  preStop:\n    sleep:\n      seconds: 130  # the old default\n",
		},
		{
			name:        "template: at the safe values",
			files:       map[string]string{"templates/deployment.yaml": deployment("160", literal("sleep:", "  seconds: 130"))},
			wantPreStop: `{"sleep":{"seconds":130}}`, wantGrace: 160,
		},
		{
			name:        "template: above the safe values",
			files:       map[string]string{"templates/deployment.yaml": deployment("400", literal("sleep:", "  seconds: 300"))},
			wantPreStop: `{"sleep":{"seconds":300}}`, wantGrace: 400,
		},
		{
			name:        "configured: the envelope's values are below 200/20",
			opts:        helmgov.Options{PreStopSeconds: 200, GracePaddingSeconds: 20},
			files:       map[string]string{"templates/deployment.yaml": deployment("160", literal("sleep:", "  seconds: 130"))},
			wantApplied: []string{"TGM-H008 templates/deployment.yaml", "TGM-H009 templates/deployment.yaml"},
			wantPreStop: `{"sleep":{"seconds":200}}`, wantGrace: 220,
		},
		{
			name:        "configured: at 200/220",
			opts:        helmgov.Options{PreStopSeconds: 200, GracePaddingSeconds: 20},
			files:       map[string]string{"templates/deployment.yaml": deployment("220", literal("sleep:", "  seconds: 200"))},
			wantPreStop: `{"sleep":{"seconds":200}}`, wantGrace: 220,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"Chart.yaml": chartYAML, "templates/service.yaml": svc}
			maps.Copy(files, tt.files)
			dir := writeChart(t, files)
			c := newChecker(t, tt.opts)
			res, err := c.Fix(t.Context(), dir)
			if err != nil {
				t.Fatal(err)
			}
			var applied []string
			for _, a := range res.Applied {
				applied = append(applied, string(a.Finding.Rule)+" "+a.File)
			}
			if diff := cmp.Diff(tt.wantApplied, applied); diff != "" {
				t.Errorf("applied (-want +got):\n%s", diff)
			}
			if n := res.After.Count(helmgov.SeverityInfo); n != 0 {
				t.Errorf("%d findings after the fix", n)
			}

			// Re-render the chart as written, and read the pod's settings.
			r, err := helmgov.Render(t.Context(), dir)
			if err != nil {
				t.Fatal(err)
			}
			var d appsv1.Deployment
			for _, o := range r.Objects {
				if o.Kind == "Deployment" {
					b, err := json.Marshal(o.Fields)
					if err == nil {
						err = json.Unmarshal(b, &d)
					}
					if err != nil {
						t.Fatal(err)
					}
				}
			}
			spec := d.Spec.Template.Spec
			if len(spec.Containers) != 1 || spec.Containers[0].Lifecycle == nil || spec.TerminationGracePeriodSeconds == nil {
				t.Fatalf("rendered pod spec %+v", spec)
			}
			var hook strings.Builder
			enc := json.NewEncoder(&hook)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(spec.Containers[0].Lifecycle.PreStop); err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(hook.String()); got != tt.wantPreStop {
				t.Errorf("preStop = %s, want %s", got, tt.wantPreStop)
			}
			if got := *spec.TerminationGracePeriodSeconds; got != tt.wantGrace {
				t.Errorf("terminationGracePeriodSeconds = %d, want %d", got, tt.wantGrace)
			}
			if tt.wantValues != "" {
				got, err := os.ReadFile(filepath.Join(dir, "values.yaml"))
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.wantValues, string(got)); diff != "" {
					t.Errorf("values.yaml (-want +got):\n%s", diff)
				}
			}

			// And the fixed chart is left alone.
			again, err := c.Fix(t.Context(), dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(again.Applied) != 0 || again.Diff != "" || again.Before.Count(helmgov.SeverityInfo) != 0 {
				t.Errorf("second run: applied %d, findings %d, diff:\n%s", len(again.Applied), again.Before.Count(helmgov.SeverityInfo), again.Diff)
			}
		})
	}
}
