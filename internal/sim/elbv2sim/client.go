package elbv2sim

// client.go: the Client: Options, call counts and log, injected errors,
// latency.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"
	"k8s.io/utils/clock"

	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/sim/simopt"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// Operation names, as the call log and [Client.Counts] spell them.
const (
	OpDescribeTargetGroups          = "DescribeTargetGroups"
	OpDescribeTargetHealth          = "DescribeTargetHealth"
	OpDescribeTargetGroupAttributes = "DescribeTargetGroupAttributes"
	OpDescribeTags                  = "DescribeTags"
	OpDescribeLoadBalancers         = "DescribeLoadBalancers"
	OpDescribeListeners             = "DescribeListeners"
	OpDescribeRules                 = "DescribeRules"
	OpRegisterTargets               = "RegisterTargets"
	OpDeregisterTargets             = "DeregisterTargets"
	OpCreateTargetGroup             = "CreateTargetGroup"
	OpModifyTargetGroup             = "ModifyTargetGroup"
	OpModifyTargetGroupAttributes   = "ModifyTargetGroupAttributes"
	OpDeleteTargetGroup             = "DeleteTargetGroup"
	OpAddTags                       = "AddTags"
	OpModifyListener                = "ModifyListener"
	OpModifyRule                    = "ModifyRule"
)

// Ops lists every operation a [Client] serves.
var Ops = []string{
	OpDescribeTargetGroups, OpDescribeTargetHealth, OpDescribeTargetGroupAttributes,
	OpDescribeTags, OpDescribeLoadBalancers, OpDescribeListeners, OpDescribeRules,
	OpRegisterTargets, OpDeregisterTargets, OpCreateTargetGroup, OpModifyTargetGroup,
	OpModifyTargetGroupAttributes, OpDeleteTargetGroup, OpAddTags, OpModifyListener, OpModifyRule,
}

// ErrInvalidOptions is the category of every error [New], [NewThrottle] and
// [Client.Inject] return.
// It is [simopt.ErrInvalidOptions], the category every package of the
// simulator shares.
var ErrInvalidOptions = simopt.ErrInvalidOptions

// OptionsError names the option at fault. It unwraps to [ErrInvalidOptions].
// It is the simulator's one [simopt.OptionsError]: this package's have Pkg
// "elbv2sim" and Op the function that rejected the option ("new", "new
// throttle", "inject").
type OptionsError = simopt.OptionsError

// Options configure a [Client]'s faults. The zero value is a faithful,
// fault-free, zero-latency client.
type Options struct {
	// Name labels this client's calls in the call log, for example "sut" or
	// "lbc". Zero: "".
	Name string
	// Throttle throttles calls by rate. Share one Throttle between the
	// clients of one account and region. Nil: no rate throttling.
	Throttle *Throttle
	// ThrottleProbability is, per operation class, the probability (0-1)
	// that a call is throttled whatever the rate. Nil: never.
	ThrottleProbability map[OpClass]float64
	// Seed seeds the random source of ThrottleProbability (PCG). Zero is a
	// valid seed.
	Seed uint64
	// Latency is the virtual time each call takes before it reaches the
	// model; the caller's goroutine waits it on the clock. Zero: none. A
	// client with latency must not be called from world events (the clock
	// forbids events to wait).
	Latency time.Duration
	// OpLatency overrides Latency for the operations it names.
	OpLatency map[string]time.Duration
	// Waits is the clock the latency is waited on, in the caller's
	// goroutine: a fleet's clock that lets several callers wait at once
	// in virtual time. Nil: the model's virtual clock.
	Waits clock.Clock
	// InvisibleCalls is a count fault of this client alone: a target group
	// created through this client is invisible to the next InvisibleCalls
	// calls through this client that name it (they fail with
	// TargetGroupNotFound) or list it (it is left out); other clients see
	// it at once. Zero: visible at once. For eventual consistency as every
	// caller meets it, see Consistency.
	InvisibleCalls int
	// Consistency models eventual consistency on the virtual clock for
	// every client that shares it: a target group created through any of
	// them is invisible to each until its delay has passed. Share one
	// Consistency between the clients of one account and region. Nil:
	// none.
	Consistency *Consistency
	// Errors are one-shot errors armed from the start, as by [Client.Inject].
	Errors []InjectedError
}

// InjectedError is a one-shot fault: the next call of Op (naming ARN, when
// set) fails with Err and has no effect.
type InjectedError struct {
	// Op is the operation, one of [Ops]. Required.
	Op string
	// ARN, when set, limits the fault to calls that name this resource.
	ARN string
	// Err is what the call returns, wrapped as the SDK wraps service errors
	// (a *smithy.OperationError). Use the SDK's exception types, or a
	// *smithy.GenericAPIError for codes without one. Required.
	Err error
}

