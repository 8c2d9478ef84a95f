package elbv2model

// zones.go: Availability Zones: a load balancer's enabled zones, the zone
// source, and the targets parked in a zone no load balancer serves.

import (
	"maps"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
)

// ZoneAll is the AvailabilityZone of an ip target the load balancer
// reaches from every zone (an address outside the VPC): such a target is
// never parked for its zone.
const ZoneAll = "all"

// ZoneSource tells which Availability Zone an address is in, and false
// when it knows none (the world gives the cluster's Cluster.ZoneOf). The
// model calls it with its lock held: it must be quick and must not call
// the model.
type ZoneSource func(ip netip.Addr) (zone string, ok bool)

// descriptionZoneNotEnabled is the Description of a target that is unused
// / Target.NotInUse because its zone is not enabled for the load balancer.
const descriptionZoneNotEnabled = "Target is in an Availability Zone that is not enabled for the load balancer"

// SetZoneSource sets the zone source, nil for none, and applies it at once:
// every registered target whose zone is enabled on no load balancer of its
// target group is parked (unused / Target.NotInUse), and every parked
// target whose zone is now enabled starts registration again. Without a
// zone source no target is ever parked for its zone.
func (m *Model) SetZoneSource(src ZoneSource) {
	m.mu.Lock()
	m.zoneOf = src
	tgs := make([]*targetGroup, 0, len(m.tgs))
	for _, tg := range m.tgs {
		tgs = append(tgs, tg)
	}
	sortBySeq(tgs, func(tg *targetGroup) uint64 { return tg.seq }) // deterministic transitions
	now := m.clock.Now()
	for _, tg := range tgs {
		m.applyZonesLocked(tg, now)
	}
	m.unlockAndNotify()
}

// SetLoadBalancerZones sets the Availability Zones a load balancer has
// enabled, each with its subnet (zone name -> subnet ID), as SetSubnets
// does; nil or empty enables every zone again, the default of a new load
// balancer. As AWS requires of an Application Load Balancer, it needs at
// least two zones, each with one subnet ("subnet-..."), no subnet twice.
// It is a setup helper, not an SDK operation: the model does not check the
// subnets against EC2. With a zone source ([Model.SetZoneSource]), targets
// of the load balancer's target groups in a zone no longer enabled become
// unused / Target.NotInUse at once and take no more requests (and
// deregistered targets there leave the rotation of the deregistration
// lag); targets parked in a zone now enabled start registration again.
// Bad input changes nothing.
func (m *Model) SetLoadBalancerZones(lbARN string, zones map[string]string) error {
	if len(zones) > 0 {
		if err := checkZones(zones); err != nil {
			return err
		}
	}
	m.mu.Lock()
	lb, ok := m.lbs[lbARN]
	if !ok {
		m.mu.Unlock()
		return lbNotFound(lbARN)
	}
	lb.zones = nil
	if len(zones) > 0 {
		lb.zones = maps.Clone(zones)
	}
	now := m.clock.Now()
	for _, tg := range m.lbTargetGroupsLocked(lb) {
		m.applyZonesLocked(tg, now)
	}
	m.unlockAndNotify()
	return nil
}

// checkZones validates the zones of SetLoadBalancerZones.
func checkZones(zones map[string]string) error {
	if len(zones) < 2 {
		return validationf("an Application Load Balancer needs subnets in at least two Availability Zones, not %d", len(zones))
	}
	names := slices.Sorted(maps.Keys(zones))
	seen := make(map[string]string, len(zones))
	for _, z := range names {
		subnet := zones[z]
		if z == "" || z == ZoneAll {
			return validationf("Availability Zone %q is not a zone name", z)
		}
		if !strings.HasPrefix(subnet, "subnet-") || len(subnet) == len("subnet-") {
			return validationf("Availability Zone %s: subnet ID %q is not valid", z, subnet)
		}
		if other, dup := seen[subnet]; dup {
			return validationf("subnet %s is given for both %s and %s", subnet, other, z)
		}
		seen[subnet] = z
	}
	return nil
}

// LoadBalancerZones returns the zones a load balancer has enabled (zone
// name -> subnet ID), nil when it has every zone enabled (the default).
// It fails with LoadBalancerNotFound.
func (m *Model) LoadBalancerZones(lbARN string) (map[string]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	lb, ok := m.lbs[lbARN]
	if !ok {
		return nil, lbNotFound(lbARN)
	}
	return maps.Clone(lb.zones), nil
}

// describeZones is lb's AvailabilityZones as DescribeLoadBalancers gives
// them, by zone name; nil when every zone is enabled (the model then knows
// no subnet to name).
func (lb *loadBalancer) describeZones() []types.AvailabilityZone {
	if lb.zones == nil {
		return nil
	}
	out := make([]types.AvailabilityZone, 0, len(lb.zones))
	for _, z := range slices.Sorted(maps.Keys(lb.zones)) {
		out = append(out, types.AvailabilityZone{ZoneName: aws.String(z), SubnetId: aws.String(lb.zones[z])})
	}
	return out
}

// servesLocked reports whether lb serves an address: it has every zone
// enabled, the address is exempt (all), there is no zone source, the
// source knows no zone for it, or its zone is enabled.
func (m *Model) servesLocked(lb *loadBalancer, ip string, allZones bool) bool {
	if lb == nil || lb.zones == nil || allZones || m.zoneOf == nil {
		return true
	}
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return true
	}
	zone, ok := m.zoneOf(a)
	if !ok {
		return true
	}
	_, on := lb.zones[zone]
	return on
}

// activateLocked starts t's registration with its target group's load
// balancer, or parks it when that load balancer does not serve its zone.
func (m *Model) activateLocked(t *target, now time.Time) {
	if m.servesLocked(t.tg.lb, t.ip, t.allZones) {
		m.startRegistrationLocked(t, now)
		return
	}
	m.unusedLocked(t, now)
	t.zoneOff = true
}

// applyZonesLocked brings tg's targets in line with its load balancer's
// zones: those in a zone it no longer serves are parked, those parked in
// a zone it serves again start registration, and deregistered targets in
// a zone it does not serve leave the rotation.
func (m *Model) applyZonesLocked(tg *targetGroup, now time.Time) {
	if tg.lb == nil {
		return
	}
	for _, t := range tg.order {
		if t.state == types.TargetHealthStateEnumDraining || t.stopped {
			continue
		}
		serves := m.servesLocked(tg.lb, t.ip, t.allZones)
		switch {
		case serves && t.zoneOff:
			m.startRegistrationLocked(t, now)
		case !serves && !t.zoneOff:
			m.unusedLocked(t, now)
			t.zoneOff = true
		}
	}
	tg.stale = slices.DeleteFunc(tg.stale, func(s staleTarget) bool { return !m.servesLocked(tg.lb, s.ep.IP, s.allZones) })
}
