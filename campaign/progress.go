package campaign

// progress.go: where a campaign stands, from its journal (Progress:
// per wave its approval and its entries' counts, the totals, the ETA by
// the plan's own estimates through estimate.go's list scheduling),
// ProgressOf, Status and Progress.JSON.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/qstools/tgmigrate/internal/nilcheck"
)

// ProgressSchemaVersion is the version of a Progress's JSON.
const ProgressSchemaVersion = 1

// ETABasis says what every [Progress] ETA rests on.
const ETABasis = "the plan's per-entry estimates (each cutover plan's floor), not a measurement: the entries not ended, scheduled as EstimateOf schedules them (the waves in sequence, approvals taking no time; within a wave, list scheduling under Limits.Admit), each running one for what its estimate leaves after its start"

// ApprovalState is where a wave's approval stands.
type ApprovalState string

// The approval states of a wave.
const (
	// ApprovalNone: the plan puts no approval before the wave (the
	// first).
	ApprovalNone ApprovalState = "none"
	// ApprovalWaiting: not given yet (asked once the wave before ends).
	ApprovalWaiting ApprovalState = "waiting"
	// ApprovalApproved: given (WaveProgress.ApprovedBy).
	ApprovalApproved ApprovalState = "approved"
	// ApprovalRefused: refused (WaveProgress.Refused); a later Execute
	// asks again.
	ApprovalRefused ApprovalState = "refused"
)

// Progress is where a campaign stands, as its journal says at At: per
// wave its approval and its entries, the totals, and the ETA. It is
// plain data; [Progress.Text] is the live view, [Progress.JSON] the
// document.
//
// The ETA is an estimate from the plan's per-entry estimates (each
// cutover plan's floor, Entry.Seconds), not a measurement: what is not
// ended yet, scheduled by the same list scheduling as [EstimateOf] (the
// waves in sequence, approvals taking no time; within a wave, under
// [Limits.Admit]), each running entry for what its estimate leaves
// after its StartedAt (none when it has run longer), from At.
type Progress struct {
	// SchemaVersion is [ProgressSchemaVersion].
	SchemaVersion int `json:"schemaVersion"`
	// PlanID and PlanDigest are the campaign plan's.
	PlanID     string `json:"planID"`
	PlanDigest string `json:"planDigest"`
	// At is when the journal was read, on the injected clock.
	At time.Time `json:"at"`
	// Started says the journal exists: a runner started the campaign.
	Started bool `json:"started"`
	// UpdatedAt is the journal's last write; zero when not started.
	UpdatedAt time.Time `json:"updatedAt,omitzero"`
	// Finished says every entry is in an end state; Completed that every
	// runnable one is done.
	Finished  bool `json:"finished"`
	Completed bool `json:"completed"`
	// CurrentWave is the index of the first wave with an entry not
	// ended; -1 when every wave has ended.
	CurrentWave int `json:"currentWave"`
	// Waves are the plan's waves, in order.
	Waves []WaveProgress `json:"waves"`
	// Blocked are the entries blocked in the plan (in no wave).
	Blocked []EntryProgress `json:"blocked,omitempty"`
	// Totals count every entry by status.
	Totals Totals `json:"totals"`
	// ETASeconds is the time left, by the plan's estimates (see the type's
	// comment); 0 once finished.
	ETASeconds int `json:"etaSeconds"`
	// ETA is At plus ETASeconds: when the campaign is expected to end.
	ETA time.Time `json:"eta"`
	// ETABasis is [ETABasis].
	ETABasis string `json:"etaBasis"`
	// Stops are the runs that stopped before the end, as the journal
	// records them.
	Stops []Stop `json:"stops,omitempty"`
}

