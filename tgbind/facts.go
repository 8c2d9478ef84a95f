package tgbind

// This file reads the world: the target group and its targets from AWS, the
// Service and its EndpointSlices, the bindings and the nodes from the
// cluster. Nothing here writes.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/kube"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// endpoint is one ready endpoint address and the container port it serves
// the Service port on.
type endpoint struct {
	ip   string // canonical form (netip), or the raw ID when it is not an IP
	port int32
}

func (e endpoint) key() string { return hostPort(e.ip, e.port) }

func hostPort(ip string, port int32) string {
	return net.JoinHostPort(ip, strconv.Itoa(int(port)))
}

// canonicalIP returns the canonical text of an IP address, so that AWS's and
// Kubernetes's spellings of an IPv6 address compare equal. Anything that is
// not an IP (an instance ID) is returned as it is.
func canonicalIP(s string) string {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().String()
	}
	return s
}

// describeTargetGroup returns the target group, or nil when AWS does not
// know it (the error then unwraps to awserr.ErrNotFound).
func (b *Binder) describeTargetGroup(ctx context.Context, arn string) (*elbv2types.TargetGroup, error) {
	out, err := b.elb.DescribeTargetGroups(ctx, &elbv2.DescribeTargetGroupsInput{TargetGroupArns: []string{arn}})
	if err := awserr.Answered(out, err); err != nil {
		return nil, awserr.Classify("DescribeTargetGroups", arn, err)
	}
	for i := range out.TargetGroups {
		if aws.ToString(out.TargetGroups[i].TargetGroupArn) == arn {
			return &out.TargetGroups[i], nil
		}
	}
	return nil, &awserr.Error{Op: "DescribeTargetGroups", Resource: arn, Kind: awserr.ErrNotFound,
		Err: errors.New("not in the response")}
}

// targetHealth returns every registered target of the target group.
func (b *Binder) targetHealth(ctx context.Context, arn string) ([]elbv2types.TargetHealthDescription, error) {
	out, err := b.elb.DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(arn)})
	if err := awserr.Answered(out, err); err != nil {
		return nil, awserr.Classify("DescribeTargetHealth", arn, err)
	}
	return out.TargetHealthDescriptions, nil
}

// loadBalancerBatch is how many ARNs one DescribeLoadBalancers call carries
// (the API's maximum).
const loadBalancerBatch = 20

// loadBalancers describes the load balancers that forward to the target
// group, sorted by ARN, with their security groups.
func (b *Binder) loadBalancers(ctx context.Context, tg *elbv2types.TargetGroup) ([]LoadBalancerInfo, error) {
	arns := slices.Compact(slices.Sorted(slices.Values(tg.LoadBalancerArns)))
	var out []LoadBalancerInfo
	for batch := range slices.Chunk(arns, loadBalancerBatch) {
		res, err := b.elb.DescribeLoadBalancers(ctx, &elbv2.DescribeLoadBalancersInput{LoadBalancerArns: batch})
		if err := awserr.Answered(res, err); err != nil {
			return nil, awserr.Classify("DescribeLoadBalancers", batch[0], err)
		}
		for _, lb := range res.LoadBalancers {
			groups := slices.Compact(slices.Sorted(slices.Values(lb.SecurityGroups)))
			out = append(out, LoadBalancerInfo{
				ARN: aws.ToString(lb.LoadBalancerArn), Name: aws.ToString(lb.LoadBalancerName),
				Type: string(lb.Type), SecurityGroups: groups,
			})
		}
	}
	slices.SortFunc(out, func(a, b LoadBalancerInfo) int { return cmp.Compare(a.ARN, b.ARN) })
	return out, nil
}

// service returns the Service, or nil when it does not exist
// ([kube.Service]).
func (b *Binder) service(ctx context.Context, namespace, name string) (*corev1.Service, error) {
	return kube.Service(ctx, b.reader, namespace, name)
}

// findPort finds the Service port by name or number. The zero IntOrString
// means the Service's only port ([kube.ServicePort]). It returns nil and a
// reason, in tgbind's words, when there is no such port.
func findPort(svc *corev1.Service, port intstr.IntOrString) (*corev1.ServicePort, string) {
	if p := kube.ServicePort(svc, port); p != nil {
		return p, ""
	}
	ports := svc.Spec.Ports
	if isZeroPort(port) {
		return nil, fmt.Sprintf("no port given and the Service has %d ports (%s): name one", len(ports), listPorts(ports))
	}
	return nil, fmt.Sprintf("the Service's ports are %s", listPorts(ports))
}

// isZeroPort is [kube.IsZeroPort]: the zero port names no port.
func isZeroPort(p intstr.IntOrString) bool { return kube.IsZeroPort(p) }

// listPorts lists the ports as tgbind's messages name them: "name=port, port",
// or "none".
func listPorts(ports []corev1.ServicePort) string {
	if len(ports) == 0 {
		return "none"
	}
	return strings.Join(kube.PortLabels(ports), ", ")
}

