package subnets

// check_subnets.go: the subnet check: per zone the nodes use, private
// subnets of the VPC with room for the nodes and their pods, and egress
// (a NAT route, else the VPC endpoints nodes need), with its codes.

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/karpenterapi"
	"github.com/qstools/tgmigrate/internal/netcheck"
	"github.com/qstools/tgmigrate/internal/textcell"
)

// Codes of the subnet check.
const (
	// CodeSubnetsNotRead: the VPC's subnets or route tables could not be
	// read, so no private subnet can be chosen.
	CodeSubnetsNotRead diagnose.Code = "SubnetsNotRead"
	// CodeSubnetNotEligible: a subnet Input.PrivateSubnets selects is
	// public, or an id it names is no subnet of the VPC.
	CodeSubnetNotEligible diagnose.Code = "SubnetNotEligible"
	// CodeNoPrivateSubnet: a zone the nodes use has no private subnet.
	CodeNoPrivateSubnet diagnose.Code = "NoPrivateSubnet"
	// CodeSubnetTooSmall: a zone's private subnets have fewer free
	// addresses than its nodes and their pods need.
	CodeSubnetTooSmall diagnose.Code = "SubnetTooSmall"
	// CodeNoEgress: a private subnet has no NAT route and lacks VPC
	// endpoints the nodes need to join and pull images.
	CodeNoEgress diagnose.Code = "NoEgress"
)

var subnetRules = []diagnose.Rule{
	{Code: CodeSubnetsNotRead, Severity: diagnose.SeverityHigh,
		Signal:      "none yet: the private subnets could not be judged",
		Remediation: "grant ec2:DescribeSubnets and ec2:DescribeRouteTables, then check again"},
	{Code: CodeSubnetNotEligible, Severity: diagnose.SeverityHigh,
		Signal:      "the moved nodes land in a public subnet, or in none",
		Remediation: "select only private subnets of the cluster's VPC"},
	{Code: CodeNoPrivateSubnet, Severity: diagnose.SeverityHigh,
		Signal:      "pods pinned to the zone stay Pending after the move: no node can launch there",
		Remediation: "create a private subnet in the zone (a route table without an internet gateway, MapPublicIpOnLaunch false) with a NAT route or the VPC endpoints nodes need"},
	{Code: CodeSubnetTooSmall, Severity: diagnose.SeverityHigh,
		Signal:      "replacement nodes or their pods fail to get an address (InsufficientFreeAddressesInSubnet)",
		Remediation: "add a private subnet in the zone, or a larger one (a secondary VPC CIDR)"},
	{Code: CodeNoEgress, Severity: diagnose.SeverityHigh,
		Signal:      "replacement nodes never join the cluster, or their pods stay in ImagePullBackOff",
		Remediation: "route 0.0.0.0/0 to a NAT gateway, or create the missing VPC endpoints"},
}

// endpointServices are the VPC endpoint services nodes need without a
// NAT route: to join (sts, ec2) and to pull images (ecr.api, ecr.dkr, s3).
var endpointServices = []string{"ecr.api", "ecr.dkr", "s3", "sts", "ec2"}

// Egress values of a [Subnet].
const (
	EgressNAT       = "nat"
	EgressEndpoints = "endpoints"
	EgressNone      = "none"
)

// zoneOf is a node's zone label.
func zoneOf(n *corev1.Node) string {
	if z := n.Labels[corev1.LabelTopologyZone]; z != "" {
		return z
	}
	return n.Labels[corev1.LabelFailureDomainBetaZone]
}

// countZones fills r.zones: the nodes of each zone and the pods on them
// that take an address from the subnet (not hostNetwork, not finished).
func (r *run) countZones() {
	zoneOfNode := map[string]string{}
	var unzoned []string
	for i := range r.objs.Nodes {
		n := &r.objs.Nodes[i]
		z := zoneOf(n)
		if z == "" {
			unzoned = append(unzoned, n.Name)
			continue
		}
		zoneOfNode[n.Name] = z
		if r.zones[z] == nil {
			r.zones[z] = &ZoneReport{Zone: z}
		}
		r.zones[z].Nodes++
	}
	if len(unzoned) > 0 {
		r.note(fmt.Sprintf("%s no zone label (%s): not counted", textcell.Plural(len(unzoned), "node has", "nodes have"), strings.Join(unzoned, ", ")))
	}
	for _, p := range r.objs.Pods {
		z, ok := zoneOfNode[p.Spec.NodeName]
		if !ok || p.Spec.HostNetwork || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		r.zones[z].Pods++
	}
	for _, z := range r.zones {
		z.Need = z.Nodes + z.Pods
	}
}

