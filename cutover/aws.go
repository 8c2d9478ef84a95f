package cutover

// This file is cutover's way to call ELBv2: its reads are internal/read's,
// and every call, writes included, goes through read's engine: classified
// by internal/awserr, retried with backoff/v4 on the injected clock when,
// and only when, awserr says it may be (throttling, and TargetGroupNotFound
// right after a create: eventual consistency), the lease kept before each
// attempt. It also holds the writes and the health-check helpers.

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/clock"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/read"
	"github.com/qstools/tgmigrate/internal/retry"
)

// mutatingOps are the ELBv2 operations that change something.
var mutatingOps = []string{
	"RegisterTargets", "DeregisterTargets", "CreateTargetGroup", "DeleteTargetGroup",
	"ModifyTargetGroup", "ModifyTargetGroupAttributes", "AddTags", "ModifyListener", "ModifyRule",
}

// callCounts counts the calls made, by operation, retries included.
type callCounts struct {
	mu     sync.Mutex
	counts map[string]int
}

func (c *callCounts) add(op string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil {
		c.counts = map[string]int{}
	}
	c.counts[op]++
}

func (c *callCounts) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.counts)
}

// mutating sums the mutating calls in counts.
func mutating(counts map[string]int) int {
	n := 0
	for _, op := range mutatingOps {
		n += counts[op]
	}
	return n
}

// DefaultRetry is how a throttled call is retried when no [WithRetry] is
// given: from 200 ms, doubling, at most 5 s apart, for at most 2 minutes.
var DefaultRetry = RetryPolicy{Initial: 200 * time.Millisecond, Max: 5 * time.Second, MaxElapsed: 2 * time.Minute}

// RetryPolicy shapes the retries of throttled calls (and of calls that do
// not see a target group created an instant before). Zero fields take
// [DefaultRetry]'s values.
type RetryPolicy struct {
	// Initial is the first delay.
	Initial time.Duration
	// Max caps each delay; the delay doubles after each attempt.
	Max time.Duration
	// MaxElapsed gives up after this long since the first attempt.
	MaxElapsed time.Duration
}

func (p RetryPolicy) internal() retry.Policy {
	or := func(d, def time.Duration) time.Duration {
		if d > 0 {
			return d
		}
		return def
	}
	return retry.Policy{
		Initial:    or(p.Initial, DefaultRetry.Initial),
		Max:        or(p.Max, DefaultRetry.Max),
		MaxElapsed: or(p.MaxElapsed, DefaultRetry.MaxElapsed),
		Multiplier: 2,
	}
}

// awsReader is cutover's ELBv2 reader: internal/read's, whose engine also
// carries awsClient's writes. The planner holds only this: by type, it
// cannot change AWS.
type awsReader struct {
	api    diagnose.ELBv2API
	clock  clock.Clock
	policy retry.Policy
	log    logr.Logger
	// beforeAttempt, when set, runs before every attempt of every call,
	// retries included; mutating says the call changes something. An
	// error stops the call before the attempt and is not retried. The
	// executor sets it to keep its lease: renewed before each attempt of
	// a mutating call, so that no retried write outlives a lost lease.
	beforeAttempt func(ctx context.Context, mutating bool) error

	c *read.Caller
	r *read.Reader
}

// awsClient adds the writes.
type awsClient struct {
	*awsReader
	w ELBv2API
}

func newAWSReader(api diagnose.ELBv2API, clk clock.Clock, p RetryPolicy, log logr.Logger) *awsReader {
	a := &awsReader{api: api, clock: clk, policy: p.internal(), log: log}
	a.c = read.NewCaller(read.Options{
		Clock:  clk,
		Policy: a.policy,
		BeforeAttempt: func(ctx context.Context, op string) error {
			if a.beforeAttempt == nil {
				return nil
			}
			return a.beforeAttempt(ctx, slices.Contains(mutatingOps, op)) // a lost lease: never retried
		},
		OnRetry: func(op, resource string, err error, wait time.Duration) {
			a.log.V(1).Info("retrying", "op", op, "resource", resource, "in", wait, "error", err)
		},
		Log:          log,
		LastOnGiveUp: true,
	})
	a.r = read.New(api, a.c)
	return a
}

func newAWS(api ELBv2API, clk clock.Clock, p RetryPolicy, log logr.Logger) *awsClient {
	return &awsClient{awsReader: newAWSReader(api, clk, p, log), w: api}
}

