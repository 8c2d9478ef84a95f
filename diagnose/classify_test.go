package diagnose

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// snapshotOf builds a Snapshot straight from a cluster fixture, with no client.
func snapshotOf(t *testing.T, c clusterFix) *Snapshot {
	t.Helper()
	var objs Objects
	for _, o := range c.objects(world{}) {
		switch o := o.(type) {
		case *corev1.Node:
			objs.Nodes = append(objs.Nodes, *o)
		case *corev1.Pod:
			objs.Pods = append(objs.Pods, *o)
		case *corev1.Service:
			objs.Services = append(objs.Services, *o)
		case *corev1.Namespace:
			objs.Namespaces = append(objs.Namespaces, *o)
		case *v1beta1.TargetGroupBinding:
			objs.Bindings = append(objs.Bindings, *o)
		case *unstructured.Unstructured:
			objs.NodeClaims = append(objs.NodeClaims, *o)
		}
	}
	s, err := NewSnapshot(Cluster{Name: c.Name, VPCID: c.VPC, CIDRs: c.CIDRs}, objs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// short is what a classification test compares.
type short struct {
	Class   Class
	Foreign ForeignKind
	Cluster string
	Holder  string
	// HeldBy is a ghost's holder, "kind/name".
	HeldBy string
}

func shorten(rs []TargetReport) []short {
	out := make([]short, len(rs))
	for i, r := range rs {
		out[i] = short{Class: r.Class, Foreign: r.Foreign, Cluster: r.Cluster}
		if r.HeldBy != nil {
			out[i].HeldBy = r.HeldBy.Kind + "/" + r.HeldBy.Name
		}
		switch {
		case r.Pod != nil:
			out[i].Holder = "pod/" + r.Pod.Namespace + "/" + r.Pod.Name
		case r.Node != nil:
			out[i].Holder = "node/" + r.Node.Name
		}
	}
	return out
}

func TestClassify(t *testing.T) {
	prod := baseWorld().Clusters[0]
	prod.Pods = append(prod.Pods,
		podFix{NS: "kube-system", Name: "agent", Node: "n3", IP: "10.0.3.10", Ports: []portFix{{Port: 9100}}}, // hostNetwork-like: same IP as n3
		podFix{NS: "shop", Name: "done", IP: "10.0.5.5"},
		// EKS Fargate: each pod on a Node of its own whose InternalIP is
		// the pod's; web-f1 serves 8080 there, web-f2's Fargate node
		// outlives it (the pod has gone, the Node not yet).
		podFix{NS: "shop", Name: "web-f1", Node: "fargate-ip-10-0-6-1", IP: "10.0.6.1", Labels: map[string]string{"app": "web"}, Ports: []portFix{{Name: "http", Port: 8080}}},
	)
	prod.Nodes = append(prod.Nodes, nodeFix{Name: "fargate-ip-10-0-6-1", IP: "10.0.6.1"}, nodeFix{Name: "fargate-ip-10-0-6-2", IP: "10.0.6.2"})
	snapProd := snapshotOf(t, prod)
	for i := range snapProd.objs.Nodes {
		if n := &snapProd.objs.Nodes[i]; n.Name == "fargate-ip-10-0-6-1" || n.Name == "fargate-ip-10-0-6-2" {
			n.Labels[LabelComputeType] = ComputeTypeFargate
		}
	}
	// A finished pod's IP is released.
	for i := range snapProd.objs.Pods {
		if snapProd.objs.Pods[i].Name == "done" {
			snapProd.objs.Pods[i].Status.Phase = corev1.PodSucceeded
		}
		if snapProd.objs.Pods[i].Name == "agent" {
			snapProd.objs.Pods[i].Spec.HostNetwork = true
		}
	}
	snapProd.index()

	// Another cluster in another VPC that reuses the same addresses.
	twin := baseWorld().Clusters[0]
	twin.Name, twin.VPC = "twin", "vpc-0ffffffffffffffff"
	snapTwin := snapshotOf(t, twin)
	// The same twin, with its VPC unknown.
	blind := twin
	blind.Name, blind.VPC = "blind", ""
	snapBlind := snapshotOf(t, blind)
	// A cluster that declares its ranges.
	ranged := prod
	ranged.Name, ranged.CIDRs = "ranged", []string{"10.0.0.0/20"}
	snapRanged := snapshotOf(t, ranged)
	unread, _ := emptySnapshot(Cluster{Name: "dark", VPCID: testVPC})

	tests := []struct {
		name  string
		set   TargetSet
		snaps []*Snapshot
		want  []short
	}{
		{"node, pod, host-network pod, released pod IP", TargetSet{VPCID: testVPC, Targets: []Target{
			{ID: "10.0.1.10", Port: 30080}, {ID: "10.0.1.11", Port: 8080}, {ID: "10.0.3.10", Port: 9100}, {ID: "10.0.5.5", Port: 8080},
		}}, []*Snapshot{snapProd}, []short{
			{Class: ClassNode, Cluster: "prod", Holder: "node/n1"},
			{Class: ClassPod, Cluster: "prod", Holder: "pod/shop/web-1"},
			// The hostNetwork agent serves 9100 at n3's address: a pod
			// target, n3 beside it.
			{Class: ClassPod, Cluster: "prod", Holder: "pod/kube-system/agent"},
			{Class: ClassGhost, Cluster: "prod"}, // 8080 is a container port
		}},
		{"hostNetwork pod on a NodePort: kube-proxy answers first", TargetSet{VPCID: testVPC, Targets: []Target{
			{ID: "10.0.3.10", Port: 30080},
		}}, []*Snapshot{snapProd}, []short{{Class: ClassNode, Cluster: "prod", Holder: "node/n3"}}},
		{"Fargate: the pod serves its node's address, the node no NodePort", TargetSet{VPCID: testVPC, Targets: []Target{
			{ID: "10.0.6.1", Port: 8080}, {ID: "10.0.6.1", Port: 30080}, {ID: "10.0.6.2", Port: 30080}, {ID: "10.0.6.2", Port: 8080},
		}}, []*Snapshot{snapProd}, []short{
			{Class: ClassPod, Cluster: "prod", Holder: "pod/shop/web-f1"},
			{Class: ClassGhost, Cluster: "prod", HeldBy: "pod/web-f1"}, // held by the pod, which serves 8080 only
			// A Fargate node without its pod serves nothing.
			{Class: ClassGhost, Cluster: "prod", HeldBy: "node/fargate-ip-10-0-6-2"},
			{Class: ClassGhost, Cluster: "prod", HeldBy: "node/fargate-ip-10-0-6-2"},
		}},
		{"ghost by NodePort, unknown otherwise", TargetSet{VPCID: testVPC, Targets: []Target{
			{ID: "10.0.9.9", Port: 30080}, {ID: "10.0.9.9", Port: 5555},
		}}, []*Snapshot{snapProd}, []short{
			{Class: ClassGhost, Cluster: "prod"},
			{Class: ClassForeign, Foreign: ForeignUnknown},
		}},
		{"declared ranges decide", TargetSet{VPCID: testVPC, Targets: []Target{
			{ID: "10.0.9.9", Port: 5555}, {ID: "10.0.99.9", Port: 30080},
		}}, []*Snapshot{snapRanged}, []short{
			{Class: ClassGhost, Cluster: "ranged"},
			{Class: ClassForeign, Foreign: ForeignOutsideRanges},
		}},
		{"a cluster in another VPC never owns a target, even with the same IPs", TargetSet{VPCID: testVPC, Targets: []Target{
			{ID: "10.0.1.10", Port: 30080},
		}}, []*Snapshot{snapTwin, snapProd}, []short{{Class: ClassNode, Cluster: "prod", Holder: "node/n1"}}},
		{"two clusters of unknown VPC holding the IP are ambiguous", TargetSet{VPCID: testVPC, Targets: []Target{
			{ID: "10.0.1.10", Port: 30080},
		}}, []*Snapshot{snapBlind, snapProd}, []short{{Class: ClassForeign, Foreign: ForeignAmbiguous}}},
		{"no cluster in the target group's VPC", TargetSet{VPCID: "vpc-0123456789abcdef0", Targets: []Target{
			{ID: "10.0.1.10", Port: 30080},
		}}, []*Snapshot{snapTwin}, []short{{Class: ClassForeign, Foreign: ForeignVPC}}},
		{"outside the VPC: another cluster's node, or just another VPC", TargetSet{VPCID: testVPC, Targets: []Target{
			{ID: "10.0.1.10", Port: 30080, AvailabilityZone: "all"}, {ID: "192.168.1.1", Port: 443, AvailabilityZone: "all"},
		}}, []*Snapshot{snapProd, snapTwin}, []short{
			{Class: ClassForeign, Foreign: ForeignCluster, Cluster: "twin", Holder: "node/n1"},
			{Class: ClassForeign, Foreign: ForeignVPC},
		}},
		{"an unread cluster makes no ghost", TargetSet{VPCID: testVPC, Targets: []Target{
			{ID: "10.0.1.10", Port: 30080}, {ID: "10.0.9.9", Port: 30080},
		}}, []*Snapshot{snapProd, unread}, []short{
			{Class: ClassNode, Cluster: "prod", Holder: "node/n1"},
			{Class: ClassForeign, Foreign: ForeignUnknown},
		}},
		{"instance targets", TargetSet{VPCID: testVPC, TargetType: "instance", Targets: []Target{
			{ID: "i-0000000000000000a", Port: 30080}, {ID: "i-0ffffffffffffffff", Port: 30080}, {ID: "i-0eeeeeeeeeeeeeeee", Port: 1, Reason: "Target.InvalidState"},
			{ID: "i-0dddddddddddddddd", Port: 1},
		}}, []*Snapshot{snapProd}, []short{
			{Class: ClassNode, Cluster: "prod", Holder: "node/n1"},
			{Class: ClassGhost, Cluster: "prod"},
			{Class: ClassGhost, Cluster: "prod"},
			{Class: ClassForeign, Foreign: ForeignUnknown},
		}},
		{"lambda targets are not classified", TargetSet{TargetType: "lambda", Targets: []Target{{ID: "arn:aws:lambda:eu-west-1:123456789012:function:f"}}},
			[]*Snapshot{snapProd}, []short{{Class: ClassForeign, Foreign: ForeignUnknown}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Classify(tt.set, tt.snaps...)
			if diff := cmp.Diff(tt.want, shorten(got)); diff != "" {
				t.Errorf("Classify (-want +got):\n%s", diff)
			}
			for _, r := range got {
				if r.Note == "" && r.Class != ClassNode && r.Class != ClassPod {
					t.Errorf("%s: no note for class %s", r.Key(), r.Class)
				}
			}
		})
	}
}

func TestClassifyNodeDetails(t *testing.T) {
	w := baseWorld()
	c := w.Clusters[0]
	c.Nodes[0].Excluded = true
	c.NodeClaims = []nodeClaimFix{{Name: "nc", Node: "n1", ExpireAfter: "Never", Drifted: true}}
	got := Classify(TargetSet{Targets: []Target{{ID: "10.0.1.10", Port: 30080}, {ID: "10.0.1.11", Port: 8080}}}, snapshotOf(t, c))
	n := got[0].Node
	if !n.Karpenter || n.NodePool != "default" || n.NodeClaim != "nc" || !n.Drifted || n.ExpiresAt != nil || !n.Disrupting ||
		n.InstanceID != "i-0000000000000000a" || n.DisruptionReasons[0] != "label "+LabelExcludeFromLB {
		t.Errorf("node = %+v", n)
	}
	if got[0].Services[0] != "shop/web" {
		t.Errorf("node target services = %v", got[0].Services)
	}
	p := got[1].Pod
	if p.Name != "web-1" || !p.Ready || !p.PortDeclared || got[1].Services[0] != "shop/web" {
		t.Errorf("pod = %+v, services %v", p, got[1].Services)
	}
}

// TestTakeSnapshotPaged lists with pages of two objects: every object is
// still read, in one pass per kind.
func TestTakeSnapshotPaged(t *testing.T) {
	w := baseWorld()
	c := w.Clusters[0]
	calls := map[string]int{}
	base := fake.NewClientBuilder().WithScheme(testScheme(t)).WithObjects(c.objects(w)...).Build()
	paged := interceptor.NewClient(base, interceptor.Funcs{List: func(ctx context.Context, cl client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
		calls[listKind(list)]++
		lo := (&client.ListOptions{}).ApplyOptions(opts)
		if err := cl.List(ctx, list); err != nil {
			return err
		}
		items, err := apimeta.ExtractList(list)
		if err != nil {
			return err
		}
		start := 0
		if lo.Continue != "" {
			fmt.Sscan(lo.Continue, &start)
		}
		end := min(start+int(lo.Limit), len(items))
		if lo.Limit == 0 {
			end = len(items)
		}
		if err := apimeta.SetList(list, items[start:end]); err != nil {
			return err
		}
		list.SetContinue("")
		if end < len(items) {
			list.SetContinue(fmt.Sprint(end))
		}
		return nil
	}})
	s, err := TakeSnapshot(t.Context(), Cluster{Name: "prod", Reader: paged}, WithListPageSize(2))
	if err != nil {
		t.Fatal(err)
	}
	if r := s.report(); r.Nodes != 3 || r.Pods != 2 || r.Services != 1 {
		t.Errorf("snapshot = %+v", r)
	}
	if calls["nodes"] != 2 || calls["pods"] != 1 {
		t.Errorf("calls = %v, want 2 pages of nodes and 1 of pods", calls)
	}
	if _, err := TakeSnapshot(t.Context(), Cluster{Name: "x"}); !IsInvalidInput(err) {
		t.Errorf("TakeSnapshot(nil reader) = %v", err)
	}
}

// TestClassifySharedAddress: a target on an address a node and a pod
// share reports the pod that serves it, its Services, and the node beside
// it (Fargate's node per pod, a hostNetwork pod on its node).
func TestClassifySharedAddress(t *testing.T) {
	prod := baseWorld().Clusters[0]
	prod.Nodes = append(prod.Nodes, nodeFix{Name: "fargate-ip-10-0-6-1", IP: "10.0.6.1"})
	prod.Pods = append(prod.Pods,
		podFix{NS: "shop", Name: "web-f1", Node: "fargate-ip-10-0-6-1", IP: "10.0.6.1", Labels: map[string]string{"app": "web"}, Ports: []portFix{{Name: "http", Port: 8080}}},
		podFix{NS: "shop", Name: "web-h1", Node: "n3", IP: "10.0.3.10", Labels: map[string]string{"app": "web"}, Ports: []portFix{{Name: "http", Port: 8080}}},
	)
	snap := snapshotOf(t, prod)
	for i := range snap.objs.Nodes {
		if n := &snap.objs.Nodes[i]; n.Name == "fargate-ip-10-0-6-1" {
			n.Labels[LabelComputeType] = ComputeTypeFargate
		}
	}
	for i := range snap.objs.Pods {
		if p := &snap.objs.Pods[i]; p.Name == "web-h1" {
			p.Spec.HostNetwork = true
		}
	}
	snap.index()
	got := Classify(TargetSet{VPCID: testVPC, Targets: []Target{{ID: "10.0.6.1", Port: 8080}, {ID: "10.0.3.10", Port: 8080}}}, snap)
	tests := []struct {
		name             string
		pod, node        string
		fargate, hostNet bool
	}{
		{"fargate", "web-f1", "fargate-ip-10-0-6-1", true, false},
		{"hostNetwork", "web-h1", "n3", false, true},
	}
	for i, tt := range tests {
		r := got[i]
		if r.Class != ClassPod || r.Pod == nil || r.Pod.Name != tt.pod || r.Pod.HostNetwork != tt.hostNet || !r.Pod.PortDeclared {
			t.Errorf("%s: class %s, pod %+v", tt.name, r.Class, r.Pod)
		}
		if r.Node == nil || r.Node.Name != tt.node || r.Node.Fargate != tt.fargate {
			t.Errorf("%s: node %+v", tt.name, r.Node)
		}
		if len(r.Services) != 1 || r.Services[0] != "shop/web" || r.Note == "" {
			t.Errorf("%s: services %v, note %q", tt.name, r.Services, r.Note)
		}
	}
}
