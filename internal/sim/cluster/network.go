package cluster

// network.go: the network the ALB meets (elbv2model.Network): health checks
// and requests to node and pod addresses.

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

// Serve sends a request to ip:port now: the pod at that address serves
// it, or the pod kube-proxy forwards a NodePort to; the answer names that
// pod's workload ("namespace/name"), which may be another application than
// the one the target was registered for when its address was handed out
// again. Otherwise it says whether nothing holds the address (a timeout)
// or nothing listens on the port (refused).
func (cl *Cluster) Serve(ip string, port int32) elbv2model.Answer {
	p, res := cl.resolve(ip, port)
	if p == nil {
		return elbv2model.Answer{Result: res}
	}
	return elbv2model.Answer{Result: elbv2model.ProbeOK, App: p.w.spec.Namespace + "/" + p.w.spec.Name}
}

// Answers reports, without sending anything (kube-proxy's rotation does
// not move), which application a request to ip:port would reach now: the
// pod's workload at a pod's address when it serves that port, the
// NodePort's Service at a node's address when that Service has an
// endpoint; ok is false when nothing would serve it.
func (cl *Cluster) Answers(ip string, port int32) (app string, ok bool) {
	o, held := cl.ipOwner[ip]
	switch {
	case !held:
		return "", false
	case o.p != nil:
		if _, res := servingPod(o.p, port); res != elbv2model.ProbeOK {
			return "", false
		}
		return o.p.w.spec.Namespace + "/" + o.p.w.spec.Name, true
	case o.n.phase != nodeReady:
		return "", false
	}
	ref, isNodePort := cl.nodePorts[port]
	if !isNodePort {
		return "", false
	}
	if t := cl.proxy[ref]; t == nil || len(t.eps) == 0 {
		return "", false
	}
	return ref.svc.Namespace + "/" + ref.svc.Name, true
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
		if n.instanceID != "" && n.instanceID == instanceID && n.phase != nodeTerminated {
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
