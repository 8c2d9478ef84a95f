//go:build integration

package subnets_test

// move_integration_test.go: the move's writes and Rollback against a real
// kube-apiserver with Karpenter's CRDs installed.

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/karpenterapi"
	"github.com/qstools/tgmigrate/internal/testenv"
	"github.com/qstools/tgmigrate/subnets"
)

// TestIntegrationMoveWritesOnAPIServer runs a move with no node to
// replace (its writes, its journal and its lease on the real API server,
// whose CRD validation accepts what the move writes), a rollback that
// restores the specs as they were, and shows the CRD refuses a malformed
// budget.
func TestIntegrationMoveWritesOnAPIServer(t *testing.T) {
	env := testenv.Start(t)
	if err := env.InstallKarpenterCRDs(); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	ns := env.Namespace(ctx, t, "move")
	c := env.Client
	for _, obj := range []client.Object{mvNodeClass(), mvNodePool([]any{map[string]any{"nodes": "20%"}})} {
		if err := c.Create(ctx, obj); err != nil {
			t.Fatalf("create %s: %v", obj.GetName(), err)
		}
	}
	// One private node of no NodePool: neither watch waits for it (no
	// Karpenter runs here), and verify passes.
	node := mvNode("private-0", false, 0)
	node.Labels = nil
	if err := c.Create(ctx, node); err != nil {
		t.Fatal(err)
	}
	node.Status.Addresses = mvNode("private-0", false, 0).Status.Addresses
	if err := c.Status().Update(ctx, node); err != nil {
		t.Fatal(err)
	}
	specOf := func(kind, name string) map[string]any {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(karpenterapi.NodePoolGVK)
		if kind == "class" {
			u.SetGroupVersionKind(karpenterapi.EC2NodeClassGVK)
		}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, u); err != nil {
			t.Fatal(err)
		}
		return runtime.DeepCopyJSONValue(u.Object["spec"]).(map[string]any)
	}
	ncBefore, poolBefore := specOf("class", "default"), specOf("pool", "default")

	r := mvReadiness(0, []karpenterapi.Budget{{Nodes: "20%"}})
	r.CheckedAt = time.Now().Add(-time.Minute)
	r.TargetGroups = nil
	p, err := subnets.PlanMove(ctx, r, subnets.MoveBudget("1"))
	if err != nil {
		t.Fatal(err)
	}
	menv := subnets.Env{Client: c, Namespace: ns, Holder: "operator-1"}
	var during map[string]any
	obs := subnets.ObserverFuncs{OnStepStarted: func(e subnets.StepEvent) {
		if e.Step == subnets.StepWatchReplacement {
			during = specOf("pool", "default")
		}
	}}
	res, err := subnets.Execute(ctx, p, menv, subnets.WithPollInterval(time.Second), subnets.WithObserver(obs))
	if err != nil || !res.Completed {
		t.Fatalf("execute: %+v, %v", res, err)
	}
	if got := fmt.Sprint(during["disruption"]); !strings.Contains(got, "reasons:[Drifted]") || !strings.Contains(got, "nodes:20%") {
		t.Errorf("budgets during the move as the API server stored them: %s", got)
	}
	nc := specOf("class", "default")
	if nc["associatePublicIPAddress"] != false || fmt.Sprint(nc["subnetSelectorTerms"]) != "[map[tags:map[tier:private]]]" || nc["role"] != "KarpenterNodeRole-prod" {
		t.Errorf("node class as stored: %v", nc)
	}
	if !reflect.DeepEqual(specOf("pool", "default"), poolBefore) {
		t.Errorf("pool after the move: %v, want %v", specOf("pool", "default"), poolBefore)
	}
	var cm corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: subnets.JournalName(mvCluster)}, &cm); err != nil {
		t.Fatalf("journal: %v", err)
	}

	if res, err := subnets.Rollback(ctx, p, menv, subnets.WithPollInterval(time.Second)); err != nil || !res.Completed {
		t.Fatalf("rollback: %+v, %v", res, err)
	}
	if got := specOf("class", "default"); !reflect.DeepEqual(got, ncBefore) {
		t.Errorf("node class after rollback: %v, want %v", got, ncBefore)
	}
	if got := specOf("pool", "default"); !reflect.DeepEqual(got, poolBefore) {
		t.Errorf("pool after rollback: %v, want %v", got, poolBefore)
	}

	// The CRD refuses a malformed budget and a term with both an id and tags.
	bad := mvNodePool([]any{map[string]any{"nodes": "ten"}})
	bad.SetName("bad")
	if err := c.Create(ctx, bad); !apierrors.IsInvalid(err) {
		t.Errorf("create a pool with budget nodes \"ten\": %v, want Invalid", err)
	}
	both := mvNodeClass()
	both.SetName("both")
	_ = unstructured.SetNestedSlice(both.Object, []any{map[string]any{"id": "subnet-1", "tags": map[string]any{"a": "b"}}}, "spec", "subnetSelectorTerms")
	if err := c.Create(ctx, both); !apierrors.IsInvalid(err) {
		t.Errorf("create a class with a term of id and tags: %v, want Invalid", err)
	}
	// An object changed on the server after the plan is refused by name.
	p2, err := subnets.PlanMove(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(karpenterapi.EC2NodeClassGVK)
	if err := c.Get(ctx, client.ObjectKey{Name: "default"}, cur); err != nil {
		t.Fatal(err)
	}
	if err := karpenterapi.SetSubnetSelection(cur, []karpenterapi.SelectorTerm{{ID: "subnet-zzz"}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Update(ctx, cur); err != nil {
		t.Fatal(err)
	}
	ns2 := env.Namespace(ctx, t, "move2")
	_, err = subnets.Execute(ctx, p2, subnets.Env{Client: c, Namespace: ns2, Holder: "operator-1"})
	var drifted *subnets.DriftedObjectError
	if !errors.As(err, &drifted) || drifted.Name != "default" {
		t.Errorf("execute over a changed class: %v, want a *DriftedObjectError", err)
	}
}
