package lbc_test

import (
	"context"
	"fmt"
	"time"

	"github.com/qstools/tgmigrate/internal/sim"
)

// The LBC stand-in reconciles a multi-cluster TargetGroupBinding: it
// registers the pods beside the hand-made node targets and deregisters
// nothing it did not register.
func ExampleController() {
	ctx := context.Background()
	w, err := sim.New(ctx, sim.Config{Seed: 1, Nodes: 3, Pods: 4})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := w.Client().Create(ctx, w.NewBinding("web", true)); err != nil {
		fmt.Println(err)
		return
	}
	w.Run(5 * time.Minute)
	st := w.LBC().Stats()
	fmt.Println("registered:", st.Registered, "deregistered:", st.Deregistered)
	fmt.Println("targets:", len(w.Targets(w.Legacy().TargetGroupARN)), "failed requests:", w.Traffic().Failed)
	// Output:
	// registered: 4 deregistered: 0
	// targets: 7 failed requests: 0
}
