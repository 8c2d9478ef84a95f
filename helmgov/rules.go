package helmgov

// This file holds [Severity], [RuleID], [Rule] and the ordered table of
// rules ([Rules]); each rule is a file of its own, rule_hNNN_*.go. Also the
// annotations and labels the rules read and write, and the drain-timing
// defaults.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/envelope"
)

// Severity grades a finding. The zero value is not a severity: a
// [RuleConfig] with it keeps the rule's default.
type Severity int

// The severities, in increasing order.
const (
	SeverityInfo Severity = iota + 1
	SeverityWarning
	SeverityError
)

var severityNames = map[Severity]string{SeverityInfo: "info", SeverityWarning: "warning", SeverityError: "error"}

// String is "info", "warning" or "error".
func (s Severity) String() string {
	if n, ok := severityNames[s]; ok {
		return n
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// ParseSeverity parses "info", "warning" (or "warn") and "error",
// case-insensitively. Anything else is an [ErrUsage].
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "info":
		return SeverityInfo, nil
	case "warning", "warn":
		return SeverityWarning, nil
	case "error":
		return SeverityError, nil
	}
	return 0, usagef("parse severity %q: want info, warning or error", s)
}

// MarshalText writes the name.
func (s Severity) MarshalText() ([]byte, error) {
	if _, ok := severityNames[s]; !ok {
		return nil, usagef("marshal severity %d", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText parses the name with [ParseSeverity].
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// RuleID is a rule's stable identifier, such as "TGM-H001". IDs are public
// API: they appear in configuration, suppression annotations and SARIF, and
// are never reused for another meaning. Each rule's file declares its ID
// (rule_h001_service_lb_type.go: [RuleServiceLBType], and so on); doc.go
// has the table, and [Rules] returns their documentation.
type RuleID string

// Rule documents one rule.
type Rule struct {
	// ID is the stable identifier.
	ID RuleID `json:"id"`
	// Name is a short kebab-case name, for humans.
	Name string `json:"name"`
	// Severity is the default severity; [Config] can change it.
	Severity Severity `json:"severity"`
	// Summary is one line: what the rule wants.
	Summary string `json:"summary"`
	// Doc says why, and what the fix does or why there is none.
	Doc string `json:"doc"`
	// Fixable says whether [Checker.Fix] can fix some of its findings.
	Fixable bool `json:"fixable"`
}

// Rules returns every rule, ordered by ID. The slice is a copy.
func Rules() []Rule {
	out := make([]Rule, len(ruleTable))
	copy(out, ruleTable)
	return out
}

// LookupRule returns the rule with the ID, case-insensitively.
func LookupRule(id string) (Rule, bool) {
	for _, r := range ruleTable {
		if strings.EqualFold(string(r.ID), strings.TrimSpace(id)) {
			return r, true
		}
	}
	return Rule{}, false
}

// rule is one rule as a unit, in a file of its own (rule_hNNN_*.go), which
// also declares its [RuleID]: adding a rule is that file and one line of
// [rules].
type rule interface {
	// doc is the rule's documentation: its ID, default severity, what it
	// wants, and what its fix does or why it has none.
	doc() Rule
	// check gathers the rule's evidence from the indexed objects (see
	// checkState.index) and records its findings, each with the [Change]
	// that fixes it, if any.
	check(s *checkState)
}

// rules is every rule, in the order [Checker.Check] runs them. Check sorts
// the findings (by source, object, rule and path) before it returns them,
// and a rule records each finding once, so the order below changes no
// finding; it decides only the order of notices that sort equal.
var rules = []rule{
	kindServed{},    // TGM-H012 first: its notices on unknown kinds come before any other rule's, as when the walk recorded them
	invalidObject{}, // TGM-H013: decode errors the walk found, reported before the rules that read the decoded objects
	// The rules on the objects themselves, by ID: none depends on another.
	serviceLBType{},     // TGM-H001
	serviceTargetType{}, // TGM-H002
	ingressTargetType{}, // TGM-H003
	tgbTargetType{},     // TGM-H004
	tgbMultiCluster{},   // TGM-H005
	healthCheckPort{},   // TGM-H006
	// The rules on what sits behind the LBC's targets (checkState.workloads).
	namespaceReadiness{},  // TGM-H007: its notices (a namespace outside the manifests) after TGM-H012's
	workloadPreStop{},     // TGM-H008
	workloadGracePeriod{}, // TGM-H009: covers the delay TGM-H008 asks for, but reads it itself
	workloadPDB{},         // TGM-H010
	nodePortUnbound{},     // TGM-H011
}

// ruleTable is the documentation of [rules], ordered by ID. It is filled
// by init, after the package's variables: the documentation reads
// defaultPreStopSeconds and the like.
var ruleTable []Rule

func init() {
	ruleTable = make([]Rule, len(rules))
	for i, r := range rules {
		ruleTable[i] = r.doc()
	}
	slices.SortFunc(ruleTable, func(a, b Rule) int { return cmp.Compare(a.ID, b.ID) })
}

// The defaults of [Options.PreStopSeconds] and [Options.GracePaddingSeconds]
// come from internal/envelope, the one definition of the AWS timings the
// product plans under, so that what helmgov's fixes write is what
// cutover's plan asks of a workload.
var (
	// defaultPreStopSeconds is the envelope's safe preStop delay: the worst
	// reported deregistration lag plus the controller's delay (130).
	defaultPreStopSeconds = seconds(envelope.Default().SafePreStop())
	// defaultGracePaddingSeconds is the envelope's shutdown margin (30).
	defaultGracePaddingSeconds = seconds(envelope.ShutdownMargin)
	// defaultPreStopWhy says where defaultPreStopSeconds comes from, in
	// TGM-H008's findings.
	defaultPreStopWhy = fmt.Sprintf("the worst reported deregistration lag, %d s, plus %d s for the LBC to deregister a terminating pod",
		seconds(envelope.Default().Lag()), seconds(envelope.Default().Controller()))
)

// seconds is d in whole seconds.
func seconds(d time.Duration) int64 { return int64(d / time.Second) }

// The annotations and labels the rules read and write.
const (
	annLBType          = "service.beta.kubernetes.io/aws-load-balancer-type"
	annNLBTargetType   = "service.beta.kubernetes.io/aws-load-balancer-nlb-target-type"
	annSvcHCPort       = "service.beta.kubernetes.io/aws-load-balancer-healthcheck-port"
	annALBTargetType   = "alb.ingress.kubernetes.io/target-type"
	annALBHCPort       = "alb.ingress.kubernetes.io/healthcheck-port"
	annIngressClass    = "kubernetes.io/ingress.class"
	labelReadinessGate = tgmigrate.LabelReadinessGateInject

	// SuppressAnnotation suppresses rules on one object. Its value is a
	// comma-separated list of rule IDs, for example "TGM-H005,TGM-H010".
	// Suppressed findings stay in the result, marked, and never count
	// towards the exit code.
	SuppressAnnotation = "tgmigrate.qstools.io/ignore"

	lbcNLBClass       = "service.k8s.aws/nlb"
	albController     = "ingress.k8s.aws/alb"
	trafficPort       = "traffic-port"
	defaultALBClass   = "alb"
	defaultNodePortLo = 30000
	defaultNodePortHi = 32767
)
