package elbv2model

// loadbalancer.go: load balancers, listeners and rules.

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
)

// defaultRulePriority sorts the default rule after every other rule (the
// highest priority a rule can have is 50000).
const defaultRulePriority = 50001

type loadBalancer struct {
	arn       string
	name      string
	id        string
	seq       uint64
	vpcID     string
	created   time.Time
	listeners []*listener // creation order
	// securityGroups are its security groups (SetSecurityGroups).
	securityGroups []string
	// zones are its enabled Availability Zones, zone name -> subnet ID
	// (SetLoadBalancerZones); nil: every zone.
	zones map[string]string
}

type listener struct {
	arn         string
	id          string
	seq         uint64
	lb          *loadBalancer
	port        int32
	protocol    types.ProtocolEnum
	actions     checkedActions // the default actions
	rules       []*rule        // the non-default rules, creation order
	defaultRule *rule
}

type rule struct {
	arn        string
	seq        uint64
	listener   *listener
	priority   int32 // defaultRulePriority for the default rule
	isDefault  bool
	conditions []types.RuleCondition
	actions    checkedActions // unused for the default rule: see listener.actions
}

func (r *rule) currentActions() checkedActions {
	if r.isDefault {
		return r.listener.actions
	}
	return r.actions
}

// AddLoadBalancer creates an internet-facing Application Load Balancer in
// the VPC, with no listener, and returns its ARN. It is a setup helper, not
// an SDK operation. A taken name fails with DuplicateLoadBalancerName.
func (m *Model) AddLoadBalancer(name, vpcID string) (string, error) {
	if !lbNameRe.MatchString(name) || strings.HasPrefix(name, "internal-") {
		return "", validationf("load balancer name %q must be 1-32 letters, digits or hyphens, must not begin or end with a hyphen and must not begin with internal-", name)
	}
	if vpcID == "" {
		return "", validationf("a load balancer needs a VPC")
	}
	if _, known, some := m.vpc(vpcID); some && !known {
		return "", validationf("the VPC ID %q is not found", vpcID)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.lbByName[name]; ok {
		return "", &types.DuplicateLoadBalancerNameException{Message: aws.String("a load balancer named " + name + " already exists")}
	}
	seq, id := m.nextIDLocked()
	lb := &loadBalancer{
		arn: m.arnPrefix() + "loadbalancer/app/" + name + "/" + id, name: name, id: id,
		seq: seq, vpcID: vpcID, created: m.clock.Now(),
	}
	m.lbs[lb.arn] = lb
	m.lbByName[name] = lb
	return lb.arn, nil
}

// AddListener adds an HTTP listener on port to a load balancer, with its
// default actions, and returns its ARN. It is a setup helper, not an SDK
// operation; the actions are validated as ModifyListener validates them.
func (m *Model) AddListener(lbARN string, port int32, defaultActions []types.Action) (string, error) {
	if port < 1 || port > 65535 {
		return "", validationf("listener port %d is outside 1-65535", port)
	}
	m.mu.Lock()
	lb, ok := m.lbs[lbARN]
	if !ok {
		m.mu.Unlock()
		return "", lbNotFound(lbARN)
	}
	if slices.ContainsFunc(lb.listeners, func(l *listener) bool { return l.port == port }) {
		m.mu.Unlock()
		return "", &types.DuplicateListenerException{Message: aws.String("a listener already exists on port " + strconv.Itoa(int(port)))}
	}
	checked, err := m.checkActionsLocked(lb, defaultActions)
	if err == nil {
		err = m.checkLBQuotasLocked(m.lbTargetGroupsWithLocked(lb, nil, checked.tgs), 0, nil)
	}
	if err != nil {
		m.mu.Unlock()
		return "", err
	}
	seq, id := m.nextIDLocked()
	l := &listener{
		arn: m.arnPrefix() + "listener/app/" + lb.name + "/" + lb.id + "/" + id, id: id,
		seq: seq, lb: lb, port: port, protocol: types.ProtocolEnumHttp, actions: checked,
	}
	rseq, rid := m.nextIDLocked()
	l.defaultRule = &rule{
		arn: m.arnPrefix() + "listener-rule/app/" + lb.name + "/" + lb.id + "/" + id + "/" + rid,
		seq: rseq, listener: l, priority: defaultRulePriority, isDefault: true,
	}
	lb.listeners = append(lb.listeners, l)
	m.listeners[l.arn] = l
	m.rules[l.defaultRule.arn] = l.defaultRule
	m.routingChangedLocked(lb)
	m.unlockAndNotify()
	return l.arn, nil
}

// AddRule adds a rule with a priority (1-50000, unique per listener),
// conditions and actions to a listener and returns its ARN. It is a setup
// helper, not an SDK operation. Conditions are stored, not evaluated.
func (m *Model) AddRule(listenerARN string, priority int32, conditions []types.RuleCondition, actions []types.Action) (string, error) {
	if priority < 1 || priority > 50000 {
		return "", validationf("rule priority %d is outside 1-50000", priority)
	}
	if len(conditions) == 0 {
		return "", validationf("a rule needs at least one condition")
	}
	conds, err := checkConditions(conditions)
	if err != nil {
		return "", err
	}
	m.mu.Lock()
	l, ok := m.listeners[listenerARN]
	if !ok {
		m.mu.Unlock()
		return "", listenerNotFound(listenerARN)
	}
	if slices.ContainsFunc(l.rules, func(r *rule) bool { return r.priority == priority }) {
		m.mu.Unlock()
		return "", &types.PriorityInUseException{Message: aws.String("priority " + strconv.Itoa(int(priority)) + " is in use")}
	}
	checked, err := m.checkActionsLocked(l.lb, actions)
	if err == nil {
		err = m.checkLBQuotasLocked(m.lbTargetGroupsWithLocked(l.lb, nil, checked.tgs), 0, nil)
	}
	if err != nil {
		m.mu.Unlock()
		return "", err
	}
	seq, id := m.nextIDLocked()
	r := &rule{
		arn: m.arnPrefix() + "listener-rule/app/" + l.lb.name + "/" + l.lb.id + "/" + l.id + "/" + id,
		seq: seq, listener: l, priority: priority, conditions: conds, actions: checked,
	}
	l.rules = append(l.rules, r)
	m.rules[r.arn] = r
	m.routingChangedLocked(l.lb)
	m.unlockAndNotify()
	return r.arn, nil
}

// lbTargetGroupsWithLocked returns, in creation order, the target groups
// lb's listeners and rules forward to, with the actions of skip (a
// *listener for its default actions, or a *rule) replaced by extra.
func (m *Model) lbTargetGroupsWithLocked(lb *loadBalancer, skip any, extra []*targetGroup) []*targetGroup {
	set := slices.Clone(extra)
	for _, l := range lb.listeners {
		if skip != any(l) {
			set = append(set, l.actions.tgs...)
		}
		for _, r := range l.rules {
			if skip != any(r) {
				set = append(set, r.actions.tgs...)
			}
		}
	}
	slices.SortFunc(set, func(a, b *targetGroup) int { return cmp.Compare(a.seq, b.seq) })
	return slices.Compact(set)
}

func (m *Model) lbTargetGroupsLocked(lb *loadBalancer) []*targetGroup {
	return m.lbTargetGroupsWithLocked(lb, nil, nil)
}

// checkLBQuotasLocked checks the per-load-balancer quotas for the target
// groups set, with added more targets, ids counting the new registrations
// per target ID.
func (m *Model) checkLBQuotasLocked(set []*targetGroup, added int, ids map[string]int) error {
	if len(set) > m.quotas.TargetGroupsPerLoadBalancer {
		return &types.TooManyUniqueTargetGroupsPerLoadBalancerException{Message: aws.String(fmt.Sprintf("a load balancer can use at most %d target groups", m.quotas.TargetGroupsPerLoadBalancer))}
	}
	total := added
	counts := make(map[string]int, len(ids))
	for id, n := range ids {
		counts[id] += n
	}
	for _, tg := range set {
		total += len(tg.targets)
		for _, t := range tg.order {
			counts[t.key.id]++
		}
	}
	if total > m.quotas.TargetsPerLoadBalancer {
		return &types.TooManyTargetsException{Message: aws.String(fmt.Sprintf("the load balancer would have %d targets; the limit is %d", total, m.quotas.TargetsPerLoadBalancer))}
	}
	var over []string
	for id, n := range counts {
		if n > m.quotas.RegistrationsPerTarget {
			over = append(over, id)
		}
	}
	if len(over) > 0 {
		slices.Sort(over)
		return &types.TooManyRegistrationsForTargetIdException{Message: aws.String(fmt.Sprintf("target %s would be registered %d times with the load balancer; the limit is %d", over[0], counts[over[0]], m.quotas.RegistrationsPerTarget))}
	}
	return nil
}

// routingChangedLocked recomputes which target groups lb uses after its
// listeners or rules changed. Target groups it starts using have their
// unused targets start registration; those it stops using park theirs.
func (m *Model) routingChangedLocked(lb *loadBalancer) {
	m.routingVersion++
	now := m.clock.Now()
	used := m.lbTargetGroupsLocked(lb)
	m.notePeakLocked(lb, used)
	for _, tg := range used {
		if tg.lb == lb {
			continue
		}
		tg.lb = lb
		for _, t := range tg.order {
			if t.state != types.TargetHealthStateEnumDraining && !t.stopped {
				m.activateLocked(t, now)
			}
		}
	}
	var dropped []*targetGroup
	for _, tg := range m.tgs {
		if tg.lb == lb && !slices.Contains(used, tg) {
			dropped = append(dropped, tg)
		}
	}
	slices.SortFunc(dropped, func(a, b *targetGroup) int { return cmp.Compare(a.seq, b.seq) })
	for _, tg := range dropped {
		tg.lb = nil
		for _, t := range tg.order {
			if t.state != types.TargetHealthStateEnumDraining {
				m.unusedLocked(t, now)
			}
		}
	}
}

// notePeakLocked raises lb's high-water mark of targets to the targets of
// used, the target groups it uses, counted as checkLBQuotasLocked counts
// them against Quotas.TargetsPerLoadBalancer (every registered target,
// draining ones included).
func (m *Model) notePeakLocked(lb *loadBalancer, used []*targetGroup) {
	total := 0
	for _, tg := range used {
		total += len(tg.targets)
	}
	if total > m.peak[lb.arn] {
		m.peak[lb.arn] = total
	}
}

// PeakTargets returns the most targets the load balancer lbARN has had at
// once since it was created, summed over the target groups it used then,
// as its Quotas.TargetsPerLoadBalancer is enforced: every registered
// target, draining ones included. Zero for a load balancer the model does
// not know. It is a read for tests and reports, not an SDK operation.
func (m *Model) PeakTargets(lbARN string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.peak[lbARN]
}

// QuotaRefusals returns when a RegisterTargets on the target group
// tgARN was refused with TooManyTargets for its load balancer's target
// quota (Quotas.TargetsPerLoadBalancer, draining targets counted), in
// order; nil when none was. A refusal for the target group's own quota
// (TargetsPerTargetGroup) is not one. It is a read for tests and
// reports, not an SDK operation.
func (m *Model) QuotaRefusals(tgARN string) []time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.quotaRefused[tgARN])
}

