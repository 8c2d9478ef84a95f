package campaign

// runner.go: one entry's run by this runner: its Lease probed when it
// takes an entry over, its cutover resumed from its own journal or, when
// none holds it, its plan made again and compared (a stale plan is
// re-planned, or the entry blocked when the new plan no longer fits the
// approved campaign), cutover.Execute, and the outcome recorded in the
// campaign journal by cutover.Classify.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/qstools/tgmigrate/cutover"
)

// run runs the entry e: a claimed one (pending until now), or one to
// take over (running in the journal, by another runner or a past run).
func (s *scheduler) run(ctx context.Context, e Entry, takeover bool) {
	arn := e.TargetGroupARN.Raw
	env := s.ix.cutoverEnv(e)
	ns := e.Plan.Binding.Namespace
	lock, err := cutover.NewLeaseLock(env.Client, cutover.LeaseLockOptions{Namespace: ns, TargetGroupARN: e.TargetGroupARN, Holder: s.ix.holder, Clock: s.ix.clock})
	if err != nil {
		s.finish(ctx, e, nil, err)
		return
	}
	if takeover {
		if err := lock.Acquire(ctx); err != nil {
			// Another runner holds it (or races for it): come back once its
			// Lease may have expired.
			t := s.ix.clock.Now()
			if le, ok := errors.AsType[*cutover.LockedError](err); ok {
				t = le.Expires
			}
			s.later(arn, t)
			return
		}
		gone := false
		err := s.update(ctx, func(st *JournalState) (string, string, error) {
			es := st.entry(arn)
			if gone = es.Status != StatusRunning; gone {
				return "", "", nil // its holder ended it meanwhile
			}
			if es.Holder != s.ix.holder {
				es.Reason = "taken over from " + es.Holder + " once its Lease expired"
			}
			es.Holder, es.ClaimedAt = s.ix.holder, s.ix.clock.Now()
			es.Attempts++
			return "take-over", arn, nil
		})
		if err != nil || gone {
			s.release(lock)
			s.done(arn)
			return
		}
	}
	s.ix.env.Logger.Info("campaign entry started", "plan", s.plan.ID, "targetGroup", arn, "takeover", takeover)
	s.observe(func(o Observer) {
		o.EntryStarted(EntryEvent{TargetGroupARN: e.TargetGroupARN, Name: e.Name, Cluster: e.Cluster, Wave: e.Wave,
			Status: StatusRunning, TakenOver: takeover, At: s.ix.clock.Now()})
	})
	var opts []cutover.Option
	if s.cfg.cutover != nil {
		opts = append(opts, s.cfg.cutover(e)...)
	}
	opts = append(opts, cutover.WithLock(lock), cutover.WithAcceptPreconditions(s.plan.Accepted...))
	cj, err := cutover.NewConfigMapJournal(env.Client, cutover.ConfigMapJournalOptions{Namespace: ns, TargetGroupARN: e.TargetGroupARN, Clock: s.ix.clock})
	if err != nil {
		s.finish(ctx, e, nil, err)
		return
	}
	st, err := cj.Inspect(ctx)
	switch {
	case err == nil && st.Plan.ID == e.Plan.ID:
		// Its cutover began (this plan, or its re-plan): go on from its
		// own journal.
		res, err := cutover.Resume(ctx, env, cj, opts...)
		s.finish(ctx, e, res, err)
		return
	case err != nil && !cutover.IsNoJournal(err):
		s.finish(ctx, e, nil, err)
		return
	}
	plan, rp, block, err := s.replan(ctx, env, e)
	switch {
	case err != nil:
		s.finish(ctx, e, nil, err)
		return
	case block != "":
		s.blocked(ctx, e, lock, block)
		return
	case rp != nil:
		if err := s.update(ctx, func(st *JournalState) (string, string, error) {
			st.entry(arn).Replan = rp
			return "replan", arn, nil
		}); err != nil {
			s.release(lock)
			s.later(arn, s.ix.clock.Now())
			return
		}
	}
	res, err := cutover.Execute(ctx, env, plan, opts...)
	s.finish(ctx, e, res, err)
}

// replan makes e's cutover plan again with its request. It returns the
// plan to run: e's own when nothing that matters changed; the new one,
// with its record, when the plan was stale and the new one fits the
// approved campaign; else block says why it does not. err is a cancelled
// context.
func (s *scheduler) replan(ctx context.Context, env cutover.Env, e Entry) (*cutover.Plan, *Replan, string, error) {
	np, err := cutover.PlanCutover(ctx, env, e.Plan.Request)
	if ctx.Err() != nil {
		return nil, nil, "", fmt.Errorf("campaign: execute: re-plan %s: %w", e.Name, context.Cause(ctx))
	}
	if err != nil {
		return nil, nil, "its cutover plan could not be made again: " + err.Error(), nil
	}
	changed := stale(e.Plan, np)
	if len(changed) == 0 {
		return e.Plan, nil, "", nil
	}
	switch {
	case np.TargetGroup.ARN.Raw != e.Plan.TargetGroup.ARN.Raw:
		return nil, nil, "its re-plan names another target group: no longer the approved campaign", nil
	case np.Strategy != e.Plan.Strategy:
		return nil, nil, fmt.Sprintf("its re-plan chose strategy %s, the approved plan %s: no longer the approved campaign", np.Strategy, e.Plan.Strategy), nil
	case np.Binding.Namespace != e.Plan.Binding.Namespace || np.Service.Name != e.Plan.Service.Name:
		return nil, nil, "its re-plan binds another Service: no longer the approved campaign", nil
	}
	for _, pc := range np.Preconditions {
		if !slices.Contains(s.plan.Accepted, pc.Kind) {
			return nil, nil, fmt.Sprintf("its re-plan has a precondition the campaign does not accept: %s: %s", pc.Kind, pc.Reason), nil
		}
	}
	return np, &Replan{At: s.ix.clock.Now(), By: s.ix.holder, PlanID: np.ID, Digest: np.Digest, Changed: changed}, "", nil
}