// Call is one entry of the call log.
type Call struct {
	// At is the virtual time the call reached the service (after latency).
	At time.Time
	// Client is the Name of the client that made it.
	Client string
	// Op is the operation, one of [Ops].
	Op string
	// Resources are the ARNs the call acts on or reads: the IAM resources
	// of the call. For CreateTargetGroup it is the new ARN, or the
	// targetgroup/NAME/* pattern when the call failed.
	Resources []string
	// Refs are ARNs the call only refers to: the target groups of the
	// actions a ModifyListener or ModifyRule sets.
	Refs []string
	// Targets is the number of targets of a RegisterTargets,
	// DeregisterTargets or filtered DescribeTargetHealth call.
	Targets int
	// ErrCode is the AWS error code of a failed call, "" on success.
	ErrCode string
}

// Client is the Go-interface facade of an [elbv2model.Model]: it has the
// exact method set and signatures of the SDK's *elasticloadbalancingv2.Client
// for the operations tgmigrate uses, and adds counting, a call log and
// faults. Several clients may share one model. The optFns arguments are
// accepted and ignored. A Client is safe for concurrent use.
type Client struct {
	model *elbv2model.Model
	clock *vclock.Clock
	opts  Options

	mu        sync.Mutex
	rng       *rand.Rand
	counts    map[string]int
	calls     []Call
	injected  []InjectedError
	invisible map[string]int    // target group ARN -> calls left
	names     map[string]string // target group name -> ARN, for invisible ones
}

// New returns a client of model. It fails with an [*OptionsError] when an
// option is out of range.
func New(model *elbv2model.Model, opts Options) (*Client, error) {
	if model == nil {
		return nil, &OptionsError{Pkg: "elbv2sim", Op: "new", Field: "model", Reason: "required"}
	}
	for c, p := range opts.ThrottleProbability {
		if c != ClassDescribe && c != ClassTargets && c != ClassMutate {
			return nil, &OptionsError{Pkg: "elbv2sim", Op: "new", Field: "ThrottleProbability", Reason: fmt.Sprintf("unknown operation class %q", c)}
		}
		if p < 0 || p > 1 {
			return nil, &OptionsError{Pkg: "elbv2sim", Op: "new", Field: "ThrottleProbability", Reason: fmt.Sprintf("class %s: %v is not a probability", c, p)}
		}
	}
	if opts.Latency < 0 {
		return nil, &OptionsError{Pkg: "elbv2sim", Op: "new", Field: "Latency", Reason: fmt.Sprintf("%v is negative", opts.Latency)}
	}
	for op, d := range opts.OpLatency {
		if !slices.Contains(Ops, op) {
			return nil, &OptionsError{Pkg: "elbv2sim", Op: "new", Field: "OpLatency", Reason: fmt.Sprintf("unknown operation %q", op)}
		}
		if d < 0 {
			return nil, &OptionsError{Pkg: "elbv2sim", Op: "new", Field: "OpLatency", Reason: fmt.Sprintf("%s: %v is negative", op, d)}
		}
	}
	if opts.InvisibleCalls < 0 {
		return nil, &OptionsError{Pkg: "elbv2sim", Op: "new", Field: "InvisibleCalls", Reason: fmt.Sprintf("%d is negative", opts.InvisibleCalls)}
	}
	for _, e := range opts.Errors {
		if err := checkInjected(e); err != nil {
			return nil, &OptionsError{Pkg: "elbv2sim", Op: "new", Field: "Errors", Reason: err.Error()}
		}
	}
	return &Client{
		model:     model,
		clock:     model.Clock(),
		opts:      opts,
		rng:       rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x5eed)),
		counts:    map[string]int{},
		injected:  slices.Clone(opts.Errors),
		invisible: map[string]int{},
		names:     map[string]string{},
	}, nil
}

func checkInjected(e InjectedError) error {
	if !slices.Contains(Ops, e.Op) {
		return fmt.Errorf("unknown operation %q", e.Op)
	}
	if e.Err == nil {
		return fmt.Errorf("%s: Err is required", e.Op)
	}
	return nil
}

// Inject arms a one-shot error. Faults fire in the order they were armed.
func (c *Client) Inject(e InjectedError) error {
	if err := checkInjected(e); err != nil {
		return &OptionsError{Pkg: "elbv2sim", Op: "inject", Field: "InjectedError", Reason: err.Error()}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.injected = append(c.injected, e)
	return nil
}

// Model returns the model this client serves.
func (c *Client) Model() *elbv2model.Model { return c.model }

// Counts returns how many calls of each operation reached the service,
// throttled and failed ones included.
func (c *Client) Counts() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.counts))
	for k, v := range c.counts {
		out[k] = v
	}
	return out
}

// Calls returns the call log, oldest first.
func (c *Client) Calls() []Call {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.calls)
}

// ResetCounts clears the counts and the call log, to start a new
// measurement.
func (c *Client) ResetCounts() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts = map[string]int{}
	c.calls = nil
}

// request describes one call for the generic path through the facade.
type request struct {
	op        string
	resources []string
	refs      []string
	targets   int
	// names are target group names the call looks up (DescribeTargetGroups).
	names []string
	// lists is set when the call lists target groups without naming them.
	lists bool
}

