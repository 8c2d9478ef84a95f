package helmgov

// This file holds [Checker.Fix] and its fix-and-prove loop: each fix written
// into the scratch copy by the first route that holds, re-rendered, re-
// checked, and kept or taken back.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

const defaultFixRounds = 4

// Fix writes the fixes of the chart's findings into its sources, by the
// first [FixRoute] that holds: the user's values file (when values files
// are given), the chart's values.yaml, at the values path that the
// renderer shows carries the field (probes: a sentinel at each candidate
// path, many per render) or the chart's own switch, and the template (or
// a new template, for a PodDisruptionBudget) as the last resort, when no
// values path can carry it.
//
// It works on a scratch copy of the chart and of the user's values files.
// Each fix is written, then the chart is re-rendered and re-checked: a fix
// that breaks the render, leaves its finding, undoes another fix, makes an
// object invalid, makes two PodDisruptionBudgets select the same pods, or
// changes any other field of any object is taken back, and the next route
// is tried. A fix no route can make hold is
// dropped ([FixResult.Dropped]) and the others are written; with
// [WithAtomic] it is a [*FixError] that unwraps to [ErrFixNotHeld], and
// nothing is written. Rounds repeat until no fixable finding is left (a
// longer preStop delay can call for a longer grace period). Only then are
// the changed files written back, each atomically. With [WithDryRun] it
// writes nothing and returns the diff. Running Fix on its own output
// changes nothing.
func (c *Checker) Fix(ctx context.Context, dir string, opts ...FixOption) (*FixResult, error) {
	fc := &fixConfig{maxRounds: defaultFixRounds}
	for _, o := range opts {
		o(fc)
	}
	for id := range fc.rules {
		if r, ok := LookupRule(string(id)); !ok || r.ID != id {
			return nil, usagef("fix: unknown rule %q", id)
		}
	}
	if fc.intoFile != "" {
		if strings.TrimSpace(fc.intoFile) == "-" || strings.Contains(fc.intoFile, "://") {
			return nil, usagef("fix: into file %q: only local files are supported", fc.intoFile)
		}
		if !slices.ContainsFunc(valuesFilesOf(fc.render), func(f string) bool { return samePath(f, fc.intoFile) }) {
			if _, err := os.Stat(fc.intoFile); err == nil {
				fc.render = append(slices.Clone(fc.render), WithValuesFiles(fc.intoFile))
			}
		}
	}
	rc, err := newRenderConfig(fc.render)
	if err != nil {
		return nil, err
	}
	routes := fc.routes
	if routes == nil {
		routes = defaultRoutes
	}
	for _, r := range routes {
		if _, err := ParseFixRoute(string(r)); err != nil {
			return nil, usagef("fix: unknown route %q: want %s, %s or %s", r, RouteUserValues, RouteChartValues, RouteTemplate)
		}
	}
	if len(rc.valueFiles) == 0 && fc.intoFile == "" && fc.routes != nil && !slices.ContainsFunc(routes, func(r FixRoute) bool { return r != RouteUserValues }) {
		return nil, usagef("fix: route %s needs a values file (WithValuesFiles, -f)", RouteUserValues)
	}
	before, rendered, err := c.CheckChart(ctx, dir, fc.render...)
	if err != nil {
		return nil, err
	}
	res := &FixResult{Chart: dir, DryRun: fc.dryRun, Before: before, Applied: []AppliedFix{}, Skipped: []SkippedFix{}, Dropped: []DroppedFix{}, Files: []FileChange{}}

	scratch, err := os.MkdirTemp("", "helmgov-fix-*")
	if err != nil {
		return nil, fmt.Errorf("helmgov: fix %s: scratch directory: %w", dir, err)
	}
	defer func() { _ = os.RemoveAll(scratch) }()
	fx, err := newFixer(c, dir, scratch, fc, rc.valueFiles, routes)
	if err == nil && fc.intoFile != "" {
		err = fx.setInto(fc.intoFile)
	}
	if err != nil {
		return nil, fmt.Errorf("helmgov: fix %s: copy to scratch: %w", dir, err)
	}
	// The first round works on the render of the original chart, whose
	// sources name the original files: point them at the scratch copy.
	rendered.Chart = fx.work
	rendered.charts, _ = chartTree(fx.work)
	st := &fixState{res: before, r: rendered, overlaps: overlappingPDBs(rendered)}

	done := map[string]bool{} // findings handled, by key
	held := map[string]bool{} // findings fixed, by key
	for round := 1; round <= fc.maxRounds; round++ {
		progress := false
		if err := fx.probeRound(ctx, st, pending(st.res.Findings, done)); err != nil {
			if cerr := context.Cause(ctx); cerr != nil {
				return nil, fmt.Errorf("helmgov: fix %s: %w", dir, cerr)
			}
			return nil, &FixError{Chart: dir, Err: err}
		}
		for _, f0 := range slices.Clone(st.res.Findings) {
			key := findingKey(f0)
			if done[key] || f0.Suppressed || (fc.rules != nil && !fc.rules[f0.Rule]) {
				continue
			}
			if err := context.Cause(ctx); err != nil {
				return nil, fmt.Errorf("helmgov: fix %s: %w", dir, err)
			}
			done[key] = true
			f, ok := st.find(key) // as the last fix left it
			if !ok {
				continue // an earlier fix removed it
			}
			f = remapResult(&Result{Findings: []Finding{f}}, fx.work, dir).Findings[0]
			if f.Fix == nil {
				res.Skipped = append(res.Skipped, SkippedFix{Finding: f, Reason: noFixReason(f)})
				continue
			}
			out, err := fx.fixOne(ctx, f, st, held)
			if err != nil {
				return nil, err
			}
			switch {
			case out.applied != nil && out.overridden:
				out.applied.Round = round
				res.Applied = append(res.Applied, *out.applied)
			case out.applied != nil:
				out.applied.Round = round
				res.Applied = append(res.Applied, *out.applied)
				held[key] = true
				progress = true
			case out.dropped != nil:
				if fc.atomic {
					return nil, &FixError{Chart: dir, Remaining: remapResult(&Result{Findings: []Finding{f}}, fx.work, dir).Findings,
						Diff: out.diff, Err: fmt.Errorf("%w: %s", ErrFixNotHeld, out.dropped.Reason)}
				}
				res.Dropped = append(res.Dropped, *out.dropped)
			default:
				res.Skipped = append(res.Skipped, SkippedFix{Finding: f, Reason: out.skipped})
			}
		}
		if !progress {
			break
		}
		res.Rounds = round
		c.opts.Logger.V(1).Info("fix round done", "chart", dir, "round", round)
	}
	// Fixable findings that the rounds did not reach.
	var remaining []Finding
	for _, f := range st.res.Findings {
		if !f.Suppressed && f.Fix != nil && !done[findingKey(f)] && (fc.rules == nil || fc.rules[f.Rule]) {
			remaining = append(remaining, f)
		}
	}
	res.After = remapResult(st.res, fx.work, dir)
	res.Renders, res.ProbeRenders = fx.rd.renders, fx.rd.probes
	files, err := fx.changes()
	if err != nil {
		return nil, &FixError{Chart: dir, Err: err}
	}
	res.Files = files
	res.Diff = unifiedDiff(res.Files)
	if len(remaining) > 0 {
		if fc.atomic {
			return nil, &FixError{Chart: dir, Remaining: remapResult(&Result{Findings: remaining}, fx.work, dir).Findings, Diff: res.Diff, Err: ErrFixNotHeld}
		}
		for _, f := range remapResult(&Result{Findings: remaining}, fx.work, dir).Findings {
			res.Skipped = append(res.Skipped, SkippedFix{Finding: f, Reason: fmt.Sprintf("still found after %d rounds of fixes", fc.maxRounds)})
		}
	}
	res.plainReasons()
	if fc.dryRun || len(res.Files) == 0 {
		c.opts.Logger.Info("fix done, nothing written", "chart", dir, "fixed", len(res.Applied), "notFixable", len(res.Skipped), "dropped", len(res.Dropped))
		return res, nil
	}
	if err := fx.writeBack(); err != nil {
		return nil, &FixError{Chart: dir, Err: err}
	}
	res.Written = true
	c.opts.Logger.Info("fix written", "chart", dir, "files", len(res.Files), "fixed", len(res.Applied), "notFixable", len(res.Skipped), "dropped", len(res.Dropped))
	return res, nil
}

