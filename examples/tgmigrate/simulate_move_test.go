package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSimulatePrivateSubnets: step 4 after the cutover. Phased (with the
// recommended pod settings) loses no request in its cutover or its move,
// at the default timings and at the hardest corner, and every node ends
// in a private subnet; the two broken worlds are refused by readiness,
// with the check that failed, before any write (moveNodes compares the
// node classes, pools and journal before and after).
func TestSimulatePrivateSubnets(t *testing.T) {
	t.Parallel() // a simulate run of its own: the package's long tests share both cores
	code, stdout, stderr := runCLI(t, "simulate", "-format", "json", "-seed", "7", "-nodes", "6", "-pods", "18",
		"-rps", "20", "-churn-interval", "45s", "-duration", "15m", "-scenario", scenarioPrivateSubnets)
	if code != exitOK {
		t.Fatalf("exit code %d, stderr %q", code, stderr)
	}
	var rep simReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("output is not one JSON object: %v\n%s", err, stdout)
	}
	if len(rep.Scenarios) != len(strategies)+2 {
		t.Fatalf("%d rows, want the %d strategies and the 2 broken worlds", len(rep.Scenarios), len(strategies))
	}
	moved := func(name string, o simOutcome) {
		t.Helper()
		checkWindows(t, o)
		switch {
		case o.Error != "":
			t.Errorf("%s: %s", name, o.Error)
		case o.Windows.Move == nil || o.MoveWaves == 0 || o.NodesPrivate == nil || *o.NodesPrivate == 0:
			t.Errorf("%s: no move measured: %+v", name, o)
		case *o.NodesPublic != 0:
			t.Errorf("%s: %d nodes still public at the end", name, *o.NodesPublic)
		case o.Windows.Cutover.Failed != 0 || o.Windows.Move.Failed != 0:
			t.Errorf("%s: failed %d in the cutover, %d in the move, want 0", name, o.Windows.Cutover.Failed, o.Windows.Move.Failed)
		}
	}
	p := rep.Scenarios[2]
	if p.Strategy != strategyPhased || p.Fault != "" {
		t.Fatalf("row 2 is %s (%s), want phased", p.Strategy, p.Fault)
	}
	moved("phased", p)
	if p.Failed != 0 {
		t.Errorf("phased lost %d requests, want 0", p.Failed)
	}
	if h := rep.Hardest; h == nil {
		t.Error("no run at the hardest corner")
	} else {
		moved("phased at the hardest corner", h.Outcome)
	}
	for i, want := range map[int]string{len(strategies): "ZoneNotEnabled", len(strategies) + 1: "NoEgress"} {
		o := rep.Scenarios[i]
		if o.Error != "" || o.Outcome != "refused: "+want || !strings.HasPrefix(o.Fault, "broken world: ") {
			t.Errorf("row %d: outcome %q fault %q error %q, want refused: %s", i, o.Outcome, o.Fault, o.Error, want)
		}
		if o.NodesPublic == nil || *o.NodesPublic == 0 || o.MoveWaves != 0 {
			t.Errorf("row %d (%s): the refused move changed the nodes: %+v", i, o.Fault, o)
		}
	}
}
