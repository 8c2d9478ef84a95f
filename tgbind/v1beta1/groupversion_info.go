package v1beta1

// groupversion_info.go: GroupVersion (elbv2.k8s.aws/v1beta1), Kind,
// Resource, and the SchemeBuilder and AddToScheme that register the types.

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is elbv2.k8s.aws/v1beta1.
	GroupVersion = schema.GroupVersion{Group: "elbv2.k8s.aws", Version: "v1beta1"}

	// SchemeBuilder registers the types of this package.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds TargetGroupBinding and TargetGroupBindingList to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// Kind is the TargetGroupBinding kind.
const Kind = "TargetGroupBinding"

// Resource is the plural resource name, as discovery lists it.
const Resource = "targetgroupbindings"

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &TargetGroupBinding{}, &TargetGroupBindingList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
