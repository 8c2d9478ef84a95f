package subnets

// render.go: the readiness report's forms: Readiness.JSON (validating
// against ReadinessSchema), Readiness.Markdown and Readiness.Text (in 120
// columns, what does not fit under its table), and their line helpers.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/qstools/tgmigrate/diagnose"

	"github.com/qstools/tgmigrate/internal/textcell"
)

// JSON returns the report as indented JSON, which validates against
// [ReadinessSchema].
func (r *Readiness) JSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// verdict is the report's one-line verdict.
func (r *Readiness) verdict() string {
	if r.Ready {
		return fmt.Sprintf("READY: no finding blocks the move (%s)", textcell.Plural(len(r.Findings), "finding", "findings"))
	}
	blocking := 0
	for _, f := range r.Findings {
		if f.Severity.Rank() <= diagnose.SeverityHigh.Rank() {
			blocking++
		}
	}
	verb := "block"
	if blocking == 1 {
		verb = "blocks"
	}
	return fmt.Sprintf("NOT READY: %d of %s %s the move", blocking, textcell.Plural(len(r.Findings), "finding", "findings"), verb)
}

// Markdown renders the report for people: the verdict, the findings with
// their next calls, the zones and subnets, the node classes and pools,
// the node groups, the target groups, the estimate with its assumptions,
// and the notes.
func (r *Readiness) Markdown() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# Readiness to move cluster %s to private subnets\n\n", md(r.Cluster))
	w("Checked %s, schema version %d. VPC `%s`, %s.\n\n**%s.**\n", r.CheckedAt.UTC().Format(time.RFC3339), r.SchemaVersion, r.VPCID, r.Region, r.verdict())

	w("\n## Findings\n\n")
	if len(r.Findings) == 0 {
		w("None.\n")
	}
	for _, f := range r.Findings {
		w("- **%s** `%s`: %s\n", f.Severity, f.Code, md(f.Message))
		w("  - signal: %s\n", md(f.Signal))
		w("  - next: %s\n", md(f.Remediation))
		w("  - call: %s\n", md(nextLine(f.Next)))
	}

	w("\n## Zones\n\n| zone | nodes | pods | need | free | private subnets |\n|---|---:|---:|---:|---:|---|\n")
	for _, z := range r.Zones {
		w("| %s | %d | %d | %d | %d | %s |\n", z.Zone, z.Nodes, z.Pods, z.Need, z.Free, orDash(joinList(z.Subnets)))
	}
	w("\n## Private subnets\n\n| subnet | zone | CIDR | free | egress | missing endpoints |\n|---|---|---|---:|---|---|\n")
	for _, s := range r.PrivateSubnets {
		w("| `%s` | %s | %s | %d | %s | %s |\n", s.ID, s.Zone, s.CIDR, s.Free, orDash(s.Egress), orDash(joinList(s.MissingEndpoints)))
	}
	w("\nSelector terms the move writes: %s\n", md(termsLine(r)))

	w("\n## Karpenter\n\n| EC2NodeClass | public subnets | associatePublicIPAddress | NodePools | nodes |\n|---|---|---|---|---:|\n")
	for _, nc := range r.NodeClasses {
		w("| %s | %s | %s | %s | %d |\n", md(nc.Name), orDash(joinList(nc.PublicSubnets)), boolPtr(nc.AssociatePublicIPAddress), orDash(joinList(nc.NodePools)), nc.Nodes)
	}
	w("\n| NodePool | node class | budgets | nodes | public | drift at once |\n|---|---|---|---:|---:|---:|\n")
	for _, p := range r.NodePools {
		w("| %s | %s | %s | %d | %d | %d |\n", md(p.Name), md(p.NodeClass), md(poolBudgets(p)), p.Nodes, p.PublicNodes, p.AllowedDrift)
	}
	if len(r.NodeGroups) > 0 {
		w("\n## Node groups (by hand)\n")
		for _, g := range r.NodeGroups {
			w("\n### %s: %s, %d public\n\n", md(g.Name), textcell.Plural(g.Nodes, "node", "nodes"), g.PublicNodes)
			for i, s := range g.Steps {
				w("%d. %s\n", i+1, md(s))
			}
		}
	}

	w("\n## Target groups\n\n| target group | binding | load balancers | zones | healthy pod targets | floor | target port | networking |\n|---|---|---|---|---:|---:|---:|---|\n")
	for _, tg := range r.TargetGroups {
		w("| `%s` | %s | %s | %s | %d | %d | %d | %s |\n", tg.ARN.String(), md(tg.Binding), md(orDash(joinList(tg.LoadBalancers))), orDash(joinList(tg.Zones)),
			tg.HealthyPodTargets, tg.Floor, tg.TargetPort, md(orDash(tg.Networking)))
	}

	e := r.Estimate
	w("\n## Estimate\n\n%s.\n\nAssumptions:\n\n", estimateLine(e))
	for _, a := range e.Assumptions {
		w("- %s\n", md(a))
	}
	w("\n## Notes\n\n")
	if len(r.Notes) == 0 {
		w("None.\n")
	}
	for _, n := range r.Notes {
		w("- %s\n", md(n))
	}
	return b.String()
}

