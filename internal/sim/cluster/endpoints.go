package cluster

// endpoints.go: Services, their EndpointSlices, and kube-proxy's NodePort
// table.

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// EndpointSlice labels, as the EndpointSlice controller sets them.
const (
	managedByController  = "endpointslice-controller.k8s.io"
	maxEndpointsPerSlice = 100
	nodePortMin          = 30000
	nodePortMax          = 32767
)

// svcPortRef names one port of a Service.
type svcPortRef struct {
	svc  svcKey
	port string // the ServicePort's name ("" for an unnamed single port)
}

// proxyEndpoint is one backend in kube-proxy's rules.
type proxyEndpoint struct {
	p                           *pod
	port                        int32
	ready, serving, terminating bool
}

// proxyTable is kube-proxy's view of one Service port.
type proxyTable struct {
	eps []proxyEndpoint
	rr  int
}

// labelsOf adapts a label map to labels.Labels.
func labelsOf(m map[string]string) labels.Labels { return labels.Set(m) }

// AddService creates a Service and starts keeping its EndpointSlices and
// kube-proxy rules. A NodePort Service without a nodePort gets the lowest
// free one from 30000-32767 (the fake client allocates none); a ClusterIP
// is left to the API server. The Service must select pods (spec.selector).
func (cl *Cluster) AddService(ctx context.Context, svc *corev1.Service) error {
	bad := func(field, reason string) error {
		return &ConfigError{Op: "add service", Field: field, Reason: reason}
	}
	if svc == nil || svc.Name == "" || svc.Namespace == "" {
		return bad("metadata", "namespace and name are required")
	}
	if len(svc.Spec.Selector) == 0 {
		return bad("spec.selector", "is required: the cluster models selector Services only")
	}
	if len(svc.Spec.Ports) == 0 {
		return bad("spec.ports", "is empty")
	}
	switch svc.Spec.Type {
	case "", corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort:
	default:
		return bad("spec.type", fmt.Sprintf("%s is not modelled (ClusterIP and NodePort are)", svc.Spec.Type))
	}
	if svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal {
		return bad("spec.externalTrafficPolicy", "Local is not modelled (Cluster is)")
	}
	svc = svc.DeepCopy()
	used := map[int32]bool{}
	for np := range cl.nodePorts {
		used[np] = true
	}
	for i := range svc.Spec.Ports {
		sp := &svc.Spec.Ports[i]
		if sp.Port < 1 || sp.Port > 65535 {
			return bad(fmt.Sprintf("spec.ports[%d].port", i), fmt.Sprintf("%d is not a port", sp.Port))
		}
		if len(svc.Spec.Ports) > 1 && sp.Name == "" {
			return bad(fmt.Sprintf("spec.ports[%d].name", i), "is required when there are several ports")
		}
		if svc.Spec.Type != corev1.ServiceTypeNodePort {
			if sp.NodePort != 0 {
				return bad(fmt.Sprintf("spec.ports[%d].nodePort", i), "is set on a ClusterIP Service")
			}
			continue
		}
		if sp.NodePort == 0 {
			for np := int32(nodePortMin); np <= nodePortMax; np++ {
				if !used[np] {
					sp.NodePort = np
					break
				}
			}
			if sp.NodePort == 0 {
				return fmt.Errorf("cluster: add service %s/%s: node ports: %w", svc.Namespace, svc.Name, ErrExhausted)
			}
		}
		if sp.NodePort < nodePortMin || sp.NodePort > nodePortMax {
			return bad(fmt.Sprintf("spec.ports[%d].nodePort", i), fmt.Sprintf("%d is outside %d-%d", sp.NodePort, nodePortMin, nodePortMax))
		}
		if used[sp.NodePort] {
			return bad(fmt.Sprintf("spec.ports[%d].nodePort", i), fmt.Sprintf("%d is taken", sp.NodePort))
		}
		used[sp.NodePort] = true
	}
	ctx = WithOrigin(ctx, Origin)
	if err := cl.c.Create(ctx, svc); err != nil {
		return fmt.Errorf("cluster: create service %s/%s: %w", svc.Namespace, svc.Name, err)
	}
	cl.loadService(ctx, client.ObjectKeyFromObject(svc))
	cl.event("ServiceCreated", "service/"+svc.Namespace+"/"+svc.Name, "%s%s", svc.Spec.Type, nodePortsNote(svc))
	return nil
}

func nodePortsNote(svc *corev1.Service) string {
	var b strings.Builder
	for _, p := range svc.Spec.Ports {
		fmt.Fprintf(&b, " port %d->%s", p.Port, p.TargetPort.String())
		if p.NodePort != 0 {
			fmt.Fprintf(&b, " nodePort %d", p.NodePort)
		}
	}
	return b.String()
}

