package main

// simulate_envelope_text.go: simulate --envelope in text: the knobs the grid
// varies and those that changed nothing, each churn shape's summary with
// phased's worst in every window and in worlds worse than its plan
// assumes, every shape and seed together, and the sensitivity tables.

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/qstools/tgmigrate/internal/sim/karpenter"
	"github.com/qstools/tgmigrate/internal/sim/timing"
	"github.com/qstools/tgmigrate/internal/textcell"
)

// gridKnobText says what values each of timing.GridKnobs takes in the grid.
var gridKnobText = map[string]string{
	"NewTargetChecks":   "new-target checks 1 and HealthyThresholdCount",
	"DeregistrationLag": "deregistration lag 0, 15 s, 60 s, 120 s",
	"ConnectTimeout":    "a dead address's 504 after 10 s or 502 at once",
	"IPReuse":           "IP reuse off and on (30 s cool-down)",
}

func writeEnvelope(w io.Writer, rep simReport) {
	env := rep.Envelope
	points := 0
	if len(env.Churns) > 0 && len(env.Seeds) > 0 {
		points = len(env.Points) / (len(env.Churns) * len(env.Seeds))
	}
	heading(w, fmt.Sprintf("The envelope: %s x %s x %s of AWS timings (scenario %s)",
		textcell.Plural(len(env.Churns), "churn shape", "churn shapes"), textcell.Plural(len(env.Seeds), "seed", "seeds"), textcell.Plural(points, "point", "points"), rep.Scenario))
	fmt.Fprintf(w, "Churn shapes: %s; seeds %s. Every plan is made at the product's defaults (%s), not told the worlds' timings.\n",
		strings.Join(env.Churns, ", "), seedsText(env.Seeds), rep.PlanAssumptions)
	var grid []string
	for _, k := range env.GridKnobs {
		grid = append(grid, gridKnobText[k])
	}
	fmt.Fprintf(w, "Grid: %s; every other knob at its default.\n", orNone(strings.Join(grid, "; ")))
	var dropped []string
	for _, e := range env.Knobs {
		if e.GridKnob && !e.InGrid {
			dropped = append(dropped, fmt.Sprintf("%s (%s)", e.Knob, strings.Join(e.Values, ", ")))
		}
	}
	if len(dropped) > 0 {
		fmt.Fprintf(w, "Left out of the grid, as they changed no strategy's result: %s.\n", strings.Join(dropped, "; "))
	}
	fmt.Fprintf(w, "Knobs that changed no strategy's result, one at a time at seed %d, for any churn shape: %s.\n", firstSeed(env), orNone(strings.Join(env.UnchangedKnobs, ", ")))
	fmt.Fprintf(w, "Points a strategy runs at: phased at every one (the claim's); every other strategy where the grid knobs that changed nothing of it\n"+
		"(one at a time, seed %d, every churn shape) are at their default: %s.\n", firstSeed(env), strategyKnobsText(env.StrategyKnobs))
	fmt.Fprintf(w, "(A run's result, compared with the default point's: %s.)\n", env.Compared)
	fmt.Fprintln(w, "Ratio: phased's cutover steps against the plan's floor; whole ratio: Execute's whole time against its settle (the disruptions under")
	fmt.Fprintln(w, "way at Execute's start running out, plus the deregistration lag the plan assumes) and the floor together.")
	for _, c := range env.ByChurn {
		writeChurnSummary(w, env, c)
	}
	if len(env.Churns) > 1 {
		fmt.Fprintf(w, "\n-- every churn shape and seed together: failed requests per run\n\n")
		writeSummaryTable(w, env.Summary)
	}
	writeEnvelopeErrors(w, env)
	writeSensitivity(w, env)
}

// writeChurnSummary prints one churn shape's spread per strategy, phased's
// worst in every window, and phased in worlds worse than its plan assumes.
func writeChurnSummary(w io.Writer, env *envelopeReport, c churnSummary) {
	kind := "graceful: budgets and karpenter.sh/do-not-disrupt hold it; the claim applies: nothing lost from Execute's start but what was under way at its start"
	switch {
	case karpenter.Shape(c.Churn) == karpenter.ShapeExpiry:
		kind = "forceful but foreseen: the plan names the nodes that expire during the run and Execute replaces them first; the claim applies"
	case !c.Graceful:
		kind = "forceful and unforeseen: the hold cannot stop it; phased's figures are the residual"
	}
	fmt.Fprintf(w, "\n-- churn %s (%s): failed requests per run\n\n", c.Churn, kind)
	writeSummaryTable(w, c.Strategies)
	fmt.Fprintf(w, "\nphased's worst per window over every point and seed: %s.\n", worstText(c.PhasedWorst))
	if len(c.WorseThanAssumed) > 0 {
		fmt.Fprintf(w, "Worse than its plan assumes (deregistration lag %v against the assumed %v; not part of the claim), phased's worst: %s.\n",
			timing.WorseThanAssumedLag, planAssumptions().Lag(), worstText(c.WorseThanAssumed))
	}
}

