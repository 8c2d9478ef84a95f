package helmgov

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
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
}

// WithDryRun computes the fix, re-renders and re-checks it in a scratch
// copy, and returns the diff without writing the chart.
func WithDryRun() FixOption { return func(c *fixConfig) { c.dryRun = true } }

// WithRenderOptions renders the chart with these options, before and after
// the fix.
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

// FixHow says where a fix was written.
type FixHow string

const (
	// FixValues: a key of the root chart's values.yaml, because the template
	// reads the field from values.
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
	// How says where the fix went: values.yaml, a template, or a new file.
	How FixHow `json:"how"`
	// File is the changed file, relative to the chart directory.
	File string `json:"file"`
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

// FileChange is the content of one changed file, before and after.
type FileChange struct {
	// Path is relative to the chart directory.
	Path string `json:"path"`
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

// Fix writes the fixes of the chart's findings into its sources: a key of
// values.yaml where the template reads the field from values, otherwise the
// template itself (or a new template, for a PodDisruptionBudget). It works
// on a scratch copy of the chart, re-renders and re-checks after each round
// until no fixable finding is left, and only then writes the changed files
// back, each atomically. With [WithDryRun] it writes nothing and returns the
// diff.
//
// A fix that does not hold after re-rendering is a [*FixError] that unwraps
// to [ErrFixNotHeld], and nothing is written. Running Fix on its own output
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
	before, rendered, err := c.CheckChart(ctx, dir, fc.render...)
	if err != nil {
		return nil, err
	}
	res := &FixResult{Chart: dir, DryRun: fc.dryRun, Before: before, Applied: []AppliedFix{}, Skipped: []SkippedFix{}, Files: []FileChange{}}

	scratch, err := os.MkdirTemp("", "helmgov-fix-*")
	if err != nil {
		return nil, fmt.Errorf("helmgov: fix %s: scratch directory: %w", dir, err)
	}
	defer func() { _ = os.RemoveAll(scratch) }()
	work := filepath.Join(scratch, filepath.Base(filepath.Clean(dir)))
	if err := copyTree(dir, work); err != nil {
		return nil, fmt.Errorf("helmgov: fix %s: copy to scratch: %w", dir, err)
	}

	fx := &fixer{c: c, work: work, orig: map[string][]byte{}, changed: map[string]bool{}}
	done := map[string]bool{} // findings handled, by key
	cur, curRendered := before, rendered
	// The first round works on the render of the original chart, whose
	// sources name the original files: point them at the scratch copy.
	remap := func(r *Rendered) { r.Chart = work; r.charts, _ = chartTree(work) }
	remap(curRendered)
	for round := 1; ; round++ {
		if err := context.Cause(ctx); err != nil {
			return nil, fmt.Errorf("helmgov: fix %s: %w", dir, err)
		}
		progress := false
		for _, f := range cur.Findings {
			key := findingKey(f)
			if done[key] || f.Suppressed || (fc.rules != nil && !fc.rules[f.Rule]) {
				continue
			}
			if f.Fix == nil {
				done[key] = true
				res.Skipped = append(res.Skipped, SkippedFix{Finding: f, Reason: "the rule has no safe fix for this finding"})
				continue
			}
			how, file, err := fx.apply(f, curRendered)
			done[key] = true
			if err != nil {
				if !errors.Is(err, errUnfixable) {
					return nil, &FixError{Chart: dir, Err: err}
				}
				res.Skipped = append(res.Skipped, SkippedFix{Finding: f, Reason: err.Error()})
				continue
			}
			progress = true
			res.Applied = append(res.Applied, AppliedFix{Finding: f, How: how, File: file, Round: round})
		}
		if !progress {
			break
		}
		res.Rounds = round
		c.opts.Logger.Info("fix round done; re-rendering", "chart", dir, "round", round, "applied", len(res.Applied))
		next, nr, err := c.CheckChart(ctx, work, fc.render...)
		if err != nil {
			return nil, &FixError{Chart: dir, Diff: fx.diff(), Err: fmt.Errorf("re-render the fixed chart: %w", err)}
		}
		cur, curRendered = next, nr
		if round == fc.maxRounds {
			break
		}
	}
	// The proof: no finding that was fixed may remain.
	applied := map[string]bool{}
	for _, a := range res.Applied {
		applied[findingKey(a.Finding)] = true
	}
	var remaining []Finding
	for _, f := range cur.Findings {
		if applied[findingKey(f)] || (!f.Suppressed && f.Fix != nil && !done[findingKey(f)] && (fc.rules == nil || fc.rules[f.Rule])) {
			remaining = append(remaining, f)
		}
	}
	res.After = remapResult(cur, work, dir)
	for _, rel := range slices.Sorted(maps.Keys(fx.changed)) {
		after, err := os.ReadFile(filepath.Join(work, rel))
		if err != nil {
			return nil, &FixError{Chart: dir, Err: err}
		}
		res.Files = append(res.Files, FileChange{Path: filepath.ToSlash(rel), Before: string(fx.orig[rel]), After: string(after)})
	}
	res.Diff = unifiedDiff(res.Files)
	if len(remaining) > 0 {
		return nil, &FixError{Chart: dir, Remaining: remapResult(&Result{Findings: remaining}, work, dir).Findings, Diff: res.Diff, Err: ErrFixNotHeld}
	}
	if fc.dryRun || len(res.Files) == 0 {
		return res, nil
	}
	if err := writeChanges(dir, res.Files, fx.orig); err != nil {
		return nil, &FixError{Chart: dir, Err: err}
	}
	res.Written = true
	c.opts.Logger.Info("fix written", "chart", dir, "files", len(res.Files), "applied", len(res.Applied))
	return res, nil
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

// fixer edits the scratch copy of a chart.
type fixer struct {
	c       *Checker
	work    string
	orig    map[string][]byte // first content of each changed file, by path relative to work
	changed map[string]bool
}

// apply writes one finding's fix into the scratch chart. A failure of the
// editor on an odd source skips the finding, with the reason, rather than
// taking the whole fix down.
func (fx *fixer) apply(f Finding, r *Rendered) (how FixHow, file string, err error) {
	defer func() {
		if p := recover(); p != nil {
			how, file, err = "", "", unfixablef("the source editor failed on %s: %v", f.Source.Template, p)
		}
	}()
	obj := findObject(r.Objects, f)
	if obj == nil {
		return "", "", unfixablef("the object is not in the rendered chart")
	}
	info, rel, ok := r.chartOf(obj.Source.Template)
	if !ok || info.dir == "" {
		return "", "", unfixablef("template %s is not in an unpacked chart directory", obj.Source.Template)
	}
	tplPath := filepath.Join(info.dir, filepath.FromSlash(rel))
	data, err := os.ReadFile(tplPath)
	if err != nil {
		return "", "", fmt.Errorf("read %s: %w", tplPath, err)
	}
	tf, err := parseSource(fx.rel(tplPath), data, true)
	if err != nil {
		return "", "", err
	}
	doc, err := tf.findDoc(obj.Kind, obj.Name)
	if err != nil {
		return "", "", err
	}
	if f.Fix.Op == OpAddPDB {
		return fx.addPDB(tf, doc, tplPath, obj)
	}
	sr, err := tf.set(tf.root(doc), f.Fix.Path, f.Fix.Value, obj.Fields)
	if err != nil {
		return "", "", err
	}
	if sr.edit != nil {
		if err := fx.write(tplPath, tf.apply(*sr.edit)); err != nil {
			return "", "", err
		}
		return FixTemplate, fx.rel(tplPath), nil
	}
	vpath := append(append(slices.Clone(info.values), sr.values...), sr.rest...)
	valuesFile := filepath.Join(r.charts[0].dir, "values.yaml")
	if err := fx.setValue(valuesFile, vpath, f.Fix.Value); err != nil {
		return "", "", err
	}
	return FixValues, fx.rel(valuesFile), nil
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

// setValue sets a key path of a values file, creating the file if needed.
func (fx *fixer) setValue(file string, path []string, value any) error {
	data, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", file, err)
	}
	vf, err := parseSource(fx.rel(file), data, false)
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
			return unfixablef("%s: the values are not a mapping", fx.rel(file))
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
		return fx.write(file, []byte(strings.Join(append(keep, lines...), "\n")+"\n"))
	}
	sr, err := vf.set(root, fp, value, nil)
	if err != nil {
		return err
	}
	if sr.edit == nil {
		return unfixablef("%s: cannot place %s", fx.rel(file), strings.Join(path, "."))
	}
	return fx.write(file, vf.apply(*sr.edit))
}

// addPDB writes a new template with a PodDisruptionBudget for the workload
// of document doc, copying its name, namespace, selector and the actions
// that wrap the document.
func (fx *fixer) addPDB(tf *srcFile, doc int, tplPath string, obj *Object) (FixHow, string, error) {
	root := tf.root(doc)
	mdK, md := mapEntry(root, "metadata")
	nameK, nameV := mapEntry(md, "name")
	_, spec := mapEntry(root, "spec")
	selK, _ := mapEntry(spec, "selector")
	if mdK == nil || nameK == nil || selK == nil {
		return "", "", unfixablef("%s: the workload has no literal metadata.name and spec.selector to copy", tf.name)
	}
	valueText := func(k, v *yaml.Node) string {
		start := tf.afterKey(k)
		if start < 0 || v.Line != k.Line {
			return ""
		}
		return strings.TrimSpace(tf.lines[k.Line-1][start:])
	}
	name := valueText(nameK, nameV)
	if name == "" {
		return "", "", unfixablef("%s:%d: cannot copy metadata.name", tf.name, nameK.Line)
	}
	selInd := tf.byteCol(selK.Line, selK.Column)
	selEnd := tf.blockEnd(selK.Line, selInd, true)

	// The document's lines, and the action-only lines that wrap it.
	first, last := tf.docSpan(doc)
	var lead, trail []string
	for i := first; i < root.Content[0].Line; i++ {
		if tf.actionOnly[i-1] {
			lead = append(lead, tf.lines[i-1])
		}
	}
	// The actions at column 0 after the document's last content line close
	// what the leading ones opened.
	for i := last; i > root.Content[0].Line; i-- {
		l := tf.lines[i-1]
		if strings.TrimSpace(l) == "" {
			continue
		}
		if !tf.actionOnly[i-1] || indentOf(l) > 0 {
			break
		}
		trail = append([]string{l}, trail...)
	}
	pad := strings.Repeat(" ", selInd)
	var b strings.Builder
	fmt.Fprintf(&b, "# PodDisruptionBudget for %s %s, added by helmgov (rule %s): node replacement\n", obj.Kind, obj.Name, RuleWorkloadPDB)
	fmt.Fprintf(&b, "# evicts at most one pod at a time. Name, namespace and selector are copied from %s.\n", filepath.Base(tplPath))
	for _, l := range lead {
		b.WriteString(l + "\n")
	}
	b.WriteString("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n")
	fmt.Fprintf(&b, "  name: %s\n", name)
	if nsK, nsV := mapEntry(md, "namespace"); nsK != nil {
		if ns := valueText(nsK, nsV); ns != "" {
			fmt.Fprintf(&b, "  namespace: %s\n", ns)
		}
	}
	b.WriteString("spec:\n")
	fmt.Fprintf(&b, "%smaxUnavailable: 1\n", pad)
	for i := selK.Line; i <= selEnd; i++ {
		b.WriteString(tf.lines[i-1] + "\n")
	}
	for _, l := range trail {
		b.WriteString(l + "\n")
	}
	stem := strings.TrimSuffix(filepath.Base(tplPath), filepath.Ext(tplPath))
	if len(tf.docs) > 1 {
		stem += "-" + strings.ToLower(obj.Kind)
	}
	newPath := filepath.Join(filepath.Dir(tplPath), stem+"-pdb.yaml")
	if _, err := os.Stat(newPath); err == nil {
		return "", "", unfixablef("%s already exists", fx.rel(newPath))
	}
	if err := fx.write(newPath, []byte(b.String())); err != nil {
		return "", "", err
	}
	return FixNewTemplate, fx.rel(newPath), nil
}

// docSpan returns the first and last lines (1-based) of document i.
func (f *srcFile) docSpan(i int) (first, last int) {
	var starts []int
	for n, l := range f.masked {
		if l == "---" || strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "---\t") {
			starts = append(starts, n+1)
		}
	}
	root := f.root(i)
	first, last = 1, len(f.lines)
	for _, s := range starts {
		if s < root.Line {
			first = s + 1
		} else {
			last = s - 1
			break
		}
	}
	return first, last
}

