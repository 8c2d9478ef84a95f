package main

// simulate_envelope.go: simulate --envelope: every strategy over every
// churn shape and several seeds, first one knob at a time (which knobs
// change anything), then over the grid of the knobs that do, and phased
// in worlds worse than its plan assumes; run on every core. The report's
// types and its summaries; simulate_envelope_text.go prints them.

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/qstools/tgmigrate/internal/sim/karpenter"
	"github.com/qstools/tgmigrate/internal/sim/timing"
	"github.com/qstools/tgmigrate/internal/sim/traffic"
	"github.com/qstools/tgmigrate/internal/textcell"
)

// The limits of -seeds.
const minSeeds, maxSeeds = 1, 20

// envelopeGCPercent is the garbage collector's target while the envelope
// runs, unless GOGC is set: its worlds allocate much and keep little, and
// at 400 instead of Go's 100 the whole envelope takes about a quarter
// less time for about twice the peak memory (measured: -churn spot -seeds
// 1, 38.4 s of CPU and 146 MB at 100, 29.0 s and 247 MB at 400).
const envelopeGCPercent = 400

// envelopeReport is the envelope: every strategy over the grid of timings,
// for every churn shape and seed; phased in worlds worse than its plan
// assumes; and the one-knob-at-a-time runs that chose the grid.
type envelopeReport struct {
	// Churns and Seeds are what the envelope ran: every churn shape (or
	// the one -churn named) and -seeds seeds from -seed.
	Churns []string `json:"churns"`
	Seeds  []uint64 `json:"seeds"`
	// GridKnobs are the knobs the grid varies: those of package timing's
	// grid (timing.GridKnobs) that changed some strategy's result in the
	// sensitivity runs. Knobs says what each knob changed.
	GridKnobs []string `json:"gridKnobs"`
	// StrategyKnobs are, per strategy, the grid knobs it runs over: all
	// of them for phased, whose claim the envelope tests; for every other
	// strategy those that changed its result in the sensitivity runs (for
	// some churn shape), the others at their default.
	StrategyKnobs map[string][]string `json:"strategyKnobs"`
	// Points are the grid's points for every churn shape and seed, each
	// with the run of every strategy whose knobs it varies (phased's at
	// every point; the others' where the knobs that do not change them
	// are at their default).
	Points []envelopePoint `json:"points"`
	// Summary gives, per strategy, the spread of its failed requests over
	// every point (every churn shape and seed).
	Summary []envelopeSummary `json:"summary"`
	// ByChurn gives the same per churn shape, with phased's worst in every
	// window.
	ByChurn []churnSummary `json:"byChurn"`
	// WorseThanAssumed are phased's runs in worlds worse than its plan
	// assumes: every combination of the grid's other knobs at a
	// deregistration lag of timing.WorseThanAssumedLag, for every churn
	// shape and seed. They are not part of the claim, nor of Summary.
	WorseThanAssumed []envelopePoint `json:"worseThanAssumed"`
	// Sensitivity moves one knob at a time through its range, every other
	// knob at its default, for every churn shape at the first seed.
	Sensitivity []sensitivityRow `json:"sensitivity"`
	// Knobs are the sensitivity's knobs, each with the strategies whose
	// result one of its values changed; UnchangedKnobs names those that
	// changed no strategy's result for any churn shape; Compared says what
	// a run's result is.
	Knobs          []knobEffect `json:"knobs"`
	UnchangedKnobs []string     `json:"unchangedKnobs"`
	Compared       string       `json:"compared"`
}

// compared says what the envelope compares to tell whether a knob changed
// a run's result.
const compared = "each window's failed requests, and of them the 503s, the dead addresses' (502 and 504 as one: the connect timeout only turns one into the other), the misrouted and the others; the run's outage and degraded seconds; whether the run failed"

