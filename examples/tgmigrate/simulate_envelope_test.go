package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/sim/timing"
)

// ruleWorld is a run of the envelope's tests whose figures follow a rule of
// the world's knobs instead of a simulation, so that the envelope's choices
// (the grid, the knobs that changed nothing, the summaries) are checked
// against figures known in advance:
//   - static loses 100 requests in its cutover and after windows each, 40
//     with IP reuse on;
//   - naive-tgb loses 10 in its cutover window, 30 when new targets need
//     HealthyThresholdCount checks;
//   - phased and phased-as-is lose the seed's number in their settle
//     under spot churn at a lag of 120 s, 50 more in worlds worse than the
//     plan assumes, nothing else;
//   - phased-as-is fails under wave churn at a lag of 60 s;
//   - a dead address answers 502 with no connect timeout, 504 with one:
//     the knob changes the kind, never the count.
func ruleWorld(_ context.Context, f *simFlags, strategy string, tm timing.Timings) (*simOutcome, error) {
	if strategy == strategyPhasedAsIs && f.churn == "wave" && tm.Lag() == time.Minute {
		return nil, errors.New("execute: refused")
	}
	dead := "504"
	if tm.Timeout() == 0 {
		dead = "502"
	}
	var at float64
	win := func(d float64, failed int) simWindow {
		w := simWindow{FromSeconds: at, ToSeconds: at + d, Requests: int(d), Failed: failed, FailedByKind: map[string]int{dead: failed}}
		at += d
		return w
	}
	o := &simOutcome{Strategy: strategy}
	switch strategy {
	case strategyStatic:
		n := 100
		if tm.IPReuse.Enabled {
			n = 40
		}
		o.Windows = simWindows{Before: win(60, 0), Cutover: win(360, n), After: win(1440, n)}
	case strategyNaive:
		n := 10
		if tm.NewTargetChecks == timing.HealthyThreshold {
			n = 30
		}
		o.Windows = simWindows{Before: win(60, 0), Cutover: win(60, n), After: win(1740, 0)}
	default:
		settle := 0
		if f.churn == "spot" && tm.Lag() == 2*time.Minute {
			settle = int(f.seed)
		}
		if tm.Lag() > 2*time.Minute {
			settle = 50 + int(f.seed)
		}
		st := win(200, settle)
		o.Windows = simWindows{Before: win(60, 0), Settle: &st, Cutover: win(360, 0), After: win(1240, 0)}
		o.SettleSeconds, o.CutoverSeconds, o.FloorSeconds, o.Ratio, o.RatioWhole = 200, 560, 360, 1, 1
	}
	for _, w := range o.Windows.all() {
		o.Requests += w.Requests
		o.Failed += w.Failed
	}
	return o, nil
}

