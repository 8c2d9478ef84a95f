package main

// diagnose.go: the diagnose subcommand: its flags, the diagnose.Scope they
// make, the run and the report's printing, and --fail-on (read on
// failon.go's scale).

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	"github.com/spf13/cobra"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/textcell"
)

type diagnoseFlags struct {
	targetGroups  []string
	loadBalancers []string
	tags          []string
	all           bool
	clusterVPC    string
	cidrs         []string
	ec2           bool
	concurrency   int
	failOn        string
	// concurrencySet says --concurrency was given: its value goes to the
	// library, which checks it.
	concurrencySet bool
	// wide prints the text report a line per row, however wide
	// (diagnose.Report.WideText); zero: fitted to 120 columns.
	wide bool
}

func (a *app) diagnoseCommand() *cobra.Command {
	f := &diagnoseFlags{}
	cmd := &cobra.Command{
		Use:   "diagnose",
		Short: "Read-only: find ghost targets, static node targets, owners and mismatches",
		Long: `diagnose reads the target groups in scope and the cluster, classifies every
target (pod, live node, ghost, foreign), and reports findings with the next
library call for each. It never changes anything.

Exit code 1 when a finding is at or above --fail-on.`,
		Example: `  tgmigrate diagnose --target-group legacy-web --region eu-west-1
  tgmigrate diagnose --all --assume-role arn:aws:iam::111111111111:role/ro --format json`,
		Args: cobra.NoArgs,
		RunE: wrapRun(func(cmd *cobra.Command, _ []string) error {
			f.concurrencySet = cmd.Flags().Changed("concurrency")
			return a.runDiagnose(cmd, f)
		}),
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.targetGroups, "target-group", nil, "target group name or ARN (repeatable); the ARNs' Region is the default of --region")
	fl.StringArrayVar(&f.loadBalancers, "load-balancer", nil, "every target group of this load balancer ARN (repeatable)")
	fl.StringArrayVar(&f.tags, "tag", nil, "keep target groups with this tag, KEY=VALUE or KEY (repeatable)")
	fl.BoolVar(&f.all, "all", false, "every target group the credentials can see")
	fl.StringVar(&f.clusterVPC, "cluster-vpc", "", "the cluster's VPC ID (recommended when clusters in other VPCs share address space)")
	fl.StringArrayVar(&f.cidrs, "cidr", nil, "node and pod CIDRs of the cluster (repeatable); decides ghost versus foreign")
	fl.BoolVar(&f.ec2, "ec2", false, "also read EC2 (subnets, route tables) to find nodes in public subnets")
	fl.IntVar(&f.concurrency, "concurrency", 0, fmt.Sprintf("AWS calls in flight at once: 1 or more (default %d, the library's)", diagnose.DefaultConcurrency))
	fl.StringVar(&f.failOn, "fail-on", "high", "exit 1 when a finding is at or above this severity: "+failOnHelp)
	a.addFormatFlag(cmd, "text", "json", "markdown")
	a.addClusterFlags(cmd)
	a.addAWSFlags(cmd)
	a.addServiceQuotasFlag(cmd)
	fl.BoolVar(&f.wide, "wide", false, "--format text: a line per target group, finding and error, however wide (default: fitted to 120 columns, each finding's message and next call under its table)")
	return cmd
}

func (a *app) runDiagnose(cmd *cobra.Command, f *diagnoseFlags) error {
	ctx := cmd.Context()
	if a.format == "sarif" {
		return usagef("--format sarif: diagnose prints text, json or markdown")
	}
	if f.wide && a.format != "text" {
		return usagef("--wide with --format %s: only the text report has a wide layout", a.format)
	}
	threshold, scope, opts, err := f.check(&a.cloud)
	if err != nil {
		return err
	}
	kc, err := a.cluster()
	if err != nil {
		return err
	}
	accounts, err := a.accounts(ctx)
	if err != nil {
		return err
	}
	src := diagnose.Sources{Clusters: []diagnose.Cluster{{Name: kc.Name, Reader: kc.Client, VPCID: f.clusterVPC, CIDRs: f.cidrs}}}
	for _, acct := range accounts {
		da := diagnose.Account{ID: acct.ID, Region: acct.Region, ELBv2: elbv2.NewFromConfig(acct.Config)}
		if !a.noServiceQuotas {
			da.ServiceQuotas = servicequotas.NewFromConfig(acct.Config)
		}
		if f.ec2 {
			da.EC2 = ec2.NewFromConfig(acct.Config)
		}
		src.Accounts = append(src.Accounts, da)
	}
	opts = append(opts, diagnose.WithLogger(a.log))
	if isTTY(a.stderr) {
		opts = append(opts, diagnose.WithProgress(func(p diagnose.Progress) {
			fmt.Fprintf(a.stderr, "\r\033[Kdiagnose: %s %d/%d", p.Phase, p.Done, p.Total)
		}))
	}
	report, err := diagnose.Diagnose(ctx, src, scope, opts...)
	if isTTY(a.stderr) {
		fmt.Fprint(a.stderr, "\r\033[K")
	}
	if diagnose.IsInvalidInput(err) {
		return asUsage(err)
	}
	if report == nil {
		return err
	}
	if werr := a.printReport(report, f.wide); werr != nil {
		return werr
	}
	if err != nil {
		return err
	}
	if worst, ok := report.Worst(); ok && threshold != "" && worst.Rank() <= diagnose.Severity(threshold).Rank() {
		return &findingsError{summary: fmt.Sprintf("%s, worst %s (--fail-on %s)", textcell.Plural(len(report.AllFindings()), "finding", "findings"), worst, threshold)}
	}
	return nil
}

