package helmgov_test

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/helmgov"
)

// routedChart reads the Service's annotations through a range next to a
// literal key, the shape that made Fix append after the range; its pods
// are compliant and have a budget, so the annotations are all there is.
var routedChart = map[string]string{
	"Chart.yaml":  chartYAML,
	"values.yaml": "service:\n  # Extra annotations.\n  annotations: {}\n",
	"templates/service.yaml": `apiVersion: v1
kind: Service
metadata:
  name: web
  annotations:
    service.beta.kubernetes.io/aws-load-balancer-proxy-protocol: "*"
    {{- range $k, $v := .Values.service.annotations }}
    {{ $k }}: {{ $v | quote }}
    {{- end }}
spec:
  type: LoadBalancer
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`,
	"templates/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      terminationGracePeriodSeconds: 160
      containers:
        - name: web
          ports: [{containerPort: 8080}]
          lifecycle: {preStop: {sleep: {seconds: 130}}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
spec:
  maxUnavailable: 1
  selector:
    matchLabels: {app: web}
`,
}

const (
	annLBType     = "service.beta.kubernetes.io/aws-load-balancer-type"
	annTargetType = "service.beta.kubernetes.io/aws-load-balancer-nlb-target-type"
)

// fixLine is an applied, dropped or skipped fix in a form easy to compare.
func fixLines(res *helmgov.FixResult) []string {
	var out []string
	for _, a := range res.Applied {
		out = append(out, fmt.Sprintf("applied %s %s [%s]", a.Finding.Rule, a.File, a.Route))
	}
	for _, d := range res.Dropped {
		out = append(out, fmt.Sprintf("dropped %s %s [%s]", d.Finding.Rule, d.File, d.Route))
	}
	for _, s := range res.Skipped {
		out = append(out, fmt.Sprintf("skipped %s", s.Finding.Rule))
	}
	return out
}

// TestFixRoutes: where each fix goes, by the default order and by
// WithInto, with and without the user's values files; the template never
// gets a key the values carry.
func TestFixRoutes(t *testing.T) {
	userFiles := map[string]string{
		"prod.yaml":   "# Production.\nservice:\n  annotations:\n    " + annLBType + ": nlb\n",
		"shared.yaml": "service:\n  annotations:\n    team: web\n",
		"image.yaml":  "image: {tag: \"2\"}\n",
	}
	tests := []struct {
		name    string
		values  []string // user files, from userFiles
		into    []helmgov.FixRoute
		want    []string
		wantWhy string            // in the first applied fix's why
		files   map[string]string // the changed files' contents; a user file by its name
	}{
		{
			name: "the user's file that already sets the key", values: []string{"prod.yaml"},
			want:    []string{"applied TGM-H001 prod.yaml [user-values]", "applied TGM-H002 prod.yaml [user-values]"},
			wantWhy: `the renderer puts .Values.service.annotations at metadata.annotations of Service web; prod.yaml already sets service.annotations["` + annLBType + `"]`,
			files: map[string]string{"prod.yaml": "# Production.\nservice:\n  annotations:\n    " + annLBType + ": external\n" +
				"    " + annTargetType + ": ip\n"},
		},
		{
			name: "of several files, the one that sets the map, not the last", values: []string{"shared.yaml", "image.yaml"},
			want:    []string{"applied TGM-H001 shared.yaml [user-values]", "applied TGM-H002 shared.yaml [user-values]"},
			wantWhy: "shared.yaml already sets service.annotations",
			files: map[string]string{"shared.yaml": "service:\n  annotations:\n    team: web\n    " + annLBType + ": external\n" +
				"    " + annTargetType + ": ip\n"},
		},
		{
			name: "none sets it: the last file", values: []string{"image.yaml"},
			want:    []string{"applied TGM-H001 image.yaml [user-values]", "applied TGM-H002 image.yaml [user-values]"},
			wantWhy: "image.yaml is the values file given",
			files: map[string]string{"image.yaml": "image: {tag: \"2\"}\nservice:\n  annotations:\n    " + annLBType + ": external\n" +
				"    " + annTargetType + ": ip\n"},
		},
		{
			name:    "no values file: the chart's values.yaml, never beside the range",
			want:    []string{"applied TGM-H001 values.yaml [chart-values]", "applied TGM-H002 values.yaml [chart-values]"},
			wantWhy: "no values file was given",
			files: map[string]string{"values.yaml": "service:\n  # Extra annotations.\n  annotations:\n    " + annLBType + ": external\n" +
				"    " + annTargetType + ": ip\n"},
		},
		{
			// prod.yaml says nlb, and wins over values.yaml: that fix cannot
			// hold there, the other can.
			name: "into the chart, under a user's file that overrides one key", values: []string{"prod.yaml"},
			into:  []helmgov.FixRoute{helmgov.RouteChartValues},
			want:  []string{"applied TGM-H002 values.yaml [chart-values]", "dropped TGM-H001 values.yaml [chart-values]"},
			files: map[string]string{"values.yaml": "service:\n  # Extra annotations.\n  annotations:\n    " + annTargetType + ": ip\n"},
		},
		{
			name: "into the templates: the values carry the keys, so nothing", values: []string{"prod.yaml"},
			into: []helmgov.FixRoute{helmgov.RouteTemplate},
			want: []string{"skipped TGM-H001", "skipped TGM-H002"},
		},
	}
	c := newChecker(t, helmgov.Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeChart(t, routedChart)
			userDir := t.TempDir()
			var paths []string
			for _, v := range tt.values {
				p := filepath.Join(userDir, v)
				if err := os.WriteFile(p, []byte(userFiles[v]), 0o644); err != nil {
					t.Fatal(err)
				}
				paths = append(paths, p)
			}
			templates := treeHash(t, filepath.Join(dir, "templates"))
			opts := []helmgov.FixOption{helmgov.WithRenderOptions(helmgov.WithValuesFiles(paths...))}
			if tt.into != nil {
				opts = append(opts, helmgov.WithInto(tt.into...))
			}
			res, err := c.Fix(t.Context(), dir, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, userNames(fixLines(res), userDir)); diff != "" {
				t.Errorf("fixes (-want +got):\n%s", diff)
			}
			if tt.wantWhy != "" && (len(res.Applied) == 0 || !strings.Contains(userNames([]string{res.Applied[0].Why}, userDir)[0], tt.wantWhy)) {
				t.Errorf("why = %q, want it to hold %q", res.Applied[0].Why, tt.wantWhy)
			}
			got := map[string]string{}
			for _, f := range res.Files {
				got[userNames([]string{f.Path}, userDir)[0]] = f.After
			}
			if diff := cmp.Diff(tt.files, got, cmpEmpty); diff != "" {
				t.Errorf("changed files (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(templates, treeHash(t, filepath.Join(dir, "templates"))); diff != "" {
				t.Errorf("the templates changed:\n%s", diff)
			}
			for _, s := range res.Skipped {
				if !strings.Contains(s.Reason, "a route the options leave out") {
					t.Errorf("skipped %s: %s", s.Finding.Rule, s.Reason)
				}
			}
		})
	}
	if _, err := c.Fix(t.Context(), writeChart(t, routedChart), helmgov.WithInto(helmgov.RouteUserValues)); !helmgov.IsUsage(err) {
		t.Errorf("into the user's values without one: err = %v, want a usage error", err)
	}
	if _, err := c.Fix(t.Context(), writeChart(t, routedChart), helmgov.WithInto("elsewhere")); !helmgov.IsUsage(err) {
		t.Errorf("an unknown route: err = %v, want a usage error", err)
	}
}

var cmpEmpty = cmp.FilterValues(func(a, b map[string]string) bool { return len(a) == 0 && len(b) == 0 }, cmp.Ignore())

// userNames shortens the user's values files to their base names.
func userNames(lines []string, userDir string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.ReplaceAll(l, filepath.ToSlash(userDir)+"/", "")
	}
	return out
}

func TestParseFixRoute(t *testing.T) {
	for in, want := range map[string]helmgov.FixRoute{
		"values": helmgov.RouteUserValues, "user-values": helmgov.RouteUserValues, "chart": helmgov.RouteChartValues,
		"Chart-Values": helmgov.RouteChartValues, "templates": helmgov.RouteTemplate, " template ": helmgov.RouteTemplate,
	} {
		if got, err := helmgov.ParseFixRoute(in); err != nil || got != want {
			t.Errorf("ParseFixRoute(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := helmgov.ParseFixRoute("disk"); !helmgov.IsUsage(err) {
		t.Errorf("ParseFixRoute(disk): err = %v, want a usage error", err)
	}
}

// TestFixDropsOne: a fix that breaks the re-render (the chart refuses
// Service annotations unless told) is dropped with its reason and the
// others are written; with WithAtomic nothing is written.
func TestFixDropsOne(t *testing.T) {
	files := map[string]string{
		"Chart.yaml":  chartYAML,
		"values.yaml": "annotations: {}\nallowAnnotations: false\n",
		"templates/validate.yaml": "{{- if and .Values.annotations (not .Values.allowAnnotations) }}\n" +
			"{{- fail \"annotations need allowAnnotations\" }}\n{{- end }}\n",
		"templates/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations:\n    {{- toYaml .Values.annotations | nindent 4 }}\n" +
			"spec:\n  type: LoadBalancer\n  selector: {app: web}\n  ports: [{port: 80, targetPort: 8080}]\n",
		"templates/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {app: web}\n" +
			"  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - name: web\n          ports: [{containerPort: 8080}]\n" +
			"---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n  maxUnavailable: 1\n  selector:\n    matchLabels: {app: web}\n",
	}
	c := newChecker(t, helmgov.Options{})

	dir := writeChart(t, files)
	res, err := c.Fix(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"applied TGM-H008 templates/deploy.yaml [template]", "applied TGM-H009 templates/deploy.yaml [template]",
		"dropped TGM-H001 values.yaml [chart-values]", "dropped TGM-H002 values.yaml [chart-values]",
	}
	if diff := cmp.Diff(want, fixLines(res)); diff != "" {
		t.Errorf("fixes (-want +got):\n%s", diff)
	}
	for _, d := range res.Dropped {
		if !strings.Contains(d.Reason, "the fixed chart does not render: templates/validate.yaml stops the render: annotations need allowAnnotations") {
			t.Errorf("dropped %s: %s", d.Finding.Rule, d.Reason)
		}
	}
	if !res.Written || len(res.Files) != 1 || res.Files[0].Path != "templates/deploy.yaml" {
		t.Fatalf("written %v, files %+v", res.Written, res.Files)
	}
	if n := res.After.Count(helmgov.SeverityInfo); n != 2 {
		t.Errorf("%d findings after the fix, want the 2 dropped", n)
	}
	for _, a := range res.Applied {
		if !strings.HasPrefix(a.Finding.Source.File, dir) {
			t.Errorf("applied %s names %s, not a file of the chart", a.Finding.Rule, a.Finding.Source.File)
		}
	}
	var js strings.Builder
	if err := res.WriteJSON(&js, helmgov.ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"route": "template"`, `"why": "no value of the chart sets`, `"dropped": [`, `"reason": "values.yaml [chart-values]: the fixed chart does not render`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("the JSON report has no %s", want)
		}
	}
	if strings.Contains(js.String(), "helmgov-fix-") {
		t.Errorf("the JSON report names the scratch copy:\n%s", js.String())
	}

	dir = writeChart(t, files)
	before := treeHash(t, dir)
	_, err = c.Fix(t.Context(), dir, helmgov.WithAtomic())
	var fe *helmgov.FixError
	if !errors.As(err, &fe) || !helmgov.IsFixNotHeld(err) || !strings.Contains(err.Error(), "the fixed chart does not render") {
		t.Fatalf("atomic: err = %v, want a FixError that did not hold", err)
	}
	if diff := cmp.Diff(before, treeHash(t, dir)); diff != "" {
		t.Fatalf("atomic: the chart changed:\n%s", diff)
	}
}

