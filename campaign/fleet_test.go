package campaign_test

// fleet_test.go: PlanCampaign on the test kit's fleet: three clusters in
// three accounts, one of them blocked by a precondition.

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// fleetOptions are three clusters, each in an account of its own; in
// staging the Service's namespace lacks the controller's readiness-gate
// label, so its cutover plan has a pod-settings precondition.
func fleetOptions() tgmigratetest.FleetOptions {
	opts := func(seed uint64, nodes int, gate bool) tgmigratetest.Options {
		return tgmigratetest.Options{Seed: seed, Nodes: nodes, Pods: 6, ReadinessGateInjection: gate}
	}
	return tgmigratetest.FleetOptions{Clusters: []tgmigratetest.ClusterOptions{
		{Name: "prod-a", AccountID: "111111111111", Options: opts(1, 4, true)},
		{Name: "prod-b", AccountID: "222222222222", Options: opts(2, 3, true)},
		{Name: "staging", AccountID: "333333333333", Options: opts(3, 3, false)},
	}}
}

// newFleet builds the fleet of fleetOptions.
func newFleet(t *testing.T) *tgmigratetest.Fleet {
	t.Helper()
	f, err := tgmigratetest.NewFleet(t.Context(), fleetOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

// inputOf is the campaign's input over every world of f: each world's
// account, and its cluster served by that account.
func inputOf(f *tgmigratetest.Fleet, sel campaign.Selection) campaign.Input {
	return f.CampaignInput(sel)
}

// calls sums the AWS calls of every world of f.
func calls(f *tgmigratetest.Fleet) int {
	n := 0
	for _, w := range f.Worlds() {
		for _, c := range w.Calls() {
			n += c
		}
	}
	return n
}

func planFleet(ctx context.Context, t *testing.T, f *tgmigratetest.Fleet, opts ...campaign.Option) *campaign.Plan {
	t.Helper()
	p, err := campaign.PlanCampaign(ctx, inputOf(f, campaign.Selection{All: true}), append([]campaign.Option{campaign.WithClock(f.Clock())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPlanCampaignFleet: every world's target group is an entry; the two
// prepared ones are runnable, each cluster's canary (one target group
// per world: the canary wave holds them all); staging's is blocked by
// its plan's precondition, with its plan kept; the limits count each
// load balancer; the estimate is the longest canary; the text fits.
func TestPlanCampaignFleet(t *testing.T) {
	f := newFleet(t)
	p := planFleet(t.Context(), t, f)
	t.Log("\n" + p.Text())
	if len(p.Entries) != 3 {
		t.Fatalf("%d entries, want 3", len(p.Entries))
	}
	for _, w := range f.Worlds() {
		e, ok := p.Entry(w.Legacy().TargetGroupARN)
		switch {
		case !ok:
			t.Errorf("%s: no entry", w.ClusterName())
		case e.Cluster != w.ClusterName() || e.AccountID != w.AccountID() || e.Plan == nil:
			t.Errorf("%s: entry of cluster %q, account %s, plan %v", w.ClusterName(), e.Cluster, e.AccountID, e.Plan != nil)
		case w.ClusterName() == "staging" && (e.Runnable() || e.Blocked.Reason != campaign.ReasonPrecondition || e.Wave != -1 ||
			!strings.Contains(e.Blocked.Detail, string(cutover.PreconditionPodSettings))):
			t.Errorf("staging: %+v, want blocked by its pod-settings precondition", e.Blocked)
		case w.ClusterName() != "staging" && (!e.Runnable() || e.Wave != 0 || e.Seconds <= 0 ||
			e.Seconds != int(e.Plan.Estimate.FloorSeconds) || e.EndSeconds != e.StartSeconds+e.Seconds):
			t.Errorf("%s: %+v, want runnable in the canary wave for its floor", w.ClusterName(), e)
		}
	}
	if len(p.Waves) != 1 || !p.Waves[0].Canary || p.Waves[0].Approval || len(p.Waves[0].TargetGroupARNs) != 2 {
		t.Errorf("waves %+v, want one canary wave of 2", p.Waves)
	}
	a, _ := p.Entry(f.World("prod-a").Legacy().TargetGroupARN)
	b, _ := p.Entry(f.World("prod-b").Legacy().TargetGroupARN)
	if want := max(a.Seconds, b.Seconds); p.Estimate.TotalSeconds != want || p.Estimate.SerialSeconds != a.Seconds+b.Seconds {
		t.Errorf("estimate %+v, want total %d (both at once), serial %d", p.Estimate, want, a.Seconds+b.Seconds)
	}
	if len(p.Limits.LoadBalancers) != 2 {
		t.Errorf("load balancers %+v, want the two runnable ones'", p.Limits.LoadBalancers)
	}
	for _, lb := range p.Limits.LoadBalancers {
		if !lb.Counted || lb.Quota.Value <= 0 || lb.Budget != lb.Quota.Value-lb.Now-lb.Growth || len(lb.Shares) != 1 || lb.MaxConcurrent != 1 {
			t.Errorf("load balancer %+v", lb)
		}
	}
	for i, line := range strings.Split(p.Text(), "\n") {
		if n := len([]rune(line)); n > campaign.TextColumns {
			t.Errorf("text line %d is %d wide: %q", i+1, n, line)
		}
	}
}

// TestPlanCampaignBlockedByFaults: a target group diagnose could not
// read, and one whose PlanCutover fails, are entries blocked with their
// reason and next call; the others are planned as ever.
func TestPlanCampaignBlockedByFaults(t *testing.T) {
	f := newFleet(t)
	a, b := f.World("prod-a"), f.World("prod-b")
	if err := a.Inject(tgmigratetest.Fault{Op: "DescribeTargetGroupAttributes", Code: tgmigratetest.AccessDenied, Times: 5}); err != nil {
		t.Fatal(err)
	}
	if err := b.Inject(tgmigratetest.Fault{Op: "DescribeTargetHealth", Code: tgmigratetest.AccessDenied}); err != nil {
		t.Fatal(err)
	}
	p := planFleet(t.Context(), t, f, campaign.WithAcceptPreconditions(cutover.PreconditionPodSettings))
	ea, _ := p.Entry(a.Legacy().TargetGroupARN)
	eb, _ := p.Entry(b.Legacy().TargetGroupARN)
	es, _ := p.Entry(f.World("staging").Legacy().TargetGroupARN)
	switch {
	case ea.Blocked == nil || ea.Blocked.Reason != campaign.ReasonPlanError || ea.Plan != nil || ea.Blocked.Next == nil ||
		ea.Blocked.Next.Op != "cutover.PlanCutover" || !strings.Contains(ea.Blocked.Error, "DescribeTargetGroupAttributes"):
		t.Errorf("prod-a: %+v, want a plan error with its next call", ea.Blocked)
	case eb.Blocked == nil || eb.Blocked.Reason != campaign.ReasonUnread || eb.Plan != nil:
		t.Errorf("prod-b: %+v, want unread", eb.Blocked)
	case !es.Runnable() || len(p.Waves) != 1 || len(p.Waves[0].TargetGroupARNs) != 1:
		t.Errorf("staging: %+v, waves %+v; want it alone runnable, the canary", es.Blocked, p.Waves)
	}
	if !strings.Contains(p.Text(), "plan-error") || !strings.Contains(p.Text(), "unread") {
		t.Errorf("the text names no block:\n%s", p.Text())
	}
}

// TestPlanCampaignCancelled: a cancelled context fails the plan, with
// its cause; no plan is returned.
func TestPlanCampaignCancelled(t *testing.T) {
	f := newFleet(t)
	ctx, cancel := context.WithCancelCause(t.Context())
	stop := errors.New("operator stopped")
	cancel(stop)
	p, err := campaign.PlanCampaign(ctx, inputOf(f, campaign.Selection{All: true}), campaign.WithClock(f.Clock()))
	if p != nil || !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "campaign: plan: ") {
		t.Errorf("PlanCampaign() = %v, %v; want the cancellation", p, err)
	}
}
