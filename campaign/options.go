package campaign

// options.go: the options of PlanCampaign (WithX), their defaults and
// where each default comes from.

import (
	"fmt"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
)

// The default limits a plan records (Plan.Limits), each overridden by its
// option.
const (
	// DefaultConcurrency is how many cutovers run at once over the whole
	// campaign: a person follows that many at once in a progress view.
	DefaultConcurrency = 8
	// DefaultPerAccount is how many cutovers run at once in one account
	// and Region, which share its ELBv2 API rate. A running cutover
	// observes its target group once per cutover.DefaultPollInterval
	// (5 s), one DescribeTargetHealth each (cutover's view.go), and its
	// writes come in batches; four of them make about 0.8 calls per
	// second, a tenth of diagnose.DefaultRateLimit (8 per second, itself
	// under the Describe* bucket AWS documents as an example, refill 10
	// per second), leaving the rest to retries, the controller's
	// reconciles of every new binding and the account's other tools.
	// Throttling is what the bound avoids: cutover retries it, but a wait
	// in a retry is a wait in a cutover.
	DefaultPerAccount = 4
	// DefaultPerCluster is how many cutovers run at once in one cluster:
	// each holds Karpenter's graceful disruption on the nodes that serve
	// its target group and watches the cluster's nodes and pods; two at
	// once keep the held nodes and the API server's watches few.
	DefaultPerCluster = 2
)

// Option adjusts one PlanCampaign call.
type Option func(*config)

// Candidate is a runnable target group of one cluster, as a canary
// chooser ([WithCanaryChooser]) sees it.
type Candidate struct {
	// TargetGroupARN and Name identify it.
	TargetGroupARN tgmigrate.ARN
	Name           string
	// Targets counts its registered targets in its cutover plan.
	Targets int
	// Seconds is its cutover plan's expected floor (Estimate.FloorSeconds).
	Seconds int
	// LoadBalancerARNs are the load balancers that forward to it.
	LoadBalancerARNs []string
	// Exposure is what reaches it (see [LeastExposed]).
	Exposure Exposure
}

// CanaryChooser picks the canaries of one cluster among its runnable
// target groups (in the plan's order: fewest targets first, then ARN).
// It returns the ARNs of those to put in the canary wave; an ARN that is
// not one of candidates fails the plan with an [*InputError].
type CanaryChooser func(cluster string, candidates []Candidate) []tgmigrate.ARN

// FewestTargets is the default [CanaryChooser]: in each cluster, the
// runnable target group with the fewest targets (the first candidate).
func FewestTargets(_ string, candidates []Candidate) []tgmigrate.ARN {
	if len(candidates) == 0 {
		return nil
	}
	return []tgmigrate.ARN{candidates[0].TargetGroupARN}
}

type config struct {
	clock       clock.Clock
	log         logr.Logger
	chooser     CanaryChooser
	canaries    []tgmigrate.ARN // explicit; used when listed is true
	listed      bool
	maxPerWave  int
	order       Order
	concurrency int
	perAccount  int
	perCluster  int
	accept      []cutover.PreconditionKind
	diagnose    []diagnose.Option
	err         error
}

// ValidateOptions checks opts as [PlanCampaign] does before any call:
// the [*InputError] of the first bad option, naming it
// ("WithConcurrency"), or nil. A command line checks its flags with it
// before it loads any credential.
func ValidateOptions(opts ...Option) error {
	_, err := configOf(opts)
	return err
}

// configOf applies opts to the defaults.
func configOf(opts []Option) (config, error) {
	cfg := defaults()
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	return cfg, cfg.err
}

func defaults() config {
	return config{
		clock: clock.RealClock{}, log: logr.Discard(), order: LongestFirst, // chooser nil: FewestTargets, or LeastExposed by order
		concurrency: DefaultConcurrency, perAccount: DefaultPerAccount, perCluster: DefaultPerCluster,
	}
}

func (c *config) fail(field, format string, args ...any) {
	if c.err == nil {
		c.err = &InputError{Op: "plan", Field: field, Reason: fmt.Sprintf(format, args...)}
	}
}

