package karpenter

// objects.go: the NodePool and NodeClaim objects it publishes, and their
// CRDs.

import (
	"context"
	"fmt"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/qstools/tgmigrate/internal/karpenterapi"
)

// The karpenter.sh/v1 kinds the simulation publishes: karpenterapi's, named
// here for the simulator's callers.
var (
	// NodePoolGVK is [karpenterapi.NodePoolGVK].
	NodePoolGVK = karpenterapi.NodePoolGVK
	// NodeClaimGVK is [karpenterapi.NodeClaimGVK].
	NodeClaimGVK = karpenterapi.NodeClaimGVK
	// EC2NodeClassGVK is [karpenterapi.EC2NodeClassGVK].
	EC2NodeClassGVK = karpenterapi.EC2NodeClassGVK
)

// duration formats d as Karpenter's manifests do ("720h", "1h30m").
func duration(d time.Duration) string {
	if d < 0 {
		return "Never"
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func (k *Karpenter) publishNodePool(ctx context.Context) error {
	budgets := []any{}
	for _, b := range k.pool.Budgets {
		m := map[string]any{"nodes": b.Nodes}
		if b.Schedule != "" {
			m["schedule"], m["duration"] = b.Schedule, duration(b.Duration)
		}
		if len(b.Reasons) > 0 {
			rs := []any{}
			for _, r := range b.Reasons {
				rs = append(rs, string(r))
			}
			m["reasons"] = rs
		}
		budgets = append(budgets, m)
	}
	tmpl := map[string]any{
		"expireAfter":  duration(k.pool.ExpireAfter),
		"nodeClassRef": nodeClassRef(),
		"requirements": []any{
			map[string]any{"key": LabelCapacityType, "operator": "In", "values": []any{k.pool.CapacityType}},
			map[string]any{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": stringsAny(k.pool.InstanceTypes)},
		},
	}
	if k.pool.TerminationGracePeriod > 0 {
		tmpl["terminationGracePeriod"] = duration(k.pool.TerminationGracePeriod)
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": k.pool.Name},
		"spec": map[string]any{
			"template":   map[string]any{"spec": tmpl},
			"disruption": map[string]any{"consolidationPolicy": string(k.pool.ConsolidationPolicy), "consolidateAfter": "0s", "budgets": budgets},
		},
	}}
	u.SetGroupVersionKind(NodePoolGVK)
	if err := k.c.Create(ctx, u); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("karpenter: create nodepool %s: %w", k.pool.Name, err)
	}
	return nil
}

// nodeClassRef is the NodePool's and the NodeClaims' reference to the
// EC2NodeClass.
func stringsAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func nodeClassRef() map[string]any {
	return map[string]any{"group": karpenterapi.EC2NodeClassGVK.Group, "kind": karpenterapi.EC2NodeClassGVK.Kind, "name": NodeClassName}
}

func (k *Karpenter) claimObject(c *claim) *unstructured.Unstructured {
	node, _ := k.cl.Node(c.node)
	spec := map[string]any{
		"expireAfter":  duration(k.pool.ExpireAfter),
		"nodeClassRef": nodeClassRef(),
		"requirements": []any{
			map[string]any{"key": LabelNodePool, "operator": "In", "values": []any{k.pool.Name}},
			map[string]any{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": []any{c.instanceType}},
		},
	}
	if k.pool.TerminationGracePeriod > 0 {
		spec["terminationGracePeriod"] = duration(k.pool.TerminationGracePeriod)
	}
	now := metav1.NewTime(k.clock.Now()).UTC().Format(time.RFC3339)
	conds := []any{
		map[string]any{"type": "Launched", "status": "True", "reason": "Launched", "message": "", "lastTransitionTime": now},
	}
	if c.state != claimLaunching {
		for _, t := range []string{"Registered", "Initialized"} {
			conds = append(conds, map[string]any{"type": t, "status": "True", "reason": t, "message": "", "lastTransitionTime": now})
		}
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{
			"name":       c.name,
			"labels":     map[string]any{LabelNodePool: k.pool.Name, LabelCapacityType: k.pool.CapacityType, "node.kubernetes.io/instance-type": c.instanceType},
			"finalizers": []any{FinalizerTermination},
		},
		"spec": spec,
		"status": map[string]any{
			"nodeName": c.node, "providerID": node.ProviderID, "conditions": conds,
		},
	}}
	u.SetGroupVersionKind(NodeClaimGVK)
	// As an API server would: readers such as Diagnose compute the expiry
	// from creationTimestamp plus spec.expireAfter. The fake client sets no
	// creationTimestamp of its own; a real API server overwrites this one
	// with its own clock's.
	u.SetCreationTimestamp(metav1.NewTime(c.createdAt))
	return u
}

func (k *Karpenter) publishClaim(ctx context.Context, c *claim) error {
	u := k.claimObject(c)
	want, _ := u.Object["status"].(map[string]any)
	if err := k.c.Create(ctx, u); err != nil {
		return fmt.Errorf("create nodeclaim %s: %w", c.name, err)
	}
	if err := k.ensureStatus(ctx, u, want); err != nil {
		return fmt.Errorf("nodeclaim %s status: %w", c.name, err)
	}
	return nil
}

// updateClaim applies mutate to the NodeClaim object.
func (k *Karpenter) updateClaim(ctx context.Context, c *claim, mutate func(u *unstructured.Unstructured)) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(NodeClaimGVK)
	if err := k.c.Get(ctx, types.NamespacedName{Name: c.name}, u); err != nil {
		if !apierrors.IsNotFound(err) {
			k.event("Error", "nodeclaim/"+c.name, "get: %v", err)
		}
		return
	}
	mutate(u)
	want, _ := u.Object["status"].(map[string]any)
	if err := k.c.Update(ctx, u); err != nil {
		if !apierrors.IsNotFound(err) {
			k.event("Error", "nodeclaim/"+c.name, "update: %v", err)
		}
		return
	}
	if err := k.ensureStatus(ctx, u, want); err != nil && !apierrors.IsNotFound(err) {
		k.event("Error", "nodeclaim/"+c.name, "update status: %v", err)
	}
}

