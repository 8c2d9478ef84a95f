package kube

// probe.go: ReadinessProbe, the one choice of the readiness probe of a
// Service's pods on a Service port: diagnose's HealthCheckMismatch
// recommends it and cutover's plan sets its path, so the two never differ.

import (
	"cmp"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Probe is the endpoint of an HTTP readiness probe: its path and its
// scheme ("HTTP" or "HTTPS").
type Probe struct {
	// Path is the probe's path; an empty path is "/".
	Path string
	// Scheme is the probe's scheme; an empty scheme is "HTTP".
	Scheme string
}

// ReadinessProbe chooses the HTTP readiness probe that a Service's pods run
// on the Service port sp, the endpoint an ALB health check on traffic-port
// must hit to agree with the kubelet. It reports false when no pod has one.
//
// The rules, each chosen so that the health check probes what the kubelet
// probes:
//
//   - Pods that are leaving (being deleted, Succeeded or Failed) do not
//     vote: the health check will judge the pods that stay.
//   - Only HTTP readiness probes vote (not exec, TCP or gRPC ones).
//   - A probe is on the port when the port it names, resolved in its own
//     container, is the number sp's target port resolves to in its pod. A
//     number is itself, declared among the container's ports or not: the
//     containers of a pod share its network, and the kubelet probes the
//     pod IP on that number either way. A name is the container port of
//     that name (for the probe, in its container, as the kubelet resolves
//     it; for the target port, in any container of the pod, as the
//     endpoints are built). A zero target port is sp's port. A pod on which
//     the target port resolves to nothing does not vote. A nil sp (the
//     Service port is unknown) lets every probe vote.
//   - An empty path is "/" and an empty scheme is HTTP: the API server
//     defaults them so, and the kubelet requests "/" for an empty path.
//   - Each container's probe is one vote for its (path, scheme); the
//     endpoint with the most votes wins, and a tie goes to the smaller path,
//     then the smaller scheme.
func ReadinessProbe(pods []*corev1.Pod, sp *corev1.ServicePort) (Probe, bool) {
	votes := map[Probe]int{}
	for _, p := range pods {
		if leaving(p) {
			continue
		}
		var target int32
		if sp != nil {
			var ok bool
			if target, ok = TargetPort(p, sp); !ok {
				continue
			}
		}
		for _, c := range p.Spec.Containers {
			rp := c.ReadinessProbe
			if rp == nil || rp.HTTPGet == nil {
				continue
			}
			if sp != nil {
				if port, ok := probePort(c, rp.HTTPGet.Port); !ok || port != target {
					continue
				}
			}
			votes[Probe{Path: cmp.Or(rp.HTTPGet.Path, "/"), Scheme: string(cmp.Or(rp.HTTPGet.Scheme, corev1.URISchemeHTTP))}]++
		}
	}
	var best Probe
	found := false
	for _, k := range slices.SortedFunc(maps.Keys(votes), func(x, y Probe) int {
		return cmp.Or(cmp.Compare(x.Path, y.Path), cmp.Compare(x.Scheme, y.Scheme))
	}) {
		if !found || votes[k] > votes[best] {
			best, found = k, true
		}
	}
	return best, found
}

// leaving reports whether a pod is being deleted or has finished.
func leaving(p *corev1.Pod) bool {
	return !p.DeletionTimestamp.IsZero() || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// TargetPort resolves sp's target port in pod p, as the EndpointSlice
// controller does for the port it lists the pod's addresses on: a number
// is itself (zero is sp's port); a name is the first container port of
// that name among p's containers.
func TargetPort(p *corev1.Pod, sp *corev1.ServicePort) (int32, bool) {
	tp := sp.TargetPort
	switch {
	case tp.Type == intstr.Int && tp.IntVal == 0:
		return sp.Port, true
	case tp.Type == intstr.Int:
		return tp.IntVal, true
	case tp.StrVal == "":
		return sp.Port, true
	}
	for _, c := range p.Spec.Containers {
		for _, cp := range c.Ports {
			if cp.Name == tp.StrVal {
				return cp.ContainerPort, true
			}
		}
	}
	return 0, false
}

// probePort resolves a probe's port in its container c: a number is
// itself; a name is c's container port of that name.
func probePort(c corev1.Container, port intstr.IntOrString) (int32, bool) {
	if port.Type == intstr.Int {
		return port.IntVal, port.IntVal != 0
	}
	for _, cp := range c.Ports {
		if port.StrVal != "" && cp.Name == port.StrVal {
			return cp.ContainerPort, true
		}
	}
	return 0, false
}
