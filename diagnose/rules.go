package diagnose

import (
	"cmp"
	"slices"
)

// Code is a finding's stable identifier. The values are part of the public
// API: tools match on them, and they never change meaning.
type Code string

// The finding codes. [Rules] lists them with their severity, seed signal and
// generic remediation.
const (
	// CodeGhostTarget: a target whose IP no current node or pod holds.
	CodeGhostTarget Code = "GhostTarget"
	// CodeStaticNodeTarget: a hand-registered nodeIP:NodePort (or node
	// instance) target that no LBC binding keeps current.
	CodeStaticNodeTarget Code = "StaticNodeTarget"
	// CodeUnmanagedTargetGroup: a target group that neither a
	// TargetGroupBinding nor an LBC stack owns.
	CodeUnmanagedTargetGroup Code = "UnmanagedTargetGroup"
	// CodeKarpenterDisruptionRisk: static node targets on nodes Karpenter
	// manages; every rotation drops them.
	CodeKarpenterDisruptionRisk Code = "KarpenterDisruptionRisk"
	// CodeHealthCheckMismatch: the health check would fail, or already
	// fails, pod targets: a port pinned to a NodePort, a path or protocol
	// that differs from the pods' readiness probe.
	CodeHealthCheckMismatch Code = "HealthCheckMismatch"
	// CodePortMismatch: the target group's or the targets' ports do not line
	// up with the Service's port, targetPort or NodePort.
	CodePortMismatch Code = "PortMismatch"
	// CodePublicSubnetNode: a node target sits on a node with an ExternalIP
	// or in a subnet that routes to an internet gateway.
	CodePublicSubnetNode Code = "PublicSubnetNode"
	// CodeMissingReadinessGate: ip targets whose pods run without the LBC's
	// target-health readiness gate.
	CodeMissingReadinessGate Code = "MissingReadinessGate"
	// CodeDefaultModeBindingOnSharedGroup: a default-mode
	// TargetGroupBinding on a target group that holds targets it does not
	// own; the LBC deregisters them on its next reconcile.
	CodeDefaultModeBindingOnSharedGroup Code = "DefaultModeBindingOnSharedGroup"
	// CodeInstanceTypeTargetGroup: a hand-made target group of type
	// instance; its type cannot change, so it needs the blue/green path.
	CodeInstanceTypeTargetGroup Code = "InstanceTypeTargetGroup"
	// CodeBindingCRDMissing: a cluster does not serve the
	// TargetGroupBinding CRD, so the AWS Load Balancer Controller is not
	// installed there (or is too old). Not tied to a target group.
	CodeBindingCRDMissing Code = "TargetGroupBindingCRDMissing"
	// CodeOutsideTargetGroup: a target group that is not the scanned
	// clusters' business (a Lambda or ALB target group, instances that are
	// no node, addresses outside every cluster's VPC and ranges). It says
	// why Diagnose leaves it alone; no other finding is made on it.
	CodeOutsideTargetGroup Code = "OutsideTargetGroup"
	// CodeTargetQuotaOverlap: during the cutover, the node targets and the
	// pod targets the controller registers would together exceed a quota
	// on targets (the target group's, or its load balancer's across all
	// its target groups), although the end state fits: an unbounded
	// overlap fails with TooManyTargets.
	CodeTargetQuotaOverlap Code = "TargetQuotaOverlap"
	// CodeTargetQuotaExceeded: even once the cutover has deregistered the
	// node targets and ghosts, the pod targets exceed a quota on targets:
	// the quota must be raised first.
	CodeTargetQuotaExceeded Code = "TargetQuotaExceeded"
)

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

// Seed signals: the symptom a platform team sees, one per code. A finding
// carries its code's signal so that a report reads from symptom to cause.
const (
	SignalGhostTarget                     = "5xx/503 spikes after Karpenter rotates nodes"
	SignalStaticNodeTarget                = "traffic goes to node IPs registered by hand; new nodes never receive any"
	SignalUnmanagedTargetGroup            = "targets go stale: nothing registers new pods or deregisters old ones"
	SignalKarpenterDisruptionRisk         = "outages line up with Karpenter consolidation, drift or expiry"
	SignalHealthCheckMismatch             = "targets stay unhealthy (or flap) while the pods are Ready"
	SignalPortMismatch                    = "health checks pass but requests hit the wrong port, or the LBC registers nothing"
	SignalPublicSubnetNode                = "nodes are reachable from the internet, and moving them breaks the ALB"
	SignalMissingReadinessGate            = "502/504 during rolling deploys: old pods stop before new targets are healthy"
	SignalDefaultModeBindingOnSharedGroup = "all targets drain at once when the TargetGroupBinding reconciles"
	SignalInstanceTypeTargetGroup         = "the target type cannot be switched to ip in place"
	SignalBindingCRDMissing               = "nothing in the cluster can keep target groups current"
	SignalOutsideTargetGroup              = "none: it serves something other than the scanned clusters"
	SignalTargetQuotaOverlap              = "the cutover stalls: RegisterTargets fails with TooManyTargets while node and pod targets overlap"
	SignalTargetQuotaExceeded             = "pods never become targets: RegisterTargets fails with TooManyTargets whatever the cutover does"
)