// subnetOf is the report's view of a subnet, with its publicness.
func (r *run) subnetOf(s ec2types.Subnet) Subnet {
	out := Subnet{ID: aws.ToString(s.SubnetId), Zone: aws.ToString(s.AvailabilityZone), CIDR: aws.ToString(s.CidrBlock),
		Free: int(aws.ToInt32(s.AvailableIpAddressCount))}
	if len(s.Tags) > 0 {
		out.Tags = map[string]string{}
		for _, t := range s.Tags {
			out.Tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
		}
	}
	rt := r.tables.For(out.ID, r.in.VPCID)
	out.Public = aws.ToBool(s.MapPublicIpOnLaunch) || (rt != nil && netcheck.RoutesToIGW(*rt))
	return out
}

// checkSubnets chooses the private subnets per zone and judges them.
func (r *run) checkSubnets(context.Context) error {
	r.countZones()
	zones := slices.Sorted(maps.Keys(r.zones))
	if !r.subnetsRead || !r.tablesRead {
		r.add(CodeSubnetsNotRead, "the VPC's subnets or route tables could not be read: no private subnet is chosen", diagnose.Evidence{Names: []string{r.in.VPCID}}, "",
			r.manual("grant ec2:DescribeSubnets and ec2:DescribeRouteTables on the cluster's account, then check again"))
		for _, z := range zones {
			r.rep.Zones = append(r.rep.Zones, *r.zones[z])
		}
		return nil
	}
	all := make([]Subnet, 0, len(r.subnets))
	for _, s := range r.subnets {
		all = append(all, r.subnetOf(s))
	}
	var chosen []Subnet
	if r.in.PrivateSubnets == nil {
		for _, s := range all {
			if !s.Public && r.zones[s.Zone] != nil {
				chosen = append(chosen, s)
			}
		}
	} else {
		chosen = r.requested(all)
	}
	slices.SortFunc(chosen, func(a, b Subnet) int { return strings.Compare(a.Zone+"/"+a.ID, b.Zone+"/"+b.ID) })
	for i := range chosen {
		r.judgeEgress(&chosen[i])
	}
	for _, z := range zones {
		zr := r.zones[z]
		for _, s := range chosen {
			if s.Zone == z {
				zr.Subnets = append(zr.Subnets, s.ID)
				zr.Free += s.Free
			}
		}
		switch {
		case len(zr.Subnets) == 0:
			r.add(CodeNoPrivateSubnet, fmt.Sprintf("zone %s (%s) has no private subnet in %s%s", z, textcell.Plural(zr.Nodes, "node", "nodes"), r.in.VPCID, selectedBy(r.in.PrivateSubnets)),
				diagnose.Evidence{Names: []string{z}, Counts: map[string]int{"nodes": zr.Nodes, "pods": zr.Pods}}, "",
				r.manual(fmt.Sprintf("create a private subnet in %s of %s (no internet gateway route, MapPublicIpOnLaunch false), or select one", z, r.in.VPCID)))
		case zr.Free < zr.Need:
			r.add(CodeSubnetTooSmall, fmt.Sprintf("zone %s needs %d addresses (%s + %s) and its private subnets %s have %d free", z, zr.Need, textcell.Plural(zr.Nodes, "node", "nodes"), textcell.Plural(zr.Pods, "pod", "pods"), strings.Join(zr.Subnets, ", "), zr.Free),
				diagnose.Evidence{Names: slices.Concat([]string{z}, zr.Subnets), Counts: map[string]int{"need": zr.Need, "free": zr.Free, "nodes": zr.Nodes, "pods": zr.Pods}}, "",
				r.manual(fmt.Sprintf("add %d or more free addresses in %s: another private subnet, or a larger one", zr.Need-zr.Free, z)))
		}
		if zr.Subnets == nil {
			zr.Subnets = []string{}
		}
		r.rep.Zones = append(r.rep.Zones, *zr)
	}
	r.rep.PrivateSubnets = chosen
	r.rep.SelectorTerms = karpenterapi.CloneTerms(r.in.PrivateSubnets)
	if r.in.PrivateSubnets == nil {
		for _, s := range chosen {
			r.rep.SelectorTerms = append(r.rep.SelectorTerms, karpenterapi.SelectorTerm{ID: s.ID})
		}
	}
	return nil
}

