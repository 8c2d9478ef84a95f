package helmgov_test

// Benchmarks of Fix (issue 32, point 6): per chart of the corpora and of
// testdata/probe, and on a generated chart of 50 objects; each reports the
// renders Fix made (renders/op, probes/op) and the process's peak RSS
// while it ran (peak-RSS-MB, from /proc/self/status, reset per chart
// through /proc/self/clear_refs; 0 where there is none).
//
//	go test ./helmgov -run '^$' -bench '^BenchmarkFix' -benchtime 10x

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/qstools/tgmigrate/helmgov"
)

// fixBench is a chart to fix and the user's values file, if any.
type fixBench struct {
	name, chart, values, namespace string
	set                            []string
}

func fixBenches(b *testing.B) []fixBench {
	var out []fixBench
	entries, err := os.ReadDir(corpus2Root)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range entries {
		dir := filepath.Join(corpus2Root, e.Name())
		data, err := os.ReadFile(filepath.Join(dir, "truth.yaml"))
		if err != nil {
			continue
		}
		var truth corpusTruth
		if err := yaml.Unmarshal(data, &truth); err != nil {
			b.Fatal(err)
		}
		out = append(out, fixBench{name: "corpus2/" + e.Name(), chart: filepath.Join(dir, "chart"),
			values: filepath.Join(dir, "user-values.yaml"), namespace: truth.Namespace, set: truth.Set})
	}
	for _, c := range corpus {
		if c.missingDependency != "" {
			continue
		}
		out = append(out, fixBench{name: "corpus/" + c.name, chart: filepath.Join(corpusRoot, c.name, "chart"),
			values: filepath.Join(corpusRoot, c.name, "user-values.yaml"), namespace: c.namespace})
	}
	for _, p := range []struct{ dir, chart string }{
		{"with-range", "."}, {"toyaml-col0", "."}, {"library-helper", "."}, {"pod-helper", "."}, {"service-map", "."},
		{"user-set", "."}, {"packaged-alias", "chart"}, {"global", "."}, {"tpl-values", "."},
	} {
		b := fixBench{name: "probe/" + p.dir, chart: filepath.Join("testdata", "probe", p.dir, p.chart)}
		if v := filepath.Join("testdata", "probe", p.dir, "user-values.yaml"); fileExists(v) {
			b.values = v
		}
		out = append(out, b)
	}
	return out
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// BenchmarkFix fixes each chart (a dry run: nothing is written, so every
// iteration does the whole work).
func BenchmarkFix(b *testing.B) {
	c, err := helmgov.NewChecker(helmgov.Options{})
	if err != nil {
		b.Fatal(err)
	}
	benches := append(fixBenches(b), fixBench{name: "generated-50-objects", chart: writeFiftyObjectChart(b)})
	for _, fb := range benches {
		b.Run(fb.name, func(b *testing.B) {
			var ro []helmgov.RenderOption
			if fb.values != "" {
				ro = append(ro, helmgov.WithValuesFiles(fb.values))
			}
			if fb.namespace != "" {
				ro = append(ro, helmgov.WithNamespace(fb.namespace))
			}
			if len(fb.set) > 0 {
				ro = append(ro, helmgov.WithSet(fb.set...))
			}
			resetPeakRSS()
			renders, probes := 0, 0
			b.ReportAllocs()
			for b.Loop() {
				res, err := c.Fix(b.Context(), fb.chart, helmgov.WithDryRun(), helmgov.WithRenderOptions(ro...))
				if err != nil {
					b.Fatal(err)
				}
				renders, probes = res.Renders, res.ProbeRenders
			}
			b.ReportMetric(float64(renders), "renders/op")
			b.ReportMetric(float64(probes), "probes/op")
			b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
		})
	}
}

// writeFiftyObjectChart writes a chart of ten apps, each a Deployment, a
// LoadBalancer Service, a PodDisruptionBudget, a ConfigMap and a
// ServiceAccount (50 objects), rendered by a range over a map of apps:
// each app's Service lacks both LBC annotations, its pods a preStop delay
// and a long enough grace period (40 findings, all fixable in values).
func writeFiftyObjectChart(b *testing.B) string {
	dir := filepath.Join(b.TempDir(), "fleet")
	var values strings.Builder
	values.WriteString("apps:\n")
	for i := range 10 {
		fmt.Fprintf(&values, "  app%02d:\n    replicas: 2\n    image: registry.example.com/app%02d:1.0\n    grace: 30\n    lifecycle: {}\n"+
			"    service:\n      annotations:\n        service.beta.kubernetes.io/aws-load-balancer-scheme: internal\n    config:\n      LOG_LEVEL: info\n", i, i)
	}
	files := map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: fleet\nversion: 1.0.0\n",
		"values.yaml": values.String(),
		"templates/_helpers.tpl": `{{- define "fleet.labels" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- end -}}
`,
		"templates/apps.yaml": `{{- range $name, $app := .Values.apps }}
{{- $ctx := dict "name" $name "root" $ }}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ $name }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ $name }}
data:
  {{- toYaml $app.config | nindent 2 }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $name }}
spec:
  replicas: {{ $app.replicas }}
  selector:
    matchLabels:
      {{- include "fleet.labels" $ctx | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "fleet.labels" $ctx | nindent 8 }}
    spec:
      serviceAccountName: {{ $name }}
      terminationGracePeriodSeconds: {{ $app.grace }}
      containers:
        - name: app
          image: {{ $app.image }}
          ports:
            - name: http
              containerPort: 8080
          envFrom:
            - configMapRef:
                name: {{ $name }}
          {{- with $app.lifecycle }}
          lifecycle:
            {{- toYaml . | nindent 12 }}
          {{- end }}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ $name }}
spec:
  maxUnavailable: 1
  selector:
    matchLabels:
      {{- include "fleet.labels" $ctx | nindent 6 }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ $name }}
  {{- with $app.service.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: LoadBalancer
  selector:
    {{- include "fleet.labels" $ctx | nindent 4 }}
  ports:
    - port: 80
      targetPort: http
{{- end }}
`,
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// resetPeakRSS starts the process's peak resident set size anew from its
// current size (Linux: 5 written to /proc/self/clear_refs); elsewhere it
// does nothing, and peakRSSMB is the peak so far.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSSMB is the process's peak resident set size since resetPeakRSS, in
// MB (Linux VmHWM); 0 where /proc/self/status is not there.
func peakRSSMB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return float64(kb) / 1024
		}
	}
	return 0
}
