package karpenter_test

import (
	"context"
	"fmt"
	"time"

	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
)

// Karpenter replaces a node for drift: a replacement with a new IP comes
// up first, then the old node is tainted, drained and terminated; its
// nodeIP:NodePort target in the hand-made target group becomes a ghost.
func ExampleKarpenter_ReplaceNode() {
	w, err := sim.New(context.Background(), sim.Config{Seed: 1, Nodes: 3, Pods: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	old := w.Cluster().Nodes()[0].Name
	if err := w.Karpenter().ReplaceNode(old, karpenter.ReasonDrifted); err != nil {
		fmt.Println(err)
		return
	}
	w.Run(10 * time.Minute)
	view, _ := w.Cluster().Node(old)
	fmt.Println("old node:", view.Phase)
	fmt.Println("nodes:", len(w.Cluster().Nodes()), "disruptions:", len(w.Karpenter().Disruptions()))
	fmt.Println("ghost targets:", len(w.Ghosts()))
	// Output:
	// old node: Terminated
	// nodes: 3 disruptions: 1
	// ghost targets: 1
}