// WaveProgress is one wave of a [Progress].
type WaveProgress struct {
	// Index and Name are the wave's; Canary says it is the canary wave.
	Index  int    `json:"index"`
	Name   string `json:"name"`
	Canary bool   `json:"canary,omitempty"`
	// Approval is where its approval stands; ApprovedBy, ApprovedAt and
	// Refused are the journal's.
	Approval   ApprovalState `json:"approval"`
	ApprovedBy string        `json:"approvedBy,omitempty"`
	ApprovedAt time.Time     `json:"approvedAt,omitzero"`
	Refused    string        `json:"refused,omitempty"`
	// Counts count its entries by status (Pending: waiting).
	Counts Totals `json:"counts"`
	// Entries are its entries, in the wave's order.
	Entries []EntryProgress `json:"entries"`
}

// EntryProgress is one entry of a [Progress].
type EntryProgress struct {
	// TargetGroupARN, Name, Cluster, AccountID and Region identify it.
	TargetGroupARN string `json:"targetGroupARN"`
	Name           string `json:"name"`
	Cluster        string `json:"cluster,omitempty"`
	AccountID      string `json:"accountID"`
	Region         string `json:"region"`
	// Status is where it stands; Holder the runner that runs it or last
	// ran it; Attempts its cutover runs.
	Status   EntryStatus `json:"status"`
	Holder   string      `json:"holder,omitempty"`
	Attempts int         `json:"attempts,omitempty"`
	// Since is when it came to its status: its claim (running), its end
	// (done, failed, rolled back, blocked by a re-plan); zero otherwise.
	Since time.Time `json:"since,omitzero"`
	// Reason says why it is blocked, skipped or failed (the failure's
	// disposition and error), or how its run stopped.
	Reason string `json:"reason,omitempty"`
	// Next is the next call for a blocked entry (diagnose's, from the
	// plan's Entry.Blocked.Next), as its operation and reason.
	Next string `json:"next,omitempty"`
	// EstimateSeconds is its cutover's expected floor (Entry.Seconds);
	// LeftSeconds, for a running one, what that leaves after its start.
	EstimateSeconds int `json:"estimateSeconds,omitempty"`
	LeftSeconds     int `json:"leftSeconds,omitempty"`
	// Step is a running entry's current cutover step and what it waits
	// for, as a [StepTracker] saw it ([StepTracker.Progress]); nil from
	// the journal alone.
	Step *StepProgress `json:"step,omitempty"`
}

// ProgressOf says where the campaign of p stands by its journal state st
// (nil: nothing started), read at at. A nil plan is an [*InputError]; a
// state of another plan an error wrapping [ErrJournalMismatch]. It reads
// no clock.
func ProgressOf(p *Plan, st *JournalState, at time.Time) (*Progress, error) {
	if p == nil {
		return nil, &InputError{Op: "progress", Field: "plan", Reason: "is nil"}
	}
	pr := &Progress{SchemaVersion: ProgressSchemaVersion, PlanID: p.ID, PlanDigest: p.Digest, At: at, CurrentWave: -1, ETABasis: ETABasis}
	if st == nil {
		st = newJournalState(p)
	} else {
		if err := st.check(p); err != nil {
			return nil, err
		}
		pr.Started, pr.UpdatedAt, pr.Stops = true, st.UpdatedAt, st.Stops
	}
	pr.Finished, pr.Completed = true, true
	for w, wave := range p.Waves {
		ws := st.Waves[w]
		wp := WaveProgress{Index: w, Name: wave.Name, Canary: wave.Canary, Approval: ApprovalNone,
			ApprovedBy: ws.ApprovedBy, ApprovedAt: ws.ApprovedAt, Refused: ws.Refused}
		switch {
		case ws.Approved:
			wp.Approval = ApprovalApproved
		case ws.Refused != "":
			wp.Approval = ApprovalRefused
		case wave.Approval:
			wp.Approval = ApprovalWaiting
		}
		for _, a := range wave.TargetGroupARNs {
			i := p.index(a)
			ep := entryProgress(p.Entries[i], st.Entries[i], at)
			wp.Counts.add(ep.Status)
			if !ep.Status.terminal() && pr.CurrentWave < 0 {
				pr.CurrentWave = w
			}
			wp.Entries = append(wp.Entries, ep)
		}
		pr.Waves = append(pr.Waves, wp)
	}
	for i, e := range p.Entries {
		es := st.Entries[i]
		pr.Totals.add(es.Status)
		if !es.Status.terminal() {
			pr.Finished = false
		}
		if e.Runnable() && es.Status != StatusDone {
			pr.Completed = false
		}
		if e.Wave < 0 || e.Wave >= len(p.Waves) {
			pr.Blocked = append(pr.Blocked, entryProgress(e, es, at))
		}
	}
	pr.ETASeconds = remaining(p, st, at)
	pr.ETA = at.Add(time.Duration(pr.ETASeconds) * time.Second)
	return pr, nil
}

