package campaign_test

// apps_fleet_test.go: a campaign over a fleet of several target groups per
// cluster (tgmigratetest's Options.Apps): two accounts, three clusters,
// twelve target groups; two of them on one ALB near its target quota, one
// blocked by its namespace's missing readiness-gate label, one whose
// controller is denied RegisterTargets on it.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// appsQuota is the per-ALB target quota of the apps fleet: the near ALB
// starts with 6 node targets (two target groups of 3 nodes), each
// in-place overlap adds 3 pod targets, so one overlap fits (9) and two at
// once (12) do not.
const appsQuota = 10

// appsFleet builds the fleet: prod-a and prod-b share account
// 111111111111, staging is alone in 222222222222; every cluster has
// 3 nodes, 3 pods per application.
func appsFleet(t *testing.T) *tgmigratetest.Fleet {
	t.Helper()
	opts := func(seed uint64, apps ...tgmigratetest.App) tgmigratetest.Options {
		return tgmigratetest.Options{Seed: seed, Nodes: 3, Pods: 3, RPS: 5, ReadinessGateInjection: true,
			TargetsPerLoadBalancer: appsQuota, Apps: apps}
	}
	f, err := tgmigratetest.NewFleet(t.Context(), tgmigratetest.FleetOptions{Clusters: []tgmigratetest.ClusterOptions{
		{Name: "prod-a", AccountID: "111111111111", Options: opts(1,
			tgmigratetest.App{Name: "api"},
			tgmigratetest.App{Name: "orders", LoadBalancerName: "near-alb"},
			tgmigratetest.App{Name: "search", LoadBalancerName: "near-alb"},
			tgmigratetest.App{Name: "media", LoadBalancerName: "media-alb"},
		)},
		{Name: "prod-b", AccountID: "111111111111", Options: opts(2,
			tgmigratetest.App{Name: "api"},
			tgmigratetest.App{Name: "pay", Namespace: "payments", LoadBalancerName: "pay-alb-b"},
			tgmigratetest.App{Name: "cart", LoadBalancerName: "cart-alb-b"},
		)},
		{Name: "staging", AccountID: "222222222222", Options: opts(3,
			tgmigratetest.App{Name: "api"},
			tgmigratetest.App{Name: "jobs", LoadBalancerName: "jobs-alb"},
		)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

// appCase finds the case of app name in world w, the seed's for "web".
func appCase(t *testing.T, w *tgmigratetest.World, name string) tgmigratetest.Legacy {
	t.Helper()
	if name == "web" {
		return w.Legacy()
	}
	for _, a := range w.Apps() {
		if a.Service == name {
			return a
		}
	}
	t.Fatalf("%s: no app %s", w.ClusterName(), name)
	return tgmigratetest.Legacy{}
}

// TestCampaignAppsFleet: the campaign plans one entry per target group;
// the near ALB's two target groups share its limit, one at a time; the
// payments namespace's is blocked by its pod-settings precondition;
// Execute migrates every runnable target group with no failed request in
// any application's traffic and no ALB above its quota, and rolls back
// the one whose controller is denied RegisterTargets while the others
// finish, within 1.05 of the plan's critical path.
func TestCampaignAppsFleet(t *testing.T) {
	f := appsFleet(t)
	a, b, s := f.World("prod-a"), f.World("prod-b"), f.World("staging")
	all := map[string][]tgmigratetest.Legacy{}
	for _, w := range f.Worlds() {
		all[w.ClusterName()] = append([]tgmigratetest.Legacy{w.Legacy()}, w.Apps()...)
	}
	if n := len(all["prod-a"]) + len(all["prod-b"]) + len(all["staging"]); n != 12 {
		t.Fatalf("%d target groups, want 12", n)
	}
	orders, search := appCase(t, a, "orders"), appCase(t, a, "search")
	pay, jobs := appCase(t, b, "pay"), appCase(t, s, "jobs")
	if orders.LoadBalancerARN != search.LoadBalancerARN {
		t.Fatalf("orders and search on %s and %s, want one ALB", orders.LoadBalancerARN.Raw, search.LoadBalancerARN.Raw)
	}
	if q, err := a.ServiceQuotas().GetServiceQuota(t.Context(), &servicequotas.GetServiceQuotaInput{ServiceCode: aws.String("elasticloadbalancing"), QuotaCode: aws.String(tgmigratetest.QuotaTargetsPerALB)}); err != nil || q.Quota.Value == nil || *q.Quota.Value != appsQuota {
		t.Fatalf("Service Quotas' per-ALB quota: %v, %+v; want %d", err, q, appsQuota)
	}

	p, err := campaign.PlanCampaign(t.Context(), execInput(f), campaign.WithClock(f.Clock()))
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + p.Text())
	if len(p.Entries) != 12 {
		t.Fatalf("%d entries, want one per target group, 12", len(p.Entries))
	}
	for cluster, cases := range all {
		for _, c := range cases {
			e, ok := p.Entry(c.TargetGroupARN)
			switch {
			case !ok:
				t.Errorf("%s/%s: no entry", cluster, c.Service)
			case e.Cluster != cluster:
				t.Errorf("%s/%s: entry of cluster %q", cluster, c.Service, e.Cluster)
			case c.TargetGroupARN == pay.TargetGroupARN:
				if e.Runnable() || e.Blocked == nil || e.Blocked.Reason != campaign.ReasonPrecondition || !strings.Contains(e.Blocked.Detail, string(cutover.PreconditionPodSettings)) {
					t.Errorf("pay: %+v, want blocked by its pod-settings precondition", e.Blocked)
				}
			case !e.Runnable():
				t.Errorf("%s/%s: blocked %+v, want runnable", cluster, c.Service, e.Blocked)
			}
		}
	}
	near, ok := limitOf(p, orders.LoadBalancerARN)
	if !ok {
		t.Fatalf("no limit of the near ALB in %+v", p.Limits.LoadBalancers)
	}
	if len(near.Shares) != 2 || near.MaxConcurrent != 1 || near.Quota.Value != appsQuota {
		t.Errorf("the near ALB's limit %+v, want 2 shares, one at a time, quota %d", near, appsQuota)
	}

	if err := s.DenyControllerOn("RegisterTargets", jobs.TargetGroupARN); err != nil {
		t.Fatal(err)
	}
	res, err := run(t.Context(), t, execEnv(t, f, "runner-1"), p, parallel(f), campaign.WithErrorBudget(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + res.Text())
	status := map[string]campaign.EntryStatus{}
	for _, e := range res.Entries {
		status[e.TargetGroupARN] = e.Status
	}
	for cluster, cases := range all {
		w := f.World(cluster)
		for _, c := range cases {
			want := campaign.StatusDone
			switch c.TargetGroupARN {
			case pay.TargetGroupARN:
				want = campaign.StatusBlocked
			case jobs.TargetGroupARN:
				want = campaign.StatusRolledBack
			}
			if got := status[c.TargetGroupARN.Raw]; got != want {
				t.Errorf("%s/%s: %s, want %s", cluster, c.Service, got, want)
			}
			if r := w.RequestsOf(c.TargetGroupARN); r.Total == 0 || r.Failed != 0 {
				t.Errorf("%s/%s: requests %+v, want every one served", cluster, c.Service, r)
			}
			if r, all := w.RequestsBetween(c.TargetGroupARN, res.StartedAt, res.FinishedAt), w.RequestsOf(c.TargetGroupARN); r.Total == 0 || r.Total >= all.Total {
				t.Errorf("%s/%s: %d requests during the campaign of %d in all", cluster, c.Service, r.Total, all.Total)
			}
			if peak := w.PeakTargets(c.LoadBalancerARN); peak > appsQuota || peak < 3 {
				t.Errorf("%s/%s: its ALB's peak %d, want 3 to the quota %d", cluster, c.Service, peak, appsQuota)
			}
		}
	}
	if peak := a.PeakTargets(orders.LoadBalancerARN); peak != 9 {
		t.Errorf("the near ALB's peak %d, want 9: its 6 node targets and one overlap of 3 pods at a time", peak)
	}
	if res.Totals.Done != 10 || res.Totals.RolledBack != 1 || res.Totals.Blocked != 1 {
		t.Errorf("totals %+v, want 10 done, 1 rolled back, 1 blocked", res.Totals)
	}
	if took, floor := res.FinishedAt.Sub(res.StartedAt).Seconds(), float64(p.Estimate.TotalSeconds); took < floor || took > 1.05*floor {
		t.Errorf("the campaign took %.0fs on the fleet's clock, its critical path %.0fs: want within 1.05", took, floor)
	}
}

// limitOf returns the plan's limit of the load balancer lb.
func limitOf(p *campaign.Plan, lb tgmigrate.ARN) (campaign.LoadBalancerLimit, bool) {
	for _, l := range p.Limits.LoadBalancers {
		if l.ARN == lb.Raw {
			return l, true
		}
	}
	return campaign.LoadBalancerLimit{}, false
}

// TestCampaignAppsFleetChurnRoom: the plan warns on the near ALB, whose
// quota leaves after its two cutovers less room than its pods (churn's
// draining targets count against it), and on each ALB of two target
// groups; not on media-alb, or any ALB of one, which have room; the
// plan's text says so within TextColumns.
func TestCampaignAppsFleetChurnRoom(t *testing.T) {
	f := appsFleet(t)
	a := f.World("prod-a")
	orders, search, media := appCase(t, a, "orders"), appCase(t, a, "search"), appCase(t, a, "media")
	p, err := campaign.PlanCampaign(t.Context(), execInput(f), campaign.WithClock(f.Clock()))
	if err != nil {
		t.Fatal(err)
	}
	text := p.Text()
	for line := range strings.Lines(text) {
		if n := len([]rune(strings.TrimSuffix(line, "\n"))); n > campaign.TextColumns {
			t.Errorf("plan text line of %d columns, above %d: %q", n, campaign.TextColumns, line)
		}
	}
	near, ok := limitOf(p, orders.LoadBalancerARN)
	if !ok || near.ChurnRoom == nil {
		t.Fatalf("the near ALB's limit %+v, want its churn room", near)
	}
	// Each plan's own figures: the Service's ready endpoints and the
	// target group's deregistration delay.
	pods, delay := 0, int32(0)
	for _, c := range []tgmigratetest.Legacy{orders, search} {
		e, ok := p.Entry(c.TargetGroupARN)
		if !ok || e.Plan == nil {
			t.Fatalf("%s: no planned entry", c.Service)
		}
		pods += e.Plan.Service.ReadyEndpoints
		delay = e.Plan.TargetGroup.DeregistrationDelaySeconds
	}
	// 3 nodes, 3 pods per application, quota 10: 6 targets after the two
	// cutovers, room 4, 6 pods.
	want := campaign.ChurnRoom{Targets: 6, Room: appsQuota - 6, Pods: 6, TargetGroups: 2, MinDelaySeconds: delay, MaxDelaySeconds: delay, Short: true}
	got := *near.ChurnRoom
	got.Warning = ""
	if pods != 6 || delay <= 0 || got != want {
		t.Errorf("the near ALB's churn room %+v (plans: %d pods, delay %ds), want %+v", got, pods, delay, want)
	}
	wantLine := fmt.Sprintf("warning: after its cutovers, room for %d under its quota of %d (6 targets on it), fewer than its 6 pods (2 target groups, deregistration delay %ds)", appsQuota-6, appsQuota, delay)
	if one := strings.Join(strings.Fields(text), " "); !strings.Contains(near.ChurnRoom.Warning, wantLine) || !strings.Contains(one, wantLine) {
		t.Errorf("the near ALB's warning %q, want it to start %q, and in the text:\n%s", near.ChurnRoom.Warning, wantLine, text)
	}
	m, ok := limitOf(p, media.LoadBalancerARN)
	if !ok || m.ChurnRoom == nil || m.ChurnRoom.Short || m.ChurnRoom.Warning != "" || m.ChurnRoom.Room != appsQuota-3 || m.ChurnRoom.Pods != 3 {
		t.Errorf("media-alb's churn room %+v, want room %d for 3 pods, no warning", m.ChurnRoom, appsQuota-3)
	}
	// The ALBs of two target groups (near-alb; web and api's legacy ALB
	// in each cluster) warn, those of one do not.
	short := 0
	for _, l := range p.Limits.LoadBalancers {
		if l.ChurnRoom != nil && l.ChurnRoom.Short != (len(l.Shares) == 2) {
			t.Errorf("%s: %d target groups, churn room %+v", l.ARN, len(l.Shares), l.ChurnRoom)
		}
		if l.ChurnRoom != nil && l.ChurnRoom.Short {
			short++
		}
	}
	if n := strings.Count(text, "warning: after its cutovers"); n != short || short != 4 {
		t.Errorf("%d churn warnings in the plan's text, %d short rooms: want 4 (near-alb, three legacy ALBs):\n%s", n, short, text)
	}
}
