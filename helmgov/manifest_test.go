package helmgov_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/helmgov"
)

func TestReadManifests(t *testing.T) {
	type obj struct {
		Ref      string
		Template string
		Doc      int
		Line     int
	}
	tests := []struct {
		name string
		in   string
		want []obj
	}{
		{
			name: "helm template stream with sources",
			in: "---\n# Source: web/templates/service.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n" +
				"---\n# Source: web/templates/deployment.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n",
			want: []obj{
				{Ref: "Service web", Template: "web/templates/service.yaml", Doc: 1, Line: 3},
				{Ref: "Deployment shop/web", Template: "web/templates/deployment.yaml", Doc: 2, Line: 9},
			},
		},
		{
			name: "empty and comment-only documents are skipped",
			in:   "---\n---\n# nothing here\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\n",
			want: []obj{{Ref: "ConfigMap c", Doc: 3, Line: 5}},
		},
		{
			name: "a List is expanded",
			in:   "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Service, metadata: {name: a}}\n- {apiVersion: v1, kind: Service, metadata: {name: b}}\n",
			want: []obj{{Ref: "Service a", Doc: 1, Line: 1}, {Ref: "Service b", Doc: 1, Line: 1}},
		},
		{
			name: "anchors and merge keys",
			in:   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\n  labels: &l {a: b}\ndata:\n  <<: *l\n",
			want: []obj{{Ref: "ConfigMap m", Doc: 1, Line: 1}},
		},
		{name: "empty stream", in: "", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := helmgov.ReadManifests(strings.NewReader(tt.in), "in.yaml")
			if err != nil {
				t.Fatal(err)
			}
			var got []obj
			for _, o := range objs {
				if o.Source.File != "in.yaml" {
					t.Errorf("source file %q", o.Source.File)
				}
				got = append(got, obj{Ref: o.Ref().String(), Template: o.Source.Template, Doc: o.Source.Doc, Line: o.Source.Line})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadManifestsErrors(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantMsg string
		line    int
		doc     int
	}{
		{"invalid YAML", "apiVersion: v1\nkind: Service\nmetadata:\n  name: [a\n", "in.yaml", 0, 1},
		{"tab indentation", "apiVersion: v1\nkind: Service\nmetadata:\n\tname: a\n", "found character that cannot start any token", 4, 1},
		{"not a mapping", "- a\n- b\n", "document is not a mapping", 1, 1},
		{"no kind", "apiVersion: v1\nmetadata: {name: a}\n", "kind is missing", 1, 1},
		{"no apiVersion", "kind: Service\nmetadata: {name: a}\n", "apiVersion is missing", 1, 1},
		{"bad apiVersion", "apiVersion: a/b/c\nkind: Service\nmetadata: {name: a}\n", "apiVersion \"a/b/c\"", 1, 1},
		{"no name", "apiVersion: v1\nkind: Service\nmetadata: {}\n", "metadata.name is missing", 1, 1},
		{"metadata not a mapping", "apiVersion: v1\nkind: Service\nmetadata: web\n", "metadata is not a mapping", 1, 1},
		{"repeated key", "apiVersion: v1\nkind: Service\nkind: Pod\nmetadata: {name: a}\n", "", 0, 1},
		{"second document bad", "apiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\nfoo: bar\n", "apiVersion is missing", 5, 2},
		{"bad list item", "apiVersion: v1\nkind: List\nitems: [3]\n", "List item 0 is not a mapping", 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := helmgov.ReadManifests(strings.NewReader(tt.in), "in.yaml")
			if err == nil {
				t.Fatalf("no error; objects %v", objs)
			}
			if objs != nil {
				t.Errorf("partial objects returned: %v", objs)
			}
			var me *helmgov.ManifestError
			if !errors.As(err, &me) || !helmgov.IsInvalidManifest(err) {
				t.Fatalf("error %T %v is not a *ManifestError", err, err)
			}
			if me.File != "in.yaml" || me.Doc != tt.doc {
				t.Errorf("file %q doc %d, want in.yaml doc %d", me.File, me.Doc, tt.doc)
			}
			if tt.line != 0 && me.Line != tt.line {
				t.Errorf("line %d, want %d", me.Line, tt.line)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) || !strings.HasPrefix(err.Error(), "helmgov: read manifests: in.yaml") {
				t.Errorf("message %q, want it to name the file and contain %q", err, tt.wantMsg)
			}
			if helmgov.ExitCodeOf(err) != helmgov.ExitError {
				t.Errorf("exit code %d", helmgov.ExitCodeOf(err))
			}
		})
	}
}

// FuzzReadManifests feeds arbitrary bytes to the reader: it must return
// objects or a *ManifestError, and never panic. CI runs it for a bounded
// time (see the Makefile's fuzz target).
func FuzzReadManifests(f *testing.F) {
	seeds := []string{
		"",
		"---\n# Source: web/templates/service.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations:\n    service.beta.kubernetes.io/aws-load-balancer-type: external\nspec:\n  type: LoadBalancer\n",
		"apiVersion: elbv2.k8s.aws/v1beta1\nkind: TargetGroupBinding\nmetadata: {name: t}\nspec: {targetType: ip, serviceRef: {name: web, port: 80}}\n",
		"apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Service, metadata: {name: a}}\n",
		"a: &a [*a]\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m, labels: &l {a: b}}\ndata: {<<: *l}\n",
		"- [\n",
		"apiVersion: v1\nkind: Service\nmetadata:\n  name: !!binary aGVsbG8=\n",
		"{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [{name: c, ports: [{containerPort: 1e400}]}]}}",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	c, err := helmgov.NewChecker(helmgov.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := helmgov.ReadManifests(strings.NewReader(string(data)), "fuzz.yaml")
		if err != nil {
			var me *helmgov.ManifestError
			if !errors.As(err, &me) {
				t.Fatalf("error %T is not a *ManifestError: %v", err, err)
			}
			if objs != nil {
				t.Fatal("objects returned with an error")
			}
			return
		}
		for _, o := range objs {
			if o.APIVersion == "" || o.Kind == "" {
				t.Fatalf("object without apiVersion or kind: %+v", o)
			}
		}
		// Whatever the reader accepts, the checker must digest.
		_ = c.Check(objs)
	})
}
