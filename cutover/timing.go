package cutover

// This file turns the plan's timing assumptions and a target group's
// settings into the cutover's waits: the plan's floor and every fixed wait
// of Execute and Rollback come from here, each with its reason and what it
// derives from.

import (
	"fmt"
	"math"
	"time"

	"github.com/qstools/tgmigrate"
)

// Assumptions are the AWS timings a plan is made under: how many passing
// health checks a new target needs before it is healthy, the registration
// delay before its first check, the deregistration lag (how long load
// balancer nodes may still send new requests to a deregistered target) and
// the AWS Load Balancer Controller's delay to deregister a terminating
// pod. Every zero value means its default: AWS's documented value where
// there is one (one passing check), the worst reported where there is not
// (a lag of 120 s). [Request].Assumptions sets them; the plan records them
// with the defaults applied, and its floor, its waits and its pod
// preconditions derive from them.
type Assumptions = tgmigrate.Assumptions

// HealthyThreshold, as Assumptions.NewTargetChecks, says that a new target
// needs the target group's HealthyThresholdCount passing checks before it
// is healthy (the reading of the API reason Elb.InitialHealthChecking)
// rather than one (the ALB user guide's).
const HealthyThreshold = tgmigrate.HealthyThreshold

// PlannedWait is one wait of a plan: the step that waits, why, how long at
// least, and the assumption or setting the length derives from.
type PlannedWait struct {
	// Step is the step that waits.
	Step string `json:"step"`
	// Reason says what the step waits for.
	Reason string `json:"reason"`
	// Seconds is the wait's length.
	Seconds int32 `json:"seconds"`
	// From names what the length derives from, for example
	// "deregistration_delay.timeout_seconds 300" or
	// "UnhealthyThresholdCount 2 × interval 30 s".
	From string `json:"from"`
}

// String renders the wait on one line: "gate 60 s: REASON (from FROM)".
func (w PlannedWait) String() string {
	return fmt.Sprintf("%s %d s: %s (from %s)", w.Step, w.Seconds, w.Reason, w.From)
}

// timing is what a cutover's waits derive from: the assumptions, and the
// health check and deregistration delay of the target group the wait is
// about.
type timing struct {
	a                            Assumptions
	interval, healthy, unhealthy int32
	dereg                        int32
}

func newTiming(a Assumptions, hc HealthCheckSettings, deregSeconds int32) timing {
	t := timing{a: a.WithDefaults(), dereg: deregSeconds}
	t.interval, t.healthy, t.unhealthy = hc.Timing()
	return t
}

func seconds(d time.Duration) int32 { return int32(math.Ceil(d.Seconds())) }

// registration is the registration delay, in whole seconds.
func (t timing) registration() int32 { return seconds(t.a.Registration()) }

// checks is the time from a new target's first check to the last of the
// passing checks it needs, one interval apart: the first comes as the
// registration delay ends.
func (t timing) checks() int32 { return (t.a.Checks(t.healthy) - 1) * t.interval }

// newTarget is how long a newly registered target takes to be healthy at
// the least: the registration delay (to its first check), then the other
// passing checks it needs, one interval apart. A floor, not an estimate:
// AWS does not say when the first check comes; the simulator runs it as
// the registration ends.
func (t timing) newTarget() time.Duration {
	return time.Duration(t.registration()+t.checks()) * time.Second
}

// newTargetAtMost is how long a target the controller registers for a new
// endpoint may take to be healthy: the controller's delay, the
// registration delay, then every passing check a full interval apart (the
// first may come up to an interval after the registration). A shortfall
// of the floor that lasts longer than this is no replacement on its way.
func (t timing) newTargetAtMost() time.Duration {
	return t.a.Controller() + time.Duration(t.registration()+t.a.Checks(t.healthy)*t.interval)*time.Second
}

// newTargetAtMostFrom says what newTargetAtMost derives from.
func (t timing) newTargetAtMostFrom() string {
	return fmt.Sprintf("controller delay %v + registration delay %v (assumed) + %d passing checks × interval %d s",
		t.a.Controller(), t.a.Registration(), t.a.Checks(t.healthy), t.interval)
}

// newTargetFrom says what newTarget derives from.
func (t timing) newTargetFrom() string {
	checks := fmt.Sprintf("%d passing check", t.a.Checks(t.healthy))
	if t.a.Checks(t.healthy) != 1 {
		checks += "s"
	}
	if t.a.NewTargetChecks == HealthyThreshold {
		checks = fmt.Sprintf("HealthyThresholdCount %d", t.healthy)
	}
	return fmt.Sprintf("registration delay %v (assumed) to the first check, %s one interval (%d s) apart", t.a.Registration(), checks, t.interval)
}

// alignment is the confirmation window of a health check changed while
// node targets serve. A target already healthy turns unhealthy only after
// UnhealthyThresholdCount consecutive failed checks; the first check under
// the new settings comes within one interval of the change and the others
// one interval apart, so a node target that fails the new check is
// unhealthy at the latest UnhealthyThresholdCount intervals after it. One
// still healthy then passes the new check.
func (t timing) alignment() time.Duration {
	return time.Duration(t.unhealthy*t.interval) * time.Second
}

// alignmentFrom says what alignment derives from.
func (t timing) alignmentFrom() string {
	return fmt.Sprintf("UnhealthyThresholdCount %d × interval %d s", t.unhealthy, t.interval)
}

// drain is the deregistration delay.
func (t timing) drain() time.Duration { return time.Duration(t.dereg) * time.Second }

// drainFrom says what drain derives from.
func (t timing) drainFrom() string {
	return fmt.Sprintf("%s %d", attrDeregistrationDelay, t.dereg)
}

// Reasons of the waits, shared by the plan and the executor.
const (
	reasonNewTargets = "new targets healthy: registration, then the passing checks a new target needs"
	reasonAlignment  = "the node targets healthy before the early health-check alignment still pass it: a healthy target turns unhealthy only after UnhealthyThresholdCount failed checks, the first within one interval of the change"
	reasonDrain      = "the deregistered node targets drain: in-flight requests finish"
	// reasonBoundedWave is a bounded overlap's wave: the node targets
	// deregistered to make room drain (they count against the quota
	// until then), then the pod targets registered into it are checked.
	reasonBoundedWave = "a bounded overlap's wave: the node targets deregistered for room drain, then the pod targets registered into it pass their checks"
	reasonNodes       = "the node targets registered by the rollback healthy: registration, then the passing checks a new target needs"
	reasonHold        = "the weight's hold: health is watched before the analysis judges it"
	reasonBinding     = "the LBC deregisters the pod targets it tracked and removes its finalizer"
)
