package diagnose

// This file holds the call options (WithX), their defaults, and the
// progress a run reports.

import (
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"golang.org/x/time/rate"
	"k8s.io/utils/clock"

	"github.com/qstools/tgmigrate/internal/read"
)

// Defaults of the options.
const (
	// DefaultConcurrency is how many calls are in flight at once, over all
	// accounts and clusters.
	DefaultConcurrency = 8
	// DefaultRateLimit is the default client-side rate, per account and
	// Region, in calls per second. It stays below the Describe* bucket that
	// AWS documents as an example (refill 10/s), which the LBC and other
	// tools share.
	DefaultRateLimit rate.Limit = 8
	// DefaultBurst is the default burst of the per-account limiter.
	DefaultBurst = 16
	// DefaultMaxAttempts is how many times a throttled call is tried before
	// its resource is reported as an error.
	DefaultMaxAttempts = 6
)

// Option adjusts one Diagnose call.
type Option func(*config)

type config struct {
	clock       clock.Clock
	log         logr.Logger
	concurrency int
	rps         rate.Limit
	burst       int
	maxAttempts int
	pageSize    int64
	project     read.Projection // what a listing keeps of each object: projection, or whole in tests
	snapshots   map[string]*Snapshot
	progress    func(Progress)
	err         error
}

func defaults() config {
	return config{
		clock:       clock.RealClock{},
		log:         logr.Discard(),
		concurrency: DefaultConcurrency,
		rps:         DefaultRateLimit,
		burst:       DefaultBurst,
		maxAttempts: DefaultMaxAttempts,
		project:     projection,
	}
}

func (c *config) fail(field, format string, args ...any) {
	if c.err == nil {
		c.err = &InputError{Field: field, Reason: fmt.Sprintf(format, args...)}
	}
}

// WithClock sets the clock that stamps the report, paces the rate limiter
// and times the retries. The default is the real clock; tests pass a virtual
// one so that nothing really waits.
func WithClock(c clock.Clock) Option {
	return func(cfg *config) {
		if c == nil {
			cfg.fail("WithClock", "clock is nil")
			return
		}
		cfg.clock = c
	}
}

// WithLogger sets the logger. The default discards. Diagnose logs retries
// and per-resource failures at V(1).
func WithLogger(l logr.Logger) Option { return func(cfg *config) { cfg.log = l } }

// WithConcurrency bounds the calls in flight at once, over every account and
// cluster. n must be at least 1. The default is [DefaultConcurrency].
func WithConcurrency(n int) Option {
	return func(cfg *config) {
		if n < 1 {
			cfg.fail("WithConcurrency", "%d is below 1", n)
			return
		}
		cfg.concurrency = n
	}
}

// WithRateLimit sets the client-side rate limit of each account and Region:
// perSecond calls per second with bursts of burst, shared by its ELBv2,
// EC2 and Service Quotas calls and paced on the injected clock. rate.Inf turns the limiter
// off. The defaults are [DefaultRateLimit] and [DefaultBurst].
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
// exponential backoff on the injected clock, before its resource is reported
// as an error. n must be at least 1. The default is [DefaultMaxAttempts].
func WithMaxAttempts(n int) Option {
	return func(cfg *config) {
		if p := read.MaxAttemptsProblem(n); p != "" {
			cfg.fail("WithMaxAttempts", "%s", p)
			return
		}
		cfg.maxAttempts = n
	}
}

// WithListPageSize makes each Kubernetes list a paged pass of n objects per
// call (client.Limit and Continue). The default, 0, lists each kind in one
// call, which is what a cache-backed reader needs: controller-runtime's
// cache does not support Continue. Set it for a direct client on a large
// cluster.
func WithListPageSize(n int64) Option {
	return func(cfg *config) {
		if n < 0 {
			cfg.fail("WithListPageSize", "%d is negative", n)
			return
		}
		cfg.pageSize = n
	}
}

// WithSnapshot makes Diagnose use s, a cluster already listed (by
// [TakeSnapshot], or [NewSnapshot] over the objects the caller listed),
// for the cluster of Sources.Clusters that has s's name, instead of
// listing that cluster again: a caller that reads the cluster for its own
// checks (step 4's readiness, package subnets) shares one listing with
// Diagnose. s must name one of Sources.Clusters and have its VPCID and
// CIDRs, else Diagnose returns an [*InputError]; the kinds s could not
// list ([Snapshot.Failures]) count as those of Diagnose's own listing
// would. [WithListPageSize] does not apply to s. Given twice for one
// cluster, the last one counts. A nil s is an [*InputError].
func WithSnapshot(s *Snapshot) Option {
	return func(cfg *config) {
		if s == nil {
			cfg.fail("WithSnapshot", "snapshot is nil")
			return
		}
		if cfg.snapshots == nil {
			cfg.snapshots = map[string]*Snapshot{}
		}
		cfg.snapshots[s.Name()] = s
	}
}

// WithProgress registers a hook that Diagnose calls as work completes. Calls
// are serialised, so the hook need not be safe for concurrent use; it must
// not block.
func WithProgress(f func(Progress)) Option { return func(cfg *config) { cfg.progress = f } }

// Phase names a stage of a Diagnose call.
type Phase string

// The phases, in order. Clusters are read during PhaseDiscover.
const (
	PhaseDiscover  Phase = "discover"  // list target groups; read clusters
	PhaseTags      Phase = "tags"      // read target-group tags
	PhaseTargets   Phase = "targets"   // DescribeTargetHealth, listeners and rules
	PhaseSubnets   Phase = "subnets"   // EC2 subnet checks
	PhaseQuotas    Phase = "quotas"    // the targets of the load balancers' other target groups
	PhaseAnalyse   Phase = "analyse"   // classification and findings
	PhaseCompleted Phase = "completed" // the report is ready
)

// Progress reports how far a phase has got.
type Progress struct {
	// Phase is the current phase.
	Phase Phase
	// Done and Total count the phase's work items (accounts, clusters,
	// batches, target groups, load balancers).
	Done, Total int
	// Elapsed is the time since Diagnose started, on the injected clock.
	Elapsed time.Duration
}
