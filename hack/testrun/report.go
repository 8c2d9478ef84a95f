package main

// report.go: report, the table of every tier's packages and a line per
// tier, from the files run wrote.

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"github.com/qstools/tgmigrate/internal/textcell"
)

func report(args []string) error {
	fs := flag.NewFlagSet("report", flag.ExitOnError)
	budget := fs.Duration("budget", 4*time.Minute, "each package's budget; a package over it is marked")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var tiers []tierRun
	for _, f := range fs.Args() {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var t tierRun
		if err := json.Unmarshal(b, &t); err != nil {
			if bytes.HasPrefix(bytes.TrimSpace(b), []byte("[")) {
				return fmt.Errorf("%s: written by an older testrun (a list of records): make clean-times, then run the tier again", f)
			}
			return fmt.Errorf("%s: %w", f, err)
		}
		tiers = append(tiers, t)
	}
	writeReport(os.Stdout, tiers, *budget)
	return nil
}

// writeReport prints the table: every package that ran a test in a tier,
// slowest first, marked FAIL or OVER the budget, with its build time
// where its tier knows it (a tier of one package); then, per tier, its
// counts, the tests' summed time (for a tier of one package, its build
// and its tests apart) and its wall time.
func writeReport(w io.Writer, tiers []tierRun, budget time.Duration) {
	type row struct {
		tier string
		record
	}
	var rows []row
	for _, t := range tiers {
		for _, r := range t.Packages {
			if r.Result == resultSkip || r.Result == resultNone {
				continue
			}
			rows = append(rows, row{t.Tier, r})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Seconds > rows[j].Seconds })
	fmt.Fprintf(w, "== test time per package (go test -json; budget %s each; the -timeout flag is the only hard limit)\n", budget)
	fmt.Fprintf(w, "%-16s %9s %9s  %-5s %s\n", "TIER", "SECONDS", "BUILD", "", "PACKAGE")
	over := 0
	for _, r := range rows {
		mark := ""
		switch {
		case r.Result == resultFail:
			mark = "FAIL"
		case r.Seconds > budget.Seconds():
			mark = "OVER"
			over++
		}
		build := "-"
		if r.BuildSeconds > 0 {
			build = fmt.Sprintf("%.1f", r.BuildSeconds)
		}
		fmt.Fprintf(w, "%-16s %9.1f %9s  %-5s %s\n", r.tier, r.Seconds, build, mark, r.Package)
	}
	fmt.Fprintln(w, "BUILD: the seconds go test spent before the test binary started (build, vet, link; instrumented for a fuzz target), known in a tier of one package.")
	sorted := append([]tierRun(nil), tiers...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Tier < sorted[j].Tier })
	for _, t := range sorted {
		c := t.counts()
		tests, build := 0.0, 0.0
		for _, r := range t.Packages {
			if r.Result != resultSkip && r.Result != resultNone {
				tests += r.Seconds
				build += r.BuildSeconds
			}
		}
		what := fmt.Sprintf("tests %.1f s summed, run in parallel", tests)
		if c.tested == 1 {
			what = fmt.Sprintf("tests %.1f s", tests)
		}
		if build > 0 {
			what = fmt.Sprintf("build %.1f s, %s", build, what)
		}
		fmt.Fprintf(w, "%-16s %s: %s; wall %s\n", t.Tier, c, what, (time.Duration(t.WallSeconds * float64(time.Second))).Round(time.Second))
	}
	if over > 0 {
		fmt.Fprintf(w, "%s over the %s budget\n", textcell.Plural(over, "package", "packages"), budget)
	}
}
