package cluster_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/qstools/tgmigrate/internal/sim"
)

// The simulated cluster answers the ALB as the network would: a live
// node's IP serves the NodePort through kube-proxy; an address nothing
// holds times out.
func ExampleCluster_Probe() {
	w, err := sim.New(context.Background(), sim.Config{Seed: 1, Nodes: 2, Pods: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	cl, l := w.Cluster(), w.Legacy()
	node := cl.Nodes()[0]
	fmt.Println(strings.HasPrefix(node.Name, "ip-"), cl.Probe(node.InternalIP, l.NodePort, "/healthz"))
	fmt.Println(cl.Probe("10.0.200.200", l.NodePort, "/healthz"))
	// Output:
	// true ok
	// timeout
}
