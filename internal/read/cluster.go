package read

// cluster.go: the listing of a cluster: Objects, ListKind and its kinds,
// ListFailure, NodeClaimGVK, Policy, ClusterOptions, ListCluster (each kind
// in one pass, paged by Limit/Continue), Category and Effect.

import (
	"context"
	"fmt"

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
		err := list(ctx, r, kind, &objs, o.PageSize)
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

// list lists one kind into objs. A core kind keeps what the reader gave
// even when it fails; a CRD kind keeps nothing.
func list(ctx context.Context, r client.Reader, kind ListKind, objs *Objects, pageSize int64) error {
	l, keep := newList(kind, objs)
	err := listAll(ctx, r, l, pageSize)
	if _, crd := notServed[kind]; crd && err != nil {
		return err
	}
	keep()
	return err
}

// newList returns an empty list of kind, and what puts its items in objs.
func newList(kind ListKind, objs *Objects) (client.ObjectList, func()) {
	switch kind {
	case ListNodes:
		l := &corev1.NodeList{}
		return l, func() { objs.Nodes = l.Items }
	case ListPods:
		l := &corev1.PodList{}
		return l, func() { objs.Pods = l.Items }
	case ListServices:
		l := &corev1.ServiceList{}
		return l, func() { objs.Services = l.Items }
	case ListNamespaces:
		l := &corev1.NamespaceList{}
		return l, func() { objs.Namespaces = l.Items }
	case ListBindings:
		l := &v1beta1.TargetGroupBindingList{}
		return l, func() { objs.Bindings = l.Items }
	}
	l := &unstructured.UnstructuredList{} // ListNodeClaims: ListCluster checked the kinds
	l.SetGroupVersionKind(NodeClaimGVK.GroupVersion().WithKind(NodeClaimGVK.Kind + "List"))
	return l, func() { objs.NodeClaims = l.Items }
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

// listAll lists into l in one pass: one call, or pages of pageSize.
func listAll(ctx context.Context, r client.Reader, l client.ObjectList, pageSize int64) error {
	if pageSize <= 0 {
		return r.List(ctx, l)
	}
	var items []runtime.Object
	cont := ""
	for {
		page := l.DeepCopyObject().(client.ObjectList)
		if err := r.List(ctx, page, client.Limit(pageSize), client.Continue(cont)); err != nil {
			return err
		}
		got, err := apimeta.ExtractList(page)
		if err != nil {
			return err
		}
		items = append(items, got...)
		cont = page.GetContinue()
		if cont == "" {
			return apimeta.SetList(l, items)
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