// envelopePoint is one point of the grid for one churn shape and seed.
type envelopePoint struct {
	// Churn and Seed are the world's.
	Churn string `json:"churn,omitempty"`
	Seed  uint64 `json:"seed,omitempty"`
	// Timings are the world's; every plan is made at the product's
	// defaults (the report's planAssumptions).
	Timings   timing.Timings `json:"timings"`
	Scenarios []simOutcome   `json:"scenarios"`
}

// envelopeSummary is one strategy's spread over some points.
type envelopeSummary struct {
	Strategy string `json:"strategy"`
	// Runs counts the points whose run completed.
	Runs int `json:"runs"`
	// Min, Median and Max are its failed requests over the points whose
	// run completed; MaxAt (MaxAtChurn, MaxAtSeed) the first point that
	// gave Max. All zero when none completed.
	Min        int            `json:"min"`
	Median     int            `json:"median"`
	Max        int            `json:"max"`
	MaxAt      timing.Timings `json:"maxAt"`
	MaxAtChurn string         `json:"maxAtChurn,omitempty"`
	MaxAtSeed  uint64         `json:"maxAtSeed,omitempty"`
	// Errors counts the points whose run failed (the point's row has the
	// error), left out of every other figure.
	Errors int `json:"errors,omitempty"`
	// WindowMax is the most a point lost in each window.
	WindowMax map[string]int `json:"windowMax"`
	// InPhasedCutoverMax is the most a point lost while phased's cutover
	// window was open, and InPhasedExecuteMax while phased's Execute ran,
	// from its start (every strategy on the same stretch of time).
	InPhasedCutoverMax int `json:"inPhasedCutoverWindowMax"`
	InPhasedExecuteMax int `json:"inPhasedExecuteWindowMax"`
	// CutoverOverFloorMax is the largest ratio of the cutover's steps (its
	// settle left out, as cutover.Result.Ratio does) to the plan's floor,
	// and RatioWholeMax of Execute's whole time to the settle and the
	// floor, over the points (phased rows).
	CutoverOverFloorMax float64 `json:"cutoverOverFloorMax,omitempty"`
	RatioWholeMax       float64 `json:"ratioWholeMax,omitempty"`
}

// churnSummary is the envelope of one churn shape.
type churnSummary struct {
	Churn string `json:"churn"`
	// Graceful says NodePool budgets and karpenter.sh/do-not-disrupt hold
	// the shape's disruptions, so that the claim of zero applies to it.
	Graceful bool `json:"graceful"`
	// Strategies are every strategy's spread over the shape's points and
	// seeds.
	Strategies []envelopeSummary `json:"strategies"`
	// PhasedWorst is phased's most failed requests in each window over
	// the shape's points and seeds, the window "execute" being its settle
	// and cutover together (from Execute's start).
	PhasedWorst []windowWorst `json:"phasedWorst"`
	// WorseThanAssumed is the same over the worlds worse than the plan
	// assumes.
	WorseThanAssumed []windowWorst `json:"worseThanAssumed"`
}

// windowWorst is the most phased lost in one window over some runs.
type windowWorst struct {
	Window string `json:"window"`
	Failed int    `json:"failed"`
	// Seed and Timings are the first run that lost Failed; Runs counts
	// the runs that lost any request in the window, of Of.
	Seed    uint64         `json:"seed"`
	Timings timing.Timings `json:"timings"`
	Runs    int            `json:"runs"`
	Of      int            `json:"of"`
}

// sensitivityRow is one value of one knob, for one churn shape.
type sensitivityRow struct {
	Churn   string         `json:"churn,omitempty"`
	Seed    uint64         `json:"seed,omitempty"`
	Knob    string         `json:"knob"`
	Value   string         `json:"value"`
	Timings timing.Timings `json:"timings"`
	// Failed, SettleFailed and CutoverFailed are each strategy's failed
	// requests, in all, in its settle window (phased rows) and in its
	// cutover window; a strategy whose run failed is in Errors instead,
	// with its error.
	Failed        map[string]int    `json:"failed"`
	SettleFailed  map[string]int    `json:"settleFailed"`
	CutoverFailed map[string]int    `json:"cutoverFailed"`
	Errors        map[string]string `json:"errors,omitempty"`
}

