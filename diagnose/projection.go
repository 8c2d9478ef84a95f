package diagnose

// projection.go: what a Snapshot keeps of the objects it lists: the
// fields the snapshot's index, Classify, the analysis and the rules read,
// each kind's slim copy made page by page as the listing arrives
// (internal/read's Projection), and nothing else.

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/qstools/tgmigrate/internal/read"
)

// projection is what [TakeSnapshot] and [Diagnose] keep of each object
// they list. Each function copies exactly the fields diagnose reads; a
// new read of another field must be added here, or it reads a zero value
// (TestProjectionKeepsReports runs the corpus and a realistic cluster
// with and without the projection and requires identical reports).
// TargetGroupBindings are kept whole ([Snapshot.Bindings] returns them).
var projection = read.Projection{Node: slimNode, Pod: slimPod, Service: slimService, Namespace: slimNamespace, NodeClaim: slimNodeClaim}

// pick returns the entries of m under keys, nil when there are none.
func pick(m map[string]string, keys ...string) map[string]string {
	var out map[string]string
	for _, k := range keys {
		if v, ok := m[k]; ok {
			if out == nil {
				out = make(map[string]string, len(keys))
			}
			out[k] = v
		}
	}
	return out
}

// slimNode keeps what nodeRef and the index read: the name, the Karpenter,
// zone, Fargate and exclusion labels, the do-not-disrupt annotation, the deletion
// mark, the provider ID, the cordon, the disruption taints, the pod CIDRs,
// the internal and external addresses and the Ready condition.
func slimNode(n *corev1.Node) corev1.Node {
	out := corev1.Node{}
	out.Name = n.Name
	out.Labels = pick(n.Labels, corev1.LabelTopologyZone, LabelNodePool, LabelCapacityType, LabelExcludeFromLB, LabelComputeType)
	out.Annotations = pick(n.Annotations, AnnotationDoNotDisrupt)
	out.DeletionTimestamp = n.DeletionTimestamp
	out.Spec.ProviderID = n.Spec.ProviderID
	out.Spec.Unschedulable = n.Spec.Unschedulable
	out.Spec.PodCIDR = n.Spec.PodCIDR
	out.Spec.PodCIDRs = n.Spec.PodCIDRs
	for _, t := range n.Spec.Taints {
		if t.Key == TaintDisrupted {
			out.Spec.Taints = append(out.Spec.Taints, corev1.Taint{Key: t.Key})
		}
	}
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP || a.Type == corev1.NodeExternalIP {
			out.Status.Addresses = append(out.Status.Addresses, a)
		}
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			out.Status.Conditions = append(out.Status.Conditions, corev1.NodeCondition{Type: c.Type, Status: c.Status})
		}
	}
	return out
}

// slimPod keeps what the index, Classify, the analysis, the quota overlap
// (lbcRegisters), the readiness probe's choice (internal/kube) and the
// readiness-gate rule read: the name, namespace, labels (Services select
// on any of them) and deletion mark; the node, hostNetwork and readiness
// gates; of each container its ports (name, number, host port) and its
// HTTP readiness probe (path, port, scheme), and only the containers with
// one of them, in order; the phase, the pod IPs, and the Ready and
// ContainersReady conditions.
func slimPod(p *corev1.Pod) corev1.Pod {
	out := corev1.Pod{}
	out.Name, out.Namespace, out.Labels, out.DeletionTimestamp = p.Name, p.Namespace, p.Labels, p.DeletionTimestamp
	out.Spec.NodeName, out.Spec.HostNetwork, out.Spec.ReadinessGates = p.Spec.NodeName, p.Spec.HostNetwork, p.Spec.ReadinessGates
	for _, c := range p.Spec.Containers {
		var kept corev1.Container
		for _, cp := range c.Ports {
			kept.Ports = append(kept.Ports, corev1.ContainerPort{Name: cp.Name, ContainerPort: cp.ContainerPort, HostPort: cp.HostPort})
		}
		if rp := c.ReadinessProbe; rp != nil && rp.HTTPGet != nil {
			kept.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
				Path: rp.HTTPGet.Path, Port: rp.HTTPGet.Port, Scheme: rp.HTTPGet.Scheme}}}
		}
		if kept.Ports != nil || kept.ReadinessProbe != nil {
			out.Spec.Containers = append(out.Spec.Containers, kept)
		}
	}
	out.Status.Phase, out.Status.PodIP, out.Status.PodIPs = p.Status.Phase, p.Status.PodIP, p.Status.PodIPs
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady || c.Type == corev1.ContainersReady {
			out.Status.Conditions = append(out.Status.Conditions, corev1.PodCondition{Type: c.Type, Status: c.Status})
		}
	}
	return out
}

// slimService keeps the name, namespace, selector and, of each port, its
// name, number, target port and NodePort.
func slimService(s *corev1.Service) corev1.Service {
	out := corev1.Service{}
	out.Name, out.Namespace, out.Spec.Selector = s.Name, s.Namespace, s.Spec.Selector
	for _, sp := range s.Spec.Ports {
		out.Spec.Ports = append(out.Spec.Ports, corev1.ServicePort{Name: sp.Name, Port: sp.Port, TargetPort: sp.TargetPort, NodePort: sp.NodePort})
	}
	return out
}

// slimNamespace keeps the name and the readiness-gate label.
func slimNamespace(ns *corev1.Namespace) corev1.Namespace {
	out := corev1.Namespace{}
	out.Name, out.Labels = ns.Name, pick(ns.Labels, LabelReadinessGateInject)
	return out
}

// slimNodeClaim keeps what applyNodeClaim and the index read: the kind,
// name, creation time and node pool label; spec.expireAfter and
// spec.terminationGracePeriod; status.nodeName, status.providerID, and
// the type and status of each condition. Values are kept as listed
// (JSON's types), never converted.
func slimNodeClaim(nc *unstructured.Unstructured) unstructured.Unstructured {
	obj := map[string]any{}
	keep := func(dst, src map[string]any, keys ...string) {
		for _, k := range keys {
			if v, ok := src[k]; ok {
				dst[k] = v
			}
		}
	}
	keep(obj, nc.Object, "apiVersion", "kind")
	if m, ok := nc.Object["metadata"].(map[string]any); ok {
		meta := map[string]any{}
		keep(meta, m, "name", "creationTimestamp")
		if l, ok := m["labels"].(map[string]any); ok {
			labels := map[string]any{}
			keep(labels, l, LabelNodePool)
			meta["labels"] = labels
		}
		obj["metadata"] = meta
	}
	if m, ok := nc.Object["spec"].(map[string]any); ok {
		spec := map[string]any{}
		keep(spec, m, "expireAfter", "terminationGracePeriod")
		obj["spec"] = spec
	}
	if m, ok := nc.Object["status"].(map[string]any); ok {
		status := map[string]any{}
		keep(status, m, "nodeName", "providerID")
		if conds, ok := m["conditions"].([]any); ok {
			kept := make([]any, 0, len(conds))
			for _, c := range conds {
				if cm, ok := c.(map[string]any); ok {
					k := map[string]any{}
					keep(k, cm, "type", "status")
					kept = append(kept, k)
				}
			}
			status["conditions"] = kept
		}
		obj["status"] = status
	}
	return unstructured.Unstructured{Object: obj}
}
