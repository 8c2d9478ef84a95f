package diagnose

// render_text.go: the report in plain text: Report.Text, fitted to
// TextColumns (the findings' and errors' details under their tables), and
// Report.WideText, a line per row however wide.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/qstools/tgmigrate/internal/textcell"
)

// TextColumns is the width [Report.Text] fits: no line of it is wider,
// but for a word (an ARN, a name) longer than a line.
const TextColumns = 120

// Text renders the report as aligned plain-text tables that fit
// [TextColumns]: the target groups (their unknowns and errors under the
// table), the findings (severity, code, subject; each one's message and
// next call under the table, numbered as in it), the quota headroom, the
// clusters, the errors (each one's message under the table) and the
// summary (targets, then findings and errors, on a line each). A cell too long for its column is cut short with "...";
// what is under a table is whole, wrapped. [Report.WideText] is the
// layout with a line per row.
func (r *Report) Text() string {
	var b strings.Builder
	header := fmt.Sprintf("tgmigrate diagnose  generated %s  schema v%d  scope %s",
		r.GeneratedAt.UTC().Format(time.RFC3339), r.SchemaVersion, scopeLine(r.Scope))
	if utf8.RuneCountInString(header) > TextColumns {
		header = strings.TrimSuffix(textcell.Wrap(header, TextColumns, "", "  "), "\n")
	}
	b.WriteString(header + "\n\n")

	rows := [][]string{{"TARGET GROUP", "ACCOUNT", "REGION", "TYPE", "OWNER", "SERVICE", "TARGETS", "POD", "NODE", "GHOST", "FOREIGN", "FINDINGS"}}
	var notes []string
	for _, tg := range r.TargetGroups {
		rows = append(rows, []string{tg.Name, tg.Account, tg.Region, tg.TargetType, string(tg.Owner.Kind), serviceShort(tg.Service),
			strconv.Itoa(tg.Counts.Total), strconv.Itoa(tg.Counts.ByClass[ClassPod]), strconv.Itoa(tg.Counts.ByClass[ClassNode]),
			strconv.Itoa(tg.Counts.ByClass[ClassGhost]), strconv.Itoa(tg.Counts.ByClass[ClassForeign]), strconv.Itoa(len(tg.Findings))})
		var unknown []string
		for _, u := range tg.Unknowns {
			unknown = append(unknown, strings.TrimPrefix(u.Cluster+"/", "/")+u.Source)
		}
		if len(unknown) > 0 {
			notes = append(notes, textcell.Wrap(tg.Name+": not read: "+strings.Join(unknown, ", "), TextColumns, "", "  "))
		}
		if tg.Error != nil {
			notes = append(notes, textcell.Wrap(tg.Name+": error: "+tg.Error.Category+": "+oneLine(tg.Error.Message), TextColumns, "", "  "))
		}
	}
	b.WriteString(textcell.Table(rows, TextColumns, 0, 4, 5))
	if len(notes) > 0 {
		b.WriteString("\n" + strings.Join(notes, ""))
	}

	all := r.AllFindings()
	if len(all) > 0 {
		b.WriteString("\n")
		rows = [][]string{{"#", "SEVERITY", "CODE", "SUBJECT"}}
		for i, f := range all {
			rows = append(rows, []string{strconv.Itoa(i + 1), string(f.Severity), string(f.Code), subject(r, f)})
		}
		b.WriteString(textcell.Table(rows, TextColumns, 3))
		for i, f := range all {
			n := strconv.Itoa(i+1) + ". "
			indent := strings.Repeat(" ", len(n))
			b.WriteString("\n")
			b.WriteString(textcell.Wrap(f.Message, TextColumns, n, indent))
			b.WriteString(textcell.Wrap(f.Remediation, TextColumns, indent+"next: ", indent+"      "))
		}
	}

	if slices.ContainsFunc(r.TargetGroups, func(tg TargetGroupReport) bool { return len(tg.Headroom) > 0 }) {
		b.WriteString("\n")
		rows = [][]string{{"TARGET GROUP", "QUOTA SCOPE", "OF", "QUOTA", "SOURCE", "NOW", "OTHERS", "ADDING", "PEAK", "ROOM", "AFTER"}}
		for _, tg := range r.TargetGroups {
			for _, h := range tg.Headroom {
				rows = append(rows, []string{tg.Name, string(h.Scope), quotaOf(h), fmt.Sprintf("%s %d", h.Quota.Code, h.Quota.Value),
					string(h.Quota.Source), strconv.Itoa(h.Now), strconv.Itoa(h.Others), strconv.Itoa(h.Adding), strconv.Itoa(h.Peak),
					strconv.Itoa(h.Room), strconv.Itoa(h.After)})
			}
		}
		b.WriteString(textcell.Table(rows, TextColumns, 0, 2, 4))
	}

	b.WriteString("\n")
	rows = [][]string{{"CLUSTER", "VPC", "READ", "NODES", "KARPENTER", "PODS", "SERVICES", "BINDINGS", "BINDING-CRD", "NODECLAIM-CRD"}}
	for _, c := range r.Clusters {
		rows = append(rows, []string{c.Name, orDash(c.VPCID), strconv.FormatBool(c.Read), strconv.Itoa(c.Nodes), strconv.Itoa(c.KarpenterNodes),
			strconv.Itoa(c.Pods), strconv.Itoa(c.Services), strconv.Itoa(c.Bindings), strconv.FormatBool(c.BindingCRD), strconv.FormatBool(c.NodeClaimCRD)})
	}
	b.WriteString(textcell.Table(rows, TextColumns, 0, 1))

	if len(r.Errors) > 0 {
		b.WriteString("\n")
		rows = [][]string{{"#", "ERROR KIND", "OPERATION", "CATEGORY", "RESOURCE"}}
		for i, e := range r.Errors {
			rows = append(rows, []string{strconv.Itoa(i + 1), string(e.Kind), e.Op, string(e.Category), e.Resource})
		}
		b.WriteString(textcell.Table(rows, TextColumns, 2, 4))
		for i, e := range r.Errors {
			n := strconv.Itoa(i+1) + ". "
			b.WriteString("\n")
			b.WriteString(textcell.Wrap(e.Resource+": "+e.Message, TextColumns, n, strings.Repeat(" ", len(n))))
		}
	}

	// The summary: the targets on a line, the findings on the next.
	targets, findings, _ := strings.Cut(summaryLine(r.Summary), "; ")
	b.WriteString("\n")
	b.WriteString(textcell.Wrap(targets, TextColumns, "", "  "))
	b.WriteString(textcell.Wrap(findings, TextColumns, "", "  "))
	return b.String()
}

