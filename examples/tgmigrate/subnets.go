package main

// subnets.go: the subnets command (step 4: the nodes to private subnets)
// and its read-only halves: check (subnets.CheckReadiness, the report in
// text, json or markdown) and plan (subnets.PlanMove, the plan in text or
// json, --out for execute and rollback); their flags and the checks of
// those flags, which run before any kubeconfig or credential is loaded.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/subnets"
)

func (a *app) subnetsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "subnets",
		Short: "Step 4: move the nodes to private subnets (check, plan, execute, rollback)",
		Long: `subnets moves a cluster's Karpenter nodes from public to private subnets, once
no target group pins a node IP any more (after the cutover):

  check     read-only: is the cluster ready? (exit 1 when a finding blocks the move)
  plan      read-only: the move as data; --out saves it for execute and rollback
  execute   patch the EC2NodeClasses and watch the drift-driven replacement
            (a dry run unless --yes); its journal lets a second run resume
  rollback  write the EC2NodeClasses and NodePools back as read, and watch
            the replacement back (a dry run unless --yes)`,
		Example: `  tgmigrate subnets check --cluster-name prod --cluster-vpc vpc-0123456789abcdef0
  tgmigrate subnets plan  --cluster-name prod --cluster-vpc vpc-0123456789abcdef0 \
      --private-subnet-tag kubernetes.io/role/internal-elb=1 --move-budget 1 --out move.json
  tgmigrate subnets execute  --plan move.json --yes
  tgmigrate subnets rollback --plan move.json --yes`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.subnetsCheckCommand(), a.subnetsPlanCommand(), a.subnetsExecuteCommand(), a.subnetsRollbackCommand())
	return cmd
}

// readinessFlags are the inputs of CheckReadiness that check and plan
// take from the command line.
type readinessFlags struct {
	clusterName, clusterVPC string
	subnetIDs, subnetTags   []string
	nodeClasses             []string
	launchTime, drainTime   time.Duration
}

func (f *readinessFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.clusterName, "cluster-name", "", "the cluster's name as the LBC tags it (elbv2.k8s.aws/cluster); it also names the move's journal (required)")
	fl.StringVar(&f.clusterVPC, "cluster-vpc", "", "the cluster's VPC ID, vpc- and 8 or 17 hex digits (required)")
	fl.StringArrayVar(&f.subnetIDs, "private-subnet", nil, "a private subnet the nodes move to, by ID (subnet- and 8 or 17 hex digits; repeatable; default: every private subnet of the VPC in the nodes' zones)")
	fl.StringArrayVar(&f.subnetTags, "private-subnet-tag", nil, "private subnets the nodes move to, by tags: KEY=VALUE[,KEY=VALUE...], all of which must match (VALUE * matches any); repeatable, the terms ORed with --private-subnet's, as Karpenter's subnetSelectorTerms")
	fl.StringArrayVar(&f.nodeClasses, "node-class", nil, "move only this EC2NodeClass (repeatable; default: every one that selects a public subnet or a public address)")
	fl.DurationVar(&f.launchTime, "launch-time", 0, "the estimate's launch of a replacement node until Ready (default 3m)")
	fl.DurationVar(&f.drainTime, "drain-time", 0, "the estimate's drain of a replaced node until its instance ends (default 5m)")
}

var (
	vpcIDForm    = regexp.MustCompile(`^vpc-[0-9a-f]{8}([0-9a-f]{9})?$`)
	subnetIDForm = regexp.MustCompile(`^subnet-[0-9a-f]{8}([0-9a-f]{9})?$`)
	// budgetForm is a NodePool budget's nodes: a count, or a percentage up
	// to 100%.
	budgetForm = regexp.MustCompile(`^((100|[0-9]{1,2})%|[0-9]+)$`)
)

// selectorTerm is one of Karpenter's subnetSelectorTerms in its JSON form,
// the form subnets.Input.PrivateSubnets decodes from.
type selectorTerm struct {
	ID   string            `json:"id,omitempty"`
	Tags map[string]string `json:"tags,omitempty"`
}

