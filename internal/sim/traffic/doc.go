// Package traffic is the client traffic of the churn simulator: requests
// sent at a fixed rate through a listener of the simulated Application Load
// Balancer (package elbv2model), counted per second of virtual time so a
// scenario can report its outage window.
//
// # Files
//
//   - doc.go: this comment.
//   - stats.go: Stats: totals, failures by outcome, per-second counts, outage
//     windows.
//   - traffic.go: the Generator: Options, New, outcomes, requests, and the
//     record of the failed ones.
//
// # Routing
//
// Each request is a world event on the virtual clock. It follows the
// listener's default action, or the rule named in [Options].RuleARN:
//
//   - forward: one target group is chosen by weight across the action's
//     ForwardConfig; then one target of that group, uniformly at random
//     (seeded), among the healthy targets. When fewer targets are healthy
//     than the group's minimum (default 1) the load balancer fails open to
//     every healthy and unhealthy target (and the initial ones, with the
//     model's FailOpenInitial); a target deregistered while it took
//     requests stays eligible for the model's deregistration lag. With none
//     eligible: 503 ([NoTarget]). The request is sent to IP:port at that
//     instant: served when the application of [Options].App answers
//     ([Served]); [Misrouted] when another one does (an address handed out
//     again); 502 when the connection is refused ([TargetFailed]); and when
//     nothing holds the address, 504 after [Options].ConnectTimeout
//     ([TargetTimeout]), or 502 at once without one.
//   - fixed-response: served below 500, failed ([ErrorResponse]) from 500.
//   - redirect: served.
//
// # Results
//
// [Generator.Stats] gives totals, failures by outcome and by what the
// client saw ([Kinds]: 502, 503, 504, misrouted), one [Second] per second,
// the outage windows (consecutive seconds with at least one failure) and
// the longest one, and the seconds of total outage (no request succeeded)
// and of degradation (some failed). [Stats.Span] gives the same for any
// stretch of time, a report's windows. A request is counted when it is
// sent. [Options].OnRequest traces each request; [Generator.Failures]
// keeps every failed one (time, target group, target, outcome, status),
// so that a report can say which target each failure went to.
//
// # Not modelled
//
//   - HTTP keep-alive, in-flight requests, connection draining and request
//     duration: a request is instantaneous, so draining targets only stop
//     taking new requests.
//   - Retries: the ALB does not retry, and neither do the simulated clients.
//   - Round-robin or least-outstanding-requests balancing, stickiness, slow
//     start, availability zones and cross-zone balancing: the target is
//     drawn uniformly among the eligible ones.
//   - Rule conditions: requests go through the rule the options name.
//   - A forward action whose weights are all 0 answers 503 here; AWS's
//     behaviour for it was not verified.
package traffic
