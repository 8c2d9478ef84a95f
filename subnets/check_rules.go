package subnets

// check_rules.go: what the checks share: the fixed part of each of
// subnets' finding codes (Rules, RuleFor) and the making of a finding.

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/qstools/tgmigrate/diagnose"
)

// rules are the fixed parts of subnets' codes, each declared in its
// check_*.go file, in check order.
var rules = slices.Concat(pinnedRules, subnetRules, loadBalancerRules, securityGroupRules, karpenterRules)

// Rules returns the fixed part of every code a readiness finding can
// carry, most severe first, then by code. The codes are subnets' own
// [diagnose.Code] values; they never collide with diagnose's.
func Rules() []diagnose.Rule {
	out := slices.Clone(rules)
	slices.SortStableFunc(out, func(a, b diagnose.Rule) int {
		return cmp.Or(cmp.Compare(a.Severity.Rank(), b.Severity.Rank()), cmp.Compare(a.Code, b.Code))
	})
	return out
}

// RuleFor returns the rule of code, and false for a code that is not
// subnets'.
func RuleFor(code diagnose.Code) (diagnose.Rule, bool) {
	i := slices.IndexFunc(rules, func(r diagnose.Rule) bool { return r.Code == code })
	if i < 0 {
		return diagnose.Rule{}, false
	}
	return rules[i], true
}

// add records a finding of code with its code's severity and signal, its
// evidence sorted, and remediation (the rule's when empty).
func (r *run) add(code diagnose.Code, msg string, ev diagnose.Evidence, remediation string, next diagnose.NextCall) {
	rule, _ := RuleFor(code)
	slices.Sort(ev.ARNs)
	ev.ARNs = slices.Compact(ev.ARNs)
	slices.Sort(ev.Names)
	ev.Names = slices.Compact(ev.Names)
	r.rep.Findings = append(r.rep.Findings, diagnose.Finding{
		Code: code, Severity: rule.Severity, Signal: rule.Signal, Message: msg, Cluster: r.in.Cluster,
		Evidence: ev, Remediation: cmp.Or(remediation, rule.Remediation), Next: next,
	})
}

// manual is the next call of an AWS-side or by-hand fix.
func (r *run) manual(reason string) diagnose.NextCall {
	return diagnose.NextCall{Op: diagnose.OpManual, Cluster: r.in.Cluster, Reason: reason}
}

// joinList joins items with ", ".
func joinList(items []string) string { return strings.Join(items, ", ") }

// joinSteps numbers steps on one line: "1) …; 2) …".
func joinSteps(steps []string) string {
	parts := make([]string, len(steps))
	for i, s := range steps {
		parts[i] = strconv.Itoa(i+1) + ") " + s
	}
	return strings.Join(parts, "; ")
}
