package cutover

// observer.go holds the Observer, the events it sees (StepEvent, Progress,
// Wait) and ObserverFuncs.

import (
	"context"
	"strconv"
	"time"

	"github.com/qstools/tgmigrate"
)

// Observer follows a cutover or a rollback as it runs: a progress line, a
// dashboard, a test. Its methods are called on the goroutine of Execute or
// Rollback, synchronously; they must not block for long. [ObserverFuncs]
// implements it with optional functions.
type Observer interface {
	// StepStarted is called when a step (or a rollback action) starts.
	StepStarted(StepEvent)
	// StepFinished is called when it ends: done, skipped (already done:
	// Skipped is set), or failed (Err is set).
	StepFinished(StepEvent)
	// Targets reports each observation of the target group.
	Targets(Progress)
	// Waiting says what a step waits for and until when at the latest
	// (zero when unknown), for a countdown.
	Waiting(Wait)
}

// StepEvent is a step starting or finishing.
type StepEvent struct {
	// Step is the plan's step, or a rollback action (ID and Title only).
	Step Step
	// At is when, on the injected clock.
	At time.Time
	// Skipped says the step was already done (a resumed plan) and made no
	// call.
	Skipped bool
	// Err is the failure of a failed step.
	Err error
}

// Progress is one observation of the target group.
type Progress struct {
	// Step is the step observing.
	Step string
	// At is when, on the injected clock.
	At time.Time
	// TargetGroupARN is the target group observed: the plan's, or the one
	// blue/green created; typed, as every ARN of the package's inputs.
	TargetGroupARN tgmigrate.ARN
	// Healthy counts the healthy targets that will keep serving (pod
	// targets, and node targets whose node is not leaving); Total the
	// targets the step waits on (the ready endpoints, or the node targets
	// of a rollback).
	Healthy, Total int
	// Draining counts the targets draining.
	Draining int
	// Floor is the plan's floor.
	Floor int
	// Summary is one line, for example "58/60 healthy (Elb.InitialHealthChecking: 2), 20 node targets".
	Summary string
}

// String returns the observation as one line: the step, its summary (or
// the counts when it has none) and the floor, for example "deregister:
// 58/60 healthy (Elb.InitialHealthChecking: 2), 20 node targets; floor 40".
func (p Progress) String() string {
	summary := p.Summary
	if summary == "" {
		summary = strconv.Itoa(p.Healthy) + "/" + strconv.Itoa(p.Total) + " healthy, draining " + strconv.Itoa(p.Draining)
	}
	return p.Step + ": " + summary + "; floor " + strconv.Itoa(p.Floor)
}

// Wait says what a step waits for, why, and what the expected length
// derives from.
type Wait struct {
	// Step is the waiting step.
	Step string
	// What is what it waits for.
	What string
	// Reason says why the step waits that long.
	Reason string
	// From names the assumption or the setting the length derives from,
	// for example "deregistration_delay.timeout_seconds 300" or
	// "UnhealthyThresholdCount 2 × interval 30 s".
	From string
	// Until is when it expects to be done, zero when unknown.
	Until time.Time
}

// ObserverFuncs is an [Observer] made of optional functions; nil ones are
// skipped.
type ObserverFuncs struct {
	// OnStepStarted is [Observer.StepStarted].
	OnStepStarted func(StepEvent)
	// OnStepFinished is [Observer.StepFinished].
	OnStepFinished func(StepEvent)
	// OnTargets is [Observer.Targets].
	OnTargets func(Progress)
	// OnWaiting is [Observer.Waiting].
	OnWaiting func(Wait)
}

// StepStarted implements [Observer].
func (f ObserverFuncs) StepStarted(e StepEvent) {
	if f.OnStepStarted != nil {
		f.OnStepStarted(e)
	}
}

// StepFinished implements [Observer].
func (f ObserverFuncs) StepFinished(e StepEvent) {
	if f.OnStepFinished != nil {
		f.OnStepFinished(e)
	}
}

// Targets implements [Observer].
func (f ObserverFuncs) Targets(p Progress) {
	if f.OnTargets != nil {
		f.OnTargets(p)
	}
}

// Waiting implements [Observer].
func (f ObserverFuncs) Waiting(w Wait) {
	if f.OnWaiting != nil {
		f.OnWaiting(w)
	}
}

// EventKind says where a [Hook] is called.
type EventKind string

// The hook points.
const (
	// EventStep: a step finished and the journal was saved.
	EventStep EventKind = "step"
	// EventBatch: a deregistration batch succeeded and the journal was
	// saved.
	EventBatch EventKind = "batch"
	// EventRollback: a rollback action finished and the journal was saved.
	EventRollback EventKind = "rollback"
)

// Event is a point where a [Hook] is called: the journal has just been
// saved.
type Event struct {
	// Kind is the hook point.
	Kind EventKind
	// Step is the step (or rollback action) the event belongs to.
	Step string
	// Batch numbers the deregistration batches from 1 (EventBatch).
	Batch int
	// Targets counts the batch's targets (EventBatch).
	Targets int
}

// String is "step bind", "batch 2 of deregister (200 targets)" or
// "rollback delete-binding".
func (e Event) String() string {
	switch e.Kind {
	case EventBatch:
		return "batch " + strconv.Itoa(e.Batch) + " of " + e.Step + " (" + strconv.Itoa(e.Targets) + " targets)"
	default:
		return string(e.Kind) + " " + e.Step
	}
}

// Hook is called after each step, each deregistration batch and each
// rollback action, once the journal is saved. An error makes Execute (or
// Rollback) return at once, as a crash would: no rollback, the journal and
// the lease left as they are; the error unwraps to [ErrInterrupted]. It is
// the crash-injection point of the tests, and a place to stop a run from
// outside.
type Hook func(ctx context.Context, e Event) error

// ApprovalFunc is asked before each phase of a plan starts; an error
// refuses it, and Execute returns an error that unwraps to
// [ErrNotApproved], leaving the journal and releasing the lock, so that a
// later Execute resumes there.
type ApprovalFunc func(ctx context.Context, next Phase) error

// Phase is a group of steps the approval callback is asked about.
type Phase struct {
	// Name is the steps' Phase.
	Name string
	// Steps are the phase's steps that are not done yet.
	Steps []Step
	// Done lists the steps already done, in order.
	Done []string
}

// AnalysisFunc judges a blue/green weight after its hold, like a canary
// analysis: an error rolls the cutover back (by default). It is called with
// the step and the weight the new target group had.
type AnalysisFunc func(ctx context.Context, step Step) error
