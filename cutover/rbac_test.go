package cutover

// rbac_test.go: the table of RBAC needs (its shape, each condition
// toggling its need), RBACFor's input errors, and the rendering (golden
// YAML of the seed case's plans, parsed back to the objects).

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

func testRBACInput() RBACInput {
	return RBACInput{PlanID: "tgm-0123456789ab", TargetGroupARN: arntest.TG(testTG), Namespace: "shop", Binding: "web-http-legacy-web", Service: "web"}
}

// ruleKeys names each verb of each rule: "cluster /nodes patch".
func ruleKeys(rules []RBACRule) []string {
	var out []string
	for _, r := range rules {
		for _, v := range r.Verbs {
			out = append(out, fmt.Sprintf("%s %s/%s%s %s", r.Scope, r.APIGroup, r.Resource, names(r.ResourceNames), v))
		}
	}
	return out
}

func names(ns []string) string {
	if len(ns) == 0 {
		return ""
	}
	return "/" + strings.Join(ns, ",")
}

// TestRBACTableShape: every need has a scope, known verbs, a reason and,
// when it creates, no names (RBAC cannot narrow a plain create; the
// binding, applied server-side, is created by name); no two needs
// grant the same verb on the same objects; optional needs serve no
// default part (a replaced default drops its needs whole).
func TestRBACTableShape(t *testing.T) {
	seen := map[string]bool{}
	for i, n := range rbacTable {
		where := fmt.Sprintf("rbacTable[%d] (%s %s)", i, n.verbs, n.resource)
		if n.scope != RBACNamespaced && n.scope != RBACCluster {
			t.Errorf("%s: scope %q", where, n.scope)
		}
		if n.reason == "" || n.resource == "" || len(n.verbs) == 0 {
			t.Errorf("%s: no reason, resource or verb", where)
		}
		if n.optional && n.part != "" {
			t.Errorf("%s: optional and part %s", where, n.part)
		}
		var objs []string
		if n.names != nil {
			objs = n.names(rbacNames{journal: "j", lease: "l", binding: "b", service: "s", lbcTargets: "t"})
		}
		for _, v := range n.verbs {
			if !slices.Contains(rbacVerbOrder, v) {
				t.Errorf("%s: verb %q", where, v)
			}
			if v == "create" && len(objs) > 0 && n.resource != v1beta1.Resource {
				// Only tgbind's server-side apply creates by name.
				t.Errorf("%s: a plain create narrowed to names %v never matches", where, objs)
			}
			key := fmt.Sprintf("%s %s/%s%s %s", n.scope, n.group, n.resource, names(objs), v)
			if seen[key] {
				t.Errorf("%s: %s twice", where, key)
			}
			seen[key] = true
		}
	}
}

