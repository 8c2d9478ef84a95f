package main

// simulate_measure.go: a run's windows: the instants that bound them
// (runMarks), the row's measure from them, and simWindows, the requests
// of each stretch of the run, in time order.

import (
	"time"

	"github.com/qstools/tgmigrate/internal/sim/traffic"
)

// runMarks are the instants that bound a run's windows.
type runMarks struct {
	// origin is the run's start (its world's warm-up done).
	origin time.Time
	// start is when the migration started: Execute's call for phased
	// (after PlanCutover), the lead-in's end for the others.
	start time.Time
	// holdEnd is the end of Execute's hold-disruption step, the settle's
	// end. Zero: no settle window (static, naive-tgb).
	holdEnd time.Time
	// cutEnd is the migration's end (Execute's return); rbEnd the
	// rollback's (zero: no rollback); end the run's.
	cutEnd, rbEnd, end time.Time
}

// measure fills the row's traffic figures and its windows from the run's
// requests: before (from the run's start to the migration's), settle (to
// the hold step's end; only when there is one), cutover (to its end),
// rollback (when there is one) and after (to the end).
func (o *simOutcome) measure(st traffic.Stats, m runMarks) {
	origin := m.origin
	o.Requests, o.Failed = st.Total, st.Failed
	o.traffic, o.origin = st, origin
	cutStart := m.start
	if !m.holdEnd.IsZero() && !m.holdEnd.Before(m.start) {
		cutStart = m.holdEnd
		settle := windowOf(st, origin, m.start, m.holdEnd)
		o.Windows.Settle = &settle
	}
	o.execFrom, o.cutoverFrom, o.cutoverTo = m.start.Sub(origin), cutStart.Sub(origin), m.cutEnd.Sub(origin)
	o.TotalOutageSeconds, o.DegradedSeconds = float64(st.TotalOutageSeconds), float64(st.DegradedSeconds)
	o.OutageSeconds = o.DegradedSeconds
	// The last request is sent at end itself: the windows reach past it.
	stop := m.end.Add(time.Second)
	o.Windows.Before = windowOf(st, origin, origin, m.start)
	o.Windows.Cutover = windowOf(st, origin, cutStart, m.cutEnd)
	last := m.cutEnd
	if m.rbEnd.After(m.cutEnd) {
		rb := windowOf(st, origin, m.cutEnd, m.rbEnd)
		o.Windows.Rollback = &rb
		last = m.rbEnd
	}
	o.Windows.After = windowOf(st, origin, last, stop)
}

// simWindows are a run's windows: they cover it end to end, one after the
// other, so their requests and failures add up to the run's.
type simWindows struct {
	// Before is the lead-in, until the migration starts: for phased,
	// Execute's call (after PlanCutover); for the others, the lead-in's
	// end.
	Before simWindow `json:"before"`
	// Settle is phased's Execute from its start to the end of its
	// hold-disruption step: Karpenter held, the disruptions under way at
	// Execute's start run out, and the deregistration lag the plan
	// assumes passed since their targets were retired (SettleSeconds).
	// Static and naive-tgb have none.
	Settle *simWindow `json:"settle,omitempty"`
	// Cutover runs from then (from the migration's start when there is no
	// settle) to the migration's end (for static, the plan's floor from
	// the lead-in's end: as long as a cutover would take).
	Cutover simWindow `json:"cutover"`
	// Rollback is the rollback's run (scenario rollback).
	Rollback *simWindow `json:"rollback,omitempty"`
	// Move is step 4's move to private subnets, from the cutover's end
	// (scenario private-subnets).
	Move *simWindow `json:"move,omitempty"`
	// After runs to the end.
	After simWindow `json:"after"`
}

// simWindow is the requests sent in a stretch of the run.
type simWindow struct {
	// FromSeconds and ToSeconds bound it, from the start of the run (its
	// world's warm-up done); whole seconds belong to the window they start
	// in.
	FromSeconds float64 `json:"fromSeconds"`
	ToSeconds   float64 `json:"toSeconds"`
	Requests    int     `json:"requests"`
	Failed      int     `json:"failed"`
	// FailedByKind splits Failed: "502" (refused, or a dead address with
	// no connect timeout), "503" (no target), "504" (a dead address, after
	// the connect timeout) and "misrouted" (another application answered).
	FailedByKind       map[string]int `json:"failedByKind"`
	TotalOutageSeconds int            `json:"totalOutageSeconds"`
	DegradedSeconds    int            `json:"degradedSeconds"`
}

func windowOf(st traffic.Stats, origin, from, to time.Time) simWindow {
	sp := st.Span(from, to)
	return simWindow{
		FromSeconds: from.Sub(origin).Seconds(), ToSeconds: to.Sub(origin).Seconds(),
		Requests: sp.Requests, Failed: sp.Failed, FailedByKind: sp.Kinds.Map(),
		TotalOutageSeconds: sp.TotalOutageSeconds, DegradedSeconds: sp.DegradedSeconds,
	}
}

// all returns the windows in time order.
func (ws simWindows) all() []simWindow {
	out := []simWindow{ws.Before}
	if ws.Settle != nil {
		out = append(out, *ws.Settle)
	}
	out = append(out, ws.Cutover)
	if ws.Rollback != nil {
		out = append(out, *ws.Rollback)
	}
	if ws.Move != nil {
		out = append(out, *ws.Move)
	}
	return append(out, ws.After)
}
