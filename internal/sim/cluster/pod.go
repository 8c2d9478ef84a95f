package cluster

// pod.go: pods: scheduling, startup, readiness probes and gates, status,
// termination, eviction.

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/sim/timing"
)

// AnnotationDoNotDisrupt is Karpenter's opt-out of graceful disruption.
const AnnotationDoNotDisrupt = "karpenter.sh/do-not-disrupt"

// containerName is the name of the one container of a simulated pod.
const containerName = "app"

// newPod makes the model of a new pod of wl; it is not placed yet.
func (cl *Cluster) newPod(wl *workload) *pod {
	var name string
	for {
		name = wl.spec.Name + "-" + wl.hash + "-" + cl.suffix(5)
		if !cl.usedNames[wl.spec.Namespace+"/"+name] {
			break
		}
	}
	cl.usedNames[wl.spec.Namespace+"/"+name] = true
	p := &pod{
		key:    types.NamespacedName{Namespace: wl.spec.Namespace, Name: name},
		w:      wl,
		labels: maps.Clone(wl.spec.Labels),
		gateOK: map[corev1.PodConditionType]bool{},
		seq:    cl.podSeq,
	}
	p.labels["pod-template-hash"] = wl.hash
	cl.podSeq++
	wl.pods = append(wl.pods, p)
	return p
}

// pickNode is the scheduler: the schedulable node with room and the fewest
// pods; among equals, the one launched first.
func (cl *Cluster) pickNode() *node {
	count := map[*node]int{}
	for _, p := range cl.pods {
		count[p.node]++
	}
	var best *node
	for _, n := range cl.sortedNodes() {
		if !n.schedulable() || count[n] >= cl.o.MaxPodsPerNode {
			continue
		}
		if best == nil || count[n] < count[best] {
			best = n
		}
	}
	return best
}

// schedule places p on a node now, or holds it until a node is Ready. A
// pod the Fargate profile selects gets a Fargate node of its own.
func (cl *Cluster) schedule(p *pod) {
	if cl.onFargate(p) {
		if err := cl.placeFargate(cl.ctx(), p, false); err != nil {
			cl.placeFailed(p, err)
		}
		return
	}
	n := cl.pickNode()
	if n == nil {
		if !slices.Contains(cl.pending, p) {
			cl.pending = append(cl.pending, p)
			cl.event("FailedScheduling", "pod/"+p.key.String(), "no schedulable node with room; waiting")
		}
		return
	}
	cl.pending = slices.DeleteFunc(cl.pending, func(q *pod) bool { return q == p })
	if err := cl.place(cl.ctx(), p, n, false); err != nil {
		cl.placeFailed(p, err)
	}
}

// placeFailed forgets a pod that could not be placed and has its
// ReplicaSet try again a second later.
func (cl *Cluster) placeFailed(p *pod, err error) {
	cl.event("Error", "pod/"+p.key.String(), "%v", err)
	cl.forget(p)
	cl.clock.AfterEvent(time.Second, "replenish "+p.w.spec.Name, func(time.Time) { cl.replenish(p.w) })
}

func (cl *Cluster) schedulePending() {
	for _, p := range slices.Clone(cl.pending) {
		cl.schedule(p)
	}
}

// placeWarm places a pod that was already running when the scenario began.
func (cl *Cluster) placeWarm(p *pod) {
	if cl.onFargate(p) {
		if err := cl.placeFargate(cl.ctx(), p, true); err != nil {
			cl.event("Error", "pod/"+p.key.String(), "%v", err)
			cl.forget(p)
		}
		return
	}
	n := cl.pickNode()
	if n == nil {
		cl.schedule(p)
		return
	}
	if err := cl.place(cl.ctx(), p, n, true); err != nil {
		cl.event("Error", "pod/"+p.key.String(), "%v", err)
		cl.forget(p)
	}
}

