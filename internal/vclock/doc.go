// Package vclock is the deterministic virtual clock that tgmigrate's
// simulations run on. Nothing sleeps for real: a 30-minute scenario runs in a
// fraction of a second of CPU, and the same inputs give the same timeline.
//
// # Files
//
//   - doc.go: this comment.
//   - clock.go: [Clock], its event queue and scheduling, and its
//     k8s.io/utils/clock timers and tickers.
//
// Tests: example_test.go (the example), clock_test.go.
//
// # Model
//
// A [Clock] holds the virtual time and a queue of scheduled events (the
// simulated world: health checks, Karpenter churn, the LBC's requeues,
// traffic). Time moves only when someone waits:
//
//   - [Clock.Advance] and [Clock.RunUntil] run every event due up to the
//     target time, in (time, scheduling order) order, then set the time.
//   - The k8s.io/utils/clock methods a system under test calls are waits too:
//     Sleep(d) and After(d) advance by d before they return; the channel of a
//     timer made by NewTimer(d) is ready once its C method has been called,
//     and that call advances to the timer's deadline. A timer that is created
//     and stopped without reading C never moves time, so a timer used as a
//     deadline costs nothing; but a select on two timers of this clock would
//     advance to the first one evaluated, so code under test must wait on one
//     timer at a time (backoff/v4's retry loops do).
//   - A ticker's C advances to its next tick each time it is called. Use it as
//     `select { case <-t.C(): }` in a loop, not with range.
//
// So the code under test runs in its own goroutine and drives the world
// forward exactly when it would block on time in production. Two goroutines
// that wait at once are serialised, and their order is then not
// deterministic: run the system under test with one waiting goroutine.
//
// Events must not wait on the clock themselves (that would re-enter the
// world); such a call panics with a message naming the event, because it is
// a programming error in the simulation, not bad input. Another goroutine
// that waits while an event runs is not that: it waits for the event to end
// (the panic comes only after two seconds of real time without the event
// ending, which no event takes).
//
// # Interfaces
//
// *Clock satisfies k8s.io/utils/clock.WithTicker and WithDelayedExecution,
// and its Now method makes it a backoff/v4 Clock.
package vclock
