package main

// simulate_report.go: runSimulate, which runs what the flags ask and
// reports it: the JSON report, the side-by-side table, and the exit status
// of a failed run of phased.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim/timing"
	"github.com/qstools/tgmigrate/internal/textcell"
)

// simReport is the -format json output: one object.
type simReport struct {
	SchemaVersion int     `json:"schemaVersion"`
	Seed          uint64  `json:"seed"`
	Scenario      string  `json:"scenario"`
	Churn         string  `json:"churn"`
	Nodes         int     `json:"nodes"`
	Pods          int     `json:"pods"`
	ChurnInterval float64 `json:"churnIntervalSeconds"`
	Duration      float64 `json:"durationSeconds"`
	LeadIn        float64 `json:"leadInSeconds"`
	Wire          bool    `json:"wire"`
	// Timings are the AWS timings of the scenarios' runs: the worlds'.
	Timings timing.Timings `json:"timings"`
	// PlanAssumptions are the timings every plan was made under: the
	// product's defaults (cutover.Assumptions' zero value), not the
	// worlds' timings, which the plan is not told.
	PlanAssumptions cutover.Assumptions `json:"planAssumptions"`
	// Scenarios are the strategies' runs, on the same seed and churn.
	Scenarios []simOutcome `json:"scenarios"`
	// Hardest is phased at the corner of the envelope expected hardest
	// for it, run there and then (not with -envelope, which runs them
	// all).
	Hardest *hardestRun `json:"hardest,omitempty"`
	// Envelope is every strategy over the grid of timings (--envelope).
	Envelope *envelopeReport `json:"envelope,omitempty"`
	// Campaign is the fleet campaign (--scenario campaign).
	Campaign *campaignReport `json:"campaign,omitempty"`
}

// hardestRun is one strategy's run at timing.Hardest.
type hardestRun struct {
	Timings timing.Timings `json:"timings"`
	Outcome simOutcome     `json:"outcome"`
}