// TestRBACConditions: each condition of the table toggles its needs and
// nothing else.
func TestRBACConditions(t *testing.T) {
	base, err := RBACFor(testRBACInput())
	if err != nil {
		t.Fatal(err)
	}
	all := ruleKeys(base.Rules)
	tests := []struct {
		name string
		mod  func(*RBACInput)
		// gone are the verbs the condition drops.
		gone []string
	}{
		{"the hold", func(in *RBACInput) { in.NoDisruptionHold = true }, []string{"cluster /nodes patch"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := testRBACInput()
			tt.mod(&in)
			r, err := RBACFor(in)
			if err != nil {
				t.Fatal(err)
			}
			want := slices.DeleteFunc(slices.Clone(all), func(k string) bool { return slices.Contains(tt.gone, k) })
			if len(want) != len(all)-len(tt.gone) {
				t.Fatalf("the base rules lack some of %v: %v", tt.gone, all)
			}
			if d := cmp.Diff(want, ruleKeys(r.Rules)); d != "" {
				t.Errorf("rules (-want +got):\n%s", d)
			}
		})
	}
	// The base case, written out: what a default plan needs.
	want := []string{
		"namespace /configmaps create", "namespace /configmaps/tgmigrate-journal-legacy-web-d2cc95b38d get",
		"namespace /configmaps/tgmigrate-journal-legacy-web-d2cc95b38d update", "namespace /configmaps/tgmigrate-journal-legacy-web-d2cc95b38d delete",
		"namespace /configmaps/aws-lbc-targets-web-http-legacy-web get",
		"namespace coordination.k8s.io/leases create", "namespace coordination.k8s.io/leases/tgmigrate-lock-legacy-web-d2cc95b38d get",
		"namespace coordination.k8s.io/leases/tgmigrate-lock-legacy-web-d2cc95b38d update", "namespace coordination.k8s.io/leases/tgmigrate-lock-legacy-web-d2cc95b38d delete",
		"namespace elbv2.k8s.aws/targetgroupbindings/web-http-legacy-web get", "namespace elbv2.k8s.aws/targetgroupbindings/web-http-legacy-web create",
		"namespace elbv2.k8s.aws/targetgroupbindings/web-http-legacy-web patch",
		"namespace elbv2.k8s.aws/targetgroupbindings/web-http-legacy-web delete",
		"namespace /services/web get", "namespace discovery.k8s.io/endpointslices list", "namespace /pods watch", "namespace /events list",
		"cluster /nodes list", "cluster /nodes get", "cluster /nodes patch", "cluster /nodes watch",
		"cluster /pods list", "cluster /services list", "cluster karpenter.sh/nodeclaims list", "cluster karpenter.sh/nodeclaims watch",
		"cluster elbv2.k8s.aws/targetgroupbindings list",
		"cluster admissionregistration.k8s.io/validatingwebhookconfigurations list", "cluster admissionregistration.k8s.io/mutatingwebhookconfigurations list",
		"cluster authorization.k8s.io/selfsubjectaccessreviews create",
	}
	if d := cmp.Diff(want, all); d != "" {
		t.Errorf("the default plan's rules (-want +got):\n%s", d)
	}
	var optional []string
	for _, r := range base.Rules {
		if r.Optional {
			optional = append(optional, r.What(base.Namespace))
		}
	}
	wantOptional := []string{"watch pods in shop", "watch nodes (cluster-wide)", "watch nodeclaims.karpenter.sh (cluster-wide)",
		"list validatingwebhookconfigurations.admissionregistration.k8s.io (cluster-wide)", "list mutatingwebhookconfigurations.admissionregistration.k8s.io (cluster-wide)",
		"create selfsubjectaccessreviews.authorization.k8s.io (cluster-wide)"}
	if d := cmp.Diff(wantOptional, optional); d != "" {
		t.Errorf("optional rules (-want +got):\n%s", d)
	}
}

// TestRBACForInput: missing or malformed input is an *InputError naming
// the field, and no rules.
func TestRBACForInput(t *testing.T) {
	tests := []struct {
		name  string
		mod   func(*RBACInput)
		field string
	}{
		{"no plan", func(in *RBACInput) { in.PlanID = "" }, "PlanID"},
		{"plan ID no Role name takes", func(in *RBACInput) { in.PlanID = "Plan/1" }, "PlanID"},
		{"no namespace", func(in *RBACInput) { in.Namespace = "" }, "Namespace"},
		{"bad namespace", func(in *RBACInput) { in.Namespace = "Shop" }, "Namespace"},
		{"zero ARN", func(in *RBACInput) { in.TargetGroupARN = RBACInput{}.TargetGroupARN }, "TargetGroupARN"},
		{"no binding", func(in *RBACInput) { in.Binding = "" }, "Binding"},
		{"no service", func(in *RBACInput) { in.Service = "" }, "Service"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := testRBACInput()
			tt.mod(&in)
			r, err := RBACFor(in)
			var ie *InputError
			if r != nil || !errors.As(err, &ie) || ie.Field != tt.field || !IsInvalidInput(err) {
				t.Fatalf("RBACFor = %v, %v; want an *InputError on %s", r, err, tt.field)
			}
		})
	}
}

// goldenPlanRules reads testdata's golden plan of strategy name and
// returns it with its rules.
func goldenPlanRules(t *testing.T, name string) (*Plan, *RBAC) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "plan-"+name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParsePlan(data)
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.ClusterRules()
	if err != nil {
		t.Fatal(err)
	}
	return p, r
}