// diff is the unified diff of the scratch chart's changes so far.
func (fx *fixer) diff() string {
	var files []FileChange
	for _, rel := range slices.Sorted(maps.Keys(fx.changed)) {
		after, _ := os.ReadFile(filepath.Join(fx.work, rel))
		files = append(files, FileChange{Path: filepath.ToSlash(rel), Before: string(fx.orig[rel]), After: string(after)})
	}
	return unifiedDiff(files)
}

func (fx *fixer) rel(p string) string {
	r, err := filepath.Rel(fx.work, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// write replaces a file of the scratch chart, remembering its first content.
func (fx *fixer) write(path string, data []byte) error {
	rel := fx.rel(path)
	if _, seen := fx.orig[rel]; !seen {
		old, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		fx.orig[rel] = old
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	fx.changed[rel] = true
	return os.WriteFile(path, data, 0o644)
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

// writeChanges writes the changed files into the chart, after checking that
// none changed since Fix read it and that none is a symbolic link. Every new
// content is first written to a temporary file beside its target; only when
// all are written are they renamed over the targets, so a failure midway
// leaves the chart as it was.
func writeChanges(dir string, files []FileChange, orig map[string][]byte) error {
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if st, err := os.Lstat(p); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link; edit its target instead; nothing written", p)
		}
		cur, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if !bytes.Equal(cur, orig[filepath.FromSlash(f.Path)]) && !bytes.Equal(cur, orig[f.Path]) {
			return fmt.Errorf("%s changed while the fix ran; nothing written", p)
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
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		mode := fs.FileMode(0o644)
		if st, err := os.Stat(p); err == nil {
			mode = st.Mode().Perm()
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			cleanup()
			return fmt.Errorf("%w; nothing written", err)
		}
		tmp, err := os.CreateTemp(filepath.Dir(p), ".helmgov-*")
		if err != nil {
			cleanup()
			return fmt.Errorf("%w; nothing written", err)
		}
		ready = append(ready, staged{tmp: tmp.Name(), target: p})
		_, werr := tmp.WriteString(f.After)
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
// the chart.
func unifiedDiff(files []FileChange) string {
	var b strings.Builder
	for _, f := range files {
		from := "a/" + f.Path
		if f.Before == "" {
			from = "/dev/null"
		}
		d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: splitLines(f.Before), B: splitLines(f.After),
			FromFile: from, ToFile: "b/" + f.Path, Context: 3,
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
