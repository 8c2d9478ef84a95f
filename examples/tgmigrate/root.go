package main

// root.go: app (the I/O, global flags and logger every subcommand shares),
// run, the root command, wrapRun's exit-code marking, and the helpers:
// logger, TTY test, JSON printing, single-dash flag normalisation.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim"
)

// app holds what every subcommand shares: I/O, global flags, the logger.
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

	// onWorld, when set, is shown every world simulate builds as soon as it
	// is built: the story's (name "story") and each strategy's (named by
	// the strategy). Tests read the worlds' counts through it.
	onWorld func(name string, w *sim.World)
}

var formats = []string{"text", "json", "markdown", "sarif"}

// version is the tool's version, as SARIF output reports it.
const version = "0.1.0"

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return (&app{stdin: stdin, stdout: stdout, stderr: stderr}).run(ctx, args)
}

// run runs the command line args on a's I/O and returns the exit code.
func (a *app) run(ctx context.Context, args []string) int {
	root := a.rootCommand()
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
account and no cluster needed.`,
		SilenceUsage:      true,
		SilenceErrors:     true,
		DisableAutoGenTag: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if !contains(formats, a.format) {
				return usagef("--format %q: want one of text, json, markdown, sarif", a.format)
			}
			// Before any subcommand loads a kubeconfig or credentials.
			if err := a.cloud.validate(); err != nil {
				return err
			}
			a.log = newLogger(a.stderr, a.verbose)
			return nil
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return asUsage(flagValueError(err)) })
	pf := root.PersistentFlags()
	pf.StringVar(&a.kubeconfig, "kubeconfig", "", "path to the kubeconfig (default: $KUBECONFIG, then ~/.kube/config, then in-cluster)")
	pf.StringVar(&a.kubecontext, "context", "", "kubeconfig context (default: the current context)")
	pf.StringVar(&a.cloud.profile, "profile", "", "AWS shared-config profile (default: $AWS_PROFILE or default)")
	pf.StringVar(&a.cloud.region, "region", "", "AWS Region, such as eu-west-1 (default: the Region of the --target-group ARN or of the plan, else the profile's or $AWS_REGION)")
	pf.StringArrayVar(&a.cloud.assumeRoles, "assume-role", nil, "IAM role ARN to assume, once per account to scan (repeatable)")
	pf.StringVarP(&a.format, "format", "o", "text", "output format: text, json, markdown or sarif")
	pf.BoolVar(&a.noServiceQuotas, "no-service-quotas", false, "do not read ELBv2's target quotas through Service Quotas (servicequotas:GetServiceQuota): count the cutover's overlap against AWS's documented defaults")
	pf.CountVarP(&a.verbose, "verbose", "v", "log more (repeat for more detail)")
	root.AddCommand(a.diagnoseCommand(), a.planCommand(), a.executeCommand(), a.rollbackCommand(),
		a.bindCommand(), a.helmCommand(), a.simulateCommand())
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

// normalizeArgs accepts Go-style single-dash long flags (-seed 7, -format
// json), as the standard flag package does, by rewriting -name to --name for
// every long flag name the command tree knows. Short flags (-v, -o json) and
// everything after "--" are left alone.
func normalizeArgs(root *cobra.Command, args []string) []string {
	long := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) { long[f.Name] = true })
		c.PersistentFlags().VisitAll(func(f *pflag.Flag) { long[f.Name] = true })
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	out := make([]string, 0, len(args))
	for i, arg := range args {
		if arg == "--" {
			return append(out, args[i:]...)
		}
		if len(arg) > 2 && arg[0] == '-' && arg[1] != '-' {
			name, _, _ := strings.Cut(arg[1:], "=")
			if len(name) > 1 && long[name] {
				arg = "-" + arg
			}
		}
		out = append(out, arg)
	}
	return out
}
