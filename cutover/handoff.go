package cutover

// handoff.go holds RequestFrom, which makes a Request from diagnose's
// typed handoff (tgmigrate.Handoff), and the planner's checks of the live
// target group against what diagnose saw: a stale handoff is refused, a
// drift in the targets' counts is a warning.

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/diagnose"
)

// ErrStaleHandoff: the target group changed since diagnose saw it in a
// way the handoff's next call rests on (its target type or its VPC), so
// the handoff no longer holds: diagnose again. The *InputError that says
// so names the field of [Request.From] and unwraps to it.
var ErrStaleHandoff = errors.New("stale handoff")

// RequestFrom returns the Request that diagnose's handoff names (a
// finding's Next.Handoff): the target group, the Service's namespace,
// name and port, the strategy, and the account and Region, with From set
// to a copy of h so that [PlanCutover] checks the live target group
// against what diagnose saw. Every other field is zero, which means its
// default; set them on the result as on any Request. It makes no call. A
// handoff that fails [tgmigrate.Handoff.Validate] gives an *InputError
// whose Field is "From." and the handoff's field, and which unwraps to
// the [*tgmigrate.HandoffError].
func RequestFrom(h tgmigrate.Handoff) (Request, error) {
	h.LoadBalancerARNs = append([]string(nil), h.LoadBalancerARNs...)
	if err := validFrom("request from handoff", &h); err != nil {
		return Request{}, err
	}
	return Request{
		TargetGroupARN: h.TargetGroupARN, Namespace: h.Service.Namespace, Service: h.Service.Name, Port: h.Service.Port,
		Strategy: Strategy(h.Strategy), AccountID: h.AccountID, Region: h.Region, From: &h,
	}, nil
}

// validFrom checks a handoff's shape, before any call.
func validFrom(op string, h *tgmigrate.Handoff) error {
	if err := h.Validate(); err != nil {
		field := "From"
		var he *tgmigrate.HandoffError
		if errors.As(err, &he) {
			field += "." + he.Field
		}
		return &InputError{Op: op, Field: field, Reason: "not a valid handoff", Err: err}
	}
	return nil
}

// checkFromInput checks Request.From before any call: a valid handoff of
// the request's target group.
func (r *Request) checkFromInput() error {
	if r.From == nil {
		return nil
	}
	if err := validFrom("plan", r.From); err != nil {
		return err
	}
	if r.From.TargetGroupARN != r.TargetGroupARN {
		return &InputError{Op: "plan", Field: "From.TargetGroupARN",
			Reason: fmt.Sprintf("%s is not the request's target group %s", r.From.TargetGroupARN, r.TargetGroupARN)}
	}
	return nil
}

// checkFrom compares the live target group, just described, with what
// the request's handoff saw, before anything else is read: another
// target type or VPC is a stale handoff, another cluster than the Env's
// a mismatch, each an *InputError naming the field of Request.From.
// (Another account or Region cannot be live: the handoff's are its ARN's,
// which is the request's, and checkFromInput refused any other before
// any call, naming From.AccountID or From.Region.) It
// leaves the handoff out of the plan: the plan of a request from a
// handoff is the plan of the same request written by hand.
func (pl *planner) checkFrom() error {
	h := pl.req.From
	pl.p.Request.From = nil
	if h == nil {
		return nil
	}
	stale := func(field, then, now string) error {
		return &InputError{Op: "plan", Field: "From." + field, Err: ErrStaleHandoff,
			Reason: fmt.Sprintf("diagnose saw %s at %s, the target group is %s now: the handoff is stale, diagnose again", then, h.Observed.At.UTC().Format(time.RFC3339), now)}
	}
	if tt := string(pl.tg.TargetType); tt != h.TargetType {
		return stale("TargetType", "target type "+h.TargetType, "of type "+tt)
	}
	if vpc := aws.ToString(pl.tg.VpcId); vpc != h.VPCID {
		return stale("VPCID", "VPC "+h.VPCID, "in VPC "+vpc)
	}
	if c := pl.e.ClusterName; c != "" && c != h.ClusterName {
		return &InputError{Op: "plan", Field: "From.ClusterName",
			Reason: fmt.Sprintf("the handoff's cluster %s is not Env.ClusterName %s", h.ClusterName, c)}
	}
	return nil
}

// fromDrift is the plan's warning when the targets' counts differ from
// the handoff's: both figures of each count that changed, and when
// diagnose saw them. Empty when nothing changed or the request has no
// handoff. The plan is made on the targets as they are now.
func (pl *planner) fromDrift() []string {
	h := pl.req.From
	if h == nil {
		return nil
	}
	now := map[diagnose.Class]int{}
	for _, r := range pl.reports {
		now[r.Class]++
	}
	o := h.Observed
	var changed []string
	for _, c := range []struct {
		what      string
		then, now int
	}{
		{"targets", o.Targets, pl.p.TargetGroup.Targets},
		{"node targets", o.Nodes, now[diagnose.ClassNode]},
		{"pod targets", o.Pods, now[diagnose.ClassPod]},
		{"ghost targets", o.Ghosts, now[diagnose.ClassGhost]},
		{"foreign targets", o.Foreign, now[diagnose.ClassForeign]},
		{"healthy targets", o.Healthy, pl.p.TargetGroup.HealthyTargets},
	} {
		if c.then != c.now {
			changed = append(changed, fmt.Sprintf("%s %d then, %d now", c.what, c.then, c.now))
		}
	}
	if len(changed) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("the target group changed since diagnose saw it at %s: %s; the plan is made on its targets as they are now",
		o.At.UTC().Format(time.RFC3339), strings.Join(changed, ", "))}
}
