package diagnose

// This file is the HealthCheckMismatch rule, and the pods' readiness probe
// it compares the health check with.

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// CodeHealthCheckMismatch: the health check would fail, or already
// fails, pod targets: a port pinned to a NodePort, a path or protocol
// that differs from the pods' readiness probe.
const CodeHealthCheckMismatch Code = "HealthCheckMismatch"

// SignalHealthCheckMismatch is the seed signal of [CodeHealthCheckMismatch].
const SignalHealthCheckMismatch = "targets stay unhealthy (or flap) while the pods are Ready"

// healthCheckRule makes HealthCheckMismatch: a health check on a NodePort,
// which pod targets do not serve, or whose path or protocol differs from
// the pods' readiness probe.
type healthCheckRule struct{}

var _ targetGroupRule = healthCheckRule{}

func (healthCheckRule) rules() []Rule {
	return []Rule{{CodeHealthCheckMismatch, SeverityMedium, SignalHealthCheckMismatch,
		"cutover.PlanCutover: its health-check step sets port traffic-port and the readiness probe's path and protocol"}}
}

func (healthCheckRule) judge(a *analysis) []Finding {
	hc := a.rep.HealthCheck
	var aspects []string
	details := map[string]string{"healthCheckPort": hc.Port, "healthCheckProtocol": hc.Protocol}
	var names []string
	if a.rep.TargetType == "ip" && hc.Port != "" && hc.Port != "traffic-port" {
		if p, err := strconv.Atoi(hc.Port); err == nil {
			for _, s := range a.candidates() {
				if svcs := s.nodePorts[int32(p)]; len(svcs) > 0 {
					aspects = append(aspects, fmt.Sprintf("port %d is the NodePort of %s: pod targets would be checked on a port they do not serve", p, strings.Join(svcs, ", ")))
					names = append(names, svcs...)
					break
				}
			}
		}
	}
	httpHC := hc.Protocol == "HTTP" || hc.Protocol == "HTTPS"
	pr, probed := a.readinessProbe()
	if probed && httpHC {
		details["probePath"], details["probeScheme"] = pr.path, pr.scheme
		if hc.Path != "" {
			details["healthCheckPath"] = hc.Path
		}
		if hc.Path != pr.path {
			aspects = append(aspects, fmt.Sprintf("path %q differs from the readiness probe's %q", hc.Path, pr.path))
		}
		if hc.Protocol != pr.scheme {
			aspects = append(aspects, fmt.Sprintf("protocol %s differs from the readiness probe's %s", hc.Protocol, pr.scheme))
		}
	}
	if len(aspects) == 0 {
		return nil
	}
	msg := "health check: " + strings.Join(aspects, "; ")
	next := a.cutoverCall()
	does := "its health-check step sets port traffic-port"
	if probed && httpHC {
		does += fmt.Sprintf(", path %s and protocol %s", pr.path, pr.scheme)
	}
	return []Finding{a.finding(CodeHealthCheckMismatch, msg, Evidence{Names: names, Counts: map[string]int{"aspects": len(aspects)}, Details: details}, a.cutoverProse(next, does), next)}
}

// probe is the readiness probe of a Service's pods.
type probe struct{ path, scheme string }

func (a *analysis) readinessProbe() (probe, bool) {
	if a.service == nil || a.service.svc == nil {
		return probe{}, false
	}
	votes := map[probe]int{}
	for _, p := range a.service.snap.podsOfService(a.service.svc) {
		for _, c := range p.Spec.Containers {
			rp := c.ReadinessProbe
			if rp == nil || rp.HTTPGet == nil {
				continue
			}
			if tp := a.service.ref.ResolvedTargetPort; tp != 0 && !probeOnPort(c, rp.HTTPGet.Port, tp) {
				continue
			}
			votes[probe{path: cmp.Or(rp.HTTPGet.Path, "/"), scheme: string(cmp.Or(rp.HTTPGet.Scheme, corev1.URISchemeHTTP))}]++
		}
	}
	var best probe
	found := false
	for _, k := range slices.SortedFunc(maps.Keys(votes), func(x, y probe) int {
		return cmp.Or(cmp.Compare(x.path, y.path), cmp.Compare(x.scheme, y.scheme))
	}) {
		if !found || votes[k] > votes[best] {
			best, found = k, true
		}
	}
	return best, found
}

// probeOnPort reports whether a probe port (number or container-port name)
// is the container port tp.
func probeOnPort(c corev1.Container, port intstr.IntOrString, tp int32) bool {
	if port.Type == intstr.Int {
		return port.IntVal == tp
	}
	for _, cp := range c.Ports {
		if cp.Name == port.StrVal {
			return cp.ContainerPort == tp
		}
	}
	return false
}

// candidates are the snapshots that may own the target group's targets and
// whose Services were listed.
func (a *analysis) candidates() []*Snapshot {
	var out []*Snapshot
	for _, s := range a.snaps {
		if s.listed(ListServices) && a.inVPC(s) {
			out = append(out, s)
		}
	}
	return out
}
