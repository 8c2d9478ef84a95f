package read

// cluster.go: the listing of a cluster: Objects, ListKind and its kinds,
// ListFailure, NodeClaimGVK, Policy, Projection, ClusterOptions,
// ListCluster (each kind in one pass, paged by Limit/Continue, each page
// projected as it arrives), Category and Effect.

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// NodeClaimGVK is Karpenter's v1 NodeClaim, read as unstructured data when
// the cluster serves it.
var NodeClaimGVK = schema.GroupVersionKind{Group: "karpenter.sh", Version: "v1", Kind: "NodeClaim"}

// Objects are the objects of one cluster: what [ListCluster] lists, and
// what diagnose's Snapshot indexes (simulations and tests can build them by
// hand). The zero value of each flag means "listed": set them, or add to
// Failures, only to say what the cluster does not serve or the reader
// could not list.
type Objects struct {
	// Nodes, Pods, Services and Namespaces are the core objects.
	Nodes      []corev1.Node
	Pods       []corev1.Pod
	Services   []corev1.Service
	Namespaces []corev1.Namespace
	// Bindings are the TargetGroupBindings.
	Bindings []v1beta1.TargetGroupBinding
	// NodeClaims are Karpenter v1 NodeClaims.
	NodeClaims []unstructured.Unstructured
	// NoBindingCRD reports that the cluster does not serve
	// TargetGroupBindings (the LBC is not installed).
	NoBindingCRD bool
	// NoNodeClaimCRD reports that the cluster does not serve Karpenter's
	// v1 NodeClaims: no expiry or drift data.
	NoNodeClaimCRD bool
	// Failures are the kinds the reader could not list. Each kind is
	// judged on nothing: a finding that rests on it is not made, and
	// diagnose's report says so (its target groups' Unknowns).
	Failures []ListFailure
	// Notes say what could not be read.
	Notes []string
}

// ListKind names a kind of object a cluster's listing holds.
type ListKind string

// The kinds a listing holds, each listed once per cluster.
const (
	ListNodes      ListKind = "nodes"
	ListPods       ListKind = "pods"
	ListServices   ListKind = "services"
	ListNamespaces ListKind = "namespaces"
	ListBindings   ListKind = "targetgroupbindings"
	ListNodeClaims ListKind = "nodeclaims"
)

// AllKinds are the kinds [ListCluster] lists when [ClusterOptions].Kinds is
// nil, in the order it lists them.
var AllKinds = []ListKind{ListNodes, ListPods, ListServices, ListNamespaces, ListBindings, ListNodeClaims}

// ListFailure is a kind the reader could not list: forbidden by RBAC, failed,
// or not registered in the reader's scheme.
type ListFailure struct {
	// Kind is the kind.
	Kind ListKind
	// Category is the failure's stable word, as in diagnose's
	// ResourceError (forbidden, throttled, not-registered...).
	Category string
	// Err is the cause; nil when the Objects were built by hand.
	Err error
}

// effect says, for each kind, which judgements a failure to list it takes
// away.
var effect = map[ListKind]string{
	ListNodes:      "node addresses unknown: a target no pod holds is neither a node target nor a ghost",
	ListPods:       "pod addresses and host ports unknown: a target no node holds is neither a pod target nor a ghost",
	ListServices:   "NodePorts and Service target ports unknown: whether a node or pod serves a target's port is not judged, and no port finding is made",
	ListNamespaces: "namespace labels unknown: no readiness-gate finding",
	ListBindings:   "TargetGroupBindings unknown: the owner rests on the LBC's tags, and no unmanaged or default-mode finding is made",
	ListNodeClaims: "Karpenter NodeClaims unknown: no expiry or drift data; Karpenter findings rest on the node labels",
}

// Effect says which judgements a failure to list kind takes away, in one
// line; "" for an unknown kind.
func Effect(kind ListKind) string { return effect[kind] }

// notServed are the notes of a CRD kind the cluster does not serve;
// notRegistered those of a kind whose failure to be registered in the
// reader's scheme deserves more than its effect.
var (
	notServed = map[ListKind]string{
		ListBindings:   "the TargetGroupBinding CRD (elbv2.k8s.aws/v1beta1) is not served: the AWS Load Balancer Controller is not installed",
		ListNodeClaims: "Karpenter NodeClaims (karpenter.sh/v1) are not served: no expiry or drift data",
	}
	notRegistered = map[ListKind]string{
		ListBindings: "the reader's scheme does not register TargetGroupBinding (add tgbind/v1beta1.AddToScheme)",
	}
)

// Policy says what a failure to list a kind does to [ListCluster].
type Policy int

const (
	// Record tolerates failures: each kind that cannot be listed is a
	// [ListFailure] with its category, and a note saying what it takes
	// away; what could be listed is still returned. Only the end of ctx
	// stops the listing, with ctx's cause. diagnose lists so.
	Record Policy = iota
	// Require stops at the first kind that cannot be listed and returns
	// "list <kind>: <cause>". Nothing is noted and no ListFailure is made.
	// cutover observes the cluster so.
	Require
)

