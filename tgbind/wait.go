package tgbind

// wait.go: Wait, which polls on the Binder's clock until every ready
// endpoint is a healthy target, Observe (one look), and the WaitOptions.

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/retry"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// Default polling of Wait. ALB health checks run every 5 to 300 s (30 s by
// default) and a target needs 2 to 10 passes, so a fresh target takes
// minutes; polling faster than every few seconds only spends API quota.
const (
	DefaultPollInitial = 5 * time.Second
	DefaultPollMax     = 30 * time.Second
)

// WaitOption adjusts one Wait.
type WaitOption func(*waitOptions)

type waitOptions struct {
	minHealthy int
	onProgress func(*TargetState)
	initial    time.Duration
	max        time.Duration
	timeout    time.Duration
}

// WithMinHealthy adds a floor: Wait also needs at least n healthy endpoint
// targets. Values below 1 mean 1 (the default): Wait never succeeds on a
// Service with no ready endpoint.
func WithMinHealthy(n int) WaitOption { return func(o *waitOptions) { o.minHealthy = n } }

// WithOnProgress calls f after each observation, on Wait's goroutine, with a
// state that Wait does not touch again (f may keep it). Healthy/Total and
// Reasons are the progress.
func WithOnProgress(f func(*TargetState)) WaitOption {
	return func(o *waitOptions) { o.onProgress = f }
}

// WithPollInterval sets the first delay between observations and its cap;
// the delay grows by half after each observation. Zero values keep
// [DefaultPollInitial] and [DefaultPollMax].
func WithPollInterval(initial, max time.Duration) WaitOption {
	return func(o *waitOptions) { o.initial, o.max = initial, max }
}

// WithTimeout gives up after d on the Binder's clock, with a
// *WaitTimeoutError holding the last state. Zero means no limit but ctx's.
func WithTimeout(d time.Duration) WaitOption { return func(o *waitOptions) { o.timeout = d } }

// Observe compares, once, the ready endpoints of the binding's Service port
// with the targets of its target group. It reads only; it does not need the
// binding to exist in the cluster.
func (b *Binder) Observe(ctx context.Context, tgb *v1beta1.TargetGroupBinding) (*TargetState, error) {
	if tgb == nil {
		return nil, errors.New("tgbind: observe: nil binding")
	}
	st, err := b.observe(ctx, tgb, b.clock.Now())
	if err != nil {
		return nil, fmt.Errorf("tgbind: observe %s/%s: %w", tgb.Namespace, tgb.Name, err)
	}
	return st, nil
}

// Wait polls until every ready endpoint of the binding's Service port
// (IP:container port, from its EndpointSlices) is registered in the target
// group and healthy, and at least WithMinHealthy of them are. Each poll
// re-reads the EndpointSlices and DescribeTargetHealth, so pods that come and
// go are followed.
//
// Polling runs on cenkalti/backoff/v4 over the Binder's clock: a virtual
// clock makes the wait instant in tests. AWS throttling and API server
// throttling or timeouts are retried; any other error ends the wait. Wait
// returns the last state with every outcome: on success, with a
// *WaitTimeoutError after WithTimeout, and with ctx's cause when ctx ends.
func (b *Binder) Wait(ctx context.Context, tgb *v1beta1.TargetGroupBinding, opts ...WaitOption) (*TargetState, error) {
	if tgb == nil {
		return nil, errors.New("tgbind: wait: nil binding")
	}
	o := waitOptions{minHealthy: 1, initial: DefaultPollInitial, max: DefaultPollMax}
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	if o.minHealthy < 1 {
		o.minHealthy = 1
	}
	if o.initial <= 0 {
		o.initial = DefaultPollInitial
	}
	if o.max <= 0 {
		o.max = DefaultPollMax
	}
	policy := retry.Policy{Initial: o.initial, Max: o.max, Multiplier: 1.5, MaxElapsed: o.timeout}

	var last *TargetState
	err := retry.Poll(ctx, b.clock, policy, func(ctx context.Context) (bool, error) {
		st, err := b.observe(ctx, tgb, b.clock.Now())
		if err != nil {
			return false, err
		}
		last = st
		if o.onProgress != nil {
			o.onProgress(st)
		}
		return st.AllHealthy() && st.Healthy >= o.minHealthy, nil
	}, retry.WithRetryable(waitRetryable))

	var gaveUp *retry.GaveUpError
	switch {
	case err == nil:
		return last, nil
	case errors.As(err, &gaveUp):
		return last, &WaitTimeoutError{Elapsed: gaveUp.Elapsed, State: last, Err: gaveUp.Last}
	default:
		return last, fmt.Errorf("tgbind: wait %s/%s: %w", tgb.Namespace, tgb.Name, err)
	}
}

// waitRetryable retries what passes by itself: AWS throttling, and API
// server throttling, timeouts and unavailability.
func waitRetryable(err error) bool {
	return awserr.IsRetryable(err, false) ||
		apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) ||
		apierrors.IsTimeout(err) || apierrors.IsServiceUnavailable(err)
}
