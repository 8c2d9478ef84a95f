package main

// main_test.go: follow and writeReport on recorded go test -json streams
// (testdata/*.jsonl, in go test -json's format, trimmed to a few packages
// of each kind): the records, the transcript, and the report's golden
// text.

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/report.txt")

const mod = "github.com/qstools/tgmigrate/"

// recorded are the recorded tiers: the stream, when its go test started,
// and its wall time (run measures it; the stream does not hold it).
var recorded = []struct {
	tier  string
	start time.Time
	wall  float64
}{
	{"unit", time.Date(2026, 12, 4, 10, 0, 40, 0, time.UTC), 285.5},
	{"fuzz-manifests", time.Date(2026, 12, 4, 10, 6, 0, 0, time.UTC), 151.6},
	{"integration", time.Date(2026, 12, 4, 10, 9, 10, 0, time.UTC), 86.9},
}

func followRecorded(t *testing.T, tier string, start time.Time) (tierRun, string) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", tier+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var transcript strings.Builder
	tr, err := follow(f, &transcript, tier, start)
	if err != nil {
		t.Fatal(err)
	}
	return tr, transcript.String()
}

// TestFollow: each package's result, seconds and, in a tier of one
// package, its build time; a package without a test in the tier is
// "none", one without test files "skip"; the transcript has the packages'
// lines and a failed test's output, not a passed test's.
func TestFollow(t *testing.T) {
	tests := []struct {
		tier       string
		want       []record
		counts     string
		transcript []string
		notInIt    []string
	}{
		{"unit", []record{
			{Package: mod + "hack/doccheck", Result: resultSkip},
			{Package: mod + "internal/textcell", Result: resultPass, Seconds: 1.2},
			{Package: mod + "cutover", Result: resultFail, Seconds: 283.7},
		}, "2 packages tested (1 without test files)",
			[]string{"ok  \t" + mod + "internal/textcell\t1.2s\n", "    plan_test.go:31: plan-in-place.txt differs\n", "FAIL\t" + mod + "cutover\t283.7s\n"},
			[]string{"--- PASS: TestPlural"}},
		{"fuzz-manifests", []record{
			{Package: mod + "helmgov", Result: resultPass, Seconds: 21.3, BuildSeconds: 130.2},
		}, "1 package tested", []string{"ok  \t" + mod + "helmgov\t21.3s\n"}, []string{"gathering baseline coverage"}},
		{"integration", []record{
			{Package: mod + "internal/textcell", Result: resultNone, Seconds: 0.01},
			{Package: mod + "hack/doccheck", Result: resultSkip},
			{Package: mod + "cutover", Result: resultPass, Seconds: 6.5},
		}, "1 package tested (1 without a test in the tier, 1 without test files)", nil, []string{"--- PASS"}},
	}
	for _, tt := range tests {
		t.Run(tt.tier, func(t *testing.T) {
			i := 0
			for i < len(recorded) && recorded[i].tier != tt.tier {
				i++
			}
			tr, transcript := followRecorded(t, tt.tier, recorded[i].start)
			if d := cmp.Diff(tt.want, tr.Packages, cmp.Comparer(func(a, b float64) bool { return a-b < 1e-6 && b-a < 1e-6 })); d != "" {
				t.Errorf("records (-want +got):\n%s", d)
			}
			if got := tr.counts().String(); got != tt.counts {
				t.Errorf("counts %q, want %q", got, tt.counts)
			}
			for _, s := range tt.transcript {
				if !strings.Contains(transcript, s) {
					t.Errorf("transcript lacks %q:\n%s", s, transcript)
				}
			}
			for _, s := range tt.notInIt {
				if strings.Contains(transcript, s) {
					t.Errorf("transcript has %q:\n%s", s, transcript)
				}
			}
		})
	}
}

// TestReport: the report of the recorded tiers is its golden text; it
// has a row for every package that ran a test and none for the others;
// each tier line counts as many tested packages as the table has rows of
// that tier, with the same words as run's line; the fuzz target's build
// is shown apart from its fuzzing.
func TestReport(t *testing.T) {
	var tiers []tierRun
	for _, r := range recorded {
		tr, _ := followRecorded(t, r.tier, r.start)
		tr.WallSeconds = r.wall
		tiers = append(tiers, tr)
	}
	var b strings.Builder
	writeReport(&b, tiers, 4*time.Minute)
	got := b.String()
	golden := filepath.Join("testdata", "report.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./hack/testrun -update writes it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("report differs from %s (-want +got):\n%s", golden, d)
	}

	rows := map[string]int{}
	for _, line := range strings.Split(got, "\n") {
		if f := strings.Fields(line); len(f) >= 4 && strings.HasPrefix(f[len(f)-1], mod) {
			rows[f[0]]++
		}
	}
	for _, tr := range tiers {
		c := tr.counts()
		if rows[tr.Tier] != c.tested {
			t.Errorf("tier %s: %d rows, %d packages tested", tr.Tier, rows[tr.Tier], c.tested)
		}
		line := regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(tr.Tier)+` +(.*)$`).FindAllStringSubmatch(got, -1)
		last := line[len(line)-1][1]
		if !strings.HasPrefix(last, c.String()+":") {
			t.Errorf("tier %s's line %q does not begin with run's counts %q", tr.Tier, last, c.String())
		}
	}
	for _, s := range []string{"integration      0.0", mod + "hack/doccheck"} {
		if strings.Contains(got, s) {
			t.Errorf("the report has %q: a package without a test in a tier has no row", s)
		}
	}
	fuzz := regexp.MustCompile(`(?m)^fuzz-manifests +([\d.]+) +([\d.]+) +` + regexp.QuoteMeta(mod+"helmgov") + `$`).FindStringSubmatch(got)
	if fuzz == nil {
		t.Fatalf("no row of the fuzz target with its build time:\n%s", got)
	}
	if run, _ := strconv.ParseFloat(fuzz[1], 64); run != 21.3 {
		t.Errorf("fuzzing %v s, want 21.3", run)
	}
	if build, _ := strconv.ParseFloat(fuzz[2], 64); build != 130.2 {
		t.Errorf("build %v s, want 130.2", build)
	}
	if !strings.Contains(got, "fuzz-manifests   1 package tested: build 130.2 s, tests 21.3 s; wall 2m32s") {
		t.Errorf("the fuzz tier's line does not give its build and its fuzzing apart:\n%s", got)
	}
}
