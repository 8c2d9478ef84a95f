package campaign

// scheduler.go: the scheduler of one runner: its workers, each taking
// the next action from the campaign journal in one optimistic
// transaction (start an entry that Limits.Admit lets start in the
// current wave, take over one whose runner's Lease may have expired, ask
// a wave's approval, or wait a poll), the error budget, the stops, and
// the journal's writes with their hook.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/textcell"
)

// maxConflicts bounds the retries of one journal write lost to another
// runner's.
const maxConflicts = 50

// errCrashed says the runner's hook stopped it: nothing more is written.
var errCrashed = errors.New("campaign: execute: stopped by the hook")

// actionKind is what a worker does next.
type actionKind int

const (
	actWait actionKind = iota
	actRun
	actApprove
	actDone
)

// action is a worker's next action.
type action struct {
	kind     actionKind
	entry    Entry
	takeover bool // actRun of an entry another runner (or a past run) holds
	wave     int  // actApprove
}

// scheduler is one runner of a plan.
type scheduler struct {
	plan *Plan
	ix   *envIndex
	cfg  execConfig

	mu        sync.Mutex
	mine      map[string]bool      // entries this runner's workers run now, or are about to
	notBefore map[string]time.Time // entries of another holder: probe again after
	asking    bool                 // a worker asks a wave's approval
	waveSeen  map[int]bool
	stop      *StopError
	crashed   bool
	writes    int
	cancel    context.CancelCauseFunc
	calls     map[string]map[string]int // account "id/region" -> operation -> calls
	obsMu     sync.Mutex
	startedAt time.Time
}

func newScheduler(p *Plan, ix *envIndex, cfg execConfig) *scheduler {
	return &scheduler{plan: p, ix: ix, cfg: cfg, mine: map[string]bool{}, notBefore: map[string]time.Time{},
		waveSeen: map[int]bool{}, calls: map[string]map[string]int{}}
}

// execute starts or loads the journal, runs the workers, records a stop
// and returns the result.
func (s *scheduler) execute(ctx context.Context) (*Result, error) {
	s.startedAt = s.ix.clock.Now()
	if err := s.start(ctx); err != nil {
		if errors.Is(err, errCrashed) {
			return nil, s.stopped()
		}
		return nil, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s.cancel = cancel
	worker := func(ctx context.Context) error { s.work(ctx); return nil }
	switch {
	case s.cfg.workers == 1:
		s.work(ctx)
	case s.cfg.parallel != nil:
		fns := make([]func(context.Context) error, s.cfg.workers)
		for i := range fns {
			fns[i] = worker
		}
		if err := s.cfg.parallel(ctx, fns...); err != nil {
			s.halt(StopInterrupted, "the workers failed", err)
		}
	default:
		var wg sync.WaitGroup
		for range s.cfg.workers {
			wg.Go(func() { s.work(ctx) })
		}
		wg.Wait()
	}
	bg := context.WithoutCancel(ctx)
	stop := s.stopped()
	if stop != nil && !s.isCrashed() {
		_ = s.update(bg, func(st *JournalState) (string, string, error) {
			st.Stops = append(st.Stops, Stop{Reason: stop.Reason, By: s.ix.holder, At: s.ix.clock.Now(), Detail: stop.Detail})
			return "stop", "", nil
		})
	}
	res, err := s.result(bg)
	if err != nil {
		return nil, err
	}
	if stop != nil {
		return res, stop
	}
	return res, nil
}

// start loads the journal, or writes the campaign's first state.
func (s *scheduler) start(ctx context.Context) error {
	for range maxConflicts {
		st, _, err := s.ix.env.Journal.Load(ctx)
		if err != nil {
			return err
		}
		if st != nil {
			return st.check(s.plan)
		}
		st = newJournalState(s.plan)
		st.UpdatedAt = s.ix.clock.Now()
		_, err = s.ix.env.Journal.Save(ctx, st, "")
		if errors.Is(err, ErrJournalConflict) {
			continue // another runner started it: load theirs
		}
		if err != nil {
			return err
		}
		return s.written(ctx, "start", "")
	}
	return fmt.Errorf("campaign: execute: %s: %w %d times", s.ix.env.Journal.Where(), ErrJournalConflict, maxConflicts)
}

// update runs fn on a fresh state of the journal and saves it when fn
// names the write (what, and the entry's ARN for an entry's write), retrying a conflict with another runner's write from a fresh
// load; fn may run several times. Nothing is written once the hook
// stopped the runner.
func (s *scheduler) update(ctx context.Context, fn func(*JournalState) (what, arn string, err error)) error {
	for range maxConflicts {
		if s.isCrashed() {
			return errCrashed
		}
		st, ver, err := s.ix.env.Journal.Load(ctx)
		if err != nil {
			return err
		}
		if st == nil {
			return fmt.Errorf("campaign: execute: %s: the journal is gone", s.ix.env.Journal.Where())
		}
		if err := st.check(s.plan); err != nil {
			return err
		}
		what, arn, err := fn(st)
		if err != nil || what == "" {
			return err
		}
		st.UpdatedAt = s.ix.clock.Now()
		_, err = s.ix.env.Journal.Save(ctx, st, ver)
		if errors.Is(err, ErrJournalConflict) {
			continue
		}
		if err != nil {
			return err
		}
		return s.written(ctx, what, arn)
	}
	return fmt.Errorf("campaign: execute: %s: %w %d times", s.ix.env.Journal.Where(), ErrJournalConflict, maxConflicts)
}

// written counts a write and calls the hook; its error crashes the
// runner.
func (s *scheduler) written(ctx context.Context, what, arn string) error {
	s.mu.Lock()
	s.writes++
	n := s.writes
	s.mu.Unlock()
	if s.cfg.hook == nil {
		return nil
	}
	if err := s.cfg.hook(ctx, Event{Write: n, What: what, TargetGroupARN: arn}); err != nil {
		s.mu.Lock()
		s.crashed = true
		s.mu.Unlock()
		s.halt(StopInterrupted, "the hook interrupted the run after "+Event{Write: n, What: what, TargetGroupARN: arn}.String(), err)
		if s.cancel != nil {
			s.cancel(err)
		}
		return errCrashed
	}
	return nil
}

// halt stops the scheduling; the first reason wins.
func (s *scheduler) halt(r StopReason, detail string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop == nil {
		s.stop = &StopError{Reason: r, Detail: detail, Err: err}
	}
}

func (s *scheduler) stopped() *StopError {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stop
}

func (s *scheduler) isCrashed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.crashed
}

