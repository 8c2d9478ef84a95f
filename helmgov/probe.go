package helmgov

// This file holds the probes: where a values path shows in the rendered
// objects, found by rendering. Each candidate path (candidates.go) gets a
// sentinel of its own (a map entry whose key is the sentinel, a string or
// an int sentinel, or a list of one), many at once in one render; the
// sentinels found in the objects say which path feeds which field. A
// render that fails, or whose objects lost a field or changed in number,
// is searched for the probes that cause it, down to single probes
// (probetrouble.go): a probe that alone breaks the render (a type change,
// a `required`, a `fail`) or the objects' shape is marked broken.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// ostep is one step of a path in a rendered object: a map key, or a list
// index (idx >= 0).
type ostep struct {
	key string
	idx int
}

// opath is a path in a rendered object.
type opath []ostep

// String encodes the path, for keys of maps and for equality.
func (p opath) String() string {
	var b strings.Builder
	for _, s := range p {
		if s.idx >= 0 {
			b.WriteString("\x1e" + strconv.Itoa(s.idx))
		} else {
			b.WriteString("\x1f" + s.key)
		}
	}
	return b.String()
}

// hasPrefix reports whether q is a prefix of p.
func (p opath) hasPrefix(q opath) bool {
	return len(q) <= len(p) && slices.Equal(p[:len(q)], q)
}

func (p opath) with(s ostep) opath { return append(slices.Clone(p), s) }

// indexPath turns a field path (list items by name) into an opath on the
// object: the index of each named item. ok is false when an item is not
// there; the path then stops before it.
func indexPath(obj map[string]any, fp FieldPath) (opath, bool) {
	var out opath
	var cur any = obj
	for _, s := range fp {
		if s.Item != "" {
			list, _ := cur.([]any)
			i := slices.IndexFunc(list, func(e any) bool {
				m, ok := e.(map[string]any)
				return ok && m["name"] == s.Item
			})
			if i < 0 {
				return out, false
			}
			out, cur = append(out, ostep{idx: i}), list[i]
			continue
		}
		out = append(out, ostep{key: s.Key, idx: -1})
		m, _ := cur.(map[string]any)
		cur = m[s.Key]
	}
	return out, true
}

// landHow is how a sentinel showed.
type landHow int

const (
	// landKey: an entry of the map at the path has the sentinel as key.
	landKey landHow = iota
	// landExact: the value at the path is the sentinel.
	landExact
	// landList: the list at the path is the probe's: the sentinel first.
	landList
	// landPartial: the sentinel is part of a key or a string at the path.
	landPartial
)

// landing is where a sentinel showed: in the object of the baseline
// render with that index (-1: an object the baseline does not have).
type landing struct {
	obj  int
	path opath
	how  landHow
}

// sentinelIntBase is the first int sentinel: six digits, which Helm
// prints as written (larger floats print in exponent form).
const sentinelIntBase = 610000

func sentinelString(id int) string { return "zqhg" + strconv.Itoa(id) + "q" }

var (
	sentinelStr = regexp.MustCompile(`zqhg(\d+)q`)
	digitRun    = regexp.MustCompile(`\d+`)
)

// prober renders probes against a baseline render.
type prober struct {
	rd   *renderer
	gen  int
	base *Rendered
	// groups are the baseline's objects by template and kind, in order.
	groups map[string][]int
	// cands are the candidates of the current run, by sentinel id.
	cands []*candidate
	// tree and refs, when set, tell which probes a trouble points at.
	tree []chartTreeNode
	refs *tplRefs
	// prior are the candidates probed before, in the same round.
	prior []*candidate
	// onePhase: new keys under a map are probed with the others.
	onePhase bool
	// engine: 0 until tried, 1 when probes render by Helm's engine alone
	// (its render of the baseline is the install action's), -1 when they
	// render by the install action. baseDocs are the baseline's
	// documents, by template and index: their text and object.
	engine   int
	baseDocs map[docKey]baseDoc
}

// docKey is a template's k-th document.
type docKey struct {
	tpl string
	k   int
}

// baseDoc is a document of the baseline and the index of its object.
type baseDoc struct {
	text string
	obj  int
}

