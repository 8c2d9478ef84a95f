package helmgov

// This file decides, from the probes (probe.go), which values path carries
// a finding's fix: a path qualifies when its probe puts a value exactly at
// the finding's field (an entry of a map above the field, the field's
// scalar, the field's list) of the finding's object, and nowhere else but
// at the same field of objects with the same finding. Those paths are
// ordered (the user's file already sets it, the object's template reads
// it, the values set it, the deepest landing) and become the values plans
// of the finding; the template reader is only that ordering's hint.

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// provenance is what the probes of one round of fixes found.
type provenance struct {
	targets map[string]*probeTarget // by finding key
	cands   []*candidate
	refs    *tplRefs
	tree    []chartTreeNode
	user    map[string]any // the user's values files, merged
	base    *Rendered
	// later are the candidates not probed yet (see probeRound); start is
	// the scratch copy as the round found it, where they are probed.
	later *candidateSet
	start map[string]fileState
	// engine and baseDocs are the probers' check of Helm's engine
	// against the round's baseline (prober.useEngine), made once.
	engine   int
	baseDocs map[docKey]baseDoc
}

// maxValuesRoutes bounds the values paths tried for one finding.
const maxValuesRoutes = 3

// smallProbeSet is the number of candidates up to which a round probes
// them all at once, in one tier and one phase: a few renders, whatever
// breaks.
const smallProbeSet = 64

// probeRound probes the chart for the fixes of findings, in one go: the
// chart as the scratch copy holds it, and its render st.r.
//
// The candidates are probed in two tiers (when there are more than
// smallProbeSet; else all at once). The first holds the paths that
// can rank first for a finding (see routes): those under a key the user's
// files set, and those a finding's template reads. A finding whose best
// path is one of them, set by the user's files or read by its template,
// ranks above every path of the second tier, which is then probed only
// when a finding has no such path, or when the best one does not hold
// (complete).
func (fx *fixer) probeRound(ctx context.Context, st *fixState, findings []Finding) error {
	pv := &provenance{targets: map[string]*probeTarget{}, base: st.r}
	fx.prov = pv
	var targets []*probeTarget
	for _, f := range findings {
		if f.Fix == nil || f.Fix.Op != OpSet || f.Suppressed || (fx.rules != nil && !fx.rules[f.Rule]) {
			continue
		}
		if t := newProbeTarget(st.r, f); t != nil {
			pv.targets[findingKey(f)] = t
			targets = append(targets, t)
		}
	}
	if len(targets) == 0 {
		return nil
	}
	c, err := fx.rd.load(fx.gen)
	if err != nil {
		return err
	}
	pv.tree = loadedTree(c)
	pv.refs = readRefs(fx.index())
	vals := defaultValues(pv.tree)
	user, err := fx.rd.cfg.userValues()
	if err != nil {
		return err
	}
	mergeValues(vals, user)
	pv.user = map[string]any{}
	for _, u := range fx.user {
		mergeValues(pv.user, readValues(u.scratch))
	}
	cs := candidates(targets, vals, pv.refs)
	first, later := cs, &candidateSet{}
	if len(cs.maps)+len(cs.scalars) > smallProbeSet {
		first, later = pv.tiers(cs, targets)
	}
	if err := fx.probe(ctx, first); err != nil {
		return err
	}
	pv.later = later
	if slices.ContainsFunc(targets, func(t *probeTarget) bool { return !pv.settled(t) }) {
		return fx.completeProbes(ctx)
	}
	pv.start = fx.snapshot()
	return nil
}

// probe probes a set of candidates of the round, maps apart from
// scalars, against the round's baseline render.
func (fx *fixer) probe(ctx context.Context, cs *candidateSet) error {
	pv := fx.prov
	for _, class := range [][]*candidate{cs.maps, cs.scalars} {
		if len(class) == 0 {
			continue
		}
		renders := fx.rd.renders
		pr := newProber(fx.rd, fx.gen, pv.base)
		pr.tree, pr.refs, pr.prior = pv.tree, pv.refs, pv.cands
		pr.onePhase = len(cs.maps)+len(cs.scalars) <= smallProbeSet
		pr.engine, pr.baseDocs = pv.engine, pv.baseDocs
		if err := pr.run(ctx, class); err != nil {
			return err
		}
		pv.engine, pv.baseDocs = pr.engine, pr.baseDocs
		broken := 0
		for _, c := range class {
			if c.broken != "" {
				broken++
			}
		}
		fx.c.opts.Logger.V(1).Info("probed", "chart", fx.dir, "candidates", len(class), "broken", broken, "renders", fx.rd.renders-renders,
			"engineOnly", pr.engine > 0)
		pv.cands = append(pv.cands, class...)
	}
	return nil
}

