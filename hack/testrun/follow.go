package main

// follow.go: a tier's records (tierRun, record) and follow, which reads
// go test -json's stream into them.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/qstools/tgmigrate/internal/textcell"
)

// The results of a record.
const (
	resultPass = "pass"
	resultFail = "fail"
	// resultNone is a package that has tests but ran none in the tier
	// (go test's "[no tests to run]", e.g. a package without an
	// integration test in the integration tier).
	resultNone = "none"
	// resultSkip is a package without test files.
	resultSkip = "skip"
)

// tierRun is one run of go test: a tier's file.
type tierRun struct {
	Tier string `json:"tier"`
	// WallSeconds is go test's whole run, builds included.
	WallSeconds float64  `json:"wallSeconds"`
	Packages    []record `json:"packages"`
}

// record is one package's outcome in one tier.
type record struct {
	Package string `json:"package"`
	// Result is pass, fail, none (no test ran) or skip (no test files).
	Result string `json:"result"`
	// Seconds is the test binary's run (go test's Elapsed).
	Seconds float64 `json:"seconds"`
	// BuildSeconds is, in a tier of one package, the time from go test's
	// start to the test binary's: its build (instrumented, for a fuzz
	// target), vet and link. Zero when the tier ran several packages,
	// whose builds overlap each other's tests.
	BuildSeconds float64 `json:"buildSeconds,omitempty"`
}

// tierCounts are a tier's packages by what they did.
type tierCounts struct {
	tested, none, skipped int
}

func (t tierRun) counts() tierCounts {
	var c tierCounts
	for _, r := range t.Packages {
		switch r.Result {
		case resultNone:
			c.none++
		case resultSkip:
			c.skipped++
		default:
			c.tested++
		}
	}
	return c
}

// String says the counts as run's line and the report's tier line both do:
// "33 packages tested (7 without a test in the tier, 4 without test files)".
func (c tierCounts) String() string {
	s := textcell.Plural(c.tested, "package", "packages") + " tested"
	var rest []string
	if c.none > 0 {
		rest = append(rest, fmt.Sprintf("%d without a test in the tier", c.none))
	}
	if c.skipped > 0 {
		rest = append(rest, fmt.Sprintf("%d without test files", c.skipped))
	}
	if len(rest) > 0 {
		s += " (" + strings.Join(rest, ", ") + ")"
	}
	return s
}

// event is the part of a test2json event that testrun reads.
type event struct {
	Time    time.Time
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

// follow reads the test2json stream of a go test started at start, writes
// a go test-like transcript to w and returns the tier's records.
func follow(r io.Reader, w io.Writer, tier string, start time.Time) (tierRun, error) {
	type key struct{ pkg, test string }
	buffered := map[key][]string{} // output of tests still running
	started := map[string]time.Time{}
	ran := map[string]bool{} // packages where some test ran
	t := tierRun{Tier: tier}
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
		case e.Test == "" && e.Action == "start":
			if _, ok := started[e.Package]; !ok {
				started[e.Package] = e.Time
			}
		case e.Test != "" && e.Action == "run":
			ran[e.Package] = true
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
			res := e.Action
			if res == resultPass && !ran[e.Package] {
				res = resultNone
			}
			t.Packages = append(t.Packages, record{Package: e.Package, Result: res, Seconds: e.Elapsed})
		}
	}
	if len(t.Packages) == 1 {
		if s, ok := started[t.Packages[0].Package]; ok && !start.IsZero() && s.After(start) {
			t.Packages[0].BuildSeconds = s.Sub(start).Seconds()
		}
	}
	return t, sc.Err()
}
