package cluster

import (
	"fmt"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// NewScheme returns a scheme with every type the simulated cluster writes:
// the client-go types (core, discovery/v1, policy/v1, coordination/v1 and
// the rest) and TargetGroupBinding.
func NewScheme() (*k8sruntime.Scheme, error) {
	s := k8sruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, fmt.Errorf("cluster: scheme: %w", err)
	}
	if err := v1beta1.AddToScheme(s); err != nil {
		return nil, fmt.Errorf("cluster: scheme: %w", err)
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