// work is one worker: the next action, until there is none.
func (s *scheduler) work(ctx context.Context) {
	for {
		if ctx.Err() != nil {
			if !s.isCrashed() {
				s.halt(StopCancelled, "the context ended", context.Cause(ctx))
			}
			return
		}
		act, err := s.next(ctx)
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, errCrashed) {
				s.halt(StopInterrupted, "the campaign journal failed", err)
			}
			return
		}
		switch act.kind {
		case actDone:
			return
		case actRun:
			s.run(ctx, act.entry, act.takeover)
		case actApprove:
			s.approve(ctx, act.wave)
		case actWait:
			select {
			case <-ctx.Done():
			case <-s.ix.clock.After(s.cfg.poll):
			}
		}
	}
}

// next decides a worker's next action in one transaction of the journal.
func (s *scheduler) next(ctx context.Context) (action, error) {
	var act action
	var stop *StopError
	err := s.update(ctx, func(st *JournalState) (string, string, error) {
		s.unmark(act) // a retry: the attempt before lost its write
		var what string
		act, what, stop = s.decide(st)
		return what, act.entry.TargetGroupARN.Raw, nil
	})
	if err != nil {
		s.unmark(act)
		return action{}, err
	}
	s.mu.Lock()
	if stop != nil && s.stop == nil {
		s.stop = stop
	}
	s.mu.Unlock()
	return act, nil
}

// unmark takes back the mark decide put on an entry to run, when its
// write was lost.
func (s *scheduler) unmark(act action) {
	if act.kind != actRun {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.mine, act.entry.TargetGroupARN.Raw)
}

