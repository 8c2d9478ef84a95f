package main

// root.go: app (the I/O, flag values and logger every subcommand shares),
// run, the root command (its one global flag, --verbose, and the checks
// before any command's body), wrapRun's exit-code marking, and the helpers:
// logger, TTY test, JSON printing. The flag groups are flags.go's.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// app holds what every subcommand shares: I/O, the values of the flag
// groups (flags.go) and of --verbose, the logger.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	kubeconfig, kubecontext string
	cloud                   cloudFlags
	format                  string
	// noServiceQuotas: ELBv2's target quotas are AWS's defaults, not read
	// through Service Quotas.
	noServiceQuotas bool
	verbose         int

	log logr.Logger

	// load reads the AWS configuration and the kubeconfig (cloud.go).
	load loaders

	// newCutoverEnv builds the environment of plan, execute and rollback.
	// Nil means cutoverEnv (the kubeconfig and AWS); tests set the
	// simulator's.
	newCutoverEnv func(ctx context.Context, clusterName, clusterVPC string) (cutover.Env, error)
	// newSubnetsEnv builds the environment of the subnets commands. Nil
	// means subnetsEnvOf (the kubeconfig and AWS); tests set the simulator's.
	newSubnetsEnv func(ctx context.Context) (*subnetsEnv, error)
	// newCampaignClients builds the clients of the campaign commands. Nil
	// means campaignClientsOf (the kubeconfig's contexts and AWS); tests
	// set a simulated fleet's.
	newCampaignClients func(ctx context.Context, need campaignNeed) (*campaignClients, error)

	// onWorld, when set, is shown every world simulate builds as soon as it
	// is built: the story's (name "story") and each strategy's (named by
	// the strategy). Tests read the worlds' counts through it.
	onWorld func(name string, w *sim.World)
	// onCampaign, when set, is shown the fleet of simulate --scenario
	// campaign and its report once the run has measured them.
	onCampaign func(f *tgmigratetest.Fleet, r *campaignReport)
}

// version is the tool's version, as SARIF output reports it.
const version = "0.1.0"

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return (&app{stdin: stdin, stdout: stdout, stderr: stderr}).run(ctx, args)
}

// run runs the command line args on a's I/O and returns the exit code.
func (a *app) run(ctx context.Context, args []string) int {
	return a.execute(ctx, a.rootCommand(), args)
}

// execute runs args on root, a's command tree, and returns the exit code.
func (a *app) execute(ctx context.Context, root *cobra.Command, args []string) int {
	root.SetArgs(normalizeArgs(root, args))
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	return exitCode(root.ExecuteContext(ctx), a.stderr)
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "tgmigrate",
		Short: "Move hand-made ALB target groups from static node IPs to LBC-managed pod targets, with zero downtime",
		Long: `tgmigrate diagnoses ghost targets left by Karpenter node churn, binds existing
target groups to the AWS Load Balancer Controller with a TargetGroupBinding,
cuts over from node targets to pod targets with zero downtime, and keeps Helm
charts from regressing.

Anything that mutates is a dry run unless you pass --yes (or confirm at the prompt).
"tgmigrate simulate" runs the whole story on the embedded simulator: no AWS
account and no cluster needed.

Flags are written --name (-x for the few short ones). Exit codes, the same
for every command: 0 success, 1 findings at or above --fail-on, 2 a usage,
configuration or input error, 3 an operation that started and failed.`,
		SilenceUsage:      true,
		SilenceErrors:     true,
		DisableAutoGenTag: true,
		// Before any command's body, so before any kubeconfig, credential
		// or network call.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFlags(cmd); err != nil {
				return err
			}
			if err := a.cloud.validate(); err != nil {
				return err
			}
			a.log = newLogger(a.stderr, a.verbose)
			return nil
		},
	}
	root.SetFlagErrorFunc(flagError)
	// The only global flag: --format, the AWS flags and the cluster flags
	// are each command's own (flags.go), where they apply.
	root.PersistentFlags().CountVarP(&a.verbose, "verbose", "v", "log more (repeat for more detail)")
	root.AddCommand(a.diagnoseCommand(), a.planCommand(), a.executeCommand(), a.rollbackCommand(),
		a.bindCommand(), a.helmCommand(), a.simulateCommand())
	root.AddCommand(a.subnetsCommand(), a.campaignCommand())
	root.Version = version
	return root
}

// wrapRun marks errors from a subcommand's body as failures (exit 3) unless
// they already say they are usage errors or findings.
func wrapRun(f func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		err := f(cmd, args)
		var u *usageError
		var fe *findingsError
		var fa *failedError
		if err == nil || errors.As(err, &u) || errors.As(err, &fe) || errors.As(err, &fa) {
			return err
		}
		return &failedError{err: err}
	}
}

func newLogger(w io.Writer, verbosity int) logr.Logger {
	if verbosity == 0 {
		return logr.Discard()
	}
	return funcr.New(func(prefix, args string) {
		if prefix != "" {
			fmt.Fprintf(w, "%s: %s\n", prefix, args)
			return
		}
		fmt.Fprintln(w, args)
	}, funcr.Options{Verbosity: verbosity})
}

// isTTY reports whether w is an interactive terminal.
func isTTY(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTTYFile(f)
}

func isTTYFile(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