// targetPortString is the Service port's targetPort, defaulted to the port
// as the API server does.
func targetPortString(p *corev1.ServicePort) string {
	return tgmigrate.ServicePortOf(nil, p).TargetPort
}

// readyEndpoints lists the ready endpoints of the Service port from its
// EndpointSlices. The container port is resolved per slice: the
// EndpointSlice controller puts the targetPort, resolved for the slice's
// pods, in the slice port that bears the Service port's name. Only slices of
// the target group's address family count. The result is sorted and unique.
func (b *Binder) readyEndpoints(ctx context.Context, namespace, service string, sp *corev1.ServicePort, family discoveryv1.AddressType) ([]endpoint, error) {
	var list discoveryv1.EndpointSliceList
	if err := b.reader.List(ctx, &list, client.InNamespace(namespace),
		client.MatchingLabels{discoveryv1.LabelServiceName: service}); err != nil {
		return nil, fmt.Errorf("list endpointslices of %s/%s: %w", namespace, service, err)
	}
	seen := map[string]bool{}
	var out []endpoint
	for _, s := range list.Items {
		if s.AddressType != family {
			continue
		}
		port, ok := slicePort(s.Ports, sp.Name)
		if !ok {
			continue
		}
		for _, ep := range s.Endpoints {
			if ep.Conditions.Ready != nil && !*ep.Conditions.Ready {
				continue
			}
			for _, addr := range ep.Addresses {
				e := endpoint{ip: canonicalIP(addr), port: port}
				if !seen[e.key()] {
					seen[e.key()] = true
					out = append(out, e)
				}
			}
		}
	}
	slices.SortFunc(out, compareEndpoints)
	return out, nil
}

func compareEndpoints(a, b endpoint) int {
	return cmp.Or(cmp.Compare(a.ip, b.ip), cmp.Compare(a.port, b.port))
}

func slicePort(ports []discoveryv1.EndpointPort, name string) (int32, bool) {
	for _, p := range ports {
		if p.Port != nil && ptrString(p.Name) == name {
			return *p.Port, true
		}
	}
	return 0, false
}

func ptrString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func podPorts(eps []endpoint) []int32 {
	var out []int32
	for _, e := range eps {
		if !slices.Contains(out, e.port) {
			out = append(out, e.port)
		}
	}
	slices.Sort(out)
	return out
}

// addressFamily maps the target group's IP address type onto an
// EndpointSlice address type. IPv4 is the default.
func addressFamily(tg *elbv2types.TargetGroup) discoveryv1.AddressType {
	if tg != nil && tg.IpAddressType == elbv2types.TargetGroupIpAddressTypeEnumIpv6 {
		return discoveryv1.AddressTypeIPv6
	}
	return discoveryv1.AddressTypeIPv4
}

// errNoCRD says that listing bindings failed because the API server does not
// know the kind.
var errNoCRD = errors.New("targetgroupbinding kind unknown to the api server")

// bindings lists the TargetGroupBindings in every namespace.
func (b *Binder) bindings(ctx context.Context) ([]v1beta1.TargetGroupBinding, error) {
	var list v1beta1.TargetGroupBindingList
	err := b.reader.List(ctx, &list)
	switch {
	case meta.IsNoMatchError(err):
		return nil, errNoCRD
	case err != nil:
		return nil, fmt.Errorf("list targetgroupbindings: %w", err)
	}
	return list.Items, nil
}

// sameARN splits the bindings on arn into the one named key and the others.
// parsed is arn as checkARN parsed it, the zero ARN when it is malformed. A
// binding references the target group by its targetGroupARN or, when it has
// no ARN, by a targetGroupName equal to the name in arn (the LBC's webhook
// resolves that name to the same target group). diagnose matches bindings
// the same way.
func sameARN(all []v1beta1.TargetGroupBinding, arn string, parsed awserr.ARN, key types.NamespacedName) (self *v1beta1.TargetGroupBinding, others []v1beta1.TargetGroupBinding) {
	name := parsed.Name
	for i := range all {
		t := &all[i]
		if t.Namespace == key.Namespace && t.Name == key.Name {
			self = t
			continue
		}
		if referencesTargetGroup(t, arn, name) {
			others = append(others, *t)
		}
	}
	return self, others
}

// referencesTargetGroup reports whether the binding names the target group
// of arn, whose name is name ("" when arn is malformed).
func referencesTargetGroup(t *v1beta1.TargetGroupBinding, arn, name string) bool {
	if t.Spec.TargetGroupARN != "" {
		return t.Spec.TargetGroupARN == arn
	}
	return name != "" && t.Spec.TargetGroupName == name
}