// knobEffect is what one knob's values changed in the sensitivity runs.
type knobEffect struct {
	Knob   string   `json:"knob"`
	Values []string `json:"values"`
	// Changed gives, per churn shape, the strategies whose result some
	// value changed from the default point's. Empty: it changed nothing.
	Changed map[string][]string `json:"changed,omitempty"`
	// GridKnob says package timing's grid varies it; InGrid that the
	// envelope's does (a grid knob that changed something).
	GridKnob bool `json:"gridKnob"`
	InGrid   bool `json:"inGrid"`
}

// envelopeSpec is what runEnvelope runs.
type envelopeSpec struct {
	// Churns and Seeds: every world is run for each.
	Churns []string
	Seeds  []uint64
	// GridKnobs are the candidates for the grid (timing.GridKnobs): those
	// that change some strategy's result in the Knobs' runs make it.
	GridKnobs []string
	// Knobs are the sensitivity's (timing.Sensitivity), run at the first
	// seed for every churn shape.
	Knobs []timing.Knob
	// Worse runs phased at timing.WorseThanAssumed of the grid.
	Worse bool
}

// defaultEnvelopeSpec is the envelope the flags ask for: every churn
// shape, or the one -churn named; -seeds seeds from -seed; package
// timing's grid knobs and sensitivity.
func defaultEnvelopeSpec(f *simFlags) envelopeSpec {
	churns := shapeNames()
	if f.churnSet {
		churns = []string{f.churn}
	}
	var seeds []uint64
	for i := range f.seeds {
		seeds = append(seeds, f.seed+uint64(i))
	}
	return envelopeSpec{Churns: churns, Seeds: seeds, GridKnobs: timing.GridKnobs, Knobs: timing.Sensitivity(), Worse: true}
}

// runKey names one run: a strategy in one world.
type runKey struct {
	churn    string
	seed     uint64
	timings  timing.Timings
	strategy string
}

// envelopeRunner runs the envelope's worlds on every core, each once.
type envelopeRunner struct {
	f *simFlags
	// run runs one strategy in one world: simRun's outcome (tests give a
	// rule of the knobs instead).
	run     func(ctx context.Context, f *simFlags, strategy string, tm timing.Timings) (*simOutcome, error)
	results map[runKey]simOutcome
	// groups holds the strategies of a world (its key without one) whose
	// rows are not all in yet: once they are, they are compared on
	// phased's windows and their traffic dropped (it is the largest part
	// of a row).
	groups map[runKey][]string
}

// runAll runs every key not run yet, on every core. A run that fails is
// a row with its error; it returns an error only when ctx ends.
func (r *envelopeRunner) runAll(ctx context.Context, keys []runKey) error {
	var todo []runKey
	queued := map[runKey]bool{}
	for _, k := range keys {
		if _, done := r.results[k]; !done && !queued[k] {
			queued[k] = true
			todo = append(todo, k)
		}
	}
	for _, k := range todo {
		g := k
		g.strategy = ""
		r.groups[g] = append(r.groups[g], k.strategy)
	}
	jobs := make(chan runKey)
	var (
		wg sync.WaitGroup
		mu sync.Mutex
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range jobs {
				f := *r.f
				f.churn, f.seed = k.churn, k.seed
				out, err := r.run(ctx, &f, k.strategy, k.timings)
				if err != nil {
					// When ctx ended, the run's error is not kept: the
					// envelope returns ctx's.
					row := failedOutcome(k.strategy, err)
					out = &row
				}
				mu.Lock()
				r.results[k] = *out
				r.complete(k)
				mu.Unlock()
			}
		}()
	}
send:
	for _, k := range todo {
		select {
		case jobs <- k:
		case <-ctx.Done():
			break send
		}
	}
	close(jobs)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return fmt.Errorf("envelope: %w", err)
	}
	return nil
}