// place binds p to n: it gets a new address from n's subnet (the VPC CNI),
// the admission steps run, the Pod is created with its status, and the
// lifecycle is scheduled.
func (cl *Cluster) place(ctx context.Context, p *pod, n *node, warm bool) error {
	ip, err := n.subnet.allocFor(timing.HolderPod, cl.now(), cl.o.IPReuse)
	if err != nil {
		return fmt.Errorf("cluster: place pod %s: %w", p.key, err)
	}
	return cl.placeAt(ctx, p, n, ip, warm)
}

// placeAt binds p to n with the address ip.
func (cl *Cluster) placeAt(ctx context.Context, p *pod, n *node, ip string, warm bool) error {
	p.node, p.ip, p.createdAt = n, ip, cl.now()
	obj := cl.podObject(p)
	// Admission (the hub's webhooks) may add readiness gates.
	if err := cl.c.Create(ctx, obj); err != nil {
		return fmt.Errorf("cluster: create pod %s: %w", p.key, err)
	}
	p.gates = nil
	for _, g := range obj.Spec.ReadinessGates {
		p.gates = append(p.gates, g.ConditionType)
	}
	p.uid = obj.UID
	p.obj = obj
	cl.pods[p.key] = p
	cl.own(ip, owner{p: p})
	if warm {
		p.phase, p.started, p.containersReady = podRunning, true, true
		p.startedAt, p.readyAt = p.createdAt, p.createdAt
	}
	cl.writeStatus(ctx, p)
	cl.event("PodScheduled", "pod/"+p.key.String(), "on %s ip %s%s", n.name, ip, gatesNote(p.gates))
	if !warm {
		p.timers = append(p.timers, cl.clock.AfterEvent(p.w.spec.StartupDelay, "start "+p.key.Name, func(time.Time) { cl.start(p) }))
	}
	cl.podChanged(p)
	return nil
}

func gatesNote(g []corev1.PodConditionType) string {
	if len(g) == 0 {
		return ""
	}
	return fmt.Sprintf(" readiness gates %v", g)
}

func (cl *Cluster) podObject(p *pod) *corev1.Pod {
	w := p.w.spec
	ann := map[string]string{}
	if w.DoNotDisrupt {
		ann[AnnotationDoNotDisrupt] = "true"
	}
	c := corev1.Container{
		Name:  containerName,
		Image: "registry.example.com/" + w.Name + ":1.0.0",
		Ports: []corev1.ContainerPort{{Name: w.PortName, ContainerPort: w.ContainerPort, Protocol: corev1.ProtocolTCP}},
		ReadinessProbe: &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: w.ReadinessPath, Port: intstr.FromString(w.PortName)}},
			InitialDelaySeconds: int32(w.ReadinessDelay / time.Second),
			PeriodSeconds:       5,
			SuccessThreshold:    1,
			FailureThreshold:    3,
			TimeoutSeconds:      1,
		},
		TerminationMessagePath:   corev1.TerminationMessagePathDefault,
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
		ImagePullPolicy:          corev1.PullIfNotPresent,
	}
	if w.PreStop > 0 {
		c.Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: int64(w.PreStop / time.Second)}}}
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: p.key.Name, Namespace: p.key.Namespace,
			Labels: maps.Clone(p.labels), Annotations: ann,
			Finalizers: []string{PodFinalizer},
		},
		Spec: corev1.PodSpec{
			NodeName:                      p.node.name,
			Containers:                    []corev1.Container{c},
			TerminationGracePeriodSeconds: ptr.To(int64(w.TerminationGracePeriod / time.Second)),
			RestartPolicy:                 corev1.RestartPolicyAlways,
			DNSPolicy:                     corev1.DNSClusterFirst,
			SchedulerName:                 corev1.DefaultSchedulerName,
		},
	}
}

// kubeletConditions are the pod conditions the kubelet owns; any other
// condition (a readiness gate's) is someone else's and is kept as it is.
var kubeletConditions = map[corev1.PodConditionType]bool{
	corev1.PodReadyToStartContainers: true,
	corev1.PodInitialized:            true,
	corev1.PodScheduled:              true,
	corev1.ContainersReady:           true,
	corev1.PodReady:                  true,
}