// pending are the findings a round probes for: those not handled yet, and
// those that share a rule and a field with one of them (a values path
// that fixes both is one route).
func pending(findings []Finding, done map[string]bool) []Finding {
	todo := map[string]bool{}
	for _, f := range findings {
		if !done[findingKey(f)] && f.Fix != nil {
			todo[string(f.Rule)+"|"+f.Fix.Path.String()] = true
		}
	}
	var out []Finding
	for _, f := range findings {
		if f.Fix != nil && todo[string(f.Rule)+"|"+f.Fix.Path.String()] {
			out = append(out, f)
		}
	}
	return out
}

// fixState is the chart as the fixes so far left it: its check and render.
type fixState struct {
	res *Result
	r   *Rendered
	// overlaps are the workloads whose pods two PodDisruptionBudgets select.
	overlaps map[string]bool
}

// find returns the finding with the key.
func (s *fixState) find(key string) (Finding, bool) {
	for _, f := range s.res.Findings {
		if findingKey(f) == key {
			return f, true
		}
	}
	return Finding{}, false
}

func findingKey(f Finding) string {
	return string(f.Rule) + "|" + f.Object.String() + "|" + f.Path + "|" + f.Source.Template
}

// remapResult points the sources of a result at the original chart.
func remapResult(r *Result, work, dir string) *Result {
	cp := *r
	fix := func(s Source) Source {
		if rel, err := filepath.Rel(work, s.File); err == nil && !strings.HasPrefix(rel, "..") {
			s.File = filepath.Join(dir, rel)
		}
		return s
	}
	cp.Findings = slices.Clone(r.Findings)
	for i := range cp.Findings {
		cp.Findings[i].Source = fix(cp.Findings[i].Source)
	}
	cp.Notices = slices.Clone(r.Notices)
	for i := range cp.Notices {
		cp.Notices[i].Source = fix(cp.Notices[i].Source)
	}
	return &cp
}

