package elbv2model

// targets.go: RegisterTargets, DeregisterTargets, DescribeTargetHealth.

import (
	"errors"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
)

// tgSnapshot is what target validation needs of a target group, read under
// the lock and used without it.
type tgSnapshot struct {
	targetType types.TargetTypeEnum
	vpcID      string
	port       int32
}

func (m *Model) snapshotTG(arn string) (tgSnapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	tg, err := m.tgLocked(arn)
	if err != nil {
		return tgSnapshot{}, err
	}
	return tgSnapshot{targetType: tg.targetType, vpcID: tg.vpcID, port: tg.port}, nil
}

// parseTarget checks the shape of one TargetDescription against the target
// group's type and returns its key (the port defaults to the target group's).
func parseTarget(td types.TargetDescription, s tgSnapshot) (targetKey, error) {
	if td.Id == nil || *td.Id == "" {
		return targetKey{}, validationf("every target needs an Id")
	}
	id := *td.Id
	port := s.port
	if td.Port != nil {
		if *td.Port < 1 || *td.Port > 65535 {
			return targetKey{}, validationf("target %s: Port %d is outside 1-65535", id, *td.Port)
		}
		port = *td.Port
	}
	switch s.targetType {
	case types.TargetTypeEnumIp:
		a, err := netip.ParseAddr(id)
		if err != nil || !a.Is4() {
			return targetKey{}, invalidTarget("the IP address '%s' is not a valid IPv4 address", id)
		}
	case types.TargetTypeEnumInstance:
		if !strings.HasPrefix(id, "i-") {
			return targetKey{}, invalidTarget("the instance ID '%s' is not valid", id)
		}
	}
	return targetKey{id: id, port: port}, nil
}

// targetZoneAll reports whether a target is registered with
// AvailabilityZone all. Any other zone an ip target names is ignored: the
// model takes an address's zone from its zone source, as AWS detects it
// from the subnet. Instance targets take no AvailabilityZone
// (ValidationError), as AWS says.
func targetZoneAll(td types.TargetDescription, s tgSnapshot) (bool, error) {
	if td.AvailabilityZone == nil {
		return false, nil
	}
	if s.targetType == types.TargetTypeEnumInstance {
		return false, validationf("target %s: AvailabilityZone is not supported for targets of type instance", aws.ToString(td.Id))
	}
	return *td.AvailabilityZone == ZoneAll, nil
}

// resolveTarget returns the address of a target that is about to be
// registered, or InvalidTarget. It calls the Network, so it must run
// without the lock.
func (m *Model) resolveTarget(key targetKey, s tgSnapshot) (string, error) {
	if s.targetType == types.TargetTypeEnumInstance {
		if m.resolver == nil {
			return "", invalidTarget("the instance ID '%s' is not valid (the simulated network resolves no instances)", key.id)
		}
		ip, ok := m.resolver.InstanceIP(key.id)
		if !ok {
			return "", invalidTarget("the instance ID '%s' is not valid", key.id)
		}
		return ip, nil
	}
	if !m.inVPC(s.vpcID, key.id) {
		return "", invalidTarget("the IP address '%s' is not within the CIDR of VPC '%s'", key.id, s.vpcID)
	}
	return key.id, nil
}

// inVPC reports whether ip belongs to the VPC: by its CIDR from
// Options.VPCs when known, else by asking the Network.
func (m *Model) inVPC(vpcID, ip string) bool {
	if p, ok, _ := m.vpc(vpcID); ok {
		a, err := netip.ParseAddr(ip)
		return err == nil && p.Contains(a)
	}
	return m.network.InVPC(vpcID, ip)
}

