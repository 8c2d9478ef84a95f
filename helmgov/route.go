package helmgov

// This file decides where a fix goes. For each finding it lists the
// plans, one per file that could carry the fix, in the order of the
// routes: the user's values file, the chart's values.yaml (at the values
// paths the probes found, provenance.go), the template.
// Fix tries them in that order and keeps the first that holds. It also
// holds the routes themselves: [FixRoute] and [ParseFixRoute].

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// fixPlan is one way to write a finding's fix: by which route, into which
// file, and why.
type fixPlan struct {
	route FixRoute
	how   FixHow
	file  string // as reports name it
	why   string
	write func() error
	// after, when set, sees the render of the plan when it did not hold.
	after func(r *Rendered)
	// check, when set, is one more proof the re-render must pass.
	check func(r *Rendered) error
	// sets are the values the plan writes, when it writes values.
	sets []valueSet
	// twins are findings on other objects that the same write fixes:
	// their fields may change too.
	twins []Finding
}

// label names the plan in reasons: "values.yaml [chart-values]".
func (p *fixPlan) label() string { return p.file + " [" + string(p.route) + "]" }

// key tells plans apart: the file, the route and what it writes.
func (p *fixPlan) key() string { return p.label() + fmt.Sprint(p.sets) }

// safeWrite runs the plan's write. A failure of the editor on an odd
// source makes the plan unfixable rather than taking the whole fix down.
func (fx *fixer) safeWrite(p *fixPlan) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = unfixablef("the source editor failed on %s: %v", p.file, r)
		}
	}()
	return p.write()
}

// fixSite is a finding with the object, chart and template it comes from.
type fixSite struct {
	f       Finding
	obj     *Object
	info    chartInfo // the chart whose templates/ renders the object
	tplPath string    // the template on disk, in the scratch copy; empty for a packaged subchart
	st      *fixState
}

// plans lists the ways to fix f, on the routes Fix may take, in their
// order.
func (fx *fixer) plans(f Finding, st *fixState) (plans []fixPlan, err error) {
	defer func() {
		if r := recover(); r != nil {
			plans, err = nil, unfixablef("the source editor failed on %s: %v", f.Source.Template, r)
		}
	}()
	obj := findObject(st.r.Objects, f)
	if obj == nil {
		return nil, unfixablef("the object is not in the rendered chart")
	}
	if isHook(obj) {
		return nil, unfixablef("%s %s is a Helm hook (%s: %s), which helmgov never edits", obj.Kind, obj.Name, hookAnnotation, obj.Annotations()[hookAnnotation])
	}
	site := &fixSite{f: f, obj: obj, st: st}
	if info, rel, ok := st.r.chartOf(obj.Source.Template); ok && info.dir != "" {
		site.info, site.tplPath = info, filepath.Join(info.dir, filepath.FromSlash(rel))
	} else if info, ok := fx.chartOf(obj.Source.Template); ok {
		site.info = info // a packaged subchart: its values only
	}
	var all []fixPlan
	switch {
	case f.Fix.Op == OpAddPDB:
		all, err = fx.pdbPlans(site)
	default:
		all, err = fx.setPlans(site)
	}
	if err != nil {
		return nil, err
	}
	for _, r := range fx.routes {
		for _, p := range all {
			if p.route == r {
				plans = append(plans, p)
			}
		}
	}
	if len(plans) == 0 {
		var by []string
		for _, p := range all {
			by = append(by, p.label())
		}
		slices.Sort(by)
		return nil, unfixablef("the fix could go only into %s, a route the options leave out", strings.Join(slices.Compact(by), ", "))
	}
	return plans, nil
}

// packagedWhy says that an object comes from a packaged subchart, whose
// templates helmgov never edits.
func packagedWhy(obj *Object) string {
	name := obj.Source.Template
	if i := strings.LastIndex(name, "/charts/"); i >= 0 {
		name, _, _ = strings.Cut(name[i+len("/charts/"):], "/")
	}
	return fmt.Sprintf("%s %s comes from the packaged subchart %s (an archive in charts/), whose templates helmgov never edits", obj.Kind, obj.Name, name)
}

