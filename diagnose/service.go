package diagnose

// This file finds the Service a target group serves (from a binding, the
// LBC's tags, the node targets' NodePort, or the pod targets' Services)
// and resolves its ports: the Service port, and its targetPort on the pods.

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate"
)

// serviceTarget is the Service a target group serves, resolved in one cluster.
type serviceTarget struct {
	snap *Snapshot
	svc  *corev1.Service     // nil when the Service does not exist
	port *corev1.ServicePort // nil when the port does not exist
	ref  ServiceRef
}

// inferService finds the Service the target group serves: from a binding,
// else from the LBC's tags, else from the NodePort the node targets (and
// ghosts) use, else from the Services that select the pod targets.
func (a *analysis) inferService() {
	if len(a.bindings) > 0 {
		b := a.bindings[0]
		st := &serviceTarget{snap: b.snap, ref: ServiceRef{
			Cluster: b.snap.cluster.Name, Namespace: b.tgb.Namespace, Name: b.tgb.Spec.ServiceRef.Name, Source: ServiceFromBinding,
		}}
		st.svc = b.snap.services[b.tgb.Namespace+"/"+b.tgb.Spec.ServiceRef.Name]
		if st.svc != nil {
			want := b.tgb.Spec.ServiceRef.Port
			for i := range st.svc.Spec.Ports {
				sp := &st.svc.Spec.Ports[i]
				if (want.Type == intstr.String && sp.Name == want.StrVal) || (want.Type == intstr.Int && sp.Port == want.IntVal) {
					st.port = sp
				}
			}
		}
		a.setService(st)
		return
	}
	if st := a.serviceFromTags(); st != nil {
		a.setService(st)
		return
	}
	votes := map[string]int{} // cluster \x00 ns/name \x00 port -> targets
	byNodePort := true
	for _, t := range a.rep.Targets {
		if t.Class != ClassNode && t.Class != ClassGhost {
			continue
		}
		for _, svc := range t.Services {
			votes[t.Cluster+"\x00"+svc+"\x00"+strconv.Itoa(int(t.Port))]++
		}
	}
	if len(votes) == 0 {
		byNodePort = false
		for _, t := range a.rep.Targets {
			if t.Class != ClassPod {
				continue
			}
			for _, svc := range t.Services {
				votes[t.Cluster+"\x00"+svc+"\x00"+strconv.Itoa(int(t.Port))]++
			}
		}
	}
	if len(votes) == 0 {
		return
	}
	best := ""
	for _, k := range slices.Sorted(maps.Keys(votes)) {
		if best == "" || votes[k] > votes[best] {
			best = k
		}
	}
	parts := strings.Split(best, "\x00")
	snap := a.snapshot(parts[0])
	port, _ := strconv.Atoi(parts[2])
	svc := snap.services[parts[1]]
	st := &serviceTarget{snap: snap, svc: svc, ref: ServiceRef{Cluster: parts[0], Namespace: svc.Namespace, Name: svc.Name}}
	for i := range svc.Spec.Ports {
		sp := &svc.Spec.Ports[i]
		if byNodePort && sp.NodePort == int32(port) {
			st.port, st.ref.Source = sp, ServiceFromNodePort
		}
		if !byNodePort && st.port == nil {
			if tp, ok := a.resolveTargetPort(snap, svc, sp); ok && tp == int32(port) {
				st.port, st.ref.Source = sp, ServiceFromPods
			}
		}
	}
	if st.ref.Source == "" {
		st.ref.Source = ServiceFromPods
	}
	a.setService(st)
}

// serviceFromTags reads the Service from the tags the LBC puts on the
// target groups it creates, when the elbv2.k8s.aws/cluster tag names a
// scanned cluster that was read, and the Service exists there:
//   - service.k8s.aws/resource is "namespace/name:port", the Service and
//     its port number;
//   - ingress.k8s.aws/resource is "namespace/ingress-service:port", the
//     Ingress, its backend Service and the backend's port (number or
//     name). Ingress and Service names both hold dashes, so the Service is
//     the one Service of the namespace whose name ends the middle part
//     after a dash and that has the port; none or several give nothing;
//   - service.k8s.aws/stack alone is "namespace/name", the Service without
//     its port.
func (a *analysis) serviceFromTags() *serviceTarget {
	snap := a.snapshot(a.tags[TagCluster])
	if snap == nil || !snap.listed(ListServices) {
		return nil
	}
	var svc *corev1.Service
	var port string
	switch {
	case a.tags[TagServiceSource] != "":
		key, p, ok := strings.Cut(a.tags[TagServiceSource], ":")
		if !ok {
			return nil
		}
		svc, port = snap.services[key], p
	case a.tags[TagIngressSource] != "":
		ns, rest, ok := strings.Cut(a.tags[TagIngressSource], "/")
		i := strings.LastIndex(rest, ":")
		if !ok || i < 0 {
			return nil
		}
		middle, p := rest[:i], rest[i+1:]
		var found []*corev1.Service
		for _, s := range snap.servicesByNS[ns] {
			if len(middle) > len(s.Name)+1 && strings.HasSuffix(middle, "-"+s.Name) && servicePort(s, p) != nil {
				found = append(found, s)
			}
		}
		if len(found) != 1 {
			return nil
		}
		svc, port = found[0], p
	default:
		svc = snap.services[a.tags[TagServiceStack]]
	}
	if svc == nil {
		return nil
	}
	return &serviceTarget{snap: snap, svc: svc, port: servicePort(svc, port),
		ref: ServiceRef{Cluster: snap.cluster.Name, Namespace: svc.Namespace, Name: svc.Name, Source: ServiceFromTags}}
}

// servicePort finds a Service port by number or by name; nil when there is
// none, or when port is empty.
func servicePort(svc *corev1.Service, port string) *corev1.ServicePort {
	if port == "" {
		return nil
	}
	n, err := strconv.ParseInt(port, 10, 32)
	for i := range svc.Spec.Ports {
		sp := &svc.Spec.Ports[i]
		if (err == nil && int64(sp.Port) == n) || (err != nil && sp.Name == port) {
			return sp
		}
	}
	return nil
}

func (a *analysis) setService(st *serviceTarget) {
	st.ref.Found = st.svc != nil
	if st.port != nil {
		p := tgmigrate.ServicePortOf(st.svc, st.port)
		st.ref.Port, st.ref.PortName, st.ref.TargetPort, st.ref.NodePort = p.Port, p.PortName, p.TargetPort, p.NodePort
		if tp, ok := a.resolveTargetPort(st.snap, st.svc, st.port); ok {
			st.ref.ResolvedTargetPort = tp
		}
	}
	a.service = st
	ref := st.ref
	a.rep.Service = &ref
}

// resolveTargetPort resolves a Service port's targetPort to a container
// port: a number is itself (0 means the Service port); a name is looked up
// on the Service's pods, and the most common answer wins.
func (a *analysis) resolveTargetPort(s *Snapshot, svc *corev1.Service, sp *corev1.ServicePort) (int32, bool) {
	if sp.TargetPort.Type == intstr.Int {
		return targetPortOn(&corev1.Pod{}, *sp) // a number needs no pod
	}
	votes := map[int32]int{}
	for _, p := range s.podsOfService(svc) {
		if tp, ok := targetPortOn(p, *sp); ok {
			votes[tp]++
		}
	}
	var best int32
	for _, port := range slices.Sorted(maps.Keys(votes)) {
		if best == 0 || votes[port] > votes[best] {
			best = port
		}
	}
	return best, best != 0
}
