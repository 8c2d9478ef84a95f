package subnets

// check_securitygroups.go: the security-group check: a path from each
// bound target group's load balancers' security groups to the pods'
// target port on the moved nodes' security groups (an EC2NodeClass's
// status.securityGroups), or the pods' own (security groups for pods,
// not judged here), and what the binding's spec.networking would manage;
// with its code SecurityGroupPath.

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/kube"
	"github.com/qstools/tgmigrate/internal/netcheck"
	"github.com/qstools/tgmigrate/internal/read"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// CodeSecurityGroupPath: the moved nodes' security groups do not let a
// load balancer's security groups reach the pods' target port, and the
// binding's spec.networking does not have the controller open it.
const CodeSecurityGroupPath diagnose.Code = "SecurityGroupPath"

var securityGroupRules = []diagnose.Rule{
	{Code: CodeSecurityGroupPath, Severity: diagnose.SeverityHigh,
		Signal:      "the pods' targets on the new nodes never turn healthy: the load balancer cannot reach their port",
		Remediation: "add the ingress rule to the node class's security groups, or set the binding's spec.networking so that the controller manages it"},
}

// AnnotationPodENI is the VPC resource controller's annotation on a pod
// with security groups of its own (security groups for pods).
const AnnotationPodENI = "vpc.amazonaws.com/pod-eni"

// checkSecurityGroups judges, for each bound target group and each node
// class the move patches, whether the class's security groups let the
// load balancers' reach the target port.
func (r *run) checkSecurityGroups(ctx context.Context) error {
	if len(r.bound) == 0 || len(r.moving) == 0 {
		return nil
	}
	var ids []string
	for _, nc := range r.moving {
		if len(nc.StatusSecurityGroups) == 0 {
			r.note(fmt.Sprintf("EC2NodeClass %s shows no status.securityGroups: the path from the load balancers to its nodes is not judged", nc.Name))
		}
		for _, g := range nc.StatusSecurityGroups {
			ids = append(ids, g.ID)
		}
	}
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	if len(ids) == 0 {
		return nil
	}
	groups, err := read.Drain(ctx, r.c, "DescribeSecurityGroups",
		ec2.NewDescribeSecurityGroupsPaginator(guardedEC2{r}, &ec2.DescribeSecurityGroupsInput{GroupIds: ids}),
		func(o *ec2.DescribeSecurityGroupsOutput) ([]ec2types.SecurityGroup, *string) {
			return o.SecurityGroups, o.NextToken
		})
	if err != nil {
		return r.failed(ctx, "the node classes' security groups (ec2:DescribeSecurityGroups): the path from the load balancers is not judged", err)
	}
	byID := map[string]ec2types.SecurityGroup{}
	for _, g := range groups {
		byID[aws.ToString(g.GroupId)] = g
	}
	lbGroups := r.lbGroups()
	for _, b := range r.bound {
		r.judgePath(b, byID, lbGroups)
	}
	return nil
}

// lbGroups are the security groups of each load balancer read.
func (r *run) lbGroups() map[string][]string {
	out := map[string][]string{}
	for arn, lb := range r.lbs {
		if lb != nil {
			out[arn] = slices.Sorted(slices.Values(lb.SecurityGroups))
		}
	}
	return out
}

