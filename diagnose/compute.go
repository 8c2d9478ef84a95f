package diagnose

// This file is who serves an address that a node and a pod share: EKS
// Fargate's node per pod (the Node's InternalIP is its one pod's IP, and
// no kube-proxy serves NodePorts there) and hostNetwork pods (the pod's
// IP is its node's, and it serves its ports there).

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// Well-known names of EKS compute types.
const (
	// LabelComputeType is the label EKS puts on the Node of a Fargate pod
	// (value [ComputeTypeFargate]). The AWS Load Balancer Controller's
	// default instance-mode node selector leaves those nodes out.
	LabelComputeType = "eks.amazonaws.com/compute-type"
	// ComputeTypeFargate is [LabelComputeType]'s value on a Fargate node.
	ComputeTypeFargate = "fargate"
)

// server says who serves t's port at an address h holds, when a node and
// a pod share it:
//   - a node whose address a (non-hostNetwork) pod holds too is a node
//     per pod (EKS Fargate): the pod serves its ports there, and the node
//     serves its NodePorts only when it is not a Fargate node (kube-proxy
//     answers a NodePort before any pod). The pod is the holder, the node
//     beside it, unless the node serves the port and the pod does not;
//   - a node alone, whose address a hostNetwork pod on it serves the port
//     at (a container port it declares, or a target port of a Service
//     that selects it: what the Service's EndpointSlice lists as
//     nodeIP:port), is held by that pod, the node beside it, unless the
//     port is a NodePort (kube-proxy answers it first).
//
// Anything else is returned as it is.
func (h holding) server(t Target, isIP bool) holding {
	if h.node == nil || !isIP {
		return h
	}
	s := h.snap
	nodePort := !h.node.Fargate && len(s.nodePorts[t.Port]) > 0
	if h.pod != nil {
		if serves, _ := s.podServes(h.pod, t.Port); nodePort && !serves {
			return holding{snap: s, node: h.node}
		}
		return h
	}
	if nodePort {
		return h
	}
	if p := s.hostNetworkServer(h.node.Name, t.Port); p != nil {
		return holding{snap: s, node: h.node, pod: p}
	}
	return h
}

// hostNetworkServer returns the first hostNetwork pod on the node that
// serves port, or nil.
func (s *Snapshot) hostNetworkServer(nodeName string, port int32) *corev1.Pod {
	for _, p := range s.hostNetPods[nodeName] {
		if serves, _ := s.podServes(p, port); serves {
			return p
		}
	}
	return nil
}

// podOnNode is the note of a pod target whose address is its node's too.
func podOnNode(n *NodeRef, p *corev1.Pod, port int32) string {
	if p.Spec.HostNetwork {
		return fmt.Sprintf("the address of node %s, where hostNetwork pod %s/%s serves port %d: the Service's EndpointSlice lists it as a pod endpoint", n.Name, p.Namespace, p.Name, port)
	}
	if n.Fargate {
		return fmt.Sprintf("Fargate node %s's InternalIP is its pod %s/%s's address: the pod serves it, the node serves no NodePort", n.Name, p.Namespace, p.Name)
	}
	return fmt.Sprintf("node %s's address is its pod %s/%s's too: the pod serves port %d", n.Name, p.Namespace, p.Name, port)
}
