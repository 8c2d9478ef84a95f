package subnets

// rollback.go: Rollback, which writes back the node classes' selection
// and the pools' budgets as the checks read them, and watches the
// replacement back with the move's invariants.

import (
	"context"
	"fmt"
)

const opRollback = "rollback move"

// Rollback undoes a move: it writes each EC2NodeClass's
// subnetSelectorTerms and associatePublicIPAddress back as the plan read
// them, watches the replacement back with the same invariants as the move
// (the nodes that drift back, each target group at or above its floor, no
// target in a zone its load balancers do not enable), then writes each
// NodePool's budgets back as read. It holds the lock and journals each
// action beside the move's steps, so a crashed Rollback resumes; a
// finished one marks the journal rolled back, and Execute then refuses
// the plan.
//
// plan may be nil: the state is then read from the journal given with
// [WithJournal] (Inspect), and its plan is rolled back. Every object is
// checked before any write: a field that is neither as the move wrote it
// nor as it was read is a *[DriftedObjectError], and nothing is written.
func Rollback(ctx context.Context, plan *Plan, env Env, opts ...MoveOption) (*Result, error) {
	if plan == nil {
		p, err := planFromJournal(ctx, opts)
		if err != nil {
			return nil, err
		}
		plan = p
	}
	r, err := start(ctx, opRollback, plan, env, opts)
	if err != nil {
		return nil, err
	}
	actions := []string{ActionRestoreNodeClasses, ActionWatchBack, ActionRestoreBudgets}
	var edits []edit
	for _, id := range actions {
		edits = append(edits, r.editsOf(id)...)
	}
	if r.o.dryRun {
		return r.dryRun(ctx, edits)
	}
	if err := r.refuseOtherPlan(ctx); err != nil {
		return nil, err
	}
	if err := r.preflight(ctx, edits); err != nil {
		return nil, err
	}
	defer r.release()
	if err := r.begin(ctx); err != nil {
		return nil, err
	}
	if r.st.Rollback == nil {
		for _, id := range actions {
			r.st.Rollback = append(r.st.Rollback, StepState{ID: id, Status: StepPending})
		}
		if err := r.save(ctx); err != nil {
			return nil, err
		}
	}
	for _, id := range actions {
		err := r.step(ctx, r.st.Rollback, id, func(ctx context.Context, rec *StepState) error {
			if id == ActionWatchBack {
				return r.watch(ctx, rec, r.rollbackDeparts, r.rollbackLate)
			}
			return r.write(ctx, r.editsOf(id))
		})
		if err != nil {
			return r.result(false), err
		}
	}
	if !r.st.RolledBack {
		r.st.RolledBack = true
		if err := r.save(ctx); err != nil {
			return r.result(false), err
		}
	}
	return r.result(true), nil
}

// planFromJournal reads the plan of the journal given with WithJournal.
func planFromJournal(ctx context.Context, opts []MoveOption) (*Plan, error) {
	var o moveOptions
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	if ctx == nil {
		return nil, &MoveInputError{Op: opRollback, Field: "ctx", Reason: "nil"}
	}
	if o.journal == nil || isNil(o.journal) {
		return nil, &MoveInputError{Op: opRollback, Field: "plan", Reason: "nil: give the plan, or its journal with WithJournal"}
	}
	st, err := o.journal.Inspect(ctx)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, &MoveInputError{Op: opRollback, Field: "plan", Reason: "nil, and the journal is empty: nothing to roll back"}
	}
	p := st.Plan
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("subnets: %s: the journal's plan: %w", opRollback, err)
	}
	return &p, nil
}
