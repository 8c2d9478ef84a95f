package cluster

import (
	"fmt"

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
	clienttesting "k8s.io/client-go/testing"
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
	// ServerSideApply uses the fake client's field-managed object tracker:
	// real server-side apply (field ownership, conflicts, managedFields), at
	// about three times the CPU cost of a scenario. False: the plain object
	// tracker, on which client.Apply creates a missing object and merges
	// into an existing one with a strategic merge patch (no field
	// ownership, no conflicts, no managedFields); every other operation
	// behaves the same.
	ServerSideApply bool
}

// NewFakeClient returns the default client of the simulation: a
// controller-runtime fake client on [NewScheme] in which, as on a real API
// server, Pod, Node, Service, PodDisruptionBudget and TargetGroupBinding
// have a status subresource (an Update does not change status; a
// Status().Update changes only status).
func NewFakeClient(opts FakeOptions) (client.WithWatch, error) {
	s, err := NewScheme()
	if err != nil {
		return nil, err
	}
	b := fake.NewClientBuilder().
		WithScheme(s).
		WithStatusSubresource(&v1beta1.TargetGroupBinding{})
	if !opts.ServerSideApply {
		b = b.WithObjectTracker(applyTracker{
			ObjectTracker: clienttesting.NewObjectTracker(s, serializer.NewCodecFactory(s).UniversalDecoder()),
			scheme:        s,
		})
	}
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
