package lbc_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/internal/sim/lbc"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// These tests pin the points where the stand-in was found to differ from
// the real controller (v3, main branch), each read in its source: each
// fails against the stand-in as it was before.

func deletePod(t *testing.T, w *sim.World, i int) string {
	t.Helper()
	p := w.Cluster().Pods()[i]
	if err := w.Client().Delete(t.Context(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name}}); err != nil {
		t.Fatal(err)
	}
	return p.IP
}

func registerStray(t *testing.T, w *sim.World, ip string) {
	t.Helper()
	stray := elbv2types.TargetDescription{Id: aws.String(ip), Port: aws.Int32(8080)}
	if _, err := w.ELBv2().RegisterTargets(t.Context(), &elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(w.Legacy().TargetGroupARN), Targets: []elbv2types.TargetDescription{stray}}); err != nil {
		t.Fatal(err)
	}
}

// TestTargetsCache (point 1): the controller reads a target group's
// targets through a cache with a 5-minute TTL. A target registered out of
// band in a default-mode binding survives a reconcile made while the
// cache holds the target group (the old stand-in read every reconcile and
// removed it at once), and goes at the first reconcile after the entry
// expired.
func TestTargetsCache(t *testing.T) {
	w := newWorld(t, sim.Config{Seed: 5})
	ctx := t.Context()
	if err := w.Client().Create(ctx, w.NewBinding("web", false)); err != nil {
		t.Fatal(err)
	}
	w.Run(time.Minute) // pods registered and healthy: the cache entry is a minute old
	registerStray(t, w, "10.0.100.200")
	full := w.LBCELBv2().Counts()[elbv2sim.OpDescribeTargetHealth]
	deletePod(t, w, 0) // an endpoint change: a full reconcile, within the TTL
	w.Run(30 * time.Second)
	if s := targetOf(w, "10.0.100.200"); s == "" || s == string(elbv2types.TargetHealthStateEnumDraining) {
		t.Fatalf("out-of-band target %q after a reconcile within the cache's TTL, want it kept (the controller did not see it)", s)
	}
	if w.LBC().Stats().CacheHits == 0 {
		t.Error("no target list was served by the cache")
	}
	if w.LBCELBv2().Counts()[elbv2sim.OpDescribeTargetHealth] == full {
		t.Error("no DescribeTargetHealth since: a cache hit still reads the targets that are not healthy")
	}
	// Past the TTL, the next endpoint change reads every target again.
	w.Run(lbc.DefaultTargetsCacheTTL)
	deletePod(t, w, 1)
	w.Run(30 * time.Second)
	if s := targetOf(w, "10.0.100.200"); s != string(elbv2types.TargetHealthStateEnumDraining) {
		t.Errorf("out-of-band target %q after the cache expired and an endpoint changed, want draining", s)
	}
}

// TestOwnWritesReconcile (point 2): the controller's watch on bindings has
// no predicate, so its own writes (finalizer, checkpoint, status) each
// trigger another reconcile, which the checkpoint then skips. The old
// stand-in ignored its own writes: one reconcile.
func TestOwnWritesReconcile(t *testing.T) {
	w := newWorld(t, sim.Config{Seed: 3})
	if err := w.Client().Create(t.Context(), w.NewBinding("web", false)); err != nil {
		t.Fatal(err)
	}
	w.Run(time.Minute)
	s := w.LBC().Stats()
	// The writes of one reconcile coalesce in the work queue into one more
	// reconcile: two per outside change, as the real controller's 8 for 4.
	if s.Reconciles < 2 || s.Skipped < 1 {
		t.Fatalf("stats %+v after one outside change (the binding's creation): want its own writes to reconcile it again (>= 2) and the checkpoint to skip the last (>= 1)", s)
	}
	// It settles: a skipped reconcile writes nothing, so nothing follows.
	w.Run(5 * time.Minute)
	if got := w.LBC().Stats().Reconciles; got != s.Reconciles {
		t.Errorf("%d more reconciles with nothing changing: the controller does not settle", got-s.Reconciles)
	}
}

// TestReactionTime (point 3): with the default timings, the controller
// reconciles an endpoint change within tens of milliseconds (its
// reaction plus one Kubernetes read and one ELBv2 call), not in a second.
func TestReactionTime(t *testing.T) {
	w := newWorld(t, sim.Config{Seed: 9})
	ctx := t.Context()
	if err := w.Client().Create(ctx, w.NewBinding("web", false)); err != nil {
		t.Fatal(err)
	}
	w.Run(time.Minute)
	ip := deletePod(t, w, 0)
	var gone, drained time.Time
	for i := 0; i < 1000 && drained.IsZero(); i++ {
		w.Run(5 * time.Millisecond)
		if gone.IsZero() && !sliceReady(t, w, ip) {
			gone = w.Clock().Now()
		}
		if targetOf(w, ip) == string(elbv2types.TargetHealthStateEnumDraining) {
			drained = w.Clock().Now()
		}
	}
	if gone.IsZero() || drained.IsZero() {
		t.Fatalf("endpoint gone at %v, target draining at %v: want both within 5 s", gone, drained)
	}
	if d := drained.Sub(gone); d > 200*time.Millisecond {
		t.Errorf("the controller deregistered %v after the endpoint left its slice, want tens of milliseconds (reaction %v)", d, w.Timings().Reaction())
	}
}

