package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/qstools/tgmigrate/helmgov"
)

// discoveryServer serves the legacy discovery documents of a cluster that
// serves the core kinds helm check meets, plus the groups in extra; it
// counts every request. broken group versions answer 503.
func discoveryServer(t *testing.T, extra []metav1.APIResourceList, broken ...string) (url string, requests *atomic.Int64) {
	t.Helper()
	lists := append([]metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "services", Kind: "Service", Namespaced: true},
			{Name: "namespaces", Kind: "Namespace"},
			{Name: "pods/log", Kind: "Pod", Namespaced: true},
		}},
		{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{{Name: "deployments", Kind: "Deployment", Namespaced: true}}},
		{GroupVersion: "policy/v1", APIResources: []metav1.APIResource{{Name: "poddisruptionbudgets", Kind: "PodDisruptionBudget", Namespaced: true}}},
	}, extra...)
	docs := map[string]any{"/api": metav1.APIVersions{Versions: []string{"v1"}}}
	groups := metav1.APIGroupList{}
	for _, l := range append(lists, brokenLists(broken)...) {
		l.Kind, l.APIVersion = "APIResourceList", "v1"
		if l.GroupVersion == "v1" {
			docs["/api/v1"] = l
			continue
		}
		group, version, _ := strings.Cut(l.GroupVersion, "/")
		gv := metav1.GroupVersionForDiscovery{GroupVersion: l.GroupVersion, Version: version}
		groups.Groups = append(groups.Groups, metav1.APIGroup{Name: group, Versions: []metav1.GroupVersionForDiscovery{gv}, PreferredVersion: gv})
		if !slices.Contains(broken, l.GroupVersion) {
			docs["/apis/"+l.GroupVersion] = l
		}
	}
	docs["/apis"] = groups
	requests = &atomic.Int64{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		doc, ok := docs[r.URL.Path]
		if !ok {
			http.Error(w, "service unavailable", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(doc)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, requests
}

func brokenLists(gvs []string) []metav1.APIResourceList {
	var out []metav1.APIResourceList
	for _, gv := range gvs {
		out = append(out, metav1.APIResourceList{GroupVersion: gv})
	}
	return out
}

func kubeconfigFor(t *testing.T, server string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: \"" + server + "\"}}]\n" +
		"users: [{name: u, user: {token: t0ps3cret}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n"
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

var tgbServed = metav1.APIResourceList{GroupVersion: "elbv2.k8s.aws/v1beta1", APIResources: []metav1.APIResource{
	{Name: "targetgroupbindings", Kind: "TargetGroupBinding", Namespaced: true},
	{Name: "targetgroupbindings/status", Kind: "TargetGroupBinding", Namespaced: true},
}}

// reported is a finding as helm check and helm fix print it in JSON.
type reported struct {
	Rule   string            `json:"rule"`
	Object helmgov.ObjectRef `json:"object"`
}

// helmFindings runs helm check or fix with --format json and returns the
// findings of check, or those left after fix; nil on exit 2.
func helmFindings(t *testing.T, args ...string) (code int, found []reported, stderr string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, append([]string{"--format", "json"}, args...)...)
	if code == exitUsage {
		return code, nil, stderr
	}
	type result struct {
		Findings []reported `json:"findings"`
	}
	var out struct {
		result
		After *result `json:"after"` // helm fix: the fixed chart's check
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("exit %d, output is not JSON: %v\n%s\n%s", code, err, stdout, stderr)
	}
	if out.After != nil {
		return code, out.After.Findings, stderr
	}
	return code, out.Findings, stderr
}

// objectsOf lists the objects of the findings of rule.
func objectsOf(found []reported, rule string) []string {
	var out []string
	for _, f := range found {
		if f.Rule == rule {
			out = append(out, f.Object.String())
		}
	}
	return out
}

// TestHelmCluster: --cluster asks the cluster which kinds it serves, so a
// TargetGroupBinding without the LBC's CRDs is a TGM-H012 error; without
// --cluster nothing contacts the cluster, even with a kubeconfig at hand.
func TestHelmCluster(t *testing.T) {
	isolate(t)
	chart := filepath.Join("..", "..", "helmgov", "testdata", "charts", "legacy-nodeport")
	withoutLBC, hitsWithout := discoveryServer(t, nil)
	withLBC, _ := discoveryServer(t, []metav1.APIResourceList{tgbServed})
	brokenAPI, _ := discoveryServer(t, []metav1.APIResourceList{tgbServed}, "metrics.k8s.io/v1beta1")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantH012 bool
		wantErr  string // for exit 2: the one line on stderr
	}{
		{name: "check, CRD missing", args: []string{"--kubeconfig", kubeconfigFor(t, withoutLBC), "helm", "check", "--cluster", chart},
			wantCode: exitFindings, wantH012: true},
		{name: "check, CRD served", args: []string{"--kubeconfig", kubeconfigFor(t, withLBC), "helm", "check", "--cluster", chart},
			wantCode: exitFindings},
		{name: "check without --cluster", args: []string{"--kubeconfig", kubeconfigFor(t, withoutLBC), "helm", "check", chart},
			wantCode: exitFindings},
		{name: "fix, CRD missing: not fixable, reported, exit 1", args: []string{"--kubeconfig", kubeconfigFor(t, withoutLBC), "helm", "fix", "--cluster", chart},
			wantCode: exitFindings, wantH012: true},
		{name: "no kubeconfig", args: []string{"helm", "check", "--cluster", chart},
			wantCode: exitUsage, wantErr: "kube: no kubeconfig: set --kubeconfig or $KUBECONFIG"},
		{name: "a group that fails discovery", args: []string{"--kubeconfig", kubeconfigFor(t, brokenAPI), "helm", "check", "--cluster", chart},
			wantCode: exitUsage, wantErr: "--cluster: discover the kinds " + brokenAPI + " serves: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1"},
		{name: "unreachable", args: []string{"--kubeconfig", kubeconfigFor(t, "http://127.0.0.1:1"), "helm", "check", "--cluster", chart},
			wantCode: exitUsage, wantErr: "--cluster: discover the kinds http://127.0.0.1:1 serves"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := hitsWithout.Load()
			code, found, stderr := helmFindings(t, tt.args...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.wantCode, stderr)
			}
			if tt.wantErr != "" {
				if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tt.wantErr) {
					t.Errorf("stderr %q, want one line containing %q", stderr, tt.wantErr)
				}
				return
			}
			if got := objectsOf(found, "TGM-H012"); (len(got) > 0) != tt.wantH012 {
				t.Errorf("TGM-H012 on %v, want it: %v", got, tt.wantH012)
			}
			if !slices.Contains(tt.args, "--cluster") && hitsWithout.Load() != before {
				t.Errorf("without --cluster, %d requests reached the cluster", hitsWithout.Load()-before)
			}
			if strings.Contains(stderr, "t0ps3cret") {
				t.Error("stderr leaks the kubeconfig token")
			}
		})
	}
}

