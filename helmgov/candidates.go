package helmgov

// This file lists the values paths a probe tries (see probe.go): every map
// and leaf of the values the chart is rendered with (the root chart's
// values.yaml, every subchart's under its name or alias, packaged or not,
// global, and the user's files and overrides), the .Values paths the
// templates read (the template reader's hint, read from the loaded chart,
// so packaged subcharts too), and new keys named after the fields to fix
// under the maps the templates read.

import (
	"fmt"
	"maps"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"

	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
)

// probeKind is how a candidate path is probed.
type probeKind int

const (
	// probeMap adds an entry with a sentinel key to the map at the path.
	probeMap probeKind = iota
	// probeString, probeInt: the value at the path becomes a sentinel.
	probeString
	probeInt
	// probeList: the first item of the list becomes a sentinel string.
	probeList
)

// candidate is a values path (of the root chart's values) and how it is
// probed.
type candidate struct {
	path []string
	kind probeKind
	// exists: some values file or the chart's defaults set the path;
	// otherwise the templates read it, or it is a new key named after a
	// field.
	exists bool
	// read: a template of the chart reads the path.
	read bool
	// broken says why the probe could not be read: alone, it breaks the
	// render or changes the objects' structure.
	broken string
	// landings are where its sentinel showed in the probe render.
	landings []landing
	// list is the list a list probe replaces: the probe keeps its length.
	list []any
}

func (c *candidate) key() string { return fmt.Sprint(int(c.kind)) + "|" + strings.Join(c.path, "\x1f") }

// chartTreeNode is one chart of a loaded tree: its values key path from
// the root chart and the name Helm gives its templates.
type chartTreeNode struct {
	chart    *chartv2.Chart
	values   []string // nil for the root chart (and a library chart of it)
	fullPath string   // "umbrella/charts/backend"
	library  bool
	packaged bool // loaded from an archive in charts/
}

// loadedTree lists the charts of a loaded chart, each under every name
// (alias) the parent's Chart.yaml gives it. A library chart's templates
// read the values of the chart that includes them: its values path is its
// parent's.
func loadedTree(root *chartv2.Chart) []chartTreeNode {
	var out []chartTreeNode
	var walk func(c *chartv2.Chart, vals []string, fullPath string, packaged bool)
	walk = func(c *chartv2.Chart, vals []string, fullPath string, packaged bool) {
		lib := c.Metadata != nil && c.Metadata.Type == "library"
		out = append(out, chartTreeNode{chart: c, values: vals, fullPath: fullPath, library: lib, packaged: packaged})
		for _, d := range c.Dependencies() {
			pk := packaged || isArchived(c, d)
			var names []string
			if c.Metadata != nil {
				for _, req := range c.Metadata.Dependencies {
					if req != nil && req.Name == d.Name() {
						names = append(names, cmpOr(req.Alias, req.Name))
					}
				}
			}
			if len(names) == 0 {
				names = []string{d.Name()}
			}
			slices.Sort(names)
			for _, n := range slices.Compact(names) {
				sub := append(slices.Clone(vals), n)
				if d.Metadata != nil && d.Metadata.Type == "library" {
					sub = slices.Clone(vals)
				}
				walk(d, sub, path.Join(fullPath, "charts", n), pk)
			}
		}
	}
	walk(root, nil, root.Name(), false)
	return out
}

