package helmgov

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	yaml "go.yaml.in/yaml/v3"
)

// FixOption changes what [Checker.Fix] does.
type FixOption func(*fixConfig)

type fixConfig struct {
	dryRun    bool
	render    []RenderOption
	maxRounds int
	rules     map[RuleID]bool
	routes    []FixRoute
	atomic    bool
}

// WithDryRun computes the fix, re-renders and re-checks it in a scratch
// copy, and returns the diff without writing the chart.
func WithDryRun() FixOption { return func(c *fixConfig) { c.dryRun = true } }

// WithRenderOptions renders the chart with these options, before and after
// the fix. The values files of [WithValuesFiles] are the user's: fixes go
// into them first (see [FixRoute]).
func WithRenderOptions(opts ...RenderOption) FixOption {
	return func(c *fixConfig) { c.render = append(c.render, opts...) }
}

// WithFixRules fixes only the findings of these rules. By default every
// fixable finding that is not suppressed is fixed.
func WithFixRules(ids ...RuleID) FixOption {
	return func(c *fixConfig) {
		if c.rules == nil {
			c.rules = map[RuleID]bool{}
		}
		for _, id := range ids {
			c.rules[id] = true
		}
	}
}

// WithInto writes fixes only by these routes, tried in this order, instead
// of the default order (the user's values file, the chart's values.yaml,
// the templates). A finding that none of them can carry is skipped, with
// the reason. [RouteUserValues] alone needs a values file
// ([WithValuesFiles]); the CLI's --into values|chart|templates sets it.
func WithInto(routes ...FixRoute) FixOption {
	return func(c *fixConfig) { c.routes = append(c.routes, routes...) }
}

// WithAtomic makes the fix all or nothing: when one fix cannot be made to
// hold (it breaks the re-render, or the finding stays), Fix returns a
// [*FixError] that unwraps to [ErrFixNotHeld] and writes nothing. By
// default that fix is dropped, reported in [FixResult.Dropped], and the
// others are written.
func WithAtomic() FixOption { return func(c *fixConfig) { c.atomic = true } }

// FixRoute is where a fix is written. [Checker.Fix] tries the routes in
// this order, and for each finding takes the first that holds:
//
//   - [RouteUserValues]: the user's values file, when values files are
//     given ([WithValuesFiles]): the last one, or the one that already
//     sets the key. It survives an upgrade of the chart.
//   - [RouteChartValues]: the chart's values.yaml, when the template reads
//     the field from values (range, toYaml, with, tpl, a reference), or the
//     chart has its own switch for it (a PodDisruptionBudget's pdb.enabled).
//   - [RouteTemplate]: the template itself, or a new template for a
//     PodDisruptionBudget: the last resort, and never where the same key
//     can also come from values.
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

// FixHow says what kind of edit a fix made.
type FixHow string

const (
	// FixValues: a key of a values file: the user's ([RouteUserValues]) or
	// the root chart's values.yaml ([RouteChartValues]).
	FixValues FixHow = "values"
	// FixTemplate: the template that renders the object.
	FixTemplate FixHow = "template"
	// FixNewTemplate: a new template file (the PodDisruptionBudget).
	FixNewTemplate FixHow = "new-template"
)

// AppliedFix is a finding and where its fix went.
type AppliedFix struct {
	// Finding is the finding fixed.
	Finding Finding `json:"finding"`
	// How says what kind of edit it is: a key of a values file, a template,
	// or a new file.
	How FixHow `json:"how"`
	// Route says where the fix went: the user's values file, the chart's
	// values.yaml, or a template.
	Route FixRoute `json:"route"`
	// File is the changed file, relative to the chart directory; a user's
	// values file outside the chart is named as it was given.
	File string `json:"file"`
	// Why says why the fix went there: what reads the value, which values
	// file, and the routes tried first that did not hold.
	Why string `json:"why"`
	// Round is the 1-based round of fix and re-render that applied it.
	Round int `json:"round"`
}

