package main

// campaign_run.go: campaign run: its flags and their checks against the
// plan before any call (the clusters, the accounts, the journal, the
// error budget through campaign's own check), the dry run, the approval
// of each wave (a prompt on a terminal, --approve-waves, else refused),
// the result, the exit code, and the command line that resumes an
// interrupted run. Its live view and report files are campaign_status.go's.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/textcell"
)

// campaignRunFlags are campaign run's flags (and, but for the run's own,
// campaign status's).
type campaignRunFlags struct {
	plan         string
	journal      string
	clusters     []string
	holder       string
	errorBudget  int
	yes          bool
	approveWaves bool
	// permissions prints what the run needs and runs nothing.
	permissions bool
	// report and reportJSON are the files of the final report.
	report, reportJSON string
}

func (f *campaignRunFlags) registerSource(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.plan, "plan", "", `the plan file written by "tgmigrate campaign plan --out"`)
	fl.StringVar(&f.journal, "journal", "", "the campaign journal: "+journalForm+" (CLUSTER one of --cluster)")
	fl.StringArrayVar(&f.clusters, "cluster", nil, "a cluster of the plan, NAME[=CONTEXT][@ACCOUNT_ID] (repeatable; as campaign plan takes it)")
}

func (a *app) campaignRunCommand() *cobra.Command {
	f := &campaignRunFlags{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run a saved campaign plan, wave by wave (a dry run unless --yes); resumes from its journal",
		Long: `run runs a plan saved by "tgmigrate campaign plan --out", and only that plan: its
digest is checked first. Every runnable target group's cutover runs as
"tgmigrate execute" runs one (its own journal and Lease), wave by wave, under
the plan's limits; before each wave after the first it asks for an approval
(on a terminal; --approve-waves approves them all; elsewhere the wave is
refused). The campaign journal (--journal: a file, or a ConfigMap in one of
the clusters, which any machine can run or resume from) records each target
group's state: run again after an interruption to resume. After more
failures than --error-budget no target group starts any more (a failed one
is rolled back by its cutover). Without --yes it shows what would run and
changes nothing.

Exit 0 when every runnable target group is done, 1 when the campaign is not
completed (stopped, a wave not approved, target groups blocked or skipped),
3 when a target group failed.`,
		Example: `  tgmigrate campaign run --plan campaign.json --journal configmap:prod-a/tgmigrate/campaign \
    --cluster prod-a=ctx-a --cluster staging=ctx-s          # dry run
  tgmigrate campaign run --plan campaign.json --journal file:campaign-journal.json --cluster prod=prod-ctx --yes --approve-waves`,
		Args: cobra.NoArgs,
		RunE: wrapRun(func(cmd *cobra.Command, _ []string) error { return a.runCampaignRun(cmd, f) }),
	}
	f.registerSource(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.holder, "holder", "", "this runner's identity in the journal and the cutovers' Leases (default: HOSTNAME-PID, cutover.DefaultHolder; a resume with the same one takes its Leases back at once)")
	fl.IntVar(&f.errorBudget, "error-budget", 0, fmt.Sprintf("failed target groups tolerated before no more start (default %d, campaign's)", campaign.DefaultErrorBudget))
	fl.BoolVar(&f.yes, "yes", false, "really run (default: show what would run, changing nothing)")
	fl.BoolVar(&f.approveWaves, "approve-waves", false, "approve every wave without a prompt (for automation)")
	fl.BoolVar(&f.permissions, "permissions", false, "print what the run needs as JSON (campaign.ExecutePermissions: per account its IAM policy, per cluster its RBAC rules, the journal ConfigMap's rules) and run nothing")
	fl.StringVar(&f.report, "report", "", "write the final report as Markdown to this file (per account, cluster and target group)")
	fl.StringVar(&f.reportJSON, "report-json", "", "write the final report as JSON to this file (campaign.ReportSchema)")
	a.addFormatFlag(cmd, "text", "json")
	a.addClusterFlags(cmd)
	a.addAWSFlags(cmd)
	a.addServiceQuotasFlag(cmd)
	return cmd
}

// campaignSource is a checked plan, its journal and its clusters.
type campaignSource struct {
	plan     *campaign.Plan
	journal  journalSpec
	clusters []clusterSpec
}

