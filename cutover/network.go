package cutover

// This file is the security-group check of a plan. Pod targets are
// reached on the pods' port, not on the NodePort: security groups that let
// the load balancer reach the NodePort range often do not let it reach
// the pods. The pod targets would then never turn healthy and the cutover
// would stall at the gate. The plan reads the load balancer's security
// groups and those of the pods' network interfaces (their nodes' under the
// VPC CNI, their own with security groups for pods), and checks that the
// pods' port is allowed from the former. Where it is not, the plan has the
// controller open it (the binding's spec.networking), or, when the caller
// declines (Request.LeaveSecurityGroups), records a
// [PreconditionSecurityGroup] naming the missing rule.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	corev1 "k8s.io/api/core/v1"

	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/netcheck"
)

// EC2API is the read-only part of the EC2 API that [PlanCutover] calls for
// the security-group check, with the SDK's own signatures:
// *ec2.Client satisfies it.
type EC2API interface {
	// DescribeNetworkInterfaces is the SDK call behind IAM action ec2:DescribeNetworkInterfaces.
	DescribeNetworkInterfaces(ctx context.Context, params *ec2.DescribeNetworkInterfacesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeNetworkInterfacesOutput, error)
	// DescribeSecurityGroups is the SDK call behind IAM action ec2:DescribeSecurityGroups.
	DescribeSecurityGroups(ctx context.Context, params *ec2.DescribeSecurityGroupsInput, optFns ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error)
}

var (
	_ EC2API                                 = (*ec2.Client)(nil)
	_ ec2.DescribeNetworkInterfacesAPIClient = EC2API(nil)
	_ ec2.DescribeSecurityGroupsAPIClient    = EC2API(nil)
)

// NetworkPlan is the security-group check of a plan: whether the load
// balancer may reach the pods' port. It is plain data.
type NetworkPlan struct {
	// Checked says the check ran (Env.EC2 was given); when false, Note
	// says why, and nothing else is set.
	Checked bool `json:"checked"`
	// Protocol and Port are what the pod targets are reached on.
	Protocol string `json:"protocol,omitempty"`
	Port     int32  `json:"port,omitempty"`
	// LoadBalancerSecurityGroups are the security groups of the load
	// balancers that forward to the target group.
	LoadBalancerSecurityGroups []string `json:"loadBalancerSecurityGroups,omitempty"`
	// PodSecurityGroups are the security groups of the pods' network
	// interfaces.
	PodSecurityGroups []string `json:"podSecurityGroups,omitempty"`
	// Allowed says every pod's groups let the load balancer's reach the
	// port; By names the rule that allows it, or says what is missing.
	Allowed bool   `json:"allowed"`
	By      string `json:"by,omitempty"`
	// Blocked lists the pod addresses whose groups do not allow it.
	Blocked []string `json:"blocked,omitempty"`
	// Unresolved lists the pod addresses no network interface was found
	// for (their groups are unknown: not counted as blocked).
	Unresolved []string `json:"unresolved,omitempty"`
	// Networking says the plan sets the binding's spec.networking (ingress
	// from LoadBalancerSecurityGroups on the port), so that the controller
	// authorizes the rule on PodSecurityGroups; its IAM role then needs
	// ec2:AuthorizeSecurityGroupIngress ([Plan.ControllerPolicy]).
	Networking bool `json:"networking,omitempty"`
	// Note says what the check could not do, or what it decided.
	Note string `json:"note,omitempty"`
}

// MissingRule is the security-group rule a [PreconditionSecurityGroup]
// names: what would let the load balancer reach the pods.
type MissingRule struct {
	// GroupIDs are the pods' security groups, where the rule goes.
	GroupIDs []string `json:"groupIDs"`
	// FromGroupIDs are the load balancer's security groups, its source.
	FromGroupIDs []string `json:"fromGroupIDs"`
	// Protocol and Port are what it allows.
	Protocol string `json:"protocol"`
	Port     int32  `json:"port"`
}

// String renders it: "ingress tcp/8080 on sg-nodes from sg-alb".
func (m MissingRule) String() string {
	return fmt.Sprintf("ingress %s/%d on %s from %s", m.Protocol, m.Port, strings.Join(m.GroupIDs, ", "), strings.Join(m.FromGroupIDs, ", "))
}

// interfaceChunk is how many addresses one DescribeNetworkInterfaces
// filter names (EC2 allows 200 values per filter).
const interfaceChunk = 200