// pdbChart is a chart of one Deployment of 2 replicas behind an LBC
// Service, compliant but for its budget; extra adds or replaces files.
func pdbChart(extra map[string]string) map[string]string {
	files := map[string]string{
		"Chart.yaml":             chartYAML,
		"templates/_helpers.tpl": "{{- define \"c.selector\" -}}\napp: web\n{{- end }}\n",
		"templates/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations:\n    " + annLBType + ": external\n    " + annTargetType + ": ip\n" +
			"spec:\n  type: LoadBalancer\n  selector: {app: web}\n  ports: [{port: 80, targetPort: 8080}]\n",
		"templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  selector:\n    matchLabels:\n" +
			"      {{- include \"c.selector\" . | nindent 6 }}\n  template:\n    metadata:\n      labels:\n        {{- include \"c.selector\" . | nindent 8 }}\n        tier: front\n" +
			"    spec:\n      terminationGracePeriodSeconds: 160\n      containers:\n        - name: web\n          ports: [{containerPort: 8080}]\n" +
			"          lifecycle: {preStop: {sleep: {seconds: 130}}}\n",
	}
	maps.Copy(files, extra)
	return files
}

// TestFixPDBOwn: a PodDisruptionBudget is the chart's own first: its
// template behind a values switch (turned on, with maxUnavailable when the
// chart would render neither number), a switch of a packaged library
// chart's budget found by its name; a budget behind a condition values
// cannot turn on is never doubled; a new template only when the chart has
// none of its own for these pods.
func TestFixPDBOwn(t *testing.T) {
	pdbTemplate := func(cond, numbers string) string {
		return "{{- if " + cond + " }}\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n" + numbers +
			"  selector:\n    matchLabels:\n      {{- include \"c.selector\" . | nindent 6 }}\n{{- end }}\n"
	}
	tests := []struct {
		name       string
		extra      map[string]string
		user       string // the user's values file, if any
		library    bool   // package a library chart with a budget helper
		want       []string
		wantValues string // values.yaml, or the user's file, after the fix
		wantReason string // of the skipped or dropped fix
	}{
		{
			name: "a switch of the chart's own, and numbers it leaves empty",
			extra: map[string]string{
				"values.yaml":        "podDisruptionBudget:\n  enabled: false\n  maxUnavailable: \"\"\n",
				"templates/pdb.yaml": pdbTemplate(".Values.podDisruptionBudget.enabled", "  {{- with .Values.podDisruptionBudget.maxUnavailable }}\n  maxUnavailable: {{ . }}\n  {{- end }}\n"),
			},
			want:       []string{"applied TGM-H010 values.yaml [chart-values]"},
			wantValues: "podDisruptionBudget:\n  enabled: true\n  maxUnavailable: 1\n",
		},
		{
			name: "the switch in the user's values file",
			extra: map[string]string{
				"values.yaml":        "pdb:\n  create: false\n",
				"templates/pdb.yaml": pdbTemplate("and .Values.pdb.create (gt (int .Values.replicas) 1)", "  maxUnavailable: 1\n"),
			},
			user:       "replicas: 2\n",
			want:       []string{"applied TGM-H010 user.yaml [user-values]"},
			wantValues: "replicas: 2\npdb:\n  create: true\n",
		},
		{
			name: "a budget behind a condition values cannot turn on: no second one",
			extra: map[string]string{
				"templates/pdb.yaml": pdbTemplate("gt (int .Values.replicas) 5", "  maxUnavailable: 1\n"),
			},
			want:       []string{"skipped TGM-H010"},
			wantReason: "the chart's own PodDisruptionBudget (templates/pdb.yaml) renders only when if gt (int .Values.replicas) 5",
		},
		{
			// The chart's budget selects the front tier: the web pods, and
			// the other pods, which have a budget already.
			name: "turning the chart's budget on would select pods twice: dropped",
			extra: map[string]string{
				"values.yaml": "pdb:\n  enabled: false\n",
				"templates/pdb.yaml": "{{- if .Values.pdb.enabled }}\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: front\nspec:\n" +
					"  maxUnavailable: 1\n  selector:\n    matchLabels: {tier: front}\n{{- end }}\n",
				"templates/other.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: other\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {app: other}\n" +
					"  template:\n    metadata:\n      labels: {app: other, tier: front}\n    spec:\n      containers: [{name: other}]\n---\n" +
					"apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: other\nspec:\n  maxUnavailable: 1\n  selector:\n    matchLabels: {app: other}\n",
			},
			want:       []string{"dropped TGM-H010 values.yaml [chart-values]"},
			wantReason: "two PodDisruptionBudgets would select the pods of Deployment default/other",
		},
		{
			name:       "a packaged library chart's budget, by the name of its switch",
			library:    true,
			extra:      map[string]string{"values.yaml": "pdb:\n  enabled: false\n", "templates/pdb.yaml": "{{ include \"lib.pdb\" . }}\n"},
			want:       []string{"applied TGM-H010 values.yaml [chart-values]"},
			wantValues: "pdb:\n  enabled: true\n",
		},
		{
			name: "no budget of its own for these pods: a new template",
			extra: map[string]string{
				"templates/pdb.yaml": "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: other\nspec:\n  maxUnavailable: 1\n  selector:\n    matchLabels: {app: other}\n",
			},
			want: []string{"applied TGM-H010 templates/deployment-pdb.yaml [template]"},
		},
	}
	c := newChecker(t, helmgov.Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := pdbChart(tt.extra)
			if tt.library {
				files["Chart.yaml"] = chartYAML + "dependencies:\n  - name: lib\n    version: 0.1.0\n"
			}
			dir := writeChart(t, files)
			if tt.library {
				lib := writeChart(t, map[string]string{
					"Chart.yaml": "apiVersion: v2\nname: lib\ntype: library\nversion: 0.1.0\n",
					"templates/_pdb.tpl": "{{- define \"lib.pdb\" -}}\n{{- if .Values.pdb.enabled }}\napiVersion: policy/v1\nkind: PodDisruptionBudget\n" +
						"metadata:\n  name: web\nspec:\n  maxUnavailable: 1\n  selector:\n    matchLabels:\n      app: web\n{{- end }}\n{{- end }}\n",
				})
				if err := os.MkdirAll(filepath.Join(dir, "charts"), 0o755); err != nil {
					t.Fatal(err)
				}
				libDir := filepath.Join(filepath.Dir(lib), "lib")
				if err := os.Rename(lib, libDir); err != nil {
					t.Fatal(err)
				}
				writeTgz(t, libDir, filepath.Join(dir, "charts", "lib-0.1.0.tgz"))
			}
			var opts []helmgov.FixOption
			valuesFile := filepath.Join(dir, "values.yaml")
			if tt.user != "" {
				valuesFile = filepath.Join(t.TempDir(), "user.yaml")
				if err := os.WriteFile(valuesFile, []byte(tt.user), 0o644); err != nil {
					t.Fatal(err)
				}
				opts = append(opts, helmgov.WithRenderOptions(helmgov.WithValuesFiles(valuesFile)))
			}
			res, err := c.Fix(t.Context(), dir, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, userNames(fixLines(res), filepath.Dir(valuesFile))); diff != "" {
				t.Errorf("fixes (-want +got):\n%s", diff)
			}
			if tt.wantValues != "" {
				got, err := os.ReadFile(valuesFile)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.wantValues, string(got)); diff != "" {
					t.Errorf("values (-want +got):\n%s", diff)
				}
			}
			var reasons []string
			for _, s := range res.Skipped {
				reasons = append(reasons, s.Reason)
			}
			for _, d := range res.Dropped {
				reasons = append(reasons, d.Reason)
			}
			if tt.wantReason != "" && !slices.ContainsFunc(reasons, func(r string) bool { return strings.Contains(r, tt.wantReason) }) {
				t.Errorf("reasons %q, want one with %q", reasons, tt.wantReason)
			}
			// Whatever happened, no pod is selected by two budgets, and the
			// chart renders.
			var renderOpts []helmgov.RenderOption
			if tt.user != "" {
				renderOpts = append(renderOpts, helmgov.WithValuesFiles(valuesFile))
			}
			r, err := helmgov.Render(t.Context(), dir, renderOpts...)
			if err != nil {
				t.Fatal(err)
			}
			assertOneBudgetPerPod(t, r)
		})
	}
}

