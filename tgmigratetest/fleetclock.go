package tgmigratetest

// fleetclock.go: fleetClock, the clock a fleet's code under test waits
// on: the fleet's virtual clock, with the waits of several goroutines
// taken one at a time.

import (
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/qstools/tgmigrate/internal/vclock"
)

// fleetClock is a fleet's clock as the code under test and the test see
// it. Every wait (Sleep, After, a timer's or a ticker's C) and every Run
// moves the shared virtual clock under one lock: a goroutine that waits
// while another goroutine's wait runs the worlds' events blocks until it
// is over, rather than taking the running event for its own (the virtual
// clock's guard against an event that waits, which gives up after two
// seconds of real time).
type fleetClock struct {
	c  *vclock.Clock
	mu *sync.Mutex
}

var _ clock.WithTicker = fleetClock{}

// advance runs fn, which moves the clock, under the fleet's lock.
func (f fleetClock) advance(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn()
}

// Now returns the virtual time.
func (f fleetClock) Now() time.Time { return f.c.Now() }

// Since returns the virtual time since t.
func (f fleetClock) Since(t time.Time) time.Duration { return f.c.Since(t) }

// Sleep advances the virtual time by d.
func (f fleetClock) Sleep(d time.Duration) { f.advance(func() { f.c.Sleep(d) }) }

// After advances the virtual time by d and returns a channel that holds
// the new time.
func (f fleetClock) After(d time.Duration) <-chan time.Time {
	var ch <-chan time.Time
	f.advance(func() { ch = f.c.After(d) })
	return ch
}

// NewTimer returns a timer whose C waits under the fleet's lock.
func (f fleetClock) NewTimer(d time.Duration) clock.Timer {
	return fleetTimer{Timer: f.c.NewTimer(d), f: f}
}

// Tick returns the channel of a new ticker; see NewTicker.
func (f fleetClock) Tick(d time.Duration) <-chan time.Time {
	if d <= 0 {
		return nil
	}
	return f.NewTicker(d).C()
}

// NewTicker returns a ticker whose C waits under the fleet's lock.
func (f fleetClock) NewTicker(d time.Duration) clock.Ticker {
	return fleetTicker{Ticker: f.c.NewTicker(d), f: f}
}

// fleetTimer is a virtual timer whose wait takes the fleet's lock.
type fleetTimer struct {
	clock.Timer
	f fleetClock
}

// C waits until the timer's deadline and returns its channel.
func (t fleetTimer) C() <-chan time.Time {
	var ch <-chan time.Time
	t.f.advance(func() { ch = t.Timer.C() })
	return ch
}

// fleetTicker is a virtual ticker whose wait takes the fleet's lock.
type fleetTicker struct {
	clock.Ticker
	f fleetClock
}

// C waits until the next tick and returns the ticker's channel.
func (t fleetTicker) C() <-chan time.Time {
	var ch <-chan time.Time
	t.f.advance(func() { ch = t.Ticker.C() })
	return ch
}
