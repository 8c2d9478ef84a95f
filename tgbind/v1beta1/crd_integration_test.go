//go:build integration

package v1beta1_test

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/kube"
	"github.com/qstools/tgmigrate/internal/testenv"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// TestIntegrationCRDSmoke installs the generated CRD on a real API server,
// applies a TargetGroupBinding with server-side apply, reads it back, and
// shows that the CRD's validation rejects a targetType other than
// instance or ip.
func TestIntegrationCRDSmoke(t *testing.T) {
	ctx := t.Context()
	env := testenv.Start(t)
	t.Logf("API server version: %s", env.ServerVersion)

	installed, err := kube.TargetGroupBindingInstalled(ctx, env.Discovery)
	if err != nil || !installed {
		t.Fatalf("TargetGroupBindingInstalled() = %v, %v; want true", installed, err)
	}
	ns := env.Namespace(ctx, t, "smoke")

	ip := v1beta1.TargetTypeIP
	tgb := &v1beta1.TargetGroupBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1beta1.GroupVersion.String(), Kind: v1beta1.Kind},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: v1beta1.TargetGroupBindingSpec{
			TargetGroupARN:          "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef",
			TargetType:              &ip,
			ServiceRef:              v1beta1.ServiceReference{Name: "web", Port: intstr.FromInt32(80)},
			VpcID:                   "vpc-0123456789abcdef0",
			MultiClusterTargetGroup: true,
		},
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(tgb)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: obj}
	unstructured.RemoveNestedField(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	if err := env.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner("tgmigrate"), client.ForceOwnership); err != nil {
		t.Fatalf("server-side apply: %v", err)
	}
	var got v1beta1.TargetGroupBinding
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(tgb), &got); err != nil {
		t.Fatalf("get: %v", err)
	}
	if got.Spec.TargetGroupARN != tgb.Spec.TargetGroupARN || *got.Spec.TargetType != ip || !got.Spec.MultiClusterTargetGroup {
		t.Fatalf("read back %+v", got.Spec)
	}
	if len(got.ManagedFields) == 0 || got.ManagedFields[0].Manager != "tgmigrate" {
		t.Errorf("managed fields = %+v, want manager tgmigrate", got.ManagedFields)
	}

	// Unstructured, so that the client sends "pods" as it is.
	bad := map[string]any{
		"apiVersion": v1beta1.GroupVersion.String(), "kind": v1beta1.Kind,
		"metadata": map[string]any{"name": "bad", "namespace": ns},
		"spec":     map[string]any{"targetType": "pods", "serviceRef": map[string]any{"name": "web", "port": 80}},
	}
	badObj := &unstructured.Unstructured{Object: bad}
	err = env.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(badObj), client.FieldOwner("tgmigrate"))
	if !apierrors.IsInvalid(err) {
		t.Fatalf("targetType pods: err = %v, want Invalid", err)
	}
	t.Logf("rejected as expected: %v", err)
}
