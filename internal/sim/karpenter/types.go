package karpenter

// types.go: Reason, Budget, NodePool and the package's errors.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// Karpenter's well-known names.
const (
	LabelNodePool     = "karpenter.sh/nodepool"
	LabelCapacityType = "karpenter.sh/capacity-type"
	LabelRegistered   = "karpenter.sh/registered"
	LabelInitialized  = "karpenter.sh/initialized"
	// TaintDisrupted is put on a node when its disruption starts.
	TaintDisrupted = "karpenter.sh/disrupted"
	// AnnotationDoNotDisrupt on a pod or a node blocks graceful disruption.
	AnnotationDoNotDisrupt = "karpenter.sh/do-not-disrupt"
	// LabelExcludeFromLB is put on a node when its drain starts; it helps
	// only the LBC's instance-mode targets.
	LabelExcludeFromLB = "node.kubernetes.io/exclude-from-external-load-balancers"
	// ExcludeFromLBValue is the value Karpenter gives that label
	// (node/termination/terminator/terminator.go).
	ExcludeFromLBValue = "karpenter"
	// FinalizerTermination is on every NodeClaim until its instance is gone.
	FinalizerTermination = "karpenter.sh/termination"
)

// Reason is why a node is disrupted, as Karpenter's budgets name it.
type Reason string

// The disruption reasons. Underutilized, Empty and Drifted are graceful:
// NodePool budgets and karpenter.sh/do-not-disrupt apply. The others are
// forceful: neither applies, but the drain still honours
// PodDisruptionBudgets.
const (
	ReasonUnderutilized Reason = "Underutilized" // consolidation
	ReasonEmpty         Reason = "Empty"         // consolidation
	ReasonDrifted       Reason = "Drifted"
	ReasonExpired       Reason = "Expired"     // NodeClaim expireAfter
	ReasonInterrupted   Reason = "Interrupted" // spot interruption: the instance goes 2 minutes after the notice
	ReasonDeleted       Reason = "Deleted"     // manual deletion of the Node or NodeClaim
)

// SpotInterruptionNotice is the warning EC2 gives before it reclaims a spot
// instance: the drain of an interrupted node is cut off after it.
const SpotInterruptionNotice = 2 * time.Minute

// Graceful reports whether budgets and do-not-disrupt apply to r.
func (r Reason) Graceful() bool {
	return r == ReasonUnderutilized || r == ReasonEmpty || r == ReasonDrifted
}

func (r Reason) valid() bool {
	switch r {
	case ReasonUnderutilized, ReasonEmpty, ReasonDrifted, ReasonExpired, ReasonInterrupted, ReasonDeleted:
		return true
	}
	return false
}

// Budget is a NodePool disruption budget: at most Nodes nodes of the pool
// may be disrupted at once, for the given graceful reasons, while the
// budget is active (always, or in the window Schedule and Duration say).
type Budget struct {
	// Nodes is a count ("1") or a percentage of the pool's nodes ("10%",
	// rounded up). Required.
	Nodes string
	// Reasons are the graceful reasons the budget limits. Nil: all of them.
	Reasons []Reason
	// Schedule is a cron schedule in UTC (five fields, or a descriptor
	// such as @daily) at which the budget's window opens; Duration is the
	// window's length, in whole minutes. Both or neither: without them the
	// budget is always active; with them, only while the last hit of the
	// schedule is at most Duration ago, on the virtual clock.
	Schedule string
	Duration time.Duration
}

func (b Budget) parse() (intstr.IntOrString, error) {
	s := strings.TrimSpace(b.Nodes)
	if strings.HasSuffix(s, "%") {
		v, err := strconv.Atoi(strings.TrimSuffix(s, "%"))
		if err != nil || v < 0 || v > 100 {
			return intstr.IntOrString{}, fmt.Errorf("nodes %q is not a percentage 0-100%%", b.Nodes)
		}
		return intstr.FromString(s), nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		return intstr.IntOrString{}, fmt.Errorf("nodes %q is not a count or a percentage", b.Nodes)
	}
	return intstr.FromInt32(int32(v)), nil
}

// NodePool is the pool every simulated node belongs to.
type NodePool struct {
	// Name of the pool. Zero: "default".
	Name string
	// Budgets limit graceful disruption. Nil: one budget of "10%", as
	// Karpenter defaults.
	Budgets []Budget
	// ExpireAfter is the NodeClaims' lifetime; at expiry a node is
	// disrupted forcefully. Zero: 720h, Karpenter's default. Negative:
	// Never.
	ExpireAfter time.Duration
	// TerminationGracePeriod caps a drain: when it has run this long, the
	// pods left are deleted, PDBs or not, and the instance terminated.
	// Zero: no cap (Karpenter's default).
	TerminationGracePeriod time.Duration
	// CapacityType labels the nodes. Zero: "on-demand".
	CapacityType string
	// InstanceType of the nodes the scenario starts with. Zero:
	// "m5.large". Its price must be known ([InstancePrice]).
	InstanceType string
	// InstanceTypes the pool may launch (the NodePool's instance-type
	// requirement); replacements are the cheapest of them, and
	// consolidation replaces a node only by a cheaper one. Nil:
	// InstanceType alone. Every price must be known.
	InstanceTypes []string
	// ConsolidationPolicy says which Consolidatable nodes consolidation may
	// disrupt. Zero: WhenEmptyOrUnderutilized, as Karpenter defaults.
	// Nodes are Consolidatable when the consolidation churn or a caller
	// says so ([Karpenter.ReplaceNode] with Underutilized or Empty).
	ConsolidationPolicy ConsolidationPolicy
	// Public puts the nodes in public subnets, with ExternalIPs.
	Public bool
}

// ErrInvalidConfig: an option, budget or request is invalid. Nothing was
// changed.
var ErrInvalidConfig = errors.New("invalid configuration")

// ErrNotFound: no node of that name is managed.
var ErrNotFound = errors.New("not found")

// ConfigError names the culprit. It unwraps to [ErrInvalidConfig].
type ConfigError struct {
	// Op is the operation, for example "replace node".
	Op string
	// Field names the culprit.
	Field string
	// Reason says what is wrong with it.
	Reason string
}

// Error implements error.
func (e *ConfigError) Error() string {
	return fmt.Sprintf("karpenter: %s: %s: %s", e.Op, e.Field, e.Reason)
}

// Unwrap returns [ErrInvalidConfig].
func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }
