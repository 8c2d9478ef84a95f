package diagnose

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tagWorld is the base world with more Services in shop (api with port 80
// "http"; web-api with 80 "http" and 443 "https"; admin with 8080 "admin")
// and legacy-web tagged as the LBC tags its own target groups.
func tagWorld(tags map[string]string) func() world {
	return edit(func(w *world) {
		c := w.cluster("prod")
		c.Services = append(c.Services,
			svcFix{NS: "shop", Name: "api", Selector: map[string]string{"app": "api"}, Ports: []svcPortFix{{Name: "http", Port: 80, TargetPort: "8080"}}},
			svcFix{NS: "shop", Name: "web-api", Selector: map[string]string{"app": "web-api"},
				Ports: []svcPortFix{{Name: "http", Port: 80, TargetPort: "8080"}, {Name: "https", Port: 443, TargetPort: "8443"}}},
			svcFix{NS: "shop", Name: "admin", Selector: map[string]string{"app": "admin"}, Ports: []svcPortFix{{Name: "admin", Port: 8080}}},
		)
		w.tgFix("legacy-web").Tags = tags
	})
}

// TestServiceFromTags: a target group the LBC made names its Service in
// its tags; Diagnose reads it from there (source "tags") when no binding
// says otherwise and the tags name a Service of a scanned cluster. The
// near misses fall back to the NodePort of the node targets (shop/web).
func TestServiceFromTags(t *testing.T) {
	lbc := func(kv ...string) map[string]string {
		m := map[string]string{TagCluster: "prod"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	fallback := ServiceRef{Cluster: "prod", Namespace: "shop", Name: "web", Port: 80, PortName: "http", TargetPort: "http",
		ResolvedTargetPort: 8080, NodePort: 30080, Source: ServiceFromNodePort, Found: true}
	tests := []struct {
		name  string
		world func() world
		want  ServiceRef
	}{
		{"service resource tag: Service and port number", tagWorld(lbc(TagServiceStack, "shop/api", TagServiceSource, "shop/api:80")),
			ServiceRef{Cluster: "prod", Namespace: "shop", Name: "api", Port: 80, PortName: "http", TargetPort: "8080", ResolvedTargetPort: 8080, Source: ServiceFromTags, Found: true}},
		{"ingress resource tag: the one Service that ends the middle part and has the port", tagWorld(lbc(TagIngressStack, "shop/edge", TagIngressSource, "shop/edge-admin:admin")),
			ServiceRef{Cluster: "prod", Namespace: "shop", Name: "admin", Port: 8080, PortName: "admin", TargetPort: "8080", ResolvedTargetPort: 8080, Source: ServiceFromTags, Found: true}},
		{"ingress resource tag: a dashed Service name, told apart by its port", tagWorld(lbc(TagIngressSource, "shop/edge-web-api:443")),
			ServiceRef{Cluster: "prod", Namespace: "shop", Name: "web-api", Port: 443, PortName: "https", TargetPort: "8443", ResolvedTargetPort: 8443, Source: ServiceFromTags, Found: true}},
		// api (Ingress edge-web) and web-api (Ingress edge) both have port 80.
		{"near miss: the ingress resource tag fits two Services", tagWorld(lbc(TagIngressSource, "shop/edge-web-api:80")), fallback},
		{"service stack tag alone: the Service, no port", tagWorld(lbc(TagServiceStack, "shop/api")),
			ServiceRef{Cluster: "prod", Namespace: "shop", Name: "api", Source: ServiceFromTags, Found: true}},
		{"near miss: the cluster tag names a cluster not scanned", tagWorld(map[string]string{TagCluster: "staging", TagServiceSource: "shop/api:80"}), fallback},
		{"near miss: the tagged Service does not exist", tagWorld(lbc(TagServiceSource, "shop/checkout:80")), fallback},
		{"near miss: the Ingress's Service lacks the port", tagWorld(lbc(TagIngressSource, "shop/edge-admin:http")), fallback},
		{"near miss: a binding wins over the tags", func() world {
			w := tagWorld(lbc(TagServiceSource, "shop/api:80"))()
			w.Clusters[0].Bindings = []bindingFix{{NS: "shop", Name: "web", TG: "legacy-web", Service: "web", Port: "http", Multi: true, Type: "ip"}}
			return w
		}, ServiceRef{Cluster: "prod", Namespace: "shop", Name: "web", Port: 80, PortName: "http", TargetPort: "http",
			ResolvedTargetPort: 8080, NodePort: 30080, Source: ServiceFromBinding, Found: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.world()
			h := newHarness(t, w)
			expectAll(h.elb, w)
			rep, err := h.run(t, Scope{All: true})
			if err != nil {
				t.Fatal(err)
			}
			got := rep.tg("legacy-web").Service
			if got == nil {
				t.Fatal("no Service inferred")
			}
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("Service (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSchemaServiceSources: the schema's enum of service sources is the
// set of ServiceFrom* constants, so every source Diagnose writes validates.
func TestSchemaServiceSources(t *testing.T) {
	var schema struct {
		Defs map[string]struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(ReportSchema(), &schema); err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(slices.Values(schema.Defs["service"].Properties["source"].Enum))
	want := slices.Sorted(slices.Values([]string{ServiceFromBinding, ServiceFromTags, ServiceFromNodePort, ServiceFromPods}))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("schema $defs.service.source enum (-want +got):\n%s", diff)
	}
}
