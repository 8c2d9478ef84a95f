package lbc

// faults.go: crash injection: CrashPoint, Crashes, InjectCrashes.

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// CrashPoint is where an injected crash kills the controller.
type CrashPoint string

const (
	// CrashOnReconcile: at the start of every reconcile of the binding (a
	// reconcile that panics on it): the controller crash-loops and never
	// gets further.
	CrashOnReconcile CrashPoint = "reconcile"
	// CrashBeforeRegister: after the multi-cluster ConfigMap is written and
	// before RegisterTargets: the ConfigMap lists targets never
	// registered.
	CrashBeforeRegister CrashPoint = "before-register"
)

// Crashes injects crashes: the controller dies at Point during a
// reconcile of Binding and, as a pod in CrashLoopBackOff, is started
// again RestartAfter later, doubling each time up to 5 minutes.
type Crashes struct {
	// Binding is the binding whose reconcile crashes. Required.
	Binding types.NamespacedName
	// Point is where. Required.
	Point CrashPoint
	// Times is how many crashes; zero or negative: every time.
	Times int
	// RestartAfter is the first restart's delay. Zero: 10 s, the kubelet's
	// first back-off. Negative: the controller stays down.
	RestartAfter time.Duration
}

// maxRestartBackoff is the kubelet's CrashLoopBackOff cap.
const maxRestartBackoff = 5 * time.Minute

// InjectCrashes arms crashes (replacing any armed before); the zero
// Crashes disarms them.
func (c *Controller) InjectCrashes(cr Crashes) error {
	if cr == (Crashes{}) {
		c.crashes = nil
		return nil
	}
	switch {
	case cr.Binding.Name == "":
		return &OptionsError{Pkg: "lbc", Op: "new", Field: "Crashes.Binding", Reason: "is required", OmitCategory: true}
	case cr.Point != CrashOnReconcile && cr.Point != CrashBeforeRegister:
		return &OptionsError{Pkg: "lbc", Op: "new", Field: "Crashes.Point", Reason: fmt.Sprintf("%q: want %s or %s", cr.Point, CrashOnReconcile, CrashBeforeRegister), OmitCategory: true}
	}
	if cr.RestartAfter == 0 {
		cr.RestartAfter = 10 * time.Second
	}
	c.crashes = &crashState{Crashes: cr, backoff: cr.RestartAfter}
	return nil
}

type crashState struct {
	Crashes
	done    int
	backoff time.Duration
}

// errCrashed aborts a reconcile the injected crash killed.
var errCrashed = fmt.Errorf("lbc: crashed")

// crashAt kills the controller when an armed crash is due at point for
// key, and schedules its restart. It reports whether it crashed.
func (c *Controller) crashAt(point CrashPoint, key types.NamespacedName) bool {
	cr := c.crashes
	if cr == nil || cr.Point != point || cr.Binding != key || (cr.Times > 0 && cr.done >= cr.Times) {
		return false
	}
	cr.done++
	c.Crash()
	c.stats.Crashes++
	if cr.RestartAfter < 0 {
		return true
	}
	d := cr.backoff
	cr.backoff = min(cr.backoff*2, maxRestartBackoff)
	c.event("Restarting", "lbc", "crash %d at %s of %s: restart in %v", cr.done, point, key, d)
	c.o.Clock.AfterEvent(d, "lbc restart", func(time.Time) {
		if err := c.Start(c.ctx()); err != nil {
			c.event("Error", "lbc", "restart: %v", err)
		}
	})
	return true
}