func (cl *Cluster) podStatus(p *pod, prev corev1.PodStatus) corev1.PodStatus {
	now := metav1.NewTime(cl.now())
	old := map[corev1.PodConditionType]corev1.PodCondition{}
	for _, c := range prev.Conditions {
		old[c.Type] = c
	}
	cond := func(t corev1.PodConditionType, ok bool, reason, msg string) corev1.PodCondition {
		st := corev1.ConditionFalse
		if ok {
			st, reason, msg = corev1.ConditionTrue, "", ""
		}
		c := corev1.PodCondition{Type: t, Status: st, Reason: reason, Message: msg, LastTransitionTime: now}
		if o, found := old[t]; found && o.Status == st {
			c.LastTransitionTime = o.LastTransitionTime
		}
		return c
	}
	readyReason, readyMsg := "ContainersNotReady", "containers with unready status: [app]"
	if p.containersReady && !p.ready() {
		readyReason, readyMsg = "ReadinessGatesNotReady", "the status of pod readiness gates is not \"True\""
	}
	conds := []corev1.PodCondition{
		cond(corev1.PodReadyToStartContainers, true, "", ""),
		cond(corev1.PodInitialized, true, "", ""),
		cond(corev1.PodReady, p.ready(), readyReason, readyMsg),
		cond(corev1.ContainersReady, p.containersReady, "ContainersNotReady", "containers with unready status: [app]"),
		cond(corev1.PodScheduled, true, "", ""),
	}
	for _, c := range prev.Conditions {
		if !kubeletConditions[c.Type] {
			conds = append(conds, c)
		}
	}
	phase := corev1.PodPending
	cs := corev1.ContainerStatus{
		Name: containerName, Image: "registry.example.com/" + p.w.spec.Name + ":1.0.0",
		ImageID: "registry.example.com/" + p.w.spec.Name + "@sha256:" + fmt.Sprintf("%064x", p.w.hash),
		Ready:   p.containersReady, Started: ptr.To(p.started),
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}},
	}
	if p.started {
		phase = corev1.PodRunning
		cs.ContainerID = "containerd://" + fmt.Sprintf("%064x", p.seq+1)
		cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(p.startedAt)}}
	}
	return corev1.PodStatus{
		Phase:             phase,
		Conditions:        conds,
		HostIP:            p.node.internalIP,
		HostIPs:           []corev1.HostIP{{IP: p.node.internalIP}},
		PodIP:             p.ip,
		PodIPs:            []corev1.PodIP{{IP: p.ip}},
		StartTime:         ptr.To(metav1.NewTime(p.createdAt)),
		ContainerStatuses: []corev1.ContainerStatus{cs},
		QOSClass:          corev1.PodQOSBestEffort,
	}
}

// writeStatus writes the pod's status as the kubelet would, keeping the
// conditions others own. A failed write is reported and left for the next
// change to repair: the status is always rebuilt from the model.
func (cl *Cluster) writeStatus(ctx context.Context, p *pod) {
	var err error
	for range 3 {
		if p.obj == nil {
			obj := &corev1.Pod{}
			if err = cl.c.Get(ctx, p.key, obj); err != nil {
				if apierrors.IsNotFound(err) {
					return
				}
				break
			}
			p.obj = obj
		}
		st := cl.podStatus(p, p.obj.Status)
		if equality.Semantic.DeepEqual(st, p.obj.Status) {
			return
		}
		upd := p.obj.DeepCopy()
		upd.Status = st
		if err = cl.c.Status().Update(ctx, upd); err == nil {
			p.obj = upd
			return
		}
		p.obj = nil
		if apierrors.IsNotFound(err) {
			return
		}
		if !apierrors.IsConflict(err) {
			break
		}
	}
	if err != nil {
		cl.event("Error", "pod/"+p.key.String(), "status: %v", err)
	}
}

// start: the container is running and the app listens.
func (cl *Cluster) start(p *pod) {
	if p.phase != podPending {
		return
	}
	p.phase, p.started, p.startedAt = podRunning, true, cl.now()
	cl.writeStatus(cl.ctx(), p)
	p.timers = append(p.timers, cl.clock.AfterEvent(p.w.spec.ReadinessDelay, "readiness "+p.key.Name, func(time.Time) { cl.probePassed(p) }))
}

