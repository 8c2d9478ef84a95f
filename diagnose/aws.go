package diagnose

// This file is one account's scan: its ELBv2 client behind the rate
// limiter, retries and call counters (do), discovery of the target groups
// in scope, their tags, their targets' health, and the listeners and rules
// that route to them.

import (
	"context"
	"errors"
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
	"github.com/qstools/tgmigrate/internal/retry"
)

// API economy. These are part of the package's contract, and the tests
// assert them.
const (
	// PageSize is the page size of every paged Describe call (the ELBv2 maximum).
	PageSize = 400
	// TagBatch is how many ARNs one DescribeTags call carries (the ELBv2 maximum).
	TagBatch = 20
	// ARNBatch is how many target-group ARNs or names one DescribeTargetGroups
	// call carries. AWS documents no maximum; 20 keeps each call small and
	// the search for an unknown ARN short.
	ARNBatch = 20
	// InstanceBatch is how many instance IDs one DescribeInstances filter carries.
	InstanceBatch = 200
)

// maxWeight is the largest weight of a target group in a forward action.
const maxWeight = 999

// accountScan is one account and Region: its client, its rate limiter and
// its call counters. Every AWS call goes through do.
type accountScan struct {
	acct Account
	cfg  *config
	lim  *limiter

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

func newAccountScan(a Account, cfg *config) *accountScan {
	return &accountScan{acct: a, cfg: cfg, lim: newLimiter(cfg.clock, cfg.rps, cfg.burst), calls: map[string]int{}, members: map[string][]string{}}
}

// do runs one AWS call: it waits for the rate limiter, classifies the error
// through awserr, and retries throttling with backoff on the injected clock.
// Once ctx ends, its error is ctxErr(ctx).
func (a *accountScan) do(ctx context.Context, op, resource string, fn func(context.Context) error) error {
	log := a.cfg.log.WithValues("account", a.acct.ID, "region", a.acct.Region, "op", op)
	policy := retry.Policy{Initial: 500 * time.Millisecond, Max: 20 * time.Second, MaxAttempts: uint64(a.cfg.maxAttempts)}
	err := retry.Do(ctx, a.cfg.clock, policy, func(ctx context.Context) error {
		if err := a.lim.wait(ctx); err != nil {
			return err
		}
		a.mu.Lock()
		a.calls[op]++
		a.mu.Unlock()
		return awserr.Classify(op, resource, fn(ctx))
	}, retry.WithNotify(func(err error, wait time.Duration) {
		a.mu.Lock()
		a.retries++
		a.mu.Unlock()
		log.V(1).Info("retrying throttled call", "resource", resource, "wait", wait, "error", err)
	}))
	if err != nil && ctx.Err() != nil {
		// retry reports context.Cause(ctx) alone: keep context.Canceled too.
		return ctxErr(ctx)
	}
	return err
}

// call makes one AWS call through do, and turns a nil output with a nil
// error into an error wrapping [ErrNilResponse], so that neither its caller
// nor an SDK paginator ever dereferences a nil output.
func call[Out any](ctx context.Context, a *accountScan, op, resource string, fn func(context.Context) (*Out, error)) (*Out, error) {
	var out *Out
	err := a.do(ctx, op, resource, func(ctx context.Context) (err error) {
		out, err = fn(ctx)
		return err
	})
	if err == nil && out == nil {
		if resource != "" {
			op += " " + resource
		}
		return nil, fmt.Errorf("%s: %w", op, ErrNilResponse)
	}
	return out, err
}

// pageLoops records the NextMarker of a page of one paged query, and
// reports whether an earlier page of that query gave the same marker. The
// SDK's paginators would follow it for ever (StopOnDuplicateToken is off by
// default, and catches only a marker repeated at once); the pages from that
// marker on have all been read already, so the query ends there.
func (a *accountScan) pageLoops(op string, seen map[string]bool, next *string) bool {
	if next == nil || *next == "" {
		return false
	}
	if seen[*next] {
		a.cfg.log.V(1).Info("paging stopped: the service repeated a marker", "account", a.acct.ID, "region", a.acct.Region, "op", op, "marker", *next)
		return true
	}
	seen[*next] = true
	return false
}

func (a *accountScan) report() AccountReport {
	a.mu.Lock()
	defer a.mu.Unlock()
	return AccountReport{ID: a.acct.ID, Region: a.acct.Region, EC2: a.acct.EC2 != nil, APICalls: maps.Clone(a.calls), Retries: a.retries, Quotas: a.quotas}
}

// guarded adapts an accountScan to the SDK paginators' client interfaces.
// A nil output with a nil error is an [ErrNilResponse] error here, before a
// paginator dereferences it.
type guarded struct{ a *accountScan }

var (
	_ elbv2.DescribeTargetGroupsAPIClient = guarded{}
	_ elbv2.DescribeListenersAPIClient    = guarded{}
	_ elbv2.DescribeRulesAPIClient        = guarded{}
)

// DescribeTargetGroups is the rate-limited, retried and counted call.
func (g guarded) DescribeTargetGroups(ctx context.Context, in *elbv2.DescribeTargetGroupsInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
	return call(ctx, g.a, "DescribeTargetGroups", aws.ToString(in.LoadBalancerArn), func(ctx context.Context) (*elbv2.DescribeTargetGroupsOutput, error) {
		return g.a.acct.ELBv2.DescribeTargetGroups(ctx, in, optFns...)
	})
}

// DescribeListeners is the rate-limited, retried and counted call.
func (g guarded) DescribeListeners(ctx context.Context, in *elbv2.DescribeListenersInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeListenersOutput, error) {
	return call(ctx, g.a, "DescribeListeners", aws.ToString(in.LoadBalancerArn), func(ctx context.Context) (*elbv2.DescribeListenersOutput, error) {
		return g.a.acct.ELBv2.DescribeListeners(ctx, in, optFns...)
	})
}

// DescribeRules is the rate-limited, retried and counted call.
func (g guarded) DescribeRules(ctx context.Context, in *elbv2.DescribeRulesInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeRulesOutput, error) {
	return call(ctx, g.a, "DescribeRules", aws.ToString(in.ListenerArn), func(ctx context.Context) (*elbv2.DescribeRulesOutput, error) {
		return g.a.acct.ELBv2.DescribeRules(ctx, in, optFns...)
	})
}

// describeTargetGroups runs one paged DescribeTargetGroups query.
func (a *accountScan) describeTargetGroups(ctx context.Context, in elbv2.DescribeTargetGroupsInput) ([]elbv2types.TargetGroup, error) {
	in.PageSize = aws.Int32(PageSize)
	p := elbv2.NewDescribeTargetGroupsPaginator(guarded{a}, &in)
	var out []elbv2types.TargetGroup
	seen := map[string]bool{}
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, page.TargetGroups...)
		if a.pageLoops("DescribeTargetGroups", seen, page.NextMarker) {
			break
		}
	}
	return out, nil
}

