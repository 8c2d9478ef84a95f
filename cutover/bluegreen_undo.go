package cutover

// bluegreen_undo.go holds the blue/green strategy's undo: its rollback
// actions in order and their execution: the old target group attached again,
// the original routes put back, the created target group deleted, and the
// early cut of the routes to the new target group while the old one has
// nothing healthy.

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/qstools/tgmigrate/internal/awserr"
)

// undo lists the blue/green rollback actions: the old target group
// attached again and healthy before the weights go back to it, then the
// binding and the created target group deleted; the health check last
// (the old target group's never changed). When the plan bounded the
// overlap, the nodes that did not fit go in once the new target group is
// gone.
func (blueGreen) undo(ri *RestoreInfo) []Step {
	acts := []Step{
		undoStep(RollbackAttachOld, "attach the old target group again at weight 0"),
		undoStep(RollbackRegisterNodes, "register the nodes alive now on the NodePort"),
		undoStep(RollbackWaitNodes, "wait until the node targets are healthy"),
		undoStep(RollbackRestoreRoutes, "put the original forward actions back"),
		undoStep(RollbackDeleteBinding, "delete the binding"),
		undoStep(RollbackDeleteTargetGroup, "delete the target group tgmigrate created"),
	}
	if ri.Bounded {
		acts = append(acts, undoStep(RollbackRegisterRest, registerRestTitle))
	}
	return append(acts, undoStep(RollbackRestoreHealthCheck, "restore the health check"))
}

// restDrains is false: the new target group's pod targets stop counting
// against the load balancer's quota when it is deleted.
func (blueGreen) restDrains() bool { return false }

// watchOld keeps the rollback from starving while it waits for node
// targets (see holdOnNew).
func (blueGreen) watchOld(ctx context.Context, rb *rollbackRun, v *view) error {
	return rb.holdOnNew(ctx, v)
}

// undoAction runs one of the blue/green rollback actions.
func (blueGreen) undoAction(ctx context.Context, rb *rollbackRun, id string) error {
	switch id {
	case RollbackAttachOld:
		return rb.attachOld(ctx)
	case RollbackRestoreRoutes:
		return rb.restoreRoutes(ctx)
	case RollbackDeleteTargetGroup:
		return rb.deleteTargetGroup(ctx)
	}
	return rb.runShared(ctx, id)
}

// newTG returns the target group blue/green created: the journal's, or the
// one of the planned name whose tags say tgmigrate created it for this
// target group (a crash may have come between its creation and the save).
func (rb *rollbackRun) newTG(ctx context.Context) (string, error) {
	st := rb.st
	if st.CreatedTargetGroupARN.Raw != "" {
		return st.CreatedTargetGroupARN.Raw, nil
	}
	if st.Restore.NewTargetGroupName == "" {
		return "", nil
	}
	tg, err := rb.aws.targetGroupByName(ctx, st.Restore.NewTargetGroupName)
	if err != nil || tg == nil {
		return "", err
	}
	arn := aws.ToString(tg.TargetGroupArn)
	tags, err := rb.aws.tags(ctx, arn, false)
	if err != nil {
		return "", err
	}
	if !isOurs(tags, rb.tgARN) {
		rb.res.Warnings = append(rb.res.Warnings, fmt.Sprintf("target group %s exists but tgmigrate did not create it for this one: left alone", arn))
		return "", nil
	}
	return arn, nil
}

// attachOld puts the old target group back into each route at weight 0
// where it is missing.
func (rb *rollbackRun) attachOld(ctx context.Context) error {
	nw, err := rb.newTG(ctx)
	if err != nil || nw == "" {
		return err
	}
	for _, route := range rb.st.Restore.Routes {
		actions, err := rb.routeActions(ctx, route.Resource)
		if err != nil {
			return err
		}
		var cur []TargetGroupWeight
		for _, a := range actions {
			if tgs := forwardTargets(a); slices.ContainsFunc(tgs, func(w TargetGroupWeight) bool { return w.TargetGroupARN == nw || w.TargetGroupARN == rb.tgARN }) {
				cur = tgs
			}
		}
		if slices.ContainsFunc(cur, func(w TargetGroupWeight) bool { return w.TargetGroupARN == rb.tgARN }) {
			continue
		}
		want := []TargetGroupWeight{{TargetGroupARN: rb.tgARN, Weight: 0}, {TargetGroupARN: nw, Weight: 100}}
		if err := rb.setRoute(ctx, RollbackAttachOld, route.Resource, want, []string{rb.tgARN, nw}, nil); err != nil {
			return err
		}
	}
	return nil
}

// holdOnNew keeps a blue/green rollback from starving: when the old target
// group holds no healthy target that will keep serving (Karpenter took its
// nodes, and the live nodes' targets are still in their health checks)
// while the new one has healthy pod targets, every route forwards to the
// new one alone until restore-routes puts the original weights back.
func (rb *rollbackRun) holdOnNew(ctx context.Context, old *view) error {
	if old.servingHealthy > 0 {
		return nil
	}
	nw, err := rb.newTG(ctx)
	if err != nil || nw == "" {
		return err
	}
	health, err := rb.aws.health(ctx, nw, false)
	if err != nil {
		return err
	}
	healthy := 0
	for _, d := range health {
		if d.TargetHealth != nil && string(d.TargetHealth.State) == stateHealthy {
			healthy++
		}
	}
	if healthy == 0 {
		return nil
	}
	want := []TargetGroupWeight{{TargetGroupARN: rb.tgARN, Weight: 0}, {TargetGroupARN: nw, Weight: 100}}
	for _, route := range rb.st.Restore.Routes {
		before := len(rb.st.Weights)
		if err := rb.setRoute(ctx, RollbackWaitNodes, route.Resource, want, []string{rb.tgARN, nw}, nil); err != nil {
			return err
		}
		if len(rb.st.Weights) > before {
			rb.res.Warnings = append(rb.res.Warnings, fmt.Sprintf("the old target group had no healthy target left: %s forwards to %s until its node targets are healthy", route.Resource, nw))
		}
	}
	return nil
}

// restoreRoutes puts every route's original forward action back.
func (rb *rollbackRun) restoreRoutes(ctx context.Context) error {
	nw, err := rb.newTG(ctx)
	if err != nil {
		return err
	}
	allowed := []string{rb.tgARN}
	if nw != "" {
		allowed = append(allowed, nw)
	}
	for _, route := range rb.st.Restore.Routes {
		if err := rb.setRoute(ctx, RollbackRestoreRoutes, route.Resource, route.Weights, allowed, nil); err != nil {
			return err
		}
	}
	return nil
}

// deleteTargetGroup deletes the target group blue/green created, when its
// tags say tgmigrate did.
func (rb *rollbackRun) deleteTargetGroup(ctx context.Context) error {
	arn, err := rb.newTG(ctx)
	if err != nil || arn == "" {
		return err
	}
	tags, err := rb.aws.tags(ctx, arn, false)
	switch {
	case errors.Is(err, awserr.ErrNotFound):
		return nil
	case err != nil:
		return err
	}
	if !isOurs(tags, rb.tgARN) {
		rb.res.Warnings = append(rb.res.Warnings, fmt.Sprintf("target group %s is not tagged %s=%s for this target group: left alone", arn, TagCreatedBy, ManagedBy))
		return nil
	}
	err = rb.aws.deleteTargetGroup(ctx, arn)
	if errors.Is(err, awserr.ErrNotFound) {
		return nil
	}
	return err
}