// probePassed: the readiness probe passes.
func (cl *Cluster) probePassed(p *pod) {
	if p.phase != podRunning || p.containersReady {
		return
	}
	p.containersReady, p.readyAt = true, cl.now()
	cl.writeStatus(cl.ctx(), p)
	if p.ready() {
		cl.event("PodReady", "pod/"+p.key.String(), "ready at %s", p.ip)
	} else {
		cl.event("ContainersReady", "pod/"+p.key.String(), "waiting on readiness gates %v", p.gates)
	}
	cl.podChanged(p)
}

// gatesChanged applies readiness-gate conditions read from the API.
func (cl *Cluster) gatesChanged(p *pod, conds []corev1.PodCondition) {
	if len(p.gates) == 0 || p.phase == podGone {
		return
	}
	before := p.ready()
	changed := false
	for _, g := range p.gates {
		ok := false
		for _, c := range conds {
			if c.Type == g && c.Status == corev1.ConditionTrue {
				ok = true
			}
		}
		if p.gateOK[g] != ok {
			p.gateOK[g] = ok
			changed = true
		}
	}
	if !changed {
		return
	}
	cl.writeStatus(cl.ctx(), p)
	if after := p.ready(); after != before {
		if after {
			cl.event("PodReady", "pod/"+p.key.String(), "readiness gates True")
		} else {
			cl.event("PodNotReady", "pod/"+p.key.String(), "a readiness gate turned False")
		}
		cl.podChanged(p)
	}
}

// podChanged propagates a pod's change to the controllers that watch it.
func (cl *Cluster) podChanged(p *pod) {
	for _, s := range cl.sortedServices() {
		if s.key.Namespace == p.key.Namespace && s.selector != nil && s.selector.Matches(labelsOf(p.labels)) {
			cl.requestEndpointSync(s.key)
		}
	}
	for _, d := range cl.sortedPDBs() {
		if d.key.Namespace == p.key.Namespace && d.selector.Matches(labelsOf(p.labels)) {
			cl.requestPDBSync(d.key)
		}
	}
}

// startTermination begins a pod's graceful termination: it is no longer
// ready for new endpoints, its ReplicaSet replaces it at once, and it keeps
// serving through its preStop sleep, then stops.
func (cl *Cluster) startTermination(p *pod, reason string) {
	if p.phase == podTerminating || p.phase == podGone {
		return
	}
	wasStarted := p.started
	p.phase, p.deletingAt = podTerminating, cl.now()
	cl.cancelTimers(p)
	d := min(p.w.spec.PreStop, p.w.spec.TerminationGracePeriod)
	if !wasStarted {
		d = 0
	}
	cl.event("PodTerminating", "pod/"+p.key.String(), "%s; serving %s more", reason, d)
	cl.replenish(p.w)
	cl.podChanged(p)
	if d == 0 {
		cl.kill(cl.ctx(), p, reason)
		return
	}
	p.timers = append(p.timers, cl.clock.AfterEvent(d, "stop "+p.key.Name, func(time.Time) { cl.kill(cl.ctx(), p, "PreStopDone") }))
}

// kill stops a pod for good: its app stops, its address stops answering,
// and the Pod object goes.
func (cl *Cluster) kill(ctx context.Context, p *pod, reason string) {
	if p.phase == podGone {
		return
	}
	wasTerminating := p.phase == podTerminating
	cl.cancelTimers(p)
	p.phase, p.started, p.containersReady = podGone, false, false
	if p.deletingAt.IsZero() {
		p.deletingAt = cl.now()
	}
	cl.forget(p)
	cl.disown(p.ip)
	p.node.subnet.release(p.ip, cl.now())
	ctx = WithOrigin(ctx, Origin)
	obj := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: p.key.Name, Namespace: p.key.Namespace}}
	if err := cl.c.Delete(ctx, obj, client.GracePeriodSeconds(0)); err != nil && !apierrors.IsNotFound(err) {
		cl.event("Error", "pod/"+p.key.String(), "delete: %v", err)
	}
	cl.removeFinalizer(ctx, p)
	cl.event("PodDeleted", "pod/"+p.key.String(), "%s; %s released", reason, p.ip)
	cl.retireFargateNode(ctx, p.node)
	if !wasTerminating {
		cl.replenish(p.w)
	}
	cl.podChanged(p)
}

