package campaign

// result.go: Execute's Result, from the campaign journal (every runner's
// entries) and this runner's own counts: per entry its outcome, timings,
// cutover summary and failure's disposition; per account the ELBv2 calls
// of this runner's cutovers; the totals; Result.Text and Result.JSON.
// ResultOf makes one from the journal alone (no calls).

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/qstools/tgmigrate/internal/nilcheck"
	"github.com/qstools/tgmigrate/internal/textcell"
)

// ResultSchemaVersion is the version of a Result's JSON.
const ResultSchemaVersion = 1

// Result reports an [Execute]: the campaign as its journal holds it at
// the end of this run (every runner's entries), and this runner's calls.
// It is plain data.
type Result struct {
	// SchemaVersion is [ResultSchemaVersion].
	SchemaVersion int `json:"schemaVersion"`
	// PlanID and PlanDigest are the campaign plan's.
	PlanID     string `json:"planID"`
	PlanDigest string `json:"planDigest"`
	// Holder is this runner.
	Holder string `json:"holder"`
	// Finished says every entry is in an end state; Completed that every
	// runnable one is done.
	Finished  bool `json:"finished"`
	Completed bool `json:"completed"`
	// StartedAt and FinishedAt bound this run, on the injected clock.
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt"`
	// Entries are the plan's entries, in its order.
	Entries []EntryResult `json:"entries"`
	// Waves are the waves and their approvals.
	Waves []WaveState `json:"waves"`
	// Stops are the runs that stopped before the end, as the journal
	// records them.
	Stops []Stop `json:"stops,omitempty"`
	// Calls are this runner's cutovers' ELBv2 calls, per account
	// ("ID/Region") and operation.
	Calls map[string]map[string]int `json:"calls,omitempty"`
	// Totals count the entries by status.
	Totals Totals `json:"totals"`
}

// EntryResult is one entry's outcome.
type EntryResult struct {
	EntryState
	// AccountID and Region are the target group's.
	AccountID string `json:"accountID"`
	Region    string `json:"region"`
	// Seconds is its wall time on the injected clock, from its first
	// start to its end; 0 when it has not ended.
	Seconds float64 `json:"seconds,omitempty"`
}

// Totals count a campaign's entries by status.
type Totals struct {
	// Entries counts every entry of the plan.
	Entries int `json:"entries"`
	// Pending counts the entries not started yet.
	Pending int `json:"pending"`
	// Running counts the entries running, or stopped mid-cutover.
	Running int `json:"running"`
	// Done counts the completed cutovers.
	Done int `json:"done"`
	// Failed counts the failures not rolled back.
	Failed int `json:"failed"`
	// RolledBack counts the failures cutover rolled back.
	RolledBack int `json:"rolledBack"`
	// Blocked counts the entries blocked (in the plan, or by a re-plan).
	Blocked int `json:"blocked"`
	// Skipped counts the entries the error budget left out.
	Skipped int `json:"skipped"`
}

// result reads the journal and makes the result.
func (s *scheduler) result(ctx context.Context) (*Result, error) {
	st, _, err := s.ix.env.Journal.Load(ctx)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, fmt.Errorf("campaign: execute: %s: the journal is gone", s.ix.env.Journal.Where())
	}
	if err := st.check(s.plan); err != nil {
		return nil, err
	}
	r := resultOf(s.plan, st)
	r.Holder, r.StartedAt, r.FinishedAt = s.ix.holder, s.startedAt, s.ix.clock.Now()
	s.mu.Lock()
	if len(s.calls) > 0 {
		r.Calls = map[string]map[string]int{}
		for k, v := range s.calls {
			r.Calls[k] = maps.Clone(v)
		}
	}
	s.mu.Unlock()
	return r, nil
}

// ResultOf makes a campaign's [Result] from its journal alone, for a
// report made later or on another machine: the entries, waves, stops and
// totals as the journal holds them. It has no Holder and no Calls (they
// are a runner's own counts, not in the journal); StartedAt is the
// earliest entry's start and FinishedAt the latest entry's end, or the
// journal's last write while the campaign is not finished (both zero
// when nothing started). An empty journal is a campaign not started:
// every runnable entry pending. A nil plan or journal is an
// [*InputError]; a journal of another plan is [ErrJournalMismatch].
func ResultOf(ctx context.Context, p *Plan, j Journal) (*Result, error) {
	switch {
	case p == nil:
		return nil, &InputError{Op: "result", Field: "plan", Reason: "is nil"}
	case nilcheck.IsNil(j):
		return nil, &InputError{Op: "result", Field: "journal", Reason: nilcheck.Reason(j)}
	}
	st, _, err := j.Load(ctx)
	if err != nil {
		return nil, err
	}
	if st == nil {
		st = newJournalState(p)
	}
	if err := st.check(p); err != nil {
		return nil, err
	}
	r := resultOf(p, st)
	for _, e := range st.Entries {
		if !e.StartedAt.IsZero() && (r.StartedAt.IsZero() || e.StartedAt.Before(r.StartedAt)) {
			r.StartedAt = e.StartedAt
		}
		if e.FinishedAt.After(r.FinishedAt) {
			r.FinishedAt = e.FinishedAt
		}
	}
	if !r.Finished && !r.StartedAt.IsZero() && st.UpdatedAt.After(r.FinishedAt) {
		r.FinishedAt = st.UpdatedAt
	}
	return r, nil
}