// source checks --plan, --journal and --cluster before any call: the plan
// is the one approved, every --cluster is one of its clusters (its
// account the plan's), the journal's cluster a --cluster. With
// allClusters, every cluster of a runnable entry must be given.
func (f *campaignRunFlags) source(allClusters bool) (*campaignSource, error) {
	j, err := parseJournalSpec(f.journal)
	if err != nil {
		return nil, err
	}
	specs, err := parseClusterSpecs(f.clusters)
	if err != nil {
		return nil, err
	}
	p, err := readCampaignPlan(f.plan)
	if err != nil {
		return nil, err
	}
	account := map[string]string{}
	for _, c := range p.Clusters {
		account[c.Name] = c.AccountID
	}
	given := map[string]bool{}
	for _, s := range specs {
		want, ok := account[s.Name]
		switch {
		case !ok:
			return nil, usagef("--cluster %s: cluster %s is not in the plan (its clusters: %s)", s, s.Name, strings.Join(clusterNames(p), ", "))
		case s.Account != "" && s.Account != want:
			return nil, usagef("--cluster %s: the plan has cluster %s in account %s", s, s.Name, want)
		}
		given[s.Name] = true
	}
	if j.Cluster != "" && !given[j.Cluster] {
		return nil, usagef("--journal configmap:%s/%s/%s: give cluster %s's context too, --cluster %s=CONTEXT", j.Cluster, j.Namespace, j.Name, j.Cluster, j.Cluster)
	}
	if allClusters {
		for _, e := range p.Entries {
			if e.Runnable() && !given[e.Cluster] {
				return nil, usagef("--cluster: the plan runs target groups in cluster %s: add --cluster %s=CONTEXT", e.Cluster, e.Cluster)
			}
		}
	}
	return &campaignSource{plan: p, journal: j, clusters: specs}, nil
}

// clusterNames returns the plan's clusters' names.
func clusterNames(p *campaign.Plan) []string {
	var out []string
	for _, c := range p.Clusters {
		out = append(out, c.Name)
	}
	return out
}

// runAccounts returns the accounts the plan's runnable entries run in,
// in the plan's order, and their one Region; several Regions are a usage
// error (the AWS flags name one).
func runAccounts(p *campaign.Plan) (ids []string, region string, err error) {
	clusterAccount := map[string]string{}
	for _, c := range p.Clusters {
		clusterAccount[c.Name] = c.AccountID
	}
	need := map[string]bool{}
	for _, e := range p.Entries {
		if e.Runnable() {
			need[clusterAccount[e.Cluster]] = true
		}
	}
	for _, acc := range p.Accounts {
		if !need[acc.ID] {
			continue
		}
		if region != "" && acc.Region != region {
			return nil, "", usagef("--plan: the plan runs in Regions %s and %s: the AWS flags name one", region, acc.Region)
		}
		region = acc.Region
		ids = append(ids, acc.ID)
	}
	return ids, region, nil
}

// checkRunAccounts checks the AWS flags against the plan's accounts
// before any call: --region is the plan's (its default), and with
// --assume-role every account the plan runs in has one.
func (a *app) checkRunAccounts(p *campaign.Plan) ([]string, error) {
	ids, region, err := runAccounts(p)
	if err != nil {
		return nil, err
	}
	switch {
	case a.cloud.region == "":
		a.cloud.region, a.cloud.regionFrom = region, "--plan"
	case region != "" && a.cloud.region != region:
		return nil, usagef("--region %s: the plan runs in %s", a.cloud.region, region)
	}
	if roles := a.cloud.roleAccounts(); len(roles) > 0 {
		for _, id := range ids {
			if !contains(roles, id) {
				return nil, usagef("--assume-role: the plan runs target groups in account %s: add a role of that account", id)
			}
		}
	}
	return ids, nil
}

