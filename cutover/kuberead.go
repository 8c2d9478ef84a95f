package cutover

// This file retries PlanCutover's cluster reads as aws.go retries its AWS
// reads: planning only reads, so a read the API server fails for a moment
// is tried again, with the same policy and on the same clock, and each
// retry is counted and logged. A failure that will not pass by itself
// (Forbidden, NotFound, NoMatch, Invalid...) fails at once.

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/retry"
)

// retryingReader is the cluster as PlanCutover reads it: Get and List
// retry kubeTransient failures. It is the planner's env.reader, so
// tgbind's preflight and diagnose's snapshot read through it too. It is a
// client.Reader and nothing more: planning cannot write. Execute and
// Rollback resolve an env of their own and never see it.
type retryingReader struct {
	client.Reader
	clock  clock.Clock
	policy retry.Policy
	log    logr.Logger
	// retries counts the retries made, over every read.
	retries atomic.Int64
}

func newRetryingReader(c client.Reader, clk clock.Clock, p RetryPolicy, log logr.Logger) *retryingReader {
	return &retryingReader{Reader: c, clock: clk, policy: p.internal(), log: log}
}

// Get reads one object, retrying transient failures until the policy or
// ctx gives up.
func (r *retryingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	return r.retry(ctx, func() string { return fmt.Sprintf("get %T %s", obj, key) }, func(ctx context.Context) error {
		return r.Reader.Get(ctx, key, obj, opts...)
	})
}

// List lists objects, retrying transient failures until the policy or ctx
// gives up.
func (r *retryingReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return r.retry(ctx, func() string { return fmt.Sprintf("list %T", list) }, func(ctx context.Context) error {
		return r.Reader.List(ctx, list, opts...)
	})
}

// retry runs read under the policy. It returns read's last error rather
// than retry's GaveUpError, as awsReader.call does, so that callers still
// see the API server's status.
func (r *retryingReader) retry(ctx context.Context, op func() string, read func(context.Context) error) error {
	err := retry.Do(ctx, r.clock, r.policy, read, retry.WithRetryable(kubeTransient),
		retry.WithNotify(func(err error, wait time.Duration) {
			r.retries.Add(1)
			r.log.V(1).Info("retrying", "op", op(), "in", wait, "error", err)
		}))
	var gaveUp *retry.GaveUpError
	if errors.As(err, &gaveUp) && gaveUp.Last != nil {
		return gaveUp.Last
	}
	return err
}

// kubeTransient reports whether a cluster read may pass if tried again: the
// API server throttled it, timed out, was unavailable or failed inside, or
// the connection was refused or reset.
func kubeTransient(err error) bool {
	return apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) ||
		apierrors.IsServiceUnavailable(err) || apierrors.IsInternalError(err) ||
		utilnet.IsConnectionRefused(err) || utilnet.IsConnectionReset(err)
}
