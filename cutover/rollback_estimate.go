package cutover

// rollback_estimate.go holds EstimateRollback and its RollbackEstimate: how
// long a Rollback is expected to take, from a plan or a
// journal's State, before it starts; and rollbackWaits, the waits a
// rollback's floor is made of, which the estimate and
// RollbackResult.FloorSeconds both sum.

import (
	"fmt"
	"slices"
	"strings"
)

// RollbackEstimate is how long a [Rollback] is expected to take, worked
// out before it starts from the plan or the journal's [State] at hand,
// under the plan's [Assumptions]. It is the floor
// [RollbackResult].FloorSeconds reports afterwards when each phase of the
// rollback registers node targets: the node targets it registers must
// pass their health checks before anything is removed (wait-nodes); when
// the plan bounded the overlap under ELBv2's quotas, the nodes that did
// not fit are registered once the binding is gone (register-rest:
// in-place, after the pod targets' deregistration delay), and pass their
// checks too. A phase that registers none waits less: a bounded
// rollback whose first phase finds no room beside the pod targets, or
// one that finds every live node registered already. It counts no API
// latency, no wait for the AWS Load Balancer Controller to remove the
// binding's finalizer, and no wait for Karpenter to settle its nodes:
// each can make the rollback longer.
type RollbackEstimate struct {
	// Seconds is the floor: the sum of the waits' seconds.
	Seconds int32 `json:"seconds"`
	// Waits are the waits the floor is made of, in order, each with what
	// its length derives from. A wait whose length the source does not
	// record has zero seconds and says so in its From.
	Waits []PlannedWait `json:"waits,omitempty"`
	// Actions are the rollback actions left to run, in order: all of
	// them from a plan, those the journal does not record as done from a
	// State.
	Actions []string `json:"actions"`
	// Assumption says what the floor rests on: the registration delay
	// and the passing checks a new target needs (Assumptions, which ELB
	// does not publish), at the interval of the health check the
	// rollback restores.
	Assumption string `json:"assumption"`
}

// String renders the estimate on one line: "about 40 s (wait-nodes
// 40 s); assumes ...".
func (e RollbackEstimate) String() string {
	var waits []string
	for _, w := range e.Waits {
		waits = append(waits, fmt.Sprintf("%s %d s", w.Step, w.Seconds))
	}
	s := fmt.Sprintf("about %d s", e.Seconds)
	if len(waits) > 0 {
		s += " (" + strings.Join(waits, " + ") + ")"
	}
	return s + "; assumes " + e.Assumption
}

// EstimateRollback returns how long a [Rollback] from src is expected to
// take (see [RollbackEstimate]). src is a *[Plan], the whole
// rollback of a run of it, or a *[State] (from a journal's Inspect), the
// actions its rollback record does not list as done: a rollback resumed
// after an interruption waits only for what is left. A State records no
// deregistration delay, so the drain before register-rest (in-place, a
// bounded overlap) is not counted from one, and its wait says so. A State
// rolled back already gives a zero estimate with no action. Any other
// source is an [*InputError], as Rollback's.
func EstimateRollback(src Source) (RollbackEstimate, error) {
	const op = "estimate rollback"
	var (
		ri    *RestoreInfo
		strat strategy
		holds bool
		done  []string
		dereg int32 = -1
	)
	switch s := src.(type) {
	case *Plan:
		if _, err := s.validate(op); err != nil {
			return RollbackEstimate{}, err
		}
		ri, holds, dereg = s.restoreInfo(), !s.Request.NoDisruptionHold, s.TargetGroup.DeregistrationDelaySeconds
		if strat = strategyOf(s.Strategy); strat == nil {
			strat = strategies[0]
		}
	case *State:
		if s == nil {
			return RollbackEstimate{}, &InputError{Op: op, Field: "state", Reason: "nil"}
		}
		if err := s.Validate(); err != nil {
			return RollbackEstimate{}, &InputError{Op: op, Field: "state", Reason: err.Error()}
		}
		if s.Restore == nil {
			return RollbackEstimate{}, &InputError{Op: op, Field: "state", Reason: "it records no restore information: it was not written by Execute"}
		}
		ri, strat, holds = s.Restore, undoStrategy(s), !s.Restore.NoDisruptionHold
		if s.Rollback != nil {
			if s.RolledBack() {
				return RollbackEstimate{Actions: []string{}, Assumption: "nothing: the journal says the rollback finished"}, nil
			}
			done = s.Rollback.Done
		}
	case nil:
		return RollbackEstimate{}, &InputError{Op: op, Field: "source", Reason: "nil"}
	default:
		return RollbackEstimate{}, &InputError{Op: op, Field: "source", Reason: fmt.Sprintf("a %T: a rollback starts from a *cutover.Plan or a *cutover.State", src)}
	}
	e := RollbackEstimate{Actions: []string{}}
	for _, a := range rollbackActions(strat, ri, holds) {
		if !slices.Contains(done, a.ID) {
			e.Actions = append(e.Actions, a.ID)
		}
	}
	hc := HealthCheckSettings{}
	if ri.HealthCheck != nil {
		hc = *ri.HealthCheck
	}
	nodes := newTiming(ri.Assumptions, hc, 0)
	first := slices.Contains(e.Actions, RollbackWaitNodes)
	rest := slices.Contains(e.Actions, RollbackRegisterRest)
	e.Waits = rollbackWaits(nodes, dereg, first, rest, strat.restDrains())
	for _, w := range e.Waits {
		e.Seconds += w.Seconds
	}
	e.Assumption = nodes.newTargetFrom()
	return e, nil
}

// rollbackWaits are the waits a rollback's floor is made of: when first,
// the node targets register-nodes registered healthy (wait-nodes); when
// rest, the pod targets' drain if restDrains (dereg seconds; negative:
// not known, a wait of zero seconds that says so), then the checks of the
// node targets register-rest registered.
func rollbackWaits(nodes timing, dereg int32, first, rest, restDrains bool) []PlannedWait {
	var out []PlannedWait
	healthy := PlannedWait{Step: RollbackWaitNodes, Reason: reasonNodes, Seconds: seconds(nodes.newTarget()), From: nodes.newTargetFrom()}
	if first {
		out = append(out, healthy)
	}
	if rest {
		if restDrains {
			drain := PlannedWait{Step: RollbackRegisterRest, Reason: reasonDrain, Seconds: dereg, From: timing{dereg: dereg}.drainFrom()}
			if dereg < 0 {
				drain.Seconds, drain.From = 0, "the deregistration delay, which the journal does not record: not counted"
			}
			out = append(out, drain)
		}
		healthy.Step = RollbackRegisterRest
		out = append(out, healthy)
	}
	return out
}
