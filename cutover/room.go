package cutover

// This file runs a bounded overlap (Plan.Quota.Bounded): node targets are
// deregistered, never below the floor, to make room under ELBv2's quotas
// for the pod targets the controller registers; the controller's
// TooManyTargets refusals are expected while the room is full, and once
// room is free the binding is touched so that the controller registers at
// once instead of after its backoff.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/textcell"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// AnnotationNudge is set on the binding, to the time, when a bounded
// overlap has made room and the controller has not registered into it:
// any change of a binding makes the controller reconcile it.
const AnnotationNudge = "tgmigrate.qstools.io/room-made"

// bounded reports whether the plan bounds the overlap; room is then the
// most targets the target group may hold.
func (r *runner) bounded() (room int, ok bool) {
	if r.st == nil || r.st.Restore == nil || r.st.Restore.QuotaRoom <= 0 || !r.st.Restore.Bounded {
		return 0, false
	}
	return r.st.Restore.QuotaRoom, true
}

// roomState is what an observation says of the room: targets counted
// (draining included), ready endpoints not registered, and free room.
type roomState struct {
	count, pending, free int
}

// need is the room the controller's next call needs: a whole batch, or
// what is left.
func (s roomState) need() int { return min(ControllerBatch, s.pending) }

// blocked reports whether the controller cannot register: endpoints wait
// and the room is short of its next call.
func (s roomState) blocked() bool { return s.pending > 0 && s.free < s.need() }

func roomOf(v *view, room int) roomState {
	s := roomState{count: len(v.order)}
	for e := range v.endpoints {
		if _, ok := v.targets[e]; !ok {
			s.pending++
		}
	}
	s.free = room - s.count
	return s
}

// makeRoom is the make-room step: it deregisters recorded targets until
// the room holds the pending pod targets (or the floor stops it), then
// waits until the room is free: draining targets count until their
// deregistration delay ends. In-place the recorded targets are the bound
// target group's node targets; blue/green, the old target group's. The
// strategy's look observes and counts them (inPlaceRoom, bgLook).
func (r *runner) makeRoom(ctx context.Context, look func(ctx context.Context, room int) (*view, roomState, error)) error {
	room, ok := r.bounded()
	if !ok {
		return nil
	}
	v, s, err := look(ctx, room)
	if err != nil {
		return err
	}
	if err := r.keepHold(ctx, StepMakeRoom, v); err != nil {
		return err
	}
	if _, err := r.roomPass(ctx, StepMakeRoom, v, s, r.st.Restore.Floor); err != nil {
		return err
	}
	t := r.timing()
	wait := r.o.drainTimeout
	if wait == 0 {
		wait = t.drain() + DefaultDrainMargin
	}
	r.waiting(Wait{Step: StepMakeRoom, What: "room for the first pod targets under the quota", Reason: reasonDrain, From: t.drainFrom(), Until: r.e.clock.Now().Add(t.drain())})
	return r.poll(ctx, StepMakeRoom, "room for the controller's first batch", wait, func(ctx context.Context) (bool, string, error) {
		v, s, err := look(ctx, room)
		if err != nil {
			return false, "", err
		}
		if err := r.keepHold(ctx, StepMakeRoom, v); err != nil {
			return false, "", err
		}
		r.progress(StepMakeRoom, r.tgARN, v, v.servingHealthy, len(v.order))
		return !s.blocked(), fmt.Sprintf("%s of at most %d (%d draining), %s to register", textcell.Plural(s.count, "target", "targets"), room, v.draining, textcell.Plural(s.pending, "pod target", "pod targets")), nil
	})
}

// bgRoom observes the old target group (blue/green), with the snapshot of
// nv, the new one's observation (nil before the binding: every ready
// endpoint of the plan is then pending), and counts the two together.
func (r *runner) bgRoom(ctx context.Context, nv *view, room int) (*view, roomState, error) {
	var snap *diagnose.Snapshot
	if nv != nil {
		snap = nv.snap
	}
	old, err := r.observeWith(ctx, r.tgARN, nil, r.plan.TargetGroup.TargetType, r.plan.TargetGroup.VPCID, snap)
	if err != nil {
		return nil, roomState{}, err
	}
	s := roomState{count: len(old.order), pending: r.plan.Service.ReadyEndpoints}
	if nv != nil {
		ns := roomOf(nv, room)
		s.count += ns.count
		s.pending = ns.pending
	}
	if rec := r.st.Step(StepDetach); rec != nil && rec.Status == StepDone {
		s.count -= len(old.order) // detached: it no longer counts
	}
	s.free = room - s.count
	return old, s, nil
}