// printReport prints r in a.format; wide: the text a line per row.
func (a *app) printReport(r *diagnose.Report, wide bool) error {
	switch a.format {
	case "json":
		b, err := r.JSON()
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(a.stdout, string(b))
		return err
	case "markdown":
		_, err := fmt.Fprint(a.stdout, r.Markdown())
		return err
	default:
		text := r.Text()
		if wide {
			text = r.WideText()
		}
		_, err := fmt.Fprint(a.stdout, text)
		return err
	}
}

// check is diagnose's check of its input, before any kubeconfig or
// credentials are looked for: --fail-on, the scope, --cluster-vpc and
// --cidr, the Region the ARNs name (which becomes cloud's when --region is
// absent), and then, through diagnose.ValidateScope, the library's own
// check of the scope and the options. It returns the --fail-on threshold,
// the scope and the options.
func (f *diagnoseFlags) check(cloud *cloudFlags) (string, diagnose.Scope, []diagnose.Option, error) {
	threshold, err := parseFailOn(f.failOn)
	if err != nil {
		return "", diagnose.Scope{}, nil, err
	}
	scope, err := f.scope()
	if err != nil {
		return "", scope, nil, err
	}
	if err := checkVPC(f.clusterVPC); err != nil {
		return "", scope, nil, err
	}
	for _, c := range f.cidrs {
		if err := checkCIDR(c); err != nil {
			return "", scope, nil, err
		}
	}
	for _, a := range scope.TargetGroupARNs {
		if err := cloud.takeRegion("--target-group", a); err != nil {
			return "", scope, nil, err
		}
	}
	for _, a := range scope.LoadBalancerARNs {
		if err := cloud.takeRegion("--load-balancer", a); err != nil {
			return "", scope, nil, err
		}
	}
	var opts []diagnose.Option
	if f.concurrencySet {
		opts = append(opts, diagnose.WithConcurrency(f.concurrency))
	}
	if err := diagnose.ValidateScope(scope, opts...); err != nil {
		return "", scope, nil, f.flagOf(err)
	}
	return threshold, scope, opts, nil
}

// flagOf turns diagnose.ValidateScope's *InputError into the message of
// the flag that set the field at fault.
func (f *diagnoseFlags) flagOf(err error) error {
	var ie *diagnose.InputError
	if errors.As(err, &ie) && ie.Field == "WithConcurrency" {
		return badFlag("--concurrency", fmt.Sprint(f.concurrency), "a whole number, 1 or more")
	}
	return asUsage(err)
}

// scope turns the flags into a diagnose.Scope, rejecting malformed ARNs
// and names before any credentials are loaded.
func (f *diagnoseFlags) scope() (diagnose.Scope, error) {
	var s diagnose.Scope
	for _, tg := range f.targetGroups {
		ref, err := parseTargetGroupRef("--target-group", tg)
		if err != nil {
			return s, err
		}
		if ref.Name != "" {
			s.TargetGroupNames = append(s.TargetGroupNames, ref.Name)
			continue
		}
		s.TargetGroupARNs = append(s.TargetGroupARNs, ref.ARN)
	}
	for _, lb := range f.loadBalancers {
		a, err := tgmigrate.ParseLoadBalancerARN(lb)
		if err != nil {
			return s, usagef("--load-balancer: %v; want arn:aws:elasticloadbalancing:REGION:ACCOUNT_ID:loadbalancer/app/NAME/ID", err)
		}
		s.LoadBalancerARNs = append(s.LoadBalancerARNs, a)
	}
	for _, t := range f.tags {
		k, v, _ := strings.Cut(t, "=")
		if k == "" {
			return s, usagef("--tag %q: want KEY=VALUE or KEY", t)
		}
		if s.Tags == nil {
			s.Tags = map[string]string{}
		}
		s.Tags[k] = v
	}
	s.All = f.all
	if !s.All && len(s.TargetGroupARNs)+len(s.TargetGroupNames)+len(s.LoadBalancerARNs)+len(s.Tags) == 0 {
		return s, usagef("nothing to diagnose: pass --target-group, --load-balancer, --tag or --all")
	}
	return s, nil
}