// judgePath judges one bound target group against each moved class.
func (r *run) judgePath(b *bound, byID map[string]ec2types.SecurityGroup, lbGroups map[string][]string) {
	port := int32(b.rep.TargetPort)
	if port == 0 {
		r.note(fmt.Sprintf("binding %s: the pods' target port is unknown (no pod target, and the Service's targetPort is not a number): its security-group path is not judged", b.rep.Binding))
		return
	}
	if r.ownGroups(b) {
		r.note(fmt.Sprintf("binding %s: its pods use security groups for pods (%s): their own groups, which the move does not change, decide the path", b.rep.Binding, AnnotationPodENI))
		return
	}
	var from []string
	for _, lb := range b.rep.LoadBalancers {
		from = append(from, lbGroups[lb]...)
	}
	from = slices.Compact(slices.Sorted(slices.Values(from)))
	if len(from) == 0 {
		return // no security group on the load balancers (an NLB without one): nothing filters by source group
	}
	for _, nc := range r.moving {
		var groups []string
		for _, g := range nc.StatusSecurityGroups {
			groups = append(groups, g.ID)
		}
		if len(groups) == 0 {
			continue
		}
		ok, why := netcheck.Allows(byID, groups, from, port)
		if ok {
			continue
		}
		if managed(b.binding.Spec.Networking, from, port) {
			continue // the controller authorizes it: Networking says so
		}
		rule := fmt.Sprintf("ingress tcp/%d on %s from %s", port, joinList(groups), joinList(from))
		r.add(CodeSecurityGroupPath, fmt.Sprintf("the nodes of EC2NodeClass %s would not be reachable by the load balancers of %s on the pods' port %d: %s", nc.Name, b.rep.Binding, port, why),
			diagnose.Evidence{ARNs: slices.Concat([]string{b.rep.ARN.String()}, b.rep.LoadBalancers), Names: slices.Concat([]string{nc.Name, b.rep.Binding}, groups, from),
				Details: map[string]string{"missingRule": rule, "networking": cmp.Or(b.rep.Networking, "none")}}, "",
			r.manual(fmt.Sprintf("add %s, or set binding %s's spec.networking (ingress from %s on port %d) so that the controller manages it", rule, b.rep.Binding, joinList(from), port)))
	}
}

// ownGroups reports whether a pod behind the target group has security
// groups of its own.
func (r *run) ownGroups(b *bound) bool {
	ips := map[string]bool{}
	for _, ip := range b.podIPs {
		ips[ip] = true
	}
	for _, p := range r.objs.Pods {
		if ips[p.Status.PodIP] {
			if _, ok := p.Annotations[AnnotationPodENI]; ok {
				return true
			}
		}
	}
	return false
}

// managed reports whether a binding's spec.networking has the controller
// open tcp/port from one of from (a security group) to the targets.
func managed(n *v1beta1.TargetGroupBindingNetworking, from []string, port int32) bool {
	if n == nil {
		return false
	}
	for _, rule := range n.Ingress {
		peer := slices.ContainsFunc(rule.From, func(p v1beta1.NetworkingPeer) bool {
			return p.SecurityGroup != nil && slices.Contains(from, p.SecurityGroup.GroupID)
		})
		if !peer {
			continue
		}
		if len(rule.Ports) == 0 {
			return true
		}
		for _, p := range rule.Ports {
			tcp := p.Protocol == nil || *p.Protocol == v1beta1.NetworkingProtocolTCP
			if tcp && (p.Port == nil || (p.Port.Type == intstr.Int && p.Port.IntVal == port)) {
				return true
			}
		}
	}
	return false
}

// networkingLine says what a binding's spec.networking manages: its
// ingress rules, "" when it has none.
func networkingLine(n *v1beta1.TargetGroupBindingNetworking) string {
	if n == nil || len(n.Ingress) == 0 {
		return ""
	}
	var rules []string
	for _, rule := range n.Ingress {
		var from, ports []string
		for _, p := range rule.From {
			switch {
			case p.SecurityGroup != nil:
				from = append(from, p.SecurityGroup.GroupID)
			case p.IPBlock != nil:
				from = append(from, p.IPBlock.CIDR)
			}
		}
		for _, p := range rule.Ports {
			proto := "tcp"
			if p.Protocol != nil {
				proto = strings.ToLower(string(*p.Protocol))
			}
			port := "all"
			if p.Port != nil {
				port = p.Port.String()
			}
			ports = append(ports, proto+"/"+port)
		}
		if len(ports) == 0 {
			ports = []string{"all ports"}
		}
		rules = append(rules, fmt.Sprintf("ingress %s from %s", joinList(ports), joinList(from)))
	}
	return "the controller manages " + strings.Join(rules, "; ") + " on the targets' security groups"
}

// servicePort is the binding's Service's numeric targetPort, 0 when it is
// unknown or named.
func (r *run) servicePort(b *v1beta1.TargetGroupBinding) int {
	for i := range r.objs.Services {
		svc := &r.objs.Services[i]
		if svc.Namespace != b.Namespace || svc.Name != b.Spec.ServiceRef.Name {
			continue
		}
		sp := kube.ServicePort(svc, b.Spec.ServiceRef.Port)
		if sp == nil || sp.TargetPort.Type != intstr.Int {
			return 0
		}
		if sp.TargetPort.IntVal == 0 {
			return int(sp.Port) // an unset targetPort is the port
		}
		return int(sp.TargetPort.IntVal)
	}
	return 0
}
