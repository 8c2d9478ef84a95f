package campaign

// report_markdown.go: Report.Markdown: the summary table, per account
// and cluster a table of target groups, then the blocked and failed ones
// with their reason and next call, and the stops.

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/qstools/tgmigrate/internal/textcell"
)

// Markdown renders the report for a pull request or a ticket: a summary
// table (outcome, runner, times, the wall time against the plan's
// critical path, the totals, the requests and the ELBv2 calls), then
// per account and cluster a table of its target groups (status, wave,
// seconds against the estimate, the requests served and failed in its
// cutover window or "not measured", its exposure, the reason or next
// call), then each blocked, failed, rolled-back or skipped target group
// with its reason and next call, and the stops.
func (rep *Report) Markdown() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	md := textcell.Markdown
	t := rep.Totals
	outcome := "not finished"
	switch {
	case rep.Completed:
		outcome = "completed"
	case rep.Finished:
		outcome = "finished, not completed"
	}
	w("# Campaign %s\n\n", rep.PlanID)
	w("| | |\n|---|---|\n")
	w("| Plan | %s (`%s`) |\n", rep.PlanID, rep.PlanDigest)
	w("| Outcome | %s |\n", outcome)
	w("| Run by | %s |\n", md(textcell.OrDash(rep.Holder)))
	w("| Started | %s |\n", stamp(rep.StartedAt))
	w("| Finished | %s |\n", stamp(rep.FinishedAt))
	wall := seconds(int(rep.WallSeconds))
	if rep.EstimateSeconds > 0 {
		wall += fmt.Sprintf(" against the critical path's %s (ratio %.2f)", seconds(rep.EstimateSeconds), rep.Ratio)
	}
	w("| Wall time | %s |\n", wall)
	w("| Target groups | %s: %d done, %d failed, %d rolled back, %d blocked, %d skipped, %d running, %d pending |\n",
		textcell.Plural(t.Entries, "target group", "target groups"), t.Done, t.Failed, t.RolledBack, t.Blocked, t.Skipped, t.Running, t.Pending)
	w("| Requests in the cutover windows | %s |\n", rep.requests())
	calls := "not recorded (the result was made from the journal)"
	if rep.CallsRecorded {
		n := 0
		for _, a := range rep.Accounts {
			n += a.CallsTotal
		}
		calls = textcell.Plural(n, "call", "calls") + " by the runner's cutovers"
	}
	w("| ELBv2 calls | %s |\n", calls)
	for _, a := range rep.Accounts {
		w("\n## Account %s\n\n", a.Account)
		at := a.Totals
		w("%s: %d done, %d failed, %d rolled back, %d blocked, %d skipped, %d running, %d pending.", textcell.Plural(at.Entries, "target group", "target groups"),
			at.Done, at.Failed, at.RolledBack, at.Blocked, at.Skipped, at.Running, at.Pending)
		switch {
		case !rep.CallsRecorded:
			w(" ELBv2 calls: not recorded.\n")
		case a.CallsTotal == 0:
			w(" ELBv2 calls: none by the runner's cutovers.\n")
		default:
			var ops []string
			for _, op := range slices.Sorted(maps.Keys(a.Calls)) {
				ops = append(ops, fmt.Sprintf("%s %d", op, a.Calls[op]))
			}
			w(" ELBv2 calls: %s (%s).\n", textcell.Plural(a.CallsTotal, "call", "calls"), strings.Join(ops, ", "))
		}
		for _, c := range a.Clusters {
			name := c.Name
			if name == "" {
				name = "(no cluster)"
			}
			w("\n### Cluster %s\n\n", md(name))
			w("| Target group | Status | Wave | Seconds (estimate) | Requests served / failed | Exposure | Reason / next call |\n")
			w("|---|---|---|---:|---:|---|---|\n")
			for _, tg := range c.TargetGroups {
				secs := "-"
				if tg.Seconds > 0 {
					secs = fmt.Sprintf("%.0f", tg.Seconds)
				}
				if tg.EstimateSeconds > 0 {
					secs += fmt.Sprintf(" (%d)", tg.EstimateSeconds)
				}
				w("| %s | %s | %s | %s | %s | %s | %s |\n", md(tg.Name), tg.Status, md(textcell.OrDash(tg.WaveName)), secs,
					traffic(tg.Traffic), exposure(tg.Exposure), md(textcell.OrDash(textcell.Truncate(why(tg), cellWidth))))
			}
		}
	}
	var attention []string
	for _, a := range rep.Accounts {
		for _, c := range a.Clusters {
			for _, tg := range c.TargetGroups {
				switch tg.Status {
				case StatusBlocked, StatusFailed, StatusRolledBack, StatusSkipped:
					attention = append(attention, fmt.Sprintf("- **%s** (%s, cluster %s, %s): %s %s\n", md(tg.Name), tg.Status,
						md(textcell.OrDash(c.Name)), a.Account, md(sentence(textcell.OrDash(textcell.OneLine(reason(tg))))), md(nextText(tg))))
				}
			}
		}
	}
	if len(attention) > 0 {
		w("\n## Blocked and failed\n\n")
		for _, s := range attention {
			b.WriteString(s)
		}
	}
	if len(rep.Stops) > 0 {
		w("\n## Stops\n\n")
		for _, st := range rep.Stops {
			w("- %s by %s at %s: %s\n", st.Reason, md(st.By), stamp(st.At), md(textcell.OneLine(st.Detail)))
		}
	}
	return b.String()
}

