package main

// subnets_move.go: subnets execute and subnets rollback: their flags and
// the checks of them, the dry run (the library's WithDryRun: every object
// checked, the writes listed, nothing written), the confirmation, the
// progress on stderr, the result, the journal (the library's ConfigMap)
// and the command lines that resume or roll back an interrupted run.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/textcell"
	"github.com/qstools/tgmigrate/subnets"
)

// subnetsRunFlags are the flags of subnets execute and rollback.
type subnetsRunFlags struct {
	plan      string
	yes       bool
	namespace string
	poll      time.Duration
	timeout   time.Duration
	// clusterName: rollback from the journal alone.
	clusterName string
}

// defaultMoveNamespace holds the move's journal and Lease unless
// --namespace says otherwise: a namespace every cluster has.
const defaultMoveNamespace = "default"

func (f *subnetsRunFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.plan, "plan", "", `the plan file written by "tgmigrate subnets plan --out"`)
	fl.BoolVar(&f.yes, "yes", false, "really do it (default: check every object and list the writes, changing nothing; on a terminal, ask)")
	fl.StringVarP(&f.namespace, "namespace", "n", defaultMoveNamespace, "the namespace of the move's journal ConfigMap and lock Lease")
	fl.DurationVar(&f.poll, "poll-interval", subnets.DefaultPollInterval, "how often the watch observes the nodes and the target groups' health")
	fl.DurationVar(&f.timeout, "timeout", 0, "bound each watch of the replacement (default: twice the plan's estimate, at least 1h)")
}

// check checks the flags before anything is read.
func (f *subnetsRunFlags) check() error {
	if errs := validation.IsDNS1123Label(f.namespace); len(errs) > 0 {
		return usagef("--namespace %q: want a namespace's name (a DNS-1123 label)", f.namespace)
	}
	if f.poll <= 0 {
		return usagef("--poll-interval %v: want a duration above 0, such as 10s", f.poll)
	}
	if f.timeout < 0 {
		return usagef("--timeout %v: want a duration of 0 or more (0: twice the plan's estimate, at least 1h)", f.timeout)
	}
	return nil
}

// readMovePlan reads and checks a plan file: its digest must match.
func readMovePlan(path string) (*subnets.Plan, error) {
	if path == "" {
		return nil, usagef(`--plan is required: the file of "tgmigrate subnets plan --out"`)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usagef("--plan: %v", err)
	}
	plan, err := subnets.DecodePlan(data)
	if err != nil {
		return nil, usagef("--plan %s: not a subnets plan: %v", path, err)
	}
	return plan, nil
}

func (a *app) subnetsExecuteCommand() *cobra.Command {
	f := &subnetsRunFlags{}
	cmd := &cobra.Command{
		Use:   "execute",
		Short: "Carry out a saved move plan (a dry run unless --yes or confirmed); resumes from its journal",
		Long: `execute carries out a plan saved by "tgmigrate subnets plan --out": it checks that
every EC2NodeClass and NodePool is as planned, holds a Lease, then writes them
one step at a time and watches the drift-driven replacement, wave by wave, with
each target group at or above its floor and in its load balancers' zones; it
ends by verifying that no node is public. Each step is journaled in a ConfigMap
(--namespace): run execute again after an interruption to resume, or when the
watch held on an invariant, once it is fixed. Without --yes it checks every
object and lists the writes it would make, changing nothing (on a terminal it
asks first).`,
		Example: `  tgmigrate subnets execute --plan move.json          # dry run
  tgmigrate subnets execute --plan move.json --yes`,
		Args: cobra.NoArgs,
		RunE: wrapRun(func(cmd *cobra.Command, _ []string) error { return a.runSubnetsExecute(cmd, f) }),
	}
	f.register(cmd)
	a.addSubnetsFlags(cmd, "text", "json")
	return cmd
}

