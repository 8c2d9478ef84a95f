package helmgov

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// This file edits YAML sources without reformatting them. It parses a file
// with the go.yaml.in/yaml/v3 node API to find where a change belongs, builds
// the new fragment as yaml.v3 nodes and encodes it, then splices the
// fragment into the original bytes at that position. Everything else in the
// file (comments, key order, blank lines, quoting, template actions) stays
// byte for byte, so the diff shows only the change.
//
// Helm templates are not YAML until rendered. Before parsing, every template
// action {{ ... }} is masked with bytes of the same length: a line that holds
// only actions becomes a comment ("#~~~"), an action inside a line becomes
// underscores. Lines and columns therefore match between the masked text
// (which yaml.v3 parses) and the original (which is edited).

// errUnfixable marks a change that cannot be written safely into a source.
var errUnfixable = errors.New("cannot edit the source safely")

func unfixablef(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errUnfixable}, args...)...)
}

// srcFile is one YAML source, masked and parsed.
type srcFile struct {
	name       string
	orig       []byte
	lines      []string // original lines, without their newline
	masked     []string // masked lines, same byte lengths
	actionOnly []bool   // the line holds only template actions
	actions    []span   // template actions, by byte offsets in orig
	docs       []*yaml.Node
}

type span struct{ start, end int }

// parseSource masks template actions (when template is true) and parses the
// file's documents.
func parseSource(name string, data []byte, template bool) (*srcFile, error) {
	f := &srcFile{name: name, orig: data}
	if bareCR(data) {
		// YAML takes a lone CR for a line break; the editor works on
		// LF-separated lines, so its positions would not match.
		return nil, unfixablef("%s: has carriage returns that do not end a CRLF line break; not edited", name)
	}
	masked := slices.Clone(data)
	if template {
		spans, err := findActions(data)
		if err != nil {
			return nil, unfixablef("%s: %v", name, err)
		}
		f.actions = spans
		for _, sp := range spans {
			for i := sp.start; i < sp.end; i++ {
				if masked[i] != '\n' {
					masked[i] = '_'
				}
			}
		}
	}
	f.lines = strings.Split(string(data), "\n")
	ml := strings.Split(string(masked), "\n")
	f.masked = ml
	f.actionOnly = make([]bool, len(ml))
	for i, l := range ml {
		t := strings.TrimLeft(l, " \t")
		if template && t != "" && strings.Trim(t, "_ \t\r") == "" {
			// The line is made of actions only: make it a comment.
			ind := len(l) - len(t)
			b := []byte(l)
			for j := ind; j < len(b); j++ {
				if b[j] == '_' {
					b[j] = '~'
				}
			}
			b[ind] = '#'
			ml[i] = string(b)
			f.actionOnly[i] = true
		}
	}
	dec := yaml.NewDecoder(strings.NewReader(strings.Join(ml, "\n")))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, unfixablef("%s: not YAML once template actions are masked: %v", name, trimYAMLError(err))
		}
		nn := n
		f.docs = append(f.docs, &nn)
	}
	return f, nil
}

// findActions returns the {{ ... }} spans of a Go template, skipping quoted
// strings and comments inside actions.
func findActions(b []byte) ([]span, error) {
	var out []span
	for i := 0; i < len(b); {
		j := bytes.Index(b[i:], []byte("{{"))
		if j < 0 {
			break
		}
		start := i + j
		k := start + 2
		closed := false
		for k < len(b) {
			switch {
			case bytes.HasPrefix(b[k:], []byte("/*")):
				e := bytes.Index(b[k+2:], []byte("*/"))
				if e < 0 {
					return nil, fmt.Errorf("unterminated comment at byte %d", k)
				}
				k += e + 4
			case b[k] == '"' || b[k] == '`' || b[k] == '\'':
				q := b[k]
				k++
				for k < len(b) && b[k] != q {
					if b[k] == '\\' && q != '`' {
						k++
					}
					k++
				}
				k++
			case bytes.HasPrefix(b[k:], []byte("}}")):
				k += 2
				closed = true
			default:
				k++
			}
			if closed {
				break
			}
		}
		if !closed {
			return nil, fmt.Errorf("unterminated action at byte %d", start)
		}
		out = append(out, span{start, k})
		i = k
	}
	return out, nil
}

