package cutover_test

// preflight_test.go: the permission check of Execute and Rollback, on a
// fake client whose interceptor answers the SelfSubjectAccessReviews (a
// refusal names every missing rule and comes before any other call; a
// client that cannot review is no refusal), and on the simulated world (an
// optional rule refused is a warning of a completed run; the check off
// asks nothing).

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/mock/gomock"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/mocks"
	"github.com/qstools/tgmigrate/internal/sim/cluster"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// reviews answers SelfSubjectAccessReviews: allowed unless deny says no.
// It records every review and counts every other call.
type reviews struct {
	deny func(authorizationv1.ResourceAttributes) bool

	mu     sync.Mutex
	asked  []authorizationv1.ResourceAttributes
	others []string
}

func (rv *reviews) answer(r *authorizationv1.SelfSubjectAccessReview) {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	a := *r.Spec.ResourceAttributes
	rv.asked = append(rv.asked, a)
	r.Status.Allowed = rv.deny == nil || !rv.deny(a)
	if !r.Status.Allowed {
		r.Status.Reason = "not in the test's rules"
	}
}

// reset forgets what was asked and answers with deny from now on.
func (rv *reviews) reset(deny func(authorizationv1.ResourceAttributes) bool) {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	rv.deny, rv.asked, rv.others = deny, nil, nil
}

func (rv *reviews) other(op string) {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	rv.others = append(rv.others, op)
}

// funcs is rv as interceptor.Funcs over a fake client.
func (rv *reviews) funcs() interceptor.Funcs {
	return interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if r, ok := obj.(*authorizationv1.SelfSubjectAccessReview); ok {
				rv.answer(r)
				return nil
			}
			rv.other("create")
			return c.Create(ctx, obj, opts...)
		},
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			rv.other("get")
			return c.Get(ctx, key, obj, opts...)
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			rv.other("list")
			return c.List(ctx, list, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			rv.other("update")
			return c.Update(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			rv.other("patch")
			return c.Patch(ctx, obj, patch, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			rv.other("delete")
			return c.Delete(ctx, obj, opts...)
		},
	}
}

// deny refuses the requests named "verb resource" (any group, namespace
// and name).
func deny(what ...string) func(authorizationv1.ResourceAttributes) bool {
	return func(a authorizationv1.ResourceAttributes) bool { return slices.Contains(what, a.Verb+" "+a.Resource) }
}

