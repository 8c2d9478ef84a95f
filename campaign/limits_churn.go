package campaign

// limits_churn.go: ChurnRoom, the room a load balancer's quota on targets
// leaves Karpenter's churn once its cutovers are done (its pods'
// draining targets count against it), and the warning when that room is
// short of its pods.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/qstools/tgmigrate/internal/textcell"
)

// ChurnRoom is the room a load balancer's quota on targets leaves churn
// once its cutovers are done. Its target groups are the controller's
// then (pod targets): every pod Karpenter replaces leaves its target
// draining for its target group's deregistration delay, and draining
// targets count against the quota. When Room is smaller than Pods, one
// rotation of its pods within the delay (a drift of every node, a burst
// of spot interruptions) cannot drain without refusals: ELBv2 refuses
// the controller's RegisterTargets of new pods (TooManyTargets) until
// draining targets leave, their readiness gates stay False, a drain
// waiting on their readiness (the PodDisruptionBudget) is held, and a
// spot interruption's deadline can kill pods still registered. Short
// says so, and Warning says it in a line. It is a warning, not a limit:
// the cutovers themselves fit ([LoadBalancerLimit.Budget] and
// MaxConcurrent guard them).
type ChurnRoom struct {
	// Targets are those its cutovers leave on it: Now + Growth.
	Targets int `json:"targets"`
	// Room is what its quota leaves then: the limit's Budget.
	Room int `json:"room"`
	// Pods are its runnable target groups' pods, their shares' Pods
	// summed: the targets one rotation of its pods leaves draining.
	Pods int `json:"pods"`
	// TargetGroups counts those target groups.
	TargetGroups int `json:"targetGroups"`
	// MinDelaySeconds and MaxDelaySeconds are the shortest and longest of
	// their deregistration delays.
	MinDelaySeconds int32 `json:"minDelaySeconds"`
	MaxDelaySeconds int32 `json:"maxDelaySeconds"`
	// Short says Room is smaller than Pods while some delay is above 0;
	// Warning then says what happens and the next step, in one line.
	Short   bool   `json:"short,omitempty"`
	Warning string `json:"warning,omitempty"`
}

// podsAndDelay returns the pods e's target group holds once its cutover
// is done and their deregistration delay, from e's plan (0, 0 without
// one).
func podsAndDelay(e Entry) (int, int32) {
	if e.Plan == nil {
		return 0, 0
	}
	delay := e.Plan.TargetGroup.DeregistrationDelaySeconds
	if bg := e.Plan.BlueGreen; bg != nil {
		if v, err := strconv.ParseInt(bg.NewTargetGroup.Attributes["deregistration_delay.timeout_seconds"], 10, 32); err == nil && v >= 0 {
			delay = int32(v)
		}
	}
	return e.Plan.Service.ReadyEndpoints, delay
}

// makeChurnRoom returns l's room for churn, from its counts and shares;
// nil when l counts nothing.
func makeChurnRoom(l LoadBalancerLimit) *ChurnRoom {
	if !l.Counted {
		return nil
	}
	c := &ChurnRoom{Targets: l.Now + l.Growth, Room: l.Budget, TargetGroups: len(l.Shares)}
	for i, s := range l.Shares {
		c.Pods += s.Pods
		if i == 0 || s.DeregistrationDelaySeconds < c.MinDelaySeconds {
			c.MinDelaySeconds = s.DeregistrationDelaySeconds
		}
		c.MaxDelaySeconds = max(c.MaxDelaySeconds, s.DeregistrationDelaySeconds)
	}
	c.Short = c.Room < c.Pods && c.MaxDelaySeconds > 0
	if c.Short {
		c.Warning = c.warning(l.Quota.Value)
	}
	return c
}

// warning is c's warning line, quota the load balancer's.
func (c *ChurnRoom) warning(quota int) string {
	delay := fmt.Sprintf("deregistration delay %ds", c.MaxDelaySeconds)
	if c.MinDelaySeconds != c.MaxDelaySeconds {
		delay = fmt.Sprintf("deregistration delays %ds to %ds", c.MinDelaySeconds, c.MaxDelaySeconds)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "warning: after its cutovers, room for %d under its quota of %d (%s on it), fewer than its %s (%s, %s)",
		c.Room, quota, textcell.Plural(c.Targets, "target", "targets"), textcell.Plural(c.Pods, "pod", "pods"),
		textcell.Plural(c.TargetGroups, "target group", "target groups"), delay)
	b.WriteString(": one rotation of them within the delay (a drift of every node, a burst of spot interruptions) leaves more targets draining than that, and draining targets count:" +
		" the controller's registrations of new pods are refused with TooManyTargets until they leave, a drain waiting on the new pods' readiness is held," +
		" and a spot interruption's deadline can kill pods still registered.")
	b.WriteString(" Next: raise its target quota (Service Quotas), lower the target groups' deregistration_delay.timeout_seconds, or move a target group to another load balancer")
	return b.String()
}
