package cluster

// disruption.go: PodDisruptionBudgets: their status and the eviction check.

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func (cl *Cluster) createPDB(ctx context.Context, wl *workload) error {
	w := wl.spec
	obj := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: w.Name, Namespace: w.Namespace},
		Spec: policyv1.PodDisruptionBudgetSpec{
			Selector:       &metav1.LabelSelector{MatchLabels: w.Labels},
			MinAvailable:   w.PDB.MinAvailable,
			MaxUnavailable: w.PDB.MaxUnavailable,
		},
	}
	if err := cl.c.Create(ctx, obj); err != nil {
		return fmt.Errorf("cluster: create pdb %s/%s: %w", w.Namespace, w.Name, err)
	}
	cl.loadPDB(ctx, types.NamespacedName{Namespace: w.Namespace, Name: w.Name})
	return nil
}

// loadPDB reads a PodDisruptionBudget from the API into the model, as the
// disruption controller's informer would.
func (cl *Cluster) loadPDB(ctx context.Context, key types.NamespacedName) {
	obj := &policyv1.PodDisruptionBudget{}
	err := cl.c.Get(ctx, key, obj)
	if apierrors.IsNotFound(err) || (err == nil && !obj.DeletionTimestamp.IsZero()) {
		delete(cl.pdbs, key)
		return
	}
	if err != nil {
		cl.event("Error", "pdb/"+key.String(), "get: %v", err)
		return
	}
	sel, err := metav1.LabelSelectorAsSelector(obj.Spec.Selector)
	if err != nil {
		cl.event("Error", "pdb/"+key.String(), "selector: %v", err)
		delete(cl.pdbs, key)
		return
	}
	cl.pdbs[key] = &pdb{key: key, generation: obj.Generation, selector: sel, minAvailable: obj.Spec.MinAvailable, maxUnavailable: obj.Spec.MaxUnavailable}
	cl.requestPDBSync(key)
}

// pdbCounts computes a budget's counts as the disruption controller does:
// expected pods (the selected pods for an integer minAvailable, else the
// replica counts of their workloads), healthy pods (Ready and not being
// deleted), the desired healthy count and the disruptions allowed.
func (cl *Cluster) pdbCounts(d *pdb) (expected, healthy, desired, allowed int32) {
	var selected int32
	wls := map[*workload]bool{}
	for _, p := range cl.sortedPods() {
		if p.key.Namespace != d.key.Namespace || !d.selector.Matches(labelsOf(p.labels)) {
			continue
		}
		selected++
		wls[p.w] = true
		if p.phase != podTerminating && p.ready() {
			healthy++
		}
	}
	var scale int32
	for w := range wls {
		scale += int32(w.spec.Replicas)
	}
	switch {
	case d.minAvailable != nil && d.minAvailable.Type == intstr.Int:
		expected = selected
		desired = d.minAvailable.IntVal
	case d.minAvailable != nil:
		expected = scale
		v, _ := intstr.GetScaledValueFromIntOrPercent(d.minAvailable, int(scale), true)
		desired = int32(v)
	case d.maxUnavailable != nil:
		expected = scale
		v, _ := intstr.GetScaledValueFromIntOrPercent(d.maxUnavailable, int(scale), true)
		desired = max(0, scale-int32(v))
	}
	allowed = max(0, healthy-desired)
	return expected, healthy, desired, allowed
}

func (cl *Cluster) requestPDBSync(key types.NamespacedName) {
	if cl.pdbSyncs[key] {
		return
	}
	cl.pdbSyncs[key] = true
	cl.clock.AfterEvent(0, "disruption "+key.String(), func(time.Time) {
		delete(cl.pdbSyncs, key)
		cl.writePDBStatus(cl.ctx(), key)
	})
}

