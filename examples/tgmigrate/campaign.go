package main

// campaign.go: campaign (the parent) and campaign plan: its flags, their
// checks before any call (the selection, the clusters and their accounts,
// the plan options through campaign's own check), the campaign.Input
// they make, and the plan printed and saved.

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/campaign"
)

func (a *app) campaignCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "campaign",
		Short: "Migrate a fleet as one: plan every target group of several accounts and clusters, run them in waves, resumable",
		Long: `campaign plans the same cutover for many target groups across AWS accounts and
clusters (package campaign): "campaign plan" puts each selected target group's
cutover plan, or the reason it cannot run yet, in waves (a canary wave first)
under limits per account, cluster and load balancer, with an estimate, and
saves it with its digest; "campaign run" runs that plan and no other, wave by
wave with an approval between waves, journaling every target group's state
(a file, or a ConfigMap any machine can resume from); "campaign status" says
where a campaign stands from its journal alone.

Each cluster is given as --cluster NAME[=CONTEXT][@ACCOUNT_ID]: the cluster's
name (as the load balancer controller tags it), the context of --kubeconfig
that reaches it (one cluster at most may leave it out: --context, else the
current context), and, when the campaign spans several accounts (a role
assumed in each), the account that serves its target groups.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(a.campaignPlanCommand(), a.campaignRunCommand(), a.campaignStatusCommand())
	return cmd
}

// campaignPlanFlags are campaign plan's flags.
type campaignPlanFlags struct {
	clusters     []string
	all          bool
	targetGroups []string
	tags         []string
	canaries     []string
	noCanary     bool
	maxPerWave   int
	concurrency  int
	perAccount   int
	perCluster   int
	order        string
	accept       []string
	noAPIGateway bool
	out          string
}

func (a *app) campaignPlanCommand() *cobra.Command {
	f := &campaignPlanFlags{}
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Read-only: plan a fleet's migration (waves, limits, estimate) and save it",
		Long: `plan runs diagnose once per account over the clusters it serves, plans each