// WithClock sets the clock diagnose and PlanCutover read on (retries,
// rate limits, the plans' CreatedAt). Default: the real clock; tests
// give the test kit's virtual one.
func WithClock(c clock.Clock) Option {
	return func(cfg *config) {
		if c == nil {
			cfg.fail("WithClock", "clock is nil")
			return
		}
		cfg.clock = c
	}
}

// WithLogger sets the logger diagnose and PlanCutover log to. Default:
// discarded.
func WithLogger(l logr.Logger) Option { return func(cfg *config) { cfg.log = l } }

// WithCanaryChooser sets how each cluster's canaries are chosen. Default:
// [FewestTargets] ([LeastExposed] with [WithOrder]([LeastExposedFirst])).
// A nil f is an [*InputError].
func WithCanaryChooser(f CanaryChooser) Option {
	return func(cfg *config) {
		if f == nil {
			cfg.fail("WithCanaryChooser", "chooser is nil")
			return
		}
		cfg.chooser, cfg.listed, cfg.canaries = f, false, nil
	}
}

// WithCanaries names the canary wave's target groups, instead of a
// chooser. Each must be a runnable target group of the plan, else
// PlanCampaign returns an [*InputError]; none at all means no canary
// wave.
func WithCanaries(arns ...tgmigrate.ARN) Option {
	return func(cfg *config) {
		for i, a := range arns {
			if err := a.ValidTargetGroup(); err != nil {
				cfg.fail(fmt.Sprintf("WithCanaries[%d]", i), "not a target group's ARN: %v", err)
				return
			}
		}
		cfg.canaries, cfg.listed = append([]tgmigrate.ARN(nil), arns...), true
	}
}

// WithMaxPerWave splits the target groups after the canaries into waves
// of at most n each, with an approval point between two. Default 0: one
// wave for all of them.
func WithMaxPerWave(n int) Option {
	return func(cfg *config) {
		if n < 0 {
			cfg.fail("WithMaxPerWave", "%d is negative", n)
			return
		}
		cfg.maxPerWave = n
	}
}

// WithConcurrency bounds the cutovers running at once over the campaign.
// Default [DefaultConcurrency]; n must be at least 1.
func WithConcurrency(n int) Option {
	return bound("WithConcurrency", n, func(c *config) *int { return &c.concurrency })
}

// WithPerAccount bounds the cutovers running at once in one account and
// Region. Default [DefaultPerAccount]; n must be at least 1.
func WithPerAccount(n int) Option {
	return bound("WithPerAccount", n, func(c *config) *int { return &c.perAccount })
}

// WithPerCluster bounds the cutovers running at once in one cluster.
// Default [DefaultPerCluster]; n must be at least 1.
func WithPerCluster(n int) Option {
	return bound("WithPerCluster", n, func(c *config) *int { return &c.perCluster })
}

func bound(name string, n int, field func(*config) *int) Option {
	return func(cfg *config) {
		if n < 1 {
			cfg.fail(name, "%d is below 1", n)
			return
		}
		*field(cfg) = n
	}
}

// WithAcceptPreconditions makes a target group whose cutover plan has
// only preconditions of these kinds runnable: the plan records them
// (Plan.Accepted), and the scheduler passes them to cutover.Execute with
// cutover.WithAcceptPreconditions. Default: none; any precondition blocks
// its target group. A kind that is not cutover's is an [*InputError].
func WithAcceptPreconditions(kinds ...cutover.PreconditionKind) Option {
	return func(cfg *config) {
		for i, k := range kinds {
			switch k {
			case cutover.PreconditionPodSettings, cutover.PreconditionSecurityGroup, cutover.PreconditionForcefulDisruption:
			default:
				cfg.fail(fmt.Sprintf("WithAcceptPreconditions[%d]", i), "%q is not a cutover.PreconditionKind", k)
				return
			}
		}
		cfg.accept = append(cfg.accept, kinds...)
	}
}

// WithDiagnoseOptions passes options to the one diagnose.Diagnose run
// (diagnose.WithRateLimit, diagnose.WithConcurrency, ...), after the
// campaign's clock and logger.
func WithDiagnoseOptions(opts ...diagnose.Option) Option {
	return func(cfg *config) { cfg.diagnose = append(cfg.diagnose, opts...) }
}
