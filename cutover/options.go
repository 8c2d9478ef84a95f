package cutover

// options.go holds the Options of Execute and Rollback (WithJournal,
// WithObserver, WithRetry, ...) and their defaults.

import (
	"time"
)

// Defaults of the [Option]s.
const (
	// DefaultPollInterval is how often a wait observes the target group.
	// Short and fixed, so that a cutover ends within seconds of when it
	// could: health checks run every 5 to 300 s.
	DefaultPollInterval = 5 * time.Second
	// DefaultBatchSize is the most targets one DeregisterTargets or
	// RegisterTargets call carries, as the LBC does.
	DefaultBatchSize = 200
	// DefaultGateTimeout bounds the health gate.
	DefaultGateTimeout = 15 * time.Minute
	// DefaultVerifyTimeout bounds the final verification.
	DefaultVerifyTimeout = 10 * time.Minute
	// DefaultDrainMargin is added to the deregistration delay to bound the
	// drain.
	DefaultDrainMargin = 5 * time.Minute
)

// Option adjusts one [Execute] or [Rollback]. Options that concern only
// one of them are ignored by the other.
type Option func(*options)

type options struct {
	journal      Journal
	lock         Lock
	observer     Observer
	approval     ApprovalFunc
	stopAfter    string
	autoRollback bool
	retry        RetryPolicy
	hook         Hook
	poll         time.Duration
	batchSize    int
	gateTimeout  time.Duration
	// controllerPatience: see WithControllerPatience.
	controllerPatience time.Duration
	verifyTimeout      time.Duration
	drainTimeout       time.Duration
	floorGrace         time.Duration
	analysis           AnalysisFunc
	leaseDuration      time.Duration
	reason             string
	allowNonPod        bool
	accepted           []PreconditionKind
	// reaction: see WithReaction; negative: no watch.
	reaction time.Duration
	// replaceFirst: see WithReplaceFirst.
	replaceFirst bool
	// bindVisibility: see WithBindVisibilityTimeout.
	bindVisibility time.Duration
	// noPermissionCheck: see WithPermissionCheck (preflight.go).
	noPermissionCheck bool
}

func collect(opts []Option) options {
	o := options{autoRollback: true, poll: DefaultPollInterval, batchSize: DefaultBatchSize, reaction: DefaultReaction,
		gateTimeout: DefaultGateTimeout, controllerPatience: DefaultControllerPatience, verifyTimeout: DefaultVerifyTimeout, observer: ObserverFuncs{}}
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}

// WithJournal saves the state in j. Default: a [ConfigMapJournal] in the
// binding's namespace, through Env.Client.
func WithJournal(j Journal) Option { return func(o *options) { o.journal = j } }

// WithLock guards the target group with l. Default: a [LeaseLock] in the
// binding's namespace, held by Env.Holder, with [DefaultLeaseDuration]
// (see [WithLeaseDuration]).
func WithLock(l Lock) Option { return func(o *options) { o.lock = l } }

// WithLeaseDuration sets the default lock's lease duration. Zero:
// [DefaultLeaseDuration]. The lease is renewed before every attempt of a
// mutating call and whenever a third of it has passed, so the poll
// interval and the retry policy's Max delay must each stay under half of
// it: Execute and Rollback refuse them otherwise (an *InputError).
func WithLeaseDuration(d time.Duration) Option { return func(o *options) { o.leaseDuration = d } }

// WithObserver reports steps, observations and waits to obs. Default:
// none.
func WithObserver(obs Observer) Option {
	return func(o *options) {
		if obs != nil {
			o.observer = obs
		}
	}
}

// WithApproval asks f before each phase. Default: every phase is approved.
func WithApproval(f ApprovalFunc) Option { return func(o *options) { o.approval = f } }

// WithStopAfter makes Execute stop after the named step: the result says
// Stopped, the journal keeps the progress and the lock is released; a later
// Execute resumes with the next step. When the step is already done (an
// earlier run stopped there), Execute stops again without running anything
// further. A step ID that is not in the plan ([Plan.StepIDs]) is an
// *InputError before anything is read or changed. Default: run to the end.
func WithStopAfter(stepID string) Option { return func(o *options) { o.stopAfter = stepID } }

// WithAutoRollback says whether Execute rolls back when a step fails.
// Default true. It rolls back exactly when [ShouldRollback] says so (a
// step's failure: an invariant breach, a timed-out gate, an analysis that
// rejects a weight, an AWS error that is not retried), and never on what
// [Classify] puts in another [Disposition]: a lost lock or a conflicting
// write (someone else acts), a refused approval, a hook's interruption, a
// cancelled context, or targets that are not pods' found by the
// verification (*NonPodTargetsError: the pods serve; rolling back would
// not remove them). A caller that passes false decides with the same
// function.
func WithAutoRollback(on bool) Option { return func(o *options) { o.autoRollback = on } }

