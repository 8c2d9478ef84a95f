package diagnose

// This file renders a Report for people: Report.Markdown, and the line
// helpers it shares with the text layouts (render_text.go).

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/qstools/tgmigrate/internal/textcell"
)

// MarkdownTargetLimit caps the targets listed per target group in
// [Report.Markdown]; the JSON form always holds them all.
const MarkdownTargetLimit = 50

// Markdown renders the report for humans: the summary, every finding with
// its next call, each target group with its owner, Service, routes and
// targets, the clusters, and the errors.
func (r *Report) Markdown() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# Target group diagnosis\n\n")
	w("Generated %s, schema version %d. Scope: %s.\n\n", r.GeneratedAt.UTC().Format(time.RFC3339), r.SchemaVersion, scopeLine(r.Scope))

	s := r.Summary
	w("## Summary\n\n")
	w("| target groups | with errors | targets | pod | node | ghost | foreign | findings | errors |\n")
	w("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	w("| %d | %d | %d | %d | %d | %d | %d | %d | %d |\n\n", s.TargetGroups, s.TargetGroupsWithErrors, s.Targets,
		s.ByClass[ClassPod], s.ByClass[ClassNode], s.ByClass[ClassGhost], s.ByClass[ClassForeign], s.Findings, s.Errors)
	w("| severity | findings |\n|---|---:|\n")
	for _, sev := range []Severity{SeverityCritical, SeverityHigh, SeverityMedium, SeverityLow, SeverityInfo} {
		w("| %s | %d |\n", sev, s.BySeverity[sev])
	}
	w("\n| code | severity | findings |\n|---|---|---:|\n")
	for _, rule := range Rules() {
		w("| `%s` | %s | %d |\n", rule.Code, rule.Severity, s.ByCode[rule.Code])
	}

	w("\n## Findings\n\n")
	all := r.AllFindings()
	if len(all) == 0 {
		w("None.\n")
	}
	for _, f := range all {
		w("- **%s** `%s` %s: %s\n", f.Severity, f.Code, md(subject(r, f)), md(f.Message))
		w("  - signal: %s\n", md(f.Signal))
		w("  - next: %s\n", md(f.Remediation))
		w("  - call: %s\n", md(nextLine(f.Next)))
	}

	w("\n## Target groups\n")
	for _, tg := range r.TargetGroups {
		w("\n### %s\n\n", md(tg.Name))
		w("- ARN: `%s`\n", tg.ARN)
		w("- account %s, %s, %s; type %s, %s:%d\n", tg.Account, tg.Region, orDash(tg.VPCID), tg.TargetType, orDash(tg.Protocol), tg.Port)
		w("- owner: %s\n", md(ownerLine(tg.Owner)))
		for _, u := range tg.Unknowns {
			w("- unknown: %s\n", md(unknownLine(u)))
		}
		w("- Service: %s\n", md(serviceLine(tg.Service)))
		w("- health check: %s\n", md(healthCheckLine(tg.HealthCheck)))
		for _, rt := range tg.Routes {
			w("- route: %s\n", md(routeLine(rt)))
		}
		for _, h := range tg.Headroom {
			w("- quota headroom: %s\n", md(headroomLine(h)))
		}
		if tg.Error != nil {
			w("- error: %s\n", md(tg.Error.Message))
		}
		w("- targets: %d (%s)\n", tg.Counts.Total, md(countsLine(tg.Counts)))
		if len(tg.Targets) > 0 {
			w("\n| target | state | reason | class | held by | note |\n|---|---|---|---|---|---|\n")
			for i, t := range tg.Targets {
				if i == MarkdownTargetLimit {
					w("| … %d more | | | | | |\n", len(tg.Targets)-i)
					break
				}
				w("| `%s` | %s | %s | %s | %s | %s |\n", t.Key(), orDash(t.State), orDash(t.Reason), classLine(t), md(heldBy(t)), md(t.Note))
			}
		}
	}

	w("\n## Clusters\n\n")
	w("| cluster | VPC | read | nodes | Karpenter nodes | pods | Services | bindings | binding CRD | NodeClaim CRD | notes |\n")
	w("|---|---|---|---:|---:|---:|---:|---:|---|---|---|\n")
	for _, c := range r.Clusters {
		w("| %s | %s | %t | %d | %d | %d | %d | %d | %t | %t | %s |\n", md(c.Name), orDash(c.VPCID), c.Read, c.Nodes, c.KarpenterNodes,
			c.Pods, c.Services, c.Bindings, c.BindingCRD, c.NodeClaimCRD, md(strings.Join(c.Notes, "; ")))
	}

	w("\n## Accounts\n\n| account | Region | target groups | calls | retries | EC2 | quotas on targets |\n|---|---|---:|---|---:|---|---|\n")
	for _, a := range r.Accounts {
		w("| %s | %s | %d | %s | %d | %t | %s |\n", a.ID, a.Region, a.TargetGroups, callsLine(a.APICalls), a.Retries, a.EC2, md(quotasLine(a.Quotas)))
	}

	w("\n## Errors\n\n")
	if len(r.Errors) == 0 {
		w("None.\n")
	} else {
		w("| kind | resource | operation | category | message |\n|---|---|---|---|---|\n")
		for _, e := range r.Errors {
			w("| %s | `%s` | %s | %s | %s |\n", e.Kind, e.Resource, md(e.Op), e.Category, md(e.Message))
		}
	}
	return b.String()
}

