package elbv2model

// targetgroup.go: target groups: create, modify, delete, describe.

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate/internal/awserr"
)

// targetGroup is one target group and its registered targets.
type targetGroup struct {
	arn             string
	name            string
	seq             uint64
	targetType      types.TargetTypeEnum
	protocol        types.ProtocolEnum
	protocolVersion string
	port            int32
	vpcID           string
	hc              healthCheck
	attrs           map[string]string
	// lb is the load balancer whose listeners or rules forward to the
	// target group; nil when none does (its targets are then unused).
	lb *loadBalancer
	// targets holds every registered or draining target; order holds the
	// same targets in registration order, for deterministic iteration.
	targets map[targetKey]*target
	order   []*target
	// stale are the targets the load balancer still routes to after their
	// deregistration (Options.DeregistrationLag), in deregistration order.
	stale []staleTarget
}

// staleTarget is a deregistered target still in the load balancer's
// rotation until until.
type staleTarget struct {
	key   targetKey
	ep    Endpoint
	until time.Time
	// allZones: registered with AvailabilityZone all.
	allZones bool
}

// sameConfig reports whether two target groups were created with the same
// settings, which makes a repeated CreateTargetGroup idempotent.
func (tg *targetGroup) sameConfig(o *targetGroup) bool {
	return tg.targetType == o.targetType && tg.protocol == o.protocol &&
		tg.protocolVersion == o.protocolVersion && tg.port == o.port &&
		tg.vpcID == o.vpcID && tg.hc == o.hc
}

func (tg *targetGroup) describe() types.TargetGroup {
	out := types.TargetGroup{
		TargetGroupArn:             aws.String(tg.arn),
		TargetGroupName:            aws.String(tg.name),
		TargetType:                 tg.targetType,
		Protocol:                   tg.protocol,
		ProtocolVersion:            aws.String(tg.protocolVersion),
		Port:                       aws.Int32(tg.port),
		VpcId:                      aws.String(tg.vpcID),
		IpAddressType:              types.TargetGroupIpAddressTypeEnumIpv4,
		HealthCheckEnabled:         aws.Bool(true),
		HealthCheckProtocol:        tg.hc.protocol,
		HealthCheckPort:            aws.String(tg.hc.port),
		HealthCheckPath:            aws.String(tg.hc.path),
		HealthCheckIntervalSeconds: aws.Int32(tg.hc.interval),
		HealthCheckTimeoutSeconds:  aws.Int32(tg.hc.timeout),
		HealthyThresholdCount:      aws.Int32(tg.hc.healthy),
		UnhealthyThresholdCount:    aws.Int32(tg.hc.unhealthy),
		Matcher:                    &types.Matcher{HttpCode: aws.String(tg.hc.matcher)},
		LoadBalancerArns:           []string{},
	}
	if tg.lb != nil {
		out.LoadBalancerArns = []string{tg.lb.arn}
	}
	return out
}

// tgLocked finds a live target group by ARN.
func (m *Model) tgLocked(arn string) (*targetGroup, error) {
	tg, ok := m.tgs[arn]
	if !ok {
		return nil, tgNotFound(arn)
	}
	return tg, nil
}

