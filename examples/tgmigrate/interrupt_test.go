package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/textcell"
)

// cancelOn passes writes on to w and cancels when the output so far
// contains marker: it stands in for the operator's Ctrl-C at a given point
// of the progress lines.
type cancelOn struct {
	mu     sync.Mutex
	w      bytes.Buffer
	marker string
	cancel context.CancelFunc
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, err := c.w.Write(p)
	if c.cancel != nil && strings.Contains(c.w.String(), c.marker) {
		c.cancel()
		c.cancel = nil
	}
	return n, err
}

func (c *cancelOn) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.w.String()
}

// envFlags is what an execute's flags gave the cutover environment.
type envFlags struct {
	Kubeconfig, Context, Profile, Region string
	AssumeRoles                          []string
	ClusterName, ClusterVPC              string
}

// TestInterruptPrintsResumeHint: Ctrl-C during the drain leaves the journal
// and prints how to resume and how to roll back with every flag the run was
// given; running the printed resume command finishes the cutover with no
// failed request.
func TestInterruptPrintsResumeHint(t *testing.T) {
	isolate(t)
	w := testWorld(t, simFlags{seed: 3, nodes: 8, pods: 24, rps: 20, churnInterval: time.Minute, churn: "steady"}, strategyPhased)
	plan := testPlan(t, w)
	dir := filepath.Join(t.TempDir(), "ops dir")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	planFile, journalFile := filepath.Join(dir, "plan.json"), filepath.Join(dir, "journal.json")
	data, err := plan.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(planFile, data, 0o600); err != nil {
		t.Fatal(err)
	}

	// app runs the CLI in-process on the simulator, and records what the
	// flags gave the environment.
	var seen []envFlags
	app := func(stdout, stderr interface{ Write([]byte) (int, error) }) *app {
		a := &app{stdin: strings.NewReader(""), stdout: stdout, stderr: stderr}
		a.newCutoverEnv = func(_ context.Context, clusterName, clusterVPC string) (cutover.Env, error) {
			seen = append(seen, envFlags{a.kubeconfig, a.kubecontext, a.cloud.profile, a.cloud.region,
				a.cloud.assumeRoles, clusterName, clusterVPC})
			env := newEnv(w)
			env.ClusterName, env.ClusterVPCID = clusterName, clusterVPC
			return env, nil
		}
		return a
	}
	kubeconfig := filepath.Join(dir, "kube config")
	const role = "arn:aws:iam::123456789012:role/tgmigrate-ops"
	args := []string{"execute", "--plan", planFile, "--yes", "--journal-file", journalFile,
		"--kubeconfig", kubeconfig, "--context", "prod-eu", "--profile", "ops", "--region", "us-east-1", "--assume-role", role,
		"--cluster-name", sim.ClusterName, "--cluster-vpc", w.Legacy().VPCID}

	failedBefore := w.Traffic().Failed
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var stdout bytes.Buffer
	stderr := &cancelOn{marker: "  " + cutover.StepDrain + ": ", cancel: cancel}
	code := app(&stdout, stderr).run(ctx, args)
	if code == exitOK || !strings.Contains(stderr.String(), "interrupted; the journal holds the progress.") {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	q := "'" + dir + "/"
	flags := "--plan " + q + "plan.json' --journal-file " + q + "journal.json' --cluster-name " + sim.ClusterName +
		" --cluster-vpc " + w.Legacy().VPCID + " --kubeconfig " + q + "kube config' --context prod-eu --profile ops --region us-east-1 --assume-role " + role + " --yes"
	var resume, rollback string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if r, ok := strings.CutPrefix(line, "  resume:    "); ok {
			resume = r
		}
		if r, ok := strings.CutPrefix(line, "  roll back: "); ok {
			rollback = r
		}
	}
	if want := "tgmigrate execute " + flags; resume != want {
		t.Errorf("resume hint:\n got %s\nwant %s", resume, want)
	}
	if want := "tgmigrate rollback " + flags; rollback != want {
		t.Errorf("rollback hint:\n got %s\nwant %s", rollback, want)
	}
	if _, err := os.Stat(journalFile); err != nil {
		t.Fatalf("no journal after the interruption: %v", err)
	}

	// The operator comes back a little later and runs the hint.
	w.Run(10 * time.Second)
	words := shellWords(t, resume)
	if words[0] != "tgmigrate" {
		t.Fatalf("hint %q does not start with tgmigrate", resume)
	}
	stdout.Reset()
	var stderr2 bytes.Buffer
	if code := app(&stdout, &stderr2).run(t.Context(), words[1:]); code != exitOK {
		t.Fatalf("the resume hint exits %d; stderr:\n%s", code, stderr2.String())
	}
	if !strings.Contains(stdout.String(), "(in-place): completed") {
		t.Errorf("resumed execute: %s", stdout.String())
	}
	if !strings.Contains(stderr2.String(), cutover.StepBind+": already done") {
		t.Errorf("the resumed execute did not pick the journal up (bind not already done):\n%s", stderr2.String())
	}
	if failed := w.Traffic().Failed - failedBefore; failed != 0 {
		t.Errorf("%d requests failed across the interruption and the resume", failed)
	}
	t.Logf("interrupted:\n%s\nresumed:\n%s%s", stderr, stderr2.String(), stdout.String())
	if len(seen) != 2 {
		t.Fatalf("%d environments built, want 2", len(seen))
	}
	if diff := cmp.Diff(seen[0], seen[1]); diff != "" {
		t.Errorf("the resumed execute saw other flags (-first +resumed):\n%s", diff)
	}
	if strings.Contains(stderr.String()+stderr2.String()+stdout.String(), "t0ps3cret") {
		t.Error("output leaks a credential")
	}
}