// useEngine reports whether probes render by Helm's engine alone: once,
// it renders the baseline that way and compares it with the install
// action's, object by object: the same objects, with the same fields (a
// value may differ: a chart may render a random salt or a time).
func (pr *prober) useEngine(ctx context.Context) bool {
	if pr.engine != 0 {
		return pr.engine > 0
	}
	pr.engine = -1
	r, _, src, err := pr.rd.renderEngine(ctx, pr.gen, map[string]any{}, func(string, int, string) *Object { return nil })
	if err != nil || len(r.Objects) != len(pr.base.Objects) {
		return false
	}
	match, tr := pr.match(r, nil)
	if tr != nil {
		return false
	}
	docs := map[docKey]baseDoc{}
	for i, bi := range match {
		if bi < 0 {
			return false
		}
		if _, ok := missingPath(r.Objects[i].Fields, pr.base.Objects[bi].Fields); !ok {
			return false
		}
		docs[docKey{src[i].tpl, src[i].k}] = baseDoc{text: src[i].text, obj: bi}
	}
	pr.engine, pr.baseDocs = 1, docs
	return true
}

// known is the baseline's object of a document with the baseline's text.
func (pr *prober) known(tpl string, k int, doc string) *Object {
	if d, ok := pr.baseDocs[docKey{tpl, k}]; ok && d.text == doc {
		return &pr.base.Objects[d.obj]
	}
	return nil
}

func newProber(rd *renderer, gen int, base *Rendered) *prober {
	pr := &prober{rd: rd, gen: gen, base: base, groups: map[string][]int{}}
	for i, o := range base.Objects {
		k := groupKey(o)
		pr.groups[k] = append(pr.groups[k], i)
	}
	return pr
}

func groupKey(o Object) string { return o.Source.Template + "|" + o.Kind }

// run probes the candidates, in as few renders as it can: each gets its
// landings, or the reason it is broken.
func (pr *prober) run(ctx context.Context, cands []*candidate) error {
	pr.cands = cands
	// A new key under a map is an entry added to that map: it is probed
	// after the map's own probe, and not at all when that one broke the
	// render or the objects (an entry of any kind makes the map
	// non-empty).
	mapsByPath := map[string]*candidate{}
	for _, c := range slices.Concat(pr.prior, cands) {
		if c.kind == probeMap {
			mapsByPath[strings.Join(c.path, "\x1f")] = c
		}
	}
	parent := func(c *candidate) *candidate {
		if pr.onePhase || c.exists || len(c.path) < 2 {
			return nil
		}
		return mapsByPath[strings.Join(c.path[:len(c.path)-1], "\x1f")]
	}
	var first, second []int
	for i, c := range cands {
		if parent(c) != nil {
			second = append(second, i)
		} else {
			first = append(first, i)
		}
	}
	if err := pr.runIDs(ctx, first); err != nil {
		return err
	}
	second = slices.DeleteFunc(second, func(i int) bool {
		c := cands[i]
		p := parent(c)
		if p.broken == "" {
			return false
		}
		c.broken = fmt.Sprintf("it adds an entry to .Values.%s, whose own probe did that: %s", strings.Join(p.path, "."), p.broken)
		return true
	})
	return pr.runIDs(ctx, second)
}

// runIDs probes the candidates of ids.
func (pr *prober) runIDs(ctx context.Context, ids []int) error {
	// Probes whose values conflict (a path under another's scalar) go
	// into batches of their own.
	for len(ids) > 0 {
		_, later := pr.overlay(ids)
		now := slices.DeleteFunc(slices.Clone(ids), func(i int) bool { return slices.Contains(later, i) })
		if err := pr.batch(ctx, now, nil); err != nil {
			return err
		}
		ids = later
	}
	return nil
}

// try renders the probes of ids at once and records their landings; it
// says what went wrong instead when the render fails or its objects do
// not pair with the baseline's.
func (pr *prober) try(ctx context.Context, ids []int) (*trouble, error) {
	overlay, _ := pr.overlay(ids)
	var r *Rendered
	var same []bool
	var err error
	if pr.useEngine(ctx) {
		r, same, _, err = pr.rd.renderEngine(ctx, pr.gen, overlay, pr.known)
	} else {
		r, err = pr.rd.render(ctx, pr.gen, overlay)
	}
	switch {
	case err != nil && context.Cause(ctx) != nil:
		return nil, fmt.Errorf("helmgov: probe: %w", context.Cause(ctx))
	case err != nil:
		return pr.renderTrouble(err), nil
	}
	match, tr := pr.match(r, same)
	if tr == nil {
		pr.record(r, match, same)
	}
	return tr, nil
}