// loadService reads a Service from the API into the model, as the
// EndpointSlice controller's and kube-proxy's informers would.
func (cl *Cluster) loadService(ctx context.Context, key svcKey) {
	obj := &corev1.Service{}
	err := cl.c.Get(ctx, key, obj)
	if err != nil && !apierrors.IsNotFound(err) {
		cl.event("Error", "service/"+key.String(), "get: %v", err)
		return
	}
	old := cl.services[key]
	for np, ref := range cl.nodePorts {
		if ref.svc == key {
			delete(cl.nodePorts, np)
		}
	}
	for ref := range cl.proxy {
		if ref.svc == key {
			delete(cl.proxy, ref)
		}
	}
	if apierrors.IsNotFound(err) || !obj.DeletionTimestamp.IsZero() {
		if old != nil {
			delete(cl.services, key)
			cl.deleteSlices(ctx, old, 0)
		}
		return
	}
	s := &service{key: key, uid: obj.UID, typ: obj.Spec.Type, ports: obj.Spec.Ports}
	if len(obj.Spec.Selector) > 0 {
		s.selector = labels.SelectorFromSet(obj.Spec.Selector)
	}
	if old != nil {
		s.slices = old.slices
	}
	cl.services[key] = s
	if s.typ == corev1.ServiceTypeNodePort {
		for _, p := range s.ports {
			if p.NodePort != 0 {
				cl.nodePorts[p.NodePort] = svcPortRef{svc: key, port: p.Name}
			}
		}
	}
	cl.syncEndpoints(key)
}

// requestEndpointSync asks the EndpointSlice controller to sync a Service
// after EndpointDelay; requests for the same Service coalesce.
func (cl *Cluster) requestEndpointSync(key svcKey) {
	if cl.endpointSyncs[key] {
		return
	}
	cl.endpointSyncs[key] = true
	cl.clock.AfterEvent(cl.o.EndpointDelay, "endpointslices "+key.String(), func(time.Time) {
		delete(cl.endpointSyncs, key)
		cl.syncEndpoints(key)
	})
}

type endpointEntry struct {
	ep    discoveryv1.Endpoint
	ports []discoveryv1.EndpointPort
	p     *pod
}

// syncEndpoints writes a Service's EndpointSlices from the pods it selects,
// as the EndpointSlice controller does (terminating endpoints included,
// with serving and terminating conditions), then has kube-proxy program
// them after ProxyDelay.
func (cl *Cluster) syncEndpoints(key svcKey) {
	s := cl.services[key]
	if s == nil || s.selector == nil {
		return
	}
	var entries []endpointEntry
	for _, p := range cl.sortedPods() {
		if p.key.Namespace != key.Namespace || p.ip == "" || !s.selector.Matches(labelsOf(p.labels)) {
			continue
		}
		terminating := p.phase == podTerminating
		ready := p.ready()
		e := endpointEntry{p: p, ep: discoveryv1.Endpoint{
			Addresses: []string{p.ip},
			Conditions: discoveryv1.EndpointConditions{
				Ready:       ptr.To(ready && !terminating),
				Serving:     ptr.To(ready),
				Terminating: ptr.To(terminating),
			},
			NodeName:  ptr.To(p.node.name),
			Zone:      ptr.To(p.node.zone),
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: p.key.Namespace, Name: p.key.Name, UID: p.uid},
		}}
		for _, sp := range s.ports {
			tp, ok := targetPort(sp, p)
			if !ok {
				continue
			}
			proto := sp.Protocol
			if proto == "" {
				proto = corev1.ProtocolTCP
			}
			e.ports = append(e.ports, discoveryv1.EndpointPort{Name: ptr.To(sp.Name), Port: ptr.To(tp), Protocol: ptr.To(proto)})
		}
		entries = append(entries, e)
	}
	fp := fingerprint(entries)
	if fp == s.written {
		return
	}
	if err := cl.writeSlices(cl.ctx(), s, entries); err != nil {
		cl.event("Error", "service/"+key.String(), "endpointslices: %v", err)
		return
	}
	s.written = fp
	cl.program(s, entries)
}

func targetPort(sp corev1.ServicePort, p *pod) (int32, bool) {
	switch {
	case sp.TargetPort.Type == 0 && sp.TargetPort.IntVal == 0:
		return sp.Port, true
	case sp.TargetPort.Type == 0:
		return sp.TargetPort.IntVal, true
	case sp.TargetPort.StrVal == p.w.spec.PortName:
		return p.w.spec.ContainerPort, true
	}
	return 0, false
}

func fingerprint(entries []endpointEntry) string {
	var b strings.Builder
	for _, e := range entries {
		c := e.ep.Conditions
		fmt.Fprintf(&b, "%s|%s|%t%t%t|", e.p.key.Name, e.ep.Addresses[0], *c.Ready, *c.Serving, *c.Terminating)
		for _, p := range e.ports {
			fmt.Fprintf(&b, "%s:%d,", *p.Name, *p.Port)
		}
		b.WriteByte(';')
	}
	return b.String()
}