func (a *app) runSimulate(ctx context.Context, f *simFlags) error {
	if err := f.validate(); err != nil {
		return err
	}
	if a.format != "text" && a.format != "json" && (a.format != "markdown" || f.scenario != scenarioCampaign) {
		return usagef("--format %s: simulate prints text or json (and markdown with --scenario %s)", a.format, scenarioCampaign)
	}
	tm, _ := f.timings.parse() // validated
	rep := simReport{
		SchemaVersion: simSchemaVersion, Seed: f.seed, Scenario: f.scenario, Churn: f.churn, Nodes: f.nodes, Pods: f.pods,
		ChurnInterval: f.churnInterval.Seconds(), Duration: f.duration.Seconds(), LeadIn: f.leadIn.Seconds(), Wire: f.wire,
		Timings: tm, PlanAssumptions: planAssumptions(),
	}
	// A run that fails is a row with its error; only an interrupt stops
	// the command before everything is printed. A failed run of phased
	// makes the exit status 3, once everything is printed.
	if f.envelope && f.scenario == scenarioControllerFaults {
		// The envelope runs the grid with phased's ordinary Execute: it
		// has no controller fault to inject at its points.
		return usagef("--envelope with --scenario %s: the envelope does not run the controller's faults; run --scenario %s without --envelope, or --envelope with another --scenario",
			scenarioControllerFaults, scenarioControllerFaults)
	}
	if f.envelope {
		env, rows, err := a.runEnvelope(ctx, f, defaultEnvelopeSpec(f))
		if err != nil {
			return err
		}
		rep.Envelope, rep.Scenarios, rep.Timings = env, rows, timing.Defaults()
		if err := a.printSimReport(rep, func() { writeEnvelope(a.stdout, rep) }); err != nil {
			return err
		}
		return phasedFailure(rep, nil)
	}
	if f.scenario == scenarioCampaign {
		return a.simulateCampaign(ctx, f, tm, &rep)
	}
	if f.scenario == scenarioControllerFaults {
		if err := a.runControllerFaults(ctx, f, tm, &rep); err != nil {
			return err
		}
		err := a.printSimReport(rep, func() {
			heading(a.stdout, "Controller faults: the same seed, the same churn")
			writeFaults(a.stdout, rep)
		})
		if err != nil {
			return err
		}
		return phasedFailure(rep, nil)
	}
	var storyErr error
	if a.format == "text" {
		if storyErr = a.simulateStory(ctx, f, tm); storyErr != nil {
			if err := context.Cause(ctx); err != nil {
				return storyErr
			}
			// In the section that failed.
			fmt.Fprintf(a.stdout, "\nfailed: %s\nThe story's remaining sections are skipped; the side-by-side comparison follows.\n", oneLine(storyErr.Error()))
		}
	}
	// The rows run to one length: the longest any of them needs.
	var runs []*simRun
	for _, strategy := range strategies {
		runs = append(runs, &simRun{a: a, f: f, strategy: strategy, timings: tm})
	}
	if f.scenario == scenarioPrivateSubnets {
		for _, broken := range []string{brokenMissingZone, brokenNoEgress} {
			runs = append(runs, &simRun{a: a, f: f, strategy: strategyPhased, timings: tm, name: strategyPhased + " (" + broken + ")", broken: broken})
		}
	}
	rows, err := runAligned(ctx, runs, func(r *simRun) {
		switch {
		case a.format != "text":
		case r.broken != "":
			fmt.Fprintf(a.stderr, "simulating %s: readiness must refuse the move...\n", r.label())
		default:
			fmt.Fprintf(a.stderr, "simulating %s (%v of virtual time, or to the latest migration's end)...\n", r.strategy, f.leadIn+f.duration)
		}
	})
	if err != nil {
		return err
	}
	for i, r := range runs {
		if r.broken != "" {
			rows[i].Fault = "broken world: " + r.broken
		}
	}
	rep.Scenarios = rows
	comparePhasedWindow(rep.Scenarios)
	hard := timing.Hardest()
	if a.format == "text" {
		fmt.Fprintf(a.stderr, "simulating %s at the hardest corner of the envelope...\n", strategyPhased)
	}
	out, err := (&simRun{a: a, f: f, strategy: strategyPhased, timings: hard, name: "phased at the hardest corner"}).outcome(ctx)
	if err != nil {
		if cerr := context.Cause(ctx); cerr != nil {
			return fmt.Errorf("simulate %s at the hardest corner: %w", strategyPhased, err)
		}
		row := failedOutcome(strategyPhased, err)
		out = &row
	}
	hardRow := []simOutcome{*out}
	comparePhasedWindow(hardRow)
	rep.Hardest = &hardestRun{Timings: hard, Outcome: hardRow[0]}
	err = a.printSimReport(rep, func() {
		heading(a.stdout, fmt.Sprintf("6. Side by side: a world per strategy, seed %d, each with a %v lead-in (not the story's world)", f.seed, f.leadIn))
		fmt.Fprintf(a.stdout, "Each row runs in a world of its own, built from the same seed and churn as the story's, with a %v lead-in before the migration\n"+
			"instead of the story's %v prelude and diagnose: its figures are not the story's.\n\n", f.leadIn, f.prelude)
		writeComparison(a.stdout, rep)
	})
	if err != nil {
		return err
	}
	return phasedFailure(rep, storyErr)
}

// printSimReport prints rep as one JSON object, or in text with writeText.
func (a *app) printSimReport(rep simReport, writeText func()) error {
	if a.format == "json" {
		return json.NewEncoder(a.stdout).Encode(rep)
	}
	writeText()
	return nil
}

// phasedFailure is the error simulate exits with (3) when a run of phased,
// the product, failed: a row of its, phased at the hardest corner or at a
// point of the envelope, phased under a controller fault (a failure of the
// run itself: the fault's effect on Execute is the row's outcome), or the
// story (text only: story, its error). Nil when none failed. A failure of
// another strategy is its row's error and does not change the exit status.
func phasedFailure(rep simReport, story error) error {
	var runs []string
	seen := map[string]bool{}
	add := func(run, err string) {
		if err != "" && !seen[run] {
			seen[run] = true
			runs = append(runs, run+": "+err)
		}
	}
	if story != nil {
		add("the story", oneLine(story.Error()))
	}
	for _, o := range rep.Scenarios {
		switch {
		case o.Strategy != strategyPhased:
		case o.Fault != "":
			add("phased under controller fault "+o.Fault, o.Error)
		case rep.Envelope != nil:
			add(fmt.Sprintf("phased at churn %s, seed %d, %s", rep.Churn, rep.Seed, rep.Timings), o.Error)
		default:
			add("phased", o.Error)
		}
	}
	if h := rep.Hardest; h != nil {
		add("phased at the hardest corner", h.Outcome.Error)
	}
	if env := rep.Envelope; env != nil {
		for _, p := range slices.Concat(env.Points, env.WorseThanAssumed) {
			for _, o := range p.Scenarios {
				if o.Strategy == strategyPhased {
					add(fmt.Sprintf("phased at churn %s, seed %d, %s", p.Churn, p.Seed, p.Timings), o.Error)
				}
			}
		}
		for _, r := range env.Sensitivity {
			add(fmt.Sprintf("phased at churn %s, seed %d, %s", r.Churn, r.Seed, r.Timings), r.Errors[strategyPhased])
		}
	}
	if len(runs) == 0 {
		return nil
	}
	msg := "simulate: phased failed: " + runs[0]
	if len(runs) > 1 {
		msg += fmt.Sprintf(" (and %s of phased: the report has every error)", textcell.Plural(len(runs)-1, "more run", "more runs"))
	}
	return &failedError{err: errors.New(msg)}
}

