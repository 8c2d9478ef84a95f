package diagnose_test

import (
	"context"
	"fmt"
	goruntime "runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/vclock"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

const (
	benchAccount = "123456789012"
	benchRegion  = "eu-west-1"
	benchVPC     = "vpc-0a1b2c3d4e5f60718"
)

// fleetSize shapes a synthetic fleet.
type fleetSize struct {
	TargetGroups, Targets, Nodes, Pods int
	// LBCGroups of the target groups are LBC-managed (a multi-cluster
	// binding, pod targets); the others are hand-made and pin nodes on a
	// NodePort, with one target in ten a ghost.
	LBCGroups int
	// PerALB target groups share each ALB (one listener, one rule each).
	PerALB int
}

// synthFleet is a fleet: the AWS side in the in-memory fake, the cluster as objects.
type synthFleet struct {
	elb     *fakeELBv2
	objects []client.Object
	ghosts  int
}

func tgARN(i int) string {
	return fmt.Sprintf("arn:aws:elasticloadbalancing:%s:%s:targetgroup/tg-%04d/%016x", benchRegion, benchAccount, i, i)
}

func albARN(i int) string {
	return fmt.Sprintf("arn:aws:elasticloadbalancing:%s:%s:loadbalancer/app/alb-%03d/%016x", benchRegion, benchAccount, i, i)
}

func ip(base, n int) string { return fmt.Sprintf("10.%d.%d.%d", base+n/65536, n/256%256, n%256) }

func buildFleet(sz fleetSize) synthFleet {
	f := synthFleet{elb: newFakeELBv2()}
	handMade := sz.TargetGroups - sz.LBCGroups
	nodePort := func(i int) int32 { return int32(30000 + i%2700) }
	ns := func(i int) string { return fmt.Sprintf("team-%02d", i/30) }

	for i := range sz.Nodes {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%05d", i), Labels: map[string]string{corev1.LabelTopologyZone: "eu-west-1a"}},
			Spec: corev1.NodeSpec{ProviderID: fmt.Sprintf("aws:///eu-west-1a/i-%017x", i)},
			Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip(0, i)}},
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
		if i%5 != 0 { // four nodes in five are Karpenter's, with a NodeClaim
			n.Labels[diagnose.LabelNodePool] = "default"
			nc := &unstructured.Unstructured{}
			nc.SetGroupVersionKind(diagnose.NodeClaimGVK)
			nc.SetName(fmt.Sprintf("default-%05d", i))
			nc.SetCreationTimestamp(metav1.NewTime(vclock.Epoch.Add(-time.Duration(i%700) * time.Hour)))
			nc.Object["spec"] = map[string]any{"expireAfter": "720h"}
			nc.Object["status"] = map[string]any{"nodeName": n.Name}
			f.objects = append(f.objects, nc)
		}
		f.objects = append(f.objects, n)
	}
	// Pods: the LBC groups' Services get 33 each, the rest share the others.
	podsOf := make([][]string, sz.TargetGroups)
	for j := range sz.Pods {
		svc := handMade + j%max(1, sz.LBCGroups)
		if j >= sz.LBCGroups*33 {
			svc = (j - sz.LBCGroups*33) % max(1, handMade)
		}
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns(svc), Name: fmt.Sprintf("svc-%04d-%05d", svc, j), Labels: map[string]string{"app": fmt.Sprintf("svc-%04d", svc)}},
			Spec: corev1.PodSpec{NodeName: fmt.Sprintf("node-%05d", j%sz.Nodes), Containers: []corev1.Container{{Name: "app", Image: "app",
				Ports:          []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http")}}}}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip(64, j), Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
		podsOf[svc] = append(podsOf[svc], p.Status.PodIP)
		f.objects = append(f.objects, p)
	}
	for i := range (sz.TargetGroups + 29) / 30 {
		f.objects = append(f.objects, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("team-%02d", i),
			Labels: map[string]string{diagnose.LabelReadinessGateInject: "enabled"}}})
	}

	remaining := sz.Targets
	for i := range sz.TargetGroups {
		n := remaining / (sz.TargetGroups - i)
		remaining -= n
		name := fmt.Sprintf("tg-%04d", i)
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns(i), Name: fmt.Sprintf("svc-%04d", i)},
			Spec: corev1.ServiceSpec{Selector: map[string]string{"app": fmt.Sprintf("svc-%04d", i)},
				Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP}}}}
		tg := elbv2types.TargetGroup{
			TargetGroupArn: aws.String(tgARN(i)), TargetGroupName: aws.String(name), TargetType: elbv2types.TargetTypeEnumIp,
			Protocol: elbv2types.ProtocolEnumHttp, VpcId: aws.String(benchVPC), HealthCheckEnabled: aws.Bool(true),
			HealthCheckProtocol: elbv2types.ProtocolEnumHttp, HealthCheckPort: aws.String("traffic-port"), HealthCheckPath: aws.String("/healthz"),
			LoadBalancerArns: []string{albARN(i / sz.PerALB)},
		}
		var tags map[string]string
		var targets []elbv2types.TargetHealthDescription
		add := func(id string, port int32) {
			targets = append(targets, elbv2types.TargetHealthDescription{
				Target:       &elbv2types.TargetDescription{Id: aws.String(id), Port: aws.Int32(port), AvailabilityZone: aws.String("eu-west-1a")},
				TargetHealth: &elbv2types.TargetHealth{State: elbv2types.TargetHealthStateEnumHealthy},
			})
		}
		if i < handMade {
			svc.Spec.Type, svc.Spec.Ports[0].NodePort = corev1.ServiceTypeNodePort, nodePort(i)
			tg.Port = aws.Int32(nodePort(i))
			for k := range n {
				if k%10 == 9 {
					add(ip(1, i*n+k), nodePort(i)) // no node has it: a ghost
					f.ghosts++
				} else {
					add(ip(0, (i*37+k)%sz.Nodes), nodePort(i))
				}
			}
		} else {
			tg.Port = aws.Int32(8080)
			tags = map[string]string{diagnose.TagCluster: "prod"}
			for k := range n {
				if k < len(podsOf[i]) {
					add(podsOf[i][k], 8080)
				} else {
					add(ip(0, (i+k)%sz.Nodes), 30999) // strays next to the pods
				}
			}
			tt := v1beta1.TargetTypeIP
			f.objects = append(f.objects, &v1beta1.TargetGroupBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns(i), Name: name},
				Spec: v1beta1.TargetGroupBindingSpec{TargetGroupARN: tgARN(i), TargetType: &tt, MultiClusterTargetGroup: true,
					ServiceRef: v1beta1.ServiceReference{Name: svc.Name, Port: intstr.FromString("http")}}})
		}
		f.objects = append(f.objects, svc)
		f.elb.addTargetGroup(tg, tags, targets)
	}
	for a := range (sz.TargetGroups + sz.PerALB - 1) / sz.PerALB {
		lARN := fmt.Sprintf("arn:aws:elasticloadbalancing:%s:%s:listener/app/alb-%03d/%016x/%016x", benchRegion, benchAccount, a, a, a)
		f.elb.listeners[albARN(a)] = []elbv2types.Listener{{ListenerArn: aws.String(lARN), LoadBalancerArn: aws.String(albARN(a)),
			Port: aws.Int32(443), Protocol: elbv2types.ProtocolEnumHttps}}
		var rules []elbv2types.Rule
		for i := a * sz.PerALB; i < min((a+1)*sz.PerALB, sz.TargetGroups); i++ {
			rules = append(rules, elbv2types.Rule{RuleArn: aws.String(fmt.Sprintf("%s/%016x", lARN, i)), Priority: aws.String(fmt.Sprint(i%sz.PerALB + 1)),
				Actions: []elbv2types.Action{{Type: elbv2types.ActionTypeEnumForward, TargetGroupArn: aws.String(tgARN(i))}}})
		}
		f.elb.rules[lARN] = rules
	}
	f.elb.index()
	return f
}