func (a *app) runCampaignRun(cmd *cobra.Command, f *campaignRunFlags) error {
	ctx := cmd.Context()
	if f.permissions {
		return a.printCampaignPermissions(cmd, f)
	}
	src, err := f.source(true)
	if err != nil {
		return err
	}
	ids, err := a.checkRunAccounts(src.plan)
	if err != nil {
		return err
	}
	var opts []campaign.ExecuteOption
	if cmd.Flags().Changed("error-budget") {
		opts = append(opts, campaign.WithErrorBudget(f.errorBudget))
		if err := optionError(campaign.ValidateExecuteOptions(opts...), map[string]string{"--error-budget": fmt.Sprint(f.errorBudget)}); err != nil {
			return err
		}
	}
	if cmd.Flags().Changed("holder") && strings.TrimSpace(f.holder) == "" {
		return usagef("--holder %q: want this runner's identity, not empty", f.holder)
	}
	holder := f.holder
	if holder == "" {
		holder = cutover.DefaultHolder()
		// The resume line names it: a resume with the same identity
		// takes this run's Leases back at once.
		_ = cmd.Flags().Set("holder", holder)
	}
	if !f.yes {
		a.campaignDryRun(src, holder)
		return nil
	}
	clients, err := a.campaignClients(ctx, campaignNeed{Clusters: src.clusters, AWS: true})
	if err != nil {
		return err
	}
	env, err := a.campaignEnv(src, clients, ids, holder)
	if err != nil {
		return err
	}
	view := &liveView{w: a.stderr, redraw: isTTY(a.stderr), ctx: ctx, plan: src.plan, j: env.Journal, clock: env.Clock, steps: campaign.NewStepTracker()}
	opts = append(opts, campaign.WithApproval(a.approveWave(f.approveWaves)), campaign.WithObserver(view.observer()),
		campaign.WithCutoverOptions(view.cutoverOptions))
	if clients.Parallel != nil {
		opts = append(opts, campaign.WithParallel(clients.Parallel))
	}
	res, err := campaign.Execute(ctx, env, src.plan, opts...)
	if res != nil {
		if rerr := writeReports(src.plan, res, f.report, f.reportJSON); rerr != nil {
			return rerr
		}
	}
	return a.campaignOutcome(cmd, res, err)
}