func heading(w io.Writer, title string) {
	fmt.Fprintf(w, "\n== %s\n\n", title)
}

// windowNames are the windows' names, in time order.
func windowNames(o simOutcome) []string {
	names := []string{"before"}
	if o.Windows.Settle != nil {
		names = append(names, "settle")
	}
	names = append(names, "cutover")
	if o.Windows.Rollback != nil {
		names = append(names, "rollback")
	}
	if o.Windows.Move != nil {
		names = append(names, "move")
	}
	return append(names, "after")
}

// rowName is a row's name in the tables: its strategy, and the broken
// world it ran in (scenario private-subnets).
func rowName(o simOutcome) string {
	if w, ok := strings.CutPrefix(o.Fault, "broken world: "); ok {
		return o.Strategy + " (" + w + ")"
	}
	return o.Strategy
}

func writeComparison(w io.Writer, rep simReport) {
	fmt.Fprintf(w, "AWS timings: %s (every other knob at its default: package timing).\n", rep.Timings)
	writeAssumptions(w, rep.Timings, rep.PlanAssumptions)
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy\tpreStop s\trequests\tfailed\tby window\toutage s\tdegraded s\tsettle s\tcutover s\tfloor s\tratio\twhole ratio\tnodes replaced\tghosts left\t  API calls (the tool's own)")
	for _, s := range rep.Scenarios {
		if s.Error != "" {
			// No figure: the error is under the table.
			fmt.Fprintf(tw, "%s%s\t  failed: the error is under the table\n", rowName(s), strings.Repeat("\t-", 13))
			continue
		}
		settle := "-"
		if s.Windows.Settle != nil {
			settle = fmt.Sprintf("%.0f", s.SettleSeconds)
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%d\t%d\t%s\t%.0f\t%.0f\t%s\t%.0f\t%.0f\t%s\t%s\t%d\t%d\t  %s\n", rowName(s), s.PodSettings.PreStopSeconds, s.Requests, s.Failed,
			byWindow(s), s.TotalOutageSeconds, s.DegradedSeconds, settle, s.CutoverSeconds-s.SettleSeconds, s.FloorSeconds,
			ratioText(s.Ratio), ratioText(s.RatioWhole), s.NodesReplaced, s.GhostsLeft, callSummary(s.APICalls))
	}
	_ = tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintln(w, "settle s: phased's first step, from Execute's start: the disruptions under way at its start running out, plus the deregistration")
	fmt.Fprintln(w, "lag the plan assumes; cutover s: its steps after that. ratio: cutover s against the plan's floor; whole ratio: Execute's whole")
	fmt.Fprintln(w, "time (settle s + cutover s) against settle s + floor s.")
	writePhasedExecuteWindow(w, rep.Scenarios)
	fmt.Fprintln(w)
	for _, s := range rep.Scenarios {
		fmt.Fprintf(w, "  %-12s  %s\n", rowName(s), noteOrError(s))
		if s.Error == "" && s.NodesPrivate != nil && s.Outcome == "" && s.Windows.Move != nil {
			fmt.Fprintf(w, "  %-12s  step 4: the move took %.0f s in %s, %s failed in it; nodes at the end: %d private, %d public\n",
				"", s.MoveSeconds, textcell.Plural(s.MoveWaves, "wave", "waves"), textcell.Plural(s.Windows.Move.Failed, "request", "requests"), *s.NodesPrivate, *s.NodesPublic)
		}
	}
	if h := rep.Hardest; h != nil {
		o := h.Outcome
		if o.Error != "" {
			fmt.Fprintf(w, "\nHardest corner of the envelope for phased (%s), run now: phased failed: %s; `simulate --envelope` runs every corner.\n", h.Timings, o.Error)
			return
		}
		fmt.Fprintf(w, "\nHardest corner of the envelope for phased (%s), run now: phased lost %s from Execute's start (%d in its settle, %d in its cutover window; %d of them under way at its start, which no call could save) and %d in all (%s); `simulate --envelope` runs every corner.\n",
			h.Timings, textcell.Plural(o.FailedInPhasedExecute, "request", "requests"), settleFailed(o), o.Windows.Cutover.Failed, o.FailedUnderWayAtStart, o.Failed, byWindow(o))
	}
}

// ratioText renders a ratio, or "-" when the row has none.
func ratioText(r float64) string {
	if r == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", r)
}

// writePhasedExecuteWindow prints every row's failures while phased's
// Execute ran (from its start) and, of them, in phased's cutover window:
// the same stretch of time in each row's world. Nothing when phased has
// no row or its run failed.
func writePhasedExecuteWindow(w io.Writer, rows []simOutcome) {
	i := slices.IndexFunc(rows, func(o simOutcome) bool { return o.Strategy == strategyPhased && o.Fault == "" })
	if i < 0 || rows[i].Error != "" {
		return
	}
	var parts []string
	for _, o := range rows {
		if o.Error == "" && o.Fault == "" {
			parts = append(parts, fmt.Sprintf("%s %d (%d)", rowName(o), o.FailedInPhasedExecute, o.FailedInPhasedCutover))
		}
	}
	fmt.Fprintf(w, "Failed while phased's Execute ran, from its start (of them, in its cutover window), the same stretch of time in each world: %s.\n", strings.Join(parts, ", "))
}

// writeAssumptions prints the worlds' timings and the plan's assumptions
// side by side: the plan is made at the product's defaults, not told the
// world's timings.
func writeAssumptions(w io.Writer, tm timing.Timings, a cutover.Assumptions) {
	tm, a = tm.WithDefaults(), a.WithDefaults()
	checks := func(n int) string {
		if n == timing.HealthyThreshold {
			return "HealthyThresholdCount"
		}
		return fmt.Sprint(n)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  \tthe world (package timing)\tthe plan's assumptions (the product's defaults: the plan is not told the world's)")
	fmt.Fprintf(tw, "  new-target checks\t%s\t%s\n", checks(tm.NewTargetChecks), checks(a.NewTargetChecks))
	fmt.Fprintf(tw, "  registration delay\t%v\t%v\n", tm.Registration(), a.Registration())
	fmt.Fprintf(tw, "  deregistration lag\t%v\tup to %v\n", tm.Lag(), a.Lag())
	fmt.Fprintf(tw, "  controller\treacts in %v\tderegisters a stopping pod within %v\n", tm.Reaction(), a.Controller())
	_ = tw.Flush()
}

// noteOrError is the line under a table of a row: its error when it
// failed, else its note.
func noteOrError(o simOutcome) string {
	if o.Error != "" {
		return "error: " + o.Error
	}
	return o.Note
}

// settleFailed is the failures of the row's settle window; zero when it
// has none.
func settleFailed(o simOutcome) int {
	if o.Windows.Settle == nil {
		return 0
	}
	return o.Windows.Settle.Failed
}

// byWindow renders the failures of each window: "0/3/0/12" for before,
// (settle,) cutover (, rollback, move) and after.
func byWindow(o simOutcome) string {
	var parts []string
	for _, win := range o.Windows.all() {
		parts = append(parts, fmt.Sprint(win.Failed))
	}
	return strings.Join(parts, "/") + " (" + strings.Join(windowNames(o), "/") + ")"
}

// callSummary prints the calls by operation, most frequent first.
func callSummary(calls map[string]int) string {
	if len(calls) == 0 {
		return "0"
	}
	type kv struct {
		op string
		n  int
	}
	var list []kv
	total := 0
	for op, n := range calls {
		list = append(list, kv{op, n})
		total += n
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].n != list[j].n {
			return list[i].n > list[j].n
		}
		return list[i].op < list[j].op
	})
	var parts []string
	for _, e := range list {
		if len(parts) == 3 {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", strings.TrimPrefix(e.op, "Describe"), e.n))
	}
	return fmt.Sprintf("%d (%s)", total, strings.Join(parts, ", "))
}