// fixOutcome is what became of one finding: applied, dropped (with the
// diff of the last attempt) or skipped (with the reason).
type fixOutcome struct {
	applied *AppliedFix
	// overridden: applied, but the user's --set still overrides it.
	overridden bool
	dropped    *DroppedFix
	diff       string
	skipped    string
}

// fixOne tries the finding's plans in order, each written into the scratch
// copy and proved by a re-render; the first that holds stays.
func (fx *fixer) fixOne(ctx context.Context, f Finding, st *fixState, held map[string]bool) (fixOutcome, error) {
	plans, err := fx.plans(f, st)
	if err != nil {
		if !errors.Is(err, errUnfixable) {
			return fixOutcome{}, &FixError{Chart: fx.dir, Err: err}
		}
		return fixOutcome{skipped: err.Error()}, nil
	}
	var tried []string
	var last *fixPlan
	verified := false
	diff := ""
	attempted := map[string]bool{}
	for i := 0; i < len(plans); i++ {
		if i > 0 && fx.prov.partial() && fx.prov.target(f) != nil {
			// The best values path did not hold: the others may rank
			// anywhere, so probe the rest of the candidates first.
			if plans, err = fx.replan(ctx, f, st, plans[:i], attempted); err != nil {
				return fixOutcome{}, err
			}
			if i >= len(plans) {
				break
			}
		}
		p := &plans[i]
		attempted[p.key()] = true
		snap := fx.snapshot()
		if err := fx.safeWrite(p); err != nil {
			fx.revert(snap)
			if !errors.Is(err, errUnfixable) {
				return fixOutcome{}, &FixError{Chart: fx.dir, Err: err}
			}
			tried = append(tried, p.label()+": "+fx.unscratch(err.Error()))
			continue
		}
		next, nr, err := fx.verify(ctx, f, st, held, p)
		if err != nil && nr != nil && p.route == RouteUserValues {
			out, ok, oerr := fx.overridden(ctx, f, st, p, snap, next, nr, tried)
			if oerr != nil {
				return fixOutcome{}, oerr
			}
			if ok {
				return out, nil
			}
		}
		if err == nil {
			why := p.why
			if len(tried) > 0 {
				why += "; tried first: " + strings.Join(tried, "; ")
			}
			st.res, st.r, st.overlaps = next, nr, overlappingPDBs(nr)
			return fixOutcome{applied: &AppliedFix{Finding: f, How: p.how, Route: p.route, File: p.file, Why: why}}, nil
		}
		if cerr := context.Cause(ctx); cerr != nil {
			return fixOutcome{}, fmt.Errorf("helmgov: fix %s: %w", fx.dir, cerr)
		}
		if p.after != nil && nr != nil {
			p.after(nr)
		}
		diff = fx.diff()
		fx.revert(snap)
		verified, last = true, p
		tried = append(tried, p.label()+": "+fx.unscratch(err.Error()))
	}
	reason := strings.Join(tried, "; ")
	if !verified {
		return fixOutcome{skipped: reason}, nil
	}
	d := remapResult(&Result{Findings: []Finding{f}}, fx.work, fx.dir).Findings[0]
	return fixOutcome{dropped: &DroppedFix{Finding: d, Route: last.route, File: last.file, Reason: reason}, diff: diff}, nil
}