func (cl *Cluster) removeFinalizer(ctx context.Context, p *pod) {
	for range 3 {
		obj := &corev1.Pod{}
		if err := cl.c.Get(ctx, p.key, obj); err != nil {
			if !apierrors.IsNotFound(err) {
				cl.event("Error", "pod/"+p.key.String(), "get: %v", err)
			}
			return
		}
		if !slices.Contains(obj.Finalizers, PodFinalizer) {
			return
		}
		obj.Finalizers = slices.DeleteFunc(obj.Finalizers, func(f string) bool { return f == PodFinalizer })
		err := cl.c.Update(ctx, obj)
		if err == nil || apierrors.IsNotFound(err) {
			return
		}
		if !apierrors.IsConflict(err) {
			cl.event("Error", "pod/"+p.key.String(), "remove finalizer: %v", err)
			return
		}
	}
}

func (cl *Cluster) cancelTimers(p *pod) {
	for _, h := range p.timers {
		h.Cancel()
	}
	p.timers = nil
}

// forget drops a pod from the live sets (its name stays used).
func (cl *Cluster) forget(p *pod) {
	delete(cl.pods, p.key)
	p.w.pods = slices.DeleteFunc(p.w.pods, func(q *pod) bool { return q == p })
	cl.pending = slices.DeleteFunc(cl.pending, func(q *pod) bool { return q == p })
}

// replenish is the ReplicaSet: it creates pods until the workload has its
// replica count of pods that are not terminating.
func (cl *Cluster) replenish(wl *workload) {
	if cl.workloads[types.NamespacedName{Namespace: wl.spec.Namespace, Name: wl.spec.Name}] != wl {
		return
	}
	live := 0
	for _, p := range wl.pods {
		if p.phase != podTerminating && p.phase != podGone {
			live++
		}
	}
	for ; live < wl.spec.Replicas; live++ {
		cl.schedule(cl.newPod(wl))
	}
}

// Evict evicts a pod through the Eviction API, honouring its
// PodDisruptionBudget (see [Options.ServerEnforcesPDBs]). A refusal is an
// [*EvictionError]; evicting a pod that is already terminating does
// nothing.
func (cl *Cluster) Evict(ctx context.Context, key types.NamespacedName) error {
	p := cl.pods[key]
	if p == nil {
		return fmt.Errorf("cluster: evict pod %s: %w", key, ErrNotFound)
	}
	if p.phase == podTerminating {
		return nil
	}
	if !cl.o.ServerEnforcesPDBs {
		if err := cl.checkEviction(p); err != nil {
			return err
		}
	}
	ctx = WithOrigin(ctx, Origin)
	obj := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace}}
	ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace}}
	if err := cl.c.SubResource("eviction").Create(ctx, obj, ev); err != nil {
		switch {
		case apierrors.IsTooManyRequests(err):
			return &EvictionError{Pod: key.String(), Reason: "the API server refused it", Err: err}
		case apierrors.IsNotFound(err):
			cl.kill(ctx, p, "Gone")
			return nil
		default:
			return fmt.Errorf("cluster: evict pod %s: %w", key, err)
		}
	}
	cl.startTermination(p, "Evicted")
	return nil
}

// ForceDeletePod kills a pod at once, skipping its preStop sleep and any
// PodDisruptionBudget, as a drain does when its grace period runs out.
func (cl *Cluster) ForceDeletePod(ctx context.Context, key types.NamespacedName) error {
	p := cl.pods[key]
	if p == nil {
		return fmt.Errorf("cluster: force delete pod %s: %w", key, ErrNotFound)
	}
	cl.kill(ctx, p, "ForceDeleted")
	return nil
}
