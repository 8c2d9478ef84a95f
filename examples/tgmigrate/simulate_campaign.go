package main

// simulate_campaign.go: simulate --scenario campaign: a fleet of two
// accounts, three clusters and twelve target groups (the test kit's Fleet
// and Apps) under Karpenter's churn, planned by campaign.PlanCampaign as
// a user's is and run by campaign.Execute on the fleet's parallel clock;
// the fleet's layout, what the scenario arranges (a namespace without the
// readiness-gate label, a controller denied RegisterTargets on one target
// group, an ALB near its target quota), and the run.

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
	"github.com/qstools/tgmigrate/internal/sim/timing"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// scenarioCampaign is the fleet campaign's scenario.
const scenarioCampaign = "campaign"

// The campaign's worlds when --nodes, --pods and --churn-interval are
// not given: small clusters (every application --pods replicas), so
// that the three of them and their twelve applications run in seconds,
// and a churn that replaces each node about every eight minutes (four
// nodes, one every two minutes), where simulate's other scenarios' (20
// nodes, one a minute) replaces each every twenty.
const (
	campaignNodes         = 4
	campaignPods          = 4
	campaignChurnInterval = 2 * time.Minute
)

// campaignErrorBudget is the error budget the scenario's Execute runs
// with: the one target group whose controller fails is rolled back and
// the campaign goes on.
const campaignErrorBudget = 1

// campaignAfter is the least virtual time the fleet runs on after the
// campaign's end: every target group's window "after".
const campaignAfter = 2 * time.Minute

// campaignJournal is where the campaign journal lives: a ConfigMap in the
// first cluster's default namespace.
const campaignJournal = "tgmigrate-campaign"

// What the scenario arranges for one target group (campaignTG.Arranged).
const (
	arrangedUngated = "its namespace lacks the controller's readiness-gate label"
	arrangedDenied  = "the controller is denied elasticloadbalancing:RegisterTargets on it"
)

// The near-quota ALB: two target groups behind it, its quota just above
// what one overlap needs.
const nearALB = "near-alb"

// fleetApp is one application of a cluster beside the seed's "web".
type fleetApp struct {
	tgmigratetest.App
	// arranged is what the scenario does to it ("" nothing).
	arranged string
}

// fleetCluster is one cluster of the campaign's fleet.
type fleetCluster struct {
	name, account string
	apps          []fleetApp
}

// simFleet are the fleet's clusters and applications: prod-a and
// prod-b share account 111111111111's ELBv2 service, staging is alone in
// 222222222222; 5, 4 and 3 target groups (the seed's "web" and the
// apps'). prod-a's orders and search share near-alb; prod-b's pay lives
// in the namespace payments, which lacks the readiness-gate label;
// staging's jobs has its controller denied RegisterTargets.
var simFleet = []fleetCluster{
	{name: "prod-a", account: "111111111111", apps: []fleetApp{
		{App: tgmigratetest.App{Name: "api"}},
		{App: tgmigratetest.App{Name: "orders", LoadBalancerName: nearALB}},
		{App: tgmigratetest.App{Name: "search", LoadBalancerName: nearALB}},
		{App: tgmigratetest.App{Name: "media", LoadBalancerName: "media-alb"}},
	}},
	{name: "prod-b", account: "111111111111", apps: []fleetApp{
		{App: tgmigratetest.App{Name: "api"}},
		{App: tgmigratetest.App{Name: "pay", Namespace: "payments", LoadBalancerName: "pay-alb-b"}, arranged: arrangedUngated},
		{App: tgmigratetest.App{Name: "cart", LoadBalancerName: "cart-alb-b"}},
	}},
	{name: "staging", account: "222222222222", apps: []fleetApp{
		{App: tgmigratetest.App{Name: "api"}},
		{App: tgmigratetest.App{Name: "jobs", LoadBalancerName: "jobs-alb"}, arranged: arrangedDenied},
	}},
}

