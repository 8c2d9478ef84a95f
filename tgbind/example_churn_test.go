package tgbind_test

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/tgbind"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// Build on the test kit's world while Karpenter consolidates nodes: the
// binding of the hand-made target group is built from what the world's
// ELBv2 and cluster say now and applied; the controller stand-in registers
// the Service's pods, and keeps them registered as the churn goes on and
// the pods move to new nodes.
func ExampleBinder_Build_underChurn() {
	ctx := context.Background()
	consolidation := tgmigratetest.Churn{Shape: tgmigratetest.ChurnConsolidation, Interval: 2 * time.Minute}
	w, _ := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{Seed: 1, Nodes: 4, Pods: 8, Churn: consolidation})
	l := w.Legacy()
	w.Run(5 * time.Minute) // Karpenter consolidates as the example starts
	b, _ := tgbind.New(tgbind.Options{ELBv2: w.ELBv2Read(), Reader: w.Client(), Writer: w.Client(), Clock: w.Clock(), ClusterVPCID: w.VPCID()})
	req := tgbind.Request{TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace, Service: l.Service, Port: intstr.FromString(l.PortName)}
	binding, err := b.Build(ctx, req)
	if err != nil {
		fmt.Println("build:", err)
		return
	}
	tgb := binding.TargetGroupBinding
	fmt.Println("binding:", tgb.Namespace+"/"+tgb.Name, "target type:", *tgb.Spec.TargetType)
	if _, err := b.Apply(ctx, tgb); err != nil {
		fmt.Println(err)
		return
	}
	st, err := b.Wait(ctx, tgb)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d/%d pods healthy\n", st.Healthy, st.Total)
	w.Run(10 * time.Minute) // the churn goes on
	if st, err = b.Wait(ctx, tgb); err != nil {
		fmt.Println("wait:", err)
		return
	}
	fmt.Printf("after 10 more minutes of churn: %d/%d pods healthy\n", st.Healthy, st.Total)
	// Output:
	// binding: shop/web-http-legacy-web target type: ip
	// 8/8 pods healthy
	// after 10 more minutes of churn: 8/8 pods healthy
}
