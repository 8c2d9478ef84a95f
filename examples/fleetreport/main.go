package main

// main.go: main and cli: the flags (pflag, written --name) and their
// checks, an ELBv2 client per assumed role, and the cluster's client. The
// work is run's (report.go).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsarn "github.com/aws/aws-sdk-go-v2/aws/arn"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/spf13/pflag"
	"sigs.k8s.io/controller-runtime/pkg/client"
	kubeconfig "sigs.k8s.io/controller-runtime/pkg/client/config"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/diagnose"
)

// options are fleetreport's flags.
type options struct {
	region, cluster string
	roles           []string
	// failOn is --fail-on's threshold on diagnose's scale, "" for none.
	failOn diagnose.Severity
}

// The usage errors' prefix and the help's first line.
const usageLine = "usage: fleetreport --region REGION --cluster NAME --role ROLE_ARN [--role ROLE_ARN ...] [--fail-on SEVERITY]"

// parseFlags reads fleetreport's command line. --help prints the flags to
// help and returns pflag.ErrHelp; any other error is a usage error, one
// line naming the flag as --name. Nothing is read from AWS or the cluster.
func parseFlags(args []string, help io.Writer) (options, error) {
	var o options
	var failOn string
	fs := pflag.NewFlagSet("fleetreport", pflag.ContinueOnError)
	fs.SetOutput(help)
	fs.StringVar(&o.region, "region", os.Getenv("AWS_REGION"), "the AWS Region of every account (default: $AWS_REGION)")
	fs.StringVar(&o.cluster, "cluster", "", "the cluster's name (the LBC's elbv2.k8s.aws/cluster tag)")
	fs.StringArrayVar(&o.roles, "role", nil, "an IAM role ARN to assume, one per account (repeat the flag)")
	fs.StringVar(&failOn, "fail-on", "high", "exit 1 when a finding is at or above this severity: critical, high, medium, low, info or none (helm's error and warning: high and low)")
	fs.Usage = func() { fmt.Fprintf(help, "%s\n\n%s", usageLine, fs.FlagUsages()) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return o, err
		}
		return o, flagError(fs, err)
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q (%s)", fs.Arg(0), usageLine)
	case len(o.roles) == 0 || o.region == "" || o.cluster == "":
		return o, fmt.Errorf("--region, --cluster and at least one --role are required (%s)", usageLine)
	}
	for _, role := range o.roles {
		if _, err := parseRole(role); err != nil {
			return o, err
		}
	}
	var err error
	o.failOn, err = parseFailOn(failOn)
	return o, err
}

// flagError says what pflag refused, naming the flag as --name or the
// single-dash word as typed.
func flagError(fs *pflag.FlagSet, err error) error {
	var notExist *pflag.NotExistError
	if errors.As(err, &notExist) {
		if s := notExist.GetSpecifiedShortnames(); s != "" {
			if fs.Lookup(s) != nil {
				return fmt.Errorf("unknown flag \"-%s\": write --%s", s, s)
			}
			return fmt.Errorf("unknown flag \"-%s\" (%s)", s, usageLine)
		}
		return fmt.Errorf("unknown flag \"--%s\" (%s)", notExist.GetSpecifiedName(), usageLine)
	}
	return err
}

// parseFailOn reads --fail-on on tgmigrate's one scale (its doc.go, #
// Severities): diagnose's severities, helm's error (high) and warning
// (low), or none ("").
func parseFailOn(s string) (diagnose.Severity, error) {
	switch sev := diagnose.Severity(s); sev {
	case "none":
		return "", nil
	case diagnose.SeverityCritical, diagnose.SeverityHigh, diagnose.SeverityMedium, diagnose.SeverityLow, diagnose.SeverityInfo:
		return sev, nil
	case "error":
		return diagnose.SeverityHigh, nil
	case "warning":
		return diagnose.SeverityLow, nil
	}
	return "", fmt.Errorf("--fail-on %q: want critical, high, medium, low, info or none (or helm's error, warning)", s)
}

// parseRole accepts an IAM role ARN.
func parseRole(role string) (awsarn.ARN, error) {
	parsed, err := awsarn.Parse(role)
	if err != nil || parsed.Service != "iam" || !strings.HasPrefix(parsed.Resource, "role/") {
		return parsed, fmt.Errorf("--role %q: not an IAM role ARN (want arn:aws:iam::ACCOUNT_ID:role/NAME)", role)
	}
	return parsed, nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := cli(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// cli runs fleetreport's command line and returns the exit code: the flags
// (a usage error exits 2 with one line on stderr), the clients (a
// configuration error exits 2 too), then run.
func cli(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stdout)
	if errors.Is(err, pflag.ErrHelp) {
		return exitClean
	}
	if err != nil {
		fmt.Fprintln(stderr, "fleetreport:", err)
		return exitUsage
	}
	accounts, err := wire(ctx, o.region, o.cluster, o.roles)
	if err != nil {
		fmt.Fprintln(stderr, "fleetreport:", err)
		return exitUsage
	}
	return run(ctx, accounts, o.failOn, stdout)
}

// wire builds, for each role, the account's Sources: an ELBv2 client on
// the assumed role's credentials, and the current kubeconfig's cluster.
func wire(ctx context.Context, region, clusterName string, rs []string) ([]account, error) {
	base, err := config.LoadDefaultConfig(ctx, config.WithRegion(region))
	if err != nil {
		return nil, fmt.Errorf("load AWS configuration: %w", err)
	}
	rest, err := kubeconfig.GetConfig()
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig: %w", err)
	}
	scheme, err := tgmigrate.NewScheme()
	if err != nil {
		return nil, err
	}
	kube, err := client.New(rest, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	cluster := diagnose.Cluster{Name: clusterName, Reader: kube}
	var out []account
	for _, role := range rs {
		parsed, err := parseRole(role)
		if err != nil {
			return nil, err
		}
		cfg := base.Copy()
		cfg.Credentials = aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(sts.NewFromConfig(base), role,
			func(o *stscreds.AssumeRoleOptions) { o.RoleSessionName = "fleetreport" }))
		out = append(out, account{Name: parsed.AccountID, Sources: diagnose.Sources{
			Accounts: []diagnose.Account{{ID: parsed.AccountID, Region: region, ELBv2: elasticloadbalancingv2.NewFromConfig(cfg)}},
			Clusters: []diagnose.Cluster{cluster},
		}})
	}
	return out, nil
}