// shellWords splits a command line the way a POSIX shell does for the
// quoting rerunCommand writes: words separated by spaces, single-quoted
// strings, and a backslash before a character outside quotes.
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord, quoted, escaped := false, false, false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case quoted && r == '\'':
			quoted = false
		case quoted:
			cur.WriteRune(r)
		case r == '\'':
			quoted, inWord = true, true
		case r == '\\':
			escaped, inWord = true, true
		case r == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quoted || escaped {
		t.Fatalf("unterminated quote in %q", s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

func TestShellQuote(t *testing.T) {
	for _, s := range []string{"plain/path.json", "with space", "it's", "", "a'b'c d", "$HOME;rm -rf"} {
		if got := shellWords(t, "x "+shellQuote(s)); len(got) != 2 || got[1] != s {
			t.Errorf("shellQuote(%q) = %s, splits back to %q", s, shellQuote(s), got)
		}
	}
}

// TestRollbackAnnouncesAndResumes: rollback says, as it starts, how many
// actions it runs, how long it expects to take (its floor) and the
// assumption that rests on (the plan's cutover.EstimateRollback), and that
// an interrupt is safe; Ctrl-C while it waits for the node targets leaves
// the journal mid-rollback and prints the command that resumes it; that
// command completes the rollback from the journal, announcing only what is
// left.
func TestRollbackAnnouncesAndResumes(t *testing.T) {
	isolate(t)
	w := testWorld(t, simFlags{seed: 3, nodes: 4, pods: 8, rps: 20, churn: "steady"}, strategyPhased)
	plan := testPlan(t, w)
	est, err := cutover.EstimateRollback(plan)
	if err != nil || est.Seconds == 0 {
		t.Fatalf("EstimateRollback: %+v, %v", est, err)
	}
	dir := t.TempDir()
	planFile, journalFile := filepath.Join(dir, "plan.json"), filepath.Join(dir, "journal.json")
	data, err := plan.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(planFile, data, 0o600); err != nil {
		t.Fatal(err)
	}
	app := func(stdout, stderr interface{ Write([]byte) (int, error) }) *app {
		a := &app{stdin: strings.NewReader(""), stdout: stdout, stderr: stderr}
		a.newCutoverEnv = func(context.Context, string, string) (cutover.Env, error) { return newEnv(w), nil }
		return a
	}
	var stdout, stderr bytes.Buffer
	args := []string{"rollback", "--plan", planFile, "--yes", "--journal-file", journalFile}
	// Before the plan ran: no journal, nothing to do (said so), and no
	// estimate.
	if code := app(&stdout, &stderr).run(t.Context(), args); code != exitOK ||
		stdout.String() != "rollback "+plan.ID+": nothing to roll back: the plan never ran (no journal); nothing was changed\n" ||
		strings.Contains(stderr.String(), "expected to take") {
		t.Fatalf("rollback before execute: exit %d\nstdout %s\nstderr %s", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := app(&stdout, &stderr).run(t.Context(), []string{"execute", "--plan", planFile, "--yes", "--journal-file", journalFile,
		"--stop-after", cutover.StepDrain}); code != exitOK {
		t.Fatalf("execute: exit %d\n%s", code, stderr.String())
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stdout.Reset()
	interrupted := &cancelOn{marker: "  " + cutover.RollbackWaitNodes + ": ", cancel: cancel}
	code := app(&stdout, interrupted).run(ctx, args)
	out := interrupted.String()
	announce := fmt.Sprintf("rollback: %s, expected to take %s\n", textcell.Plural(len(est.Actions), "action", "actions"), est)
	safe := "rollback: an interrupt (Ctrl-C) is safe: each action is journaled as it ends, and running rollback again resumes from the journal\n"
	if code == exitOK || !strings.Contains(out, announce+safe) || !strings.Contains(out, "interrupted; the journal holds the rollback's progress.") {
		t.Fatalf("interrupted rollback: exit %d; want the lines\n%s%s\nstderr:\n%s", code, announce, safe, out)
	}
	if !strings.Contains(out, "about ") || !strings.Contains(out, "(assumed)") {
		t.Errorf("the estimate names no floor or no assumption:\n%s", out)
	}
	j, err := cutover.NewFileJournal(journalFile, cutover.FileJournalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := j.Inspect(t.Context())
	if err != nil || st.Rollback == nil || st.RolledBack() || !slices.Contains(st.Rollback.Done, cutover.RollbackRegisterNodes) {
		t.Fatalf("journal after the interrupt: %+v, %v; want a rollback under way, register-nodes done", st.Rollback, err)
	}
	left, err := cutover.EstimateRollback(st)
	if err != nil {
		t.Fatal(err)
	}
	var resume string
	for _, line := range strings.Split(out, "\n") {
		if r, ok := strings.CutPrefix(line, "  resume: "); ok {
			resume = r
		}
	}
	if want := "tgmigrate rollback --plan " + planFile + " --journal-file " + journalFile + " --yes"; resume != want {
		t.Fatalf("resume hint:\n got %s\nwant %s", resume, want)
	}

	stdout.Reset()
	var stderr2 bytes.Buffer
	if code := app(&stdout, &stderr2).run(t.Context(), shellWords(t, resume)[1:]); code != exitOK || !strings.Contains(stdout.String(), "completed true") {
		t.Fatalf("the resume hint: exit %d\nstdout %s\nstderr %s", code, stdout.String(), stderr2.String())
	}
	if want := fmt.Sprintf("rollback: %s, expected to take %s\n", textcell.Plural(len(left.Actions), "action", "actions"), left); !strings.Contains(stderr2.String(), want) ||
		len(left.Actions) >= len(est.Actions) || !strings.Contains(stderr2.String(), cutover.RollbackRegisterNodes+": already done") {
		t.Errorf("resumed rollback: want %q and register-nodes already done:\n%s", want, stderr2.String())
	}
	if st, err := j.Inspect(t.Context()); err != nil || !st.RolledBack() {
		t.Errorf("journal after the resumed rollback: rolled back %t, %v", err == nil && st.RolledBack(), err)
	}
	if f := w.Traffic().Failed; f != 0 {
		t.Errorf("%d requests failed", f)
	}
	t.Logf("interrupted:\n%s\nresumed:\n%s%s", out, stderr2.String(), stdout.String())
}

// TestRollbackNeverRan: rollback of a plan that never ran says so, in
// text and in JSON, exits 0, and changes nothing.
func TestRollbackNeverRan(t *testing.T) {
	isolate(t)
	w := testWorld(t, simFlags{seed: 3, nodes: 4, pods: 8, rps: 20, churn: "steady"}, strategyPhased)
	plan := testPlan(t, w)
	planFile := filepath.Join(t.TempDir(), "plan.json")
	data, err := plan.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(planFile, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "json"} {
		var stdout, stderr bytes.Buffer
		a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}
		a.newCutoverEnv = func(context.Context, string, string) (cutover.Env, error) { return newEnv(w), nil }
		code := a.run(t.Context(), []string{"rollback", "--plan", planFile, "--yes", "--format", format})
		if code != exitOK {
			t.Fatalf("%s: exit %d\nstdout %s\nstderr %s", format, code, stdout.String(), stderr.String())
		}
		switch format {
		case "text":
			if want := "rollback " + plan.ID + ": nothing to roll back: the plan never ran (no journal); nothing was changed\n"; stdout.String() != want {
				t.Errorf("text: %q, want %q", stdout.String(), want)
			}
		case "json":
			var rb cutover.RollbackResult
			if err := json.Unmarshal(stdout.Bytes(), &rb); err != nil || rb.PlanID != plan.ID || !rb.NothingToDo || rb.Completed ||
				!strings.Contains(rb.Reason, "never ran") {
				t.Errorf("json: %+v, %v\n%s", rb, err, stdout.String())
			}
		}
	}
	if n := w.ELBv2().Counts()["RegisterTargets"] + w.ELBv2().Counts()["DeregisterTargets"] + w.ELBv2().Counts()["ModifyTargetGroup"]; n != 0 {
		t.Errorf("%d target group writes", n)
	}
}
