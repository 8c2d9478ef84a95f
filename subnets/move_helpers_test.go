package subnets_test

// move_helpers_test.go: the move's test world: a fake cluster (controller-
// runtime's fake client with an EC2NodeClass, a NodePool and nodes), a
// Karpenter stand-in that replaces drifted nodes on every poll of the
// clock, and a target group whose health a test sets.

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/karpenterapi"
	"github.com/qstools/tgmigrate/internal/mocks"
	"github.com/qstools/tgmigrate/subnets"
)

const (
	mvNamespace = "tgmigrate"
	mvCluster   = "prod"
	mvTGARN     = "arn:aws:elasticloadbalancing:eu-west-1:111122223333:targetgroup/web/0123456789abcdef"
)

var mvStart = time.Date(2026, 12, 4, 8, 0, 0, 0, time.UTC)

// mvClock is a fake clock whose After steps time at once and runs the
// world's tick: the watch's every poll moves the world on.
type mvClock struct {
	*clocktesting.FakeClock
	tick func()
}

func (c *mvClock) After(d time.Duration) <-chan time.Time {
	c.Step(d)
	if c.tick != nil {
		c.tick()
	}
	ch := make(chan time.Time, 1)
	ch <- c.Now()
	return ch
}

// mvWorld is a cluster under the move: its client, clock, ELBv2 and the
// Karpenter stand-in.
type mvWorld struct {
	t      *testing.T
	c      client.WithWatch
	clock  *mvClock
	elb    *mvELB
	nodes  int
	budget int // nodes Karpenter replaces per wave
	// launched are the replacements created in this wave, waiting for
	// their old nodes to drain on the next tick.
	pending []string
	seq     int
}

// mvPrivate and mvPublic are the subnets, per zone.
var (
	mvPrivate = []subnets.Subnet{
		{ID: "subnet-priva", Zone: "eu-west-1a", CIDR: "10.0.1.0/24", Free: 250, Egress: "nat", Tags: map[string]string{"tier": "private"}},
		{ID: "subnet-privb", Zone: "eu-west-1b", CIDR: "10.0.2.0/24", Free: 250, Egress: "nat", Tags: map[string]string{"tier": "private"}},
	}
	mvPublicCIDRs = []string{"10.0.101.0/24", "10.0.102.0/24"}
)

func mvNodeClass() *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{
			"role":                     "KarpenterNodeRole-prod",
			"amiSelectorTerms":         []any{map[string]any{"alias": "al2023@latest"}},
			"subnetSelectorTerms":      []any{map[string]any{"tags": map[string]any{"tier": "public"}}},
			"associatePublicIPAddress": true,
			"securityGroupSelectorTerms": []any{map[string]any{"tags": map[string]any{
				"karpenter.sh/discovery": mvCluster}}},
		},
	}}
	u.SetGroupVersionKind(karpenterapi.EC2NodeClassGVK)
	u.SetName("default")
	return u
}

func mvNodePool(budgets []any) *unstructured.Unstructured {
	spec := map[string]any{
		"template": map[string]any{"spec": map[string]any{
			"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
			"requirements": []any{map[string]any{"key": "kubernetes.io/arch", "operator": "In", "values": []any{"amd64"}}},
		}},
		"disruption": map[string]any{"consolidationPolicy": "WhenEmptyOrUnderutilized"},
	}
	if budgets != nil {
		spec["disruption"].(map[string]any)["budgets"] = budgets
	}
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(karpenterapi.NodePoolGVK)
	u.SetName("default")
	return u
}

func mvNode(name string, public bool, i int) *corev1.Node {
	cidr := mvPrivate[i%2].CIDR
	if public {
		cidr = mvPublicCIDRs[i%2]
	}
	p := netip.MustParsePrefix(cidr)
	ip := p.Addr().Next()
	for range i + 10 {
		ip = ip.Next()
	}
	addrs := []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip.String()}}
	if public {
		addrs = append(addrs, corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: fmt.Sprintf("54.0.0.%d", i+1)})
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			karpenterapi.LabelNodePool: "default", karpenterapi.LabelNodeClass: "default"}},
		Status: corev1.NodeStatus{Addresses: addrs},
	}
}

