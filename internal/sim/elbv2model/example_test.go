package elbv2model_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// The lifecycle of a pod target and of a node target whose node is gone,
// as the OnTransition hook reports it.
func Example() {
	clock := vclock.New(time.Time{})
	network := newFakeNet()
	network.up("10.0.1.10", 8080) // a serving pod; 10.0.2.20 is a terminated node
	start := clock.Now()
	model, err := elbv2model.New(elbv2model.Options{
		Clock: clock, Network: network, VPCs: map[string]string{"vpc-1": "10.0.0.0/16"},
		OnTransition: func(tr elbv2model.Transition) {
			to := string(tr.To)
			if tr.Removed {
				to = "gone"
			}
			fmt.Println(strings.TrimSpace(fmt.Sprintf("%v %s:%d %s %s", tr.At.Sub(start), tr.ID, tr.Port, to, tr.Reason)))
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := model.CreateTargetGroup(&elbv2.CreateTargetGroupInput{
		Name: aws.String("web"), TargetType: types.TargetTypeEnumIp, Protocol: types.ProtocolEnumHttp,
		Port: aws.Int32(8080), VpcId: aws.String("vpc-1"),
		HealthCheckIntervalSeconds: aws.Int32(15), HealthyThresholdCount: aws.Int32(2),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	tg := out.TargetGroups[0].TargetGroupArn
	lb, _ := model.AddLoadBalancer("web", "vpc-1")
	if _, err := model.AddListener(lb, 80, []types.Action{{Type: types.ActionTypeEnumForward, TargetGroupArn: tg}}); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := model.RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: tg, Targets: []types.TargetDescription{
		{Id: aws.String("10.0.1.10")}, {Id: aws.String("10.0.2.20"), Port: aws.Int32(30080)},
	}}); err != nil {
		fmt.Println(err)
		return
	}
	clock.Advance(time.Minute)
	if _, err := model.DeregisterTargets(&elbv2.DeregisterTargetsInput{TargetGroupArn: tg, Targets: []types.TargetDescription{
		{Id: aws.String("10.0.2.20"), Port: aws.Int32(30080)},
	}}); err != nil {
		fmt.Println(err)
		return
	}
	clock.Advance(10 * time.Minute)
	// Output:
	// 0s 10.0.1.10:8080 initial Elb.RegistrationInProgress
	// 0s 10.0.2.20:30080 initial Elb.RegistrationInProgress
	// 10s 10.0.1.10:8080 initial Elb.InitialHealthChecking
	// 10s 10.0.2.20:30080 initial Elb.InitialHealthChecking
	// 10s 10.0.1.10:8080 healthy
	// 25s 10.0.2.20:30080 unhealthy Target.Timeout
	// 1m0s 10.0.2.20:30080 draining Target.DeregistrationInProgress
	// 6m0s 10.0.2.20:30080 gone
}
