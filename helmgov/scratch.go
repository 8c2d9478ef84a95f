package helmgov

// This file holds the fixer: the scratch copy of the chart and of the user's
// values files that Fix edits, snapshots and reverts, and the values files
// it sets keys in.

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

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
	tree   []chartTreeNode // the loaded chart's tree, as of ixGen
	// rd renders the scratch copy; prov is what the probes of the round
	// found.
	rd    *renderer
	prov  *provenance
	rules map[RuleID]bool
	// into is the user's values file fixes go into (WithIntoFile), if any.
	into *userValues
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
	if fx.rd, err = fx.newRenderer(); err != nil {
		return nil, err
	}
	fx.rules = fc.rules
	return fx, nil
}

// setInto makes path the user's values file that fixes go into. A file
// that does not exist yet is rendered as an empty last values file, and
// written only if a fix goes there.
func (fx *fixer) setInto(path string) error {
	for _, u := range fx.user {
		if samePath(u.real, path) {
			fx.into = u
			return nil
		}
	}
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("into file %s is not among the values files", path)
	}
	u := &userValues{real: path, display: filepath.ToSlash(filepath.Clean(path)),
		scratch: filepath.Join(filepath.Dir(fx.work), "values", fmt.Sprintf("into-%s", filepath.Base(path)))}
	if err := os.MkdirAll(filepath.Dir(u.scratch), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(u.scratch, nil, 0o644); err != nil {
		return err
	}
	fx.files[u.scratch] = &fixFile{scratch: u.scratch, real: u.real, display: u.display, user: true}
	fx.user = append(fx.user, u)
	fx.into = u
	fx.render = append(fx.render, WithValuesFiles(u.scratch))
	var err error
	fx.rd, err = fx.newRenderer()
	return err
}

// newRenderer renders the scratch copy with the fixer's options; Helm's
// log goes to the checker's logger at V(1), as in [Checker.CheckChart].
func (fx *fixer) newRenderer() (*renderer, error) {
	log := WithLogger(fx.c.opts.Logger.WithValues("chart", fx.dir).V(1))
	return newRenderer(fx.work, append([]RenderOption{log}, fx.render...))
}

// unscratch names the chart as given where a message names its scratch
// copy.
func (fx *fixer) unscratch(msg string) string { return strings.ReplaceAll(msg, fx.work, fx.dir) }

// index returns the parsed templates of the scratch chart as they are now,
// packaged subcharts included. A chart that does not load has none.
func (fx *fixer) index() *tplIndex {
	if fx.ix == nil || fx.ixGen != fx.gen {
		fx.ix, fx.ixGen = &tplIndex{defines: map[string]*tplDefine{}}, fx.gen
		if c, err := fx.rd.load(fx.gen); err == nil {
			disk, _ := chartTree(fx.work)
			fx.tree = loadedTree(c)
			fx.ix = indexTemplates(fx.tree, disk)
		}
	}
	return fx.ix
}

// chartNode returns the chart of the loaded tree at Helm's full path.
func (fx *fixer) chartNode(fullPath string) *chartTreeNode {
	fx.index()
	for i := range fx.tree {
		if fx.tree[i].fullPath == fullPath {
			return &fx.tree[i]
		}
	}
	return nil
}

// chartOf finds the chart of the loaded tree, packaged or not, that holds
// a template (Helm's name).
func (fx *fixer) chartOf(tpl string) (chartInfo, bool) {
	fx.index()
	best := -1
	for i, n := range fx.tree {
		if strings.HasPrefix(tpl, n.fullPath+"/templates/") && (best < 0 || len(n.fullPath) > len(fx.tree[best].fullPath)) {
			best = i
		}
	}
	if best < 0 {
		return chartInfo{}, false
	}
	return chartInfo{fullPath: fx.tree[best].fullPath, values: fx.tree[best].values}, true
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

// atState puts the scratch copy as it was at the snapshot, runs fn, and
// puts it back as it is now.
func (fx *fixer) atState(snap map[string]fileState, fn func() error) error {
	now := fx.snapshot()
	put := func(p string, st fileState) {
		if st.exists {
			_ = os.WriteFile(p, st.data, 0o644)
		} else {
			_ = os.Remove(p)
		}
	}
	fx.gen++
	for p, ff := range fx.files {
		st, ok := snap[p]
		if !ok {
			st = fileState{data: ff.orig, exists: ff.existed}
		}
		put(p, st)
	}
	err := fn()
	fx.gen++
	for p, st := range now {
		put(p, st)
	}
	return err
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
		if exists == ff.existed && bytes.Equal(after, ff.orig) || !ff.existed && len(after) == 0 {
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
		if ff.existed && bytes.Equal(after, ff.orig) || !ff.existed && len(after) == 0 {
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
