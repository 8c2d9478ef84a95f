package campaign

// execute.go: Execute, its options (ExecuteOption: WithErrorBudget,
// WithApproval, WithObserver, WithWorkers, WithParallel,
// WithPollInterval, WithCutoverOptions, WithHook), the Observer and the
// Hook, and StopError, why a run stopped before the campaign's end.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
)

// DefaultErrorBudget is the failed entries a campaign tolerates by
// default: none. The first failure stops the scheduling of new entries
// (the running ones finish); [WithErrorBudget] allows more.
const DefaultErrorBudget = 0

// StopReason says why a run of Execute stopped before the campaign's end.
type StopReason string

// The stop reasons.
const (
	// StopCancelled: Execute's context ended. Every running cutover
	// stopped as cutover stops on cancellation; Execute again resumes.
	StopCancelled StopReason = "cancelled"
	// StopBudget: more entries failed than the error budget allows; the
	// pending ones are skipped.
	StopBudget StopReason = "error-budget"
	// StopNotApproved: the approval of the next wave was refused; Execute
	// again asks again.
	StopNotApproved StopReason = "not-approved"
	// StopInterrupted: a cutover stopped without a failed step and with
	// the context alive (a hook's interruption, a refused phase, a
	// journal or API-server error after a step), or the campaign's own
	// hook ([WithHook]) interrupted the run, as a crash would. Execute
	// again resumes.
	StopInterrupted StopReason = "interrupted"
)

// ErrStopped is the category of a [*StopError].
var ErrStopped = errors.New("campaign stopped")

// StopError says Execute stopped before the campaign's end, and why; the
// journal records it, and Execute again resumes (after a budget stop,
// only the running entries are left to finish).
type StopError struct {
	// Reason is why.
	Reason StopReason
	// Detail says it in one line.
	Detail string
	// Err is the cause: the context's, the approval's, the cutover's or
	// the hook's error.
	Err error
}

