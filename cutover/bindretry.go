package cutover

// bindretry.go holds the bind's patience with the controller's view of a
// new target group: ELBv2 is eventually consistent, so the target group
// blue/green created can be visible to cutover and not yet to the AWS Load
// Balancer Controller, whose webhooks read it (DescribeTargetGroups, through
// the controller's own client) on every create of a binding and deny the
// binding when the read fails. The bind applies it again, for a bounded
// time, journaling each denial.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/retry"
	"github.com/qstools/tgmigrate/internal/textcell"
	"github.com/qstools/tgmigrate/tgbind"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// DefaultBindVisibilityTimeout bounds how long the bind step applies the
// binding again while the controller's webhook denies it for a target
// group the plan created moments ago and cutover already sees (see
// [WithBindVisibilityTimeout]). ELBv2's eventual consistency usually
// closes within seconds; the bound is the default retry policy's
// (DefaultRetry.MaxElapsed).
const DefaultBindVisibilityTimeout = 2 * time.Minute

// reasonVisibility is the Wait.Reason of the bind's retries.
const reasonVisibility = "ELBv2's eventual consistency: the controller's webhook reads the new target group through the controller's own client, which may see it later than cutover does"

// BindDeniedError says that the AWS Load Balancer Controller's webhook
// kept denying the binding of the target group the plan created, although
// cutover saw it, for the whole of the bind's visibility timeout: the
// controller still did not see the target group (ELBv2's eventual
// consistency lasting longer than the bound), or it denied the binding
// for a reason tgbind's own checks did not foresee. Every denial is in
// the journal's notes. Execute then rolls back as for any failed step.
type BindDeniedError struct {
	// Step is the step that applied the binding.
	Step string
	// Binding is the binding's namespace/name.
	Binding string
	// TargetGroupARN is the target group the plan created, typed as every
	// ARN of the package's errors is.
	TargetGroupARN tgmigrate.ARN
	// Webhook is the webhook that denied it last, for example
	// "vtargetgroupbinding.elbv2.k8s.aws".
	Webhook string
	// Attempts counts the applies the webhook denied.
	Attempts int
	// Elapsed is the time from the first denial to the last, on the
	// injected clock; Bound the visibility timeout.
	Elapsed, Bound time.Duration
	// Err is the last denial: tgbind's error (a *tgbind.WebhookDeniedError
	// inside it, whose Message says why, for the operator).
	Err error
}

// Error implements error.
func (e *BindDeniedError) Error() string {
	return fmt.Sprintf("cutover: %s: %v: the controller's webhook %q denied the binding %s of the new target group %s %s in %v (bound %v): it may not see the target group yet (ELBv2's eventual consistency), or it refuses the binding; last: %v",
		e.Step, ErrTimeout, e.Webhook, e.Binding, e.TargetGroupARN.Raw, textcell.Plural(e.Attempts, "time", "times"), e.Elapsed, e.Bound, e.Err)
}

// Unwrap returns [ErrTimeout] and the last denial.
func (e *BindDeniedError) Unwrap() []error { return []error{ErrTimeout, e.Err} }

// bindVisibility is the bind's visibility timeout and where it comes
// from; zero when denials are not retried.
func (r *runner) bindVisibility() (time.Duration, string) {
	switch {
	case r.o.bindVisibility < 0:
		return 0, "WithBindVisibilityTimeout: none"
	case r.o.bindVisibility > 0:
		return r.o.bindVisibility, fmt.Sprintf("WithBindVisibilityTimeout %v", r.o.bindVisibility)
	}
	return DefaultBindVisibilityTimeout, fmt.Sprintf("DefaultBindVisibilityTimeout %v", DefaultBindVisibilityTimeout)
}

