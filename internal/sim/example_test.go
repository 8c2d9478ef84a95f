package sim_test

import (
	"context"
	"fmt"
	"time"

	"github.com/qstools/tgmigrate/internal/sim"
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
// targets before the pod targets are healthy.
func Example_naiveBinding() {
	w, err := sim.New(context.Background(), sim.Config{Seed: 1, Nodes: 3, Pods: 6})
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
	fmt.Println("outages:", len(st.Outages), "longest:", st.Longest.Duration())
	fmt.Println("LBC calls:", w.LBCELBv2().Counts())
	// Output:
	// outages: 1 longest: 2m10s
	// LBC calls: map[DeregisterTargets:1 DescribeTargetGroups:2 DescribeTargetHealth:1 RegisterTargets:1]
}
