package subnets

// options.go: CheckReadiness's options (WithClock, WithLogger,
// WithRateLimit, WithMaxAttempts) and their defaults, diagnose's.

import (
	"fmt"

	"github.com/go-logr/logr"
	"golang.org/x/time/rate"
	"k8s.io/utils/clock"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/read"
)

// Option adjusts one [CheckReadiness] call.
type Option func(*config)

type config struct {
	clock       clock.Clock
	log         logr.Logger
	rps         rate.Limit
	burst       int
	maxAttempts int
	err         error
}

func defaults() config {
	return config{
		clock:       clock.RealClock{},
		log:         logr.Discard(),
		rps:         diagnose.DefaultRateLimit,
		burst:       diagnose.DefaultBurst,
		maxAttempts: diagnose.DefaultMaxAttempts,
	}
}

func (c *config) fail(field, format string, args ...any) {
	if c.err == nil {
		c.err = &InputError{Op: "CheckReadiness", Field: field, Reason: fmt.Sprintf(format, args...)}
	}
}

// WithClock sets the clock that stamps the report, paces the rate limiter
// and times the retries. The default is the real clock.
func WithClock(c clock.Clock) Option {
	return func(cfg *config) {
		if c == nil {
			cfg.fail("WithClock", "clock is nil")
			return
		}
		cfg.clock = c
	}
}

// WithLogger sets the logger. The default discards. Retries and checks
// not made are logged at V(1).
func WithLogger(l logr.Logger) Option { return func(cfg *config) { cfg.log = l } }

// WithRateLimit sets the client-side rate limit shared by the EC2 and
// ELBv2 calls: perSecond calls per second with bursts of burst, paced on
// the injected clock; rate.Inf turns it off. The defaults are diagnose's,
// [diagnose.DefaultRateLimit] and [diagnose.DefaultBurst], and the gate's
// diagnose run gets the same.
func WithRateLimit(perSecond rate.Limit, burst int) Option {
	return func(cfg *config) {
		if p := read.RateLimitProblem(perSecond, burst); p != "" {
			cfg.fail("WithRateLimit", "%s", p)
			return
		}
		cfg.rps, cfg.burst = perSecond, burst
	}
}

// WithMaxAttempts sets how many times a throttled AWS call is tried, with
// exponential backoff on the injected clock. n must be at least 1. The
// default is [diagnose.DefaultMaxAttempts].
func WithMaxAttempts(n int) Option {
	return func(cfg *config) {
		if p := read.MaxAttemptsProblem(n); p != "" {
			cfg.fail("WithMaxAttempts", "%s", p)
			return
		}
		cfg.maxAttempts = n
	}
}

// diagnoseOptions are the options the gate's diagnose run gets: the same
// clock, logger, rate and attempts.
func (c config) diagnoseOptions() []diagnose.Option {
	return []diagnose.Option{diagnose.WithClock(c.clock), diagnose.WithLogger(c.log),
		diagnose.WithRateLimit(c.rps, c.burst), diagnose.WithMaxAttempts(c.maxAttempts)}
}
