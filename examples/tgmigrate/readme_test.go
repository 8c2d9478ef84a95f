package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/sim/timing"
)

var updateTour = flag.Bool("update-tour", false, "rewrite testdata/tour-*.txt and the README's tour blocks from the commands' output")

// tour lists the README's transcripts: each command runs in-process from
// the repository's root, and its output (stdout, then stderr, then the exit
// status as go run prints it) is a golden file and a fenced block of the
// README.
var tour = []struct {
	golden   string
	args     []string
	wantCode int
}{
	{"tour-helm-check.txt", []string{"helm", "check", "helmgov/testdata/charts/legacy-nodeport"}, exitFindings},
	{"tour-helm-fix.txt", []string{"helm", "fix", "helmgov/testdata/charts/legacy-nodeport"}, exitOK},
	{"tour-helm-fix-values.txt", []string{"helm", "fix", "helmgov/testdata/charts/values-routed", "-f", "helmgov/testdata/values/values-routed-prod.yaml"}, exitOK},
	{"tour-helm-fix-subchart.txt", []string{"helm", "fix", "helmgov/testdata/corpus2/observability/chart", "-f", "helmgov/testdata/corpus2/observability/user-values.yaml"}, exitFindings},
}

// TestREADMETour: the README shows the real output of helm check and helm
// fix; the golden files hold it, and the README's blocks must equal them.
// go test ./examples/tgmigrate -run TestREADMETour -update-tour rewrites both.
func TestREADMETour(t *testing.T) {
	goldenDir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join("..", ".."))
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tour {
		code, stdout, stderr := runCLI(t, tc.args...)
		if code != tc.wantCode {
			t.Errorf("%v: exit %d, want %d; stderr %q", tc.args, code, tc.wantCode, stderr)
		}
		got := "$ go run ./examples/tgmigrate " + strings.Join(tc.args, " ") + "\n" + stdout + stderr
		if code != exitOK {
			got += fmt.Sprintf("exit status %d\n", code)
		}
		golden := filepath.Join(goldenDir, tc.golden)
		if *updateTour {
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			readme = replaceBlock(t, readme, got)
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (go test -update-tour writes it)", err)
		}
		if diff := cmp.Diff(string(want), got); diff != "" {
			t.Errorf("%s differs (-want +got; go test -update-tour rewrites it and the README):\n%s", tc.golden, diff)
		}
		n := 0
		for _, b := range fencedBlocks(string(readme)) {
			if b == string(want) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("README.md has %d fenced blocks equal to testdata/%s, want 1 (go test -update-tour rewrites it)", n, tc.golden)
		}
	}
	if *updateTour {
		if err := os.WriteFile("README.md", readme, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fencedBlocks returns the contents of the README's ``` blocks, each line
// ending in a newline.
func fencedBlocks(md string) []string {
	var out []string
	var cur []string
	in := false
	for _, line := range strings.Split(md, "\n") {
		switch {
		case !in && strings.HasPrefix(line, "```"):
			in, cur = true, nil
		case in && line == "```":
			in = false
			out = append(out, strings.Join(cur, "\n")+"\n")
		case in:
			cur = append(cur, line)
		}
	}
	return out
}

// replaceBlock replaces the README's fenced block that starts with the
// transcript's command line.
func replaceBlock(t *testing.T, readme []byte, transcript string) []byte {
	t.Helper()
	cmdLine, _, _ := strings.Cut(transcript, "\n")
	re := regexp.MustCompile("(?ms)^```text\n" + regexp.QuoteMeta(cmdLine) + "\n.*?^```$")
	if len(re.FindAllIndex(readme, -1)) != 1 {
		t.Fatalf("README.md: want one ```text block starting with %q to rewrite", cmdLine)
	}
	return re.ReplaceAllLiteral(readme, []byte("```text\n"+transcript+"```"))
}

// TestREADMESimulateJSONKeys: the README names every key of simulate
// -format json, so that the keys beyond the shape are documented.
func TestREADMESimulateJSONKeys(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[simReport](), reflect.TypeFor[simOutcome]()} {
		for f := range typ.Fields() {
			key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !strings.Contains(string(readme), "`"+key+"`") {
				t.Errorf("README.md does not name the simulate JSON key %s (%s.%s) in backquotes", key, typ.Name(), f.Name)
			}
		}
	}
}

// simulateTourHead is the line the README's simulate tour block starts
// with: the block is an abridged transcript of `simulate` at its defaults.
const simulateTourHead = "== 1. The legacy target group under Karpenter churn"

// TestREADMESimulateTour: the README's simulate tour is what a fresh run
// of `simulate` prints (and its last line names --envelope, the hardest
// corner's timings and phased's figure there), abridged in two ways only, both explicit: a line
// "..." stands for lines left out, and " ... " inside a line for text left
// out of it (each part around it must appear in the output's line, in
// order). Every other line is the output's, verbatim and in order. The
// run is deterministic (a virtual clock), so nothing else is normalised.
func TestREADMESimulateTour(t *testing.T) {
	t.Parallel() // a simulate run of its own: the package's long tests share both cores
	tour := readmeBlock(t, simulateTourHead)
	code, stdout, _ := runCLI(t, "simulate")
	if code != exitOK {
		t.Fatalf("simulate exited %d", code)
	}
	if missing := abridgedOf(tour, strings.Split(stdout, "\n")); len(missing) > 0 {
		t.Errorf("README.md's simulate tour is not what simulate prints now; from this line on, nothing in the output matches in order:\n%s\n(run go run ./examples/tgmigrate simulate and copy the lines)", strings.Join(missing, "\n"))
	}
	// The plain run's last line names --envelope, the hardest corner's
	// timings and phased's figure there; the comparison names its timings.
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	last := lines[len(lines)-1]
	for _, want := range []string{"simulate --envelope", timing.Hardest().String(), "phased lost "} {
		if !strings.Contains(last, want) {
			t.Errorf("last line %q does not say %q", last, want)
		}
	}
	if !strings.Contains(stdout, "AWS timings: "+timing.Defaults().String()) {
		t.Errorf("the comparison does not name its timings:\n%s", stdout)
	}
}

// abridgedOf matches the lines of an abridged transcript against out in
// order and returns the transcript's lines from the first that matches
// nothing after the previous match; nil when every line matches.
func abridgedOf(abridged, out []string) []string {
	i := 0
	for k, line := range abridged {
		if strings.TrimSpace(line) == "..." {
			continue
		}
		for i < len(out) && !lineMatches(line, out[i]) {
			i++
		}
		if i == len(out) {
			return abridged[k:]
		}
		i++
	}
	return nil
}

// lineMatches says whether an abridged line stands for a line of the
// output: equal, or, with " ... " in it, each part found in order, the
// first at the start and the last at the end.
func lineMatches(abridged, line string) bool {
	parts := strings.Split(abridged, " ... ")
	if len(parts) == 1 {
		return abridged == line
	}
	if !strings.HasPrefix(line, parts[0]) {
		return false
	}
	rest := line[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		j := strings.Index(rest, p)
		if j < 0 {
			return false
		}
		rest = rest[j+len(p):]
	}
	return strings.HasSuffix(rest, parts[len(parts)-1])
}

// TestAbridgedOf: the matcher of an abridged transcript.
func TestAbridgedOf(t *testing.T) {
	out := []string{"a 1", "b 2 x 3", "c", "d 4"}
	tests := []struct {
		name     string
		abridged []string
		wantBad  string
	}{
		{"every line, in order", []string{"a 1", "b 2 x 3", "c", "d 4"}, ""},
		{"lines left out", []string{"a 1", "...", "d 4"}, ""},
		{"text left out of a line", []string{"b 2 ... 3", "d ... 4"}, ""},
		{"out of order", []string{"c", "a 1"}, "a 1"},
		{"a line the output lacks", []string{"a 1", "e"}, "e"},
		{"a changed figure", []string{"b 2 ... 4"}, "b 2 ... 4"},
		{"a prefix is not a line", []string{"a"}, "a"},
	}
	for _, tt := range tests {
		got := abridgedOf(tt.abridged, out)
		bad := ""
		if len(got) > 0 {
			bad = got[0]
		}
		if bad != tt.wantBad {
			t.Errorf("%s: first unmatched %q, want %q", tt.name, bad, tt.wantBad)
		}
	}
}

// campaignTourHead is the line the README's campaign block starts with:
// an abridged transcript of `simulate --scenario campaign --seed 3`, which
// TestSimulateCampaign runs, checks against the block, and asserts.
const campaignTourHead = "== Campaign: 2 accounts, 3 clusters, 12 target groups, seed 3"

// readmeBlock returns the lines of the README's fenced block that starts
// with head.
func readmeBlock(t *testing.T, head string) []string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range fencedBlocks(string(readme)) {
		if strings.HasPrefix(b, head) {
			return strings.Split(strings.TrimSuffix(b, "\n"), "\n")
		}
	}
	t.Fatalf("README.md has no fenced block starting with %q", head)
	return nil
}
