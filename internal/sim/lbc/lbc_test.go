package lbc_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/cluster"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/internal/sim/lbc"
	"github.com/qstools/tgmigrate/internal/vclock"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

func newWorld(t *testing.T, cfg sim.Config) *sim.World {
	t.Helper()
	if cfg.Nodes == 0 {
		cfg.Nodes, cfg.Pods = 3, 6
	}
	cfg.RPS = -1
	w, err := sim.New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func bindings(t *testing.T, w *sim.World) []string {
	t.Helper()
	var l v1beta1.TargetGroupBindingList
	if err := w.Client().List(t.Context(), &l); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, b := range l.Items {
		out = append(out, b.Name)
	}
	slices.Sort(out)
	return out
}

func TestWebhooks(t *testing.T) {
	tests := []struct {
		name      string
		first     func(w *sim.World) *v1beta1.TargetGroupBinding // created before, may be nil
		second    func(w *sim.World) *v1beta1.TargetGroupBinding
		dryRun    bool
		wantDeny  string
		wantAfter []string
		check     func(t *testing.T, b *v1beta1.TargetGroupBinding)
	}{
		{
			name:      "a second default-mode binding on the same target group is denied",
			first:     func(w *sim.World) *v1beta1.TargetGroupBinding { return w.NewBinding("a", false) },
			second:    func(w *sim.World) *v1beta1.TargetGroupBinding { return w.NewBinding("b", false) },
			wantDeny:  "is already bound to TargetGroupBinding shop/a",
			wantAfter: []string{"a"},
		},
		{
			name:      "a multi-cluster binding next to a default-mode one is denied",
			first:     func(w *sim.World) *v1beta1.TargetGroupBinding { return w.NewBinding("a", false) },
			second:    func(w *sim.World) *v1beta1.TargetGroupBinding { return w.NewBinding("b", true) },
			wantDeny:  "is already bound",
			wantAfter: []string{"a"},
		},
		{
			name:      "two multi-cluster bindings share a target group",
			first:     func(w *sim.World) *v1beta1.TargetGroupBinding { return w.NewBinding("a", true) },
			second:    func(w *sim.World) *v1beta1.TargetGroupBinding { return w.NewBinding("b", true) },
			wantAfter: []string{"a", "b"},
		},
		{
			name:      "a dry run is validated and creates nothing",
			first:     func(w *sim.World) *v1beta1.TargetGroupBinding { return w.NewBinding("a", false) },
			second:    func(w *sim.World) *v1beta1.TargetGroupBinding { return w.NewBinding("b", false) },
			dryRun:    true,
			wantDeny:  "is already bound",
			wantAfter: []string{"a"},
		},
		{
			name:      "a valid dry run passes and creates nothing",
			second:    func(w *sim.World) *v1beta1.TargetGroupBinding { return w.NewBinding("b", true) },
			dryRun:    true,
			wantAfter: nil,
		},
		{
			name: "nodeSelector is rejected in ip mode",
			second: func(w *sim.World) *v1beta1.TargetGroupBinding {
				b := w.NewBinding("b", true)
				b.Spec.NodeSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}
				return b
			},
			wantDeny: "cannot set NodeSelector when TargetType is ip",
		},
		{
			name: "an unknown target group is rejected",
			second: func(w *sim.World) *v1beta1.TargetGroupBinding {
				b := w.NewBinding("b", true)
				b.Spec.TargetGroupARN = strings.Replace(b.Spec.TargetGroupARN, "legacy-web", "nope", 1)
				return b
			},
			wantDeny: "unable to get target group",
		},
		{
			name: "targetType and the ARN are filled from the target group's name",
			second: func(w *sim.World) *v1beta1.TargetGroupBinding {
				b := w.NewBinding("b", true)
				b.Spec.TargetType, b.Spec.TargetGroupARN, b.Spec.TargetGroupName = nil, "", w.Legacy().TargetGroupName
				return b
			},
			wantAfter: []string{"b"},
			check: func(t *testing.T, b *v1beta1.TargetGroupBinding) {
				if b.Spec.TargetType == nil || *b.Spec.TargetType != v1beta1.TargetTypeIP || !strings.Contains(b.Spec.TargetGroupARN, "targetgroup/legacy-web/") {
					t.Errorf("defaulted spec: targetType %v arn %q", b.Spec.TargetType, b.Spec.TargetGroupARN)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, sim.Config{Seed: 1})
			ctx := t.Context()
			if tt.first != nil {
				if err := w.Client().Create(ctx, tt.first(w)); err != nil {
					t.Fatal(err)
				}
			}
			b := tt.second(w)
			var opts []client.CreateOption
			if tt.dryRun {
				opts = append(opts, client.DryRunAll)
			}
			err := w.Client().Create(ctx, b, opts...)
			switch {
			case tt.wantDeny != "" && (!lbc.IsDenied(err) || !strings.Contains(err.Error(), tt.wantDeny)):
				t.Fatalf("create: %v, want a denial saying %q", err, tt.wantDeny)
			case tt.wantDeny == "" && err != nil:
				t.Fatalf("create: %v", err)
			}
			if got := bindings(t, w); !slices.Equal(got, tt.wantAfter) {
				t.Errorf("bindings %v, want %v", got, tt.wantAfter)
			}
			if tt.check != nil {
				tt.check(t, b)
			}
		})
	}
}