// shareFloors are, for a bounded blue/green overlap at weight w (the new
// target group's), the healthy targets the new target group must hold
// and those the old one keeps: each its share of the floor.
func (r *runner) shareFloors(w int32) (newFloor, oldFloor int) {
	f := r.st.Restore.Floor
	return ceilShare(f, w), ceilShare(f, 100-w)
}

// roomPass deregisters recorded targets to make room for the pending pod
// targets: those that do not serve first (ghosts, unhealthy, leaving: the
// floor does not count them), then healthy node targets while the healthy
// targets left serving stay at or above the floor. It returns how many it
// deregistered. The invariants are deregister's: a recorded target only,
// not a ready pod endpoint now, not in the controller's ConfigMap.
func (r *runner) roomPass(ctx context.Context, step string, v *view, s roomState, floor int) (int, error) {
	// Room for every pending endpoint; the draining targets free theirs
	// when their deregistration delay ends, so they are not made again.
	want := s.pending - s.free - v.draining
	if want <= 0 {
		return 0, nil
	}
	tracked, err := lbcTracked(ctx, r.e.Client, r.ns, r.st.Binding.Name)
	if err != nil {
		return 0, err
	}
	var idle, serving []TargetAddr
	for _, t := range r.pendingRecorded() {
		vt, ok := v.has(t)
		if !ok || vt.state == stateDraining || v.endpoints[t] || tracked[t.String()] {
			continue
		}
		if vt.state == stateHealthy && !leaving(vt.report) {
			serving = append(serving, t)
		} else {
			idle = append(idle, t)
		}
	}
	// Every idle target goes: it serves nothing and holds room.
	batch := idle
	if spare := v.servingHealthy - floor; len(batch) < want && spare > 0 {
		batch = append(batch, serving[:min(len(serving), spare, want-len(batch))]...)
	}
	done := 0
	for len(batch) > 0 {
		n := min(len(batch), r.o.batchSize)
		note := fmt.Sprintf("made room under the quota: %s deregistered (%d of at most %d targets, %s to register)", textcell.Plural(n, "target", "targets"), s.count-done, s.free+s.count, textcell.Plural(s.pending, "pod target", "pod targets"))
		if err := r.deregisterBatch(ctx, step, batch[:n], note); err != nil {
			return done, err
		}
		done += n
		batch = batch[n:]
	}
	return done, nil
}

// nudge touches the binding so that the controller reconciles it now:
// room was made and it has not registered into it.
func (r *runner) nudge(ctx context.Context, tgb *v1beta1.TargetGroupBinding) error {
	var cur v1beta1.TargetGroupBinding
	if err := r.e.Client.Get(ctx, client.ObjectKeyFromObject(tgb), &cur); err != nil {
		return fmt.Errorf("get binding %s/%s: %w", tgb.Namespace, tgb.Name, err)
	}
	patch := client.MergeFrom(cur.DeepCopy())
	if cur.Annotations == nil {
		cur.Annotations = map[string]string{}
	}
	cur.Annotations[AnnotationNudge] = r.e.clock.Now().UTC().Format(time.RFC3339Nano)
	if err := r.e.Client.Patch(ctx, &cur, patch); err != nil {
		return fmt.Errorf("annotate binding %s/%s: %w", tgb.Namespace, tgb.Name, err)
	}
	r.e.log.Info("touched the binding: room was made under the quota", "binding", tgb.Namespace+"/"+tgb.Name)
	return nil
}

// quotaRefusal returns the message of the controller's most recent
// FailedReconcile event since t whose AWS error code is TooManyTargets.
// The code is read from the event's message: the controller reports the
// failed call's error there and nowhere else, and the code is ELBv2's
// stable identifier, not prose.
func (r *runner) quotaRefusal(ctx context.Context, tgb *v1beta1.TargetGroupBinding, since time.Time) (string, error) {
	evs, err := r.bindingEvents(ctx, tgb, since, func(ev corev1.Event) bool {
		return ev.Reason == EventFailedReconcile && strings.Contains(ev.Message, "TooManyTargets")
	})
	if err != nil || len(evs) == 0 {
		return "", err
	}
	return evs[0].Message, nil
}

