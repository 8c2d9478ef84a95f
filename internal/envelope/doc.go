// Package envelope holds the AWS timing assumptions tgmigrate plans under,
// and the pod settings that keep a Service safe across them.
//
// AWS documents some of the timings a zero-downtime cutover rests on and
// not others. What it does not document is given here as a range, and the
// product is built to be safe at the range's worst end: the deregistration
// lag (how long load balancer nodes keep sending new requests to a target
// after it is deregistered) is taken at its largest reported value unless
// the caller says otherwise. cutover's plan computes its floor and its pod
// preconditions from [Assumptions]; helmgov's fixes (TGM-H008, TGM-H009)
// write [Default]'s [Assumptions.SafePreStop] and
// [Assumptions.SafeTerminationGracePeriod]; the simulator's envelope
// (internal/sim/timing) sweeps the same ranges. One definition, so that
// what the plan asks for, what helmgov writes and what the simulator
// proves are the same numbers.
//
// # Files
//
//   - doc.go: this comment.
//   - envelope.go: [Assumptions], their bounds and defaults ([Default]) and
//     [InvalidError], under the names the internal packages use: aliases of
//     the public definitions in package tgmigrate (assumptions.go, with
//     Assumptions' methods: WithDefaults, Validate, the safe pod settings
//     and the JSON form), so that a user reads in go doc the type cutover's
//     Request and the test kit take.
//
// Tests: envelope_test.go.
package envelope
