package cutover

// strategy.go holds the strategy interface, which in-place and blue/green
// implement (inplace_*.go, bluegreen_*.go), the ordered table that maps a
// Strategy value to its implementation, and chooseStrategy, which picks
// one for a target group.

import (
	"context"
	"fmt"

	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
)

// strategy is one way to cut a target group over, as Karpenter's
// disruption methods are: it owns its plan steps, their execution and
// their undo. PlanCutover and the runner keep the rest: the guards, the
// reads every plan makes, the hold of Karpenter's disruption around the
// steps, the lock, the journal, the invariants and the observer.
type strategy interface {
	// name is the public Strategy value: the plan's and the journal's.
	name() Strategy
	// plan reads what the strategy needs and fills pl.p: the binding,
	// the recorded targets, the floor, the health-check plan, the quota
	// count and the bounded overlap.
	plan(ctx context.Context, pl *planner) error
	// steps sets the plan's steps, in order; the planner then puts the
	// hold of Karpenter's disruption and its release around them.
	steps(pl *planner)
	// estimate is the plan's floor and the waits it is made of.
	estimate(p *Plan) Estimate
	// incomplete says what a plan of this strategy lacks ("": nothing);
	// Plan.validate refuses it.
	incomplete(p *Plan) string
	// run executes one of the strategy's steps: every step of its plan
	// but the hold and its release, which the runner runs.
	run(ctx context.Context, r *runner, step Step) error
	// undo lists the strategy's rollback actions, in order, from what the
	// journal keeps of the plan; the rollback puts the hold of
	// Karpenter's disruption and its release around them.
	undo(ri *RestoreInfo) []Step
	// undoAction runs one of the actions undo lists.
	undoAction(ctx context.Context, rb *rollbackRun, id string) error
	// restDrains says whether the nodes registered after the binding is
	// gone (RollbackRegisterRest) wait for the pod targets' drain first:
	// part of the rollback's floor.
	restDrains() bool
	// watchOld is the strategy's part of each observation v of the
	// target group whose node targets the rollback waits for.
	watchOld(ctx context.Context, rb *rollbackRun, v *view) error
}

// strategies maps each Strategy value to its implementation. Each
// strategy's fit is checked in chooseStrategy, from the target type.
var strategies = []strategy{
	// In-place first: the seed's case, and StrategyAuto's choice for a
	// target group of type ip.
	inPlace{},
	// Blue/green: the only way for a target group of type instance.
	blueGreen{},
}

// strategyOf returns the implementation of s, or nil when s is none.
func strategyOf(s Strategy) strategy {
	for _, st := range strategies {
		if st.name() == s {
			return st
		}
	}
	return nil
}

// chooseStrategy sets the plan's strategy from the target type and the
// request, or refuses with a *StrategyError.
func (pl *planner) chooseStrategy() error {
	p, req := pl.p, &pl.req
	tt := pl.tg.TargetType
	switch {
	case tt == elbv2types.TargetTypeEnumIp && req.Strategy == StrategyAuto:
		p.Strategy, p.StrategyReason = StrategyInPlace, "the target group is of type ip: it is handed to the LBC as it is"
	case tt == elbv2types.TargetTypeEnumIp:
		p.Strategy, p.StrategyReason = req.Strategy, "requested"
	case tt == elbv2types.TargetTypeEnumInstance && req.Strategy == StrategyInPlace:
		return &StrategyError{Strategy: StrategyInPlace, TargetGroupARN: pl.arn,
			Reason: "the target group is of type instance and a target type cannot change; pod IPs cannot be registered in it: use blue-green"}
	case tt == elbv2types.TargetTypeEnumInstance:
		p.Strategy, p.StrategyReason = StrategyBlueGreen, "the target group is of type instance, which cannot change: a new ip target group takes over through weighted forwarding"
	default:
		s := req.Strategy
		if s == StrategyAuto {
			s = StrategyInPlace
		}
		return &StrategyError{Strategy: s, TargetGroupARN: pl.arn,
			Reason: fmt.Sprintf("target type %s cannot be bound by the LBC", tt)}
	}
	return nil
}