// input checks the flags and returns the readiness input they make, less
// what the environment gives (the clients, the account and the Region).
// Every error is a usage error naming the flag and its form.
func (f *readinessFlags) input() (subnets.Input, error) {
	var in subnets.Input
	switch {
	case f.clusterName == "":
		return in, usagef("--cluster-name is required: the cluster's name as the LBC tags it")
	case f.clusterVPC == "":
		return in, usagef("--cluster-vpc is required: the cluster's VPC ID (vpc- and 8 or 17 hex digits)")
	case !vpcIDForm.MatchString(f.clusterVPC):
		return in, usagef("--cluster-vpc %q: want a VPC ID, vpc- and 8 or 17 hex digits", f.clusterVPC)
	case f.launchTime < 0:
		return in, usagef("--launch-time %v: want a duration of 0 or more (0: 3m)", f.launchTime)
	case f.drainTime < 0:
		return in, usagef("--drain-time %v: want a duration of 0 or more (0: 5m)", f.drainTime)
	}
	var terms []selectorTerm
	for _, id := range f.subnetIDs {
		if !subnetIDForm.MatchString(id) {
			return in, usagef("--private-subnet %q: want a subnet ID, subnet- and 8 or 17 hex digits", id)
		}
		terms = append(terms, selectorTerm{ID: id})
	}
	for _, s := range f.subnetTags {
		tags, err := parseTags(s)
		if err != nil {
			return in, usagef("--private-subnet-tag %q: %v: want KEY=VALUE[,KEY=VALUE...]", s, err)
		}
		terms = append(terms, selectorTerm{Tags: tags})
	}
	for _, n := range f.nodeClasses {
		if errs := validation.IsDNS1123Subdomain(n); len(errs) > 0 {
			return in, usagef("--node-class %q: want an EC2NodeClass's name (a DNS-1123 subdomain)", n)
		}
	}
	if len(terms) > 0 {
		// Input.PrivateSubnets holds Karpenter's selector terms, whose JSON
		// form is the one the EC2NodeClass takes.
		data, err := json.Marshal(terms)
		if err == nil {
			err = json.Unmarshal(data, &in.PrivateSubnets)
		}
		if err != nil {
			return in, fmt.Errorf("subnets: selector terms: %w", err)
		}
	}
	in.Cluster, in.VPCID, in.NodeClasses = f.clusterName, f.clusterVPC, f.nodeClasses
	in.LaunchTime, in.DrainTime = f.launchTime, f.drainTime
	return in, nil
}

// parseTags reads KEY=VALUE[,KEY=VALUE...]: keys non-empty and once each.
func parseTags(s string) (map[string]string, error) {
	tags := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		switch {
		case !ok || strings.TrimSpace(k) == "":
			return nil, fmt.Errorf("%q is not KEY=VALUE", kv)
		case v == "":
			return nil, fmt.Errorf("tag %s has no value (use * for any)", k)
		}
		if _, dup := tags[k]; dup {
			return nil, fmt.Errorf("tag %s twice", k)
		}
		tags[k] = v
	}
	return tags, nil
}

// addSubnetsFlags gives a subnets subcommand its --format values and the
// cluster and AWS flags its environment (subnets_env.go) is built from;
// step 4 reads no quota.
func (a *app) addSubnetsFlags(cmd *cobra.Command, formats ...string) {
	a.addFormatFlag(cmd, formats...)
	a.addClusterFlags(cmd)
	a.addAWSFlags(cmd)
}

// readiness runs CheckReadiness with the environment's clients and clock.
func (a *app) readiness(ctx context.Context, in subnets.Input, env *subnetsEnv) (*subnets.Readiness, error) {
	in.AccountID, in.Region = env.AccountID, env.Region
	in.Reader, in.EC2, in.ELBv2, in.Accounts = env.Client, env.EC2, env.ELBv2, env.Accounts
	r, err := subnets.CheckReadiness(ctx, in, subnets.WithClock(env.clk()), subnets.WithLogger(a.log))
	if errors.Is(err, subnets.ErrInvalidInput) {
		return nil, asUsage(err)
	}
	return r, err
}

func (a *app) subnetsCheckCommand() *cobra.Command {
	f := &readinessFlags{}
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Read-only: can the nodes move to private subnets? (exit 1 when not)",
		Long: `check reads the cluster and its account and changes nothing. It checks that no
target group pins a node IP (the gate: run the cutover first), that each zone of
the nodes has a private subnet with room and egress to AWS's APIs, that the load
balancers enable those zones and reach the pods' port, and what the drift-driven
replacement will take. Each failed check is a finding with its remedy; the
cluster is ready when none is high or critical. Exit 0 when ready, 1 when not.`,
		Example: `  tgmigrate subnets check --cluster-name prod --cluster-vpc vpc-0123456789abcdef0
  tgmigrate subnets check --cluster-name prod --cluster-vpc vpc-0123456789abcdef0 \
      --private-subnet subnet-0123456789abcdef0 --private-subnet subnet-0fedcba9876543210 -o markdown`,
		Args: cobra.NoArgs,
		RunE: wrapRun(func(cmd *cobra.Command, _ []string) error { return a.runSubnetsCheck(cmd.Context(), f) }),
	}
	f.register(cmd)
	a.addSubnetsFlags(cmd, "text", "json", "markdown")
	return cmd
}

