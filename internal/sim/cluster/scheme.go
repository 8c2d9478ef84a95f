package cluster

// scheme.go: the scheme and the fake client (FakeOptions, NewFakeClient),
// with server-side apply of TargetGroupBindings and deletionTimestamps on
// the virtual clock.

import (
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/watch"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// NewScheme returns a scheme with the API groups the simulated world uses:
// core/v1, discovery/v1, policy/v1, coordination/v1 and elbv2.k8s.aws/v1beta1
// (TargetGroupBinding). It is kept this small on purpose: the fake client's
// field-managed tracker rebuilds a REST mapper from the whole scheme on
// every write.
func NewScheme() (*k8sruntime.Scheme, error) {
	s := k8sruntime.NewScheme()
	for _, add := range []func(*k8sruntime.Scheme) error{
		corev1.AddToScheme, discoveryv1.AddToScheme, policyv1.AddToScheme, coordinationv1.AddToScheme, v1beta1.AddToScheme,
	} {
		if err := add(s); err != nil {
			return nil, fmt.Errorf("cluster: scheme: %w", err)
		}
	}
	return s, nil
}

// FakeOptions configures [NewFakeClient]. The zero value is the fast
// default.
type FakeOptions struct {
	// Faults, when set, injects faults with interceptor.Funcs.
	Faults *interceptor.Funcs
	// ServerSideApply keeps TargetGroupBindings, the one kind tgmigrate
	// applies server-side, on the fake client's field-managed object
	// tracker: real server-side apply for them (field ownership,
	// conflicts, managedFields). Every other kind stays on the plain
	// tracker: the field-managed one recomputes managedFields on every
	// write, which tripled the CPU cost of a scenario when pods, nodes
	// and EndpointSlices went through it too. False: every kind on the
	// plain tracker, on which client.Apply creates a missing object and
	// merges into an existing one with a strategic merge patch (no field
	// ownership, no conflicts, no managedFields); every other operation
	// behaves the same.
	ServerSideApply bool
	// Clock, when set, stamps the deletionTimestamp of an object deleted
	// while finalizers hold it (a pod the kubelet stands for, a NodeClaim,
	// a Node of Karpenter's) with its time, to the second, as an API server
	// on that clock would; a second deletion keeps the first stamp. Nil:
	// the fake client's own stamp, the wall clock's.
	Clock clock.PassiveClock
}

// NewFakeClient returns the default client of the simulation: a
// controller-runtime fake client on [NewScheme] in which, as on a real API
// server, Pod, Node, Service, PodDisruptionBudget and TargetGroupBinding
// have a status subresource (an Update does not change status; a
// Status().Update changes only status), and pods can be listed by the
// field selectors status.podIP and spec.nodeName.
func NewFakeClient(opts FakeOptions) (client.WithWatch, error) {
	s, err := NewScheme()
	if err != nil {
		return nil, err
	}
	decoder := serializer.NewCodecFactory(s).UniversalDecoder()
	var tracker clienttesting.ObjectTracker = applyTracker{ObjectTracker: clienttesting.NewObjectTracker(s, decoder), scheme: s}
	if opts.ServerSideApply {
		// A CRD's kind is not in client-go's type converter: the fake
		// client's own default would fall back to the deduced one too.
		tracker = &splitTracker{
			plain:   tracker,
			managed: clienttesting.NewFieldManagedObjectTracker(s, decoder, managedfields.NewDeducedTypeConverter()),
			scheme:  s,
		}
	}
	if opts.Clock != nil {
		tracker = clockTracker{ObjectTracker: tracker, clock: opts.Clock}
	}
	tracker = generationTracker{ObjectTracker: tracker, scheme: s, managed: opts.ServerSideApply}
	b := fake.NewClientBuilder().
		WithScheme(s).
		WithStatusSubresource(&v1beta1.TargetGroupBinding{}).
		WithObjectTracker(tracker).
		// The field selectors of pods that an API server serves and
		// tgmigrate uses: a pod at an address, the pods on a node.
		WithIndex(&corev1.Pod{}, "status.podIP", func(o client.Object) []string { return []string{o.(*corev1.Pod).Status.PodIP} }).
		WithIndex(&corev1.Pod{}, "spec.nodeName", func(o client.Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} })
	if opts.Faults != nil {
		b = b.WithInterceptorFuncs(*opts.Faults)
	}
	return b.Build(), nil
}

// applyTracker is the plain object tracker with an Apply that also creates:
// the plain tracker's Apply only merges into an existing object.
type applyTracker struct {
	clienttesting.ObjectTracker
	scheme *k8sruntime.Scheme
}

