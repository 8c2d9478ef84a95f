package v1beta1_test

import (
	"slices"
	"testing"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestCRD(t *testing.T) {
	crd, err := v1beta1.CRD()
	if err != nil {
		t.Fatal(err)
	}
	if crd.Spec.Group != v1beta1.GroupVersion.Group || crd.Spec.Names.Plural != v1beta1.Resource || crd.Spec.Names.Kind != v1beta1.Kind {
		t.Fatalf("CRD names %+v", crd.Spec.Names)
	}
	if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Name != "v1beta1" || crd.Spec.Versions[0].Subresources == nil {
		t.Fatalf("CRD versions %+v", crd.Spec.Versions)
	}
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	if !slices.Contains(spec.Required, "serviceRef") {
		t.Errorf("serviceRef is not required: %v", spec.Required)
	}
	var enum []string
	for _, e := range spec.Properties["targetType"].Enum {
		enum = append(enum, string(e.Raw))
	}
	if !slices.Equal(enum, []string{`"instance"`, `"ip"`}) {
		t.Errorf("targetType enum = %v", enum)
	}
	for _, f := range []string{"targetGroupARN", "targetGroupName", "targetType", "serviceRef", "networking", "nodeSelector",
		"ipAddressType", "vpcID", "multiClusterTargetGroup", "iamRoleArnToAssume", "assumeRoleExternalId", "targetGroupProtocol"} {
		if _, ok := spec.Properties[f]; !ok {
			t.Errorf("spec field %q missing from the CRD", f)
		}
	}
}

func TestSchemeAndDeepCopy(t *testing.T) {
	s := runtime.NewScheme()
	if err := v1beta1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if !s.Recognizes(v1beta1.GroupVersion.WithKind(v1beta1.Kind)) {
		t.Fatal("scheme does not recognise TargetGroupBinding")
	}
	ip := v1beta1.TargetTypeIP
	in := &v1beta1.TargetGroupBinding{Spec: v1beta1.TargetGroupBindingSpec{
		TargetType: &ip,
		ServiceRef: v1beta1.ServiceReference{Name: "web", Port: intstr.FromString("http")},
	}}
	out := in.DeepCopy()
	*out.Spec.TargetType = v1beta1.TargetTypeInstance
	if *in.Spec.TargetType != v1beta1.TargetTypeIP {
		t.Fatal("DeepCopy shares the targetType pointer")
	}
}