// decide picks the next action from st and marks it in st; what names the
// write it needs ("" for none).
func (s *scheduler) decide(st *JournalState) (action, string, *StopError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.ix.clock.Now()
	mineRunning := len(s.mine) > 0
	if s.stop != nil {
		return action{kind: actDone}, "", nil
	}
	pending := slices.ContainsFunc(st.Entries, func(e EntryState) bool { return e.Status == StatusPending })
	if f := st.failures(); f > s.cfg.budget && pending {
		detail := fmt.Sprintf("%s, above the error budget of %d", textcell.Plural(f, "entry failed", "entries failed"), s.cfg.budget)
		for i := range st.Entries {
			if st.Entries[i].Status == StatusPending {
				st.Entries[i].Status, st.Entries[i].Reason = StatusSkipped, detail
			}
		}
		return action{kind: actDone}, "skip", &StopError{Reason: StopBudget, Detail: detail}
	}
	w := -1
	for i := range s.plan.Waves {
		if slices.ContainsFunc(s.plan.Waves[i].TargetGroupARNs, func(a tgmigrate.ARN) bool { return !st.entry(a.Raw).Status.terminal() }) {
			w = i
			break
		}
	}
	if w < 0 {
		return action{kind: actDone}, "", nil
	}
	ws := &st.Waves[w]
	if ws.Approval && !ws.Approved {
		if s.asking || mineRunning {
			return action{kind: actWait}, "", nil
		}
		s.asking = true
		return action{kind: actApprove, wave: w}, "", nil
	}
	if !s.waveSeen[w] {
		s.waveSeen[w] = true
		s.observe(func(o Observer) {
			o.WaveStarted(WaveEvent{Index: w, Name: s.plan.Waves[w].Name, Entries: len(s.plan.Waves[w].TargetGroupARNs), At: now})
		})
	}
	var running []Entry
	for _, a := range s.plan.Waves[w].TargetGroupARNs {
		if st.entry(a.Raw).Status == StatusRunning {
			e, _ := s.plan.Entry(a)
			running = append(running, e)
		}
	}
	for _, a := range s.plan.Waves[w].TargetGroupARNs {
		es := st.entry(a.Raw)
		e, _ := s.plan.Entry(a)
		switch es.Status {
		case StatusPending:
			// Another worker's claim of it may be on its way (marked, not
			// yet written): leave it to that worker.
			if s.mine[a.Raw] || s.plan.Limits.Admit(running, e) != "" {
				continue
			}
			es.Status, es.Holder, es.Reason, es.ClaimedAt = StatusRunning, s.ix.holder, "", now
			es.Attempts++
			if es.StartedAt.IsZero() {
				es.StartedAt = now
			}
			s.mine[a.Raw] = true // this worker's, once the claim is written
			return action{kind: actRun, entry: e}, "claim", nil
		case StatusRunning:
			// Another runner's entry (or this runner's, from a past run):
			// once its holder has had the time to take its Lease, the
			// Lease says whether it is alive (run probes it).
			grace := es.ClaimedAt.Add(cutover.DefaultLeaseDuration)
			if s.mine[a.Raw] || now.Before(s.notBefore[a.Raw]) || (es.Holder != s.ix.holder && now.Before(grace)) {
				continue
			}
			s.mine[a.Raw] = true
			return action{kind: actRun, entry: e, takeover: true}, "", nil
		}
	}
	return action{kind: actWait}, "", nil
}

// later makes this runner probe the entry arn again at t at the earliest.
func (s *scheduler) later(arn string, t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.mine, arn)
	if min := s.ix.clock.Now().Add(s.cfg.poll); t.Before(min) {
		t = min
	}
	s.notBefore[arn] = t
}

// approve asks the approval of wave w and records the answer.
func (s *scheduler) approve(ctx context.Context, w int) {
	defer func() {
		s.mu.Lock()
		s.asking = false
		s.mu.Unlock()
	}()
	var err error
	if s.cfg.approval != nil {
		err = s.cfg.approval(ctx, w, s.plan.Waves[w])
	}
	now := s.ix.clock.Now()
	if err != nil {
		s.halt(StopNotApproved, fmt.Sprintf("the approval of %s was refused", s.plan.Waves[w].Name), err)
		_ = s.update(context.WithoutCancel(ctx), func(st *JournalState) (string, string, error) {
			st.Waves[w].Refused = err.Error()
			return "refuse", "", nil
		})
		return
	}
	_ = s.update(context.WithoutCancel(ctx), func(st *JournalState) (string, string, error) {
		if st.Waves[w].Approved {
			return "", "", nil // another runner's approval came first
		}
		st.Waves[w].Approved, st.Waves[w].ApprovedBy, st.Waves[w].ApprovedAt, st.Waves[w].Refused = true, s.ix.holder, now, ""
		return "approve", "", nil
	})
}

// observe calls the observer, one call at a time.
func (s *scheduler) observe(f func(Observer)) {
	if s.cfg.observer == nil {
		return
	}
	s.obsMu.Lock()
	defer s.obsMu.Unlock()
	f(s.cfg.observer)
}
