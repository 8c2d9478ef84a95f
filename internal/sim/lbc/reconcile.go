package lbc

// reconcile.go: the TargetGroupBinding reconcile: register, deregister,
// checkpoint, readiness gates, finalizer, events.

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// Result says when to reconcile a binding again; zero: only on a change.
type Result struct {
	// RequeueAfter is the delay before the next reconcile; zero: none.
	RequeueAfter time.Duration
}

// Reconcile runs one reconcile of a binding, as the LBC does in ip mode
// (controllers/elbv2/targetgroupbinding_controller.go,
// reconcileTargetGroupBinding; pkg/targetgroupbinding/resource_manager.go,
// reconcileWithIPTargetType):
//
//  1. add the finalizer (a failure: event FailedAddFinalizer);
//  2. resolve the pod endpoints from the Service's EndpointSlices (a
//     missing Service or port: BackendNotFound, and the target group is
//     cleaned up);
//  3. skip when the checkpoint (hash of endpoints and spec) is unchanged
//     and no gated pod has its condition written but not True; a skipped
//     binding the controller has not fully reconciled since it started is
//     handed to the deferred reconciler, which resets its checkpoint 30 to
//     45 minutes later;
//  4. list the targets through the targets cache and drop the draining
//     ones; diff on IP:port;
//  5. reconcile the security-group rules (EC2; a failure: event
//     FailedNetworkReconcile, and a requeue, but the reconcile goes on);
//  6. reset the checkpoint when anything is to change;
//  7. DEREGISTER the unmatched targets (in multiClusterTargetGroup mode,
//     only those recorded in the ConfigMap; none on the first reconcile),
//     then, having recorded the endpoints in the ConfigMap (multi-cluster
//     mode), read the VPC (EC2 DescribeVpcs) and REGISTER the missing
//     endpoints, in batches of BatchSize;
//  8. set each gated pod's readiness-gate condition from its target's
//     health, and requeue after RequeueAfter while one is not healthy (or
//     the network step failed);
//  9. otherwise save the checkpoint, update the status and record the
//     event SuccessfullyReconciled.
//
// A failure other than a requeue records the Warning event FailedReconcile
// ("Failed reconcile due to ...") and is retried with backoff; the
// checkpoint is not saved.
//
// A binding being deleted is finalized: what it owns is deregistered (every
// target in default mode, the recorded ones in multi-cluster mode), its
// gated pods are released, its ConfigMap and finalizer are removed.
func (c *Controller) Reconcile(ctx context.Context, key types.NamespacedName) (Result, error) {
	c.stats.Reconciles++
	tgb := &v1beta1.TargetGroupBinding{}
	if err := c.o.Client.Get(ctx, key, tgb); err != nil {
		if apierrors.IsNotFound(err) {
			delete(c.services, key)
			return Result{}, nil
		}
		return Result{}, fmt.Errorf("lbc: get targetgroupbinding %s: %w", key, err)
	}
	if !tgb.DeletionTimestamp.IsZero() {
		if err := c.finalize(ctx, tgb); err != nil {
			c.recordEvent(ctx, tgb, corev1.EventTypeWarning, EventFailedCleanup, "Failed cleanup due to "+err.Error())
			return Result{}, err
		}
		return Result{}, nil
	}
	c.services[key] = types.NamespacedName{Namespace: tgb.Namespace, Name: tgb.Spec.ServiceRef.Name}
	if !controllerutil.ContainsFinalizer(tgb, Finalizer) {
		controllerutil.AddFinalizer(tgb, Finalizer)
		if err := c.o.Client.Update(ctx, tgb); err != nil {
			c.recordEvent(ctx, tgb, corev1.EventTypeWarning, EventFailedAddFinalizer, "Failed add finalizer due to "+err.Error())
			return Result{}, fmt.Errorf("lbc: add finalizer to %s: %w", key, err)
		}
	}
	if tgb.Spec.TargetType == nil {
		err := fmt.Errorf("targetType is not specified: %s", key)
		c.recordEvent(ctx, tgb, corev1.EventTypeWarning, EventFailedReconcile, "Failed reconcile due to "+err.Error())
		return Result{}, fmt.Errorf("lbc: %w", err)
	}
	if *tgb.Spec.TargetType != v1beta1.TargetTypeIP {
		c.event("Unsupported", "targetgroupbinding/"+key.String(), "targetType %s is not modelled by the stand-in; nothing reconciled", *tgb.Spec.TargetType)
		return Result{}, nil
	}
	res, deferred, err := c.reconcileIP(ctx, tgb)
	if errors.Is(err, errCrashed) {
		return Result{}, err
	}
	if err != nil {
		c.recordEvent(ctx, tgb, corev1.EventTypeWarning, EventFailedReconcile, "Failed reconcile due to "+err.Error())
		return Result{}, fmt.Errorf("lbc: reconcile %s: %w", key, err)
	}
	if res.RequeueAfter > 0 {
		return res, nil
	}
	if deferred {
		c.stats.Skipped++
		c.deferReset(key)
		return Result{}, nil
	}
	c.markProcessed(key)
	if tgb.Status.ObservedGeneration == nil || *tgb.Status.ObservedGeneration != tgb.Generation {
		g := tgb.Generation
		tgb.Status.ObservedGeneration = &g
		if err := c.o.Client.Status().Update(ctx, tgb); err != nil && !apierrors.IsConflict(err) {
			c.recordEvent(ctx, tgb, corev1.EventTypeWarning, EventFailedUpdateStatus, "Failed update status due to "+err.Error())
			return Result{}, fmt.Errorf("lbc: status of %s: %w", key, err)
		}
	}
	c.recordEvent(ctx, tgb, corev1.EventTypeNormal, EventSuccessfullyReconciled, "Successfully reconciled")
	return Result{}, nil
}

