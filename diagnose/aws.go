package diagnose

// This file is one account's scan: its calls through internal/read's
// engine (its rate limiter, retries and call counters), discovery of the
// target groups in scope, their targets' health as diagnose models it, and
// the routes of the listeners and rules that forward to them.

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/read"
	"github.com/qstools/tgmigrate/internal/retry"
)

// API economy. These are part of the package's contract, and the tests
// assert them. They are internal/read's, which makes every call.
const (
	// PageSize is the page size of every paged Describe call (the ELBv2 maximum).
	PageSize = read.PageSize
	// TagBatch is how many ARNs one DescribeTags call carries (the ELBv2 maximum).
	TagBatch = read.TagBatch
	// ARNBatch is how many target-group ARNs or names one DescribeTargetGroups
	// call carries. AWS documents no maximum; 20 keeps each call small and
	// the search for an unknown ARN short.
	ARNBatch = read.ARNBatch
	// InstanceBatch is how many instance IDs one DescribeInstances filter carries.
	InstanceBatch = read.InstanceBatch
)

// maxWeight is the largest weight of a target group in a forward action.
const maxWeight = 999

// accountScan is one account and Region: its call engine (rate limiter,
// retries, call counters) and its ELBv2 reader, both internal/read's.
type accountScan struct {
	acct Account
	cfg  *config
	// c makes every AWS call of the account (ELBv2, EC2, Service Quotas);
	// r is its ELBv2 reader.
	c *read.Caller
	r *read.Reader

	mu      sync.Mutex
	calls   map[string]int
	retries int

	// members are the target groups of the load balancers whose every
	// target group discovery listed (a load balancer in the scope, or
	// every one when the scope lists the account), by load balancer ARN.
	// Written by discover only, read once discovery is over.
	members map[string][]string
	// quotas are the account's quotas on targets, read once per run.
	quotas *TargetQuotas
}

func newAccountScan(acct Account, cfg *config) *accountScan {
	a := &accountScan{acct: acct, cfg: cfg, calls: map[string]int{}, members: map[string][]string{}}
	log := cfg.log.WithValues("account", acct.ID, "region", acct.Region)
	a.c = read.NewCaller(read.Options{
		Clock:   cfg.clock,
		Policy:  retry.Policy{Initial: 500 * time.Millisecond, Max: 20 * time.Second, MaxAttempts: uint64(cfg.maxAttempts)},
		Limiter: read.NewLimiter(cfg.clock, cfg.rps, cfg.burst),
		OnAttempt: func(op string) {
			a.mu.Lock()
			a.calls[op]++
			a.mu.Unlock()
		},
		OnRetry: func(op, resource string, err error, wait time.Duration) {
			a.mu.Lock()
			a.retries++
			a.mu.Unlock()
			log.WithValues("op", op).V(1).Info("retrying throttled call", "resource", resource, "wait", wait, "error", err)
		},
		Log:          log,
		JoinCanceled: true, // ctxErr(ctx): context.Canceled and the cause
	})
	a.r = read.New(acct.ELBv2, a.c)
	return a
}

func (a *accountScan) report() AccountReport {
	a.mu.Lock()
	defer a.mu.Unlock()
	return AccountReport{ID: a.acct.ID, Region: a.acct.Region, EC2: a.acct.EC2 != nil, APICalls: maps.Clone(a.calls), Retries: a.retries, Quotas: a.quotas}
}

// discovered is what one account's discovery found.
type discovered struct {
	tgs []elbv2types.TargetGroup
	// arns are the tgs' ARNs, parsed once as they were read: arns[i] is
	// tgs[i]'s.
	arns         []awserr.ARN
	errs         []ResourceError
	namesMissing map[string]error
}

