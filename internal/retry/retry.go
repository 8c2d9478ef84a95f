package retry

// retry.go: Do and Poll, their Policy and options, GaveUpError, and the
// timer that runs backoff/v4 on a k8s.io/utils/clock.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cenkalti/backoff/v4"
	"k8s.io/utils/clock"

	"github.com/qstools/tgmigrate/internal/awserr"
)

// Policy shapes the delays between attempts. Zero fields take the defaults.
type Policy struct {
	// Initial is the first delay. Zero means 1s.
	Initial time.Duration
	// Max caps each delay. Zero means 30s.
	Max time.Duration
	// Multiplier grows the delay after each attempt. Zero means 2; 1 polls at
	// a fixed interval.
	Multiplier float64
	// Jitter randomises each delay by ±Jitter (0.2 = ±20%). Zero means none.
	Jitter float64
	// MaxElapsed gives up after this much time since the first attempt. Zero
	// means no limit other than the context.
	MaxElapsed time.Duration
	// MaxAttempts gives up after this many attempts. Zero means no limit.
	MaxAttempts uint64
}

// ErrGaveUp is the category of a [*GaveUpError].
var ErrGaveUp = errors.New("gave up")

// GaveUpError says the policy ran out of time or attempts before success.
type GaveUpError struct {
	// Attempts is how many times the operation or condition ran.
	Attempts uint64
	// Elapsed is the time spent, on the injected clock.
	Elapsed time.Duration
	// Last is the last error seen, if any.
	Last error
}

// Error implements error.
func (e *GaveUpError) Error() string {
	if e.Last != nil {
		return fmt.Sprintf("gave up after %d attempts in %v: %v", e.Attempts, e.Elapsed, e.Last)
	}
	return fmt.Sprintf("gave up after %d attempts in %v", e.Attempts, e.Elapsed)
}

// Unwrap returns ErrGaveUp and the last error.
func (e *GaveUpError) Unwrap() []error { return []error{ErrGaveUp, e.Last} }

// Option adjusts one call.
type Option func(*config)

type config struct {
	retryable func(error) bool
	notify    func(err error, wait time.Duration)
	// wake, when set, is asked every wakeEvery during a wait between two
	// attempts; true ends the wait at once.
	wake      func() bool
	wakeEvery time.Duration
}

// WithRetryable replaces the test for retryable errors. The default retries
// only AWS throttling.
func WithRetryable(f func(error) bool) Option { return func(c *config) { c.retryable = f } }

// WithNotify reports each retry: the error (nil when a Poll condition simply
// did not hold yet) and the delay before the next attempt.
func WithNotify(f func(err error, wait time.Duration)) Option {
	return func(c *config) { c.notify = f }
}

// WithWake ends a wait between two attempts early, when wake reports
// true: the next attempt runs at once instead of after the whole delay.
// wake is asked every every (a positive duration; at most the delay) on
// the injected clock, so the wait becomes a series of short waits, each a
// select on its timer and ctx.Done(): a caller that learns of a change
// between two polls (a watch) reacts within every, not at the next poll.
// wake must not block. A nil wake or a non-positive every is ignored.
func WithWake(every time.Duration, wake func() bool) Option {
	return func(c *config) {
		if wake != nil && every > 0 {
			c.wake, c.wakeEvery = wake, every
		}
	}
}

func defaultRetryable(err error) bool { return awserr.IsRetryable(err, false) }

// errNotYet marks a Poll condition that does not hold yet.
var errNotYet = errors.New("condition not met yet")

// Do runs op until it returns nil or an error that is not retryable, or until
// the policy or ctx gives up. It returns op's last error, a [*GaveUpError],
// or the context's cause.
func Do(ctx context.Context, clk clock.Clock, p Policy, op func(context.Context) error, opts ...Option) error {
	cfg := config{retryable: defaultRetryable}
	for _, o := range opts {
		o(&cfg)
	}
	return run(ctx, clk, p, cfg, func(ctx context.Context) error {
		err := op(ctx)
		if err != nil && !cfg.retryable(err) {
			return backoff.Permanent(err)
		}
		return err
	})
}