// replan probes the round's remaining candidates and lists f's plans
// again: the plans done first, then those not attempted yet, in order.
func (fx *fixer) replan(ctx context.Context, f Finding, st *fixState, done []fixPlan, attempted map[string]bool) ([]fixPlan, error) {
	if err := fx.completeProbes(ctx); err != nil {
		if cerr := context.Cause(ctx); cerr != nil {
			return nil, fmt.Errorf("helmgov: fix %s: %w", fx.dir, cerr)
		}
		return nil, &FixError{Chart: fx.dir, Err: err}
	}
	more, err := fx.plans(f, st)
	if err != nil && !errors.Is(err, errUnfixable) {
		return nil, &FixError{Chart: fx.dir, Err: err}
	}
	out := slices.Clone(done)
	for _, p := range more {
		if !attempted[p.key()] {
			out = append(out, p)
		}
	}
	return out, nil
}

// verify re-renders and re-checks the scratch chart after a fix of f. It
// fails when the chart does not render, when f is still found, when a
// finding fixed before is back, when an object became invalid, when two
// PodDisruptionBudgets now select the same pods, or when the plan's own
// check fails. The render is returned
// even when the check fails, for the plan to learn from.
func (fx *fixer) verify(ctx context.Context, f Finding, st *fixState, held map[string]bool, p *fixPlan) (*Result, *Rendered, error) {
	next, nr, err := fx.check(ctx, fx.rd)
	if err != nil {
		if cerr := context.Cause(ctx); cerr != nil {
			return nil, nil, cerr
		}
		return nil, nil, fmt.Errorf("the fixed chart does not render: %s", renderReason(err))
	}
	keys := map[string]Finding{}
	for _, g := range next.Findings {
		keys[findingKey(g)] = g
	}
	if g, ok := keys[findingKey(f)]; ok {
		return next, nr, fmt.Errorf("did not hold: the re-rendered chart still has it (%s)", g.Message)
	}
	for k := range held {
		if g, ok := keys[k]; ok {
			return next, nr, fmt.Errorf("it undoes the fix of %s %s", g.Rule, g.Object)
		}
	}
	was := map[string]bool{}
	for _, g := range st.res.Findings {
		was[findingKey(g)] = true
	}
	for _, g := range next.Findings {
		if g.Rule == RuleInvalidObject && !was[findingKey(g)] {
			return next, nr, fmt.Errorf("it makes %s invalid: %s", g.Object, g.Message)
		}
	}
	for w := range overlappingPDBs(nr) {
		if !st.overlaps[w] {
			return next, nr, fmt.Errorf("two PodDisruptionBudgets would select the pods of %s, and the eviction API refuses to evict them", w)
		}
	}
	if p.check != nil {
		if err := p.check(nr); err != nil {
			return next, nr, err
		}
	}
	if err := proveDiff(st.r, nr, f, p.twins); err != nil {
		return next, nr, err
	}
	return next, nr, nil
}