func TestImmutableFields(t *testing.T) {
	w := newWorld(t, sim.Config{Seed: 1})
	ctx := t.Context()
	if err := w.Client().Create(ctx, w.NewBinding("a", true)); err != nil {
		t.Fatal(err)
	}
	w.Run(time.Minute)
	var b v1beta1.TargetGroupBinding
	if err := w.Client().Get(ctx, types.NamespacedName{Namespace: "shop", Name: "a"}, &b); err != nil {
		t.Fatal(err)
	}
	orig := b.Spec.TargetGroupARN
	b.Spec.TargetGroupARN += "x"
	if err := w.Client().Update(ctx, &b); !lbc.IsDenied(err) || !strings.Contains(err.Error(), "spec.targetGroupARN") {
		t.Fatalf("update of the ARN: %v, want a denial", err)
	}
	if err := w.Client().Get(ctx, types.NamespacedName{Namespace: "shop", Name: "a"}, &b); err != nil || b.Spec.TargetGroupARN != orig {
		t.Errorf("after the denied update: %v, arn %q", err, b.Spec.TargetGroupARN)
	}
}

func targetCounts(w *sim.World) (nodeLive, podLive int) {
	for _, t := range w.Targets(w.Legacy().TargetGroupARN) {
		if t.State == elbv2types.TargetHealthStateEnumDraining {
			continue
		}
		switch {
		case strings.HasPrefix(t.FormerOwner, "node/"):
			nodeLive++
		case strings.HasPrefix(t.FormerOwner, "pod/"):
			podLive++
		}
	}
	return nodeLive, podLive
}

func events(t *testing.T, w *sim.World, reason string) []corev1.Event {
	t.Helper()
	var l corev1.EventList
	if err := w.Client().List(t.Context(), &l, client.InNamespace("shop")); err != nil {
		t.Fatal(err)
	}
	var out []corev1.Event
	for _, e := range l.Items {
		if e.Reason == reason {
			out = append(out, e)
		}
	}
	return out
}