func (lb *loadBalancer) describe() types.LoadBalancer {
	return types.LoadBalancer{
		LoadBalancerArn:   aws.String(lb.arn),
		LoadBalancerName:  aws.String(lb.name),
		DNSName:           aws.String(fmt.Sprintf("%s-%s.elb.amazonaws.com", lb.name, lb.id[:10])),
		Scheme:            types.LoadBalancerSchemeEnumInternetFacing,
		Type:              types.LoadBalancerTypeEnumApplication,
		State:             &types.LoadBalancerState{Code: types.LoadBalancerStateEnumActive},
		VpcId:             aws.String(lb.vpcID),
		IpAddressType:     types.IpAddressTypeIpv4,
		CreatedTime:       aws.Time(lb.created),
		SecurityGroups:    slices.Clone(lb.securityGroups),
		AvailabilityZones: lb.describeZones(),
	}
}

// SetSecurityGroups sets a load balancer's security groups, as
// SetSecurityGroups does (a setup helper: the model does not check that
// the groups exist; package ec2sim holds them).
func (m *Model) SetSecurityGroups(lbARN string, groups ...string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	lb, ok := m.lbs[lbARN]
	if !ok {
		return lbNotFound(lbARN)
	}
	lb.securityGroups = slices.Clone(groups)
	return nil
}

