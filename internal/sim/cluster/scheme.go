package cluster

import (
	"fmt"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// NewScheme returns a scheme with the API groups the simulated world uses:
// core/v1, discovery/v1, policy/v1, coordination/v1 and elbv2.k8s.aws/v1beta1
// (TargetGroupBinding). It is kept this small on purpose: the fake client
// rebuilds a REST mapper from the whole scheme on every write, so every
// extra group slows every write of a run.
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

// NewFakeClient returns the default client of the simulation: a
// controller-runtime fake client on [NewScheme] in which, as on a real API
// server, Pod, Node, Service, PodDisruptionBudget and TargetGroupBinding
// have a status subresource (an Update does not change status; a
// Status().Update changes only status). funcs, when given, inject faults
// with interceptor.Funcs.
func NewFakeClient(funcs *interceptor.Funcs) (client.WithWatch, error) {
	s, err := NewScheme()
	if err != nil {
		return nil, err
	}
	b := fake.NewClientBuilder().
		WithScheme(s).
		WithStatusSubresource(&v1beta1.TargetGroupBinding{})
	if funcs != nil {
		b = b.WithInterceptorFuncs(*funcs)
	}
	return b.Build(), nil
}