// Text renders the report as aligned plain-text tables that fit
// diagnose.TextColumns (120) columns, as diagnose's Report.Text does: the
// verdict, the findings (severity and code; each one's message and next
// call under the table, numbered as in it), the zones, the subnets, the
// node classes and pools, the node groups (their steps under the table),
// the target groups (their ARNs under the table), the estimate and each
// assumption it rests on, and the notes. A cell too long for its column
// is cut short with "..." and written whole under its table; what is
// under a table is whole, wrapped. Only a word longer than a line (an
// ARN) is split.
func (r *Readiness) Text() string {
	var b strings.Builder
	header := fmt.Sprintf("tgmigrate subnets readiness  cluster %s  %s  %s  checked %s  schema v%d",
		r.Cluster, r.VPCID, r.Region, r.CheckedAt.UTC().Format(time.RFC3339), r.SchemaVersion)
	if utf8.RuneCountInString(header) > diagnose.TextColumns {
		header = strings.TrimSuffix(wrap(header, "", "  "), "\n")
	}
	b.WriteString(header + "\n")
	b.WriteString(wrap(r.verdict(), "", "  "))

	b.WriteString("\n")
	rows := [][]string{{"#", "SEVERITY", "CODE"}}
	for i, f := range r.Findings {
		rows = append(rows, []string{strconv.Itoa(i + 1), string(f.Severity), string(f.Code)})
	}
	b.WriteString(fitted(rows))
	for i, f := range r.Findings {
		n := strconv.Itoa(i+1) + ". "
		indent := strings.Repeat(" ", len(n))
		b.WriteString("\n")
		b.WriteString(wrap(f.Message, n, indent))
		b.WriteString(wrap(nextLine(f.Next), indent+"next: ", indent+"      "))
	}

	b.WriteString("\n")
	rows = [][]string{{"ZONE", "NODES", "PODS", "NEED", "FREE", "SUBNETS"}}
	for _, z := range r.Zones {
		rows = append(rows, []string{z.Zone, strconv.Itoa(z.Nodes), strconv.Itoa(z.Pods), strconv.Itoa(z.Need), strconv.Itoa(z.Free), orDash(strings.Join(z.Subnets, ","))})
	}
	b.WriteString(fitted(rows, 5))

	b.WriteString("\n")
	rows = [][]string{{"SUBNET", "ZONE", "CIDR", "FREE", "EGRESS", "MISSING ENDPOINTS"}}
	for _, s := range r.PrivateSubnets {
		rows = append(rows, []string{s.ID, s.Zone, s.CIDR, strconv.Itoa(s.Free), orDash(s.Egress), orDash(strings.Join(s.MissingEndpoints, ","))})
	}
	b.WriteString(fitted(rows, 5))

	b.WriteString("\n")
	rows = [][]string{{"NODECLASS", "PUBLIC SUBNETS", "PUBLIC IP", "NODEPOOLS", "NODES"}}
	for _, nc := range r.NodeClasses {
		rows = append(rows, []string{nc.Name, orDash(strings.Join(nc.PublicSubnets, ",")), boolPtr(nc.AssociatePublicIPAddress), orDash(strings.Join(nc.NodePools, ",")), strconv.Itoa(nc.Nodes)})
	}
	b.WriteString(fitted(rows, 1, 3))

	b.WriteString("\n")
	rows = [][]string{{"NODEPOOL", "NODECLASS", "BUDGETS", "NODES", "PUBLIC", "DRIFT AT ONCE"}}
	for _, p := range r.NodePools {
		rows = append(rows, []string{p.Name, p.NodeClass, poolBudgets(p), strconv.Itoa(p.Nodes), strconv.Itoa(p.PublicNodes), strconv.Itoa(p.AllowedDrift)})
	}
	b.WriteString(fitted(rows, 2))

	if len(r.NodeGroups) > 0 {
		b.WriteString("\n")
		rows = [][]string{{"NODE GROUP", "NODES", "PUBLIC", "STEPS"}}
		for _, g := range r.NodeGroups {
			rows = append(rows, []string{g.Name, strconv.Itoa(g.Nodes), strconv.Itoa(g.PublicNodes), strconv.Itoa(len(g.Steps))})
		}
		b.WriteString(fitted(rows))
		for _, g := range r.NodeGroups {
			b.WriteString("\n" + g.Name + ", by hand:\n")
			for i, s := range g.Steps {
				n := "  " + strconv.Itoa(i+1) + ". "
				b.WriteString(wrap(s, n, strings.Repeat(" ", len(n))))
			}
		}
	}

	b.WriteString("\n")
	rows = [][]string{{"TARGET GROUP", "BINDING", "ZONES", "HEALTHY", "FLOOR", "PORT", "NETWORKING"}}
	var arns []string
	for _, tg := range r.TargetGroups {
		name := tg.ARN.Name
		if name == "" {
			name = tg.ARN.String()
		}
		rows = append(rows, []string{name, tg.Binding, orDash(strings.Join(tg.Zones, ",")), strconv.Itoa(tg.HealthyPodTargets), strconv.Itoa(tg.Floor),
			strconv.Itoa(int(tg.TargetPort)), orDash(tg.Networking)})
		if name != tg.ARN.String() {
			arns = append(arns, wrap(tg.ARN.String(), name+": ", "  "))
		}
	}
	b.WriteString(fitted(rows, 6, 2, 1))
	b.WriteString(strings.Join(arns, ""))

	b.WriteString("\n")
	b.WriteString(wrap(estimateLine(r.Estimate), "estimate: ", "  "))
	for _, a := range r.Estimate.Assumptions {
		b.WriteString(wrap(a, "  assumes: ", "           "))
	}
	for _, n := range r.Notes {
		b.WriteString(wrap(n, "note: ", "      "))
	}
	return b.String()
}