// quotaOf names what a headroom counts against: the target group's
// short ARN, or the load balancer's name.
func quotaOf(h Headroom) string {
	if h.Scope == ScopeLoadBalancer {
		return lbName(h.ARN)
	}
	return shortARN(h.ARN)
}

// summaryLine is the report's last line: the target groups, targets by
// class, findings by severity and errors.
func summaryLine(s Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d with errors), %s: %d pod, %d node, %d ghost, %d foreign; %s:",
		textcell.Plural(s.TargetGroups, "target group", "target groups"), s.TargetGroupsWithErrors, textcell.Plural(s.Targets, "target", "targets"),
		s.ByClass[ClassPod], s.ByClass[ClassNode], s.ByClass[ClassGhost], s.ByClass[ClassForeign], textcell.Plural(s.Findings, "finding", "findings"))
	for _, sev := range []Severity{SeverityCritical, SeverityHigh, SeverityMedium, SeverityLow, SeverityInfo} {
		fmt.Fprintf(&b, " %d %s", s.BySeverity[sev], sev)
	}
	fmt.Fprintf(&b, "; %s", textcell.Plural(s.Errors, "error", "errors"))
	return b.String()
}

// WideText renders the report as [Report.Text] did before it fitted a
// terminal: one line per target group, finding and error, whole, however
// wide (the message and the next call in the findings' table). It is the
// CLI's diagnose --wide.
func (r *Report) WideText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "tgmigrate diagnose  generated %s  schema v%d  scope %s\n\n",
		r.GeneratedAt.UTC().Format(time.RFC3339), r.SchemaVersion, scopeLine(r.Scope))

	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TARGET GROUP\tACCOUNT\tREGION\tTYPE\tOWNER\tSERVICE\tTARGETS\tPOD\tNODE\tGHOST\tFOREIGN\tFINDINGS\tUNKNOWN\tERROR")
	for _, tg := range r.TargetGroups {
		errText := "-"
		if tg.Error != nil {
			errText = tg.Error.Category
		}
		var codes []string
		for _, f := range tg.Findings {
			codes = append(codes, string(f.Code))
		}
		var unknown []string
		for _, u := range tg.Unknowns {
			unknown = append(unknown, strings.TrimPrefix(u.Cluster+"/", "/")+u.Source)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\n", tg.Name, tg.Account, tg.Region, tg.TargetType,
			tg.Owner.Kind, serviceShort(tg.Service), tg.Counts.Total, tg.Counts.ByClass[ClassPod], tg.Counts.ByClass[ClassNode],
			tg.Counts.ByClass[ClassGhost], tg.Counts.ByClass[ClassForeign], orDash(strings.Join(slices.Compact(codes), ",")),
			orDash(strings.Join(unknown, ",")), errText)
	}
	_ = tw.Flush()

	b.WriteString("\n")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SEVERITY\tCODE\tSUBJECT\tMESSAGE\tNEXT")
	for _, f := range r.AllFindings() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.Severity, f.Code, subject(r, f), oneLine(f.Message), oneLine(f.Remediation))
	}
	_ = tw.Flush()

	if slices.ContainsFunc(r.TargetGroups, func(tg TargetGroupReport) bool { return len(tg.Headroom) > 0 }) {
		b.WriteString("\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "TARGET GROUP\tQUOTA SCOPE\tOF\tQUOTA\tSOURCE\tNOW\tOTHERS\tADDING\tPEAK\tROOM\tAFTER")
		for _, tg := range r.TargetGroups {
			for _, h := range tg.Headroom {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s %d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\n", tg.Name, h.Scope, quotaOf(h), h.Quota.Code, h.Quota.Value,
					h.Quota.Source, h.Now, h.Others, h.Adding, h.Peak, h.Room, h.After)
			}
		}
		_ = tw.Flush()
	}

	b.WriteString("\n")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CLUSTER\tVPC\tREAD\tNODES\tKARPENTER\tPODS\tSERVICES\tBINDINGS\tBINDING-CRD\tNODECLAIM-CRD")
	for _, c := range r.Clusters {
		fmt.Fprintf(tw, "%s\t%s\t%t\t%d\t%d\t%d\t%d\t%d\t%t\t%t\n", c.Name, orDash(c.VPCID), c.Read, c.Nodes, c.KarpenterNodes,
			c.Pods, c.Services, c.Bindings, c.BindingCRD, c.NodeClaimCRD)
	}
	_ = tw.Flush()

	if len(r.Errors) > 0 {
		b.WriteString("\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ERROR KIND\tRESOURCE\tOPERATION\tCATEGORY\tMESSAGE")
		for _, e := range r.Errors {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Kind, e.Resource, e.Op, e.Category, oneLine(e.Message))
		}
		_ = tw.Flush()
	}

	b.WriteString("\n" + summaryLine(r.Summary) + "\n")
	return b.String()
}