// root returns the mapping at the top of document i.
func (f *srcFile) root(i int) *yaml.Node {
	d := f.docs[i]
	if len(d.Content) == 0 || d.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	return d.Content[0]
}

// findDoc finds the document that produced an object: the only one of its
// kind, or the one of its kind and literal name. When no document spells
// the kind out, the documents whose kind a template action writes
// (kind: {{ .Values.kind }}) are the candidates.
func (f *srcFile) findDoc(kind, name string) (int, error) {
	var cands, templated []int
	for i := range f.docs {
		r := f.root(i)
		if r == nil {
			continue
		}
		k := mapGet(r, "kind")
		switch {
		case k == nil || k.Kind != yaml.ScalarNode:
		case k.Value == kind:
			cands = append(cands, i)
		case k.Value != "" && strings.Trim(k.Value, "_") == "":
			templated = append(templated, i)
		}
	}
	if len(cands) == 0 {
		cands = templated
	}
	if len(cands) > 1 {
		var named []int
		for _, i := range cands {
			if n := mapGet(mapGet(f.root(i), "metadata"), "name"); n != nil && n.Value == name {
				named = append(named, i)
			}
		}
		cands = named
	}
	switch len(cands) {
	case 1:
		return cands[0], nil
	case 0:
		return 0, unfixablef("%s: no document of kind %s named %s (is the kind or name templated?)", f.name, kind, name)
	}
	return 0, unfixablef("%s: several documents of kind %s could be %s", f.name, kind, name)
}

func mapGet(m *yaml.Node, key string) *yaml.Node {
	_, v := mapEntry(m, key)
	return v
}