// CreateTargetGroup creates an HTTP or HTTPS target group of type ip or
// instance. Creating a target group whose name exists with the same settings
// returns the existing one, as AWS does; with other settings it fails with
// DuplicateTargetGroupName.
func (m *Model) CreateTargetGroup(in *elbv2.CreateTargetGroupInput) (*elbv2.CreateTargetGroupOutput, error) {
	if in == nil || in.Name == nil {
		return nil, validationf("Name is required")
	}
	name := *in.Name
	if !awserr.ValidTargetGroupName(name) {
		return nil, validationf("target group name %q must be 1-32 letters, digits or hyphens, must not begin or end with a hyphen and must not begin with internal-", name)
	}
	tt := in.TargetType
	if tt == "" {
		tt = types.TargetTypeEnumInstance
	}
	if tt != types.TargetTypeEnumIp && tt != types.TargetTypeEnumInstance {
		return nil, validationf("target type %s is not modelled by the simulator (ip and instance only)", tt)
	}
	if in.Protocol == "" || in.Port == nil || in.VpcId == nil {
		return nil, validationf("a target group of type %s requires Protocol, Port and VpcId", tt)
	}
	if in.Protocol != types.ProtocolEnumHttp && in.Protocol != types.ProtocolEnumHttps {
		return nil, validationf("protocol %s is not modelled by the simulator (Application Load Balancer target groups: HTTP and HTTPS)", in.Protocol)
	}
	if *in.Port < 1 || *in.Port > 65535 {
		return nil, validationf("Port %d is outside 1-65535", *in.Port)
	}
	pv := "HTTP1"
	if in.ProtocolVersion != nil {
		switch *in.ProtocolVersion {
		case "HTTP1", "HTTP2":
			pv = *in.ProtocolVersion
		default:
			return nil, validationf("ProtocolVersion %q is not modelled by the simulator (HTTP1 and HTTP2 only)", *in.ProtocolVersion)
		}
	}
	if in.IpAddressType != "" && in.IpAddressType != types.TargetGroupIpAddressTypeEnumIpv4 {
		return nil, validationf("IpAddressType %s is not modelled by the simulator (ipv4 only)", in.IpAddressType)
	}
	if in.TargetControlPort != nil {
		return nil, validationf("TargetControlPort is not modelled by the simulator")
	}
	if _, known, some := m.vpc(*in.VpcId); some && !known {
		return nil, validationf("the VPC ID %q is not found", *in.VpcId)
	}
	hc, err := defaultHealthCheck(in.Protocol).merge(hcFields{
		enabled: in.HealthCheckEnabled, interval: in.HealthCheckIntervalSeconds,
		path: in.HealthCheckPath, port: in.HealthCheckPort, protocol: in.HealthCheckProtocol,
		timeout: in.HealthCheckTimeoutSeconds, healthy: in.HealthyThresholdCount,
		unhealthy: in.UnhealthyThresholdCount, matcher: in.Matcher,
	})
	if err != nil {
		return nil, err
	}
	tags, err := m.validateTags(in.Tags)
	if err != nil {
		return nil, err
	}
	if len(tags) > m.quotas.TagsPerResource {
		return nil, &types.TooManyTagsException{Message: aws.String("too many tags")}
	}
	want := &targetGroup{
		name: name, targetType: tt, protocol: in.Protocol, protocolVersion: pv,
		port: *in.Port, vpcID: *in.VpcId, hc: hc,
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.tgByName[name]; ok {
		if !old.sameConfig(want) {
			return nil, &types.DuplicateTargetGroupNameException{Message: aws.String("A target group with the same name '" + name + "' exists, but with different settings")}
		}
		return &elbv2.CreateTargetGroupOutput{TargetGroups: []types.TargetGroup{old.describe()}}, nil
	}
	if len(m.tgs) >= m.quotas.TargetGroupsPerRegion {
		return nil, &types.TooManyTargetGroupsException{Message: aws.String("the account has reached the limit of " + strconv.Itoa(m.quotas.TargetGroupsPerRegion) + " target groups")}
	}
	seq, id := m.nextIDLocked()
	want.seq = seq
	want.arn = m.arnPrefix() + "targetgroup/" + name + "/" + id
	want.attrs = defaultAttributes()
	want.targets = map[targetKey]*target{}
	m.tgs[want.arn] = want
	m.tgByName[name] = want
	if len(tags) > 0 {
		m.tags[want.arn] = tags
	}
	return &elbv2.CreateTargetGroupOutput{TargetGroups: []types.TargetGroup{want.describe()}}, nil
}

// ModifyTargetGroup changes a target group's health-check settings, the
// only settings AWS lets change. A new interval takes effect from the next
// check of each target.
func (m *Model) ModifyTargetGroup(in *elbv2.ModifyTargetGroupInput) (*elbv2.ModifyTargetGroupOutput, error) {
	if in == nil || in.TargetGroupArn == nil {
		return nil, validationf("TargetGroupArn is required")
	}
	m.mu.Lock()
	tg, err := m.tgLocked(*in.TargetGroupArn)
	if err != nil {
		m.mu.Unlock()
		return nil, err
	}
	hc, err := tg.hc.merge(hcFields{
		enabled: in.HealthCheckEnabled, interval: in.HealthCheckIntervalSeconds,
		path: in.HealthCheckPath, port: in.HealthCheckPort, protocol: in.HealthCheckProtocol,
		timeout: in.HealthCheckTimeoutSeconds, healthy: in.HealthyThresholdCount,
		unhealthy: in.UnhealthyThresholdCount, matcher: in.Matcher,
	})
	if err != nil {
		m.mu.Unlock()
		return nil, err
	}
	oldInterval := tg.hc.interval
	tg.hc = hc
	if hc.interval != oldInterval {
		now := m.clock.Now()
		for _, t := range tg.order {
			if t.checking() {
				m.scheduleChecksLocked(t, now.Add(tg.hcInterval()))
			}
		}
	}
	out := &elbv2.ModifyTargetGroupOutput{TargetGroups: []types.TargetGroup{tg.describe()}}
	m.unlockAndNotify()
	return out, nil
}

// DeleteTargetGroup deletes a target group that no listener or rule uses,
// with its targets. A target group in use fails with ResourceInUse. An ARN
// that names no target group succeeds and does nothing.
func (m *Model) DeleteTargetGroup(in *elbv2.DeleteTargetGroupInput) (*elbv2.DeleteTargetGroupOutput, error) {
	if in == nil || in.TargetGroupArn == nil {
		return nil, validationf("TargetGroupArn is required")
	}
	m.mu.Lock()
	tg, ok := m.tgs[*in.TargetGroupArn]
	if !ok {
		m.mu.Unlock()
		return &elbv2.DeleteTargetGroupOutput{}, nil
	}
	if tg.lb != nil {
		m.mu.Unlock()
		return nil, &types.ResourceInUseException{Message: aws.String("Target group '" + tg.arn + "' is currently in use by a listener or a rule")}
	}
	now := m.clock.Now()
	for _, t := range slices.Clone(tg.order) {
		m.removeLocked(t, now)
	}
	delete(m.tgs, tg.arn)
	delete(m.tgByName, tg.name)
	delete(m.tags, tg.arn)
	m.unlockAndNotify()
	return &elbv2.DeleteTargetGroupOutput{}, nil
}

// DescribeTargetGroups lists target groups, all of them or those named by
// one of Names, TargetGroupArns or LoadBalancerArn, in creation order,
// PageSize (1-400) at a time.
func (m *Model) DescribeTargetGroups(in *elbv2.DescribeTargetGroupsInput) (*elbv2.DescribeTargetGroupsOutput, error) {
	if in == nil {
		in = &elbv2.DescribeTargetGroupsInput{}
	}
	filters := 0
	if len(in.Names) > 0 {
		filters++
	}
	if len(in.TargetGroupArns) > 0 {
		filters++
	}
	if in.LoadBalancerArn != nil {
		filters++
	}
	if filters > 1 {
		return nil, validationf("specify at most one of LoadBalancerArn, TargetGroupArns and Names")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var list []*targetGroup
	switch {
	case len(in.Names) > 0:
		for _, n := range in.Names {
			tg, ok := m.tgByName[n]
			if !ok {
				return nil, tgNotFound(n)
			}
			list = append(list, tg)
		}
	case len(in.TargetGroupArns) > 0:
		for _, a := range in.TargetGroupArns {
			tg, err := m.tgLocked(a)
			if err != nil {
				return nil, err
			}
			list = append(list, tg)
		}
	case in.LoadBalancerArn != nil:
		lb, ok := m.lbs[*in.LoadBalancerArn]
		if !ok {
			return nil, lbNotFound(*in.LoadBalancerArn)
		}
		for _, tg := range m.tgs {
			if tg.lb == lb {
				list = append(list, tg)
			}
		}
	default:
		for _, tg := range m.tgs {
			list = append(list, tg)
		}
	}
	slices.SortFunc(list, func(a, b *targetGroup) int { return cmp.Compare(a.seq, b.seq) })
	list = slices.CompactFunc(list, func(a, b *targetGroup) bool { return a == b })
	pg, next, err := page(list, func(tg *targetGroup) uint64 { return tg.seq }, "tg", in.Marker, in.PageSize)
	if err != nil {
		return nil, err
	}
	out := &elbv2.DescribeTargetGroupsOutput{TargetGroups: make([]types.TargetGroup, 0, len(pg)), NextMarker: next}
	for _, tg := range pg {
		out.TargetGroups = append(out.TargetGroups, tg.describe())
	}
	return out, nil
}