func benchScheme(tb testing.TB) *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		tb.Fatal(err)
	}
	if err := v1beta1.AddToScheme(s); err != nil {
		tb.Fatal(err)
	}
	return s
}

// BenchmarkDiagnose scans the synthetic fleet: 3,000 target groups,
// 100,000 targets, 5,000 nodes (4,000 with Karpenter NodeClaims), 50,000
// pods. AWS is the in-memory fake, with the limiter off (rate.Inf), so the
// figures are Diagnose's own cost. The cluster side runs twice:
//   - fake-client: controller-runtime's fake client, whose List deep-copies
//     every object through JSON on each call (most of ns/op and B/op);
//   - shared-lists: a reader that hands out prebuilt lists, which is what
//     Diagnose itself costs on top of a cache-backed reader.
//
// Building the fleet and the client is setup, outside the timer.
func BenchmarkDiagnose(b *testing.B) {
	sz := fleetSize{TargetGroups: 3000, Targets: 100_000, Nodes: 5000, Pods: 50_000, LBCGroups: 300, PerALB: 100}
	f := buildFleet(sz)
	readers := []struct {
		name   string
		reader func() client.Reader
	}{
		{"fake-client", func() client.Reader {
			return fake.NewClientBuilder().WithScheme(benchScheme(b)).WithObjects(f.objects...).Build()
		}},
		{"shared-lists", func() client.Reader { return newListReader(f.objects) }},
	}
	for _, r := range readers {
		b.Run(r.name, func(b *testing.B) {
			src := diagnose.Sources{
				Accounts: []diagnose.Account{{ID: benchAccount, Region: benchRegion, ELBv2: f.elb}},
				Clusters: []diagnose.Cluster{{Name: "prod", Reader: r.reader(), VPCID: benchVPC}},
			}
			opts := []diagnose.Option{diagnose.WithClock(vclock.New(time.Time{})), diagnose.WithRateLimit(rate.Inf, 0), diagnose.WithConcurrency(8)}
			f.elb.Reset()
			b.ReportAllocs()
			b.ResetTimer()
			var rep *diagnose.Report
			runs := 0
			for b.Loop() {
				var err error
				rep, err = diagnose.Diagnose(b.Context(), src, diagnose.Scope{All: true}, opts...)
				if err != nil {
					b.Fatal(err)
				}
				runs++
			}
			b.StopTimer()
			if got := rep.Summary; got.TargetGroups != sz.TargetGroups || got.Targets != sz.Targets || got.ByClass[diagnose.ClassGhost] != f.ghosts {
				b.Fatalf("summary = %+v, want %d target groups, %d targets, %d ghosts", got, sz.TargetGroups, sz.Targets, f.ghosts)
			}
			b.ReportMetric(float64(f.elb.Total())/float64(runs)/float64(sz.TargetGroups), "elbv2-calls/tg")
			b.ReportMetric(float64(f.elb.Calls()["DescribeTargetHealth"])/float64(runs)/float64(sz.TargetGroups), "health-calls/tg")
		})
	}
}

