package helmgov

// This file holds rule TGM-H006, health-check port annotations point at the
// traffic port, never at a NodePort: its ID, documentation, the NodePorts it
// reads, its check and fix.

import (
	"fmt"
	"strconv"
	"strings"
)

// RuleHealthCheckPort: health-check ports are the traffic port, not a NodePort.
const RuleHealthCheckPort RuleID = "TGM-H006"

// healthCheckPort is rule TGM-H006.
type healthCheckPort struct{}

func (healthCheckPort) doc() Rule {
	return Rule{
		ID: RuleHealthCheckPort, Name: "healthcheck-traffic-port", Severity: SeverityError, Fixable: true,
		Summary: "health-check port annotations point at the traffic port, not at a NodePort",
		Doc: "With ip targets the load balancer reaches pods on their own port; a health check on a NodePort probes " +
			"nodes, passes while pods fail, or fails while they are fine. A port is a NodePort when a Service in the " +
			"manifests declares it as one, or when it lies in the NodePort range (30000-32767 unless configured). " +
			"Covers " + annSvcHCPort + " and " + annALBHCPort + " on Services and Ingresses. The fix sets traffic-port.",
	}
}

func (healthCheckPort) check(s *checkState) {
	// The NodePorts the Services in the manifests declare.
	nodePorts := map[int64]bool{}
	for _, it := range s.items {
		if it.svc == nil {
			continue
		}
		for _, p := range it.svc.Spec.Ports {
			if p.NodePort != 0 {
				nodePorts[int64(p.NodePort)] = true
			}
		}
	}
	for _, it := range s.items {
		// A Service carries both annotations (the ALB one overrides its
		// Ingress's); an Ingress carries the ALB one.
		var keys []string
		switch {
		case it.svc != nil:
			keys = []string{annSvcHCPort, annALBHCPort}
		case it.gk == gkIngressNet || it.gk == gkIngressExt:
			keys = []string{annALBHCPort}
		}
		ann := it.obj.Annotations()
		for _, k := range keys {
			v, ok := ann[k]
			if !ok || v == trafficPort {
				continue
			}
			port, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				continue // a named port: not a NodePort
			}
			var why string
			switch {
			case nodePorts[port]:
				why = "a Service in the manifests declares it as a nodePort"
			case port >= int64(s.c.opts.NodePortMin) && port <= int64(s.c.opts.NodePortMax):
				why = fmt.Sprintf("it lies in the NodePort range %d-%d", s.c.opts.NodePortMin, s.c.opts.NodePortMax)
			default:
				continue
			}
			s.add(it, RuleHealthCheckPort, annPath(k).String(), setTo(annPath(k), trafficPort),
				"%s is %d, a NodePort (%s); with ip targets, check the traffic port", k, port, why)
		}
	}
}