// TestEnvelopeChoosesAndSummarizes runs the envelope's machinery on
// ruleWorld: the knobs that changed nothing are said so and left out of
// the grid (the connect timeout, which only turns 504s into 502s, among
// them), the grid is the product of the others for every churn shape and
// seed, phased runs again worse than its plan assumes, every world runs
// once, and the summaries give phased's worst per window per churn shape.
func TestEnvelopeChoosesAndSummarizes(t *testing.T) {
	var (
		mu   sync.Mutex
		runs = map[runKey]int{}
	)
	f := &simFlags{seed: 1, churn: "wave"}
	r := &envelopeRunner{f: f, results: map[runKey]simOutcome{}, groups: map[runKey][]string{},
		run: func(ctx context.Context, f *simFlags, strategy string, tm timing.Timings) (*simOutcome, error) {
			mu.Lock()
			runs[runKey{f.churn, f.seed, tm, strategy}]++
			mu.Unlock()
			return ruleWorld(ctx, f, strategy, tm)
		}}
	knob := func(name string, labels []string, set ...func(*timing.Timings)) timing.Knob {
		k := timing.Knob{Name: name, Labels: labels}
		for _, s := range set {
			var tm timing.Timings
			s(&tm)
			k.Values = append(k.Values, tm.WithDefaults())
		}
		return k
	}
	spec := envelopeSpec{
		Churns: []string{"steady", "wave", "spot"}, Seeds: []uint64{1, 2}, GridKnobs: timing.GridKnobs, Worse: true,
		Knobs: []timing.Knob{
			knob("NewTargetChecks", []string{"1", "HealthyThresholdCount"},
				func(t *timing.Timings) { t.NewTargetChecks = 1 }, func(t *timing.Timings) { t.NewTargetChecks = timing.HealthyThreshold }),
			knob("DeregistrationLag", []string{"0s", "120s"},
				func(t *timing.Timings) { t.DeregistrationLag = -1 }, func(t *timing.Timings) { t.DeregistrationLag = 2 * time.Minute }),
			knob("ConnectTimeout", []string{"502 at once", "504 after 10s"},
				func(t *timing.Timings) { t.ConnectTimeout = -1 }, func(t *timing.Timings) { t.ConnectTimeout = 10 * time.Second }),
			knob("FailOpenInitial", []string{"false", "true"},
				func(t *timing.Timings) {}, func(t *timing.Timings) { t.FailOpenInitial = true }),
			knob("IPReuse", []string{"off", "on, any"},
				func(t *timing.Timings) {}, func(t *timing.Timings) { t.IPReuse = timing.IPReuse{Enabled: true} }),
		},
	}
	var progress strings.Builder
	rep, rows, err := r.envelope(t.Context(), spec, func(format string, args ...any) { fmt.Fprintf(&progress, format, args...) })
	if err != nil {
		t.Fatal(err)
	}
	// The header counts the points stderr announced.
	var header strings.Builder
	writeEnvelope(&header, simReport{Scenario: "cutover", Envelope: rep, PlanAssumptions: planAssumptions()})
	announced := regexp.MustCompile(`simulating the grid: (\d+) points?`).FindStringSubmatch(progress.String())
	shown := regexp.MustCompile(`x (\d+) points? of AWS timings`).FindStringSubmatch(header.String())
	if announced == nil || shown == nil || announced[1] != shown[1] || announced[1] == "0" {
		t.Errorf("stderr announced %q, the header shows %q: want the same count of points", announced, shown)
	}

	if d := cmp.Diff([]string{"NewTargetChecks", "DeregistrationLag", "IPReuse"}, rep.GridKnobs); d != "" {
		t.Errorf("grid knobs (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"ConnectTimeout", "FailOpenInitial"}, rep.UnchangedKnobs); d != "" {
		t.Errorf("unchanged knobs (-want +got):\n%s", d)
	}
	every := func(s ...string) map[string][]string {
		return map[string][]string{"steady": s, "wave": s, "spot": s}
	}
	wantChanged := map[string]map[string][]string{
		"NewTargetChecks":   every(strategyNaive),
		"DeregistrationLag": {"spot": {strategyPhased, strategyPhasedAsIs}},
		"IPReuse":           every(strategyStatic),
	}
	for _, e := range rep.Knobs {
		if d := cmp.Diff(wantChanged[e.Knob], e.Changed); d != "" {
			t.Errorf("%s changed (-want +got):\n%s", e.Knob, d)
		}
		if e.InGrid != slices.Contains(rep.GridKnobs, e.Knob) || e.GridKnob != slices.Contains(timing.GridKnobs, e.Knob) {
			t.Errorf("%s: in grid %t, grid knob %t", e.Knob, e.InGrid, e.GridKnob)
		}
	}

	// phased runs over every grid knob; every other strategy over those
	// that changed it.
	wantKnobs := map[string][]string{
		strategyPhased: rep.GridKnobs, strategyStatic: {"IPReuse"}, strategyNaive: {"NewTargetChecks"}, strategyPhasedAsIs: {"DeregistrationLag"},
	}
	if d := cmp.Diff(wantKnobs, rep.StrategyKnobs); d != "" {
		t.Errorf("strategy knobs (-want +got):\n%s", d)
	}
	// Every world ran once: the sensitivity's 7 timings (the defaults and
	// each knob's other value) x 4 strategies x 3 shapes = 84; the grid's
	// points a shape and seed, phased 16, static 2 (reuse), naive-tgb 2
	// (checks), phased-as-is 4 (lag), x 3 shapes x 2 seeds = 144, less
	// those the sensitivity ran already at seed 1 (phased 5, static 2,
	// naive-tgb 2, phased-as-is 3, x 3 shapes = 36); phased at 4 points
	// worse than assumed (checks x reuse) x 3 shapes x 2 seeds = 24.
	total := 0
	for k, n := range runs {
		if n != 1 {
			t.Errorf("%+v ran %d times", k, n)
		}
		total += n
	}
	if want := 84 + 144 - 36 + 24; total != want {
		t.Errorf("%d runs, want %d", total, want)
	}
	if len(rep.Points) != 3*2*16 || len(rep.WorseThanAssumed) != 3*2*4 {
		t.Fatalf("%d points, %d worse than assumed; want %d and %d", len(rep.Points), len(rep.WorseThanAssumed), 3*2*16, 3*2*4)
	}
	d := timing.Defaults()
	for _, p := range rep.Points {
		want := []string{strategyPhased}
		if p.Timings.NewTargetChecks == d.NewTargetChecks && p.Timings.Lag() == d.Lag() {
			want = append(want, strategyStatic)
		}
		if p.Timings.Lag() == d.Lag() && !p.Timings.IPReuse.Enabled {
			want = append(want, strategyNaive)
		}
		if p.Timings.NewTargetChecks == d.NewTargetChecks && !p.Timings.IPReuse.Enabled {
			want = append(want, strategyPhasedAsIs)
		}
		slices.SortFunc(want, func(a, b string) int { return slices.Index(strategies, a) - slices.Index(strategies, b) })
		var got []string
		for _, o := range p.Scenarios {
			got = append(got, o.Strategy)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("point %s %d %s: rows (-want +got):\n%s", p.Churn, p.Seed, p.Timings, diff)
		}
		if p.Churn == "wave" && p.Seed == 1 && p.Timings == timing.Defaults() {
			if d := cmp.Diff(p.Scenarios, rows, cmp.AllowUnexported(simOutcome{})); d != "" {
				t.Errorf("the rows returned are not -churn's default point's (-point +rows):\n%s", d)
			}
		}
	}
	for _, p := range rep.WorseThanAssumed {
		if len(p.Scenarios) != 1 || p.Scenarios[0].Strategy != strategyPhased || p.Timings.Lag() != timing.WorseThanAssumedLag {
			t.Errorf("worse than assumed %s %d %s: %+v", p.Churn, p.Seed, p.Timings, p.Scenarios)
		}
	}

	worst := func(c churnSummary, worse bool) map[string]windowWorst {
		m := map[string]windowWorst{}
		ws := c.PhasedWorst
		if worse {
			ws = c.WorseThanAssumed
		}
		for _, w := range ws {
			w.Timings = timing.Timings{}
			m[w.Window] = w
		}
		return m
	}
	for _, c := range rep.ByChurn {
		settle := windowWorst{Window: "settle", Of: 32}
		if c.Churn == "spot" {
			// The most at seed 2; lost at the 4 points of lag 120 s of each seed.
			settle = windowWorst{Window: "settle", Failed: 2, Seed: 2, Runs: 8, Of: 32}
		}
		got := worst(c, false)
		execute := settle
		execute.Window = "execute"
		if settle.Failed == 0 {
			// The first run's, with nothing lost.
			settle.Seed, execute.Seed = 1, 1
		}
		if d := cmp.Diff(settle, got["settle"]); d != "" {
			t.Errorf("%s: phased's worst settle (-want +got):\n%s", c.Churn, d)
		}
		if d := cmp.Diff(execute, got["execute"]); d != "" {
			t.Errorf("%s: phased's worst from Execute's start (-want +got):\n%s", c.Churn, d)
		}
		if w := worst(c, true)["settle"]; w.Failed != 52 || w.Seed != 2 || w.Runs != 8 || w.Of != 8 {
			t.Errorf("%s: phased's worst settle worse than assumed %+v, want 52 at seed 2, lost in 8 of 8", c.Churn, w)
		}
		var names []string
		for _, w := range c.PhasedWorst {
			names = append(names, w.Window)
		}
		// The fake runs lose nothing under way at Execute's start: all of
		// "execute" is "avoidable".
		avoidable := execute
		avoidable.Window = "avoidable"
		if d := cmp.Diff(avoidable, got["avoidable"]); d != "" {
			t.Errorf("%s: phased's worst avoidable (-want +got):\n%s", c.Churn, d)
		}
		if w := got["under-way"]; w.Failed != 0 || w.Runs != 0 || w.Of != 32 {
			t.Errorf("%s: phased's worst under way at Execute's start %+v, want none of 32", c.Churn, w)
		}
		if d := cmp.Diff([]string{"before", "settle", "cutover", "execute", "under-way", "avoidable", "after"}, names); d != "" {
			t.Errorf("%s: phased's windows (-want +got):\n%s", c.Churn, d)
		}
		if c.Graceful != (c.Churn != "spot") {
			t.Errorf("%s: graceful %t", c.Churn, c.Graceful)
		}
		s := c.Strategies[0]
		if s.Min != 80 || s.Max != 200 || s.Runs != 4 || s.MaxAt.IPReuse.Enabled || s.MaxAtChurn != c.Churn {
			t.Errorf("%s: static %+v, want 80 to 200 over 4 runs, the most without reuse", c.Churn, s)
		}
		if asIs, want := c.Strategies[3], map[bool]int{true: 2}[c.Churn == "wave"]; asIs.Errors != want || asIs.Runs != 8-want {
			t.Errorf("%s: phased-as-is %d errors over %d runs, want %d", c.Churn, asIs.Errors, asIs.Runs, want)
		}
	}
	if s := rep.Summary[1]; s.Min != 10 || s.Max != 30 || s.Runs != 12 {
		t.Errorf("naive-tgb over every shape and seed %+v, want 10 to 30 over 12 runs", s)
	}
	if err := phasedFailure(simReport{Envelope: rep, Scenarios: rows}, nil); err != nil {
		t.Errorf("phasedFailure: %v, want nil: only phased-as-is failed", err)
	}

	var b strings.Builder
	writeEnvelope(&b, simReport{Scenario: "cutover", Envelope: rep, PlanAssumptions: planAssumptions()})
	text := b.String()
	for _, want := range []string{
		"The envelope: 3 churn shapes x 2 seeds x 16 points of AWS timings",
		"static at 2 (IPReuse); naive-tgb at 2 (NewTargetChecks); phased at 16 (NewTargetChecks, DeregistrationLag, IPReuse); phased-as-is at 4 (DeregistrationLag).",
		"Left out of the grid, as they changed no strategy's result: ConnectTimeout (502 at once, 504 after 10s).",
		"Knobs that changed no strategy's result, one at a time at seed 1, for any churn shape: ConnectTimeout, FailOpenInitial.",
		"-- churn spot (forceful",
		"phased's worst per window over every point and seed: before 0; settle 2, lost in 8 of 32 runs (the most at seed 2; checks 1, lag 2m0s",
		"Worse than its plan assumes (deregistration lag 3m0s against the assumed 2m0s; not part of the claim), phased's worst: before 0; settle 52",
		"phased-as-is failed at 2 of 24 points, left out of its figures; first at churn wave, seed 1, checks 1, lag 1m0s",
		"Sensitivity, churn steady, seed 1",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the text does not say %q:\n%s", want, text)
		}
	}
}

