package tgmigratetest_test

// apps_test.go: a world of several applications (Options.Apps): their
// target groups, rules and traffic by window, the per-ALB quota ELBv2
// enforces and Service Quotas answers, the peak, DenyControllerOn, the
// failed requests no call at an instant could have saved
// (FailedUnderWay), and those lost at the load balancer's target quota
// (FailedAtQuota).

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// TestWorldApps: a world's apps have their own target groups, rules and
// traffic, counted apart and by window; the per-ALB quota is what ELBv2
// enforces and Service Quotas answers, and the peak stays under it;
// DenyControllerOn refuses what IAM does not scope to a target group.
func TestWorldApps(t *testing.T) {
	w, err := tgmigratetest.NewWorld(t.Context(), tgmigratetest.Options{Seed: 4, Nodes: 2, Pods: 2, RPS: 10, TargetsPerLoadBalancer: 5,
		Apps: []tgmigratetest.App{{Name: "api", RPS: 5}, {Name: "jobs", LoadBalancerName: "jobs-alb", RPS: -1}}})
	if err != nil {
		t.Fatal(err)
	}
	start := w.Clock().Now()
	w.Run(20 * time.Second)
	seed, apps := w.Legacy(), w.Apps()
	if len(apps) != 2 || apps[0].TargetGroupName != "legacy-web-api" || apps[0].RuleARN == "" || seed.RuleARN != "" ||
		apps[0].LoadBalancerARN != seed.LoadBalancerARN || apps[1].LoadBalancerARN == seed.LoadBalancerARN || apps[1].Service != "jobs" {
		t.Fatalf("apps %+v", apps)
	}
	unknown, _ := tgmigrate.ParseTargetGroupARN("arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/nope/0123456789abcdef")
	traffic := []struct {
		name       string
		tg         tgmigrate.ARN
		from, to   time.Time
		want, fail int
	}{
		{"the seed's, all", seed.TargetGroupARN, start, start.Add(time.Hour), w.Requests().Total, 0},
		{"the seed's, 10 s", seed.TargetGroupARN, start, start.Add(10 * time.Second), 100, 0},
		{"api, 10 s", apps[0].TargetGroupARN, start, start.Add(10 * time.Second), 50, 0},
		{"api, from the 5th second", apps[0].TargetGroupARN, start.Add(5 * time.Second), start.Add(10 * time.Second), 25, 0},
		{"api, empty window", apps[0].TargetGroupARN, start.Add(10 * time.Second), start.Add(10 * time.Second), 0, 0},
		{"jobs, no traffic", apps[1].TargetGroupARN, start, start.Add(time.Hour), 0, 0},
		{"an unknown target group", unknown, start, start.Add(time.Hour), 0, 0},
	}
	for _, tt := range traffic {
		if r := w.RequestsBetween(tt.tg, tt.from, tt.to); r.Total != tt.want || r.Failed != tt.fail || r.Served != r.Total {
			t.Errorf("%s: %+v, want %d requests, %d failed", tt.name, r, tt.want, tt.fail)
		}
	}
	if r := w.RequestsOf(apps[0].TargetGroupARN); r.Total < 100 || r.Failed != 0 {
		t.Errorf("api: %+v over 20 s at 5 rps", r)
	}
	q, err := w.ServiceQuotas().GetServiceQuota(t.Context(), &servicequotas.GetServiceQuotaInput{
		ServiceCode: aws.String("elasticloadbalancing"), QuotaCode: aws.String(tgmigratetest.QuotaTargetsPerALB)})
	if err != nil || aws.ToFloat64(q.Quota.Value) != 5 {
		t.Fatalf("GetServiceQuota = %v, %v; want 5", q, err)
	}
	// The world's ALB holds 4 targets (2 nodes, 2 target groups): one more
	// fits the quota of 5, a second does not.
	register := func(ip string) error {
		_, err := w.ELBv2().RegisterTargets(t.Context(), &elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(apps[0].TargetGroupARN.Raw),
			Targets: []elbv2types.TargetDescription{{Id: aws.String(ip), Port: aws.Int32(8080)}}})
		return err
	}
	if err := register("10.0.200.1"); err != nil {
		t.Fatal(err)
	}
	var tooMany *elbv2types.TooManyTargetsException
	if err := register("10.0.200.2"); !errors.As(err, &tooMany) {
		t.Errorf("a sixth target: %v, want TooManyTargets", err)
	}
	if got := w.PeakTargets(seed.LoadBalancerARN); got != 5 {
		t.Errorf("PeakTargets(the world's ALB) = %d, want 5", got)
	}
	if got := w.PeakTargets(apps[1].LoadBalancerARN); got != 2 {
		t.Errorf("PeakTargets(jobs-alb) = %d, want 2", got)
	}
	deny := []struct {
		op    string
		tg    tgmigrate.ARN
		field string
	}{
		{"DescribeTargetHealth", apps[0].TargetGroupARN, "op"},
		{"RegisterTargets", unknown, "tg"},
		{"RegisterTargets", apps[0].TargetGroupARN, ""},
	}
	for _, tt := range deny {
		err := w.DenyControllerOn(tt.op, tt.tg)
		var oe *tgmigratetest.OptionsError
		switch {
		case tt.field == "" && err != nil:
			t.Errorf("DenyControllerOn(%s) = %v", tt.op, err)
		case tt.field != "" && (!errors.As(err, &oe) || oe.Field != tt.field || !strings.HasPrefix(err.Error(), "tgmigratetest: deny controller: ")):
			t.Errorf("DenyControllerOn(%s, %s) = %v, want an *OptionsError on %s", tt.op, tt.tg.Raw, err, tt.field)
		}
	}
}