// complete compares the rows of k's world on phased's windows once all of
// its strategies are in, and drops their traffic.
func (r *envelopeRunner) complete(k runKey) {
	g := k
	g.strategy = ""
	var rows []simOutcome
	for _, s := range r.groups[g] {
		k.strategy = s
		o, ok := r.results[k]
		if !ok {
			return
		}
		rows = append(rows, o)
	}
	comparePhasedWindow(rows)
	for i, s := range r.groups[g] {
		k.strategy = s
		rows[i].traffic = traffic.Stats{}
		r.results[k] = rows[i]
	}
	delete(r.groups, g)
}

// rows returns the rows of a world's strategies, in their order.
func (r *envelopeRunner) rows(churn string, seed uint64, tm timing.Timings, strats []string) []simOutcome {
	out := make([]simOutcome, len(strats))
	for i, s := range strats {
		out[i] = r.results[runKey{churn, seed, tm, s}]
	}
	return out
}

// runEnvelope runs the envelope spec asks for and returns the report and
// the rows of the default point (timing.Defaults) for -churn (or the first
// shape run) at the first seed. First the sensitivity, for every churn
// shape at the first seed: it tells which knobs change some strategy's
// result; then the grid over spec.GridKnobs that do, for every churn
// shape and seed; then phased in the worlds worse than its plan assumes.
// A run that fails is a row with its error; it returns an error only when
// ctx ends.
func (a *app) runEnvelope(ctx context.Context, f *simFlags, spec envelopeSpec) (*envelopeReport, []simOutcome, error) {
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(envelopeGCPercent))
	}
	quiet := &app{stdin: a.stdin, stdout: io.Discard, stderr: a.stderr, format: a.format, log: a.log, onWorld: a.onWorld}
	r := &envelopeRunner{f: f, results: map[runKey]simOutcome{}, groups: map[runKey][]string{},
		run: func(ctx context.Context, f *simFlags, strategy string, tm timing.Timings) (*simOutcome, error) {
			return (&simRun{a: quiet, f: f, strategy: strategy, timings: tm}).outcome(ctx)
		}}
	return r.envelope(ctx, spec, a.envelopeProgress)
}

// envelopeProgress reports the envelope's progress on stderr, in text
// only.
func (a *app) envelopeProgress(format string, args ...any) {
	if a.format == "text" && a.stderr != nil {
		fmt.Fprintf(a.stderr, format, args...)
	}
}

