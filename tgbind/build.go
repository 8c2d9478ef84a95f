package tgbind

// build.go: Build, which turns a (target group, Service) pair into a
// TargetGroupBinding after reading both and checking they fit, and what it
// decides on the way: multi-cluster mode, ingress security groups, labels.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/textcell"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// Build reads the target group from AWS and the Service, its EndpointSlices
// and the existing bindings from the cluster, and derives the binding:
//
//   - targetType ip, and vpcID, ipAddressType and targetGroupProtocol as AWS
//     reports them for the target group;
//   - serviceRef as requested (the zero port means the Service's only port);
//   - multiClusterTargetGroup true whenever the target group holds any
//     target, or other bindings share it, or the request asks for it; the
//     reason is recorded in [Binding.MultiCluster] and in the annotation
//     [AnnotationMultiClusterReason];
//   - networking.ingress from Request.IngressSecurityGroups to the pods'
//     port, and, with [WithLoadBalancerSecurityGroups], from the security
//     groups of the load balancers that forward to the target group (one
//     DescribeLoadBalancers call, recorded in [Binding.LoadBalancers]);
//   - the ownership label and annotations of tgmigrate, never the LBC's
//     stack labels;
//   - the name from [Name], unless the request gives one.
//
// When the binding cannot be derived (malformed ARN, target group not found
// or not of type ip, Service or port missing, bad metadata) the error is a
// *ValidationError naming every such field, and nothing else was read. Build
// never writes; the other preflight checks are Validate's.
func (b *Binder) Build(ctx context.Context, req Request, opts ...Option) (*Binding, error) {
	o := collect(opts)
	c := &checker{}
	checkMetadata(c, req.Name, false, req.Namespace, req.Service, req.Labels)
	arn, arnOK := checkRequestARN(c, req.TargetGroupARN)
	tg, err := b.describeChecked(ctx, c, req.TargetGroupARN.Raw, arnOK)
	if err != nil {
		return nil, fmt.Errorf("tgbind: build: %w", err)
	}
	typeOK := checkTargetGroupType(c, tg)
	svc, sp, err := b.serviceChecked(ctx, c, req.Namespace, req.Service, req.Port)
	if err != nil {
		return nil, fmt.Errorf("tgbind: build: %w", err)
	}
	if fes := checkSecurityGroups(req.IngressSecurityGroups); len(fes) > 0 {
		c.fail(CheckSpec, fes...)
	}
	if err := c.err("build"); err != nil {
		return nil, err
	}
	if !typeOK || sp == nil { // unreachable: both failures are recorded above
		return nil, errors.New("tgbind: build: internal error: checks passed without a target group or port")
	}

	family := addressFamily(tg)
	ready, err := b.readyEndpoints(ctx, req.Namespace, svc.Name, sp, family)
	if err != nil {
		return nil, fmt.Errorf("tgbind: build: %w", err)
	}
	targets, err := b.targetHealth(ctx, req.TargetGroupARN.Raw)
	if err != nil {
		return nil, fmt.Errorf("tgbind: build: %w", err)
	}
	all, err := b.bindings(ctx)
	var notes []string
	switch {
	case errors.Is(err, errNoCRD):
		notes = append(notes, "the TargetGroupBinding CRD is not installed in this cluster: the LBC must be installed before the binding is applied")
	case err != nil:
		return nil, fmt.Errorf("tgbind: build: %w", err)
	}

	port := req.Port
	if isZeroPort(port) {
		port = intstr.FromInt32(sp.Port)
	}
	name := req.Name
	if name == "" {
		name = Name(req.Service, port, arn.Name)
	}
	existing, others := sameARN(all, req.TargetGroupARN.Raw, arn, types.NamespacedName{Namespace: req.Namespace, Name: name})
	foreign := foreignTargets(ready, targets)
	decision, dnotes := decideMultiCluster(req, existing, others, len(targets), foreign)
	notes = append(notes, dnotes...)

	tgb := &v1beta1.TargetGroupBinding{
		TypeMeta: metav1.TypeMeta{APIVersion: v1beta1.GroupVersion.String(), Kind: v1beta1.Kind},
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Namespace:   req.Namespace,
			Labels:      ownedLabels(req.Labels),
			Annotations: ownedAnnotations(req.Annotations, req.TargetGroupARN.Raw, decision.Reason),
		},
		Spec: v1beta1.TargetGroupBindingSpec{
			TargetGroupARN:          req.TargetGroupARN.Raw,
			TargetType:              ptrTo(v1beta1.TargetTypeIP),
			ServiceRef:              v1beta1.ServiceReference{Name: req.Service, Port: port},
			VpcID:                   aws.ToString(tg.VpcId),
			MultiClusterTargetGroup: decision.Enabled,
			TargetGroupProtocol:     ptrTo(v1beta1.TargetGroupProtocol(tg.Protocol)),
		},
	}
	if tg.IpAddressType != "" {
		tgb.Spec.IPAddressType = ptrTo(v1beta1.IPAddressType(tg.IpAddressType))
	}
	groups := req.IngressSecurityGroups
	var lbs []LoadBalancerInfo
	if o.lbSecurityGroups {
		var lbNotes []string
		lbs, lbNotes, err = b.loadBalancerGroups(ctx, tg)
		if err != nil {
			return nil, fmt.Errorf("tgbind: build: %w", err)
		}
		notes = append(notes, lbNotes...)
		groups = mergeGroups(groups, lbs)
	}
	if len(groups) > 0 {
		tgb.Spec.Networking = ingressFrom(groups, sp)
	}
	if existing != nil && !isOwned(existing) {
		notes = append(notes, fmt.Sprintf("%s/%s exists and tgmigrate does not own it: Apply refuses it without WithForce", req.Namespace, name))
	}

	b.log.V(1).Info("built", "binding", req.Namespace+"/"+name, "targetGroupARN", req.TargetGroupARN.Raw,
		"multiCluster", decision.Enabled, "reason", decision.Reason)
	return &Binding{
		Version:            BindingVersion,
		TargetGroupBinding: tgb,
		TargetGroup:        targetGroupInfo(tg, len(targets)),
		Service:            serviceInfo(req.Namespace, tgmigrate.ServicePortOf(svc, sp), ready),
		MultiCluster:       decision,
		LoadBalancers:      lbs,
		Notes:              notes,
	}, nil
}

