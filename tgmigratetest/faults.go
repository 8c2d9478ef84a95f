package tgmigratetest

// faults.go: the faults a test injects: throttling and AccessDenied on
// named ELBv2 operations (Fault, World.Inject), and a crash of a cutover
// after its Nth event (CrashAfter, ErrCrash).

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
)

// FaultCode is the AWS error a [Fault] answers with.
type FaultCode string

// The fault codes.
const (
	// Throttling: "Rate exceeded", which the SDK packages retry with
	// backoff on the injected clock.
	Throttling FaultCode = "Throttling"
	// AccessDenied: IAM's refusal of the action, which they do not retry.
	AccessDenied FaultCode = "AccessDenied"
)

// Fault makes the next calls of one ELBv2 operation of the code under test
// fail, as AWS fails them: with the SDK's error wrapping, and no effect on
// the world.
type Fault struct {
	// Op is the ELBv2 operation, as the SDK names it: "DescribeTargetHealth",
	// "DeregisterTargets", "ModifyTargetGroup"... Required.
	Op string
	// Code is the error. Required.
	Code FaultCode
	// TargetGroup, when set, limits the fault to calls that name this
	// target group. Zero: any call of Op.
	TargetGroup tgmigrate.ARN
	// Times is how many calls fail, one after the other. Zero: one.
	Times int
}

// Inject arms f: the next f.Times calls of f.Op fail with f.Code. Faults
// fire in the order they were armed. A bad fault gives an
// [*OptionsError] naming its field ("Fault.Op"), and nothing is armed.
func (w *World) Inject(f Fault) error {
	bad := func(field, reason string) error { return optionsError("inject", "Fault."+field, reason) }
	if !slices.Contains(elbv2sim.Ops, f.Op) {
		return bad("Op", fmt.Sprintf("%q is not an ELBv2 operation of tgmigrate (%v)", f.Op, elbv2sim.Ops))
	}
	if f.Times < 0 {
		return bad("Times", "is negative")
	}
	var resource string
	if !f.TargetGroup.IsZero() {
		resource = f.TargetGroup.String()
	}
	var err error
	switch f.Code {
	case Throttling:
		err = elbv2model.ThrottlingError()
	case AccessDenied:
		target := resource
		if target == "" {
			target = "*"
		}
		err = sim.AccessDenied("tgmigrate/operator", f.Op, target)
	default:
		return bad("Code", fmt.Sprintf("%q is neither %s nor %s", f.Code, Throttling, AccessDenied))
	}
	for range max(f.Times, 1) {
		if ierr := w.w.ELBv2().Inject(elbv2sim.InjectedError{Op: f.Op, ARN: resource, Err: err}); ierr != nil {
			return fmt.Errorf("tgmigratetest: inject: %w", ierr)
		}
	}
	return nil
}

// ErrCrash is the error a [CrashAfter] hook stops a run with: cutover's
// Execute (or Rollback) then returns as a crashed process would, its
// journal and lease left as they are, with an error that unwraps to both
// ErrCrash and cutover.ErrInterrupted.
var ErrCrash = errors.New("tgmigratetest: simulated crash")

// CrashAfter returns a hook for cutover.WithHook that crashes the run
// after its nth event: the hook sees one event per step done, per
// deregistration batch and per rollback action, each once the journal is
// saved. It crashes once; later events, and the run that resumes from the
// journal with the same hook, pass. E is the hook's event type,
// cutover.Event:
//
//	hook := cutover.WithHook(tgmigratetest.CrashAfter[cutover.Event](3))
//
// The type argument cannot be left out, and cannot be removed: Go infers
// a type argument from a call's arguments, never from the type its result
// is assigned to, and E appears only in the result; a non-generic
// CrashAfter would return cutover.Hook, but the kit imports no capability
// package (ARCHITECTURE.md), so it cannot name cutover.Event; and a
// function type of another event type is not assignable to cutover.Hook
// (Go's function types do not convert by their parameters).
func CrashAfter[E fmt.Stringer](n int) func(context.Context, E) error {
	seen := 0
	return func(_ context.Context, e E) error {
		seen++
		if seen == n {
			return fmt.Errorf("%w after %s", ErrCrash, e)
		}
		return nil
	}
}
