package helmgov

// This file holds a YAML source masked (template actions hidden with same-
// length placeholders) and parsed with yaml.v3, its documents found, and the
// layout of its lines (where a key's block ends).

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// srcFile is one YAML source, masked and parsed.
type srcFile struct {
	name       string
	orig       []byte
	lines      []string // original lines, without their newline
	masked     []string // masked lines, same byte lengths
	actionOnly []bool   // the line holds only template actions
	actions    []span   // template actions, by byte offsets in orig
	docs       []*yaml.Node
	// confirm, when set, asks the renderer whether a values path (in the
	// root chart's values) writes the part of the object that holds the
	// change but its last rest keys; set follows the template reader's
	// binding to values only when it does. vals is the values path of the
	// file's chart.
	// shown is what the renderer showed of the last binding followed.
	confirm func(root []string, rest int) (shown string, ok bool)
	vals    []string
	shown   string
}

// follow reports whether set follows a binding of the change to values
// (nil: none): the renderer confirms it, or there is no renderer to ask.
func (f *srcFile) follow(b []string, rest int) bool {
	f.shown = ""
	if b == nil || f.confirm == nil {
		return b != nil
	}
	shown, ok := f.confirm(rootValuesPath(chartInfo{values: f.vals}, b), rest)
	f.shown = shown
	return ok
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
