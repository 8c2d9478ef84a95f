package lbc

// endpoints.go: the endpoints a binding registers, from EndpointSlices.

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// endpoint is a pod endpoint to register: IP:port, and the pod when the
// EndpointSlice names one.
type endpoint struct {
	ip   string
	port int32
	pod  *corev1.Pod
}

func (e endpoint) id() string { return e.ip + ":" + strconv.Itoa(int(e.port)) }

// gateType is the binding's readiness-gate condition type.
func gateType(tgb *v1beta1.TargetGroupBinding) corev1.PodConditionType {
	return corev1.PodConditionType(ReadinessGatePrefix + tgb.Name)
}

func hasGate(p *corev1.Pod, t corev1.PodConditionType) bool {
	for _, g := range p.Spec.ReadinessGates {
		if g.ConditionType == t {
			return true
		}
	}
	return false
}

func podCondition(p *corev1.Pod, t corev1.PodConditionType) (corev1.PodCondition, bool) {
	for _, c := range p.Status.Conditions {
		if c.Type == t {
			return c, true
		}
	}
	return corev1.PodCondition{}, false
}

// findServicePort returns the Service and the port the binding names: by
// number (the Service port) or by name.
func (c *Controller) findServicePort(ctx context.Context, tgb *v1beta1.TargetGroupBinding) (*corev1.Service, corev1.ServicePort, error) {
	key := types.NamespacedName{Namespace: tgb.Namespace, Name: tgb.Spec.ServiceRef.Name}
	svc := &corev1.Service{}
	if err := c.o.Client.Get(ctx, key, svc); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, corev1.ServicePort{}, fmt.Errorf("%w: service %s not found", ErrBackendNotFound, key)
		}
		return nil, corev1.ServicePort{}, fmt.Errorf("get service %s: %w", key, err)
	}
	ref := tgb.Spec.ServiceRef.Port
	for _, sp := range svc.Spec.Ports {
		if (ref.Type == intstr.Int && sp.Port == ref.IntVal) || (ref.Type == intstr.String && sp.Name == ref.StrVal) {
			return svc, sp, nil
		}
	}
	return nil, corev1.ServicePort{}, fmt.Errorf("%w: unable to find port %s on service %s", ErrBackendNotFound, ref.String(), key)
}

// endpointSlices lists the EndpointSlices of a Service through the
// controller's informer cache: read once, then kept until the watch
// reports a change of one of them (Observe).
func (c *Controller) endpointSlices(ctx context.Context, svc types.NamespacedName) ([]discoveryv1.EndpointSlice, error) {
	if l, ok := c.slices[svc]; ok {
		return l, nil
	}
	var l discoveryv1.EndpointSliceList
	if err := c.o.Client.List(ctx, &l, client.InNamespace(svc.Namespace),
		client.MatchingLabels{discoveryv1.LabelServiceName: svc.Name}); err != nil {
		return nil, fmt.Errorf("list endpointslices: %w", err)
	}
	sort.Slice(l.Items, func(i, j int) bool { return l.Items[i].Name < l.Items[j].Name })
	c.slices[svc] = l.Items
	return l.Items, nil
}

