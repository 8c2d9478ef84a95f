package tgmigratetest

// move.go: the world of step 4, the move to private subnets: Options.Move
// (Move, Egress), its translation into the simulator's, and what a test
// of package subnets reads and does (World.PublicNodes, World.Zones,
// World.EnableZones).

import (
	"fmt"
	"strings"

	"github.com/qstools/tgmigrate/internal/sim"
)

// Move builds the world of step 4 (Options.Move): its nodes start in
// public subnets, with public addresses, and the VPC has a private subnet
// in each of its zones beside the public one. EC2 ([World.EC2]) then
// serves the subnets (tagged kubernetes.io/role/elb or
// kubernetes.io/role/internal-elb, and karpenter.sh/discovery:
// [ClusterName]), their route tables (the public ones to an internet
// gateway, the private ones as Egress says) and the VPC endpoints;
// Karpenter's EC2NodeClass "default" selects the public subnets with
// associatePublicIPAddress true, which subnets' move rewrites, and its
// NodePool "default" drifts and replaces the nodes when it does; and the
// load balancer enables every zone, each on its public subnet
// ([World.EnableZones] changes that). subnets.CheckReadiness finds such a
// world Ready once no target group pins the nodes' addresses (after a
// cutover), and subnets.Execute moves it.
type Move struct {
	// Egress is how the private subnets reach AWS's APIs. Zero:
	// [EgressNAT].
	Egress Egress
}

// Egress is how a step-4 world's private subnets reach AWS's APIs.
type Egress string

// The egresses of a step-4 world, spelled as the simulator's (whose
// names go doc would show as an internal package's).
const (
	// EgressNAT: a NAT gateway per zone, each private route table's
	// default route.
	EgressNAT Egress = "nat"
	// EgressEndpoints: no NAT, VPC endpoints of ECR (api and dkr), S3
	// (gateway), STS and EC2 in the private subnets.
	EgressEndpoints Egress = "endpoints"
	// EgressNone: neither, a broken world: readiness finds NoEgress.
	EgressNone Egress = "none"
)

// check refuses a bad Move; nil is none.
func (m *Move) check() error {
	if m == nil {
		return nil
	}
	bad := func(field, reason string) error { return optionsError("new world", "Move."+field, reason) }
	switch m.Egress {
	case "", EgressNAT, EgressEndpoints, EgressNone:
	default:
		return bad("Egress", fmt.Sprintf("%q is not %s, %s or %s", m.Egress, EgressNAT, EgressEndpoints, EgressNone))
	}
	return nil
}

// apply sets the simulator's configuration of a step-4 world.
func (m *Move) apply(cfg *sim.Config) {
	if m == nil {
		return
	}
	cfg.PublicSubnets = true
	cfg.Move = sim.MoveWorld{Enabled: true, PrivateEgress: string(m.Egress)}
}

// PublicNodes returns how many of the world's nodes are in a public
// subnet or have a public address: all of a step-4 world's at its start,
// none once subnets' move is done.
func (w *World) PublicNodes() int {
	n := 0
	for _, node := range w.w.Cluster().Nodes() {
		if node.Public || node.ExternalIP != "" {
			n++
		}
	}
	return n
}

// Zones returns the Availability Zones of the world's cluster, each with
// a private and a public subnet, in order.
func (w *World) Zones() []string { return w.w.Cluster().Zones() }

// EnableZones sets the zones the load balancer enables, each on its
// public subnet, as a change of its subnets in AWS would: ip targets in
// another zone become unused at once (Target.NotInUse) and take no more
// requests, and subnets' readiness finds ZoneNotEnabled. No zones: every
// zone again. It needs a step-4 world (Options.Move), and at least two
// zones of [World.Zones], none twice (an ALB's rule); otherwise an
// [*OptionsError] naming "zones", and nothing changes.
func (w *World) EnableZones(zones ...string) error {
	bad := func(field, reason string) error { return optionsError("enable zones", field, reason) }
	if !w.move {
		return bad("Move", "is nil: only a step-4 world knows its targets' zones")
	}
	if len(zones) == 0 {
		zones = w.Zones()
	}
	if len(zones) < 2 {
		return bad("zones", fmt.Sprintf("%d zones: an ALB enables at least two", len(zones)))
	}
	public := map[string]string{}
	for _, s := range w.w.Cluster().Subnets() {
		if s.Public {
			public[s.Zone] = s.ID
		}
	}
	enabled := map[string]string{}
	for _, z := range zones {
		id, ok := public[z]
		switch {
		case !ok:
			return bad("zones", fmt.Sprintf("%q is not a zone of the cluster (%s)", z, strings.Join(w.Zones(), ", ")))
		case enabled[z] != "":
			return bad("zones", fmt.Sprintf("%q is given twice", z))
		}
		enabled[z] = id
	}
	if err := w.w.Model().SetLoadBalancerZones(w.legacy.LoadBalancerARN.String(), enabled); err != nil {
		return fmt.Errorf("tgmigratetest: enable zones: %w", err)
	}
	return nil
}
