// Command testrun runs `go test -json` and keeps what the Makefile's budget
// needs: each package's test time, and the time go test spent before it
// (building, vetting, linking).
//
//	go run ./hack/testrun run -tier unit -out bin/testtimes/unit.json -- -race -count=1 -timeout 20m ./...
//	go run ./hack/testrun report -budget 4m bin/testtimes/*.json
//
// run starts `go test -json` with the arguments after "--", prints what a
// plain `go test` would print for a package (its "ok"/"FAIL" line) and the
// whole output of every test that fails, and writes the tier to -out: its
// wall time (go test's whole run, builds included) and one record per
// package (package, result, seconds; for a tier of one package, such as a
// fuzz target's, the seconds go test spent before it started the test
// binary: the instrumented build). It exits with go test's status.
//
// report reads those files and prints one table: every package that ran a
// test in a tier, slowest first, with its time against the budget and,
// where the tier knows it, its build time; then a line per tier with its
// counts (packages tested, packages without a test in the tier, packages
// without test files: the same counts as run's line), the tests' summed
// time and the tier's wall time. A package over the budget is marked,
// never failed: the explicit -timeout is the only hard limit (issue 21).
//
// Files: main.go (the commands), follow.go (go test -json's stream into
// records), report.go (the table).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

func run(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	tier := fs.String("tier", "", "name of the tier, for the report")
	out := fs.String("out", "", "file to write the tier's records to")
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
	t, perr := follow(stdout, os.Stdout, *tier, start)
	werr := cmd.Wait()
	if perr != nil {
		return perr
	}
	t.WallSeconds = time.Since(start).Seconds()
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Printf("testrun: tier %s: %s in %s\n", *tier, t.counts().String(), time.Since(start).Round(time.Second))
	return werr
}
