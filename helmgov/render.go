package helmgov

// This file holds [Render] and its options: a chart rendered in-process with
// the Helm SDK, as `helm template`; and [Checker.CheckChart].

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	"helm.sh/helm/v4/pkg/action"
	ci "helm.sh/helm/v4/pkg/chart"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/loader"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/cli/values"
	"helm.sh/helm/v4/pkg/getter"
	releasev1 "helm.sh/helm/v4/pkg/release/v1"
	"sigs.k8s.io/yaml"
)

// RenderOption changes how a chart is rendered, as `helm template` flags do.
type RenderOption func(*renderConfig)

type renderConfig struct {
	valueFiles   []string
	set          []string
	setString    []string
	releaseName  string
	namespace    string
	kubeVersion  string
	apiVersions  []string
	skipCRDs     bool
	skipValidate bool
	logger       logr.Logger
}

// WithValuesFiles adds values files, like `helm template -f`. Later files
// win. Paths are read from disk; "-" (stdin) and URLs are refused.
func WithValuesFiles(paths ...string) RenderOption {
	return func(c *renderConfig) { c.valueFiles = append(c.valueFiles, paths...) }
}

// WithSet adds overrides like `helm template --set a.b=c,d=e`.
func WithSet(overrides ...string) RenderOption {
	return func(c *renderConfig) { c.set = append(c.set, overrides...) }
}

// WithSetString adds overrides like `helm template --set-string a=007`.
func WithSetString(overrides ...string) RenderOption {
	return func(c *renderConfig) { c.setString = append(c.setString, overrides...) }
}

// WithReleaseName sets the release name; the default is "release-name", as
// in `helm template`.
func WithReleaseName(name string) RenderOption {
	return func(c *renderConfig) { c.releaseName = name }
}

// WithNamespace sets the release namespace; the default is "default". The
// checker uses it for objects that name no namespace.
func WithNamespace(ns string) RenderOption {
	return func(c *renderConfig) { c.namespace = ns }
}

// WithKubeVersion sets .Capabilities.KubeVersion, like `--kube-version`.
func WithKubeVersion(v string) RenderOption {
	return func(c *renderConfig) { c.kubeVersion = v }
}

// WithAPIVersions adds to .Capabilities.APIVersions, like `--api-versions`.
func WithAPIVersions(v ...string) RenderOption {
	return func(c *renderConfig) { c.apiVersions = append(c.apiVersions, v...) }
}

// WithoutCRDs leaves out the chart's crds/ directory. By default the CRDs
// are rendered, so that the checker knows the kinds they define.
func WithoutCRDs() RenderOption {
	return func(c *renderConfig) { c.skipCRDs = true }
}

// WithoutSchemaValidation skips values.schema.json, like
// `--skip-schema-validation`.
func WithoutSchemaValidation() RenderOption {
	return func(c *renderConfig) { c.skipValidate = true }
}

// WithLogger sends Helm's log to the logger: its debug messages at V(1),
// its warnings at V(0). The default discards them.
func WithLogger(l logr.Logger) RenderOption {
	return func(c *renderConfig) { c.logger = l }
}

func newRenderConfig(opts []RenderOption) (*renderConfig, error) {
	c := &renderConfig{releaseName: "release-name", namespace: "default", logger: logr.Discard()}
	for _, o := range opts {
		o(c)
	}
	for _, f := range c.valueFiles {
		if strings.TrimSpace(f) == "-" || strings.Contains(f, "://") {
			return nil, usagef("render: values file %q: only local files are supported", f)
		}
	}
	if c.releaseName == "" {
		return nil, usagef("render: empty release name")
	}
	if c.namespace == "" {
		return nil, usagef("render: empty namespace")
	}
	return c, nil
}

// Rendered is a chart rendered in-process.
type Rendered struct {
	// Chart is the chart directory.
	Chart string
	// Namespace is the release namespace.
	Namespace string
	// Manifest is the rendered stream, as `helm template` prints it, with
	// "# Source:" comments; hooks follow the manifests.
	Manifest string
	// Objects are the objects of Manifest, each with its template file.
	Objects []Object

	charts []chartInfo
}

// chartInfo maps one chart of the tree onto the disk.
type chartInfo struct {
	fullPath string   // Helm's ChartFullPath: "umbrella/charts/api"
	dir      string   // directory on disk; empty for a packaged subchart
	values   []string // the values key path from the root chart
}

