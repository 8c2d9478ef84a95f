package elbv2wire_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// exampleNet: one pod serves; a node Karpenter removed does not.
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

// The real SDK client against the simulator: an endpoint in front of the
// Go facade, one model, the SDK's serialisation, signing, error decoding
// and retries in between.
func Example() {
	clock := vclock.New(time.Time{})
	model, _ := elbv2model.New(elbv2model.Options{Clock: clock, Network: exampleNet{}, VPCs: map[string]string{"vpc-1": "10.0.0.0/16"}})
	created, _ := model.CreateTargetGroup(&elbv2.CreateTargetGroupInput{
		Name: aws.String("web"), TargetType: types.TargetTypeEnumIp, Protocol: types.ProtocolEnumHttp,
		Port: aws.Int32(8080), VpcId: aws.String("vpc-1"), HealthCheckIntervalSeconds: aws.Int32(10), HealthyThresholdCount: aws.Int32(2),
	})
	tg := created.TargetGroups[0].TargetGroupArn
	lb, _ := model.AddLoadBalancer("web", "vpc-1")
	_, _ = model.AddListener(lb, 80, []types.Action{{Type: types.ActionTypeEnumForward, TargetGroupArn: tg}})
	facade, _ := elbv2sim.New(model, elbv2sim.Options{Name: "sut"})

	// The endpoint on loopback and a real *elasticloadbalancingv2.Client.
	client, endpoint, err := elbv2wire.NewClient(facade, elbv2wire.ClientOptions{Region: elbv2model.DefaultRegion})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer endpoint.Close()

	ctx := context.Background()
	_, _ = client.RegisterTargets(ctx, &elbv2.RegisterTargetsInput{TargetGroupArn: tg, Targets: []types.TargetDescription{
		{Id: aws.String("10.0.1.10"), Port: aws.Int32(8080)},
		{Id: aws.String("10.0.2.20"), Port: aws.Int32(30080)},
	}})
	clock.Advance(time.Minute)
	out, _ := client.DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: tg})
	for _, d := range out.TargetHealthDescriptions {
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%s:%d %s %s", *d.Target.Id, *d.Target.Port, d.TargetHealth.State, d.TargetHealth.Reason)))
	}

	// A model error arrives as the SDK's typed exception.
	_, err = client.DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(*tg + "0")})
	var notFound *types.TargetGroupNotFoundException
	fmt.Println("not found:", errors.As(err, &notFound))

	counts := endpoint.Counts()
	for _, op := range slices.Sorted(maps.Keys(counts)) {
		fmt.Printf("%s x%d\n", op, counts[op])
	}
	// Output:
	// 10.0.1.10:8080 healthy
	// 10.0.2.20:30080 unhealthy Target.Timeout
	// not found: true
	// DescribeTargetHealth x2
	// RegisterTargets x1
}