func subject(r *Report, f Finding) string {
	if f.TargetGroupARN.IsZero() {
		return "cluster " + f.Cluster
	}
	for _, tg := range r.TargetGroups {
		if tg.ARN == f.TargetGroupARN.String() {
			return tg.Name
		}
	}
	return f.TargetGroupARN.String()
}

func scopeLine(s Scope) string {
	var parts []string
	if s.All {
		parts = append(parts, "all target groups")
	}
	if n := len(s.TargetGroupARNs); n > 0 {
		parts = append(parts, fmt.Sprintf("%d target-group ARNs", n))
	}
	if n := len(s.TargetGroupNames); n > 0 {
		parts = append(parts, "names "+strings.Join(s.TargetGroupNames, ","))
	}
	if n := len(s.LoadBalancerARNs); n > 0 {
		parts = append(parts, fmt.Sprintf("%d load balancers", n))
	}
	if len(s.Tags) > 0 {
		var tags []string
		for _, k := range slices.Sorted(maps.Keys(s.Tags)) {
			tags = append(tags, k+"="+s.Tags[k])
		}
		parts = append(parts, "tags "+strings.Join(tags, ","))
	}
	return strings.Join(parts, "; ")
}

func ownerLine(o Owner) string {
	var parts []string
	parts = append(parts, string(o.Kind))
	for _, b := range o.Bindings {
		parts = append(parts, fmt.Sprintf("binding %s/%s/%s (%s mode, Service %s port %s)", b.Cluster, b.Namespace, b.Name, b.Mode, b.ServiceName, b.ServicePort))
	}
	if o.Cluster != "" {
		parts = append(parts, "LBC cluster tag "+o.Cluster)
	}
	if o.Stack != "" {
		parts = append(parts, "stack "+o.Stack)
	}
	if o.Reason != "" {
		parts = append(parts, o.Reason)
	}
	return strings.Join(parts, "; ")
}

func unknownLine(u Unknown) string {
	what := u.Source
	if u.Cluster != "" {
		what = "cluster " + u.Cluster + " " + u.Source
	}
	return fmt.Sprintf("%s (%s): %s", what, u.Category, u.Effect)
}

// nextLine writes a NextCall as one line of key=value pairs.
func nextLine(c NextCall) string {
	parts := []string{string(c.Op)}
	if c.Strategy != "" {
		parts = append(parts, "strategy="+c.Strategy)
	}
	if c.Service != nil {
		svc := c.Service.Cluster + "/" + c.Service.Namespace + "/" + c.Service.Name
		switch {
		case c.Service.PortName != "":
			svc += ":" + c.Service.PortName
		case c.Service.Port != 0:
			svc += ":" + strconv.Itoa(int(c.Service.Port))
		}
		parts = append(parts, "service="+svc)
	}
	if c.Cluster != "" {
		parts = append(parts, "cluster="+c.Cluster)
	}
	if len(c.Namespaces) > 0 {
		parts = append(parts, "namespaces="+strings.Join(c.Namespaces, ","))
	}
	if c.Replaces != "" {
		parts = append(parts, "replaces="+c.Replaces)
	}
	if len(c.Missing) > 0 {
		parts = append(parts, "missing="+strings.Join(c.Missing, ","))
	}
	if c.Reason != "" {
		parts = append(parts, "reason: "+c.Reason)
	}
	return strings.Join(parts, " ")
}