// call runs one ELBv2 operation through read's engine, retrying what
// awserr calls retryable. afterCreate also retries TargetGroupNotFound
// (eventual consistency).
func (a *awsReader) call(ctx context.Context, op, resource string, afterCreate bool, fn func(context.Context) error) error {
	return a.c.Do(ctx, op, resource, fn, read.AfterCreate(afterCreate))
}

// retryTransient runs fn, which wraps its own errors (a tgbind call),
// retrying AWS throttling and the API server's transient failures.
// mutating says fn changes something (see beforeAttempt).
func (a *awsReader) retryTransient(ctx context.Context, mutating bool, fn func(context.Context) error) error {
	err := retry.Do(ctx, a.clock, a.policy, func(ctx context.Context) error {
		if a.beforeAttempt != nil {
			if err := a.beforeAttempt(ctx, mutating); err != nil {
				return err
			}
		}
		return fn(ctx)
	}, retry.WithRetryable(transient))
	var gaveUp *retry.GaveUpError
	if errors.As(err, &gaveUp) && gaveUp.Last != nil {
		return gaveUp.Last
	}
	return err
}

// transient reports whether err passes by itself: AWS throttling, and the
// API server's throttling, timeouts and unavailability. An AWS error not
// yet classified (the raw error of an EC2 read) is told by its code.
func transient(err error) bool {
	return awserr.IsRetryable(awserr.Classify("", "", err), false) || apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) ||
		apierrors.IsTimeout(err) || apierrors.IsServiceUnavailable(err)
}

// targetGroup describes one target group by ARN (read.Reader.TargetGroup).
func (a *awsReader) targetGroup(ctx context.Context, arn string, afterCreate bool) (*elbv2types.TargetGroup, error) {
	return a.r.TargetGroup(ctx, arn, read.AfterCreate(afterCreate))
}

// targetGroupByName describes one target group by name; nil when none has
// that name.
func (a *awsReader) targetGroupByName(ctx context.Context, name string) (*elbv2types.TargetGroup, error) {
	return a.r.TargetGroupByName(ctx, name)
}

// tags returns a resource's tags.
func (a *awsReader) tags(ctx context.Context, arn string, afterCreate bool) (map[string]string, error) {
	return a.r.TagsOf(ctx, arn, read.AfterCreate(afterCreate))
}

// attributes returns a target group's attributes.
func (a *awsReader) attributes(ctx context.Context, arn string, afterCreate bool) (map[string]string, error) {
	return a.r.Attributes(ctx, arn, read.AfterCreate(afterCreate))
}

// health returns every registered target of a target group.
func (a *awsReader) health(ctx context.Context, arn string, afterCreate bool) ([]elbv2types.TargetHealthDescription, error) {
	return a.r.TargetHealth(ctx, arn, read.AfterCreate(afterCreate))
}

// listeners lists a load balancer's listeners, every page.
func (a *awsReader) listeners(ctx context.Context, lbARN string) ([]elbv2types.Listener, error) {
	return a.r.Listeners(ctx, lbARN)
}

// listener describes one listener.
func (a *awsReader) listener(ctx context.Context, arn string) (*elbv2types.Listener, error) {
	return a.r.Listener(ctx, arn)
}

// rules lists a listener's rules, every page.
func (a *awsReader) rules(ctx context.Context, listenerARN string) ([]elbv2types.Rule, error) {
	return a.r.Rules(ctx, listenerARN)
}

// rule describes one rule.
func (a *awsReader) rule(ctx context.Context, arn string) (*elbv2types.Rule, error) {
	return a.r.Rule(ctx, arn)
}

// descriptions turns targets into TargetDescriptions, every one with its
// Port: a DeregisterTargets without the Port of a port-override
// registration succeeds and does nothing.
func descriptions(targets []TargetAddr) []elbv2types.TargetDescription {
	out := make([]elbv2types.TargetDescription, 0, len(targets))
	for _, t := range targets {
		out = append(out, elbv2types.TargetDescription{Id: aws.String(t.IP), Port: aws.Int32(t.Port)})
	}
	return out
}

// register registers targets, with their Port.
func (a *awsClient) register(ctx context.Context, arn string, targets []TargetAddr) error {
	return a.call(ctx, "RegisterTargets", arn, false, func(ctx context.Context) error {
		_, err := a.w.RegisterTargets(ctx, &elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(arn), Targets: descriptions(targets)})
		return err
	})
}

