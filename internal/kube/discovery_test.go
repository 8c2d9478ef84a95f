package kube

import (
	"context"
	"errors"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fakediscovery "k8s.io/client-go/discovery/fake"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

func TestTargetGroupBindingInstalled(t *testing.T) {
	tests := []struct {
		name      string
		resources []*metav1.APIResourceList
		react     error
		want      bool
		wantErr   bool
	}{
		{"installed", []*metav1.APIResourceList{{GroupVersion: "elbv2.k8s.aws/v1beta1", APIResources: []metav1.APIResource{{Name: "targetgroupbindings"}}}}, nil, true, false},
		{"group without the resource", []*metav1.APIResourceList{{GroupVersion: "elbv2.k8s.aws/v1beta1", APIResources: []metav1.APIResource{{Name: "ingressclassparams"}}}}, nil, false, false},
		{"group absent", []*metav1.APIResourceList{{GroupVersion: "v1"}}, nil, false, false},
		{"server error", nil, errors.New("boom"), false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &clienttesting.Fake{Resources: tt.resources}
			if tt.react != nil {
				f.AddReactor("get", "resource", func(clienttesting.Action) (bool, runtime.Object, error) { return true, nil, tt.react })
			}
			got, err := TargetGroupBindingInstalled(t.Context(), &fakediscovery.FakeDiscovery{Fake: f})
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("TargetGroupBindingInstalled() = %v, %v; want %v, err %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestTargetGroupBindingWebhooks(t *testing.T) {
	rule := func(groups, resources []string, ops ...admissionregistrationv1.OperationType) admissionregistrationv1.RuleWithOperations {
		return admissionregistrationv1.RuleWithOperations{Operations: ops, Rule: admissionregistrationv1.Rule{
			APIGroups: groups, APIVersions: []string{"v1beta1"}, Resources: resources}}
	}
	lbc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "aws-load-balancer-webhook"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{
			{Name: "vingress.elbv2.k8s.aws", Rules: []admissionregistrationv1.RuleWithOperations{rule([]string{"networking.k8s.io"}, []string{"ingresses"}, admissionregistrationv1.Create)}},
			{Name: "vtargetgroupbinding.elbv2.k8s.aws", Rules: []admissionregistrationv1.RuleWithOperations{rule([]string{"elbv2.k8s.aws"}, []string{"targetgroupbindings"}, admissionregistrationv1.Create, admissionregistrationv1.Update)}},
		},
	}
	updateOnly := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "other"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{
			{Name: "update-only", Rules: []admissionregistrationv1.RuleWithOperations{rule([]string{"*"}, []string{"*"}, admissionregistrationv1.Update)}},
		},
	}
	c := fake.NewClientBuilder().WithObjects(lbc, updateOnly).Build()
	got, err := TargetGroupBindingWebhooks(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != (Webhook{Configuration: "aws-load-balancer-webhook", Name: "vtargetgroupbinding.elbv2.k8s.aws"}) {
		t.Fatalf("TargetGroupBindingWebhooks() = %+v", got)
	}

	failing := fake.NewClientBuilder().WithInterceptorFuncs(interceptor.Funcs{
		List: func(_ context.Context, c client.WithWatch, l client.ObjectList, o ...client.ListOption) error {
			return errors.New("forbidden")
		},
	}).Build()
	if _, err := TargetGroupBindingWebhooks(t.Context(), failing); err == nil {
		t.Fatal("want an error when listing fails")
	}
}

func TestTargetGroupBindingMutatingWebhooks(t *testing.T) {
	rule := func(groups, resources []string, ops ...admissionregistrationv1.OperationType) admissionregistrationv1.RuleWithOperations {
		return admissionregistrationv1.RuleWithOperations{Operations: ops, Rule: admissionregistrationv1.Rule{
			APIGroups: groups, APIVersions: []string{"v1beta1"}, Resources: resources}}
	}
	lbc := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "aws-load-balancer-webhook"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{
			{Name: "mpod.elbv2.k8s.aws", Rules: []admissionregistrationv1.RuleWithOperations{rule([]string{""}, []string{"pods"}, admissionregistrationv1.Create)}},
			{Name: "mtargetgroupbinding.elbv2.k8s.aws", Rules: []admissionregistrationv1.RuleWithOperations{rule([]string{"elbv2.k8s.aws"}, []string{"targetgroupbindings"}, admissionregistrationv1.Create, admissionregistrationv1.Update)}},
		},
	}
	validating := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "aws-load-balancer-webhook"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{
			{Name: "vtargetgroupbinding.elbv2.k8s.aws", Rules: []admissionregistrationv1.RuleWithOperations{rule([]string{"*"}, []string{"*"}, admissionregistrationv1.Create)}},
		},
	}
	c := fake.NewClientBuilder().WithObjects(lbc, validating).Build()
	got, err := TargetGroupBindingMutatingWebhooks(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != (Webhook{Configuration: "aws-load-balancer-webhook", Name: "mtargetgroupbinding.elbv2.k8s.aws", Mutating: true}) {
		t.Fatalf("TargetGroupBindingMutatingWebhooks() = %+v", got)
	}

	failing := fake.NewClientBuilder().WithInterceptorFuncs(interceptor.Funcs{
		List: func(_ context.Context, c client.WithWatch, l client.ObjectList, o ...client.ListOption) error {
			return errors.New("forbidden")
		},
	}).Build()
	if _, err := TargetGroupBindingMutatingWebhooks(t.Context(), failing); err == nil {
		t.Fatal("want an error when listing fails")
	}
}
