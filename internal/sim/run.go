package sim

// run.go: the running of the world: its virtual clock, the scenario's start,
// Run and RunUntil, client traffic and its failed requests, and churn on
// demand.

import (
	"time"

	"github.com/qstools/tgmigrate/internal/sim/karpenter"
	"github.com/qstools/tgmigrate/internal/sim/traffic"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// Clock returns the world's virtual clock: give it to the system under
// test as its k8s.io/utils/clock.
func (w *World) Clock() *vclock.Clock { return w.clock }

// Start returns the virtual time the scenario started (after warm-up).
func (w *World) Start() time.Time { return w.start }

// Elapsed returns the virtual time since the scenario started.
func (w *World) Elapsed() time.Duration { return w.clock.Since(w.start) }

// Run runs the world for d of virtual time. It must not be called from a
// world event or while the system under test is waiting.
func (w *World) Run(d time.Duration) { w.clock.Advance(d) }

// RunUntil runs the world until the virtual time t.
func (w *World) RunUntil(t time.Time) { w.clock.RunUntil(t) }

// Traffic returns the client traffic so far (zero without traffic).
func (w *World) Traffic() traffic.Stats {
	if w.traffic == nil {
		return traffic.Stats{}
	}
	return w.traffic.Stats()
}

// FailedRequests returns every failed client request so far, in the order
// sent (package traffic's Generator.Failures): when it was sent, the target
// group and the target it went to (zero when none took it: a 503), the
// outcome and the status. [World.TargetSpanAt] gives the registration it
// went to and what held the address then; World.Karpenter().Disruptions()
// when that node's disruption started and when it was terminated. Nil
// without traffic.
func (w *World) FailedRequests() []traffic.Request {
	if w.traffic == nil {
		return nil
	}
	return w.traffic.Failures()
}

// StopTraffic ends the client traffic, the apps' too; its stats stay
// readable.
func (w *World) StopTraffic() {
	if w.traffic != nil {
		w.traffic.Stop()
	}
	for _, a := range w.apps {
		if a.traffic != nil {
			a.traffic.Stop()
		}
	}
}

// ReplaceAllNodes has Karpenter replace every current node, for drift,
// spread over within. Budgets and PodDisruptionBudgets may stretch it.
func (w *World) ReplaceAllNodes(within time.Duration) error {
	return w.karp.ReplaceAll(karpenter.ReasonDrifted, within)
}
