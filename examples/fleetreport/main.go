package main

// main.go: main: the flags, an ELBv2 client per assumed role, and the
// cluster's client. The work is run's (report.go).

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsarn "github.com/aws/aws-sdk-go-v2/aws/arn"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"sigs.k8s.io/controller-runtime/pkg/client"
	kubeconfig "sigs.k8s.io/controller-runtime/pkg/client/config"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/diagnose"
)

// roles is the repeatable -role flag.
type roles []string

func (r *roles) String() string     { return strings.Join(*r, ",") }
func (r *roles) Set(s string) error { *r = append(*r, s); return nil }

func main() {
	var rs roles
	region := flag.String("region", os.Getenv("AWS_REGION"), "the AWS Region of every account")
	clusterName := flag.String("cluster", "", "the cluster's name (the LBC's elbv2.k8s.aws/cluster tag)")
	flag.Var(&rs, "role", "an IAM role ARN to assume, one per account (repeat the flag)")
	flag.Parse()
	if len(rs) == 0 || *region == "" || *clusterName == "" {
		fmt.Fprintln(os.Stderr, "fleetreport: -region, -cluster and at least one -role are required")
		os.Exit(64)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	accounts, err := wire(ctx, *region, *clusterName, rs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleetreport:", err)
		stop()
		os.Exit(64)
	}
	code := run(ctx, accounts, os.Stdout)
	stop()
	os.Exit(code)
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
		parsed, err := awsarn.Parse(role)
		if err != nil || parsed.Service != "iam" || !strings.HasPrefix(parsed.Resource, "role/") {
			return nil, fmt.Errorf("-role %q: not an IAM role ARN", role)
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
