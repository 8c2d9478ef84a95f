package main

// main.go: main: the flags, the real clients (ELBv2 on the environment's
// credentials, the current kubeconfig's cluster) and the terminal prompt.
// The work is run's (migrate.go).

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	kubeconfig "sigs.k8s.io/controller-runtime/pkg/client/config"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
)

func main() {
	tg := flag.String("target-group", "", "the hand-made target group's ARN")
	ns := flag.String("namespace", "", "the Service's namespace")
	svc := flag.String("service", "", "the Service whose pods take over")
	port := flag.String("port", "", "the Service port, by name or number (empty: its only port)")
	clusterName := flag.String("cluster", "", "the cluster's name (the LBC's elbv2.k8s.aws/cluster tag)")
	vpc := flag.String("vpc", "", "the cluster's VPC ID (empty: the VPC guard is skipped)")
	flag.Parse()
	arn, err := tgmigrate.ParseTargetGroupARN(*tg)
	if err != nil || *ns == "" || *svc == "" || *clusterName == "" {
		fmt.Fprintf(os.Stderr, "guardedmigration: -target-group (%v), -namespace, -service and -cluster are required\n", err)
		os.Exit(64)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	env, err := wire(ctx, arn.Region, *clusterName, *vpc)
	if err != nil {
		fmt.Fprintln(os.Stderr, "guardedmigration:", err)
		stop()
		os.Exit(64)
	}
	req := cutover.Request{TargetGroupARN: arn, Namespace: *ns, Service: *svc,
		AccountID: arn.AccountID, Region: arn.Region}
	if *port != "" {
		req.Port = intstr.Parse(*port)
	}
	code := run(ctx, env, req, prompt(bufio.NewReader(os.Stdin)), os.Stdout)
	stop()
	os.Exit(code)
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