// resultOf is the result of the journal state st of p (checked against
// it), without what only a runner knows: its holder, its run's times
// and its calls.
func resultOf(p *Plan, st *JournalState) *Result {
	r := &Result{SchemaVersion: ResultSchemaVersion, PlanID: st.PlanID, PlanDigest: st.PlanDigest, Waves: st.Waves, Stops: st.Stops}
	r.Finished, r.Completed = true, true
	for i, es := range st.Entries {
		e := p.Entries[i]
		er := EntryResult{EntryState: es, AccountID: e.AccountID, Region: e.Region}
		if !es.StartedAt.IsZero() && !es.FinishedAt.IsZero() {
			er.Seconds = es.FinishedAt.Sub(es.StartedAt).Seconds()
		}
		r.Entries = append(r.Entries, er)
		r.Totals.add(es.Status)
		if !es.Status.terminal() {
			r.Finished = false
		}
		if e.Runnable() && es.Status != StatusDone {
			r.Completed = false
		}
	}
	return r
}

// add counts one entry.
func (t *Totals) add(s EntryStatus) {
	t.Entries++
	switch s {
	case StatusPending:
		t.Pending++
	case StatusRunning:
		t.Running++
	case StatusDone:
		t.Done++
	case StatusFailed:
		t.Failed++
	case StatusRolledBack:
		t.RolledBack++
	case StatusBlocked:
		t.Blocked++
	case StatusSkipped:
		t.Skipped++
	}
}

// JSON returns the result as indented JSON.
func (r *Result) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("campaign: result: %w", err)
	}
	return b, nil
}

// Text renders the result for a terminal, every line at most
// [TextColumns] wide: the totals, a row per entry (status, holder,
// timings, cutover time against its floor, the reason or error), the
// waves' approvals, the stops and this runner's calls per account.
func (r *Result) Text() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	t := r.Totals
	state := "not finished"
	switch {
	case r.Completed:
		state = "completed"
	case r.Finished:
		state = "finished"
	}
	w("Campaign %s: %s, run by %s in %s\n", r.PlanID, state, textcell.OrDash(r.Holder), r.FinishedAt.Sub(r.StartedAt))
	w("  %s: %d done, %d failed, %d rolled back, %d blocked, %d skipped, %d running, %d pending\n",
		textcell.Plural(t.Entries, "target group", "target groups"), t.Done, t.Failed, t.RolledBack, t.Blocked, t.Skipped, t.Running, t.Pending)
	rows := [][]string{{"TARGET GROUP", "CLUSTER", "ACCOUNT", "WAVE", "STATUS", "HOLDER", "TIME", "CUTOVER", "WHY"}}
	for _, e := range r.Entries {
		wave := "-"
		if e.Wave >= 0 && e.Wave < len(r.Waves) {
			wave = r.Waves[e.Wave].Name
		}
		took, cut := "-", "-"
		if e.Seconds > 0 {
			took = seconds(int(e.Seconds))
		}
		if c := e.Cutover; c != nil {
			cut = fmt.Sprintf("%s / floor %s", seconds(int(c.CutoverSeconds)), seconds(int(c.FloorSeconds)))
		}
		why := e.Reason
		if e.Error != "" {
			why = e.Disposition + ": " + e.Error
		}
		if e.Replan != nil {
			why = strings.TrimPrefix(why+"; re-planned ("+strings.Join(e.Replan.Changed, ", ")+")", "; ")
		}
		rows = append(rows, []string{e.Name, textcell.OrDash(e.Cluster), e.AccountID, wave, string(e.Status), textcell.OrDash(e.Holder),
			took, cut, textcell.OrDash(textcell.OneLine(why))})
	}
	b.WriteString(indent(textcell.Table(rows, TextColumns-2, 8, 5, 0, 7)))
	for _, ws := range r.Waves {
		switch {
		case ws.Approved:
			w("  %s: approved by %s at %s\n", ws.Name, ws.ApprovedBy, ws.ApprovedAt.UTC().Format(time.RFC3339))
		case ws.Refused != "":
			w("  %s: %s\n", ws.Name, textcell.Truncate("approval refused: "+textcell.OneLine(ws.Refused), TextColumns-2-len(ws.Name)-2))
		}
	}
	for _, st := range r.Stops {
		w("  %s\n", textcell.Truncate(fmt.Sprintf("stopped (%s) by %s at %s: %s", st.Reason, st.By, st.At.UTC().Format(time.RFC3339), textcell.OneLine(st.Detail)), TextColumns-2))
	}
	for _, acct := range slices.Sorted(maps.Keys(r.Calls)) {
		n := 0
		for _, c := range r.Calls[acct] {
			n += c
		}
		w("  account %s: %s by this runner's cutovers\n", acct, textcell.Plural(n, "ELBv2 call", "ELBv2 calls"))
	}
	return b.String()
}
