package tgbind

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// countApplies counts the real (not dry-run) applies, and honours dry runs.
func countApplies(n *atomic.Int32) interceptor.Funcs {
	return interceptor.Funcs{Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
		ao := &client.ApplyOptions{}
		ao.ApplyOptions(opts)
		if len(ao.DryRun) > 0 {
			return nil
		}
		n.Add(1)
		return c.Apply(ctx, obj, opts...)
	}}
}

func getTGB(t *testing.T, c client.Reader, key types.NamespacedName) *v1beta1.TargetGroupBinding {
	t.Helper()
	got := &v1beta1.TargetGroupBinding{}
	if err := c.Get(t.Context(), key, got); err != nil {
		t.Fatalf("get %s: %v", key, err)
	}
	return got
}

func TestApplyCreates(t *testing.T) {
	var applies atomic.Int32
	u := newUnit(t, withObjects(standardObjects()...), withInterceptor(countApplies(&applies))).legacy()
	tgb := mustBuild(t, u)

	res, err := u.binder.Apply(t.Context(), tgb)
	if err != nil {
		t.Fatalf("Apply() = %v\n%s", err, res.Preflight)
	}
	if res.Operation != OperationCreated || res.ResourceVersion == "" || !res.Preflight.Passed() {
		t.Errorf("result = %+v", res)
	}
	if applies.Load() != 1 {
		t.Errorf("applies = %d, want 1", applies.Load())
	}
	got := getTGB(t, u.raw, types.NamespacedName{Namespace: testNS, Name: tgb.Name})
	if diff := cmp.Diff(tgb.Spec, got.Spec); diff != "" {
		t.Errorf("stored spec (-want +got):\n%s", diff)
	}
	if got.Labels[LabelManagedBy] != ManagedByValue || got.Annotations[AnnotationTargetGroupARN] != testARN {
		t.Errorf("ownership marks missing: %v %v", got.Labels, got.Annotations)
	}
	if len(got.ManagedFields) == 0 || got.ManagedFields[0].Manager != FieldManager {
		t.Errorf("managed fields = %+v, want manager %q", got.ManagedFields, FieldManager)
	}
}

// TestApplyReapply: the fake client of controller-runtime v0.25.3 bumps the
// resourceVersion on every apply, even a no-op, so "unchanged" is proven by
// TestIntegrationApplyIdempotent against a real API server. Here: the second
// apply succeeds, leaves the spec as it was and passes ownership.
func TestApplyReapply(t *testing.T) {
	u := newUnit(t, withObjects(standardObjects()...)).legacy()
	tgb := mustBuild(t, u)
	if _, err := u.binder.Apply(t.Context(), tgb); err != nil {
		t.Fatal(err)
	}
	again := mustBuild(t, u) // a fresh Build sees the binding and keeps its flag and reason
	if diff := cmp.Diff(tgb, again); diff != "" {
		t.Errorf("rebuilt binding differs (-first +again):\n%s", diff)
	}
	res, err := u.binder.Apply(t.Context(), again)
	if err != nil {
		t.Fatal(err)
	}
	if res.Operation == OperationCreated {
		t.Errorf("second apply reported %s", res.Operation)
	}
	got := getTGB(t, u.raw, types.NamespacedName{Namespace: testNS, Name: tgb.Name})
	if diff := cmp.Diff(tgb.Spec, got.Spec); diff != "" {
		t.Errorf("stored spec (-want +got):\n%s", diff)
	}
}

func TestApplyDryRun(t *testing.T) {
	var applies atomic.Int32
	u := newUnit(t, withObjects(standardObjects()...), withInterceptor(countApplies(&applies))).legacy()
	tgb := mustBuild(t, u)
	before := snapshot(t, t.Context(), u.raw, testNS)
	res, err := u.binder.Apply(t.Context(), tgb, WithDryRun())
	if err != nil {
		t.Fatal(err)
	}
	if !res.DryRun || res.Operation != OperationCreated {
		t.Errorf("result = %+v, want a dry run that would create", res)
	}
	if applies.Load() != 0 {
		t.Errorf("a dry run applied %d times", applies.Load())
	}
	if diff := cmp.Diff(before, snapshot(t, t.Context(), u.raw, testNS)); diff != "" {
		t.Errorf("dry run changed the cluster (-before +after):\n%s", diff)
	}
}

func TestApplyDryRunOnExisting(t *testing.T) {
	u := newUnit(t, withObjects(standardObjects()...)).legacy()
	tgb := mustBuild(t, u)
	if _, err := u.binder.Apply(t.Context(), tgb); err != nil {
		t.Fatal(err)
	}
	res, err := u.binder.Apply(t.Context(), tgb, WithDryRun())
	if err != nil || res.Operation != OperationUnchanged {
		t.Fatalf("dry run of the same binding = %+v, %v; want unchanged", res, err)
	}
	changed := tgb.DeepCopy()
	changed.Spec.Networking = ingressFrom([]string{testSG}, &service(testNS).Spec.Ports[0])
	res, err = u.binder.Apply(t.Context(), changed, WithDryRun())
	if err != nil || res.Operation != OperationUpdated {
		t.Fatalf("dry run of a changed binding = %+v, %v; want updated", res, err)
	}
}

