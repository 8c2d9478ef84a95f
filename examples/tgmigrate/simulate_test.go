package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/sim/timing"
)

// checkWindows checks what every row must show: its windows cover the run
// end to end, one after the other, and their requests, failures and kinds
// add up to the row's.
func checkWindows(t *testing.T, o simOutcome) {
	t.Helper()
	requests, failed := 0, 0
	var to float64
	for i, w := range o.Windows.all() {
		if i > 0 && w.FromSeconds != to {
			t.Errorf("%s: window %s starts at %v, the one before it ends at %v", o.Strategy, windowNames(o)[i], w.FromSeconds, to)
		}
		to = w.ToSeconds
		requests += w.Requests
		failed += w.Failed
		kinds := 0
		for _, n := range w.FailedByKind {
			kinds += n
		}
		if kinds != w.Failed {
			t.Errorf("%s: window %s: kinds %v add up to %d, failed %d", o.Strategy, windowNames(o)[i], w.FailedByKind, kinds, w.Failed)
		}
	}
	if requests != o.Requests || failed != o.Failed {
		t.Errorf("%s: windows add up to %d requests and %d failed; the row has %d and %d", o.Strategy, requests, failed, o.Requests, o.Failed)
	}
	if o.OutageSeconds != o.DegradedSeconds || o.TotalOutageSeconds > o.DegradedSeconds {
		t.Errorf("%s: outage %v, degraded %v, total outage %v", o.Strategy, o.OutageSeconds, o.DegradedSeconds, o.TotalOutageSeconds)
	}
}

// TestSimulateJSON: on the same seed and churn, the phased cutover (with
// the pod settings the product recommends) fails no request, in any
// window up to the end of its rollback, while static fails in its cutover
// window; the windows add up;
// the run names its timings and ends with phased at the hardest corner.
func TestSimulateJSON(t *testing.T) {
	for _, scenario := range []string{"cutover", "rollback"} {
		t.Run(scenario, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "simulate", "-format", "json", "-seed", "5", "-nodes", "8", "-pods", "24",
				"-rps", "20", "-churn-interval", "45s", "-duration", "15m", "-scenario", scenario)
			if code != exitOK {
				t.Fatalf("exit code %d, stderr %q", code, stderr)
			}
			var rep simReport
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("output is not one JSON object: %v\n%s", err, stdout)
			}
			if rep.SchemaVersion != 1 || rep.Seed != 5 || rep.Scenario != scenario || rep.Churn != "steady" || len(rep.Scenarios) != len(strategies) {
				t.Fatalf("report header %+v", rep)
			}
			if d := cmp.Diff(timing.Defaults(), rep.Timings); d != "" {
				t.Errorf("timings (-want +got):\n%s", d)
			}
			by := map[string]simOutcome{}
			for i, s := range rep.Scenarios {
				if s.Strategy != strategies[i] {
					t.Errorf("row %d is %s, want %s", i, s.Strategy, strategies[i])
				}
				by[s.Strategy] = s
				checkWindows(t, s)
				if (s.Windows.Rollback != nil) != (scenario == "rollback" && strings.HasPrefix(s.Strategy, "phased")) {
					t.Errorf("%s: rollback window %v", s.Strategy, s.Windows.Rollback)
				}
			}
			p := by[strategyPhased]
			if p.FailedInPhasedCutover != p.Windows.Cutover.Failed || by[strategyStatic].FailedInPhasedCutover == 0 {
				t.Errorf("failed in phased's cutover window: phased %d (its window %d), static %d; want phased's own, and static's above 0",
					p.FailedInPhasedCutover, p.Windows.Cutover.Failed, by[strategyStatic].FailedInPhasedCutover)
			}
			// After a rollback the static target group is back, and fails
			// under churn again: only the windows before it must be clean.
			lost := p.Failed
			if scenario == "rollback" {
				lost = p.Windows.Before.Failed + p.Windows.Cutover.Failed + p.Windows.Rollback.Failed
				if p.Windows.After.Failed == 0 {
					t.Errorf("phased after its rollback: no request failed under churn; the static target group should")
				}
			}
			if lost != 0 || p.CutoverSeconds <= 0 || p.APICalls["DeregisterTargets"] == 0 || p.PodSettings.PreStopSeconds != 130 || p.PodSettings.TerminationGracePeriodSeconds != 160 {
				t.Errorf("phased: %+v, want 0 failed, a cutover that deregistered, preStop 130 s and grace 160 s", p)
			}
			if s := by[strategyStatic]; s.Windows.Cutover.Failed == 0 || s.PodSettings.PreStopSeconds != 15 {
				t.Errorf("static failed no request in its cutover window: %+v", s)
			}
			h := rep.Hardest
			if h == nil || h.Timings != timing.Hardest() || h.Outcome.Strategy != strategyPhased {
				t.Fatalf("hardest %+v, want phased at timing.Hardest", h)
			}
			checkWindows(t, h.Outcome)
			if h.Outcome.Windows.Cutover.Failed != 0 || (h.Outcome.Windows.Rollback != nil && h.Outcome.Windows.Rollback.Failed != 0) {
				t.Errorf("phased at the hardest corner lost requests in its cutover or rollback window: %+v", h.Outcome.Windows)
			}
		})
	}
}

