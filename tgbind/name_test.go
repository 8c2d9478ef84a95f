package tgbind

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
)

func TestName(t *testing.T) {
	long := strings.Repeat("a", 40)
	tests := []struct {
		name    string
		service string
		port    intstr.IntOrString
		tg      string
		want    string
	}{
		{"port by number", "web", intstr.FromInt32(80), "legacy-web", "web-80-legacy-web"},
		{"port by name", "web", intstr.FromString("http"), "legacy-web", "web-http-legacy-web"},
		{"lowercased", "web", intstr.FromString("http"), "Legacy-WEB", "web-http-legacy-web"},
		{"invalid characters become hyphens, runs collapse", "web", intstr.FromString("http"), "legacy--web", "web-http-legacy-web"},
		{"leading and trailing hyphens trimmed", "-web", intstr.FromInt32(80), "tg-", "web-80-tg"},
		{"exactly 63 characters kept", strings.Repeat("s", 55), intstr.FromInt32(80), "abcd", strings.Repeat("s", 55) + "-80-abcd"},
		// The hash suffixes were computed independently: printf %s NAME | sha256sum.
		{"64 characters truncated with hash", strings.Repeat("s", 56), intstr.FromInt32(80), "abcd", strings.Repeat("s", 54) + "-2c986a36"},
		{"long target group name", "web", intstr.FromString("http"), long + "-" + long, "web-http-" + strings.Repeat("a", 40) + "-aaaa-5fa0b2dc"},
		{"empty parts", "", intstr.FromString(""), "", "tgb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Name(tt.service, tt.port, tt.tg)
			if got != tt.want {
				t.Errorf("Name() = %q, want %q", got, tt.want)
			}
			if len(got) > MaxNameLength {
				t.Errorf("len = %d > %d", len(got), MaxNameLength)
			}
			if errs := validation.IsDNS1123Label(got); len(errs) > 0 {
				t.Errorf("Name() = %q is not a DNS-1123 label: %v", got, errs)
			}
			if again := Name(tt.service, tt.port, tt.tg); again != got {
				t.Errorf("not deterministic: %q then %q", got, again)
			}
		})
	}
}

func TestNameTruncatedDistinct(t *testing.T) {
	prefix := strings.Repeat("x", 70)
	a := Name(prefix+"a", intstr.FromInt32(80), "tg")
	b := Name(prefix+"b", intstr.FromInt32(80), "tg")
	if a == b {
		t.Fatalf("two long inputs with a common prefix gave the same name %q", a)
	}
	if a[:54] != b[:54] {
		t.Errorf("prefixes differ: %q, %q", a, b)
	}
}

func FuzzName(f *testing.F) {
	f.Add("web", "http", "legacy-web")
	f.Add(strings.Repeat("Z", 80), "8080", "--")
	f.Fuzz(func(t *testing.T, service, port, tg string) {
		got := Name(service, intstr.FromString(port), tg)
		if errs := validation.IsDNS1123Label(got); len(errs) > 0 {
			t.Fatalf("Name(%q, %q, %q) = %q: %v", service, port, tg, got, errs)
		}
	})
}
