package diagnose

// This file compares each cutover's overlap with ELBv2's quotas on
// targets: it reads the account's quotas once, counts the pod targets the
// controller would register next to the targets there now, reads the
// targets of the load balancers' other target groups when the scan has
// not, and computes the headroom. rule_quota.go makes the findings.

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	corev1 "k8s.io/api/core/v1"

	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/read"
	"github.com/qstools/tgmigrate/internal/retry"
)

// guardedSQ routes the Service Quotas calls through the account's
// read.Caller: the rate limiter, retries of throttling, call counting
// (APICalls) and [ErrNilResponse] for a nil output.
type guardedSQ struct{ a *accountScan }

var _ ServiceQuotasAPI = guardedSQ{}

// GetServiceQuota is the rate-limited, retried and counted call.
func (g guardedSQ) GetServiceQuota(ctx context.Context, in *servicequotas.GetServiceQuotaInput, optFns ...func(*servicequotas.Options)) (*servicequotas.GetServiceQuotaOutput, error) {
	return read.Call(ctx, g.a.c, "GetServiceQuota", aws.ToString(in.QuotaCode), func(ctx context.Context) (*servicequotas.GetServiceQuotaOutput, error) {
		return g.a.acct.ServiceQuotas.GetServiceQuota(ctx, in, optFns...)
	})
}

// GetAWSDefaultServiceQuota is the rate-limited, retried and counted call.
func (g guardedSQ) GetAWSDefaultServiceQuota(ctx context.Context, in *servicequotas.GetAWSDefaultServiceQuotaInput, optFns ...func(*servicequotas.Options)) (*servicequotas.GetAWSDefaultServiceQuotaOutput, error) {
	return read.Call(ctx, g.a.c, "GetAWSDefaultServiceQuota", aws.ToString(in.QuotaCode), func(ctx context.Context) (*servicequotas.GetAWSDefaultServiceQuotaOutput, error) {
		return g.a.acct.ServiceQuotas.GetAWSDefaultServiceQuota(ctx, in, optFns...)
	})
}

// NoQuotasRead is the note of quotas taken as AWS's defaults because the
// scan ended before Service Quotas was read.
const NoQuotasRead = "Service Quotas not read (the scan ended first): AWS's documented default"

// readQuotas reads the account's quotas on targets, once: through its
// Service Quotas client when it has one, AWS's documented defaults
// otherwise. do retries each call already, so ReadTargetQuotas tries once.
func (a *accountScan) readQuotas(ctx context.Context) {
	q := DefaultTargetQuotas(NoServiceQuotas)
	if a.acct.ServiceQuotas != nil {
		q = ReadTargetQuotas(ctx, guardedSQ{a}, a.cfg.clock, retry.Policy{MaxAttempts: 1})
	}
	a.quotas = &q
}

// targetQuotas returns the account's quotas; AWS's defaults when they were
// never read.
func (a *accountScan) targetQuotas() TargetQuotas {
	if a.quotas == nil {
		q := DefaultTargetQuotas(NoQuotasRead)
		a.quotas = &q
	}
	return *a.quotas
}

// overlap is what a target group's cutover does to its count of targets.
type overlap struct {
	// adding counts the pod targets the controller would register: the
	// Service's ready endpoints on the target port that are not
	// registered already.
	adding int
	// leaving counts the targets the cutover deregisters: the node
	// targets and ghosts in place, every target for blue/green (the
	// target group is retired).
	leaving int
	// blueGreen: an instance target group; its pods go to a new ip
	// target group.
	blueGreen bool
}

