//go:build integration

package sim_test

import (
	"context"
	"strings"
	"testing"
	"time"

	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
	"github.com/qstools/tgmigrate/internal/sim/lbc"
	"github.com/qstools/tgmigrate/internal/testenv"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// TestIntegrationWorldOnAPIServer runs a whole world on a real
// kube-apiserver: Karpenter's stand-in NodeClaims, the LBC adopting the
// legacy target group with a multiClusterTargetGroup binding, and every node
// replaced, with no model error.
func TestIntegrationWorldOnAPIServer(t *testing.T) {
	env := testenv.Start(t)
	ctx := t.Context()
	for _, crd := range karpenter.CRDs() {
		if err := env.Client.Create(ctx, crd); err != nil {
			t.Fatal(err)
		}
	}
	// Wait (for real: the API server, not the simulation) until the CRDs are served.
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		for _, crd := range karpenter.CRDs() {
			var got apiextensionsv1.CustomResourceDefinition
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(crd), &got); err != nil {
				return false, nil
			}
			established := false
			for _, c := range got.Status.Conditions {
				if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
					established = true
				}
			}
			if !established {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("karpenter CRDs: %v", err)
	}
	w, err := sim.New(ctx, sim.Config{Seed: 1, Nodes: 3, Pods: 6, Client: env.Client})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Client().Create(ctx, w.NewBinding("web", true)); err != nil {
		t.Fatal(err)
	}
	w.Run(5 * time.Minute)
	if st := w.Traffic(); st.Failed != 0 || st.Total == 0 {
		t.Errorf("traffic while the binding adopts the group: %s", st.String())
	}
	if err := w.ReplaceAllNodes(5 * time.Minute); err != nil {
		t.Fatal(err)
	}
	w.Run(15 * time.Minute)

	for _, l := range w.EventLog() {
		if strings.Contains(l, " Error ") || strings.Contains(l, " ReconcileError ") {
			t.Errorf("event: %s", l)
		}
	}
	var b v1beta1.TargetGroupBinding
	if err := w.Client().Get(ctx, types.NamespacedName{Namespace: w.Legacy().Namespace, Name: "web"}, &b); err != nil {
		t.Fatal(err)
	}
	if b.Status.ObservedGeneration == nil || *b.Status.ObservedGeneration != b.Generation {
		t.Errorf("binding status %+v, generation %d", b.Status, b.Generation)
	}
	var cm corev1.ConfigMap
	if err := w.Client().Get(ctx, types.NamespacedName{Namespace: w.Legacy().Namespace, Name: lbc.TrackedTargetsPrefix + "web"}, &cm); err != nil {
		t.Errorf("tracking ConfigMap: %v", err)
	}
	healthy := 0
	for _, tg := range w.Targets(w.Legacy().TargetGroupARN) {
		if strings.HasPrefix(tg.Owner, "pod/") && tg.State == elbv2types.TargetHealthStateEnumHealthy {
			healthy++
		}
	}
	if healthy != 6 {
		t.Errorf("%d healthy pod targets after the churn, want 6", healthy)
	}
	var claims unstructured.UnstructuredList
	claims.SetGroupVersionKind(karpenter.NodeClaimGVK.GroupVersion().WithKind("NodeClaimList"))
	if err := env.Client.List(ctx, &claims); err != nil {
		t.Fatal(err)
	}
	if len(claims.Items) != 3 {
		t.Errorf("%d NodeClaims on the API server, want 3 (the replacements)", len(claims.Items))
	}
	for _, n := range w.Cluster().NodeHistory()[:3] {
		if n.Phase != "Terminated" {
			t.Errorf("initial node %s %s, want replaced", n.Name, n.Phase)
		}
	}
	var nodes corev1.NodeList
	if err := env.Client.List(ctx, &nodes); err != nil {
		t.Fatal(err)
	}
	if len(nodes.Items) != 3 {
		t.Errorf("%d Nodes on the API server, want 3: Karpenter removes its finalizer from the replaced ones", len(nodes.Items))
	}

	// The system under test deletes a NodeClaim, watching Nodes and
	// NodeClaims: Karpenter terminates it (Deleted), and both objects go.
	watchNodes, err := w.Client().Watch(ctx, &corev1.NodeList{})
	if err != nil {
		t.Fatal(err)
	}
	defer watchNodes.Stop()
	watchClaims, err := w.Client().Watch(ctx, &claims)
	if err != nil {
		t.Fatal(err)
	}
	defer watchClaims.Stop()
	victim := claims.Items[0]
	node, _, _ := unstructured.NestedString(victim.Object, "status", "nodeName")
	if err := w.Client().Delete(ctx, &victim); err != nil {
		t.Fatal(err)
	}
	w.Run(5 * time.Minute)
	ds := w.Karpenter().Disruptions()
	if d := ds[len(ds)-1]; d.Node != node || d.Reason != karpenter.ReasonDeleted || d.TerminatedAt.IsZero() {
		t.Errorf("the last disruption %+v: want %s Deleted, terminated", d, node)
	}
	gone := map[string]bool{}
	for _, wt := range []watch.Interface{watchNodes, watchClaims} {
		for done := false; !done; {
			select {
			case ev := <-wt.ResultChan():
				if ev.Type == watch.Deleted {
					gone[ev.Object.(client.Object).GetName()] = true
				}
			default:
				done = true
			}
		}
	}
	if !gone[node] || !gone[victim.GetName()] {
		t.Errorf("deleted objects watched %v, want node %s and nodeclaim %s", gone, node, victim.GetName())
	}
	for _, l := range w.EventLog() {
		if strings.Contains(l, " Error ") {
			t.Errorf("event: %s", l)
		}
	}
}
