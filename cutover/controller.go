package cutover

// This file watches the AWS Load Balancer Controller do its part: register
// the binding's endpoints. A controller that does not (it is not running,
// it crash-loops, AWS refuses its calls) leaves the binding stuck, not
// slow: waiting for the gate's timeout would only delay the rollback. The
// cause is read from what the controller writes on the binding (the
// reasons of its Events, its status conditions), never from the text of a
// message.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// DefaultControllerPatience is how long ready endpoints may stay
// unregistered, with no registration at all, before Execute decides the
// controller is stuck. A working controller registers a new endpoint
// within its reaction (tens of milliseconds) or its requeue (15 s).
const DefaultControllerPatience = 2 * time.Minute

// ControllerCause says why the controller is judged stuck.
type ControllerCause string

const (
	// ControllerNotReconciling: the controller wrote nothing on the
	// binding (no finalizer, no observedGeneration, no Event) or nothing
	// since the wait began: it is not running, crash-loops, or does not
	// watch this namespace.
	ControllerNotReconciling ControllerCause = "not-reconciling"
	// ControllerFailing: its reconciles of the binding fail: it recorded
	// Warning Events (Reasons) and registered nothing.
	ControllerFailing ControllerCause = "failing"
)

// The LBC's event reasons on a binding (its pkg/k8s/events.go) that
// [ControllerError] reports and explains.
const (
	EventFailedReconcile        = "FailedReconcile"
	EventFailedNetworkReconcile = "FailedNetworkReconcile"
	EventBackendNotFound        = "BackendNotFound"
	EventFailedAddFinalizer     = "FailedAddFinalizer"
	EventFailedUpdateStatus     = "FailedUpdateStatus"
)

// ControllerError is a wait on the controller that cannot end: ready
// endpoints stayed unregistered for the patience, with no registration.
type ControllerError struct {
	// Step is the waiting step.
	Step string
	// Binding is the binding's namespace/name.
	Binding string
	// Cause is the judgement.
	Cause ControllerCause
	// Reasons are the reasons of the Warning Events the controller
	// recorded on the binding since the wait began, most recent first,
	// each once.
	Reasons []string
	// Message is the most recent such Event's message, as the controller
	// wrote it (for the operator; it is never parsed).
	Message string
	// Conditions are the binding's status conditions that are not True
	// (LBC v3's Ready), as "Type=Status: Reason".
	Conditions []string
	// Pending counts the ready endpoints not registered.
	Pending int
	// Stalled is how long nothing was registered.
	Stalled time.Duration
}

// Error implements error.
func (e *ControllerError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cutover: %s: %v: binding %s: %d ready endpoints unregistered, none registered for %v", e.Step, ErrController, e.Binding, e.Pending, e.Stalled)
	switch e.Cause {
	case ControllerNotReconciling:
		b.WriteString("; the controller wrote nothing on the binding: is the AWS Load Balancer Controller running, and watching this namespace?")
	case ControllerFailing:
		fmt.Fprintf(&b, "; its reconciles fail (events %s", strings.Join(e.Reasons, ", "))
		if len(e.Conditions) > 0 {
			fmt.Fprintf(&b, "; conditions %s", strings.Join(e.Conditions, ", "))
		}
		if e.Message != "" {
			fmt.Fprintf(&b, "; last: %q", e.Message)
		}
		b.WriteString(")")
		if h := e.Hint(); h != "" {
			b.WriteString(": " + h)
		}
	}
	return b.String()
}

// Unwrap returns [ErrController].
func (e *ControllerError) Unwrap() error { return ErrController }

// Hint says what to check, from the reasons alone.
func (e *ControllerError) Hint() string {
	var hints []string
	for _, r := range e.Reasons {
		switch r {
		case EventFailedNetworkReconcile:
			hints = append(hints, "the controller's IAM role needs ec2:DescribeSecurityGroups and ec2:DescribeVpcs (it reads them until they first succeed; and ec2:AuthorizeSecurityGroupIngress with spec.networking)")
		case EventFailedReconcile:
			hints = append(hints, "read the event: AWS refused a call (elasticloadbalancing:RegisterTargets, ec2:DescribeVpcs) or the API server refused a write")
		case EventBackendNotFound:
			hints = append(hints, "the binding's Service or port does not exist")
		case EventFailedAddFinalizer, EventFailedUpdateStatus:
			hints = append(hints, "the controller cannot update targetgroupbindings: check its RBAC")
		}
	}
	return strings.Join(hints, "; ")
}

// IsController reports whether Execute stopped because the controller
// did not register the binding's endpoints.
func IsController(err error) bool { return errors.Is(err, ErrController) }

