package helmgov

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	yaml "go.yaml.in/yaml/v3"
)

func TestSourceSet(t *testing.T) {
	ann := func(k string) FieldPath { return FieldPath{{Key: "metadata"}, {Key: "annotations"}, {Key: k}} }
	cmdPath := FieldPath{{Key: "exec"}, {Key: "command"}}
	tests := []struct {
		name       string
		src        string
		template   bool
		path       FieldPath
		value      any
		want       string   // the edited file
		wantValues []string // or: the values path the change goes to
		unfixable  string   // or: the reason it cannot be written
		rendered   map[string]any
	}{
		{
			name:       "template: a key that an action writes from values goes to values",
			template:   true,
			src:        "metadata:\n  annotations:\n    a: b\n    {{- with .Values.extra }}\n    {{- toYaml . | nindent 4 }}\n    {{- end }}\n",
			path:       ann("x.io/t"),
			value:      "ip",
			rendered:   map[string]any{"metadata": map[string]any{"annotations": map[string]any{"a": "b", "x.io/t": "instance"}}},
			wantValues: []string{"extra", "x.io/t"},
		},
		{
			name:     "template: a list item whose name an action writes, told by the literal part of its name",
			template: true,
			src:      "containers:\n  - name: {{ .Chart.Name }}-reload\n    image: r\n  - name: {{ .Chart.Name }}\n    image: a\n",
			path:     FieldPath{{Key: "containers"}, {Item: "web"}, {Key: "lifecycle"}},
			value:    map[string]any{"preStop": map[string]any{"sleep": map[string]any{"seconds": 130}}},
			want: "containers:\n  - name: {{ .Chart.Name }}-reload\n    image: r\n  - name: {{ .Chart.Name }}\n    image: a\n" +
				"    lifecycle:\n      preStop:\n        sleep:\n          seconds: 130\n",
		},
		{
			name:      "template: two items whose names are only actions cannot be told apart",
			template:  true,
			src:       "containers:\n  - name: {{ .Chart.Name }}\n    image: a\n  - name: {{ .Values.sidecar }}\n    image: s\n",
			path:      FieldPath{{Key: "containers"}, {Item: "web"}, {Key: "lifecycle"}},
			value:     map[string]any{"preStop": map[string]any{"sleep": map[string]any{"seconds": 130}}},
			unfixable: `cannot tell which list item is "web"`,
		},
		{
			name:      "template: a key that an include writes is left alone",
			template:  true,
			src:       "metadata:\n  labels:\n    a: b\n    {{- include \"x.labels\" . | nindent 4 }}\n",
			path:      FieldPath{{Key: "metadata"}, {Key: "labels"}, {Key: "gate"}},
			value:     "enabled",
			rendered:  map[string]any{"metadata": map[string]any{"labels": map[string]any{"a": "b", "gate": "disabled"}}},
			unfixable: "metadata.labels.gate is written by a template action that does not read .Values",
		},
		{
			// The key is missing from the object: it must not be appended
			// after the range over the map the user sets.
			name:     "template: a new key beside a range over values goes to values",
			template: true,
			src: "metadata:\n  annotations:\n    x.io/scheme: internal\n    {{- range $k, $v := .Values.svc.annotations }}\n" +
				"    {{ $k }}: {{ $v | quote }}\n    {{- end }}\n  labels:\n    a: b\n",
			path:       ann("x.io/t"),
			value:      "ip",
			rendered:   map[string]any{"metadata": map[string]any{"annotations": map[string]any{"x.io/scheme": "internal"}}},
			wantValues: []string{"svc", "annotations", "x.io/t"},
		},
		{
			name:       "template: a new key beside a toYaml of values goes to values",
			template:   true,
			src:        "metadata:\n  annotations:\n    x.io/scheme: internal\n    {{- with .Values.svc.annotations }}\n    {{- toYaml . | nindent 4 }}\n    {{- end }}\n",
			path:       ann("x.io/t"),
			value:      "ip",
			rendered:   map[string]any{"metadata": map[string]any{"annotations": map[string]any{"x.io/scheme": "internal"}}},
			wantValues: []string{"svc", "annotations", "x.io/t"},
		},
		{
			// A toYaml of another key's values, at that key's depth, does
			// not write the annotations.
			name:     "template: a toYaml under another key does not bind the mapping",
			template: true,
			src:      "metadata:\n  annotations:\n    a: b\n  labels:\n    {{- toYaml .Values.labels | nindent 4 }}\n",
			path:     ann("x.io/t"),
			value:    "ip",
			rendered: map[string]any{"metadata": map[string]any{"annotations": map[string]any{"a": "b"}}},
			want:     "metadata:\n  annotations:\n    a: b\n    x.io/t: ip\n  labels:\n    {{- toYaml .Values.labels | nindent 4 }}\n",
		},
		{
			name:     "template: of two values maps, the one named after the key",
			template: true,
			src: "metadata:\n  annotations:\n    {{- with .Values.ingress.annotations }}\n    {{- include \"render\" (dict \"value\" . \"context\" $) | nindent 4 }}\n    {{- end }}\n" +
				"    {{- with .Values.commonAnnotations }}\n    {{- include \"render\" (dict \"value\" . \"context\" $) | nindent 4 }}\n    {{- end }}\n",
			path:       ann("x.io/t"),
			value:      "ip",
			rendered:   map[string]any{"metadata": map[string]any{"annotations": map[string]any{"x.io/t": "instance"}}},
			wantValues: []string{"ingress", "annotations", "x.io/t"},
		},
		{
			name:      "template: entries written by actions that read no one value are not joined by a literal",
			template:  true,
			src:       "metadata:\n  annotations:\n    {{- include \"x.annotations\" . | nindent 4 }}\n",
			path:      ann("x.io/t"),
			value:     "ip",
			rendered:  map[string]any{"metadata": map[string]any{"name": "x"}},
			unfixable: "annotations is written by template actions that do not read one value",
		},
		{
			name:  "add a key to a block mapping, keeping comments and blank lines",
			src:   "# top\nmetadata:\n  name: web  # the name\n  annotations:\n    # keep me\n    a: b\n\n    # trailing\nspec: {}\n",
			path:  ann("x.io/y"),
			value: "ip",
			want:  "# top\nmetadata:\n  name: web  # the name\n  annotations:\n    # keep me\n    a: b\n\n    # trailing\n    x.io/y: ip\nspec: {}\n",
		},
		{
			name:  "replace an empty flow mapping",
			src:   "metadata:\n  annotations: {}  # none yet\n  name: x\n",
			path:  ann("k"),
			value: "external",
			want:  "metadata:\n  annotations:  # none yet\n    k: external\n  name: x\n",
		},
		{
			name:  "fill a null value",
			src:   "metadata:\n  annotations:\n  name: x\n",
			path:  ann("k"),
			value: "v",
			want:  "metadata:\n  annotations:\n    k: v\n  name: x\n",
		},
		{
			name:  "replace a quoted scalar, keeping its comment",
			src:   "metadata:\n  annotations:\n    \"k\": \"30080\"   # the NodePort\n",
			path:  ann("k"),
			value: "traffic-port",
			want:  "metadata:\n  annotations:\n    \"k\": traffic-port   # the NodePort\n",
		},
		{
			name:  "a string that looks like a number stays quoted",
			src:   "metadata:\n  name: x\n",
			path:  ann("port"),
			value: "8080",
			want:  "metadata:\n  name: x\n  annotations:\n    port: \"8080\"\n",
		},
		{
			name:  "create missing parents with the file's own indentation",
			src:   "spec:\n    replicas: 2\n    template:\n        spec:\n            containers: []\n",
			path:  FieldPath{{Key: "spec"}, {Key: "template"}, {Key: "spec"}, {Key: "terminationGracePeriodSeconds"}},
			value: int64(150),
			want:  "spec:\n    replicas: 2\n    template:\n        spec:\n            containers: []\n            terminationGracePeriodSeconds: 150\n",
		},
		{
			name:  "a new top-level key goes after trailing comments",
			src:   "a: 1\n# b: 2\n",
			path:  FieldPath{{Key: "c"}, {Key: "d"}},
			value: true,
			want:  "a: 1\n# b: 2\nc:\n  d: true\n",
		},
		{
			name:  "a list item by name",
			src:   "containers:\n  - name: a\n    image: x\n  - name: b\n    image: y\n",
			path:  FieldPath{{Key: "containers"}, {Item: "b"}, {Key: "lifecycle"}, {Key: "preStop"}},
			value: map[string]any{"sleep": map[string]any{"seconds": 120}},
			want:  "containers:\n  - name: a\n    image: x\n  - name: b\n    image: y\n    lifecycle:\n      preStop:\n        sleep:\n          seconds: 120\n",
		},
		{
			name:      "a multi-line value is not rewritten",
			src:       "metadata:\n  annotations:\n    k: |\n      line\n",
			path:      ann("k"),
			value:     "v",
			unfixable: "multi-line value",
		},
		{
			name:      "a non-empty flow mapping is not rewritten",
			src:       "metadata:\n  annotations: {a: b}\n",
			path:      ann("k"),
			value:     "v",
			unfixable: "cannot set k inside a flow mapping",
		},
		{
			// Found by FuzzSourceSet: the block written under preStop
			// broke the flow mapping around it.
			name:      "an empty value inside a flow mapping is not replaced",
			src:       "spec:\n  lifecycle: {preStop: }\n",
			path:      FieldPath{{Key: "spec"}, {Key: "lifecycle"}, {Key: "preStop"}, {Key: "exec"}},
			value:     map[string]any{"command": []any{"sleep", "130"}},
			unfixable: "cannot set preStop inside a flow mapping",
		},
		{
			name:      "an empty flow mapping inside a flow mapping is not replaced",
			src:       "spec:\n  lifecycle: {preStop: {}}\n",
			path:      FieldPath{{Key: "spec"}, {Key: "lifecycle"}, {Key: "preStop"}, {Key: "exec"}},
			value:     map[string]any{"command": []any{"sleep", "130"}},
			unfixable: "cannot set preStop inside a flow mapping",
		},
		{
			name:      "an ambiguous list item",
			src:       "containers:\n  - name: a\n  - name: c\n",
			path:      FieldPath{{Key: "containers"}, {Item: "b"}, {Key: "x"}},
			value:     1,
			unfixable: `which list item is "b"`,
		},
		{
			name:       "template: annotations written by with and toYaml go to values",
			template:   true,
			src:        "metadata:\n  name: {{ .Release.Name }}\n  {{- with .Values.service.annotations }}\n  annotations:\n    {{- toYaml . | nindent 4 }}\n  {{- end }}\n",
			path:       ann("k"),
			value:      "v",
			wantValues: []string{"service", "annotations", "k"},
		},
		{
			name:       "template: toYaml of a values path",
			template:   true,
			src:        "metadata:\n  annotations: {{- toYaml $.Values.ingress.annotations | nindent 4 }}\n",
			path:       ann("k"),
			value:      "v",
			wantValues: []string{"ingress", "annotations", "k"},
		},
		{
			name:       "template: range over values",
			template:   true,
			src:        "metadata:\n  annotations:\n    {{- range $k, $v := .Values.extra }}\n    {{ $k }}: {{ $v | quote }}\n    {{- end }}\n",
			path:       ann("k"),
			value:      "v",
			wantValues: []string{"extra", "k"},
		},
		{
			name:       "template: a scalar read from values",
			template:   true,
			src:        "spec:\n  template:\n    spec:\n      terminationGracePeriodSeconds: {{ .Values.grace | default 30 }}\n",
			path:       FieldPath{{Key: "spec"}, {Key: "template"}, {Key: "spec"}, {Key: "terminationGracePeriodSeconds"}},
			value:      int64(150),
			wantValues: []string{"grace"},
		},
		{
			name:      "template: a scalar computed otherwise",
			template:  true,
			src:       "spec:\n  targetType: {{ include \"x.type\" . }}\n",
			path:      FieldPath{{Key: "spec"}, {Key: "targetType"}},
			value:     "ip",
			unfixable: "computed by a template action",
		},
		{
			name:     "template: a literal key next to an include, and a single container with a templated name",
			template: true,
			src:      "spec:\n  containers:\n    - name: {{ .Chart.Name }}\n      image: x\n  {{- if .Values.x }}\n  hostNetwork: true\n  {{- end }}\n",
			path:     FieldPath{{Key: "spec"}, {Key: "containers"}, {Item: "web"}, {Key: "lifecycle"}, {Key: "preStop"}},
			value:    map[string]any{"sleep": map[string]any{"seconds": 5}},
			want:     "spec:\n  containers:\n    - name: {{ .Chart.Name }}\n      image: x\n      lifecycle:\n        preStop:\n          sleep:\n            seconds: 5\n  {{- if .Values.x }}\n  hostNetwork: true\n  {{- end }}\n",
		},
		{
			name:  "one item of a flow list, double-quoted, keeping the rest and the comment",
			src:   "exec:\n  command: [\"/bin/sh\", \"-c\", \"sleep 60 && nginx -s quit\"]  # drain\n",
			path:  cmdPath,
			value: []any{"/bin/sh", "-c", "sleep 130 && nginx -s quit"},
			want:  "exec:\n  command: [\"/bin/sh\", \"-c\", \"sleep 130 && nginx -s quit\"]  # drain\n",
		},
		{
			name:  "one item of a flow list, single-quoted",
			src:   "exec:\n  command: ['sh', '-c', 'sleep 5; it''s done']\n",
			path:  cmdPath,
			value: []any{"sh", "-c", "sleep 130; it's done"},
			want:  "exec:\n  command: ['sh', '-c', 'sleep 130; it''s done']\n",
		},
		{
			name:  "one item of a flow list, plain",
			src:   "exec:\n  command: [sh, -c, sleep 60]\n",
			path:  cmdPath,
			value: []any{"sh", "-c", "sleep 130"},
			want:  "exec:\n  command: [sh, -c, sleep 130]\n",
		},
		{
			name:  "one item of a block list; a string that looks like a number is quoted",
			src:   "exec:\n  command:\n    - sleep\n    - \"60\"   # seconds\n    - x\n",
			path:  cmdPath,
			value: []any{"sleep", "130", "x"},
			want:  "exec:\n  command:\n    - sleep\n    - \"130\"   # seconds\n    - x\n",
		},
		{
			name:  "a plain block item",
			src:   "exec:\n  command:\n    - /bin/sh\n    - -c\n    - sleep 2m # two minutes\n",
			path:  cmdPath,
			value: []any{"/bin/sh", "-c", "sleep 130"},
			want:  "exec:\n  command:\n    - /bin/sh\n    - -c\n    - sleep 130 # two minutes\n",
		},
		{
			name:      "template: an item that an action writes is not rewritten",
			template:  true,
			src:       "exec:\n  command: [\"sh\", \"-c\", \"sleep {{ .Values.drain }}\"]\n",
			path:      cmdPath,
			value:     []any{"sh", "-c", "sleep 130"},
			unfixable: "item 3 of command is written by a template action",
		},
		{
			name:      "a list whose items differ in more than one place",
			src:       "exec:\n  command: [a, b]\n",
			path:      cmdPath,
			value:     []any{"x", "y"},
			unfixable: "rewrites more than one item of command",
		},
		{
			name:      "a list of another length",
			src:       "exec:\n  command: [a, b]\n",
			path:      cmdPath,
			value:     []any{"a"},
			unfixable: "command has 2 items, the change 1",
		},
		{
			name:      "a multi-line item",
			src:       "exec:\n  command:\n    - sh\n    - \"sleep 60\n      && quit\"\n",
			path:      cmdPath,
			value:     []any{"sh", "sleep 130 && quit"},
			unfixable: "item 2 of command is not a one-line scalar",
		},
		{
			name:     "template: insertion stays out of an opening if",
			template: true,
			src:      "spec:\n  serviceRef:\n    name: web\n  {{- if .Values.arn }}\n  targetGroupARN: {{ .Values.arn }}\n  {{- end }}\n",
			path:     FieldPath{{Key: "spec"}, {Key: "targetType"}},
			value:    "ip",
			want:     "spec:\n  serviceRef:\n    name: web\n  {{- if .Values.arn }}\n  targetGroupARN: {{ .Values.arn }}\n  {{- end }}\n  targetType: ip\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := parseSource("f.yaml", []byte(tt.src), tt.template)
			if err != nil {
				t.Fatal(err)
			}
			sr, err := f.set(f.root(0), tt.path, tt.value, tt.rendered)
			if tt.unfixable != "" {
				if !errors.Is(err, errUnfixable) || !strings.Contains(err.Error(), tt.unfixable) {
					t.Fatalf("err = %v, want unfixable %q", err, tt.unfixable)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantValues != nil {
				if sr.edit != nil {
					t.Fatalf("edited the template:\n%s", f.apply(*sr.edit))
				}
				if diff := cmp.Diff(tt.wantValues, append(sr.values, sr.rest...)); diff != "" {
					t.Errorf("values path (-want +got):\n%s", diff)
				}
				return
			}
			if sr.edit == nil {
				t.Fatalf("went to values %v", sr.values)
			}
			if diff := cmp.Diff(tt.want, string(f.apply(*sr.edit))); diff != "" {
				t.Errorf("edited file (-want +got):\n%s", diff)
			}
		})
	}
}

// TestScopeAt: the blocks and variables in force at a line, as the
// generated PodDisruptionBudget copies them.
func TestScopeAt(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		line      int
		want      []string
		depth     int
		unfixable string
	}{
		{
			name: "whole-document wrappers that trim both sides, and a variable",
			src: "{{- if .Values.enabled -}}\n{{- $name := include \"x\" . -}}\n{{- if eq .Values.kind \"Deployment\" -}}\n" +
				"apiVersion: apps/v1\nkind: Deployment\n{{- end }}\n{{- end }}\n",
			line: 4, want: []string{"if .Values.enabled", `$name := include "x" .`, `if eq .Values.kind "Deployment"`}, depth: 2,
		},
		{
			name: "a closed block and a comment are not in force",
			src:  "{{- /* a comment */ -}}\n{{- if .Values.a }}\nx: 1\n{{- end }}\n{{- with .Values.b }}\ny: 2\n",
			line: 6, want: []string{"with .Values.b"}, depth: 1,
		},
		{
			name: "an else branch is refused",
			src:  "{{- if .Values.a }}\nx: 1\n{{- else }}\ny: 2\n{{- end }}\n",
			line: 4, unfixable: "is in the else branch",
		},
		{
			name: "a define is refused",
			src:  "{{- define \"x\" }}\ny: 2\n{{- end }}\n",
			line: 2, unfixable: "is inside a define",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := parseSource("t.yaml", []byte(tt.src), true)
			if err != nil {
				t.Fatal(err)
			}
			got, depth, err := f.scopeAt(tt.line)
			if tt.unfixable != "" {
				if !errors.Is(err, errUnfixable) || !strings.Contains(err.Error(), tt.unfixable) {
					t.Fatalf("err = %v, want %q", err, tt.unfixable)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" || depth != tt.depth {
				t.Errorf("depth %d, want %d; scope (-want +got):\n%s", depth, tt.depth, diff)
			}
		})
	}
}

