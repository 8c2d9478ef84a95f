package vclock_test

import (
	"fmt"
	"time"

	"github.com/qstools/tgmigrate/internal/vclock"
)

// The world's events run when the code under test waits: here a health
// check every 10 s, and a Sleep of 25 s that runs two of them.
func ExampleClock() {
	c := vclock.New(time.Time{})
	c.Every(vclock.Epoch.Add(10*time.Second), 10*time.Second, "health-check", func(now time.Time) {
		fmt.Println("health check at", now.Sub(vclock.Epoch))
	})
	c.Sleep(25 * time.Second)
	fmt.Println("woke at", c.Since(vclock.Epoch))
	// Output:
	// health check at 10s
	// health check at 20s
	// woke at 25s
}