// discover resolves the scope in one account: arns and lbs are the ARNs
// routed to it, names are looked up in every account.
func (a *accountScan) discover(ctx context.Context, scope Scope, arns, lbs []string) discovered {
	d := discovered{namesMissing: map[string]error{}}
	seen := map[string]bool{}
	add := func(tgs []elbv2types.TargetGroup) {
		for _, tg := range tgs {
			arn := aws.ToString(tg.TargetGroupArn)
			if seen[arn] {
				continue
			}
			seen[arn] = true
			parsed, err := read.ARNOf(&tg)
			if err == nil {
				err = parsed.Expect(a.acct.ID, a.acct.Region)
			}
			if err != nil {
				d.errs = append(d.errs, a.resourceError(KindTargetGroup, arn, "DescribeTargetGroups", err))
				continue
			}
			d.tgs = append(d.tgs, tg)
			d.arns = append(d.arns, parsed)
		}
	}
	if scope.listsAll() {
		tgs, err := a.r.TargetGroups(ctx, elbv2.DescribeTargetGroupsInput{})
		if err != nil {
			d.errs = append(d.errs, a.resourceError(KindAccount, a.acct.ID, "DescribeTargetGroups", err))
		} else {
			for _, tg := range tgs { // every target group: each load balancer's are all here
				for _, lb := range tg.LoadBalancerArns {
					a.members[lb] = append(a.members[lb], aws.ToString(tg.TargetGroupArn))
				}
			}
		}
		add(tgs)
		return d
	}
	if len(arns) > 0 {
		found, missing, failed := a.r.TargetGroupsByARN(ctx, arns)
		add(found)
		maps.Copy(failed, missing)
		for _, arn := range slices.Sorted(maps.Keys(failed)) {
			d.errs = append(d.errs, a.resourceError(KindTargetGroup, arn, "DescribeTargetGroups", failed[arn]))
		}
	}
	if len(scope.TargetGroupNames) > 0 {
		names := slices.Compact(slices.Sorted(slices.Values(scope.TargetGroupNames)))
		names = slices.DeleteFunc(names, func(n string) bool { return !awserr.ValidTargetGroupName(n) })
		found, missing, failed := a.r.TargetGroupsByName(ctx, names)
		add(found)
		maps.Copy(d.namesMissing, missing)
		for _, n := range slices.Sorted(maps.Keys(failed)) {
			d.errs = append(d.errs, a.resourceError(KindTargetGroup, n, "DescribeTargetGroups", failed[n]))
		}
	}
	for _, lb := range lbs {
		tgs, err := a.r.TargetGroups(ctx, elbv2.DescribeTargetGroupsInput{LoadBalancerArn: aws.String(lb)})
		if err != nil {
			d.errs = append(d.errs, a.resourceError(KindLoadBalancer, lb, "DescribeTargetGroups", err))
			continue
		}
		a.members[lb] = tgARNs(tgs)
		add(tgs)
	}
	return d
}

func (a *accountScan) resourceError(kind, resource, op string, err error) ResourceError {
	re := newResourceError(kind, resource, op, err)
	re.Account, re.Region = a.acct.ID, a.acct.Region
	a.cfg.log.V(1).Info("resource not read", "kind", kind, "resource", resource, "op", op, "category", re.Category)
	return *re
}

// targetHealth makes the one DescribeTargetHealth call of a target group.
// A description without a target or without a target ID names nothing and
// is skipped; a port is kept as given, even out of range.
func (a *accountScan) targetHealth(ctx context.Context, arn string) ([]Target, error) {
	descs, err := a.r.TargetHealth(ctx, arn)
	if err != nil {
		return nil, err
	}
	targets := make([]Target, 0, len(descs))
	for _, d := range descs {
		if d.Target == nil || aws.ToString(d.Target.Id) == "" {
			a.cfg.log.V(1).Info("target without an ID skipped", "account", a.acct.ID, "region", a.acct.Region, "targetGroup", arn)
			continue
		}
		t, _ := tgmigrate.TargetOf(d)
		targets = append(targets, t)
	}
	return targets, nil
}

