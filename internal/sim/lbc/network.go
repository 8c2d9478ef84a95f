package lbc

// network.go: EC2API, and spec.networking's rules on the nodes' security
// group.

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// EC2API is the part of the EC2 API the controller stand-in calls, with
// the SDK's own signatures.
type EC2API interface {
	// DescribeVpcs is the SDK call behind IAM action ec2:DescribeVpcs.
	DescribeVpcs(ctx context.Context, params *ec2.DescribeVpcsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeVpcsOutput, error)
	// DescribeSecurityGroups is the SDK call behind IAM action ec2:DescribeSecurityGroups.
	DescribeSecurityGroups(ctx context.Context, params *ec2.DescribeSecurityGroupsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error)
	// AuthorizeSecurityGroupIngress is the SDK call behind IAM action ec2:AuthorizeSecurityGroupIngress.
	AuthorizeSecurityGroupIngress(ctx context.Context, params *ec2.AuthorizeSecurityGroupIngressInput, optFns ...func(*ec2.Options)) (*ec2.AuthorizeSecurityGroupIngressOutput, error)
	// RevokeSecurityGroupIngress is the SDK call behind IAM action ec2:RevokeSecurityGroupIngress.
	RevokeSecurityGroupIngress(ctx context.Context, params *ec2.RevokeSecurityGroupIngressInput, optFns ...func(*ec2.Options)) (*ec2.RevokeSecurityGroupIngressOutput, error)
}

var _ EC2API = (*ec2.Client)(nil)

// The controller's EC2 caches (DefaultVPCInfoTTL: the LBC's
// pkg/aws/vpc_info_provider.go; DefaultSGInfoTTL: defaultSGInfoCacheTTL in
// pkg/networking/security_group_manager.go).
const (
	DefaultVPCInfoTTL = 10 * time.Minute
	DefaultSGInfoTTL  = 10 * time.Minute
)

// ManagedRuleDescription is the description the controller gives the
// security-group rules it manages for spec.networking (the label
// elbv2.k8s.aws/targetGroupBinding=shared), and by which it finds them to
// revoke.
const ManagedRuleDescription = "elbv2.k8s.aws/targetGroupBinding=shared"

// The EC2 side of a reconcile, as the LBC does it in ip mode:
//
//   - The network step (pkg/networking/networking_manager.go,
//     ReconcileForPodEndpoints) runs on every reconcile that is not
//     skipped, with or without spec.networking. Without it, the step still
//     garbage-collects the rules of security groups no binding uses: the
//     first time (and until it succeeds) that is a DescribeSecurityGroups
//     of the cluster's security groups (filters tag:kubernetes.io/cluster/
//     <cluster> and vpc-id). With it, the pods' security group (the
//     nodes' under the VPC CNI, Options.PodSecurityGroup here) gets, for
//     each ingress rule, a rule per port and source, described
//     [ManagedRuleDescription]: DescribeSecurityGroups (cached
//     [DefaultSGInfoTTL]), then AuthorizeSecurityGroupIngress for what is
//     missing and RevokeSecurityGroupIngress for managed rules no binding
//     wants. A failure here is the Warning event FailedNetworkReconcile
//     and a requeue after RequeueAfter; the reconcile goes on (in ip mode
//     the LBC does not stop), and the checkpoint is not saved.
//   - Registration (registerPodEndpoints) first reads the VPC
//     (DescribeVpcs, cached [DefaultVPCInfoTTL]) to tell pod IPs inside it
//     from those outside. A failure fails the reconcile (FailedReconcile)
//     before any RegisterTargets: without EC2 reads, a binding registers
//     nothing, ever. It is stuck, not slow.