// overlay builds the values of a batch of probes. Probes whose path
// conflicts with one already placed (a scalar under a scalar, a map
// where a scalar went) are returned for a later batch.
func (pr *prober) overlay(ids []int) (map[string]any, []int) {
	out := map[string]any{}
	var later []int
	for _, id := range ids {
		c := pr.cands[id]
		var v any
		p := c.path
		switch c.kind {
		case probeMap:
			p = appendPath(p, sentinelString(id))
			v = sentinelString(id)
		case probeString:
			v = sentinelString(id)
		case probeInt:
			v = sentinelIntBase + id
		case probeList:
			// The list keeps its length: a shorter one would lose fields.
			l := append([]any{sentinelString(id)}, cloneValue(c.list).([]any)...)
			v = l[:max(1, len(c.list))]
		}
		if !placeValue(out, p, v) {
			later = append(later, id)
		}
	}
	return out, later
}

// placeValue sets p to v in m, creating maps on the way; false, and m
// unchanged, when a value is in the way.
func placeValue(m map[string]any, p []string, v any) bool {
	cur := m
	for _, k := range p[:len(p)-1] {
		next, ok := cur[k]
		if !ok {
			nm := map[string]any{}
			cur[k] = nm
			cur = nm
			continue
		}
		nm, isMap := next.(map[string]any)
		if !isMap {
			return false
		}
		cur = nm
	}
	if _, taken := cur[p[len(p)-1]]; taken {
		return false
	}
	cur[p[len(p)-1]] = v
	return true
}

// match pairs the probe render's objects with the baseline's, by template
// and kind in order, and says what went wrong when they do not pair: an
// object more or less, or a field of the baseline missing. same, when
// set, marks the objects known to be the baseline's.
func (pr *prober) match(r *Rendered, same []bool) ([]int, *trouble) {
	groups := map[string][]int{}
	for i, o := range r.Objects {
		k := groupKey(o)
		groups[k] = append(groups[k], i)
	}
	match := make([]int, len(r.Objects))
	for i := range match {
		match[i] = -1
	}
	for _, k := range slices.Sorted(maps.Keys(pr.groups)) {
		base, got := pr.groups[k], groups[k]
		if len(got) != len(base) {
			tpl, kind, _ := strings.Cut(k, "|")
			tr := &trouble{reason: fmt.Sprintf("it changes how many %s objects %s renders", kind, tpl), sentinels: map[int]bool{}, tpls: []string{tpl}}
			for _, i := range got {
				maps.Copy(tr.sentinels, pr.sentinelsIn(fmt.Sprint(r.Objects[i].Fields)))
			}
			return nil, tr
		}
		for j, bi := range base {
			match[got[j]] = bi
			if same != nil && same[got[j]] {
				continue
			}
			if p, ok := missingPath(pr.base.Objects[bi].Fields, r.Objects[got[j]].Fields); !ok {
				o := pr.base.Objects[bi]
				// The sentinels in the part of the object that lost the field.
				near, _ := valueAtOpath(r.Objects[got[j]].Fields, p)
				return nil, &trouble{reason: fmt.Sprintf("it changes the fields of %s %s", o.Kind, o.Name),
					sentinels: pr.sentinelsIn(fmt.Sprint(near)), tpls: []string{o.Source.Template}}
			}
		}
	}
	return match, nil
}