func mapEntry(m *yaml.Node, key string) (k, v *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key && m.Content[i].Kind == yaml.ScalarNode {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// bareCR reports whether data holds a CR that is not followed by LF.
func bareCR(data []byte) bool {
	for i, b := range data {
		if b == '\r' && (i+1 == len(data) || data[i+1] != '\n') {
			return true
		}
	}
	return false
}

// byteCol converts a node's 1-based rune column into a byte offset on its
// line. A line outside the file gives 0.
func (f *srcFile) byteCol(line, col int) int {
	if line < 1 || line > len(f.masked) {
		return 0
	}
	l := f.masked[line-1]
	off := 0
	for c := 1; c < col && off < len(l); c++ {
		_, size := utf8.DecodeRuneInString(l[off:])
		off += size
	}
	return off
}

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// valuesRef finds .Values.a.b references in template actions.
var valuesRef = regexp.MustCompile(`(?:^|[\s(|$])\$?\.Values((?:\.[A-Za-z0-9_-]+)+)`)

// actionAt is a template action and the line (1-based) it starts on.
type actionAt struct {
	text string
	line int
}

// actionsOn returns the actions that touch lines [from, to] (1-based,
// inclusive), in order.
func (f *srcFile) actionsOn(from, to int) []actionAt {
	var out []actionAt
	lineStart := make([]int, len(f.lines)+1)
	for i, l := range f.lines {
		lineStart[i+1] = lineStart[i] + len(l) + 1
	}
	if from < 1 {
		from = 1
	}
	if to > len(f.lines) {
		to = len(f.lines)
	}
	if from > to {
		return nil
	}
	lo, hi := lineStart[from-1], lineStart[to]
	for _, a := range f.actions {
		if a.end > lo && a.start < hi {
			line := from
			for line < to && lineStart[line] <= a.start {
				line++
			}
			out = append(out, actionAt{text: string(f.orig[a.start:a.end]), line: line})
		}
	}
	return out
}

// actionBody is the text of an action without its delimiters and trim
// markers.
func actionBody(a string) string {
	a = strings.TrimSuffix(strings.TrimPrefix(a, "{{"), "}}")
	if strings.HasPrefix(a, "- ") || strings.HasPrefix(a, "-\t") || strings.HasPrefix(a, "-\n") {
		a = a[1:]
	}
	if strings.HasSuffix(a, " -") || strings.HasSuffix(a, "\t-") || strings.HasSuffix(a, "\n-") {
		a = a[:len(a)-1]
	}
	return strings.TrimSpace(a)
}

var (
	toYamlDot = regexp.MustCompile(`(toYaml|tpl)\s+\.\s*(\||$|\))`)
	nindentN  = regexp.MustCompile(`\bn?indent\s+(\d+)`)
)

// valuesBinding decides whether the value of the key on keyLine comes from
// .Values: it reads the actions in the lines just above the key (a
// `with .Values.x` that wraps it), on its line, and in its block. It returns
// the values path read through toYaml, tpl, with (a helper given the with's
// value, as in include "render" (dict "value" .)) or range, and how it is
// read ("toYaml", "range", ...); when several are read, the one whose last
// key is the key's own (service.annotations rather than
// commonAnnotations for annotations); nil when the value does not come
// from values, or it cannot tell which.
//
// With childInd >= 0 only the actions that write entries at that
// indentation count (an action-only line indented so, or an nindent of
// it): the actions that write the entries of the key's own mapping, not
// those of a key below it.
func (f *srcFile) valuesBinding(keyLine, blockEnd, childInd int) ([]string, string) {
	key := ""
	if keyLine >= 1 && keyLine <= len(f.masked) {
		key, _, _ = strings.Cut(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(f.masked[keyLine-1]), "- ")), ":")
	}
	from := keyLine
	for from-1 >= 1 && f.actionOnly[from-2] {
		from--
	}
	var withPath []string
	paths := map[string]string{}
	writes := func(a actionAt, body string) bool {
		if childInd < 0 {
			return true
		}
		if m := nindentN.FindStringSubmatch(body); m != nil {
			return m[1] == strconv.Itoa(childInd)
		}
		return f.actionOnly[a.line-1] && indentOf(f.lines[a.line-1]) == childInd
	}
	for _, a := range f.actionsOn(from, blockEnd) {
		body := actionBody(a.text)
		refs := valuesRef.FindAllStringSubmatch(" "+body, -1)
		switch {
		case strings.HasPrefix(body, "range "):
			// range $k, $v := .Values.x writes the entries of x.
			if writes(a, body) {
				for _, r := range refs {
					paths[strings.TrimPrefix(r[1], ".")] = "range"
				}
			}
		case strings.HasPrefix(body, "with "):
			if len(refs) == 1 {
				withPath = strings.Split(strings.TrimPrefix(refs[0][1], "."), ".")
			}
		case strings.Contains(body, "toYaml") || strings.Contains(body, "tpl "):
			if !writes(a, body) {
				continue
			}
			via := "toYaml"
			if !strings.Contains(body, "toYaml") {
				via = "tpl"
			}
			if len(refs) == 0 && withPath != nil && toYamlDot.MatchString(body) {
				paths[strings.Join(withPath, ".")] = "with and " + via
			}
			for _, r := range refs {
				paths[strings.TrimPrefix(r[1], ".")] = via
			}
		case strings.Contains(body, "include ") && withPath != nil && dotArg.MatchString(body):
			// A helper that renders the with's value.
			if writes(a, body) {
				paths[strings.Join(withPath, ".")] = "with and a helper"
			}
		}
	}
	if len(paths) > 1 && key != "" {
		for p := range paths {
			if p != key && !strings.HasSuffix(p, "."+key) {
				delete(paths, p)
			}
		}
	}
	if len(paths) != 1 {
		return nil, ""
	}
	for p, via := range paths {
		return strings.Split(p, "."), via
	}
	return nil, ""
}

// dotArg matches a pipeline that passes . itself as an argument, as in
// (dict "value" . "context" $).
var dotArg = regexp.MustCompile(`(?:^|[\s(])\.(?:[\s)]|$)`)

// actionAfter reports whether a template action starts on the line at or
// after the byte offset.
func (f *srcFile) actionAfter(line, off int) bool {
	start := 0
	for i := 0; i < line-1; i++ {
		start += len(f.lines[i]) + 1
	}
	for _, a := range f.actions {
		if a.start >= start+off && a.start < start+len(f.lines[line-1]) {
			return true
		}
	}
	return false
}

