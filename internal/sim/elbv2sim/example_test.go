package elbv2sim_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"

	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// A network where one pod serves and a node has gone away.
type exampleNet struct{}

func (exampleNet) Probe(ip string, _ int32, _ string) elbv2model.ProbeResult {
	if ip == "10.0.1.10" {
		return elbv2model.ProbeOK
	}
	return elbv2model.ProbeTimeout
}
func (exampleNet) Serve(ip string, _ int32) elbv2model.Answer {
	if ip == "10.0.1.10" {
		return elbv2model.Answer{Result: elbv2model.ProbeOK}
	}
	return elbv2model.Answer{Result: elbv2model.ProbeTimeout}
}
func (exampleNet) InVPC(string, string) bool { return false }

func Example() {
	clock := vclock.New(time.Time{})
	model, _ := elbv2model.New(elbv2model.Options{Clock: clock, Network: exampleNet{}, VPCs: map[string]string{"vpc-1": "10.0.0.0/16"}})
	created, _ := model.CreateTargetGroup(&elbv2.CreateTargetGroupInput{
		Name: aws.String("web"), TargetType: types.TargetTypeEnumIp, Protocol: types.ProtocolEnumHttp,
		Port: aws.Int32(8080), VpcId: aws.String("vpc-1"), HealthCheckIntervalSeconds: aws.Int32(10),
		HealthyThresholdCount: aws.Int32(2),
	})
	tg := created.TargetGroups[0].TargetGroupArn
	lb, _ := model.AddLoadBalancer("web", "vpc-1")
	_, _ = model.AddListener(lb, 80, []types.Action{{Type: types.ActionTypeEnumForward, TargetGroupArn: tg}})

	client, _ := elbv2sim.New(model, elbv2sim.Options{Name: "sut"})
	ctx := context.Background()
	_, _ = client.RegisterTargets(ctx, &elbv2.RegisterTargetsInput{TargetGroupArn: tg, Targets: []types.TargetDescription{
		{Id: aws.String("10.0.1.10"), Port: aws.Int32(8080)},  // a pod
		{Id: aws.String("10.0.2.20"), Port: aws.Int32(30080)}, // a node Karpenter removed
	}})
	clock.Advance(time.Minute)
	out, _ := client.DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: tg})
	for _, d := range out.TargetHealthDescriptions {
		fmt.Printf("%s:%d %s\n", *d.Target.Id, *d.Target.Port, strings.TrimSpace(string(d.TargetHealth.State)+" "+string(d.TargetHealth.Reason)))
	}

	_, err := client.RegisterTargets(ctx, &elbv2.RegisterTargetsInput{TargetGroupArn: tg, Targets: []types.TargetDescription{{Id: aws.String("52.1.2.3"), Port: aws.Int32(80)}}})
	var api smithy.APIError
	if errors.As(err, &api) {
		fmt.Println(api.ErrorCode())
	}
	fmt.Println(client.Counts())
	// Output:
	// 10.0.1.10:8080 healthy
	// 10.0.2.20:30080 unhealthy Target.Timeout
	// InvalidTarget
	// map[DescribeTargetHealth:1 RegisterTargets:2]
}

func ExampleNewThrottle() {
	clock := vclock.New(time.Time{})
	model, _ := elbv2model.New(elbv2model.Options{Clock: clock, Network: exampleNet{}})
	throttle, _ := elbv2sim.NewThrottle(map[elbv2sim.OpClass]elbv2sim.Bucket{elbv2sim.ClassDescribe: elbv2sim.DocumentedDescribeBucket})
	sut, _ := elbv2sim.New(model, elbv2sim.Options{Name: "sut", Throttle: throttle})
	lbc, _ := elbv2sim.New(model, elbv2sim.Options{Name: "lbc", Throttle: throttle})

	ctx := context.Background()
	throttled := 0
	for range 30 {
		for _, c := range []*elbv2sim.Client{sut, lbc} {
			if _, err := c.DescribeTargetGroups(ctx, nil); err != nil {
				throttled++
			}
		}
	}
	fmt.Println("throttled at once:", throttled)
	clock.Advance(time.Second)
	if _, err := sut.DescribeTargetGroups(ctx, nil); err == nil {
		fmt.Println("refilled after a second")
	}
	// Output:
	// throttled at once: 20
	// refilled after a second
}