func TestBackendNotFound(t *testing.T) {
	tests := []struct {
		name         string
		multiCluster bool
		ref          v1beta1.ServiceReference
		wantNodes    int // node targets left, not draining
	}{
		{"missing Service, default mode: the target group is emptied", false, v1beta1.ServiceReference{Name: "nope", Port: intstr.FromInt32(80)}, 0},
		{"missing port, default mode", false, v1beta1.ServiceReference{Name: "web", Port: intstr.FromString("grpc")}, 0},
		{"missing Service, multi-cluster: nothing tracked, nothing deregistered", true, v1beta1.ServiceReference{Name: "nope", Port: intstr.FromInt32(80)}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, sim.Config{Seed: 2})
			b := w.NewBinding("web", tt.multiCluster)
			b.Spec.ServiceRef = tt.ref
			if err := w.Client().Create(t.Context(), b); err != nil {
				t.Fatal(err)
			}
			w.Run(30 * time.Second)
			if ev := events(t, w, lbc.EventBackendNotFound); len(ev) == 0 || ev[0].InvolvedObject.Name != "web" || ev[0].Type != corev1.EventTypeWarning {
				t.Errorf("events %+v: want a Warning BackendNotFound on the binding", ev)
			}
			nodes, pods := targetCounts(w)
			if nodes != tt.wantNodes || pods != 0 {
				t.Errorf("live targets: %d node, %d pod; want %d node, 0 pod", nodes, pods, tt.wantNodes)
			}
		})
	}
}

func TestDeletion(t *testing.T) {
	tests := []struct {
		name         string
		multiCluster bool
		wantNodes    int
	}{
		{"default mode deregisters every target it lists, node targets included", false, 0},
		{"multi-cluster mode deregisters only what it tracked", true, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, sim.Config{Seed: 3})
			ctx := t.Context()
			if err := w.Client().Create(ctx, w.NewBinding("web", tt.multiCluster)); err != nil {
				t.Fatal(err)
			}
			w.Run(5 * time.Minute)
			if _, pods := targetCounts(w); pods != 6 {
				t.Fatalf("pod targets before deletion: %d, want 6", pods)
			}
			key := types.NamespacedName{Namespace: "shop", Name: "web"}
			var b v1beta1.TargetGroupBinding
			if err := w.Client().Get(ctx, key, &b); err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(b.Finalizers, lbc.Finalizer) || b.Status.ObservedGeneration == nil || *b.Status.ObservedGeneration != b.Generation {
				t.Errorf("binding: finalizers %v observedGeneration %v generation %d", b.Finalizers, b.Status.ObservedGeneration, b.Generation)
			}
			if err := w.Client().Delete(ctx, &b); err != nil {
				t.Fatal(err)
			}
			w.Run(10 * time.Second)
			if err := w.Client().Get(ctx, key, &b); !apierrors.IsNotFound(err) {
				t.Errorf("binding after deletion: %v, want gone (finalizer removed)", err)
			}
			nodes, pods := targetCounts(w)
			if nodes != tt.wantNodes || pods != 0 {
				t.Errorf("live targets: %d node, %d pod; want %d node, 0 pod", nodes, pods, tt.wantNodes)
			}
			var cm corev1.ConfigMap
			if err := w.Client().Get(ctx, types.NamespacedName{Namespace: "shop", Name: lbc.TrackedTargetsPrefix + "web"}, &cm); !apierrors.IsNotFound(err) {
				t.Errorf("tracking ConfigMap after deletion: %v, want gone", err)
			}
		})
	}
}