// Rule is the fixed part of a finding code: what it means, how urgent it is,
// the symptom it explains, and the next call to make.
type Rule struct {
	// Code is the stable identifier.
	Code Code `json:"code"`
	// Severity is the severity every finding of this code carries.
	Severity Severity `json:"severity"`
	// Signal is the seed signal: the symptom the finding explains.
	Signal string `json:"signal"`
	// Remediation names the next library call, in general terms; a finding's
	// own remediation fills in the names.
	Remediation string `json:"remediation"`
}

var rules = []Rule{
	{CodeGhostTarget, SeverityCritical, SignalGhostTarget,
		"cutover.PlanCutover, strategy in-place for an ip target group (it deregisters the ghosts first, with their Port, and hands the target group to the LBC) or blue-green for an instance one"},
	{CodeDefaultModeBindingOnSharedGroup, SeverityCritical, SignalDefaultModeBindingOnSharedGroup,
		"tgbind.Build with MultiClusterTargetGroup true, replacing the binding before its next reconcile (the flag cannot be flipped in place)"},
	{CodeTargetQuotaExceeded, SeverityCritical, SignalTargetQuotaExceeded,
		"request an increase of the quota (Service Quotas) to at least the count after the cutover, then cutover.PlanCutover"},
	{CodeStaticNodeTarget, SeverityHigh, SignalStaticNodeTarget,
		"cutover.PlanCutover (in-place for ip, blue-green for instance): it builds the binding (targetType ip, MultiClusterTargetGroup true) and deregisters the node targets once the pods are healthy"},
	{CodeKarpenterDisruptionRisk, SeverityHigh, SignalKarpenterDisruptionRisk,
		"cutover.PlanCutover (in-place for ip, blue-green for instance) before the next disruption; until then, karpenter.sh/do-not-disrupt only blocks graceful disruption"},
	{CodeInstanceTypeTargetGroup, SeverityHigh, SignalInstanceTypeTargetGroup,
		"cutover.PlanCutover with strategy blue-green: a new ip target group, weighted forwarding, then retire this one"},
	{CodeTargetQuotaOverlap, SeverityHigh, SignalTargetQuotaOverlap,
		"cutover.PlanCutover: it bounds the overlap, deregistering node targets down to the healthy floor before the controller registers the pods; or request an increase of the quota to the peak"},
	{CodePortMismatch, SeverityHigh, SignalPortMismatch,
		"tgbind.Build with the Service port that maps to the targets' port"},
	{CodeHealthCheckMismatch, SeverityMedium, SignalHealthCheckMismatch,
		"cutover.PlanCutover: its health-check step sets port traffic-port and the readiness probe's path and protocol"},
	{CodeMissingReadinessGate, SeverityMedium, SignalMissingReadinessGate,
		"label the namespace elbv2.k8s.aws/pod-readiness-gate-inject=enabled before tgbind.Build, and restart the pods once the binding exists"},
	{CodeUnmanagedTargetGroup, SeverityMedium, SignalUnmanagedTargetGroup,
		"tgbind.Build for the Service it serves, with MultiClusterTargetGroup true"},
	{CodePublicSubnetNode, SeverityLow, SignalPublicSubnetNode,
		"cutover.Execute first; move the nodes to private subnets only once no target group pins node IPs"},
	{CodeBindingCRDMissing, SeverityInfo, SignalBindingCRDMissing,
		"install the AWS Load Balancer Controller (v2.10.0 or later for MultiClusterTargetGroup), then tgbind.Build"},
	{CodeOutsideTargetGroup, SeverityInfo, SignalOutsideTargetGroup,
		"none: left alone, it is not the scanned clusters' target group"},
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
