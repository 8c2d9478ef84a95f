package cluster

import (
	"net/netip"

	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
)

// The cluster is the network the simulated ALB health-checks and routes
// requests through.
var (
	_ elbv2model.Network          = (*Cluster)(nil)
	_ elbv2model.InstanceResolver = (*Cluster)(nil)
)

// Probe performs the ALB health checker's HTTP GET of path on ip:port now.
//
//   - A pod's address: the app answers 200 on its readiness path and on "/"
//     and 404 elsewhere from when it listens until it stops after its
//     preStop sleep; before and after, the connection is refused; once the
//     pod is gone, or its node's instance is, nothing answers.
//   - A node's address (InternalIP or ExternalIP), while its instance runs
//     and once it is registered: on a Service's NodePort, kube-proxy
//     forwards to one of the Service's endpoints (ready ones first, else
//     serving terminating ones) as kube-proxy last programmed them, and
//     that pod answers; with no endpoint, or on another port, the
//     connection is refused.
//   - Any other address: nothing answers (a timeout).
func (cl *Cluster) Probe(ip string, port int32, path string) elbv2model.ProbeResult {
	p, res := cl.resolve(ip, port)
	if p == nil {
		return res
	}
	if path == p.w.spec.ReadinessPath || path == "/" {
		return elbv2model.ProbeOK
	}
	return elbv2model.ProbeBadStatus
}

// Serve reports whether a request to ip:port is served now: by the pod at
// that address, or by the pod kube-proxy forwards a NodePort to.
func (cl *Cluster) Serve(ip string, port int32) bool {
	p, _ := cl.resolve(ip, port)
	return p != nil
}

// InVPC reports whether ip lies in the cluster's VPC CIDR. Whether anything
// answers there does not matter, as for AWS.
func (cl *Cluster) InVPC(vpcID, ip string) bool {
	if vpcID != cl.o.VPCID {
		return false
	}
	a, err := netip.ParseAddr(ip)
	return err == nil && cl.o.cidr.Contains(a)
}

// InstanceIP returns the private address of a running instance.
func (cl *Cluster) InstanceIP(instanceID string) (string, bool) {
	for _, n := range cl.sortedNodes() {
		if n.instanceID == instanceID && n.phase != nodeTerminated {
			return n.internalIP, true
		}
	}
	return "", false
}

// resolve finds the pod that serves a connection to ip:port now, or says
// why none does.
func (cl *Cluster) resolve(ip string, port int32) (*pod, elbv2model.ProbeResult) {
	o, ok := cl.ipOwner[ip]
	if !ok {
		return nil, elbv2model.ProbeTimeout
	}
	if o.p != nil {
		return servingPod(o.p, port)
	}
	n := o.n
	if n.phase != nodeReady {
		return nil, elbv2model.ProbeRefused
	}
	ref, ok := cl.nodePorts[port]
	if !ok {
		return nil, elbv2model.ProbeRefused
	}
	t := cl.proxy[ref]
	if t == nil {
		return nil, elbv2model.ProbeRefused
	}
	e, ok := t.pick()
	if !ok {
		return nil, elbv2model.ProbeRefused
	}
	if e.p.node.phase == nodeTerminated || e.p.phase == podGone {
		// kube-proxy still has a backend that is gone: the packet goes
		// nowhere.
		return nil, elbv2model.ProbeTimeout
	}
	return servingPod(e.p, e.port)
}

func servingPod(p *pod, port int32) (*pod, elbv2model.ProbeResult) {
	if p.node.phase == nodeTerminated || p.phase == podGone {
		return nil, elbv2model.ProbeTimeout
	}
	if !p.listening() || port != p.w.spec.ContainerPort {
		return nil, elbv2model.ProbeRefused
	}
	return p, elbv2model.ProbeOK
}
