package vclock

// clock.go: Clock, its event queue and scheduling (At, AfterEvent, Every,
// Advance, RunUntil), and the k8s.io/utils/clock timers and tickers that
// advance virtual time when code under test waits on them.

import (
	"container/heap"
	"fmt"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Epoch is the default start of virtual time: a fixed instant, so that event
// logs and reports are reproducible.
var Epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// Clock is a virtual clock with an event queue. The zero value is not usable;
// call [New].
type Clock struct {
	// advancing serialises the goroutines that move time.
	advancing sync.Mutex

	mu      sync.Mutex
	now     time.Time
	queue   eventQueue
	seq     uint64
	inEvent string // name of the event running now, "" outside events
	ran     uint64
}

var (
	_ clock.WithTicker             = (*Clock)(nil)
	_ clock.WithDelayedExecution   = (*Clock)(nil)
	_ interface{ Now() time.Time } = (*Clock)(nil)
)

// New returns a clock set to start, or to [Epoch] when start is zero.
func New(start time.Time) *Clock {
	if start.IsZero() {
		start = Epoch
	}
	return &Clock{now: start}
}

// Now returns the virtual time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Since returns the virtual time elapsed since t.
func (c *Clock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// EventsRun returns how many events have run so far.
func (c *Clock) EventsRun() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ran
}

// Handle identifies a scheduled event so that it can be cancelled.
type Handle struct{ e *event }

// Cancel stops the event from running (and, for [Clock.Every], from
// recurring). It reports whether the event was still pending.
func (h Handle) Cancel() bool {
	if h.e == nil {
		return false
	}
	h.e.clock.mu.Lock()
	defer h.e.clock.mu.Unlock()
	pending := !h.e.cancelled && !h.e.done
	h.e.cancelled = true
	return pending
}

// At schedules fn to run when the virtual time reaches at. An instant in the
// past runs at the next advance. name appears in panics and traces.
func (c *Clock) At(at time.Time, name string, fn func(now time.Time)) Handle {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pushLocked(&event{at: at, name: name, fn: fn})
}

// AfterEvent schedules fn to run d from now. It is the event-queue
// counterpart of [Clock.After], which is a wait.
func (c *Clock) AfterEvent(d time.Duration, name string, fn func(now time.Time)) Handle {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pushLocked(&event{at: c.now.Add(d), name: name, fn: fn})
}

// Every schedules fn to run first at first and then every period until the
// handle is cancelled. period must be positive.
func (c *Clock) Every(first time.Time, period time.Duration, name string, fn func(now time.Time)) Handle {
	if period <= 0 {
		panic(fmt.Sprintf("vclock: Every(%q): period %v is not positive", name, period))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pushLocked(&event{at: first, name: name, fn: fn, period: period})
}

func (c *Clock) pushLocked(e *event) Handle {
	e.clock = c
	c.seq++
	e.seq = c.seq
	heap.Push(&c.queue, e)
	return Handle{e: e}
}

// Advance runs every event due in the next d and moves the time forward by d.
func (c *Clock) Advance(d time.Duration) {
	if d < 0 {
		d = 0
	}
	c.RunUntil(c.Now().Add(d))
}

// RunUntil runs every event due up to and including t, in time order (ties
// in scheduling order), then sets the time to t. A t in the past runs the
// overdue events and leaves the time as it is.
func (c *Clock) RunUntil(t time.Time) {
	c.mu.Lock()
	name := c.inEvent
	c.mu.Unlock()
	if name == "" {
		c.advancing.Lock()
	} else if !c.lockAdvancing(selfWaitLimit) {
		// The goroutine running the event holds advancing while the event
		// runs: an event that waits on the clock never gets it.
		panic(fmt.Sprintf("vclock: event %q waited on the clock; events must not wait", name))
	}
	defer c.advancing.Unlock()
	for {
		c.mu.Lock()
		if c.queue.Len() == 0 || c.queue[0].at.After(t) {
			if t.After(c.now) {
				c.now = t
			}
			c.mu.Unlock()
			return
		}
		e := heap.Pop(&c.queue).(*event)
		if e.cancelled {
			c.mu.Unlock()
			continue
		}
		if e.at.After(c.now) {
			c.now = e.at
		}
		now := c.now
		if e.period > 0 {
			// Re-queue the same event, so that its Handle can still cancel it.
			e.at = e.at.Add(e.period)
			c.seq++
			e.seq = c.seq
			heap.Push(&c.queue, e)
		} else {
			e.done = true
		}
		c.inEvent = e.name
		c.ran++
		c.mu.Unlock()

		e.fn(now)

		c.mu.Lock()
		c.inEvent = ""
		c.mu.Unlock()
	}
}

// selfWaitLimit is how long, in real time, a goroutine that wants to move
// time while an event runs waits for that event to end before the wait is
// taken for the event's own: no event runs that long.
const selfWaitLimit = 2 * time.Second

// lockAdvancing takes advancing while an event runs. Another goroutine's
// event ends soon and the lock comes; the calling goroutine's own event
// holds it for ever. A goroutine cannot tell which, so it polls for the
// lock and gives up after limit (real time). Before, any goroutine that
// waited while another goroutine's event ran was taken for the event
// itself and panicked: concurrent callers (Diagnose's workers on a
// simulated API latency) failed at random.
func (c *Clock) lockAdvancing(limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for !c.advancing.TryLock() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Microsecond)
	}
	return true
}

