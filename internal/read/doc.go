// Package read is tgmigrate's one read path: every read of ELBv2 and every
// listing of the cluster that diagnose and cutover make goes through it.
// It pages (with a guard against a service that repeats a marker),
// batches (DescribeTags by twenty, DescribeTargetGroups by twenty ARNs or
// names), rate-limits (a token bucket on the injected clock), retries what
// internal/awserr calls retryable (internal/retry, backoff/v4 on the
// injected clock), counts the calls, and turns a nil SDK output into an
// error before anything dereferences it. Nothing here writes.
//
// # Files
//
//   - doc.go: this comment.
//
// Tests: none yet.
package read
