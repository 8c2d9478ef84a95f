package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/timing"
)

// checkWindows checks what every row must show: its windows cover the run
// end to end, one after the other, none ending before it starts, and
// their requests, failures and kinds add up to the row's.
func checkWindows(t *testing.T, o simOutcome) {
	t.Helper()
	requests, failed := 0, 0
	var to float64
	for i, w := range o.Windows.all() {
		if i > 0 && w.FromSeconds != to {
			t.Errorf("%s: window %s starts at %v, the one before it ends at %v", o.Strategy, windowNames(o)[i], w.FromSeconds, to)
		}
		if w.ToSeconds < w.FromSeconds {
			t.Errorf("%s: window %s ends at %v, before it starts at %v", o.Strategy, windowNames(o)[i], w.ToSeconds, w.FromSeconds)
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
	t.Parallel() // a simulate run of its own: the package's long tests share both cores
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
			checkPhasedMeasure(t, rep, by)
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

// TestSimulateWireMatchesPlain: with a -duration shorter than phased's
// Execute (5 minutes against about 9), every row runs to the same length,
// so every strategy sends as many requests, static's cutover window (the
// plan's floor) included; every window is ordered; and -wire, the same
// calls through the real SDK client, gives the plain run's rows exactly
// (the wire spends the same virtual latency as the facades). The world is
// smaller than simulate's default (8 nodes, 24 pods), to keep the
// package's time: the rows' lengths do not depend on its size.
func TestSimulateWireMatchesPlain(t *testing.T) {
	t.Parallel() // a simulate run of its own: the package's long tests share both cores
	reports := map[bool]simReport{}
	for _, wire := range []bool{false, true} {
		args := []string{"simulate", "--format", "json", "--duration", "5m", "--seed", "5", "--nodes", "8", "--pods", "24",
			"--churn-interval", "45s", "--prelude", "2m"}
		if wire {
			args = append(args, "--wire")
		}
		code, stdout, stderr := runCLI(t, args...)
		if code != exitOK {
			t.Fatalf("%v: exit code %d, stderr %q", args, code, stderr)
		}
		var rep simReport
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("%v: output is not one JSON object: %v", args, err)
		}
		if rep.Wire != wire || len(rep.Scenarios) != len(strategies) {
			t.Fatalf("%v: wire %v, %d rows", args, rep.Wire, len(rep.Scenarios))
		}
		for _, o := range rep.Scenarios {
			if o.Error != "" {
				t.Fatalf("%v: %s failed: %s", args, o.Strategy, o.Error)
			}
			checkWindows(t, o)
			if o.Requests != rep.Scenarios[0].Requests {
				t.Errorf("%v: %s sent %d requests, %s %d: the rows ran for different lengths", args, o.Strategy, o.Requests, rep.Scenarios[0].Strategy, rep.Scenarios[0].Requests)
			}
			if o.Windows.After.ToSeconds != rep.Scenarios[0].Windows.After.ToSeconds {
				t.Errorf("%v: %s ends at %v s, %s at %v s", args, o.Strategy, o.Windows.After.ToSeconds, rep.Scenarios[0].Strategy, rep.Scenarios[0].Windows.After.ToSeconds)
			}
		}
		if p := rep.Scenarios[slices.Index(strategies, strategyPhased)]; p.CutoverSeconds <= 300 {
			t.Errorf("%v: phased's Execute took %v s: the test wants one longer than -duration", args, p.CutoverSeconds)
		}
		checkWindows(t, rep.Hardest.Outcome)
		reports[wire] = rep
	}
	ignore := cmpopts.IgnoreUnexported(simOutcome{})
	if d := cmp.Diff(reports[false].Scenarios, reports[true].Scenarios, ignore); d != "" {
		t.Errorf("rows differ (-plain +wire):\n%s", d)
	}
	if d := cmp.Diff(reports[false].Hardest, reports[true].Hardest, ignore); d != "" {
		t.Errorf("hardest corner differs (-plain +wire):\n%s", d)
	}
}

// checkPhasedMeasure checks what the rows measure from Execute's start:
// the phased rows have a settle window from Execute's call, as long as
// Execute's hold step (SettleSeconds), and both ratios from the result;
// static and naive-tgb have neither; every row's failures while phased's
// Execute ran include those in its cutover window; the plan was made at
// the product's defaults, not the world's timings.
func checkPhasedMeasure(t *testing.T, rep simReport, by map[string]simOutcome) {
	t.Helper()
	if d := cmp.Diff(cutover.Assumptions{}.WithDefaults(), rep.PlanAssumptions); d != "" || rep.PlanAssumptions.Lag() == rep.Timings.Lag() {
		t.Errorf("plan assumptions %v, world's lag %v: want the product's defaults, unlike the world's (-want +got):\n%s", rep.PlanAssumptions, rep.Timings.Lag(), d)
	}
	p := by[strategyPhased]
	for _, name := range strategies {
		o := by[name]
		phased := strings.HasPrefix(name, strategyPhased)
		if (o.Windows.Settle != nil) != phased || (o.Ratio > 0) != phased || (o.RatioWhole > 0) != phased {
			t.Errorf("%s: settle window %v, ratio %v, whole ratio %v; want them on the phased rows only", name, o.Windows.Settle, o.Ratio, o.RatioWhole)
		}
		if o.FailedInPhasedExecute < o.FailedInPhasedCutover {
			t.Errorf("%s: %d failed while phased's Execute ran, fewer than the %d in its cutover window", name, o.FailedInPhasedExecute, o.FailedInPhasedCutover)
		}
		if !phased || o.Windows.Settle == nil {
			continue
		}
		st := o.Windows.Settle
		if got := st.ToSeconds - st.FromSeconds; got < o.SettleSeconds-1 || got > o.SettleSeconds+1 {
			t.Errorf("%s: settle window %v s to %v s, Execute's settle %v s", name, st.FromSeconds, st.ToSeconds, o.SettleSeconds)
		}
		if want := o.CutoverSeconds / (o.SettleSeconds + o.FloorSeconds); o.RatioWhole != want {
			t.Errorf("%s: whole ratio %v, want %v / (%v + %v)", name, o.RatioWhole, o.CutoverSeconds, o.SettleSeconds, o.FloorSeconds)
		}
	}
	if want := p.Windows.Settle.Failed + p.Windows.Cutover.Failed; p.FailedInPhasedExecute != want {
		t.Errorf("phased: %d failed while its Execute ran, its settle and cutover windows have %d", p.FailedInPhasedExecute, want)
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

// TestSimulateControllerFaults: -scenario controller-faults prints one
// phased row per fault of the controller, each with its fault, what
// Execute and the rollback returned, 0 failed requests, the target group
// restored, and the cutover completing when run again once the fault is
// cleared; the text table shows the same rows.
func TestSimulateControllerFaults(t *testing.T) {
	t.Parallel() // a simulate run of its own: the package's long tests share both cores
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

// runSimulateOn runs simulate in-process with fault, when set, shown each
// world as soon as it is built (by its name: "story", or the strategy), so
// that it can make that run fail.
func runSimulateOn(t *testing.T, fault func(name string, w *sim.World), args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, onWorld: fault}
	code = a.run(t.Context(), append([]string{"simulate"}, args...))
	return code, out.String(), errOut.String()
}

// denyRegister makes the phased cutover fail in the worlds named: the
// controller lacks RegisterTargets, so Execute's gate stops with a
// *cutover.ControllerError (and rolls back).
func denyRegister(t *testing.T, names ...string) func(string, *sim.World) {
	return func(name string, w *sim.World) {
		if contains(names, name) {
			if err := w.DenyController("RegisterTargets"); err != nil {
				t.Error(err)
			}
		}
	}
}

// webhookDown makes the worlds named refuse every TargetGroupBinding:
// naive-tgb cannot create its binding, phased's Execute cannot bind.
func webhookDown(names ...string) func(string, *sim.World) {
	return func(name string, w *sim.World) {
		if contains(names, name) {
			w.SetWebhookDown(true)
		}
	}
}

// TestSimulateFailedStrategy: a strategy that fails is a row with its
// error, and every other row is still run, with its figures, in JSON and
// in text; the exit status is 3 when phased failed (after everything was
// printed), 0 when only other strategies did.
func TestSimulateFailedStrategy(t *testing.T) {
	small := []string{"-seed", "3", "-nodes", "4", "-pods", "8", "-rps", "10", "-duration", "5m", "-lead-in", "1m"}
	tests := []struct {
		name     string
		fault    func(string, *sim.World)
		failed   []string
		wantCode int
		// wantError is in every failed row's error.
		wantError string
	}{
		{"phased", denyRegister(t, strategyPhased), []string{strategyPhased}, exitFailed, "execute: "},
		{"naive-tgb and phased-as-is", webhookDown(strategyNaive, strategyPhasedAsIs), []string{strategyNaive, strategyPhasedAsIs}, exitOK, "webhook"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runSimulateOn(t, tt.fault, append([]string{"-format", "json"}, small...)...)
			if code != tt.wantCode {
				t.Fatalf("exit code %d, want %d; stderr %q", code, tt.wantCode, stderr)
			}
			var rep simReport
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("output is not one JSON object: %v\n%s", err, stdout)
			}
			if len(rep.Scenarios) != len(strategies) || rep.Hardest == nil {
				t.Fatalf("%d rows (want %d), hardest %v", len(rep.Scenarios), len(strategies), rep.Hardest)
			}
			for i, s := range rep.Scenarios {
				if s.Strategy != strategies[i] {
					t.Errorf("row %d is %s, want %s", i, s.Strategy, strategies[i])
				}
				if contains(tt.failed, s.Strategy) {
					if !strings.Contains(s.Error, tt.wantError) || strings.Contains(s.Error, "\n") || s.Requests != 0 {
						t.Errorf("%s: error %q, %d requests; want one line with %q and no figure", s.Strategy, s.Error, s.Requests, tt.wantError)
					}
					continue
				}
				if s.Error != "" || s.Requests == 0 {
					t.Errorf("%s: error %q, %d requests; want a completed run", s.Strategy, s.Error, s.Requests)
				}
				checkWindows(t, s)
			}
			if h := rep.Hardest.Outcome; h.Error != "" || h.Requests == 0 {
				t.Errorf("phased at the hardest corner: error %q, %d requests; want a completed run", h.Error, h.Requests)
			}
			if n := strings.Count(stdout, `"error":`); n != len(tt.failed) {
				t.Errorf("the JSON has %d \"error\" keys, want %d (omitted when empty)", n, len(tt.failed))
			}
			if tt.wantCode == exitFailed {
				if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "tgmigrate: simulate: phased failed: phased: execute: ") {
					t.Errorf("stderr %q: want one line naming phased and its error", stderr)
				}
			}
		})
	}
}

// TestSimulateTextFailedStory: in text, the story's failed Execute is
// printed in its section, the sections left are skipped, and the
// comparison follows, with the failed row and its error under the table;
// the exit status is 3, once everything is printed.
func TestSimulateTextFailedStory(t *testing.T) {
	code, stdout, stderr := runSimulateOn(t, denyRegister(t, "story", strategyPhased),
		"-seed", "3", "-nodes", "4", "-pods", "8", "-rps", "10", "-duration", "5m", "-lead-in", "1m", "-prelude", "1m")
	if code != exitFailed {
		t.Fatalf("exit code %d, want %d; stderr %q", code, exitFailed, stderr)
	}
	exec := strings.Index(stdout, "== 4. execute")
	failed := strings.Index(stdout, "\nfailed: execute: ")
	skipped := strings.Index(stdout, "The story's remaining sections are skipped; the side-by-side comparison follows.")
	table := strings.Index(stdout, "== 6. Side by side")
	if exec < 0 || failed < exec || skipped < failed || table < skipped || strings.Contains(stdout, "== 5. verify") {
		t.Fatalf("want section 4 with the error, the skip, no section 5, then section 6:\n%s", stdout)
	}
	after := stdout[table:]
	for _, s := range []string{strategyStatic, strategyNaive, strategyPhasedAsIs} {
		// A completed row has its figures: a number of requests after its
		// preStop.
		if !regexp.MustCompile(`(?m)^\s+` + s + `\s+\d+\s+\d+\s+\d+\s`).MatchString(after) {
			t.Errorf("no row of figures for %s:\n%s", s, after)
		}
	}
	if !regexp.MustCompile(`(?m)^\s+phased(\s+-){13}\s+failed`).MatchString(after) {
		t.Errorf("no failed row for phased in the table:\n%s", after)
	}
	if !regexp.MustCompile(`(?m)^  phased\s+error: execute: .*RegisterTargets.*$`).MatchString(after) {
		t.Errorf("no line under the table with phased's error:\n%s", after)
	}
	if !strings.Contains(after, "run now: phased lost ") {
		t.Errorf("no hardest corner's line:\n%s", after)
	}
	last := strings.Split(strings.TrimSpace(stderr), "\n")
	if l := last[len(last)-1]; !strings.HasPrefix(l, "tgmigrate: simulate: phased failed: the story: execute: ") || !strings.Contains(l, "and 1 more run of phased") {
		t.Errorf("stderr's last line %q: want the story's error and one more run of phased", l)
	}
}

// TestSimulateLimits: --nodes and --pods out of their limits are usage
// errors that say why the limit is there; their limits themselves are
// accepted, and the help gives the reasons.
func TestSimulateLimits(t *testing.T) {
	const quota = "ELBv2's default quota of 1,000 targets per target group"
	tests := []struct {
		name  string
		args  []string
		wants []string
	}{
		{"one node", []string{"-nodes", "1"}, []string{"--nodes 1: want 2 to 500"}},
		{"501 nodes", []string{"-nodes", "501"}, []string{"--nodes 501: want 2 to 500", "the largest world the simulator runs within the two-minute target on two cores", quota}},
		{"no pod", []string{"-pods", "0"}, []string{"--pods 0: want 1 to 1000"}},
		{"1001 pods", []string{"-pods", "1001"}, []string{"--pods 1001: want 1 to 1000", quota}},
		{"2000 pods", []string{"-pods", "2000", "-nodes", "500"}, []string{"--pods 2000: want 1 to 1000", quota}},
		{"no seed", []string{"-envelope", "-seeds", "0"}, []string{"--seeds 0: want 1 to 20"}},
		{"21 seeds", []string{"-envelope", "-seeds", "21"}, []string{"--seeds 21: want 1 to 20"}},
		{"seeds without the envelope", []string{"-seeds", "3"}, []string{"--seeds 3: only --envelope runs several seeds"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append([]string{"simulate"}, tt.args...)...)
			if code != exitUsage || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Fatalf("exit code %d, stdout %q, stderr %q; want %d, nothing, one line", code, stdout, stderr, exitUsage)
			}
			for _, want := range tt.wants {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr %q does not say %q", stderr, want)
				}
			}
		})
	}
	for _, np := range [][2]int{{2, 1}, {500, 1000}} {
		f := &simFlags{nodes: np[0], pods: np[1], rps: 20, churnInterval: time.Minute, churn: "steady", duration: 30 * time.Minute, scenario: "cutover", seeds: 5}
		if err := f.validate(); err != nil {
			t.Errorf("--nodes %d --pods %d: %v, want accepted", np[0], np[1], err)
		}
	}
	code, stdout, _ := runCLI(t, "simulate", "--help")
	help := strings.Join(strings.Fields(stdout), " ")
	if code != exitOK || !strings.Contains(help, "--pods goes up to 1,000, "+quota) || !strings.Contains(help, "pods behind the Service: 1 to 1000, "+quota) {
		t.Errorf("exit %d; the help does not give --pods' limit and its reason:\n%s", code, stdout)
	}
}