selected target group's cutover (or says why it cannot run yet, and the next
call), puts the runnable ones in waves (a canary wave first: by default each
cluster's target group with the fewest targets), derives the limits they run
under (overall, per account, per cluster, per load balancer's target quota)
and the estimate (the critical path through the waves). It changes nothing.
--out saves the plan as JSON, with its digest: "campaign run" runs only that.`,
		Example: `  tgmigrate campaign plan --all --cluster prod=prod-ctx --out campaign.json
  tgmigrate campaign plan --tag team=web \
    --assume-role arn:aws:iam::111111111111:role/tgmigrate --assume-role arn:aws:iam::222222222222:role/tgmigrate \
    --cluster prod-a=ctx-a@111111111111 --cluster staging=ctx-s@222222222222 --max-per-wave 5 --out campaign.json`,
		Args: cobra.NoArgs,
		RunE: wrapRun(func(cmd *cobra.Command, _ []string) error { return a.runCampaignPlan(cmd, f) }),
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.clusters, "cluster", nil, "a cluster of the campaign, NAME[=CONTEXT][@ACCOUNT_ID] (repeatable; CONTEXT of --kubeconfig, for one cluster at most --context or the current context; @ACCOUNT_ID required with several --assume-role)")
	fl.BoolVar(&f.all, "all", false, "every target group diagnose finds a cutover for")
	fl.StringArrayVar(&f.targetGroups, "target-group", nil, "a target group's name or ARN (repeatable)")
	fl.StringArrayVar(&f.tags, "tag", nil, "keep target groups with this tag, KEY=VALUE or KEY (repeatable; narrows --all and the list)")
	fl.StringArrayVar(&f.canaries, "canary", nil, "a target group ARN of the canary wave, instead of each cluster's fewest targets (repeatable)")
	fl.BoolVar(&f.noCanary, "no-canary", false, "no canary wave")
	fl.IntVar(&f.maxPerWave, "max-per-wave", 0, "at most this many target groups per wave after the canaries, an approval between two (default: one wave)")
	fl.IntVar(&f.concurrency, "concurrency", 0, fmt.Sprintf("cutovers at once over the campaign (default %d, campaign's)", campaign.DefaultConcurrency))
	fl.IntVar(&f.perAccount, "per-account", 0, fmt.Sprintf("cutovers at once in one account, which share its ELBv2 API rate (default %d, campaign's)", campaign.DefaultPerAccount))
	fl.IntVar(&f.perCluster, "per-cluster", 0, fmt.Sprintf("cutovers at once in one cluster (default %d, campaign's)", campaign.DefaultPerCluster))
	fl.StringVar(&f.order, "order", "", fmt.Sprintf("the order of the waves after the canaries: %s (default) or %s (fewest API routes, listener rules, targets first; the canaries too)", campaign.LongestFirst, campaign.LeastExposedFirst))
	fl.StringSliceVar(&f.accept, "accept-preconditions", nil, "run target groups whose cutover plans have preconditions of these kinds (pod-settings, security-group, forceful-disruption) instead of blocking them")
	fl.BoolVar(&f.noAPIGateway, "no-api-gateway", false, "do not read API Gateway (apigateway:GET) for each target group's blast radius")
	fl.StringVar(&f.out, "out", "", "save the plan as JSON to this file (campaign run's --plan)")
	a.addFormatFlag(cmd, "text", "json")
	a.addClusterFlags(cmd)
	a.addAWSFlags(cmd)
	a.addServiceQuotasFlag(cmd)
	return cmd
}

// campaignOptionFlags name the flag of each campaign option, as
// campaign's InputError.Field names the option.
var campaignOptionFlags = map[string]string{
	"WithMaxPerWave": "--max-per-wave", "WithConcurrency": "--concurrency", "WithPerAccount": "--per-account",
	"WithPerCluster": "--per-cluster", "WithErrorBudget": "--error-budget",
}

// optionError tells campaign's refusal of an option as the flag that set
// it; nil when the option check passed.
func optionError(err error, values map[string]string) error {
	if err == nil {
		return nil
	}
	var in *campaign.InputError
	if errors.As(err, &in) {
		if flag, ok := campaignOptionFlags[in.Field]; ok {
			return usagef("%s %s: %s", flag, values[flag], in.Reason)
		}
		if strings.HasPrefix(in.Field, "WithCanaries") {
			return usagef("--canary: %s", in.Reason)
		}
	}
	return usagef("%v", err)
}

// options checks the flags and returns campaign's options, before any
// call: the values go through campaign's own check of its options
// (campaign.ValidateOptions).
func (f *campaignPlanFlags) options(cmd *cobra.Command) ([]campaign.Option, error) {
	var opts []campaign.Option
	values := map[string]string{}
	for _, b := range []struct {
		flag string
		n    int
		set  func(int) campaign.Option
	}{
		{"max-per-wave", f.maxPerWave, campaign.WithMaxPerWave}, {"concurrency", f.concurrency, campaign.WithConcurrency},
		{"per-account", f.perAccount, campaign.WithPerAccount}, {"per-cluster", f.perCluster, campaign.WithPerCluster},
	} {
		// Only a flag given: campaign's defaults stay campaign's.
		if cmd.Flags().Changed(b.flag) {
			opts = append(opts, b.set(b.n))
			values["--"+b.flag] = fmt.Sprint(b.n)
		}
	}
	if f.order != "" {
		if o := campaign.Order(f.order); o != campaign.LongestFirst && o != campaign.LeastExposedFirst {
			return nil, badFlag("--order", f.order, fmt.Sprintf("%s or %s", campaign.LongestFirst, campaign.LeastExposedFirst))
		}
		opts = append(opts, campaign.WithOrder(campaign.Order(f.order)))
	}
	if f.noCanary && len(f.canaries) > 0 {
		return nil, usagef("--no-canary and --canary: give one")
	}
	if f.noCanary {
		opts = append(opts, campaign.WithCanaries())
	}
	if len(f.canaries) > 0 {
		var arns []tgmigrate.ARN
		for _, c := range f.canaries {
			arn, err := parseTargetGroup(c)
			if err != nil {
				return nil, usagef("--canary %q: %v; want %s", c, err, tgARNForm)
			}
			arns = append(arns, arn)
		}
		opts = append(opts, campaign.WithCanaries(arns...))
	}
	accepted, err := preconditionKinds(f.accept)
	if err != nil {
		return nil, err
	}
	if len(accepted) > 0 {
		opts = append(opts, campaign.WithAcceptPreconditions(accepted...))
	}
	if err := optionError(campaign.ValidateOptions(opts...), values); err != nil {
		return nil, err
	}
	return opts, nil
}

// selection checks --all, --target-group and --tag: the zero selection
// is refused (campaign refuses it too), an ARN's Region becomes the
// default of --region.
func (f *campaignPlanFlags) selection(cloud *cloudFlags) (campaign.Selection, error) {
	s := campaign.Selection{All: f.all}
	if !f.all && len(f.targetGroups)+len(f.tags) == 0 {
		return s, usagef("nothing to plan: pass --all, --target-group or --tag")
	}
	if f.all && len(f.targetGroups) > 0 {
		return s, usagef("--all and --target-group: give one (--tag narrows either)")
	}
	for _, v := range f.targetGroups {
		ref, err := parseTargetGroupRef("--target-group", v)
		if err != nil {
			return s, err
		}
		if ref.Name != "" {
			s.TargetGroupNames = append(s.TargetGroupNames, ref.Name)
			continue
		}
		if err := cloud.takeRegion("--target-group", ref.ARN); err != nil {
			return s, err
		}
		s.TargetGroupARNs = append(s.TargetGroupARNs, ref.ARN)
	}
	for _, t := range f.tags {
		k, v, _ := strings.Cut(t, "=")
		if strings.TrimSpace(k) == "" {
			return s, usagef("--tag %q: want KEY=VALUE or KEY", t)
		}
		if s.Tags == nil {
			s.Tags = map[string]string{}
		}
		s.Tags[k] = v
	}
	return s, nil
}

// checkClusterAccounts checks, before any call, each --cluster's account
// against the accounts of --assume-role: with several, each cluster names
// one of them; with one, a named account is it.
func checkClusterAccounts(specs []clusterSpec, roles []string) error {
	for _, s := range specs {
		switch {
		case len(roles) > 1 && s.Account == "":
			return usagef("--cluster %s: several accounts (--assume-role): add the one that serves it, %s@ACCOUNT_ID", s, s)
		case s.Account != "" && len(roles) > 0 && !contains(roles, s.Account):
			return usagef("--cluster %s: account %s is not one of --assume-role's (%s)", s, s.Account, strings.Join(roles, ", "))
		}
	}
	return nil
}

func (a *app) runCampaignPlan(cmd *cobra.Command, f *campaignPlanFlags) error {
	ctx := cmd.Context()
	specs, err := parseClusterSpecs(f.clusters)
	if err != nil {
		return err
	}
	if len(specs) == 0 {
		return usagef("--cluster is required: %s", clusterForm)
	}
	sel, err := f.selection(&a.cloud)
	if err != nil {
		return err
	}
	opts, err := f.options(cmd)
	if err != nil {
		return err
	}
	if err := checkClusterAccounts(specs, a.cloud.roleAccounts()); err != nil {
		return err
	}
	clients, err := a.campaignClients(ctx, campaignNeed{Clusters: specs, AWS: true, APIGateway: !f.noAPIGateway})
	if err != nil {
		return err
	}
	in, err := campaignInput(specs, clients, sel)
	if err != nil {
		return err
	}
	plan, err := campaign.PlanCampaign(ctx, in, append([]campaign.Option{campaign.WithClock(clients.clock()), campaign.WithLogger(a.log)}, opts...)...)
	if err != nil {
		if campaign.IsInvalidInput(err) {
			return asUsage(err)
		}
		return err
	}
	data, err := plan.JSON()
	if err != nil {
		return err
	}
	if f.out != "" {
		if err := os.WriteFile(f.out, data, 0o600); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
	}
	if a.format == "json" {
		_, err := a.stdout.Write(data)
		return err
	}
	fmt.Fprint(a.stdout, plan.Text())
	if f.out != "" {
		fmt.Fprintf(a.stderr, "plan saved to %s; run it with: %s campaign run --plan %s --journal ... --yes\n", f.out, cmd.Root().Name(), shellQuote(f.out))
	}
	return nil
}

// campaignInput is the planning input: every account of clients, and
// each cluster of specs with the account that serves it (its @ACCOUNT_ID,
// else the only account).
func campaignInput(specs []clusterSpec, clients *campaignClients, sel campaign.Selection) (campaign.Input, error) {
	in := campaign.Input{Selection: sel}
	ids := map[string]bool{}
	var list []string
	for _, acc := range clients.Accounts {
		in.Accounts = append(in.Accounts, campaign.Account{ID: acc.ID, Region: acc.Region, ELBv2: acc.ELBv2Read,
			ServiceQuotas: acc.ServiceQuotas, APIGateway: acc.APIGateway})
		ids[acc.ID] = true
		list = append(list, acc.ID)
	}
	for _, s := range specs {
		c := clients.Clusters[s.Name]
		account := s.Account
		switch {
		case account == "" && len(list) == 1:
			account = list[0]
		case account == "":
			return in, usagef("--cluster %s: several accounts: add the one that serves it, %s@ACCOUNT_ID", s, s)
		case !ids[account]:
			return in, usagef("--cluster %s: account %s is not one of the AWS flags' (%s)", s, account, strings.Join(list, ", "))
		}
		in.Clusters = append(in.Clusters, campaign.Cluster{Name: s.Name, Reader: c.Client, VPCID: c.VPCID, CIDRs: c.CIDRs,
			AccountID: account, Assumptions: c.Assumptions})
	}
	return in, nil
}

// readCampaignPlan reads a --plan file: a campaign plan whose digest
// matches (campaign.ParsePlan), or a usage error.
func readCampaignPlan(path string) (*campaign.Plan, error) {
	if path == "" {
		return nil, usagef(`--plan is required: the file of "tgmigrate campaign plan --out"`)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usagef("--plan: %v", err)
	}
	p, err := campaign.ParsePlan(data)
	if err != nil {
		return nil, usagef("--plan %s: not the campaign plan that was approved: %v", path, err)
	}
	return p, nil
}
