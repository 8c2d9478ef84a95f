package cutover

// endpoints.go holds the planner's view of the Service port's ready
// endpoints, the ip:port pairs the LBC registers in ip mode, and the
// partition of the recorded targets it guards: a target the controller
// registers is never one to deregister.

import (
	"net/netip"

	corev1 "k8s.io/api/core/v1"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/kube"
)

// readyEndpoints are the Service port sp's ready endpoints as the
// EndpointSlice controller lists them from pods (the Service's, terminating
// ones already left out): each ready pod's addresses (a hostNetwork pod's
// are its node's, a Fargate pod's its Fargate node's InternalIP) on the
// target port resolved on that pod. A pod whose containers are ready and
// that waits only on its readiness gates counts too: the LBC registers it.
func readyEndpoints(pods []corev1.Pod, sp *corev1.ServicePort) map[TargetAddr]bool {
	out := map[TargetAddr]bool{}
	for i := range pods {
		p := &pods[i]
		if !podReady(*p) {
			continue
		}
		port, ok := kube.TargetPort(p, sp)
		if !ok {
			continue
		}
		ips := []string{p.Status.PodIP}
		for _, ip := range p.Status.PodIPs {
			ips = append(ips, ip.IP)
		}
		for _, ip := range ips {
			if ip != "" {
				out[TargetAddr{IP: canonicalIP(ip), Port: port}] = true
			}
		}
	}
	return out
}

// canonicalIP spells an address as netip does, so that AWS's and the
// cluster's spellings of one IPv6 address meet; anything else is itself.
func canonicalIP(s string) string {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().String()
	}
	return s
}

// servesEndpoint reports whether a node target or a ghost is a ready
// endpoint of the Service all the same: an address the snapshot did not
// see served (a node that shares its pod's address without the Fargate
// label, a pod that turned ready since). The controller registers it, so
// the plan leaves it to the controller and never records it.
func (pl *planner) servesEndpoint(r diagnose.TargetReport) bool {
	if r.Class != diagnose.ClassNode && r.Class != diagnose.ClassGhost {
		return false
	}
	return pl.endpoints[TargetAddr{IP: canonicalIP(r.ID), Port: r.Port}]
}
