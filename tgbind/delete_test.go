package tgbind

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

func TestDelete(t *testing.T) {
	key := types.NamespacedName{Namespace: testNS, Name: "web-http-legacy-web"}
	tests := []struct {
		name        string
		existing    *v1beta1.TargetGroupBinding
		opts        []Option
		wantErr     error
		wantDeleted bool
		wantGone    bool
		wantWarning string
	}{
		{name: "owned multi-cluster binding", existing: binding(testNS, key.Name, testARN, true, true),
			wantDeleted: true, wantGone: true, wantWarning: "aws-lbc-targets-web-http-legacy-web"},
		{name: "owned default-mode binding warns about deregistration", existing: binding(testNS, key.Name, testARN, false, true),
			wantDeleted: true, wantGone: true, wantWarning: "every target it lists"},
		{name: "binding tgmigrate does not own is refused", existing: binding(testNS, key.Name, testARN, true, false),
			wantErr: ErrNotOwned},
		{name: "binding tgmigrate does not own, forced", existing: binding(testNS, key.Name, testARN, true, false),
			opts: []Option{WithForce()}, wantDeleted: true, wantGone: true},
		{name: "dry run keeps it", existing: binding(testNS, key.Name, testARN, true, true),
			opts: []Option{WithDryRun()}, wantDeleted: true, wantWarning: "aws-lbc-targets"},
		{name: "absent binding is not an error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var objs []client.Object
			if tt.existing != nil {
				objs = append(objs, tt.existing)
			}
			u := newUnit(t, withObjects(objs...), strictAWS())
			before := snapshot(t, t.Context(), u.raw, testNS)
			res, err := u.binder.Delete(t.Context(), key, tt.opts...)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("Delete() = %v, want %v", err, tt.wantErr)
			}
			if res.Deleted != tt.wantDeleted {
				t.Errorf("Deleted = %t, want %t", res.Deleted, tt.wantDeleted)
			}
			if tt.wantWarning != "" && (len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], tt.wantWarning)) {
				t.Errorf("Warnings = %q, want one mentioning %q", res.Warnings, tt.wantWarning)
			}
			after := snapshot(t, t.Context(), u.raw, testNS)
			_, exists := after["TargetGroupBinding/"+key.String()]
			if tt.wantGone == exists && tt.existing != nil {
				t.Errorf("binding exists = %t after delete, want %t", exists, !tt.wantGone)
			}
			if !tt.wantGone {
				if diff := cmp.Diff(before, after); diff != "" {
					t.Errorf("cluster changed (-before +after):\n%s", diff)
				}
			}
		})
	}
}

// TestDeleteRereadsOnConflict: the LBC may update the binding between the
// read and the delete; the precondition then fails and Delete checks again.
func TestDeleteRereadsOnConflict(t *testing.T) {
	var deletes atomic.Int32
	u := newUnit(t, withObjects(binding(testNS, "web", testARN, true, true)), withInterceptor(interceptor.Funcs{
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			if deletes.Add(1) == 1 {
				return apierrors.NewConflict(schema.GroupResource{Group: "elbv2.k8s.aws", Resource: "targetgroupbindings"}, obj.GetName(), errors.New("precondition failed"))
			}
			do := &client.DeleteOptions{}
			do.ApplyOptions(opts)
			if do.Preconditions == nil || do.Preconditions.UID == nil || *do.Preconditions.UID == "" {
				t.Errorf("delete without a UID precondition")
			}
			return c.Delete(ctx, obj, opts...)
		}}))
	res, err := u.binder.Delete(t.Context(), types.NamespacedName{Namespace: testNS, Name: "web"})
	if err != nil || !res.Deleted || deletes.Load() != 2 {
		t.Fatalf("Delete() = %+v, %v after %d deletes", res, err, deletes.Load())
	}
}

func TestDeleteErrors(t *testing.T) {
	key := types.NamespacedName{Namespace: testNS, Name: "web"}
	t.Run("read-only", func(t *testing.T) {
		u := newUnit(t, readOnly(), strictAWS())
		if _, err := u.binder.Delete(t.Context(), key); !errors.Is(err, ErrReadOnly) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("CRD not installed", func(t *testing.T) {
		u := newUnit(t, withInterceptor(noTGBKind()), strictAWS())
		if _, err := u.binder.Delete(t.Context(), key); !IsCRDNotInstalled(err) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("conflict every time", func(t *testing.T) {
		u := newUnit(t, withObjects(binding(testNS, "web", testARN, true, true)), strictAWS(), withInterceptor(interceptor.Funcs{
			Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
				return apierrors.NewConflict(schema.GroupResource{Resource: "targetgroupbindings"}, obj.GetName(), errors.New("changed"))
			}}))
		_, err := u.binder.Delete(t.Context(), key)
		if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), "kept changing") {
			t.Fatalf("err = %v", err)
		}
	})
}