// NextEvent returns the time of the earliest pending event.
func (c *Clock) NextEvent() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.queue.Len() > 0 && c.queue[0].cancelled {
		heap.Pop(&c.queue)
	}
	if c.queue.Len() == 0 {
		return time.Time{}, false
	}
	return c.queue[0].at, true
}

// Sleep advances the virtual time by d.
func (c *Clock) Sleep(d time.Duration) { c.Advance(d) }

// After advances the virtual time by d and returns a channel that holds the
// new time.
func (c *Clock) After(d time.Duration) <-chan time.Time {
	c.Advance(d)
	ch := make(chan time.Time, 1)
	ch <- c.Now()
	return ch
}

// NewTimer returns a timer that fires d from now. Its C method is the wait:
// it advances the time to the deadline (if the timer is still running) and
// returns a channel that holds the firing time.
func (c *Clock) NewTimer(d time.Duration) clock.Timer {
	return &timer{c: c, deadline: c.Now().Add(d), running: true, ch: make(chan time.Time, 1)}
}

// AfterFunc schedules f as an event d from now and returns a timer that can
// stop it. f runs inside the world's event loop and must not wait on the clock.
func (c *Clock) AfterFunc(d time.Duration, f func()) clock.Timer {
	t := &funcTimer{c: c, f: f}
	t.h = c.AfterEvent(d, "AfterFunc", func(time.Time) { f() })
	return t
}

// Tick returns the channel of a new ticker; see [Clock.NewTicker].
func (c *Clock) Tick(d time.Duration) <-chan time.Time {
	if d <= 0 {
		return nil
	}
	return c.NewTicker(d).C()
}

// NewTicker returns a ticker whose C method advances to the next tick and
// returns a channel that holds its time.
func (c *Clock) NewTicker(d time.Duration) clock.Ticker {
	if d <= 0 {
		panic("vclock: NewTicker: non-positive interval")
	}
	return &ticker{c: c, period: d, next: c.Now().Add(d), ch: make(chan time.Time, 1)}
}

type timer struct {
	c        *Clock
	mu       sync.Mutex
	deadline time.Time
	running  bool
	ch       chan time.Time
}

func (t *timer) C() <-chan time.Time {
	t.mu.Lock()
	running, deadline := t.running, t.deadline
	t.mu.Unlock()
	if running {
		t.c.RunUntil(deadline)
		t.mu.Lock()
		if t.running {
			t.running = false
			select {
			case t.ch <- t.c.Now():
			default:
			}
		}
		t.mu.Unlock()
	}
	return t.ch
}

func (t *timer) Stop() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	was := t.running
	t.running = false
	return was
}

func (t *timer) Reset(d time.Duration) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	was := t.running
	t.running = true
	t.deadline = t.c.Now().Add(d)
	select {
	case <-t.ch:
	default:
	}
	return was
}

type funcTimer struct {
	c *Clock
	f func()
	h Handle
}

func (t *funcTimer) C() <-chan time.Time { return nil }
func (t *funcTimer) Stop() bool          { return t.h.Cancel() }
func (t *funcTimer) Reset(d time.Duration) bool {
	was := t.h.Cancel()
	f := t.f
	t.h = t.c.AfterEvent(d, "AfterFunc", func(time.Time) { f() })
	return was
}

type ticker struct {
	c      *Clock
	mu     sync.Mutex
	period time.Duration
	next   time.Time
	ch     chan time.Time
	stop   bool
}

func (t *ticker) C() <-chan time.Time {
	t.mu.Lock()
	if t.stop {
		t.mu.Unlock()
		return t.ch
	}
	next := t.next
	t.next = next.Add(t.period)
	t.mu.Unlock()
	t.c.RunUntil(next)
	select {
	case t.ch <- next:
	default:
	}
	return t.ch
}

func (t *ticker) Stop() {
	t.mu.Lock()
	t.stop = true
	t.mu.Unlock()
}

type event struct {
	clock     *Clock
	at        time.Time
	seq       uint64
	name      string
	fn        func(time.Time)
	period    time.Duration
	cancelled bool
	done      bool
	index     int
}

type eventQueue []*event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if !q[i].at.Equal(q[j].at) {
		return q[i].at.Before(q[j].at)
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i]; q[i].index = i; q[j].index = j }
func (q *eventQueue) Push(x any)   { e := x.(*event); e.index = len(*q); *q = append(*q, e) }
func (q *eventQueue) Pop() any {
	old := *q
	n := len(old)
	e := old[n-1]
	old[n-1] = nil
	*q = old[:n-1]
	return e
}
