package sim_test

import (
	"errors"
	"testing"
	"time"

	"github.com/qstools/tgmigrate/internal/sim"
)

// TestDenyController: a denied action is refused with AccessDenied, as IAM
// refuses it, and nothing is registered until it is allowed again; an
// action the controller does not call is a configuration error.
func TestDenyController(t *testing.T) {
	w := newWorld(t, sim.Config{Seed: 3, Nodes: 3, Pods: 6, RPS: -1}, nil)
	if err := w.DenyController("CreateLoadBalancer"); !errors.Is(err, sim.ErrInvalidConfig) {
		t.Fatalf("DenyController(CreateLoadBalancer) = %v, want a config error", err)
	}
	if err := w.DenyController("RegisterTargets"); err != nil {
		t.Fatal(err)
	}
	var denied []string
	if err := w.Client().Create(t.Context(), w.NewBinding("web", true)); err != nil {
		t.Fatal(err)
	}
	w.Run(time.Minute)
	if s := w.LBC().Stats(); s.Registered != 0 || s.Errors == 0 {
		t.Fatalf("stats %+v: want nothing registered and failed reconciles", s)
	}
	for _, c := range w.LBCELBv2().Calls() {
		if c.Op == "RegisterTargets" {
			denied = append(denied, c.Op)
		}
	}
	if len(denied) != 0 {
		t.Errorf("%d RegisterTargets reached the service: a denied call must not", len(denied))
	}
	w.AllowController("RegisterTargets")
	w.Run(5 * time.Minute)
	if s := w.LBC().Stats(); s.Registered != 6 {
		t.Errorf("stats %+v once allowed: want the 6 pods registered", s)
	}
}
