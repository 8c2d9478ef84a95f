// Package retry is tgmigrate's one way to wait: cenkalti/backoff/v4 driven by
// an injected k8s.io/utils/clock, so that the same code runs on real time in
// production and on internal/vclock's virtual time in simulations.
//
// # Files
//
//   - doc.go: this comment.
//   - retry.go: [Do], [Poll], [Policy], [GaveUpError] and the options, and
//     the timer that runs backoff/v4 on a k8s.io/utils/clock.
//
// Tests: example_test.go (the example), retry_test.go.
//
// # Calls
//
//   - [Do] retries an operation while its error is retryable (by default:
//     AWS throttling, as internal/awserr classifies it). Any other error
//     stops at once: that is the one "do not retry" rule.
//   - [Poll] calls a condition until it holds, backing off between calls.
//
// Both select on ctx.Done() between attempts and report context.Cause(ctx).
// Neither logs: the Notify option reports each retry to the caller.
// [WithWake] lets a caller that learns of a change between two attempts (a
// watch) end the wait early: the wait is then a series of short waits,
// each on one timer of the clock, and the wake is asked after each.
//
// # Policy
//
// [Policy] is plain data whose zero fields mean the defaults documented on
// each field. Jitter is off unless set, so simulated runs are reproducible.
package retry
