package diagnose

// This file is the rule of the two quota codes, TargetQuotaOverlap and
// TargetQuotaExceeded, made from the headroom that headroom.go computes.

import (
	"fmt"
	"strconv"
	"strings"
)

// CodeTargetQuotaOverlap: during the cutover, the node targets and the
// pod targets the controller registers would together exceed a quota
// on targets (the target group's, or its load balancer's across all
// its target groups), although the end state fits: an unbounded
// overlap fails with TooManyTargets.
const CodeTargetQuotaOverlap Code = "TargetQuotaOverlap"

// SignalTargetQuotaOverlap is the seed signal of [CodeTargetQuotaOverlap].
const SignalTargetQuotaOverlap = "the cutover stalls: RegisterTargets fails with TooManyTargets while node and pod targets overlap"

// CodeTargetQuotaExceeded: even once the cutover has deregistered the
// node targets and ghosts, the pod targets exceed a quota on targets:
// the quota must be raised first.
const CodeTargetQuotaExceeded Code = "TargetQuotaExceeded"

// SignalTargetQuotaExceeded is the seed signal of [CodeTargetQuotaExceeded].
const SignalTargetQuotaExceeded = "pods never become targets: RegisterTargets fails with TooManyTargets whatever the cutover does"

// quotaRule makes TargetQuotaOverlap and TargetQuotaExceeded from the
// target group's headroom ([TargetGroupReport].Headroom), which the quota
// checks compute before the findings are made.
type quotaRule struct{}

var _ targetGroupRule = quotaRule{}

func (quotaRule) rules() []Rule {
	return []Rule{
		{CodeTargetQuotaOverlap, SeverityHigh, SignalTargetQuotaOverlap,
			"cutover.PlanCutover: it bounds the overlap, deregistering node targets down to the healthy floor before the controller registers the pods; or request an increase of the quota to the peak"},
		{CodeTargetQuotaExceeded, SeverityCritical, SignalTargetQuotaExceeded,
			"request an increase of the quota (Service Quotas) to at least the count after the cutover, then cutover.PlanCutover"},
	}
}

// judge reports each headroom whose quota the cutover would
// exceed: TargetQuotaExceeded when even the count after the cutover does,
// TargetQuotaOverlap when only the overlap's peak does.
func (quotaRule) judge(a *analysis) []Finding {
	var out []Finding
	for _, h := range a.rep.Headroom {
		if !h.Exceeded() && h.After <= h.Quota.Value {
			continue
		}
		subject := h.subject()
		others := ""
		if h.Scope == ScopeLoadBalancer {
			others = fmt.Sprintf(", of them %d in other target groups", h.Others)
		}
		msg := fmt.Sprintf("cutover overlap on %s: peak %d targets against %s %d%s (%d now%s, + %d pod targets); room %d; after the cutover: %d",
			subject, h.Peak, h.Quota.Name, h.Quota.Value, quotaSourceNote(h.Quota), h.Now, others, h.Adding, h.Room, h.After)
		ev := Evidence{
			Counts: map[string]int{"now": h.Now, "adding": h.Adding, "peak": h.Peak, "after": h.After, "quota": h.Quota.Value},
			Details: map[string]string{"scope": string(h.Scope), "quotaCode": h.Quota.Code, "quotaName": h.Quota.Name,
				"quotaSource": string(h.Quota.Source), "room": strconv.Itoa(h.Room)},
		}
		if h.Scope == ScopeLoadBalancer {
			ev.ARNs, ev.Counts["others"] = []string{h.ARN}, h.Others
		}
		hr := h
		ev.Headroom = &hr
		if h.After > h.Quota.Value {
			hint := h.Quota.IncreaseHint(h.After, a.rep.Region)
			reason := fmt.Sprintf("even after the cutover, %d targets exceed %s %d on %s: %s; then cutover.PlanCutover", h.After, h.Quota.Name, h.Quota.Value, subject, hint)
			if h.Peak > h.After {
				reason += ", which bounds the overlap"
			}
			out = append(out, a.finding(CodeTargetQuotaExceeded, msg, ev, reason, NextCall{Op: OpManual, TargetGroupARN: a.arn, Reason: reason}))
			continue
		}
		bound := fmt.Sprintf("PlanCutover bounds the overlap: it deregisters node targets down to what the healthy floor needs before the controller registers the pods, so that the peak stays within %s %d; or %s",
			h.Quota.Name, h.Quota.Value, h.Quota.IncreaseHint(h.Peak, a.rep.Region))
		next := a.cutoverCall()
		if next.Op == OpPlanCutover {
			next.Reason = bound
		}
		out = append(out, a.finding(CodeTargetQuotaOverlap, msg, ev, a.cutoverProse(next, bound), next))
	}
	return out
}

// quotaSourceNote says where a quota comes from when it is a default, ""
// for the account's applied value.
func quotaSourceNote(q Quota) string {
	switch {
	case q.Source == QuotaServiceDefault:
		return " (Service Quotas' default: no applied value for the account)"
	case q.Source == QuotaDocumentedDefault && (q.Note == NoServiceQuotas || q.Note == NoQuotasRead):
		return " (AWS default; Service Quotas not read)"
	case q.Source == QuotaDocumentedDefault:
		return " (AWS default; " + strings.TrimSuffix(q.Note, ": AWS's documented default") + ")"
	}
	return ""
}