// goldenPlan is the seed case's in-place plan (testdata).
func goldenPlan(t *testing.T) *cutover.Plan {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "plan-in-place.json"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := cutover.ParsePlan(data)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// oneRound lists the reviews one round of the check asks for the rules
// r, dropping parts: one per verb and named object, the review of the
// review itself first.
func oneRound(r *cutover.RBAC, drop ...cutover.RBACPart) []string {
	out := []string{"create authorization.k8s.io/selfsubjectaccessreviews"}
	for _, rule := range r.Rules {
		if slices.Contains(drop, rule.Part) {
			continue
		}
		objs := rule.ResourceNames
		if len(objs) == 0 {
			objs = []string{""}
		}
		ns := ""
		if rule.Scope == cutover.RBACNamespaced {
			ns = r.Namespace
		}
		for _, v := range rule.Verbs {
			for _, o := range objs {
				k := reviewKey(authorizationv1.ResourceAttributes{Verb: v, Group: rule.APIGroup, Resource: rule.Resource, Namespace: ns, Name: o})
				if !slices.Contains(out, k) {
					out = append(out, k)
				}
			}
		}
	}
	return out
}

func reviewKey(a authorizationv1.ResourceAttributes) string {
	k := a.Verb + " " + a.Group + "/" + a.Resource
	if a.Name != "" {
		k += "/" + a.Name
	}
	if a.Namespace != "" {
		k += " in " + a.Namespace
	}
	return k
}

func (rv *reviews) keys() []string {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	var out []string
	for _, a := range rv.asked {
		out = append(out, reviewKey(a))
	}
	return out
}

// TestPermissionCheckRefuses: on a client that refuses rules of the plan,
// Execute and Rollback stop with a *PermissionError naming every missing
// required rule with its reason (an optional one is not among them), after
// one round of reviews and before any other call: no journal, no lease,
// no AWS call (the ELBv2 mock expects none). The default journal's and
// lock's rules are not asked when WithJournal and WithLock replace them.
func TestPermissionCheckRefuses(t *testing.T) {
	p := goldenPlan(t)
	rules, err := p.ClusterRules()
	if err != nil {
		t.Fatal(err)
	}
	holdReason := func(verb string) string {
		for _, r := range rules.Rules {
			if r.Resource == "nodes" && slices.Contains(r.Verbs, verb) {
				return r.Reason
			}
		}
		t.Fatalf("no %s nodes rule", verb)
		return ""
	}
	journal, err := cutover.JournalConfigMapName(p.TargetGroup.ARN)
	if err != nil {
		t.Fatal(err)
	}
	type missing struct{ verb, resource, namespace, name, reason string }
	tests := []struct {
		name     string
		deny     func(authorizationv1.ResourceAttributes) bool
		own      bool // WithJournal and WithLock
		rollback cutover.Source
		want     []missing
	}{
		{name: "the hold's node rules (watch is optional)", deny: deny("get nodes", "patch nodes", "watch nodes"),
			want: []missing{{"get", "nodes", "", "", holdReason("get")}, {"patch", "nodes", "", "", holdReason("patch")}}},
		{name: "rollback: the hold's node rules", deny: deny("get nodes", "patch nodes"), rollback: p,
			want: []missing{{"get", "nodes", "", "", holdReason("get")}, {"patch", "nodes", "", "", holdReason("patch")}}},
		{name: "rollback from the journal's state", deny: deny("get nodes", "patch nodes"), rollback: stateOf(p),
			want: []missing{{"get", "nodes", "", "", holdReason("get")}, {"patch", "nodes", "", "", holdReason("patch")}}},
		{name: "the journal, the lock and the binding", deny: deny("update configmaps", "create leases", "delete targetgroupbindings"),
			want: []missing{
				{"update", "configmaps", "shop", journal, "the journal is saved after every step and batch, under the resourceVersion last seen"},
				{"create", "leases", "shop", "", "the lock Lease is created when no operator holds the target group"},
				{"delete", "targetgroupbindings", "shop", "web-http-legacy-web", "the rollback deletes the binding"},
			}},
		{name: "the journal and the lock replaced", deny: deny("update configmaps", "create leases", "list pods"), own: true,
			want: []missing{{"list", "pods", "", "", "the observations read the Service's pods (its namespace and selector), the pods at a target's address that none of those holds (field selector status.podIP: a reused address) and on a node target's node when its port is no NodePort (spec.nodeName: host ports); the verification reads when pods turned Ready"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rv := &reviews{deny: tt.deny}
			kube := interceptor.NewClient(fakeKube(t), rv.funcs())
			env := cutover.Env{ELBv2: mocks.NewMockELBv2API(gomock.NewController(t)), Client: kube, Holder: "unit"}
			opts := []cutover.Option{cutover.WithAcceptPreconditions(cutover.PreconditionPodSettings)}
			var drop []cutover.RBACPart
			if tt.own {
				j, err := cutover.NewFileJournal(filepath.Join(t.TempDir(), "j.json"), cutover.FileJournalOptions{})
				if err != nil {
					t.Fatal(err)
				}
				opts = append(opts, cutover.WithJournal(j), cutover.WithLock(noLock{}))
				drop = []cutover.RBACPart{cutover.RBACPartJournal, cutover.RBACPartLock}
			}
			if tt.rollback != nil {
				_, err = cutover.Rollback(t.Context(), env, tt.rollback, opts...)
			} else {
				_, err = cutover.Execute(t.Context(), env, p, opts...)
			}
			var pe *cutover.PermissionError
			if !errors.As(err, &pe) || !cutover.IsPermission(err) || pe.PlanID != p.ID {
				t.Fatalf("err = %v, want a *PermissionError", err)
			}
			var got []missing
			for _, m := range pe.Missing {
				got = append(got, missing{m.Verb, m.Resource, m.Namespace, m.Name, m.Reason})
				if m.Denied != "not in the test's rules" {
					t.Errorf("%s: denied %q, want the authorizer's reason", m, m.Denied)
				}
				if !strings.Contains(err.Error(), m.String()) {
					t.Errorf("the message lacks %q: %v", m, err)
				}
			}
			if d := cmp.Diff(tt.want, got, cmp.AllowUnexported(missing{})); d != "" {
				t.Errorf("missing (-want +got):\n%s", d)
			}
			if d := cmp.Diff(oneRound(rules, drop...), rv.keys()); d != "" {
				t.Errorf("reviews: not one round of the plan's rules (-want +got):\n%s", d)
			}
			if len(rv.others) > 0 {
				t.Errorf("calls before the refusal: %v", rv.others)
			}
		})
	}
}

// TestPermissionCheckSkipped: a client that cannot answer the reviews
// (a fake client refuses one without a name as invalid; one that answers
// "denied" to the review of the review itself does not evaluate them) is
// no refusal: the run goes on to its journal, its lock and its first AWS
// call, which fails here. WithPermissionCheck(false) asks nothing.
func TestPermissionCheckSkipped(t *testing.T) {
	p := goldenPlan(t)
	errAWS := errors.New("the test's AWS is down")
	tests := []struct {
		name  string
		kube  func(*testing.T, *reviews) client.Client
		opts  []cutover.Option
		asked int
	}{
		{name: "fake client: the review is invalid", kube: func(t *testing.T, _ *reviews) client.Client { return fakeKube(t) }},
		{name: "the review of the review denied", asked: 1, kube: func(t *testing.T, rv *reviews) client.Client {
			rv.deny = func(authorizationv1.ResourceAttributes) bool { return true }
			return interceptor.NewClient(fakeKube(t), rv.funcs())
		}},
		{name: "check off", opts: []cutover.Option{cutover.WithPermissionCheck(false)}, kube: func(t *testing.T, rv *reviews) client.Client {
			rv.deny = func(authorizationv1.ResourceAttributes) bool { return true }
			return interceptor.NewClient(fakeKube(t), rv.funcs())
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rv := &reviews{}
			api := mocks.NewMockELBv2API(gomock.NewController(t))
			api.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any()).Return(nil, errAWS).MinTimes(1)
			env := cutover.Env{ELBv2: api, Client: tt.kube(t, rv), Holder: "unit"}
			_, err := cutover.Execute(t.Context(), env, p, append(tt.opts, cutover.WithAcceptPreconditions(cutover.PreconditionPodSettings))...)
			if err == nil || cutover.IsPermission(err) || !strings.Contains(err.Error(), "DescribeTargetGroups") {
				t.Fatalf("err = %v, want the first AWS call's failure", err)
			}
			if n := len(rv.keys()); n != tt.asked {
				t.Errorf("%d reviews asked, want %d: %v", n, tt.asked, rv.keys())
			}
		})
	}
}

// stateOf is the state Execute records of p before its first step.
func stateOf(p *cutover.Plan) *cutover.State {
	st := cutover.NewState(p.Ref(), string(p.Strategy), p.StepIDs()...)
	st.TargetGroupARN = p.TargetGroup.ARN
	st.Restore = &cutover.RestoreInfo{Namespace: p.Binding.Namespace, Service: p.Service.Name, BindingName: p.Binding.Name, TargetType: p.TargetGroup.TargetType}
	return st
}

// fakeKube is an empty cluster on a fake client that knows the core kinds
// (authorization.k8s.io among them) and TargetGroupBinding.
func fakeKube(t *testing.T) client.WithWatch {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := v1beta1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(scheme).Build()
}

// noLock is a Lock that always holds.
type noLock struct{}

func (noLock) Acquire(context.Context) error { return nil }
func (noLock) Renew(context.Context) error   { return nil }
func (noLock) Release(context.Context) error { return nil }

// reviewingClient is the world's client with authorization.k8s.io in its
// scheme and rv answering the reviews, as an API server would.
type reviewingClient struct {
	client.Client
	scheme *runtime.Scheme
	rv     *reviews
}

func (c *reviewingClient) Scheme() *runtime.Scheme { return c.scheme }

func (c *reviewingClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if r, ok := obj.(*authorizationv1.SelfSubjectAccessReview); ok {
		c.rv.answer(r)
		return nil
	}
	return c.Client.Create(ctx, obj, opts...)
}

// TestPermissionCheckOnTheWorld: on the simulated world, an optional rule
// refused (watch nodes) lets Execute complete, with a warning naming it,
// after one round of reviews; a Rollback with the check off asks nothing
// and completes on a client that would refuse everything.
func TestPermissionCheckOnTheWorld(t *testing.T) {
	t.Parallel() // a world of its own
	s := newScenario(t, smallWorld(5))
	p := s.plan(nil)
	scheme, err := cluster.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	if err := authorizationv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	rv := &reviews{deny: deny("watch nodes")}
	env := s.env
	env.Client = &reviewingClient{Client: s.w.Client(), scheme: scheme, rv: rv}
	res, err := cutover.Execute(t.Context(), env, p, simPods)
	if err != nil || !res.Completed {
		t.Fatalf("execute: %+v, %v", res, err)
	}
	rules, err := p.ClusterRules()
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(oneRound(rules), rv.keys()); d != "" {
		t.Errorf("reviews: not one round of the plan's rules (-want +got):\n%s", d)
	}
	want := "permission missing, going on without it: watch nodes (cluster-wide): Execute reacts to a node's disruption as it happens (without: it polls)"
	if !slices.Contains(res.Warnings, want) {
		t.Errorf("warnings %q lack %q", res.Warnings, want)
	}

	rv.reset(func(authorizationv1.ResourceAttributes) bool { return true })
	rb, err := cutover.Rollback(t.Context(), env, p, cutover.WithPermissionCheck(false))
	if err != nil || !rb.Completed {
		t.Fatalf("rollback: %+v, %v", rb, err)
	}
	if n := len(rv.keys()); n != 0 {
		t.Errorf("the rollback without the check asked %d reviews", n)
	}
}
