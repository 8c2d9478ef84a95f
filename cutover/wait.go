package cutover

// wait.go holds the waits every step shares: poll and pollDue, the timing
// they derive from, the Wait reported to the observer, the floor's grace;
// and the target states and list helpers the steps use.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate/internal/retry"
)

const (
	stateHealthy   = string(elbv2types.TargetHealthStateEnumHealthy)
	stateUnhealthy = string(elbv2types.TargetHealthStateEnumUnhealthy)
	stateDraining  = string(elbv2types.TargetHealthStateEnumDraining)
	stateInitial   = string(elbv2types.TargetHealthStateEnumInitial)
)

// poll calls cond every poll interval, keeping the lease alive, until it
// holds; past timeout it gives a *TimeoutError naming what
// it waited for and the last observation. Transient failures (throttling)
// count as "not yet".
func (r *runner) poll(ctx context.Context, step, what string, timeout time.Duration, cond func(context.Context) (bool, string, error)) error {
	return r.pollDue(ctx, step, what, timeout, time.Time{}, cond)
}

// pollDue polls as poll does, and looks more closely around due, when the
// condition can hold at the earliest (the floor of the wait, zero for
// none): one observation at due itself when it falls between two polls,
// then one every fine poll interval (a fifth of the poll interval) for two
// poll intervals after it. A wait then ends within about a second of when
// it could, not up to a poll interval later, for a few more reads.
func (r *runner) pollDue(ctx context.Context, step, what string, timeout time.Duration, due time.Time, cond func(context.Context) (bool, string, error)) error {
	start := r.e.clock.Now()
	last := "no observation"
	p := retry.Policy{Initial: r.o.poll, Max: r.o.poll, Multiplier: 1, MaxElapsed: timeout}
	check := func(ctx context.Context) (bool, error) {
		if err := r.keepAlive(ctx); err != nil {
			return false, err
		}
		ok, desc, err := cond(ctx)
		if desc != "" {
			last = desc
		}
		return ok, err
	}
	fine := max(r.o.poll/5, time.Millisecond)
	opts := []retry.Option{retry.WithRetryable(transient)}
	if r.watch != nil {
		opts = append(opts, retry.WithWake(r.o.reaction, func() bool { return r.wake(ctx) }))
	}
	err := retry.Poll(ctx, r.e.clock, p, func(ctx context.Context) (bool, error) {
		ok, err := check(ctx)
		for !ok && err == nil && !due.IsZero() {
			now := r.e.clock.Now()
			var next time.Time
			switch {
			case now.Before(due):
				next = due
			case now.Before(due.Add(2 * r.o.poll)):
				next = now.Add(fine)
			}
			if next.IsZero() || !next.Before(now.Add(r.o.poll)) {
				break // the regular poll comes first
			}
			if err := r.sleepUntil(ctx, next); err != nil {
				return false, err
			}
			ok, err = check(ctx)
		}
		return ok, err
	}, opts...)
	var gaveUp *retry.GaveUpError
	if errors.As(err, &gaveUp) {
		if gaveUp.Last != nil {
			last += " (last error: " + gaveUp.Last.Error() + ")"
		}
		return &TimeoutError{Step: step, What: what, Elapsed: r.e.clock.Since(start), Last: last}
	}
	return err
}

// sleepUntil waits until at, or, with a watch open, until the watch
// reports a node that started to leave (a series of waits of at most
// WithReaction, the watch asked after each, as retry.WithWake does for
// the polls).
func (r *runner) sleepUntil(ctx context.Context, at time.Time) error {
	for {
		left := at.Sub(r.e.clock.Now())
		if left <= 0 {
			return nil
		}
		if r.watch != nil {
			left = min(left, r.o.reaction)
		}
		t := r.e.clock.NewTimer(left)
		select {
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		case <-t.C():
		}
		if r.wake(ctx) {
			return nil
		}
	}
}

// timing is what the executor's waits derive from: the plan's
// assumptions and the health check the pod targets are checked with (the
// aligned one, or the new target group's), and the deregistration delay.
func (r *runner) timing() timing {
	p := r.plan
	return newTiming(p.Request.Assumptions, p.HealthCheck.Target, p.TargetGroup.DeregistrationDelaySeconds)
}

// waiting tells the observer and the log what a step waits for, why, and
// what the expected length derives from.
func (r *runner) waiting(w Wait) {
	r.o.observer.Waiting(w)
	r.e.log.Info("waiting", "step", w.Step, "for", w.What, "reason", w.Reason, "from", w.From, "until", w.Until)
}

// floorGrace is how long a floor shortfall may last before it is a breach,
// and what it derives from: by default the time a pod Karpenter
// rescheduled takes to be a healthy target (registration and the passing
// checks a new target needs).
func (r *runner) floorGrace() (time.Duration, string) {
	switch {
	case r.o.floorGrace < 0:
		return 0, "WithFloorGrace: none"
	case r.o.floorGrace > 0:
		return r.o.floorGrace, fmt.Sprintf("WithFloorGrace %v", r.o.floorGrace)
	}
	t := r.timing()
	return t.newTargetAtMost(), t.newTargetAtMostFrom()
}

func joinAddrs(ts []TargetAddr) string { return joinFirst(ts, TargetAddr.String) }

// joinFirst joins the first ten of items as str renders them, and says
// how many more there are.
func joinFirst[T any](items []T, str func(T) string) string {
	s := make([]string, 0, min(len(items), 11))
	for i, t := range items {
		if i == 10 {
			s = append(s, fmt.Sprintf("and %d more", len(items)-10))
			break
		}
		s = append(s, str(t))
	}
	return strings.Join(s, ", ")
}
