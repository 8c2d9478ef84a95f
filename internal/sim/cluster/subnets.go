package cluster

// subnets.go: the subnets as the rest of the world sees them: SubnetView,
// Cluster.Subnets and Cluster.ZoneOf.

import (
	"cmp"
	"net/netip"
	"slices"
)

// SubnetView is a read-only snapshot of one of the cluster's subnets.
type SubnetView struct {
	// ID is the subnet's ID: "subnet-private-<zone>" or "subnet-public-<zone>".
	ID string
	// Zone is its availability zone.
	Zone string
	// CIDR is its address range, one eighth of the VPC's CIDR.
	CIDR netip.Prefix
	// Public: nodes launched in it get an ExternalIP.
	Public bool
	// Free is how many of its addresses no node or pod holds now, as the
	// cluster's address management counts them: the addresses never handed
	// out (the five AWS reserves excluded) plus those given back, whether
	// or not their reuse cool-down ([Options].IPReuse) has passed.
	Free int
}

// Subnets returns every subnet of the cluster, one private and one public
// per zone, sorted by zone, then the private one before the public one.
func (cl *Cluster) Subnets() []SubnetView {
	out := make([]SubnetView, 0, len(cl.private)+len(cl.public))
	for _, set := range []map[string]*subnet{cl.private, cl.public} {
		for _, s := range set {
			out = append(out, SubnetView{ID: s.id, Zone: s.zone, CIDR: s.prefix, Public: s.public, Free: s.free()})
		}
	}
	slices.SortFunc(out, func(a, b SubnetView) int {
		if c := cmp.Compare(a.Zone, b.Zone); c != 0 {
			return c
		}
		switch {
		case a.Public == b.Public:
			return 0
		case a.Public:
			return 1
		}
		return -1
	})
	return out
}

// ZoneOf returns the availability zone of the subnet whose CIDR holds ip,
// and false when ip lies in none of the cluster's subnets (outside the VPC,
// or not IPv4). The world gives it to the load balancer model as its zone
// source. It reads only what [New] set, so it may be called from any
// goroutine.
func (cl *Cluster) ZoneOf(ip netip.Addr) (string, bool) {
	ip = ip.Unmap()
	if !ip.Is4() || !cl.o.cidr.Contains(ip) {
		return "", false
	}
	for _, set := range []map[string]*subnet{cl.private, cl.public} {
		for _, s := range set {
			if s.prefix.Contains(ip) {
				return s.zone, true
			}
		}
	}
	return "", false
}