// wrap is textcell.Wrap to [diagnose.TextColumns].
func wrap(s, first, rest string) string { return textcell.Wrap(s, diagnose.TextColumns, first, rest) }

// fitted renders rows (the first is the header) as textcell.Table does,
// in [diagnose.TextColumns] columns, narrowing the flexible columns flex;
// each cell cut short there is written whole under the table, wrapped:
// its row's first cell, its column's header and its value, a list's
// items (comma-separated in the cell) a space apart, so that it wraps
// between them.
func fitted(rows [][]string, flex ...int) string {
	table := textcell.Table(rows, diagnose.TextColumns, flex...)
	lines := strings.Split(table, "\n")
	var under strings.Builder
	for i, row := range rows[1:] {
		for _, c := range flex {
			if c < len(row) && i+1 < len(lines) && !strings.Contains(lines[i+1], row[c]) {
				under.WriteString(wrap(strings.ReplaceAll(row[c], ",", ", "), "  "+row[0]+" "+strings.ToLower(rows[0][c])+": ", "    "))
			}
		}
	}
	return table + under.String()
}

func estimateLine(e Estimate) string {
	return fmt.Sprintf("%s in %s, about %v (%d × (launch %v + drain %v))", textcell.Plural(e.Nodes, "node", "nodes"), textcell.Plural(e.Waves, "wave", "waves"), e.Duration, e.Waves, e.Launch, e.Drain)
}

func termsLine(r *Readiness) string {
	var s []string
	for _, t := range r.SelectorTerms {
		s = append(s, t.String())
	}
	return orDash(strings.Join(s, " or "))
}

func poolBudgets(p NodePoolReport) string {
	if p.Budgets == nil {
		return "absent (Karpenter's 10%)"
	}
	return budgetsLine(p.Budgets)
}

func boolPtr(b *bool) string {
	if b == nil {
		return "unset"
	}
	return fmt.Sprint(*b)
}

// nextLine writes a next call as one line: the operation, then what it
// names.
func nextLine(c diagnose.NextCall) string {
	parts := []string{string(c.Op)}
	if !c.TargetGroupARN.IsZero() {
		parts = append(parts, "targetGroup="+c.TargetGroupARN.String())
	}
	if c.Strategy != "" {
		parts = append(parts, "strategy="+c.Strategy)
	}
	if len(c.Missing) > 0 {
		parts = append(parts, "missing="+strings.Join(c.Missing, ","))
	}
	if c.Reason != "" {
		parts = append(parts, "reason: "+c.Reason)
	}
	return strings.Join(parts, " ")
}

// The text helpers of the renderings, shared with the other reports.
var (
	orDash = textcell.OrDash
	md     = textcell.Markdown
)