// listReader is a client.Reader over prebuilt lists: it shares the items
// rather than copying them, like a cache-backed reader with deep copies
// off. Diagnose never mutates what it lists.
type listReader struct {
	nodes      []corev1.Node
	pods       []corev1.Pod
	services   []corev1.Service
	namespaces []corev1.Namespace
	bindings   []v1beta1.TargetGroupBinding
	claims     []unstructured.Unstructured
}

func newListReader(objs []client.Object) *listReader {
	r := &listReader{}
	for _, o := range objs {
		switch o := o.(type) {
		case *corev1.Node:
			r.nodes = append(r.nodes, *o)
		case *corev1.Pod:
			r.pods = append(r.pods, *o)
		case *corev1.Service:
			r.services = append(r.services, *o)
		case *corev1.Namespace:
			r.namespaces = append(r.namespaces, *o)
		case *v1beta1.TargetGroupBinding:
			r.bindings = append(r.bindings, *o)
		case *unstructured.Unstructured:
			r.claims = append(r.claims, *o)
		}
	}
	return r
}

func (r *listReader) Get(_ context.Context, key client.ObjectKey, _ client.Object, _ ...client.GetOption) error {
	return apierrors.NewNotFound(schema.GroupResource{}, key.Name)
}

func (r *listReader) List(_ context.Context, list client.ObjectList, _ ...client.ListOption) error {
	switch l := list.(type) {
	case *corev1.NodeList:
		l.Items = r.nodes
	case *corev1.PodList:
		l.Items = r.pods
	case *corev1.ServiceList:
		l.Items = r.services
	case *corev1.NamespaceList:
		l.Items = r.namespaces
	case *v1beta1.TargetGroupBindingList:
		l.Items = r.bindings
	case *unstructured.UnstructuredList:
		l.Items = r.claims
	default:
		return fmt.Errorf("listReader: %T not supported", list)
	}
	return nil
}

// BenchmarkClassify is the CPU cost of classification alone, on a snapshot
// taken once: 100,000 targets against 5,000 nodes and 50,000 pods.
func BenchmarkClassify(b *testing.B) {
	sz := fleetSize{TargetGroups: 3000, Targets: 100_000, Nodes: 5000, Pods: 50_000, LBCGroups: 300, PerALB: 100}
	f := buildFleet(sz)
	reader := fake.NewClientBuilder().WithScheme(benchScheme(b)).WithObjects(f.objects...).Build()
	snap, err := diagnose.TakeSnapshot(b.Context(), diagnose.Cluster{Name: "prod", Reader: reader, VPCID: benchVPC})
	if err != nil {
		b.Fatal(err)
	}
	var sets []diagnose.TargetSet
	for _, tg := range f.elb.tgs {
		set := diagnose.TargetSet{VPCID: benchVPC, TargetType: "ip"}
		for _, th := range f.elb.health[aws.ToString(tg.TargetGroupArn)] {
			set.Targets = append(set.Targets, diagnose.Target{ID: aws.ToString(th.Target.Id), Port: aws.ToInt32(th.Target.Port)})
		}
		sets = append(sets, set)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, set := range sets {
			diagnose.Classify(set, snap)
		}
	}
}

