package main

// migrate.go: run, the work of guardedmigration: PlanCutover, the plan
// shown, Execute with the approval callback, Rollback on a failure that
// calls for one (cutover.ShouldRollback).

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/qstools/tgmigrate/cutover"
)

// The exit codes, tgmigrate's (see the package comment).
const (
	exitCompleted = 0
	exitRefused   = 1
	exitUsage     = 2
	exitFailed    = 3
)

// run plans req, shows the plan on out, executes it asking approve before
// each phase, and rolls it back when Execute fails (exitFailed either way:
// out says whether the rollback completed). opts go to Execute and
// Rollback (a journal, a lock, a test's hook).
func run(ctx context.Context, env cutover.Env, req cutover.Request, approve cutover.ApprovalFunc, out io.Writer, opts ...cutover.Option) int {
	plan, err := cutover.PlanCutover(ctx, env, req)
	if err != nil {
		fmt.Fprintf(out, "no plan: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(out, "plan %s: %s, %s, at least %s\n", plan.ID, plan.TargetGroup.Name, plan.Strategy,
		time.Duration(plan.Estimate.FloorSeconds)*time.Second)
	for _, s := range plan.Steps {
		fmt.Fprintf(out, "  [%s] %s: %s\n", s.Phase, s.ID, s.Title)
	}
	// Our own Rollback below, after a report, rather than Execute's.
	execOpts := append([]cutover.Option{cutover.WithApproval(approve), cutover.WithAutoRollback(false)}, opts...)
	res, err := cutover.Execute(ctx, env, plan, execOpts...)
	switch {
	case err == nil && res.Completed:
		fmt.Fprintf(out, "completed in %.0fs (floor %.0fs)\n", res.CutoverSeconds, res.FloorSeconds)
		return exitCompleted
	case cutover.IsNotApproved(err):
		fmt.Fprintf(out, "stopped: %v\nnothing of the refused phase ran; run again to resume\n", err)
		return exitRefused
	case err == nil:
		fmt.Fprintf(out, "stopped before the end (%s); run again to resume\n", res.StoppedAfter)
		return exitRefused
	}
	if !cutover.ShouldRollback(err) {
		// Nothing this run changed calls for a rollback: refused before
		// any change, interrupted (resume), or someone else acts.
		fmt.Fprintf(out, "execute failed: %v\nnot rolled back (%s)\n", err, cutover.Classify(err))
		return exitFailed
	}
	fmt.Fprintf(out, "execute failed: %v\nrolling back (an interrupt is safe: run again, it resumes from the journal)\n", err)
	rb, rerr := cutover.Rollback(ctx, env, plan, opts...)
	if rerr != nil || !rb.Completed {
		fmt.Fprintf(out, "rollback did not complete: %v; run again to resume it\n", rerr)
		return exitFailed
	}
	fmt.Fprintf(out, "rolled back: %d node targets registered\n", len(rb.Registered))
	return exitFailed
}