// sliceReady reports whether an EndpointSlice holds ip as a ready
// endpoint.
func sliceReady(t *testing.T, w *sim.World, ip string) bool {
	t.Helper()
	var l discoveryv1.EndpointSliceList
	if err := w.Client().List(t.Context(), &l); err != nil {
		t.Fatal(err)
	}
	for _, s := range l.Items {
		for _, e := range s.Endpoints {
			if slices.Contains(e.Addresses, ip) && (e.Conditions.Ready == nil || *e.Conditions.Ready) {
				return true
			}
		}
	}
	return false
}

// TestEndpointSelection (point 5): the controller registers only endpoints
// whose targetRef is a Pod, only from slices of the binding's address
// family, and, when no endpoint is ready, the not-ready endpoints whose
// containers are ready on a node whose readiness is Unknown (fail-open).
// The old stand-in registered the endpoint without a Pod, the IPv6 one,
// and not the one on the Unknown node.
func TestEndpointSelection(t *testing.T) {
	w := newWorld(t, sim.Config{Seed: 4})
	ctx := t.Context()
	c := w.Client()
	ns := w.Legacy().Namespace
	// A target group of its own and a Service without a selector, whose
	// slices this test writes.
	out, err := w.ELBv2().CreateTargetGroup(ctx, &elbv2.CreateTargetGroupInput{
		Name: aws.String("solo"), TargetType: elbv2types.TargetTypeEnumIp, Protocol: elbv2types.ProtocolEnumHttp,
		Port: aws.Int32(8080), VpcId: aws.String(w.Cluster().VPCID()),
	})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(out.TargetGroups[0].TargetGroupArn)
	if err := c.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "solo"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}}}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "unknown-node"},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown}}}}); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "solo-0"},
		Spec: corev1.PodSpec{NodeName: "unknown-node", Containers: []corev1.Container{{Name: "app", Image: "app"}}}}
	if err := c.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	pod.Status = corev1.PodStatus{PodIP: "10.0.210.1", Conditions: []corev1.PodCondition{{Type: corev1.ContainersReady, Status: corev1.ConditionTrue}}}
	if err := c.Status().Update(ctx, pod); err != nil {
		t.Fatal(err)
	}
	slice := func(name string, family discoveryv1.AddressType, eps ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
		return &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: "solo", discoveryv1.LabelManagedBy: "test"}},
			AddressType: family, Endpoints: eps,
			Ports: []discoveryv1.EndpointPort{{Name: ptr.To("http"), Port: ptr.To[int32](8080)}},
		}
	}
	notReady := discoveryv1.EndpointConditions{Ready: ptr.To(false)}
	for _, s := range []*discoveryv1.EndpointSlice{
		slice("solo-v4", discoveryv1.AddressTypeIPv4,
			discoveryv1.Endpoint{Addresses: []string{"10.0.210.1"}, Conditions: notReady, TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: "solo-0"}},
			discoveryv1.Endpoint{Addresses: []string{"10.0.210.2"}}, // no targetRef: an external address
		),
		slice("solo-v6", discoveryv1.AddressTypeIPv6,
			discoveryv1.Endpoint{Addresses: []string{"fd00::1"}, TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: "solo-0"}}),
	} {
		if err := c.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	ip := v1beta1.TargetTypeIP
	if err := c.Create(ctx, &v1beta1.TargetGroupBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "solo"},
		Spec: v1beta1.TargetGroupBindingSpec{TargetGroupARN: arn, TargetType: &ip, ServiceRef: v1beta1.ServiceReference{Name: "solo", Port: intstr.FromInt32(80)}}}); err != nil {
		t.Fatal(err)
	}
	w.Run(30 * time.Second)
	var got []string
	for _, tg := range w.Targets(arn) {
		got = append(got, tg.IP)
	}
	slices.Sort(got)
	if want := []string{"10.0.210.1"}; !slices.Equal(got, want) {
		t.Errorf("registered %v, want %v: the fail-open pod only (not the endpoint without a Pod, not the IPv6 one)", got, want)
	}
}

