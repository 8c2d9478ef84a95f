package tgmigratetest

// fleetclock.go: fleetClock, the clock a fleet's code under test waits
// on: the fleet's virtual clock, with the waits of Fleet.Parallel's
// participants overlapping in virtual time (a barrier) and their code
// run one participant at a time, in a fixed order; every other wait
// taken one at a time.

import (
	"slices"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/qstools/tgmigrate/internal/vclock"
)

// fleetClock is a fleet's clock as the code under test and the test see
// it: every world's Clock and the clock their API latencies wait on.
//
// While [Fleet.Parallel] runs, its participants' waits (Sleep, After, a
// timer's or a ticker's C) overlap in virtual time, and their code runs
// one participant at a time: the turn. A participant runs only while it
// holds the turn, from its start (in the order of Parallel's fns) or the
// end of a wait until its next wait or its return, which hands the turn
// on. The turn goes to the waits ended at the current instant, in
// participant order (the batch of the instant: a wait begun meanwhile
// that ends at the same instant is in the next batch); when none is
// left, the goroutine that handed the turn on runs the worlds' events up
// to the earliest deadline (vclock's RunUntil), and the waits that
// deadline ends are the next batch. So the virtual time a parallel run
// takes is its longest participant's, as the same run would take in real
// time, and participants that meet at one instant act in the same order
// on every run. Participant code never runs while events do.
//
// Outside Parallel, a wait moves the virtual clock under one lock: a
// goroutine that waits while another goroutine's wait runs the worlds'
// events blocks until it is over, rather than taking the running event
// for its own (the virtual clock's guard against an event that waits,
// which gives up after two seconds of real time).
type fleetClock struct {
	c *vclock.Clock
	// serial takes the waits made outside Parallel one at a time.
	serial sync.Mutex

	mu sync.Mutex
	// parallel: Fleet.Parallel runs; live is how many of its participants
	// have not returned yet.
	parallel bool
	live     int
	// turn is the participant that runs (its index in Parallel's fns), -1
	// while none does.
	turn int
	// waiters are the participants' blocked waits not yet due; ready the
	// batch of the current instant, in participant order, each run in its
	// turn; advancing is set while a goroutine runs the worlds' events.
	waiters   []*fleetWaiter
	ready     []*fleetWaiter
	advancing bool
}

// fleetWaiter is one blocked wait of a participant.
type fleetWaiter struct {
	at   time.Time
	who  int // the participant, by its index in Parallel's fns
	wake chan struct{}
}

var _ clock.WithTicker = (*fleetClock)(nil)

// newFleetClock returns a fleet clock at vclock.Epoch.
func newFleetClock() *fleetClock { return &fleetClock{c: vclock.New(time.Time{}), turn: -1} }

// begin starts a Parallel of n participants; it reports false when one
// runs already.
func (f *fleetClock) begin(n int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.parallel {
		return false
	}
	f.parallel, f.live, f.turn = true, n, -1
	return true
}

// enter blocks the participant i until its first turn: the participants
// start in order, at the current instant.
func (f *fleetClock) enter(i int) {
	f.mu.Lock()
	w := &fleetWaiter{at: f.c.Now(), who: i, wake: make(chan struct{})}
	f.waiters = append(f.waiters, w)
	f.stepLocked()
	f.mu.Unlock()
	<-w.wake
}

// leave ends the participant i: the others' waits no longer wait for it,
// and its turn passes on.
func (f *fleetClock) leave(i int) {
	f.mu.Lock()
	f.live--
	if f.turn == i {
		f.turn = -1
	}
	f.stepLocked()
	f.mu.Unlock()
}

// end ends the Parallel once every participant has left.
func (f *fleetClock) end() {
	f.mu.Lock()
	f.parallel, f.turn = false, -1
	f.mu.Unlock()
}

// waitUntil waits until the virtual time reaches the deadline at gives
// (read once the wait's turn has come: Sleep's counts from then), running
// the worlds' events up to it, and returns the time then.
func (f *fleetClock) waitUntil(at func() time.Time) time.Time {
	f.mu.Lock()
	parallel, advancing := f.parallel, f.advancing
	if !parallel || advancing {
		// Outside Parallel: one wait at a time, as before. While the
		// participants' events run, only an event waits (every participant
		// is blocked): vclock's RunUntil refuses it, naming the event.
		f.mu.Unlock()
		if !advancing {
			f.serial.Lock()
			defer f.serial.Unlock()
		}
		f.c.RunUntil(at())
		return f.c.Now()
	}
	// The participant holding the turn waits (no other runs): the time
	// stands still until it hands the turn on.
	w := &fleetWaiter{at: at(), who: f.turn, wake: make(chan struct{})}
	f.turn = -1
	f.waiters = append(f.waiters, w)
	f.stepLocked()
	f.mu.Unlock()
	<-w.wake
	return f.c.Now()
}

