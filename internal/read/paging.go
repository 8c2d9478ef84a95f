package read

// paging.go: the paged ELBv2 reads (TargetGroups, Listeners, Rules), PageSize
// at a time through the SDK's paginators; Drain, the paged query of any
// SDK paginator; and Markers, the guard that ends a paged query whose
// service repeats a marker.

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
)

// Markers is one paged query's memory of the markers it has followed.
type Markers struct {
	c    *Caller
	op   string
	seen map[string]bool
}

// Markers returns the memory of a new paged query of op.
func (c *Caller) Markers(op string) *Markers {
	return &Markers{c: c, op: op, seen: map[string]bool{}}
}

// Repeated records next, the marker a page gave, and reports whether an
// earlier page of the query gave the same one. The SDK's paginators would
// follow it for ever (StopOnDuplicateToken is off by default, and catches
// only a marker repeated at once); the pages from that marker on have all
// been read already, so the query ends there.
func (m *Markers) Repeated(next *string) bool {
	if next == nil || *next == "" {
		return false
	}
	if m.seen[*next] {
		m.c.o.Log.V(1).Info("paging stopped: the service repeated a marker", "op", m.op, "marker", *next)
		return true
	}
	m.seen[*next] = true
	return false
}

// guarded adapts a Reader to the SDK paginators' client interfaces: each
// page is a [Call] (limited, retried, counted), so a nil output with a nil
// error is an ErrNilResponse error before a paginator dereferences it.
type guarded struct{ r *Reader }

var (
	_ elbv2.DescribeTargetGroupsAPIClient = guarded{}
	_ elbv2.DescribeListenersAPIClient    = guarded{}
	_ elbv2.DescribeRulesAPIClient        = guarded{}
)

// DescribeTargetGroups is the engine's call.
func (g guarded) DescribeTargetGroups(ctx context.Context, in *elbv2.DescribeTargetGroupsInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
	return Call(ctx, g.r.c, "DescribeTargetGroups", aws.ToString(in.LoadBalancerArn), func(ctx context.Context) (*elbv2.DescribeTargetGroupsOutput, error) {
		return g.r.api.DescribeTargetGroups(ctx, in, optFns...)
	})
}

// DescribeListeners is the engine's call.
func (g guarded) DescribeListeners(ctx context.Context, in *elbv2.DescribeListenersInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeListenersOutput, error) {
	return Call(ctx, g.r.c, "DescribeListeners", aws.ToString(in.LoadBalancerArn), func(ctx context.Context) (*elbv2.DescribeListenersOutput, error) {
		return g.r.api.DescribeListeners(ctx, in, optFns...)
	})
}

// DescribeRules is the engine's call.
func (g guarded) DescribeRules(ctx context.Context, in *elbv2.DescribeRulesInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeRulesOutput, error) {
	return Call(ctx, g.r.c, "DescribeRules", aws.ToString(in.ListenerArn), func(ctx context.Context) (*elbv2.DescribeRulesOutput, error) {
		return g.r.api.DescribeRules(ctx, in, optFns...)
	})
}

// Paginator is what the SDK's paginators have in common, whatever the
// service (Opt is its client's Options: elbv2.Options, ec2.Options...).
type Paginator[Out, Opt any] interface {
	// HasMorePages reports whether a next page remains.
	HasMorePages() bool
	// NextPage reads the next page.
	NextPage(ctx context.Context, optFns ...func(*Opt)) (*Out, error)
}

// Drain reads every page of p, op's query, and returns the items that
// page gives each page, until there is no next page or a marker repeats
// ([Markers]). A call's error ends the query. p's client should make
// each page a [Call], so that a nil page is an error before p reads it.
func Drain[Out, Opt, Item any](ctx context.Context, c *Caller, op string, p Paginator[Out, Opt], page func(*Out) ([]Item, *string)) ([]Item, error) {
	var all []Item
	m := c.Markers(op)
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		items, next := page(out)
		all = append(all, items...)
		if m.Repeated(next) {
			break
		}
	}
	return all, nil
}

// TargetGroups runs one paged DescribeTargetGroups query, PageSize a page:
// in selects (every target group when it selects nothing); its PageSize
// and Marker are set here.
func (r *Reader) TargetGroups(ctx context.Context, in elbv2.DescribeTargetGroupsInput) ([]elbv2types.TargetGroup, error) {
	in.PageSize = aws.Int32(PageSize)
	return Drain(ctx, r.c, "DescribeTargetGroups", elbv2.NewDescribeTargetGroupsPaginator(guarded{r}, &in),
		func(o *elbv2.DescribeTargetGroupsOutput) ([]elbv2types.TargetGroup, *string) {
			return o.TargetGroups, o.NextMarker
		})
}

// Listeners lists a load balancer's listeners, every page, PageSize a page.
func (r *Reader) Listeners(ctx context.Context, lbARN string) ([]elbv2types.Listener, error) {
	in := &elbv2.DescribeListenersInput{LoadBalancerArn: aws.String(lbARN), PageSize: aws.Int32(PageSize)}
	return Drain(ctx, r.c, "DescribeListeners", elbv2.NewDescribeListenersPaginator(guarded{r}, in),
		func(o *elbv2.DescribeListenersOutput) ([]elbv2types.Listener, *string) {
			return o.Listeners, o.NextMarker
		})
}

// Rules lists a listener's rules, every page, PageSize a page.
func (r *Reader) Rules(ctx context.Context, listenerARN string) ([]elbv2types.Rule, error) {
	in := &elbv2.DescribeRulesInput{ListenerArn: aws.String(listenerARN), PageSize: aws.Int32(PageSize)}
	return Drain(ctx, r.c, "DescribeRules", elbv2.NewDescribeRulesPaginator(guarded{r}, in),
		func(o *elbv2.DescribeRulesOutput) ([]elbv2types.Rule, *string) { return o.Rules, o.NextMarker })
}