// deregister deregisters targets, with their Port.
func (a *awsClient) deregister(ctx context.Context, arn string, targets []TargetAddr) error {
	return a.call(ctx, "DeregisterTargets", arn, false, func(ctx context.Context) error {
		_, err := a.w.DeregisterTargets(ctx, &elbv2.DeregisterTargetsInput{TargetGroupArn: aws.String(arn), Targets: descriptions(targets)})
		return err
	})
}

// modifyHealthCheck sets a target group's health check to hc (the fields
// hc sets).
func (a *awsClient) modifyHealthCheck(ctx context.Context, arn string, hc HealthCheckSettings) error {
	in := &elbv2.ModifyTargetGroupInput{
		TargetGroupArn:             aws.String(arn),
		HealthCheckEnabled:         hc.Enabled,
		HealthCheckIntervalSeconds: hc.IntervalSeconds,
		HealthCheckTimeoutSeconds:  hc.TimeoutSeconds,
		HealthyThresholdCount:      hc.HealthyThresholdCount,
		UnhealthyThresholdCount:    hc.UnhealthyThresholdCount,
	}
	in.HealthCheckProtocol, in.HealthCheckPort, in.HealthCheckPath, in.Matcher = hc.RequestFields()
	return a.call(ctx, "ModifyTargetGroup", arn, false, func(ctx context.Context) error {
		_, err := a.w.ModifyTargetGroup(ctx, in)
		return err
	})
}

// modifyAttributes sets attributes, in sorted key order.
func (a *awsClient) modifyAttributes(ctx context.Context, arn string, attrs map[string]string, afterCreate bool) error {
	in := &elbv2.ModifyTargetGroupAttributesInput{TargetGroupArn: aws.String(arn)}
	for _, k := range slices.Sorted(maps.Keys(attrs)) {
		in.Attributes = append(in.Attributes, elbv2types.TargetGroupAttribute{Key: aws.String(k), Value: aws.String(attrs[k])})
	}
	return a.call(ctx, "ModifyTargetGroupAttributes", arn, afterCreate, func(ctx context.Context) error {
		_, err := a.w.ModifyTargetGroupAttributes(ctx, in)
		return err
	})
}

// createTargetGroup creates a target group (tags on creation).
func (a *awsClient) createTargetGroup(ctx context.Context, in *elbv2.CreateTargetGroupInput) (*elbv2types.TargetGroup, error) {
	var out *elbv2.CreateTargetGroupOutput
	err := a.call(ctx, "CreateTargetGroup", aws.ToString(in.Name), false, func(ctx context.Context) (err error) {
		out, err = a.w.CreateTargetGroup(ctx, in)
		return awserr.Answered(out, err)
	})
	if err != nil {
		return nil, err
	}
	if len(out.TargetGroups) != 1 {
		return nil, &awserr.Error{Op: "CreateTargetGroup", Resource: aws.ToString(in.Name), Kind: awserr.ErrUnknown,
			Err: errors.New("the response holds no target group")}
	}
	return &out.TargetGroups[0], nil
}

// deleteTargetGroup deletes a target group.
func (a *awsClient) deleteTargetGroup(ctx context.Context, arn string) error {
	return a.call(ctx, "DeleteTargetGroup", arn, false, func(ctx context.Context) error {
		_, err := a.w.DeleteTargetGroup(ctx, &elbv2.DeleteTargetGroupInput{TargetGroupArn: aws.String(arn)})
		return err
	})
}

// modifyListener replaces a listener's default actions. A target group
// created an instant before may not be visible yet: that is retried.
func (a *awsClient) modifyListener(ctx context.Context, arn string, actions []elbv2types.Action) error {
	return a.call(ctx, "ModifyListener", arn, true, func(ctx context.Context) error {
		_, err := a.w.ModifyListener(ctx, &elbv2.ModifyListenerInput{ListenerArn: aws.String(arn), DefaultActions: actions})
		return err
	})
}

// modifyRule replaces a rule's actions, retrying as modifyListener does.
func (a *awsClient) modifyRule(ctx context.Context, arn string, actions []elbv2types.Action) error {
	return a.call(ctx, "ModifyRule", arn, true, func(ctx context.Context) error {
		_, err := a.w.ModifyRule(ctx, &elbv2.ModifyRuleInput{RuleArn: aws.String(arn), Actions: actions})
		return err
	})
}