// TestSimulateStoryAbridgesTargetLists: the story's plan shows the first ten
// recorded targets and counts the rest; everything else of the plan's
// text is as cutover renders it.
func TestSimulateStoryAbridgesTargetLists(t *testing.T) {
	w := testWorld(t, simFlags{seed: 3, nodes: 14, pods: 16, rps: 10, churnInterval: time.Minute, churn: "steady"}, strategyPhased)
	plan := testPlan(t, w)
	full := plan.Text()
	n := len(plan.Recorded)
	if n <= storyTargetsShown {
		t.Fatalf("the plan records %d targets: want more than %d", n, storyTargetsShown)
	}
	lines := strings.SplitAfter(full, "\n")
	h := slices.Index(lines, fmt.Sprintf("Recorded targets to deregister (%d):\n", n))
	if h < 0 {
		t.Fatalf("no list of recorded targets in the plan:\n%s", full)
	}
	want := strings.Join(lines[:h+1+storyTargetsShown], "") +
		fmt.Sprintf("  … and %d more (the plan's JSON lists them all)\n", n-storyTargetsShown) +
		strings.Join(lines[h+1+n:], "")
	if d := cmp.Diff(want, abridgeTargetLists(full, storyTargetsShown)); d != "" {
		t.Errorf("abridged plan (-want +got):\n%s", d)
	}
	if got := abridgeTargetLists(full, n); got != full {
		t.Errorf("a list no longer than keep was changed:\n%s", cmp.Diff(full, got))
	}
}