// assertOneBudgetPerPod fails when two PodDisruptionBudgets select the pods
// of one workload.
func assertOneBudgetPerPod(t *testing.T, r *helmgov.Rendered) {
	t.Helper()
	type sel map[string]any
	var budgets []sel
	for _, o := range r.Objects {
		if o.Kind == "PodDisruptionBudget" {
			m, _ := o.Fields["spec"].(map[string]any)["selector"].(map[string]any)["matchLabels"].(map[string]any)
			budgets = append(budgets, m)
		}
	}
	for _, o := range r.Objects {
		if o.Kind != "Deployment" {
			continue
		}
		podLabels := o.Fields["spec"].(map[string]any)["template"].(map[string]any)["metadata"].(map[string]any)["labels"].(map[string]any)
		n := 0
		for _, b := range budgets {
			match := len(b) > 0
			for k, v := range b {
				if podLabels[k] != v {
					match = false
				}
			}
			if match {
				n++
			}
		}
		if n > 1 {
			t.Errorf("%d PodDisruptionBudgets select the pods of Deployment %s", n, o.Name)
		}
	}
}

// wrappedChart wraps its Deployment, whose kind is a value, in
// whole-document conditions that trim both sides, with a variable set
// between them: the shape whose copied wrapper once swallowed the line
// break before apiVersion.
var wrappedChart = map[string]string{
	"Chart.yaml":  chartYAML,
	"values.yaml": "controller:\n  enabled: true\n  kind: Deployment\n  replicas: 2\n",
	"templates/_helpers.tpl": "{{- define \"ctl.fullname\" -}}{{ .Release.Name }}-ctl{{- end }}\n" +
		"{{- define \"ctl.selectorLabels\" -}}\napp.kubernetes.io/name: ctl\napp.kubernetes.io/instance: {{ .Release.Name }}\n{{- end }}\n",
	"templates/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: ctl\n  annotations:\n    " + annLBType + ": external\n    " + annTargetType + ": ip\n" +
		"spec:\n  type: LoadBalancer\n  selector:\n    {{- include \"ctl.selectorLabels\" . | nindent 4 }}\n  ports: [{port: 80, targetPort: 8080}]\n",
	"templates/controller.yaml": `{{- if .Values.controller.enabled -}}
{{- $fullName := include "ctl.fullname" . -}}
{{- if eq .Values.controller.kind "Deployment" -}}
apiVersion: apps/v1
kind: {{ .Values.controller.kind }}
metadata:
  name: {{ $fullName }}
spec:
  replicas: {{ .Values.controller.replicas }}
  selector:
    matchLabels:
      {{- include "ctl.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "ctl.selectorLabels" . | nindent 8 }}
    spec:
      terminationGracePeriodSeconds: 160
      containers:
        - name: ctl
          ports: [{containerPort: 8080}]
          lifecycle: {preStop: {sleep: {seconds: 130}}}
{{- end }}
{{- end }}
`,
}