// TestTrackedTargetsUnsortedUpdateFirst (point 6): the multi-cluster
// ConfigMap's targets are written in no particular order, and it is
// updated before it is created (an Update that finds none, then a
// Create). What reads it must not depend on either.
func TestTrackedTargetsUnsortedUpdateFirst(t *testing.T) {
	var ops []string
	w := newWorld(t, sim.Config{Seed: 11, Nodes: 4, Pods: 12, KubeFaults: recordConfigMapWrites(&ops)})
	if err := w.Client().Create(t.Context(), w.NewBinding("web", true)); err != nil {
		t.Fatal(err)
	}
	w.Run(time.Minute)
	var cm corev1.ConfigMap
	if err := w.Client().Get(t.Context(), types.NamespacedName{Namespace: "shop", Name: lbc.TrackedTargetsPrefix + "web"}, &cm); err != nil {
		t.Fatal(err)
	}
	ids := strings.Split(cm.Data[lbc.TrackedTargetsKey], ",")
	if len(ids) != 12 {
		t.Fatalf("%d tracked targets, want 12: %v", len(ids), ids)
	}
	if slices.IsSorted(ids) {
		t.Errorf("tracked targets %v are sorted: the controller writes them in a map's order", ids)
	}
	if len(ops) < 2 || ops[0] != "update:NotFound" || ops[1] != "create" {
		t.Errorf("ConfigMap writes %v, want an update that finds none, then a create", ops)
	}
}

// TestDeferredReconcile (point 7): a restarted controller skips the
// bindings whose checkpoint matches, and resets their checkpoint 30 to 45
// minutes later, which makes the next reconcile a full one. The old
// stand-in never reset it: a target added out of band stayed for ever.
func TestDeferredReconcile(t *testing.T) {
	w := newWorld(t, sim.Config{Seed: 8})
	ctx := t.Context()
	if err := w.Client().Create(ctx, w.NewBinding("web", false)); err != nil {
		t.Fatal(err)
	}
	w.Run(time.Minute)
	registerStray(t, w, "10.0.100.201")
	w.LBC().Crash()
	if err := w.LBC().Start(ctx); err != nil {
		t.Fatal(err)
	}
	w.Run(time.Minute)
	if s := w.LBC().Stats(); s.Skipped == 0 {
		t.Fatalf("stats %+v: the restarted controller's first reconcile was not skipped", s)
	}
	if s := targetOf(w, "10.0.100.201"); s == "" || s == string(elbv2types.TargetHealthStateEnumDraining) {
		t.Fatalf("out-of-band target %q right after the restart, want it kept (the reconcile was skipped)", s)
	}
	w.Run(lbc.DefaultDeferredDelay - 2*time.Minute)
	if w.LBC().Stats().Deferred != 0 {
		t.Fatal("the checkpoint was reset before 30 minutes")
	}
	w.Run(lbc.DefaultDeferredJitter + 2*time.Minute)
	if w.LBC().Stats().Deferred != 1 {
		t.Fatalf("stats %+v: want one deferred reset between 30 and 45 minutes after the skip", w.LBC().Stats())
	}
	if s := targetOf(w, "10.0.100.201"); s != string(elbv2types.TargetHealthStateEnumDraining) && s != "" {
		t.Errorf("out-of-band target %q after the deferred reconcile, want it deregistered", s)
	}
	// A binding reconciled in full since the start is never deferred.
	before := w.LBC().Stats().Deferred
	w.LBC().Enqueue(types.NamespacedName{Namespace: "shop", Name: "web"}, 0)
	w.Run(lbc.DefaultDeferredDelay + lbc.DefaultDeferredJitter + time.Minute)
	if got := w.LBC().Stats().Deferred; got != before {
		t.Errorf("%d more deferred resets for a binding reconciled since the start, want none", got-before)
	}
}

// recordConfigMapWrites records the writes of ConfigMaps through the fake
// client: "update" or "update:<reason>" when refused, and "create".
func recordConfigMapWrites(ops *[]string) *interceptor.Funcs {
	return &interceptor.Funcs{
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			err := c.Update(ctx, obj, opts...)
			if _, ok := obj.(*corev1.ConfigMap); ok {
				op := "update"
				if err != nil {
					op += ":" + string(apierrors.ReasonForError(err))
				}
				*ops = append(*ops, op)
			}
			return err
		},
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			err := c.Create(ctx, obj, opts...)
			if _, ok := obj.(*corev1.ConfigMap); ok && err == nil {
				*ops = append(*ops, "create")
			}
			return err
		},
	}
}