// isArchived reports whether parent holds sub as an archive in charts/.
func isArchived(parent, sub *chartv2.Chart) bool {
	for _, f := range parent.Raw {
		if strings.HasPrefix(f.Name, "charts/") && strings.Count(f.Name, "/") == 1 &&
			(strings.HasSuffix(f.Name, ".tgz") || strings.HasSuffix(f.Name, ".tar.gz")) &&
			strings.HasPrefix(path.Base(f.Name), sub.Name()+"-") {
			return true
		}
	}
	return false
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// rootPath turns a .Values path of a chart of the tree into one of the
// root chart's values: under the chart's values path, except global.
func rootPath(vals, p []string) []string {
	if len(p) > 0 && p[0] == "global" {
		return slices.Clone(p)
	}
	return append(slices.Clone(vals), p...)
}

// defaultValues are the values the chart's tree brings, in root
// coordinates: each subchart's values.yaml under its values path, the
// root's over them.
func defaultValues(tree []chartTreeNode) map[string]any {
	out := map[string]any{}
	for i := len(tree) - 1; i >= 0; i-- {
		n := tree[i]
		if n.library && n.values != nil {
			continue
		}
		for k, v := range n.chart.Values {
			dst := out
			p := rootPath(n.values, []string{k})
			for _, step := range p[:len(p)-1] {
				m, ok := dst[step].(map[string]any)
				if !ok {
					m = map[string]any{}
					dst[step] = m
				}
				dst = m
			}
			last := p[len(p)-1]
			if vm, ok := v.(map[string]any); ok {
				if dm, ok := dst[last].(map[string]any); ok {
					mergeValues(dm, vm)
					continue
				}
			}
			dst[last] = cloneValue(v)
		}
	}
	return out
}

// tplRefs is what the templates of a loaded chart read from values, in
// root coordinates: every path, and the paths each template reads itself
// or through the helpers it includes.
type tplRefs struct {
	all    map[string][]string
	byName map[string]map[string]bool // Helm's template name -> joined paths
}

// readRefs lists what the parsed templates of a tree read from values, in
// root coordinates: each file, itself and through the helpers it
// includes, in the values of its chart.
func readRefs(ix *tplIndex) *tplRefs {
	out := &tplRefs{all: map[string][]string{}, byName: map[string]map[string]bool{}}
	add := func(name string, vals []string, refs [][]string) {
		for _, r := range refs {
			p := rootPath(vals, r)
			k := strings.Join(p, "\x1f")
			out.all[k] = p
			if out.byName[name] == nil {
				out.byName[name] = map[string]bool{}
			}
			out.byName[name][k] = true
		}
	}
	for _, f := range ix.files {
		add(f.name, f.chart.values, nodeRefs(f.root.Root, dotCtx{root: true}))
		for _, d := range ix.reachable(f.root) {
			add(f.name, f.chart.values, nodeRefs(d.tree.Root, dotCtx{root: true}))
		}
	}
	return out
}

// probeTarget is one finding to fix, as the probes see it: its object in
// the baseline render, the field in index form, the value wanted.
type probeTarget struct {
	f     Finding
	obj   int   // index of the object in the baseline render
	field opath // the finding's field, list items by index
	value any   // the value wanted there
	cur   any   // the value there now; nil when absent
	has   bool  // the field is there now
	tail  int   // the steps of field after its last list item
	// mapKeys are the plain keys of the field after its last list item
	// (broad ones such as spec left out), scalarKey its last key when the
	// value wanted is a scalar: the names a new values key may have.
	mapKeys   []string
	scalarKey string
}

// candidateSet is the paths to probe for a set of targets, by class: map
// probes (which add entries) apart from scalar and list probes (which
// replace values and may change what renders).
type candidateSet struct {
	maps, scalars []*candidate
}

// candidates lists the paths to probe for the targets. vals are the
// values the chart renders with (defaults and the user's, merged); user
// the user's values alone (files and overrides); refs the templates'
// reads.
func candidates(targets []*probeTarget, vals map[string]any, refs *tplRefs) *candidateSet {
	mapKeys, scalarKeys := map[string]bool{}, map[string]probeKind{}
	var scalarVals, listVals []any
	for _, t := range targets {
		for _, k := range t.mapKeys {
			mapKeys[k] = true
		}
		if t.scalarKey != "" {
			scalarKeys[t.scalarKey] = scalarKind(t.value)
		}
		if t.has {
			if _, ok := t.cur.([]any); ok {
				listVals = append(listVals, t.cur)
			} else if !isCollection(t.cur) {
				scalarVals = append(scalarVals, t.cur)
			}
		}
	}
	cs := &candidateSet{}
	seen := map[string]bool{}
	add := func(list *[]*candidate, c *candidate) {
		if seen[c.key()] {
			return
		}
		seen[c.key()] = true
		c.read = refs.all[strings.Join(c.path, "\x1f")] != nil
		*list = append(*list, c)
	}
	// The maps the templates read, and those under them: new keys go there.
	readUnder := func(p []string) bool {
		for i := 0; i <= len(p); i++ {
			if refs.all[strings.Join(p[:i], "\x1f")] != nil {
				return true
			}
		}
		return false
	}
	var walk func(p []string, v any)
	walk = func(p []string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if len(p) > 0 {
				add(&cs.maps, &candidate{path: p, kind: probeMap, exists: true})
			}
			// New keys go under the maps the templates read, but not under
			// one named like a field (annotations, lifecycle): its own
			// probe already shows where its entries go; nor under a map of
			// maps (apps, services), where a new key is a new entry of the
			// collection, not a field; nor under a map of annotations or
			// labels (commonAnnotations), whose entries are not fields.
			if len(p) == 0 || readUnder(p) && !mapKeys[p[len(p)-1]] && !mapOfMaps(x) && !entriesMap.MatchString(p[len(p)-1]) {
				for _, k := range slices.Sorted(maps.Keys(mapKeys)) {
					if _, ok := x[k]; !ok {
						add(&cs.maps, &candidate{path: appendPath(p, k), kind: probeMap})
					}
				}
				for _, k := range slices.Sorted(maps.Keys(scalarKeys)) {
					if _, ok := x[k]; !ok {
						add(&cs.scalars, &candidate{path: appendPath(p, k), kind: scalarKeys[k]})
					}
				}
			}
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(appendPath(p, k), x[k])
			}
		case []any:
			if slices.ContainsFunc(listVals, func(l any) bool { return reflect.DeepEqual(looseList(l), looseList(x)) }) {
				add(&cs.scalars, &candidate{path: p, kind: probeList, exists: true, list: x})
			}
		case nil:
			add(&cs.maps, &candidate{path: p, kind: probeMap, exists: true})
			add(&cs.scalars, &candidate{path: p, kind: scalarKindFor(p, scalarKeys), exists: true})
		default:
			last := p[len(p)-1]
			_, named := scalarKeys[last]
			same := slices.ContainsFunc(scalarVals, func(s any) bool { return fmt.Sprint(s) == fmt.Sprint(x) })
			if _, isBool := x.(bool); isBool && !named {
				return // a switch: a sentinel there only changes what renders
			}
			if same || named {
				kind := probeString
				if isNumber(x) {
					kind = probeInt
				}
				add(&cs.scalars, &candidate{path: p, kind: kind, exists: true})
			}
		}
	}
	walk(nil, vals)
	// What the templates read that no values set.
	for _, k := range slices.Sorted(maps.Keys(refs.all)) {
		p := refs.all[k]
		if _, ok := lookupValue(vals, p); ok || len(p) == 0 || !underMaps(vals, p) {
			continue
		}
		if kind, ok := scalarKeys[p[len(p)-1]]; ok {
			add(&cs.scalars, &candidate{path: p, kind: kind})
		}
		add(&cs.maps, &candidate{path: p, kind: probeMap})
	}
	return cs
}

