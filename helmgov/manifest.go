package helmgov

// This file holds [ReadManifests]: a manifest stream read as raw objects
// ([Object]), with where each came from ([Source]).

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Object is one Kubernetes object of a manifest stream, kept as the raw
// JSON-compatible tree the YAML held. helmgov never needs the object's Go
// type or its CRD to read it: it goes by apiVersion and kind.
type Object struct {
	// APIVersion is the object's apiVersion, for example "apps/v1".
	APIVersion string `json:"apiVersion"`
	// Kind is the object's kind, for example "Deployment".
	Kind string `json:"kind"`
	// Name is metadata.name.
	Name string `json:"name"`
	// Namespace is metadata.namespace as written; empty for cluster-scoped
	// objects and for namespaced objects that rely on the release namespace.
	Namespace string `json:"namespace,omitempty"`
	// Source says where the object came from.
	Source Source `json:"source"`
	// Fields is the whole object: maps of string keys, []any, string, bool,
	// int64, float64 and nil.
	Fields map[string]any `json:"-"`
}

// Source locates an object in the input.
type Source struct {
	// File is the file that holds the object: the manifest file given to
	// [ReadManifests], or, for a rendered chart, the template file on disk
	// when helmgov could map it (otherwise the chart directory).
	File string `json:"file"`
	// Template is Helm's "# Source:" name of the template that produced the
	// object, such as "web/templates/service.yaml"; empty for plain
	// manifests.
	Template string `json:"template,omitempty"`
	// Doc is the 1-based index of the object's document in its stream.
	Doc int `json:"doc"`
	// Line is the 1-based line where the object starts in File. For a
	// rendered chart it is the line of the template document that renders
	// the object, or 1 when that cannot be told; 0 when File is the chart
	// directory.
	Line int `json:"line,omitempty"`
}

// String is "file:line", with the template in parentheses when the file
// does not already say it.
func (s Source) String() string {
	where := s.File
	if s.Line > 0 {
		where = fmt.Sprintf("%s:%d", where, s.Line)
	}
	if s.Template != "" && !strings.HasSuffix(s.File, strings.TrimPrefix(s.Template, templateRoot(s.Template))) {
		where += " (" + s.Template + ")"
	}
	return where
}

// templateRoot is the chart-name prefix of a "# Source:" name.
func templateRoot(t string) string {
	if i := strings.IndexByte(t, '/'); i >= 0 {
		return t[:i+1]
	}
	return ""
}

// ObjectRef names an object in findings and reports.
type ObjectRef struct {
	// APIVersion is the object's apiVersion.
	APIVersion string `json:"apiVersion"`
	// Kind is the object's kind.
	Kind string `json:"kind"`
	// Namespace is empty for cluster-scoped objects. In findings it is the
	// effective namespace (the default one when the object names none).
	Namespace string `json:"namespace,omitempty"`
	// Name is metadata.name.
	Name string `json:"name"`
}

// String is "Kind namespace/name", or "Kind name" when cluster-scoped.
func (r ObjectRef) String() string {
	if r.Namespace == "" {
		return r.Kind + " " + r.Name
	}
	return r.Kind + " " + r.Namespace + "/" + r.Name
}

// Ref returns the object's reference, with the namespace as written.
func (o *Object) Ref() ObjectRef {
	return ObjectRef{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}
}

// GroupVersionKind parses APIVersion and Kind. A malformed apiVersion gives
// an empty group and version.
func (o *Object) GroupVersionKind() schema.GroupVersionKind {
	gv, err := schema.ParseGroupVersion(o.APIVersion)
	if err != nil {
		return schema.GroupVersionKind{Kind: o.Kind}
	}
	return gv.WithKind(o.Kind)
}

// Annotations returns metadata.annotations with their string values.
// Values that are not strings are left out.
func (o *Object) Annotations() map[string]string {
	return stringMap(o.Fields, "metadata", "annotations")
}

// Labels returns metadata.labels with their string values.
func (o *Object) Labels() map[string]string { return stringMap(o.Fields, "metadata", "labels") }

// maxDocuments bounds the documents of one stream, and maxStreamBytes its
// size, so that a hostile stream cannot exhaust memory.
const (
	maxDocuments   = 100_000
	maxStreamBytes = 256 << 20
)