func (a *app) subnetsRollbackCommand() *cobra.Command {
	f := &subnetsRunFlags{}
	cmd := &cobra.Command{
		Use:   "rollback",
		Short: "Undo a move: the node classes and budgets back as read, from any point (a dry run unless --yes)",
		Long: `rollback writes each EC2NodeClass's subnet selection and public addresses back as
the plan read them, watches the replacement back with the move's invariants,
then writes each NodePool's budgets back. It is journaled beside the move and
resumable; after it, execute refuses the plan. It starts from the plan file, or,
when the plan is gone, from the journal alone (--cluster-name). Without --yes it
checks every object and lists the writes it would make, changing nothing.`,
		Example: `  tgmigrate subnets rollback --plan move.json --yes
  tgmigrate subnets rollback --cluster-name prod --yes      # the plan from the journal`,
		Args: cobra.NoArgs,
		RunE: wrapRun(func(cmd *cobra.Command, _ []string) error { return a.runSubnetsRollback(cmd, f) }),
	}
	f.register(cmd)
	a.addSubnetsFlags(cmd, "text", "json")
	cmd.Flags().StringVar(&f.clusterName, "cluster-name", "", "without --plan: the cluster whose journal to roll back (its plan is read from it)")
	return cmd
}

// moveEnv is the library's environment of Execute and Rollback.
func (a *app) moveEnv(env *subnetsEnv, f *subnetsRunFlags) subnets.Env {
	return subnets.Env{Client: env.Client, ELBv2: env.ELBv2, Namespace: f.namespace, Holder: env.Holder, Clock: env.clk(), Logger: a.log}
}

func (a *app) runSubnetsExecute(cmd *cobra.Command, f *subnetsRunFlags) error {
	ctx := cmd.Context()
	if err := f.check(); err != nil {
		return err
	}
	plan, err := readMovePlan(f.plan)
	if err != nil {
		return err
	}
	if !f.yes && a.format == "text" {
		fmt.Fprint(a.stdout, plan.Text())
	}
	yes, err := a.confirmRun(f.yes, plan.Cluster)
	if err != nil {
		return err
	}
	env, err := a.subnetsEnv(ctx)
	if err != nil {
		return err
	}
	opts := []subnets.MoveOption{subnets.WithPollInterval(f.poll), subnets.WithTimeout(f.timeout)}
	if !yes {
		res, err := subnets.Execute(ctx, plan, a.moveEnv(env, f), append(opts, subnets.WithDryRun())...)
		if err != nil {
			return moveError(err)
		}
		a.printMoveResult("move", res, res.Resumed)
		fmt.Fprintln(a.stderr, "dry run: nothing was changed; pass --yes to execute")
		return nil
	}
	opts = append(opts, subnets.WithObserver(a.moveProgress(plan)))
	res, err := subnets.Execute(ctx, plan, a.moveEnv(env, f), opts...)
	if err != nil {
		rollback := rerunCommand(cmd, "subnets rollback", "namespace", "poll-interval", "timeout")
		switch {
		case ctx.Err() != nil:
			fmt.Fprintf(a.stderr, "\ninterrupted; the journal holds the progress.\n  resume:    %s\n  roll back: %s\n",
				rerunCommand(cmd, "subnets execute", "namespace", "poll-interval", "timeout"), rollback)
		case errors.Is(err, subnets.ErrInvariant):
			fmt.Fprintf(a.stderr, "\nthe move holds: the journal records the violations. Fix them and run execute again to continue, or roll back:\n  roll back: %s\n", rollback)
		}
	}
	if res != nil {
		a.printMoveResult("move", res, res.Resumed)
	}
	return moveError(err)
}