// TestRBACGolden: the rules of the seed case's plans (testdata's golden
// plans), as the YAML an administrator applies for a service account;
// every document parses back to the object it renders.
func TestRBACGolden(t *testing.T) {
	subject := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: "ops", Name: "tgmigrate"}
	for _, name := range []string{"in-place", "blue-green"} {
		t.Run(name, func(t *testing.T) {
			p, r := goldenPlanRules(t, name)
			y, err := r.YAML(subject)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "rbac-"+name+".yaml", y)
			docs := bytes.Split(y, []byte("\n---\n"))[1:]
			objs := r.Objects(subject)
			if len(docs) != len(objs) {
				t.Fatalf("%d documents, %d objects", len(docs), len(objs))
			}
			for i, obj := range objs {
				back := obj.DeepCopyObject()
				if err := yaml.UnmarshalStrict(docs[i], back); err != nil {
					t.Fatalf("document %d: %v", i, err)
				}
				if d := cmp.Diff(obj, back); d != "" {
					t.Errorf("document %d (-object +parsed):\n%s", i, d)
				}
			}
			if rb, crb := objs[2].(*rbacv1.RoleBinding), objs[3].(*rbacv1.ClusterRoleBinding); rb.RoleRef.Name != r.Name || rb.RoleRef.Kind != "Role" ||
				crb.RoleRef.Kind != "ClusterRole" || rb.Namespace != p.Binding.Namespace || crb.Subjects[0] != subject {
				t.Errorf("bindings: %+v, %+v", rb, crb)
			}
			if len(r.Objects()) != 2 {
				t.Errorf("without subjects: %d objects, want the two roles", len(r.Objects()))
			}
		})
	}
}

// TestRBACCoversStepCalls: every Kubernetes call a plan's steps name
// (Step.Calls, "kubernetes:VERBS RESOURCES"; apply is a patch) is granted
// by the plan's rules, in-place and blue/green.
func TestRBACCoversStepCalls(t *testing.T) {
	for _, name := range []string{"in-place", "blue-green"} {
		t.Run(name, func(t *testing.T) {
			p, r := goldenPlanRules(t, name)
			checked := 0
			for _, s := range p.Steps {
				for _, c := range s.Calls {
					call, ok := strings.CutPrefix(c, "kubernetes:")
					if !ok {
						continue
					}
					verbs, resources, _ := strings.Cut(call, " ")
					for v := range strings.SplitSeq(verbs, ",") {
						if v == "apply" {
							v = "patch"
						}
						for res := range strings.SplitSeq(resources, ",") {
							checked++
							if !slices.ContainsFunc(r.Rules, func(rule RBACRule) bool { return rule.Resource == res && slices.Contains(rule.Verbs, v) }) {
								t.Errorf("step %s calls %q: no rule grants %s %s", s.ID, c, v, res)
							}
						}
					}
				}
			}
			if checked < 7 {
				t.Errorf("only %d Kubernetes calls named by the steps", checked)
			}
		})
	}
}

// TestRBACReplaceFirst: replacing the expiring nodes first adds delete on
// NodeClaims, and only that; a plan without the hold step cannot replace
// first, so it never gets it. A plan with a forceful-disruption
// precondition asks for it.
func TestRBACReplaceFirst(t *testing.T) {
	base, err := RBACFor(testRBACInput())
	if err != nil {
		t.Fatal(err)
	}
	in := testRBACInput()
	in.ReplaceFirst = true
	r, err := RBACFor(in)
	if err != nil {
		t.Fatal(err)
	}
	added := slices.DeleteFunc(ruleKeys(r.Rules), func(k string) bool { return slices.Contains(ruleKeys(base.Rules), k) })
	if d := cmp.Diff([]string{"cluster karpenter.sh/nodeclaims delete"}, added); d != "" {
		t.Errorf("ReplaceFirst adds (-want +got):\n%s", d)
	}
	in.NoDisruptionHold = true
	r, err = RBACFor(in)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(ruleKeys(r.Rules), "cluster karpenter.sh/nodeclaims delete") {
		t.Error("a plan without the hold gets delete on NodeClaims")
	}
	p := &Plan{ID: "tgm-0123456789ab", Preconditions: []Precondition{{Kind: PreconditionForcefulDisruption}}}
	if !p.RBACInput().ReplaceFirst {
		t.Error("a plan with a forceful-disruption precondition does not ask for the replacement's rule")
	}
}