// SkippedFix is a finding Fix left alone, and why.
type SkippedFix struct {
	// Finding is the finding left alone.
	Finding Finding `json:"finding"`
	// Reason says why: no safe fix, or the sources could not be edited.
	Reason string `json:"reason"`
}

// DroppedFix is a fix that was written into the scratch copy and taken
// back: it broke the re-render, or the re-rendered chart still had the
// finding, by every route tried.
type DroppedFix struct {
	// Finding is the finding left unfixed.
	Finding Finding `json:"finding"`
	// Route and File are those of the last route tried.
	Route FixRoute `json:"route"`
	// File is relative to the chart directory, or a user's values file as
	// given.
	File string `json:"file"`
	// Reason says, for each route tried, what went wrong.
	Reason string `json:"reason"`
}

// FileChange is the content of one changed file, before and after.
type FileChange struct {
	// Path is relative to the chart directory; a user's values file outside
	// the chart is named as it was given to [WithValuesFiles].
	Path string `json:"path"`
	// UserValues is true for a user's values file.
	UserValues bool `json:"userValues,omitempty"`
	// Before is empty for a new file.
	Before string `json:"before"`
	// After is the new content.
	After string `json:"after"`
}

// FixResult is the outcome of [Checker.Fix]: plain data.
type FixResult struct {
	// Chart is the chart directory.
	Chart string `json:"chart"`
	// DryRun is true when nothing was written.
	DryRun bool `json:"dryRun"`
	// Written is true when the changed files were written to the chart.
	Written bool `json:"written"`
	// Rounds is the number of fix, re-render and re-check rounds.
	Rounds int `json:"rounds"`
	// Applied lists the fixes, in order.
	Applied []AppliedFix `json:"applied"`
	// Skipped lists the findings with no fix, or whose fix could not be
	// written into the sources.
	Skipped []SkippedFix `json:"skipped"`
	// Dropped lists the fixes that were taken back because they broke the
	// re-render or did not hold (never with [WithAtomic], which fails
	// instead).
	Dropped []DroppedFix `json:"dropped"`
	// Files are the changed files, ordered by path.
	Files []FileChange `json:"files"`
	// Diff is the unified diff of Files.
	Diff string `json:"diff"`
	// Before is the check of the chart as it was. Its sources name files of
	// the original chart.
	Before *Result `json:"before"`
	// After is the check of the fixed chart, re-rendered; its sources name
	// files of the original chart too.
	After *Result `json:"after"`
}

const defaultFixRounds = 4

