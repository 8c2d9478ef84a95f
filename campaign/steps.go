package campaign

// steps.go: StepTracker, each running entry's current cutover step as
// its cutover observer sees it (StepProgress), put into a Progress
// (StepTracker.Progress, StepTracker.Status) for the live view.

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/nilcheck"
)

// StepProgress is where a running entry's cutover stands, as its
// cutover observer last said: the step, its place in the entry's
// cutover plan, and what it waits for.
type StepProgress struct {
	// ID and Title are the step's (or a rollback action's).
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
	// Index is the step's place in the entry's cutover plan, from 1, of
	// Of steps; 0 when the plan has no such step (a rollback action).
	Index int `json:"index,omitempty"`
	Of    int `json:"of,omitempty"`
	// Finished says the step ended (the next has not started yet);
	// Skipped that it was done by an earlier run; Failed that it failed.
	Finished bool `json:"finished,omitempty"`
	Skipped  bool `json:"skipped,omitempty"`
	Failed   bool `json:"failed,omitempty"`
	// At is when it started, or ended when Finished, on the cutover's
	// clock.
	At time.Time `json:"at"`
	// Waiting is what the step waits for (cutover's Wait.What), Until
	// when it expects to be done, zero when unknown; both empty when it
	// does not wait.
	Waiting string    `json:"waiting,omitempty"`
	Until   time.Time `json:"until,omitzero"`
}

// String is the step in a few words: "gate (4 of 8)", "gate done (4 of
// 8)", "delete-binding failed".
func (s StepProgress) String() string {
	out := s.ID
	switch {
	case s.Failed:
		out += " failed"
	case s.Skipped:
		out += " already done"
	case s.Finished:
		out += " done"
	}
	if s.Index > 0 {
		out += fmt.Sprintf(" (%d of %d)", s.Index, s.Of)
	}
	return out
}

// StepTracker follows each running entry's cutover step, for a
// [Progress] that names it. Give [StepTracker.Options] to Execute
// through [WithCutoverOptions] (or [StepTracker.Observer] in options of
// your own); read with [StepTracker.Status] or [StepTracker.Progress].
// It is safe for concurrent use (the entries' workers call its
// observers at once). The zero value is ready to use, as is
// [NewStepTracker]'s.
type StepTracker struct {
	mu      sync.Mutex
	entries map[string]*trackedEntry
}

// trackedEntry is one entry's run as the tracker saw it.
type trackedEntry struct {
	steps []cutover.Step // the entry's cutover plan's
	step  *StepProgress  // nil before its first step event
}

// NewStepTracker returns a tracker that follows nothing yet.
func NewStepTracker() *StepTracker {
	return &StepTracker{entries: map[string]*trackedEntry{}}
}

// Options returns the cutover options that follow entry e's run:
// cutover.WithObserver of [StepTracker.Observer](e, also...). cutover
// keeps one observer, so give yours in also rather than as another
// WithObserver. Use it in the function given to [WithCutoverOptions],
// with options of your own:
//
//	campaign.WithCutoverOptions(func(e campaign.Entry) []cutover.Option {
//		return append(tr.Options(e, mine), cutover.WithRetry(policy))
//	})
func (t *StepTracker) Options(e Entry, also ...cutover.Observer) []cutover.Option {
	return []cutover.Option{cutover.WithObserver(t.Observer(e, also...))}
}

// Observer returns the cutover observer of entry e's run: it records
// each step event and each Wait of the step under way, then passes the
// event to each of also, in order (nil ones skipped). Each call starts
// e's record afresh.
func (t *StepTracker) Observer(e Entry, also ...cutover.Observer) cutover.Observer {
	arn := e.TargetGroupARN.Raw
	te := &trackedEntry{}
	if e.Plan != nil {
		te.steps = e.Plan.Steps
	}
	t.mu.Lock()
	if t.entries == nil {
		t.entries = map[string]*trackedEntry{}
	}
	t.entries[arn] = te
	t.mu.Unlock()
	var next []cutover.Observer
	for _, o := range also {
		if !nilcheck.IsNil(o) {
			next = append(next, o)
		}
	}
	return trackerObserver{t: t, te: te, next: next}
}

