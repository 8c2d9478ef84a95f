package helmgov

// This file holds the search for the probes in trouble (see probe.go): a
// probe render that fails, or whose objects lost a field or changed in
// number, gives clues (the sentinels in the error or in the part of the
// object that changed, the values paths and templates the error names);
// the probes they point at are set apart and the others rendered at
// once, then the search goes on by halves, down to single probes.

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// trouble is what went wrong in a probe render, and the clues to the
// probes that caused it: the sentinels that show in the error or in the
// part of the object that changed, the values paths and the templates the
// error names.
type trouble struct {
	reason string
	// sentinels are the ids whose sentinel shows near the trouble.
	sentinels map[int]bool
	// paths are the values paths the error names, in root coordinates.
	paths [][]string
	// tpls are the templates the error or the changed objects come from.
	tpls []string
}

// batch renders the probes of ids at once. On trouble (the render fails,
// or its objects do not pair with the baseline's) it looks for the
// probes that cause it: first among those the trouble points at (see
// suspects), by rendering all the others; then by halves: the first half
// is rendered; when it renders, the trouble is in the second, which is
// then split without being rendered whole. A single probe in trouble is
// marked broken. known, when set, is the trouble ids are known to be in.
func (pr *prober) batch(ctx context.Context, ids []int, known *trouble) error {
	if len(ids) == 0 {
		return nil
	}
	if known == nil || len(ids) == 1 {
		tr, err := pr.try(ctx, ids)
		if err != nil || tr == nil {
			return err
		}
		if len(ids) == 1 {
			pr.cands[ids[0]].broken = tr.reason
			return nil
		}
		known = tr
	}
	if sus := pr.suspects(ids, known); len(sus) > 0 && len(sus) < len(ids) {
		rest := slices.DeleteFunc(slices.Clone(ids), func(i int) bool { return slices.Contains(sus, i) })
		tr, err := pr.try(ctx, rest)
		if err != nil {
			return err
		}
		if tr == nil {
			return pr.batch(ctx, sus, known)
		}
		if err := pr.batch(ctx, rest, tr); err != nil {
			return err
		}
		return pr.batch(ctx, sus, nil)
	}
	mid := len(ids) / 2
	tr, err := pr.try(ctx, ids[:mid])
	if err != nil {
		return err
	}
	if tr != nil {
		if mid == 1 {
			pr.cands[ids[0]].broken = tr.reason
		} else if err := pr.batch(ctx, ids[:mid], tr); err != nil {
			return err
		}
		return pr.batch(ctx, ids[mid:], nil)
	}
	return pr.batch(ctx, ids[mid:], known)
}

// suspects are the probes of ids that the trouble points at, the
// narrowest clue first: those whose sentinel shows in the error or in the
// changed part of the object; those at a values path the error names;
// those at a path the failing template reads, or under one; those in the
// values of the failing template's subchart. None when there is no clue.
func (pr *prober) suspects(ids []int, tr *trouble) []int {
	pick := func(keep func(c *candidate, id int) bool) []int {
		var out []int
		for _, id := range ids {
			if keep(pr.cands[id], id) {
				out = append(out, id)
			}
		}
		return out
	}
	related := func(a, b []string) bool {
		n := min(len(a), len(b))
		return n > 0 && slices.Equal(a[:n], b[:n])
	}
	clues := []func(c *candidate, id int) bool{
		func(_ *candidate, id int) bool { return tr.sentinels[id] },
		func(c *candidate, _ int) bool {
			return slices.ContainsFunc(tr.paths, func(p []string) bool { return related(c.path, p) })
		},
	}
	if pr.refs != nil {
		clues = append(clues, func(c *candidate, _ int) bool {
			for _, t := range tr.tpls {
				reads := pr.refs.byName[t]
				if reads[strings.Join(c.path, "\x1f")] || reads[strings.Join(c.path[:len(c.path)-1], "\x1f")] {
					return true
				}
			}
			return false
		})
	}
	clues = append(clues, func(c *candidate, _ int) bool {
		for _, t := range tr.tpls {
			vals, ok := pr.scope(t)
			if !ok || len(vals) == 0 || c.path[0] == "global" || !slices.Equal(c.path[:min(len(vals), len(c.path))], vals) {
				continue
			}
			return true
		}
		return false
	})
	for _, keep := range clues {
		if out := pick(keep); len(out) > 0 && len(out) < len(ids) {
			return out
		}
	}
	return nil
}

