package campaign

// limits.go: the limits the runnable entries run under, as data
// (concurrency overall, per account, per cluster, and per load balancer
// from each cutover plan's count against ELBv2's quota on its targets),
// and Limits.Admit, the one rule the estimate and a scheduler start an
// entry by.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/textcell"
)

// Limits are what the campaign's cutovers run under: at most Concurrency
// at once, PerAccount in one account and Region (its ELBv2 API rate),
// PerCluster in one cluster, and on each load balancer only overlaps that
// fit its quota together ([LoadBalancerLimit]). [Limits.Admit] applies
// them.
type Limits struct {
	// Concurrency is the most cutovers at once over the campaign.
	Concurrency int `json:"concurrency"`
	// PerAccount is the most at once in one account and Region.
	PerAccount int `json:"perAccount"`
	// PerCluster is the most at once in one cluster.
	PerCluster int `json:"perCluster"`
	// Sources say where each of the three comes from (a default and its
	// reason, or an option).
	Sources []string `json:"sources"`
	// LoadBalancers are the load balancers of the runnable target
	// groups, sorted by ARN.
	LoadBalancers []LoadBalancerLimit `json:"loadBalancers,omitempty"`
}

// LoadBalancerLimit is how the cutovers of one load balancer's target
// groups may overlap. While a cutover's node and pod targets are both
// registered, the load balancer counts both against its quota on
// targets ("Targets per Application Load Balancer", or per Network Load
// Balancer), beside its other target groups' targets; so the overlaps
// running at once must fit it together.
//
// From the cutover plans' counts (cutover.QuotaPlan.Headroom, the load
// balancer's): Now is the targets registered on it now (the largest count
// among the plans), Growth what its cutovers, once done, leave on it
// beyond that (each plan's After less Now, when positive, summed: a
// cutover that ends with more pod targets than the node targets it
// removed), and Budget = Quota.Value − Now − Growth the room the
// overlaps share at any time, whichever cutovers have ended. Each
// share's Demand is what its overlap adds above its own growth (Adding
// less its growth). Cutovers may run at once on the load balancer when
// their Demands add up to at most Budget; a share is Alone (it runs with
// no other cutover of the load balancer) when its plan bounds its
// overlap (cutover.QuotaPlan.Bounded: it uses the whole room) or when
// its Demand alone passes Budget.
type LoadBalancerLimit struct {
	// ARN is the load balancer's.
	ARN string `json:"arn"`
	// Counted says a cutover plan counted its targets; when none did
	// (no quota count in the plans), the load balancer bounds nothing.
	Counted bool `json:"counted"`
	// Quota is its quota on targets, as the plans read it (the lowest
	// value among them).
	Quota diagnose.Quota `json:"quota"`
	// Now is the targets registered on it now, the most any plan counted.
	Now int `json:"now"`
	// Growth is what its cutovers, once done, leave on it beyond Now.
	Growth int `json:"growth"`
	// Budget is Quota.Value − Now − Growth: the room its overlaps share.
	Budget int `json:"budget"`
	// Shares are its runnable target groups' demands, in the plan's
	// order.
	Shares []LoadBalancerShare `json:"shares"`
	// MaxConcurrent is the most of its cutovers that may run at once (the
	// smallest demands that fit Budget together; 1 when every one runs
	// alone).
	MaxConcurrent int `json:"maxConcurrent"`
	// Reason says the bound and why, in one line.
	Reason string `json:"reason"`
	// ChurnRoom is the room its quota leaves churn once its cutovers are
	// done, with a warning when that room is short of its pods; nil when
	// no plan counts its targets.
	ChurnRoom *ChurnRoom `json:"churnRoom,omitempty"`
}