// setPlans lists the plans of a set. The values paths the probes found
// come first, in the user's values file and the chart's values.yaml;
// only when no values path can carry the field is the template edited
// (never a packaged subchart's).
func (fx *fixer) setPlans(s *fixSite) ([]fixPlan, error) {
	f := s.f
	none := fmt.Sprintf("the field %s is not in the rendered %s %s", f.Fix.Path, s.obj.Kind, s.obj.Name)
	t := fx.prov.target(f)
	if t != nil {
		routes, why := fx.prov.routes(t)
		if len(routes) > 0 {
			var plans []fixPlan
			for _, r := range routes {
				plans = append(plans, fx.probedPlans(t, r, r.describe(t, fx.prov.base))...)
			}
			return plans, nil
		}
		none = why
	}
	// No values path qualifies. Read the template: the key it spells
	// out, or the value it reads.
	var tf *srcFile
	var sr setResult
	var docRoot *yaml.Node
	tplRel := ""
	err := unfixablef("%s", packagedWhy(s.obj))
	if s.tplPath != "" {
		data, rerr := os.ReadFile(s.tplPath)
		if rerr != nil {
			return nil, fmt.Errorf("read %s: %w", s.tplPath, rerr)
		}
		tplRel = fx.display(s.tplPath)
		if tf, err = parseSource(tplRel, data, true); err == nil {
			if t != nil {
				tf.confirm, tf.vals = fx.prov.confirmer(t), s.info.values
			}
			var doc int
			if doc, err = tf.findDoc(s.obj.Kind, s.obj.Name); err == nil {
				docRoot = tf.root(doc)
				sr, err = tf.set(docRoot, f.Fix.Path, f.Fix.Value, s.obj.Fields)
			}
		}
		if err != nil && !errors.Is(err, errUnfixable) {
			return nil, err
		}
	}
	if t != nil {
		var bound []string
		if err == nil && sr.edit == nil {
			bound = append(slices.Clone(rootValuesPath(s.info, sr.values)), sr.rest...)
		}
		if routes := fx.prov.brokenRoutes(t, bound); len(routes) > 0 {
			var plans []fixPlan
			for _, r := range routes {
				why := fmt.Sprintf("the template reads .Values.%s for it, though a probe there breaks the render (%s)", strings.Join(r.cand.path, "."), r.cand.broken)
				plans = append(plans, fx.probedPlans(t, r, why)...)
			}
			return plans, nil
		}
	}
	if docRoot != nil && (err != nil || sr.edit == nil) {
		// A helper the template includes may write the field.
		he, herr := fx.helperFor(tf, docRoot, f.Fix.Path, f.Fix.Value, s.obj.Fields, 0)
		switch {
		case herr != nil && !errors.Is(herr, errUnfixable):
			return nil, herr
		case herr != nil:
			err = herr
		case he != nil:
			why := fmt.Sprintf("%s, so it goes into %s, which %s includes for it, the last resort", none, he.where, tplRel)
			return []fixPlan{{route: RouteTemplate, how: FixTemplate, file: fx.display(he.path), why: why,
				write: func() error { return fx.writeFile(he.path, he.data) }}}, nil
		}
	}
	switch {
	case s.tplPath == "":
		return nil, unfixablef("%s, and %s", none, packagedWhy(s.obj))
	case err != nil:
		return nil, unfixablef("%s, and %s cannot take it: %s", none, tplRel, strings.TrimPrefix(err.Error(), errUnfixable.Error()+": "))
	case sr.edit == nil && sr.shown != "":
		return nil, unfixablef("%s, and %s, from where %s renders it, so helmgov does not write it into the template", none, sr.shown, tplRel)
	case sr.edit == nil:
		return nil, unfixablef("%s, and %s takes %s from .Values.%s, so helmgov does not write it into the template", none, tplRel, f.Fix.Path, strings.Join(sr.values, "."))
	}
	edit := *sr.edit
	why := tplRel + " writes " + f.Fix.Path.String() + " itself"
	if sr.appended {
		why = fmt.Sprintf("%s, so it goes into %s, the last resort", none, tplRel)
	}
	return []fixPlan{{route: RouteTemplate, how: FixTemplate, file: tplRel, why: why,
		write: func() error { return fx.writeFile(s.tplPath, tf.apply(edit)) }}}, nil
}

// probedPlans are the plans that write a values route the probes found:
// into the user's values file and into the chart's values.yaml.
func (fx *fixer) probedPlans(t *probeTarget, r valuesRoute, why string) []fixPlan {
	var twins []Finding
	for _, u := range r.twins {
		twins = append(twins, u.f)
	}
	plans := fx.valuesSetPlans(chartInfo{}, r.sets, why)
	for i := range plans {
		plans[i].sets, plans[i].twins = r.sets, twins
	}
	return plans
}

// broadKeys are keys too general for a value of the same name to be the
// field's own: .Values.spec is not a pod's spec.
var broadKeys = map[string]bool{"spec": true, "metadata": true, "template": true, "containers": true}

// valueSet is a key path of the root chart's values and the value it gets.
type valueSet struct {
	path  []string
	value any
}

// valuesSetPlans are the plans that write the sets into the user's values
// file and into the chart's values.yaml.
func (fx *fixer) valuesSetPlans(info chartInfo, sets []valueSet, why string) []fixPlan {
	write := func(file string) func() error {
		return func() error {
			for _, s := range sets {
				if err := fx.setValue(file, s.path, s.value); err != nil {
					return err
				}
			}
			return nil
		}
	}
	var out []fixPlan
	if len(fx.user) > 0 {
		u, which := fx.pickUserValues(sets[0].path)
		out = append(out, fixPlan{route: RouteUserValues, how: FixValues, file: u.display, why: why + "; " + which, write: write(u.scratch)})
	}
	cwhy := why
	if len(fx.user) == 0 {
		cwhy += "; no values file was given"
	}
	if len(info.values) > 0 && (len(sets[0].path) == 0 || sets[0].path[0] != "global") {
		cwhy += fmt.Sprintf("; the root chart's values reach the subchart under %s", strings.Join(info.values, "."))
	}
	out = append(out, fixPlan{route: RouteChartValues, how: FixValues, file: "values.yaml", why: cwhy,
		write: write(filepath.Join(fx.work, "values.yaml"))})
	return out
}

