package cutover_test

// stringers_test.go: the one-line String of what a user prints with %v:
// Progress, Result, RollbackResult and Disposition.

import (
	"fmt"
	"testing"

	"github.com/qstools/tgmigrate/cutover"
)

func TestStrings(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"progress", cutover.Progress{Step: cutover.StepDeregister, Healthy: 58, Total: 60, Floor: 40, Summary: "58/60 healthy, 20 node targets"},
			"deregister: 58/60 healthy, 20 node targets; floor 40"},
		{"progress without summary", cutover.Progress{Step: cutover.StepGate, Healthy: 3, Total: 4, Draining: 1, Floor: 2},
			"gate: 3/4 healthy, draining 1; floor 2"},
		{"result completed", &cutover.Result{PlanID: "tgm-1", Strategy: cutover.StrategyInPlace, Completed: true, CutoverSeconds: 412.4,
			FloorSeconds: 380, Deregistered: 60, Batches: 3, MutatingCalls: 9},
			"plan tgm-1 (in-place): completed in 412s (floor 380s); targets deregistered: 60, batches: 3, mutating calls: 9"},
		{"result paused, resumed", &cutover.Result{PlanID: "tgm-1", Strategy: cutover.StrategyBlueGreen, Resumed: true, Stopped: true, StoppedAfter: "bind"},
			"plan tgm-1 (blue-green): resumed, paused after bind in 0s (floor 0s); targets deregistered: 0, batches: 0, mutating calls: 0"},
		{"result rolled back", &cutover.Result{PlanID: "tgm-1", Strategy: cutover.StrategyInPlace, RolledBack: true},
			"plan tgm-1 (in-place): rolled back in 0s (floor 0s); targets deregistered: 0, batches: 0, mutating calls: 0"},
		{"result failed", &cutover.Result{PlanID: "tgm-1", Strategy: cutover.StrategyInPlace},
			"plan tgm-1 (in-place): not completed in 0s (floor 0s); targets deregistered: 0, batches: 0, mutating calls: 0"},
		{"nil result", (*cutover.Result)(nil), "no result"},
		{"rollback", &cutover.RollbackResult{PlanID: "tgm-1", Completed: true, Seconds: 95, FloorSeconds: 60,
			Registered: make([]cutover.TargetAddr, 4), MutatingCalls: 6},
			"rollback of plan tgm-1: completed in 95s (floor 60s); node targets registered: 4, mutating calls: 6"},
		{"rollback nothing to do", &cutover.RollbackResult{PlanID: "tgm-1", Completed: true, NothingToDo: true, Reason: "already rolled back"},
			"rollback of plan tgm-1: nothing to do (already rolled back)"},
		{"nil rollback", (*cutover.RollbackResult)(nil), "no rollback result"},
		{"disposition", cutover.DispositionRollback, "rollback"},
		{"unknown disposition", cutover.Disposition(99), "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fmt.Sprint(tt.v); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