// invoke runs one call: latency, counting, throttling, one-shot faults,
// eventual consistency, then the model, then the call log.
func invoke[I, O any](ctx context.Context, c *Client, req request, in *I, fn func(*I) (*O, error), post func(*O) []string) (*O, error) {
	if err := c.wait(ctx, req.op); err != nil {
		return nil, err
	}
	call := Call{At: c.clock.Now(), Client: c.opts.Name, Op: req.op, Resources: req.resources, Refs: req.refs, Targets: req.targets}

	c.mu.Lock()
	c.counts[req.op]++
	fault := c.faultLocked(call.At, req)
	c.mu.Unlock()
	if fault != nil {
		return nil, c.finish(call, fault)
	}

	out, err := fn(in)
	if err == nil && post != nil {
		if res := post(out); res != nil {
			call.Resources = res
		}
	}
	return out, c.finish(call, err)
}

// noLatencyKey marks a context whose calls skip the client's latency.
type noLatencyKey struct{}

// WithoutLatency returns a context under which calls through a [Client]
// skip its latency (Options.Latency and OpLatency). It is for a facade in
// front of the Client whose caller spends the latency itself, in its own
// goroutine, with [Client.Wait]: the wire endpoint of package elbv2wire,
// whose HTTP handlers must never wait on the virtual clock.
func WithoutLatency(ctx context.Context) context.Context {
	return context.WithValue(ctx, noLatencyKey{}, true)
}

// Wait spends on the clock the latency one call of op would spend before it
// reaches the model, in the caller's goroutine, and returns the context's
// cause if ctx ends first. It returns at once for a client without latency.
// Like a call with latency, it must not be called from world events.
func (c *Client) Wait(ctx context.Context, op string) error { return c.wait(ctx, op) }

// wait spends the call's latency on the clock, or returns the context's
// cause.
func (c *Client) wait(ctx context.Context, op string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if ctx.Value(noLatencyKey{}) != nil {
		return nil
	}
	d := c.opts.Latency
	if v, ok := c.opts.OpLatency[op]; ok {
		d = v
	}
	if d <= 0 {
		return nil
	}
	var waits clock.Clock = c.clock
	if c.opts.Waits != nil {
		waits = c.opts.Waits
	}
	t := waits.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C():
		return nil
	}
}

// faultLocked decides whether the call fails before it reaches the model.
func (c *Client) faultLocked(now time.Time, req request) error {
	class := ClassOf(req.op)
	if !c.opts.Throttle.Allow(class, now) {
		return elbv2model.ThrottlingError()
	}
	if p := c.opts.ThrottleProbability[class]; p > 0 && c.rng.Float64() < p {
		return elbv2model.ThrottlingError()
	}
	for i, e := range c.injected {
		if e.Op == req.op && (e.ARN == "" || slices.Contains(req.resources, e.ARN) || slices.Contains(req.refs, e.ARN)) {
			c.injected = slices.Delete(c.injected, i, i+1)
			return e.Err
		}
	}
	if cs := c.opts.Consistency; cs != nil {
		for _, list := range [][]string{req.resources, req.refs} {
			for _, arn := range list {
				if cs.hidden(c.opts.Name, arn, now) {
					return notFound(arn)
				}
			}
		}
		for _, n := range req.names {
			if cs.hiddenName(c.opts.Name, n, now) {
				return notFound(n)
			}
		}
	}
	if len(c.invisible) == 0 {
		return nil
	}
	named := func(arn string) bool { return c.invisible[arn] > 0 }
	for _, list := range [][]string{req.resources, req.refs} {
		for _, arn := range list {
			if named(arn) {
				c.seenLocked(arn)
				return notFound(arn)
			}
		}
	}
	for _, n := range req.names {
		if arn, ok := c.names[n]; ok && named(arn) {
			c.seenLocked(arn)
			return notFound(n)
		}
	}
	return nil
}

// notFound is ELBv2's answer to a call naming a target group it does not
// see (by ARN or by name).
func notFound(what string) error {
	return &types.TargetGroupNotFoundException{Message: aws.String("One or more target groups not found: " + what)}
}

// seenLocked counts one call that did not see an invisible target group.
func (c *Client) seenLocked(arn string) {
	c.invisible[arn]--
	if c.invisible[arn] <= 0 {
		delete(c.invisible, arn)
		for n, a := range c.names {
			if a == arn {
				delete(c.names, n)
			}
		}
	}
}

// finish logs the call and wraps err as the SDK does.
func (c *Client) finish(call Call, err error) error {
	if err != nil {
		var api smithy.APIError
		if errors.As(err, &api) {
			call.ErrCode = api.ErrorCode()
		} else {
			call.ErrCode = "Unknown"
		}
		err = &smithy.OperationError{ServiceID: elbv2.ServiceID, OperationName: call.Op, Err: err}
	}
	c.mu.Lock()
	c.calls = append(c.calls, call)
	c.mu.Unlock()
	return err
}