// tiers splits the candidates: first those that can rank first for a
// target (under a key the user's files set, or read by a target's
// template), then the others.
func (pv *provenance) tiers(cs *candidateSet, targets []*probeTarget) (first, later *candidateSet) {
	first, later = &candidateSet{}, &candidateSet{}
	hinted := func(c *candidate) bool {
		if setDepth(pv.user, c.path) > 0 {
			return true
		}
		k := strings.Join(c.path, "\x1f")
		return slices.ContainsFunc(targets, func(t *probeTarget) bool { return pv.refs.byName[t.f.Source.Template][k] })
	}
	for _, c := range cs.maps {
		if hinted(c) {
			first.maps = append(first.maps, c)
		} else {
			later.maps = append(later.maps, c)
		}
	}
	for _, c := range cs.scalars {
		if hinted(c) {
			first.scalars = append(first.scalars, c)
		} else {
			later.scalars = append(later.scalars, c)
		}
	}
	return first, later
}

// settled reports whether t's best route is known without the second
// tier: its path is set by the user's files or read by t's template, so
// that no path of the second tier can rank above it.
func (pv *provenance) settled(t *probeTarget) bool {
	rs := pv.ranked(t)
	return len(rs) > 0 && (rs[0].score[0] > 0 || rs[0].score[1] > 0)
}

// partial reports whether candidates of the round are not probed yet.
func (pv *provenance) partial() bool {
	return pv != nil && pv.later != nil && (len(pv.later.maps) > 0 || len(pv.later.scalars) > 0)
}

// completeProbes probes the second tier of the round's candidates, on
// the scratch copy as the round found it; the fixes made since stay.
func (fx *fixer) completeProbes(ctx context.Context) error {
	pv := fx.prov
	later := pv.later
	pv.later = nil
	if pv.start == nil {
		return fx.probe(ctx, later)
	}
	return fx.atState(pv.start, func() error { return fx.probe(ctx, later) })
}

// target returns the probed target of a finding; nil when it was not
// probed.
func (pv *provenance) target(f Finding) *probeTarget {
	if pv == nil {
		return nil
	}
	return pv.targets[findingKey(f)]
}

// newProbeTarget reads a finding's object and field in the render; nil
// when the object or a list item of the field is not there.
func newProbeTarget(r *Rendered, f Finding) *probeTarget {
	obj := -1
	for i := range r.Objects {
		o := &r.Objects[i]
		if o.Source.Template == f.Source.Template && o.Source.Doc == f.Source.Doc && o.Kind == f.Object.Kind && o.Name == f.Object.Name {
			obj = i
		}
	}
	if obj < 0 {
		return nil
	}
	field, ok := indexPath(r.Objects[obj].Fields, f.Fix.Path)
	if !ok {
		return nil
	}
	t := &probeTarget{f: f, obj: obj, field: field, value: f.Fix.Value}
	t.cur, t.has = valueAtOpath(r.Objects[obj].Fields, field)
	t.tail = len(field)
	for i, s := range field {
		if s.idx >= 0 {
			t.tail = len(field) - i - 1
		}
	}
	for i, s := range f.Fix.Path[len(field)-t.tail:] {
		if !plainKey.MatchString(s.Key) || broadKeys[s.Key] {
			continue
		}
		if i == t.tail-1 && !isCollection(t.value) {
			t.scalarKey = s.Key
		} else {
			t.mapKeys = append(t.mapKeys, s.Key)
		}
	}
	return t
}

