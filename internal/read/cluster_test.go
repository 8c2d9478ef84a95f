package read_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate/internal/read"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// scheme registers the core kinds, and TargetGroupBinding when tgb is set.
func scheme(t *testing.T, tgb bool) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if tgb {
		if err := v1beta1.AddToScheme(s); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// cluster is a fake cluster of two nodes, one pod, one Service, one
// namespace and one binding, behind funcs.
func cluster(t *testing.T, tgb bool, funcs interceptor.Funcs) client.Reader {
	t.Helper()
	objs := []client.Object{
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n2"}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p1", Namespace: "web"}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s1", Namespace: "web"}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "web"}},
	}
	if tgb {
		objs = append(objs, &v1beta1.TargetGroupBinding{ObjectMeta: metav1.ObjectMeta{Name: "b1", Namespace: "web"}})
	}
	c := fake.NewClientBuilder().WithScheme(scheme(t, tgb)).WithObjects(objs...).Build()
	return interceptor.NewClient(c, funcs)
}

// isNodeClaims tells a list of Karpenter NodeClaims.
func isNodeClaims(l client.ObjectList) bool {
	u, ok := l.(*unstructured.UnstructuredList)
	return ok && u.GetKind() == read.NodeClaimGVK.Kind+"List"
}

// failOn fails the lists that match with err, and answers the NodeClaims
// (which the fake client's mapper does not know) with claims, or with
// none.
func failOn(match func(client.ObjectList) bool, err error, claims ...unstructured.Unstructured) interceptor.Funcs {
	return interceptor.Funcs{List: func(ctx context.Context, c client.WithWatch, l client.ObjectList, opts ...client.ListOption) error {
		switch {
		case match(l):
			return err
		case isNodeClaims(l):
			l.(*unstructured.UnstructuredList).Items = claims
			return nil
		}
		return c.List(ctx, l, opts...)
	}}
}

func is[T client.ObjectList](l client.ObjectList) bool { _, ok := l.(T); return ok }

func never(client.ObjectList) bool { return false }

func forbidden(what string) error {
	return apierrors.NewForbidden(schema.GroupResource{Resource: what}, "", errors.New("RBAC"))
}

func noMatch(gvk schema.GroupVersionKind) error {
	return &meta.NoKindMatchError{GroupKind: gvk.GroupKind(), SearchedVersions: []string{gvk.Version}}
}

// summary is what a test compares of a listing.
type summary struct {
	Nodes, Pods, Services, Namespaces, Bindings, NodeClaims int
	NoBindingCRD, NoNodeClaimCRD                            bool
	Failures                                                []string // kind/category
	Notes                                                   []string
}

func summarize(o read.Objects) summary {
	s := summary{
		Nodes: len(o.Nodes), Pods: len(o.Pods), Services: len(o.Services), Namespaces: len(o.Namespaces),
		Bindings: len(o.Bindings), NodeClaims: len(o.NodeClaims),
		NoBindingCRD: o.NoBindingCRD, NoNodeClaimCRD: o.NoNodeClaimCRD, Notes: o.Notes,
	}
	for _, f := range o.Failures {
		if f.Err == nil {
			s.Failures = append(s.Failures, string(f.Kind)+"/"+f.Category+" without its cause")
			continue
		}
		s.Failures = append(s.Failures, string(f.Kind)+"/"+f.Category)
	}
	return s
}

