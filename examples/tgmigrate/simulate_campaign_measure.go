package main

// simulate_campaign_measure.go: what simulate --scenario campaign
// reports (campaignReport, in simulate's JSON as "campaign") and how it
// is measured from the run: each target group's windows and their
// requests (World.RequestsBetween), those of its failed ones no call at
// its start could have saved (World.FailedUnderWay), those lost after it
// to its load balancer's target quota (World.FailedAtQuota), its settle, the
// wall time against the critical path, the calls per account
// (World.Calls), each load balancer's peak of targets
// (World.PeakTargets) against its quota.

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// campaignReport is the scenario's result, in simulate's JSON as
// "campaign". Every figure comes from the run.
type campaignReport struct {
	// Accounts are the fleet's accounts, in order, with their calls.
	Accounts []fleetAccountRow `json:"accounts"`
	// Clusters are the fleet's clusters.
	Clusters []fleetClusterRow `json:"clusters"`
	// TargetsPerLoadBalancer is the per-ALB target quota each account's
	// ELBv2 enforces and its Service Quotas answers.
	TargetsPerLoadBalancer int `json:"targetsPerLoadBalancer"`
	// TargetGroups are the plan's entries, in its order, with their
	// outcome and requests.
	TargetGroups []campaignTG `json:"targetGroups"`
	// LoadBalancers are the fleet's load balancers: each one's peak of
	// targets against its quota, and the plan's limit on it.
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
	// migrated target group the floor of the plan that ran plus its
	// settle, each failed one its measured time. SettledRatio is WallSeconds over it.
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
	// DeregistrationLagSeconds is the worlds' deregistration lag: how long
	// after a target's deregistration the load balancer still sends it
	// requests (the span of a target group's FailedUnderWayAtStart).
	DeregistrationLagSeconds float64 `json:"deregistrationLagSeconds"`
	// Error is the run's own failure (not a target group's): the row's
	// figures are then missing.
	Error string `json:"error,omitempty"`
	// Report is the campaign's own report (campaign.NewReport), each
	// target group's requests in its cutover window measured by the
	// simulator (World.RequestsBetween).
	Report *campaign.Report `json:"report,omitempty"`
	// Progress is the campaign's progress (campaign.StepTracker.Status:
	// the journal and each running cutover's step) when the first target
	// group after the canary wave ended: the live view tgmigrate campaign
	// run draws, once.
	Progress *campaign.Progress `json:"progress,omitempty"`
	// progressAfter names the entry whose end Progress follows.
	progressAfter string

	// plan and result are the campaign's, for the text.
	plan   *campaign.Plan
	result *campaign.Result
}

// fleetAccountRow is one account's clusters and the API calls its worlds
// counted (World.Calls: ELBv2, EC2 and Service Quotas, the code under
// test's), while planning and while executing.
type fleetAccountRow struct {
	ID           string   `json:"id"`
	Clusters     []string `json:"clusters"`
	PlanCalls    int      `json:"planCalls"`
	ExecuteCalls int      `json:"executeCalls"`
	Calls        int      `json:"calls"`
	// CutoverELBv2Calls are the ELBv2 calls of the campaign's cutovers in
	// the account, as Execute counted them (Result.Calls).
	CutoverELBv2Calls int `json:"cutoverELBv2Calls"`
}

// fleetClusterRow is one cluster of the fleet.
type fleetClusterRow struct {
	Name      string `json:"name"`
	AccountID string `json:"accountID"`
	Nodes     int    `json:"nodes"`
	// Apps are its applications, the seed's "web" first, each with its
	// own target group; Pods is each one's replica count.
	Apps []string `json:"apps"`
	Pods int      `json:"pods"`
}