// clusterVPC returns the VPC of the cluster's nodes and where it came from,
// or "" when it is not known.
func (b *Binder) clusterVPC(ctx context.Context) (vpc, source string, err error) {
	if b.clusterVPCID != "" {
		return b.clusterVPCID, "Options.ClusterVPCID", nil
	}
	if b.nodeVPCLabel == "" {
		return "", "", nil
	}
	var nodes corev1.NodeList
	if err := b.reader.List(ctx, &nodes, client.HasLabels{b.nodeVPCLabel}); err != nil {
		return "", "", fmt.Errorf("list nodes with label %s: %w", b.nodeVPCLabel, err)
	}
	vpcs := map[string]bool{}
	for _, n := range nodes.Items {
		vpcs[n.Labels[b.nodeVPCLabel]] = true
	}
	switch len(vpcs) {
	case 0:
		return "", fmt.Sprintf("no node carries label %s", b.nodeVPCLabel), nil
	case 1:
		for v := range vpcs {
			return v, fmt.Sprintf("node label %s", b.nodeVPCLabel), nil
		}
	}
	return "", fmt.Sprintf("nodes disagree on label %s", b.nodeVPCLabel), nil
}

// compare builds the TargetState of the ready endpoints against the
// registered targets.
func compare(ready []endpoint, targets []elbv2types.TargetHealthDescription) *TargetState {
	st := &TargetState{Version: TargetStateVersion, Total: len(ready)}
	registered := map[string]EndpointTarget{}
	for _, d := range targets {
		t, ok := tgmigrate.TargetOf(d)
		if !ok {
			continue
		}
		et := EndpointTarget{IP: canonicalIP(t.ID), Port: t.Port, State: t.State, Reason: t.Reason}
		registered[hostPort(et.IP, et.Port)] = et
	}
	isReady := map[string]bool{}
	for _, e := range ready {
		isReady[e.key()] = true
		et, ok := registered[e.key()]
		if !ok {
			et = EndpointTarget{IP: e.ip, Port: e.port}
			st.addReason(ReasonNotRegistered)
		} else {
			st.Registered++
			if et.State == string(elbv2types.TargetHealthStateEnumHealthy) {
				st.Healthy++
			} else {
				st.addReason(cmp.Or(et.Reason, et.State))
			}
		}
		st.Endpoints = append(st.Endpoints, et)
	}
	for k, et := range registered {
		if isReady[k] {
			continue
		}
		st.Others = append(st.Others, et)
		if et.State == string(elbv2types.TargetHealthStateEnumHealthy) {
			st.OthersHealthy++
		}
	}
	slices.SortFunc(st.Others, func(a, b EndpointTarget) int {
		return cmp.Or(cmp.Compare(a.IP, b.IP), cmp.Compare(a.Port, b.Port))
	})
	return st
}

func (s *TargetState) addReason(r string) {
	if r == "" {
		r = "unknown"
	}
	if s.Reasons == nil {
		s.Reasons = map[string]int{}
	}
	s.Reasons[r]++
}

// observe reads the ready endpoints and the targets and compares them. It
// fails with a *FieldError-free error: a missing Service or port here is an
// operational failure, not input validation.
func (b *Binder) observe(ctx context.Context, tgb *v1beta1.TargetGroupBinding, now time.Time) (*TargetState, error) {
	arn := tgb.Spec.TargetGroupARN
	svc, err := b.service(ctx, tgb.Namespace, tgb.Spec.ServiceRef.Name)
	if err != nil {
		return nil, err
	}
	if svc == nil {
		return nil, &FieldError{Check: "service-exists", Field: "spec.serviceRef.name", Value: tgb.Spec.ServiceRef.Name,
			Kind: ErrServiceNotFound, Detail: fmt.Sprintf("no Service %s/%s", tgb.Namespace, tgb.Spec.ServiceRef.Name)}
	}
	sp, why := findPort(svc, tgb.Spec.ServiceRef.Port)
	if sp == nil {
		return nil, &FieldError{Check: "service-port", Field: "spec.serviceRef.port", Value: tgb.Spec.ServiceRef.Port.String(),
			Kind: ErrPortNotFound, Detail: why}
	}
	family := discoveryv1.AddressTypeIPv4
	if tgb.Spec.IPAddressType != nil && *tgb.Spec.IPAddressType == v1beta1.IPAddressTypeIPv6 {
		family = discoveryv1.AddressTypeIPv6
	}
	ready, err := b.readyEndpoints(ctx, tgb.Namespace, svc.Name, sp, family)
	if err != nil {
		return nil, err
	}
	targets, err := b.targetHealth(ctx, arn)
	if err != nil {
		return nil, err
	}
	st := compare(ready, targets)
	st.TargetGroupARN = arn
	st.Namespace = tgb.Namespace
	st.Service = svc.Name
	st.ServicePort = tgb.Spec.ServiceRef.Port.String()
	st.ObservedAt = now
	return st, nil
}