// RegisterTargets registers targets with a target group. Each target is
// identified by its Id and Port (the target group's port when Port is
// omitted). A target already registered is left as it is; a draining one
// starts over as a new registration. Every target is checked before any is
// registered: an IP outside the VPC fails the whole call with InvalidTarget.
func (m *Model) RegisterTargets(in *elbv2.RegisterTargetsInput) (*elbv2.RegisterTargetsOutput, error) {
	if in == nil || in.TargetGroupArn == nil {
		return nil, validationf("TargetGroupArn is required")
	}
	if len(in.Targets) == 0 {
		return nil, validationf("Targets must not be empty")
	}
	snap, err := m.snapshotTG(*in.TargetGroupArn)
	if err != nil {
		return nil, err
	}
	type reg struct {
		key targetKey
		ip  string
		// all: registered with AvailabilityZone all.
		all bool
	}
	regs := make([]reg, 0, len(in.Targets))
	seen := make(map[targetKey]bool, len(in.Targets))
	for _, td := range in.Targets {
		key, err := parseTarget(td, snap)
		if err != nil {
			return nil, err
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		all, err := targetZoneAll(td, snap)
		if err != nil {
			return nil, err
		}
		ip, err := m.resolveTarget(key, snap)
		if err != nil {
			return nil, err
		}
		regs = append(regs, reg{key: key, ip: ip, all: all})
	}

	m.mu.Lock()
	tg, err := m.tgLocked(*in.TargetGroupArn)
	if err != nil {
		m.mu.Unlock()
		return nil, err
	}
	added := 0
	for _, r := range regs {
		if _, ok := tg.targets[r.key]; !ok {
			added++
		}
	}
	if n := len(tg.targets) + added; n > m.quotas.TargetsPerTargetGroup {
		m.mu.Unlock()
		return nil, &types.TooManyTargetsException{Message: aws.String("the target group would have " + strconv.Itoa(n) + " targets; the limit is " + strconv.Itoa(m.quotas.TargetsPerTargetGroup))}
	}
	if tg.lb != nil {
		ids := map[string]int{}
		for _, r := range regs {
			if _, ok := tg.targets[r.key]; !ok {
				ids[r.key.id]++
			}
		}
		if err := m.checkLBQuotasLocked(m.lbTargetGroupsLocked(tg.lb), added, ids); err != nil {
			var tooMany *types.TooManyTargetsException
			if errors.As(err, &tooMany) {
				m.quotaRefused[tg.arn] = append(m.quotaRefused[tg.arn], m.clock.Now())
			}
			m.mu.Unlock()
			return nil, err
		}
	}
	now := m.clock.Now()
	for _, r := range regs {
		t, ok := tg.targets[r.key]
		if ok && t.state != types.TargetHealthStateEnumDraining {
			continue
		}
		if !ok {
			t = &target{tg: tg, key: r.key}
			tg.targets[r.key] = t
			tg.order = append(tg.order, t)
		}
		// Registered again: the load balancer's nodes learn the new
		// registration, and route to it only once it is healthy.
		tg.stale = slices.DeleteFunc(tg.stale, func(s staleTarget) bool { return s.key == r.key })
		t.ip, t.allZones = r.ip, r.all
		if tg.lb == nil {
			m.unusedLocked(t, now)
		} else {
			m.activateLocked(t, now)
		}
	}
	if tg.lb != nil {
		m.notePeakLocked(tg.lb, m.lbTargetGroupsLocked(tg.lb))
	}
	m.unlockAndNotify()
	return &elbv2.RegisterTargetsOutput{}, nil
}

// DeregisterTargets starts draining targets. A target is identified by Id
// and Port, the Port defaulting to the target group's: so a target that was
// registered on another port and is deregistered without its Port is not
// found, and, as in AWS, the call succeeds and does nothing for it. A target
// that is not registered, or already draining, is left as it is.
func (m *Model) DeregisterTargets(in *elbv2.DeregisterTargetsInput) (*elbv2.DeregisterTargetsOutput, error) {
	if in == nil || in.TargetGroupArn == nil {
		return nil, validationf("TargetGroupArn is required")
	}
	if len(in.Targets) == 0 {
		return nil, validationf("Targets must not be empty")
	}
	snap, err := m.snapshotTG(*in.TargetGroupArn)
	if err != nil {
		return nil, err
	}
	keys := make([]targetKey, 0, len(in.Targets))
	for _, td := range in.Targets {
		key, err := parseTarget(td, snap)
		if err != nil {
			return nil, err
		}
		if snap.targetType == types.TargetTypeEnumIp && !m.inVPC(snap.vpcID, key.id) {
			return nil, invalidTarget("the IP address '%s' is not within the CIDR of VPC '%s'", key.id, snap.vpcID)
		}
		keys = append(keys, key)
	}

	m.mu.Lock()
	tg, err := m.tgLocked(*in.TargetGroupArn)
	if err != nil {
		m.mu.Unlock()
		return nil, err
	}
	now := m.clock.Now()
	sel, _ := m.selectionLocked(tg, now)
	for _, k := range keys {
		t, ok := tg.targets[k]
		if !ok || t.state == types.TargetHealthStateEnumDraining {
			continue
		}
		m.drainLocked(t, now, m.takesLocked(sel, t))
	}
	m.unlockAndNotify()
	return &elbv2.DeregisterTargetsOutput{}, nil
}

// DescribeTargetHealth reports the health of a target group's targets: all
// registered and draining ones in registration order, or those named in
// Targets, in that order (an unregistered one as unused with
// Target.NotRegistered). It is not paginated.
func (m *Model) DescribeTargetHealth(in *elbv2.DescribeTargetHealthInput) (*elbv2.DescribeTargetHealthOutput, error) {
	if in == nil || in.TargetGroupArn == nil {
		return nil, validationf("TargetGroupArn is required")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	tg, err := m.tgLocked(*in.TargetGroupArn)
	if err != nil {
		return nil, err
	}
	snap := tgSnapshot{targetType: tg.targetType, vpcID: tg.vpcID, port: tg.port}
	out := &elbv2.DescribeTargetHealthOutput{}
	if len(in.Targets) == 0 {
		out.TargetHealthDescriptions = make([]types.TargetHealthDescription, 0, len(tg.order))
		for _, t := range tg.order {
			out.TargetHealthDescriptions = append(out.TargetHealthDescriptions, tg.healthOf(t.key, t))
		}
		return out, nil
	}
	out.TargetHealthDescriptions = make([]types.TargetHealthDescription, 0, len(in.Targets))
	for _, td := range in.Targets {
		key, err := parseTarget(td, snap)
		if err != nil {
			return nil, err
		}
		out.TargetHealthDescriptions = append(out.TargetHealthDescriptions, tg.healthOf(key, tg.targets[key]))
	}
	return out, nil
}

// healthOf describes the target registered under key; t is nil when none is.
func (tg *targetGroup) healthOf(key targetKey, t *target) types.TargetHealthDescription {
	hcPort := key.port
	if tg.hc.portNum != 0 {
		hcPort = tg.hc.portNum
	}
	d := types.TargetHealthDescription{
		Target:          &types.TargetDescription{Id: aws.String(key.id), Port: aws.Int32(key.port)},
		HealthCheckPort: aws.String(strconv.Itoa(int(hcPort))),
		TargetHealth:    &types.TargetHealth{},
	}
	state, reason := types.TargetHealthStateEnumUnused, types.TargetHealthReasonEnumNotRegistered
	if t != nil {
		state, reason = t.state, t.reason
		if t.allZones {
			d.Target.AvailabilityZone = aws.String(ZoneAll)
		}
	}
	d.TargetHealth.State = state
	if reason != "" {
		d.TargetHealth.Reason = reason
		desc := description(reason)
		if t != nil && t.zoneOff {
			desc = descriptionZoneNotEnabled
		}
		d.TargetHealth.Description = aws.String(desc)
	}
	return d
}