// roomWatch drives a bounded overlap during the gate: each observation
// makes room when the controller is blocked, and touches the binding when
// room is free and nothing was registered since.
type roomWatch struct {
	room int
	// freeSince is when the room was last seen free for the next call
	// with endpoints pending and none registered; zero: not so.
	freeSince time.Time
	nudged    time.Time
	lastCount int
}

// nudgeAfter is how long free room may stay unused before the binding is
// touched: the controller's requeue after a failed reconcile starts at
// milliseconds and doubles, so a reconcile that does not come within this
// is waiting out its backoff.
const nudgeAfter = 15 * time.Second

// step makes room or nudges for one observation. It returns whether the
// controller is blocked by the quota (its stalls are then expected).
func (w *roomWatch) step(ctx context.Context, r *runner, step string, tgb *v1beta1.TargetGroupBinding, v *view) (bool, error) {
	return w.stepWith(ctx, r, step, tgb, v, v, roomOf(v, w.room), r.st.Restore.Floor)
}

// stepWith is step with the view room is made in (mv: the old target
// group's, blue/green), the count s, and the floor mv keeps.
func (w *roomWatch) stepWith(ctx context.Context, r *runner, step string, tgb *v1beta1.TargetGroupBinding, v, mv *view, s roomState, floor int) (bool, error) {
	if s.pending == 0 {
		w.freeSince = time.Time{}
		return false, nil
	}
	if s.blocked() {
		if _, err := r.roomPass(ctx, step, mv, s, floor); err != nil {
			return true, err
		}
		w.freeSince = time.Time{}
		return true, nil
	}
	registered := s.count - v.draining
	switch {
	case w.freeSince.IsZero() || registered != w.lastCount:
		w.freeSince = v.at
	case v.at.Sub(w.freeSince) >= nudgeAfter && v.at.Sub(w.nudged) >= nudgeAfter:
		if err := r.nudge(ctx, tgb); err != nil {
			return false, err
		}
		w.nudged = v.at
	}
	w.lastCount = registered
	return false, nil
}

// quotaStop turns the controller's TooManyTargets refusals into a
// *QuotaError when no room can be made: the overlap is not bounded, or
// the floor keeps every node target that is left.
func (r *runner) quotaStop(ctx context.Context, step string, tgb *v1beta1.TargetGroupBinding, since time.Time, v *view) error {
	msg, err := r.quotaRefusal(ctx, tgb, since)
	if err != nil || msg == "" {
		return err
	}
	room, bounded := r.bounded()
	s := roomOf(v, room)
	source := ""
	if q := r.plan.Quota; q != nil && !q.Quotas.AllRead() {
		source = "; the plan counted against " + q.Source
	}
	reason := fmt.Sprintf("ELBv2 refused the controller's RegisterTargets as TooManyTargets: %d ready endpoints are not registered beside %d targets, and the plan did not bound the overlap (its count fit the quotas at plan time: another target group of the load balancer, or the Service, grew since, or a quota is lower than counted%s)", s.pending, s.count, source)
	if bounded {
		reason = fmt.Sprintf("ELBv2 refused the controller's RegisterTargets as TooManyTargets with room free by the plan's count (%d targets of at most %d, %d draining): %d ready endpoints are not registered, and no recorded node target can go without passing the floor of %d (%d serve healthy)%s", s.count, room, v.draining, s.pending, r.st.Restore.Floor, v.servingHealthy, source)
	}
	e := &QuotaError{Op: step, TargetGroupARN: r.tg, Reason: reason, Message: msg}
	r.needQuota(e, s.count+s.pending)
	return e
}

// needQuota names in e the quota that gives the least room (the plan's
// count of it) and the value it needs for the target group to hold want
// targets at once.
func (r *runner) needQuota(e *QuotaError, want int) {
	if r.plan == nil || r.plan.Quota == nil || len(r.plan.Quota.Headroom) == 0 {
		return
	}
	q := r.plan.Quota
	h := q.Headroom[0]
	for _, x := range q.Headroom[1:] {
		if x.Quota.Value-x.Others < h.Quota.Value-h.Others {
			h = x
		}
	}
	e.Headroom, e.Need = h, h.Others+want
}

// hasRemovable reports whether a recorded target could still go to make
// room.
func (r *runner) hasRemovable(v *view) bool {
	spare := v.servingHealthy - r.st.Restore.Floor
	return slices.ContainsFunc(r.pendingRecorded(), func(t TargetAddr) bool {
		vt, ok := v.has(t)
		if !ok || vt.state == stateDraining || v.endpoints[t] {
			return false
		}
		return vt.state != stateHealthy || leaving(vt.report) || spare > 0
	})
}

