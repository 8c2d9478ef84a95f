package traffic

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
	// NoTarget, TargetFailed and Other split Failed by outcome (Other:
	// ErrorResponse and NoRoute).
	NoTarget     int
	TargetFailed int
	Other        int
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
