package diagnose

// This file holds the rules on a target group's owner: OutsideTargetGroup
// (not the scanned clusters' business, left alone), UnmanagedTargetGroup
// (nobody owns it) and InstanceTypeTargetGroup (nobody owns it, and its
// type is instance).

import (
	"fmt"

	"github.com/qstools/tgmigrate/internal/textcell"
)

// CodeOutsideTargetGroup: a target group that is not the scanned
// clusters' business (a Lambda or ALB target group, instances that are
// no node, addresses outside every cluster's VPC and ranges). It says
// why Diagnose leaves it alone; no other finding is made on it.
const CodeOutsideTargetGroup Code = "OutsideTargetGroup"

// SignalOutsideTargetGroup is the seed signal of [CodeOutsideTargetGroup].
const SignalOutsideTargetGroup = "none: it serves something other than the scanned clusters"

// outsideRule makes OutsideTargetGroup, the one finding on a target group
// that is not the scanned clusters' business.
type outsideRule struct{}

var _ targetGroupRule = outsideRule{}

func (outsideRule) rules() []Rule {
	return []Rule{{CodeOutsideTargetGroup, SeverityInfo, SignalOutsideTargetGroup,
		"none: left alone, it is not the scanned clusters' target group"}}
}

// judge is the one line about a target group that is not the scanned
// clusters' business: why it is left alone. Nothing for the others.
func (outsideRule) judge(a *analysis) []Finding {
	if a.rep.Owner.Kind != OwnerOutside {
		return nil
	}
	why := a.rep.Owner.Reason
	msg := "left alone: " + why
	return []Finding{a.finding(CodeOutsideTargetGroup, msg, Evidence{
		Counts:  map[string]int{"targets": len(a.rep.Targets)},
		Details: map[string]string{"targetType": a.rep.TargetType},
	}, "none: not the scanned clusters' target group ("+why+")", NextCall{Op: OpNone, Reason: why})}
}

// CodeUnmanagedTargetGroup: a target group that neither a
// TargetGroupBinding nor an LBC stack owns.
const CodeUnmanagedTargetGroup Code = "UnmanagedTargetGroup"

// SignalUnmanagedTargetGroup is the seed signal of [CodeUnmanagedTargetGroup].
const SignalUnmanagedTargetGroup = "targets go stale: nothing registers new pods or deregisters old ones"

// unmanagedRule makes UnmanagedTargetGroup: no TargetGroupBinding and no
// LBC stack owns the target group.
type unmanagedRule struct{}

var _ targetGroupRule = unmanagedRule{}

func (unmanagedRule) rules() []Rule {
	return []Rule{{CodeUnmanagedTargetGroup, SeverityMedium, SignalUnmanagedTargetGroup,
		"tgbind.Build for the Service it serves, with MultiClusterTargetGroup true"}}
}

func (unmanagedRule) judge(a *analysis) []Finding {
	if a.rep.Owner.Kind != OwnerUnmanaged {
		return nil
	}
	msg := fmt.Sprintf("no TargetGroupBinding and no LBC tags: %s, registered by hand or by another tool", textcell.Plural(len(a.rep.Targets), "target", "targets"))
	var names []string
	if a.service != nil && a.service.svc != nil {
		names = append(names, a.service.ref.Namespace+"/"+a.service.ref.Name)
		msg += fmt.Sprintf("; it serves Service %s/%s (from %s)", a.service.ref.Namespace, a.service.ref.Name, a.service.ref.Source)
	}
	next := a.withService(NextCall{Op: OpBuildBinding, TargetGroupARN: a.arn})
	rem := fmt.Sprintf("tgbind.Build for %s with MultiClusterTargetGroup true", a.serviceArg())
	if a.rep.TargetType != "ip" {
		// A binding cannot put pod IPs into an instance target group.
		next = a.cutoverCall()
		rem = a.cutoverProse(next, "a binding cannot put pod IPs into an instance target group, so a new ip target group bound to the Service takes over")
	}
	return []Finding{a.finding(CodeUnmanagedTargetGroup, msg, Evidence{Names: names, Counts: map[string]int{"targets": len(a.rep.Targets)}}, rem, next)}
}

// CodeInstanceTypeTargetGroup: a hand-made target group of type
// instance; its type cannot change, so it needs the blue/green path.
const CodeInstanceTypeTargetGroup Code = "InstanceTypeTargetGroup"

// SignalInstanceTypeTargetGroup is the seed signal of [CodeInstanceTypeTargetGroup].
const SignalInstanceTypeTargetGroup = "the target type cannot be switched to ip in place"

// instanceTypeRule makes InstanceTypeTargetGroup: an unmanaged target
// group of type instance, which blue/green replaces rather than adopts.
type instanceTypeRule struct{}

var _ targetGroupRule = instanceTypeRule{}

func (instanceTypeRule) rules() []Rule {
	return []Rule{{CodeInstanceTypeTargetGroup, SeverityHigh, SignalInstanceTypeTargetGroup,
		"cutover.PlanCutover with strategy blue-green: a new ip target group, weighted forwarding, then retire this one"}}
}

func (instanceTypeRule) judge(a *analysis) []Finding {
	if a.rep.TargetType != "instance" || a.rep.Owner.Kind != OwnerUnmanaged {
		return nil
	}
	msg := "target type instance cannot be changed to ip: the target group must be replaced, not adopted"
	next := a.cutoverCall()
	rem := a.cutoverProse(next, "a new ip target group, weighted forwarding, then retire this one")
	return []Finding{a.finding(CodeInstanceTypeTargetGroup, msg, Evidence{
		Counts: map[string]int{"targets": len(a.rep.Targets), "routes": len(a.rep.Routes)}, Details: map[string]string{"targetType": "instance"},
	}, rem, next)}
}
