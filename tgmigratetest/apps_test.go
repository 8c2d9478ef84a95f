package tgmigratetest_test

// apps_test.go: a world of several applications (Options.Apps): their
// target groups, rules and traffic by window, the per-ALB quota ELBv2
// enforces and Service Quotas answers, the peak, DenyControllerOn.

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"

	"github.com/qstools/tgmigrate"
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