// roomFor returns how many of want node targets a rollback may register
// now: all of them unless the plan bounded the overlap, else as many as
// the plan's room has free (draining targets count); and the free room.
func (rb *rollbackRun) roomFor(ctx context.Context, want int) (fit, free int, err error) {
	room, ok := rb.bounded()
	if !ok || want == 0 {
		return want, want, nil
	}
	health, err := rb.aws.health(ctx, rb.tgARN, false)
	if err != nil {
		return 0, 0, err
	}
	free = room - len(health)
	if nw := rb.st.CreatedTargetGroupARN.Raw; nw != "" {
		// Blue/green created a target group: the room is the two target
		// groups' together.
		h, err := rb.aws.health(ctx, nw, false)
		if err != nil && !errors.Is(err, awserr.ErrNotFound) {
			return 0, 0, err
		}
		free -= len(h)
	}
	return min(want, max(free, 0)), free, nil
}

// registerRest is the register-rest rollback action: once the binding is
// gone, the pod targets drain and free room; it registers the live nodes
// that did not fit, as room frees, until none is missing or the drain's
// time is over (then it warns: the nodes already in serve).
func (rb *rollbackRun) registerRest(ctx context.Context) error {
	dereg, err := rb.deregSeconds(ctx)
	if err != nil {
		return err
	}
	rb.restDereg = dereg
	wait := rb.o.drainTimeout
	if wait == 0 {
		wait = timing{dereg: dereg}.drain() + DefaultDrainMargin
	}
	wait += rb.nodeTiming().newTarget()
	left, first := 0, len(rb.res.Registered)
	defer func() { rb.restRegistered += len(rb.res.Registered) - first }()
	err = rb.poll(ctx, RollbackRegisterRest, "room for the node targets that did not fit, and their checks", wait, func(ctx context.Context) (bool, string, error) {
		ns, err := rb.liveNodes(ctx, nil)
		if err != nil {
			return false, "", err
		}
		health, err := rb.aws.health(ctx, rb.tgARN, false)
		if err != nil {
			return false, "", err
		}
		present := map[TargetAddr]bool{}
		for _, d := range health {
			if d.TargetHealth == nil || string(d.TargetHealth.State) != stateDraining {
				present[addrOf(d)] = true
			}
		}
		in, err := rb.registerMissing(ctx, ns.live, present)
		if err != nil {
			return false, "", err
		}
		left = len(ns.live) - len(in)
		// The targets it registered must pass their checks too (a node
		// gone meanwhile no longer counts).
		state := map[TargetAddr]string{}
		for _, d := range health {
			if d.TargetHealth != nil {
				state[addrOf(d)] = string(d.TargetHealth.State)
			}
		}
		checking := 0
		for _, t := range rb.res.Registered[first:] {
			// Absent from the health read: registered by this very poll.
			if st, ok := state[t]; (!ok || st != stateHealthy) && slices.Contains(in, t) {
				checking++
			}
		}
		return left <= 0 && checking == 0, fmt.Sprintf("%d live nodes still without a target, %d registered still in their checks", left, checking), nil
	})
	if IsTimeout(err) {
		rb.res.Warnings = append(rb.res.Warnings, fmt.Sprintf("%d live nodes got no target, or theirs did not pass their checks, within the drain's time: register them (with Port) once the pod targets have drained", left))
		return nil
	}
	return err
}

// deregSeconds is the bound target group's deregistration delay: the
// plan's, or, for a rollback from a journal's State alone (no plan), the
// target group's attribute read now: the journal does not record it, and
// no strategy changes it.
func (r *runner) deregSeconds(ctx context.Context) (int32, error) {
	if r.plan != nil {
		return r.plan.TargetGroup.DeregistrationDelaySeconds, nil
	}
	attrs, err := r.aws.attributes(ctx, r.tgARN, false)
	if err != nil {
		return 0, err
	}
	return deregistrationDelay(attrs), nil
}

// gateTimeout is the gate's timeout: WithGateTimeout's, and for a bounded
// overlap one more deregistration delay and new-target time per wave
// after the first (each waits for room to drain, then for its pod
// targets' checks).
func (r *runner) gateTimeout() time.Duration {
	d := r.o.gateTimeout
	if q := r.plan.Quota; q != nil && q.Bounded {
		t := r.timing()
		d += time.Duration(len(q.Waves)-1) * (t.drain() + t.newTarget())
	}
	return d
}