// resolveEndpoints lists the pod endpoints to register, from the Service's
// EndpointSlices, as the LBC's endpoint resolver does
// (pkg/backend/endpoint_resolver.go, resolvePodEndpointsWithEndpointsData):
//
//   - only slices of the binding's address family (IPv4 unless the binding
//     says ipv6; endpointSliceAddressType in
//     pkg/targetgroupbinding/resource_manager.go);
//   - only endpoints whose targetRef is a Pod, found in the controller's pod
//     cache (an endpoint whose pod is not there yet is skipped, not
//     retried: the pod's arrival enqueues the binding);
//   - ready endpoints (Ready unset counts as ready);
//   - not-ready ones whose pod has all containers ready (a pod held back by
//     the readiness gate only): on a Ready node when not terminating, and,
//     on a node whose readiness is Unknown, kept apart for the fail-open
//     rule (the EndpointsFailOpen feature gate, on by default): when no
//     endpoint at all is ready, those are registered.
func (c *Controller) resolveEndpoints(ctx context.Context, tgb *v1beta1.TargetGroupBinding) ([]endpoint, error) {
	_, sp, err := c.findServicePort(ctx, tgb)
	if err != nil {
		return nil, err
	}
	slices, err := c.endpointSlices(ctx, types.NamespacedName{Namespace: tgb.Namespace, Name: tgb.Spec.ServiceRef.Name})
	if err != nil {
		return nil, err
	}
	family := discoveryv1.AddressTypeIPv4
	if tgb.Spec.IPAddressType != nil && *tgb.Spec.IPAddressType == v1beta1.IPAddressTypeIPv6 {
		family = discoveryv1.AddressTypeIPv6
	}
	var ready, unknown []endpoint
	nodeReady := map[string]corev1.ConditionStatus{}
	for _, s := range slices {
		if s.AddressType != family {
			continue
		}
		for _, p := range s.Ports {
			name := ""
			if p.Name != nil {
				name = *p.Name
			}
			if sp.Name != "" && name != sp.Name || p.Port == nil {
				continue
			}
			for _, ep := range s.Endpoints {
				if ep.TargetRef == nil || ep.TargetRef.Kind != "Pod" || len(ep.Addresses) == 0 {
					continue
				}
				ns := tgb.Namespace
				if ep.TargetRef.Namespace != "" {
					ns = ep.TargetRef.Namespace
				}
				podKey := types.NamespacedName{Namespace: ns, Name: ep.TargetRef.Name}
				pod, err := c.getPod(ctx, podKey)
				if err != nil {
					if apierrors.IsNotFound(err) {
						continue
					}
					return nil, fmt.Errorf("get pod %s: %w", podKey, err)
				}
				e := endpoint{ip: ep.Addresses[0], port: *p.Port, pod: pod}
				if ep.Conditions.Ready == nil || *ep.Conditions.Ready {
					ready = append(ready, e)
					continue
				}
				if cr, _ := podCondition(pod, corev1.ContainersReady); cr.Status != corev1.ConditionTrue {
					continue
				}
				st, ok := nodeReady[pod.Spec.NodeName]
				if !ok {
					st = c.nodeReadyStatus(ctx, pod.Spec.NodeName)
					nodeReady[pod.Spec.NodeName] = st
				}
				switch st {
				case corev1.ConditionTrue:
					if ep.Conditions.Terminating == nil || !*ep.Conditions.Terminating {
						ready = append(ready, e)
					}
				case corev1.ConditionUnknown:
					unknown = append(unknown, e)
				}
			}
		}
	}
	eps := ready
	if len(eps) == 0 {
		eps = unknown
	}
	return dedupe(eps), nil
}

// dedupe keeps the first endpoint of each IP:port: the LBC's match is by
// IP:port, so a duplicate (an endpoint in two slices while one is being
// rewritten) would be registered once anyway.
func dedupe(eps []endpoint) []endpoint {
	seen := make(map[string]bool, len(eps))
	out := eps[:0]
	for _, e := range eps {
		if !seen[e.id()] {
			seen[e.id()] = true
			out = append(out, e)
		}
	}
	return out
}

// nodeReadyStatus is the node's Ready condition: False when the node or the
// condition is missing (a node that cannot be read is skipped).
func (c *Controller) nodeReadyStatus(ctx context.Context, name string) corev1.ConditionStatus {
	n, ok := c.nodes[name]
	if !ok {
		n = &corev1.Node{}
		if err := c.o.Client.Get(ctx, types.NamespacedName{Name: name}, n); err != nil {
			return corev1.ConditionFalse
		}
		c.nodes[name] = n
	}
	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			return cond.Status
		}
	}
	return corev1.ConditionFalse
}
