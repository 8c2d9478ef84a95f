package cutover

// inplace_undo.go holds the in-place strategy's undo: its rollback actions
// in order and their execution, all of them shared with blue/green
// (undo.go, room.go).

import (
	"context"
)

// undo lists the in-place rollback actions: the live nodes registered and
// healthy before the binding is deleted; the health check restored last,
// or first when node targets fail the aligned one (it was aligned after
// their deregistration). When the plan bounded the overlap, the nodes that
// did not fit go in once the binding is gone.
func (inPlace) undo(ri *RestoreInfo) []Step {
	hc := undoStep(RollbackRestoreHealthCheck, "restore the health check")
	acts := []Step{
		undoStep(RollbackRegisterNodes, "register the nodes alive now on the NodePort"),
		undoStep(RollbackWaitNodes, "wait until the node targets are healthy"),
		undoStep(RollbackDeleteBinding, "delete the binding"),
	}
	if ri.Bounded {
		acts = append(acts, undoStep(RollbackRegisterRest, registerRestTitle))
	}
	if ri.HealthCheckFirst {
		return append([]Step{hc}, acts...)
	}
	return append(acts, hc)
}

// restDrains is true: the pod targets drain from the target group the
// nodes that did not fit are registered in.
func (inPlace) restDrains() bool { return true }

// watchOld does nothing: the bound target group is the one that serves.
func (inPlace) watchOld(context.Context, *rollbackRun, *view) error { return nil }

// undoAction runs one of the in-place rollback actions.
func (inPlace) undoAction(ctx context.Context, rb *rollbackRun, id string) error {
	return rb.runShared(ctx, id)
}
