package helmgov

// This file holds the renderer Fix uses: the scratch chart loaded once per
// state of the scratch copy (a copy of it per render, since Helm's install
// changes the chart it renders), the user's values merged per render, an
// optional overlay of probe values on top, and the count of renders.

import (
	"context"

	"github.com/go-logr/logr"

	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
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