// cellWidth bounds the reason in a target group's row; the section
// "Blocked and failed" has it whole.
const cellWidth = 160

// sentence ends s with a full stop, unless it ends with a mark already.
func sentence(s string) string {
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "!") {
		return s
	}
	return s + "."
}

// requests sums the measured requests, or says they were not measured.
func (rep *Report) requests() string {
	if rep.TrafficSource == "" {
		return "not measured"
	}
	var served, failed, measured, ran int
	for _, a := range rep.Accounts {
		for _, c := range a.Clusters {
			for _, tg := range c.TargetGroups {
				if tg.Traffic != nil || (!tg.StartedAt.IsZero() && !tg.FinishedAt.IsZero()) {
					ran++
				}
				if tg.Traffic != nil {
					measured++
					served += tg.Traffic.Served
					failed += tg.Traffic.Failed
				}
			}
		}
	}
	return fmt.Sprintf("%d served, %d failed, by %s (%d of %s measured)", served, failed, textcell.Markdown(rep.TrafficSource), measured,
		textcell.Plural(ran, "cutover window", "cutover windows"))
}

// traffic is a target group's requests cell.
func traffic(c *TrafficCount) string {
	if c == nil {
		return "not measured"
	}
	return fmt.Sprintf("%d / %d", c.Served, c.Failed)
}

// exposure is a target group's exposure cell: its listener rules and
// API routes.
func exposure(e Exposure) string {
	s := textcell.Plural(len(e.Rules), "rule", "rules")
	switch e.APIGateway {
	case "":
		return s + ", routes not read"
	case APIGatewayRefused:
		return s + ", routes refused"
	}
	return s + ", " + textcell.Plural(len(e.Routes), "route", "routes")
}

// reason is why a target group did not complete: its failure, its block
// or skip reason.
func reason(tg TargetGroupReport) string {
	if tg.Error != "" {
		return tg.Disposition + ": " + tg.Error
	}
	return tg.Reason
}

// why is a target group's reason and next call, for its table row.
func why(tg TargetGroupReport) string {
	s := textcell.OneLine(reason(tg))
	if tg.Next != nil {
		s = strings.TrimPrefix(s+"; next: "+tg.Next.Op, "; ")
	}
	if tg.Replanned {
		s = strings.TrimPrefix(s+"; re-planned", "; ")
	}
	return s
}

// nextText says a target group's next call in a sentence.
func nextText(tg TargetGroupReport) string {
	n := tg.Next
	switch {
	case n != nil:
		s := "Next call: `" + n.Op + "`"
		if n.Reason != "" {
			s += ": " + textcell.OneLine(n.Reason)
		}
		if len(n.Missing) > 0 {
			s += " (missing: " + strings.Join(n.Missing, ", ") + ")"
		}
		return s + "."
	case tg.BlockReason == ReasonPrecondition:
		return "Next call: fix the precondition, or accept it (WithAcceptPreconditions), and plan again."
	case tg.Status == StatusSkipped || tg.Status == StatusFailed || tg.Status == StatusRolledBack:
		return "Next call: fix the cause, then `campaign.PlanCampaign` again for it: this plan does not run it again."
	case tg.BlockReason == "":
		return "Next call: plan the campaign again (the re-plan no longer fits the approved one)."
	}
	return "Next call: see the reason, then plan again."
}

// stamp prints t in RFC 3339, UTC; "-" for zero.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}
