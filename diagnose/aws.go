package diagnose

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

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

// accountScan is one account and Region: its client, its rate limiter and
// its call counters. Every AWS call goes through do.
type accountScan struct {
	acct Account
	cfg  *config
	lim  *limiter

	mu      sync.Mutex
	calls   map[string]int
	retries int
}

func newAccountScan(a Account, cfg *config) *accountScan {
	return &accountScan{acct: a, cfg: cfg, lim: newLimiter(cfg.clock, cfg.rps, cfg.burst), calls: map[string]int{}}
}

// do runs one AWS call: it waits for the rate limiter, classifies the error
// through awserr, and retries throttling with backoff on the injected clock.
func (a *accountScan) do(ctx context.Context, op, resource string, fn func(context.Context) error) error {
	log := a.cfg.log.WithValues("account", a.acct.ID, "region", a.acct.Region, "op", op)
	policy := retry.Policy{Initial: 500 * time.Millisecond, Max: 20 * time.Second, MaxAttempts: uint64(a.cfg.maxAttempts)}
	return retry.Do(ctx, a.cfg.clock, policy, func(ctx context.Context) error {
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
}

func (a *accountScan) report() AccountReport {
	a.mu.Lock()
	defer a.mu.Unlock()
	return AccountReport{ID: a.acct.ID, Region: a.acct.Region, EC2: a.acct.EC2 != nil, APICalls: maps.Clone(a.calls), Retries: a.retries}
}

// guarded adapts an accountScan to the SDK paginators' client interfaces.
type guarded struct{ a *accountScan }

var (
	_ elbv2.DescribeTargetGroupsAPIClient = guarded{}
	_ elbv2.DescribeListenersAPIClient    = guarded{}
	_ elbv2.DescribeRulesAPIClient        = guarded{}
)

// DescribeTargetGroups is the rate-limited, retried and counted call.
func (g guarded) DescribeTargetGroups(ctx context.Context, in *elbv2.DescribeTargetGroupsInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
	var out *elbv2.DescribeTargetGroupsOutput
	err := g.a.do(ctx, "DescribeTargetGroups", aws.ToString(in.LoadBalancerArn), func(ctx context.Context) (err error) {
		out, err = g.a.acct.ELBv2.DescribeTargetGroups(ctx, in, optFns...)
		return err
	})
	return out, err
}

// DescribeListeners is the rate-limited, retried and counted call.
func (g guarded) DescribeListeners(ctx context.Context, in *elbv2.DescribeListenersInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeListenersOutput, error) {
	var out *elbv2.DescribeListenersOutput
	err := g.a.do(ctx, "DescribeListeners", aws.ToString(in.LoadBalancerArn), func(ctx context.Context) (err error) {
		out, err = g.a.acct.ELBv2.DescribeListeners(ctx, in, optFns...)
		return err
	})
	return out, err
}

// DescribeRules is the rate-limited, retried and counted call.
func (g guarded) DescribeRules(ctx context.Context, in *elbv2.DescribeRulesInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeRulesOutput, error) {
	var out *elbv2.DescribeRulesOutput
	err := g.a.do(ctx, "DescribeRules", aws.ToString(in.ListenerArn), func(ctx context.Context) (err error) {
		out, err = g.a.acct.ELBv2.DescribeRules(ctx, in, optFns...)
		return err
	})
	return out, err
}

// describeTargetGroups runs one paged DescribeTargetGroups query.
func (a *accountScan) describeTargetGroups(ctx context.Context, in elbv2.DescribeTargetGroupsInput) ([]elbv2types.TargetGroup, error) {
	in.PageSize = aws.Int32(PageSize)
	p := elbv2.NewDescribeTargetGroupsPaginator(guarded{a}, &in)
	var out []elbv2types.TargetGroup
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, page.TargetGroups...)
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
				failed[it] = context.Cause(ctx)
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
	tgs          []elbv2types.TargetGroup
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
		}
	}
	if scope.listsAll() {
		tgs, err := a.describeTargetGroups(ctx, elbv2.DescribeTargetGroupsInput{})
		if err != nil {
			d.errs = append(d.errs, a.resourceError(KindAccount, a.acct.ID, "DescribeTargetGroups", err))
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
		var out *elbv2.DescribeTagsOutput
		err := a.do(ctx, "DescribeTags", "", func(ctx context.Context) (err error) {
			out, err = a.acct.ELBv2.DescribeTags(ctx, &elbv2.DescribeTagsInput{ResourceArns: batch})
			return err
		})
		switch {
		case err == nil:
			for _, td := range out.TagDescriptions {
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
func (a *accountScan) targetHealth(ctx context.Context, arn string) ([]Target, error) {
	var out *elbv2.DescribeTargetHealthOutput
	err := a.do(ctx, "DescribeTargetHealth", arn, func(ctx context.Context) (err error) {
		out, err = a.acct.ELBv2.DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(arn)})
		return err
	})
	if err != nil {
		return nil, err
	}
	targets := make([]Target, 0, len(out.TargetHealthDescriptions))
	for _, d := range out.TargetHealthDescriptions {
		if d.Target == nil {
			continue
		}
		t := Target{ID: aws.ToString(d.Target.Id), Port: aws.ToInt32(d.Target.Port), AvailabilityZone: aws.ToString(d.Target.AvailabilityZone)}
		if d.TargetHealth != nil {
			t.State, t.Reason = string(d.TargetHealth.State), string(d.TargetHealth.Reason)
		}
		targets = append(targets, t)
	}
	return targets, nil
}

// routes reads the listeners (and, for an ALB, the rules) of one load
// balancer and returns the routes that forward to any target group in
// wanted, by target-group ARN.
func (a *accountScan) routes(ctx context.Context, lbARN string, wanted map[string]bool) (map[string][]Route, error) {
	lb, _ := awserr.ParseLoadBalancerARN(lbARN)
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
						if r.Weight != nil && len(act.ForwardConfig.TargetGroups) == 1 {
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
			}
		}
	}
	return out, nil
}

// noClient is the error of an ARN whose account or Region has no client.
func noClient(arn awserr.ARN) error {
	return &awserr.ARNError{ARN: arn.Raw, Kind: awserr.ErrWrongAccount,
		Reason: fmt.Sprintf("no ELBv2 client for account %s in %s", arn.AccountID, arn.Region)}
}
