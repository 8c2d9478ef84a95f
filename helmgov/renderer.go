package helmgov

// This file holds the renderer Fix uses: the scratch chart loaded once per
// state of the scratch copy (a copy of it per render, since Helm's install
// changes the chart it renders), the user's values merged per render, an
// optional overlay of probe values on top, and the count of renders. A
// probe may render by Helm's engine alone (renderEngine): the templates'
// output split into documents, a document the same as the baseline's
// taken as it is, without Helm's manifest sorting or a YAML parse.

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/go-logr/logr"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"helm.sh/helm/v4/pkg/engine"
)

// renderer renders the scratch copy of a chart again and again.
type renderer struct {
	dir    string
	cfg    *renderConfig
	chart  *chartv2.Chart // as loaded; never rendered itself
	gen    int            // the fixer's generation it was loaded at
	loaded bool
	// renders counts the renders made, probes the probe renders among
	// them.
	renders, probes int
}

// newRenderer renders dir with the options (the user's values files
// already pointed at their scratch copies).
func newRenderer(dir string, opts []RenderOption) (*renderer, error) {
	cfg, err := newRenderConfig(opts)
	if err != nil {
		return nil, err
	}
	return &renderer{dir: dir, cfg: cfg}, nil
}

// load returns the chart as the scratch copy holds it at generation gen,
// loading it again only when the copy changed since.
func (rd *renderer) load(gen int) (*chartv2.Chart, error) {
	if rd.loaded && rd.gen == gen {
		return rd.chart, nil
	}
	c, err := loadChart(rd.dir)
	if err != nil {
		return nil, err
	}
	rd.chart, rd.gen, rd.loaded = c, gen, true
	return c, nil
}

// render renders the chart at generation gen with the user's values and
// overlay on top of them (nil: none). A probe render (overlay set) skips
// values.schema.json, which only the proof of a fix must pass, and leaves
// the objects' template files unlocated.
func (rd *renderer) render(ctx context.Context, gen int, overlay map[string]any) (*Rendered, error) {
	c, err := rd.load(gen)
	if err != nil {
		return nil, err
	}
	vals, err := rd.cfg.userValues()
	if err != nil {
		return nil, err
	}
	cfg := rd.cfg
	if overlay != nil {
		mergeValues(vals, overlay)
		cp := *rd.cfg
		cp.skipValidate = true
		cp.logger = logr.Discard() // a probe's warnings are its own
		cfg = &cp
		rd.probes++
	}
	rd.renders++
	r, err := renderChart(ctx, rd.dir, cloneChart(c), vals, cfg)
	if err != nil {
		return nil, err
	}
	if overlay == nil {
		if err := r.locate(); err != nil {
			return nil, &RenderError{Chart: rd.dir, Err: err}
		}
	}
	return r, nil
}

// knownDoc returns the object a template's k-th document renders when the
// document's text is the baseline's, else nil.
type knownDoc func(tpl string, k int, doc string) *Object

// docRef is the document an object of an engine render comes from: the
// template, its index among the template's documents, and its text.
type docRef struct {
	tpl  string
	k    int
	text string
}