func TestReadinessGate(t *testing.T) {
	w := newWorld(t, sim.Config{Seed: 4, ReadinessGateInjection: true})
	ctx := t.Context()
	if err := w.Client().Create(ctx, w.NewBinding("web", true)); err != nil {
		t.Fatal(err)
	}
	w.Run(time.Minute)
	gate := corev1.PodConditionType(lbc.ReadinessGatePrefix + "web")
	for _, p := range w.Cluster().Pods() {
		if len(p.Gates) != 0 {
			t.Fatalf("pod %s created before the binding has gates %v", p.Name, p.Gates)
		}
	}
	// Restart one pod: its replacement is created after the binding.
	old := w.Cluster().Pods()[0]
	if err := w.Client().Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: old.Namespace, Name: old.Name}}); err != nil {
		t.Fatal(err)
	}
	w.Run(time.Second)
	var fresh string
	for _, p := range w.Cluster().Pods() {
		if p.Phase != "Terminating" && len(p.Gates) > 0 {
			fresh = p.Name
			if !slices.Equal(p.Gates, []string{string(gate)}) {
				t.Errorf("gates %v", p.Gates)
			}
		}
	}
	if fresh == "" {
		t.Fatal("the replacement pod has no readiness gate")
	}
	sawGated := false
	var readyAt time.Time
	for range 40 {
		w.Run(5 * time.Second)
		var pod corev1.Pod
		if err := w.Client().Get(ctx, types.NamespacedName{Namespace: "shop", Name: fresh}, &pod); err != nil {
			t.Fatal(err)
		}
		var cond, ready corev1.PodCondition
		for _, c := range pod.Status.Conditions {
			switch c.Type {
			case gate:
				cond = c
			case corev1.PodReady:
				ready = c
			}
		}
		target := targetOf(w, pod.Status.PodIP)
		if cond.Status == corev1.ConditionFalse {
			sawGated = true
			if ready.Status == corev1.ConditionTrue {
				t.Fatalf("pod Ready while its gate is False (%s)", cond.Reason)
			}
			if target == "" {
				t.Fatal("a pod waiting only on its gate is not registered")
			}
		}
		if cond.Status == corev1.ConditionTrue {
			if target != string(elbv2types.TargetHealthStateEnumHealthy) {
				t.Fatalf("gate True with target %q", target)
			}
			readyAt = w.Clock().Now()
			break
		}
	}
	if !sawGated || readyAt.IsZero() {
		t.Fatalf("gate never went False then True (saw False %v)", sawGated)
	}
	if p := podView(w, fresh); !p.Ready {
		t.Errorf("pod not Ready after its gate turned True")
	}
}

func targetOf(w *sim.World, ip string) string {
	for _, t := range w.Targets(w.Legacy().TargetGroupARN) {
		if t.IP == ip {
			return string(t.State)
		}
	}
	return ""
}

func podView(w *sim.World, name string) (v struct{ Ready bool }) {
	for _, p := range w.Cluster().Pods() {
		if p.Name == name {
			v.Ready = p.Ready
		}
	}
	return v
}

// TestCheckpoint: with stable endpoints the LBC skips its reconciles, so a
// target added out of band stays until the endpoints change.
func TestCheckpoint(t *testing.T) {
	w := newWorld(t, sim.Config{Seed: 5})
	ctx := t.Context()
	if err := w.Client().Create(ctx, w.NewBinding("web", false)); err != nil {
		t.Fatal(err)
	}
	w.Run(5 * time.Minute)
	stray := elbv2types.TargetDescription{Id: aws.String("10.0.100.200"), Port: aws.Int32(8080)}
	if _, err := w.ELBv2().RegisterTargets(ctx, &elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(w.Legacy().TargetGroupARN), Targets: []elbv2types.TargetDescription{stray}}); err != nil {
		t.Fatal(err)
	}
	describes := w.LBCELBv2().Counts()[elbv2sim.OpDescribeTargetHealth]
	// A resync with unchanged endpoints is skipped.
	w.LBC().Enqueue(types.NamespacedName{Namespace: "shop", Name: "web"}, 0)
	w.Run(2 * time.Minute)
	if got := w.LBCELBv2().Counts()[elbv2sim.OpDescribeTargetHealth]; got != describes || w.LBC().Stats().Skipped == 0 {
		t.Errorf("DescribeTargetHealth %d -> %d, skipped %d: want the resync skipped", describes, got, w.LBC().Stats().Skipped)
	}
	if targetOf(w, "10.0.100.200") == "" {
		t.Fatal("the out-of-band target was swept without an endpoint change")
	}
	// An endpoint change makes the next reconcile diff again: the stray goes.
	p := w.Cluster().Pods()[0]
	if err := w.Client().Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name}}); err != nil {
		t.Fatal(err)
	}
	w.Run(30 * time.Second)
	if s := targetOf(w, "10.0.100.200"); s != string(elbv2types.TargetHealthStateEnumDraining) {
		t.Errorf("out-of-band target %q after an endpoint change, want draining", s)
	}
}

