package tgmigrate_test

// scheme_example_test.go: the example of NewScheme, a real cluster's
// client built on it.

import (
	"fmt"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// A client for a real cluster: the scheme registers every type the
// packages read and write. (A real program takes cfg from its kubeconfig,
// for example controller-runtime's config.GetConfig; building the client
// makes no call.)
func ExampleNewScheme() {
	scheme, err := tgmigrate.NewScheme()
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := &rest.Config{Host: "https://cluster.example.invalid"}
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, obj := range []client.Object{&corev1.Service{}, &discoveryv1.EndpointSlice{}, &coordinationv1.Lease{}, &v1beta1.TargetGroupBinding{}} {
		gvk, err := apiutil.GVKForObject(obj, c.Scheme())
		fmt.Println(gvk.Kind, gvk.GroupVersion(), err)
	}
	// Output:
	// Service v1 <nil>
	// EndpointSlice discovery.k8s.io/v1 <nil>
	// Lease coordination.k8s.io/v1 <nil>
	// TargetGroupBinding elbv2.k8s.aws/v1beta1 <nil>
}