// TestFixNewTemplatesRender: each template Fix writes renders under every
// combination of the conditions it copied from the workload's wrapper:
// true and false for each value they read, and each string they compare
// it with. With every condition true, the budget selects the pods.
func TestFixNewTemplatesRender(t *testing.T) {
	charts := map[string]map[string]string{"wrapped": wrappedChart}
	for _, name := range fixtures {
		charts[name] = nil
	}
	c := newChecker(t, helmgov.Options{})
	for name, files := range charts {
		t.Run(name, func(t *testing.T) {
			var dir string
			if files != nil {
				dir = writeChart(t, files)
			} else {
				dir = copyChart(t, filepath.Join("testdata", "charts", name))
			}
			res, err := c.Fix(t.Context(), dir, helmgov.WithFixRules(helmgov.RuleWorkloadPDB))
			if err != nil {
				t.Fatal(err)
			}
			generated := 0
			for _, f := range res.Files {
				if f.Before != "" {
					continue
				}
				generated++
				combos := wrapperCombos(f.After)
				if name == "wrapped" && len(combos) != 4 {
					t.Errorf("%s: %d combinations of its conditions, want 4 (enabled: true, false; kind: Deployment, another)", f.Path, len(combos))
				}
				for _, combo := range combos {
					r, err := helmgov.Render(t.Context(), dir, combo.opts...)
					if err != nil {
						t.Errorf("%s with %s does not render: %v", f.Path, combo.name, err)
						continue
					}
					if combo.allTrue && !slices.ContainsFunc(r.Objects, func(o helmgov.Object) bool {
						return o.Kind == "PodDisruptionBudget" && o.Source.Template == filepath.Base(dir)+"/"+f.Path ||
							o.Kind == "PodDisruptionBudget" && strings.HasSuffix(o.Source.Template, "/"+f.Path)
					}) {
						t.Errorf("%s with %s renders no PodDisruptionBudget", f.Path, combo.name)
					}
				}
			}
			if name == "wrapped" || name == "legacy-nodeport" || name == "alb-ingress-instance" {
				if generated != 1 {
					t.Fatalf("%d templates generated, want 1:\n%s", generated, res.Diff)
				}
				for _, f := range res.After.Findings {
					if f.Rule == helmgov.RuleWorkloadPDB {
						t.Errorf("after the fix: %s %s: %s", f.Rule, f.Object, f.Message)
					}
				}
			}
		})
	}
}