// TestHelmFixRoutes: helm fix -f puts the fixes into the user's values
// file; --into changes the route, and a bad one is a usage error; --atomic
// turns a fix that cannot hold into exit 2 with nothing written, where the
// default drops it and writes the others.
func TestHelmFixRoutes(t *testing.T) {
	src := filepath.Join("..", "..", "helmgov", "testdata", "charts", "values-routed")
	prodSrc := filepath.Join("..", "..", "helmgov", "testdata", "values", "values-routed-prod.yaml")
	setup := func(t *testing.T) (chart, prod string) {
		t.Helper()
		dir := t.TempDir()
		chart = filepath.Join(dir, "chart")
		if err := os.CopyFS(chart, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(prodSrc)
		if err != nil {
			t.Fatal(err)
		}
		prod = filepath.Join(dir, "prod.yaml")
		if err := os.WriteFile(prod, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return chart, prod
	}
	type fixReport struct {
		Applied []struct {
			Route string `json:"route"`
			File  string `json:"file"`
			Why   string `json:"why"`
		} `json:"applied"`
		Dropped []struct {
			Reason string `json:"reason"`
		} `json:"dropped"`
		Written bool `json:"written"`
	}
	tests := []struct {
		name        string
		args        func(chart, prod string) []string
		wantCode    int
		wantRoutes  []string // of the applied fixes
		wantDropped int
		wantStderr  string
	}{
		{
			name:       "-f: every fix into the user's file",
			args:       func(chart, prod string) []string { return []string{chart, "-f", prod, "--yes"} },
			wantRoutes: []string{"user-values", "user-values", "user-values", "user-values", "user-values"},
		},
		{
			// prod.yaml sets the load balancer type to nlb, over values.yaml:
			// the error stays, exit 1, named on stderr.
			name:        "--into chart: the fix prod.yaml overrides is dropped, exit 1",
			args:        func(chart, prod string) []string { return []string{chart, "-f", prod, "--into", "chart", "--yes"} },
			wantCode:    exitFindings,
			wantStderr:  "1 finding at or above warning remains after the fix (TGM-H001 Service default/release-name-routed-web)",
			wantRoutes:  []string{"chart-values", "chart-values", "chart-values", "chart-values"},
			wantDropped: 1,
		},
		{
			name: "--into chart --atomic: exit 2, nothing written",
			args: func(chart, prod string) []string {
				return []string{chart, "-f", prod, "--into", "chart", "--atomic", "--yes"}
			},
			wantCode:   exitUsage,
			wantStderr: "fix did not hold",
		},
		{
			name:       "--into elsewhere: a usage error",
			args:       func(chart, prod string) []string { return []string{chart, "--into", "elsewhere"} },
			wantCode:   exitUsage,
			wantStderr: "--into",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chart, prod := setup(t)
			before := map[string][]byte{}
			for _, p := range []string{filepath.Join(chart, "values.yaml"), prod} {
				before[p], _ = os.ReadFile(p)
			}
			code, stdout, stderr := runCLI(t, append([]string{"helm", "fix", "--format", "json"}, tt.args(chart, prod)...)...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.wantCode, stderr)
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr %q, want %q", stderr, tt.wantStderr)
			}
			if tt.wantCode == exitUsage {
				for p, b := range before {
					if now, _ := os.ReadFile(p); string(now) != string(b) {
						t.Errorf("%s changed", p)
					}
				}
				return
			}
			var rep fixReport
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("%v\n%s", err, stdout)
			}
			var routes []string
			for _, a := range rep.Applied {
				routes = append(routes, a.Route)
				if a.Why == "" {
					t.Errorf("fix in %s has no why", a.File)
				}
			}
			if !slices.Equal(routes, tt.wantRoutes) || len(rep.Dropped) != tt.wantDropped || !rep.Written {
				t.Errorf("routes %v, dropped %d, written %v; want %v, %d, true", routes, len(rep.Dropped), rep.Written, tt.wantRoutes, tt.wantDropped)
			}
		})
	}
}