// rootValuesPath turns a .Values path of a chart of the tree into a path
// of the root chart's values: under the subchart's name, except global.
func rootValuesPath(info chartInfo, p []string) []string {
	if len(p) > 0 && p[0] == "global" {
		return slices.Clone(p)
	}
	return append(slices.Clone(info.values), p...)
}

// pickUserValues chooses the user's values file for a key: the one that
// already sets the longest part of its path, the last one given among
// equals; and says why.
func (fx *fixer) pickUserValues(path []string) (*userValues, string) {
	if fx.into != nil {
		return fx.into, fx.into.display + " is the file named for the fixes"
	}
	best, depth := fx.user[len(fx.user)-1], 0
	for _, u := range fx.user {
		if d := setDepth(readValues(u.scratch), path); d > 0 && d >= depth {
			best, depth = u, d
		}
	}
	switch {
	case depth == len(path):
		return best, best.display + " already sets " + FieldPath(keyPath(path)).String()
	case depth > 0:
		return best, best.display + " already sets " + FieldPath(keyPath(path[:depth])).String()
	case len(fx.user) == 1:
		return best, best.display + " is the values file given"
	}
	return best, best.display + " is the last values file given"
}

// readValues reads a values file as plain data; nil when it cannot.
func readValues(p string) map[string]any {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	var m map[string]any
	if yaml.Unmarshal(data, &m) != nil {
		return nil
	}
	return m
}

// setDepth is how many keys of path, from the first, the values set.
func setDepth(m map[string]any, path []string) int {
	var cur any = m
	for i, k := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return i
		}
		if cur, ok = mm[k]; !ok {
			return i
		}
	}
	return len(path)
}

// lookupValue returns the value at path, and whether the values set it.
func lookupValue(m map[string]any, path []string) (any, bool) {
	var cur any = m
	for _, k := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = mm[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// valueAt is the value a chart of the tree sees at a .Values path, as far
// as the values files tell: the user's files (the last first), the root
// chart's values.yaml, then the subchart's own.
func (fx *fixer) valueAt(info chartInfo, p []string) (any, bool) {
	full := rootValuesPath(info, p)
	for i := len(fx.user) - 1; i >= 0; i-- {
		if v, ok := lookupValue(readValues(fx.user[i].scratch), full); ok {
			return v, true
		}
	}
	if v, ok := lookupValue(readValues(filepath.Join(fx.work, "values.yaml")), full); ok {
		return v, true
	}
	if len(info.values) > 0 && (len(p) == 0 || p[0] != "global") {
		return lookupValue(fx.chartValues(info), p)
	}
	return nil, false
}

// chartValues are the defaults of a chart of the tree (its values.yaml),
// packaged or not; the root chart's as the scratch copy holds them.
func (fx *fixer) chartValues(info chartInfo) map[string]any {
	if len(info.values) == 0 {
		return readValues(filepath.Join(fx.work, "values.yaml"))
	}
	if n := fx.chartNode(info.fullPath); n != nil {
		return n.chart.Values
	}
	return nil
}

// FixRoute is where a fix is written. [Checker.Fix] tries the routes in
// this order, and for each finding takes the first that holds:
//
//   - [RouteUserValues]: the user's values file, when values files are
//     given ([WithValuesFiles]): the last one, or the one that already
//     sets the key. It survives an upgrade of the chart.
//   - [RouteChartValues]: the chart's values.yaml, at a values path the
//     renderer's probes show carries the field, or the chart's own switch
//     for it (a PodDisruptionBudget's pdb.enabled).
//   - [RouteTemplate]: the template itself, or a new template for a
//     PodDisruptionBudget: the last resort, when no values path carries
//     the field; never a packaged subchart's.
type FixRoute string

// The routes, in the order Fix tries them.
const (
	// RouteUserValues: a key of the user's values file.
	RouteUserValues FixRoute = "user-values"
	// RouteChartValues: a key of the root chart's values.yaml.
	RouteChartValues FixRoute = "chart-values"
	// RouteTemplate: a template of the chart, or a new one.
	RouteTemplate FixRoute = "template"
)

var defaultRoutes = []FixRoute{RouteUserValues, RouteChartValues, RouteTemplate}

// ParseFixRoute parses a route by its name, or by the CLI's short name:
// "values" (user-values), "chart" (chart-values), "templates" (template).
func ParseFixRoute(s string) (FixRoute, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "values", string(RouteUserValues):
		return RouteUserValues, nil
	case "chart", string(RouteChartValues):
		return RouteChartValues, nil
	case "templates", string(RouteTemplate):
		return RouteTemplate, nil
	}
	return "", usagef("parse fix route %q: want values, chart or templates", s)
}