func (t applyTracker) Apply(gvr schema.GroupVersionResource, ac k8sruntime.Object, ns string, opts ...metav1.PatchOptions) error {
	acc, err := meta.Accessor(ac)
	if err != nil {
		return err
	}
	_, err = t.Get(gvr, ns, acc.GetName())
	if !apierrors.IsNotFound(err) {
		if err != nil {
			return err
		}
		return t.ObjectTracker.Apply(gvr, ac, ns, opts...)
	}
	obj := ac
	if u, ok := ac.(*unstructured.Unstructured); ok {
		if typed, err := t.scheme.New(u.GroupVersionKind()); err == nil {
			if err := k8sruntime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed); err != nil {
				return apierrors.NewBadRequest(err.Error())
			}
			obj = typed
		}
	}
	if m, err := meta.Accessor(obj); err == nil && m.GetNamespace() == "" {
		m.SetNamespace(ns)
	}
	return t.Create(gvr, obj, ns)
}

// clockTracker stamps deletionTimestamps with a clock's time. The fake
// client sets metav1.Now() on an object with finalizers that it is asked to
// delete, and stores it with an Update: the stamp is replaced here, or by
// the stored one when the object was being deleted already.
type clockTracker struct {
	clienttesting.ObjectTracker
	clock clock.PassiveClock
}

func (t clockTracker) Update(gvr schema.GroupVersionResource, obj k8sruntime.Object, ns string, opts ...metav1.UpdateOptions) error {
	m, err := meta.Accessor(obj)
	if err != nil || m.GetDeletionTimestamp() == nil {
		return t.ObjectTracker.Update(gvr, obj, ns, opts...)
	}
	stamp := metav1.NewTime(t.clock.Now().Truncate(time.Second))
	if old, err := t.Get(gvr, ns, m.GetName()); err == nil {
		if om, err := meta.Accessor(old); err == nil && om.GetDeletionTimestamp() != nil {
			stamp = *om.GetDeletionTimestamp()
		}
	}
	m.SetDeletionTimestamp(&stamp)
	return t.ObjectTracker.Update(gvr, obj, ns, opts...)
}

// splitTracker keeps the kinds applied server-side (the elbv2.k8s.aws group:
// TargetGroupBindings) on a field-managed tracker, and every other kind on
// the plain one. Each kind lives in exactly one of them, so reads, writes
// and watches of a kind go where its objects are.
type splitTracker struct {
	plain, managed clienttesting.ObjectTracker
	scheme         *k8sruntime.Scheme
}

var _ clienttesting.ObjectTracker = (*splitTracker)(nil)

func (t *splitTracker) of(group string) clienttesting.ObjectTracker {
	if group == v1beta1.GroupVersion.Group {
		return t.managed
	}
	return t.plain
}

func (t *splitTracker) Add(obj k8sruntime.Object) error {
	if meta.IsListType(obj) {
		items, err := meta.ExtractList(obj)
		if err != nil {
			return err
		}
		for _, item := range items {
			if err := t.Add(item); err != nil {
				return err
			}
		}
		return nil
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Empty() {
		gvks, _, err := t.scheme.ObjectKinds(obj)
		if err != nil {
			return err
		}
		gvk = gvks[0]
	}
	return t.of(gvk.Group).Add(obj)
}

func (t *splitTracker) Get(gvr schema.GroupVersionResource, ns, name string, opts ...metav1.GetOptions) (k8sruntime.Object, error) {
	return t.of(gvr.Group).Get(gvr, ns, name, opts...)
}

func (t *splitTracker) Create(gvr schema.GroupVersionResource, obj k8sruntime.Object, ns string, opts ...metav1.CreateOptions) error {
	return t.of(gvr.Group).Create(gvr, obj, ns, opts...)
}

func (t *splitTracker) Update(gvr schema.GroupVersionResource, obj k8sruntime.Object, ns string, opts ...metav1.UpdateOptions) error {
	return t.of(gvr.Group).Update(gvr, obj, ns, opts...)
}

func (t *splitTracker) Patch(gvr schema.GroupVersionResource, obj k8sruntime.Object, ns string, opts ...metav1.PatchOptions) error {
	return t.of(gvr.Group).Patch(gvr, obj, ns, opts...)
}

func (t *splitTracker) Apply(gvr schema.GroupVersionResource, ac k8sruntime.Object, ns string, opts ...metav1.PatchOptions) error {
	return t.of(gvr.Group).Apply(gvr, ac, ns, opts...)
}

func (t *splitTracker) List(gvr schema.GroupVersionResource, gvk schema.GroupVersionKind, ns string, opts ...metav1.ListOptions) (k8sruntime.Object, error) {
	return t.of(gvr.Group).List(gvr, gvk, ns, opts...)
}

func (t *splitTracker) Delete(gvr schema.GroupVersionResource, ns, name string, opts ...metav1.DeleteOptions) error {
	return t.of(gvr.Group).Delete(gvr, ns, name, opts...)
}

func (t *splitTracker) Watch(gvr schema.GroupVersionResource, ns string, opts ...metav1.ListOptions) (watch.Interface, error) {
	return t.of(gvr.Group).Watch(gvr, ns, opts...)
}
