package helmgov

// This file edits a field inside a named helper: when the object's
// template writes the part of the object that holds the field with one
// `include "name"` (a pod template in _pod.tpl), and no values path can
// carry the field, the helper's body is the template to edit. The body is
// parsed as YAML of its own and edited as a template is; the helper's
// file is rewritten with the new body in place. A helper of a packaged
// subchart is never edited.

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// maxHelperDepth bounds the helpers followed, one including the next.
const maxHelperDepth = 3

// helperEdit is an edit of a helper's file.
type helperEdit struct {
	name  string // the helper
	path  string // its file, in the scratch copy
	data  []byte // the file with the edit
	where string // the helper and the part of the object it writes
}

var includeName = regexp.MustCompile(`\binclude\s+"([^"]+)"`)

// helperFor plans the edit of f's field inside the helper that writes it:
// it follows the field's path in the template (root, rendered: the
// object) down to a key whose value one include writes, then into that
// helper's body with the rest of the path. Nil when no single helper
// writes the part of the object that holds the field.
func (fx *fixer) helperFor(tf *srcFile, root *yaml.Node, path FieldPath, value any, rendered map[string]any, depth int) (*helperEdit, error) {
	if depth >= maxHelperDepth {
		return nil, nil
	}
	cur := root
	var sub any = rendered
	for i, step := range path {
		if step.Item != "" {
			if cur == nil || cur.Kind != yaml.SequenceNode {
				return nil, nil
			}
			var match []*yaml.Node
			for _, it := range cur.Content {
				if n := mapGet(it, "name"); n != nil && n.Value == step.Item {
					match = append(match, it)
				}
			}
			if len(match) == 0 {
				match = templatedItem(cur, step.Item)
			}
			if len(match) != 1 {
				return nil, nil
			}
			cur = match[0]
			l, _ := sub.([]any)
			j := slices.IndexFunc(l, func(e any) bool { m, ok := e.(map[string]any); return ok && m["name"] == step.Item })
			if j < 0 {
				return nil, nil
			}
			sub = l[j]
			continue
		}
		k, v := mapEntry(cur, step.Key)
		if k == nil || i == len(path)-1 {
			return nil, nil
		}
		m, _ := sub.(map[string]any)
		sub = m[step.Key]
		if !tf.templatedValue(v) {
			cur = v
			continue
		}
		// The value is written by actions: one include of one helper?
		names := map[string]bool{}
		end := tf.blockEnd(k.Line, tf.byteCol(k.Line, k.Column), true)
		for _, a := range tf.actionsOn(k.Line, end) {
			for _, m := range includeName.FindAllStringSubmatch(a.text, -1) {
				names[m[1]] = true
			}
		}
		subMap, ok := sub.(map[string]any)
		if len(names) != 1 || !ok {
			return nil, nil
		}
		var name string
		for n := range names {
			name = n
		}
		return fx.editHelper(name, path[i+1:], value, subMap, depth, tf.confirm)
	}
	return nil, nil
}

// editHelper plans setting path to value in the body of helper name,
// which renders the part of the object rendered.
func (fx *fixer) editHelper(name string, path FieldPath, value any, rendered map[string]any, depth int,
	confirm func(root []string, rest int) (string, bool)) (*helperEdit, error) {
	d := fx.index().defines[name]
	if d == nil || d.file == nil {
		return nil, nil
	}
	if d.file.path == "" {
		return nil, unfixablef("the helper %q is in the packaged subchart %s, whose templates helmgov never edits", name, d.file.chart.fullPath)
	}
	data, err := os.ReadFile(d.file.path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", d.file.path, err)
	}
	file := fx.display(d.file.path)
	hf, err := parseSource(file, data, true)
	if err != nil {
		return nil, err
	}
	from, to, ok := hf.defineBody(name)
	if !ok {
		return nil, unfixablef("%s: the body of the helper %q does not stand on lines of its own", file, name)
	}
	body := strings.Join(hf.lines[from-1:to], "\n") + "\n"
	bf, err := parseSource(file, []byte(body), true)
	if err != nil {
		return nil, err
	}
	bf.confirm, bf.vals = confirm, d.file.chart.values
	if len(bf.docs) != 1 || bf.root(0) == nil || bf.root(0).Kind != yaml.MappingNode {
		return nil, unfixablef("%s: the helper %q does not write a mapping", file, name)
	}
	if he, err := fx.helperFor(bf, bf.root(0), path, value, rendered, depth+1); he != nil || err != nil {
		return he, err
	}
	sr, err := bf.set(bf.root(0), path, value, rendered)
	if err != nil {
		return nil, err
	}
	switch {
	case sr.edit == nil && sr.shown != "":
		return nil, unfixablef("%s: %s, which the helper %q renders", file, sr.shown, name)
	case sr.edit == nil:
		return nil, unfixablef("%s: the helper %q takes %s from .Values.%s", file, name, path, strings.Join(sr.values, "."))
	}
	newBody := strings.TrimSuffix(string(bf.apply(*sr.edit)), "\n")
	lines := slices.Concat(hf.lines[:from-1], strings.Split(newBody, "\n"), hf.lines[to:])
	return &helperEdit{name: name, path: d.file.path, data: []byte(strings.Join(lines, "\n")),
		where: fmt.Sprintf("the helper %q (%s)", name, file)}, nil
}

// defineBody returns the lines (1-based, inclusive) of the body of the
// helper name: those between its {{ define }} and its {{ end }}, each on a
// line of its own. ok is false when they share a line with the body.
func (f *srcFile) defineBody(name string) (from, to int, ok bool) {
	defLine, depth := 0, 0
	for _, a := range f.actionsOn(1, len(f.lines)) {
		body := actionBody(a.text)
		switch {
		case defLine == 0:
			if strings.HasPrefix(body, "define ") && strings.Contains(body, `"`+name+`"`) {
				defLine, depth = a.line, 1
			}
		case strings.HasPrefix(body, "if ") || strings.HasPrefix(body, "with ") || strings.HasPrefix(body, "range ") ||
			strings.HasPrefix(body, "define ") || strings.HasPrefix(body, "block "):
			depth++
		case body == "end":
			if depth--; depth == 0 {
				if !f.actionOnly[defLine-1] || !f.actionOnly[a.line-1] || a.line-defLine < 2 {
					return 0, 0, false
				}
				return defLine + 1, a.line - 1, true
			}
		}
	}
	return 0, 0, false
}