// renderEngine renders the chart at generation gen with the user's values
// and overlay on top, as the install action of a client-only dry run
// renders it (dependencies processed, the release's values and
// capabilities, crds/ first), by Helm's engine alone: each template's
// output is split into documents, in order, each an object. A document
// known returns an object for is not parsed; same says which objects
// those are, src where each comes from. A document that is not YAML
// fails the render as the install action's does.
func (rd *renderer) renderEngine(ctx context.Context, gen int, overlay map[string]any, known knownDoc) (r *Rendered, same []bool, src []docRef, err error) {
	c, err := rd.load(gen)
	if err != nil {
		return nil, nil, nil, err
	}
	vals, err := rd.cfg.userValues()
	if err != nil {
		return nil, nil, nil, err
	}
	mergeValues(vals, overlay)
	rd.renders++
	rd.probes++
	chrt := cloneChart(c)
	fail := func(err error) (*Rendered, []bool, []docRef, error) {
		return nil, nil, nil, &RenderError{Chart: rd.dir, Err: err}
	}
	if err := chartutil.ProcessDependencies(chrt, vals); err != nil {
		return fail(fmt.Errorf("chart dependencies processing failed: %w", err))
	}
	caps := common.DefaultCapabilities.Copy()
	if rd.cfg.kubeVersion != "" {
		kv, err := common.ParseKubeVersion(rd.cfg.kubeVersion)
		if err != nil {
			return nil, nil, nil, usagef("render: kube version %q: %w", rd.cfg.kubeVersion, err)
		}
		caps.KubeVersion = *kv
	}
	caps.APIVersions = append(caps.APIVersions, common.VersionSet(rd.cfg.apiVersions)...)
	opts := common.ReleaseOptions{Name: rd.cfg.releaseName, Namespace: rd.cfg.namespace, Revision: 1, IsInstall: true}
	rv, err := util.ToRenderValuesWithSchemaValidation(chrt, vals, opts, caps, true)
	if err != nil {
		return fail(err)
	}
	var e engine.Engine
	files, err := e.RenderWithContext(ctx, chrt, rv)
	if err != nil {
		return fail(err)
	}
	r = &Rendered{Chart: rd.dir, Namespace: rd.cfg.namespace}
	add := func(tpl, text string) error {
		k := 0
		for _, doc := range splitDocs(text) {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			ref := docRef{tpl: tpl, k: k, text: doc}
			k++
			if o := known(tpl, ref.k, doc); o != nil {
				r.Objects = append(r.Objects, *o)
				same, src = append(same, true), append(src, ref)
				continue
			}
			objs, err := readManifests([]byte(doc), "rendered manifests", tpl)
			if err != nil {
				return fmt.Errorf("YAML parse error on %s: %w", tpl, err)
			}
			for _, o := range objs {
				r.Objects = append(r.Objects, o)
				same, src = append(same, false), append(src, ref)
			}
		}
		return nil
	}
	if !rd.cfg.skipCRDs {
		for _, crd := range chrt.CRDObjects() {
			if err := add(crd.Filename, string(crd.File.Data)); err != nil {
				return fail(err)
			}
		}
	}
	names := make([]string, 0, len(files))
	for name := range files {
		if !strings.HasSuffix(name, "NOTES.txt") && !strings.HasPrefix(path.Base(name), "_") {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		if err := add(name, files[name]); err != nil {
			return fail(err)
		}
	}
	return r, same, src, nil
}

// splitDocs splits a template's output into YAML documents at the lines
// that are a document separator (---, alone or before a comment).
func splitDocs(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); {
		end := strings.IndexByte(text[i:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += i
		}
		line := strings.TrimRight(text[i:end], " \t\r")
		if rest, ok := strings.CutPrefix(line, "---"); ok && (rest == "" || strings.HasPrefix(strings.TrimSpace(rest), "#")) {
			out = append(out, text[start:i])
			start = min(end+1, len(text))
		}
		i = end + 1
	}
	return append(out, text[start:])
}

// cloneChart copies what rendering a chart changes: its metadata's
// dependencies, its values, and its subcharts, recursively. Templates and
// files are shared: Helm only reads them.
func cloneChart(c *chartv2.Chart) *chartv2.Chart {
	out := *c
	if c.Metadata != nil {
		md := *c.Metadata
		md.Dependencies = nil
		for _, d := range c.Metadata.Dependencies {
			if d == nil {
				md.Dependencies = append(md.Dependencies, nil)
				continue
			}
			cp := *d
			md.Dependencies = append(md.Dependencies, &cp)
		}
		out.Metadata = &md
	}
	out.Values, _ = cloneValue(c.Values).(map[string]any)
	out.SetDependencies()
	for _, d := range c.Dependencies() {
		out.AddDependency(cloneChart(d))
	}
	return &out
}

// cloneValue deep-copies values: maps and lists; scalars are shared.
func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = cloneValue(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = cloneValue(e)
		}
		return l
	}
	return v
}

// mergeValues merges src into dst: maps key by key, recursively; any other
// value of src replaces dst's.
func mergeValues(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				mergeValues(dm, sm)
				continue
			}
			v = cloneValue(sm)
		}
		dst[k] = v
	}
}