// entriesMap matches the names of maps of annotations or labels.
var entriesMap = regexp.MustCompile(`(?i)(annotations|labels)$`)

// mapOfMaps reports whether every entry of a (non-empty) map is a map.
func mapOfMaps(m map[string]any) bool {
	for _, v := range m {
		if _, ok := v.(map[string]any); !ok {
			return false
		}
	}
	return len(m) > 0
}

// underMaps reports whether every part of p that the values set is a
// map: a probe can add p without replacing a value.
func underMaps(vals map[string]any, p []string) bool {
	var cur any = vals
	for _, k := range p[:len(p)-1] {
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if cur, ok = m[k]; !ok || cur == nil {
			return true
		}
	}
	_, ok := cur.(map[string]any)
	return ok
}

func appendPath(p []string, k string) []string { return append(slices.Clone(p), k) }

// scalarKind is the probe that suits a wanted value: an int sentinel for a
// number, a string sentinel otherwise.
func scalarKind(v any) probeKind {
	if isNumber(v) {
		return probeInt
	}
	return probeString
}

// scalarKindFor is the probe of an empty leaf: as the field named like it
// wants, a string otherwise.
func scalarKindFor(p []string, scalarKeys map[string]probeKind) probeKind {
	if k, ok := scalarKeys[p[len(p)-1]]; ok {
		return k
	}
	return probeString
}

func isNumber(v any) bool {
	switch v.(type) {
	case int, int32, int64, float64, float32, uint, uint32, uint64:
		return true
	}
	return false
}

// looseList is a list with its items printed, so that 30 and "30" match.
func looseList(l any) []string {
	x, _ := l.([]any)
	out := make([]string, len(x))
	for i, e := range x {
		out[i] = fmt.Sprint(e)
	}
	return out
}
