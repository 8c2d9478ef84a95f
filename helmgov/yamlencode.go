package helmgov

// This file holds values encoded as YAML fragments (scalars, list items and
// blocks) in the file's own indentation.

import (
	"bytes"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

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
