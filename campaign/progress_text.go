package campaign

// progress_text.go: Progress.Text, the live view in TextColumns: a
// header line, a line per wave, a line per running, failed or blocked
// entry.

import (
	"fmt"
	"strings"
	"time"

	"github.com/qstools/tgmigrate/internal/textcell"
)

// Text renders the progress for a terminal, every line at most
// [TextColumns] wide: one header line (the plan, done N/M, the counts
// running, waiting, blocked, failed, rolled back and skipped that are not
// zero, the ETA), one line per wave (its approval
// and counts; ">" marks the current one), one line per running, failed,
// rolled-back or blocked entry (name, cluster, holder, since when, the
// reason and next call; for a running one its cutover step when a
// [StepTracker] gave it, and its estimate left), and the last stop while
// not finished. A CLI redraws it after each [Observer] event and each
// step a [StepTracker] sees end; `campaign status` prints it once.
func (pr *Progress) Text() string {
	var b strings.Builder
	t := pr.Totals
	state := ""
	switch {
	case pr.Completed:
		state = "completed"
	case pr.Finished:
		state = "finished"
	case !pr.Started:
		state = "not started, ETA " + seconds(pr.ETASeconds)
	default:
		state = fmt.Sprintf("ETA %s at %s", seconds(pr.ETASeconds), clockOf(pr.ETA))
	}
	// The header names the counts that are not zero (the waves' lines
	// name them all); wrapped, never cut: the ETA ends it.
	head := fmt.Sprintf("%s at %s: done %d/%d", pr.PlanID, clockOf(pr.At), t.Done, t.Entries)
	for _, c := range []struct {
		n    int
		what string
	}{{t.Running, "running"}, {t.Pending, "waiting"}, {t.Blocked, "blocked"}, {t.Failed, "failed"}, {t.RolledBack, "rolled back"}, {t.Skipped, "skipped"}} {
		if c.n > 0 {
			head += fmt.Sprintf(", %d %s", c.n, c.what)
		}
	}
	b.WriteString(textcell.Wrap(head+"; "+state, TextColumns, "", "    "))
	waves := [][]string{{"", "WAVE", "APPROVAL", "COUNTS"}}
	for _, w := range pr.Waves {
		mark := ""
		if w.Index == pr.CurrentWave {
			mark = ">"
		}
		name := w.Name
		if w.Canary && name != "canary" {
			name += " (canary)"
		}
		approval := "approval " + string(w.Approval)
		switch w.Approval {
		case ApprovalNone:
			approval = "no approval"
		case ApprovalApproved:
			approval = "approved by " + textcell.OrDash(w.ApprovedBy)
		case ApprovalRefused:
			approval = "refused: " + textcell.OneLine(w.Refused)
		}
		c := w.Counts
		counts := fmt.Sprintf("done %d/%d, %d running, %d waiting, %d blocked, %d failed", c.Done, c.Entries, c.Running, c.Pending,
			c.Blocked, c.Failed)
		if c.RolledBack > 0 {
			counts += fmt.Sprintf(", %d rolled back", c.RolledBack)
		}
		if c.Skipped > 0 {
			counts += fmt.Sprintf(", %d skipped", c.Skipped)
		}
		waves = append(waves, []string{mark, name, approval, counts})
	}
	if len(pr.Waves) > 0 {
		b.WriteString(indent(body(textcell.Table(waves, TextColumns-2, 2))))
	}
	rows := [][]string{{"STATUS", "TARGET GROUP", "CLUSTER", "HOLDER", "SINCE", "WHY"}}
	for _, s := range []EntryStatus{StatusRunning, StatusFailed, StatusRolledBack, StatusBlocked} {
		for _, e := range pr.entries() {
			if e.Status != s {
				continue
			}
			since := "-"
			if !e.Since.IsZero() {
				since = fmt.Sprintf("%s (%s)", clockOf(e.Since), seconds(int(pr.At.Sub(e.Since)/time.Second)))
			}
			why := textcell.OneLine(e.Reason)
			if s == StatusRunning {
				why = fmt.Sprintf("%s left of %s", seconds(e.LeftSeconds), seconds(e.EstimateSeconds))
				if st := e.Step; st != nil {
					why = stepText(*st, why)
				}
			}
			if e.Next != "" {
				why = strings.TrimPrefix(why+"; next: "+textcell.OneLine(e.Next), "; ")
			}
			rows = append(rows, []string{string(s), e.Name, textcell.OrDash(e.Cluster), textcell.OrDash(e.Holder), since, textcell.OrDash(why)})
		}
	}
	if len(rows) > 1 {
		b.WriteString(indent(body(textcell.Table(rows, TextColumns-2, 1, 2, 3, 5))))
	}
	if n := len(pr.Stops); n > 0 && !pr.Finished {
		st := pr.Stops[n-1]
		b.WriteString(indent(textcell.Truncate(fmt.Sprintf("last stop (%s) by %s at %s: %s", st.Reason, st.By, clockOf(st.At),
			textcell.OneLine(st.Detail)), TextColumns-2) + "\n"))
	}
	return b.String()
}

// stepText is a running entry's WHY: its step, until when it waits,
// the estimate left, what it waits for (the part a narrow column cuts):
// "gate (4 of 8) until 10:05:10; 2m0s left of 6m0s; waits for ...".
func stepText(st StepProgress, left string) string {
	out := st.String()
	if !st.Until.IsZero() {
		out += " until " + clockOf(st.Until)
	}
	out += "; " + left
	if st.Waiting != "" {
		out += "; waits for " + textcell.OneLine(st.Waiting)
	}
	return out
}

// entries are every entry of the progress: the waves' in order, then
// those blocked in the plan.
func (pr *Progress) entries() []EntryProgress {
	var out []EntryProgress
	for _, w := range pr.Waves {
		out = append(out, w.Entries...)
	}
	return append(out, pr.Blocked...)
}

// body drops a table's header line: the columns' floors come from it,
// but the live view prints no header.
func body(table string) string {
	_, rest, _ := strings.Cut(table, "\n")
	return rest
}

// clockOf prints t as a UTC time of day, "15:04:05"; "-" for zero.
func clockOf(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("15:04:05")
}
