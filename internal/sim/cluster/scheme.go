package cluster

import (
	"fmt"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
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
	// ServerSideApply uses the fake client's field-managed object tracker,
	// which supports client.Apply (server-side apply) and keeps
	// managedFields, at about three times the CPU cost of a scenario.
	// False: the plain object tracker, on which an Apply fails (the object
	// is not found); every other operation behaves the same.
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
		b = b.WithObjectTracker(clienttesting.NewObjectTracker(s, serializer.NewCodecFactory(s).UniversalDecoder()))
	}
	if opts.Faults != nil {
		b = b.WithInterceptorFuncs(*opts.Faults)
	}
	return b.Build(), nil
}
