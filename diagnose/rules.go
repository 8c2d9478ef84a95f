package diagnose

// This file holds what every finding has (Code, Severity, Rule), the rule
// interfaces, ruleTable (the one ordered list of the rules, each in its
// rule_*.go file), and the runners that apply it to a target group and to
// the clusters.

import (
	"cmp"
	"slices"
)

// Code is a finding's stable identifier. The values are part of the public
// API: tools match on them, and they never change meaning. Each rule_*.go
// file declares the codes its rule makes, each with its seed signal;
// [Rules] lists them all with their severity and generic remediation.
type Code string

// Severity grades a finding. From the most to the least urgent: critical,
// high, medium, low, info.
type Severity string

// The severities.
const (
	// SeverityCritical: traffic is failing now, or the next reconcile makes it fail.
	SeverityCritical Severity = "critical"
	// SeverityHigh: the next node rotation or deploy makes traffic fail.
	SeverityHigh Severity = "high"
	// SeverityMedium: breaks the migration or a later step of it.
	SeverityMedium Severity = "medium"
	// SeverityLow: worth fixing; nothing fails because of it.
	SeverityLow Severity = "low"
	// SeverityInfo: context for the other findings.
	SeverityInfo Severity = "info"
)

// Rank orders severities: 0 for critical up to 4 for info, 5 for an unknown value.
func (s Severity) Rank() int {
	switch s {
	case SeverityCritical:
		return 0
	case SeverityHigh:
		return 1
	case SeverityMedium:
		return 2
	case SeverityLow:
		return 3
	case SeverityInfo:
		return 4
	}
	return 5
}

// Rule is the fixed part of a finding code: what it means, how urgent it is,
// the symptom it explains, and the next call to make.
type Rule struct {
	// Code is the stable identifier.
	Code Code `json:"code"`
	// Severity is the severity every finding of this code carries.
	Severity Severity `json:"severity"`
	// Signal is the seed signal: the symptom the finding explains. A finding
	// carries its code's signal so that a report reads from symptom to
	// cause.
	Signal string `json:"signal"`
	// Remediation names the next library call, in general terms; a finding's
	// own remediation fills in the names.
	Remediation string `json:"remediation"`
}

// A rule makes the findings of one code, or of a small family of codes
// that rest on the same evidence. Each lives in its own rule_*.go file,
// with its codes, its seed signals and its remediation; [ruleTable] lists
// them. A rule is a targetGroupRule or a clusterRule.
type rule interface {
	// rules returns the fixed part of each code the rule makes.
	rules() []Rule
}

// targetGroupRule judges one target group, once its analysis is complete
// (owner, Service, subnet checks, headroom).
type targetGroupRule interface {
	rule
	// judge returns the rule's findings on the target group of a; nil for
	// none.
	judge(a *analysis) []Finding
}

// clusterRule judges one cluster, for [Report.Findings].
type clusterRule interface {
	rule
	// judgeCluster returns the rule's findings on the cluster of s; nil for
	// none.
	judgeCluster(s *Snapshot) []Finding
}

// ruleTable lists every rule once: adding a rule is its rule_*.go file
// and one line here. findings runs the target-group rules on each target
// group in this order, and clusterFindings the cluster rules on each
// cluster. No rule reads another's findings, and the report sorts them
// (compareFindings, a stable sort by severity, code, target group,
// cluster and message), so the order decides only between findings equal
// on all of those. It is the order the rules ran in before this table,
// kept so that reports stay byte-identical; a new rule goes anywhere.
var ruleTable = []rule{
	// For a target group outside the scanned clusters' business, findings
	// runs this rule alone, wherever it sits.
	outsideRule{},
	ghostRule{},
	// karpenterRule judges a subset of staticNodeRule's node targets (those
	// on Karpenter nodes): the two sit together.
	staticNodeRule{},
	karpenterRule{},
	// instanceTypeRule judges the unmanaged target groups of type instance,
	// a subset of unmanagedRule's: the two sit together.
	unmanagedRule{},
	instanceTypeRule{},
	healthCheckRule{},
	portRule{},
	publicSubnetRule{},
	readinessGateRule{},
	defaultModeRule{},
	// It reads the headroom, which is computed before any rule runs
	// (addFindings comes after the quota checks). Last, as it always ran.
	quotaRule{},
	// The one cluster rule: clusterFindings runs it, findings never does.
	bindingCRDRule{},
}

// rules are the fixed parts of every code, in table order.
var rules = func() []Rule {
	var out []Rule
	for _, r := range ruleTable {
		out = append(out, r.rules()...)
	}
	return out
}()

// findings runs the target-group rules of [ruleTable] on the target group,
// in table order. A target group outside the scanned clusters' business is
// left alone: outsideRule alone judges it.
func (a *analysis) findings() []Finding {
	var out []Finding
	for _, r := range ruleTable {
		tr, ok := r.(targetGroupRule)
		if !ok {
			continue
		}
		if _, isOutside := r.(outsideRule); a.rep.Owner.Kind == OwnerOutside && !isOutside {
			continue
		}
		out = append(out, tr.judge(a)...)
	}
	return out
}

// clusterFindings are the findings not tied to a target group: the cluster
// rules of [ruleTable], cluster by cluster.
func clusterFindings(snaps []*Snapshot) []Finding {
	var out []Finding
	for _, s := range snaps {
		for _, r := range ruleTable {
			if cr, ok := r.(clusterRule); ok {
				out = append(out, cr.judgeCluster(s)...)
			}
		}
	}
	return out
}

// Rules returns every finding code's rule, most severe first, then by code.
func Rules() []Rule {
	out := slices.Clone(rules)
	slices.SortStableFunc(out, func(a, b Rule) int {
		if d := a.Severity.Rank() - b.Severity.Rank(); d != 0 {
			return d
		}
		return cmp.Compare(a.Code, b.Code)
	})
	return out
}

// RuleFor returns the rule of code, and false for an unknown code.
func RuleFor(code Code) (Rule, bool) {
	for _, r := range rules {
		if r.Code == code {
			return r, true
		}
	}
	return Rule{}, false
}
