package helmgov

// This file holds the proof of a fix by a full re-render diff: every
// object of the chart is rendered again and compared with the render
// before the fix; only the fixed field of the finding's object (and of the
// objects with the same finding, which one values path may fix together)
// may change, and for a PodDisruptionBudget only budgets may be added or
// changed. It also finds the user's --set that overrides a fix.

import (
	"fmt"
	"maps"
	"reflect"
	"slices"

	"helm.sh/helm/v4/pkg/strvals"
)

// objectID names an object of a render across renders.
func objectID(o Object) string {
	return o.Source.Template + "|" + o.Kind + "|" + o.Namespace + "|" + o.Name
}

// proveDiff compares the renders before and after the fix of f (and of
// its twins, fixed by the same write): it fails, naming the first object
// that changed where it should not, when anything else changed.
func proveDiff(before, after *Rendered, f Finding, twins []Finding) error {
	allowed := map[string][]FieldPath{}
	pdb := f.Fix != nil && f.Fix.Op == OpAddPDB
	if !pdb && f.Fix != nil {
		for _, g := range append([]Finding{f}, twins...) {
			if o := findObject(before.Objects, g); o != nil {
				allowed[objectID(*o)] = append(allowed[objectID(*o)], g.Fix.Path)
			}
		}
	}
	was := map[string]*Object{}
	for i := range before.Objects {
		was[objectID(before.Objects[i])] = &before.Objects[i]
	}
	now := map[string]bool{}
	for i := range after.Objects {
		o := &after.Objects[i]
		id := objectID(*o)
		now[id] = true
		old := was[id]
		switch {
		case old == nil && pdb && o.Kind == "PodDisruptionBudget":
		case old == nil:
			return fmt.Errorf("it also adds %s %s", o.Kind, o.Name)
		case pdb && o.Kind == "PodDisruptionBudget":
		default:
			a, b := cloneValue(old.Fields), cloneValue(o.Fields)
			for _, p := range allowed[id] {
				dropField(a, p)
				dropField(b, p)
			}
			if !reflect.DeepEqual(a, b) {
				return fmt.Errorf("it also changes %s %s at %s", o.Kind, o.Name, firstDiff(a, b, nil))
			}
		}
	}
	for id, o := range was {
		if !now[id] {
			return fmt.Errorf("it also removes %s %s", o.Kind, o.Name)
		}
	}
	return nil
}

// dropField deletes the field at p (list items by name) from an object,
// and the maps on its way that it leaves empty: an absent map and an
// empty one render the same object.
func dropField(v any, p FieldPath) {
	if len(p) == 0 {
		return
	}
	s := p[0]
	if s.Item != "" {
		l, _ := v.([]any)
		for _, e := range l {
			if m, ok := e.(map[string]any); ok && m["name"] == s.Item {
				dropField(m, p[1:])
				return
			}
		}
		return
	}
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	if len(p) > 1 {
		dropField(m[s.Key], p[1:])
	}
	if sub, isMap := m[s.Key].(map[string]any); len(p) == 1 || (isMap && len(sub) == 0) {
		delete(m, s.Key)
	}
}

// firstDiff names the first field where a and b differ.
func firstDiff(a, b any, at FieldPath) string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			if !reflect.DeepEqual(am[k], bm[k]) {
				return firstDiff(am[k], bm[k], at.Append(PathStep{Key: k}))
			}
		}
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok && len(al) == len(bl) {
		for i := range al {
			if reflect.DeepEqual(al[i], bl[i]) {
				continue
			}
			if m, ok := al[i].(map[string]any); ok {
				if n, ok := m["name"].(string); ok && n != "" {
					return firstDiff(al[i], bl[i], at.Append(PathStep{Item: n}))
				}
			}
			return fmt.Sprintf("%s[%d]", at, i)
		}
	}
	if len(at) == 0 {
		return "the object"
	}
	return at.String()
}

// overridingSet returns the user's --set and --set-string overrides that
// set one of the paths (or a value above it that is not a map): the fix
// written into a values file cannot show in a render with them.
func overridingSet(cfg *renderConfig, sets []valueSet) []string {
	var out []string
	check := func(flag string, raw []string, parse func(string) (map[string]any, error)) {
		for _, s := range raw {
			m, err := parse(s)
			if err != nil {
				continue
			}
			for _, vs := range sets {
				if overrides(m, vs.path) {
					out = append(out, flag+" "+s)
					break
				}
			}
		}
	}
	check("--set", cfg.set, strvals.Parse)
	check("--set-string", cfg.setString, strvals.ParseString)
	return out
}

// overrides reports whether the values m set p, or a value above p that
// is not a map.
func overrides(m map[string]any, p []string) bool {
	var cur any = m
	for _, k := range p {
		mm, ok := cur.(map[string]any)
		if !ok {
			return true
		}
		if cur, ok = mm[k]; !ok {
			return false
		}
	}
	return true
}

// withoutSets is the render config without these overrides ("--set x=y").
func withoutSets(cfg *renderConfig, drop []string) *renderConfig {
	cp := *cfg
	cp.set = slices.DeleteFunc(slices.Clone(cfg.set), func(s string) bool { return slices.Contains(drop, "--set "+s) })
	cp.setString = slices.DeleteFunc(slices.Clone(cfg.setString), func(s string) bool { return slices.Contains(drop, "--set-string "+s) })
	return &cp
}