// cutoverOverlap computes the overlap of the target group's cutover, and
// false when there is none to compare with a quota: its targets or the
// Service (with its port, its pods and Services listed) are unknown, or
// the controller would register no new target.
func (a *analysis) cutoverOverlap() (overlap, bool) {
	st := a.service
	if a.rep.Owner.Kind == OwnerOutside || st == nil || st.svc == nil || st.port == nil ||
		!st.snap.listed(ListPods) || !st.snap.listed(ListServices) {
		return overlap{}, false
	}
	o := overlap{leaving: a.rep.Counts.ByClass[ClassNode] + a.rep.Counts.ByClass[ClassGhost]}
	switch a.rep.TargetType {
	case "ip":
	case "instance":
		o = overlap{leaving: len(a.rep.Targets), blueGreen: true}
	default:
		return overlap{}, false
	}
	registered := map[string]bool{}
	if !o.blueGreen {
		for _, t := range a.rep.Targets {
			registered[t.Key()] = true
		}
	}
	for _, p := range st.snap.podsOfService(st.svc) {
		if !lbcRegisters(p) {
			continue
		}
		tp, ok := targetPortOn(p, *st.port)
		if !ok {
			continue
		}
		key := p.Status.PodIP + ":" + strconv.Itoa(int(tp))
		if !registered[key] {
			registered[key] = true
			o.adding++
		}
	}
	return o, o.adding > 0
}

// lbcRegisters reports whether the controller registers the pod as a
// target: a pod with an address, not terminating, Ready, or whose
// containers are ready and which waits on the controller's readiness gate
// only.
func lbcRegisters(p *corev1.Pod) bool {
	if p.DeletionTimestamp != nil || p.Status.PodIP == "" {
		return false
	}
	var ready, containersReady bool
	for _, c := range p.Status.Conditions {
		switch c.Type {
		case corev1.PodReady:
			ready = c.Status == corev1.ConditionTrue
		case corev1.ContainersReady:
			containersReady = c.Status == corev1.ConditionTrue
		}
	}
	if ready {
		return true
	}
	return containersReady && slices.ContainsFunc(p.Spec.ReadinessGates, func(g corev1.PodReadinessGate) bool {
		return strings.HasPrefix(string(g.ConditionType), ReadinessGatePrefix)
	})
}

// lbTargets counts the targets of load balancers across their target
// groups. The zero value is usable; it is safe for concurrent use.
type lbTargets struct {
	// members are each load balancer's target groups, by load balancer ARN.
	members map[string][]string
	// count is the number of targets of each target group, by ARN; a
	// target group whose targets could not be read has none.
	count map[string]int
}

// others counts the targets of the load balancer's target groups other
// than tg, and false when a target group of it could not be read.
func (l *lbTargets) others(lb, tg string) (int, bool) {
	members, ok := l.members[lb]
	if !ok {
		return 0, false
	}
	n := 0
	for _, m := range members {
		if m == tg {
			continue
		}
		c, ok := l.count[m]
		if !ok {
			return 0, false
		}
		n += c
	}
	return n, true
}

