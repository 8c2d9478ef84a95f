package sim_test

import (
	"context"
	"fmt"
	"time"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"

	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/timing"
)

// The naive binding again, at the timings where it fails longest (no
// deregistration lag, new targets healthy after HealthyThresholdCount
// checks), with every ELBv2 call through the real SDK client and an ELBv2
// Query-protocol endpoint on loopback: the same outage, the same LBC
// calls, now counted at its endpoint.
func Example_wire() {
	worst := timing.Timings{DeregistrationLag: -1, NewTargetChecks: timing.HealthyThreshold}
	w, err := sim.New(context.Background(), sim.Config{Seed: 1, Nodes: 3, Pods: 6, Wire: &sim.WireOptions{}, Timings: worst})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	if err := w.Client().Create(context.Background(), w.NewBinding("web", false)); err != nil {
		fmt.Println(err)
		return
	}
	w.Run(10 * time.Minute)
	st := w.Traffic()
	fmt.Println("outages:", len(st.Outages), "longest:", st.Longest.Duration())
	fmt.Println("LBC requests:", w.LBCWire().Counts())

	// The system under test gets the real client.
	arn := w.Legacy().TargetGroupARN
	out, err := w.AWS().DescribeTargetHealth(context.Background(), &elbv2.DescribeTargetHealthInput{TargetGroupArn: &arn})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, real := w.AWS().(*elbv2.Client)
	fmt.Println("real SDK client:", real, "targets:", len(out.TargetHealthDescriptions), "requests:", w.AWSCounts())
	// Output:
	// outages: 1 longest: 2m11s
	// LBC requests: map[DeregisterTargets:1 DescribeSecurityGroups:1 DescribeTargetGroups:2 DescribeTargetHealth:1 DescribeVpcs:1 RegisterTargets:1]
	// real SDK client: true targets: 6 requests: map[DescribeTargetHealth:1]
}
