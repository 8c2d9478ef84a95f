package diagnose

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/vclock"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// goldenWorld is the base world with a bit of everything: a ghost, a
// ghost whose address a pod holds again, an expiring and a disrupted
// Karpenter node, a public node, a second target group the LBC owns in
// default mode next to a stray node target on another Service's NodePort
// (and a draining one, which no finding rests on), and a second cluster
// without the CRD.
func goldenWorld() world {
	w := baseWorld()
	tg := w.tgFix("legacy-web")
	tg.HCPath = "/"
	tg.Targets = append(tg.Targets,
		targetFix{ID: "10.0.9.99", Port: 30080, State: "unhealthy", Reason: "Target.Timeout"},
		targetFix{ID: "10.0.3.10", Port: 30080},
		targetFix{ID: "10.0.1.11", Port: 30080, State: "unhealthy", Reason: "Target.FailedHealthChecks"},
	)
	w.TargetGroups = append(w.TargetGroups, tgFix{
		Name: "k8s-shop-api", Port: 8080, LBs: []string{"edge"}, HCPath: "/ready",
		Tags: map[string]string{TagCluster: "prod", TagServiceStack: "shop/api"},
		Targets: []targetFix{{ID: "10.0.1.21", Port: 8080}, {ID: "10.0.3.10", Port: 30081},
			{ID: "10.0.2.10", Port: 30081, State: "draining", Reason: "Target.DeregistrationInProgress", AZ: "eu-west-1b"}},
	})
	w.LoadBalancers[0].Listeners[0].Rules = append(w.LoadBalancers[0].Listeners[0].Rules,
		ruleFix{Priority: "20", Forward: map[string]int32{"k8s-shop-api": 90, "legacy-web": 10}})
	c := w.cluster("prod")
	c.Nodes[0].ExternalIP = "203.0.113.10"
	c.Nodes[1].Disrupted = true
	c.NodeClaims = []nodeClaimFix{{Name: "default-a", Node: "n1", ExpireAfter: "720h", Created: vclock.Epoch.Add(-700 * time.Hour)}}
	c.Pods = append(c.Pods, podFix{NS: "shop", Name: "api-1", Node: "n1", IP: "10.0.1.21", Labels: map[string]string{"app": "api"},
		Ports: []portFix{{Name: "http", Port: 8080}}, ProbePath: "/ready", Gates: []string{ReadinessGatePrefix + "api"}})
	c.Services = append(c.Services, svcFix{NS: "shop", Name: "api", Selector: map[string]string{"app": "api"},
		Ports: []svcPortFix{{Name: "http", Port: 80, TargetPort: "8080"}}},
		svcFix{NS: "shop", Name: "admin", Selector: map[string]string{"app": "admin"},
			Ports: []svcPortFix{{Name: "http", Port: 80, TargetPort: "8081", NodePort: 30081}}})
	c.Namespaces[0].Labels = map[string]string{LabelReadinessGateInject: "enabled"}
	c.Bindings = []bindingFix{{NS: "shop", Name: "api", TG: "k8s-shop-api", Service: "api", Port: "http", Type: "ip"}}
	w.Clusters = append(w.Clusters, clusterFix{Name: "staging", VPC: "vpc-0ffffffffffffffff", NoBindingCRD: true,
		Nodes: []nodeFix{{Name: "s1", IP: "10.0.1.10"}}})
	return w
}

func goldenReport(t *testing.T, opts ...Option) *Report {
	t.Helper()
	w := goldenWorld()
	h := newHarness(t, w)
	expectAll(h.elb, w)
	rep, err := h.run(t, Scope{All: true}, opts...)
	if err != nil {
		t.Fatalf("Diagnose() = %v", err)
	}
	return rep
}

func TestGolden(t *testing.T) {
	rep := goldenReport(t)
	js, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []struct {
		file string
		got  []byte
	}{
		{"report.golden.json", js},
		{"report.golden.md", []byte(rep.Markdown())},
		{"report.golden.txt", []byte(rep.Text())},
		{"report.golden.wide.txt", []byte(rep.WideText())},
	} {
		path := filepath.Join("testdata", g.file)
		if *update {
			if err := os.WriteFile(path, g.got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./diagnose -run TestGolden -update)", err)
		}
		if diff := cmp.Diff(string(want), string(g.got)); diff != "" {
			t.Errorf("%s differs (-want +got):\n%s", g.file, diff)
		}
	}
}

