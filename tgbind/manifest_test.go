package tgbind

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-golden +got):\n%s", path, diff)
	}
}

func TestBindingManifest(t *testing.T) {
	u := newUnit(t, withObjects(standardObjects()...)).legacy()
	b, err := u.binder.Build(t.Context(), Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService,
		Port: intstr.FromString("http"), IngressSecurityGroups: []string{testSG}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "binding.yaml", got)

	// The YAML reads back as the same binding.
	var back v1beta1.TargetGroupBinding
	if err := yaml.UnmarshalStrict(got, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(b.TargetGroupBinding, &back); diff != "" {
		t.Errorf("round trip (-built +read):\n%s", diff)
	}
	for _, server := range []string{"status", "creationTimestamp", "resourceVersion", "uid"} {
		if bytes.Contains(got, []byte(server+":")) {
			t.Errorf("manifest holds the server-owned field %s", server)
		}
	}
}

func TestManifestMany(t *testing.T) {
	a := binding(testNS, "a", testARN, true, true)
	a.ResourceVersion, a.Generation = "42", 3 // server-owned: dropped
	b := binding(testNS, "b", otherARN, false, true)
	got, err := Manifest(a, b)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "many.yaml", got)
	if n := strings.Count(string(got), "\n---\n"); n != 1 {
		t.Errorf("%d document separators, want 1", n)
	}
	if _, err := Manifest(a, nil); err == nil {
		t.Error("Manifest(nil) did not fail")
	}
	var nilBinding *Binding
	if _, err := nilBinding.Manifest(); err == nil {
		t.Error("(*Binding)(nil).Manifest() did not fail")
	}
}

func TestBindingTextAndJSON(t *testing.T) {
	u := newUnit(t, withObjects(standardObjects()...)).legacy()
	b, err := u.binder.Build(t.Context(), Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService, Port: intstr.FromString("http")})
	if err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, want := range []string{
		"TargetGroupBinding shop/web-http-legacy-web",
		"target group:  legacy-web (ip, HTTP:30080, vpc-0123456789abcdef0, ipv4)",
		"service:       shop/web port http -> targetPort http (3 ready endpoints)",
		"multi-cluster: true (ForeignTargets): the target group holds 2 targets",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("String() lacks %q:\n%s", want, text)
		}
	}
	data, err := b.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var back Binding
	if err := yaml.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Version != BindingVersion || back.MultiCluster.Reason != ReasonForeignTargets || back.TargetGroupBinding.Name != "web-http-legacy-web" {
		t.Errorf("JSON round trip = %+v", back)
	}
}