// quotaChecks counts the targets of every load balancer that a target
// group with a cutover overlap names, over all its target groups: the
// counts the scan has, and for the others one paged DescribeTargetGroups
// per load balancer whose target groups discovery did not list, then one
// DescribeTargetHealth per target group outside the scan. A load balancer
// with a target group that cannot be read is an error, and its headroom
// is not computed.
func (r *run) quotaChecks(ctx context.Context) {
	r.lbs = lbTargets{members: map[string][]string{}, count: map[string]int{}}
	type need struct {
		a  *accountScan
		lb string
	}
	var needs []need
	inScan := map[string]*tgState{}
	seen := map[string]bool{}
	for _, s := range r.tgs {
		inScan[s.rep.ARN] = s
		if s.scanned {
			r.lbs.count[s.rep.ARN] = len(s.targets)
		}
	}
	for _, s := range r.tgs {
		if s.overlap == nil {
			continue
		}
		for _, lb := range s.rep.LoadBalancerARNs {
			if _, ok := s.acct.targetQuotas().ForLoadBalancer(lb); !ok || seen[lb] {
				continue
			}
			seen[lb] = true
			if m, ok := s.acct.members[lb]; ok {
				r.lbs.members[lb] = m
				continue
			}
			needs = append(needs, need{s.acct, lb})
		}
	}
	var items []item
	for _, n := range needs {
		items = append(items, item{kind: KindLoadBalancer, resource: n.lb, op: "DescribeTargetGroups", acct: n.a,
			run: func(ctx context.Context) {
				tgs, err := n.a.r.TargetGroups(ctx, elbv2.DescribeTargetGroupsInput{LoadBalancerArn: aws.String(n.lb)})
				if err != nil {
					r.addErr(n.a.resourceError(KindLoadBalancer, n.lb, "DescribeTargetGroups", err))
					return
				}
				r.mu.Lock()
				r.lbs.members[n.lb] = tgARNs(tgs)
				r.mu.Unlock()
			}})
	}
	r.phase(ctx, PhaseQuotas, items)

	// The target groups outside the scan, each read once for all its
	// load balancers.
	lbsOf := map[string][]string{}
	acctOf := map[string]*accountScan{}
	for _, n := range needs {
		acctOf[n.lb] = n.a
	}
	for lb := range seen {
		if acctOf[lb] == nil {
			for _, s := range r.tgs {
				if slices.Contains(s.rep.LoadBalancerARNs, lb) {
					acctOf[lb] = s.acct
					break
				}
			}
		}
		for _, m := range r.lbs.members[lb] {
			if inScan[m] == nil {
				lbsOf[m] = append(lbsOf[m], lb)
			}
		}
	}
	items = nil
	for _, tg := range slices.Sorted(maps.Keys(lbsOf)) {
		lbs := slices.Sorted(slices.Values(lbsOf[tg]))
		a := acctOf[lbs[0]]
		items = append(items, item{kind: KindLoadBalancer, resource: lbs[0], op: "DescribeTargetHealth", acct: a,
			run: func(ctx context.Context) {
				targets, err := a.targetHealth(ctx, tg)
				if err != nil {
					for _, lb := range lbs {
						r.addErr(a.resourceError(KindLoadBalancer, lb, "DescribeTargetHealth", err))
					}
					return
				}
				r.mu.Lock()
				r.lbs.count[tg] = len(targets)
				r.mu.Unlock()
			}})
	}
	r.phase(ctx, PhaseQuotas, items)
}

func tgARNs(tgs []elbv2types.TargetGroup) []string {
	out := make([]string, 0, len(tgs))
	for _, tg := range tgs {
		out = append(out, aws.ToString(tg.TargetGroupArn))
	}
	return out
}

// headrooms compares the target group's cutover overlap o with the
// quotas q: for the target group (for blue/green, the new ip target group
// that takes the pods), then for each load balancer it names whose
// targets lbs counts.
func (a *analysis) headrooms(o overlap, q TargetQuotas, lbs *lbTargets) []Headroom {
	mine := len(a.rep.Targets)
	var out []Headroom
	if o.blueGreen {
		out = append(out, NewHeadroom(ScopeNewTargetGroup, a.rep.ARN, q.PerTargetGroup, 0, 0, o.adding, 0))
	} else {
		out = append(out, NewHeadroom(ScopeTargetGroup, a.rep.ARN, q.PerTargetGroup, mine, 0, o.adding, o.leaving))
	}
	for _, lb := range a.rep.LoadBalancerARNs {
		quota, ok := q.ForLoadBalancer(lb)
		if !ok {
			continue
		}
		others, ok := lbs.others(lb, a.rep.ARN)
		if !ok {
			continue
		}
		out = append(out, NewHeadroom(ScopeLoadBalancer, lb, quota, mine+others, others, o.adding, o.leaving))
	}
	return out
}

// lbName is a load balancer's type and name ("app/edge"), or its ARN.
func lbName(arn string) string {
	if lb, err := awserr.ParseLoadBalancerARN(arn); err == nil {
		return lb.LoadBalancerType + "/" + lb.Name
	}
	return arn
}

// subject names what a headroom counts: the target group, blue/green's new
// target group, or the load balancer by name.
func (h Headroom) subject() string {
	switch h.Scope {
	case ScopeNewTargetGroup:
		return "the new ip target group (blue/green)"
	case ScopeLoadBalancer:
		return "load balancer " + lbName(h.ARN)
	}
	return "the target group"
}