// TestEC2EveryReconcile (point 4): every reconcile that is not skipped
// calls EC2, with or without spec.networking: DescribeSecurityGroups in
// its network step, DescribeVpcs before RegisterTargets. When EC2 refuses,
// the binding gets the events FailedNetworkReconcile and FailedReconcile,
// nothing is registered, and no checkpoint is saved; once EC2 answers
// again, the backoff's next reconcile registers the pods. The old
// stand-in never called EC2. On both transports: through the wire, a real
// *ec2.Client gets EC2's error responses.
func TestEC2EveryReconcile(t *testing.T) {
	for _, wire := range []bool{false, true} {
		t.Run(map[bool]string{false: "facade", true: "wire"}[wire], func(t *testing.T) {
			t.Parallel()
			cfg := sim.Config{Seed: 6}
			if wire {
				cfg.Wire = &sim.WireOptions{}
			}
			w := newWorld(t, cfg)
			defer w.Close()
			for _, op := range []string{ec2sim.OpDescribeVpcs, ec2sim.OpDescribeSecurityGroups} {
				if err := w.LBCEC2().Fail(op, ec2sim.ErrUnauthorized(op)); err != nil {
					t.Fatal(err)
				}
			}
			ctx := t.Context()
			if err := w.Client().Create(ctx, w.NewBinding("web", true)); err != nil {
				t.Fatal(err)
			}
			w.Run(2 * time.Minute)
			if s := w.LBC().Stats(); s.Registered != 0 || s.Errors == 0 {
				t.Fatalf("stats %+v with EC2 refusing: want nothing registered and failed reconciles", s)
			}
			if n := len(events(t, w, lbc.EventFailedNetworkReconcile)); n == 0 {
				t.Error("no FailedNetworkReconcile event")
			}
			if n := len(events(t, w, lbc.EventFailedReconcile)); n == 0 {
				t.Error("no FailedReconcile event")
			}
			var b v1beta1.TargetGroupBinding
			if err := w.Client().Get(ctx, types.NamespacedName{Namespace: "shop", Name: "web"}, &b); err != nil {
				t.Fatal(err)
			}
			if cp := b.Annotations[lbc.AnnotationCheckpoint]; cp != "" {
				t.Errorf("checkpoint %q saved while EC2 refused", cp)
			}
			if n := w.LBCEC2().Counts()[ec2sim.OpDescribeVpcs]; n < 2 {
				t.Errorf("%d DescribeVpcs: want one per failing reconcile", n)
			}
			w.LBCEC2().Clear("")
			w.Run(5 * time.Minute)
			if _, pods := targetCounts(w); pods != 6 {
				t.Errorf("%d pod targets once EC2 answers again, want 6", pods)
			}
			if n := len(events(t, w, lbc.EventSuccessfullyReconciled)); n == 0 {
				t.Error("no SuccessfullyReconciled event once EC2 answers again")
			}
		})
	}
}

// TestNewValidatesEC2AndCrashes: the controller's EC2 client, VPC and
// cluster name are required, each refused by name; an injected crash
// without a binding or with an unknown point is refused and arms nothing.
func TestNewValidatesEC2AndCrashes(t *testing.T) {
	w := newWorld(t, sim.Config{Seed: 2})
	base := func() lbc.Options {
		return lbc.Options{Client: w.Client(), ELBv2: w.LBCELBv2(), EC2: w.LBCEC2(), Clock: w.Clock(), VPCID: w.Cluster().VPCID(), ClusterName: sim.ClusterName}
	}
	if _, err := lbc.New(base()); err != nil {
		t.Fatalf("New with every field: %v", err)
	}
	for field, mod := range map[string]func(*lbc.Options){
		"EC2":         func(o *lbc.Options) { o.EC2 = nil },
		"VPCID":       func(o *lbc.Options) { o.VPCID = "" },
		"ClusterName": func(o *lbc.Options) { o.ClusterName = "" },
		"RequeueAfter/SyncPeriod/ReactionDelay/DeferredDelay/DeferredJitter": func(o *lbc.Options) { o.DeferredJitter = -time.Second },
	} {
		o := base()
		mod(&o)
		var oe *lbc.OptionsError
		if _, err := lbc.New(o); !errors.As(err, &oe) || oe.Field != field {
			t.Errorf("New without %s: %v, want an *OptionsError naming it", field, err)
		}
	}
	for _, cr := range []lbc.Crashes{
		{Point: lbc.CrashOnReconcile},
		{Binding: types.NamespacedName{Namespace: "shop", Name: "web"}, Point: "somewhere"},
	} {
		if err := w.LBC().InjectCrashes(cr); !errors.Is(err, lbc.ErrInvalidOptions) {
			t.Errorf("InjectCrashes(%+v): %v, want invalid options", cr, err)
		}
	}
	// Nothing was armed: a binding reconciles without a crash.
	if err := w.Client().Create(t.Context(), w.NewBinding("web", true)); err != nil {
		t.Fatal(err)
	}
	w.Run(time.Minute)
	if s := w.LBC().Stats(); s.Crashes != 0 || s.Registered == 0 {
		t.Errorf("stats %+v: want no crash and the pods registered", s)
	}
}