// TestSimulateTextNamesTheHardestCorner: the plain run's last line names
// -envelope, the hardest corner's timings and phased's figure there.
func TestSimulateTextNamesTheHardestCorner(t *testing.T) {
	code, stdout, stderr := runCLI(t, "simulate", "-seed", "5", "-nodes", "6", "-pods", "18", "-duration", "10m", "-prelude", "2m")
	if code != exitOK {
		t.Fatalf("exit code %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	last := lines[len(lines)-1]
	for _, want := range []string{"simulate -envelope", timing.Hardest().String(), "phased lost "} {
		if !strings.Contains(last, want) {
			t.Errorf("last line %q does not say %q", last, want)
		}
	}
	if !strings.Contains(stdout, "AWS timings: "+timing.Defaults().String()) {
		t.Errorf("the comparison does not name its timings:\n%s", stdout)
	}
}

// TestSimulateTimingFlags: the flags set the knobs, and the report says so.
func TestSimulateTimingFlags(t *testing.T) {
	code, stdout, stderr := runCLI(t, "simulate", "-format", "json", "-seed", "3", "-nodes", "4", "-pods", "8", "-duration", "5m",
		"-new-target-checks", "threshold", "-deregistration-lag", "-1s", "-connect-timeout", "-1s", "-ip-reuse", "node", "-churn", "spot")
	if code != exitOK {
		t.Fatalf("exit code %d, stderr %q", code, stderr)
	}
	var rep simReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	want := timing.Timings{NewTargetChecks: timing.HealthyThreshold, DeregistrationLag: -time.Second, ConnectTimeout: -time.Second,
		IPReuse: timing.IPReuse{Enabled: true, To: timing.HolderNode}}.WithDefaults()
	if rep.Timings != want || rep.Churn != "spot" {
		t.Errorf("timings %s, churn %s; want %s, spot", rep.Timings, rep.Churn, want)
	}
	// No connect timeout: a dead address answers 502, never 504.
	for _, s := range rep.Scenarios {
		for _, w := range s.Windows.all() {
			if w.FailedByKind["504"] != 0 {
				t.Errorf("%s: %d requests answered 504 with no connect timeout", s.Strategy, w.FailedByKind["504"])
			}
		}
	}
}

// TestEnvelopeReport runs the envelope's machinery over two points and one
// knob, in a small world: every point has every strategy's row, the
// summary spans the points, the sensitivity rows name their knob, and the
// default point's rows are the report's scenarios.
func TestEnvelopeReport(t *testing.T) {
	f := &simFlags{seed: 9, nodes: 4, pods: 8, rps: 10, churnInterval: time.Minute, churn: "steady", duration: 5 * time.Minute,
		leadIn: time.Minute, scenario: "cutover"}
	noLag := timing.Timings{DeregistrationLag: -1}.WithDefaults()
	grid := []timing.Timings{timing.Defaults(), noLag}
	knobs := []timing.Knob{{Name: "DeregistrationLag", Labels: []string{"0s", "60s"},
		Values: []timing.Timings{noLag, timing.Timings{DeregistrationLag: time.Minute}.WithDefaults()}}}
	a := &app{format: "json"}
	rep, rows, err := a.runEnvelope(t.Context(), f, grid, knobs)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Points) != 2 || len(rep.Summary) != len(strategies) || len(rep.Sensitivity) != 2 || len(rows) != len(strategies) {
		t.Fatalf("%d points, %d summaries, %d sensitivity rows, %d default rows", len(rep.Points), len(rep.Summary), len(rep.Sensitivity), len(rows))
	}
	for _, p := range rep.Points {
		for i, o := range p.Scenarios {
			if o.Strategy != strategies[i] {
				t.Errorf("point %s row %d is %q", p.Timings, i, o.Strategy)
			}
			checkWindows(t, o)
		}
	}
	if d := cmp.Diff(rep.Points[0].Scenarios, rows, cmp.AllowUnexported(simOutcome{})); d != "" {
		t.Errorf("the default point's rows are not the report's (-point +rows):\n%s", d)
	}
	for i, s := range rep.Summary {
		a, b := rep.Points[0].Scenarios[i].Failed, rep.Points[1].Scenarios[i].Failed
		if s.Min != min(a, b) || s.Max != max(a, b) {
			t.Errorf("%s: min %d max %d, the points gave %d and %d", s.Strategy, s.Min, s.Max, a, b)
		}
	}
	if r := rep.Sensitivity[0]; r.Knob != "DeregistrationLag" || r.Value != "0s" || r.Failed[strategyStatic] != rep.Points[1].Scenarios[0].Failed {
		t.Errorf("sensitivity row %+v: want the no-lag point's figures", r)
	}
	b, err := json.Marshal(simReport{Envelope: rep})
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"envelope":{"points":[{"timings":{`, `"scenarios":[`, `"summary":`, `"sensitivity":`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
}

// TestSimulateControllerFaults: -scenario controller-faults prints one
// phased row per fault of the controller, each with its fault, what
// Execute and the rollback returned, 0 failed requests, the target group
// restored, and the cutover completing when run again once the fault is
// cleared; the text table shows the same rows.
func TestSimulateControllerFaults(t *testing.T) {
	args := []string{"simulate", "-seed", "5", "-nodes", "8", "-pods", "24", "-rps", "20", "-churn-interval", "45s", "-duration", "12m", "-scenario", scenarioControllerFaults}
	code, stdout, stderr := runCLI(t, append(args, "-format", "json")...)
	if code != exitOK {
		t.Fatalf("exit code %d, stderr %q", code, stderr)
	}
	var rep simReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("output is not one JSON object: %v\n%s", err, stdout)
	}
	want := map[string]string{
		"not-running":             "controller-not-reconciling/rolled-back",
		"crash-loop":              "controller-not-reconciling/rolled-back",
		"ec2-denied":              "controller-failing/rolled-back",
		"register-denied":         "controller-failing/rolled-back",
		"webhook-down":            "webhook-unavailable/rolled-back",
		"restart-before-register": "completed/rolled-back",
	}
	if len(rep.Scenarios) != len(want) || rep.Hardest != nil || rep.Scenario != scenarioControllerFaults {
		t.Fatalf("report: %d rows (want %d), hardest %v, scenario %q", len(rep.Scenarios), len(want), rep.Hardest, rep.Scenario)
	}
	for i, s := range rep.Scenarios {
		if s.Fault != controllerFaults[i].name || s.Strategy != strategyPhased {
			t.Errorf("row %d: fault %q strategy %q, want %q phased", i, s.Fault, s.Strategy, controllerFaults[i].name)
		}
		checkWindows(t, s)
		if s.Outcome != want[s.Fault] || s.Failed != 0 || s.Restored == nil || !*s.Restored || s.Retry != "completed" {
			t.Errorf("%s: outcome %q (want %q), failed %d, restored %v, retry %q; note %q", s.Fault, s.Outcome, want[s.Fault], s.Failed, s.Restored, s.Retry, s.Note)
		}
	}
	// The text table renders the same rows (the same function the text
	// run calls; the runs themselves are the JSON's).
	var b strings.Builder
	writeFaults(&b, rep)
	text := b.String()
	for fault, outcome := range want {
		if !strings.Contains(text, fault) || !strings.Contains(text, outcome) {
			t.Errorf("text does not show %s with %s:\n%s", fault, outcome, text)
		}
	}
}
