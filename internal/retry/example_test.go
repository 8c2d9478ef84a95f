package retry_test

import (
	"context"
	"fmt"
	"time"

	"github.com/qstools/tgmigrate/internal/retry"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// Poll waits for a condition on an injected clock: on the virtual clock the
// wait takes no real time.
func ExamplePoll() {
	clk := vclock.New(time.Time{})
	ready := clk.Now().Add(12 * time.Second)
	err := retry.Poll(context.Background(), clk, retry.Policy{Initial: 5 * time.Second, Multiplier: 1},
		func(context.Context) (bool, error) { return !clk.Now().Before(ready), nil },
		retry.WithNotify(func(_ error, wait time.Duration) { fmt.Println("not yet, next look in", wait) }))
	fmt.Println(err, clk.Since(vclock.Epoch))
	// Output:
	// not yet, next look in 5s
	// not yet, next look in 5s
	// not yet, next look in 5s
	// <nil> 15s
}
