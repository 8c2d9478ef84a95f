package main

// simulate_campaign.go: simulate --scenario campaign: a fleet of two
// accounts and three clusters (the test kit's Fleet) under Karpenter's
// churn, planned by campaign.PlanCampaign as a user's is, run by
// campaign.Execute under the fleet's parallel clock, and measured: each
// target group's outcome and requests in its windows, the campaign's wall
// time against its critical path, the API calls per account.

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
	"github.com/qstools/tgmigrate/internal/sim/timing"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// scenarioCampaign is the fleet campaign's scenario.
const scenarioCampaign = "campaign"

// The campaign's worlds when --nodes, --pods and --churn-interval are
// not given: small clusters, so that the three of them run in seconds,
// and a churn that replaces each node about every eight minutes (four
// nodes, one every two minutes), where simulate's other scenarios' (20
// nodes, one a minute) replaces each every twenty.
const (
	campaignNodes         = 4
	campaignPods          = 6
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

// fleetCluster is one cluster of the campaign's fleet.
type fleetCluster struct {
	name, account string
}

// campaignFleet are the fleet's clusters: prod-a and prod-b share account
// A's ELBv2 service, staging is alone in account B.
var campaignFleet = []fleetCluster{
	{name: "prod-a", account: "111111111111"},
	{name: "prod-b", account: "111111111111"},
	{name: "staging", account: "222222222222"},
}

// campaignReport is the scenario's result, in simulate's JSON as
// "campaign". Every figure comes from the run.
type campaignReport struct {
	// Accounts are the fleet's accounts, in order, with their calls.
	Accounts []campaignAccount `json:"accounts"`
	// Clusters are the fleet's clusters.
	Clusters []campaignCluster `json:"clusters"`
	// TargetGroups are the plan's entries, in its order, with their
	// outcome and requests.
	TargetGroups []campaignTG `json:"targetGroups"`
	// LoadBalancers are the plan's per-load-balancer limits.
	LoadBalancers []campaignLB `json:"loadBalancers"`
	// Waves counts the plan's waves; ErrorBudget is Execute's.
	Waves       int `json:"waves"`
	ErrorBudget int `json:"errorBudget"`
	// CriticalPathSeconds is the plan's estimate of the campaign
	// (Plan.Estimate.TotalSeconds); SerialSeconds its cutovers one after
	// another.
	CriticalPathSeconds int `json:"criticalPathSeconds"`
	SerialSeconds       int `json:"serialSeconds"`
	// WallSeconds is Execute's time on the fleet's clock (Result.StartedAt
	// to FinishedAt); Ratio is WallSeconds over CriticalPathSeconds.
	WallSeconds float64 `json:"wallSeconds"`
	Ratio       float64 `json:"ratio"`
	// SettledPathSeconds is the critical path again (campaign.EstimateOf
	// over the plan's waves and limits) with what no plan can know: each
	// migrated target group its floor plus its settle, each failed one
	// its measured time. SettledRatio is WallSeconds over it.
	SettledPathSeconds int     `json:"settledPathSeconds"`
	SettledRatio       float64 `json:"settledRatio"`
	// ExecuteFromSeconds is Execute's start, from the fleet's origin (the
	// worlds warmed up); RunSeconds the fleet's whole run.
	ExecuteFromSeconds float64 `json:"executeFromSeconds"`
	RunSeconds         float64 `json:"runSeconds"`
	// Totals count the entries by status (Result.Totals); Completed and
	// Finished are the Result's.
	Totals    campaign.Totals `json:"totals"`
	Completed bool            `json:"completed"`
	Finished  bool            `json:"finished"`
	// Stop is Execute's error, when it returned one (a budget stop).
	Stop string `json:"stop,omitempty"`
	// PlanErrors are the plan's Errors.
	PlanErrors []string `json:"planErrors,omitempty"`
	// Assumptions say what the figures rest on.
	Assumptions []string `json:"assumptions"`
	// Error is the run's own failure (not a target group's): the row's
	// figures are then missing.
	Error string `json:"error,omitempty"`

	// plan and result are the campaign's, for the text.
	plan   *campaign.Plan
	result *campaign.Result
}

// campaignAccount is one account's clusters and the API calls its worlds
// counted (World.Calls: ELBv2, EC2 and Service Quotas, the code under
// test's), while planning and while executing.
type campaignAccount struct {
	ID           string   `json:"id"`
	Clusters     []string `json:"clusters"`
	PlanCalls    int      `json:"planCalls"`
	ExecuteCalls int      `json:"executeCalls"`
	Calls        int      `json:"calls"`
	// CutoverELBv2Calls are the ELBv2 calls of the campaign's cutovers in
	// the account, as Execute counted them (Result.Calls).
	CutoverELBv2Calls int `json:"cutoverELBv2Calls"`
}

// campaignCluster is one cluster of the fleet.
type campaignCluster struct {
	Name      string `json:"name"`
	AccountID string `json:"accountID"`
	Nodes     int    `json:"nodes"`
	Pods      int    `json:"pods"`
}

// campaignTG is one target group's outcome and traffic.
type campaignTG struct {
	Name           string `json:"name"`
	TargetGroupARN string `json:"targetGroupARN"`
	Cluster        string `json:"cluster"`
	AccountID      string `json:"accountID"`
	// Wave is its wave's name, "-" when blocked in the plan.
	Wave string `json:"wave"`
	// Status is its end state in the campaign journal.
	Status campaign.EntryStatus `json:"status"`
	// Reason says why it is blocked, failed or skipped; Next is the call
	// that moves it on.
	Reason string `json:"reason,omitempty"`
	Next   string `json:"next,omitempty"`
	// FromSeconds and ToSeconds bound its window (its entry's StartedAt to
	// FinishedAt, from the fleet's origin); zero when it never ran.
	FromSeconds float64 `json:"fromSeconds,omitempty"`
	ToSeconds   float64 `json:"toSeconds,omitempty"`
	// FloorSeconds is its cutover plan's floor; CutoverSeconds its
	// cutover's time (the campaign journal's summary); SettleSeconds the
	// part of it its hold step spent letting the disruptions Karpenter had
	// begun run out, which the floor leaves out (cutover.Result's
	// SettleSeconds).
	FloorSeconds   float64 `json:"floorSeconds,omitempty"`
	CutoverSeconds float64 `json:"cutoverSeconds,omitempty"`
	SettleSeconds  float64 `json:"settleSeconds,omitempty"`
	// Before, Window and After are its requests before its window, in
	// it, and after it to the run's end; for one that never ran, Before
	// is the whole run.
	Before campaignWindow `json:"before"`
	Window campaignWindow `json:"window"`
	After  campaignWindow `json:"after"`
}

// campaignWindow counts one window's requests.
type campaignWindow struct {
	Requests int `json:"requests"`
	Failed   int `json:"failed"`
}

// failed is the failed requests of every window.
func (t campaignTG) failed() int { return t.Before.Failed + t.Window.Failed + t.After.Failed }

// campaignLB is one load balancer's limit in the plan.
type campaignLB struct {
	ARN       string `json:"arn"`
	AccountID string `json:"accountID"`
	// Quota is its target quota, with where it comes from; Now its
	// targets at planning; Budget the room its overlaps share.
	Quota       int    `json:"quota"`
	QuotaSource string `json:"quotaSource"`
	Now         int    `json:"now"`
	Budget      int    `json:"budget"`
	// TargetGroups are its target groups' names; MaxConcurrent and Reason
	// the plan's bound on their overlaps.
	TargetGroups  []string `json:"targetGroups"`
	MaxConcurrent int      `json:"maxConcurrent"`
	Reason        string   `json:"reason,omitempty"`
}

// fleetOptions are the fleet's worlds under the flags: the seed (each
// cluster its own, from --seed), the churn, the timings.
func (f *simFlags) fleetOptions(tm timing.Timings) tgmigratetest.FleetOptions {
	nodes, pods := campaignNodes, campaignPods
	if f.nodesSet {
		nodes = f.nodes
	}
	if f.podsSet {
		pods = f.pods
	}
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
	for i, c := range campaignFleet {
		opts.Clusters = append(opts.Clusters, tgmigratetest.ClusterOptions{Name: c.name, AccountID: c.account, Options: tgmigratetest.Options{
			Seed: f.seed + uint64(i), Nodes: nodes, Pods: pods, RPS: f.rps, Churn: churn, Timings: kitTimings,
			ReadinessGateInjection: true,
		}})
	}
	return opts
}

// campaignChurnInterval is the churn's pace: --churn-interval, or
// campaignChurnInterval when it is not given.
func (f *simFlags) campaignChurnInterval() time.Duration {
	if f.churnIntervalSet {
		return f.churnInterval
	}
	return campaignChurnInterval
}

// campaignInput is the planning input of the fleet, as a user gives it:
// each account once, with its read-only ELBv2 and Service Quotas; each
// cluster served by its own account.
func campaignInput(fl *tgmigratetest.Fleet) campaign.Input {
	in := campaign.Input{Selection: campaign.Selection{All: true}}
	seen := map[string]bool{}
	for _, w := range fl.Worlds() {
		if !seen[w.AccountID()] {
			seen[w.AccountID()] = true
			in.Accounts = append(in.Accounts, campaign.Account{ID: w.AccountID(), Region: tgmigratetest.Region, ELBv2: w.ELBv2Read(), ServiceQuotas: w.ServiceQuotas()})
		}
		c := w.Cluster()
		in.Clusters = append(in.Clusters, campaign.Cluster{Name: c.Name, Reader: c.Reader, VPCID: c.VPCID, CIDRs: c.CIDRs,
			AccountID: w.AccountID(), Assumptions: w.Assumptions()})
	}
	return in
}

// campaignEnv is Execute's environment: the read-write clients, the
// campaign journal a ConfigMap in the first cluster.
func campaignEnv(fl *tgmigratetest.Fleet) (campaign.Env, error) {
	first := fl.Worlds()[0]
	j, err := campaign.NewConfigMapJournal(first.Client(), "default", campaignJournal)
	if err != nil {
		return campaign.Env{}, err
	}
	env := campaign.Env{Journal: j, Clock: fl.Clock(), Holder: "tgmigrate-simulate"}
	seen := map[string]bool{}
	for _, w := range fl.Worlds() {
		if !seen[w.AccountID()] {
			seen[w.AccountID()] = true
			env.Accounts = append(env.Accounts, campaign.AccountEnv{ID: w.AccountID(), Region: tgmigratetest.Region, ELBv2: w.ELBv2(), ServiceQuotas: w.ServiceQuotas()})
		}
		env.Clusters = append(env.Clusters, campaign.ClusterEnv{Name: w.ClusterName(), Client: w.Client(), VPCID: w.VPCID(), CIDRs: w.Cluster().CIDRs})
	}
	return env, nil
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

// trafficMeter counts a target group's requests at instants of the run:
// each target group is its world's only one, so its world's counts are
// its own.
type trafficMeter struct {
	mu    sync.Mutex
	world map[string]*tgmigratetest.World // by target group ARN
	// marks are each target group's counts at its window's start and end.
	start, end map[string]tgmigratetest.Requests
	// began and settled are when each target group's cutover began (its
	// entry's start) and when its hold step ended, the settle's end.
	began, settled map[string]time.Time
}

func newTrafficMeter(fl *tgmigratetest.Fleet) *trafficMeter {
	m := &trafficMeter{world: map[string]*tgmigratetest.World{}, start: map[string]tgmigratetest.Requests{}, end: map[string]tgmigratetest.Requests{},
		began: map[string]time.Time{}, settled: map[string]time.Time{}}
	for _, w := range fl.Worlds() {
		m.world[w.Legacy().TargetGroupARN.Raw] = w
	}
	return m
}

// mark records tg's counts now, as its window's start or end. The
// observer calls it from a participant of the fleet's Parallel, while no
// world's events run: the counts are those of the instant.
func (m *trafficMeter) mark(tg string, at time.Time, end bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	w := m.world[tg]
	if w == nil {
		return
	}
	if end {
		m.end[tg] = w.Requests()
		return
	}
	if _, ok := m.start[tg]; !ok {
		m.start[tg], m.began[tg] = w.Requests(), at
	}
}

// cutoverOptions watch each entry's cutover for the end of its hold step
// (simulate's settle: the disruptions Karpenter had begun before it,
// which no plan can know).
func (m *trafficMeter) cutoverOptions(clk interface{ Now() time.Time }) func(campaign.Entry) []cutover.Option {
	return func(e campaign.Entry) []cutover.Option {
		tg := e.TargetGroupARN.Raw
		return []cutover.Option{cutover.WithObserver(holdWatch{done: func() {
			m.mu.Lock()
			defer m.mu.Unlock()
			if _, ok := m.settled[tg]; !ok {
				m.settled[tg] = clk.Now()
			}
		}})}
	}
}

// settle is tg's settle, in seconds: from its cutover's start to its
// hold step's end; 0 when it has none.
func (m *trafficMeter) settle(tg string) float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok1 := m.began[tg]
	s, ok2 := m.settled[tg]
	if !ok1 || !ok2 || s.Before(b) {
		return 0
	}
	return s.Sub(b).Seconds()
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
	if a.onFleet != nil {
		a.onFleet(fl)
	}
	origin := fl.Clock().Now()
	atOrigin := map[string]tgmigratetest.Requests{}
	for _, w := range fl.Worlds() {
		atOrigin[w.Legacy().TargetGroupARN.Raw] = w.Requests()
	}
	fl.Run(f.leadIn)
	calls0 := callsByAccount(fl)
	plan, err := campaign.PlanCampaign(ctx, campaignInput(fl), campaign.WithClock(fl.Clock()))
	if err != nil {
		return nil, fmt.Errorf("plan the campaign: %w", err)
	}
	calls1 := callsByAccount(fl)
	env, err := campaignEnv(fl)
	if err != nil {
		return nil, fmt.Errorf("the campaign's journal: %w", err)
	}
	meter := newTrafficMeter(fl)
	obs := campaign.ObserverFuncs{
		OnEntryStarted:  func(e campaign.EntryEvent) { meter.mark(e.TargetGroupARN.Raw, e.At, false) },
		OnEntryFinished: func(e campaign.EntryEvent) { meter.mark(e.TargetGroupARN.Raw, e.At, true) },
	}
	res, execErr := campaign.Execute(ctx, env, plan, campaign.WithParallel(fl.Parallel),
		campaign.WithErrorBudget(campaignErrorBudget), campaign.WithObserver(obs), campaign.WithCutoverOptions(meter.cutoverOptions(fl.Clock())))
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
	for _, e := range plan.Errors {
		rep.PlanErrors = append(rep.PlanErrors, oneLine(e.Error()))
	}
	rep.fillClusters(f)
	rep.fillAccounts(fl, calls0, calls1, calls2)
	rep.fillTargetGroups(origin, atOrigin, meter)
	rep.fillLoadBalancers()
	if err := rep.settledPath(); err != nil {
		return nil, err
	}
	return rep, nil
}

// settledPath computes the critical path with the settles and failures
// the plan could not know, by the plan's own list scheduling.
func (r *campaignReport) settledPath() error {
	entries := slices.Clone(r.plan.Entries)
	for i, e := range entries {
		tg := r.TargetGroups[i]
		switch {
		case !e.Runnable():
		case tg.Status == campaign.StatusDone:
			entries[i].Seconds = e.Seconds + int(math.Round(tg.SettleSeconds))
		case tg.ToSeconds > 0:
			entries[i].Seconds = int(math.Round(tg.ToSeconds - tg.FromSeconds))
		}
	}
	est, _, err := campaign.EstimateOf(entries, r.plan.Waves, r.plan.Limits)
	if err != nil {
		return fmt.Errorf("the settled critical path: %w", err)
	}
	r.SettledPathSeconds = est.TotalSeconds
	if est.TotalSeconds > 0 {
		r.SettledRatio = r.WallSeconds / float64(est.TotalSeconds)
	}
	return nil
}

// fillClusters records each cluster and its size.
func (r *campaignReport) fillClusters(f *simFlags) {
	opts := f.fleetOptions(timing.Timings{})
	for _, c := range opts.Clusters {
		r.Clusters = append(r.Clusters, campaignCluster{Name: c.Name, AccountID: c.AccountID, Nodes: c.Options.Nodes, Pods: c.Options.Pods})
	}
}

// fillAccounts records each account's calls: before the plan (0: the
// worlds' warm-up makes none of the code under test's) to its end, then
// to Execute's end.
func (r *campaignReport) fillAccounts(fl *tgmigratetest.Fleet, calls0, calls1, calls2 map[string]int) {
	byAccount := map[string][]string{}
	var order []string
	for _, w := range fl.Worlds() {
		if byAccount[w.AccountID()] == nil {
			order = append(order, w.AccountID())
		}
		byAccount[w.AccountID()] = append(byAccount[w.AccountID()], w.ClusterName())
	}
	cut := map[string]int{}
	for key, ops := range r.result.Calls {
		id, _, _ := strings.Cut(key, "/")
		for _, n := range ops {
			cut[id] += n
		}
	}
	for _, id := range order {
		r.Accounts = append(r.Accounts, campaignAccount{ID: id, Clusters: byAccount[id],
			PlanCalls: calls1[id] - calls0[id], ExecuteCalls: calls2[id] - calls1[id], Calls: calls2[id], CutoverELBv2Calls: cut[id]})
	}
}

// fillTargetGroups records each entry's outcome and its windows'
// requests.
func (r *campaignReport) fillTargetGroups(origin time.Time, atOrigin map[string]tgmigratetest.Requests, m *trafficMeter) {
	states := map[string]campaign.EntryResult{}
	for _, e := range r.result.Entries {
		states[e.TargetGroupARN] = e
	}
	for _, e := range r.plan.Entries {
		arn := e.TargetGroupARN.Raw
		st := states[arn]
		tg := campaignTG{Name: e.Name, TargetGroupARN: arn, Cluster: e.Cluster, AccountID: e.AccountID, Wave: "-", Status: st.Status, Reason: st.Reason}
		if e.Wave >= 0 && e.Wave < len(r.plan.Waves) {
			tg.Wave = r.plan.Waves[e.Wave].Name
		}
		if e.Plan != nil {
			tg.FloorSeconds = float64(e.Plan.Estimate.FloorSeconds)
		}
		if st.Cutover != nil {
			tg.CutoverSeconds = st.Cutover.CutoverSeconds
		}
		if st.Error != "" {
			tg.Reason = st.Disposition + ": " + oneLine(st.Error)
		}
		if b := e.Blocked; b != nil {
			tg.Reason = string(b.Reason) + ": " + oneLine(b.Detail)
		}
		tg.Next = nextCall(tg, e)
		tg.SettleSeconds = m.settle(arn)
		w := m.world[arn]
		var last tgmigratetest.Requests
		if w != nil {
			last = w.Requests()
		}
		first := atOrigin[arn]
		m.mu.Lock()
		s, started := m.start[arn]
		en, ended := m.end[arn]
		m.mu.Unlock()
		switch {
		case started && ended && !st.StartedAt.IsZero():
			tg.FromSeconds, tg.ToSeconds = st.StartedAt.Sub(origin).Seconds(), st.FinishedAt.Sub(origin).Seconds()
			tg.Before = windowBetween(first, s)
			tg.Window = windowBetween(s, en)
			tg.After = windowBetween(en, last)
		default:
			tg.Before = windowBetween(first, last)
		}
		r.TargetGroups = append(r.TargetGroups, tg)
	}
}

// windowBetween counts the requests between two readings of one world's
// counts.
func windowBetween(from, to tgmigratetest.Requests) campaignWindow {
	return campaignWindow{Requests: to.Total - from.Total, Failed: to.Failed - from.Failed}
}

// nextCall says what moves a target group on: nothing once migrated; a
// blocked one's next call and what to do first; a failed one's fix, then
// a new campaign over it.
func nextCall(tg campaignTG, e campaign.Entry) string {
	switch {
	case tg.Status == campaign.StatusDone:
		return ""
	case e.Blocked != nil && e.Blocked.Reason == campaign.ReasonPrecondition:
		return "meet the precondition (or accept it: campaign.WithAcceptPreconditions), then campaign.PlanCampaign again"
	case e.Blocked != nil && e.Blocked.Next != nil:
		return string(e.Blocked.Next.Op)
	case tg.Status == campaign.StatusRolledBack || tg.Status == campaign.StatusFailed:
		return "fix the cause, then campaign.PlanCampaign with Selection.ARNs [" + tg.Name + "] and campaign.Execute"
	case tg.Status == campaign.StatusSkipped:
		return "campaign.Execute again once the failures are understood (the budget stopped it)"
	}
	return ""
}

// fillLoadBalancers records the plan's per-load-balancer limits.
func (r *campaignReport) fillLoadBalancers() {
	names, accounts := map[string]string{}, map[string]string{}
	for _, e := range r.plan.Entries {
		names[e.TargetGroupARN.Raw], accounts[e.TargetGroupARN.Raw] = e.Name, e.AccountID
	}
	for _, lb := range r.plan.Limits.LoadBalancers {
		row := campaignLB{ARN: lb.ARN, Quota: lb.Quota.Value, QuotaSource: string(lb.Quota.Source), Now: lb.Now, Budget: lb.Budget,
			MaxConcurrent: lb.MaxConcurrent, Reason: lb.Reason}
		for _, s := range lb.Shares {
			row.TargetGroups = append(row.TargetGroups, names[s.TargetGroupARN.Raw])
			row.AccountID = accounts[s.TargetGroupARN.Raw]
		}
		r.LoadBalancers = append(r.LoadBalancers, row)
	}
}

// campaignAssumptions are what the scenario's figures rest on.
func campaignAssumptions(f *simFlags, tm timing.Timings) []string {
	return []string{
		"AWS timings: " + tm.String() + "; API calls take no virtual time",
		"every plan at the product's defaults (cutover.Assumptions), not told the worlds' timings",
		fmt.Sprintf("Karpenter churn %s at a pace of %v in every cluster (--churn-interval), from the worlds' start", f.churn, f.campaignChurnInterval()),
		"every wave approved at once (Execute's default approval)",
		"the plan as PlanCampaign makes it, with no option but the fleet's clock",
	}
}