// campaignSize is the fleet's nodes per cluster and pods per
// application, from the flags or the campaign's defaults.
func (f *simFlags) campaignSize() (nodes, pods int) {
	nodes, pods = campaignNodes, campaignPods
	if f.nodesSet {
		nodes = f.nodes
	}
	if f.podsSet {
		pods = f.pods
	}
	return nodes, pods
}

// campaignQuota is every account's per-ALB target quota: near-alb starts
// with its two target groups' node targets, and one overlap adds an
// application's pods: the quota is one above that, so that two overlaps
// at once do not fit and the plan serializes them.
func (f *simFlags) campaignQuota() int {
	nodes, pods := f.campaignSize()
	return 2*nodes + pods + 1
}

// campaignChurnInterval is the churn's pace: --churn-interval, or
// campaignChurnInterval when it is not given.
func (f *simFlags) campaignChurnInterval() time.Duration {
	if f.churnIntervalSet {
		return f.churnInterval
	}
	return campaignChurnInterval
}

// fleetOptions are the fleet's worlds under the flags: the seed (each
// cluster its own, from --seed), the churn, the timings, the quota.
func (f *simFlags) fleetOptions(tm timing.Timings) tgmigratetest.FleetOptions {
	nodes, pods := f.campaignSize()
	interval := f.campaignChurnInterval()
	churn := tgmigratetest.Churn{Shape: tgmigratetest.ChurnShape(f.churn), Interval: interval}
	switch karpenter.Shape(f.churn) {
	case karpenter.ShapeWave:
		// As simulate's other scenarios: the first wave one interval into
		// the campaign, then one every ten intervals, a budget of 20%.
		churn.Interval, churn.Delay, churn.Budget = 10*interval, f.leadIn+interval, "20%"
	case karpenter.ShapeConsolidation:
		churn.Interval = 2 * interval
	case karpenter.ShapeExpiry, karpenter.ShapeSpot:
		churn.Interval = 3 * interval
	}
	kitTimings := tgmigratetest.Timings{
		NewTargetChecks: tm.NewTargetChecks, RegistrationDelay: tm.RegistrationDelay, DeregistrationLag: tm.DeregistrationLag,
		ConnectTimeout: tm.ConnectTimeout, FailOpenInitial: tm.FailOpenInitial, ControllerReaction: tm.ControllerReaction,
		// Calls take no virtual time (see campaignAssumptions).
		IPReuse: tgmigratetest.IPReuse{Enabled: tm.IPReuse.Enabled, CoolDown: tm.IPReuse.CoolDown, To: tgmigratetest.IPHolder(tm.IPReuse.To)},
	}
	var opts tgmigratetest.FleetOptions
	for i, c := range simFleet {
		o := tgmigratetest.Options{
			Seed: f.seed + uint64(i), Nodes: nodes, Pods: pods, RPS: f.rps, Churn: churn, Timings: kitTimings,
			ReadinessGateInjection: true, TargetsPerLoadBalancer: f.campaignQuota(),
		}
		for _, a := range c.apps {
			app := a.App
			// An app of a namespace of its own is labelled, but for the
			// one the scenario leaves without the label.
			app.ReadinessGateInjection = app.Namespace != "" && a.arranged != arrangedUngated
			o.Apps = append(o.Apps, app)
		}
		opts.Clusters = append(opts.Clusters, tgmigratetest.ClusterOptions{Name: c.name, AccountID: c.account, Options: o})
	}
	return opts
}

// fleetEnv is Execute's environment (tgmigratetest.Fleet.CampaignEnv):
// the read-write clients, the campaign journal a ConfigMap in the first
// cluster.
func fleetEnv(fl *tgmigratetest.Fleet) (campaign.Env, error) {
	j, err := campaign.NewConfigMapJournal(fl.Worlds()[0].Client(), "default", campaignJournal)
	if err != nil {
		return campaign.Env{}, err
	}
	return fl.CampaignEnv(j, "tgmigrate-simulate"), nil
}

// fleetCase is one target group of the fleet: its world, its case, and
// what the scenario arranged for it.
type fleetCase struct {
	world    *tgmigratetest.World
	legacy   tgmigratetest.Legacy
	arranged string
}