func mvScheme(t testing.TB) *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// newMVWorld starts a world of n public nodes, a NodePool with budgets
// (nil: absent), and a target group of healthy targets.
func newMVWorld(t *testing.T, n int, budgets []any, funcs *interceptor.Funcs) *mvWorld {
	t.Helper()
	w := &mvWorld{t: t, nodes: n, budget: 1, elb: &mvELB{healthy: 6}}
	objs := []client.Object{mvNodeClass(), mvNodePool(budgets),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: mvNamespace}}}
	for i := range n {
		objs = append(objs, mvNode(fmt.Sprintf("old-%d", i), true, i))
	}
	b := fake.NewClientBuilder().WithScheme(mvScheme(t)).WithObjects(objs...)
	if funcs != nil {
		b = b.WithInterceptorFuncs(*funcs)
	}
	w.c = b.Build()
	w.clock = &mvClock{FakeClock: clocktesting.NewFakeClock(mvStart)}
	w.clock.tick = w.tick
	return w
}

// env is the move's Env on the world.
func (w *mvWorld) env() subnets.Env {
	return subnets.Env{Client: w.c, ELBv2: mocks.DescribeOnly{Next: w.elb}, Namespace: mvNamespace, Holder: "operator-1", Clock: w.clock}
}

// tick is Karpenter: it reads the node class and, in turn, launches up to
// budget replacements for nodes whose address disagrees with it, then
// drains and deletes their old nodes (one wave every two ticks).
func (w *mvWorld) tick() {
	ctx := context.Background()
	if len(w.pending) > 0 {
		for _, name := range w.pending {
			_ = w.c.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})
		}
		w.pending = nil
		w.elb.wave()
		return
	}
	nc := w.get(karpenterapi.EC2NodeClassGVK, "default")
	view, err := karpenterapi.EC2NodeClassOf(nc)
	if err != nil {
		w.t.Errorf("karpenter stand-in: %v", err)
		return
	}
	wantPublic := view.AssociatePublicIPAddress == nil || *view.AssociatePublicIPAddress
	var nodes corev1.NodeList
	if err := w.c.List(ctx, &nodes); err != nil {
		w.t.Errorf("karpenter stand-in: %v", err)
		return
	}
	for _, n := range nodes.Items {
		if len(w.pending) == w.budget {
			break
		}
		public := slices.ContainsFunc(n.Status.Addresses, func(a corev1.NodeAddress) bool { return a.Type == corev1.NodeExternalIP })
		if public == wantPublic {
			continue
		}
		w.seq++
		repl := mvNode(fmt.Sprintf("new-%d", w.seq), wantPublic, w.seq)
		if err := w.c.Create(ctx, repl); err != nil {
			w.t.Errorf("karpenter stand-in: %v", err)
			return
		}
		w.pending = append(w.pending, n.Name)
	}
}

// get reads an object of the world.
func (w *mvWorld) get(gvk schema.GroupVersionKind, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	if err := w.c.Get(context.Background(), client.ObjectKey{Name: name}, u); err != nil {
		w.t.Fatalf("get %s %s: %v", gvk.Kind, name, err)
	}
	return u
}

// mvELB is the target group: healthy targets, and a hook a test sets per
// wave.
type mvELB struct {
	tgmigrate.ELBv2ReadAPI
	mu      sync.Mutex
	healthy int
	unused  bool
	waves   int
	onWave  func(wave int, e *mvELB)
}

func (e *mvELB) wave() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.waves++
	if e.onWave != nil {
		e.onWave(e.waves, e)
	}
}