// envelope runs spec (see runEnvelope), reporting its progress.
func (r *envelopeRunner) envelope(ctx context.Context, spec envelopeSpec, progress func(string, ...any)) (*envelopeReport, []simOutcome, error) {
	first := spec.Seeds[0]
	// 1. One knob at a time, every churn shape, the first seed.
	sens := []timing.Timings{timing.Defaults()}
	for _, k := range spec.Knobs {
		for _, t := range k.Values {
			if !slices.Contains(sens, t) {
				sens = append(sens, t)
			}
		}
	}
	var keys []runKey
	for _, c := range spec.Churns {
		for _, t := range sens {
			for _, s := range strategies {
				keys = append(keys, runKey{c, first, t, s})
			}
		}
	}
	progress("simulating the sensitivity: %s at %s, %s, seed %d, on %s...\n",
		textcell.Plural(len(strategies), "strategy", "strategies"), textcell.Plural(len(sens), "timing", "timings"),
		textcell.Plural(len(spec.Churns), "churn shape", "churn shapes"), first, textcell.Plural(runtime.GOMAXPROCS(0), "core", "cores"))
	if err := r.runAll(ctx, keys); err != nil {
		return nil, nil, err
	}
	rep := &envelopeReport{Churns: spec.Churns, Seeds: spec.Seeds, Compared: compared}
	rep.Knobs, rep.Sensitivity = r.knobEffects(spec, first)
	for _, e := range rep.Knobs {
		if len(e.Changed) == 0 {
			rep.UnchangedKnobs = append(rep.UnchangedKnobs, e.Knob)
		}
	}
	for _, k := range spec.GridKnobs {
		i := slices.IndexFunc(rep.Knobs, func(e knobEffect) bool { return e.Knob == k })
		if i < 0 || len(rep.Knobs[i].Changed) > 0 {
			// A grid knob the sensitivity does not move is kept: nothing
			// says it changes nothing.
			rep.GridKnobs = append(rep.GridKnobs, k)
		}
	}
	for i := range rep.Knobs {
		rep.Knobs[i].InGrid = slices.Contains(rep.GridKnobs, rep.Knobs[i].Knob)
	}
	grid, err := timing.GridOf(rep.GridKnobs...)
	if err != nil {
		return nil, nil, fmt.Errorf("envelope: %w", err)
	}
	// Each strategy's points: a knob that changed nothing of a strategy
	// does not multiply its runs, phased's aside.
	rep.StrategyKnobs = map[string][]string{}
	runsAt := map[string][]timing.Timings{}
	for _, s := range strategies {
		knobs := []string{}
		for _, k := range rep.GridKnobs {
			i := slices.IndexFunc(rep.Knobs, func(e knobEffect) bool { return e.Knob == k })
			if s == strategyPhased || i < 0 || changedFor(rep.Knobs[i], s) {
				knobs = append(knobs, k)
			}
		}
		rep.StrategyKnobs[s] = knobs
		if runsAt[s], err = timing.GridOf(knobs...); err != nil {
			return nil, nil, fmt.Errorf("envelope: %w", err)
		}
	}
	at := func(t timing.Timings) []string {
		var out []string
		for _, s := range strategies {
			if slices.Contains(runsAt[s], t) {
				out = append(out, s)
			}
		}
		return out
	}

	// 2. The grid over the knobs that changed something, every churn
	// shape and seed; 3. phased in the worlds worse than it assumes.
	keys = keys[:0]
	var worse []timing.Timings
	if spec.Worse {
		worse = timing.WorseThanAssumed(grid)
	}
	for _, c := range spec.Churns {
		for _, seed := range spec.Seeds {
			for _, t := range grid {
				for _, s := range at(t) {
					keys = append(keys, runKey{c, seed, t, s})
				}
			}
			for _, t := range worse {
				keys = append(keys, runKey{c, seed, t, strategyPhased})
			}
		}
	}
	progress("simulating the grid: %s (%s), %s, %s; phased at %s worse than its plan assumes; on %s...\n",
		textcell.Plural(len(grid), "point", "points"), pointsText(rep.StrategyKnobs), textcell.Plural(len(spec.Churns), "churn shape", "churn shapes"),
		textcell.Plural(len(spec.Seeds), "seed", "seeds"), textcell.Plural(len(worse), "point", "points"), textcell.Plural(runtime.GOMAXPROCS(0), "core", "cores"))
	if err := r.runAll(ctx, keys); err != nil {
		return nil, nil, err
	}
	for _, c := range spec.Churns {
		for _, seed := range spec.Seeds {
			for _, t := range grid {
				rep.Points = append(rep.Points, envelopePoint{Churn: c, Seed: seed, Timings: t, Scenarios: r.rows(c, seed, t, at(t))})
			}
			for _, t := range worse {
				rep.WorseThanAssumed = append(rep.WorseThanAssumed, envelopePoint{Churn: c, Seed: seed, Timings: t, Scenarios: r.rows(c, seed, t, []string{strategyPhased})})
			}
		}
	}
	rep.Summary = summarize(rep.Points)
	for _, c := range spec.Churns {
		other := func(p envelopePoint) bool { return p.Churn != c }
		points := slices.DeleteFunc(slices.Clone(rep.Points), other)
		worsePoints := slices.DeleteFunc(slices.Clone(rep.WorseThanAssumed), other)
		rep.ByChurn = append(rep.ByChurn, churnSummary{
			Churn: c, Graceful: gracefulShape(c), Strategies: summarize(points),
			PhasedWorst: phasedWorst(points), WorseThanAssumed: phasedWorst(worsePoints),
		})
	}
	churn := r.f.churn
	if !slices.Contains(spec.Churns, churn) {
		churn = spec.Churns[0]
	}
	return rep, r.rows(churn, first, timing.Defaults(), strategies), nil
}

