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
//   - cluster.go: the listing of a cluster: [ListCluster] lists a chosen
//     set of kinds ([ListKind]) into [Objects], paged by Limit/Continue,
//     with a [Policy]: [Record] (diagnose's: a [ListFailure] and a note
//     per kind not listed) or [Require] (cutover's observation: an error);
//     [Category] and [Effect] name a failure and what it takes away.
//
// Tests: cluster_test.go (the fake client, failures injected with
// interceptor.Funcs).
package read