// Projection keeps, of each object a listing returns, what its caller
// reads: each function makes a slim copy of one object, and [ListCluster]
// applies it to every page as the page arrives, so that the page's whole
// objects can go before the next page is read, and the listing holds the
// slim copies only. A nil function keeps its kind's objects whole. The
// functions must not keep a reference into the object they are given
// that they do not mean to hold (its strings, which are immutable, may be
// shared). TargetGroupBindings are always kept whole.
type Projection struct {
	// Node, Pod, Service and Namespace project the core kinds.
	Node      func(*corev1.Node) corev1.Node
	Pod       func(*corev1.Pod) corev1.Pod
	Service   func(*corev1.Service) corev1.Service
	Namespace func(*corev1.Namespace) corev1.Namespace
	// NodeClaim projects Karpenter's NodeClaims.
	NodeClaim func(*unstructured.Unstructured) unstructured.Unstructured
}

// ClusterOptions configure [ListCluster]. Every zero value means what its
// comment says.
type ClusterOptions struct {
	// Kinds are the kinds to list, in the order given; nil lists
	// [AllKinds]. A kind left out stays empty, its flag unset.
	Kinds []ListKind
	// Policy says what a failure does. Zero: [Record].
	Policy Policy
	// PageSize makes each kind a paged pass (Limit/Continue) of PageSize
	// objects per call. Zero: one call per kind.
	PageSize int64
	// Category names a failure's category in a [ListFailure]. Zero:
	// [Category]. A reader's scheme that does not register a kind is
	// always "not-registered".
	Category func(error) string
	// Project keeps what the caller reads of each object, page by page.
	// Zero: every object whole.
	Project Projection
	// ListOptions are given to every List call, before the paging's
	// Limit and Continue: a label or field selector, a namespace, which
	// scope every kind listed. Zero: none (the whole cluster).
	ListOptions []client.ListOption
}

// ListCluster lists the chosen kinds of the cluster r reads, each in one
// pass. It fails at once for a kind it does not know. Whatever the policy, a CRD kind (TargetGroupBindings, NodeClaims)
// the cluster does not serve (NoMatch, NotFound) is not a failure: it is
// empty, its flag in [Objects] is set, and under [Record] a note says so.
// Under [Require], a CRD kind the reader's scheme does not register counts
// as not served too; every other failure returns an error. Under
// [Record], every failure is a [ListFailure] and a note, and only the end
// of ctx stops the listing.
func ListCluster(ctx context.Context, r client.Reader, o ClusterOptions) (Objects, error) {
	kinds := o.Kinds
	if kinds == nil {
		kinds = AllKinds
	}
	for _, kind := range kinds {
		if _, ok := effect[kind]; !ok {
			return Objects{}, fmt.Errorf("read: list cluster: unknown kind %q", kind)
		}
	}
	cat := o.Category
	if cat == nil {
		cat = Category
	}
	var objs Objects
	for _, kind := range kinds {
		err := list(ctx, r, kind, &objs, o)
		if err == nil {
			continue
		}
		_, crd := notServed[kind]
		switch {
		case crd && (apimeta.IsNoMatchError(err) || apierrors.IsNotFound(err)):
			setNotServed(&objs, kind)
			if o.Policy == Record {
				objs.Notes = append(objs.Notes, notServed[kind])
			}
		case o.Policy == Require && crd && runtime.IsNotRegisteredError(err):
			setNotServed(&objs, kind)
		case o.Policy == Require:
			return Objects{}, fmt.Errorf("list %s: %w", kind, err)
		case ctx.Err() != nil:
			return Objects{}, context.Cause(ctx)
		default:
			c, note := cat(err), effect[kind]
			if runtime.IsNotRegisteredError(err) {
				c = "not-registered"
				if n, ok := notRegistered[kind]; ok {
					note = n
				}
			}
			objs.Failures = append(objs.Failures, ListFailure{Kind: kind, Category: c, Err: err})
			objs.Notes = append(objs.Notes, fmt.Sprintf("%s not listed (%s): %s", kind, c, note))
		}
	}
	return objs, nil
}

// list lists one kind into objs, page by page, each page projected as it
// arrives. A core kind keeps what the reader gave even when it fails (in
// one call: that call's list; paged: nothing, as no page is partial); a
// CRD kind keeps nothing.
func list(ctx context.Context, r client.Reader, kind ListKind, objs *Objects, o ClusterOptions) error {
	k := newList(kind, objs, o.Project)
	err := pages(ctx, r, k.page, o.PageSize, o.ListOptions, k.take)
	if err != nil {
		if _, crd := notServed[kind]; crd {
			return err
		}
		if o.PageSize > 0 {
			k.drop()
		}
	}
	k.keep()
	return err
}

// kindList is the listing of one kind: a new empty page, what takes a
// page's items (projected) as it arrives, what drops what was taken, and
// what puts it in the Objects.
type kindList struct {
	page func() client.ObjectList
	take func(client.ObjectList)
	drop func()
	keep func()
}

// maxHint bounds the capacity a listing reserves on the API server's word
// (remainingItemCount): above it, the pages are joined at the end instead.
const maxHint = 1 << 20

