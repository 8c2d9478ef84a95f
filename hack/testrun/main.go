// Command testrun runs `go test -json` and keeps what the Makefile's budget
// needs: each package's test time.
//
//	go run ./hack/testrun run -tier unit -out bin/testtimes/unit.json -- -race -count=1 -timeout 20m ./...
//	go run ./hack/testrun report -budget 4m bin/testtimes/*.json
//
// run starts `go test -json` with the arguments after "--", prints what a
// plain `go test` would print for a package (its "ok"/"FAIL" line) and the
// whole output of every test that fails, and writes one record per package
// (tier, package, result, seconds) to -out. It exits with go test's status.
//
// report reads those records and prints one table: every package of every
// tier, slowest first, with its time against the budget. A package over the
// budget is marked, never failed: the explicit -timeout is the only hard
// limit (issue 21).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "run":
		err = run(os.Args[2:])
	case "report":
		err = report(os.Args[2:])
	default:
		usage()
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		os.Exit(exit.ExitCode())
	case err != nil:
		fmt.Fprintln(os.Stderr, "testrun:", err)
		os.Exit(2)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: testrun run -tier NAME -out FILE -- GO_TEST_ARGS... | testrun report [-budget D] FILE...")
	os.Exit(2)
}

// record is one package's outcome in one tier.
type record struct {
	Tier    string  `json:"tier"`
	Package string  `json:"package"`
	Result  string  `json:"result"` // pass, fail, skip (no test files)
	Seconds float64 `json:"seconds"`
}

// event is the part of a test2json event that testrun reads.
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

func run(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	tier := fs.String("tier", "", "name of the tier, for the report")
	out := fs.String("out", "", "file to write the per-package records to")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *tier == "" || *out == "" {
		return errors.New("run: -tier and -out are required")
	}
	cmd := exec.Command("go", append([]string{"test", "-json"}, fs.Args()...)...)
	cmd.Stderr = os.Stderr // build errors
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	records, perr := follow(stdout, os.Stdout, *tier)
	werr := cmd.Wait()
	if perr != nil {
		return perr
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(records, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Printf("testrun: tier %s: %d packages in %s\n", *tier, len(records), time.Since(start).Round(time.Second))
	return werr
}

// follow reads the test2json stream, writes a go test-like transcript to w
// and returns the package records.
func follow(r io.Reader, w io.Writer, tier string) ([]record, error) {
	type key struct{ pkg, test string }
	buffered := map[key][]string{} // output of tests still running
	var records []record
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil {
			// Not an event (go test prints some build output this way).
			fmt.Fprintln(w, string(line))
			continue
		}
		k := key{e.Package, e.Test}
		switch {
		case e.Test != "" && e.Action == "output":
			buffered[k] = append(buffered[k], e.Output)
		case e.Test != "" && e.Action == "fail":
			for _, o := range buffered[k] {
				fmt.Fprint(w, o)
			}
			delete(buffered, k)
		case e.Test != "" && (e.Action == "pass" || e.Action == "skip"):
			delete(buffered, k)
		case e.Test == "" && e.Action == "output":
			// The package's own lines: "ok ...", "FAIL ...", panics
			// outside a test, "--- FAIL" summaries already printed.
			if !strings.HasPrefix(e.Output, "PASS") && !strings.HasPrefix(e.Output, "=== ") {
				fmt.Fprint(w, e.Output)
			}
		case e.Test == "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip"):
			records = append(records, record{Tier: tier, Package: e.Package, Result: e.Action, Seconds: e.Elapsed})
		}
	}
	return records, sc.Err()
}

func report(args []string) error {
	fs := flag.NewFlagSet("report", flag.ExitOnError)
	budget := fs.Duration("budget", 4*time.Minute, "each package's budget; a package over it is marked")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var all []record
	for _, f := range fs.Args() {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var rs []record
		if err := json.Unmarshal(b, &rs); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		all = append(all, rs...)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Seconds > all[j].Seconds })
	fmt.Printf("== test time per package (go test -json; budget %s each; the -timeout flag is the only hard limit)\n", *budget)
	fmt.Printf("%-16s %9s  %-5s %s\n", "TIER", "SECONDS", "", "PACKAGE")
	totals := map[string]float64{}
	counts := map[string]int{}
	var tiers []string
	over := 0
	for _, r := range all {
		if r.Result == "skip" {
			continue
		}
		if _, ok := totals[r.Tier]; !ok {
			tiers = append(tiers, r.Tier)
		}
		totals[r.Tier] += r.Seconds
		counts[r.Tier]++
		mark := ""
		switch {
		case r.Result == "fail":
			mark = "FAIL"
		case r.Seconds > budget.Seconds():
			mark = "OVER"
			over++
		}
		fmt.Printf("%-16s %9.1f  %-5s %s\n", r.Tier, r.Seconds, mark, r.Package)
	}
	sort.Strings(tiers)
	for _, t := range tiers {
		if counts[t] > 1 {
			fmt.Printf("%-16s %9.1f  %-5s (sum of the tier's %d packages, which run in parallel)\n", t, totals[t], "", counts[t])
		}
	}
	if over > 0 {
		fmt.Printf("%d packages over the %s budget\n", over, *budget)
	}
	return nil
}