// changedFor says whether the knob changed strategy's result for some
// churn shape.
func changedFor(e knobEffect, strategy string) bool {
	for _, ss := range e.Changed {
		if slices.Contains(ss, strategy) {
			return true
		}
	}
	return false
}

// pointsText says how many points each strategy runs at: "phased 16,
// static 2, ...".
func pointsText(knobs map[string][]string) string {
	var parts []string
	for _, s := range strategies {
		g, _ := timing.GridOf(knobs[s]...) // the report's own knobs
		parts = append(parts, fmt.Sprintf("%s at %d", s, len(g)))
	}
	return strings.Join(parts, ", ")
}

// row returns the point's row of strategy, if it ran there.
func (p envelopePoint) row(strategy string) (simOutcome, bool) {
	i := slices.IndexFunc(p.Scenarios, func(o simOutcome) bool { return o.Strategy == strategy })
	if i < 0 {
		return simOutcome{}, false
	}
	return p.Scenarios[i], true
}

// gracefulShape says whether NodePool budgets and
// karpenter.sh/do-not-disrupt hold a churn shape's disruptions (steady,
// wave and consolidation); the others (expiry, spot) are forceful.
func gracefulShape(churn string) bool {
	switch karpenter.Shape(churn) {
	case karpenter.ShapeSteady, karpenter.ShapeWave, karpenter.ShapeConsolidation:
		return true
	}
	return false
}

// resultOf is a run's result, as the envelope compares it to tell whether
// a knob changed anything (see compared).
func resultOf(o simOutcome) string {
	if o.Error != "" {
		return "error"
	}
	var b strings.Builder
	for i, w := range o.Windows.all() {
		k := w.FailedByKind
		fmt.Fprintf(&b, "%s %d: 503 %d, dead %d, misrouted %d, other %d; ", windowNames(o)[i], w.Failed, k["503"], k["502"]+k["504"], k["misrouted"], k["other"])
	}
	fmt.Fprintf(&b, "outage %v, degraded %v", o.TotalOutageSeconds, o.DegradedSeconds)
	return b.String()
}

// knobEffects builds the sensitivity's rows and says, per knob, which
// strategies' results its values changed from the default point's, for
// each churn shape at seed.
func (r *envelopeRunner) knobEffects(spec envelopeSpec, seed uint64) ([]knobEffect, []sensitivityRow) {
	var effects []knobEffect
	var rows []sensitivityRow
	for _, k := range spec.Knobs {
		e := knobEffect{Knob: k.Name, Values: k.Labels, GridKnob: slices.Contains(timing.GridKnobs, k.Name)}
		for _, c := range spec.Churns {
			base := r.rows(c, seed, timing.Defaults(), strategies)
			for i, t := range k.Values {
				row := sensitivityRow{Churn: c, Seed: seed, Knob: k.Name, Value: k.Labels[i], Timings: t,
					Failed: map[string]int{}, SettleFailed: map[string]int{}, CutoverFailed: map[string]int{}}
				for si, o := range r.rows(c, seed, t, strategies) {
					s := strategies[si]
					if resultOf(o) != resultOf(base[si]) && !slices.Contains(e.Changed[c], s) {
						if e.Changed == nil {
							e.Changed = map[string][]string{}
						}
						e.Changed[c] = append(e.Changed[c], s)
					}
					if o.Error != "" {
						if row.Errors == nil {
							row.Errors = map[string]string{}
						}
						row.Errors[s] = o.Error
						continue
					}
					row.Failed[s], row.CutoverFailed[s] = o.Failed, o.Windows.Cutover.Failed
					if o.Windows.Settle != nil {
						row.SettleFailed[s] = o.Windows.Settle.Failed
					}
				}
				rows = append(rows, row)
			}
		}
		for c := range e.Changed {
			// In the strategies' order.
			slices.SortFunc(e.Changed[c], func(a, b string) int { return slices.Index(strategies, a) - slices.Index(strategies, b) })
		}
		effects = append(effects, e)
	}
	return effects, rows
}