// loadBalancerGroups looks up the load balancers that forward to the target
// group and notes those that add no security group.
func (b *Binder) loadBalancerGroups(ctx context.Context, tg *elbv2types.TargetGroup) ([]LoadBalancerInfo, []string, error) {
	name := aws.ToString(tg.TargetGroupName)
	if len(tg.LoadBalancerArns) == 0 {
		return []LoadBalancerInfo{}, []string{fmt.Sprintf("no load balancer forwards to target group %s: no security group to add to networking.ingress", name)}, nil
	}
	lbs, err := b.loadBalancers(ctx, tg)
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	for _, lb := range lbs {
		if len(lb.SecurityGroups) == 0 {
			notes = append(notes, fmt.Sprintf("load balancer %s has no security groups: it adds nothing to networking.ingress", lb.Name))
		}
	}
	b.log.V(1).Info("looked up load balancer security groups", "targetGroup", name, "loadBalancers", len(lbs))
	return lbs, notes, nil
}

// mergeGroups returns the caller's groups, in their order, then the load
// balancers' groups that are not among them, sorted.
func mergeGroups(given []string, lbs []LoadBalancerInfo) []string {
	out := slices.Clone(given)
	var found []string
	for _, lb := range lbs {
		for _, g := range lb.SecurityGroups {
			if !slices.Contains(out, g) && !slices.Contains(found, g) {
				found = append(found, g)
			}
		}
	}
	slices.Sort(found)
	return append(out, found...)
}

// decideMultiCluster applies the rules in the order of the MultiClusterReason
// constants. It never picks default mode for a target group that holds a target.
func decideMultiCluster(req Request, existing *v1beta1.TargetGroupBinding, others []v1beta1.TargetGroupBinding, registered int, foreign []string) (MultiClusterDecision, []string) {
	var notes []string
	d := MultiClusterDecision{ForeignTargets: foreign}
	switch {
	case existing != nil && existing.Spec.TargetGroupARN == req.TargetGroupARN.Raw && !(req.MultiCluster && !existing.Spec.MultiClusterTargetGroup):
		d.Enabled = existing.Spec.MultiClusterTargetGroup
		d.Reason = ReasonExistingBinding
		if r := existing.Annotations[AnnotationMultiClusterReason]; r != "" {
			d.Reason = MultiClusterReason(r) // keep the recorded reason, so a re-apply changes nothing
		}
		d.Detail = fmt.Sprintf("kept from the existing binding %s/%s (the LBC advises against changing it)", existing.Namespace, existing.Name)
	case req.MultiCluster:
		d.Enabled, d.Reason, d.Detail = true, ReasonRequested, "requested"
		if existing != nil && !existing.Spec.MultiClusterTargetGroup {
			notes = append(notes, fmt.Sprintf("%s/%s exists in default mode; switching it to multi-cluster may leak the targets it registered", existing.Namespace, existing.Name))
		}
	case len(others) > 0:
		d.Enabled, d.Reason = true, ReasonSharedTargetGroup
		d.Detail = fmt.Sprintf("%d other bindings reference the target group; the LBC requires all of them to be multi-cluster", len(others))
	case len(foreign) > 0:
		d.Enabled, d.Reason = true, ReasonForeignTargets
		d.Detail = fmt.Sprintf("the target group holds %s of the Service (%s); default mode would deregister them before the pod targets are healthy",
			textcell.Plural(len(foreign), "target that is not a ready endpoint", "targets that are not ready endpoints"), sample(foreign, 3))
	case registered > 0:
		d.Enabled, d.Reason = true, ReasonNonEmptyTargetGroup
		d.Detail = fmt.Sprintf("the target group holds %s, all ready endpoints of the Service", textcell.Plural(registered, "target", "targets"))
	default:
		d.Enabled, d.Reason = false, ReasonEmptyTargetGroup
		d.Detail = "the target group is empty: default mode lets the LBC own every target"
	}
	return d, notes
}