// TestGoldenContent pins what the golden report must say, so that an
// -update cannot bless a regression silently.
func TestGoldenContent(t *testing.T) {
	rep := goldenReport(t)
	legacy, api := rep.tg("legacy-web"), rep.tg("k8s-shop-api")
	if legacy == nil || api == nil {
		t.Fatal("target groups missing")
	}
	wantClass := map[string]Class{"10.0.1.10:30080": ClassNode, "10.0.2.10:30080": ClassNode, "10.0.3.10:30080": ClassNode,
		"10.0.9.99:30080": ClassGhost, "10.0.1.11:30080": ClassGhost}
	for _, tr := range legacy.Targets {
		if wantClass[tr.Key()] != tr.Class {
			t.Errorf("legacy-web %s: class %s, want %s", tr.Key(), tr.Class, wantClass[tr.Key()])
		}
		// The pod web-1 took 10.0.1.11 over: it serves 8080, not 30080.
		if want := (tr.Key() == "10.0.1.11:30080"); want != (tr.HeldBy != nil) ||
			(want && *tr.HeldBy != Holder{Kind: "pod", Cluster: "prod", Namespace: "shop", Name: "web-1"}) {
			t.Errorf("legacy-web %s: held by %+v", tr.Key(), tr.HeldBy)
		}
	}
	wantCodes := map[string][]Code{
		"legacy-web":   {CodeGhostTarget, CodeKarpenterDisruptionRisk, CodeStaticNodeTarget, CodeHealthCheckMismatch, CodeUnmanagedTargetGroup, CodePublicSubnetNode},
		"k8s-shop-api": {CodeDefaultModeBindingOnSharedGroup, CodePortMismatch, CodeStaticNodeTarget, CodePublicSubnetNode},
	}
	for name, want := range wantCodes {
		var got []Code
		for _, f := range rep.tg(name).Findings {
			got = append(got, f.Code)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s findings (-want +got):\n%s", name, diff)
		}
	}
	if api.Owner.Kind != OwnerBinding || api.Service == nil || api.Service.Name != "api" || api.Service.ResolvedTargetPort != 8080 {
		t.Errorf("k8s-shop-api owner %+v service %+v", api.Owner, api.Service)
	}
	if len(legacy.Routes) != 2 || legacy.Routes[1].Weight == nil || *legacy.Routes[1].Weight != 10 {
		t.Errorf("legacy-web routes = %+v", legacy.Routes)
	}
	if rep.Summary.ByCode[CodeBindingCRDMissing] != 1 || rep.Summary.BySeverity[SeverityCritical] != 2 {
		t.Errorf("summary = %+v", rep.Summary)
	}
	// legacy-web's cutover would add web's two pods next to its five
	// targets; edge also holds k8s-shop-api's three (one draining).
	// k8s-shop-api's pod is registered: it has no overlap.
	if diff := cmp.Diff(counts{Now: 5, Adding: 2, Peak: 7, Room: 993, After: 2, Quota: 1000}, countsOf(headroomOf(legacy, ScopeTargetGroup))); diff != "" {
		t.Errorf("legacy-web target-group headroom (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(counts{Now: 8, Others: 3, Adding: 2, Peak: 10, Room: 990, After: 5, Quota: 1000}, countsOf(headroomOf(legacy, ScopeLoadBalancer))); diff != "" {
		t.Errorf("legacy-web load-balancer headroom (-want +got):\n%s", diff)
	}
	if api.Headroom != nil {
		t.Errorf("k8s-shop-api headroom %+v, want none", api.Headroom)
	}
	if w, ok := rep.Worst(); !ok || w != SeverityCritical {
		t.Errorf("Worst() = %v, %v", w, ok)
	}
}

func TestReportValidatesAgainstSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(ReportSchema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("report.v1.json", doc); err != nil {
		t.Fatal(err)
	}
	c.AssertFormat()
	schema, err := c.Compile("report.v1.json")
	if err != nil {
		t.Fatal(err)
	}
	validate := func(t *testing.T, rep *Report) {
		t.Helper()
		js, err := rep.JSON()
		if err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(inst); err != nil {
			t.Fatalf("report does not validate: %v", err)
		}
	}
	t.Run("golden", func(t *testing.T) { validate(t, goldenReport(t)) })
	for _, tt := range findingCases {
		if !tt.want {
			continue
		}
		t.Run(string(tt.code)+"/"+tt.name, func(t *testing.T) {
			w := tt.world()
			h := newHarness(t, w)
			expectAll(h.elb, w)
			if w.EC2 != nil {
				expectEC2(h.ec2, w)
			}
			rep, err := h.run(t, Scope{All: true})
			if err != nil {
				t.Fatal(err)
			}
			validate(t, rep)
		})
	}
	t.Run("service from tags", func(t *testing.T) {
		w := tagWorld(map[string]string{TagCluster: "prod", TagServiceSource: "shop/api:80"})()
		h := newHarness(t, w)
		expectAll(h.elb, w)
		rep, err := h.run(t, Scope{All: true})
		if err != nil {
			t.Fatal(err)
		}
		if s := rep.tg("legacy-web").Service; s == nil || s.Source != ServiceFromTags {
			t.Fatalf("service = %+v, want source %q", s, ServiceFromTags)
		}
		validate(t, rep)
	})
	t.Run("errors", func(t *testing.T) {
		w := baseWorld()
		h := newHarness(t, w)
		rep, _ := h.run(t, Scope{TargetGroupARNs: []tgmigrate.ARN{{Raw: "not-an-arn"}}})
		validate(t, rep)
	})
	t.Run("the schema rejects a wrong version", func(t *testing.T) {
		rep := goldenReport(t)
		js, _ := rep.JSON()
		var m map[string]any
		if err := json.Unmarshal(js, &m); err != nil {
			t.Fatal(err)
		}
		m["schemaVersion"] = 2
		bad, _ := json.Marshal(m)
		inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(bad))
		if err := schema.Validate(inst); err == nil {
			t.Fatal("schemaVersion 2 validated")
		}
	})
}

