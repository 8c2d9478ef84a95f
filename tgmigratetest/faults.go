package tgmigratetest

// faults.go: the faults a test injects: throttling and AccessDenied on
// named ELBv2, EC2 and Service Quotas operations (Fault, World.Inject),
// as each service answers them, and a crash of a cutover after its Nth
// event (CrashAfter, ErrCrash).

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
)

// FaultCode is the AWS error a [Fault] answers with.
type FaultCode string

// The fault codes.
const (
	// Throttling: the service's throttling error (ELBv2's Throttling,
	// EC2's RequestLimitExceeded, Service Quotas' TooManyRequestsException),
	// which the SDK packages retry with backoff on the injected clock.
	Throttling FaultCode = "Throttling"
	// AccessDenied: IAM's refusal of the action (ELBv2's AccessDenied,
	// EC2's UnauthorizedOperation, Service Quotas'
	// AccessDeniedException), which they do not retry.
	AccessDenied FaultCode = "AccessDenied"
)

// Fault makes the next calls of one AWS operation of the code under test
// fail, as AWS fails them: with the service's own error code, and no
// effect on the world. The operation is ELBv2's ([World.ELBv2]), EC2's
// ([World.EC2]) or Service Quotas' ([World.ServiceQuotas]); with
// Options.Wire the fault fires behind the endpoint, and the real SDK
// client reads it back off the wire (and its retryer retries a
// throttling).
type Fault struct {
	// Op is the operation, as the SDK names it: ELBv2's
	// "DescribeTargetHealth", "DeregisterTargets", "ModifyTargetGroup"...,
	// EC2's "DescribeSecurityGroups", "DescribeNetworkInterfaces",
	// "DescribeVpcs", "DescribeSubnets", "DescribeRouteTables",
	// "DescribeVpcEndpoints", "DescribeInstances", or Service Quotas'
	// "GetServiceQuota", "GetAWSDefaultServiceQuota". Required.
	Op string
	// Code is the error. Required.
	Code FaultCode
	// TargetGroup, when set, limits the fault to the ELBv2 calls that name
	// this target group. Zero: any call of Op. Only for an ELBv2 Op.
	TargetGroup tgmigrate.ARN
	// Times is how many calls fail, one after the other. Zero: one.
	Times int
}

// faultService says which service's operation op is: "ELBv2", "EC2",
// "Service Quotas", or "" for none.
func faultService(op string) string {
	switch {
	case slices.Contains(elbv2sim.Ops, op):
		return "ELBv2"
	case slices.Contains(ec2Ops, op):
		return "EC2"
	case slices.Contains(quotaOps, op):
		return "Service Quotas"
	}
	return ""
}

// faultError is the error AWS answers f with, as service answers it:
//
//	          Throttling                              AccessDenied
//	ELBv2     Throttling "Rate exceeded"              AccessDenied (elasticloadbalancing:Op)
//	EC2       RequestLimitExceeded                    UnauthorizedOperation (ec2:Op)
//	SQ        TooManyRequestsException                AccessDeniedException (servicequotas:Op)
func faultError(service string, f Fault) error {
	throttled := f.Code == Throttling
	switch service {
	case "EC2":
		if throttled {
			return ec2sim.ErrThrottled()
		}
		return ec2sim.ErrUnauthorized(f.Op)
	case "Service Quotas":
		if throttled {
			return quotaThrottled()
		}
		return quotaDenied(f.Op)
	}
	if throttled {
		return elbv2model.ThrottlingError()
	}
	target := "*"
	if !f.TargetGroup.IsZero() {
		target = f.TargetGroup.String()
	}
	return sim.AccessDenied("tgmigrate/operator", f.Op, target)
}

// Inject arms f: the next f.Times calls of f.Op fail with f.Code. Faults
// of one operation fire in the order they were armed. A bad fault gives
// an [*OptionsError] naming its field ("Fault.Op"), and nothing is armed.
func (w *World) Inject(f Fault) error {
	bad := func(field, reason string) error { return optionsError("inject", "Fault."+field, reason) }
	service := faultService(f.Op)
	switch {
	case service == "":
		return bad("Op", fmt.Sprintf("%q is not an operation of tgmigrate: ELBv2 %v, EC2 %v, Service Quotas %v", f.Op, elbv2sim.Ops, ec2Ops, quotaOps))
	case f.Times < 0:
		return bad("Times", "is negative")
	case f.Code != Throttling && f.Code != AccessDenied:
		return bad("Code", fmt.Sprintf("%q is neither %s nor %s", f.Code, Throttling, AccessDenied))
	case service != "ELBv2" && !f.TargetGroup.IsZero():
		return bad("TargetGroup", fmt.Sprintf("limits ELBv2 calls only, and %s is an operation of %s", f.Op, service))
	}
	err, times := faultError(service, f), max(f.Times, 1)
	switch service {
	case "EC2":
		if ierr := w.w.SUTEC2().FailNext(f.Op, times, err); ierr != nil {
			return fmt.Errorf("tgmigratetest: inject: %w", ierr)
		}
	case "Service Quotas":
		for range times {
			w.sq.arm(f.Op, err)
		}
	default:
		var resource string
		if !f.TargetGroup.IsZero() {
			resource = f.TargetGroup.String()
		}
		for range times {
			if ierr := w.w.ELBv2().Inject(elbv2sim.InjectedError{Op: f.Op, ARN: resource, Err: err}); ierr != nil {
				return fmt.Errorf("tgmigratetest: inject: %w", ierr)
			}
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