// TestWorldFailedUnderWay: what no call at an instant could have saved.
// In a world of 4 nodes under steady churn at a 1-minute pace, Karpenter
// begins to replace the first node 60 s into the world and terminates it
// 70 s later; at 120 s (start), its targets are still registered, and it
// is gone 10 s into the 15-second deregistration lag. Left alone, the
// app's hand-made target group fails requests to it for a minute, and
// only those of the lag after start are under way; from an instant before
// the disruption began, none is. A phased cutover executed at start
// retires that target at its first step, yet the load balancer sends it
// requests for the lag: every request lost from Execute's start on is
// one of those, and there are some.
func TestWorldFailedUnderWay(t *testing.T) {
	opts := tgmigratetest.Options{Seed: 1, Nodes: 4, Pods: 4, RPS: 10, ReadinessGateInjection: true,
		Churn: tgmigratetest.Churn{Interval: time.Minute}, Apps: []tgmigratetest.App{{Name: "api"}}}
	const lag = 15 * time.Second
	world := func(t *testing.T) (*tgmigratetest.World, tgmigratetest.Legacy, time.Time, time.Time) {
		t.Helper()
		w, err := tgmigratetest.NewWorld(t.Context(), opts)
		if err != nil {
			t.Fatal(err)
		}
		origin := w.Clock().Now()
		w.Run(2 * time.Minute)
		return w, w.Apps()[0], origin, w.Clock().Now()
	}
	const first = "ip-10-0-0-4.ec2.internal"

	t.Run("left alone", func(t *testing.T) {
		w, api, origin, start := world(t)
		w.Run(2 * time.Minute)
		u := w.FailedUnderWay(api.TargetGroupARN, start)
		inLag := w.RequestsBetween(api.TargetGroupARN, start, start.Add(lag))
		later := w.RequestsBetween(api.TargetGroupARN, start.Add(lag), start.Add(2*time.Minute))
		if u.Failed == 0 || u.Failed != inLag.Failed || !slices.Equal(u.Nodes, []string{first}) {
			t.Errorf("FailedUnderWay = %+v, want the %d failed in the lag after start, to %s", u, inLag.Failed, first)
		}
		if later.Failed == 0 {
			t.Errorf("no request failed after the lag: the dead node's target should still take requests until its health checks fail")
		}
		if got := w.FailedUnderWay(api.TargetGroupARN, origin.Add(10*time.Second)); got.Failed != 0 || got.Nodes != nil {
			t.Errorf("from before any disruption began: %+v, want none", got)
		}
		// Graceful churn under the default quota: no drain is cut off, no
		// registration refused, so none of these is lost at the quota.
		if got := w.FailedAtQuota(api.TargetGroupARN, origin); got.Failed != 0 || got.Nodes != nil {
			t.Errorf("FailedAtQuota = %+v, want none", got)
		}
		unknown, _ := tgmigrate.ParseTargetGroupARN("arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/nope/0123456789abcdef")
		if got := w.FailedUnderWay(unknown, start); got.Failed != 0 || got.Nodes != nil {
			t.Errorf("an unknown target group: %+v, want none", got)
		}
	})

	t.Run("a phased cutover from start", func(t *testing.T) {
		w, api, _, start := world(t)
		ctx := t.Context()
		env := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock(), ClusterName: tgmigratetest.ClusterName, ClusterVPCID: w.VPCID()}
		plan, err := cutover.PlanCutover(ctx, env, cutover.Request{TargetGroupARN: api.TargetGroupARN, Namespace: api.Namespace,
			Service: api.Service, Port: intstr.FromString(api.PortName), Assumptions: w.Assumptions()})
		if err != nil {
			t.Fatal(err)
		}
		res, err := cutover.Execute(ctx, env, plan)
		if err != nil || !res.Completed {
			t.Fatalf("Execute = %+v, %v", res, err)
		}
		if !slices.ContainsFunc(res.Retired, func(a cutover.TargetAddr) bool { return a.IP == "10.0.0.4" }) {
			t.Errorf("Execute retired %v, want the leaving node's target 10.0.0.4 among them", res.Retired)
		}
		w.Run(2 * time.Minute)
		lost := w.RequestsBetween(api.TargetGroupARN, start, w.Clock().Now())
		u := w.FailedUnderWay(api.TargetGroupARN, start)
		if u.Failed == 0 || lost.Failed != u.Failed || !slices.Equal(u.Nodes, []string{first}) {
			t.Errorf("from Execute's start: %d failed, %+v under way at it; want some, all under way, to %s", lost.Failed, u, first)
		}
	})
}
