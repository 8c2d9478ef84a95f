package tgmigratetest_test

// fleet_example_test.go: a fleet of three clusters in two accounts, each
// migrated in a participant of Fleet.Parallel.

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// Three clusters in two accounts, the first two sharing one ELBv2
// service, migrated at once: each cutover runs in a participant of
// Parallel, and the fleet's virtual time is that of the longest one, as
// in real time.
func ExampleFleet_Parallel() {
	ctx := context.Background()
	opts := func(seed uint64) tgmigratetest.Options {
		return tgmigratetest.Options{Seed: seed, Nodes: 4, Pods: 8, ReadinessGateInjection: true,
			Churn: tgmigratetest.Churn{Shape: tgmigratetest.ChurnSteady, Interval: 2 * time.Minute}}
	}
	f, err := tgmigratetest.NewFleet(ctx, tgmigratetest.FleetOptions{Clusters: []tgmigratetest.ClusterOptions{
		{Name: "prod-a", AccountID: "111111111111", Options: opts(1)},
		{Name: "prod-b", AccountID: "111111111111", Options: opts(2)},
		{Name: "staging", AccountID: "222222222222", Options: opts(3)},
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	var fns []func(context.Context) error
	for _, w := range f.Worlds() {
		fns = append(fns, func(ctx context.Context) error {
			l := w.Legacy()
			env := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock(), ClusterName: w.ClusterName(), ClusterVPCID: w.VPCID()}
			plan, err := cutover.PlanCutover(ctx, env, cutover.Request{TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace,
				Service: l.Service, Port: intstr.FromString(l.PortName), Assumptions: w.Assumptions()})
			if err != nil {
				return err
			}
			_, err = cutover.Execute(ctx, env, plan)
			return err
		})
	}
	start := f.Clock().Now()
	if err := f.Parallel(ctx, fns...); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("three cutovers took", f.Clock().Since(start))
	for _, w := range f.Worlds() {
		fmt.Println(w.AccountID(), w.ClusterName(), w.Legacy().TargetGroupName, w.VPCID(), "failed requests:", w.Requests().Failed)
	}
	// Output:
	// three cutovers took 6m0s
	// 111111111111 prod-a legacy-web-prod-a vpc-0a1b2c3d4e5f60718 failed requests: 0
	// 111111111111 prod-b legacy-web-prod-b vpc-0a1b2c3d4e5f60719 failed requests: 0
	// 222222222222 staging legacy-web vpc-0a1b2c3d4e5f60718 failed requests: 0
}
