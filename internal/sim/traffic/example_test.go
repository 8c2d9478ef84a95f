package traffic_test

import (
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/sim/traffic"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// Traffic through an ALB whose only target's node is terminated after five
// minutes: every request fails from then on (the ALB fails open to the
// unhealthy ghost target).
func Example() {
	clock := vclock.New(time.Time{})
	network := newNet()
	network.set("10.0.2.1", true)
	model, _ := elbv2model.New(elbv2model.Options{Clock: clock, Network: network, VPCs: map[string]string{"vpc-1": "10.0.0.0/16"}})
	out, _ := model.CreateTargetGroup(&elbv2.CreateTargetGroupInput{
		Name: aws.String("legacy"), TargetType: types.TargetTypeEnumIp, Protocol: types.ProtocolEnumHttp,
		Port: aws.Int32(30080), VpcId: aws.String("vpc-1"),
	})
	tg := out.TargetGroups[0].TargetGroupArn
	_, _ = model.RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: tg, Targets: []types.TargetDescription{{Id: aws.String("10.0.2.1")}}})
	lb, _ := model.AddLoadBalancer("web", "vpc-1")
	listener, _ := model.AddListener(lb, 80, []types.Action{{Type: types.ActionTypeEnumForward, TargetGroupArn: tg}})

	// Start the traffic once the target is healthy.
	start := clock.Now().Add(5 * time.Minute)
	gen, _ := traffic.New(model, network, traffic.Options{ListenerARN: listener, RPS: 5, Start: start})
	clock.At(start.Add(5*time.Minute), "node terminated", func(time.Time) { network.set("10.0.2.1", false) })
	clock.RunUntil(start.Add(15*time.Minute - time.Millisecond))

	st := gen.Stats()
	fmt.Print(st)
	fmt.Println("outage starts", st.Longest.Start.Sub(start), "lasts", st.Longest.Duration())
	// Output:
	// requests 4500, served 1500, failed 3000 (no target 0, target failed 3000, other 0)
	// 1 outage window(s), longest 10m0s from 2026-01-01T00:10:00Z
	// outage starts 5m0s lasts 10m0s
}