// scalarBinding returns the values path an inline action on a scalar's line
// reads, as in `replicas: {{ .Values.replicas }}`.
func (f *srcFile) scalarBinding(line int) []string {
	paths := map[string]bool{}
	for _, a := range f.actionsOn(line, line) {
		for _, r := range valuesRef.FindAllStringSubmatch(" "+actionBody(a.text), -1) {
			paths[strings.TrimPrefix(r[1], ".")] = true
		}
	}
	if len(paths) != 1 {
		return nil
	}
	for p := range paths {
		return strings.Split(p, ".")
	}
	return nil
}

// blockEnd returns the last line (1-based) that belongs to the value of a
// key or to the entries of a block mapping: lines after `from` that are
// blank, comments or masked actions indented at least `indent`, content
// indented deeper than `indent`, and "- " items at `indent` when allowSeq.
// Trailing blank lines and trailing actions that open a block are left out.
func (f *srcFile) blockEnd(from, indent int, allowSeq bool) int {
	end := from
	for i := from; i < len(f.masked); i++ { // i is the 0-based index of line i+1
		l := f.masked[i]
		t := strings.TrimSpace(l)
		ind := indentOf(l)
		switch {
		case t == "":
			continue
		case strings.HasPrefix(l, "---") || strings.HasPrefix(l, "..."):
			return f.trimEnd(from, end)
		case strings.HasPrefix(t, "#"):
			if ind < indent {
				return f.trimEnd(from, end)
			}
		case ind > indent:
		case ind == indent && allowSeq && (t == "-" || strings.HasPrefix(t, "- ")):
		default:
			return f.trimEnd(from, end)
		}
		end = i + 1
	}
	return f.trimEnd(from, end)
}

var opensBlock = regexp.MustCompile(`^\{\{-?\s*(if|with|range|define|block)\b`)

func (f *srcFile) trimEnd(from, end int) int {
	for end > from {
		l := strings.TrimSpace(f.lines[end-1])
		if l == "" || (f.actionOnly[end-1] && opensBlock.MatchString(l)) {
			end--
			continue
		}
		break
	}
	return end
}

// textEdit replaces bytes [start, end) of line (1-based) and inserts whole
// lines after it.
type textEdit struct {
	line       int
	start, end int // byte offsets on the line; start == end == -1: no replacement
	repl       string
	insert     []string // lines inserted after line
}

func (f *srcFile) apply(e textEdit) []byte {
	lines := slices.Clone(f.lines)
	if e.start >= 0 {
		l := lines[e.line-1]
		lines[e.line-1] = l[:e.start] + e.repl + l[e.end:]
	}
	if len(e.insert) > 0 {
		lines = slices.Insert(lines, e.line, e.insert...)
	}
	return []byte(strings.Join(lines, "\n"))
}

// setResult is what set found: an edit of this file, or a values binding to
// follow instead.
type setResult struct {
	edit *textEdit
	// appended is true when the edit adds a key the file did not spell out.
	appended bool
	values   []string // the .Values path that holds the rest of the change
	rest     []string // the keys below the values path
	// via says how the template reads values: "toYaml", "range", "with
	// and toYaml", "tpl", "a reference".
	via string
}