// reconcileIP is steps 2 to 9 of [Controller.Reconcile] up to the
// checkpoint; deferred reports a skip.
func (c *Controller) reconcileIP(ctx context.Context, tgb *v1beta1.TargetGroupBinding) (res Result, deferred bool, err error) {
	obj := "targetgroupbinding/" + tgb.Namespace + "/" + tgb.Name
	eps, err := c.resolveEndpoints(ctx, tgb)
	if errors.Is(err, ErrBackendNotFound) {
		c.recordEvent(ctx, tgb, corev1.EventTypeWarning, EventBackendNotFound, err.Error())
		return Result{}, false, c.cleanupTargets(ctx, tgb)
	}
	if err != nil {
		return Result{}, false, err
	}
	newCP, err := checkpoint(eps, tgb)
	if err != nil {
		return Result{}, false, err
	}
	gate := gateType(tgb)
	if tgb.Annotations[AnnotationCheckpoint] == newCP && !needGateFlip(eps, gate) {
		return Result{}, true, nil
	}
	arn := tgb.Spec.TargetGroupARN
	targets, err := c.listTargets(ctx, arn)
	if err != nil {
		return Result{}, false, err
	}
	var notDraining []elbv2types.TargetHealthDescription
	for _, t := range targets {
		if !draining(t) {
			notDraining = append(notDraining, t)
		}
	}
	matched, unmatchedEps, unmatchedTargets := match(eps, notDraining)
	networkRequeue := false
	if err := c.reconcileNetwork(ctx, tgb, eps); err != nil {
		c.recordEvent(ctx, tgb, corev1.EventTypeWarning, EventFailedNetworkReconcile, err.Error())
		networkRequeue = true
	}
	preflight := false
	for _, m := range matched {
		if m.ep.pod != nil && hasGate(m.ep.pod, gate) && healthState(m.target) != elbv2types.TargetHealthStateEnumHealthy {
			preflight = true
		}
	}
	if len(unmatchedEps) > 0 || len(unmatchedTargets) > 0 || networkRequeue || preflight {
		// Any change resets the checkpoint first, so an interrupted
		// reconcile is redone in full.
		if err := c.saveCheckpoint(ctx, tgb, ""); err != nil {
			return Result{}, false, err
		}
	}
	updateTracked := false
	if len(unmatchedTargets) > 0 {
		if updateTracked, err = c.deregister(ctx, tgb, unmatchedTargets); err != nil {
			return Result{}, false, err
		}
	}
	if len(unmatchedEps) > 0 {
		updateTracked = false
		// The ConfigMap is written before RegisterTargets, so a
		// registration whose answer is lost is still tracked.
		if err := c.track(ctx, tgb, eps, true); err != nil {
			return Result{}, false, err
		}
		if c.crashAt(CrashBeforeRegister, types.NamespacedName{Namespace: tgb.Namespace, Name: tgb.Name}) {
			return Result{}, false, errCrashed
		}
		if err := c.register(ctx, tgb, unmatchedEps); err != nil {
			return Result{}, false, err
		}
		c.event("Registered", obj, "%d targets: %s", len(unmatchedEps), summary(epIDs(unmatchedEps)))
	}
	if err := c.track(ctx, tgb, eps, updateTracked); err != nil {
		return Result{}, false, err
	}
	probe, err := c.updateGates(ctx, tgb, matched, unmatchedEps)
	if err != nil {
		return Result{}, false, err
	}
	if probe || networkRequeue {
		return Result{RequeueAfter: c.o.RequeueAfter}, false, nil
	}
	return Result{}, false, c.saveCheckpoint(ctx, tgb, newCP)
}