// check renders the scratch copy with rd and checks it.
func (fx *fixer) check(ctx context.Context, rd *renderer) (*Result, *Rendered, error) {
	r, err := rd.render(ctx, fx.gen, nil)
	if err != nil {
		return nil, nil, err
	}
	return fx.c.withNamespace(r.Namespace).Check(r.Objects), r, nil
}

func findObject(objs []Object, f Finding) *Object {
	for i := range objs {
		o := &objs[i]
		if o.Source.Template == f.Source.Template && o.Source.Doc == f.Source.Doc && o.Kind == f.Object.Kind && o.Name == f.Object.Name {
			return o
		}
	}
	return nil
}

// valuesFilesOf returns the values files the render options name.
func valuesFilesOf(opts []RenderOption) []string {
	var rc renderConfig
	for _, o := range opts {
		o(&rc)
	}
	return rc.valueFiles
}

// samePath reports whether two paths name the same file.
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// overridden checks a values fix that did not show in the re-render: when
// the user's --set sets the same key, the fix is kept in the values file
// if the render without those overrides proves it (the finding is gone,
// only the intended fields changed), and reported with the overrides that
// hide it. ok is false, and nothing changed, otherwise.
func (fx *fixer) overridden(ctx context.Context, f Finding, st *fixState, p *fixPlan, snap map[string]fileState,
	next *Result, nr *Rendered, tried []string) (fixOutcome, bool, error) {
	drop := overridingSet(fx.rd.cfg, p.sets)
	if len(drop) == 0 || proveDiff(st.r, nr, f, p.twins) != nil {
		return fixOutcome{}, false, nil
	}
	bare := &renderer{dir: fx.work, cfg: withoutSets(fx.rd.cfg, drop)}
	after, ar, err := fx.check(ctx, bare)
	if err != nil {
		return fixOutcome{}, false, context.Cause(ctx)
	}
	for _, g := range after.Findings {
		if findingKey(g) == findingKey(f) {
			return fixOutcome{}, false, nil
		}
	}
	fixed := fx.snapshot()
	fx.revert(snap)
	_, br, err := fx.check(ctx, bare)
	fx.revert(fixed)
	fx.rd.renders += bare.renders
	if err != nil || proveDiff(br, ar, f, p.twins) != nil {
		return fixOutcome{}, false, context.Cause(ctx)
	}
	st.res, st.r, st.overlaps = next, nr, overlappingPDBs(nr)
	why := p.why
	if len(tried) > 0 {
		why += "; tried first: " + strings.Join(tried, "; ")
	}
	why += fmt.Sprintf("; but %s sets the same key, so the render with it still shows the old value: drop it or change it", strings.Join(drop, " and "))
	return fixOutcome{overridden: true, applied: &AppliedFix{Finding: f, How: p.how, Route: p.route, File: p.file, Why: why,
		OverriddenBy: strings.Join(drop, ", ")}}, true, nil
}
