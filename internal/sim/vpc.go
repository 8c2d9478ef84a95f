package sim

// vpc.go: the world of step 4 (Config.Move): the cluster's subnets,
// route tables and VPC endpoints in EC2, Karpenter's view of the subnets
// and its EC2NodeClass, and the load balancer's zones.

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/qstools/tgmigrate/internal/karpenterapi"
	"github.com/qstools/tgmigrate/internal/sim/cluster"
	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
)

// EndpointServices are the VPC endpoint services a node in a subnet
// without a NAT route needs to join the cluster and pull images, by their
// last part: com.amazonaws.<region>.<name>.
var EndpointServices = []string{"ec2", "ecr.api", "ecr.dkr", "s3", "sts"}

// InternetGateway is the world's internet gateway, the public subnets'
// default route.
const InternetGateway = "igw-sim"

// subnetTags are the tags of a simulated subnet of tier public or private
// in the cluster named cluster.
func subnetTags(cluster string, public bool) map[string]string {
	tier, role := "private", "kubernetes.io/role/internal-elb"
	if public {
		tier, role = "public", "kubernetes.io/role/elb"
	}
	return map[string]string{role: "1", "karpenter.sh/discovery": cluster, TagTier: tier}
}

// karpenterSubnets is Karpenter's view of the cluster's subnets.
func (w *World) karpenterSubnets() []karpenter.Subnet {
	var out []karpenter.Subnet
	for _, s := range w.cl.Subnets() {
		out = append(out, karpenter.Subnet{ID: s.ID, Zone: s.Zone, Public: s.Public, Tags: subnetTags(w.cfg.ClusterName, s.Public)})
	}
	return out
}

// nodeClass is the seed's EC2NodeClass: the subnets of the nodes' tier,
// by tag, and associatePublicIPAddress as the tier says.
func (w *World) nodeClass() karpenter.NodeClass {
	tier := "private"
	if w.cfg.PublicSubnets {
		tier = "public"
	}
	public := w.cfg.PublicSubnets
	return karpenter.NodeClass{
		SubnetSelectorTerms:      []karpenterapi.SelectorTerm{{Tags: map[string]string{TagTier: tier}}},
		AssociatePublicIPAddress: &public,
		SecurityGroups:           []karpenterapi.StatusSecurityGroup{{ID: w.nodeSG, Name: "nodes"}},
	}
}

// seedVPC puts the cluster's subnets into EC2 with their route tables
// and the egress Config.Move.PrivateEgress says. Free addresses are read
// from the cluster at each DescribeSubnets.
func (w *World) seedVPC() error {
	vpc := w.cl.VPCID()
	subnets := w.cl.Subnets()
	free := func(id string) func() int {
		return func() int {
			for _, s := range w.cl.Subnets() {
				if s.ID == id {
					return s.Free
				}
			}
			return 0
		}
	}
	var public, private []cluster.SubnetView
	for _, s := range subnets {
		if err := w.ec2.AddSubnet(ec2sim.SubnetSpec{ID: s.ID, VpcID: vpc, Zone: s.Zone, CIDR: s.CIDR.String(),
			MapPublicIPOnLaunch: s.Public, Tags: subnetTags(w.cfg.ClusterName, s.Public), Available: free(s.ID)}); err != nil {
			return fmt.Errorf("seed subnet %s: %w", s.ID, err)
		}
		if s.Public {
			public = append(public, s)
		} else {
			private = append(private, s)
		}
	}
	if _, err := w.ec2.AddRouteTable(ec2sim.RouteTableSpec{ID: "rtb-main", VpcID: vpc, Main: true}); err != nil {
		return fmt.Errorf("seed main route table: %w", err)
	}
	ids := func(ss []cluster.SubnetView) []string {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = s.ID
		}
		return out
	}
	if _, err := w.ec2.AddRouteTable(ec2sim.RouteTableSpec{ID: "rtb-public", VpcID: vpc, Subnets: ids(public),
		Routes: []ec2sim.Route{{Destination: "0.0.0.0/0", GatewayID: InternetGateway}}}); err != nil {
		return fmt.Errorf("seed public route table: %w", err)
	}
	var privateTables []string
	for _, s := range private {
		var routes []ec2sim.Route
		if w.cfg.Move.PrivateEgress == EgressNAT {
			routes = []ec2sim.Route{{Destination: "0.0.0.0/0", NatGatewayID: "nat-" + s.Zone}}
		}
		id, err := w.ec2.AddRouteTable(ec2sim.RouteTableSpec{ID: "rtb-private-" + s.Zone, VpcID: vpc, Subnets: []string{s.ID}, Routes: routes})
		if err != nil {
			return fmt.Errorf("seed private route table of %s: %w", s.Zone, err)
		}
		privateTables = append(privateTables, id)
	}
	if w.cfg.Move.PrivateEgress != EgressEndpoints {
		return nil
	}
	for _, svc := range EndpointServices {
		spec := ec2sim.VpcEndpointSpec{ID: "vpce-" + strings.ReplaceAll(svc, ".", "-"), VpcID: vpc,
			ServiceName: "com.amazonaws." + DefaultRegion + "." + svc, Type: "Interface", SubnetIDs: ids(private), PrivateDNS: true}
		if svc == "s3" {
			spec.Type, spec.SubnetIDs, spec.PrivateDNS, spec.RouteTableIDs = "Gateway", nil, false, privateTables
		}
		if _, err := w.ec2.AddVpcEndpoint(spec); err != nil {
			return fmt.Errorf("seed endpoint %s: %w", svc, err)
		}
	}
	return nil
}

// enableZones sets the load balancer's zones (Config.Move.LoadBalancerZones,
// or every zone of the cluster), each on the zone's public subnet, and
// lets the model tell an ip target's zone from the cluster's subnets.
func (w *World) enableZones() error {
	zones := w.cfg.Move.LoadBalancerZones
	if zones == nil {
		zones = w.cl.Zones()
	}
	bySubnet := map[string]string{}
	for _, s := range w.cl.Subnets() {
		if s.Public {
			bySubnet[s.Zone] = s.ID
		}
	}
	enabled := map[string]string{}
	for _, z := range zones {
		id, ok := bySubnet[z]
		if !ok {
			return &ConfigError{Field: "Move.LoadBalancerZones", Reason: fmt.Sprintf("%q is not a zone of the cluster (%s)", z, strings.Join(slices.Sorted(maps.Keys(bySubnet)), ", "))}
		}
		enabled[z] = id
	}
	if err := w.model.SetLoadBalancerZones(w.legacy.LoadBalancerARN, enabled); err != nil {
		return fmt.Errorf("enable zones: %w", err)
	}
	w.model.SetZoneSource(w.cl.ZoneOf)
	return nil
}