// campaignTG is one target group's outcome and traffic.
type campaignTG struct {
	Name           string `json:"name"`
	TargetGroupARN string `json:"targetGroupARN"`
	Cluster        string `json:"cluster"`
	AccountID      string `json:"accountID"`
	// App is its application (namespace/Service); LoadBalancer the name
	// of the ALB in front of it.
	App          string `json:"app"`
	LoadBalancer string `json:"loadBalancer"`
	// Arranged is what the scenario arranged for it: "" (nothing),
	// "no readiness-gate label", "controller denied RegisterTargets".
	Arranged string `json:"arranged,omitempty"`
	// Wave is its wave's name, "-" when blocked in the plan.
	Wave string `json:"wave"`
	// Status is its end state in the campaign journal.
	Status campaign.EntryStatus `json:"status"`
	// Reason says why it is blocked, failed or skipped; Next is the call
	// that moves it on.
	Reason string `json:"reason,omitempty"`
	Next   string `json:"next,omitempty"`
	// FromSeconds and ToSeconds bound its window (its entry's StartedAt to
	// FinishedAt, from the fleet's origin, the second FinishedAt falls in
	// included); zero when it never ran.
	FromSeconds float64 `json:"fromSeconds,omitempty"`
	ToSeconds   float64 `json:"toSeconds,omitempty"`
	// FloorSeconds is its cutover plan's floor (of the plan that ran, a
	// re-plan's when the approved one was stale); CutoverSeconds its
	// cutover's time (the campaign journal's summary); SettleSeconds the
	// part of it its hold step spent letting the disruptions Karpenter had
	// begun run out, which the floor leaves out (cutover.Result's
	// SettleSeconds).
	FloorSeconds   float64 `json:"floorSeconds,omitempty"`
	CutoverSeconds float64 `json:"cutoverSeconds,omitempty"`
	SettleSeconds  float64 `json:"settleSeconds,omitempty"`
	// Replanned says what changed when its cutover plan, stale when it
	// was to start (the churn moved its targets), was made again
	// (EntryState.Replan); nil when it ran as planned.
	Replanned []string `json:"replanned,omitempty"`
	// Before, Window and After are its requests before its window, in
	// it, and after it to the run's end; for one that never ran, Before
	// is the whole run.
	Before campaignWindow `json:"before"`
	Window campaignWindow `json:"window"`
	After  campaignWindow `json:"after"`
	// FailedUnderWayAtStart is, of its failed requests from its window's
	// start on (Window's and After's), those no call made at that start
	// could have saved (World.FailedUnderWay): sent within the world's
	// deregistration lag of it to targets of nodes Karpenter had begun to
	// replace before it (its cutover's first act retires those targets,
	// and the load balancer still sends them requests for the lag, their
	// nodes gone or going whatever the hold says). UnderWayNodes are those
	// nodes. Zero when it never ran.
	FailedUnderWayAtStart int      `json:"failedUnderWayAtStart"`
	UnderWayNodes         []string `json:"underWayNodes,omitempty"`
	// FailedAtQuotaAfter is, of After's failed requests, those lost to
	// its load balancer's target quota (World.FailedAtQuota): sent to the
	// targets of pods a spot interruption's drain killed at its two-minute
	// deadline, the drain held by the pods' PodDisruptionBudget because
	// ELBv2 refused the controller's RegisterTargets of their replacements
	// for the quota (draining targets counted), so that the replacements'
	// readiness gates stayed False. The target group is the controller's
	// then: no call of tgmigrate's could save them; headroom under the
	// quota would. AtQuotaNodes are the nodes. Zero when it never ran.
	FailedAtQuotaAfter int      `json:"failedAtQuotaAfter"`
	AtQuotaNodes       []string `json:"atQuotaNodes,omitempty"`
}

// avoidable is the failed requests from its window's start on that a
// call at that start could have saved: all of them but those under way
// at it and those lost after it to its load balancer's target quota.
func (tg campaignTG) avoidable() int {
	return tg.Window.Failed + tg.After.Failed - tg.FailedUnderWayAtStart - tg.FailedAtQuotaAfter
}

// campaignWindow counts one window's requests.
type campaignWindow struct {
	Requests int `json:"requests"`
	Failed   int `json:"failed"`
}

// campaignLB is one load balancer: its peak of targets against its
// quota, and the plan's limit on it.
type campaignLB struct {
	ARN       string `json:"arn"`
	Name      string `json:"name"`
	AccountID string `json:"accountID"`
	// PeakTargets is the most targets it had at once in the whole run
	// (World.PeakTargets: every registered target, draining ones
	// included, as the quota counts them).
	PeakTargets int `json:"peakTargets"`
	// Quota is its target quota, with where it comes from; Now its
	// targets at planning; Budget the room its overlaps share.
	Quota       int    `json:"quota"`
	QuotaSource string `json:"quotaSource"`
	Now         int    `json:"now"`
	Budget      int    `json:"budget"`
	// TargetGroups are the names of the runnable target groups behind
	// it; MaxConcurrent and Reason the plan's bound on their overlaps;
	// Limited says the plan has a limit on it (a load balancer with no
	// runnable target group has none).
	TargetGroups  []string `json:"targetGroups"`
	MaxConcurrent int      `json:"maxConcurrent"`
	Reason        string   `json:"reason,omitempty"`
	Limited       bool     `json:"limited"`
}