func (k *Karpenter) markRegistered(ctx context.Context, c *claim) {
	k.setClaimCondition(ctx, c, "Registered", "True", "Registered")
	k.setClaimCondition(ctx, c, "Initialized", "True", "Initialized")
}

// setClaimCondition sets one status condition of the NodeClaim.
func (k *Karpenter) setClaimCondition(ctx context.Context, c *claim, typ, status, reason string) {
	k.updateClaim(ctx, c, func(u *unstructured.Unstructured) {
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		now := k.clock.Now().UTC().Format(time.RFC3339)
		cond := map[string]any{"type": typ, "status": status, "reason": reason, "message": "", "lastTransitionTime": now}
		replaced := false
		for i, x := range conds {
			if m, ok := x.(map[string]any); ok && m["type"] == typ {
				conds[i] = cond
				replaced = true
			}
		}
		if !replaced {
			conds = append(conds, cond)
		}
		_ = unstructured.SetNestedSlice(u.Object, conds, "status", "conditions")
	})
}

// deleteClaim deletes the NodeClaim; its finalizer holds it until the
// instance is gone.
func (k *Karpenter) deleteClaim(ctx context.Context, c *claim) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(NodeClaimGVK)
	u.SetName(c.name)
	if err := k.c.Delete(ctx, u); err != nil && !apierrors.IsNotFound(err) {
		k.event("Error", "nodeclaim/"+c.name, "delete: %v", err)
	}
}

// removeClaim removes the termination finalizer, which lets the deleted
// NodeClaim go.
func (k *Karpenter) removeClaim(ctx context.Context, c *claim) {
	k.updateClaim(ctx, c, func(u *unstructured.Unstructured) {
		var keep []string
		for _, f := range u.GetFinalizers() {
			if f != FinalizerTermination {
				keep = append(keep, f)
			}
		}
		u.SetFinalizers(keep)
	})
}

// CRDs returns the CRDs of the objects [Options].PublishObjects writes
// (NodePool, NodeClaim, EC2NodeClass), for a real API server:
// [karpenterapi.CRDs], each with the status subresource, which Karpenter
// writes status through when the server has it.
func CRDs() []*apiextensionsv1.CustomResourceDefinition { return karpenterapi.CRDs() }