func selectedBy(terms []karpenterapi.SelectorTerm) string {
	if terms == nil {
		return ""
	}
	var s []string
	for _, t := range terms {
		s = append(s, t.String())
	}
	return " among those selected by " + strings.Join(s, " or ")
}

// requested are the subnets Input.PrivateSubnets select: public ones and
// ids of no subnet of the VPC are findings, and left out.
func (r *run) requested(all []Subnet) []Subnet {
	var out []Subnet
	for _, t := range r.in.PrivateSubnets {
		if t.ID != "" && !slices.ContainsFunc(all, func(s Subnet) bool { return s.ID == t.ID }) {
			r.add(CodeSubnetNotEligible, fmt.Sprintf("subnet %s, selected for the move, is no subnet of %s", t.ID, r.in.VPCID),
				diagnose.Evidence{Names: []string{t.ID, r.in.VPCID}}, "", r.manual("select subnets of the cluster's VPC "+r.in.VPCID))
		}
	}
	for _, s := range all {
		if !karpenterapi.Selects(r.in.PrivateSubnets, s.ID, s.Tags) {
			continue
		}
		if s.Public {
			r.add(CodeSubnetNotEligible, fmt.Sprintf("subnet %s (%s), selected for the move, is public", s.ID, s.Zone),
				diagnose.Evidence{Names: []string{s.ID}, Details: map[string]string{"zone": s.Zone}}, "",
				r.manual(fmt.Sprintf("select private subnets only: %s routes 0.0.0.0/0 to an internet gateway or maps public addresses on launch", s.ID)))
			continue
		}
		if r.zones[s.Zone] != nil {
			out = append(out, s)
		}
	}
	return out
}

// judgeEgress sets a chosen subnet's egress, and records a NoEgress
// finding when it has none.
func (r *run) judgeEgress(s *Subnet) {
	rt := r.tables.For(s.ID, r.in.VPCID)
	if rt != nil && netcheck.RoutesToNAT(*rt) != "" {
		s.Egress = EgressNAT
		return
	}
	if !r.endpsRead {
		return // noted: the endpoints could not be read
	}
	for _, svc := range endpointServices {
		name := "com.amazonaws." + r.in.Region + "." + svc
		if !slices.ContainsFunc(r.endpoints, func(e ec2types.VpcEndpoint) bool { return serves(e, name, rt) }) {
			s.MissingEndpoints = append(s.MissingEndpoints, name)
		}
	}
	if len(s.MissingEndpoints) == 0 {
		s.Egress = EgressEndpoints
		return
	}
	s.Egress = EgressNone
	r.add(CodeNoEgress, fmt.Sprintf("subnet %s (%s) has no NAT route and lacks the VPC endpoints %s", s.ID, s.Zone, strings.Join(s.MissingEndpoints, ", ")),
		diagnose.Evidence{Names: slices.Concat([]string{s.ID}, s.MissingEndpoints), Details: map[string]string{"zone": s.Zone}}, "",
		r.manual(fmt.Sprintf("route 0.0.0.0/0 of %s's route table to a NAT gateway, or create the endpoints %s", s.ID, strings.Join(s.MissingEndpoints, ", "))))
}

// serves reports whether endpoint e, available, gives the service name
// to a subnet whose route table is rt: an Interface endpoint of the VPC,
// or a Gateway one associated with rt.
func serves(e ec2types.VpcEndpoint, name string, rt *ec2types.RouteTable) bool {
	if aws.ToString(e.ServiceName) != name || !strings.EqualFold(string(e.State), "available") {
		return false
	}
	switch {
	case strings.EqualFold(string(e.VpcEndpointType), string(ec2types.VpcEndpointTypeInterface)):
		return true
	case strings.EqualFold(string(e.VpcEndpointType), string(ec2types.VpcEndpointTypeGateway)):
		return rt != nil && slices.Contains(e.RouteTableIds, aws.ToString(rt.RouteTableId))
	}
	return false
}