// TestDeterministic runs the same fleet with one worker and with many: the
// JSON must not change.
func TestDeterministic(t *testing.T) {
	a, _ := goldenReport(t, WithConcurrency(1)).JSON()
	for range 3 {
		b, _ := goldenReport(t, WithConcurrency(16)).JSON()
		if diff := cmp.Diff(string(a), string(b)); diff != "" {
			t.Fatalf("reports differ between runs:\n%s", diff)
		}
	}
}

func TestRulesTable(t *testing.T) {
	seen := map[Code]bool{}
	for _, r := range Rules() {
		if seen[r.Code] || r.Signal == "" || r.Remediation == "" || r.Severity.Rank() > 4 {
			t.Errorf("rule %+v is duplicated or incomplete", r)
		}
		seen[r.Code] = true
	}
	// The codes are public API: exact strings.
	for code, want := range map[Code]string{
		CodeGhostTarget: "GhostTarget", CodeStaticNodeTarget: "StaticNodeTarget", CodeUnmanagedTargetGroup: "UnmanagedTargetGroup",
		CodeKarpenterDisruptionRisk: "KarpenterDisruptionRisk", CodeHealthCheckMismatch: "HealthCheckMismatch",
		CodePortMismatch: "PortMismatch", CodePublicSubnetNode: "PublicSubnetNode", CodeMissingReadinessGate: "MissingReadinessGate",
		CodeDefaultModeBindingOnSharedGroup: "DefaultModeBindingOnSharedGroup", CodeInstanceTypeTargetGroup: "InstanceTypeTargetGroup",
		CodeTargetQuotaOverlap: "TargetQuotaOverlap", CodeTargetQuotaExceeded: "TargetQuotaExceeded",
	} {
		if string(code) != want || !seen[code] {
			t.Errorf("code %q: want %q with a rule", code, want)
		}
	}
	// doc.go documents every rule.
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Rules() {
		if !strings.Contains(string(doc), string(r.Code)) || !strings.Contains(string(doc), r.Signal) {
			t.Errorf("doc.go does not document %s with its signal", r.Code)
		}
	}
}
