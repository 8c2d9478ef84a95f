package cutover

// scope.go holds what Execute and Rollback read of the cluster at each
// observation: the target group's part of it, not the whole of it
// (runner.clusterObjects, which diagnose classifies the targets with),
// the live nodes a rollback registers (runner.liveNodes), and when the
// Service's pods turned Ready (runner.podsReadySince).
//
// Why. PlanCutover reads the whole cluster, once (every Namespace, Node,
// Pod, Service, NodeClaim and TargetGroupBinding, paged, as diagnose
// does): the plan classifies every target and its checks span
// namespaces; that stays a read at the start. Execute and Rollback
// observe the target group every poll for as long as the cutover lasts:
// a list of every pod each time grows with pods the target group does not
// need (on a cluster of 150,000 pods, tens of GiB per cutover). So they
// read the target group's part, and the same classification holds for
// its targets:
//   - the Service (a get at each observation, as tgbind's own) and its
//     EndpointSlices (tgbind, by the Service's label);
//   - the Service's pods, by its namespace and selector;
//   - the nodes, and each NodeClaim when the rollback needs drift: every
//     node, not only the target group's, because a node has no field
//     selector by address: an address none of the Service's pods holds is
//     found among the nodes known;
//   - for a target whose address neither a node known nor a pod of the
//     Service holds, the pods at that address (field selector
//     status.podIP, cluster-wide): addresses are reused, and a target on
//     an unrelated pod is that pod's, not a ghost; for a node target on a
//     port that is no Service's NodePort, the pods on its node
//     (spec.nodeName: their host ports);
//   - every Service of the cluster, listed once, at the run's first
//     observation: a node target serves the Service whose NodePort is its
//     port, which no selector finds, and a pod found at an address is
//     judged with the Services of its own namespace. A Service created or
//     changed later, other than the run's own, is not seen.
//
// How. With Env.Client a client.WithWatch (and RBAC's optional watch
// rules granted), the run's watch (watch.go) opens at Execute's start,
// before its first read, and at Rollback's: one list each of the nodes,
// the NodeClaims and the Service's pods, then a watch from the list's
// resource version, drained in the run's own goroutine before each
// observation. So an observation makes no list at all: a get of the
// Service, tgbind's reads, and one look-up per address that nothing
// known holds. A client that cannot watch gets the same objects by
// targeted calls: every node listed at the first observation, then the
// nodes that hold a target or a pod of the Service read by name at each,
// and all of them listed again only when an address is held by nothing
// known that was held at the previous observation (a node that joined
// since may hold it); the Service's pods listed by selector; the
// rollback's live nodes (it registers every one) listed whenever it
// registers them. The only whole-cluster reads are those lists of nodes
// and Services; none is of pods.
//
// Why not an informer. controller-runtime's cache and client-go's
// informers would give the same reads, but they run goroutines on the
// real clock: the simulator's virtual clock would no longer decide when
// an event is seen, and a simulated run would change from one run to the
// next. Measured on the envtest API server (scale_integration_test.go),
// the watch's caches leave Execute's bytes per minute flat against 5,000
// unrelated pods, where the lists of every poll had grown with them.
//
// Limits. One judgement rests on less than the whole cluster: a target
// that no node or pod holds, on a port that is neither a NodePort nor a
// port of the Service's pods nor of a pod found by address, is foreign
// where diagnose, which reads every pod's container ports, might call it
// a ghost. Such a target is not the plan's: the verification reports it
// as a target that is not a pod's, and leaves it in place, either way
// (only Execute's warning that it was registered after the plan names
// node targets and ghosts alone). A reader that cannot select pods by
// field (a fake client without the indexes) lists every pod once per
// observation instead, as before.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/read"
)

// The pods' fields an observation selects by: the API server serves both;
// a fake client needs an index of each (internal/sim/cluster registers
// them).
const (
	fieldPodIP    = "status.podIP"
	fieldNodeName = "spec.nodeName"
)

// scope is what the run's reads of the cluster keep from one observation
// to the next.
type scope struct {
	// services are the cluster's Services, listed once at the run's first
	// observation (nil before), by namespace/name; the run's own Service
	// is read again at each observation.
	services map[types.NamespacedName]corev1.Service
	// nodes are the nodes as the observations without a watch know them:
	// every node, listed at the first such observation (nil before), then
	// the nodes that hold a target or a pod of the Service read again at
	// each one.
	nodes map[string]*corev1.Node
	// unmatched are the addresses that no node or pod held at the
	// previous observation without a watch.
	unmatched map[string]bool
	// noFieldSelect says the reader failed a selection by field with an
	// error that is not the API server's (a fake client without the
	// index): the observations then list every pod, once each.
	noFieldSelect bool
	// allPods are the pods that list gave, for the observation in progress.
	allPods []corev1.Pod
	// pods are the pods the last observation read.
	pods []corev1.Pod
}