// Render loads the chart directory and renders it in-process with the Helm
// SDK, as `helm template` would, with no cluster: values files, --set
// overrides, subcharts (which must be present in charts/), hooks and the
// crds/ directory. A chart that fails to load or render gives a
// [*RenderError] whose message names the template and line; bad options give
// an [ErrUsage].
func Render(ctx context.Context, dir string, opts ...RenderOption) (*Rendered, error) {
	cfg, err := newRenderConfig(opts)
	if err != nil {
		return nil, err
	}
	if err := context.Cause(ctx); err != nil {
		return nil, fmt.Errorf("helmgov: render %s: %w", dir, err)
	}
	chrt, err := loadChart(dir)
	if err != nil {
		return nil, err
	}
	vals, err := cfg.userValues()
	if err != nil {
		return nil, err
	}
	out, err := renderChart(ctx, dir, chrt, vals, cfg)
	if err != nil {
		return nil, err
	}
	if err := out.locate(); err != nil {
		return nil, &RenderError{Chart: dir, Err: err}
	}
	return out, nil
}

// loadChart loads a chart directory with the Helm SDK's loader (packaged
// subcharts are read from their archives in memory) and checks that its
// dependencies are present, as `helm template` does.
func loadChart(dir string) (*chartv2.Chart, error) {
	st, err := os.Stat(dir)
	if err != nil {
		// The *PathError repeats the path; keep its cause ("no such file
		// or directory", "permission denied").
		cause := err
		var pe *fs.PathError
		if errors.As(err, &pe) {
			cause = pe.Err
		}
		return nil, usagef("render: chart %s: %w", dir, cause)
	}
	if !st.IsDir() {
		return nil, usagef("render: chart %s is not a directory", dir)
	}
	ch, err := loader.Load(dir)
	if err != nil {
		return nil, &RenderError{Chart: dir, Err: err}
	}
	chrt, ok := ch.(*chartv2.Chart)
	if !ok {
		return nil, &RenderError{Chart: dir, Err: errors.New("only charts of apiVersion v1 and v2 are supported")}
	}
	if err := checkDependencies(chrt); err != nil {
		return nil, &RenderError{Chart: dir, Err: err}
	}
	return chrt, nil
}

// userValues merges the values files and overrides, as `helm template`
// does before it coalesces them with the chart's defaults.
func (cfg *renderConfig) userValues() (map[string]any, error) {
	vopts := values.Options{ValueFiles: cfg.valueFiles, Values: cfg.set, StringValues: cfg.setString}
	vals, err := vopts.MergeValues(getter.Providers{})
	if err != nil {
		return nil, usagef("render: values: %w", err)
	}
	return vals, nil
}

// renderChart renders a loaded chart with these values, in-process with
// the install action in client-only dry-run mode. The chart is changed by
// the render (Helm drops disabled dependencies and renames aliased ones):
// give it a copy ([cloneChart]) to render it again. The objects' template
// files are left for [Rendered.locate].
func renderChart(ctx context.Context, dir string, chrt *chartv2.Chart, vals map[string]any, cfg *renderConfig) (*Rendered, error) {
	var handler slog.Handler = slog.DiscardHandler
	if cfg.logger.GetSink() != nil {
		handler = logr.ToSlogHandler(cfg.logger.WithValues("chart", dir))
	}
	inst := action.NewInstall(action.NewConfiguration(action.ConfigurationSetLogger(handler)))
	inst.DryRunStrategy = action.DryRunClient
	inst.Replace = true
	inst.ReleaseName = cfg.releaseName
	inst.Namespace = cfg.namespace
	inst.IncludeCRDs = !cfg.skipCRDs
	inst.SkipSchemaValidation = cfg.skipValidate
	inst.APIVersions = common.VersionSet(cfg.apiVersions)
	if cfg.kubeVersion != "" {
		kv, err := common.ParseKubeVersion(cfg.kubeVersion)
		if err != nil {
			return nil, usagef("render: kube version %q: %w", cfg.kubeVersion, err)
		}
		inst.KubeVersion = kv
	}
	rel, err := inst.RunWithContext(ctx, chrt, vals)
	if err != nil {
		if cerr := context.Cause(ctx); cerr != nil {
			return nil, fmt.Errorf("helmgov: render %s: %w", dir, cerr)
		}
		return nil, &RenderError{Chart: dir, Err: err}
	}
	r, ok := rel.(*releasev1.Release)
	if !ok {
		return nil, &RenderError{Chart: dir, Err: fmt.Errorf("unexpected release type %T", rel)}
	}

	out := &Rendered{Chart: dir, Namespace: cfg.namespace}
	var b strings.Builder
	b.WriteString(r.Manifest)
	for _, h := range r.Hooks {
		fmt.Fprintf(&b, "\n---\n# Source: %s\n%s\n", h.Path, h.Manifest)
	}
	out.Manifest = b.String()
	objs, err := readManifests([]byte(out.Manifest), "rendered manifests", "")
	if err != nil {
		var me *ManifestError
		if errors.As(err, &me) {
			me.Line = 0 // a line of the rendered stream would mislead
		}
		return nil, &RenderError{Chart: dir, Err: err}
	}
	out.Objects = objs
	return out, nil
}

