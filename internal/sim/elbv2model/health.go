package elbv2model

// health.go: the target health state machine: registration, health checks,
// draining, instance termination.

import (
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
)

// Names of the world events the model schedules on the virtual clock.
const (
	evRegistration = "elbv2: target registration"
	evHealthCheck  = "elbv2: health check"
	evDraining     = "elbv2: deregistration delay"
)

// The target lifecycle. Every function here runs with m.mu held.
//
//	registered, TG unused  -> unused (Target.NotInUse)
//	registered, TG in use  -> initial (Elb.RegistrationInProgress)
//	  after the registration delay -> initial (Elb.InitialHealthChecking),
//	  first check at once, then one every HealthCheckIntervalSeconds
//	HealthyThresholdCount consecutive passes   -> healthy
//	UnhealthyThresholdCount consecutive fails  -> unhealthy (reason of the last failure)
//	deregistered -> draining (Target.DeregistrationInProgress), no checks,
//	  gone after deregistration_delay.timeout_seconds
//	registered again while draining -> as a new registration
//	TG attached to a load balancer -> unused targets start registration
//	TG detached -> registered targets become unused, checks stop

// setLocked moves t to state/reason and records the transition.
func (m *Model) setLocked(t *target, state types.TargetHealthStateEnum, reason types.TargetHealthReasonEnum, now time.Time) {
	if t.state == state && t.reason == reason {
		return
	}
	from := t.state
	t.state, t.reason, t.since = state, reason, now
	if m.onTransition != nil {
		m.pending = append(m.pending, Transition{
			At: now, TargetGroupARN: t.tg.arn, ID: t.key.id, Port: t.key.port,
			From: from, To: state, Reason: reason,
		})
	}
}

// unlockAndNotify releases m.mu and then reports the transitions recorded
// while it was held.
func (m *Model) unlockAndNotify() {
	pending := m.pending
	m.pending = nil
	m.mu.Unlock()
	for _, tr := range pending {
		m.onTransition(tr)
	}
}

// cancelLocked drops t's pending event.
func (m *Model) cancelLocked(t *target) {
	t.timer.Cancel()
	t.gen++
}

// startRegistrationLocked begins (or restarts) t's registration.
func (m *Model) startRegistrationLocked(t *target, now time.Time) {
	m.cancelLocked(t)
	t.passes, t.fails, t.zoneOff = 0, 0, false
	m.setLocked(t, types.TargetHealthStateEnumInitial, types.TargetHealthReasonEnumRegistrationInProgress, now)
	g := t.gen
	t.timer = m.clock.At(now.Add(m.regDelay), evRegistration, func(at time.Time) { m.onRegistered(t, g, at) })
}

// unusedLocked parks t while its target group has no load balancer (or,
// with zoneOff set after it, while the load balancer does not serve its
// zone). An instance target whose instance was terminated stays
// Target.InvalidState.
func (m *Model) unusedLocked(t *target, now time.Time) {
	m.cancelLocked(t)
	t.passes, t.fails, t.zoneOff = 0, 0, false
	reason := types.TargetHealthReasonEnumNotInUse
	if t.stopped {
		reason = types.TargetHealthReasonEnumInvalidState
	}
	m.setLocked(t, types.TargetHealthStateEnumUnused, reason, now)
}

// InstanceTerminated tells the model that an EC2 instance was terminated,
// as EC2 tells ELB: every instance target with that ID that is not
// draining becomes unused / Target.InvalidState at once, takes no more
// requests and is no longer health-checked. It stays registered (nothing
// deregisters a hand-registered instance) until someone deregisters it.
// IP targets are not affected: ELB cannot tell whose address an IP is, so
// a terminated node's nodeIP:NodePort target keeps being routed to until
// its health checks fail (the seed's ghost). The world calls it from
// package cluster's termination hook.
func (m *Model) InstanceTerminated(instanceID string) {
	m.mu.Lock()
	now := m.clock.Now()
	tgs := make([]*targetGroup, 0, len(m.tgs))
	for _, tg := range m.tgs {
		if tg.targetType == types.TargetTypeEnumInstance {
			tgs = append(tgs, tg)
		}
	}
	sortBySeq(tgs, func(tg *targetGroup) uint64 { return tg.seq }) // deterministic transitions
	for _, tg := range tgs {
		for _, t := range tg.order {
			if t.key.id != instanceID || t.state == types.TargetHealthStateEnumDraining {
				continue
			}
			t.stopped = true
			m.unusedLocked(t, now)
		}
		// EC2 tells ELB: no load balancer node routes to the instance any
		// more, whatever the deregistration lag.
		tg.stale = slices.DeleteFunc(tg.stale, func(s staleTarget) bool { return s.key.id == instanceID })
	}
	m.unlockAndNotify()
}

// scheduleChecksLocked (re)starts t's recurring health check, first at first.
func (m *Model) scheduleChecksLocked(t *target, first time.Time) {
	m.cancelLocked(t)
	g := t.gen
	t.timer = m.clock.Every(first, t.tg.hcInterval(), evHealthCheck, func(at time.Time) { m.onCheck(t, g, at) })
}

