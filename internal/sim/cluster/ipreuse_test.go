package cluster_test

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/qstools/tgmigrate/internal/sim/cluster"
	"github.com/qstools/tgmigrate/internal/sim/timing"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// TestIPReuse: without reuse an address is handed out once; with it a
// freed address comes back after its cool-down, to the holders the reuse
// allows, before any address never used.
func TestIPReuse(t *testing.T) {
	tests := []struct {
		name  string
		reuse timing.IPReuse
		// wantPod and wantNode: whether the next pod, then the next node,
		// created after the cool-down get the freed address.
		wantPod, wantNode bool
	}{
		{"off", timing.IPReuse{}, false, false},
		{"on, any holder: the next pod takes it", timing.IPReuse{Enabled: true}, true, false},
		{"on, nodes only: the next node takes it", timing.IPReuse{Enabled: true, To: timing.HolderNode}, false, true},
		{"on, pods only", timing.IPReuse{Enabled: true, To: timing.HolderPod}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fc, err := cluster.NewFakeClient(cluster.FakeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			clock := vclock.New(time.Time{})
			cl, err := cluster.New(cluster.Options{Client: fc, Clock: clock, Seed: 3, IPReuse: tt.reuse, Zones: []string{"us-east-1a"}})
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			if _, err := cl.LaunchNode(ctx, cluster.NodeSpec{}); err != nil {
				t.Fatal(err)
			}
			if err := cl.EnsureNamespace(ctx, ns, nil); err != nil {
				t.Fatal(err)
			}
			if err := cl.AddWorkload(ctx, cluster.Workload{Namespace: ns, Name: "web", Replicas: 1}); err != nil {
				t.Fatal(err)
			}
			clock.Advance(time.Minute)
			first := cl.Pods()[0]
			if err := cl.ForceDeletePod(ctx, types.NamespacedName{Namespace: first.Namespace, Name: first.Name}); err != nil {
				t.Fatal(err)
			}
			// The replacement comes at once, inside the cool-down: a new address.
			clock.Advance(time.Second)
			second := livePod(t, cl)
			if second.IP == first.IP {
				t.Fatalf("the replacement inside the cool-down took %s again", first.IP)
			}
			clock.Advance(timing.DefaultIPCoolDown)
			if err := cl.ForceDeletePod(ctx, types.NamespacedName{Namespace: second.Namespace, Name: second.Name}); err != nil {
				t.Fatal(err)
			}
			clock.Advance(time.Second)
			third := livePod(t, cl)
			if got := third.IP == first.IP; got != tt.wantPod {
				t.Errorf("the pod after the cool-down has %s (the freed one %s): reused %t, want %t", third.IP, first.IP, got, tt.wantPod)
			}
			node, err := cl.LaunchNode(ctx, cluster.NodeSpec{})
			if err != nil {
				t.Fatal(err)
			}
			n, _ := cl.Node(node)
			freed := map[string]bool{first.IP: !tt.wantPod, second.IP: true}
			if got := freed[n.InternalIP]; got != tt.wantNode {
				t.Errorf("the new node has %s (freed: %v): reused %t, want %t", n.InternalIP, freed, got, tt.wantNode)
			}
			// Who holds an address is who holds it now; what held it last
			// is the new holder too.
			if tt.wantPod {
				if o, _ := cl.Owner(first.IP); !strings.HasPrefix(o, "pod/") || strings.HasSuffix(o, first.Name) {
					t.Errorf("owner of the reused address %s: %q, want the new pod", first.IP, o)
				}
			}
		})
	}
}

func livePod(t *testing.T, cl *cluster.Cluster) cluster.PodView {
	t.Helper()
	for _, p := range cl.Pods() {
		if p.Phase != "Terminating" {
			return p
		}
	}
	t.Fatal("no live pod")
	return cluster.PodView{}
}