// writePDBStatus is the disruption controller: it writes the budget's
// status, which a real API server's Eviction API reads.
func (cl *Cluster) writePDBStatus(ctx context.Context, key types.NamespacedName) {
	d := cl.pdbs[key]
	if d == nil {
		return
	}
	expected, healthy, desired, allowed := cl.pdbCounts(d)
	var err error
	for range 3 {
		obj := &policyv1.PodDisruptionBudget{}
		if err = cl.c.Get(ctx, key, obj); err != nil {
			if apierrors.IsNotFound(err) {
				return
			}
			break
		}
		st := obj.Status.DeepCopy()
		st.ObservedGeneration = obj.Generation
		st.ExpectedPods, st.CurrentHealthy, st.DesiredHealthy, st.DisruptionsAllowed = expected, healthy, desired, allowed
		// Pods the Eviction API recorded as disrupted are dropped once the
		// model sees them terminating.
		for name := range st.DisruptedPods {
			if p := cl.pods[types.NamespacedName{Namespace: key.Namespace, Name: name}]; p == nil || p.phase == podTerminating {
				delete(st.DisruptedPods, name)
			}
		}
		c := metav1.Condition{Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionTrue, Reason: policyv1.SufficientPodsReason, ObservedGeneration: obj.Generation, LastTransitionTime: metav1.NewTime(cl.now())}
		if allowed == 0 {
			c.Status, c.Reason = metav1.ConditionFalse, policyv1.InsufficientPodsReason
		}
		meta.SetStatusCondition(&st.Conditions, c)
		if equality.Semantic.DeepEqual(*st, obj.Status) {
			return
		}
		obj.Status = *st
		if err = cl.c.Status().Update(ctx, obj); err == nil || !apierrors.IsConflict(err) {
			break
		}
	}
	if err != nil {
		cl.event("Error", "pdb/"+key.String(), "status: %v", err)
	}
}

// checkEviction applies the Eviction API's rules: a pod that has not
// started is evicted freely; a pod covered by more than one budget is
// refused; an unhealthy pod is evicted if the budget is met
// (unhealthyPodEvictionPolicy IfHealthyBudget); a healthy pod needs a
// disruption allowed.
func (cl *Cluster) checkEviction(p *pod) error {
	if !p.started {
		return nil
	}
	var match []*pdb
	for _, d := range cl.sortedPDBs() {
		if d.key.Namespace == p.key.Namespace && d.selector.Matches(labelsOf(p.labels)) {
			match = append(match, d)
		}
	}
	switch len(match) {
	case 0:
		return nil
	case 1:
	default:
		return &EvictionError{Pod: p.key.String(), Reason: "this pod has more than one PodDisruptionBudget, which the eviction subresource does not support"}
	}
	d := match[0]
	_, healthy, desired, allowed := cl.pdbCounts(d)
	if !p.ready() {
		if healthy >= desired {
			return nil
		}
		return &EvictionError{Pod: p.key.String(), PDB: d.key.Name, Reason: fmt.Sprintf("cannot evict an unhealthy pod: %d healthy, %d needed", healthy, desired)}
	}
	if allowed <= 0 {
		return &EvictionError{Pod: p.key.String(), PDB: d.key.Name, Reason: fmt.Sprintf("cannot evict pod as it would violate the pod's disruption budget (%d healthy, %d needed)", healthy, desired)}
	}
	return nil
}

// observe reacts to the writes of others, as the cluster's controllers'
// informers would.
func (cl *Cluster) observe(ch Change) {
	if ch.Origin == Origin {
		return
	}
	ctx := cl.ctx()
	switch ch.Kind {
	case "Pod":
		if ch.Key.Name == "" {
			for _, p := range cl.sortedPods() {
				if ch.Key.Namespace == "" || p.key.Namespace == ch.Key.Namespace {
					cl.observePod(ctx, p)
				}
			}
			return
		}
		if p := cl.pods[ch.Key]; p != nil {
			cl.observePod(ctx, p)
		}
	case "Service":
		if ch.Key.Name == "" {
			for _, s := range cl.sortedServices() {
				if s.key.Namespace == ch.Key.Namespace || ch.Key.Namespace == "" {
					cl.loadService(ctx, s.key)
				}
			}
			return
		}
		cl.loadService(ctx, ch.Key)
	case "PodDisruptionBudget":
		if ch.Key.Name == "" {
			for _, d := range cl.sortedPDBs() {
				cl.loadPDB(ctx, d.key)
			}
			return
		}
		cl.loadPDB(ctx, ch.Key)
	}
}

// observePod re-reads a pod the cluster runs after someone else wrote it.
func (cl *Cluster) observePod(ctx context.Context, p *pod) {
	obj := &corev1.Pod{}
	err := cl.c.Get(ctx, p.key, obj)
	switch {
	case apierrors.IsNotFound(err):
		cl.kill(ctx, p, "Deleted")
	case err != nil:
		cl.event("Error", "pod/"+p.key.String(), "get: %v", err)
	case obj.UID != p.uid && p.uid != "":
		// A different pod of the same name: ours is gone.
		cl.kill(ctx, p, "Deleted")
	case !obj.DeletionTimestamp.IsZero():
		p.obj = obj
		cl.startTermination(p, "Deleted")
	default:
		p.obj = obj
		cl.gatesChanged(p, obj.Status.Conditions)
	}
}