// Poll calls cond until it reports true, backing off between calls. An error
// from cond that is retryable counts as "not yet"; any other error stops the
// poll and is returned.
func Poll(ctx context.Context, clk clock.Clock, p Policy, cond func(context.Context) (bool, error), opts ...Option) error {
	cfg := config{retryable: defaultRetryable}
	for _, o := range opts {
		o(&cfg)
	}
	return run(ctx, clk, p, cfg, func(ctx context.Context) error {
		done, err := cond(ctx)
		switch {
		case err != nil && !cfg.retryable(err):
			return backoff.Permanent(err)
		case err != nil:
			return err
		case !done:
			return errNotYet
		}
		return nil
	})
}

func run(ctx context.Context, clk clock.Clock, p Policy, cfg config, op func(context.Context) error) error {
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	start := clk.Now()
	eb := &backoff.ExponentialBackOff{
		InitialInterval:     orDuration(p.Initial, time.Second),
		RandomizationFactor: p.Jitter,
		Multiplier:          orFloat(p.Multiplier, 2),
		MaxInterval:         orDuration(p.Max, 30*time.Second),
		MaxElapsedTime:      p.MaxElapsed,
		Stop:                backoff.Stop,
		Clock:               clk,
	}
	eb.Reset()
	var b backoff.BackOff = eb
	if p.MaxAttempts > 0 {
		b = backoff.WithMaxRetries(b, p.MaxAttempts-1)
	}
	b = backoff.WithContext(b, ctx)

	var attempts uint64
	var last error
	err := backoff.RetryNotifyWithTimer(func() error {
		attempts++
		err := op(ctx)
		if err != nil && !errors.Is(err, errNotYet) {
			last = err
		}
		return err
	}, b, func(err error, wait time.Duration) {
		if cfg.notify != nil {
			if errors.Is(err, errNotYet) {
				err = nil
			}
			cfg.notify(err, wait)
		}
	}, &timer{ctx: ctx, clk: clk, wake: cfg.wake, every: cfg.wakeEvery})

	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return context.Cause(ctx)
	case errors.Is(err, errNotYet) || cfg.retryable(err):
		return &GaveUpError{Attempts: attempts, Elapsed: clk.Since(start), Last: last}
	}
	return err
}

func orDuration(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

func orFloat(f, def float64) float64 {
	if f > 0 {
		return f
	}
	return def
}

// timer adapts an injected clock to backoff.Timer. With wake set, its
// wait is a series of short waits of at most every, and wake is asked
// after each: true ends the wait early (see WithWake).
type timer struct {
	ctx   context.Context
	clk   clock.Clock
	t     clock.Timer
	wake  func() bool
	every time.Duration
	until time.Time
}

func (t *timer) Start(d time.Duration) {
	t.Stop()
	if t.wake != nil {
		t.until = t.clk.Now().Add(d)
		return
	}
	t.t = t.clk.NewTimer(d)
}

func (t *timer) Stop() {
	if t.t != nil {
		t.t.Stop()
		t.t = nil
	}
}

// C returns the channel backoff/v4 selects on, with ctx.Done(). Without
// wake it is the clock's timer's. With wake it waits here, one short
// timer at a time (a virtual clock advances on each), and returns a
// channel that is ready once the delay has passed or wake said so; when
// ctx ends first, one that is never ready, so that backoff sees ctx.Done().
func (t *timer) C() <-chan time.Time {
	if t.wake == nil {
		return t.t.C()
	}
	ready := make(chan time.Time, 1)
	for {
		now := t.clk.Now()
		left := t.until.Sub(now)
		if left <= 0 || t.wake() {
			ready <- now
			return ready
		}
		short := t.clk.NewTimer(min(left, t.every))
		select {
		case <-t.ctx.Done():
			short.Stop()
			return ready
		case <-short.C():
			// A virtual clock may fire the short timer in the same step
			// as the event that ended ctx: both channels are then ready
			// and select picks either, so ctx is asked again here.
			if t.ctx.Err() != nil {
				return ready
			}
		}
	}
}
