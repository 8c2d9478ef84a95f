// Package elbv2sim is the Go-interface facade of the simulated ELBv2
// service (package elbv2model): a [Client] with the SDK's own method
// signatures, so it satisfies diagnose.ELBv2API, tgbind.ELBv2API and
// cutover.ELBv2API exactly as *elasticloadbalancingv2.Client does, and the
// SDK's paginators accept it.
//
// # Files
//
//   - doc.go: this comment.
//   - client.go: the Client: Options, call counts and log, injected errors,
//     latency.
//   - consistency.go: Consistency, eventual consistency shared by every
//     client of one account and region, on the virtual clock.
//   - contract.go: gomock matchers of the call contract: EveryTargetHasPort,
//     AtMostTargets, InTargetGroup.
//   - ops.go: the ELBv2 operations, with the SDK's signatures.
//   - throttle.go: throttling: operation classes and token buckets.
//
// The facade adds only what a facade should: counting, a call log, faults
// and latency. All state and all validation live in the model; several
// clients may share one model (the system under test gets one, the LBC
// stand-in another, so their calls are counted apart).
//
// # Counting and the call log
//
// [Client.Counts] counts the calls that reached the service, by operation
// ([Ops]), throttled and failed ones included. [Client.Calls] is the log:
// virtual time, client name, operation, the resource ARNs acted on (the IAM
// resources of the call, so a test can check every call against a
// least-privilege policy), the ARNs referred to, the number of targets, and
// the AWS error code. [Client.ResetCounts] starts a new measurement.
//
// # Faults
//
// Each fault fails the call before it reaches the model, so a failed call
// has no side effect. Errors come back wrapped in a *smithy.OperationError,
// as the SDK wraps service errors, so callers must use errors.As.
//
//   - Rate throttling: a [Throttle] holds a token bucket per [OpClass] on
//     the virtual clock, per account and region; share it between clients.
//     [DocumentedDescribeBucket] is the documented Describe* example (40,
//     10/s); [LBCHintBuckets] adds assumed buckets for the other classes.
//   - Probability throttling: Options.ThrottleProbability, drawn from a PCG
//     source seeded with Options.Seed.
//   - Latency: Options.Latency and OpLatency wait on the virtual clock (or
//     on Options.Waits, a fleet's clock), in the caller's goroutine, before
//     the call reaches the model. Only for a
//     client that is not called from world events. A facade in front of
//     the client (the wire endpoint of package elbv2wire) passes
//     [WithoutLatency] and has its caller spend the latency with
//     [Client.Wait] instead, so that no HTTP handler waits on the clock.
//   - Eventual consistency, as every caller meets it: a [Consistency]
//     (Options.Consistency), shared like a Throttle by the clients of one
//     account and region. A target group created through any of them is
//     invisible to each of them until its delay has passed on the virtual
//     clock since the create reached the service: ConsistencyOptions.Delay,
//     or ClientDelay for a named client, so that one caller (the system
//     under test) may see a new target group while another (the LBC
//     stand-in) does not yet. Calls that name it, by ARN or by name, fail
//     with TargetGroupNotFound; listings leave it out; once a client sees
//     it, it keeps seeing it. An idempotent create hides nothing, and a
//     deleted target group is forgotten. [Consistency.VisibleAt] says when
//     a client sees one.
//   - A count fault of one client: with Options.InvisibleCalls, a target
//     group created through the client stays invisible to the next N calls
//     through that client that name it (TargetGroupNotFound) or list it
//     (left out); other clients see it at once. It is for a test that
//     wants exactly N misses; Consistency is the model of the service.
//   - One-shot errors: [Client.Inject] (or Options.Errors) fails the next
//     call of an operation, optionally only one naming a given ARN.
//
// Throttled calls return code Throttling, message "Rate exceeded".
//
// # Call contracts
//
// [EveryTargetHasPort], [AtMostTargets] and [InTargetGroup] are
// go.uber.org/mock matchers for expectations on a mock whose methods
// delegate to a Client with DoAndReturn: the mock then asserts the contract
// ("every DeregisterTargets carries Port", "no batch exceeds 200") while the
// simulator answers.
//
// # Not modelled
//
// The optFns arguments (retryers, endpoints, middleware) are ignored; the
// SDK's own client-side validation and retries do not run (package
// elbv2wire puts the real SDK client in front of a Client for that). See
// package elbv2model for what the service model leaves out.
package elbv2sim