// needGateFlip reports whether a pod has the binding's readiness-gate
// condition written but not True (needReadinessGateFlip): such a binding
// is not skipped even when its checkpoint matches.
func needGateFlip(eps []endpoint, gate corev1.PodConditionType) bool {
	for _, e := range eps {
		if c, ok := podCondition(e.pod, gate); ok && c.Status != corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// draining is the LBC's IsDraining (targets_manager_types.go): state
// draining or unhealthy.draining.
func draining(t elbv2types.TargetHealthDescription) bool {
	if t.TargetHealth == nil {
		return false
	}
	return t.TargetHealth.State == elbv2types.TargetHealthStateEnumDraining ||
		t.TargetHealth.State == elbv2types.TargetHealthStateEnumUnhealthyDraining
}

type pair struct {
	ep     endpoint
	target elbv2types.TargetHealthDescription
}

func targetID(t elbv2types.TargetHealthDescription) string {
	return aws.ToString(t.Target.Id) + ":" + strconv.Itoa(int(aws.ToInt32(t.Target.Port)))
}

func healthState(t elbv2types.TargetHealthDescription) elbv2types.TargetHealthStateEnum {
	if t.TargetHealth == nil {
		return ""
	}
	return t.TargetHealth.State
}

// match diffs endpoints and targets on IP:port.
func match(eps []endpoint, targets []elbv2types.TargetHealthDescription) (matched []pair, unmatchedEps []endpoint, unmatchedTargets []elbv2types.TargetHealthDescription) {
	byID := map[string]elbv2types.TargetHealthDescription{}
	for _, t := range targets {
		byID[targetID(t)] = t
	}
	want := map[string]bool{}
	for _, e := range eps {
		want[e.id()] = true
		if t, ok := byID[e.id()]; ok {
			matched = append(matched, pair{ep: e, target: t})
		} else {
			unmatchedEps = append(unmatchedEps, e)
		}
	}
	for _, t := range targets {
		if !want[targetID(t)] {
			unmatchedTargets = append(unmatchedTargets, t)
		}
	}
	sort.Slice(unmatchedEps, func(i, j int) bool { return unmatchedEps[i].id() < unmatchedEps[j].id() })
	sort.Slice(unmatchedTargets, func(i, j int) bool { return targetID(unmatchedTargets[i]) < targetID(unmatchedTargets[j]) })
	return matched, unmatchedEps, unmatchedTargets
}

// deregister deregisters the targets the binding owns among ts: all of them
// in default mode; in multi-cluster mode only those recorded in its
// ConfigMap, and none when there is no ConfigMap yet. It reports whether
// the ConfigMap needs writing.
func (c *Controller) deregister(ctx context.Context, tgb *v1beta1.TargetGroupBinding, ts []elbv2types.TargetHealthDescription) (bool, error) {
	owned, updateTracked, err := c.filterOwned(ctx, tgb, ts)
	if err != nil {
		return false, err
	}
	if len(owned) == 0 {
		return updateTracked, nil
	}
	var ids []string
	targets := make([]elbv2types.TargetDescription, 0, len(owned))
	for _, t := range owned {
		targets = append(targets, *t.Target)
		ids = append(ids, targetID(t))
	}
	arn := tgb.Spec.TargetGroupARN
	for chunk := range slices.Chunk(targets, c.o.BatchSize) {
		if _, err := c.o.ELBv2.DeregisterTargets(ctx, &elbv2.DeregisterTargetsInput{TargetGroupArn: aws.String(arn), Targets: chunk}); err != nil {
			return false, fmt.Errorf("deregister targets from %s: %w", arn, err)
		}
		c.recordDeregistered(arn, chunk)
		c.stats.Deregistered += len(chunk)
	}
	c.event("Deregistered", "targetgroupbinding/"+tgb.Namespace+"/"+tgb.Name, "%d targets: %s", len(ids), summary(ids))
	return true, nil
}

// register registers the endpoints, in batches. It reads the VPC first
// (EC2 DescribeVpcs, for the targets' Availability Zone: a pod IP outside
// the VPC is registered with AvailabilityZone all), as the LBC's
// registerPodEndpoints does: without EC2, nothing is registered.
func (c *Controller) register(ctx context.Context, tgb *v1beta1.TargetGroupBinding, eps []endpoint) error {
	arn := tgb.Spec.TargetGroupARN
	if err := c.readVPC(ctx, tgb); err != nil {
		return err
	}
	targets := make([]elbv2types.TargetDescription, 0, len(eps))
	for _, e := range eps {
		targets = append(targets, elbv2types.TargetDescription{Id: aws.String(e.ip), Port: aws.Int32(e.port)})
	}
	for chunk := range slices.Chunk(targets, c.o.BatchSize) {
		if _, err := c.o.ELBv2.RegisterTargets(ctx, &elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(arn), Targets: chunk}); err != nil {
			return fmt.Errorf("register targets in %s: %w", arn, err)
		}
		c.recordRegistered(arn, chunk)
		c.stats.Registered += len(chunk)
	}
	return nil
}

func epIDs(eps []endpoint) []string {
	out := make([]string, 0, len(eps))
	for _, e := range eps {
		out = append(out, e.id())
	}
	return out
}

// summary lists up to 4 IDs for the event log.
func summary(ids []string) string {
	if len(ids) <= 4 {
		return strings.Join(ids, " ")
	}
	return strings.Join(ids[:4], " ") + fmt.Sprintf(" and %d more", len(ids)-4)
}

// checkpoint hashes the endpoints and the spec, as the LBC's checkpoint
// annotation does (calculateTGBReconcileCheckpoint in
// pkg/targetgroupbinding/utils.go): each endpoint as IP:port:<its pod's
// creation time in Unix milliseconds>, sorted; the spec as JSON; each
// SHA-256, base64url, joined by "/".
func checkpoint(eps []endpoint, tgb *v1beta1.TargetGroupBinding) (string, error) {
	ids := make([]string, 0, len(eps))
	for _, e := range eps {
		ids = append(ids, e.id()+":"+strconv.FormatInt(e.pod.CreationTimestamp.UnixMilli(), 10))
	}
	sort.Strings(ids)
	spec, err := json.Marshal(tgb.Spec)
	if err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	a := sha256.Sum256([]byte(strings.Join(ids, ",")))
	b := sha256.Sum256(spec)
	return base64.RawURLEncoding.EncodeToString(a[:]) + "/" + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

func (c *Controller) saveCheckpoint(ctx context.Context, tgb *v1beta1.TargetGroupBinding, cp string) error {
	if tgb.Annotations[AnnotationCheckpoint] == cp {
		return nil
	}
	old := tgb.DeepCopy()
	if tgb.Annotations == nil {
		tgb.Annotations = map[string]string{}
	}
	tgb.Annotations[AnnotationCheckpoint] = cp
	tgb.Annotations[AnnotationCheckpointTimestamp] = strconv.FormatInt(c.o.Clock.Now().Unix(), 10)
	if err := c.o.Client.Patch(ctx, tgb, client.MergeFrom(old)); err != nil {
		return fmt.Errorf("save checkpoint: %w", err)
	}
	return nil
}

// updateGates sets the readiness-gate condition of the gated pods from
// their targets' health; registered endpoints are initial. It reports
// whether a gated pod is not healthy yet.
func (c *Controller) updateGates(ctx context.Context, tgb *v1beta1.TargetGroupBinding, matched []pair, registered []endpoint) (bool, error) {
	probe := false
	for _, m := range matched {
		need, err := c.setGate(ctx, tgb, m.ep.pod, m.target.TargetHealth)
		if err != nil {
			return false, err
		}
		probe = probe || need
	}
	for _, e := range registered {
		need, err := c.setGate(ctx, tgb, e.pod, &elbv2types.TargetHealth{
			State: elbv2types.TargetHealthStateEnumInitial, Reason: elbv2types.TargetHealthReasonEnumRegistrationInProgress,
			Description: aws.String("Target registration is in progress"),
		})
		if err != nil {
			return false, err
		}
		probe = probe || need
	}
	return probe, nil
}

func (c *Controller) setGate(ctx context.Context, tgb *v1beta1.TargetGroupBinding, pod *corev1.Pod, h *elbv2types.TargetHealth) (bool, error) {
	gate := gateType(tgb)
	if pod == nil || !hasGate(pod, gate) {
		return false, nil
	}
	status, reason, msg := corev1.ConditionUnknown, "", ""
	if h != nil {
		status = corev1.ConditionFalse
		if h.State == elbv2types.TargetHealthStateEnumHealthy {
			status = corev1.ConditionTrue
		}
		reason, msg = string(h.Reason), aws.ToString(h.Description)
	}
	need := status != corev1.ConditionTrue
	if cur, ok := podCondition(pod, gate); ok && cur.Status == status && cur.Reason == reason && cur.Message == msg {
		return need, nil
	}
	for range 3 {
		fresh := &corev1.Pod{}
		if err := c.o.Client.Get(ctx, client.ObjectKeyFromObject(pod), fresh); err != nil {
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			return false, fmt.Errorf("get pod %s/%s: %w", pod.Namespace, pod.Name, err)
		}
		cond := corev1.PodCondition{Type: gate, Status: status, Reason: reason, Message: msg, LastTransitionTime: metav1.NewTime(c.o.Clock.Now())}
		i := slices.IndexFunc(fresh.Status.Conditions, func(pc corev1.PodCondition) bool { return pc.Type == gate })
		if i >= 0 {
			if fresh.Status.Conditions[i].Status == status {
				cond.LastTransitionTime = fresh.Status.Conditions[i].LastTransitionTime
			}
			fresh.Status.Conditions[i] = cond
		} else {
			fresh.Status.Conditions = append(fresh.Status.Conditions, cond)
		}
		err := c.o.Client.Status().Update(ctx, fresh)
		if err == nil {
			c.pods[client.ObjectKeyFromObject(fresh)] = fresh
			break
		}
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if !apierrors.IsConflict(err) {
			return false, fmt.Errorf("set readiness gate of pod %s/%s: %w", pod.Namespace, pod.Name, err)
		}
	}
	return need, nil
}

// cleanupTargets deregisters what the binding owns and releases its gated
// pods; a missing target group is not an error.
func (c *Controller) cleanupTargets(ctx context.Context, tgb *v1beta1.TargetGroupBinding) error {
	targets, err := c.listTargets(ctx, tgb.Spec.TargetGroupARN)
	if err != nil {
		var nf *elbv2types.TargetGroupNotFoundException
		if errors.As(err, &nf) {
			return nil
		}
		return err
	}
	if _, err := c.deregister(ctx, tgb, targets); err != nil {
		var nf *elbv2types.TargetGroupNotFoundException
		if errors.As(err, &nf) {
			return nil
		}
		return err
	}
	return c.releasePods(ctx, tgb)
}

// releasePods sets the gate of the binding's gated pods True, as the LBC
// does when the binding goes, so they do not stay unready for ever.
func (c *Controller) releasePods(ctx context.Context, tgb *v1beta1.TargetGroupBinding) error {
	var pods corev1.PodList
	if err := c.o.Client.List(ctx, &pods, client.InNamespace(tgb.Namespace)); err != nil {
		return fmt.Errorf("list pods: %w", err)
	}
	for i := range pods.Items {
		h := &elbv2types.TargetHealth{State: elbv2types.TargetHealthStateEnumHealthy, Description: aws.String("Target Group Binding is deleted")}
		if _, err := c.setGate(ctx, tgb, &pods.Items[i], h); err != nil {
			return err
		}
	}
	return nil
}

func (c *Controller) finalize(ctx context.Context, tgb *v1beta1.TargetGroupBinding) error {
	key := types.NamespacedName{Namespace: tgb.Namespace, Name: tgb.Name}
	if !controllerutil.ContainsFinalizer(tgb, Finalizer) {
		delete(c.services, key)
		return nil
	}
	if err := c.cleanupTargets(ctx, tgb); err != nil {
		return fmt.Errorf("lbc: clean up %s: %w", key, err)
	}
	if tgb.Spec.MultiClusterTargetGroup {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: tgb.Namespace, Name: TrackedTargetsPrefix + tgb.Name}}
		if err := c.o.Client.Delete(ctx, cm); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("lbc: delete configmap of %s: %w", key, err)
		}
	}
	delete(c.trackedCache, key)
	// The network clean-up (networkingManager.Cleanup): the binding's
	// rules go; with EC2 refusing, the finalizer stays.
	if err := c.cleanupNetwork(ctx, tgb); err != nil {
		return fmt.Errorf("lbc: clean up the network of %s: %w", key, err)
	}
	controllerutil.RemoveFinalizer(tgb, Finalizer)
	if err := c.o.Client.Update(ctx, tgb); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("lbc: remove finalizer of %s: %w", key, err)
	}
	delete(c.services, key)
	c.event("Finalized", "targetgroupbinding/"+key.String(), "finalizer removed")
	return nil
}