// clusterObjects reads what diagnose.Classify needs to classify targets
// as a snapshot of the whole cluster would, and what the hold needs: the
// Service (read each time) and every Service of the cluster (listed once,
// at the run's first observation: a node target's Services are those
// whose NodePort is its port, which no selector finds); the Service's
// pods (its namespace and selector); the nodes (the watch's cache, or
// without it the nodes that hold a target or a pod of the Service, read
// by name); for a target whose address none of those holds, the pods at
// that address (field selector status.podIP: another pod may have the
// address now); for a node target on a port that is no Service's
// NodePort, the pods on that node (spec.nodeName: their host ports); and
// the NodeClaims when claims is set (they tell a drifted node). The
// namespaces and bindings, which classification does not read, are not.
//
// Without a watch, the nodes are listed once, at the first observation,
// and again when an address that a node or pod held at the previous
// observation is held by none: a node that joined since may hold it.
func (r *runner) clusterObjects(ctx context.Context, targets []diagnose.Target, claims bool) (*diagnose.Objects, error) {
	s := &r.scope
	s.allPods = nil
	r.drainWatch(ctx)
	w := r.watch
	if s.services == nil {
		var list corev1.ServiceList
		if err := r.e.reader.List(ctx, &list); err != nil {
			return nil, fmt.Errorf("list services: %w", err)
		}
		s.services = map[types.NamespacedName]corev1.Service{}
		for _, svc := range list.Items {
			svc.ManagedFields = nil
			s.services[client.ObjectKeyFromObject(&svc)] = svc
		}
	}
	pods := map[types.NamespacedName]corev1.Pod{}
	add := func(ps []corev1.Pod) {
		for _, p := range ps {
			pods[client.ObjectKeyFromObject(&p)] = p
		}
	}
	if name := r.serviceName(); name != "" {
		key := types.NamespacedName{Namespace: r.ns, Name: name}
		var svc corev1.Service
		err := r.e.reader.Get(ctx, key, &svc)
		switch {
		case apierrors.IsNotFound(err):
			delete(s.services, key)
		case err != nil:
			return nil, fmt.Errorf("get service %s: %w", key, err)
		default:
			svc.ManagedFields = nil
			s.services[key] = svc
			ps, err := r.scopePods(ctx, &svc)
			if err != nil {
				return nil, err
			}
			add(ps)
		}
	}
	nodes, listed, err := r.scopeNodes(ctx, targets, pods)
	if err != nil {
		return nil, err
	}
	unmatched, err := r.lookUp(ctx, targets, nodes, pods)
	if err != nil {
		return nil, err
	}
	if w == nil && !listed && len(unmatched) > 0 && !subset(unmatched, s.unmatched) {
		s.nodes = nil
		if nodes, _, err = r.scopeNodes(ctx, targets, pods); err != nil {
			return nil, err
		}
		if unmatched, err = r.lookUp(ctx, targets, nodes, pods); err != nil {
			return nil, err
		}
	}
	s.unmatched = unmatched
	if err := r.hostPortPods(ctx, targets, nodes, pods); err != nil {
		return nil, err
	}

	objs := &diagnose.Objects{NoNodeClaimCRD: !claims}
	for _, n := range nodes {
		objs.Nodes = append(objs.Nodes, *n)
	}
	slices.SortFunc(objs.Nodes, func(a, b corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	for _, p := range pods {
		objs.Pods = append(objs.Pods, p)
	}
	slices.SortFunc(objs.Pods, func(a, b corev1.Pod) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	for _, svc := range s.services {
		objs.Services = append(objs.Services, svc)
	}
	slices.SortFunc(objs.Services, func(a, b corev1.Service) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	if claims {
		cached := false
		if w != nil {
			objs.NodeClaims, cached = w.cachedClaims()
		}
		if !cached {
			listed, err := read.ListCluster(ctx, r.e.reader, read.ClusterOptions{Kinds: []read.ListKind{read.ListNodeClaims}, Policy: read.Require})
			if err != nil {
				return nil, err
			}
			objs.NodeClaims, objs.NoNodeClaimCRD = listed.NodeClaims, listed.NoNodeClaimCRD
		}
	}
	s.pods = objs.Pods
	return objs, nil
}

// holdObjects reads what the hold needs between two observations: the
// Service and its pods.
func (r *runner) holdObjects(ctx context.Context) (*diagnose.Objects, error) {
	r.drainWatch(ctx)
	svc, err := service(ctx, r.e.reader, r.ns, r.serviceName())
	if err != nil || svc == nil {
		return &diagnose.Objects{}, err
	}
	pods, err := r.scopePods(ctx, svc)
	if err != nil {
		return nil, err
	}
	return &diagnose.Objects{Services: []corev1.Service{*svc}, Pods: pods}, nil
}

// scopePods returns the pods svc selects (none without a selector):
// from the watch's cache when it follows them, else listed by namespace
// and selector.
func (r *runner) scopePods(ctx context.Context, svc *corev1.Service) ([]corev1.Pod, error) {
	if len(svc.Spec.Selector) == 0 {
		return nil, nil
	}
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	if w := r.watch; w != nil {
		if ps, ok := w.servicePods(ctx, svc.Namespace, sel); ok {
			return ps, nil
		}
	}
	var list corev1.PodList
	if err := r.e.reader.List(ctx, &list, client.InNamespace(svc.Namespace), client.MatchingLabelsSelector{Selector: sel}); err != nil {
		return nil, fmt.Errorf("list pods of %s/%s: %w", svc.Namespace, svc.Name, err)
	}
	return list.Items, nil
}

// scopeNodes returns the nodes an observation classifies with, and
// whether it listed them all: the watch's cache; or, without a watch,
// every node at the first observation, then the ones that hold a target
// (by address or instance ID) or a pod of pods, read again by name.
func (r *runner) scopeNodes(ctx context.Context, targets []diagnose.Target, pods map[types.NamespacedName]corev1.Pod) (map[string]*corev1.Node, bool, error) {
	if w := r.watch; w != nil {
		return w.nodeCache, true, nil
	}
	s := &r.scope
	if s.nodes == nil {
		var list corev1.NodeList
		if err := r.e.reader.List(ctx, &list); err != nil {
			return nil, false, fmt.Errorf("list nodes: %w", err)
		}
		s.nodes = map[string]*corev1.Node{}
		for i := range list.Items {
			s.nodes[list.Items[i].Name] = trimNode(&list.Items[i])
		}
		return s.nodes, true, nil
	}
	want := map[string]bool{}
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			want[p.Spec.NodeName] = true
		}
	}
	ids := map[string]bool{}
	for _, t := range targets {
		ids[t.ID] = true
	}
	for name, n := range s.nodes {
		if ids[diagnose.NodeOf(n).InstanceID] || slices.ContainsFunc(n.Status.Addresses, func(a corev1.NodeAddress) bool { return ids[a.Address] }) {
			want[name] = true
		}
	}
	for _, name := range sortedKeys(want) {
		var n corev1.Node
		err := r.e.reader.Get(ctx, types.NamespacedName{Name: name}, &n)
		switch {
		case apierrors.IsNotFound(err):
			delete(s.nodes, name)
		case err != nil:
			return nil, false, fmt.Errorf("get node %s: %w", name, err)
		default:
			s.nodes[name] = trimNode(&n)
		}
	}
	return s.nodes, false, nil
}

// lookUp adds to pods the pods at each target address that no node of
// nodes nor pod of pods holds (field selector status.podIP), and returns
// the addresses still held by none.
func (r *runner) lookUp(ctx context.Context, targets []diagnose.Target, nodes map[string]*corev1.Node, pods map[types.NamespacedName]corev1.Pod) (map[string]bool, error) {
	held := map[string]bool{}
	for _, n := range nodes {
		if id := diagnose.NodeOf(n).InstanceID; id != "" {
			held[id] = true
		}
		for _, a := range n.Status.Addresses {
			if a.Type == corev1.NodeInternalIP || a.Type == corev1.NodeExternalIP {
				held[a.Address] = true
			}
		}
	}
	holdPod := func(p corev1.Pod) {
		if p.Spec.HostNetwork || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			return // the node holds it, or the address is released
		}
		held[p.Status.PodIP] = true
		for _, ip := range p.Status.PodIPs {
			held[ip.IP] = true
		}
	}
	for _, p := range pods {
		holdPod(p)
	}
	unmatched := map[string]bool{}
	for _, t := range targets {
		if held[t.ID] || unmatched[t.ID] {
			continue
		}
		if _, err := netip.ParseAddr(t.ID); err != nil {
			unmatched[t.ID] = true // an instance ID no node has
			continue
		}
		found, err := r.podsBy(ctx, fieldPodIP, t.ID)
		if err != nil {
			return nil, err
		}
		for _, p := range found {
			pods[client.ObjectKeyFromObject(&p)] = p
			holdPod(p)
		}
		if !held[t.ID] {
			unmatched[t.ID] = true
		}
	}
	return unmatched, nil
}

// hostPortPods adds to pods the pods on each node that holds a target on
// a port that is no Service's NodePort: whether the node serves that port
// rests on their host ports.
func (r *runner) hostPortPods(ctx context.Context, targets []diagnose.Target, nodes map[string]*corev1.Node, pods map[types.NamespacedName]corev1.Pod) error {
	nodePorts := map[int32]bool{}
	for _, svc := range r.scope.services {
		for _, sp := range svc.Spec.Ports {
			nodePorts[sp.NodePort] = true
		}
	}
	byIP := map[string]string{}
	for _, n := range nodes {
		for _, a := range n.Status.Addresses {
			byIP[a.Address] = n.Name
		}
	}
	done := map[string]bool{}
	for _, t := range targets {
		name := byIP[t.ID]
		if name == "" || nodePorts[t.Port] || done[name] {
			continue
		}
		done[name] = true
		found, err := r.podsBy(ctx, fieldNodeName, name)
		if err != nil {
			return err
		}
		for _, p := range found {
			pods[client.ObjectKeyFromObject(&p)] = p
		}
	}
	return nil
}

// podsBy lists the pods whose field is value, cluster-wide. A reader that
// cannot select by field (an error that is no API status: a fake client
// without the index) gets every pod listed once per observation and
// selected here, as before the scoped reads.
func (r *runner) podsBy(ctx context.Context, field, value string) ([]corev1.Pod, error) {
	s := &r.scope
	if !s.noFieldSelect {
		var list corev1.PodList
		err := r.e.reader.List(ctx, &list, client.MatchingFields{field: value})
		var status apierrors.APIStatus
		switch {
		case err == nil:
			return list.Items, nil
		case errors.As(err, &status) || ctx.Err() != nil:
			return nil, fmt.Errorf("list pods with %s=%s: %w", field, value, err)
		}
		s.noFieldSelect = true
		r.e.log.Info("the client cannot select pods by field: each observation lists every pod", "field", field, "error", err.Error())
	}
	if s.allPods == nil {
		var list corev1.PodList
		if err := r.e.reader.List(ctx, &list); err != nil {
			return nil, fmt.Errorf("list pods: %w", err)
		}
		s.allPods = list.Items
	}
	var out []corev1.Pod
	for _, p := range s.allPods {
		if (field == fieldPodIP && p.Status.PodIP == value) || (field == fieldNodeName && p.Spec.NodeName == value) {
			out = append(out, p)
		}
	}
	return out, nil
}

// liveNodes reads the nodes and judges them with snap, a snapshot of the
// cluster (its NodeClaims tell drift); nil builds one of the nodes alone.
// A rollback registers every live node, so this reads every node: the
// watch's cache, or without a watch a list of them all.
func (r *runner) liveNodes(ctx context.Context, snap *diagnose.Snapshot) (nodeSet, error) {
	r.drainWatch(ctx)
	var items []corev1.Node
	if w := r.watch; w != nil {
		items = w.cachedNodes()
		slices.SortFunc(items, func(a, b corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	} else {
		var list corev1.NodeList
		if err := r.e.reader.List(ctx, &list); err != nil {
			return nodeSet{}, fmt.Errorf("list nodes: %w", err)
		}
		items = list.Items
	}
	return judgeNodes(items, snap)
}

// podsReadySince maps the IP of each Ready pod of the run's namespace that
// the last observation read (the Service's pods, whose addresses are its
// ready endpoints, and any found at a target's address) to when it turned
// Ready (its Ready condition's lastTransitionTime).
func (r *runner) podsReadySince() map[string]time.Time {
	out := map[string]time.Time{}
	for _, p := range r.scope.pods {
		if p.Namespace != r.ns {
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue && p.Status.PodIP != "" {
				for _, ip := range p.Status.PodIPs {
					out[ip.IP] = c.LastTransitionTime.Time
				}
				out[p.Status.PodIP] = c.LastTransitionTime.Time
			}
		}
	}
	return out
}

// subset reports whether every key of a is in b.
func subset(a, b map[string]bool) bool {
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
