package kube

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

func TestService(t *testing.T) {
	web := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	boom := errors.New("boom")
	tests := []struct {
		name    string
		get     func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error
		svc     string
		want    bool
		wantErr string
	}{
		{name: "found", svc: "web", want: true},
		{name: "not found is nil and no error", svc: "api"},
		{name: "another failure is wrapped", svc: "web", wantErr: "get service shop/web: boom",
			get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
				return boom
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := interceptor.NewClient(fake.NewClientBuilder().WithObjects(web.DeepCopy()).Build(), interceptor.Funcs{Get: tt.get})
			got, err := Service(t.Context(), c, "shop", tt.svc)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || !errors.Is(err, boom) {
					t.Fatalf("Service() error = %v, want %q wrapping boom", err, tt.wantErr)
				}
				return
			}
			if err != nil || (got != nil) != tt.want {
				t.Fatalf("Service() = %v, %v; want found %t", got, err, tt.want)
			}
			if got != nil && got.Name != "web" {
				t.Errorf("Service() = %s, want web", got.Name)
			}
		})
	}
}

func TestServicePort(t *testing.T) {
	two := []corev1.ServicePort{{Name: "http", Port: 80}, {Port: 8080}}
	one := []corev1.ServicePort{{Name: "http", Port: 80}}
	tests := []struct {
		name  string
		ports []corev1.ServicePort
		port  intstr.IntOrString
		want  *corev1.ServicePort // nil: none
	}{
		{"by name", two, intstr.FromString("http"), &two[0]},
		{"by number", two, intstr.FromInt32(8080), &two[1]},
		{"a number is not a name", two, intstr.FromString("8080"), nil},
		{"no such port", two, intstr.FromString("grpc"), nil},
		{"zero int is the only port", one, intstr.FromInt32(0), &one[0]},
		{"empty string is the only port", one, intstr.FromString(""), &one[0]},
		{"zero port with two ports", two, intstr.IntOrString{}, nil},
		{"zero port with none", nil, intstr.IntOrString{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := &corev1.Service{Spec: corev1.ServiceSpec{Ports: tt.ports}}
			got := ServicePort(svc, tt.port)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("ServicePort() (-want +got):\n%s", d)
			}
			if got != nil && got != &svc.Spec.Ports[0] && got != &svc.Spec.Ports[len(svc.Spec.Ports)-1] {
				t.Errorf("ServicePort() returned a copy, want a pointer into the Service")
			}
		})
	}
}

func TestPortLabels(t *testing.T) {
	if got := PortLabels(nil); got != nil {
		t.Errorf("PortLabels(nil) = %q, want nil", got)
	}
	got := PortLabels([]corev1.ServicePort{{Name: "http", Port: 80}, {Port: 8080}})
	if d := cmp.Diff([]string{"http=80", "8080"}, got); d != "" {
		t.Errorf("PortLabels() (-want +got):\n%s", d)
	}
}