// fleetCases are the fleet's target groups by ARN, in the fleet's order.
func fleetCases(fl *tgmigratetest.Fleet) (map[string]fleetCase, []string) {
	out, order := map[string]fleetCase{}, []string{}
	for i, w := range fl.Worlds() {
		add := func(l tgmigratetest.Legacy, arranged string) {
			out[l.TargetGroupARN.Raw] = fleetCase{world: w, legacy: l, arranged: arranged}
			order = append(order, l.TargetGroupARN.Raw)
		}
		add(w.Legacy(), "")
		for k, l := range w.Apps() {
			add(l, simFleet[i].apps[k].arranged)
		}
	}
	return out, order
}

// arrange does what the scenario arranges once the fleet is built: the
// controller denied RegisterTargets on the target group of the app
// marked so (the namespace's label is an option of the world).
func arrange(fl *tgmigratetest.Fleet, cases map[string]fleetCase) error {
	for _, c := range cases {
		if c.arranged == arrangedDenied {
			if err := c.world.DenyControllerOn("RegisterTargets", c.legacy.TargetGroupARN); err != nil {
				return err
			}
		}
	}
	return nil
}

// runCampaign builds the fleet, plans the campaign, runs it and measures
// it. An error is the run's own (the fleet, the plan, Execute's
// environment); a target group's failure is its row.
func (a *app) runCampaign(ctx context.Context, f *simFlags, tm timing.Timings) (*campaignReport, error) {
	fl, err := tgmigratetest.NewFleet(ctx, f.fleetOptions(tm))
	if err != nil {
		return nil, fmt.Errorf("build the fleet: %w", err)
	}
	defer fl.Close()
	cases, order := fleetCases(fl)
	if err := arrange(fl, cases); err != nil {
		return nil, fmt.Errorf("arrange the fleet: %w", err)
	}
	origin := fl.Clock().Now()
	fl.Run(f.leadIn)
	calls0 := callsByAccount(fl)
	plan, err := campaign.PlanCampaign(ctx, fl.CampaignInput(campaign.Selection{All: true}), campaign.WithClock(fl.Clock()))
	if err != nil {
		return nil, fmt.Errorf("plan the campaign: %w", err)
	}
	calls1 := callsByAccount(fl)
	env, err := fleetEnv(fl)
	if err != nil {
		return nil, fmt.Errorf("the campaign's journal: %w", err)
	}
	settles := newSettleWatch(fl.Clock())
	// The live view, as tgmigrate campaign run draws it, once: when the
	// first target group after the canaries ends.
	steps := campaign.NewStepTracker()
	var snap struct {
		progress *campaign.Progress
		after    string
	}
	obs := campaign.ObserverFuncs{OnEntryFinished: func(e campaign.EntryEvent) {
		if e.Wave < 1 || snap.progress != nil {
			return
		}
		if pr, err := steps.Status(ctx, plan, env.Journal, e.At); err == nil {
			snap.progress, snap.after = pr, fmt.Sprintf("%s (%s) %s", e.Name, e.Cluster, e.Status)
		}
	}}
	res, execErr := campaign.Execute(ctx, env, plan, campaign.WithParallel(fl.Parallel), campaign.WithErrorBudget(campaignErrorBudget),
		campaign.WithObserver(obs), campaign.WithCutoverOptions(func(e campaign.Entry) []cutover.Option {
			return steps.Options(e, settles.observer(e))
		}))
	if res == nil {
		return nil, fmt.Errorf("execute the campaign: %w", execErr)
	}
	calls2 := callsByAccount(fl)
	end := origin.Add(f.leadIn + f.duration)
	if least := fl.Clock().Now().Add(campaignAfter); end.Before(least) {
		end = least
	}
	fl.Run(end.Sub(fl.Clock().Now()))

	rep := &campaignReport{plan: plan, result: res, Waves: len(plan.Waves), ErrorBudget: campaignErrorBudget,
		TargetsPerLoadBalancer: f.campaignQuota(), DeregistrationLagSeconds: tm.Lag().Seconds(),
		CriticalPathSeconds: plan.Estimate.TotalSeconds, SerialSeconds: plan.Estimate.SerialSeconds,
		WallSeconds: res.FinishedAt.Sub(res.StartedAt).Seconds(), ExecuteFromSeconds: res.StartedAt.Sub(origin).Seconds(),
		RunSeconds: end.Sub(origin).Seconds(), Totals: res.Totals, Completed: res.Completed, Finished: res.Finished,
		Assumptions: campaignAssumptions(f, tm)}
	if plan.Estimate.TotalSeconds > 0 {
		rep.Ratio = rep.WallSeconds / float64(plan.Estimate.TotalSeconds)
	}
	if execErr != nil {
		rep.Stop = oneLine(execErr.Error())
	}
	rep.Progress, rep.progressAfter = snap.progress, snap.after
	for _, e := range plan.Errors {
		rep.PlanErrors = append(rep.PlanErrors, oneLine(e.Error()))
	}
	rep.fillClusters(f)
	rep.fillAccounts(fl, calls0, calls1, calls2)
	if err := rep.fillTargetGroups(cases, order, origin, end, settles); err != nil {
		return nil, err
	}
	rep.fillLoadBalancers(cases, order)
	if err := rep.settledPath(); err != nil {
		return nil, err
	}
	meter := func(tg tgmigrate.ARN, from, to time.Time) (campaign.TrafficCount, bool) {
		c, ok := cases[tg.Raw]
		if !ok {
			return campaign.TrafficCount{}, false
		}
		q := c.world.RequestsBetween(tg, from, to)
		return campaign.TrafficCount{Total: q.Total, Served: q.Served, Failed: q.Failed}, true
	}
	if rep.Report, err = campaign.NewReport(plan, res, campaign.WithTraffic("simulator", meter)); err != nil {
		return nil, fmt.Errorf("the campaign's report: %w", err)
	}
	if a.onCampaign != nil {
		a.onCampaign(fl, rep)
	}
	return rep, nil
}

