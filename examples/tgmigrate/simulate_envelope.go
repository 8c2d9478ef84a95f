package main

// simulate_envelope.go: simulate -envelope: every strategy over package
// timing's grid and its sensitivity rows, run on every core, and the
// report's tables.

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/qstools/tgmigrate/internal/sim/timing"
)

// envelopeReport is every strategy over the grid of timings, then one knob
// at a time.
type envelopeReport struct {
	// Points are the grid's points (package timing's Grid), each with
	// every strategy's run.
	Points []envelopePoint `json:"points"`
	// Summary gives, per strategy, the spread of its failed requests over
	// the points.
	Summary []envelopeSummary `json:"summary"`
	// Sensitivity moves one knob at a time through its range, every other
	// knob at its default.
	Sensitivity []sensitivityRow `json:"sensitivity"`
}

// envelopePoint is one point of the grid.
type envelopePoint struct {
	Timings   timing.Timings `json:"timings"`
	Scenarios []simOutcome   `json:"scenarios"`
}

// envelopeSummary is one strategy's spread over the grid.
type envelopeSummary struct {
	Strategy string `json:"strategy"`
	// Min, Median and Max are its failed requests over the points whose
	// run completed; MaxAt the (first) point that gave Max. All zero when
	// none completed.
	Min    int            `json:"min"`
	Median int            `json:"median"`
	Max    int            `json:"max"`
	MaxAt  timing.Timings `json:"maxAt"`
	// Errors counts the points whose run failed (the point's row has the
	// error), left out of every other figure.
	Errors int `json:"errors,omitempty"`
	// WindowMax is the most a point lost in each window.
	WindowMax map[string]int `json:"windowMax"`
	// InPhasedCutoverMax is the most a point lost while phased's cutover
	// window was open (every strategy on the same stretch of time).
	InPhasedCutoverMax int `json:"inPhasedCutoverWindowMax"`
	// CutoverOverFloorMax is the largest ratio of the cutover's time (its
	// settle left out, as cutover.Result.Ratio does) to the plan's floor
	// over the points (strategies that cut over).
	CutoverOverFloorMax float64 `json:"cutoverOverFloorMax,omitempty"`
}

// sensitivityRow is one value of one knob.
type sensitivityRow struct {
	Knob    string         `json:"knob"`
	Value   string         `json:"value"`
	Timings timing.Timings `json:"timings"`
	// Failed and CutoverFailed are each strategy's failed requests, in
	// all and in its cutover window; a strategy whose run failed is in
	// Errors instead, with its error.
	Failed        map[string]int    `json:"failed"`
	CutoverFailed map[string]int    `json:"cutoverFailed"`
	Errors        map[string]string `json:"errors,omitempty"`
}

// runEnvelope runs every strategy at every point of the grid and of the
// sensitivity rows of knobs (simulate passes package timing's Grid and
// Sensitivity), on every core, and returns the report and the rows of the
// default point. A run that fails is a row with its error; it returns an
// error only when ctx ends.
func (a *app) runEnvelope(ctx context.Context, f *simFlags, grid []timing.Timings, knobs []timing.Knob) (*envelopeReport, []simOutcome, error) {
	// The runs: the grid's points, then the sensitivity rows' timings that
	// are not points already.
	var all []timing.Timings
	index := map[timing.Timings]int{}
	add := func(t timing.Timings) {
		if _, ok := index[t]; !ok {
			index[t] = len(all)
			all = append(all, t)
		}
	}
	for _, t := range grid {
		add(t)
	}
	for _, k := range knobs {
		for _, t := range k.Values {
			add(t)
		}
	}
	add(timing.Defaults())

	type job struct{ point, strategy int }
	results := make([][]simOutcome, len(all))
	for i := range results {
		results[i] = make([]simOutcome, len(strategies))
	}
	jobs := make(chan job)
	var (
		wg sync.WaitGroup
		mu sync.Mutex
	)
	quiet := &app{stdin: a.stdin, stdout: io.Discard, stderr: a.stderr, format: a.format, log: a.log, onWorld: a.onWorld}
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				r := &simRun{a: quiet, f: f, strategy: strategies[j.strategy], timings: all[j.point]}
				out, err := r.outcome(ctx)
				if err != nil {
					// When ctx ended, the run's error is not kept: the
					// envelope returns ctx's.
					row := failedOutcome(r.strategy, err)
					out = &row
				}
				mu.Lock()
				results[j.point][j.strategy] = *out
				mu.Unlock()
			}
		}()
	}
	if a.format == "text" {
		fmt.Fprintf(a.stderr, "simulating %d strategies at %d points of timings on %d cores...\n", len(strategies), len(all), runtime.GOMAXPROCS(0))
	}
