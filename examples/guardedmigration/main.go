package main

// main.go: main and cli: the flags (pflag, written --name) and their
// checks, the real clients (ELBv2 on the environment's
// credentials, the current kubeconfig's cluster) and the terminal prompt.
// The work is run's (migrate.go).

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	kubeconfig "sigs.k8s.io/controller-runtime/pkg/client/config"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
)

// options are guardedmigration's flags.
type options struct {
	req            cutover.Request
	cluster, vpcID string
}

// usageLine is the usage errors' hint and the help's first line.
const usageLine = "usage: guardedmigration --target-group ARN --namespace NS --service NAME --cluster NAME [--port PORT] [--vpc VPC_ID]"

// parseFlags reads guardedmigration's command line into the cutover's
// request. --help prints the flags to help and returns pflag.ErrHelp; any
// other error is a usage error, one line naming the flag as --name.
// Nothing is read from AWS or the cluster.
func parseFlags(args []string, help io.Writer) (options, error) {
	var o options
	var tg, port string
	fs := pflag.NewFlagSet("guardedmigration", pflag.ContinueOnError)
	fs.SetOutput(help)
	fs.StringVar(&tg, "target-group", "", "the hand-made target group's ARN")
	fs.StringVar(&o.req.Namespace, "namespace", "", "the Service's namespace")
	fs.StringVar(&o.req.Service, "service", "", "the Service whose pods take over")
	fs.StringVar(&port, "port", "", "the Service port, by name or number (default: its only port)")
	fs.StringVar(&o.cluster, "cluster", "", "the cluster's name (the LBC's elbv2.k8s.aws/cluster tag)")
	fs.StringVar(&o.vpcID, "vpc", "", "the cluster's VPC ID (default: none, the VPC guard is skipped)")
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
	case tg == "" || o.req.Namespace == "" || o.req.Service == "" || o.cluster == "":
		return o, fmt.Errorf("--target-group, --namespace, --service and --cluster are required (%s)", usageLine)
	}
	arn, err := tgmigrate.ParseTargetGroupARN(tg)
	if err != nil {
		return o, fmt.Errorf("--target-group: %w", err)
	}
	o.req.TargetGroupARN, o.req.AccountID, o.req.Region = arn, arn.AccountID, arn.Region
	if port != "" {
		o.req.Port = intstr.Parse(port)
	}
	return o, nil
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

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := cli(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// cli runs guardedmigration's command line and returns the exit code: the
// flags (a usage error exits 2 with one line on stderr), the clients (a
// configuration error exits 2 too), then run, asking on the terminal.
func cli(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stdout)
	if errors.Is(err, pflag.ErrHelp) {
		return exitCompleted
	}
	if err != nil {
		fmt.Fprintln(stderr, "guardedmigration:", err)
		return exitUsage
	}
	env, err := wire(ctx, o.req.Region, o.cluster, o.vpcID)
	if err != nil {
		fmt.Fprintln(stderr, "guardedmigration:", err)
		return exitUsage
	}
	return run(ctx, env, o.req, prompt(bufio.NewReader(os.Stdin)), stdout)
}

// wire builds the Env: ELBv2 on the environment's credentials, the
// current kubeconfig's cluster, the real clock.
func wire(ctx context.Context, region, clusterName, vpc string) (cutover.Env, error) {
	awsCfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(region))
	if err != nil {
		return cutover.Env{}, fmt.Errorf("load AWS configuration: %w", err)
	}
	rest, err := kubeconfig.GetConfig()
	if err != nil {
		return cutover.Env{}, fmt.Errorf("load kubeconfig: %w", err)
	}
	scheme, err := tgmigrate.NewScheme()
	if err != nil {
		return cutover.Env{}, err
	}
	kube, err := client.New(rest, client.Options{Scheme: scheme})
	if err != nil {
		return cutover.Env{}, fmt.Errorf("kubernetes client: %w", err)
	}
	return cutover.Env{ELBv2: elasticloadbalancingv2.NewFromConfig(awsCfg), Client: kube, Clock: clock.RealClock{},
		ClusterName: clusterName, ClusterVPCID: vpc}, nil
}

// prompt asks the operator on the terminal before each phase; anything
// but "y" refuses it.
func prompt(in *bufio.Reader) cutover.ApprovalFunc {
	return func(_ context.Context, next cutover.Phase) error {
		fmt.Printf("\nphase %s (%d steps done):\n", next.Name, len(next.Done))
		for _, s := range next.Steps {
			fmt.Printf("  %s: %s\n", s.ID, s.Effect)
		}
		fmt.Print("run it? [y/N] ")
		answer, err := in.ReadString('\n')
		if err != nil {
			return fmt.Errorf("no answer: %w", err)
		}
		if a := strings.TrimSpace(answer); a != "y" {
			return fmt.Errorf("the operator answered %q", a)
		}
		return nil
	}
}