// LoadBalancerShare is one target group's overlap on a load balancer. A
// target group whose plan does not count the load balancer runs alone on
// it when another's plan does.
type LoadBalancerShare struct {
	// TargetGroupARN is the target group.
	TargetGroupARN tgmigrate.ARN `json:"targetGroupARN"`
	// Demand is the targets its overlap adds to the load balancer, above
	// its growth.
	Demand int `json:"demand"`
	// Alone says it runs with no other cutover of the load balancer; Why
	// says why.
	Alone bool   `json:"alone,omitempty"`
	Why   string `json:"why,omitempty"`
	// Pods are the pod targets the target group holds once its cutover
	// is done: the Service's ready endpoints its plan counted
	// (cutover.ServiceInfo.ReadyEndpoints).
	Pods int `json:"pods,omitempty"`
	// DeregistrationDelaySeconds is how long each of those targets
	// drains once deregistered: the target group's
	// deregistration_delay.timeout_seconds as its plan read it (for
	// blue/green, the new target group's, copied from it).
	DeregistrationDelaySeconds int32 `json:"deregistrationDelaySeconds,omitempty"`
}

// makeLimits derives the limits of the runnable entries.
func makeLimits(entries []Entry, cfg config) Limits {
	l := Limits{Concurrency: cfg.concurrency, PerAccount: cfg.perAccount, PerCluster: cfg.perCluster}
	src := func(name string, v, def int, why string) string {
		if v == def {
			return fmt.Sprintf("%s %d: the default, %s", name, v, why)
		}
		return fmt.Sprintf("%s %d: the option", name, v)
	}
	l.Sources = []string{
		src("concurrency", l.Concurrency, DefaultConcurrency, "campaign.DefaultConcurrency"),
		src("per account", l.PerAccount, DefaultPerAccount, "campaign.DefaultPerAccount: about 0.8 ELBv2 calls/s of the account's polls, a tenth of diagnose.DefaultRateLimit"),
		src("per cluster", l.PerCluster, DefaultPerCluster, "campaign.DefaultPerCluster: the nodes held from Karpenter and the watches stay few"),
	}
	byLB := map[string]*LoadBalancerLimit{}
	for _, e := range entries {
		if !e.Runnable() {
			continue
		}
		for _, lb := range e.LoadBalancerARNs {
			if byLB[lb] == nil {
				byLB[lb] = &LoadBalancerLimit{ARN: lb}
			}
			byLB[lb].add(e)
		}
	}
	for _, lb := range byLB {
		lb.finish()
		l.LoadBalancers = append(l.LoadBalancers, *lb)
	}
	slices.SortFunc(l.LoadBalancers, func(a, b LoadBalancerLimit) int { return cmp.Compare(a.ARN, b.ARN) })
	return l
}

// headroomOn returns the plan's count on the load balancer lb.
func headroomOn(e Entry, lb string) (diagnose.Headroom, bool) {
	if e.Plan == nil || e.Plan.Quota == nil {
		return diagnose.Headroom{}, false
	}
	for _, h := range e.Plan.Quota.Headroom {
		if h.Scope == diagnose.ScopeLoadBalancer && h.ARN == lb {
			return h, true
		}
	}
	return diagnose.Headroom{}, false
}

// add counts e's share (its Demand and Alone are final in finish).
func (l *LoadBalancerLimit) add(e Entry) {
	h, ok := headroomOn(e, l.ARN)
	s := LoadBalancerShare{TargetGroupARN: e.TargetGroupARN}
	s.Pods, s.DeregistrationDelaySeconds = podsAndDelay(e)
	if !ok {
		// Real plans count every load balancer with a quota on targets,
		// or none: one that does not, beside others that do, runs alone.
		s.Alone, s.Why = true, "its plan counts no targets on this load balancer"
		l.Shares = append(l.Shares, s)
		return
	}
	growth := max(0, h.After-h.Now)
	s.Demand = max(0, h.Adding-growth)
	if e.Plan.Quota.Bounded {
		s.Alone, s.Why = true, "its plan bounds its overlap to the load balancer's whole room"
	}
	if !l.Counted || h.Quota.Value < l.Quota.Value {
		l.Quota = h.Quota
	}
	l.Counted = true
	l.Now = max(l.Now, h.Now)
	l.Growth += growth
	l.Shares = append(l.Shares, s)
}

