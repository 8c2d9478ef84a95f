package netcheck

// securitygroups.go: Allows and PermString, the evaluation of a security
// group's ingress rules against a source group and a port.

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// Allows says whether an ingress rule of one of groups (looked up in
// byID; a group not in it is skipped) lets tcp/port in from one of from
// (by group, or from anywhere, 0.0.0.0/0), and names the rule, or what is
// missing. A rule from another address range may or may not cover the
// load balancer's nodes (the caller does not read its subnets): it counts,
// and the reason says so.
func Allows(byID map[string]ec2types.SecurityGroup, groups, from []string, port int32) (bool, string) {
	var cidrRule string
	for _, id := range groups {
		g, ok := byID[id]
		if !ok {
			continue
		}
		for _, p := range g.IpPermissions {
			proto := aws.ToString(p.IpProtocol)
			if proto != "-1" && proto != "tcp" && proto != "6" {
				continue
			}
			if proto != "-1" && (port < aws.ToInt32(p.FromPort) || port > aws.ToInt32(p.ToPort)) {
				continue
			}
			what := fmt.Sprintf("%s allows %s", id, PermString(p))
			for _, pair := range p.UserIdGroupPairs {
				if slices.Contains(from, aws.ToString(pair.GroupId)) {
					return true, what + " from " + aws.ToString(pair.GroupId)
				}
			}
			for _, r := range p.IpRanges {
				cidr := aws.ToString(r.CidrIp)
				if pfx, err := netip.ParsePrefix(cidr); err == nil && pfx.Bits() == 0 {
					return true, what + " from " + cidr
				}
				if cidrRule == "" {
					cidrRule = what + " from " + cidr
				}
			}
		}
	}
	if cidrRule != "" {
		return true, cidrRule + " (an address range: it allows the load balancer only if its nodes' addresses are in it, which the plan did not check)"
	}
	return false, fmt.Sprintf("no ingress rule of %s allows tcp/%d from %s", strings.Join(groups, ", "), port, strings.Join(from, ", "))
}

// PermString renders an ingress permission: "all traffic", "tcp/8080" or
// "tcp/30000-32767".
func PermString(p ec2types.IpPermission) string {
	proto := aws.ToString(p.IpProtocol)
	switch {
	case proto == "-1":
		return "all traffic"
	case aws.ToInt32(p.FromPort) == aws.ToInt32(p.ToPort):
		return fmt.Sprintf("%s/%d", proto, aws.ToInt32(p.FromPort))
	}
	return fmt.Sprintf("%s/%d-%d", proto, aws.ToInt32(p.FromPort), aws.ToInt32(p.ToPort))
}