// controllerWatch follows one wait's progress: the registered endpoints,
// and since when none was added while some were missing.
type controllerWatch struct {
	step     string
	started  time.Time
	patience time.Duration
	// registered are the endpoints registered at the last observation.
	registered map[TargetAddr]bool
	since      time.Time // zero: not stalled
	// blocked says the next observation's endpoints wait on room under
	// ELBv2's quotas that a bounded overlap is making: not a stall.
	blocked bool
}

// stalled reports whether the last observation found endpoints pending
// and none registered since the one before.
func (w *controllerWatch) stalled() bool { return !w.since.IsZero() }

func (r *runner) newControllerWatch(step string) *controllerWatch {
	return &controllerWatch{step: step, started: r.e.clock.Now(), patience: r.o.controllerPatience}
}

// check judges an observation. It returns a *ControllerError when ready
// endpoints have stayed unregistered, with no registration, for the
// patience.
func (w *controllerWatch) check(ctx context.Context, r *runner, tgb *v1beta1.TargetGroupBinding, v *view) error {
	if w.patience < 0 || tgb == nil {
		return nil
	}
	registered, pending, added := map[TargetAddr]bool{}, 0, false
	for e := range v.endpoints {
		if _, ok := v.targets[e]; ok {
			registered[e] = true
			added = added || !w.registered[e]
		} else {
			pending++
		}
	}
	now := v.at
	switch {
	case pending == 0 || added || w.blocked:
		w.since = time.Time{}
	case w.since.IsZero():
		w.since = now
	}
	w.registered = registered
	if w.since.IsZero() || now.Sub(w.since) < w.patience {
		return nil
	}
	e := &ControllerError{Step: w.step, Binding: tgb.Namespace + "/" + tgb.Name, Pending: pending, Stalled: now.Sub(w.since)}
	reasons, msg, err := r.controllerWarnings(ctx, tgb, w.started)
	if err != nil {
		return err
	}
	e.Reasons, e.Message = reasons, msg
	var cur v1beta1.TargetGroupBinding
	if err := r.e.Client.Get(ctx, client.ObjectKeyFromObject(tgb), &cur); err == nil {
		for _, c := range cur.Status.Conditions {
			if c.Status != metav1.ConditionTrue {
				e.Conditions = append(e.Conditions, fmt.Sprintf("%s=%s: %s", c.Type, c.Status, c.Reason))
			}
		}
	}
	e.Cause = ControllerFailing
	if len(reasons) == 0 && len(e.Conditions) == 0 {
		e.Cause = ControllerNotReconciling
	}
	return e
}

// controllerWarnings reads the Warning Events the controller recorded on
// the binding since t: their reasons, most recent first, and the most
// recent message.
func (r *runner) controllerWarnings(ctx context.Context, tgb *v1beta1.TargetGroupBinding, since time.Time) ([]string, string, error) {
	mine, err := r.bindingEvents(ctx, tgb, since, func(ev corev1.Event) bool { return ev.Type == corev1.EventTypeWarning })
	if err != nil {
		return nil, "", err
	}
	var reasons []string
	for _, ev := range mine {
		if !slices.Contains(reasons, ev.Reason) {
			reasons = append(reasons, ev.Reason)
		}
	}
	msg := ""
	if len(mine) > 0 {
		msg = mine[0].Message
	}
	return reasons, msg, nil
}

// bindingEvents lists the Events on the binding since t that keep
// accepts, most recent first.
func (r *runner) bindingEvents(ctx context.Context, tgb *v1beta1.TargetGroupBinding, since time.Time, keep func(corev1.Event) bool) ([]corev1.Event, error) {
	var evs corev1.EventList
	if err := r.e.Client.List(ctx, &evs, client.InNamespace(tgb.Namespace)); err != nil {
		return nil, fmt.Errorf("list events of binding %s/%s: %w", tgb.Namespace, tgb.Name, err)
	}
	var mine []corev1.Event
	for _, ev := range evs.Items {
		io := ev.InvolvedObject
		if io.Kind != v1beta1.Kind || io.Name != tgb.Name || (io.UID != "" && io.UID != tgb.UID) || eventTime(ev).Before(since) || !keep(ev) {
			continue
		}
		mine = append(mine, ev)
	}
	slices.SortStableFunc(mine, func(a, b corev1.Event) int { return eventTime(b).Compare(eventTime(a)) })
	return mine, nil
}

// eventTime is when an Event last happened: its series' or its last
// timestamp, or its event time.
func eventTime(ev corev1.Event) time.Time {
	switch {
	case ev.Series != nil && !ev.Series.LastObservedTime.IsZero():
		return ev.Series.LastObservedTime.Time
	case !ev.LastTimestamp.IsZero():
		return ev.LastTimestamp.Time
	case !ev.EventTime.IsZero():
		return ev.EventTime.Time
	}
	return ev.CreationTimestamp.Time
}
