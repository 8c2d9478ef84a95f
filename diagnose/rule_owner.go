package diagnose

import (
	"fmt"
)

// outsideFinding is the one line about a target group that is not the
// scanned clusters' business: why it is left alone.
func (a *analysis) outsideFinding() []Finding {
	why := a.rep.Owner.Reason
	msg := "left alone: " + why
	return []Finding{a.finding(CodeOutsideTargetGroup, msg, Evidence{
		Counts:  map[string]int{"targets": len(a.rep.Targets)},
		Details: map[string]string{"targetType": a.rep.TargetType},
	}, "none: not the scanned clusters' target group ("+why+")", NextCall{Op: OpNone, Reason: why})}
}

func (a *analysis) unmanaged() []Finding {
	if a.rep.Owner.Kind != OwnerUnmanaged {
		return nil
	}
	msg := fmt.Sprintf("no TargetGroupBinding and no LBC tags: %s, registered by hand or by another tool", plural(len(a.rep.Targets), "target"))
	var names []string
	if a.service != nil && a.service.svc != nil {
		names = append(names, a.service.ref.Namespace+"/"+a.service.ref.Name)
		msg += fmt.Sprintf("; it serves Service %s/%s (from %s)", a.service.ref.Namespace, a.service.ref.Name, a.service.ref.Source)
	}
	next := a.withService(NextCall{Op: OpBuildBinding, TargetGroupARN: a.rep.ARN})
	rem := fmt.Sprintf("tgbind.Build for %s with MultiClusterTargetGroup true", a.serviceArg())
	if a.rep.TargetType != "ip" {
		// A binding cannot put pod IPs into an instance target group.
		next = a.cutoverCall()
		rem = a.cutoverProse(next, "a binding cannot put pod IPs into an instance target group, so a new ip target group bound to the Service takes over")
	}
	return []Finding{a.finding(CodeUnmanagedTargetGroup, msg, Evidence{Names: names, Counts: map[string]int{"targets": len(a.rep.Targets)}}, rem, next)}
}

func (a *analysis) instanceType() []Finding {
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
