package subnets_test

// readiness_test.go: CheckReadiness on the tests' world: ready, each
// finding code, the estimate, partial permissions, kinds not served.

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/karpenterapi"
	"github.com/qstools/tgmigrate/internal/vclock"
	"github.com/qstools/tgmigrate/subnets"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

var epoch = time.Date(2026, 12, 4, 8, 0, 0, 0, time.UTC)

// check runs CheckReadiness on the world, on a virtual clock.
func check(t *testing.T, w *world, edit func(*subnets.Input)) *subnets.Readiness {
	t.Helper()
	in := w.input(t)
	if edit != nil {
		edit(&in)
	}
	rep, err := subnets.CheckReadiness(t.Context(), in, subnets.WithClock(vclock.New(epoch)))
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func codes(rep *subnets.Readiness) []string {
	var out []string
	for _, f := range rep.Findings {
		out = append(out, string(f.Code))
	}
	return out
}

func findingOf(t *testing.T, rep *subnets.Readiness, code diagnose.Code) diagnose.Finding {
	t.Helper()
	for _, f := range rep.Findings {
		if f.Code == code {
			return f
		}
	}
	t.Fatalf("no %s finding; findings %v, notes %v", code, codes(rep), rep.Notes)
	return diagnose.Finding{}
}

func TestReady(t *testing.T) {
	rep := check(t, newWorld(), nil)
	if !rep.Ready || len(rep.Findings) != 0 {
		t.Fatalf("Ready = %v, findings %v, notes %v; want ready with none", rep.Ready, codes(rep), rep.Notes)
	}
	var ids []string
	for _, s := range rep.PrivateSubnets {
		ids = append(ids, s.ID+"/"+s.Egress)
	}
	if diff := cmp.Diff([]string{"subnet-priv-a/nat", "subnet-priv-b/nat"}, ids); diff != "" {
		t.Errorf("private subnets (-want +got):\n%s", diff)
	}
	wantTerms := []karpenterapi.SelectorTerm{{ID: "subnet-priv-a"}, {ID: "subnet-priv-b"}}
	if diff := cmp.Diff(wantTerms, rep.SelectorTerms); diff != "" {
		t.Errorf("selector terms (-want +got):\n%s", diff)
	}
	wantZones := []subnets.ZoneReport{
		{Zone: zoneA, Nodes: 1, Pods: 1, Need: 2, Free: 100, Subnets: []string{"subnet-priv-a"}}, // the hostNetwork pod takes no address
		{Zone: zoneB, Nodes: 1, Pods: 1, Need: 2, Free: 100, Subnets: []string{"subnet-priv-b"}},
	}
	if diff := cmp.Diff(wantZones, rep.Zones); diff != "" {
		t.Errorf("zones (-want +got):\n%s", diff)
	}
	if len(rep.NodeClasses) != 1 || rep.NodeClasses[0].Name != "default" ||
		!cmp.Equal(rep.NodeClasses[0].PublicSubnets, []string{"subnet-pub-a", "subnet-pub-b"}) || rep.NodeClasses[0].Nodes != 2 {
		t.Errorf("node classes = %+v, want default with both public subnets and 2 nodes", rep.NodeClasses)
	}
	if len(rep.NodePools) != 1 || rep.NodePools[0].AllowedDrift != 1 || rep.NodePools[0].PublicNodes != 1 || rep.NodePools[0].Budgets != nil {
		t.Errorf("node pools = %+v, want default: 10%% of 2 rounds up to 1, 1 public node, budgets absent", rep.NodePools)
	}
	if len(rep.TargetGroups) != 1 {
		t.Fatalf("target groups = %+v, want 1", rep.TargetGroups)
	}
	tg := rep.TargetGroups[0]
	if tg.ARN.String() != tgARN || tg.Binding != "default/web" || tg.HealthyPodTargets != 2 || tg.Floor != 1 || tg.TargetPort != 8080 ||
		!cmp.Equal(tg.Zones, []string{zoneA, zoneB}) || tg.Networking != "" {
		t.Errorf("target group = %+v", tg)
	}
	e := rep.Estimate
	if e.Nodes != 2 || e.Waves != 2 || e.Launch != subnets.DefaultLaunchTime || e.Drain != subnets.DefaultDrainTime || e.Duration != 16*time.Minute {
		t.Errorf("estimate = %+v, want 2 nodes, 2 waves, 2 × (3m + 5m)", e)
	}
	if !rep.CheckedAt.Equal(epoch) {
		t.Errorf("CheckedAt = %v, want the injected clock's %v", rep.CheckedAt, epoch)
	}
}

// TestCheckReadinessListsEachKindOnce: the gate (diagnose) and the checks
// share one listing of the cluster: each kind is listed once per
// CheckReadiness, in one call on this small world.
func TestCheckReadinessListsEachKindOnce(t *testing.T) {
	w := newWorld()
	check(t, w, nil)
	want := map[string]int{
		"v1.NodeList": 1, "v1.PodList": 1, "v1.ServiceList": 1, "v1.NamespaceList": 1,
		"v1beta1.TargetGroupBindingList": 1, "NodeClaimList": 1,
		"EC2NodeClassList": 1, "NodePoolList": 1, "PodDisruptionBudgetList": 1,
	}
	if d := cmp.Diff(want, w.byKind); d != "" {
		t.Errorf("lists by kind (-want +got):\n%s", d)
	}
}

// TestCheckReadinessListFailures: of the one listing, a failure of a kind
// the checks need (nodes, pods, Services, bindings) stops the check; one
// only diagnose reads (namespaces, NodeClaims) leaves the gate to judge
// without it; a reader whose scheme lacks TargetGroupBinding reads as a
// cluster without the CRD.
func TestCheckReadinessListFailures(t *testing.T) {
	forbid := func(resource string) error {
		return apierrors.NewForbidden(schema.GroupResource{Resource: resource}, "", errors.New("RBAC"))
	}
	tests := []struct {
		name    string
		fail    map[string]error
		wantErr string // "" for a report
		note    string // a note the report has
	}{
		{name: "pods forbidden", fail: map[string]error{"v1.PodList": forbid("pods")},
			wantErr: "subnets: cluster " + cluster + ": list pods: " + forbid("pods").Error()},
		{name: "bindings failed", fail: map[string]error{"v1beta1.TargetGroupBindingList": errors.New("connection reset")},
			wantErr: "subnets: cluster " + cluster + ": list targetgroupbindings: connection reset"},
		{name: "namespaces forbidden", fail: map[string]error{"v1.NamespaceList": forbid("namespaces")}},
		{name: "bindings not registered", fail: map[string]error{"v1beta1.TargetGroupBindingList": runtime.NewNotRegisteredErrForKind("test", v1beta1.GroupVersion.WithKind("TargetGroupBindingList"))},
			note: "the TargetGroupBinding CRD is not served"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld()
			w.failList = tt.fail
			rep, err := subnets.CheckReadiness(t.Context(), w.input(t), subnets.WithClock(vclock.New(epoch)))
			switch {
			case tt.wantErr != "":
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %s", err, tt.wantErr)
				}
				return
			case err != nil:
				t.Fatalf("err = %v, want a report", err)
			}
			if tt.note != "" && !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.HasPrefix(n, tt.note) }) {
				t.Errorf("notes %q: want one starting %q", rep.Notes, tt.note)
			}
			if w.byKind["v1.NodeList"] != 1 || w.byKind["v1.PodList"] != 1 {
				t.Errorf("lists by kind %v: want nodes and pods once", w.byKind)
			}
		})
	}
}