// summarize gives each strategy's spread over the points it ran at.
func summarize(points []envelopePoint) []envelopeSummary {
	var out []envelopeSummary
	for _, s := range strategies {
		sum := envelopeSummary{Strategy: s, WindowMax: map[string]int{}}
		var failed []int
		for _, p := range points {
			o, ok := p.row(s)
			if !ok {
				continue
			}
			if o.Error != "" {
				sum.Errors++
				continue
			}
			if len(failed) == 0 || o.Failed > sum.Max {
				sum.Max, sum.MaxAt, sum.MaxAtChurn, sum.MaxAtSeed = o.Failed, p.Timings, p.Churn, p.Seed
			}
			failed = append(failed, o.Failed)
			sum.InPhasedCutoverMax = max(sum.InPhasedCutoverMax, o.FailedInPhasedCutover)
			sum.InPhasedExecuteMax = max(sum.InPhasedExecuteMax, o.FailedInPhasedExecute)
			for i, name := range windowNames(o) {
				sum.WindowMax[name] = max(sum.WindowMax[name], o.Windows.all()[i].Failed)
			}
			sum.CutoverOverFloorMax = max(sum.CutoverOverFloorMax, o.Ratio)
			sum.RatioWholeMax = max(sum.RatioWholeMax, o.RatioWhole)
		}
		sum.Runs = len(failed)
		if len(failed) > 0 {
			slices.Sort(failed)
			sum.Min, sum.Median = failed[0], failed[len(failed)/2]
		}
		out = append(out, sum)
	}
	return out
}

// phasedWorst gives phased's most failed requests in each window over the
// points (those whose run of phased completed), "execute" being its
// settle and cutover together, and "execute" split in two: "under-way",
// the requests no call at Execute's start could have saved (to targets of
// nodes Karpenter had begun to replace before it, within the lag of its
// start: simOutcome.FailedUnderWayAtStart), and "avoidable", the rest;
// in time order.
func phasedWorst(points []envelopePoint) []windowWorst {
	var out []windowWorst
	at := map[string]int{}
	add := func(name string, failed int, p envelopePoint) {
		i, ok := at[name]
		if !ok {
			i, at[name] = len(out), len(out)
			out = append(out, windowWorst{Window: name, Failed: failed, Seed: p.Seed, Timings: p.Timings})
		}
		w := &out[i]
		w.Of++
		if failed > 0 {
			w.Runs++
		}
		if failed > w.Failed {
			w.Failed, w.Seed, w.Timings = failed, p.Seed, p.Timings
		}
	}
	for _, p := range points {
		o, ok := p.row(strategyPhased)
		if !ok || o.Error != "" {
			continue
		}
		for wi, name := range windowNames(o) {
			add(name, o.Windows.all()[wi].Failed, p)
		}
		execute := settleFailed(o) + o.Windows.Cutover.Failed
		add("execute", execute, p)
		add("under-way", o.FailedUnderWayAtStart, p)
		add("avoidable", max(execute-o.FailedUnderWayAtStart, 0), p)
	}
	// "execute" after the windows it spans.
	slices.SortStableFunc(out, func(a, b windowWorst) int { return windowOrder(a.Window) - windowOrder(b.Window) })
	return out
}

// windowOrder places the windows in time order, "execute" (settle and
// cutover together) after the cutover.
func windowOrder(name string) int {
	return slices.Index([]string{"before", "settle", "cutover", "execute", "under-way", "avoidable", "rollback", "move", "after"}, name)
}