// valueAtOpath returns the value at p, and whether it is there.
func valueAtOpath(v any, p opath) (any, bool) {
	for _, s := range p {
		if s.idx >= 0 {
			l, ok := v.([]any)
			if !ok || s.idx >= len(l) {
				return nil, false
			}
			v = l[s.idx]
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[s.key]; !ok {
			return nil, false
		}
	}
	return v, true
}

// valuesRoute is a values path that carries a finding's fix.
type valuesRoute struct {
	cand  *candidate
	sets  []valueSet // what the fix writes, in root coordinates
	depth int        // the landing's depth in the object
	twins []*probeTarget
	score []int // its rank (see ranked), highest first
}

// setsFor says what to write at the candidate's path so that the field
// of t gets its value, from the candidate's landings on t's object alone;
// ok is false when they do not put a value exactly there.
func setsFor(c *candidate, t *probeTarget, ls []landing) (sets []valueSet, depth int, ok bool) {
	if len(ls) != 1 {
		return nil, 0, false
	}
	l := ls[0]
	switch {
	case l.how == landKey && len(l.path) < len(t.field) && t.field.hasPrefix(l.path) && len(l.path) >= len(t.field)-t.tail:
		var rest []string
		for _, s := range t.field[len(l.path):] {
			rest = append(rest, s.key)
		}
		return []valueSet{{path: append(slices.Clone(c.path), rest...), value: t.value}}, len(l.path), true
	case l.how == landKey && slices.Equal(l.path, t.field):
		m, isMap := t.value.(map[string]any)
		if !isMap {
			return nil, 0, false
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			sets = append(sets, valueSet{path: appendPath(c.path, k), value: m[k]})
		}
		return sets, len(l.path), len(sets) > 0
	case l.how == landExact && slices.Equal(l.path, t.field) && !isCollection(t.value):
		return []valueSet{{path: slices.Clone(c.path), value: t.value}}, len(l.path), true
	case l.how == landList && slices.Equal(l.path, t.field):
		if _, isList := t.value.([]any); isList {
			return []valueSet{{path: slices.Clone(c.path), value: t.value}}, len(l.path), true
		}
	}
	return nil, 0, false
}

// routes lists the values paths that carry t's fix, best first, and, when
// there is none, why.
func (pv *provenance) routes(t *probeTarget) ([]valuesRoute, string) {
	out := pv.ranked(t)
	if len(out) > maxValuesRoutes {
		out = out[:maxValuesRoutes]
	}
	if len(out) > 0 {
		return out, ""
	}
	return nil, pv.noRoute(t)
}

// ranked lists every values path probed that carries t's fix, best first:
// the user's files set more of it, t's template reads it, the values set
// it, its landing is deeper, its path shorter.
func (pv *provenance) ranked(t *probeTarget) []valuesRoute {
	var out []valuesRoute
	for _, c := range pv.cands {
		if c.broken != "" || len(c.landings) == 0 {
			continue
		}
		byObj := map[int][]landing{}
		for _, l := range c.landings {
			byObj[l.obj] = append(byObj[l.obj], l)
		}
		sets, depth, ok := setsFor(c, t, byObj[t.obj])
		if !ok {
			continue
		}
		r := valuesRoute{cand: c, sets: sets, depth: depth}
		for obj, ls := range byObj {
			if obj == t.obj {
				continue
			}
			twin := pv.twin(t, obj)
			if twin == nil {
				ok = false
				break
			}
			ts, _, tok := setsFor(c, twin, ls)
			if !tok || !reflect.DeepEqual(ts, sets) {
				ok = false
				break
			}
			r.twins = append(r.twins, twin)
		}
		if ok {
			out = append(out, r)
		}
	}
	tpl := t.f.Source.Template
	for i := range out {
		r := &out[i]
		read := 0
		if pv.refs.byName[tpl][strings.Join(r.cand.path, "\x1f")] {
			read = 1
		}
		exists := 0
		if r.cand.exists {
			exists = 1
		}
		r.score = []int{setDepth(pv.user, r.sets[0].path), read, exists, r.depth, -len(r.sets[0].path)}
	}
	slices.SortStableFunc(out, func(a, b valuesRoute) int { return -slices.Compare(a.score, b.score) })
	// The same write, from two probes (a map and its entry), is one route.
	seen := map[string]bool{}
	return slices.DeleteFunc(out, func(r valuesRoute) bool {
		k := fmt.Sprint(r.sets)
		if seen[k] {
			return true
		}
		seen[k] = true
		return false
	})
}

// twin is the target on object obj with the same rule and change as t:
// one values path may fix both.
func (pv *provenance) twin(t *probeTarget, obj int) *probeTarget {
	for _, u := range pv.targets {
		if u.obj == obj && u.f.Rule == t.f.Rule && u.f.Fix.Path.String() == t.f.Fix.Path.String() && reflect.DeepEqual(u.value, t.value) {
			return u
		}
	}
	return nil
}

// noRoute says why no values path carries t's fix: the paths whose probe
// reached the field, and what else they changed.
func (pv *provenance) noRoute(t *probeTarget) string {
	o := pv.base.Objects[t.obj]
	var near []string
	for _, c := range pv.cands {
		for _, l := range c.landings {
			if l.obj == t.obj && (t.field.hasPrefix(l.path) || l.path.hasPrefix(t.field)) {
				near = append(near, ".Values."+strings.Join(c.path, "."))
				break
			}
		}
	}
	slices.Sort(near)
	near = slices.Compact(near)
	why := fmt.Sprintf("no value of the chart sets %s of %s %s alone", t.f.Fix.Path, o.Kind, o.Name)
	if len(near) > 0 {
		if len(near) > 3 {
			near = append(near[:3], "...")
		}
		why += fmt.Sprintf(" (%s reach it, but change more than that field)", strings.Join(near, ", "))
	}
	return why
}

// describe says, for a report, what the probe of a route showed.
func (r valuesRoute) describe(t *probeTarget, base *Rendered) string {
	o := base.Objects[t.obj]
	at := t.f.Fix.Path[:r.depth]
	what := fmt.Sprintf("the renderer puts .Values.%s at %s of %s %s", strings.Join(r.cand.path, "."), at, o.Kind, o.Name)
	if len(r.twins) > 0 {
		var tw []string
		for _, u := range r.twins {
			ob := base.Objects[u.obj]
			tw = append(tw, ob.Kind+" "+ob.Name)
		}
		slices.Sort(tw)
		what += " (and of " + strings.Join(tw, ", ") + ", which have the same finding)"
	}
	switch {
	case !r.cand.exists && r.cand.read:
		what += ", which the templates read and no values set yet"
	case !r.cand.exists:
		what += ", a key no values set yet"
	}
	return what
}

// confirmer asks the probes whether a values path (root coordinates), or
// one under it, writes the part of t's object that holds the field but its
// last rest keys: a landing there, or above it. It says what the renderer
// showed. The template reader's binding of a field to values is followed
// only when the renderer confirms it.
func (pv *provenance) confirmer(t *probeTarget) func(root []string, rest int) (string, bool) {
	return func(root []string, rest int) (string, bool) {
		m := t.field[:max(0, len(t.field)-rest)]
		for _, c := range pv.cands {
			if len(c.path) < len(root) || !slices.Equal(c.path[:len(root)], root) {
				continue
			}
			for _, l := range c.landings {
				if l.obj == t.obj && (l.path.hasPrefix(m) || m.hasPrefix(l.path)) {
					o := pv.base.Objects[t.obj]
					return fmt.Sprintf("the renderer puts .Values.%s at %s of %s %s", strings.Join(c.path, "."), fieldPathOf(o.Fields, l.path), o.Kind, o.Name), true
				}
			}
		}
		return "", false
	}
}

// fieldPathOf words a path of an object: list items by name where they
// have one, else by index.
func fieldPathOf(obj map[string]any, p opath) string {
	var b strings.Builder
	var cur any = obj
	for _, s := range p {
		if s.idx < 0 {
			if b.Len() > 0 {
				b.WriteString(".")
			}
			b.WriteString(s.key)
			m, _ := cur.(map[string]any)
			cur = m[s.key]
			continue
		}
		l, _ := cur.([]any)
		cur = nil
		if s.idx < len(l) {
			cur = l[s.idx]
		}
		if m, ok := cur.(map[string]any); ok {
			if n, ok := m["name"].(string); ok && n != "" {
				fmt.Fprintf(&b, "[name=%s]", n)
				continue
			}
		}
		fmt.Fprintf(&b, "[%d]", s.idx)
	}
	if b.Len() == 0 {
		return "the object's top"
	}
	return b.String()
}

// brokenRoutes are the values paths whose probe broke the render (a
// `fail`, a `required`, a type the template cannot take) but that the
// template reads for the field: the reader's binding (bound, with the
// keys below it), or a path the object's template or its helpers read
// whose last key is a key of the field. The probes cannot tell where they
// land; the proof of the fix decides, and a render error drops the fix
// with the chart's own message.
func (pv *provenance) brokenRoutes(t *probeTarget, bound []string) []valuesRoute {
	var out []valuesRoute
	fieldKeys := map[string]bool{}
	for _, k := range append(slices.Clone(t.mapKeys), t.scalarKey) {
		fieldKeys[k] = true
	}
	for _, c := range pv.cands {
		if c.broken == "" {
			continue
		}
		var rest []string
		switch {
		case bound != nil && len(bound) >= len(c.path) && slices.Equal(bound[:len(c.path)], c.path) && c.kind == probeMap:
			rest = bound[len(c.path):]
		case pv.refs.byName[t.f.Source.Template][strings.Join(c.path, "\x1f")] && fieldKeys[c.path[len(c.path)-1]]:
			i := slices.IndexFunc(t.f.Fix.Path, func(s PathStep) bool { return s.Key == c.path[len(c.path)-1] })
			if c.kind == probeMap {
				rest = keys(t.f.Fix.Path[i+1:])
			}
		default:
			continue
		}
		out = append(out, valuesRoute{cand: c, sets: []valueSet{{path: append(slices.Clone(c.path), rest...), value: t.value}}})
	}
	if len(out) > maxValuesRoutes {
		out = out[:maxValuesRoutes]
	}
	return out
}