func (a *app) runSubnetsRollback(cmd *cobra.Command, f *subnetsRunFlags) error {
	ctx := cmd.Context()
	if err := f.check(); err != nil {
		return err
	}
	var plan *subnets.Plan
	cluster := f.clusterName
	switch {
	case f.plan != "" && f.clusterName != "":
		return usagef("--plan and --cluster-name: give one (--cluster-name rolls back from the journal alone)")
	case f.plan != "":
		p, err := readMovePlan(f.plan)
		if err != nil {
			return err
		}
		plan, cluster = p, p.Cluster
	case f.clusterName == "":
		return usagef("give --plan FILE, or --cluster-name NAME to roll back from the journal alone")
	}
	yes, err := a.confirmRun(f.yes, cluster)
	if err != nil {
		return err
	}
	env, err := a.subnetsEnv(ctx)
	if err != nil {
		return err
	}
	menv := a.moveEnv(env, f)
	j, err := subnets.NewConfigMapJournal(env.Client, f.namespace, cluster, menv.Clock)
	if err != nil {
		return asUsage(err)
	}
	opts := []subnets.MoveOption{subnets.WithJournal(j), subnets.WithPollInterval(f.poll), subnets.WithTimeout(f.timeout)}
	if !yes {
		res, err := subnets.Rollback(ctx, plan, menv, append(opts, subnets.WithDryRun())...)
		if err != nil {
			return moveError(err)
		}
		a.printMoveResult("rollback", res, false)
		fmt.Fprintln(a.stderr, "dry run: nothing was changed; pass --yes to roll back")
		return nil
	}
	// Rollback's Result.Resumed says a journal was found, which every
	// executed plan has: the text says resumed only when the journal
	// already holds one of the rollback's actions.
	prior, err := j.Inspect(ctx)
	if err != nil {
		return moveError(err)
	}
	resumed := prior != nil && prior.Rollback != nil
	fmt.Fprintln(a.stderr, "rollback: an interrupt (Ctrl-C) is safe: each action is journaled as it ends, and running rollback again resumes from the journal")
	res, err := subnets.Rollback(ctx, plan, menv, append(opts, subnets.WithObserver(a.moveProgress(plan)))...)
	if err != nil && ctx.Err() != nil {
		fmt.Fprintf(a.stderr, "\ninterrupted; the journal holds the rollback's progress.\n  resume: %s\n",
			rerunCommand(cmd, "subnets rollback", "namespace", "poll-interval", "timeout"))
	}
	if res != nil {
		a.printMoveResult("rollback", res, resumed)
	}
	return moveError(err)
}

// moveError marks what Execute and Rollback refuse before any write (a
// malformed input, another plan's journal, a rolled-back plan, an object
// that changed since the plan, a journal tgmigrate does not manage, a
// lock another operator holds) as a usage error; the rest fail (exit 3).
func moveError(err error) error {
	for _, target := range []error{subnets.ErrMoveInput, subnets.ErrPlanMismatch, subnets.ErrRolledBack, subnets.ErrDrifted,
		subnets.ErrNotManaged, subnets.ErrCorruptJournal, cutover.ErrLocked} {
		if errors.Is(err, target) {
			return asUsage(err)
		}
	}
	return err
}

// printMoveResult prints what Execute or Rollback did (or, in a dry run,
// would write); the text says resumed when it did.
func (a *app) printMoveResult(what string, res *subnets.Result, resumed bool) {
	if a.format == "json" {
		_ = printJSON(a.stdout, res)
		return
	}
	state := "not completed"
	switch {
	case res.DryRun:
		state = "dry run"
	case res.Completed:
		state = "completed"
	}
	if resumed {
		state += " (resumed from the journal)"
	}
	fmt.Fprintf(a.stdout, "%s %s: %s; %s\n", what, res.PlanID, state, textcell.Plural(len(res.Writes), "write", "writes"))
	verb := "wrote"
	if res.DryRun {
		verb = "would write"
	}
	for _, w := range res.Writes {
		fmt.Fprintf(a.stdout, "  %s %s\n", verb, w)
	}
	for _, s := range res.Steps {
		line := fmt.Sprintf("  %s: %s", s.ID, s.Status)
		if s.Waves > 0 {
			line += fmt.Sprintf(" (%s, %d of %d departing nodes left)", textcell.Plural(s.Waves, "wave", "waves"), len(s.Remaining), len(s.Departing))
		}
		if s.Error != "" {
			line += ": " + oneLine(s.Error)
		}
		fmt.Fprintln(a.stdout, line)
	}
}

