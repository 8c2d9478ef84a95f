package helmgov_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/helmgov"
)

func TestRenderOverrides(t *testing.T) {
	dir := filepath.Join("testdata", "charts", "nlb-service")
	vf := filepath.Join(t.TempDir(), "prod.yaml")
	if err := os.WriteFile(vf, []byte("service:\n  annotations:\n    service.beta.kubernetes.io/aws-load-balancer-type: external\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := helmgov.Render(t.Context(), dir,
		helmgov.WithValuesFiles(vf),
		helmgov.WithSet("service.annotations.service\\.beta\\.kubernetes\\.io/aws-load-balancer-nlb-target-type=ip,namespace=checkout"),
		helmgov.WithReleaseName("prod"), helmgov.WithNamespace("ops"))
	if err != nil {
		t.Fatal(err)
	}
	var svc *helmgov.Object
	for i := range r.Objects {
		if r.Objects[i].Kind == "Service" {
			svc = &r.Objects[i]
		}
	}
	if svc == nil || svc.Name != "prod-api" || svc.Namespace != "checkout" {
		t.Fatalf("service %+v", svc)
	}
	if svc.Source.Template != "nlb-api/templates/service.yaml" || svc.Source.File != filepath.Join(dir, "templates", "service.yaml") {
		t.Errorf("source %+v", svc.Source)
	}
	ann := svc.Annotations()
	if ann["service.beta.kubernetes.io/aws-load-balancer-type"] != "external" || ann["service.beta.kubernetes.io/aws-load-balancer-nlb-target-type"] != "ip" {
		t.Errorf("annotations %v", ann)
	}
	if !strings.Contains(r.Manifest, "# Source: nlb-api/templates/service.yaml") {
		t.Error("manifest lacks Helm's source comments")
	}
	res := newChecker(t, helmgov.Options{DefaultNamespace: r.Namespace}).Check(r.Objects)
	for _, f := range res.Findings {
		if f.Rule == helmgov.RuleServiceLBType || f.Rule == helmgov.RuleServiceTargetType {
			t.Errorf("override not applied: %s %s", f.Rule, f.Message)
		}
	}

	r, err = helmgov.Render(t.Context(), dir, helmgov.WithSetString("namespace=billing"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Objects[0].Name != "billing" {
		t.Errorf("set-string: %+v", r.Objects[0].Ref())
	}

	// A value that renders a number where Kubernetes wants a name is caught
	// as an invalid rendered manifest, naming the template.
	_, err = helmgov.Render(t.Context(), dir, helmgov.WithSet("namespace=007"))
	if !helmgov.IsRender(err) || !helmgov.IsInvalidManifest(err) || !strings.Contains(err.Error(), "nlb-api/templates/namespace.yaml") {
		t.Errorf("err = %v, want a render error naming the template", err)
	}
}

func TestRenderSubchart(t *testing.T) {
	r, err := helmgov.Render(t.Context(), filepath.Join("testdata", "charts", "umbrella"), helmgov.WithSet("api.replicas=5"))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range r.Objects {
		if o.Kind == "Deployment" {
			if got := o.Fields["spec"].(map[string]any)["replicas"]; got != int64(5) {
				t.Errorf("replicas %v, want 5 from the umbrella's --set", got)
			}
			if want := filepath.Join("testdata", "charts", "umbrella", "charts", "api", "templates", "deployment.yaml"); o.Source.File != want {
				t.Errorf("source file %q, want %q", o.Source.File, want)
			}
			return
		}
	}
	t.Fatal("no Deployment rendered from the subchart")
}

func TestRenderErrors(t *testing.T) {
	tests := []struct {
		name    string
		dir     string
		opts    []helmgov.RenderOption
		render  bool // a *RenderError, else a usage error
		wantMsg string
	}{
		{"template does not parse", "testdata/bad-charts/broken-template", nil, true, "broken/templates/service.yaml"},
		{"missing dependency", "testdata/bad-charts/missing-dep", nil, true, "missing in charts/ directory: postgresql"},
		{"no Chart.yaml", "testdata/bad-charts/no-chart-yaml", nil, true, "Chart.yaml"},
		{"no such directory", "testdata/bad-charts/nope", nil, false, "chart testdata/bad-charts/nope: no such file or directory"},
		{"a file, not a directory", "testdata/charts/umbrella/Chart.yaml", nil, false, "is not a directory"},
		{"malformed --set", "testdata/charts/umbrella", []helmgov.RenderOption{helmgov.WithSet("a[x]=1")}, false, "error parsing index"},
		{"missing values file", "testdata/charts/umbrella", []helmgov.RenderOption{helmgov.WithValuesFiles("testdata/none.yaml")}, false, "none.yaml"},
		{"values from stdin", "testdata/charts/umbrella", []helmgov.RenderOption{helmgov.WithValuesFiles("-")}, false, "only local files"},
		{"bad kube version", "testdata/charts/umbrella", []helmgov.RenderOption{helmgov.WithKubeVersion("banana")}, false, "banana"},
		{"empty release name", "testdata/charts/umbrella", []helmgov.RenderOption{helmgov.WithReleaseName("")}, false, "release name"},
	}
	c := newChecker(t, helmgov.Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := helmgov.Render(t.Context(), tt.dir, tt.opts...)
			if err == nil {
				t.Fatal("no error")
			}
			var re *helmgov.RenderError
			if tt.render != errors.As(err, &re) || tt.render != helmgov.IsRender(err) || tt.render == helmgov.IsUsage(err) {
				t.Fatalf("error %T %v: render=%v usage=%v", err, err, helmgov.IsRender(err), helmgov.IsUsage(err))
			}
			if !strings.Contains(err.Error(), tt.wantMsg) || !strings.HasPrefix(err.Error(), "helmgov: ") {
				t.Errorf("message %q, want it to contain %q", err, tt.wantMsg)
			}
			if helmgov.ExitCodeOf(err) != helmgov.ExitError {
				t.Error("exit code is not 2")
			}
			// The message says what is wrong, not the category's name.
			if strings.Contains(err.Error(), helmgov.ErrUsage.Error()) {
				t.Errorf("message %q names the sentinel", err)
			}
			if _, statErr := os.Stat(tt.dir); errors.Is(statErr, fs.ErrNotExist) && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("error %v does not unwrap to fs.ErrNotExist", err)
			}
			// Fix refuses the same input, and touches nothing.
			var before map[string]string
			if st, err := os.Stat(tt.dir); err == nil && st.IsDir() {
				before = treeHash(t, tt.dir)
			}
			if _, err := c.Fix(t.Context(), tt.dir, helmgov.WithRenderOptions(tt.opts...)); err == nil {
				t.Error("Fix accepted it")
			}
			if before != nil {
				if diff := cmp.Diff(before, treeHash(t, tt.dir)); diff != "" {
					t.Errorf("Fix changed the chart:\n%s", diff)
				}
			}
		})
	}
}

func TestRenderCanceled(t *testing.T) {
	ctx, cancel := contextWithCause(t)
	cancel(errors.New("operator said stop"))
	_, err := helmgov.Render(ctx, filepath.Join("testdata", "charts", "umbrella"))
	if err == nil || !strings.Contains(err.Error(), "operator said stop") {
		t.Fatalf("err = %v, want the cancellation cause", err)
	}
}

func TestCheckChartLogs(t *testing.T) {
	var lines []string
	log := funcr.New(func(prefix, args string) { lines = append(lines, args) }, funcr.Options{Verbosity: 1})
	c := newChecker(t, helmgov.Options{Logger: log})
	if _, _, err := c.CheckChart(t.Context(), filepath.Join("testdata", "charts", "umbrella")); err != nil {
		t.Fatal(err)
	}
	if len(lines) == 0 || !strings.Contains(lines[len(lines)-1], `"msg"="checked chart"`) || !strings.Contains(lines[len(lines)-1], `"findings"=5`) {
		t.Errorf("log lines %q", lines)
	}
}