// Step returns the last step seen of the entry whose target group's ARN
// is arn (EntryProgress.TargetGroupARN); false when none was seen. An
// observer given to [StepTracker.Observer] sees the step of the event it
// is told of.
func (t *StepTracker) Step(arn string) (StepProgress, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	te := t.entries[arn]
	if te == nil || te.step == nil {
		return StepProgress{}, false
	}
	return *te.step, true
}

// Progress is [ProgressOf] with each running entry's step
// (EntryProgress.Step) as the tracker last saw it. The ETA is
// ProgressOf's.
func (t *StepTracker) Progress(p *Plan, st *JournalState, at time.Time) (*Progress, error) {
	pr, err := ProgressOf(p, st, at)
	if err != nil {
		return nil, err
	}
	for w := range pr.Waves {
		t.annotate(pr.Waves[w].Entries)
	}
	return pr, nil
}

// Status is [Status] with each running entry's step, as
// [StepTracker.Progress].
func (t *StepTracker) Status(ctx context.Context, p *Plan, j Journal, at time.Time) (*Progress, error) {
	switch {
	case p == nil:
		return nil, &InputError{Op: "status", Field: "plan", Reason: "is nil"}
	case nilcheck.IsNil(j):
		return nil, &InputError{Op: "status", Field: "journal", Reason: nilcheck.Reason(j)}
	}
	st, _, err := j.Load(ctx)
	if err != nil {
		return nil, err
	}
	return t.Progress(p, st, at)
}

// annotate sets the step of each running entry of es.
func (t *StepTracker) annotate(es []EntryProgress) {
	for i := range es {
		if es[i].Status != StatusRunning {
			continue
		}
		if s, ok := t.Step(es[i].TargetGroupARN); ok {
			es[i].Step = &s
		}
	}
}

// trackerObserver is one entry's cutover observer: it records into te,
// then tells next.
type trackerObserver struct {
	t    *StepTracker
	te   *trackedEntry
	next []cutover.Observer
}

// set replaces the entry's step with one for s.
func (o trackerObserver) set(ev cutover.StepEvent, finished bool) {
	s := &StepProgress{ID: ev.Step.ID, Title: ev.Step.Title, At: ev.At, Finished: finished,
		Skipped: finished && ev.Skipped, Failed: finished && ev.Err != nil}
	for i, ps := range o.te.steps {
		if ps.ID == ev.Step.ID {
			s.Index, s.Of = i+1, len(o.te.steps)
			break
		}
	}
	o.t.mu.Lock()
	o.te.step = s
	o.t.mu.Unlock()
}

// StepStarted implements cutover.Observer.
func (o trackerObserver) StepStarted(ev cutover.StepEvent) {
	o.set(ev, false)
	for _, n := range o.next {
		n.StepStarted(ev)
	}
}

// StepFinished implements cutover.Observer.
func (o trackerObserver) StepFinished(ev cutover.StepEvent) {
	o.set(ev, true)
	for _, n := range o.next {
		n.StepFinished(ev)
	}
}

// Targets implements cutover.Observer: the tracker keeps no count.
func (o trackerObserver) Targets(p cutover.Progress) {
	for _, n := range o.next {
		n.Targets(p)
	}
}

// Waiting implements cutover.Observer: the wait goes on the entry's step
// when it is that step's.
func (o trackerObserver) Waiting(w cutover.Wait) {
	o.t.mu.Lock()
	if s := o.te.step; s != nil && s.ID == w.Step && !s.Finished {
		s.Waiting, s.Until = w.What, w.Until
	}
	o.t.mu.Unlock()
	for _, n := range o.next {
		n.Waiting(w)
	}
}
