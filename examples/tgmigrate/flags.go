package main

// flags.go: the CLI's flag conventions: the flag groups a command adds
// (addFormatFlag, addAWSFlags, addServiceQuotasFlag, addClusterFlags, one
// definition each), checkFlags, the check of --format and --fail-on before
// a command's body runs, flagError, pflag's parse errors as one-line usage
// errors that name the flag as --name, and normalizeArgs, the single-dash
// long flags accepted for compatibility.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// formatsAnnotation is the annotation of a command's --format flag that
// lists the values it accepts, as addFormatFlag sets it.
const formatsAnnotation = "tgmigrate/formats"

// addFormatFlag adds --format (-o) to cmd, with the values cmd prints,
// the first the default. checkFlags refuses any other before cmd's body runs.
func (a *app) addFormatFlag(cmd *cobra.Command, formats ...string) {
	fl := cmd.Flags()
	fl.StringVarP(&a.format, "format", "o", formats[0], "output format: "+orList(formats))
	fl.Lookup("format").Annotations = map[string][]string{formatsAnnotation: formats}
}

// formatsOf returns the values cmd's --format accepts, nil when it has none.
func formatsOf(cmd *cobra.Command) []string {
	if fl := cmd.Flags().Lookup("format"); fl != nil {
		return fl.Annotations[formatsAnnotation]
	}
	return nil
}

// addAWSFlags adds the AWS account flags (--profile, --region,
// --assume-role) to a command that calls AWS.
func (a *app) addAWSFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&a.cloud.profile, "profile", "", "AWS shared-config profile (default: $AWS_PROFILE or default)")
	fl.StringVar(&a.cloud.region, "region", "", "AWS Region, such as eu-west-1 (default: the Region of the --target-group ARN or of the plan, else the profile's or $AWS_REGION)")
	fl.StringArrayVar(&a.cloud.assumeRoles, "assume-role", nil, "IAM role ARN to assume, once per account to scan (repeatable)")
}

// addServiceQuotasFlag adds --no-service-quotas to a command that reads
// ELBv2's target quotas through Service Quotas.
func (a *app) addServiceQuotasFlag(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&a.noServiceQuotas, "no-service-quotas", false, "do not read ELBv2's target quotas through Service Quotas (servicequotas:GetServiceQuota): count targets (diagnose's quota findings, the cutover's overlap) against AWS's documented defaults")
}

// addClusterFlags adds the cluster flags (--kubeconfig, --context) to a
// command that may read a cluster.
func (a *app) addClusterFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&a.kubeconfig, "kubeconfig", "", "path to the kubeconfig (default: $KUBECONFIG, then ~/.kube/config, then in-cluster)")
	fl.StringVar(&a.kubecontext, "context", "", "kubeconfig context (default: the current context)")
}

// checkFlags checks the flags every command shares the meaning of, before
// its body runs: --format against the values the command prints, --fail-on
// against the one severity scale (failon.go).
func checkFlags(cmd *cobra.Command) error {
	if formats := formatsOf(cmd); formats != nil {
		if v := cmd.Flags().Lookup("format").Value.String(); !contains(formats, v) {
			return usagef("--format %q: %s prints %s", v, cmd.CommandPath(), orList(formats))
		}
	}
	if fl := cmd.Flags().Lookup("fail-on"); fl != nil {
		if _, err := parseFailOn(fl.Value.String()); err != nil {
			return err
		}
	}
	return nil
}

// flagError turns pflag's parse errors into one-line usage errors that name
// the flag as --name (or the single-dash word as typed, when no flag has
// that name) and say what it wants.
func flagError(cmd *cobra.Command, err error) error {
	var (
		notExist *pflag.NotExistError
		noValue  *pflag.ValueRequiredError
		invalid  *pflag.InvalidValueError
		syntax   *pflag.InvalidSyntaxError
	)
	see := fmt.Sprintf(" (see %s --help)", cmd.CommandPath())
	switch {
	case errors.As(err, &notExist):
		if s := notExist.GetSpecifiedShortnames(); s != "" {
			return usagef("unknown flag %q%s", "-"+s, see)
		}
		return usagef("unknown flag %q%s", "--"+notExist.GetSpecifiedName(), see)
	case errors.As(err, &noValue):
		return usagef("--%s needs a value%s", noValue.GetFlag().Name, see)
	case errors.As(err, &invalid):
		return usagef("--%s %q: want %s", invalid.GetFlag().Name, invalid.GetValue(), wantOfType(invalid.GetFlag().Value.Type()))
	case errors.As(err, &syntax):
		return usagef("bad flag syntax %q%s", syntax.GetSpecifiedFlag(), see)
	}
	return asUsage(err)
}

// wantOfType says what a flag of a pflag value type accepts.
func wantOfType(typ string) string {
	switch typ {
	case "uint", "uint64":
		return "a whole number, 0 or more"
	case "int", "int32", "int64":
		return "a whole number"
	case "float64":
		return "a number"
	case "stringSlice":
		return "comma-separated values"
	case "count":
		return "a count (repeat the flag)"
	case "duration":
		return "a duration such as 90s, 5m or 1h30m"
	case "bool":
		return "true or false"
	}
	return "a " + typ
}

// orList writes values as "a, b or c".
func orList(values []string) string {
	if len(values) < 2 {
		return strings.Join(values, "")
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}

// normalizeArgs accepts Go-style single-dash long flags (-seed 7, -format
// json), as the standard flag package does, by rewriting -name to --name for
// every long flag name the command tree knows (and help and version): old
// scripts keep working, while help, messages and documents write --name
// only. Short flags (-v, -o json) and everything after "--" are left alone;
// a single-dash word that names no flag reaches pflag as it is, and
// flagError names it: unknown flag "-bogus".
func normalizeArgs(root *cobra.Command, args []string) []string {
	long := map[string]bool{"help": true, "version": true}
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
