package helmgov

// This file holds the changed files written back, all or none, and their
// unified diff.

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

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