// entryProgress is one entry's line of a progress.
func entryProgress(e Entry, es EntryState, at time.Time) EntryProgress {
	ep := EntryProgress{TargetGroupARN: es.TargetGroupARN, Name: es.Name, Cluster: es.Cluster, AccountID: e.AccountID, Region: e.Region,
		Status: es.Status, Holder: es.Holder, Attempts: es.Attempts, Reason: es.Reason, EstimateSeconds: e.Seconds}
	switch es.Status {
	case StatusRunning:
		ep.Since = es.ClaimedAt
		if ep.Since.IsZero() {
			ep.Since = es.StartedAt
		}
		ep.LeftSeconds = left(e, es, at)
	case StatusDone, StatusFailed, StatusRolledBack, StatusBlocked:
		ep.Since = es.FinishedAt
	}
	if es.Error != "" {
		ep.Reason = es.Disposition + ": " + es.Error
	}
	if b := e.Blocked; b != nil {
		if ep.Reason == "" {
			ep.Reason = string(b.Reason) + ": " + b.Detail
		}
		if es.Status == StatusBlocked && b.Error != "" && !strings.Contains(ep.Reason, b.Error) {
			ep.Reason += ": " + b.Error
		}
		if b.Next != nil {
			ep.Next = string(b.Next.Op)
			if b.Next.Reason != "" {
				ep.Next += ": " + b.Next.Reason
			}
		}
	}
	return ep
}

// left is what a running entry's estimate leaves after its start, at at:
// 0 when it has run longer.
func left(e Entry, es EntryState, at time.Time) int {
	if es.StartedAt.IsZero() {
		return e.Seconds
	}
	return max(0, e.Seconds-int(at.Sub(es.StartedAt)/time.Second))
}

// remaining is the time left to the campaign's end, in seconds, by the
// plan's estimates: each wave with an entry not ended, in order, through
// schedule (EstimateOf's list scheduling), its running entries holding
// their places for what their estimates leave.
func remaining(p *Plan, st *JournalState, at time.Time) int {
	t := 0
	for w, wave := range p.Waves {
		var running []busy
		var pending []Entry
		for _, a := range wave.TargetGroupARNs {
			i := p.index(a)
			e, es := p.Entries[i], st.Entries[i]
			switch es.Status {
			case StatusPending:
				pending = append(pending, e)
			case StatusRunning:
				running = append(running, busy{e, t + left(e, es, at)})
			}
		}
		if len(running) == 0 && len(pending) == 0 {
			continue
		}
		_, t = schedule(running, pending, p.Limits, w, t)
	}
	return t
}

// Status loads the campaign journal j and says where the campaign of p
// stands at at ([ProgressOf]). A nil plan or journal is an
// [*InputError]; a journal of another plan an error wrapping
// [ErrJournalMismatch]; an empty journal a campaign not started.
func Status(ctx context.Context, p *Plan, j Journal, at time.Time) (*Progress, error) {
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
	return ProgressOf(p, st, at)
}

// JSON returns the progress as indented JSON.
func (pr *Progress) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(pr, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("campaign: progress: %w", err)
	}
	return b, nil
}