// stepLocked, once no participant holds the turn and every live one is
// blocked on the clock, gives the turn to the next wait of the current
// instant's batch; when the batch is over, it makes the waits due now
// the next batch or, if none is, runs the worlds' events up to the
// earliest deadline among the waits and makes the waits it ends the
// next. f.mu is held on entry and on return; it is released while the
// events run, when no participant runs.
func (f *fleetClock) stepLocked() {
	if f.live <= 0 || f.turn >= 0 || f.advancing || len(f.waiters)+len(f.ready) < f.live {
		return
	}
	if len(f.ready) == 0 {
		next := f.waiters[0].at
		for _, w := range f.waiters[1:] {
			if w.at.Before(next) {
				next = w.at
			}
		}
		if next.After(f.c.Now()) {
			f.advancing = true
			f.mu.Unlock()
			f.c.RunUntil(next)
			f.mu.Lock()
			f.advancing = false
		}
		now := f.c.Now()
		kept := f.waiters[:0]
		for _, w := range f.waiters {
			if w.at.After(now) {
				kept = append(kept, w)
			} else {
				f.ready = append(f.ready, w)
			}
		}
		clear(f.waiters[len(kept):])
		f.waiters = kept
		slices.SortStableFunc(f.ready, func(a, b *fleetWaiter) int { return a.who - b.who })
	}
	w := f.ready[0]
	f.ready[0] = nil
	f.ready = f.ready[1:]
	f.turn = w.who
	close(w.wake)
}

// Now returns the virtual time.
func (f *fleetClock) Now() time.Time { return f.c.Now() }

// Since returns the virtual time since t.
func (f *fleetClock) Since(t time.Time) time.Duration { return f.c.Since(t) }

// Sleep advances the virtual time by d.
func (f *fleetClock) Sleep(d time.Duration) { f.waitUntil(f.after(d)) }

// after returns the deadline d from the time it is called.
func (f *fleetClock) after(d time.Duration) func() time.Time {
	return func() time.Time { return f.c.Now().Add(max(d, 0)) }
}

// deadlineAt returns the deadline t.
func deadlineAt(t time.Time) func() time.Time { return func() time.Time { return t } }

// After advances the virtual time by d and returns a channel that holds
// the new time.
func (f *fleetClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	ch <- f.waitUntil(f.after(d))
	return ch
}

// NewTimer returns a timer that fires d from now. Its C method is the
// wait, as a vclock timer's: it waits until the deadline (if the timer
// is still running) and returns a channel that holds the firing time.
func (f *fleetClock) NewTimer(d time.Duration) clock.Timer {
	return &fleetTimer{f: f, deadline: f.c.Now().Add(d), running: true, ch: make(chan time.Time, 1)}
}

// Tick returns the channel of a new ticker; see NewTicker.
func (f *fleetClock) Tick(d time.Duration) <-chan time.Time {
	if d <= 0 {
		return nil
	}
	return f.NewTicker(d).C()
}

// NewTicker returns a ticker whose C method waits until the next tick
// and returns a channel that holds its time. d must be positive, as
// vclock's.
func (f *fleetClock) NewTicker(d time.Duration) clock.Ticker {
	if d <= 0 {
		panic("tgmigratetest: fleet clock: NewTicker: non-positive interval")
	}
	return &fleetTicker{f: f, period: d, next: f.c.Now().Add(d), ch: make(chan time.Time, 1)}
}

// fleetTimer is a timer of the fleet's clock.
type fleetTimer struct {
	f        *fleetClock
	mu       sync.Mutex
	deadline time.Time
	running  bool
	ch       chan time.Time
}

// C waits until the timer's deadline and returns its channel.
func (t *fleetTimer) C() <-chan time.Time {
	t.mu.Lock()
	running, deadline := t.running, t.deadline
	t.mu.Unlock()
	if running {
		now := t.f.waitUntil(deadlineAt(deadline))
		t.mu.Lock()
		if t.running {
			t.running = false
			select {
			case t.ch <- now:
			default:
			}
		}
		t.mu.Unlock()
	}
	return t.ch
}

// Stop stops the timer; it reports whether it was running.
func (t *fleetTimer) Stop() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	was := t.running
	t.running = false
	return was
}

// Reset sets the timer to fire d from now; it reports whether it was
// running.
func (t *fleetTimer) Reset(d time.Duration) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	was := t.running
	t.running = true
	t.deadline = t.f.c.Now().Add(d)
	select {
	case <-t.ch:
	default:
	}
	return was
}

// fleetTicker is a ticker of the fleet's clock.
type fleetTicker struct {
	f      *fleetClock
	mu     sync.Mutex
	period time.Duration
	next   time.Time
	ch     chan time.Time
	stop   bool
}

// C waits until the next tick and returns the ticker's channel.
func (t *fleetTicker) C() <-chan time.Time {
	t.mu.Lock()
	if t.stop {
		t.mu.Unlock()
		return t.ch
	}
	next := t.next
	t.next = next.Add(t.period)
	t.mu.Unlock()
	t.f.waitUntil(deadlineAt(next))
	select {
	case t.ch <- next:
	default:
	}
	return t.ch
}

// Stop stops the ticker.
func (t *fleetTicker) Stop() {
	t.mu.Lock()
	t.stop = true
	t.mu.Unlock()
}