// worstText renders phased's worst per window: "before 0, settle 10 at 3
// of 80 runs (seed 3; checks 1, ...), ...".
func worstText(ws []windowWorst) string {
	var parts []string
	for _, x := range ws {
		name := x.Window
		switch name {
		case "execute":
			name = "from Execute's start (settle and cutover)"
		case "under-way":
			name = "of them under way at its start (no call at its start could save them: sent within the lag of its start to targets of nodes Karpenter was already replacing)"
		case "avoidable":
			name = "the rest"
		}
		if x.Failed == 0 {
			parts = append(parts, fmt.Sprintf("%s 0", name))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %d, lost in %d of %s (the most at seed %d; %s)", name, x.Failed, x.Runs, textcell.Plural(x.Of, "run", "runs"), x.Seed, x.Timings))
	}
	return strings.Join(parts, "; ")
}

// writeSummaryTable prints each strategy's spread.
func writeSummaryTable(w io.Writer, sums []envelopeSummary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "strategy\truns\tmin\tmedian\tmax\tmost per window\tmost while phased's Execute ran (its cutover window)\tratio max\twhole ratio max\tmax at")
	for _, s := range sums {
		if s.Runs == 0 {
			fmt.Fprintf(tw, "%s\t%d%s\n", s.Strategy, s.Errors, strings.Repeat("\t-", 8))
			continue
		}
		var parts []string
		for _, name := range []string{"before", "settle", "cutover", "rollback", "move", "after"} {
			if v, ok := s.WindowMax[name]; ok {
				parts = append(parts, fmt.Sprintf("%s %d", name, v))
			}
		}
		at := s.MaxAt.String()
		if s.MaxAtChurn != "" {
			at = fmt.Sprintf("%s, seed %d: %s", s.MaxAtChurn, s.MaxAtSeed, at)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%d (%d)\t%s\t%s\t%s\n", s.Strategy, s.Runs+s.Errors, s.Min, s.Median, s.Max, strings.Join(parts, ", "),
			s.InPhasedExecuteMax, s.InPhasedCutoverMax, ratioText(s.CutoverOverFloorMax), ratioText(s.RatioWholeMax), at)
	}
	_ = tw.Flush()
}

// writeSensitivity prints the one-knob-at-a-time tables, one per churn
// shape, and the runs that failed there.
func writeSensitivity(w io.Writer, env *envelopeReport) {
	for _, c := range env.Churns {
		heading(w, fmt.Sprintf("Sensitivity, churn %s, seed %d: one knob at a time, every other knob at its default (failed in all / in the settle / in the cutover window)", c, firstSeed(env)))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprint(tw, "knob\tvalue")
		for _, s := range strategies {
			fmt.Fprintf(tw, "\t%s", s)
		}
		fmt.Fprintln(tw, "\tchanged")
		for _, r := range env.Sensitivity {
			if r.Churn != c {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s", r.Knob, r.Value)
			for _, s := range strategies {
				if _, failed := r.Errors[s]; failed {
					fmt.Fprint(tw, "\terror")
					continue
				}
				settle := "-"
				if v, ok := r.SettleFailed[s]; ok {
					settle = fmt.Sprint(v)
				}
				fmt.Fprintf(tw, "\t%d / %s / %d", r.Failed[s], settle, r.CutoverFailed[s])
			}
			fmt.Fprintf(tw, "\t%s\n", changedText(env, r))
		}
		_ = tw.Flush()
		for _, r := range env.Sensitivity {
			for _, s := range strategies {
				if msg, failed := r.Errors[s]; failed && r.Churn == c {
					fmt.Fprintf(w, "  %s %s: %s failed: %s\n", r.Knob, r.Value, s, msg)
				}
			}
		}
	}
}

// changedText says, on a knob's first row, which strategies its values
// changed for the row's churn shape ("nothing" when none).
func changedText(env *envelopeReport, r sensitivityRow) string {
	for _, e := range env.Knobs {
		if e.Knob != r.Knob || len(e.Values) == 0 || e.Values[0] != r.Value {
			continue
		}
		if ss := e.Changed[r.Churn]; len(ss) > 0 {
			return strings.Join(ss, ", ")
		}
		return "nothing"
	}
	return ""
}

// writeEnvelopeErrors prints, under the summaries, each strategy whose run
// failed at some points, with the first such point and its error.
func writeEnvelopeErrors(w io.Writer, env *envelopeReport) {
	for _, sum := range env.Summary {
		if sum.Errors == 0 {
			continue
		}
		for _, p := range env.Points {
			if o, ok := p.row(sum.Strategy); ok && o.Error != "" {
				fmt.Fprintf(w, "  %s failed at %d of %s, left out of its figures; first at churn %s, seed %d, %s: %s\n",
					sum.Strategy, sum.Errors, textcell.Plural(sum.Errors+sum.Runs, "point", "points"), p.Churn, p.Seed, p.Timings, o.Error)
				break
			}
		}
	}
	for _, p := range env.WorseThanAssumed {
		if o := p.Scenarios[0]; o.Error != "" {
			fmt.Fprintf(w, "  phased failed worse than its plan assumes, at churn %s, seed %d, %s: %s\n", p.Churn, p.Seed, p.Timings, o.Error)
		}
	}
}

// strategyKnobsText says over which grid knobs each strategy runs:
// "phased at 16 (new-target checks, lag, IP reuse), static at 2 (IP
// reuse), ...".
func strategyKnobsText(knobs map[string][]string) string {
	var parts []string
	for _, s := range strategies {
		g, _ := timing.GridOf(knobs[s]...) // the report's own knobs
		parts = append(parts, fmt.Sprintf("%s at %d (%s)", s, len(g), orNone(strings.Join(knobs[s], ", "))))
	}
	return strings.Join(parts, "; ")
}

// seedsText renders the seeds: "1 to 5", or "7".
func seedsText(seeds []uint64) string {
	switch len(seeds) {
	case 0:
		return "none"
	case 1:
		return fmt.Sprint(seeds[0])
	}
	return fmt.Sprintf("%d to %d", seeds[0], seeds[len(seeds)-1])
}

// firstSeed is the seed the sensitivity ran at.
func firstSeed(env *envelopeReport) uint64 {
	if len(env.Seeds) == 0 {
		return 0
	}
	return env.Seeds[0]
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