// ownedLabels returns the caller's labels with tgmigrate's ownership label.
func ownedLabels(extra map[string]string) map[string]string {
	out := maps.Clone(extra)
	if out == nil {
		out = map[string]string{}
	}
	out[LabelManagedBy] = ManagedByValue
	return out
}

func ownedAnnotations(extra map[string]string, arn string, reason MultiClusterReason) map[string]string {
	out := maps.Clone(extra)
	if out == nil {
		out = map[string]string{}
	}
	out[AnnotationTargetGroupARN] = arn
	out[AnnotationMultiClusterReason] = string(reason)
	return out
}

// checkSecurityGroups validates the requested ingress security group IDs.
func checkSecurityGroups(ids []string) []*FieldError {
	var errs []*FieldError
	for i, id := range ids {
		if !tgmigrate.ValidSecurityGroupID(id) {
			errs = append(errs, &FieldError{Field: fmt.Sprintf("spec.networking.ingress[0].from[%d].securityGroup.groupID", i), Value: id,
				Kind: ErrInvalidSpec, Detail: "not a security group ID (sg- and 8 or 17 hex digits)"})
		}
	}
	return errs
}

// ingressFrom lets the security groups reach the pods' port: the Service's
// targetPort, by number or by container port name, which the LBC resolves.
func ingressFrom(groups []string, sp *corev1.ServicePort) *v1beta1.TargetGroupBindingNetworking {
	proto := v1beta1.NetworkingProtocolTCP
	if sp.Protocol == corev1.ProtocolUDP {
		proto = v1beta1.NetworkingProtocolUDP
	}
	port := sp.TargetPort
	if isZeroPort(port) {
		port = intstr.FromInt32(sp.Port)
	}
	rule := v1beta1.NetworkingIngressRule{Ports: []v1beta1.NetworkingPort{{Protocol: &proto, Port: &port}}}
	for _, g := range groups {
		rule.From = append(rule.From, v1beta1.NetworkingPeer{SecurityGroup: &v1beta1.SecurityGroup{GroupID: g}})
	}
	return &v1beta1.TargetGroupBindingNetworking{Ingress: []v1beta1.NetworkingIngressRule{rule}}
}

// serviceInfo is the Service port p, in namespace, as Binding.Service
// shows it, with its ready endpoints.
func serviceInfo(namespace string, p tgmigrate.ServicePort, ready []endpoint) ServiceInfo {
	return ServiceInfo{
		Namespace: namespace, Name: p.Name, PortName: p.PortName, Port: p.Port,
		TargetPort: p.TargetPort, NodePort: p.NodePort,
		PodPorts: podPorts(ready), ReadyEndpoints: len(ready),
	}
}

// targetGroupInfo is tg as Binding.TargetGroup shows it, built from the
// root's one model of a target group; targets counts its targets.
func targetGroupInfo(tg *elbv2types.TargetGroup, targets int) TargetGroupInfo {
	g := tgmigrate.TargetGroupOf(tg, tgmigrate.ARN{})
	return TargetGroupInfo{
		ARN:             g.ARN,
		Name:            g.Name,
		TargetType:      string(g.TargetType),
		Protocol:        g.Protocol,
		Port:            g.Port,
		VpcID:           g.VPCID,
		IPAddressType:   g.IPAddressType,
		HealthCheckPort: g.HealthCheck.Port,
		Targets:         targets,
	}
}

func ptrTo[T any](v T) *T { return &v }