func (l *listener) describe() types.Listener {
	return types.Listener{
		ListenerArn:     aws.String(l.arn),
		LoadBalancerArn: aws.String(l.lb.arn),
		Port:            aws.Int32(l.port),
		Protocol:        l.protocol,
		DefaultActions:  copyActions(l.actions.actions),
	}
}

func (r *rule) describe() types.Rule {
	out := types.Rule{
		RuleArn:    aws.String(r.arn),
		IsDefault:  aws.Bool(r.isDefault),
		Actions:    copyActions(r.currentActions().actions),
		Conditions: copyConditions(r.conditions),
	}
	if r.isDefault {
		out.Priority = aws.String("default")
	} else {
		out.Priority = aws.String(strconv.Itoa(int(r.priority)))
	}
	return out
}

// DescribeLoadBalancers lists load balancers, all of them or those named by
// LoadBalancerArns or Names, in creation order, PageSize (1-400) at a time.
func (m *Model) DescribeLoadBalancers(in *elbv2.DescribeLoadBalancersInput) (*elbv2.DescribeLoadBalancersOutput, error) {
	if in == nil {
		in = &elbv2.DescribeLoadBalancersInput{}
	}
	if len(in.LoadBalancerArns) > 0 && len(in.Names) > 0 {
		return nil, validationf("specify at most one of LoadBalancerArns and Names")
	}
	if len(in.LoadBalancerArns) > 20 {
		return nil, validationf("at most 20 LoadBalancerArns, not %d", len(in.LoadBalancerArns))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var list []*loadBalancer
	switch {
	case len(in.LoadBalancerArns) > 0:
		for _, a := range in.LoadBalancerArns {
			lb, ok := m.lbs[a]
			if !ok {
				return nil, lbNotFound(a)
			}
			list = append(list, lb)
		}
	case len(in.Names) > 0:
		for _, n := range in.Names {
			lb, ok := m.lbByName[n]
			if !ok {
				return nil, lbNotFound(n)
			}
			list = append(list, lb)
		}
	default:
		for _, lb := range m.lbs {
			list = append(list, lb)
		}
	}
	sortBySeq(list, func(lb *loadBalancer) uint64 { return lb.seq })
	list = slices.Compact(list)
	pg, next, err := page(list, func(lb *loadBalancer) uint64 { return lb.seq }, "lb", in.Marker, in.PageSize)
	if err != nil {
		return nil, err
	}
	out := &elbv2.DescribeLoadBalancersOutput{LoadBalancers: make([]types.LoadBalancer, 0, len(pg)), NextMarker: next}
	for _, lb := range pg {
		out.LoadBalancers = append(out.LoadBalancers, lb.describe())
	}
	return out, nil
}

// DescribeListeners lists the listeners of a load balancer, or those named
// by ListenerArns (exactly one of the two), PageSize (1-400) at a time.
func (m *Model) DescribeListeners(in *elbv2.DescribeListenersInput) (*elbv2.DescribeListenersOutput, error) {
	if in == nil || (in.LoadBalancerArn == nil) == (len(in.ListenerArns) == 0) {
		return nil, validationf("specify either LoadBalancerArn or ListenerArns")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var list []*listener
	if in.LoadBalancerArn != nil {
		lb, ok := m.lbs[*in.LoadBalancerArn]
		if !ok {
			return nil, lbNotFound(*in.LoadBalancerArn)
		}
		list = slices.Clone(lb.listeners)
	} else {
		for _, a := range in.ListenerArns {
			l, ok := m.listeners[a]
			if !ok {
				return nil, listenerNotFound(a)
			}
			list = append(list, l)
		}
	}
	sortBySeq(list, func(l *listener) uint64 { return l.seq })
	list = slices.Compact(list)
	pg, next, err := page(list, func(l *listener) uint64 { return l.seq }, "listener", in.Marker, in.PageSize)
	if err != nil {
		return nil, err
	}
	out := &elbv2.DescribeListenersOutput{Listeners: make([]types.Listener, 0, len(pg)), NextMarker: next}
	for _, l := range pg {
		out.Listeners = append(out.Listeners, l.describe())
	}
	return out, nil
}

// DescribeRules lists the rules of a listener by priority, the default rule
// last, or those named by RuleArns (exactly one of the two), PageSize
// (1-400) at a time.
func (m *Model) DescribeRules(in *elbv2.DescribeRulesInput) (*elbv2.DescribeRulesOutput, error) {
	if in == nil || (in.ListenerArn == nil) == (len(in.RuleArns) == 0) {
		return nil, validationf("specify either ListenerArn or RuleArns")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var list []*rule
	key := func(r *rule) uint64 { return r.seq }
	if in.ListenerArn != nil {
		l, ok := m.listeners[*in.ListenerArn]
		if !ok {
			return nil, listenerNotFound(*in.ListenerArn)
		}
		list = append(slices.Clone(l.rules), l.defaultRule)
		key = func(r *rule) uint64 { return uint64(r.priority) }
	} else {
		for _, a := range in.RuleArns {
			r, ok := m.rules[a]
			if !ok {
				return nil, ruleNotFound(a)
			}
			list = append(list, r)
		}
	}
	sortBySeq(list, key)
	list = slices.Compact(list)
	pg, next, err := page(list, key, "rule", in.Marker, in.PageSize)
	if err != nil {
		return nil, err
	}
	out := &elbv2.DescribeRulesOutput{Rules: make([]types.Rule, 0, len(pg)), NextMarker: next}
	for _, r := range pg {
		out.Rules = append(out.Rules, r.describe())
	}
	return out, nil
}

// ModifyListener changes a listener's port or replaces its whole list of
// default actions (weighted forwarding is changed this way). Certificates,
// SSL policies, ALPN and mutual TLS are not modelled and are rejected.
func (m *Model) ModifyListener(in *elbv2.ModifyListenerInput) (*elbv2.ModifyListenerOutput, error) {
	if in == nil || in.ListenerArn == nil {
		return nil, validationf("ListenerArn is required")
	}
	if len(in.Certificates) > 0 || in.SslPolicy != nil || len(in.AlpnPolicy) > 0 || in.MutualAuthentication != nil {
		return nil, validationf("certificates, SSL policies, ALPN and mutual authentication are not modelled by the simulator")
	}
	if in.Protocol != "" && in.Protocol != types.ProtocolEnumHttp {
		return nil, validationf("listener protocol %s is not modelled by the simulator (HTTP only)", in.Protocol)
	}
	if in.Port != nil && (*in.Port < 1 || *in.Port > 65535) {
		return nil, validationf("listener port %d is outside 1-65535", *in.Port)
	}
	m.mu.Lock()
	l, ok := m.listeners[*in.ListenerArn]
	if !ok {
		m.mu.Unlock()
		return nil, listenerNotFound(*in.ListenerArn)
	}
	if in.Port != nil && slices.ContainsFunc(l.lb.listeners, func(o *listener) bool { return o != l && o.port == *in.Port }) {
		m.mu.Unlock()
		return nil, &types.DuplicateListenerException{Message: aws.String("a listener already exists on port " + strconv.Itoa(int(*in.Port)))}
	}
	checked := l.actions
	if len(in.DefaultActions) > 0 {
		var err error
		checked, err = m.checkActionsLocked(l.lb, in.DefaultActions)
		if err == nil {
			err = m.checkLBQuotasLocked(m.lbTargetGroupsWithLocked(l.lb, l, checked.tgs), 0, nil)
		}
		if err != nil {
			m.mu.Unlock()
			return nil, err
		}
	}
	if in.Port != nil {
		l.port = *in.Port
	}
	l.actions = checked
	m.routingChangedLocked(l.lb)
	out := &elbv2.ModifyListenerOutput{Listeners: []types.Listener{l.describe()}}
	m.unlockAndNotify()
	return out, nil
}

// ModifyRule replaces a rule's conditions or its whole list of actions.
// The default rule's actions change through ModifyListener; ModifyRule on
// the default rule fails with OperationNotPermitted. Transforms are not
// modelled and are rejected.
func (m *Model) ModifyRule(in *elbv2.ModifyRuleInput) (*elbv2.ModifyRuleOutput, error) {
	if in == nil || in.RuleArn == nil {
		return nil, validationf("RuleArn is required")
	}
	if len(in.Transforms) > 0 || (in.ResetTransforms != nil && *in.ResetTransforms) {
		return nil, validationf("rule transforms are not modelled by the simulator")
	}
	var conds []types.RuleCondition
	if len(in.Conditions) > 0 {
		var err error
		if conds, err = checkConditions(in.Conditions); err != nil {
			return nil, err
		}
	}
	m.mu.Lock()
	r, ok := m.rules[*in.RuleArn]
	if !ok {
		m.mu.Unlock()
		return nil, ruleNotFound(*in.RuleArn)
	}
	if r.isDefault && (len(in.Actions) > 0 || len(in.Conditions) > 0) {
		m.mu.Unlock()
		return nil, notPermitted("the default rule's actions change through ModifyListener, and it has no conditions")
	}
	checked := r.actions
	if len(in.Actions) > 0 {
		var err error
		checked, err = m.checkActionsLocked(r.listener.lb, in.Actions)
		if err == nil {
			err = m.checkLBQuotasLocked(m.lbTargetGroupsWithLocked(r.listener.lb, r, checked.tgs), 0, nil)
		}
		if err != nil {
			m.mu.Unlock()
			return nil, err
		}
	}
	if conds != nil {
		r.conditions = conds
	}
	r.actions = checked
	m.routingChangedLocked(r.listener.lb)
	out := &elbv2.ModifyRuleOutput{Rules: []types.Rule{r.describe()}}
	m.unlockAndNotify()
	return out, nil
}

func sortBySeq[T any](list []T, key func(T) uint64) {
	slices.SortFunc(list, func(a, b T) int { return cmp.Compare(key(a), key(b)) })
}
