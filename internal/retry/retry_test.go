package retry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/smithy-go"

	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/retry"
	"github.com/qstools/tgmigrate/internal/vclock"
)

var throttled = awserr.Classify("X", "", &smithy.GenericAPIError{Code: "Throttling"})

func TestDo(t *testing.T) {
	invalid := awserr.Classify("X", "", &smithy.GenericAPIError{Code: "InvalidConfigurationRequest"})
	tests := []struct {
		name         string
		errs         []error // returned in order; nil after the list ends
		policy       retry.Policy
		wantAttempts int
		wantErr      error
		wantWaits    []time.Duration
	}{
		{"success first time", nil, retry.Policy{}, 1, nil, nil},
		{"throttled twice then ok", []error{throttled, throttled}, retry.Policy{}, 3, nil, []time.Duration{time.Second, 2 * time.Second}},
		{"terminal error is not retried", []error{invalid}, retry.Policy{}, 1, awserr.ErrInvalidRequest, nil},
		{"max attempts", []error{throttled, throttled, throttled, throttled}, retry.Policy{MaxAttempts: 3}, 3, retry.ErrGaveUp, []time.Duration{time.Second, 2 * time.Second}},
		{"capped delay", []error{throttled, throttled, throttled}, retry.Policy{Initial: 4 * time.Second, Max: 5 * time.Second}, 4, nil, []time.Duration{4 * time.Second, 5 * time.Second, 5 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := vclock.New(time.Time{})
			attempts := 0
			var waits []time.Duration
			err := retry.Do(t.Context(), clk, tt.policy, func(context.Context) error {
				attempts++
				if attempts <= len(tt.errs) {
					return tt.errs[attempts-1]
				}
				return nil
			}, retry.WithNotify(func(_ error, d time.Duration) { waits = append(waits, d) }))
			if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("Do() = %v, want %v", err, tt.wantErr)
			}
			if attempts != tt.wantAttempts {
				t.Errorf("attempts = %d, want %d", attempts, tt.wantAttempts)
			}
			var total time.Duration
			for i, w := range waits {
				total += w
				if i < len(tt.wantWaits) && w != tt.wantWaits[i] {
					t.Errorf("wait %d = %v, want %v", i, w, tt.wantWaits[i])
				}
			}
			if len(waits) != len(tt.wantWaits) {
				t.Errorf("waits = %v, want %v", waits, tt.wantWaits)
			}
			if got := clk.Since(vclock.Epoch); got != total {
				t.Errorf("virtual time moved %v, want %v", got, total)
			}
		})
	}
}

func TestPoll(t *testing.T) {
	clk := vclock.New(time.Time{})
	ready := clk.Now().Add(10 * time.Second)
	calls := 0
	err := retry.Poll(t.Context(), clk, retry.Policy{Initial: 2 * time.Second, Multiplier: 1}, func(context.Context) (bool, error) {
		calls++
		if calls == 2 {
			return false, throttled // retryable: keeps polling
		}
		return !clk.Now().Before(ready), nil
	})
	if err != nil || calls != 6 || clk.Since(vclock.Epoch) != 10*time.Second {
		t.Fatalf("Poll() = %v after %d calls at %v", err, calls, clk.Since(vclock.Epoch))
	}

	err = retry.Poll(t.Context(), clk, retry.Policy{Initial: time.Second, Multiplier: 1, MaxElapsed: 5 * time.Second},
		func(context.Context) (bool, error) { return false, nil })
	var gave *retry.GaveUpError
	if !errors.As(err, &gave) || gave.Elapsed < 5*time.Second {
		t.Fatalf("Poll() that never holds = %v, want *GaveUpError after 5s", err)
	}

	boom := errors.New("boom")
	if err := retry.Poll(t.Context(), clk, retry.Policy{}, func(context.Context) (bool, error) { return false, boom }); !errors.Is(err, boom) {
		t.Fatalf("Poll() with a terminal error = %v", err)
	}
}

