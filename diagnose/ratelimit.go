package diagnose

import (
	"context"
	"fmt"

	"golang.org/x/time/rate"
	"k8s.io/utils/clock"
)

// limiter is a token bucket (golang.org/x/time/rate) that waits on the
// injected clock rather than on real time, so that a virtual clock makes
// waits free in tests.
type limiter struct {
	lim *rate.Limiter
	clk clock.Clock
}

func newLimiter(clk clock.Clock, perSecond rate.Limit, burst int) *limiter {
	return &limiter{lim: rate.NewLimiter(perSecond, burst), clk: clk}
}

// wait takes one token, waiting for it on the clock, or returns the
// context's cause.
func (l *limiter) wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	if l.lim.Limit() == rate.Inf {
		return nil
	}
	now := l.clk.Now()
	r := l.lim.ReserveN(now, 1)
	if !r.OK() {
		return fmt.Errorf("diagnose: rate limiter: burst %d cannot grant a token", l.lim.Burst())
	}
	d := r.DelayFrom(now)
	if d <= 0 {
		return nil
	}
	t := l.clk.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		r.CancelAt(l.clk.Now())
		return context.Cause(ctx)
	case <-t.C():
		return nil
	}
}