// set plans setting path (keys and named items) to value under mapping m.
// rendered is the object the source rendered (nil for a values file): a
// key that the source does not spell out but the object holds was made by a
// template action, and is followed to values or left alone.
func (f *srcFile) set(m *yaml.Node, path FieldPath, value any, rendered map[string]any) (setResult, error) {
	unit := f.indentUnit()
	cur := m
	var parentKey *yaml.Node // the key whose value cur is
	for i, step := range path {
		if step.Item != "" {
			if cur.Kind != yaml.SequenceNode {
				return setResult{}, unfixablef("%s:%d: want a list for [name=%s]", f.name, cur.Line, step.Item)
			}
			var match []*yaml.Node
			for _, it := range cur.Content {
				if n := mapGet(it, "name"); n != nil && n.Value == step.Item {
					match = append(match, it)
				}
			}
			if len(match) == 0 && len(cur.Content) == 1 && cur.Content[0].Kind == yaml.MappingNode {
				match = cur.Content // a single item, whose name is templated
			}
			if len(match) != 1 {
				return setResult{}, unfixablef("%s:%d: cannot tell which list item is %q", f.name, cur.Line, step.Item)
			}
			cur = match[0]
			continue
		}
		if cur.Kind != yaml.MappingNode {
			return setResult{}, unfixablef("%s:%d: want a mapping at %s", f.name, cur.Line, path[:i])
		}
		rest := path[i:]
		k, v := mapEntry(cur, step.Key)
		if cur.Style&yaml.FlowStyle != 0 && (k == nil || i == len(path)-1 || v.Style&yaml.FlowStyle != 0) {
			// Rewriting inside {...} would need a flow-aware splice.
			return setResult{}, unfixablef("%s:%d: cannot set %s inside a flow mapping", f.name, cur.Line, step.Key)
		}
		if k == nil && rendered != nil && hasPath(rendered, path[:i+1]) {
			// The object has the key, the template does not spell it: an
			// action writes it. Follow the action to values, if it reads them.
			if parentKey != nil && !slices.ContainsFunc(rest, func(s PathStep) bool { return s.Item != "" }) {
				pInd := f.byteCol(parentKey.Line, parentKey.Column)
				if b, via := f.valuesBinding(parentKey.Line, f.blockEnd(parentKey.Line, pInd, true), -1); b != nil {
					return setResult{values: b, rest: keys(rest), via: via}, nil
				}
			}
			return setResult{}, unfixablef("%s:%d: %s is written by a template action that does not read .Values", f.name, cur.Line, path[:i+1])
		}
		if k == nil && parentKey != nil && len(cur.Content) > 0 && !slices.ContainsFunc(rest, func(s PathStep) bool { return s.Item != "" }) {
			// The key is not spelled out, but an action may write the
			// same mapping's entries from values (a range or toYaml next to
			// the literal keys): set it there, never beside the action,
			// where a value with the same key would repeat it.
			pInd := f.byteCol(parentKey.Line, parentKey.Column)
			childInd := f.byteCol(cur.Content[0].Line, cur.Content[0].Column)
			if b, via := f.valuesBinding(parentKey.Line, f.blockEnd(parentKey.Line, pInd, true), childInd); b != nil {
				return setResult{values: b, rest: keys(rest), via: via}, nil
			}
		}
		if k == nil {
			keyInd := f.byteCol(cur.Content[0].Line, cur.Content[0].Column)
			lastKey := cur.Content[len(cur.Content)-2]
			end := f.blockEnd(lastKey.Line, keyInd, true)
			lines, err := encodeBlock(rest, value, keyInd, unit)
			if err != nil {
				return setResult{}, err
			}
			return setResult{edit: &textEdit{line: end, start: -1, end: -1, insert: lines}, appended: true}, nil
		}
		keyInd := f.byteCol(k.Line, k.Column)
		end := f.blockEnd(k.Line, keyInd, true)
		if len(f.actions) > 0 {
			if v.Kind == yaml.ScalarNode && v.Line == k.Line && f.actionAfter(v.Line, f.byteCol(v.Line, v.Column)) {
				if b := f.scalarBinding(v.Line); b != nil {
					return setResult{values: b, rest: keys(rest[1:]), via: "a reference"}, nil
				}
				return setResult{}, unfixablef("%s:%d: %s is computed by a template action", f.name, k.Line, step.Key)
			}
			if f.templatedValue(v) {
				b, via := f.valuesBinding(k.Line, end, -1)
				if b == nil && len(f.actionsOn(k.Line, end)) > 0 {
					// Writing entries beside the actions would repeat a key
					// they write.
					return setResult{}, unfixablef("%s:%d: %s is written by template actions that do not read one value", f.name, k.Line, step.Key)
				}
				if b != nil {
					if slices.ContainsFunc(rest[1:], func(s PathStep) bool { return s.Item != "" }) {
						return setResult{}, unfixablef("%s:%d: %s comes from .Values.%s, and the change selects a list item", f.name, k.Line, step.Key, strings.Join(b, "."))
					}
					return setResult{values: b, rest: keys(rest[1:]), via: via}, nil
				}
			}
		}
		last := i == len(path)-1
		switch {
		case last || (v.Kind == yaml.ScalarNode && v.Tag == "!!null") || (v.Kind == yaml.MappingNode && len(v.Content) == 0):
			if cur.Style&yaml.FlowStyle != 0 {
				// An empty value inside {...}: the block that replaces it
				// would break the flow mapping.
				return setResult{}, unfixablef("%s:%d: cannot set %s inside a flow mapping", f.name, k.Line, step.Key)
			}
			return f.replaceValue(k, v, rest[1:], value, keyInd, unit)
		case v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode:
			cur, parentKey = v, k
		default:
			return setResult{}, unfixablef("%s:%d: %s is a scalar, want a mapping", f.name, k.Line, step.Key)
		}
	}
	return setResult{}, unfixablef("%s: empty path", f.name)
}