// campaignDryRun shows what a run would do (the plan, in --format, and
// where it would journal), changing nothing and calling nothing.
// printCampaignPermissions prints campaign.ExecutePermissions of the plan
// and the journal as JSON, with no call: what the run's roles and service
// accounts need. --cluster is not needed (the plan names the clusters);
// --yes, --approve-waves and the report files are refused with it.
func (a *app) printCampaignPermissions(cmd *cobra.Command, f *campaignRunFlags) error {
	for _, name := range []string{"yes", "approve-waves", "report", "report-json"} {
		if cmd.Flags().Changed(name) {
			return usagef("--permissions and --%s: --permissions prints what a run needs and runs nothing", name)
		}
	}
	if a.format != "json" && cmd.Flags().Changed("format") {
		return usagef("--permissions prints JSON: drop --format %s", a.format)
	}
	src, err := f.source(false)
	if err != nil {
		return err
	}
	perms, err := campaign.ExecutePermissions(src.plan, src.journal.Name)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(perms, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(a.stdout, "%s\n", data)
	return err
}

func (a *app) campaignDryRun(src *campaignSource, holder string) {
	if a.format == "text" {
		fmt.Fprint(a.stdout, src.plan.Text())
	} else if data, err := src.plan.JSON(); err == nil {
		_, _ = a.stdout.Write(data)
	}
	runnable := 0
	for _, e := range src.plan.Entries {
		if e.Runnable() {
			runnable++
		}
	}
	where := "file " + src.journal.Path
	if src.journal.Path == "" {
		where = fmt.Sprintf("configmap %s/%s in cluster %s", src.journal.Namespace, src.journal.Name, src.journal.Cluster)
	}
	fmt.Fprintf(a.stderr, "dry run: nothing was changed; with --yes, %s in %s would run (or resume) as %s, journaled in %s\n",
		textcell.Plural(runnable, "target group", "target groups"), textcell.Plural(len(src.plan.Waves), "wave", "waves"), holder, where)
}

// campaignEnv is campaign's Env: every account the plan runs in (a usage
// error when the AWS flags lack one), every --cluster, the journal.
func (a *app) campaignEnv(src *campaignSource, clients *campaignClients, ids []string, holder string) (campaign.Env, error) {
	j, err := src.journal.journal(clients)
	if err != nil {
		return campaign.Env{}, err
	}
	env := campaign.Env{Journal: j, Clock: clients.clock(), Logger: a.log, Holder: holder}
	have := map[string]bool{}
	for _, acc := range clients.Accounts {
		env.Accounts = append(env.Accounts, campaign.AccountEnv{ID: acc.ID, Region: acc.Region, ELBv2: acc.ELBv2, EC2: acc.EC2, ServiceQuotas: acc.ServiceQuotas})
		have[acc.ID] = true
	}
	for _, id := range ids {
		if !have[id] {
			return campaign.Env{}, usagef("the plan runs target groups in account %s, which the AWS flags do not reach: add --assume-role for it", id)
		}
	}
	for _, s := range src.clusters {
		c := clients.Clusters[s.Name]
		env.Clusters = append(env.Clusters, campaign.ClusterEnv{Name: s.Name, Client: c.Client, VPCID: c.VPCID, CIDRs: c.CIDRs})
	}
	return env, nil
}

// errNotApproved is the refusal of a wave on a non-terminal stdin.
var errNotApproved = errors.New("stdin is not a terminal: pass --approve-waves to approve every wave")

// approveWave is the approval of each wave after the first: given with
// --approve-waves, asked on a terminal, else refused.
func (a *app) approveWave(all bool) campaign.WaveApproval {
	return func(_ context.Context, _ int, w campaign.Wave) error {
		what := fmt.Sprintf("%s (%s)", w.Name, textcell.Plural(len(w.TargetGroupARNs), "target group", "target groups"))
		if all {
			fmt.Fprintf(a.stderr, "%s approved (--approve-waves)\n", what)
			return nil
		}
		in, ok := a.stdin.(*os.File)
		if !ok || !isTTY(a.stderr) || !isTTYFile(in) {
			return fmt.Errorf("%s needs an approval: %w", what, errNotApproved)
		}
		if !a.ask(fmt.Sprintf("Start %s? Type yes to go ahead: ", what), "yes") {
			return fmt.Errorf("%s: not approved at the prompt", what)
		}
		return nil
	}
}

// campaignOutcome prints a run's result and returns its exit: a bad plan,
// env or journal exits 2; a stop prints the line that resumes; a failed
// target group exits 3, a campaign not completed 1.
func (a *app) campaignOutcome(cmd *cobra.Command, res *campaign.Result, err error) error {
	var stop *campaign.StopError
	if errors.As(err, &stop) {
		resume := rerunCommand(cmd, "campaign run", "journal", "cluster", "holder", "error-budget", "approve-waves", "no-service-quotas", "report", "report-json")
		switch stop.Reason {
		case campaign.StopCancelled, campaign.StopInterrupted:
			fmt.Fprintf(a.stderr, "\ninterrupted; the journal holds the progress, every running cutover is resumable.\n  resume: %s\n", resume)
		case campaign.StopNotApproved:
			fmt.Fprintf(a.stderr, "\n%s\n  resume: %s\n", oneLine(stop.Detail+": "+fmt.Sprint(stop.Err)), resume)
		}
	}
	if res != nil {
		if perr := a.printCampaignResult(res); perr != nil {
			return perr
		}
	}
	switch {
	case err != nil && stop == nil:
		if campaign.IsInvalidInput(err) || errors.Is(err, campaign.ErrJournalMismatch) {
			return asUsage(err)
		}
		return err
	case stop != nil && stop.Reason == campaign.StopBudget:
		return &failedError{err: err}
	case res != nil && res.Totals.Failed+res.Totals.RolledBack > 0:
		return &failedError{err: fmt.Errorf("campaign %s: %d of %d target groups failed", res.PlanID, res.Totals.Failed+res.Totals.RolledBack, res.Totals.Entries)}
	case stop != nil:
		return &findingsError{summary: "campaign not completed: " + oneLine(stop.Detail)}
	case res != nil && !res.Completed:
		t := res.Totals
		return &findingsError{summary: fmt.Sprintf("campaign %s not completed: %d done, %d blocked, %d skipped, %d pending", res.PlanID, t.Done, t.Blocked, t.Skipped, t.Pending+t.Running)}
	}
	return nil
}

// printCampaignResult prints res in --format.
func (a *app) printCampaignResult(res *campaign.Result) error {
	if a.format == "json" {
		data, err := res.JSON()
		if err != nil {
			return err
		}
		_, err = a.stdout.Write(data)
		return err
	}
	fmt.Fprint(a.stdout, res.Text())
	return nil
}
