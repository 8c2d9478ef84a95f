package subnets_test

// permissions_test.go: a client that allows only MoveClusterRules and
// MoveNamespaceRules runs a whole Execute and Rollback.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate/internal/karpenterapi"
	"github.com/qstools/tgmigrate/subnets"
)

// mvRBAC refuses every call the rules do not allow. The world's own
// Karpenter stand-in calls the inner client, as Karpenter has its own
// role.
type mvRBAC struct {
	mu      sync.Mutex
	cluster []string // "group/resource/verb" allowed cluster-wide
	ns      []string // allowed in the namespace
	denied  []string
	allowed []string
}

func newMVRBAC() *mvRBAC {
	a := &mvRBAC{}
	for _, r := range subnets.MoveClusterRules() {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					a.cluster = append(a.cluster, g+"/"+res+"/"+v)
				}
			}
		}
	}
	for _, r := range subnets.MoveNamespaceRules() {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					a.ns = append(a.ns, g+"/"+res+"/"+v)
				}
			}
		}
	}
	return a
}

var mvResources = map[string]string{
	"Node": "nodes", "NodeList": "nodes", "ConfigMap": "configmaps", "Lease": "leases",
	karpenterapi.EC2NodeClassGVK.Kind: "ec2nodeclasses", karpenterapi.NodePoolGVK.Kind: "nodepools",
}

func (a *mvRBAC) check(c client.WithWatch, obj any, verb, ns string) error {
	ro, ok := obj.(interface{ GetObjectKind() schema.ObjectKind })
	if !ok {
		return fmt.Errorf("rbac: %T is no object", obj)
	}
	gvk := ro.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" {
		if o, ok := obj.(client.Object); ok {
			gvk, _ = apiutil.GVKForObject(o, c.Scheme())
		} else if l, ok := obj.(client.ObjectList); ok {
			gvk, _ = apiutil.GVKForObject(l, c.Scheme())
		}
	}
	key := gvk.Group + "/" + mvResources[gvk.Kind] + "/" + verb
	a.mu.Lock()
	defer a.mu.Unlock()
	if slices.Contains(a.cluster, key) || (ns == mvNamespace && slices.Contains(a.ns, key)) {
		a.allowed = append(a.allowed, key)
		return nil
	}
	a.denied = append(a.denied, key+" in "+ns)
	return apierrors.NewForbidden(schema.GroupResource{Group: gvk.Group, Resource: mvResources[gvk.Kind]}, "", errors.New("not in the move's rules"))
}

func (a *mvRBAC) funcs() *interceptor.Funcs {
	return &interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if err := a.check(c, obj, "get", key.Namespace); err != nil {
				return err
			}
			return c.Get(ctx, key, obj, opts...)
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			lo := (&client.ListOptions{}).ApplyOptions(opts)
			if err := a.check(c, list, "list", lo.Namespace); err != nil {
				return err
			}
			return c.List(ctx, list, opts...)
		},
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if err := a.check(c, obj, "create", obj.GetNamespace()); err != nil {
				return err
			}
			return c.Create(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			if err := a.check(c, obj, "update", obj.GetNamespace()); err != nil {
				return err
			}
			return c.Update(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			if err := a.check(c, obj, "patch", obj.GetNamespace()); err != nil {
				return err
			}
			return c.Patch(ctx, obj, patch, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			if err := a.check(c, obj, "delete", obj.GetNamespace()); err != nil {
				return err
			}
			return c.Delete(ctx, obj, opts...)
		},
	}
}

func TestMoveRunsWithItsRBACRulesAlone(t *testing.T) {
	rbac := newMVRBAC()
	w := newMVWorld(t, 2, nil, nil)
	inner := w.c
	guarded := interceptor.NewClient(inner, *rbac.funcs())
	p := mvPlan(t, w, mvReadiness(2, nil), subnets.MoveBudget("1"))
	env := w.env()
	env.Client = guarded
	if res, err := subnets.Execute(t.Context(), p, env); err != nil || !res.Completed {
		t.Fatalf("execute under the move's rules: %+v, %v (denied %v)", res, err, rbac.denied)
	}
	if res, err := subnets.Rollback(t.Context(), p, env); err != nil || !res.Completed {
		t.Fatalf("rollback under the move's rules: %+v, %v (denied %v)", res, err, rbac.denied)
	}
	if len(rbac.denied) > 0 {
		t.Errorf("denied: %v", rbac.denied)
	}
	for _, want := range []string{"/nodes/list", "karpenter.k8s.aws/ec2nodeclasses/update", "karpenter.sh/nodepools/update", "/configmaps/create", "coordination.k8s.io/leases/delete"} {
		if !slices.Contains(rbac.allowed, want) {
			t.Errorf("the move never used %s: the rule list is not what it runs on", want)
		}
	}
	// The guard is real: a call outside the rules is refused.
	if err := guarded.Delete(t.Context(), w.get(karpenterapi.NodePoolGVK, "default")); !apierrors.IsForbidden(err) {
		t.Errorf("delete a NodePool: %v, want Forbidden", err)
	}
	if got := subnets.MoveIAMActions(); !slices.Equal(got, []string{"elasticloadbalancing:DescribeTargetHealth"}) {
		t.Errorf("move IAM = %v", got)
	}
	for _, a := range subnets.ReadinessIAMActions() {
		if svc, _, _ := strings.Cut(a, ":"); !slices.Contains([]string{"ec2", "elasticloadbalancing"}, svc) {
			t.Errorf("readiness action %q is not EC2 or ELBv2", a)
		}
	}
}