// Fix writes the fixes of the chart's findings into its sources, by the
// first [FixRoute] that holds: the user's values file (when values files
// are given), the chart's values.yaml where the template reads the field
// from values or the chart has its own switch for it, and the template
// (or a new template, for a PodDisruptionBudget) as the last resort.
//
// It works on a scratch copy of the chart and of the user's values files.
// Each fix is written, then the chart is re-rendered and re-checked: a fix
// that breaks the render, leaves its finding, undoes another fix, makes an
// object invalid or makes two PodDisruptionBudgets select the same pods is
// taken back, and the next route is tried. A fix no route can make hold is
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
	if len(rc.valueFiles) == 0 && fc.routes != nil && !slices.ContainsFunc(routes, func(r FixRoute) bool { return r != RouteUserValues }) {
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
				reason := f.NoFix
				if reason == "" {
					reason = "the rule has no safe fix for this finding"
				}
				res.Skipped = append(res.Skipped, SkippedFix{Finding: f, Reason: reason})
				continue
			}
			out, err := fx.fixOne(ctx, f, st, held)
			if err != nil {
				return nil, err
			}
			switch {
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
		c.opts.Logger.Info("fix round done", "chart", dir, "round", round, "applied", len(res.Applied))
	}
	// Fixable findings that the rounds did not reach.
	var remaining []Finding
	for _, f := range st.res.Findings {
		if !f.Suppressed && f.Fix != nil && !done[findingKey(f)] && (fc.rules == nil || fc.rules[f.Rule]) {
			remaining = append(remaining, f)
		}
	}
	res.After = remapResult(st.res, fx.work, dir)
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
	if fc.dryRun || len(res.Files) == 0 {
		return res, nil
	}
	if err := fx.writeBack(); err != nil {
		return nil, &FixError{Chart: dir, Err: err}
	}
	res.Written = true
	c.opts.Logger.Info("fix written", "chart", dir, "files", len(res.Files), "applied", len(res.Applied))
	return res, nil
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
	dropped *DroppedFix
	diff    string
	skipped string
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
	for i := range plans {
		p := &plans[i]
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

// verify re-renders and re-checks the scratch chart after a fix of f. It
// fails when the chart does not render, when f is still found, when a
// finding fixed before is back, when an object became invalid, when two
// PodDisruptionBudgets now select the same pods, or when the plan's own
// check fails. The render is returned
// even when the check fails, for the plan to learn from.
func (fx *fixer) verify(ctx context.Context, f Finding, st *fixState, held map[string]bool, p *fixPlan) (*Result, *Rendered, error) {
	next, nr, err := fx.c.CheckChart(ctx, fx.work, fx.render...)
	if err != nil {
		return nil, nil, fmt.Errorf("the fixed chart does not render: %w", err)
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
	return next, nr, nil
}

// fixer edits the scratch copy of a chart and of the user's values files.
type fixer struct {
	c      *Checker
	dir    string // the chart, as given
	work   string // its scratch copy
	render []RenderOption
	user   []*userValues // the user's values files, in the order given
	routes []FixRoute
	files  map[string]*fixFile // the files written, by scratch path
	gen    int                 // bumped on every change of the scratch copy
	ix     *tplIndex
	ixGen  int
}

// userValues is one of the user's values files.
type userValues struct {
	scratch string // its copy
	real    string // the file itself
	display string // as reports name it
}

// fixFile is a file the fix wrote, with what it held first.
type fixFile struct {
	scratch, real, display string
	user                   bool
	orig                   []byte
	existed                bool
}

// newFixer copies the chart and the user's values files into scratch. A
// values file inside the chart is the chart's copy of it.
func newFixer(c *Checker, dir, scratch string, fc *fixConfig, valueFiles []string, routes []FixRoute) (*fixer, error) {
	work := filepath.Join(scratch, filepath.Base(filepath.Clean(dir)))
	if err := copyTree(dir, work); err != nil {
		return nil, err
	}
	fx := &fixer{c: c, dir: dir, work: work, routes: routes, files: map[string]*fixFile{}, ixGen: -1}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	var mapped []string
	byAbs := map[string]*userValues{}
	for i, vf := range valueFiles {
		abs, err := filepath.Abs(vf)
		if err != nil {
			return nil, err
		}
		u := byAbs[abs]
		if u == nil {
			u = &userValues{real: vf, display: filepath.ToSlash(filepath.Clean(vf))}
			if rel, err := filepath.Rel(absDir, abs); err == nil && !strings.HasPrefix(rel, "..") {
				u.scratch, u.display = filepath.Join(work, rel), filepath.ToSlash(rel)
			} else {
				u.scratch = filepath.Join(scratch, "values", fmt.Sprintf("%d-%s", i, filepath.Base(vf)))
				data, err := os.ReadFile(vf)
				if err != nil {
					return nil, err
				}
				if err := os.MkdirAll(filepath.Dir(u.scratch), 0o755); err != nil {
					return nil, err
				}
				if err := os.WriteFile(u.scratch, data, 0o644); err != nil {
					return nil, err
				}
			}
			byAbs[abs] = u
		}
		fx.user = slices.DeleteFunc(fx.user, func(x *userValues) bool { return x == u })
		fx.user = append(fx.user, u) // a file given twice counts where it is last
		mapped = append(mapped, u.scratch)
	}
	fx.render = append(slices.Clone(fc.render), func(rc *renderConfig) { rc.valueFiles = mapped })
	return fx, nil
}

// unscratch names the chart as given where a message names its scratch
// copy.
func (fx *fixer) unscratch(msg string) string { return strings.ReplaceAll(msg, fx.work, fx.dir) }

// index returns the parsed templates of the scratch chart as they are now.
func (fx *fixer) index() *tplIndex {
	if fx.ix == nil || fx.ixGen != fx.gen {
		charts, _ := chartTree(fx.work)
		fx.ix, fx.ixGen = indexTemplates(charts), fx.gen
	}
	return fx.ix
}

// display names a scratch file as reports do.
func (fx *fixer) display(p string) string {
	if ff := fx.files[p]; ff != nil {
		return ff.display
	}
	for _, u := range fx.user {
		if u.scratch == p {
			return u.display
		}
	}
	r, err := filepath.Rel(fx.work, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// writeFile replaces a file of the scratch copy, remembering its first
// content.
func (fx *fixer) writeFile(p string, data []byte) error {
	if _, seen := fx.files[p]; !seen {
		old, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		ff := &fixFile{scratch: p, display: fx.display(p), orig: old, existed: err == nil}
		ff.real = filepath.Join(fx.dir, filepath.FromSlash(ff.display))
		for _, u := range fx.user {
			if u.scratch == p {
				ff.real, ff.user = u.real, true
			}
		}
		fx.files[p] = ff
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	fx.gen++
	return os.WriteFile(p, data, 0o644)
}

// fileState is a file's content at a snapshot.
type fileState struct {
	data   []byte
	exists bool
}

// snapshot records the files written so far.
func (fx *fixer) snapshot() map[string]fileState {
	snap := map[string]fileState{}
	for p := range fx.files {
		data, err := os.ReadFile(p)
		snap[p] = fileState{data: data, exists: err == nil}
	}
	return snap
}

// revert puts the scratch copy back as it was at the snapshot.
func (fx *fixer) revert(snap map[string]fileState) {
	fx.gen++
	for p, ff := range fx.files {
		st, ok := snap[p]
		if !ok {
			st = fileState{data: ff.orig, exists: ff.existed}
			delete(fx.files, p)
		}
		if st.exists {
			_ = os.WriteFile(p, st.data, 0o644)
		} else {
			_ = os.Remove(p)
		}
	}
}

// changes lists the files that differ from what they held first.
func (fx *fixer) changes() ([]FileChange, error) {
	var out []FileChange
	for _, ff := range fx.files {
		after, err := os.ReadFile(ff.scratch)
		exists := err == nil
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if exists == ff.existed && bytes.Equal(after, ff.orig) {
			continue
		}
		out = append(out, FileChange{Path: ff.display, UserValues: ff.user, Before: string(ff.orig), After: string(after)})
	}
	slices.SortFunc(out, func(a, b FileChange) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// diff is the unified diff of the scratch copy's changes so far.
func (fx *fixer) diff() string {
	files, _ := fx.changes()
	return unifiedDiff(files)
}

// writeBack writes the changed files to the chart and the user's values
// files.
func (fx *fixer) writeBack() error {
	var ws []fileWrite
	for _, ff := range fx.files {
		after, err := os.ReadFile(ff.scratch)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && !ff.existed {
				continue
			}
			return err
		}
		if ff.existed && bytes.Equal(after, ff.orig) {
			continue
		}
		ws = append(ws, fileWrite{path: ff.real, orig: ff.orig, existed: ff.existed, after: after})
	}
	slices.SortFunc(ws, func(a, b fileWrite) int { return strings.Compare(a.path, b.path) })
	return writeChanges(ws)
}

// setValue sets a key path of a values file of the scratch copy, creating
// the file if needed.
func (fx *fixer) setValue(file string, path []string, value any) error {
	name := fx.display(file)
	data, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", name, err)
	}
	vf, err := parseSource(name, data, false)
	if err != nil {
		return err
	}
	fp := make(FieldPath, len(path))
	for i, k := range path {
		fp[i] = PathStep{Key: k}
	}
	var root *yaml.Node
	if len(vf.docs) > 0 {
		root = vf.root(0)
	}
	if root == nil || (root.Style&yaml.FlowStyle != 0 && len(root.Content) == 0) {
		if len(vf.docs) > 0 && root == nil && len(vf.docs[0].Content) > 0 && vf.docs[0].Content[0].Tag != "!!null" {
			return unfixablef("%s: the values are not a mapping", name)
		}
		lines, err := encodeBlock(fp, value, 0, 2)
		if err != nil {
			return err
		}
		var keep []string
		for _, l := range vf.lines {
			if t := strings.TrimSpace(l); t == "" || strings.HasPrefix(t, "#") {
				keep = append(keep, l)
			}
		}
		for len(keep) > 0 && strings.TrimSpace(keep[len(keep)-1]) == "" {
			keep = keep[:len(keep)-1]
		}
		return fx.writeFile(file, []byte(strings.Join(append(keep, lines...), "\n")+"\n"))
	}
	sr, err := vf.set(root, fp, value, nil)
	if err != nil {
		return err
	}
	if sr.edit == nil {
		return unfixablef("%s: cannot place %s", name, strings.Join(path, "."))
	}
	return fx.writeFile(file, vf.apply(*sr.edit))
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

// copyTree copies a chart directory. Symbolic links are followed.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if rel != "." && (d.Name() == ".git") {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// fileWrite is one file to write back: its path, what it held when Fix
// read it, and its new content.
type fileWrite struct {
	path    string
	orig    []byte
	existed bool
	after   []byte
}

// writeChanges writes the changed files, after checking that none changed
// since Fix read it and that none is a symbolic link. Every new content is
// first written to a temporary file beside its target; only when all are
// written are they renamed over the targets, so a failure midway leaves
// the files as they were.
func writeChanges(files []fileWrite) error {
	for _, f := range files {
		if st, err := os.Lstat(f.path); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link; edit its target instead; nothing written", f.path)
		}
		cur, err := os.ReadFile(f.path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if (err == nil) != f.existed || !bytes.Equal(cur, f.orig) {
			return fmt.Errorf("%s changed while the fix ran; nothing written", f.path)
		}
	}
	type staged struct{ tmp, target string }
	var ready []staged
	cleanup := func() {
		for _, s := range ready {
			_ = os.Remove(s.tmp)
		}
	}
	for _, f := range files {
		mode := fs.FileMode(0o644)
		if st, err := os.Stat(f.path); err == nil {
			mode = st.Mode().Perm()
		}
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			cleanup()
			return fmt.Errorf("%w; nothing written", err)
		}
		tmp, err := os.CreateTemp(filepath.Dir(f.path), ".helmgov-*")
		if err != nil {
			cleanup()
			return fmt.Errorf("%w; nothing written", err)
		}
		ready = append(ready, staged{tmp: tmp.Name(), target: f.path})
		_, werr := tmp.Write(f.after)
		if err := errors.Join(werr, tmp.Close(), os.Chmod(tmp.Name(), mode)); err != nil {
			cleanup()
			return fmt.Errorf("%w; nothing written", err)
		}
	}
	for i, s := range ready {
		if err := os.Rename(s.tmp, s.target); err != nil {
			ready = ready[i:]
			cleanup()
			return fmt.Errorf("%w; %d of %d files written", err, i, len(files))
		}
	}
	return nil
}

// unifiedDiff renders the changes as one unified diff, paths relative to
// the chart (a user's values file as given).
func unifiedDiff(files []FileChange) string {
	var b strings.Builder
	for _, f := range files {
		// A user's values file is named as given, without a/ and b/: its
		// path is not relative to the chart.
		from, to := "a/"+f.Path, "b/"+f.Path
		if f.UserValues {
			from, to = f.Path, f.Path
		}
		if f.Before == "" {
			from = "/dev/null"
		}
		d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: splitLines(f.Before), B: splitLines(f.After),
			FromFile: from, ToFile: to, Context: 3,
		})
		if err != nil {
			fmt.Fprintf(&b, "# %s: %v\n", f.Path, err)
			continue
		}
		b.WriteString(d)
	}
	return b.String()
}

// splitLines splits text into lines that keep their newline; a last line
// without one gets one, as difflib expects.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	} else {
		lines[len(lines)-1] += "\n"
	}
	return lines
}