// routes reads the listeners (and, for an ALB, the rules) of one load
// balancer and returns the routes that forward to any target group in
// wanted, by target-group ARN. A malformed load balancer ARN is an error
// before any call. A weight outside ELBv2's 0 to 999 is not reported: no
// load balancer holds one.
func (a *accountScan) routes(ctx context.Context, lbARN string, wanted map[string]bool) (map[string][]Route, error) {
	lb, err := awserr.ParseLoadBalancerARN(lbARN)
	if err != nil { // a malformed ARN in a target group's LoadBalancerArns: nothing to ask
		return nil, err
	}
	out := map[string][]Route{}
	add := func(base Route, actions []elbv2types.Action) {
		for _, act := range actions {
			if act.Type != elbv2types.ActionTypeEnumForward {
				continue
			}
			seen := map[string]bool{}
			if act.ForwardConfig != nil {
				for _, tt := range act.ForwardConfig.TargetGroups {
					arn := aws.ToString(tt.TargetGroupArn)
					if wanted[arn] && !seen[arn] {
						seen[arn] = true
						r := base
						r.Weight = tt.Weight
						if w := aws.ToInt32(r.Weight); len(act.ForwardConfig.TargetGroups) == 1 || w < 0 || w > maxWeight {
							r.Weight = nil
						}
						out[arn] = append(out[arn], r)
					}
				}
			}
			if arn := aws.ToString(act.TargetGroupArn); wanted[arn] && !seen[arn] {
				out[arn] = append(out[arn], base)
			}
		}
	}
	listeners, err := a.r.Listeners(ctx, lbARN)
	if err != nil {
		return out, err
	}
	for _, l := range listeners {
		base := Route{
			LoadBalancerARN: lbARN, LoadBalancerName: lb.Name, LoadBalancerType: lb.LoadBalancerType,
			ListenerARN: aws.ToString(l.ListenerArn), ListenerProtocol: string(l.Protocol), ListenerPort: aws.ToInt32(l.Port),
		}
		if lb.LoadBalancerType != "app" {
			r := base
			r.Default = true
			add(r, l.DefaultActions)
			continue
		}
		rules, err := a.r.Rules(ctx, aws.ToString(l.ListenerArn))
		if err != nil {
			return out, err
		}
		for _, rule := range rules {
			r := base
			r.RuleARN, r.Priority, r.Default = aws.ToString(rule.RuleArn), aws.ToString(rule.Priority), aws.ToBool(rule.IsDefault)
			r.Conditions = conditions(rule.Conditions)
			add(r, rule.Actions)
		}
	}
	return out, nil
}

// conditions summarizes a rule's conditions for Route.Conditions: each
// as its field, "=", and its values joined by commas (an http-header
// condition names its header: "http-header:X-Canary=on"), a regular
// expression marked "~".
func conditions(cs []elbv2types.RuleCondition) []string {
	var out []string
	for _, c := range cs {
		field := aws.ToString(c.Field)
		values, regex := slices.Clone(c.Values), slices.Clone(c.RegexValues)
		switch {
		case c.HostHeaderConfig != nil:
			values, regex = append(values, c.HostHeaderConfig.Values...), append(regex, c.HostHeaderConfig.RegexValues...)
		case c.PathPatternConfig != nil:
			values, regex = append(values, c.PathPatternConfig.Values...), append(regex, c.PathPatternConfig.RegexValues...)
		case c.HttpHeaderConfig != nil:
			field += ":" + aws.ToString(c.HttpHeaderConfig.HttpHeaderName)
			values, regex = append(values, c.HttpHeaderConfig.Values...), append(regex, c.HttpHeaderConfig.RegexValues...)
		case c.HttpRequestMethodConfig != nil:
			values = append(values, c.HttpRequestMethodConfig.Values...)
		case c.SourceIpConfig != nil:
			values = append(values, c.SourceIpConfig.Values...)
		case c.QueryStringConfig != nil:
			for _, kv := range c.QueryStringConfig.Values {
				values = append(values, aws.ToString(kv.Key)+":"+aws.ToString(kv.Value))
			}
		}
		for _, r := range regex {
			values = append(values, "~"+r)
		}
		out = append(out, field+"="+strings.Join(values, ","))
	}
	return out
}

// noClient is the error of an ARN whose account and Region have no client:
// awserr.ErrWrongRegion (Part region) when the account has a client in
// another Region, awserr.ErrWrongAccount (Part account) otherwise.
func noClient(arn awserr.ARN, accounts []*accountScan) error {
	reason := fmt.Sprintf("no ELBv2 client for account %s in %s", arn.AccountID, arn.Region)
	var regions []string
	for _, a := range accounts {
		if a.acct.ID == arn.AccountID {
			regions = append(regions, a.acct.Region)
		}
	}
	if len(regions) > 0 {
		return &awserr.ARNError{ARN: arn.Raw, Kind: awserr.ErrWrongRegion, Part: awserr.ARNPartRegion,
			Reason: fmt.Sprintf("%s (its clients are in %s)", reason, strings.Join(regions, ", "))}
	}
	return &awserr.ARNError{ARN: arn.Raw, Kind: awserr.ErrWrongAccount, Part: awserr.ARNPartAccount, Reason: reason}
}