// describeEach describes a batch of ARNs (or names), halving it when AWS
// answers NotFound for the whole batch, so that every existing target group
// is still found and each missing one is named. A batch that fails in
// another way fails for each of its items.
func (a *accountScan) describeEach(ctx context.Context, items []string, byName bool) (found []elbv2types.TargetGroup, missing, failed map[string]error) {
	missing, failed = map[string]error{}, map[string]error{}
	var walk func([]string)
	walk = func(batch []string) {
		if ctx.Err() != nil {
			for _, it := range batch {
				failed[it] = ctxErr(ctx)
			}
			return
		}
		in := elbv2.DescribeTargetGroupsInput{TargetGroupArns: batch}
		if byName {
			in = elbv2.DescribeTargetGroupsInput{Names: batch}
		}
		tgs, err := a.describeTargetGroups(ctx, in)
		switch {
		case err == nil:
			found = append(found, tgs...)
		case errors.Is(err, awserr.ErrNotFound) && len(batch) == 1:
			missing[batch[0]] = err
		case errors.Is(err, awserr.ErrNotFound):
			walk(batch[:len(batch)/2])
			walk(batch[len(batch)/2:])
		default:
			for _, it := range batch {
				failed[it] = err
			}
		}
	}
	for chunk := range slices.Chunk(items, ARNBatch) {
		walk(chunk)
	}
	return found, missing, failed
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
			parsed, err := awserr.ParseTargetGroupARN(arn)
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
		tgs, err := a.describeTargetGroups(ctx, elbv2.DescribeTargetGroupsInput{})
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
		found, missing, failed := a.describeEach(ctx, arns, false)
		add(found)
		maps.Copy(failed, missing)
		for _, arn := range slices.Sorted(maps.Keys(failed)) {
			d.errs = append(d.errs, a.resourceError(KindTargetGroup, arn, "DescribeTargetGroups", failed[arn]))
		}
	}
	if len(scope.TargetGroupNames) > 0 {
		names := slices.Compact(slices.Sorted(slices.Values(scope.TargetGroupNames)))
		names = slices.DeleteFunc(names, func(n string) bool { return !awserr.ValidTargetGroupName(n) })
		found, missing, failed := a.describeEach(ctx, names, true)
		add(found)
		maps.Copy(d.namesMissing, missing)
		for _, n := range slices.Sorted(maps.Keys(failed)) {
			d.errs = append(d.errs, a.resourceError(KindTargetGroup, n, "DescribeTargetGroups", failed[n]))
		}
	}
	for _, lb := range lbs {
		tgs, err := a.describeTargetGroups(ctx, elbv2.DescribeTargetGroupsInput{LoadBalancerArn: aws.String(lb)})
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

// tags reads the tags of a batch of target groups (at most TagBatch),
// halving it when one of them has vanished. It returns the tags by ARN and
// an error for each ARN that could not be read.
func (a *accountScan) tags(ctx context.Context, arns []string) (map[string]map[string]string, map[string]error) {
	tags := map[string]map[string]string{}
	failed := map[string]error{}
	var walk func([]string)
	walk = func(batch []string) {
		out, err := call(ctx, a, "DescribeTags", "", func(ctx context.Context) (*elbv2.DescribeTagsOutput, error) {
			return a.acct.ELBv2.DescribeTags(ctx, &elbv2.DescribeTagsInput{ResourceArns: batch})
		})
		switch {
		case err == nil:
			for _, td := range out.TagDescriptions {
				if td.ResourceArn == nil {
					continue // names no target group
				}
				m := map[string]string{}
				for _, t := range td.Tags {
					m[aws.ToString(t.Key)] = aws.ToString(t.Value)
				}
				tags[aws.ToString(td.ResourceArn)] = m
			}
			for _, arn := range batch {
				if tags[arn] == nil {
					tags[arn] = map[string]string{}
				}
			}
		case errors.Is(err, awserr.ErrNotFound) && len(batch) > 1:
			walk(batch[:len(batch)/2])
			walk(batch[len(batch)/2:])
		default:
			for _, arn := range batch {
				failed[arn] = err
			}
		}
	}
	walk(arns)
	return tags, failed
}

// targetHealth makes the one DescribeTargetHealth call of a target group.
// A description without a target or without a target ID names nothing and
// is skipped; a port is kept as given, even out of range.
func (a *accountScan) targetHealth(ctx context.Context, arn string) ([]Target, error) {
	out, err := call(ctx, a, "DescribeTargetHealth", arn, func(ctx context.Context) (*elbv2.DescribeTargetHealthOutput, error) {
		return a.acct.ELBv2.DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(arn)})
	})
	if err != nil {
		return nil, err
	}
	targets := make([]Target, 0, len(out.TargetHealthDescriptions))
	for _, d := range out.TargetHealthDescriptions {
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
	lp := elbv2.NewDescribeListenersPaginator(guarded{a}, &elbv2.DescribeListenersInput{LoadBalancerArn: aws.String(lbARN), PageSize: aws.Int32(PageSize)})
	seen := map[string]bool{}
	for lp.HasMorePages() {
		page, err := lp.NextPage(ctx)
		if err != nil {
			return out, err
		}
		for _, l := range page.Listeners {
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
			rp := elbv2.NewDescribeRulesPaginator(guarded{a}, &elbv2.DescribeRulesInput{ListenerArn: l.ListenerArn, PageSize: aws.Int32(PageSize)})
			seenRules := map[string]bool{}
			for rp.HasMorePages() {
				rpage, err := rp.NextPage(ctx)
				if err != nil {
					return out, err
				}
				for _, rule := range rpage.Rules {
					r := base
					r.RuleARN, r.Priority, r.Default = aws.ToString(rule.RuleArn), aws.ToString(rule.Priority), aws.ToBool(rule.IsDefault)
					add(r, rule.Actions)
				}
				if a.pageLoops("DescribeRules", seenRules, rpage.NextMarker) {
					break
				}
			}
		}
		if a.pageLoops("DescribeListeners", seen, page.NextMarker) {
			break
		}
	}
	return out, nil
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