func TestContextCause(t *testing.T) {
	clk := vclock.New(time.Time{})
	cause := errors.New("operator pressed ctrl-c")
	ctx, cancel := context.WithCancelCause(t.Context())
	calls := 0
	err := retry.Poll(ctx, clk, retry.Policy{}, func(context.Context) (bool, error) {
		calls++
		if calls == 3 {
			cancel(cause)
		}
		return false, nil
	})
	if !errors.Is(err, cause) {
		t.Fatalf("Poll() = %v, want the context's cause", err)
	}
	if err := retry.Do(ctx, clk, retry.Policy{}, func(context.Context) error { t.Fatal("op ran on a done context"); return nil }); !errors.Is(err, cause) {
		t.Fatalf("Do() on a done context = %v", err)
	}
}

// TestPollWake: a wake that turns true during a wait ends it at the next
// short wait, not at the end of the delay; without one, or with a wake
// that stays false, the poll keeps its delay; a cancelled context still
// ends the wait.
func TestPollWake(t *testing.T) {
	tests := []struct {
		name      string
		wakeAt    time.Duration // the world event that makes wake true; 0: never
		every     time.Duration
		wantAt    []time.Duration // when the condition ran, from the start
		noWakeOpt bool
	}{
		{name: "wake mid-wait ends it at the next short wait", wakeAt: 2300 * time.Millisecond, every: 500 * time.Millisecond,
			wantAt: []time.Duration{0, 2500 * time.Millisecond, 7500 * time.Millisecond}},
		{name: "wake never true keeps the delay", every: 500 * time.Millisecond,
			wantAt: []time.Duration{0, 5 * time.Second, 10 * time.Second}},
		{name: "without the option the wake is not asked", wakeAt: 2300 * time.Millisecond, every: 500 * time.Millisecond, noWakeOpt: true,
			wantAt: []time.Duration{0, 5 * time.Second, 10 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := vclock.New(time.Time{})
			start := clk.Now()
			woken := false
			if tt.wakeAt > 0 {
				clk.At(start.Add(tt.wakeAt), "change", func(time.Time) { woken = true })
			}
			wake := func() bool {
				w := woken
				woken = false // the caller drains what woke it
				return w
			}
			var at []time.Duration
			opts := []retry.Option{}
			if !tt.noWakeOpt {
				opts = append(opts, retry.WithWake(tt.every, wake))
			}
			err := retry.Poll(t.Context(), clk, retry.Policy{Initial: 5 * time.Second, Max: 5 * time.Second, Multiplier: 1}, func(context.Context) (bool, error) {
				at = append(at, clk.Since(start))
				return len(at) == len(tt.wantAt), nil
			}, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if len(at) != len(tt.wantAt) {
				t.Fatalf("condition ran at %v, want %v", at, tt.wantAt)
			}
			for i := range at {
				if at[i] != tt.wantAt[i] {
					t.Errorf("condition ran at %v, want %v", at, tt.wantAt)
					break
				}
			}
		})
	}
	t.Run("cancelled during a sliced wait", func(t *testing.T) {
		clk := vclock.New(time.Time{})
		ctx, cancel := context.WithCancelCause(t.Context())
		stop := errors.New("operator stopped")
		clk.At(clk.Now().Add(1200*time.Millisecond), "cancel", func(time.Time) { cancel(stop) })
		err := retry.Poll(ctx, clk, retry.Policy{Initial: time.Minute, Max: time.Minute, Multiplier: 1},
			func(context.Context) (bool, error) { return false, nil }, retry.WithWake(500*time.Millisecond, func() bool { return false }))
		if !errors.Is(err, stop) {
			t.Fatalf("Poll = %v, want the cause %v", err, stop)
		}
		if got := clk.Since(vclock.Epoch); got > 2*time.Second {
			t.Errorf("the wait went on for %v after the cancel at 1.2 s", got)
		}
	})
}
