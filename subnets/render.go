package subnets

// render.go: the readiness report's forms: Readiness.JSON (validating
// against ReadinessSchema), Readiness.Markdown and Readiness.Text, and
// their line helpers.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

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

// Text renders the report as aligned plain-text tables: the verdict, the
// findings, the zones, the subnets, the node classes and pools, the
// target groups, the estimate and each assumption it rests on, and the
// notes.
func (r *Readiness) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "tgmigrate subnets readiness  cluster %s  %s  %s  checked %s  schema v%d\n%s\n",
		r.Cluster, r.VPCID, r.Region, r.CheckedAt.UTC().Format(time.RFC3339), r.SchemaVersion, r.verdict())
	table := func(header string, rows func(w *tabwriter.Writer)) {
		b.WriteString("\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, header)
		rows(tw)
		_ = tw.Flush()
	}
	table("SEVERITY\tCODE\tMESSAGE\tNEXT", func(w *tabwriter.Writer) {
		for _, f := range r.Findings {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", f.Severity, f.Code, oneLine(f.Message), oneLine(nextLine(f.Next)))
		}
	})
	table("ZONE\tNODES\tPODS\tNEED\tFREE\tSUBNETS", func(w *tabwriter.Writer) {
		for _, z := range r.Zones {
			fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%s\n", z.Zone, z.Nodes, z.Pods, z.Need, z.Free, orDash(strings.Join(z.Subnets, ",")))
		}
	})
	table("SUBNET\tZONE\tCIDR\tFREE\tEGRESS\tMISSING ENDPOINTS", func(w *tabwriter.Writer) {
		for _, s := range r.PrivateSubnets {
			fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\t%s\n", s.ID, s.Zone, s.CIDR, s.Free, orDash(s.Egress), orDash(strings.Join(s.MissingEndpoints, ",")))
		}
	})
	table("NODECLASS\tPUBLIC SUBNETS\tPUBLIC IP\tNODEPOOLS\tNODES", func(w *tabwriter.Writer) {
		for _, nc := range r.NodeClasses {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\n", nc.Name, orDash(strings.Join(nc.PublicSubnets, ",")), boolPtr(nc.AssociatePublicIPAddress), orDash(strings.Join(nc.NodePools, ",")), nc.Nodes)
		}
	})
	table("NODEPOOL\tNODECLASS\tBUDGETS\tNODES\tPUBLIC\tDRIFT AT ONCE", func(w *tabwriter.Writer) {
		for _, p := range r.NodePools {
			fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\t%d\n", p.Name, p.NodeClass, poolBudgets(p), p.Nodes, p.PublicNodes, p.AllowedDrift)
		}
	})
	if len(r.NodeGroups) > 0 {
		table("NODE GROUP\tNODES\tPUBLIC\tSTEPS", func(w *tabwriter.Writer) {
			for _, g := range r.NodeGroups {
				fmt.Fprintf(w, "%s\t%d\t%d\t%s\n", g.Name, g.Nodes, g.PublicNodes, joinSteps(g.Steps))
			}
		})
	}
	table("TARGET GROUP\tBINDING\tZONES\tHEALTHY\tFLOOR\tPORT\tNETWORKING", func(w *tabwriter.Writer) {
		for _, tg := range r.TargetGroups {
			fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\t%d\t%s\n", tg.ARN.String(), tg.Binding, orDash(strings.Join(tg.Zones, ",")), tg.HealthyPodTargets, tg.Floor, tg.TargetPort, orDash(tg.Networking))
		}
	})
	fmt.Fprintf(&b, "\nestimate: %s\n", estimateLine(r.Estimate))
	for _, a := range r.Estimate.Assumptions {
		fmt.Fprintf(&b, "  assumes: %s\n", a)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", oneLine(n))
	}
	return b.String()
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
	orDash  = textcell.OrDash
	oneLine = textcell.OneLine
	md      = textcell.Markdown
)