// templatedValue reports whether a value is made by template actions rather
// than written out: empty (the actions are masked comments), or a mapping
// whose keys are themselves actions.
func (f *srcFile) templatedValue(v *yaml.Node) bool {
	switch {
	case v.Kind == yaml.ScalarNode:
		return v.Tag == "!!null"
	case v.Kind == yaml.MappingNode && len(v.Content) == 0:
		return true
	case v.Kind == yaml.MappingNode:
		for i := 0; i < len(v.Content); i += 2 {
			k := v.Content[i]
			if k.Kind == yaml.ScalarNode && f.actionAfter(k.Line, f.byteCol(k.Line, k.Column)) &&
				strings.Trim(k.Value, "_") == "" {
				return true
			}
		}
	}
	return false
}

// hasPath reports whether an object holds a value at the path.
func hasPath(obj map[string]any, p FieldPath) bool {
	var cur any = obj
	for _, step := range p {
		if step.Item != "" {
			list, _ := cur.([]any)
			found := false
			for _, it := range list {
				if m, ok := it.(map[string]any); ok && m["name"] == step.Item {
					cur, found = m, true
					break
				}
			}
			if !found {
				return false
			}
			continue
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if cur, ok = m[step.Key]; !ok {
			return false
		}
	}
	return true
}

func keys(p FieldPath) []string {
	out := make([]string, len(p))
	for i, s := range p {
		out[i] = s.Key
	}
	return out
}

// replaceValue replaces the value of key k with rest->value. A scalar stays
// on the key's line; a mapping goes into lines below it.
func (f *srcFile) replaceValue(k, v *yaml.Node, rest FieldPath, value any, keyInd, unit int) (setResult, error) {
	if v.Kind == yaml.ScalarNode && v.Tag != "!!null" && (v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 || v.Line != k.Line) {
		return setResult{}, unfixablef("%s:%d: %s holds a multi-line value", f.name, k.Line, k.Value)
	}
	if list, ok := value.([]any); ok && len(rest) == 0 && v.Kind == yaml.SequenceNode && len(v.Content) > 0 {
		return f.replaceItem(k, v, list)
	}
	if v.Kind == yaml.MappingNode && len(v.Content) > 0 || v.Kind == yaml.SequenceNode && len(v.Content) > 0 {
		return setResult{}, unfixablef("%s:%d: %s already holds a value of another shape", f.name, k.Line, k.Value)
	}
	if v.Line != k.Line && !(v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
		return setResult{}, unfixablef("%s:%d: %s's value is not on its line", f.name, k.Line, k.Value)
	}
	line := f.masked[k.Line-1]
	colon := f.afterKey(k)
	if colon < 0 {
		return setResult{}, unfixablef("%s:%d: cannot find the colon after %s", f.name, k.Line, k.Value)
	}
	valEnd := len(strings.TrimRight(line, " \t\r"))
	if c := lineCommentStart(line, colon); c >= 0 {
		valEnd = len(strings.TrimRight(line[:c], " \t"))
	}
	tail := ""
	if valEnd < len(line) {
		tail = line[valEnd:]
		if strings.TrimSpace(tail) != "" && !strings.HasPrefix(tail, " ") {
			tail = " " + tail
		}
	}
	if len(rest) == 0 && !isCollection(value) {
		s, err := encodeScalar(value)
		if err != nil {
			return setResult{}, err
		}
		return setResult{edit: &textEdit{line: k.Line, start: colon, end: len(line), repl: " " + s + tail}}, nil
	}
	lines, err := encodeBlock(rest, value, keyInd+unit, unit)
	if err != nil {
		return setResult{}, err
	}
	if strings.TrimSpace(tail) == "" {
		tail = ""
	}
	return setResult{edit: &textEdit{line: k.Line, start: colon, end: len(line), repl: tail, insert: lines}}, nil
}

// replaceItem sets the list of strings v (the value of key k) to list, when
// the two differ in exactly one item: it rewrites that item's text where it
// stands, in its own quoting, and leaves the rest of the list as written.
// This is how a fix raises the argument of sleep in an exec command. A list
// of another length, an item that is not a one-line scalar, or one that a
// template action writes is unfixable.
func (f *srcFile) replaceItem(k, v *yaml.Node, list []any) (setResult, error) {
	if len(list) != len(v.Content) {
		return setResult{}, unfixablef("%s:%d: %s has %d items, the change %d", f.name, k.Line, k.Value, len(v.Content), len(list))
	}
	at, want := -1, ""
	for i, n := range v.Content {
		s, ok := list[i].(string)
		if !ok || n.Kind != yaml.ScalarNode {
			return setResult{}, unfixablef("%s:%d: %s is not a list of strings", f.name, n.Line, k.Value)
		}
		if n.Value == s {
			continue
		}
		if at >= 0 {
			return setResult{}, unfixablef("%s:%d: the change rewrites more than one item of %s", f.name, n.Line, k.Value)
		}
		at, want = i, s
	}
	if at < 0 {
		return setResult{}, unfixablef("%s:%d: %s already holds the list", f.name, k.Line, k.Value)
	}
	n := v.Content[at]
	start, end, ok := f.scalarSpan(n, v.Style&yaml.FlowStyle != 0)
	if !ok {
		return setResult{}, unfixablef("%s:%d: item %d of %s is not a one-line scalar", f.name, n.Line, at+1, k.Value)
	}
	if f.lines[n.Line-1][start:end] != f.masked[n.Line-1][start:end] {
		return setResult{}, unfixablef("%s:%d: item %d of %s is written by a template action", f.name, n.Line, at+1, k.Value)
	}
	repl, err := encodeItem(want, n.Style, v.Style&yaml.FlowStyle != 0)
	if err != nil {
		return setResult{}, err
	}
	return setResult{edit: &textEdit{line: n.Line, start: start, end: end, repl: repl}}, nil
}

// scalarSpan returns the byte span of scalar n on its line: from its first
// byte to the end of its closing quote, or, for a plain scalar, to the
// comment, the flow indicator (inFlow) or the end of the line. ok is false
// unless the span, parsed alone, gives the scalar's value: a scalar that
// runs over several lines, or a span this reading got wrong, is refused.
func (f *srcFile) scalarSpan(n *yaml.Node, inFlow bool) (start, end int, ok bool) {
	if n.Line < 1 || n.Line > len(f.masked) {
		return 0, 0, false
	}
	line := f.masked[n.Line-1]
	start = f.byteCol(n.Line, n.Column)
	if start >= len(line) {
		return 0, 0, false
	}
	switch n.Style {
	case yaml.DoubleQuotedStyle:
		end = -1
		for i := start + 1; i < len(line); i++ {
			if line[i] == '\\' {
				i++
				continue
			}
			if line[i] == '"' {
				end = i + 1
				break
			}
		}
	case yaml.SingleQuotedStyle:
		end = -1
		for i := start + 1; i < len(line); i++ {
			if line[i] == '\'' {
				if i+1 < len(line) && line[i+1] == '\'' {
					i++
					continue
				}
				end = i + 1
				break
			}
		}
	case 0:
		end = len(line)
		if c := lineCommentStart(line, start); c >= 0 {
			end = c
		}
		if inFlow {
			if i := strings.IndexAny(line[start:end], ",]}"); i >= 0 {
				end = start + i
			}
		}
		end = start + len(strings.TrimRight(line[start:end], " \t\r"))
	default:
		return 0, 0, false
	}
	if end <= start {
		return 0, 0, false
	}
	var chk yaml.Node
	if err := yaml.Unmarshal([]byte(line[start:end]), &chk); err != nil || len(chk.Content) != 1 ||
		chk.Content[0].Kind != yaml.ScalarNode || chk.Content[0].Value != n.Value {
		return 0, 0, false
	}
	return start, end, true
}

// encodeItem encodes s as one list item, in the quoting style of the item
// it replaces where that can hold it; in a flow list, a plain scalar that
// would hold a flow indicator is double-quoted.
func encodeItem(s string, style yaml.Style, inFlow bool) (string, error) {
	enc := func(st yaml.Style) (string, error) {
		out, err := yaml.Marshal(&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: st})
		if err != nil {
			return "", err
		}
		r := strings.TrimSuffix(string(out), "\n")
		if strings.Contains(r, "\n") {
			return "", unfixablef("value %q does not fit on one line", s)
		}
		return r, nil
	}
	st := style & (yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle)
	r, err := enc(st)
	if err == nil && st == 0 && inFlow && strings.ContainsAny(r, ",[]{}") {
		return enc(yaml.DoubleQuotedStyle)
	}
	return r, err
}