// settleWatch records when each cutover's hold step ended: simulate's
// settle, the disruptions Karpenter had begun before it, which no plan
// can know.
type settleWatch struct {
	clk interface{ Now() time.Time }
	mu  sync.Mutex
	at  map[string]time.Time
}

func newSettleWatch(clk interface{ Now() time.Time }) *settleWatch {
	return &settleWatch{clk: clk, at: map[string]time.Time{}}
}

// observer is entry e's observer of its hold step.
func (s *settleWatch) observer(e campaign.Entry) cutover.Observer {
	tg := e.TargetGroupARN.Raw
	return holdWatch{done: func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if _, ok := s.at[tg]; !ok {
			s.at[tg] = s.clk.Now()
		}
	}}
}

// settled returns when tg's hold step ended, if it did.
func (s *settleWatch) settled(tg string) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.at[tg]
	return t, ok
}

// callsByAccount sums the worlds' calls per account.
func callsByAccount(fl *tgmigratetest.Fleet) map[string]int {
	out := map[string]int{}
	for _, w := range fl.Worlds() {
		for _, n := range w.Calls() {
			out[w.AccountID()] += n
		}
	}
	return out
}

// campaignAssumptions are what the scenario's figures rest on.
func campaignAssumptions(f *simFlags, tm timing.Timings) []string {
	return []string{
		"AWS timings: " + tm.String() + "; API calls take no virtual time",
		"every plan at the product's defaults (cutover.Assumptions), not told the worlds' timings",
		fmt.Sprintf("Karpenter churn %s at a pace of %v in every cluster (--churn-interval), from the worlds' start", f.churn, f.campaignChurnInterval()),
		fmt.Sprintf("every ALB's target quota %d in both accounts (Service Quotas answers it, ELBv2 enforces it)", f.campaignQuota()),
		"every wave approved at once (Execute's default approval)",
		"the plan as PlanCampaign makes it, with no option but the fleet's clock",
	}
}
