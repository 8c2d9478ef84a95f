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
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/qstools/tgmigrate/internal/sim/timing"
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
	// Timings are the AWS timings of the scenarios' runs.
	Timings timing.Timings `json:"timings"`
	// Scenarios are the strategies' runs, on the same seed and churn.
	Scenarios []simOutcome `json:"scenarios"`
	// Hardest is phased at the corner of the envelope expected hardest
	// for it, run there and then (not with -envelope, which runs them
	// all).
	Hardest *hardestRun `json:"hardest,omitempty"`
	// Envelope is every strategy over the grid of timings (-envelope).
	Envelope *envelopeReport `json:"envelope,omitempty"`
}

// hardestRun is one strategy's run at timing.Hardest.
type hardestRun struct {
	Timings timing.Timings `json:"timings"`
	Outcome simOutcome     `json:"outcome"`
}

func (a *app) runSimulate(ctx context.Context, f *simFlags) error {
	if a.format != "text" && a.format != "json" {
		return usagef("--format %s: simulate prints text or json", a.format)
	}
	if err := f.validate(); err != nil {
		return err
	}
	tm, _ := f.timings.parse() // validated
	rep := simReport{
		SchemaVersion: simSchemaVersion, Seed: f.seed, Scenario: f.scenario, Churn: f.churn, Nodes: f.nodes, Pods: f.pods,
		ChurnInterval: f.churnInterval.Seconds(), Duration: f.duration.Seconds(), LeadIn: f.leadIn.Seconds(), Wire: f.wire,
		Timings: tm,
	}
	// A run that fails is a row with its error; only an interrupt stops
	// the command before everything is printed. A failed run of phased
	// makes the exit status 3, once everything is printed.
	if f.envelope {
		env, rows, err := a.runEnvelope(ctx, f, timing.Grid(), timing.Sensitivity())
		if err != nil {
			return err
		}
		rep.Envelope, rep.Scenarios, rep.Timings = env, rows, timing.Defaults()
		if err := a.printSimReport(rep, func() { writeEnvelope(a.stdout, rep) }); err != nil {
			return err
		}
		return phasedFailure(rep, nil)
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
	for _, strategy := range strategies {
		if a.format == "text" {
			fmt.Fprintf(a.stderr, "simulating %s (%v of virtual time)...\n", strategy, f.leadIn+f.duration)
		}
		out, err := (&simRun{a: a, f: f, strategy: strategy, timings: tm}).outcome(ctx)
		if err != nil {
			if cerr := context.Cause(ctx); cerr != nil {
				return fmt.Errorf("simulate %s: %w", strategy, err)
			}
			row := failedOutcome(strategy, err)
			out = &row
		}
		rep.Scenarios = append(rep.Scenarios, *out)
	}
	if f.scenario == scenarioPrivateSubnets {
		for _, broken := range []string{brokenMissingZone, brokenNoEgress} {
			name := strategyPhased + " (" + broken + ")"
			if a.format == "text" {
				fmt.Fprintf(a.stderr, "simulating %s: readiness must refuse the move...\n", name)
			}
			out, err := (&simRun{a: a, f: f, strategy: strategyPhased, timings: tm, name: name, broken: broken}).outcome(ctx)
			if err != nil {
				if cerr := context.Cause(ctx); cerr != nil {
					return fmt.Errorf("simulate %s: %w", name, err)
				}
				row := failedOutcome(strategyPhased, err)
				out = &row
			}
			out.Fault = "broken world: " + broken
			rep.Scenarios = append(rep.Scenarios, *out)
		}
	}
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
	rep.Hardest = &hardestRun{Timings: hard, Outcome: *out}
	err = a.printSimReport(rep, func() {
		heading(a.stdout, "6. Side by side: the same seed, the same churn")
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
			add("phased at "+rep.Timings.String(), o.Error)
		default:
			add("phased", o.Error)
		}
	}
	if h := rep.Hardest; h != nil {
		add("phased at the hardest corner", h.Outcome.Error)
	}
	if env := rep.Envelope; env != nil {
		for _, p := range env.Points {
			for _, o := range p.Scenarios {
				if o.Strategy == strategyPhased {
					add("phased at "+p.Timings.String(), o.Error)
				}
			}
		}
		for _, r := range env.Sensitivity {
			add("phased at "+r.Timings.String(), r.Errors[strategyPhased])
		}
	}
	if len(runs) == 0 {
		return nil
	}
	msg := "simulate: phased failed: " + runs[0]
	if len(runs) > 1 {
		msg += fmt.Sprintf(" (and %d more runs of phased: the report has every error)", len(runs)-1)
	}
	return &failedError{err: errors.New(msg)}
}

func heading(w io.Writer, title string) {
	fmt.Fprintf(w, "\n== %s\n\n", title)
}

// windowNames are the windows' names, in time order.
func windowNames(o simOutcome) []string {
	names := []string{"before", "cutover"}
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
	fmt.Fprintf(w, "AWS timings: %s (every other knob at its default: package timing).\n\n", rep.Timings)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy\tpreStop s\trequests\tfailed\tby window\toutage s\tdegraded s\tsettle s\tcutover s\tfloor s\tnodes replaced\tghosts left\t  API calls (the tool's own)")
	for _, s := range rep.Scenarios {
		if s.Error != "" {
			// No figure: the error is under the table.
			fmt.Fprintf(tw, "%s%s\t  failed: the error is under the table\n", rowName(s), strings.Repeat("\t-", 11))
			continue
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%d\t%d\t%s\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%d\t%d\t  %s\n", rowName(s), s.PodSettings.PreStopSeconds, s.Requests, s.Failed,
			byWindow(s), s.TotalOutageSeconds, s.DegradedSeconds, s.SettleSeconds, s.CutoverSeconds-s.SettleSeconds, s.FloorSeconds, s.NodesReplaced, s.GhostsLeft, callSummary(s.APICalls))
	}
	_ = tw.Flush()
	fmt.Fprintln(w)
	for _, s := range rep.Scenarios {
		fmt.Fprintf(w, "  %-12s  %s\n", rowName(s), noteOrError(s))
		if s.Error == "" && s.NodesPrivate != nil && s.Outcome == "" && s.Windows.Move != nil {
			fmt.Fprintf(w, "  %-12s  step 4: the move took %.0f s in %d waves, %d requests failed in it; nodes at the end: %d private, %d public\n",
				"", s.MoveSeconds, s.MoveWaves, s.Windows.Move.Failed, *s.NodesPrivate, *s.NodesPublic)
		}
	}
	if h := rep.Hardest; h != nil {
		o := h.Outcome
		if o.Error != "" {
			fmt.Fprintf(w, "\nHardest corner of the envelope for phased (%s), run now: phased failed: %s; `simulate -envelope` runs every corner.\n", h.Timings, o.Error)
			return
		}
		fmt.Fprintf(w, "\nHardest corner of the envelope for phased (%s), run now: phased lost %d requests in its cutover window and %d in all (%s); `simulate -envelope` runs every corner.\n",
			h.Timings, o.Windows.Cutover.Failed, o.Failed, byWindow(o))
	}
}

// noteOrError is the line under a table of a row: its error when it
// failed, else its note.
func noteOrError(o simOutcome) string {
	if o.Error != "" {
		return "error: " + o.Error
	}
	return o.Note
}

// byWindow renders the failures of each window: "0/0/12" for before,
// cutover (, rollback) and after.
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