// ReadManifests reads a YAML stream of Kubernetes objects, such as the output
// of `helm template` or `kubectl get -o yaml`. name is the stream's name in
// errors and sources, usually its file path.
//
// Empty documents and documents that hold only comments are skipped. A List
// (kind "List" or "*List" with items) is expanded into its items. Helm's
// "# Source: <template>" comments are recorded in each object's
// [Source.Template].
//
// An invalid stream gives a [*ManifestError] naming the file, the document
// and the line, and no objects: a partly read stream is never returned.
func ReadManifests(r io.Reader, name string) ([]Object, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxStreamBytes+1))
	if err != nil {
		return nil, &ManifestError{File: name, Err: err}
	}
	if len(data) > maxStreamBytes {
		return nil, &ManifestError{File: name, Err: fmt.Errorf("stream is larger than %d bytes", maxStreamBytes)}
	}
	return readManifests(data, name, "")
}

func readManifests(data []byte, name, template string) (objs []Object, err error) {
	defer func() {
		// yaml.v3 turns its own failures into errors; this only guards the
		// promise that bad input never panics.
		if p := recover(); p != nil {
			objs, err = nil, &ManifestError{File: name, Err: fmt.Errorf("yaml decoder failed: %v", p)}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for doc := 1; ; doc++ {
		if doc > maxDocuments {
			return nil, &ManifestError{File: name, Err: fmt.Errorf("more than %d documents", maxDocuments)}
		}
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, &ManifestError{File: name, Doc: doc, Line: yamlErrorLine(err), Template: template, Err: trimYAMLError(err)}
		}
		tpl := template
		if t := sourceComment(&n); t != "" {
			tpl = t
		}
		if len(n.Content) == 0 || (n.Content[0].Kind == yaml.ScalarNode && n.Content[0].Tag == "!!null") {
			continue // an empty document, or only comments
		}
		root := n.Content[0]
		src := Source{File: name, Template: tpl, Doc: doc, Line: root.Line}
		if root.Kind != yaml.MappingNode {
			return nil, &ManifestError{File: name, Doc: doc, Line: root.Line, Template: tpl, Err: errors.New("document is not a mapping")}
		}
		v, err := nodeValue(root, 0)
		if err != nil {
			return nil, &ManifestError{File: name, Doc: doc, Line: root.Line, Template: tpl, Err: err}
		}
		items, err := toObjects(v.(map[string]any), src)
		if err != nil {
			return nil, &ManifestError{File: name, Doc: doc, Line: root.Line, Template: tpl, Err: err}
		}
		objs = append(objs, items...)
	}
}

// toObjects validates one document and expands Lists.
func toObjects(m map[string]any, src Source) ([]Object, error) {
	obj, err := toObject(m, src)
	if err != nil {
		return nil, err
	}
	items, isList := m["items"].([]any)
	if !isList || !(obj.Kind == "List" || strings.HasSuffix(obj.Kind, "List")) {
		return []Object{obj}, nil
	}
	out := make([]Object, 0, len(items))
	for i, it := range items {
		im, ok := it.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s item %d is not a mapping", obj.Kind, i)
		}
		o, err := toObject(im, src)
		if err != nil {
			return nil, fmt.Errorf("%s item %d: %w", obj.Kind, i, err)
		}
		out = append(out, o)
	}
	return out, nil
}

func toObject(m map[string]any, src Source) (Object, error) {
	apiVersion, _ := m["apiVersion"].(string)
	kind, _ := m["kind"].(string)
	switch {
	case apiVersion == "":
		return Object{}, errors.New("apiVersion is missing or not a string")
	case kind == "":
		return Object{}, errors.New("kind is missing or not a string")
	}
	if _, err := schema.ParseGroupVersion(apiVersion); err != nil {
		return Object{}, fmt.Errorf("apiVersion %q: %w", apiVersion, err)
	}
	o := Object{APIVersion: apiVersion, Kind: kind, Source: src, Fields: m}
	if md, ok := m["metadata"]; ok && md != nil {
		mm, ok := md.(map[string]any)
		if !ok {
			return Object{}, fmt.Errorf("%s: metadata is not a mapping", kind)
		}
		o.Name, _ = mm["name"].(string)
		o.Namespace, _ = mm["namespace"].(string)
	}
	if o.Name == "" && !strings.HasSuffix(kind, "List") {
		if gn, _ := nested(m, "metadata", "generateName").(string); gn != "" {
			o.Name = gn
		} else {
			return Object{}, fmt.Errorf("%s: metadata.name is missing", kind)
		}
	}
	return o, nil
}

