package read

// call.go: the call engine every AWS call of the read path goes through
// (Caller, Do, Call): the rate limiter, the retries on the injected clock,
// awserr's classification, the per-operation count, the beforeAttempt hook,
// and the guard that turns a nil output into an error; and ContextError.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"

	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/retry"
)

// Options shape a [Caller]. Each zero value is said next to its field.
type Options struct {
	// Clock paces the limiter and the retries. Nil means the real clock.
	Clock clock.Clock
	// Policy shapes the retries of retryable errors (awserr.IsRetryable:
	// throttling, and NotFound for a call made with afterCreate). The zero
	// Policy is internal/retry's defaults.
	Policy retry.Policy
	// Limiter paces every attempt. Nil means no pacing.
	Limiter *Limiter
	// BeforeAttempt runs before every attempt of every call, retries
	// included, once the limiter has granted it; op names the call. Its
	// error stops the call before the attempt and is not retried. Nil
	// means no hook.
	BeforeAttempt func(ctx context.Context, op string) error
	// OnAttempt is told of every attempt about to be made, after the
	// limiter and BeforeAttempt (the per-operation call count). Nil means
	// nothing is told.
	OnAttempt func(op string)
	// OnRetry is told of every retry: the operation, its resource, the
	// error retried and the wait before the next attempt. Nil means
	// nothing is told.
	OnRetry func(op, resource string, err error, wait time.Duration)
	// Log receives, at V(1), what the reads skip (a repeated marker).
	// The zero Logger discards.
	Log logr.Logger
	// LastOnGiveUp, when true, makes a call that runs out of attempts
	// return the last attempt's error; false returns the
	// *retry.GaveUpError that wraps it.
	LastOnGiveUp bool
	// JoinCanceled, when true, makes a call that fails once ctx has ended
	// return [ContextError](ctx), which keeps context.Canceled (or
	// DeadlineExceeded) beside the cause; false returns what internal/retry
	// returns then, context.Cause(ctx).
	JoinCanceled bool
}

// Caller is the one call engine of the read path. It holds no client:
// every call gives the function that makes it. Safe for concurrent use when
// its hooks are.
type Caller struct {
	o Options
}

// NewCaller returns a Caller shaped by o.
func NewCaller(o Options) *Caller {
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	return &Caller{o: o}
}

// CallOption adjusts one call.
type CallOption func(*callConfig)

type callConfig struct{ afterCreate bool }

// AfterCreate, when on is true, also retries NotFound: the call follows a
// create that AWS may not show yet (eventual consistency).
func AfterCreate(on bool) CallOption { return func(c *callConfig) { c.afterCreate = on } }

// Do runs one AWS call, fn, named op about resource (which may be ""):
// each attempt waits for the limiter, runs BeforeAttempt, is counted, and
// its error is classified by awserr.Classify; retryable errors are retried
// on the clock under the Policy.
func (c *Caller) Do(ctx context.Context, op, resource string, fn func(context.Context) error, opts ...CallOption) error {
	var cc callConfig
	for _, o := range opts {
		o(&cc)
	}
	err := retry.Do(ctx, c.o.Clock, c.o.Policy, func(ctx context.Context) error {
		if c.o.Limiter != nil {
			if err := c.o.Limiter.Wait(ctx); err != nil {
				return err
			}
		}
		if c.o.BeforeAttempt != nil {
			if err := c.o.BeforeAttempt(ctx, op); err != nil {
				return err // not an AWS error: never retried
			}
		}
		if c.o.OnAttempt != nil {
			c.o.OnAttempt(op)
		}
		return awserr.Classify(op, resource, fn(ctx))
	}, retry.WithRetryable(func(err error) bool { return awserr.IsRetryable(err, cc.afterCreate) }),
		retry.WithNotify(func(err error, wait time.Duration) {
			if c.o.OnRetry != nil {
				c.o.OnRetry(op, resource, err, wait)
			}
		}))
	if err != nil && c.o.JoinCanceled && ctx.Err() != nil {
		// retry reports context.Cause(ctx) alone: keep context.Canceled too.
		return ContextError(ctx)
	}
	var gaveUp *retry.GaveUpError
	if c.o.LastOnGiveUp && errors.As(err, &gaveUp) && gaveUp.Last != nil {
		return gaveUp.Last
	}
	return err
}

// ended is the error of a call made or failed once ctx has ended.
func (c *Caller) ended(ctx context.Context) error {
	if c.o.JoinCanceled {
		return ContextError(ctx)
	}
	return context.Cause(ctx)
}

// Call makes one AWS call through c.Do, and turns a nil output with a nil
// error into an error wrapping awserr.ErrNilResponse ("op resource: nil
// response"), so that neither its caller nor an SDK paginator ever
// dereferences a nil output. A nil output is not retried.
func Call[Out any](ctx context.Context, c *Caller, op, resource string, fn func(context.Context) (*Out, error), opts ...CallOption) (*Out, error) {
	var out *Out
	err := c.Do(ctx, op, resource, func(ctx context.Context) (err error) {
		out, err = fn(ctx)
		return err
	}, opts...)
	if err == nil && out == nil {
		if resource != "" {
			op += " " + resource
		}
		return nil, fmt.Errorf("%s: %w", op, awserr.ErrNilResponse)
	}
	return out, err
}

// ContextError is the error of an ended ctx, or nil while it lives:
// ctx.Err() joined with context.Cause(ctx) when the cause is another error
// (one given to context.WithCancelCause or WithTimeoutCause). errors.Is
// then holds both for context.Canceled (or DeadlineExceeded) and for the
// caller's cause.
func ContextError(ctx context.Context) error {
	err := ctx.Err()
	if err == nil {
		return nil
	}
	switch cause := context.Cause(ctx); {
	case cause == nil:
		return err
	case errors.Is(cause, err): // no cause of its own, or one that wraps err
		return cause
	default:
		return fmt.Errorf("%w: %w", err, cause)
	}
}