type combo struct {
	name    string
	opts    []helmgov.RenderOption
	allTrue bool // the values the chart's own values.yaml would not change
}

var (
	condLine = regexp.MustCompile(`^\{\{-?\s*(if|with)\s+(.*?)\s*-?\}\}$`)
	valueRef = regexp.MustCompile(`\.Values((?:\.[A-Za-z0-9_-]+)+)`)
	strLit   = regexp.MustCompile(`"([^"]*)"`)
)

// wrapperCombos lists the values to render a generated template with:
// every combination of true, false and the strings compared with, for each
// value its conditions read. The first is the one where each condition
// holds as in the chart's default values (true, or the compared string).
func wrapperCombos(tpl string) []combo {
	type choice struct{ set, setString string }
	var refs []string
	choices := map[string][]choice{}
	for l := range strings.SplitSeq(tpl, "\n") {
		m := condLine.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		lits := strLit.FindAllStringSubmatch(m[2], -1)
		for _, r := range valueRef.FindAllStringSubmatch(m[2], -1) {
			ref := strings.TrimPrefix(r[1], ".")
			if _, seen := choices[ref]; seen {
				continue
			}
			refs = append(refs, ref)
			// The strings the condition compares with, then another
			// string; or, when it compares with none, true and false.
			var cs []choice
			for _, lit := range lits {
				cs = append(cs, choice{setString: lit[1]})
			}
			if len(lits) > 0 {
				cs = append(cs, choice{setString: "Other"})
			} else {
				cs = append(cs, choice{set: "true"}, choice{set: "false"})
			}
			choices[ref] = cs
		}
	}
	out := []combo{{name: "the chart's values", allTrue: true}}
	if len(refs) == 0 {
		return out
	}
	out = nil
	var walk func(i int, name []string, opts []helmgov.RenderOption, allTrue bool)
	walk = func(i int, name []string, opts []helmgov.RenderOption, allTrue bool) {
		if i == len(refs) {
			out = append(out, combo{name: strings.Join(name, ","), opts: slices.Clone(opts), allTrue: allTrue})
			return
		}
		for j, c := range choices[refs[i]] {
			var o helmgov.RenderOption
			var n string
			if c.setString != "" {
				o, n = helmgov.WithSetString(refs[i]+"="+c.setString), refs[i]+"="+c.setString
			} else {
				o, n = helmgov.WithSet(refs[i]+"="+c.set), refs[i]+"="+c.set
			}
			walk(i+1, append(slices.Clone(name), n), append(slices.Clone(opts), o), allTrue && j == 0)
		}
	}
	walk(0, nil, nil, true)
	return out
}