// record notes where each sentinel of the render showed; an object known
// to be the baseline's (same) has none.
func (pr *prober) record(r *Rendered, match []int, same []bool) {
	n := len(pr.cands)
	byString := func(s string) (int, bool) {
		m := sentinelStr.FindStringSubmatch(s)
		if m == nil {
			return 0, false
		}
		id, err := strconv.Atoi(m[1])
		return id, err == nil && id < n && m[0] == s
	}
	partials := func(s string) []int {
		var out []int
		for _, m := range sentinelStr.FindAllStringSubmatch(s, -1) {
			if id, err := strconv.Atoi(m[1]); err == nil && id < n {
				out = append(out, id)
			}
		}
		for _, d := range digitRun.FindAllString(s, -1) {
			if v, err := strconv.Atoi(d); err == nil && v >= sentinelIntBase && v < sentinelIntBase+n && pr.cands[v-sentinelIntBase].kind == probeInt {
				out = append(out, v-sentinelIntBase)
			}
		}
		return out
	}
	add := func(id int, l landing) { pr.cands[id].landings = append(pr.cands[id].landings, l) }
	for i, o := range r.Objects {
		if same != nil && same[i] {
			continue
		}
		obj := match[i]
		var walk func(p opath, v any)
		walk = func(p opath, v any) {
			switch x := v.(type) {
			case map[string]any:
				for k, e := range x {
					if id, ok := byString(k); ok && pr.cands[id].kind == probeMap {
						add(id, landing{obj: obj, path: p, how: landKey})
						continue // its value is the probe's too
					} else {
						for _, id := range partials(k) {
							add(id, landing{obj: obj, path: p.with(ostep{key: k, idx: -1}), how: landPartial})
						}
					}
					walk(p.with(ostep{key: k, idx: -1}), e)
				}
			case []any:
				if len(x) > 0 {
					if s, ok := x[0].(string); ok {
						if id, ok := byString(s); ok && pr.cands[id].kind == probeList {
							add(id, landing{obj: obj, path: p, how: landList})
							return
						}
					}
				}
				for j, e := range x {
					walk(p.with(ostep{idx: j}), e)
				}
			case string:
				if id, ok := byString(x); ok && pr.cands[id].kind == probeString {
					add(id, landing{obj: obj, path: p, how: landExact})
					return
				}
				if d, err := strconv.Atoi(x); err == nil && d >= sentinelIntBase && d < sentinelIntBase+n && pr.cands[d-sentinelIntBase].kind == probeInt {
					add(d-sentinelIntBase, landing{obj: obj, path: p, how: landExact})
					return
				}
				for _, id := range partials(x) {
					add(id, landing{obj: obj, path: p, how: landPartial})
				}
			case int64, int, float64:
				d, _ := strconv.ParseFloat(fmt.Sprint(x), 64)
				if id := int(d) - sentinelIntBase; d == float64(int(d)) && id >= 0 && id < n && pr.cands[id].kind == probeInt {
					add(id, landing{obj: obj, path: p, how: landExact})
				}
			}
		}
		walk(nil, o.Fields)
	}
}

// renderReason words a render error for a chart's user: what the chart
// said, without the YAML parser's internals.
func renderReason(err error) string {
	msg := err.Error()
	var re *RenderError
	if errors.As(err, &re) && re.Err != nil {
		msg = re.Err.Error()
	}
	tpl := ""
	if m := yamlErrOn.FindStringSubmatch(msg); m != nil {
		tpl = chartRel(m[1])
	}
	switch {
	case repeatedKey.MatchString(msg):
		k := repeatedKey.FindStringSubmatch(msg)[1]
		if tpl != "" {
			return fmt.Sprintf("%s would write the key %q twice", tpl, k)
		}
		return fmt.Sprintf("the key %q would be written twice", k)
	case tpl != "":
		return tpl + " would no longer render valid YAML"
	case strings.Contains(msg, "values don't meet the specifications of the schema"):
		_, detail, _ := strings.Cut(msg, "schema(s) in the following chart(s):")
		var why []string
		for _, l := range strings.Split(detail, "\n") {
			if l = strings.TrimSpace(l); strings.HasPrefix(l, "- ") {
				why = append(why, strings.TrimPrefix(l, "- "))
			}
		}
		if len(why) == 0 {
			why = []string{oneLine(detail)}
		}
		return "the chart's values.schema.json refuses the values: " + strings.Join(why, "; ")
	}
	if m := execErr.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s stops the render: %s", chartRel(m[1]), oneLine(m[2]))
	}
	return oneLine(msg)
}

var (
	yamlErrOn   = regexp.MustCompile(`(?:YAML parse error on|\) from) ([^:\s]+)`)
	repeatedKey = regexp.MustCompile(`(?:mapping key|key) "([^"]+)" (?:already defined|is repeated)`)
	execErr     = regexp.MustCompile(`execution error at \(([^:)]+)[^)]*\): (.*)`)
)

// chartRel turns Helm's name of a template ("web/templates/x.yaml") into
// its path in the chart directory ("templates/x.yaml").
func chartRel(tpl string) string {
	if _, rest, ok := strings.Cut(tpl, "/"); ok && (strings.HasPrefix(rest, "templates/") || strings.HasPrefix(rest, "charts/")) {
		return rest
	}
	return tpl
}

// oneLine joins the lines of a message.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