func TestParseSourceErrors(t *testing.T) {
	for _, src := range []string{"a: {{ .x \n", "a: {{/* open \n", "a: [\n"} {
		if _, err := parseSource("f.yaml", []byte(src), true); !errors.Is(err, errUnfixable) {
			t.Errorf("%q: err = %v, want unfixable", src, err)
		}
	}
}

// FuzzSourceSet edits arbitrary templates: the editor must edit, follow
// values, or refuse, and never panic.
func FuzzSourceSet(f *testing.F) {
	f.Add("metadata:\n  name: {{ .Release.Name }}\n  {{- with .Values.a }}\n  annotations:\n    {{- toYaml . | nindent 4 }}\n  {{- end }}\n", true)
	f.Add("spec:\n  containers:\n    - name: web\n      lifecycle: {}\n", false)
	f.Add("metadata: {annotations: {a: b}}\n", false)
	f.Add("metadata:\n  annotations:\n    k: |\n      x\n", true)
	f.Add("a: {{ x }}\n---\nmetadata:\n  annotations: # c\n", true)
	f.Add("spec:\n  containers:\n    - name: web\n      lifecycle:\n        preStop:\n          exec:\n            command: [\"sh\", '-c', sleep 60]\n", false)
	f.Add("spec:\n  containers:\n  - name: web\n    lifecycle: {preStop: {exec: {command: [sleep, \"{{ .Values.d }}\"]}}}\n", true)
	f.Add("{{- if .Values.a -}}\n{{- $n := include \"x\" . -}}\nmetadata:\n  annotations:\n    a: b\n    {{- range $k, $v := .Values.x.annotations }}\n    {{ $k }}: {{ $v }}\n    {{- end }}\n{{- end }}\n", true)
	sleep := map[string]any{"sleep": map[string]any{"seconds": 1}}
	changes := []struct {
		path  FieldPath
		value any
	}{
		{FieldPath{{Key: "metadata"}, {Key: "annotations"}, {Key: "k"}}, sleep},
		{FieldPath{{Key: "spec"}, {Key: "containers"}, {Item: "web"}, {Key: "lifecycle"}, {Key: "preStop"}}, sleep},
		{FieldPath{{Key: "spec"}, {Key: "template"}, {Key: "spec"}, {Key: "terminationGracePeriodSeconds"}}, sleep},
		{FieldPath{{Key: "spec"}, {Key: "containers"}, {Item: "web"}, {Key: "lifecycle"}, {Key: "preStop"}, {Key: "exec"}, {Key: "command"}},
			[]any{"sh", "-c", "sleep 130"}},
	}
	f.Fuzz(func(t *testing.T, src string, template bool) {
		sf, err := parseSource("f.yaml", []byte(src), template)
		if err != nil {
			if !errors.Is(err, errUnfixable) {
				t.Fatalf("parse error %v is not unfixable", err)
			}
			return
		}
		// The scope of any line is read without a panic, and is refused
		// only as unfixable.
		for line := 1; line <= len(sf.lines); line++ {
			if _, _, err := sf.scopeAt(line); err != nil && !errors.Is(err, errUnfixable) {
				t.Fatalf("scopeAt(%d): %v is not unfixable", line, err)
			}
		}
		for i := range sf.docs {
			root := sf.root(i)
			if root == nil {
				continue
			}
			for _, c := range changes {
				sr, err := sf.set(root, c.path, c.value, map[string]any{})
				if err != nil {
					continue
				}
				if sr.edit == nil {
					continue
				}
				out := sf.apply(*sr.edit)
				list, ok := c.value.([]any)
				if !ok || sr.edit.start < 0 {
					continue
				}
				// An item rewritten in place reads back as the new list.
				after, err := parseSource("f.yaml", out, template)
				if err != nil {
					t.Fatalf("the edit broke the file: %v\n%s", err, out)
				}
				n := nodeAt(after.root(i), c.path)
				if n == nil || n.Kind != yaml.SequenceNode || len(n.Content) != len(list) {
					t.Fatalf("the edited file has no list at %s:\n%s", c.path, out)
				}
				for j, it := range n.Content {
					if it.Value != list[j] {
						t.Fatalf("item %d reads %q, want %q:\n%s", j, it.Value, list[j], out)
					}
				}
			}
		}
	})
}

// nodeAt walks keys and named items from a mapping; nil when the path is
// not there.
func nodeAt(n *yaml.Node, p FieldPath) *yaml.Node {
	for _, step := range p {
		if n == nil {
			return nil
		}
		if step.Item == "" {
			n = mapGet(n, step.Key)
			continue
		}
		var found *yaml.Node
		for _, it := range n.Content {
			if v := mapGet(it, "name"); v != nil && v.Value == step.Item {
				found = it
			}
		}
		if found == nil && n.Kind == yaml.SequenceNode && len(n.Content) == 1 {
			found = n.Content[0]
		}
		n = found
	}
	return n
}