// settledPath computes the critical path with the settles and failures
// the plan could not know, by the plan's own list scheduling.
func (r *campaignReport) settledPath() error {
	byARN := map[string]campaignTG{}
	for _, tg := range r.TargetGroups {
		byARN[tg.TargetGroupARN] = tg
	}
	entries := slices.Clone(r.plan.Entries)
	for i, e := range entries {
		tg := byARN[e.TargetGroupARN.Raw]
		switch {
		case !e.Runnable():
		case tg.Status == campaign.StatusDone:
			entries[i].Seconds = int(math.Round(tg.FloorSeconds + tg.SettleSeconds))
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

// fillClusters records each cluster, its size and its applications.
func (r *campaignReport) fillClusters(f *simFlags) {
	nodes, pods := f.campaignSize()
	for _, c := range simFleet {
		apps := []string{"web"}
		for _, a := range c.apps {
			apps = append(apps, a.Name)
		}
		r.Clusters = append(r.Clusters, fleetClusterRow{Name: c.name, AccountID: c.account, Nodes: nodes, Apps: apps, Pods: pods})
	}
}

// fillAccounts records each account's calls: from the plan's start (the
// worlds' warm-up and churn make none of the code under test's) to its
// end, then to Execute's end.
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
		r.Accounts = append(r.Accounts, fleetAccountRow{ID: id, Clusters: byAccount[id],
			PlanCalls: calls1[id] - calls0[id], ExecuteCalls: calls2[id] - calls1[id], Calls: calls2[id], CutoverELBv2Calls: cut[id]})
	}
}

// fillTargetGroups records each entry's outcome and its windows'
// requests, read from its world's traffic between the instants its
// campaign journal recorded: before [origin, start), the window [start,
// end] (to the second its end falls in), after it to the run's end.
func (r *campaignReport) fillTargetGroups(cases map[string]fleetCase, order []string, origin, end time.Time, settles *settleWatch) error {
	states := map[string]campaign.EntryResult{}
	for _, e := range r.result.Entries {
		states[e.TargetGroupARN] = e
	}
	entries := map[string]campaign.Entry{}
	for _, e := range r.plan.Entries {
		entries[e.TargetGroupARN.Raw] = e
	}
	stop := end.Add(time.Second) // the run's last second included
	for _, arn := range order {
		c := cases[arn]
		e, ok := entries[arn]
		if !ok {
			return fmt.Errorf("target group %s (%s/%s): not in the plan", c.legacy.TargetGroupName, c.world.ClusterName(), c.legacy.Service)
		}
		st := states[arn]
		tg := campaignTG{Name: e.Name, TargetGroupARN: arn, Cluster: e.Cluster, AccountID: e.AccountID,
			App: c.legacy.Namespace + "/" + c.legacy.Service, LoadBalancer: lbName(c.legacy.LoadBalancerARN.Raw), Arranged: c.arranged,
			Wave: "-", Status: st.Status, Reason: st.Reason}
		if e.Wave >= 0 && e.Wave < len(r.plan.Waves) {
			tg.Wave = r.plan.Waves[e.Wave].Name
		}
		if e.Plan != nil {
			tg.FloorSeconds = float64(e.Plan.Estimate.FloorSeconds)
		}
		if st.Cutover != nil {
			// The floor of the plan that ran: a re-plan's, when the one
			// approved was stale.
			tg.CutoverSeconds, tg.FloorSeconds = st.Cutover.CutoverSeconds, st.Cutover.FloorSeconds
		}
		if st.Error != "" {
			tg.Reason = st.Disposition + ": " + oneLine(st.Error)
		}
		if b := e.Blocked; b != nil {
			tg.Reason = string(b.Reason) + ": " + oneLine(b.Detail)
		}
		tg.Next = nextCall(tg, e)
		if st.Replan != nil {
			tg.Replanned = slices.Clone(st.Replan.Changed)
		}
		tgARN := c.legacy.TargetGroupARN
		between := func(from, to time.Time) campaignWindow {
			q := c.world.RequestsBetween(tgARN, from, to)
			return campaignWindow{Requests: q.Total, Failed: q.Failed}
		}
		if st.StartedAt.IsZero() || st.FinishedAt.IsZero() {
			tg.Before = between(origin, stop)
		} else {
			to := st.FinishedAt.Truncate(time.Second).Add(time.Second)
			tg.FromSeconds, tg.ToSeconds = st.StartedAt.Sub(origin).Seconds(), st.FinishedAt.Sub(origin).Seconds()
			tg.Before, tg.Window, tg.After = between(origin, st.StartedAt), between(st.StartedAt, to), between(to, stop)
			u := c.world.FailedUnderWay(tgARN, st.StartedAt)
			tg.FailedUnderWayAtStart, tg.UnderWayNodes = u.Failed, u.Nodes
			q := c.world.FailedAtQuota(tgARN, to)
			tg.FailedAtQuotaAfter, tg.AtQuotaNodes = q.Failed, q.Nodes
			if at, ok := settles.settled(arn); ok && !at.Before(st.StartedAt) {
				tg.SettleSeconds = at.Sub(st.StartedAt).Seconds()
			}
		}
		r.TargetGroups = append(r.TargetGroups, tg)
	}
	return nil
}

// nextCall says what moves a target group on: nothing once migrated; for
// a blocked one, what to do and the call after; for a failed one, the
// fix and a new campaign over it.
func nextCall(tg campaignTG, e campaign.Entry) string {
	switch {
	case tg.Status == campaign.StatusDone:
		return ""
	case e.Blocked != nil && e.Blocked.Reason == campaign.ReasonPrecondition:
		return "meet the precondition (or accept it with campaign.WithAcceptPreconditions), then campaign.PlanCampaign again"
	case e.Blocked != nil && e.Blocked.Next != nil:
		return string(e.Blocked.Next.Op)
	case tg.Status == campaign.StatusRolledBack || tg.Status == campaign.StatusFailed:
		fix := "fix the cause"
		if tg.Arranged == arrangedDenied {
			fix = "grant the controller elasticloadbalancing:RegisterTargets on it"
		}
		return fix + ", then campaign.PlanCampaign with Selection.TargetGroupARNs [" + tg.Name + "] and campaign.Execute"
	case tg.Status == campaign.StatusSkipped:
		return "campaign.Execute again once the failures are understood (the error budget stopped it)"
	}
	return ""
}

// fillLoadBalancers records every load balancer in front of the fleet's
// target groups: its peak of targets in the whole run against its quota,
// and the plan's limit on it when it has one.
func (r *campaignReport) fillLoadBalancers(cases map[string]fleetCase, order []string) {
	limits := map[string]campaign.LoadBalancerLimit{}
	for _, lb := range r.plan.Limits.LoadBalancers {
		limits[lb.ARN] = lb
	}
	names := map[string]string{}
	for _, e := range r.plan.Entries {
		names[e.TargetGroupARN.Raw] = e.Name
	}
	seen := map[string]bool{}
	for _, arn := range order {
		c := cases[arn]
		lb := c.legacy.LoadBalancerARN
		if seen[lb.Raw] {
			continue
		}
		seen[lb.Raw] = true
		row := campaignLB{ARN: lb.Raw, Name: lbName(lb.Raw), AccountID: c.world.AccountID(), PeakTargets: c.world.PeakTargets(lb), Quota: r.TargetsPerLoadBalancer}
		if l, ok := limits[lb.Raw]; ok {
			row.Limited, row.Quota, row.QuotaSource, row.Now, row.Budget, row.MaxConcurrent, row.Reason = true, l.Quota.Value, string(l.Quota.Source), l.Now, l.Budget, l.MaxConcurrent, l.Reason
			for _, s := range l.Shares {
				row.TargetGroups = append(row.TargetGroups, names[s.TargetGroupARN.Raw])
			}
		}
		r.LoadBalancers = append(r.LoadBalancers, row)
	}
}
