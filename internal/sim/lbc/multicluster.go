package lbc

// multicluster.go: multiClusterTargetGroup: the ConfigMap of the targets it
// tracks.

import (
	"context"
	"fmt"
	"strings"

	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// tracked reads the targets a multi-cluster binding recorded, and false
// when it has no ConfigMap yet: from the controller's in-memory copy, or
// from the API server when it has none (the LBC's multicluster_manager.go
// reads through an uncached reader backed by its configMapCache).
func (c *Controller) tracked(ctx context.Context, tgb *v1beta1.TargetGroupBinding) (map[string]bool, bool, error) {
	key := types.NamespacedName{Namespace: tgb.Namespace, Name: tgb.Name}
	if set, ok := c.trackedCache[key]; ok {
		return set, true, nil
	}
	cm := &corev1.ConfigMap{}
	cmKey := types.NamespacedName{Namespace: tgb.Namespace, Name: TrackedTargetsPrefix + tgb.Name}
	if err := c.o.Client.Get(ctx, cmKey, cm); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("get configmap %s: %w", cmKey, err)
	}
	set := map[string]bool{}
	for _, id := range strings.Split(cm.Data[TrackedTargetsKey], ",") {
		if id = strings.TrimSpace(id); id != "" {
			set[id] = true
		}
	}
	c.trackedCache[key] = set
	return set, true, nil
}

// filterOwned keeps the targets the binding may deregister. In default mode
// that is every one. In multi-cluster mode it is those in the ConfigMap;
// without a ConfigMap (the first reconcile) none, and the ConfigMap needs
// writing.
func (c *Controller) filterOwned(ctx context.Context, tgb *v1beta1.TargetGroupBinding, ts []elbv2types.TargetHealthDescription) ([]elbv2types.TargetHealthDescription, bool, error) {
	if !tgb.Spec.MultiClusterTargetGroup {
		return ts, false, nil
	}
	set, ok, err := c.tracked(ctx, tgb)
	if err != nil {
		return nil, false, err
	}
	if !ok {
		c.event("InitialTracking", "targetgroupbinding/"+tgb.Namespace+"/"+tgb.Name, "no ConfigMap yet: no target is deregistered on this reconcile")
		return nil, true, nil
	}
	var out []elbv2types.TargetHealthDescription
	for _, t := range ts {
		if set[targetID(t)] {
			out = append(out, t)
		}
	}
	return out, false, nil
}

// track records the endpoints in the multi-cluster ConfigMap when update
// is set, or when the controller holds no copy of it (a new binding, or a
// restarted controller). Default-mode bindings keep none. As the LBC's
// UpdateTrackedIPTargets and persistConfigMap do
// (pkg/targetgroupbinding/multicluster_manager.go): the targets are
// written in no particular order (a Go map's, there; a seeded shuffle,
// here), and the ConfigMap is updated first and created only when the
// update finds none. Readers must not depend on the order, nor on the
// ConfigMap existing before the first registration.
func (c *Controller) track(ctx context.Context, tgb *v1beta1.TargetGroupBinding, eps []endpoint, update bool) error {
	if !tgb.Spec.MultiClusterTargetGroup {
		return nil
	}
	key := types.NamespacedName{Namespace: tgb.Namespace, Name: tgb.Name}
	if _, ok := c.trackedCache[key]; ok && !update {
		return nil
	}
	ids := epIDs(eps)
	c.rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: tgb.Namespace, Name: TrackedTargetsPrefix + tgb.Name},
		Data:       map[string]string{TrackedTargetsKey: strings.Join(ids, ",")},
	}
	err := c.o.Client.Update(ctx, cm)
	if apierrors.IsNotFound(err) {
		cm.ResourceVersion = ""
		err = c.o.Client.Create(ctx, cm)
	}
	if err != nil {
		return fmt.Errorf("write configmap %s/%s: %w", cm.Namespace, cm.Name, err)
	}
	set := make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	c.trackedCache[key] = set
	return nil
}