// TestApplyValidationFailureWritesNothing: Apply runs the preflight first
// and writes nothing when it fails.
func TestApplyValidationFailureWritesNothing(t *testing.T) {
	var applies atomic.Int32
	u := newUnit(t, withObjects(standardObjects()...), withInterceptor(countApplies(&applies))).legacy()
	tgb := mustBuild(t, u)
	tgb.Spec.MultiClusterTargetGroup = false // unsafe: node targets present
	before := snapshot(t, t.Context(), u.raw, testNS)

	res, err := u.binder.Apply(t.Context(), tgb)
	if !IsDefaultModeUnsafe(err) || !IsValidationError(err) {
		t.Fatalf("Apply() = %v, want ErrDefaultModeUnsafe", err)
	}
	if res == nil || res.Preflight == nil || res.Preflight.Passed() || res.Operation != "" {
		t.Errorf("result = %+v", res)
	}
	if applies.Load() != 0 {
		t.Errorf("applied %d times after a failed preflight", applies.Load())
	}
	if diff := cmp.Diff(before, snapshot(t, t.Context(), u.raw, testNS)); diff != "" {
		t.Errorf("cluster changed (-before +after):\n%s", diff)
	}
}

// TestApplyConflict: another field manager owns spec.networking with other
// values. The fake client's dry run does not detect conflicts, so the real
// apply does, and Apply reports a *ConflictError naming the manager. With
// WithForce it takes the field over.
func TestApplyConflict(t *testing.T) {
	u := newUnit(t, withObjects(standardObjects()...)).legacy()
	tgb := mustBuild(t, u)
	gitops := tgb.DeepCopy()
	gitops.Spec.Networking = ingressFrom([]string{"sg-0aaaaaaaaaaaaaaaa"}, &service(testNS).Spec.Ports[0])
	obj, err := toUnstructured(gitops)
	if err != nil {
		t.Fatal(err)
	}
	if err := u.raw.Apply(t.Context(), client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("gitops")); err != nil {
		t.Fatal(err)
	}
	mine := tgb.DeepCopy()
	mine.Spec.Networking = ingressFrom([]string{testSG}, &service(testNS).Spec.Ports[0])

	_, err = u.binder.Apply(t.Context(), mine)
	var ce *ConflictError
	if !errors.As(err, &ce) || !IsConflict(err) {
		t.Fatalf("Apply() = %v, want *ConflictError", err)
	}
	if diff := cmp.Diff([]string{"gitops"}, ce.Managers); diff != "" {
		t.Errorf("managers (-want +got):\n%s", diff)
	}
	if len(ce.Fields) == 0 || !strings.Contains(strings.Join(ce.Fields, " "), "networking") {
		t.Errorf("fields = %v, want spec.networking", ce.Fields)
	}
	if !strings.Contains(err.Error(), `"gitops"`) || !strings.Contains(err.Error(), "WithForce") {
		t.Errorf("message %q", err)
	}
	stored := getTGB(t, u.raw, types.NamespacedName{Namespace: testNS, Name: tgb.Name})
	if diff := cmp.Diff(gitops.Spec.Networking, stored.Spec.Networking); diff != "" {
		t.Errorf("conflicting apply changed the object (-gitops +stored):\n%s", diff)
	}

	if _, err := u.binder.Apply(t.Context(), mine, WithForce()); err != nil {
		t.Fatalf("Apply(WithForce) = %v", err)
	}
	stored = getTGB(t, u.raw, types.NamespacedName{Namespace: testNS, Name: tgb.Name})
	if diff := cmp.Diff(mine.Spec.Networking, stored.Spec.Networking); diff != "" {
		t.Errorf("forced apply (-want +stored):\n%s", diff)
	}
}

func TestApplyErrors(t *testing.T) {
	t.Run("read-only binder", func(t *testing.T) {
		u := newUnit(t, withObjects(standardObjects()...), readOnly()).legacy()
		_, err := u.binder.Apply(t.Context(), mustBuild(t, u))
		if !errors.Is(err, ErrReadOnly) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("API server fails the apply", func(t *testing.T) {
		u := newUnit(t, withObjects(standardObjects()...), withInterceptor(interceptor.Funcs{
			Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
				ao := &client.ApplyOptions{}
				ao.ApplyOptions(opts)
				if len(ao.DryRun) > 0 {
					return nil
				}
				return apierrors.NewServiceUnavailable("apiserver restarting")
			}})).legacy()
		res, err := u.binder.Apply(t.Context(), mustBuild(t, u))
		if !apierrors.IsServiceUnavailable(err) || IsConflict(err) || !strings.HasPrefix(err.Error(), "tgbind: apply shop/") {
			t.Fatalf("err = %v", err)
		}
		if res.Operation != "" || !res.Preflight.Passed() {
			t.Errorf("result = %+v", res)
		}
	})
	t.Run("nil binding", func(t *testing.T) {
		u := newUnit(t)
		if _, err := u.binder.Apply(t.Context(), nil); err == nil {
			t.Fatal("want an error")
		}
	})
}