// stale returns what differs between the approved plan a and the new one
// b in what a run rests on: the strategy, the binding, the health check,
// the targets it deregisters and leaves, the floor, the quota's count,
// the blue/green part and the preconditions. Times, the estimate and the
// warnings are not compared.
func stale(a, b *cutover.Plan) []string {
	parts := []struct {
		name string
		x, y any
	}{
		{"strategy", a.Strategy, b.Strategy},
		{"binding", a.Binding, b.Binding},
		{"health check", a.HealthCheck, b.HealthCheck},
		{"recorded targets", a.Recorded, b.Recorded},
		{"other targets", a.Others, b.Others},
		{"floor", a.Floor, b.Floor},
		{"quota", a.Quota, b.Quota},
		{"blue/green", a.BlueGreen, b.BlueGreen},
		{"preconditions", a.Preconditions, b.Preconditions},
	}
	var out []string
	for _, p := range parts {
		x, _ := json.Marshal(p.x)
		y, _ := json.Marshal(p.y)
		if string(x) != string(y) {
			out = append(out, p.name)
		}
	}
	return out
}

// blocked records e blocked by its re-plan.
func (s *scheduler) blocked(ctx context.Context, e Entry, lock *cutover.LeaseLock, reason string) {
	arn := e.TargetGroupARN.Raw
	now := s.ix.clock.Now()
	err := s.update(context.WithoutCancel(ctx), func(st *JournalState) (string, string, error) {
		es := st.entry(arn)
		es.Status, es.Reason, es.FinishedAt = StatusBlocked, reason, now
		return "block", arn, nil
	})
	s.release(lock)
	s.done(arn)
	if err == nil {
		s.observe(func(o Observer) {
			o.EntryFinished(EntryEvent{TargetGroupARN: e.TargetGroupARN, Name: e.Name, Cluster: e.Cluster, Wave: e.Wave, Status: StatusBlocked, Error: reason, At: now})
		})
	}
}

// finish records the outcome of e's cutover run.
func (s *scheduler) finish(ctx context.Context, e Entry, res *cutover.Result, err error) {
	arn := e.TargetGroupARN.Raw
	now := s.ix.clock.Now()
	s.count(e, res)
	status, disposition := StatusDone, ""
	switch d := cutover.Classify(err); {
	case err == nil && res != nil && res.Completed:
	case d == cutover.DispositionHandsOff:
		// Another runner holds it: come back once its Lease may expire.
		t := now
		if le, ok := errors.AsType[*cutover.LockedError](err); ok {
			t = le.Expires
		}
		s.later(arn, t)
		return
	case err == nil || d == cutover.DispositionResume:
		// Stopped without a failed step: resumable from its journal.
		status = StatusRunning
		why := "stopped before its end"
		if err != nil {
			why = "stopped: " + err.Error()
		}
		if ctx.Err() == nil && !s.isCrashed() {
			s.halt(StopInterrupted, fmt.Sprintf("the cutover of %s stopped without a failed step", e.Name), err)
		}
		_ = s.update(context.WithoutCancel(ctx), func(st *JournalState) (string, string, error) {
			st.entry(arn).Reason = why
			return "interrupt", arn, nil
		})
		s.done(arn)
		s.observe(func(o Observer) {
			o.EntryFinished(EntryEvent{TargetGroupARN: e.TargetGroupARN, Name: e.Name, Cluster: e.Cluster, Wave: e.Wave, Status: StatusRunning, Error: why, At: now})
		})
		return
	case res != nil && res.RolledBack, errors.Is(err, cutover.ErrRolledBack) && d == cutover.DispositionRefused:
		status, disposition = StatusRolledBack, d.String()
	default:
		status, disposition = StatusFailed, d.String()
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	_ = s.update(context.WithoutCancel(ctx), func(st *JournalState) (string, string, error) {
		es := st.entry(arn)
		es.Status, es.Disposition, es.Error, es.FinishedAt, es.Holder = status, disposition, msg, now, s.ix.holder
		if strings.HasPrefix(es.Reason, "stopped") {
			es.Reason = "" // it went on and ended; a take-over's note stays
		}
		if sum := summarize(res); sum != nil {
			es.Cutover = sum
		}
		return "finish", arn, nil
	})
	s.done(arn)
	s.observe(func(o Observer) {
		o.EntryFinished(EntryEvent{TargetGroupARN: e.TargetGroupARN, Name: e.Name, Cluster: e.Cluster, Wave: e.Wave, Status: status, Error: msg, At: now})
	})
	s.ix.env.Logger.Info("campaign entry finished", "plan", s.plan.ID, "targetGroup", arn, "status", string(status), "disposition", disposition)
}

// release gives an entry's Lease back when no cutover ran under it (an
// error: it was not held, or another took it).
func (s *scheduler) release(lock *cutover.LeaseLock) {
	_ = lock.Release(context.Background())
}

// done says no worker of this runner runs arn any more.
func (s *scheduler) done(arn string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.mine, arn)
}

// count adds res's ELBv2 calls to e's account.
func (s *scheduler) count(e Entry, res *cutover.Result) {
	if res == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := s.ix.account[e.Cluster]
	if s.calls[key] == nil {
		s.calls[key] = map[string]int{}
	}
	for op, n := range res.Calls {
		s.calls[key][op] += n
	}
}