// drainLocked starts t's deregistration delay. routed says whether t took
// new requests until now: then, with a deregistration lag, the load
// balancer keeps sending it requests for the lag.
func (m *Model) drainLocked(t *target, now time.Time, routed bool) {
	if routed && m.lag > 0 {
		t.tg.stale = append(t.tg.stale, staleTarget{key: t.key, ep: Endpoint{ID: t.key.id, IP: t.ip, Port: t.key.port}, until: now.Add(m.lag), allZones: t.allZones})
	}
	m.cancelLocked(t)
	t.passes, t.fails = 0, 0
	m.setLocked(t, types.TargetHealthStateEnumDraining, types.TargetHealthReasonEnumDeregistrationInProgress, now)
	delay := time.Duration(t.tg.intAttr(AttrDeregistrationDelay)) * time.Second
	g := t.gen
	t.timer = m.clock.At(now.Add(delay), evDraining, func(at time.Time) { m.onDrained(t, g, at) })
}

// removeLocked takes t out of its target group.
func (m *Model) removeLocked(t *target, now time.Time) {
	m.cancelLocked(t)
	t.removed = true
	tg := t.tg
	delete(tg.targets, t.key)
	if i := slices.Index(tg.order, t); i >= 0 {
		tg.order = slices.Delete(tg.order, i, i+1)
	}
	if m.onTransition != nil {
		m.pending = append(m.pending, Transition{
			At: now, TargetGroupARN: tg.arn, ID: t.key.id, Port: t.key.port,
			From: t.state, Removed: true,
		})
	}
}

func (m *Model) onRegistered(t *target, g uint64, now time.Time) {
	m.mu.Lock()
	if t.gen != g || t.removed {
		m.mu.Unlock()
		return
	}
	t.passes, t.fails = 0, 0
	m.setLocked(t, types.TargetHealthStateEnumInitial, types.TargetHealthReasonEnumInitialHealthChecking, now)
	m.scheduleChecksLocked(t, now)
	m.unlockAndNotify()
}

func (m *Model) onDrained(t *target, g uint64, now time.Time) {
	m.mu.Lock()
	if t.gen != g || t.removed {
		m.mu.Unlock()
		return
	}
	m.removeLocked(t, now)
	m.unlockAndNotify()
}

// onCheck runs one health check of t. The probe goes out with the lock
// released (the Network may call the model); its result is dropped if t
// changed meanwhile.
func (m *Model) onCheck(t *target, g uint64, now time.Time) {
	m.mu.Lock()
	if t.gen != g || t.removed {
		m.mu.Unlock()
		return
	}
	ip, port, path := t.ip, t.hcPort(), t.tg.hc.path
	m.mu.Unlock()

	res := m.network.Probe(ip, port, path)

	m.mu.Lock()
	if t.gen != g || t.removed {
		m.mu.Unlock()
		return
	}
	m.applyProbeLocked(t, res, now)
	m.unlockAndNotify()
}

// applyProbeLocked counts one health-check result against the thresholds.
func (m *Model) applyProbeLocked(t *target, res ProbeResult, now time.Time) {
	hc := &t.tg.hc
	if res == ProbeOK && hc.accepts200 {
		t.fails = 0
		if t.passes < hc.healthy {
			t.passes++
		}
		if t.state != types.TargetHealthStateEnumHealthy && t.passes >= m.passesNeededLocked(t) {
			m.setLocked(t, types.TargetHealthStateEnumHealthy, "", now)
		}
		return
	}
	t.passes = 0
	if t.fails < hc.unhealthy {
		t.fails++
	}
	reason := failureReason(res)
	switch {
	case t.state == types.TargetHealthStateEnumUnhealthy:
		m.setLocked(t, types.TargetHealthStateEnumUnhealthy, reason, now)
	case t.fails >= hc.unhealthy:
		m.setLocked(t, types.TargetHealthStateEnumUnhealthy, reason, now)
	}
}

// passesNeededLocked is how many consecutive passes take t to healthy: a
// new target (initial) needs Options.NewTargetChecks, capped at the target
// group's HealthyThresholdCount; any other needs HealthyThresholdCount.
func (m *Model) passesNeededLocked(t *target) int32 {
	healthy := t.tg.hc.healthy
	if t.state != types.TargetHealthStateEnumInitial || m.newChecks == HealthyThreshold {
		return healthy
	}
	return min(int32(m.newChecks), healthy)
}

// failureReason maps a failed probe onto the reason ELB reports.
func failureReason(res ProbeResult) types.TargetHealthReasonEnum {
	switch res {
	case ProbeTimeout:
		return types.TargetHealthReasonEnumTimeout
	case ProbeRefused:
		return types.TargetHealthReasonEnumFailedHealthChecks
	}
	// ProbeBadStatus, or a 200 the matcher does not accept.
	return types.TargetHealthReasonEnumResponseCodeMismatch
}

// description is the TargetHealth.Description ELB gives with a reason.
func description(reason types.TargetHealthReasonEnum) string {
	switch reason {
	case types.TargetHealthReasonEnumRegistrationInProgress:
		return "Target registration is in progress"
	case types.TargetHealthReasonEnumInitialHealthChecking:
		return "Initial health checks in progress"
	case types.TargetHealthReasonEnumResponseCodeMismatch:
		return "Health checks failed with a response code the matcher does not accept"
	case types.TargetHealthReasonEnumTimeout:
		return "Request timed out"
	case types.TargetHealthReasonEnumFailedHealthChecks:
		return "Health checks failed"
	case types.TargetHealthReasonEnumNotRegistered:
		return "Target is not registered to the target group"
	case types.TargetHealthReasonEnumNotInUse:
		return "Target group is not configured to receive traffic from the load balancer"
	case types.TargetHealthReasonEnumDeregistrationInProgress:
		return "Target deregistration is in progress"
	case types.TargetHealthReasonEnumInvalidState:
		return "Target is in the stopped or terminated state"
	}
	return ""
}