// recordEvent records a Kubernetes Event on the binding, as the LBC's
// event recorder does, and puts it in the world's event log. As client-go's
// event correlator does, a repeat of the newest event of the binding (same
// type, reason and message) bumps its count and last timestamp instead of
// adding an Event.
func (c *Controller) recordEvent(ctx context.Context, tgb *v1beta1.TargetGroupBinding, typ, reason, msg string) {
	obj := "targetgroupbinding/" + tgb.Namespace + "/" + tgb.Name
	c.event(reason, obj, "%s", msg)
	now := metav1.NewTime(c.o.Clock.Now())
	k := eventKey{uid: tgb.UID, typ: typ, reason: reason, msg: msg}
	if name, ok := c.lastEvent[tgb.UID]; ok && name.key == k {
		ev := &corev1.Event{}
		if err := c.o.Client.Get(ctx, types.NamespacedName{Namespace: tgb.Namespace, Name: name.name}, ev); err == nil {
			ev.Count++
			ev.LastTimestamp = now
			if err := c.o.Client.Update(ctx, ev); err == nil {
				return
			}
		}
	}
	c.events++
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Namespace: tgb.Namespace, Name: fmt.Sprintf("%s.%x", tgb.Name, now.UnixNano()+int64(c.events))},
		InvolvedObject: corev1.ObjectReference{
			APIVersion: v1beta1.GroupVersion.String(), Kind: v1beta1.Kind,
			Namespace: tgb.Namespace, Name: tgb.Name, UID: tgb.UID, ResourceVersion: tgb.ResourceVersion,
		},
		Reason: reason, Message: msg, Type: typ, Count: 1,
		FirstTimestamp: now, LastTimestamp: now,
		Source:              corev1.EventSource{Component: "targetGroupBinding"},
		ReportingController: "targetGroupBinding",
	}
	if err := c.o.Client.Create(ctx, ev); err != nil {
		c.event("Error", obj, "record event: %v", err)
		return
	}
	c.lastEvent[tgb.UID] = recordedEvent{key: k, name: ev.Name}
}

// eventKey is what makes two events the same for aggregation.
type eventKey struct {
	uid              types.UID
	typ, reason, msg string
}

type recordedEvent struct {
	key  eventKey
	name string
}
