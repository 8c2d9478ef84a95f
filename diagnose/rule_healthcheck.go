package diagnose

// This file is the HealthCheckMismatch rule, and the pods' readiness probe
// it compares the health check with.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/qstools/tgmigrate/internal/kube"
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
		details["probePath"], details["probeScheme"] = pr.Path, pr.Scheme
		if hc.Path != "" {
			details["healthCheckPath"] = hc.Path
		}
		if hc.Path != pr.Path {
			aspects = append(aspects, fmt.Sprintf("path %q differs from the readiness probe's %q", hc.Path, pr.Path))
		}
		if hc.Protocol != pr.Scheme {
			aspects = append(aspects, fmt.Sprintf("protocol %s differs from the readiness probe's %s", hc.Protocol, pr.Scheme))
		}
	}
	if len(aspects) == 0 {
		return nil
	}
	msg := "health check: " + strings.Join(aspects, "; ")
	next := a.cutoverCall()
	does := "its health-check step sets port traffic-port"
	if probed && httpHC {
		does += fmt.Sprintf(", path %s and protocol %s", pr.Path, pr.Scheme)
	}
	return []Finding{a.finding(CodeHealthCheckMismatch, msg, Evidence{Names: names, Counts: map[string]int{"aspects": len(aspects)}, Details: details}, a.cutoverProse(next, does), next)}
}

// readinessProbe is the readiness probe of the Service's pods on its
// port ([kube.ReadinessProbe], the choice cutover's plan makes too).
func (a *analysis) readinessProbe() (kube.Probe, bool) {
	if a.service == nil || a.service.svc == nil {
		return kube.Probe{}, false
	}
	return kube.ReadinessProbe(a.service.snap.podsOfService(a.service.svc), a.service.port)
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
