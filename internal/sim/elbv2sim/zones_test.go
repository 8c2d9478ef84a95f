package elbv2sim_test

import (
	"net/netip"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
)

// TestZonesThroughTheFacade: DescribeLoadBalancers through the Go facade
// lists the load balancer's zones, and DescribeTargetHealth reports a
// target in a zone it has not enabled as unused / Target.NotInUse.
func TestZonesThroughTheFacade(t *testing.T) {
	w := newWorld(t)
	c := newClient(t, w, elbv2sim.Options{Name: "sut"})
	ctx := t.Context()
	w.model.SetZoneSource(func(ip netip.Addr) (string, bool) {
		if netip.MustParsePrefix("10.0.1.0/24").Contains(ip) {
			return "z-c", true
		}
		return "z-a", true
	})
	if err := w.model.SetLoadBalancerZones(w.lb, map[string]string{"z-a": "subnet-a", "z-b": "subnet-b"}); err != nil {
		t.Fatal(err)
	}
	out, err := c.DescribeLoadBalancers(ctx, &elbv2.DescribeLoadBalancersInput{LoadBalancerArns: []string{w.lb}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, z := range out.LoadBalancers[0].AvailabilityZones {
		got = append(got, aws.ToString(z.ZoneName)+"="+aws.ToString(z.SubnetId))
	}
	if len(got) != 2 || got[0] != "z-a=subnet-a" || got[1] != "z-b=subnet-b" {
		t.Errorf("AvailabilityZones %v, want [z-a=subnet-a z-b=subnet-b]", got)
	}
	if _, err := c.RegisterTargets(ctx, &elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(w.tg), Targets: targets(1)}); err != nil {
		t.Fatal(err)
	}
	h, err := c.DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(w.tg)})
	if err != nil {
		t.Fatal(err)
	}
	th := h.TargetHealthDescriptions[0].TargetHealth
	if th.State != types.TargetHealthStateEnumUnused || th.Reason != types.TargetHealthReasonEnumNotInUse {
		t.Errorf("target in z-c: %s (%s), want unused (Target.NotInUse)", th.State, th.Reason)
	}
}