// unseen returns the controller's denial when err says the controller's
// webhook cannot see the target group of tgb yet. It never reads a
// message. It holds when:
//   - the target group is the one this plan created (its create step
//     journaled it): an in-place binding's target group existed long
//     before the plan;
//   - one of the LBC's two webhooks denied the binding (a
//     *tgbind.WebhookDeniedError whose LBC is set, known by the webhook's
//     name), at the dry run or at the apply;
//   - and tgbind's own checks all passed: a dry-run denial is then the
//     *tgbind.ValidationError's only failure. Those checks read the target
//     group through cutover's client (so cutover sees it) and check, from
//     cutover's view, what else the LBC's webhooks deny (another binding
//     on the target group, a VPC or address-family mismatch, nodeSelector
//     in ip mode). A denial they did not foresee, of a target group
//     created moments ago that cutover sees, is the controller's view
//     lagging behind; a denial for any other reason is retried until the
//     bound, then fails as it would have at once.
func (r *runner) unseen(tgb *v1beta1.TargetGroupBinding, err error) (*tgbind.WebhookDeniedError, bool) {
	created := r.st.CreatedTargetGroupARN.Raw
	if err == nil || created == "" || tgb.Spec.TargetGroupARN != created {
		return nil, false
	}
	var wd *tgbind.WebhookDeniedError
	if !errors.As(err, &wd) || !wd.LBC {
		return nil, false
	}
	var ve *tgbind.ValidationError
	if errors.As(err, &ve) {
		for _, fe := range ve.Errors {
			if !errors.Is(fe.Kind, tgbind.ErrWebhookRejected) {
				return nil, false
			}
		}
	}
	return wd, true
}

// retryUnseen runs apply, and runs it again while the controller's
// webhook denies tgb because it cannot see the plan's new target group
// yet (unseen), for at most the bind's visibility timeout. It backs off
// from a second (or the poll interval, if shorter) to the poll interval,
// on the injected clock and ctx: the poll interval stays under half the
// lease, and each apply renews it. Each denial is a journal note (saved),
// a log line and, the first, a Wait for the Observer; past the bound it
// returns a *BindDeniedError. Any other error of apply is returned as it
// is.
func (r *runner) retryUnseen(ctx context.Context, step string, tgb *v1beta1.TargetGroupBinding, apply func(context.Context) error) error {
	bound, from := r.bindVisibility()
	if bound <= 0 || r.st.CreatedTargetGroupARN.Raw != tgb.Spec.TargetGroupARN {
		return apply(ctx)
	}
	binding := tgb.Namespace + "/" + tgb.Name
	var first time.Time
	attempts := 0
	webhook := ""
	denied := errors.New("denied") // marks a journaled denial, to retry
	var last error
	p := retry.Policy{Initial: min(time.Second, r.o.poll), Max: r.o.poll, Multiplier: 2, MaxElapsed: bound}
	err := retry.Do(ctx, r.e.clock, p, func(ctx context.Context) error {
		err := apply(ctx)
		wd, ok := r.unseen(tgb, err)
		if !ok {
			return err
		}
		now := r.e.clock.Now()
		attempts++
		last, webhook = err, wd.Webhook
		if first.IsZero() {
			first = now
			r.waiting(Wait{Step: step, What: "the controller's webhook to see the new target group", Reason: reasonVisibility, From: from, Until: now.Add(bound)})
		}
		note := fmt.Sprintf("%s: denial %d, %v after the first: the controller's webhook %q denied the binding %s of the target group %s, which this plan created and cutover sees: the controller may not see it yet (ELBv2's eventual consistency); applying again for up to %v (%s): %s",
			step, attempts, now.Sub(first), wd.Webhook, binding, tgb.Spec.TargetGroupARN, bound, from, wd.Message)
		r.st.Notes = append(r.st.Notes, note)
		r.e.log.Info("binding denied by the controller's webhook: applying it again", "step", step, "binding", binding,
			"webhook", wd.Webhook, "attempt", attempts, "bound", bound, "message", wd.Message)
		if err := r.save(ctx); err != nil {
			return err
		}
		return denied
	}, retry.WithRetryable(func(err error) bool { return errors.Is(err, denied) }))
	var gaveUp *retry.GaveUpError
	if errors.As(err, &gaveUp) {
		return &BindDeniedError{Step: step, Binding: binding, TargetGroupARN: r.st.CreatedTargetGroupARN, Webhook: webhook,
			Attempts: attempts, Elapsed: r.e.clock.Since(first), Bound: bound, Err: last}
	}
	return err
}