// reconcileNetwork is the network step.
func (c *Controller) reconcileNetwork(ctx context.Context, tgb *v1beta1.TargetGroupBinding, eps []endpoint) error {
	if !c.sgsFetched {
		_, err := c.o.EC2.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{
			{Name: aws.String("tag:kubernetes.io/cluster/" + c.o.ClusterName), Values: []string{"owned", "shared"}},
			{Name: aws.String("vpc-id"), Values: []string{c.o.VPCID}},
		}})
		if err != nil {
			return fmt.Errorf("describe security groups of cluster %s: %w", c.o.ClusterName, err)
		}
		c.stats.EC2Calls++
		c.sgsFetched = true
	}
	key := tgb.Namespace + "/" + tgb.Name
	want := wantedRules(tgb, eps)
	if len(want) == 0 {
		delete(c.rules, key)
	} else {
		c.rules[key] = want
	}
	if c.o.PodSecurityGroup == "" || (len(want) == 0 && !c.managesRules) {
		return nil
	}
	return c.reconcileIngress(ctx)
}

// cleanupNetwork is the network step of a binding's deletion: its rules
// are dropped and the pods' security group reconciled, with the same EC2
// reads as a reconcile.
func (c *Controller) cleanupNetwork(ctx context.Context, tgb *v1beta1.TargetGroupBinding) error {
	cp := tgb.DeepCopy()
	cp.Spec.Networking = nil
	return c.reconcileNetwork(ctx, cp, nil)
}

// rule is one managed ingress rule: protocol, port and source.
type rule struct {
	protocol string
	port     int32
	fromSG   string
	fromCIDR string
}

// wantedRules are the rules a binding's spec.networking asks for. A port
// given by name is resolved in each endpoint's pod (its container port of
// that name), as the LBC's computePermissionsForPeerPort does; a port
// left out would mean every TCP port, which the LBC does not create (a
// shadowed variable in its networking_manager.go drops the rule), so
// neither does the stand-in.
func wantedRules(tgb *v1beta1.TargetGroupBinding, eps []endpoint) []rule {
	if tgb.Spec.Networking == nil {
		return nil
	}
	seen := map[rule]bool{}
	var out []rule
	add := func(r rule) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for _, in := range tgb.Spec.Networking.Ingress {
		for _, p := range in.Ports {
			proto := "tcp"
			if p.Protocol != nil && *p.Protocol == v1beta1.NetworkingProtocolUDP {
				proto = "udp"
			}
			if p.Port == nil {
				continue
			}
			var ports []int32
			if p.Port.Type == intstr.Int {
				ports = []int32{p.Port.IntVal}
			} else {
				for _, e := range eps {
					if port, ok := containerPort(e.pod, p.Port.StrVal); ok && !slices.Contains(ports, port) {
						ports = append(ports, port)
					}
				}
			}
			for _, port := range ports {
				for _, from := range in.From {
					r := rule{protocol: proto, port: port}
					switch {
					case from.SecurityGroup != nil:
						r.fromSG = from.SecurityGroup.GroupID
					case from.IPBlock != nil:
						r.fromCIDR = from.IPBlock.CIDR
					default:
						continue
					}
					add(r)
				}
			}
		}
	}
	slices.SortFunc(out, cmpRule)
	return out
}

// containerPort finds a pod's container port by name.
func containerPort(p *corev1.Pod, name string) (int32, bool) {
	if p == nil {
		return 0, false
	}
	for _, c := range p.Spec.Containers {
		for _, cp := range c.Ports {
			if cp.Name == name {
				return cp.ContainerPort, true
			}
		}
	}
	return 0, false
}