// locate maps the chart's tree onto the disk and gives each object its
// template file and the line of its document there.
func (r *Rendered) locate() error {
	var err error
	if r.charts, err = chartTree(r.Chart); err != nil {
		return err
	}
	lines := templateLines{}
	for i := range r.Objects {
		o := &r.Objects[i]
		o.Source.File, o.Source.Line = r.Chart, 0
		if f, ok := r.templateFile(o.Source.Template); ok {
			o.Source.File, o.Source.Line = f, lines.lineOf(f, o.Kind, o.Name)
		}
	}
	return nil
}

// checkDependencies fails, as `helm template` does, when Chart.yaml lists a
// dependency that charts/ does not hold.
func checkDependencies(c *chartv2.Chart) error {
	var reqs []ci.Dependency
	for _, d := range c.Metadata.Dependencies {
		reqs = append(reqs, d)
	}
	if len(reqs) == 0 {
		return nil
	}
	if err := action.CheckDependencies(c, reqs); err != nil {
		return fmt.Errorf("%w (run `helm dependency build`)", err)
	}
	return nil
}

// templateFile maps Helm's template name onto the file on disk.
func (r *Rendered) templateFile(tpl string) (string, bool) {
	info, rel, ok := r.chartOf(tpl)
	if !ok || info.dir == "" {
		return "", false
	}
	return filepath.Join(info.dir, filepath.FromSlash(rel)), true
}

// chartOf finds the chart that holds a template, and the template's path
// inside it ("templates/service.yaml").
func (r *Rendered) chartOf(tpl string) (chartInfo, string, bool) {
	best := -1
	for i, c := range r.charts {
		if strings.HasPrefix(tpl, c.fullPath+"/templates/") && (best < 0 || len(c.fullPath) > len(r.charts[best].fullPath)) {
			best = i
		}
	}
	if best < 0 {
		return chartInfo{}, "", false
	}
	return r.charts[best], strings.TrimPrefix(tpl, r.charts[best].fullPath+"/"), true
}

// chartTree lists the chart and its unpacked subcharts, with the names Helm
// gives them (aliases included).
func chartTree(dir string) ([]chartInfo, error) {
	meta, err := readChartMeta(dir)
	if err != nil {
		return nil, err
	}
	var out []chartInfo
	var walk func(dir, fullPath string, vals []string, meta *chartv2.Metadata)
	walk = func(dir, fullPath string, vals []string, meta *chartv2.Metadata) {
		out = append(out, chartInfo{fullPath: fullPath, dir: dir, values: vals})
		entries, _ := os.ReadDir(filepath.Join(dir, "charts"))
		for _, e := range entries {
			sub := filepath.Join(dir, "charts", e.Name())
			if !e.IsDir() {
				continue
			}
			m, err := readChartMeta(sub)
			if err != nil {
				continue
			}
			names := []string{m.Name}
			for _, d := range meta.Dependencies {
				if d.Name == m.Name && d.Alias != "" {
					names = append(names, d.Alias)
				}
			}
			for _, n := range names {
				walk(sub, path.Join(fullPath, "charts", n), append(slices.Clone(vals), n), m)
			}
		}
	}
	walk(dir, meta.Name, nil, meta)
	return out, nil
}

func readChartMeta(dir string) (*chartv2.Metadata, error) {
	data, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return nil, err
	}
	var m chartv2.Metadata
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "Chart.yaml"), err)
	}
	return &m, nil
}

// CheckChart renders the chart with [Render] and checks the result. The
// render namespace is the default namespace of the check.
func (c *Checker) CheckChart(ctx context.Context, dir string, opts ...RenderOption) (*Result, *Rendered, error) {
	log := c.opts.Logger.WithValues("chart", dir)
	r, err := Render(ctx, dir, append([]RenderOption{WithLogger(log.V(1))}, opts...)...)
	if err != nil {
		return nil, nil, err
	}
	res := c.withNamespace(r.Namespace).Check(r.Objects)
	log.Info("checked chart", "objects", res.Objects, "findings", len(res.Findings), "notices", len(res.Notices))
	return res, r, nil
}

func (c *Checker) withNamespace(ns string) *Checker {
	cp := *c
	cp.opts.DefaultNamespace = ns
	return &cp
}

// templateLines finds the line of a template where the document that
// renders an object starts, parsing each template once.
type templateLines map[string]*srcFile

// lineOf returns the line of the document of that kind and name in the
// template, or 1 when it cannot be told (the kind is templated, or the file
// is not YAML once its actions are masked).
func (t templateLines) lineOf(file, kind, name string) int {
	f, seen := t[file]
	if !seen {
		if data, err := os.ReadFile(file); err == nil {
			f, _ = parseSource(file, data, true)
		}
		t[file] = f
	}
	if f == nil {
		return 1
	}
	doc, err := f.findDoc(kind, name)
	if err != nil {
		return 1
	}
	return f.root(doc).Line
}