// Error implements error: "campaign: execute: campaign stopped (REASON): DETAIL".
func (e *StopError) Error() string {
	msg := fmt.Sprintf("campaign: execute: %v (%s): %s", ErrStopped, e.Reason, e.Detail)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns [ErrStopped] and the cause.
func (e *StopError) Unwrap() []error { return []error{ErrStopped, e.Err} }

// IsStopped reports whether err is (or wraps) a [*StopError].
func IsStopped(err error) bool { return errors.Is(err, ErrStopped) }

// WaveApproval is asked before a wave whose Approval is set starts, once
// the wave before it has ended; an error refuses it: scheduling stops
// with a [*StopError] of [StopNotApproved], and a later Execute asks
// again. An approval given is recorded in the campaign journal, for
// every runner.
type WaveApproval func(ctx context.Context, index int, next Wave) error

// Observer sees a campaign's progress, for a live view: it is called from
// the runner's workers, one call at a time.
type Observer interface {
	// WaveStarted: this runner starts scheduling a wave.
	WaveStarted(WaveEvent)
	// EntryStarted: this runner starts (or takes over) an entry's
	// cutover.
	EntryStarted(EntryEvent)
	// EntryFinished: an entry this runner ran ended, or stopped.
	EntryFinished(EntryEvent)
}

// WaveEvent is a wave starting.
type WaveEvent struct {
	// Index and Name are the wave's; Entries counts its target groups.
	Index   int
	Name    string
	Entries int
	// At is when, on the injected clock.
	At time.Time
}

// EntryEvent is an entry starting or ending.
type EntryEvent struct {
	// TargetGroupARN, Name, Cluster and Wave identify it.
	TargetGroupARN tgmigrate.ARN
	Name, Cluster  string
	Wave           int
	// Status is its status after the event.
	Status EntryStatus
	// TakenOver says this runner took it over from another holder.
	TakenOver bool
	// Replanned says its cutover plan was stale and re-planned.
	Replanned bool
	// Error is its cutover's error, as text.
	Error string
	// At is when, on the injected clock.
	At time.Time
}

// ObserverFuncs is an [Observer] of optional functions.
type ObserverFuncs struct {
	// OnWaveStarted is called for WaveStarted, when set.
	OnWaveStarted func(WaveEvent)
	// OnEntryStarted is called for EntryStarted, when set.
	OnEntryStarted func(EntryEvent)
	// OnEntryFinished is called for EntryFinished, when set.
	OnEntryFinished func(EntryEvent)
}

// WaveStarted implements [Observer].
func (f ObserverFuncs) WaveStarted(e WaveEvent) {
	if f.OnWaveStarted != nil {
		f.OnWaveStarted(e)
	}
}

// EntryStarted implements [Observer].
func (f ObserverFuncs) EntryStarted(e EntryEvent) {
	if f.OnEntryStarted != nil {
		f.OnEntryStarted(e)
	}
}

// EntryFinished implements [Observer].
func (f ObserverFuncs) EntryFinished(e EntryEvent) {
	if f.OnEntryFinished != nil {
		f.OnEntryFinished(e)
	}
}

// Event is a write of the campaign journal by this runner, as a [Hook]
// sees it.
type Event struct {
	// Write numbers this runner's writes from 1.
	Write int
	// What says what was written: "start", "claim", "take-over",
	// "replan", "finish", "approve", "refuse", "skip", "stop".
	What string
	// TargetGroupARN is the entry's, when the write is an entry's.
	TargetGroupARN string
}

// String is "write 3: claim arn:...".
func (e Event) String() string {
	s := fmt.Sprintf("write %d: %s", e.Write, e.What)
	if e.TargetGroupARN != "" {
		s += " " + e.TargetGroupARN
	}
	return s
}

// Hook is called after each write of the campaign journal; an error
// stops this runner at once, as a crash would: no further write, the
// running cutovers cancelled (resumable), Execute returns a [*StopError]
// of [StopInterrupted]. It is the crash-injection point of the tests
// (tgmigratetest.CrashAfter[campaign.Event]).
type Hook func(ctx context.Context, e Event) error

// Parallel runs fns at once and returns when every one has returned,
// their errors joined. The default starts a goroutine each; a simulated
// fleet's Fleet.Parallel fits, so that the workers' waits overlap in its
// virtual time and the workers that meet at one instant act in a fixed
// order: the same fleet and plan give the same run every time (the
// workers wait for each other only through the clock, as it requires).
type Parallel func(ctx context.Context, fns ...func(ctx context.Context) error) error

// ExecuteOption adjusts one Execute call.
type ExecuteOption func(*execConfig)

type execConfig struct {
	budget   int
	approval WaveApproval
	observer Observer
	workers  int
	parallel Parallel
	poll     time.Duration
	cutover  func(Entry) []cutover.Option
	hook     Hook
	err      error
}

func (c *execConfig) fail(field, format string, args ...any) {
	if c.err == nil {
		c.err = &InputError{Op: "execute", Field: field, Reason: fmt.Sprintf(format, args...)}
	}
}

// WithErrorBudget lets n entries fail (failed or rolled back) before
// scheduling stops: once more than n have, no new entry starts, the
// running ones finish, the pending ones are skipped, and Execute returns
// a [*StopError] of [StopBudget]. Default [DefaultErrorBudget]; n must
// not be negative.
func WithErrorBudget(n int) ExecuteOption {
	return func(c *execConfig) {
		if n < 0 {
			c.fail("WithErrorBudget", "%d is negative", n)
			return
		}
		c.budget = n
	}
}

// WithApproval asks f before each wave whose Approval is set. Default:
// every wave is approved (and recorded so).
func WithApproval(f WaveApproval) ExecuteOption { return func(c *execConfig) { c.approval = f } }

// WithObserver reports progress to o. Default: none.
func WithObserver(o Observer) ExecuteOption { return func(c *execConfig) { c.observer = o } }

// WithWorkers runs at most n entries at once in this runner (the plan's
// limits apply across every runner, through the journal). Default: the
// plan's Limits.Concurrency. With 1 the one worker runs in the caller's
// goroutine (a participant of a simulated fleet's Parallel may run a
// runner so). n must be at least 1.
func WithWorkers(n int) ExecuteOption {
	return func(c *execConfig) {
		if n < 1 {
			c.fail("WithWorkers", "%d is below 1", n)
			return
		}
		c.workers = n
	}
}

// WithParallel runs the workers with p. Default: a goroutine each.
func WithParallel(p Parallel) ExecuteOption {
	return func(c *execConfig) {
		if p == nil {
			c.fail("WithParallel", "is nil")
			return
		}
		c.parallel = p
	}
}

// WithPollInterval is how often an idle worker looks at the journal
// again (an entry of another runner ended, a Lease expired, the limits
// let one start). Default cutover.DefaultPollInterval; d must be
// positive.
func WithPollInterval(d time.Duration) ExecuteOption {
	return func(c *execConfig) {
		if d <= 0 {
			c.fail("WithPollInterval", "%s is not positive", d)
			return
		}
		c.poll = d
	}
}

// WithCutoverOptions gives each entry's cutover.Execute the options f
// returns for it (an observer, a hook, a poll interval). Execute adds
// its own after them: the entry's Lease (cutover.WithLock) and the
// plan's accepted preconditions.
func WithCutoverOptions(f func(Entry) []cutover.Option) ExecuteOption {
	return func(c *execConfig) { c.cutover = f }
}

// WithHook calls h after each write of the campaign journal. See [Hook].
func WithHook(h Hook) ExecuteOption { return func(c *execConfig) { c.hook = h } }

// ValidateExecuteOptions checks opts as [Execute] does before any call:
// the [*InputError] of the first bad option, naming it
// ("WithErrorBudget"), or nil.
func ValidateExecuteOptions(opts ...ExecuteOption) error {
	_, err := execConfigOf(opts)
	return err
}

// execConfigOf applies opts to Execute's defaults.
func execConfigOf(opts []ExecuteOption) (execConfig, error) {
	cfg := execConfig{budget: DefaultErrorBudget, observer: ObserverFuncs{}, poll: cutover.DefaultPollInterval}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	return cfg, cfg.err
}

// Execute runs a campaign plan: every runnable entry's cutover through
// cutover.Execute, with its own cutover journal and Lease as cutover
// keeps them (a ConfigMap journal and a Lease in the binding's
// namespace), in the plan's waves and under its limits, recording each
// entry's state in the campaign journal (Env.Journal).
//
// Before any call it checks the plan ([Plan.Verify]: an edited plan is
// refused), the options and env (an [*InputError] naming the field).
// It then loads the journal (or starts it; a journal of another plan is
// refused with [ErrJournalMismatch]) and schedules: the waves in order,
// each once the one before has ended and its approval is given
// ([WithApproval]); within a wave, in its order, each entry that
// [Limits.Admit] lets start beside the running ones (every runner's).
// Before an entry starts, its cutover plan is made again with its
// request: a plan that differs in what its run rests on (its targets,
// floor, binding, health check, quota) is stale; the new one runs if it
// still fits the approved campaign (same target group, cluster and
// strategy, no unaccepted precondition), else the entry is blocked with
// the reason. A failed cutover is rolled back by cutover (its automatic
// rollback, cutover.ShouldRollback), and the others go on within the
// error budget ([WithErrorBudget]).
//
// Several runners (Env.Holder) may run one plan on one journal at once:
// each entry runs once, by the holder of its Lease; an entry of a
// runner that died is taken over once its Lease expires, resuming from
// its cutover journal. A cancelled context stops the scheduling; the
// running cutovers stop as cutover does (resumable), and Execute again
// resumes: done entries are not run again, running ones go on from
// their cutover journals.
//
// It returns the [Result] (from the journal: every runner's entries) and,
// when it stopped before the campaign's end, a [*StopError].
func Execute(ctx context.Context, env Env, plan *Plan, opts ...ExecuteOption) (*Result, error) {
	cfg, err := execConfigOf(opts)
	if err != nil {
		return nil, err
	}
	if plan == nil {
		return nil, &InputError{Op: "execute", Field: "plan", Reason: "is nil"}
	}
	if err := plan.Verify(); err != nil {
		return nil, &InputError{Op: "execute", Field: "plan", Reason: "not the plan that was approved", Err: err}
	}
	ix, err := env.validate(plan)
	if err != nil {
		return nil, err
	}
	if cfg.workers == 0 {
		cfg.workers = plan.Limits.Concurrency
	}
	if err := ctx.Err(); err != nil {
		return nil, &StopError{Reason: StopCancelled, Detail: "before it started", Err: context.Cause(ctx)}
	}
	s := newScheduler(plan, ix, cfg)
	return s.execute(ctx)
}
