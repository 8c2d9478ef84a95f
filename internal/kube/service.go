package kube

// This file finds a Service and one of its ports: the one lookup that
// cutover's planner and tgbind's Build, Validate and Wait share. The callers
// word their own errors and reasons from what it returns, so that each
// package's messages stay its own.

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Service reads the Service namespace/name. It returns nil and no error when
// the Service does not exist; any other failure is wrapped as
// "get service namespace/name: ...".
func Service(ctx context.Context, r client.Reader, namespace, name string) (*corev1.Service, error) {
	svc := &corev1.Service{}
	err := r.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, svc)
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("get service %s/%s: %w", namespace, name, err)
	}
	return svc, nil
}

// ServicePort finds svc's port by name (a string port) or by number (an int
// port). The zero port ([IsZeroPort]) means the Service's only port. It
// returns nil when there is no such port, or, for the zero port, when the
// Service has not exactly one.
func ServicePort(svc *corev1.Service, port intstr.IntOrString) *corev1.ServicePort {
	ports := svc.Spec.Ports
	if IsZeroPort(port) {
		if len(ports) == 1 {
			return &ports[0]
		}
		return nil
	}
	for i := range ports {
		p := &ports[i]
		if (port.Type == intstr.String && p.Name == port.StrVal) || (port.Type == intstr.Int && p.Port == port.IntVal) {
			return p
		}
	}
	return nil
}

// IsZeroPort reports whether p is the zero port: the int 0 or the empty
// string, which names no port.
func IsZeroPort(p intstr.IntOrString) bool {
	return (p.Type == intstr.Int && p.IntVal == 0) || (p.Type == intstr.String && p.StrVal == "")
}

// PortLabels labels each port as its callers name it in messages: "name=port",
// or the bare port number when the port has no name. It is nil for no ports.
func PortLabels(ports []corev1.ServicePort) []string {
	var out []string
	for _, p := range ports {
		label := strconv.Itoa(int(p.Port))
		if p.Name != "" {
			label = p.Name + "=" + label
		}
		out = append(out, label)
	}
	return out
}
