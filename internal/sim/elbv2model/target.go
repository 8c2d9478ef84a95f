package elbv2model

// target.go: a target's state, Transition, TargetView, Targets and
// TargetGroupARNs.

import (
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate/internal/vclock"
)

// targetKey identifies a registered target: its ID and the port it was
// registered on (the target group's port when the registration named none).
type targetKey struct {
	id   string
	port int32
}

// target is one registration of a target in a target group.
type target struct {
	tg  *targetGroup
	key targetKey
	// ip is the address health checks and requests go to: the ID of an ip
	// target, the resolved private IP of an instance target.
	ip     string
	state  types.TargetHealthStateEnum
	reason types.TargetHealthReasonEnum
	since  time.Time
	// passes and fails count consecutive health-check results.
	passes int32
	fails  int32
	// timer is the one pending event of the target: the end of registration,
	// the recurring health check, or the end of draining.
	timer vclock.Handle
	// gen changes whenever timer is replaced, so that an event that was
	// already running when it was cancelled can tell it is stale.
	gen uint64
	// removed is set when the target has left the target group.
	removed bool
	// stopped is set when an instance target's instance was terminated
	// (see [Model.InstanceTerminated]): it stays unused / Target.InvalidState.
	stopped bool
	// allZones is set for an ip target registered with AvailabilityZone
	// all: no zone of the load balancer parks it.
	allZones bool
	// zoneOff is set while t is unused / Target.NotInUse because its
	// target group's load balancer does not serve its zone.
	zoneOff bool
}

// checking reports whether the target is being health-checked.
func (t *target) checking() bool {
	switch t.state {
	case types.TargetHealthStateEnumHealthy, types.TargetHealthStateEnumUnhealthy:
		return true
	case types.TargetHealthStateEnumInitial:
		return t.reason == types.TargetHealthReasonEnumInitialHealthChecking
	}
	return false
}

// hcPort is the port health checks of t go to.
func (t *target) hcPort() int32 {
	if t.tg.hc.portNum == 0 {
		return t.key.port
	}
	return t.tg.hc.portNum
}

func (tg *targetGroup) hcInterval() time.Duration {
	return time.Duration(tg.hc.interval) * time.Second
}

// Transition is one change of a target's health state or reason.
type Transition struct {
	// At is the virtual time of the change.
	At time.Time
	// TargetGroupARN is the target group of the target.
	TargetGroupARN string
	// ID and Port identify the target (Port is the registered port).
	ID   string
	Port int32
	// From is the previous state; empty for a new registration.
	From types.TargetHealthStateEnum
	// To is the new state; empty when Removed.
	To types.TargetHealthStateEnum
	// Reason is the reason of the new state; empty for healthy.
	Reason types.TargetHealthReasonEnum
	// Removed is set when the target left the target group (its draining
	// ended or its target group was deleted).
	Removed bool
}

// String renders the transition on one line, for event logs.
func (t Transition) String() string {
	from := string(t.From)
	if from == "" {
		from = "-"
	}
	to := string(t.To)
	if t.Removed {
		to = "gone"
	}
	if t.Reason != "" {
		to += " (" + string(t.Reason) + ")"
	}
	return fmt.Sprintf("%s %s %s:%d %s -> %s", t.At.UTC().Format(time.RFC3339), t.TargetGroupARN, t.ID, t.Port, from, to)
}

// TargetView is a read-only snapshot of one target, for tests and reports.
type TargetView struct {
	// ID is the registered target ID (an IP, or an instance ID).
	ID string
	// IP is the address health checks and traffic go to.
	IP string
	// Port is the registered port.
	Port int32
	// State and Reason are what DescribeTargetHealth reports.
	State  types.TargetHealthStateEnum
	Reason types.TargetHealthReasonEnum
	// Since is when the target entered State with Reason.
	Since time.Time
}

// String renders the view as "IP:port state (reason)".
func (v TargetView) String() string {
	s := v.ID + ":" + strconv.Itoa(int(v.Port)) + " " + string(v.State)
	if v.Reason != "" {
		s += " (" + string(v.Reason) + ")"
	}
	return s
}

// Targets returns every target registered in or draining from the target
// group, in registration order; nil when no such target group exists.
func (m *Model) Targets(tgARN string) []TargetView {
	m.mu.Lock()
	defer m.mu.Unlock()
	tg, ok := m.tgs[tgARN]
	if !ok {
		return nil
	}
	out := make([]TargetView, 0, len(tg.order))
	for _, t := range tg.order {
		out = append(out, TargetView{ID: t.key.id, IP: t.ip, Port: t.key.port, State: t.state, Reason: t.reason, Since: t.since})
	}
	return out
}

// TargetGroupARNs returns the ARNs of every target group, in creation order.
func (m *Model) TargetGroupARNs() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	list := make([]*targetGroup, 0, len(m.tgs))
	for _, tg := range m.tgs {
		list = append(list, tg)
	}
	sortBySeq(list, func(tg *targetGroup) uint64 { return tg.seq })
	out := make([]string, len(list))
	for i, tg := range list {
		out[i] = tg.arn
	}
	return out
}