// portsKey groups endpoints by their port set, as slices do.
func portsKey(ps []discoveryv1.EndpointPort) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%s:%d/%s,", *p.Name, *p.Port, *p.Protocol)
	}
	return b.String()
}

func (cl *Cluster) writeSlices(ctx context.Context, s *service, entries []endpointEntry) error {
	groups := map[string][]endpointEntry{}
	var order []string
	for _, e := range entries {
		k := portsKey(e.ports)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], e)
	}
	sort.Strings(order)
	type sliceData struct {
		ports []discoveryv1.EndpointPort
		eps   []discoveryv1.Endpoint
	}
	var want []sliceData
	for _, k := range order {
		g := groups[k]
		for i := 0; i < len(g); i += maxEndpointsPerSlice {
			chunk := g[i:min(i+maxEndpointsPerSlice, len(g))]
			sd := sliceData{ports: chunk[0].ports}
			for _, e := range chunk {
				sd.eps = append(sd.eps, e.ep)
			}
			want = append(want, sd)
		}
	}
	if len(want) == 0 {
		// A Service with no endpoints keeps one empty slice.
		want = append(want, sliceData{})
	}
	for i, sd := range want {
		if i == len(s.slices) {
			s.slices = append(s.slices, s.key.Name+"-"+cl.suffix(5))
		}
		obj := &discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{
				Name: s.slices[i], Namespace: s.key.Namespace,
				Labels: map[string]string{
					discoveryv1.LabelServiceName: s.key.Name,
					discoveryv1.LabelManagedBy:   managedByController,
				},
			},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints:   sd.eps,
			Ports:       sd.ports,
		}
		if s.uid != "" {
			obj.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Service", Name: s.key.Name, UID: s.uid, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}
		}
		cur := &discoveryv1.EndpointSlice{}
		err := cl.c.Get(ctx, client.ObjectKeyFromObject(obj), cur)
		switch {
		case apierrors.IsNotFound(err):
			if err := cl.c.Create(ctx, obj); err != nil {
				return fmt.Errorf("create endpointslice %s: %w", obj.Name, err)
			}
		case err != nil:
			return fmt.Errorf("get endpointslice %s: %w", obj.Name, err)
		default:
			obj.ResourceVersion = cur.ResourceVersion
			if err := cl.c.Update(ctx, obj); err != nil {
				return fmt.Errorf("update endpointslice %s: %w", obj.Name, err)
			}
		}
	}
	cl.deleteSlices(ctx, s, len(want))
	return nil
}

// deleteSlices deletes the Service's slices from index keep on.
func (cl *Cluster) deleteSlices(ctx context.Context, s *service, keep int) {
	for _, name := range s.slices[keep:] {
		obj := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: s.key.Namespace}}
		if err := cl.c.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
			cl.event("Error", "endpointslice/"+s.key.Namespace+"/"+name, "delete: %v", err)
		}
	}
	s.slices = s.slices[:keep]
}

// program has kube-proxy apply the endpoints to every node's rules after
// ProxyDelay.
func (cl *Cluster) program(s *service, entries []endpointEntry) {
	tables := map[svcPortRef][]proxyEndpoint{}
	for _, sp := range s.ports {
		ref := svcPortRef{svc: s.key, port: sp.Name}
		tables[ref] = []proxyEndpoint{}
		for _, e := range entries {
			for _, ep := range e.ports {
				if *ep.Name == sp.Name {
					c := e.ep.Conditions
					tables[ref] = append(tables[ref], proxyEndpoint{p: e.p, port: *ep.Port, ready: *c.Ready, serving: *c.Serving, terminating: *c.Terminating})
				}
			}
		}
	}
	apply := func() {
		if cl.services[s.key] != s {
			return
		}
		for ref, eps := range tables {
			t := cl.proxy[ref]
			if t == nil {
				t = &proxyTable{}
				cl.proxy[ref] = t
			}
			t.eps = eps
		}
	}
	if cl.o.ProxyDelay == 0 {
		apply()
		return
	}
	cl.clock.AfterEvent(cl.o.ProxyDelay, "kube-proxy "+s.key.String(), func(time.Time) { apply() })
}

// pick chooses a backend as kube-proxy does for externalTrafficPolicy
// Cluster: the ready endpoints; if there are none, the serving terminating
// ones. It goes round-robin (iptables picks at random; round-robin keeps
// the run reproducible without drawing from the random stream).
func (t *proxyTable) pick() (proxyEndpoint, bool) {
	for _, want := range []func(proxyEndpoint) bool{
		func(e proxyEndpoint) bool { return e.ready },
		func(e proxyEndpoint) bool { return e.serving && e.terminating },
	} {
		n := 0
		for _, e := range t.eps {
			if want(e) {
				n++
			}
		}
		if n == 0 {
			continue
		}
		t.rr++
		k := t.rr % n
		for _, e := range t.eps {
			if want(e) {
				if k == 0 {
					return e, true
				}
				k--
			}
		}
	}
	return proxyEndpoint{}, false
}
