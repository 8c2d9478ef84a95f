package lbc

import (
	"context"
	"fmt"
	"sort"
	"strings"

	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// tracked reads the targets a multi-cluster binding recorded, and false
// when it has no ConfigMap yet.
func (c *Controller) tracked(ctx context.Context, tgb *v1beta1.TargetGroupBinding) (map[string]bool, bool, error) {
	cm := &corev1.ConfigMap{}
	key := types.NamespacedName{Namespace: tgb.Namespace, Name: TrackedTargetsPrefix + tgb.Name}
	if err := c.o.Client.Get(ctx, key, cm); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("get configmap %s: %w", key, err)
	}
	set := map[string]bool{}
	for _, id := range strings.Split(cm.Data[TrackedTargetsKey], ",") {
		if id = strings.TrimSpace(id); id != "" {
			set[id] = true
		}
	}
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

// track records the endpoints in the multi-cluster ConfigMap when update is
// set, or when there is no ConfigMap yet. Default-mode bindings keep none.
func (c *Controller) track(ctx context.Context, tgb *v1beta1.TargetGroupBinding, eps []endpoint, update bool) error {
	if !tgb.Spec.MultiClusterTargetGroup {
		return nil
	}
	cm := &corev1.ConfigMap{}
	key := types.NamespacedName{Namespace: tgb.Namespace, Name: TrackedTargetsPrefix + tgb.Name}
	err := c.o.Client.Get(ctx, key, cm)
	exists := err == nil
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("get configmap %s: %w", key, err)
	}
	if exists && !update {
		return nil
	}
	ids := epIDs(eps)
	sort.Strings(ids)
	data := map[string]string{TrackedTargetsKey: strings.Join(ids, ",")}
	if exists {
		cm.Data = data
		if err := c.o.Client.Update(ctx, cm); err != nil {
			return fmt.Errorf("update configmap %s: %w", key, err)
		}
		return nil
	}
	cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}, Data: data}
	if err := c.o.Client.Create(ctx, cm); err != nil {
		return fmt.Errorf("create configmap %s: %w", key, err)
	}
	return nil
}
