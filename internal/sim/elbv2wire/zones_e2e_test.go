package elbv2wire_test

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire"
)

// TestZonesThroughTheSDK: the load balancer's Availability Zones reach the
// real SDK client as the facade gives them, and so does a target parked in
// a zone the load balancer has not enabled (unused / Target.NotInUse, with
// AWS's description) and the AvailabilityZone all of a target registered so.
func TestZonesThroughTheSDK(t *testing.T) {
	w := newWorld(t, elbv2sim.Options{})
	c := w.client(elbv2wire.ClientOptions{})
	ctx := t.Context()
	// 10.0.1.0/24 is z-a, 10.0.2.0/24 z-b, 10.0.3.0/24 z-c.
	w.model.SetZoneSource(func(ip netip.Addr) (string, bool) {
		if !netip.MustParsePrefix("10.0.0.0/16").Contains(ip) {
			return "", false
		}
		return map[byte]string{1: "z-a", 2: "z-b", 3: "z-c"}[ip.As4()[2]], true
	})
	if err := w.model.SetLoadBalancerZones(w.lb, map[string]string{"z-b": "subnet-b", "z-a": "subnet-a"}); err != nil {
		t.Fatal(err)
	}
	all := types.TargetDescription{Id: aws.String("10.0.3.2"), Port: aws.Int32(8080), AvailabilityZone: aws.String("all")}
	targets := append(pods(1), types.TargetDescription{Id: aws.String("10.0.3.1"), Port: aws.Int32(8080)}, all)
	if _, err := c.RegisterTargets(ctx, &elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(w.tg), Targets: targets}); err != nil {
		t.Fatal(err)
	}
	w.clock.Advance(time.Minute)

	lbs, err := c.DescribeLoadBalancers(ctx, &elbv2.DescribeLoadBalancersInput{})
	if err != nil {
		t.Fatal(err)
	}
	want := []types.AvailabilityZone{
		{ZoneName: aws.String("z-a"), SubnetId: aws.String("subnet-a")},
		{ZoneName: aws.String("z-b"), SubnetId: aws.String("subnet-b")},
	}
	if len(lbs.LoadBalancers) != 1 {
		t.Fatalf("%d load balancers, want 1", len(lbs.LoadBalancers))
	}
	if diff := cmp.Diff(want, lbs.LoadBalancers[0].AvailabilityZones, sdkTypes); diff != "" {
		t.Errorf("AvailabilityZones through the SDK (-want +got):\n%s", diff)
	}
	facade, err := w.sim.DescribeLoadBalancers(ctx, &elbv2.DescribeLoadBalancersInput{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(facade, lbs, sdkTypes); diff != "" {
		t.Errorf("DescribeLoadBalancers, facade vs wire (-facade +wire):\n%s", diff)
	}

	health, err := c.DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(w.tg)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range health.TargetHealthDescriptions {
		s := aws.ToString(d.Target.Id) + " " + aws.ToString(d.Target.AvailabilityZone) + " " + string(d.TargetHealth.State) + " " +
			string(d.TargetHealth.Reason) + " " + aws.ToString(d.TargetHealth.Description)
		got = append(got, strings.TrimSpace(s))
	}
	wantHealth := []string{
		"10.0.1.1  healthy",
		"10.0.3.1  unused Target.NotInUse Target is in an Availability Zone that is not enabled for the load balancer",
		"10.0.3.2 all unhealthy Target.Timeout Request timed out", // nothing answers there; not parked
	}
	if diff := cmp.Diff(wantHealth, got); diff != "" {
		t.Errorf("DescribeTargetHealth through the SDK (-want +got):\n%s", diff)
	}
	facadeHealth, err := w.sim.DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(w.tg)})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(facadeHealth, health, sdkTypes); diff != "" {
		t.Errorf("DescribeTargetHealth, facade vs wire (-facade +wire):\n%s", diff)
	}
}