// TestFixOwnValues: a pod spec written by a helper (include ... | nindent)
// is not YAML the editor can follow, and its template does not spell the
// fields out: the fixes go to the values the helper reads, named after the
// fields, and not a line of the templates changes.
func TestFixOwnValues(t *testing.T) {
	dir := writeChart(t, map[string]string{
		"Chart.yaml":  chartYAML,
		"values.yaml": "# Drain settings of the pod.\nlifecycle: {}\nterminationGracePeriodSeconds: 30\n",
		"templates/_pod.tpl": "{{- define \"c.pod\" -}}\nterminationGracePeriodSeconds: {{ .Values.terminationGracePeriodSeconds }}\ncontainers:\n" +
			"  - name: web\n    ports: [{containerPort: 8080}]\n    {{- with .Values.lifecycle }}\n    lifecycle: {{- toYaml . | nindent 6 }}\n    {{- end }}\n{{- end }}\n",
		"templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {app: web}\n" +
			"  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      {{- include \"c.pod\" . | nindent 6 }}\n---\n" +
			"apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n  maxUnavailable: 1\n  selector:\n    matchLabels: {app: web}\n",
		"templates/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations:\n    " + annLBType + ": external\n    " + annTargetType + ": ip\n" +
			"spec:\n  type: LoadBalancer\n  selector: {app: web}\n  ports: [{port: 80, targetPort: 8080}]\n",
	})
	templates := treeHash(t, filepath.Join(dir, "templates"))
	res, err := newChecker(t, helmgov.Options{}).Fix(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"applied TGM-H008 values.yaml [chart-values]", "applied TGM-H009 values.yaml [chart-values]"}
	if diff := cmp.Diff(want, fixLines(res)); diff != "" {
		t.Errorf("fixes (-want +got):\n%s", diff)
	}
	if len(res.Applied) > 0 && !strings.Contains(res.Applied[0].Why, `the renderer puts .Values.lifecycle at spec.template.spec.containers[name=web].lifecycle of Deployment web`) {
		t.Errorf("why = %q", res.Applied[0].Why)
	}
	got, err := os.ReadFile(filepath.Join(dir, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	wantValues := "# Drain settings of the pod.\nlifecycle:\n  preStop:\n    sleep:\n      seconds: 130\nterminationGracePeriodSeconds: 160\n"
	if diff := cmp.Diff(wantValues, string(got)); diff != "" {
		t.Errorf("values.yaml (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(templates, treeHash(t, filepath.Join(dir, "templates"))); diff != "" {
		t.Errorf("the templates changed:\n%s", diff)
	}
}