// checkNetwork runs the check for the pods at podIPs on each of ports
// (tcp), for the load balancers lbARNs: the groups and rules are read
// once; the plan is the first blocked port's, or the first port's. It
// reads; it changes nothing.
func (pl *planner) checkNetwork(ctx context.Context, lbARNs []string, podIPs []string, ports []int32) (*NetworkPlan, error) {
	np := &NetworkPlan{Protocol: "tcp", Port: ports[0]}
	if pl.e.EC2 == nil {
		return &NetworkPlan{Note: fmt.Sprintf("not checked (Env.EC2 not given): if a security group keeps the load balancer from the pods' port %d, the pod targets never turn healthy and the gate stops the cutover", np.Port)}, nil
	}
	if len(lbARNs) == 0 {
		return &NetworkPlan{Note: "not checked: no load balancer forwards to the target group"}, nil
	}
	np.Checked = true
	var lbGroups []string
	for chunk := range slices.Chunk(lbARNs, 20) {
		var out *elbv2.DescribeLoadBalancersOutput
		err := pl.aws.retryTransient(ctx, false, func(ctx context.Context) (err error) {
			out, err = pl.aws.api.DescribeLoadBalancers(ctx, &elbv2.DescribeLoadBalancersInput{LoadBalancerArns: chunk})
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("describe load balancers: %w", err)
		}
		if out == nil {
			return nil, fmt.Errorf("describe load balancers: no response")
		}
		for _, lb := range out.LoadBalancers {
			lbGroups = append(lbGroups, lb.SecurityGroups...)
		}
	}
	np.LoadBalancerSecurityGroups = slices.Compact(slices.Sorted(slices.Values(lbGroups)))
	if len(np.LoadBalancerSecurityGroups) == 0 {
		np.Allowed, np.By = true, "the load balancer has no security group (a Network Load Balancer without one): nothing filters by source group"
		return np, nil
	}
	groupsOf := map[string][]string{}
	for chunk := range slices.Chunk(podIPs, interfaceChunk) {
		wanted := make(map[string]bool, len(chunk))
		for _, ip := range chunk {
			wanted[ip] = true
		}
		p := ec2.NewDescribeNetworkInterfacesPaginator(pl.e.EC2, &ec2.DescribeNetworkInterfacesInput{
			Filters: []ec2types.Filter{{Name: aws.String("addresses.private-ip-address"), Values: chunk}},
		})
		for p.HasMorePages() {
			var page *ec2.DescribeNetworkInterfacesOutput
			err := pl.aws.retryTransient(ctx, false, func(ctx context.Context) (err error) {
				page, err = p.NextPage(ctx)
				return err
			})
			if err != nil {
				return deniedOr(np, "ec2:DescribeNetworkInterfaces", awserr.Classify("DescribeNetworkInterfaces", "", err))
			}
			for _, ni := range page.NetworkInterfaces {
				var groups []string
				for _, g := range ni.Groups {
					groups = append(groups, aws.ToString(g.GroupId))
				}
				for _, a := range ni.PrivateIpAddresses {
					if ip := aws.ToString(a.PrivateIpAddress); wanted[ip] {
						groupsOf[ip] = groups
					}
				}
			}
		}
	}
	var all []string
	for _, ip := range podIPs {
		g, ok := groupsOf[ip]
		if !ok {
			np.Unresolved = append(np.Unresolved, ip)
			continue
		}
		all = append(all, g...)
	}
	np.PodSecurityGroups = slices.Compact(slices.Sorted(slices.Values(all)))
	if len(np.PodSecurityGroups) == 0 {
		np.Checked = false
		np.Note = fmt.Sprintf("not checked: no network interface holds the pods' addresses (%d looked up)", len(podIPs))
		return np, nil
	}
	out, err := pl.describeGroups(ctx, np.PodSecurityGroups)
	if err != nil {
		return deniedOr(np, "ec2:DescribeSecurityGroups", awserr.Classify("DescribeSecurityGroups", strings.Join(np.PodSecurityGroups, ","), err))
	}
	byID := map[string]ec2types.SecurityGroup{}
	for _, g := range out {
		byID[aws.ToString(g.GroupId)] = g
	}
	var first *NetworkPlan
	for _, port := range ports {
		v := judge(*np, byID, podIPs, groupsOf, port)
		if !v.Allowed {
			return v, nil
		}
		if first == nil {
			first = v
		}
	}
	return first, nil
}

// judge fills a copy of the read part of a check with its verdict on
// port: every pod's groups must let the load balancer's in.
func judge(np NetworkPlan, byID map[string]ec2types.SecurityGroup, podIPs []string, groupsOf map[string][]string, port int32) *NetworkPlan {
	np.Port, np.Allowed, np.Blocked = port, true, nil
	verdict := map[string]string{} // a pod's groups, joined -> "" when allowed, else why
	for _, ip := range podIPs {
		g, ok := groupsOf[ip]
		if !ok {
			continue
		}
		key := strings.Join(g, ",")
		why, seen := verdict[key]
		if !seen {
			ok, by := netcheck.Allows(byID, g, np.LoadBalancerSecurityGroups, port)
			if ok {
				np.By = by
				why = ""
			} else {
				why = by
			}
			verdict[key] = why
		}
		if why != "" {
			np.Allowed = false
			np.Blocked = append(np.Blocked, ip)
			np.By = why
		}
	}
	return &np
}

// deniedOr turns a refusal of the check's EC2 reads into a check not made
// (the plan says which permission it lacked); any other error fails the
// plan.
func deniedOr(np *NetworkPlan, action string, err error) (*NetworkPlan, error) {
	if !errors.Is(err, awserr.ErrAccessDenied) {
		return nil, err
	}
	return &NetworkPlan{Protocol: np.Protocol, Port: np.Port, LoadBalancerSecurityGroups: np.LoadBalancerSecurityGroups,
		Note: fmt.Sprintf("not checked: EC2 refused %s (%v); grant it to check that the load balancer may reach the pods' port %d", action, err, np.Port)}, nil
}

func (pl *planner) describeGroups(ctx context.Context, ids []string) ([]ec2types.SecurityGroup, error) {
	var groups []ec2types.SecurityGroup
	p := ec2.NewDescribeSecurityGroupsPaginator(pl.e.EC2, &ec2.DescribeSecurityGroupsInput{GroupIds: ids})
	for p.HasMorePages() {
		var page *ec2.DescribeSecurityGroupsOutput
		err := pl.aws.retryTransient(ctx, false, func(ctx context.Context) (err error) {
			page, err = p.NextPage(ctx)
			return err
		})
		if err != nil {
			return nil, err
		}
		groups = append(groups, page.SecurityGroups...)
	}
	return groups, nil
}

// network runs the check for the plan's pods and decides: nothing to do
// when the port is allowed (or the check could not run); otherwise the
// binding's spec.networking, or, with Request.LeaveSecurityGroups, a
// [PreconditionSecurityGroup]. It returns the load balancer's groups when
// the binding must carry them.
func (pl *planner) network(ctx context.Context, ports []int32) ([]string, error) {
	p := pl.p
	if len(ports) == 0 {
		if pl.sp != nil {
			ports = []int32{pl.sp.TargetPort.IntVal}
		}
	}
	if len(ports) == 0 {
		return nil, nil
	}
	merged, err := pl.checkNetwork(ctx, pl.tg.LoadBalancerArns, pl.podIPs, ports)
	if err != nil {
		_, err = pl.fail(err)
		return nil, err
	}
	p.Network = merged
	switch {
	case !merged.Checked:
		p.Warnings = append(p.Warnings, "security groups: "+merged.Note)
		return nil, nil
	case merged.Allowed:
		if len(merged.Unresolved) > 0 {
			p.Warnings = append(p.Warnings, fmt.Sprintf("security groups: no network interface holds %d pod addresses (%s): their groups were not checked", len(merged.Unresolved), joinFirst(merged.Unresolved, func(ip string) string { return ip })))
		}
		return nil, nil
	}
	rule := MissingRule{GroupIDs: merged.PodSecurityGroups, FromGroupIDs: merged.LoadBalancerSecurityGroups, Protocol: merged.Protocol, Port: merged.Port}
	if pl.req.LeaveSecurityGroups {
		merged.Note = "blocked, and Request.LeaveSecurityGroups: the plan does not have the controller open it"
		p.Preconditions = append(p.Preconditions, Precondition{Kind: PreconditionSecurityGroup,
			Reason: fmt.Sprintf("the load balancer cannot reach the pods' port: %s; the pod targets would never turn healthy. Add the rule (%s), or plan without LeaveSecurityGroups to have the controller manage it", merged.By, rule),
			Rule:   &rule})
		return nil, nil
	}
	merged.Networking = true
	merged.Note = fmt.Sprintf("blocked (%s): the binding's spec.networking lets the controller authorize %s", merged.By, rule)
	return merged.LoadBalancerSecurityGroups, nil
}

// podReady: the pod is Ready, or its containers are (a pod held back by
// the controller's readiness gate only): its address takes traffic once
// its target is healthy.
func podReady(p corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if (c.Type == corev1.PodReady || c.Type == corev1.ContainersReady) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}
