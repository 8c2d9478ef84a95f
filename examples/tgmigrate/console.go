package main

// console.go: what plan, execute, rollback, the subnets commands and
// campaign run say to the operator: a cutover's result, its progress on
// stderr, the confirmation prompt (ask), and the command line that
// resumes or rolls back an interrupted run.

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/textcell"
)

func (a *app) printResult(res *cutover.Result) error {
	if a.format == "json" {
		return printJSON(a.stdout, res)
	}
	state := "completed"
	switch {
	case res.Stopped:
		state = "paused after " + res.StoppedAfter
	case res.RolledBack:
		state = "rolled back"
	case !res.Completed:
		state = "not completed"
	}
	fmt.Fprintf(a.stdout, "plan %s (%s): %s in %.0fs (floor %.0fs); %s deregistered in %s; %s\n",
		res.PlanID, res.Strategy, state, res.CutoverSeconds, res.FloorSeconds, textcell.Plural(res.Deregistered, "target", "targets"),
		textcell.Plural(res.Batches, "batch", "batches"), textcell.Plural(res.MutatingCalls, "mutating call", "mutating calls"))
	for _, w := range res.Warnings {
		fmt.Fprintln(a.stdout, "  warning: "+w)
	}
	return nil
}

// progress reports a cutover on stderr: one line per step, and on a
// terminal a live line of healthy/total and draining targets, with a
// countdown to the end of the current wait (the drain's deregistration
// delay, the health checks).
func (a *app) progress() cutover.Observer {
	tty := isTTY(a.stderr)
	// The current wait, for the countdown on the live line.
	var waitStep, waitWhat string
	var until time.Time
	live := func(format string, args ...any) {
		if tty {
			fmt.Fprintf(a.stderr, "\r\033[K"+format, args...)
		}
	}
	return cutover.ObserverFuncs{
		OnStepStarted: func(e cutover.StepEvent) {
			live("")
			fmt.Fprintf(a.stderr, "%s  %s: %s\n", e.At.Format(time.TimeOnly), e.Step.ID, e.Step.Title)
		},
		OnStepFinished: func(e cutover.StepEvent) {
			live("")
			status := "done"
			switch {
			case e.Err != nil:
				status = "failed: " + oneLine(e.Err.Error())
			case e.Skipped:
				status = "already done"
			}
			fmt.Fprintf(a.stderr, "%s  %s: %s\n", e.At.Format(time.TimeOnly), e.Step.ID, status)
		},
		OnTargets: func(p cutover.Progress) {
			left := ""
			if waitStep == p.Step && !until.IsZero() {
				left = fmt.Sprintf(", %s about %v left", waitWhat, max(until.Sub(p.At), 0).Round(time.Second))
			}
			live("  %s: %d/%d healthy, %d draining%s", p.Step, p.Healthy, p.Total, p.Draining, left)
		},
		OnWaiting: func(w cutover.Wait) {
			waitStep, waitWhat, until = w.Step, w.What, w.Until
		},
	}
}

// confirm asks on a terminal for the target group's name; elsewhere it
// answers no, so that a script never mutates without --yes.
func (a *app) confirm(name string) (bool, error) {
	return a.ask(fmt.Sprintf("Type the target group's name (%s) to go ahead: ", name), name), nil
}

// ask prints prompt on a terminal and reports whether the answer is want;
// elsewhere (stdin or stderr not a terminal) it answers no.
func (a *app) ask(prompt, want string) bool {
	in, ok := a.stdin.(*os.File)
	if !ok || !isTTY(a.stderr) || !isTTYFile(in) {
		return false
	}
	fmt.Fprint(a.stderr, prompt)
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && !errors.Is(err, os.ErrClosed) && line == "" {
		return false
	}
	return strings.TrimSpace(line) == want
}

// rerunFlags are the flags an execute passes on to the execute that resumes
// it and to the rollback, in the order the hint prints them: where the plan
// and the journal are, which cluster and which AWS account. None of them
// holds a credential (--profile and --assume-role name where credentials
// come from), so the hint can be printed as it is.
var rerunFlags = []string{"plan", "journal-file", "cluster-name", "cluster-vpc",
	"kubeconfig", "context", "profile", "region", "assume-role"}

// rerunCommand is the command line that resumes (verb execute) or rolls
// back (verb rollback) the run of cmd: the flags of rerunFlags the run was
// given, then those of extra (a resumed execute keeps --stop-after, a
// resumed rollback its --target-group and --namespace), quoted for a
// POSIX shell, then --yes.
func rerunCommand(cmd *cobra.Command, verb string, extra ...string) string {
	names := append(rerunFlags[:len(rerunFlags):len(rerunFlags)], extra...)
	words := []string{cmd.Root().Name(), verb}
	for _, name := range names {
		fl := cmd.Flags().Lookup(name)
		if fl == nil || !fl.Changed {
			continue
		}
		if fl.Value.Type() == "bool" {
			if fl.Value.String() == "true" {
				words = append(words, "--"+name)
			}
			continue
		}
		values := []string{fl.Value.String()}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			values = sv.GetSlice()
		}
		for _, v := range values {
			words = append(words, "--"+name, shellQuote(v))
		}
	}
	return strings.Join(append(words, "--yes"), " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