// listOf is the kindList of one kind whose pages are L and items T:
// items reads a page's items, project (nil: none) slims one, and dst is
// where they go. When the first page says how many items remain
// (remainingItemCount, which the API server gives a paged list), the
// list is allocated once at that size and each page copied into it;
// otherwise, or past that size, each page (or its slim copies) is kept as
// one chunk and the chunks joined once at the end. Either way the list is
// not copied again and again as it grows.
func listOf[T any, L client.ObjectList](newPage func() L, items func(L) []T, project func(*T) T, dst *[]T) kindList {
	var got []T // the list, when the first page gave its size
	var chunks [][]T
	return kindList{
		page: func() client.ObjectList { return newPage() },
		take: func(l client.ObjectList) {
			page := items(l.(L))
			if got == nil && chunks == nil {
				if rc := l.GetRemainingItemCount(); rc != nil && *rc > 0 && *rc <= maxHint {
					got = make([]T, 0, len(page)+int(*rc))
				}
			}
			if cap(got)-len(got) >= len(page) {
				for i := range page {
					if project != nil {
						got = append(got, project(&page[i]))
					} else {
						got = append(got, page[i])
					}
				}
				return
			}
			if project != nil {
				slim := make([]T, len(page))
				for i := range page {
					slim[i] = project(&page[i])
				}
				page = slim
			}
			if got != nil {
				chunks, got = append(chunks, got), nil
			}
			chunks = append(chunks, page)
		},
		drop: func() { got, chunks = nil, nil },
		keep: func() {
			switch {
			case len(chunks) == 0:
				*dst = got
			case len(chunks) == 1:
				*dst = chunks[0] // one call, or one page: no copy
			default:
				*dst = slices.Concat(chunks...)
			}
			got, chunks = nil, nil
		},
	}
}

// newList returns the listing of kind into objs.
func newList(kind ListKind, objs *Objects, p Projection) kindList {
	switch kind {
	case ListNodes:
		return listOf(func() *corev1.NodeList { return &corev1.NodeList{} },
			func(l *corev1.NodeList) []corev1.Node { return l.Items }, p.Node, &objs.Nodes)
	case ListPods:
		return listOf(func() *corev1.PodList { return &corev1.PodList{} },
			func(l *corev1.PodList) []corev1.Pod { return l.Items }, p.Pod, &objs.Pods)
	case ListServices:
		return listOf(func() *corev1.ServiceList { return &corev1.ServiceList{} },
			func(l *corev1.ServiceList) []corev1.Service { return l.Items }, p.Service, &objs.Services)
	case ListNamespaces:
		return listOf(func() *corev1.NamespaceList { return &corev1.NamespaceList{} },
			func(l *corev1.NamespaceList) []corev1.Namespace { return l.Items }, p.Namespace, &objs.Namespaces)
	case ListBindings:
		return listOf(func() *v1beta1.TargetGroupBindingList { return &v1beta1.TargetGroupBindingList{} },
			func(l *v1beta1.TargetGroupBindingList) []v1beta1.TargetGroupBinding { return l.Items }, nil, &objs.Bindings)
	}
	// ListNodeClaims: ListCluster checked the kinds.
	return listOf(func() *unstructured.UnstructuredList { return unstructuredList(NodeClaimGVK) },
		func(l *unstructured.UnstructuredList) []unstructured.Unstructured { return l.Items }, p.NodeClaim, &objs.NodeClaims)
}

// unstructuredList is an empty list of gvk's objects.
func unstructuredList(gvk schema.GroupVersionKind) *unstructured.UnstructuredList {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	return l
}

// setNotServed sets the flag of a CRD kind the cluster does not serve.
func setNotServed(objs *Objects, kind ListKind) {
	switch kind {
	case ListBindings:
		objs.NoBindingCRD = true
	case ListNodeClaims:
		objs.NoNodeClaimCRD = true
	}
}

// pages lists in one pass, one call or pages of pageSize, each call with
// opts, and hands each page to take as it arrives; nothing else holds a
// page after take. A single call's list is handed over even when the
// call fails.
func pages(ctx context.Context, r client.Reader, newPage func() client.ObjectList, pageSize int64, opts []client.ListOption, take func(client.ObjectList)) error {
	if pageSize <= 0 {
		l := newPage()
		err := r.List(ctx, l, opts...)
		take(l)
		return err
	}
	cont := ""
	for {
		page := newPage()
		if err := r.List(ctx, page, append(slices.Clip(opts), client.Limit(pageSize), client.Continue(cont))...); err != nil {
			return err
		}
		take(page)
		if cont = page.GetContinue(); cont == "" {
			return nil
		}
	}
}

// Category maps a Kubernetes error onto a stable word, by type only:
// crd-missing, forbidden, unauthorized, throttled, or error. diagnose's
// categorizer ends with it.
func Category(err error) string {
	switch {
	case apimeta.IsNoMatchError(err):
		return "crd-missing"
	case apierrors.IsForbidden(err):
		return "forbidden"
	case apierrors.IsUnauthorized(err):
		return "unauthorized"
	case apierrors.IsTooManyRequests(err):
		return "throttled"
	}
	return "error"
}
