package sim_test

import (
	"context"
	"fmt"
	"time"

	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/timing"
)

// The seed's case under churn: every node is replaced, and each replaced
// node leaves a ghost nodeIP:NodePort target behind.
func Example_ghosts() {
	w, err := sim.New(context.Background(), sim.Config{Seed: 1, Nodes: 3, Pods: 6})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := w.ReplaceAllNodes(10 * time.Minute); err != nil {
		fmt.Println(err)
		return
	}
	w.Run(20 * time.Minute)
	for _, g := range w.Ghosts() {
		fmt.Println(g)
	}
	fmt.Println("requests failed:", w.Traffic().Failed > 0)
	// Output:
	// 10.0.0.4:30080 unhealthy nobody (was node/ip-10-0-0-4.ec2.internal)
	// 10.0.32.4:30080 unhealthy nobody (was node/ip-10-0-32-4.ec2.internal)
	// 10.0.64.4:30080 unhealthy nobody (was node/ip-10-0-64-4.ec2.internal)
	// requests failed: true
}

// A default-mode binding on the live target group: the LBC drains the node
// targets before the pod targets are healthy. What that costs depends on
// AWS's timings: with the default deregistration lag (15 s) the load
// balancer still sends requests to the node targets until the pods pass
// their first check; with no lag the gap is the registration delay and
// one check; and if new targets need HealthyThresholdCount checks, over
// two minutes.
func Example_naiveBinding() {
	for _, tm := range []timing.Timings{
		{},
		{DeregistrationLag: -1},
		{DeregistrationLag: -1, NewTargetChecks: timing.HealthyThreshold},
	} {
		w, err := sim.New(context.Background(), sim.Config{Seed: 1, Nodes: 3, Pods: 6, Timings: tm})
		if err != nil {
			fmt.Println(err)
			return
		}
		if err := w.Client().Create(context.Background(), w.NewBinding("web", false)); err != nil {
			fmt.Println(err)
			return
		}
		w.Run(10 * time.Minute)
		st := w.Traffic()
		fmt.Printf("%s: outages %d, longest %v, LBC calls %v\n", w.Timings(), len(st.Outages), st.Longest.Duration(), w.LBCELBv2().Counts())
	}
	// Output:
	// checks 1, lag 15s, dead 504 after 10s, reuse off: outages 0, longest 0s, LBC calls map[DeregisterTargets:1 DescribeTargetGroups:2 DescribeTargetHealth:1 RegisterTargets:1]
	// checks 1, lag 0s, dead 504 after 10s, reuse off: outages 1, longest 11s, LBC calls map[DeregisterTargets:1 DescribeTargetGroups:2 DescribeTargetHealth:1 RegisterTargets:1]
	// checks HealthyThresholdCount, lag 0s, dead 504 after 10s, reuse off: outages 1, longest 2m11s, LBC calls map[DeregisterTargets:1 DescribeTargetGroups:2 DescribeTargetHealth:1 RegisterTargets:1]
}