// afterKey returns the byte offset just after the colon that ends key k.
func (f *srcFile) afterKey(k *yaml.Node) int {
	line := f.masked[k.Line-1]
	i := f.byteCol(k.Line, k.Column)
	switch k.Style {
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		q := line[i]
		i++
		for i < len(line) && line[i] != q {
			if line[i] == '\\' && q == '"' {
				i++
			}
			i++
		}
		i++
	default:
		i += len(k.Value)
	}
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i >= len(line) || line[i] != ':' {
		return -1
	}
	return i + 1
}

// lineCommentStart returns the byte offset of a " #" comment after from, or
// -1. Quotes are honoured.
func lineCommentStart(line string, from int) int {
	var q byte
	for i := from; i < len(line); i++ {
		c := line[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '"' || c == '\'':
			q = c
		case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return i
		}
	}
	return -1
}

func isCollection(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// indentUnit guesses the file's indentation step from its first nested
// mapping; 2 when there is none.
func (f *srcFile) indentUnit() int {
	var find func(n *yaml.Node, parentCol int) int
	find = func(n *yaml.Node, parentCol int) int {
		if n.Kind == yaml.MappingNode && n.Style&yaml.FlowStyle == 0 && len(n.Content) > 0 {
			col := n.Content[0].Column
			if parentCol > 0 && col > parentCol {
				return col - parentCol
			}
			for i := 1; i < len(n.Content); i += 2 {
				if u := find(n.Content[i], col); u > 0 {
					return u
				}
			}
		}
		return 0
	}
	for _, d := range f.docs {
		if len(d.Content) > 0 {
			if u := find(d.Content[0], 0); u > 0 && u <= 8 {
				return u
			}
		}
	}
	return 2
}

// encodeScalar encodes a scalar as yaml.v3 would write it on one line.
func encodeScalar(v any) (string, error) {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return "", err
	}
	out, err := yaml.Marshal(&n)
	if err != nil {
		return "", err
	}
	s := strings.TrimSuffix(string(out), "\n")
	if strings.Contains(s, "\n") {
		return "", unfixablef("value %v does not fit on one line", v)
	}
	return s, nil
}

// encodeBlock encodes {rest[0]: {rest[1]: ... value}} as block YAML, with
// each line indented by indent spaces.
func encodeBlock(rest FieldPath, value any, indent, unit int) ([]string, error) {
	node := &yaml.Node{}
	if err := node.Encode(value); err != nil {
		return nil, err
	}
	for i := len(rest) - 1; i >= 0; i-- {
		if rest[i].Item != "" {
			return nil, unfixablef("cannot create the list item %q", rest[i].Item)
		}
		node = &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: rest[i].Key}, node}}
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(unit)
	if err := enc.Encode(node); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	pad := strings.Repeat(" ", indent)
	var lines []string
	for l := range strings.SplitSeq(strings.TrimSuffix(b.String(), "\n"), "\n") {
		lines = append(lines, pad+l)
	}
	return lines, nil
}
