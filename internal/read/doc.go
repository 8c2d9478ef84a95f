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
//   - call.go: the call engine (Caller, its Options, Do, Call) and
//     ContextError.
//   - limiter.go: Limiter, the token bucket on the injected clock.
//   - elbv2.go: Reader over a tgmigrate.ELBv2ReadAPI, the economy constants,
//     the batched reads (target groups by ARN or name, tags) and the single
//     ones (one target group, attributes, target health, one listener, one
//     rule).
//   - paging.go: the paged reads (target groups, listeners, rules),
//     [Drain] (the paged query of any SDK paginator, ELBv2's or EC2's)
//     and Markers, the repeated-marker guard.
//   - cluster.go: the listing of a cluster: [ListCluster] lists a chosen
//     set of kinds ([ListKind]) into [Objects], paged by Limit/Continue,
//     scoped by ListOptions (a selector, a namespace), each page projected
//     as it arrives ([Projection]: the caller's slim copy of each object,
//     the page then let go), with a [Policy]: [Record] (diagnose's: a
//     [ListFailure] and a note per kind not listed) or [Require]
//     (cutover's observation: an error); [Category] and [Effect] name a
//     failure and what it takes away.
//   - unstructured.go: [ListUnstructured], one CRD kind the cluster may
//     not serve (Karpenter's EC2NodeClasses and NodePools), paged the same
//     way.
//
// # Using it
//
// A capability package builds one [Caller] per client (its clock, retry
// policy, optional [Limiter], and hooks: BeforeAttempt, OnAttempt for its
// call counts, OnRetry), and one [Reader] over its read-only ELBv2 client
// with it. Its other calls (EC2, Service Quotas, cutover's writes) go
// through the same Caller with [Call] or [Caller.Do]. It lists the cluster
// with [ListCluster]. diagnose keeps what to read and how to report it;
// cutover keeps its writes.
//
// Tests: read_test.go (paging's marker guard, the nil-output guard,
// throttling retried and given up on a virtual clock, halving on NotFound
// for target groups and tags, the beforeAttempt hook, the limiter's pace);
// cluster_test.go (the fake client, failures injected with
// interceptor.Funcs; the projection page by page, the list options).
package read
