package main

// simulate_underway.go: which of a phased run's failed requests no call
// made at Execute's start could have saved: those sent, within the
// world's deregistration lag of Execute's start, to a target whose node
// Karpenter had begun to replace before Execute started.

import (
	"time"

	"github.com/qstools/tgmigrate/internal/sim"
)

// underWay counts the seed's application's failed requests
// (sim.World.UnderWayOf) sent from start until start plus the world's
// deregistration lag to a target registered for a node whose
// disruption Karpenter started before start (whether it is gone by then
// or still draining). Such a target takes requests for the lag after it
// leaves the target group, however early that is: deregistered at
// Execute's very first instant, it would still be in the load balancer's
// rotation until start plus the lag, and its node may be gone before. A
// failure after that, or to any other target, is not counted: Execute
// could have prevented it. A request is placed by the second it was sent
// in, counted from origin, as the windows place it (windowOf).
func underWay(w *sim.World, origin, start time.Time) int {
	n := 0
	for _, c := range w.UnderWayOf(w.Legacy().TargetGroupARN, origin, start) {
		n += c
	}
	return n
}