// maxDepth bounds the nesting of a document.
const maxDepth = 200

// nodeValue turns a yaml.v3 node into a JSON-compatible value: mappings with
// string keys, []any, string, bool, int64, float64 and nil. Aliases are
// followed (yaml.v3 itself bounds alias expansion).
func nodeValue(n *yaml.Node, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("line %d: nested deeper than %d levels", n.Line, maxDepth)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return nodeValue(n.Content[0], depth+1)
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, fmt.Errorf("line %d: unknown alias", n.Line)
		}
		return nodeValue(n.Alias, depth+1)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
				merged, err := nodeValue(v, depth+1)
				if err != nil {
					return nil, err
				}
				if err := mergeInto(m, merged, k.Line); err != nil {
					return nil, err
				}
				continue
			}
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: mapping key is not a scalar", k.Line)
			}
			if _, dup := m[k.Value]; dup {
				return nil, fmt.Errorf("line %d: key %q is repeated", k.Line, k.Value)
			}
			val, err := nodeValue(v, depth+1)
			if err != nil {
				return nil, err
			}
			m[k.Value] = val
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			val, err := nodeValue(c, depth+1)
			if err != nil {
				return nil, err
			}
			s = append(s, val)
		}
		return s, nil
	case yaml.ScalarNode:
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("line %d: %w", n.Line, trimYAMLError(err))
		}
		switch x := v.(type) {
		case int:
			return int64(x), nil
		case uint64:
			return float64(x), nil
		case nil, string, bool, int64, float64:
			return x, nil
		default: // timestamps and binary: keep the text, as JSON would.
			return n.Value, nil
		}
	}
	return nil, fmt.Errorf("line %d: unsupported YAML node", n.Line)
}

func mergeInto(m map[string]any, merged any, line int) error {
	add := func(v any) error {
		mm, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("line %d: merge key needs a mapping", line)
		}
		for k, val := range mm {
			if _, set := m[k]; !set {
				m[k] = val
			}
		}
		return nil
	}
	if list, ok := merged.([]any); ok {
		for _, v := range list {
			if err := add(v); err != nil {
				return err
			}
		}
		return nil
	}
	return add(merged)
}

// sourceComment finds Helm's "# Source: x" comment at the top of a document.
func sourceComment(doc *yaml.Node) string {
	comments := []string{doc.HeadComment}
	if len(doc.Content) > 0 {
		root := doc.Content[0]
		comments = append(comments, root.HeadComment)
		if root.Kind == yaml.MappingNode && len(root.Content) > 0 {
			comments = append(comments, root.Content[0].HeadComment)
		}
	}
	for _, c := range comments {
		for line := range strings.SplitSeq(c, "\n") {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "# Source:"); ok {
				return strings.TrimSpace(rest)
			}
		}
	}
	return ""
}

// yamlErrorLine extracts the line from yaml.v3's "yaml: line N: ..." errors.
func yamlErrorLine(err error) int {
	var line int
	if _, scanErr := fmt.Sscanf(err.Error(), "yaml: line %d:", &line); scanErr == nil {
		return line
	}
	var te *yaml.TypeError
	if errors.As(err, &te) {
		for _, e := range te.Errors {
			if _, scanErr := fmt.Sscanf(e, "line %d:", &line); scanErr == nil {
				return line
			}
		}
	}
	return 0
}

// trimYAMLError drops the "yaml: line N:" prefix, which the caller reports
// as the line of a ManifestError.
func trimYAMLError(err error) error {
	msg := err.Error()
	rest, ok := strings.CutPrefix(msg, "yaml: ")
	if !ok {
		return err
	}
	if strings.HasPrefix(rest, "line ") {
		if _, after, found := strings.Cut(rest, ": "); found {
			return errors.New(after)
		}
	}
	return errors.New(rest)
}

// nested walks maps by keys and returns the value, or nil.
func nested(m map[string]any, keys ...string) any {
	var cur any = m
	for _, k := range keys {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[k]
	}
	return cur
}

func nestedMap(m map[string]any, keys ...string) map[string]any {
	mm, _ := nested(m, keys...).(map[string]any)
	return mm
}

func nestedSlice(m map[string]any, keys ...string) []any {
	s, _ := nested(m, keys...).([]any)
	return s
}

func stringMap(m map[string]any, keys ...string) map[string]string {
	src := nestedMap(m, keys...)
	out := make(map[string]string, len(src))
	for k, v := range src {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}