func (a *app) runSubnetsCheck(ctx context.Context, f *readinessFlags) error {
	in, err := f.input()
	if err != nil {
		return err
	}
	env, err := a.subnetsEnv(ctx)
	if err != nil {
		return err
	}
	r, err := a.readiness(ctx, in, env)
	if err != nil {
		return err
	}
	switch a.format {
	case "json":
		data, err := r.JSON()
		if err != nil {
			return err
		}
		if _, err := a.stdout.Write(data); err != nil {
			return err
		}
	case "markdown":
		fmt.Fprint(a.stdout, r.Markdown())
	default:
		fmt.Fprint(a.stdout, r.Text())
	}
	if !r.Ready {
		return &findingsError{summary: notReady(r)}
	}
	return nil
}

// notReady says, in one line, which findings block the move.
func notReady(r *subnets.Readiness) string {
	var codes []string
	for _, f := range r.Findings {
		if (f.Severity == diagnose.SeverityHigh || f.Severity == diagnose.SeverityCritical) && !contains(codes, string(f.Code)) {
			codes = append(codes, string(f.Code))
		}
	}
	return fmt.Sprintf("cluster %s is not ready to move to private subnets: %s", r.Cluster, strings.Join(codes, ", "))
}

type subnetsPlanFlags struct {
	readinessFlags
	moveBudget string
	out        string
}

func (a *app) subnetsPlanCommand() *cobra.Command {
	f := &subnetsPlanFlags{}
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Read-only: check readiness, then print the move's plan (--out saves it)",
		Long: `plan runs the checks of "subnets check" and, when the cluster is ready, prints
the move as data: the EC2NodeClasses' subnet selection and public addresses from
what to what, the NodePools' budgets (with --move-budget), the target groups the
watch keeps at their floor, the estimate, and what rollback restores. It changes
nothing. Save it with --out and carry it out with "tgmigrate subnets execute".
Exit 1, planning nothing, when the cluster is not ready.`,
		Example: `  tgmigrate subnets plan --cluster-name prod --cluster-vpc vpc-0123456789abcdef0 --move-budget 1 --out move.json`,
		Args:    cobra.NoArgs,
		RunE:    wrapRun(func(cmd *cobra.Command, _ []string) error { return a.runSubnetsPlan(cmd.Context(), f) }),
	}
	f.register(cmd)
	a.addSubnetsFlags(cmd, "text", "json")
	cmd.Flags().StringVar(&f.moveBudget, "move-budget", "", "write a disruption budget of this many nodes (a count, or a percentage such as 10%) for reason Drifted in front of each NodePool's budgets for the move, and restore them at the end (default: the budgets as they are)")
	cmd.Flags().StringVar(&f.out, "out", "", "also write the plan as JSON to this file, for execute and rollback")
	return cmd
}

func (a *app) runSubnetsPlan(ctx context.Context, f *subnetsPlanFlags) error {
	in, err := f.input()
	if err != nil {
		return err
	}
	var opts []subnets.PlanOption
	if f.moveBudget != "" {
		if !budgetForm.MatchString(f.moveBudget) || strings.Trim(f.moveBudget, "0%") == "" {
			return usagef("--move-budget %q: want a count of 1 or more or a percentage from 1%% to 100%%", f.moveBudget)
		}
		opts = append(opts, subnets.MoveBudget(f.moveBudget))
	}
	env, err := a.subnetsEnv(ctx)
	if err != nil {
		return err
	}
	r, err := a.readiness(ctx, in, env)
	if err != nil {
		return err
	}
	if !r.Ready {
		return &findingsError{summary: notReady(r) + `; nothing planned ("tgmigrate subnets check" shows the report)`}
	}
	plan, err := subnets.PlanMove(ctx, r, append(opts, subnets.PlanClock(env.clk()))...)
	if errors.Is(err, subnets.ErrMoveInput) {
		return asUsage(err)
	}
	if err != nil {
		return err
	}
	data, err := plan.JSON()
	if err != nil {
		return err
	}
	if f.out != "" {
		if err := os.WriteFile(f.out, append(data, '\n'), 0o600); err != nil {
			return usagef("--out: %v", err)
		}
	}
	if a.format == "json" {
		_, err = fmt.Fprintln(a.stdout, string(data))
		return err
	}
	_, err = fmt.Fprint(a.stdout, plan.Text())
	return err
}
