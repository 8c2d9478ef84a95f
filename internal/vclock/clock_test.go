package vclock_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/qstools/tgmigrate/internal/vclock"
)

func TestEventsRunInOrder(t *testing.T) {
	c := vclock.New(time.Time{})
	var log []string
	rec := func(s string) func(time.Time) {
		return func(now time.Time) { log = append(log, fmt.Sprintf("%s@%v", s, now.Sub(vclock.Epoch))) }
	}
	c.At(vclock.Epoch.Add(3*time.Second), "c", rec("c"))
	c.At(vclock.Epoch.Add(1*time.Second), "a", rec("a"))
	c.At(vclock.Epoch.Add(1*time.Second), "b", rec("b")) // same instant: scheduling order
	h := c.At(vclock.Epoch.Add(2*time.Second), "cancelled", rec("x"))
	if !h.Cancel() {
		t.Fatal("Cancel of a pending event returned false")
	}
	tick := c.Every(vclock.Epoch.Add(2*time.Second), 2*time.Second, "tick", rec("t"))
	c.Advance(5 * time.Second)
	tick.Cancel()
	c.Advance(10 * time.Second)
	want := "a@1s b@1s t@2s c@3s t@4s"
	if got := strings.Join(log, " "); got != want {
		t.Fatalf("log = %q, want %q", got, want)
	}
	if got := c.Since(vclock.Epoch); got != 15*time.Second {
		t.Fatalf("time = %v, want 15s", got)
	}
}

func TestWaitsAdvance(t *testing.T) {
	c := vclock.New(time.Time{})
	fired := 0
	c.AfterEvent(10*time.Second, "e", func(time.Time) { fired++ })

	c.Sleep(5 * time.Second)
	if fired != 0 || c.Since(vclock.Epoch) != 5*time.Second {
		t.Fatalf("after Sleep(5s): fired=%d time=%v", fired, c.Since(vclock.Epoch))
	}
	<-c.After(5 * time.Second)
	if fired != 1 {
		t.Fatalf("After(5s) did not run the event due at 10s")
	}

	deadline := c.NewTimer(time.Hour) // never read: must not move time
	if !deadline.Stop() || c.Since(vclock.Epoch) != 10*time.Second {
		t.Fatalf("an unread timer moved time to %v", c.Since(vclock.Epoch))
	}
	tm := c.NewTimer(7 * time.Second)
	got := <-tm.C()
	if got.Sub(vclock.Epoch) != 17*time.Second {
		t.Fatalf("timer fired at %v, want 17s", got.Sub(vclock.Epoch))
	}
	tk := c.NewTicker(time.Second)
	<-tk.C()
	<-tk.C()
	if c.Since(vclock.Epoch) != 19*time.Second {
		t.Fatalf("two ticks: time = %v, want 19s", c.Since(vclock.Epoch))
	}
	tk.Stop()
}

func TestEventMustNotWait(t *testing.T) {
	c := vclock.New(time.Time{})
	c.AfterEvent(time.Second, "bad-event", func(time.Time) { c.Sleep(time.Second) })
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(fmt.Sprint(r), "bad-event") {
			t.Fatalf("recover() = %v, want a panic naming the event", r)
		}
	}()
	c.Advance(2 * time.Second)
}

// TestOtherGoroutineWaitsForEvent: a goroutine that waits on the clock
// while another goroutine's event runs is not the event waiting: it waits
// for the event to end, then moves time. (It panicked before, which made
// concurrent callers, such as Diagnose's workers, fail at random.)
func TestOtherGoroutineWaitsForEvent(t *testing.T) {
	c := vclock.New(time.Time{})
	inEvent, release := make(chan struct{}), make(chan struct{})
	c.AfterEvent(time.Second, "slow-event", func(time.Time) { close(inEvent); <-release })
	advanced := make(chan struct{})
	go func() { c.Advance(2 * time.Second); close(advanced) }()
	<-inEvent
	slept := make(chan any)
	go func() {
		defer func() { slept <- recover() }()
		c.Sleep(5 * time.Second)
	}()
	time.Sleep(20 * time.Millisecond) // the sleeper now waits for the event
	close(release)
	if r := <-slept; r != nil {
		t.Fatalf("Sleep from another goroutine panicked: %v", r)
	}
	<-advanced
	if got := c.Now().Sub(time.Time{}); got < 5*time.Second {
		t.Errorf("the clock is at %v after a 5 s sleep", got)
	}
}

func BenchmarkThirtyMinutesOfEvents(b *testing.B) {
	for b.Loop() {
		c := vclock.New(time.Time{})
		n := 0
		for i := range 100 {
			c.Every(vclock.Epoch.Add(time.Duration(i+1)*time.Millisecond), 10*time.Second, "hc", func(time.Time) { n++ })
		}
		c.Advance(30 * time.Minute)
		if n != 100*180 {
			b.Fatalf("n = %d", n)
		}
	}
}
