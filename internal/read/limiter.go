package read

// limiter.go: Limiter, the token bucket that paces one account's calls on
// the injected clock.

import (
	"context"
	"fmt"

	"golang.org/x/time/rate"
	"k8s.io/utils/clock"
)

// Limiter is a token bucket (golang.org/x/time/rate) that waits on the
// injected clock rather than on real time, so that a virtual clock makes
// waits free in tests.
//
// Waiters take turns: one at a time reserves its token and waits for it,
// the others queue for their turn (still honouring their context). The
// rate is the same as with concurrent waiters, but a reservation is never
// made against a clock that another waiter is moving, which on a virtual
// clock would stretch the waits.
type Limiter struct {
	lim  *rate.Limiter
	clk  clock.Clock
	turn chan struct{}
}

// NewLimiter returns a Limiter of perSecond tokens a second with bursts of
// burst, paced on clk (nil: the real clock). rate.Inf never waits.
func NewLimiter(clk clock.Clock, perSecond rate.Limit, burst int) *Limiter {
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &Limiter{lim: rate.NewLimiter(perSecond, burst), clk: clk, turn: make(chan struct{}, 1)}
}

// Wait takes one token, waiting for it on the clock, or returns the
// context's error with its cause ([ContextError]).
func (l *Limiter) Wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return ContextError(ctx)
	}
	if l.lim.Limit() == rate.Inf {
		return nil
	}
	select {
	case l.turn <- struct{}{}:
		defer func() { <-l.turn }()
	case <-ctx.Done():
		return ContextError(ctx)
	}
	now := l.clk.Now()
	r := l.lim.ReserveN(now, 1)
	if !r.OK() {
		return fmt.Errorf("read: rate limiter: burst %d cannot grant a token", l.lim.Burst())
	}
	// The token is due at an absolute time. Waiters of other accounts may
	// have moved the clock since now was read (a virtual clock moves
	// whenever one of them waits), so the timer counts down from the
	// clock's time at its creation: a wait never runs past the token's time.
	due := now.Add(r.DelayFrom(now))
	d := due.Sub(l.clk.Now())
	if d <= 0 {
		return nil
	}
	t := l.clk.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		r.CancelAt(l.clk.Now())
		return ContextError(ctx)
	case <-t.C():
		return nil
	}
}

// RateLimitProblem says what is wrong with a client-side rate limit of
// perSecond calls a second in bursts of burst, as the packages' options
// take it ("" when nothing): the rate must be positive (rate.Inf turns
// the limiter off), and the burst at least 1 unless the rate is rate.Inf.
func RateLimitProblem(perSecond rate.Limit, burst int) string {
	switch {
	case perSecond <= 0:
		return fmt.Sprintf("rate %v is not positive", perSecond)
	case burst < 1 && perSecond != rate.Inf:
		return fmt.Sprintf("burst %d is below 1", burst)
	}
	return ""
}

// MaxAttemptsProblem says what is wrong with a number of attempts of a
// throttled call ("" when nothing): it must be at least 1.
func MaxAttemptsProblem(n int) string {
	if n < 1 {
		return fmt.Sprintf("%d is below 1", n)
	}
	return ""
}