func TestListClusterRecord(t *testing.T) {
	claim := unstructured.Unstructured{}
	claim.SetGroupVersionKind(read.NodeClaimGVK)
	claim.SetName("c1")
	tests := []struct {
		name  string
		tgb   bool // the scheme registers TargetGroupBinding
		funcs interceptor.Funcs
		opts  read.ClusterOptions
		want  summary
	}{{
		name:  "every kind listed",
		tgb:   true,
		funcs: failOn(never, nil, claim),
		want:  summary{Nodes: 2, Pods: 1, Services: 1, Namespaces: 1, Bindings: 1, NodeClaims: 1},
	}, {
		name:  "pods forbidden: recorded, the others listed",
		tgb:   true,
		funcs: failOn(is[*corev1.PodList], forbidden("pods")),
		want: summary{Nodes: 2, Services: 1, Namespaces: 1, Bindings: 1,
			Failures: []string{"pods/forbidden"},
			Notes:    []string{"pods not listed (forbidden): " + read.Effect(read.ListPods)}},
	}, {
		name:  "the caller's categories",
		tgb:   true,
		funcs: failOn(is[*corev1.NamespaceList], forbidden("namespaces")),
		opts:  read.ClusterOptions{Category: func(error) string { return "mine" }},
		want: summary{Nodes: 2, Pods: 1, Services: 1, Bindings: 1,
			Failures: []string{"namespaces/mine"},
			Notes:    []string{"namespaces not listed (mine): " + read.Effect(read.ListNamespaces)}},
	}, {
		name:  "the binding CRD not served",
		tgb:   true,
		funcs: failOn(is[*v1beta1.TargetGroupBindingList], noMatch(v1beta1.GroupVersion.WithKind("TargetGroupBinding"))),
		want: summary{Nodes: 2, Pods: 1, Services: 1, Namespaces: 1, NoBindingCRD: true,
			Notes: []string{"the TargetGroupBinding CRD (elbv2.k8s.aws/v1beta1) is not served: the AWS Load Balancer Controller is not installed"}},
	}, {
		name:  "NodeClaims not found",
		tgb:   true,
		funcs: failOn(isNodeClaims, apierrors.NewNotFound(schema.GroupResource{Group: "karpenter.sh", Resource: "nodeclaims"}, "")),
		want: summary{Nodes: 2, Pods: 1, Services: 1, Namespaces: 1, Bindings: 1, NoNodeClaimCRD: true,
			Notes: []string{"Karpenter NodeClaims (karpenter.sh/v1) are not served: no expiry or drift data"}},
	}, {
		name:  "bindings not registered in the scheme",
		funcs: failOn(never, nil),
		want: summary{Nodes: 2, Pods: 1, Services: 1, Namespaces: 1,
			Failures: []string{"targetgroupbindings/not-registered"},
			Notes:    []string{"targetgroupbindings not listed (not-registered): the reader's scheme does not register TargetGroupBinding (add tgbind/v1beta1.AddToScheme)"}},
	}, {
		name:  "NodeClaims throttled",
		tgb:   true,
		funcs: failOn(isNodeClaims, apierrors.NewTooManyRequests("slow down", 1)),
		want: summary{Nodes: 2, Pods: 1, Services: 1, Namespaces: 1, Bindings: 1,
			Failures: []string{"nodeclaims/throttled"},
			Notes:    []string{"nodeclaims not listed (throttled): " + read.Effect(read.ListNodeClaims)}},
	}, {
		name:  "a chosen set of kinds",
		tgb:   true,
		funcs: failOn(is[*corev1.PodList], forbidden("pods")),
		opts:  read.ClusterOptions{Kinds: []read.ListKind{read.ListNodes, read.ListBindings}},
		want:  summary{Nodes: 2, Bindings: 1},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := read.ListCluster(t.Context(), cluster(t, tt.tgb, tt.funcs), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, summarize(objs)); diff != "" {
				t.Errorf("listing (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListClusterRecordStopsWhenCtxEnds(t *testing.T) {
	cause := errors.New("the operator pressed ^C")
	ctx, cancel := context.WithCancelCause(t.Context())
	calls := 0
	funcs := interceptor.Funcs{List: func(ctx context.Context, c client.WithWatch, l client.ObjectList, opts ...client.ListOption) error {
		calls++
		if is[*corev1.PodList](l) {
			cancel(cause)
			return ctx.Err()
		}
		return c.List(ctx, l, opts...)
	}}
	_, err := read.ListCluster(ctx, cluster(t, true, funcs), read.ClusterOptions{})
	if !errors.Is(err, cause) {
		t.Fatalf("err = %v, want ctx's cause", err)
	}
	if calls != 2 {
		t.Errorf("%d lists, want 2 (nodes, then pods): the listing goes on after ctx ended", calls)
	}
}

func TestListClusterPages(t *testing.T) {
	var objs []client.Object
	for i := range 7 {
		objs = append(objs, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n%d", i)}})
	}
	raw := fake.NewClientBuilder().WithScheme(scheme(t, true)).WithObjects(objs...).Build()
	// The fake client does not page: the interceptor cuts its answer into
	// pages of Limit items, the Continue token being the next offset.
	var calls []string
	r := interceptor.NewClient(raw, interceptor.Funcs{List: func(ctx context.Context, c client.WithWatch, l client.ObjectList, opts ...client.ListOption) error {
		lo := (&client.ListOptions{}).ApplyOptions(opts)
		nodes, ok := l.(*corev1.NodeList)
		if !ok {
			return c.List(ctx, l)
		}
		calls = append(calls, fmt.Sprintf("limit=%d continue=%q", lo.Limit, lo.Continue))
		var all corev1.NodeList
		if err := c.List(ctx, &all); err != nil {
			return err
		}
		from := 0
		if lo.Continue != "" {
			from, _ = strconv.Atoi(lo.Continue)
		}
		to := min(from+int(lo.Limit), len(all.Items))
		nodes.Items = all.Items[from:to]
		nodes.Continue = ""
		if to < len(all.Items) {
			nodes.Continue = strconv.Itoa(to)
		}
		return nil
	}})
	got, err := read.ListCluster(t.Context(), r, read.ClusterOptions{Kinds: []read.ListKind{read.ListNodes}, PageSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range got.Nodes {
		names = append(names, n.Name)
	}
	if diff := cmp.Diff([]string{"n0", "n1", "n2", "n3", "n4", "n5", "n6"}, names); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	want := []string{`limit=3 continue=""`, `limit=3 continue="3"`, `limit=3 continue="6"`}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

// observed are the kinds cutover observes with.
var observed = []read.ListKind{read.ListNodes, read.ListPods, read.ListServices, read.ListNodeClaims}

func TestListClusterRequire(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		funcs   interceptor.Funcs
		want    summary
		wantErr string
	}{{
		name:  "listed",
		funcs: failOn(never, nil),
		want:  summary{Nodes: 2, Pods: 1, Services: 1},
	}, {
		name:    "nodes forbidden",
		funcs:   failOn(is[*corev1.NodeList], forbidden("nodes")),
		wantErr: "list nodes: " + forbidden("nodes").Error(),
	}, {
		name:    "services failed",
		funcs:   failOn(is[*corev1.ServiceList], errors.New("connection reset")),
		wantErr: "list services: connection reset",
	}, {
		name:    "ctx ended",
		ctx:     ctx,
		funcs:   failOn(is[*corev1.PodList], context.Canceled),
		wantErr: "list pods: context canceled",
	}, {
		name:  "NodeClaims not served",
		funcs: failOn(isNodeClaims, noMatch(read.NodeClaimGVK)),
		want:  summary{Nodes: 2, Pods: 1, Services: 1, NoNodeClaimCRD: true},
	}, {
		name:  "NodeClaims not registered",
		funcs: failOn(isNodeClaims, runtime.NewNotRegisteredErrForKind("test", read.NodeClaimGVK)),
		want:  summary{Nodes: 2, Pods: 1, Services: 1, NoNodeClaimCRD: true},
	}, {
		name:    "NodeClaims forbidden",
		funcs:   failOn(isNodeClaims, forbidden("nodeclaims")),
		wantErr: "list nodeclaims: " + forbidden("nodeclaims").Error(),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx
			if ctx == nil {
				ctx = t.Context()
			}
			objs, err := read.ListCluster(ctx, cluster(t, false, tt.funcs), read.ClusterOptions{Kinds: observed, Policy: read.Require})
			switch {
			case tt.wantErr != "":
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, summarize(objs)); diff != "" {
				t.Errorf("listing (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListClusterRequireKeepsTheCause(t *testing.T) {
	_, err := read.ListCluster(t.Context(), cluster(t, false, failOn(is[*corev1.PodList], forbidden("pods"))),
		read.ClusterOptions{Kinds: observed, Policy: read.Require})
	if !apierrors.IsForbidden(err) {
		t.Errorf("err = %v, want one that unwraps to Forbidden", err)
	}
}

func TestListClusterUnknownKind(t *testing.T) {
	calls := 0
	funcs := interceptor.Funcs{List: func(ctx context.Context, c client.WithWatch, l client.ObjectList, opts ...client.ListOption) error {
		calls++
		return c.List(ctx, l, opts...)
	}}
	_, err := read.ListCluster(t.Context(), cluster(t, true, funcs), read.ClusterOptions{Kinds: []read.ListKind{read.ListNodes, "widgets"}})
	if err == nil || err.Error() != `read: list cluster: unknown kind "widgets"` {
		t.Errorf("err = %v, want the unknown kind named", err)
	}
	if calls != 0 {
		t.Errorf("%d lists before the kinds were checked, want 0", calls)
	}
}

func TestCategory(t *testing.T) {
	gr := schema.GroupResource{Resource: "pods"}
	tests := []struct {
		err  error
		want string
	}{
		{noMatch(read.NodeClaimGVK), "crd-missing"},
		{forbidden("pods"), "forbidden"},
		{fmt.Errorf("wrapped: %w", apierrors.NewUnauthorized("who are you")), "unauthorized"},
		{apierrors.NewTooManyRequests("slow down", 1), "throttled"},
		{apierrors.NewNotFound(gr, "p"), "error"},
		{errors.New("boom"), "error"},
	}
	for _, tt := range tests {
		if got := read.Category(tt.err); got != tt.want {
			t.Errorf("Category(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// TestListClusterProjects: a Projection makes each object's slim copy as
// its page arrives, before the next page is asked for; a nil function
// keeps its kind whole; a paged listing that fails keeps nothing.
func TestListClusterProjects(t *testing.T) {
	var objs []client.Object
	for i := range 7 {
		objs = append(objs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("p%d", i), Labels: map[string]string{"app": "web"},
			Annotations: map[string]string{"note": "not read"}}})
	}
	objs = append(objs, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", Annotations: map[string]string{"note": "not read"}}})
	tests := []struct {
		name     string
		pageSize int64
		failPage int // the pods' page that fails (1-based); 0: none
		want     []string
		wantSeen []string // each pod projected, with the pods' List calls made by then
		failed   bool
		// remaining is the remainingItemCount a page that is not the
		// last says, from the true count (nil: none said).
		remaining func(rest int) int64
	}{
		{name: "one call", want: []string{"p0", "p1", "p2", "p3", "p4", "p5", "p6"},
			wantSeen: []string{"p0@1", "p1@1", "p2@1", "p3@1", "p4@1", "p5@1", "p6@1"}},
		{name: "pages of 3", pageSize: 3, want: []string{"p0", "p1", "p2", "p3", "p4", "p5", "p6"},
			wantSeen: []string{"p0@1", "p1@1", "p2@1", "p3@2", "p4@2", "p5@2", "p6@3"}},
		{name: "the second page fails", pageSize: 3, failPage: 2, wantSeen: []string{"p0@1", "p1@1", "p2@1"}, failed: true},
		{name: "pages of 3, the remaining count said", pageSize: 3, remaining: func(rest int) int64 { return int64(rest) },
			want: []string{"p0", "p1", "p2", "p3", "p4", "p5", "p6"}, wantSeen: []string{"p0@1", "p1@1", "p2@1", "p3@2", "p4@2", "p5@2", "p6@3"}},
		{name: "pages of 2, too few said to remain", pageSize: 2, remaining: func(rest int) int64 { return int64(rest - 2) },
			want: []string{"p0", "p1", "p2", "p3", "p4", "p5", "p6"}, wantSeen: []string{"p0@1", "p1@1", "p2@2", "p3@2", "p4@3", "p5@3", "p6@4"}},
		{name: "pages of 3, an absurd count said", pageSize: 3, remaining: func(int) int64 { return 1 << 40 },
			want: []string{"p0", "p1", "p2", "p3", "p4", "p5", "p6"}, wantSeen: []string{"p0@1", "p1@1", "p2@1", "p3@2", "p4@2", "p5@2", "p6@3"}},
		{name: "pages of 3, the second page fails after the count", pageSize: 3, failPage: 2, remaining: func(rest int) int64 { return int64(rest) },
			wantSeen: []string{"p0@1", "p1@1", "p2@1"}, failed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := fake.NewClientBuilder().WithScheme(scheme(t, true)).WithObjects(objs...).Build()
			calls := 0
			r := interceptor.NewClient(raw, interceptor.Funcs{List: func(ctx context.Context, c client.WithWatch, l client.ObjectList, opts ...client.ListOption) error {
				pods, ok := l.(*corev1.PodList)
				if !ok {
					return c.List(ctx, l, opts...)
				}
				calls++
				if calls == tt.failPage {
					return errors.New("connection reset")
				}
				lo := (&client.ListOptions{}).ApplyOptions(opts)
				var all corev1.PodList
				if err := c.List(ctx, &all); err != nil {
					return err
				}
				from, to := 0, len(all.Items)
				if lo.Continue != "" {
					from, _ = strconv.Atoi(lo.Continue)
				}
				if lo.Limit > 0 {
					to = min(from+int(lo.Limit), len(all.Items))
				}
				pods.Items = all.Items[from:to]
				if to < len(all.Items) {
					pods.Continue = strconv.Itoa(to)
					if tt.remaining != nil {
						rc := tt.remaining(len(all.Items) - to)
						pods.RemainingItemCount = &rc
					}
				}
				return nil
			}})
			var seen []string
			got, err := read.ListCluster(t.Context(), r, read.ClusterOptions{Kinds: []read.ListKind{read.ListPods, read.ListServices}, PageSize: tt.pageSize,
				Project: read.Projection{Pod: func(p *corev1.Pod) corev1.Pod {
					seen = append(seen, fmt.Sprintf("%s@%d", p.Name, calls))
					return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Labels: p.Labels}}
				}}})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range got.Pods {
				if p.Annotations != nil || p.Namespace != "" || p.Labels["app"] != "web" {
					t.Errorf("pod %+v: want the projection's copy (name and labels)", p.ObjectMeta)
				}
				names = append(names, p.Name)
			}
			if diff := cmp.Diff(tt.want, names); diff != "" {
				t.Errorf("pods (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSeen, seen); diff != "" {
				t.Errorf("projected (-want +got):\n%s", diff)
			}
			if failed := len(got.Failures) == 1 && got.Failures[0].Kind == read.ListPods; failed != tt.failed {
				t.Errorf("failures = %+v, want the pods' %t", got.Failures, tt.failed)
			}
			if len(got.Services) != 1 || got.Services[0].Annotations["note"] == "" {
				t.Errorf("services = %+v, want the one Service whole (no projection given)", got.Services)
			}
		})
	}
}

// TestListClusterListOptions: ListOptions scope every call of the
// listing, paged or not.
func TestListClusterListOptions(t *testing.T) {
	var objs []client.Object
	for i := range 5 {
		objs = append(objs, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n%d", i), Labels: map[string]string{"pool": []string{"a", "b"}[i%2]}}})
	}
	for _, pageSize := range []int64{0, 2} {
		t.Run(fmt.Sprintf("pages of %d", pageSize), func(t *testing.T) {
			raw := fake.NewClientBuilder().WithScheme(scheme(t, true)).WithObjects(objs...).Build()
			var calls []string
			r := interceptor.NewClient(raw, interceptor.Funcs{List: func(ctx context.Context, c client.WithWatch, l client.ObjectList, opts ...client.ListOption) error {
				lo := (&client.ListOptions{}).ApplyOptions(opts)
				calls = append(calls, fmt.Sprintf("selector=%s limit=%d", lo.LabelSelector, lo.Limit))
				lo.Limit, lo.Continue = 0, "" // the fake does not page: one page
				return c.List(ctx, l, lo)
			}})
			got, err := read.ListCluster(t.Context(), r, read.ClusterOptions{Kinds: []read.ListKind{read.ListNodes}, PageSize: pageSize,
				ListOptions: []client.ListOption{client.MatchingLabels{"pool": "a"}}})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, n := range got.Nodes {
				names = append(names, n.Name)
			}
			if d := cmp.Diff([]string{"n0", "n2", "n4"}, names); d != "" {
				t.Errorf("nodes (-want +got):\n%s", d)
			}
			if d := cmp.Diff([]string{fmt.Sprintf("selector=pool=a limit=%d", pageSize)}, calls); d != "" {
				t.Errorf("calls (-want +got):\n%s", d)
			}
		})
	}
}