// actionTitles say what each rollback action does.
var actionTitles = map[string]string{
	subnets.ActionRestoreNodeClasses: "write each EC2NodeClass back as read",
	subnets.ActionWatchBack:          "watch the replacement back, with the move's invariants",
	subnets.ActionRestoreBudgets:     "write each NodePool's budgets back as read",
}

// moveProgress reports a move or a rollback on stderr: a line per step as
// it starts and ends, and a line per observation of a watch that saw nodes
// leave or an invariant fail (on a terminal, a live line in between).
func (a *app) moveProgress(plan *subnets.Plan) subnets.Observer {
	tty := isTTY(a.stderr)
	live := func(format string, args ...any) {
		if tty {
			fmt.Fprintf(a.stderr, "\r\033[K"+format, args...)
		}
	}
	title := func(id string) string {
		if plan != nil {
			if s, ok := plan.Step(id); ok {
				return s.Title
			}
		}
		return actionTitles[id]
	}
	return subnets.ObserverFuncs{
		OnStepStarted: func(e subnets.StepEvent) {
			live("")
			fmt.Fprintf(a.stderr, "%s  %s: %s\n", e.At.Format(time.TimeOnly), e.Step, title(e.Step))
		},
		OnStepFinished: func(e subnets.StepEvent) {
			live("")
			status := "done"
			switch {
			case errors.Is(e.Err, context.Canceled) || errors.Is(e.Err, context.DeadlineExceeded):
				status = "interrupted (the journal keeps the step running: run again to resume)"
			case errors.Is(e.Err, subnets.ErrInvariant):
				status = "held: " + oneLine(e.Err.Error())
			case e.Err != nil:
				status = "failed: " + oneLine(e.Err.Error())
			case e.Skipped:
				status = "already done"
			}
			fmt.Fprintf(a.stderr, "%s  %s: %s\n", e.At.Format(time.TimeOnly), e.Step, status)
		},
		OnObserved: func(p subnets.WatchProgress) {
			var tgs []string
			for _, tg := range p.TargetGroups {
				tgs = append(tgs, fmt.Sprintf("%s %d healthy (floor %d)", targetGroupName(tg.ARN), tg.Healthy, tg.Floor))
			}
			line := fmt.Sprintf("  %s: wave %d, %d of %d nodes left", p.Step, p.Wave, p.Remaining, p.Departing)
			if len(tgs) > 0 {
				line += "; " + strings.Join(tgs, ", ")
			}
			if len(p.Left) == 0 && len(p.Violations) == 0 {
				live("%s", line)
				return
			}
			live("")
			if len(p.Left) > 0 {
				line += "; left: " + strings.Join(p.Left, ", ")
			}
			for _, v := range p.Violations {
				line += "; " + v.String()
			}
			fmt.Fprintf(a.stderr, "%s  %s\n", p.At.Format(time.TimeOnly), strings.TrimSpace(line))
		},
	}
}

// targetGroupName is the name in a target group's ARN, or the ARN.
func targetGroupName(arn string) string {
	if tg, err := parseTargetGroup(arn); err == nil {
		return tg.Name
	}
	return arn
}

// confirmRun answers whether to really run: yes with --yes; else, on a
// terminal, when the operator types the cluster's name; else no (a dry
// run), so that a script never writes without --yes.
func (a *app) confirmRun(yes bool, cluster string) (bool, error) {
	if yes {
		return true, nil
	}
	in, ok := a.stdin.(*os.File)
	if !ok || !isTTY(a.stderr) || !isTTYFile(in) {
		return false, nil
	}
	fmt.Fprintf(a.stderr, "Type the cluster's name (%s) to go ahead, anything else for a dry run: ", cluster)
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	return strings.TrimSpace(line) == cluster, nil
}
