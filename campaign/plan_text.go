package campaign

// plan_text.go: Plan.Text, the plan for a terminal, in TextColumns.

import (
	"fmt"
	"strings"
	"time"

	"github.com/qstools/tgmigrate/internal/textcell"
)

// TextColumns is the width [Plan.Text] fits.
const TextColumns = 120

// Text renders the plan for a terminal, every line at most [TextColumns]
// wide: the summary, each wave's cutovers with their expected start and
// end, the blocked target groups with their reason and next call, what
// reaches each target group (its listener rules and API routes), and
// the limits.
func (p *Plan) Text() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	runnable, blocked := 0, 0
	for _, e := range p.Entries {
		if e.Runnable() {
			runnable++
		} else {
			blocked++
		}
	}
	w("Campaign %s, schema v%d, made %s\n", p.ID, p.SchemaVersion, p.CreatedAt.UTC().Format(time.RFC3339))
	w("  digest: %s\n", p.Digest)
	w("  %s in %s and %s: %d runnable in %s, %d blocked\n",
		textcell.Plural(len(p.Entries), "target group", "target groups"), textcell.Plural(len(p.Clusters), "cluster", "clusters"),
		textcell.Plural(len(p.Accounts), "account", "accounts"), runnable, textcell.Plural(len(p.Waves), "wave", "waves"), blocked)
	w("  expected: %s (critical path), %s one at a time\n", seconds(p.Estimate.TotalSeconds), seconds(p.Estimate.SerialSeconds))
	if len(p.Accepted) > 0 {
		var ks []string
		for _, k := range p.Accepted {
			ks = append(ks, string(k))
		}
		w("  accepted preconditions: %s\n", strings.Join(ks, ", "))
	}
	if p.Order != "" {
		w("  order after the canaries: %s\n", p.Order)
	}
	if len(p.Waves) > 0 {
		w("\nWaves (an approval before each but the first):\n")
		rows := [][]string{{"WAVE", "TARGET GROUP", "CLUSTER", "ACCOUNT", "TARGETS", "START", "END", "LOAD BALANCERS"}}
		for _, wave := range p.Waves {
			for _, a := range wave.TargetGroupARNs {
				e, _ := p.Entry(a)
				lbs := make([]string, len(e.LoadBalancerARNs))
				for i, lb := range e.LoadBalancerARNs {
					lbs[i] = shortARN(lb)
				}
				rows = append(rows, []string{wave.Name, e.Name, e.Cluster, e.AccountID, fmt.Sprint(e.Targets),
					seconds(e.StartSeconds), seconds(e.EndSeconds), textcell.OrDash(strings.Join(lbs, ", "))})
			}
		}
		b.WriteString(indent(textcell.Table(rows, TextColumns-2, 1, 2, 7)))
	}
	if blocked > 0 {
		w("\nBlocked:\n")
		rows := [][]string{{"#", "TARGET GROUP", "CLUSTER", "ACCOUNT", "REASON", "NEXT CALL"}}
		var details []string
		for _, e := range p.Entries {
			if e.Runnable() {
				continue
			}
			bl := e.Blocked
			next := "-"
			switch {
			case bl.Next != nil:
				next = string(bl.Next.Op)
			case bl.Error != "":
				next = "see the error"
			case bl.Reason == ReasonPrecondition:
				next = "fix it, or accept it"
			}
			n := fmt.Sprint(len(rows))
			rows = append(rows, []string{n, e.Name, textcell.OrDash(e.Cluster), e.AccountID, string(bl.Reason), next})
			d := bl.Detail
			if bl.Error != "" {
				d += ": " + bl.Error
			}
			if bl.Next != nil && bl.Next.Reason != "" {
				d += "; next: " + bl.Next.Reason
			}
			details = append(details, textcell.Wrap(n+". "+textcell.OneLine(d), TextColumns, "  ", "     "))
		}
		b.WriteString(indent(textcell.Table(rows, TextColumns-2, 1, 5)))
		for _, d := range details {
			b.WriteString(d)
		}
	}
	b.WriteString(exposureText(p))
	l := p.Limits
	w("\nLimits: %d at once, %d per account, %d per cluster\n", l.Concurrency, l.PerAccount, l.PerCluster)
	for _, s := range l.Sources {
		b.WriteString(textcell.Wrap(s, TextColumns, "  ", "    "))
	}
	for _, lb := range l.LoadBalancers {
		b.WriteString(textcell.Wrap(fmt.Sprintf("load balancer %s: %s", lbLabel(lb.ARN), lb.Reason), TextColumns, "  ", "    "))
		if c := lb.ChurnRoom; c != nil && c.Short {
			b.WriteString(textcell.Wrap(c.Warning, TextColumns, "    ", "      "))
		}
	}
	return b.String()
}

// seconds prints a count of seconds as a duration ("6m10s").
func seconds(s int) string { return (time.Duration(s) * time.Second).String() }

// indent puts two spaces before each line of s.
func indent(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		b.WriteString("  " + line)
	}
	return b.String()
}

// lbLabel names a load balancer with its account: "app/web/50dc… in
// 111111111111".
func lbLabel(arn string) string {
	if parts := strings.SplitN(arn, ":", 6); len(parts) == 6 {
		return shortARN(arn) + " in " + parts[4]
	}
	return arn
}
