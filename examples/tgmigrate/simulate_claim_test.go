package main

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
	"github.com/qstools/tgmigrate/internal/sim/timing"
)

// claimSeeds are the seeds of the corners.
var claimSeeds = []uint64{1, 2}

// claimCorners are the corners of the envelope: new-target checks 1 and
// HealthyThresholdCount, deregistration lag 0 and 120 s; every other knob
// at its default.
func claimCorners() []timing.Timings {
	var out []timing.Timings
	for _, checks := range []int{timing.DefaultNewTargetChecks, timing.HealthyThreshold} {
		for _, lag := range []time.Duration{-1, 2 * time.Minute} {
			out = append(out, timing.Timings{NewTargetChecks: checks, DeregistrationLag: lag}.WithDefaults())
		}
	}
	return out
}

// TestPhasedClaimAtTheCorners asserts the claim over a reduced envelope:
// the corners, for every churn shape of karpenter.Shapes, at two seeds,
// phased only, in the default world (sim's default nodes, pods and
// requests per second, a two-minute lead-in), the plan at the product's
// defaults. Under graceful churn (steady, wave, consolidation), and under
// expiry, whose nodes Execute replaces first, phased loses no request
// from Execute's start (its settle and cutover windows) but those no call
// at its start could have saved (sent within the world's lag of its start
// to targets of nodes Karpenter was already replacing: underWay); under
// spot the figures are reported, not asserted. Each run ends with
// Execute. The figures are logged (go test -v), one line per corner.
func TestPhasedClaimAtTheCorners(t *testing.T) {
	var (
		mu    sync.Mutex
		lines []string
	)
	t.Cleanup(func() {
		slices.Sort(lines)
		t.Logf("phased from Execute's start (settle + cutover), plan at the product's defaults:\n%s", strings.Join(lines, "\n"))
	})
	for _, shape := range karpenter.Shapes {
		for _, seed := range claimSeeds {
			for _, tm := range claimCorners() {
				checks := fmt.Sprint(tm.NewTargetChecks)
				if tm.NewTargetChecks == timing.HealthyThreshold {
					checks = "HealthyThresholdCount"
				}
				name := fmt.Sprintf("%s/seed=%d/checks=%s/lag=%v", shape, seed, checks, tm.Lag())
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					f := &simFlags{seed: seed, nodes: sim.DefaultNodes, pods: sim.DefaultPods, rps: sim.DefaultRPS, churnInterval: time.Minute,
						churn: string(shape), leadIn: 2 * time.Minute, scenario: "cutover"}
					o, err := (&simRun{a: &app{format: "json"}, f: f, strategy: strategyPhased, timings: tm}).outcome(t.Context())
					if err != nil {
						t.Fatalf("phased: %v", err)
					}
					checkWindows(t, *o)
					settle, cut := settleFailed(*o), o.Windows.Cutover.Failed
					asserted := gracefulShape(string(shape)) || shape == karpenter.ShapeExpiry
					avoidable := settle + cut - o.FailedUnderWayAtStart
					line := fmt.Sprintf("  %-55s settle %3d, cutover %3d, under way at the start %3d (%s; settle %.0f s, whole ratio %.2f)", name, settle, cut, o.FailedUnderWayAtStart,
						map[bool]string{true: "asserted", false: "forceful: reported"}[asserted], o.SettleSeconds, o.RatioWhole)
					mu.Lock()
					lines = append(lines, line)
					mu.Unlock()
					if o.Windows.Settle == nil {
						t.Fatalf("phased has no settle window: %+v", o.Windows)
					}
					if asserted && avoidable != 0 {
						t.Errorf("phased lost %d requests from Execute's start under %s churn that a call at its start could have saved (%d in its settle, %d in its cutover window, %d of them under way at its start)",
							avoidable, shape, settle, cut, o.FailedUnderWayAtStart)
					}
				})
			}
		}
	}
}
