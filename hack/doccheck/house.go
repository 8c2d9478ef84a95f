package main

// house.go: the rules of the house that ARCHITECTURE.md states and a
// machine can check: every hand-written non-test file opens with a comment
// that says what it holds, no such file passes maxLines lines, and every
// package's doc.go opens with a map of its files (a "# Files" heading
// before any other).

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"strings"
)

// maxLines is the most lines a hand-written non-test file may hold.
const maxLines = 700

// house returns what breaks the house rules in one parsed file whose
// source is src. Generated files are the caller's to skip.
func house(fset *token.FileSet, path string, f *ast.File, src []byte) []string {
	var out []string
	at := func(pos token.Pos, what string) { out = append(out, fmt.Sprintf("%s: %s", fset.Position(pos), what)) }
	if n := bytes.Count(src, []byte("\n")); n > maxLines {
		at(f.Package, fmt.Sprintf("%d lines, over the house limit of %d: split the file by role", n, maxLines))
	}
	if strings.HasSuffix(path, "/doc.go") || path == "doc.go" {
		if f.Doc == nil || firstHeading(f.Doc.Text()) != "Files" {
			at(f.Package, `doc.go: the package comment must open with a map of the package's files ("# Files" as its first heading)`)
		}
		return out
	}
	if !opensWithComment(f) {
		at(f.Package, "no opening comment: say what this file holds in a comment right after the package clause")
	}
	return out
}

// firstHeading returns the text of the first "# Heading" line of a doc
// comment, or "".
func firstHeading(doc string) string {
	for line := range strings.SplitSeq(doc, "\n") {
		if h, ok := strings.CutPrefix(line, "# "); ok {
			return strings.TrimSpace(h)
		}
	}
	return ""
}

// opensWithComment reports whether a comment group stands between the
// package clause and the first import or declaration.
func opensWithComment(f *ast.File) bool {
	end := f.End()
	if len(f.Decls) > 0 {
		end = f.Decls[0].Pos()
	}
	for _, c := range f.Comments {
		if c.Pos() > f.Name.End() && c.Pos() < end {
			return true
		}
	}
	return false
}