send:
	for p := range all {
		for s := range strategies {
			select {
			case jobs <- job{p, s}:
			case <-ctx.Done():
				break send
			}
		}
	}
	close(jobs)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, nil, fmt.Errorf("envelope: %w", err)
	}

	for i := range results {
		comparePhasedWindow(results[i])
	}
	rep := &envelopeReport{}
	for _, t := range grid {
		rep.Points = append(rep.Points, envelopePoint{Timings: t, Scenarios: results[index[t]]})
	}
	for si, s := range strategies {
		sum := envelopeSummary{Strategy: s, WindowMax: map[string]int{}}
		var failed []int
		for _, p := range rep.Points {
			o := p.Scenarios[si]
			if o.Error != "" {
				sum.Errors++
				continue
			}
			if len(failed) == 0 || o.Failed > sum.Max {
				sum.Max, sum.MaxAt = o.Failed, p.Timings
			}
			failed = append(failed, o.Failed)
			sum.InPhasedCutoverMax = max(sum.InPhasedCutoverMax, o.FailedInPhasedCutover)
			for i, name := range windowNames(o) {
				sum.WindowMax[name] = max(sum.WindowMax[name], o.Windows.all()[i].Failed)
			}
			if o.FloorSeconds > 0 && o.CutoverSeconds > 0 && s != strategyNaive {
				// The settle is not in the plan's floor (cutover.Result.Ratio).
				sum.CutoverOverFloorMax = max(sum.CutoverOverFloorMax, (o.CutoverSeconds-o.SettleSeconds)/o.FloorSeconds)
			}
		}
		if len(failed) > 0 {
			slices.Sort(failed)
			sum.Min, sum.Median = failed[0], failed[len(failed)/2]
		}
		rep.Summary = append(rep.Summary, sum)
	}
	for _, k := range knobs {
		for i, t := range k.Values {
			row := sensitivityRow{Knob: k.Name, Value: k.Labels[i], Timings: t, Failed: map[string]int{}, CutoverFailed: map[string]int{}}
			for si, s := range strategies {
				o := results[index[t]][si]
				if o.Error != "" {
					if row.Errors == nil {
						row.Errors = map[string]string{}
					}
					row.Errors[s] = o.Error
					continue
				}
				row.Failed[s], row.CutoverFailed[s] = o.Failed, o.Windows.Cutover.Failed
			}
			rep.Sensitivity = append(rep.Sensitivity, row)
		}
	}
	return rep, results[index[timing.Defaults()]], nil
}

func writeEnvelope(w io.Writer, rep simReport) {
	env := rep.Envelope
	heading(w, fmt.Sprintf("The envelope: %d points of AWS timings x %d strategies (scenario %s, churn %s, seed %d)",
		len(env.Points), len(strategies), rep.Scenario, rep.Churn, rep.Seed))
	fmt.Fprintln(w, "Grid: new-target checks 1 and HealthyThresholdCount; deregistration lag 0, 15 s, 60 s, 120 s;")
	fmt.Fprintln(w, "a dead address's 504 after 10 s or 502 at once; IP reuse off and on (30 s cool-down). Failed requests per run:")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "strategy\tmin\tmedian\tmax\tmost per window\tmost in phased's cutover window\tcutover/floor max\tmax at")
	for _, s := range env.Summary {
		var parts []string
		for _, name := range []string{"before", "cutover", "rollback", "after"} {
			if v, ok := s.WindowMax[name]; ok {
				parts = append(parts, fmt.Sprintf("%s %d", name, v))
			}
		}
		ratio := "-"
		if s.CutoverOverFloorMax > 0 {
			ratio = fmt.Sprintf("%.2f", s.CutoverOverFloorMax)
		}
		if s.Errors == len(env.Points) {
			fmt.Fprintf(tw, "%s%s\n", s.Strategy, strings.Repeat("\t-", 7))
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%d\t%s\t%s\n", s.Strategy, s.Min, s.Median, s.Max, strings.Join(parts, ", "), s.InPhasedCutoverMax, ratio, s.MaxAt)
	}
	_ = tw.Flush()
	writeEnvelopeErrors(w, env)

	heading(w, "Sensitivity: one knob at a time, every other knob at its default (failed in all / in the cutover window)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "knob\tvalue")
	for _, s := range strategies {
		fmt.Fprintf(tw, "\t%s", s)
	}
	fmt.Fprintln(tw)
	for _, r := range env.Sensitivity {
		fmt.Fprintf(tw, "%s\t%s", r.Knob, r.Value)
		for _, s := range strategies {
			if _, failed := r.Errors[s]; failed {
				fmt.Fprint(tw, "\terror")
				continue
			}
			fmt.Fprintf(tw, "\t%d / %d", r.Failed[s], r.CutoverFailed[s])
		}
		fmt.Fprintln(tw)
	}
	_ = tw.Flush()
	for _, r := range env.Sensitivity {
		for _, s := range strategies {
			if msg, failed := r.Errors[s]; failed {
				fmt.Fprintf(w, "  %s %s: %s failed: %s\n", r.Knob, r.Value, s, msg)
			}
		}
	}
}

// writeEnvelopeErrors prints, under the summary, each strategy whose run
// failed at some points, with the first such point and its error.
func writeEnvelopeErrors(w io.Writer, env *envelopeReport) {
	for si, sum := range env.Summary {
		if sum.Errors == 0 {
			continue
		}
		for _, p := range env.Points {
			if o := p.Scenarios[si]; o.Error != "" {
				fmt.Fprintf(w, "  %s failed at %d of %d points, left out of its figures; first at %s: %s\n", sum.Strategy, sum.Errors, len(env.Points), p.Timings, o.Error)
				break
			}
		}
	}
}
