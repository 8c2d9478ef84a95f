package helmgov

// This file holds the template actions around a key in a source: whether its
// value comes from .Values, and from which path.

import (
	"regexp"
	"strconv"
	"strings"
)

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