// BenchmarkDiagnoseBigCluster diagnoses one target group (300 node
// targets pinned on a NodePort, one in ten a ghost) against a big
// cluster: 5,000 nodes (4,000 Karpenter's, with NodeClaims), 150,000
// realistic pods (bigcluster_test.go: env, volumes, probes, managedFields,
// five conditions) behind 1,500 Services in 50 namespaces, listed in
// pages of 500 (WithListPageSize) from a reader that makes each page's
// objects fresh, as a client decoding the API server's answer does.
// Building the cluster's templates is setup, outside the timer.
//
// Besides ns/op, B/op and allocs/op it reports the heap's high-water
// mark during the runs (heapPeak: sampled at every page and every
// millisecond): peak-heap-MB (/memory/classes/heap/objects:bytes, what
// the process holds, garbage not yet swept included) and peak-live-MB
// (/gc/heap/live:bytes, what a GC found live), and setup-MB, the live
// heap before the first run (the templates, the fake ELBv2), which both
// include. Each run starts after a GC, outside the timer, so that one
// run's garbage does not count in the next one's peak (that GC's CPU is
// in cpu-ms/op). cpu-ms/op is the process's CPU time (getrusage: user and
// system, the GC's workers included) per run: on a machine shared with
// other work it moves far less than ns/op, which counts the waits for a
// core.
func BenchmarkDiagnoseBigCluster(b *testing.B) {
	sz := bigSize{Nodes: 5000, Pods: 150_000, Services: 1500, Namespaces: 50, Targets: 300}
	cl := newBigCluster(sz)
	elb, scope, ghosts := bigFleet(sz)
	peak := newHeapPeak()
	reader := newPagedCluster(cl, peak)
	src := diagnose.Sources{
		Accounts: []diagnose.Account{{ID: benchAccount, Region: benchRegion, ELBv2: elb}},
		Clusters: []diagnose.Cluster{{Name: "prod", Reader: reader, VPCID: benchVPC}},
	}
	opts := []diagnose.Option{diagnose.WithClock(vclock.New(vclock.Epoch)), diagnose.WithRateLimit(rate.Inf, 0), diagnose.WithListPageSize(500)}
	goruntime.GC()
	var setup runtimeMem
	setup.read()
	b.ReportAllocs()
	b.ResetTimer()
	peak.start()
	cpu0, cpuOK := cpuTime()
	runs := 0
	var rep *diagnose.Report
	for b.Loop() {
		runs++
		b.StopTimer()
		goruntime.GC() // each run starts from the setup's heap, as one Diagnose in a process does
		b.StartTimer()
		var err error
		if rep, err = diagnose.Diagnose(b.Context(), src, scope, opts...); err != nil {
			b.Fatal(err)
		}
		peak.sample()
	}
	b.StopTimer()
	cpu1, _ := cpuTime()
	peak.halt()
	if got := rep.Summary; got.TargetGroups != 1 || got.Targets != sz.Targets || got.ByClass[diagnose.ClassGhost] != ghosts || got.Errors != 0 {
		b.Fatalf("summary = %+v, want 1 target group, %d targets, %d ghosts, no error", got, sz.Targets, ghosts)
	}
	if c := rep.Clusters[0]; c.Nodes != sz.Nodes || c.Pods != sz.Pods || c.Services != sz.Services || c.NodeClaims != cl.claims() {
		b.Fatalf("cluster = %+v, want %d nodes, %d pods, %d Services, %d NodeClaims", c, sz.Nodes, sz.Pods, sz.Services, cl.claims())
	}
	const mb = 1 << 20
	b.ReportMetric(float64(peak.heap)/mb, "peak-heap-MB")
	b.ReportMetric(float64(peak.live)/mb, "peak-live-MB")
	b.ReportMetric(float64(setup.live)/mb, "setup-MB")
	if cpuOK {
		b.ReportMetric(float64((cpu1-cpu0).Milliseconds())/float64(runs), "cpu-ms/op")
	}
}

// runtimeMem is the live heap now, from runtime/metrics.
type runtimeMem struct{ live uint64 }

func (m *runtimeMem) read() {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	m.live = s[0].Value.Uint64()
}