// TestPeriodicResync: a change no watch reports (here a binding written
// past the world's watch, as an informer that missed the event would leave
// it) is reconciled at the next periodic resync, one LBCSyncPeriod after
// the scenario's start, and not before.
func TestPeriodicResync(t *testing.T) {
	const period = 5 * time.Minute
	raw, err := cluster.NewFakeClient(cluster.FakeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The world wraps raw in its watch; writes straight to raw are unseen.
	w := newWorld(t, sim.Config{Seed: 7, Client: raw, LBCSyncPeriod: period})
	ctx := t.Context()
	if err := raw.Create(ctx, w.NewBinding("web", false)); err != nil {
		t.Fatal(err)
	}
	before := w.LBC().Stats().Reconciles
	w.RunUntil(w.Start().Add(period - time.Second))
	if got := w.LBC().Stats().Reconciles; got != before {
		t.Fatalf("%d reconciles before the resync, want none: nothing reported the binding", got-before)
	}
	if _, pods := targetCounts(w); pods != 0 {
		t.Fatalf("%d pod targets before the resync, want none", pods)
	}
	w.RunUntil(w.Start().Add(period + time.Second))
	if got := w.LBC().Stats().Reconciles; got == before {
		t.Fatal("no reconcile one sync period after the start")
	}
	if _, pods := targetCounts(w); pods != 6 {
		t.Errorf("%d pod targets after the resync, want 6", pods)
	}
	var b v1beta1.TargetGroupBinding
	if err := w.Client().Get(ctx, types.NamespacedName{Namespace: "shop", Name: "web"}, &b); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(b.Finalizers, lbc.Finalizer) {
		t.Errorf("finalizers %v after the resync, want %s", b.Finalizers, lbc.Finalizer)
	}
}

func TestNewValidates(t *testing.T) {
	tests := []struct {
		name string
		opts lbc.Options
	}{
		{"no client", lbc.Options{Clock: vclock.New(time.Time{})}},
		{"no clock", lbc.Options{}},
		{"negative batch", lbc.Options{BatchSize: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := lbc.New(tt.opts); !errors.Is(err, lbc.ErrInvalidOptions) {
				t.Errorf("New: %v, want invalid options", err)
			}
		})
	}
}

// TestApplyIsAdmitted: a binding created with server-side apply goes
// through the webhooks too: defaulted, and denied when it duplicates one.
func TestApplyIsAdmitted(t *testing.T) {
	w := newWorld(t, sim.Config{Seed: 6})
	ctx := t.Context()
	apply := func(name string, multiCluster bool) error {
		b := w.NewBinding(name, multiCluster)
		b.Spec.TargetType = nil
		b.TypeMeta = metav1.TypeMeta{APIVersion: v1beta1.GroupVersion.String(), Kind: v1beta1.Kind}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(b)
		if err != nil {
			t.Fatal(err)
		}
		delete(m, "status")
		unstructured.RemoveNestedField(m, "metadata", "creationTimestamp")
		u := &unstructured.Unstructured{Object: m}
		return w.Client().Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner("test"), client.ForceOwnership)
	}
	if err := apply("a", false); err != nil {
		t.Fatalf("apply: %v", err)
	}
	var b v1beta1.TargetGroupBinding
	if err := w.Client().Get(ctx, types.NamespacedName{Namespace: "shop", Name: "a"}, &b); err != nil {
		t.Fatal(err)
	}
	if b.Spec.TargetType == nil || *b.Spec.TargetType != v1beta1.TargetTypeIP {
		t.Errorf("applied binding's targetType %v, want ip from the webhook", b.Spec.TargetType)
	}
	if err := apply("b", false); !lbc.IsDenied(err) {
		t.Errorf("second apply: %v, want a denial", err)
	}
	w.Run(5 * time.Minute)
	if _, pods := targetCounts(w); pods != 6 {
		t.Errorf("%d pod targets from the applied binding, want 6", pods)
	}
}
