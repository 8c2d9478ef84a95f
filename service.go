package tgmigrate

// This file holds the Service reference, once: [ServicePort], the Service
// port whose pods a target group serves or is to serve, and its one
// conversion from the Kubernetes Service ([ServicePortOf]). diagnose's
// ServiceRef, cutover's and tgbind's ServiceInfo are JSON contracts of
// their own (their fields differ in order and in what they add), each
// filled from a ServicePort.

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/qstools/tgmigrate/internal/kube"
)

// ServicePort is a Service port: the Service's namespace and name, and the
// port's number, name, targetPort and NodePort.
type ServicePort struct {
	// Namespace and Name identify the Service.
	Namespace string
	Name      string
	// Port is the Service port's number; PortName its name, if any.
	Port     int32
	PortName string
	// TargetPort is the port's targetPort as declared, a number or a
	// container port's name; the port's own number when it declares none.
	TargetPort string
	// NodePort is the port's NodePort, 0 when it has none.
	NodePort int32
}

// ServicePortOf reads the port sp of the Service svc: the one conversion
// from the Kubernetes model. A nil svc leaves the namespace and name
// empty.
func ServicePortOf(svc *corev1.Service, sp *corev1.ServicePort) ServicePort {
	p := ServicePort{Port: sp.Port, PortName: sp.Name, TargetPort: sp.TargetPort.String(), NodePort: sp.NodePort}
	if svc != nil {
		p.Namespace, p.Name = svc.Namespace, svc.Name
	}
	if kube.IsZeroPort(sp.TargetPort) {
		p.TargetPort = strconv.Itoa(int(sp.Port))
	}
	return p
}
