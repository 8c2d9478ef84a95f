package traffic

// stats.go: Stats: totals, failures by outcome, per-second counts, outage
// windows.

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Second counts the requests sent in one second of virtual time.
type Second struct {
	// Start is the beginning of the second.
	Start time.Time
	// Requests = Served + Failed.
	Requests int
	Served   int
	Failed   int
	// NoTarget, TargetFailed and Other split Failed by outcome
	// (TargetFailed: TargetFailed and TargetTimeout; Other: ErrorResponse,
	// NoRoute and Misrouted).
	NoTarget     int
	TargetFailed int
	Other        int
	// Status502, Status503, Status504, Misrouted and OtherStatus split
	// Failed by what the client saw: the load balancer's status, or an
	// answer from the wrong application (a fixed response's other 5XX
	// in OtherStatus).
	Status502, Status503, Status504, Misrouted, OtherStatus int
}

// Kinds splits a count of failed requests by what the client saw.
type Kinds struct {
	// Status502: a refused connection (or a dead address with no connect
	// timeout); Status503: no target to send it to; Status504: a dead
	// address, after the connect timeout; Misrouted: another application
	// answered; Other: a fixed response's other 5XX.
	Status502, Status503, Status504, Misrouted, Other int
}

func (k *Kinds) add(s Second) {
	k.Status502 += s.Status502
	k.Status503 += s.Status503
	k.Status504 += s.Status504
	k.Misrouted += s.Misrouted
	k.Other += s.OtherStatus
}

// Map returns the kinds as a map keyed "502", "503", "504", "misrouted"
// (and "other" when there was any), for reports.
func (k Kinds) Map() map[string]int {
	m := map[string]int{"502": k.Status502, "503": k.Status503, "504": k.Status504, "misrouted": k.Misrouted}
	if k.Other > 0 {
		m["other"] = k.Other
	}
	return m
}

// Span summarises the requests sent in a stretch of time.
type Span struct {
	// From and To bound it: the requests sent at or after From and before
	// To.
	From, To time.Time
	// Requests, Failed and Kinds count its requests.
	Requests, Failed int
	Kinds            Kinds
	// TotalOutageSeconds counts its seconds in which requests were sent
	// and none succeeded; DegradedSeconds those in which some failed
	// (total outages included).
	TotalOutageSeconds, DegradedSeconds int
}

// Span summarises the requests sent in [from, to). Seconds are counted
// whole: a second belongs to the span when it starts in it.
func (s Stats) Span(from, to time.Time) Span {
	sp := Span{From: from, To: to}
	for _, sec := range s.Seconds {
		if sec.Start.Before(from) || !sec.Start.Before(to) {
			continue
		}
		sp.Requests += sec.Requests
		sp.Failed += sec.Failed
		sp.Kinds.add(sec)
		if sec.Failed > 0 {
			sp.DegradedSeconds++
			if sec.Served == 0 {
				sp.TotalOutageSeconds++
			}
		}
	}
	return sp
}

// Window is a run of consecutive seconds in which requests failed.
type Window struct {
	// Start is the beginning of the first second; End the end of the last.
	Start time.Time
	End   time.Time
	// Requests and Failed count the window's requests.
	Requests int
	Failed   int
}

// Duration is the window's length.
func (w Window) Duration() time.Duration { return w.End.Sub(w.Start) }

// Stats summarise the requests sent so far.
type Stats struct {
	// Total = Served + Failed.
	Total  int
	Served int
	Failed int
	// NoTarget (503), TargetFailed (502) and Other split Failed.
	NoTarget     int
	TargetFailed int
	Other        int
	// Seconds has one entry per second since the first request.
	Seconds []Second
	// Outages are the windows of consecutive seconds with at least one
	// failed request, in time order.
	Outages []Window
	// Longest is the longest outage (the earliest of equals); zero when
	// there was none.
	Longest Window
	// Kinds splits Failed by what the client saw.
	Kinds Kinds
	// TotalOutageSeconds counts the seconds in which requests were sent
	// and none succeeded; DegradedSeconds those in which some failed (the
	// seconds of Outages, total outages included).
	TotalOutageSeconds, DegradedSeconds int
}

// Stats returns the counts so far.
func (g *Generator) Stats() Stats {
	g.mu.Lock()
	seconds := slices.Clone(g.seconds)
	g.mu.Unlock()
	return summarise(seconds)
}

func summarise(seconds []Second) Stats {
	st := Stats{Seconds: seconds}
	var cur *Window
	for _, s := range seconds {
		st.Total += s.Requests
		st.Served += s.Served
		st.Failed += s.Failed
		st.NoTarget += s.NoTarget
		st.TargetFailed += s.TargetFailed
		st.Other += s.Other
		st.Kinds.add(s)
		if s.Failed > 0 {
			st.DegradedSeconds++
			if s.Served == 0 {
				st.TotalOutageSeconds++
			}
		}
		if s.Failed == 0 {
			cur = nil
			continue
		}
		if cur == nil {
			st.Outages = append(st.Outages, Window{Start: s.Start})
			cur = &st.Outages[len(st.Outages)-1]
		}
		cur.End = s.Start.Add(time.Second)
		cur.Requests += s.Requests
		cur.Failed += s.Failed
	}
	for _, w := range st.Outages {
		if w.Duration() > st.Longest.Duration() {
			st.Longest = w
		}
	}
	return st
}

// String renders the summary on a few lines.
func (s Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "requests %d, served %d, failed %d (no target %d, target failed %d, other %d)\n",
		s.Total, s.Served, s.Failed, s.NoTarget, s.TargetFailed, s.Other)
	if len(s.Outages) == 0 {
		b.WriteString("no outage\n")
		return b.String()
	}
	fmt.Fprintf(&b, "%d outage window(s), longest %v from %s\n", len(s.Outages), s.Longest.Duration(), s.Longest.Start.UTC().Format(time.RFC3339))
	return b.String()
}
