package helmgov

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
//
// The editor is four files: yamlsource.go masks and parses a source,
// yamlbind.go reads the template actions around a key, yamlencode.go
// encodes the new fragment, and this file finds where a change belongs and
// splices it in (srcFile.set).

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// errUnfixable marks a change that cannot be written safely into a source.
var errUnfixable = errors.New("cannot edit the source safely")

func unfixablef(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errUnfixable}, args...)...)
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
	// shown says what the renderer showed of the binding, when it was
	// asked (srcFile.confirm).
	shown string
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
			if len(match) == 0 {
				match = templatedItem(cur, step.Item)
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
				if b, via := f.valuesBinding(parentKey.Line, f.blockEnd(parentKey.Line, pInd, true), -1); f.follow(b, len(rest)) {
					return setResult{values: b, rest: keys(rest), via: via, shown: f.shown}, nil
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
			if b, via := f.valuesBinding(parentKey.Line, f.blockEnd(parentKey.Line, pInd, true), childInd); f.follow(b, len(rest)) {
				return setResult{values: b, rest: keys(rest), via: via, shown: f.shown}, nil
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
				if b := f.scalarBinding(v.Line); f.follow(b, len(rest)-1) {
					return setResult{values: b, rest: keys(rest[1:]), via: "a reference", shown: f.shown}, nil
				}
				return setResult{}, unfixablef("%s:%d: %s is computed by a template action", f.name, k.Line, step.Key)
			}
			if f.templatedValue(v) {
				b, via := f.valuesBinding(k.Line, end, -1)
				if !f.follow(b, len(rest)-1) {
					b = nil
				}
				if b == nil && len(f.actionsOn(k.Line, end)) > 0 {
					// Writing entries beside the actions would repeat a key
					// they write.
					return setResult{}, unfixablef("%s:%d: %s is written by template actions that do not read one value", f.name, k.Line, step.Key)
				}
				if b != nil {
					if slices.ContainsFunc(rest[1:], func(s PathStep) bool { return s.Item != "" }) {
						return setResult{}, unfixablef("%s:%d: %s comes from .Values.%s, and the change selects a list item", f.name, k.Line, step.Key, strings.Join(b, "."))
					}
					return setResult{values: b, rest: keys(rest[1:]), via: via, shown: f.shown}, nil
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

// templatedItem finds the item of a list whose name, written partly by
// template actions (masked: "_____-reload"), can render as name: the one
// whose literal text fits, the most literal of them when several do (a
// name of only an action fits any). None when that is not one item.
func templatedItem(list *yaml.Node, name string) []*yaml.Node {
	best, bestLit, tie := (*yaml.Node)(nil), -1, false
	for _, it := range list.Content {
		n := mapGet(it, "name")
		if n == nil || n.Kind != yaml.ScalarNode || !strings.Contains(n.Value, "_") {
			continue
		}
		var parts []string
		lit := 0
		for _, p := range strings.FieldsFunc(n.Value, func(r rune) bool { return r == '_' }) {
			parts = append(parts, regexp.QuoteMeta(p))
			lit += len(p)
		}
		re := "^" + strings.Join(parts, ".*") + "$"
		if strings.HasPrefix(n.Value, "_") {
			re = "^.*" + re[1:]
		}
		if strings.HasSuffix(n.Value, "_") && len(parts) > 0 {
			re = re[:len(re)-1] + ".*$"
		}
		if ok, err := regexp.MatchString(re, name); err != nil || !ok {
			continue
		}
		switch {
		case lit > bestLit:
			best, bestLit, tie = it, lit, false
		case lit == bestLit:
			tie = true
		}
	}
	if best == nil || tie {
		return nil
	}
	return []*yaml.Node{best}
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