// WithAllowNonPodTargets lets the verification pass when the target group
// holds targets that are not the Service's pod endpoints (node targets
// someone registered after the plan, addresses nothing in the cluster
// holds): the result warns, naming them. Default false: they stop Execute
// at the verify step with a *NonPodTargetsError, without a rollback. They
// are never removed either way.
func WithAllowNonPodTargets(allow bool) Option { return func(o *options) { o.allowNonPod = allow } }

// WithAcceptPreconditions lets Execute carry out a plan whose
// [Precondition]s of these kinds do not hold, for example
// WithAcceptPreconditions(PreconditionPodSettings) when the Service's pods
// lack a safe preStop delay: the caller takes the risk the plan names, and
// the result says so. A kind that is not one of the package's is an
// *InputError. Default: none; Execute refuses a plan with any precondition
// with a *PreconditionError before it reads or changes anything.
func WithAcceptPreconditions(kinds ...PreconditionKind) Option {
	return func(o *options) { o.accepted = append(o.accepted, kinds...) }
}

// WithRetry shapes the retries of throttled calls. Default [DefaultRetry].
func WithRetry(p RetryPolicy) Option { return func(o *options) { o.retry = p } }

// WithHook calls h after each step, batch and rollback action. See [Hook].
func WithHook(h Hook) Option { return func(o *options) { o.hook = h } }

// WithPollInterval sets how often waits observe. Zero or negative:
// [DefaultPollInterval].
func WithPollInterval(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.poll = d
		}
	}
}

// WithReaction sets how soon a wait reacts to a node that starts to leave
// (a Karpenter taint, the exclude-from-external-load-balancers label, a
// cordon, a deletion, NotReady) or a NodeClaim being deleted, as a watch
// on the cluster reports it: between two polls the wait asks the watch
// every d and, on such a change, observes at once (and, in the steps that
// do, retires the leaving node's targets). The watch is opened when
// Env.Client is a client.WithWatch (client.NewWithWatch) and the server
// lets it watch nodes (RBAC: watch on nodes, and on
// nodeclaims.karpenter.sh where Karpenter runs); otherwise waits poll
// every WithPollInterval, as without it. Zero: [DefaultReaction].
// Negative: no watch.
func WithReaction(d time.Duration) Option {
	return func(o *options) {
		if d != 0 {
			o.reaction = d
		}
	}
}

// WithBatchSize caps the targets of one DeregisterTargets or
// RegisterTargets call, 1 to 200. Out of range: [DefaultBatchSize].
func WithBatchSize(n int) Option {
	return func(o *options) {
		if n >= 1 && n <= DefaultBatchSize {
			o.batchSize = n
		}
	}
}

// WithGateTimeout bounds the health gate (and a rollback's wait for the
// node targets). Zero or negative: [DefaultGateTimeout].
func WithGateTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.gateTimeout = d
		}
	}
}

// WithControllerPatience is how long the gate lets ready endpoints stay
// unregistered, with no registration at all, before it stops with a
// *ControllerError (the controller is stuck, not slow). Zero:
// [DefaultControllerPatience]; negative: never (the gate's timeout alone
// ends the wait).
func WithControllerPatience(d time.Duration) Option {
	return func(o *options) {
		if d != 0 {
			o.controllerPatience = d
		}
	}
}

// WithDrainTimeout bounds the drain. Zero or negative: the deregistration
// delay plus [DefaultDrainMargin].
func WithDrainTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.drainTimeout = d
		}
	}
}

// WithFloorGrace is how long a deregistration batch waits for the floor
// when the healthy targets fall short of it (pods rescheduled by Karpenter
// become healthy again) before it stops with an *InvariantError. Zero: one
// registration plus HealthyThresholdCount health checks; negative: no
// wait.
func WithFloorGrace(d time.Duration) Option { return func(o *options) { o.floorGrace = d } }

// WithAnalysis judges each blue/green weight after its hold. Default: none
// (health alone gates the steps).
func WithAnalysis(f AnalysisFunc) Option { return func(o *options) { o.analysis = f } }

// WithReason records why a rollback runs, in the journal. Default
// "requested".
func WithReason(reason string) Option { return func(o *options) { o.reason = reason } }

// WithBindVisibilityTimeout bounds how long the bind step applies the
// binding again while the controller's webhook denies it for the target
// group the plan created (blue/green), which cutover already sees: the
// controller may see a new target group later than cutover does (ELBv2's
// eventual consistency). Each denial is journaled (State.Notes) and
// logged, the first reported to the Observer as a Wait; past the bound
// the step fails with a *[BindDeniedError]. Zero:
// [DefaultBindVisibilityTimeout]; negative: no retry (the first denial
// fails the step). An in-place bind, whose target group the plan did not
// create, is never retried.
func WithBindVisibilityTimeout(d time.Duration) Option {
	return func(o *options) { o.bindVisibility = d }
}