// reconcileIngress makes the pods' security group hold exactly the managed
// rules the bindings want: Describe (cached), Authorize what is missing,
// Revoke what no binding wants.
func (c *Controller) reconcileIngress(ctx context.Context) error {
	sg := c.o.PodSecurityGroup
	now := c.o.Clock.Now()
	if c.sgInfo == nil || !now.Before(c.sgInfoAt.Add(DefaultSGInfoTTL)) {
		out, err := c.o.EC2.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{GroupIds: []string{sg}})
		if err != nil {
			return fmt.Errorf("describe security group %s: %w", sg, err)
		}
		c.stats.EC2Calls++
		c.sgInfo = map[rule]bool{}
		for _, g := range out.SecurityGroups {
			for _, p := range g.IpPermissions {
				for _, r := range rulesOf(p) {
					c.sgInfo[r] = true
				}
			}
		}
		c.sgInfoAt = now
	}
	want := map[rule]bool{}
	for _, rs := range c.rules {
		for _, r := range rs {
			want[r] = true
		}
	}
	var add, drop []rule
	for r := range want {
		if !c.sgInfo[r] {
			add = append(add, r)
		}
	}
	for r := range c.sgInfo {
		if !want[r] {
			drop = append(drop, r)
		}
	}
	slices.SortFunc(add, cmpRule)
	slices.SortFunc(drop, cmpRule)
	if len(add) > 0 {
		if _, err := c.o.EC2.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String(sg), IpPermissions: permissions(add)}); err != nil {
			return fmt.Errorf("authorize ingress on %s: %w", sg, err)
		}
		c.stats.EC2Calls++
		for _, r := range add {
			c.sgInfo[r] = true
		}
	}
	if len(drop) > 0 {
		if _, err := c.o.EC2.RevokeSecurityGroupIngress(ctx, &ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String(sg), IpPermissions: permissions(drop)}); err != nil {
			return fmt.Errorf("revoke ingress on %s: %w", sg, err)
		}
		c.stats.EC2Calls++
		for _, r := range drop {
			delete(c.sgInfo, r)
		}
	}
	c.managesRules = len(want) > 0
	return nil
}

func cmpRule(a, b rule) int {
	return cmp.Or(cmp.Compare(a.protocol, b.protocol), cmp.Compare(a.port, b.port),
		cmp.Compare(a.fromSG, b.fromSG), cmp.Compare(a.fromCIDR, b.fromCIDR))
}

// rulesOf lists the managed rules of a permission (those with the
// controller's description).
func rulesOf(p ec2types.IpPermission) []rule {
	proto := aws.ToString(p.IpProtocol)
	port := aws.ToInt32(p.FromPort)
	if port != aws.ToInt32(p.ToPort) {
		return nil
	}
	var out []rule
	for _, g := range p.UserIdGroupPairs {
		if aws.ToString(g.Description) == ManagedRuleDescription {
			out = append(out, rule{protocol: proto, port: port, fromSG: aws.ToString(g.GroupId)})
		}
	}
	for _, r := range p.IpRanges {
		if aws.ToString(r.Description) == ManagedRuleDescription {
			out = append(out, rule{protocol: proto, port: port, fromCIDR: aws.ToString(r.CidrIp)})
		}
	}
	return out
}

func permissions(rs []rule) []ec2types.IpPermission {
	out := make([]ec2types.IpPermission, 0, len(rs))
	for _, r := range rs {
		p := ec2types.IpPermission{IpProtocol: aws.String(r.protocol), FromPort: aws.Int32(r.port), ToPort: aws.Int32(r.port)}
		if r.fromSG != "" {
			p.UserIdGroupPairs = []ec2types.UserIdGroupPair{{GroupId: aws.String(r.fromSG), Description: aws.String(ManagedRuleDescription)}}
		} else {
			p.IpRanges = []ec2types.IpRange{{CidrIp: aws.String(r.fromCIDR), Description: aws.String(ManagedRuleDescription)}}
		}
		out = append(out, p)
	}
	return out
}

// readVPC reads the VPC before a registration (FetchVPCInfo, cached).
func (c *Controller) readVPC(ctx context.Context, tgb *v1beta1.TargetGroupBinding) error {
	vpc := c.o.VPCID
	if tgb.Spec.VpcID != "" {
		vpc = tgb.Spec.VpcID
	}
	now := c.o.Clock.Now()
	if at, ok := c.vpcInfo[vpc]; ok && now.Before(at.Add(DefaultVPCInfoTTL)) {
		return nil
	}
	if _, err := c.o.EC2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{VpcIds: []string{vpc}}); err != nil {
		return fmt.Errorf("describe vpc %s: %w", vpc, err)
	}
	c.stats.EC2Calls++
	c.vpcInfo[vpc] = now
	return nil
}