func serviceLine(s *ServiceRef) string {
	if s == nil {
		return "unknown"
	}
	line := fmt.Sprintf("%s/%s/%s (from %s)", s.Cluster, s.Namespace, s.Name, s.Source)
	if !s.Found {
		return line + ", not found"
	}
	if s.Port != 0 {
		line += fmt.Sprintf(", port %d", s.Port)
		if s.PortName != "" {
			line += " (" + s.PortName + ")"
		}
		line += " → targetPort " + s.TargetPort
		if s.ResolvedTargetPort != 0 && s.TargetPort != strconv.Itoa(int(s.ResolvedTargetPort)) {
			line += fmt.Sprintf(" = %d", s.ResolvedTargetPort)
		}
		if s.NodePort != 0 {
			line += fmt.Sprintf(", NodePort %d", s.NodePort)
		}
	}
	return line
}

func serviceShort(s *ServiceRef) string {
	if s == nil {
		return "-"
	}
	return s.Namespace + "/" + s.Name
}

func healthCheckLine(h HealthCheck) string {
	if !h.Enabled {
		return "disabled"
	}
	line := fmt.Sprintf("%s port %s", orDash(h.Protocol), orDash(h.Port))
	if h.Path != "" {
		line += " path " + h.Path
	}
	if h.Matcher != "" {
		line += " matcher " + h.Matcher
	}
	return line
}

func routeLine(r Route) string {
	line := fmt.Sprintf("%s %s:%d", r.LoadBalancerName, orDash(r.ListenerProtocol), r.ListenerPort)
	switch {
	case r.Default:
		line += " default action"
	default:
		line += " rule priority " + r.Priority
	}
	if r.Weight != nil {
		line += fmt.Sprintf(" weight %d", *r.Weight)
	}
	return line
}

func countsLine(c TargetCounts) string {
	var parts []string
	for _, cl := range classes {
		if n := c.ByClass[cl]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, cl))
		}
	}
	for _, st := range slices.Sorted(maps.Keys(c.ByState)) {
		parts = append(parts, fmt.Sprintf("%d %s", c.ByState[st], st))
	}
	return strings.Join(parts, ", ")
}

// headroomLine writes a headroom as one line: the scope, the quota and
// where it comes from, the counts, the room.
func headroomLine(h Headroom) string {
	line := fmt.Sprintf("%s: peak %d of %s %d (%s), %d now", h.subject(), h.Peak, h.Quota.Name, h.Quota.Value, h.Quota.Source, h.Now)
	if h.Scope == ScopeLoadBalancer {
		line += fmt.Sprintf(" (%d in its other target groups)", h.Others)
	}
	return line + fmt.Sprintf(" + %d pod targets; room %d; %d after the cutover", h.Adding, h.Room, h.After)
}

// quotasLine writes the account's quotas on targets and where they come from.
func quotasLine(q *TargetQuotas) string {
	if q == nil {
		return "-"
	}
	return fmt.Sprintf("%d per target group, %d per ALB, %d per NLB: %s",
		q.PerTargetGroup.Value, q.PerApplicationLoadBalancer.Value, q.PerNetworkLoadBalancer.Value, q.Sourced())
}

func callsLine(calls map[string]int) string {
	var parts []string
	for _, op := range slices.Sorted(maps.Keys(calls)) {
		parts = append(parts, fmt.Sprintf("%s %d", op, calls[op]))
	}
	return orDash(strings.Join(parts, ", "))
}

func classLine(t TargetReport) string {
	if t.Foreign != "" {
		return fmt.Sprintf("%s (%s)", t.Class, t.Foreign)
	}
	return string(t.Class)
}

func heldBy(t TargetReport) string {
	switch {
	case t.HeldBy != nil:
		return "reused by " + t.HeldBy.String()
	case t.Pod != nil:
		return "pod " + t.Cluster + "/" + t.Pod.Namespace + "/" + t.Pod.Name
	case t.Node != nil:
		s := "node " + t.Cluster + "/" + t.Node.Name
		if t.Node.Karpenter {
			s += " (Karpenter " + t.Node.NodePool + ")"
		}
		if t.Node.Disrupting {
			s += " disrupting"
		}
		return s
	}
	return "-"
}

// The text helpers of the renderings, shared with the other reports.
var (
	orDash  = textcell.OrDash
	oneLine = textcell.OneLine
	md      = textcell.Markdown
)