func (e *mvELB) DescribeTargetHealth(_ context.Context, in *elbv2.DescribeTargetHealthInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if ptr.Deref(in.TargetGroupArn, "") != mvTGARN {
		return nil, fmt.Errorf("unknown target group %v", in.TargetGroupArn)
	}
	out := &elbv2.DescribeTargetHealthOutput{}
	for i := range e.healthy {
		out.TargetHealthDescriptions = append(out.TargetHealthDescriptions, elbv2types.TargetHealthDescription{
			Target:       &elbv2types.TargetDescription{Id: ptr.To(fmt.Sprintf("10.0.1.%d", 100+i)), Port: ptr.To[int32](8080), AvailabilityZone: ptr.To("eu-west-1a")},
			TargetHealth: &elbv2types.TargetHealth{State: elbv2types.TargetHealthStateEnumHealthy},
		})
	}
	if e.unused {
		out.TargetHealthDescriptions = append(out.TargetHealthDescriptions, elbv2types.TargetHealthDescription{
			Target:       &elbv2types.TargetDescription{Id: ptr.To("10.0.3.7"), Port: ptr.To[int32](8080), AvailabilityZone: ptr.To("eu-west-1c")},
			TargetHealth: &elbv2types.TargetHealth{State: elbv2types.TargetHealthStateEnumUnused, Reason: elbv2types.TargetHealthReasonEnumNotInUse},
		})
	}
	return out, nil
}

// mvReadiness is a Ready report of the world.
func mvReadiness(nodes int, budgets []karpenterapi.Budget) *subnets.Readiness {
	pub := true
	return &subnets.Readiness{
		SchemaVersion: subnets.ReadinessSchemaVersion, Cluster: mvCluster, VPCID: "vpc-1", Region: "eu-west-1",
		CheckedAt: mvStart.Add(-time.Minute), Ready: true,
		PrivateSubnets: mvPrivate,
		SelectorTerms:  []karpenterapi.SelectorTerm{{Tags: map[string]string{"tier": "private"}}},
		NodeClasses: []subnets.NodeClassReport{{Name: "default", SubnetSelectorTerms: []karpenterapi.SelectorTerm{{Tags: map[string]string{"tier": "public"}}},
			AssociatePublicIPAddress: &pub, NodePools: []string{"default"}, Nodes: nodes, ResourceVersion: "1"}},
		NodePools: []subnets.NodePoolReport{{Name: "default", NodeClass: "default", Budgets: budgets, Nodes: nodes, PublicNodes: nodes, AllowedDrift: 1}},
		TargetGroups: []subnets.BoundTargetGroup{{ARN: arntest.TG(mvTGARN), Binding: "web/web", Zones: []string{"eu-west-1a", "eu-west-1b"},
			LoadBalancers: []string{"arn:aws:elasticloadbalancing:eu-west-1:111122223333:loadbalancer/app/web/1"}, HealthyPodTargets: 6, Floor: 4}},
		Estimate: subnets.Estimate{Nodes: nodes, Waves: nodes, Duration: time.Duration(nodes) * 5 * time.Minute},
		Findings: []diagnose.Finding{{Code: "PublicSubnetNode", Severity: diagnose.SeverityMedium}},
	}
}

// mvPlan plans the world's move.
func mvPlan(t *testing.T, w *mvWorld, r *subnets.Readiness, opts ...subnets.PlanOption) *subnets.Plan {
	t.Helper()
	opts = append([]subnets.PlanOption{subnets.PlanClock(w.clock)}, opts...)
	p, err := subnets.PlanMove(t.Context(), r, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// spec returns a deep copy of an object's spec.
func (w *mvWorld) spec(gvk schema.GroupVersionKind, name string) map[string]any {
	return runtime.DeepCopyJSONValue(w.get(gvk, name).Object["spec"]).(map[string]any)
}

// journalAndLease reports whether the move's ConfigMap and Lease exist.
func (w *mvWorld) journalAndLease() (journal, lease bool) {
	key := client.ObjectKey{Namespace: mvNamespace, Name: subnets.JournalName(mvCluster)}
	journal = w.c.Get(context.Background(), key, &corev1.ConfigMap{}) == nil
	lease = w.c.Get(context.Background(), key, &coordinationv1.Lease{}) == nil
	return journal, lease
}

// nodeNames lists the nodes, public ones marked.
func (w *mvWorld) nodeNames() string {
	var nodes corev1.NodeList
	if err := w.c.List(context.Background(), &nodes); err != nil {
		w.t.Fatal(err)
	}
	var out []string
	for _, n := range nodes.Items {
		s := n.Name
		if slices.ContainsFunc(n.Status.Addresses, func(a corev1.NodeAddress) bool { return a.Type == corev1.NodeExternalIP }) {
			s += "(public)"
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}