// finish sets the budget, the shares that run alone, the most at once
// and the reason.
func (l *LoadBalancerLimit) finish() {
	if !l.Counted {
		l.MaxConcurrent = len(l.Shares)
		l.Reason = "no cutover plan counts its targets: it bounds nothing"
		return
	}
	l.Budget = l.Quota.Value - l.Now - l.Growth
	var demands []int
	for i := range l.Shares {
		s := &l.Shares[i]
		if !s.Alone && s.Demand > l.Budget {
			s.Alone, s.Why = true, fmt.Sprintf("its overlap of %s passes the room of %d", textcell.Plural(s.Demand, "target", "targets"), l.Budget)
		}
		if !s.Alone {
			demands = append(demands, s.Demand)
		}
	}
	slices.Sort(demands)
	sum := 0
	for _, d := range demands {
		if sum+d > l.Budget {
			break
		}
		sum += d
		l.MaxConcurrent++
	}
	l.MaxConcurrent = max(l.MaxConcurrent, 1)
	var b strings.Builder
	fmt.Fprintf(&b, "quota %d, %d now, %d more after its cutovers: %d for the overlaps at once", l.Quota.Value, l.Now, l.Growth, l.Budget)
	switch {
	case len(l.Shares) == 1:
		b.WriteString("; one cutover")
	case l.MaxConcurrent == 1:
		b.WriteString("; one cutover at a time")
	default:
		fmt.Fprintf(&b, "; up to %d cutovers at once", l.MaxConcurrent)
	}
	l.Reason = b.String()
	l.ChurnRoom = makeChurnRoom(*l)
}

// share returns the share of the target group a on l, if any.
func (l LoadBalancerLimit) share(a tgmigrate.ARN) (LoadBalancerShare, bool) {
	for _, s := range l.Shares {
		if s.TargetGroupARN.Raw == a.Raw {
			return s, true
		}
	}
	return LoadBalancerShare{}, false
}

// Admit says whether next may start beside the entries of running, under l: "" when
// it may, else the limit that holds it back, in one line. The estimate
// ([EstimateOf]) starts entries by it, and a scheduler should too. With
// nothing running every entry may start.
func (l Limits) Admit(running []Entry, next Entry) string {
	if len(running) == 0 {
		return ""
	}
	if len(running) >= l.Concurrency {
		return fmt.Sprintf("%s running, the campaign's concurrency", textcell.Plural(len(running), "cutover", "cutovers"))
	}
	account, cluster := 0, 0
	for _, r := range running {
		if r.AccountID == next.AccountID && r.Region == next.Region {
			account++
		}
		if r.Cluster == next.Cluster {
			cluster++
		}
	}
	if account >= l.PerAccount {
		return fmt.Sprintf("%s running in account %s in %s, its limit", textcell.Plural(account, "cutover", "cutovers"), next.AccountID, next.Region)
	}
	if cluster >= l.PerCluster {
		return fmt.Sprintf("%s running in cluster %s, its limit", textcell.Plural(cluster, "cutover", "cutovers"), next.Cluster)
	}
	for _, lb := range l.LoadBalancers {
		s, ok := lb.share(next.TargetGroupARN)
		if !ok || !lb.Counted {
			continue
		}
		sum, on := s.Demand, 0
		for _, r := range running {
			rs, ok := lb.share(r.TargetGroupARN)
			if !ok {
				continue
			}
			on++
			sum += rs.Demand
			if rs.Alone {
				return fmt.Sprintf("load balancer %s: %s runs alone (%s)", shortARN(lb.ARN), r.Name, rs.Why)
			}
		}
		switch {
		case on > 0 && s.Alone:
			return fmt.Sprintf("load balancer %s: it runs alone (%s)", shortARN(lb.ARN), s.Why)
		case on > 0 && sum > lb.Budget:
			return fmt.Sprintf("load balancer %s: the overlaps would add %d targets at once, above its room of %d", shortARN(lb.ARN), sum, lb.Budget)
		}
	}
	return ""
}

// shortARN is a load balancer ARN's last three path parts ("app/web/50dc…").
func shortARN(arn string) string {
	if i := strings.Index(arn, ":loadbalancer/"); i >= 0 {
		return arn[i+len(":loadbalancer/"):]
	}
	return arn
}