// TestEnvelopeReport runs the envelope on the simulator, in a small world,
// one churn shape and one seed, the lag its only knob, with phased-as-is's
// worlds refusing every binding: every point has every strategy's row (a
// failed one for phased-as-is, left out of its figures), the grid is the
// lag's values when the lag changed something, phased runs at the lag
// worse than its plan assumes, and the JSON has the report's keys.
func TestEnvelopeReport(t *testing.T) {
	f := &simFlags{seed: 9, seeds: 1, nodes: 4, pods: 8, rps: 10, churnInterval: time.Minute, churn: "steady", duration: 5 * time.Minute,
		leadIn: time.Minute, scenario: "cutover"}
	lags := timing.Knob{Name: "DeregistrationLag", Labels: []string{"0s", "60s"},
		Values: []timing.Timings{timing.Timings{DeregistrationLag: -1}.WithDefaults(), timing.Timings{DeregistrationLag: time.Minute}.WithDefaults()}}
	spec := envelopeSpec{Churns: []string{"steady"}, Seeds: []uint64{9}, GridKnobs: []string{"DeregistrationLag"}, Knobs: []timing.Knob{lags}, Worse: true}
	a := &app{format: "json", onWorld: webhookDown(strategyPhasedAsIs)}
	rep, rows, err := a.runEnvelope(t.Context(), f, spec)
	if err != nil {
		t.Fatal(err)
	}
	grid, err := timing.GridOf(rep.GridKnobs...)
	if err != nil {
		t.Fatal(err)
	}
	changed := len(rep.Knobs) == 1 && len(rep.Knobs[0].Changed) > 0
	if len(rep.Points) != len(grid) || changed != (len(grid) == 4) || len(rep.WorseThanAssumed) != 1 || len(rep.Sensitivity) != 2 || len(rows) != len(strategies) {
		t.Fatalf("%d points (grid knobs %v, the lag changed %v), %d worse, %d sensitivity rows, %d default rows",
			len(rep.Points), rep.GridKnobs, rep.Knobs, len(rep.WorseThanAssumed), len(rep.Sensitivity), len(rows))
	}
	// phased-as-is fails everywhere: the lag changed nothing of it.
	if k := rep.StrategyKnobs[strategyPhasedAsIs]; len(k) != 0 {
		t.Errorf("phased-as-is runs over %v, want no knob: its result is the same error everywhere", k)
	}
	for _, p := range rep.Points {
		if p.Churn != "steady" || p.Seed != 9 {
			t.Errorf("point %s: churn %q seed %d", p.Timings, p.Churn, p.Seed)
		}
		if _, ok := p.row(strategyPhased); !ok {
			t.Errorf("point %s: no row of phased", p.Timings)
		}
		for _, o := range p.Scenarios {
			if (o.Error != "") != (o.Strategy == strategyPhasedAsIs) {
				t.Errorf("point %s: %s, error %q", p.Timings, o.Strategy, o.Error)
			}
			if o.Error == "" {
				checkWindows(t, o)
			}
		}
		if p.Timings == timing.Defaults() {
			if d := cmp.Diff(p.Scenarios, rows, cmp.AllowUnexported(simOutcome{})); d != "" {
				t.Errorf("the default point's rows are not the report's (-point +rows):\n%s", d)
			}
		}
	}
	if w := rep.WorseThanAssumed[0]; w.Timings.Lag() != timing.WorseThanAssumedLag || len(w.Scenarios) != 1 || w.Scenarios[0].Error != "" || w.Scenarios[0].Windows.Settle == nil {
		t.Errorf("worse than assumed: %+v", w)
	}
	for _, s := range rep.Summary {
		if want := map[bool]int{true: 1}[s.Strategy == strategyPhasedAsIs]; s.Errors != want {
			t.Errorf("summary of %s: %d errors, want %d", s.Strategy, s.Errors, want)
		}
	}
	for _, r := range rep.Sensitivity {
		if _, ok := r.Failed[strategyPhasedAsIs]; ok || r.Errors[strategyPhasedAsIs] == "" || len(r.Errors) != 1 || r.Churn != "steady" || r.Seed != 9 {
			t.Errorf("sensitivity row %+v: want phased-as-is's error instead of its figures", r)
		}
		if _, ok := r.SettleFailed[strategyPhased]; !ok {
			t.Errorf("sensitivity row %+v: no settle figure for phased", r)
		}
	}
	b, err := json.Marshal(simReport{Envelope: rep})
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"envelope":{"churns":["steady"],"seeds":[9],"gridKnobs":`, `"strategyKnobs":{`, `"points":[{"churn":"steady","seed":9,"timings":{`,
		`"summary":`, `"byChurn":[{"churn":"steady","graceful":true,`, `"phasedWorst":`, `"worseThanAssumed":`, `"sensitivity":`, `"knobs":`, `"unchangedKnobs":`, `"compared":`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
	var text strings.Builder
	writeEnvelope(&text, simReport{Scenario: "cutover", Envelope: rep, PlanAssumptions: planAssumptions()})
	if want := "phased-as-is failed at 1 of 1 point, left out of its figures; first at churn steady, seed 9, "; !strings.Contains(text.String(), want) {
		t.Errorf("the envelope's text does not say %q:\n%s", want, text.String())
	}
}

// TestEnvelopeRefusesControllerFaults: the envelope has no controller
// fault to inject at its points, so --envelope with --scenario
// controller-faults is a usage error naming both flags, before any run,
// rather than the ordinary grid labelled with the scenario.
func TestEnvelopeRefusesControllerFaults(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "simulate", "--envelope", "--scenario", scenarioControllerFaults, "--seeds", "1", "--format", format)
			if code != exitUsage || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Fatalf("exit code %d, stdout %q, stderr %q; want %d, nothing, one line", code, stdout, stderr, exitUsage)
			}
			for _, want := range []string{"--envelope", "--scenario controller-faults"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr %q does not name %s", stderr, want)
				}
			}
		})
	}
}