// scope is the values path of the chart whose templates hold tpl (nil for
// the root chart); ok is false when no chart of the tree holds it.
func (pr *prober) scope(tpl string) ([]string, bool) {
	best := -1
	for i, n := range pr.tree {
		if strings.HasPrefix(tpl, n.fullPath+"/templates/") && (best < 0 || len(n.fullPath) > len(pr.tree[best].fullPath)) {
			best = i
		}
	}
	if best < 0 {
		return nil, false
	}
	return pr.tree[best].values, true
}

// renderTrouble is the trouble of a render that failed, with the clues
// its error gives.
func (pr *prober) renderTrouble(err error) *trouble {
	msg := err.Error()
	tr := &trouble{reason: "it breaks the render: " + renderReason(err), sentinels: pr.sentinelsIn(msg)}
	for _, m := range errTemplate.FindAllString(msg, -1) {
		if !slices.Contains(tr.tpls, m) {
			tr.tpls = append(tr.tpls, m)
		}
	}
	for _, m := range errValuesPath.FindAllStringSubmatch(msg, -1) {
		p := strings.Split(strings.TrimPrefix(m[1], "."), ".")
		if len(tr.tpls) == 0 {
			tr.paths = append(tr.paths, p)
		}
		for _, t := range tr.tpls {
			if vals, ok := pr.scope(t); ok {
				tr.paths = append(tr.paths, rootPath(vals, p))
			}
		}
	}
	return tr
}

var (
	errTemplate   = regexp.MustCompile(`[A-Za-z0-9_.-]+(?:/charts/[A-Za-z0-9_.-]+)*/templates/[^\s:"<>()]+`)
	errValuesPath = regexp.MustCompile(`\.Values((?:\.[A-Za-z0-9_-]+)+)`)
)

// sentinelsIn returns the ids whose sentinel shows in s: a string
// sentinel, or the digits of an int one.
func (pr *prober) sentinelsIn(s string) map[int]bool {
	out := map[int]bool{}
	n := len(pr.cands)
	for _, m := range sentinelStr.FindAllStringSubmatch(s, -1) {
		if id, err := strconv.Atoi(m[1]); err == nil && id < n {
			out[id] = true
		}
	}
	for _, d := range digitRun.FindAllString(s, -1) {
		if v, err := strconv.Atoi(d); err == nil && v >= sentinelIntBase && v < sentinelIntBase+n && pr.cands[v-sentinelIntBase].kind == probeInt {
			out[v-sentinelIntBase] = true
		}
	}
	return out
}

// missingPath reports whether every path of base is a path of got; when
// one is not, ok is false and p is the deepest path of got on its way.
func missingPath(base, got any) (p opath, ok bool) {
	switch b := base.(type) {
	case map[string]any:
		g, isMap := got.(map[string]any)
		if len(b) == 0 {
			return nil, true
		}
		if !isMap {
			return nil, false
		}
		for k, bv := range b {
			gv, has := g[k]
			if !has {
				return nil, false
			}
			if sub, ok := missingPath(bv, gv); !ok {
				return append(opath{{key: k, idx: -1}}, sub...), false
			}
		}
	case []any:
		g, isList := got.([]any)
		if len(b) == 0 {
			return nil, true
		}
		if !isList || len(g) < len(b) {
			return nil, false
		}
		for i, bv := range b {
			if sub, ok := missingPath(bv, g[i]); !ok {
				return append(opath{{idx: i}}, sub...), false
			}
		}
	}
	return nil, true
}
