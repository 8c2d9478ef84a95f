package cutover

// watch.go holds the watch that Execute and Rollback open when Env.Client
// can watch: on the cluster's Nodes and Karpenter's NodeClaims, and on the
// Service's pods (its namespace and selector). A node that starts to
// leave, or a NodeClaim being deleted, ends the wait in progress at once,
// so that the target of a node Karpenter removes is retired within a
// second, not at the next poll. Each watch starts with one list and then
// keeps a cache of what it follows (the transforms below drop what is
// never read), from which every observation reads (scope.go) without a
// call of its own. The watch is drained in the runner's goroutine only,
// never by a goroutine of its own: under the simulator's virtual clock a
// run stays the same on every run of a seed.

import (
	"context"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/diagnose"
)

// DefaultReaction is how often a wait asks the watch whether a node
// started to leave (WithReaction): the most a forceful disruption that a
// watch reports waits for Execute's next observation.
const DefaultReaction = 500 * time.Millisecond

// watchReopens bounds how often a watch the server closed is opened again
// in one run; past it, the run goes on polling.
const watchReopens = 20

// nodeWatch follows Nodes, NodeClaims and the Service's pods, and caches
// them. It is read from one goroutine, the runner's: drainWatch drains its
// channels without blocking.
type nodeWatch struct {
	c   client.WithWatch
	log func(msg string, kv ...any)
	// nodes, claims and pods are the open watches, nil when closed (pods:
	// not opened yet, or refused).
	nodes, claims, pods watch.Interface
	// nodeCache and claimCache are every Node and NodeClaim, by name, as
	// the list that opened the watch and its events since left them.
	nodeCache  map[string]*corev1.Node
	claimCache map[string]*unstructured.Unstructured
	// noClaims says the cluster does not serve NodeClaims (or the watch
	// on them was refused): the run reads them by list when it needs them.
	noClaims bool
	// podNS and podSel are the pods' watch's namespace and selector;
	// podCache its pods, by key.
	podNS    string
	podSel   labels.Selector
	podCache map[types.NamespacedName]*corev1.Pod
	// podsRefused says the pods' watch was refused: the observations
	// list the Service's pods.
	podsRefused bool
	// leaving are the nodes already seen leaving, so that later updates
	// of a node on its way out do not wake every wait again; deleting the
	// NodeClaims seen with a deletionTimestamp.
	leaving, deleting map[string]bool
	// reopens counts the watches opened again after the server closed them.
	reopens int
	// woken counts the events that ended a wait.
	woken int
	// pending says a relevant event was drained (drain) since the last
	// wake.
	pending bool
}

// startWatch opens the watch when the run's client can watch and the
// option allows it. A client that cannot, or a server that refuses (RBAC
// without watch, a kind it does not serve), leaves the run polling, as
// before, with a log line; it is never an error.
func (r *runner) startWatch(ctx context.Context) {
	if r.o.reaction < 0 || r.watch != nil {
		return
	}
	wc, ok := r.e.Client.(client.WithWatch)
	if !ok {
		r.e.log.V(1).Info("the client cannot watch: waits poll every interval", "poll", r.o.poll)
		return
	}
	w := &nodeWatch{c: wc, leaving: map[string]bool{}, deleting: map[string]bool{},
		log: func(msg string, kv ...any) { r.e.log.Info(msg, kv...) }}
	if err := w.open(ctx); err != nil {
		r.e.log.Info("no watch on the nodes: waits poll every interval", "poll", r.o.poll, "error", err.Error())
		return
	}
	r.watch = w
}

// stopWatch closes the watch; the run reports how many events woke it.
func (r *runner) stopWatch() {
	if r.watch == nil {
		return
	}
	r.watch.stop()
	r.e.log.V(1).Info("watch closed", "wakes", r.watch.woken, "reopens", r.watch.reopens)
	r.watch = nil
}

// open starts the watches on the nodes and NodeClaims that are not open,
// each with a list first (its cache) and then a watch from the list's
// resource version. The Node watch is required; the NodeClaim watch is
// optional (a cluster without Karpenter's CRDs). The pods' watch is
// opened by watchPods, and again here when the server closed it.
func (w *nodeWatch) open(ctx context.Context) error {
	if w.nodes == nil {
		var list corev1.NodeList
		if err := w.c.List(ctx, &list); err != nil {
			return err
		}
		nw, err := w.c.Watch(ctx, &corev1.NodeList{}, fromVersion(list.ResourceVersion))
		if err != nil {
			return err
		}
		w.nodes, w.nodeCache = nw, map[string]*corev1.Node{}
		clear(w.leaving)
		for i := range list.Items {
			n := trimNode(&list.Items[i])
			w.nodeCache[n.Name] = n
			ref := diagnose.NodeOf(n)
			w.leaving[n.Name] = ref.Disrupting || !ref.Ready
		}
	}
	if w.claims == nil && !w.noClaims {
		list := claimList()
		cw, err := watchAfterList(ctx, w.c, list)
		if err != nil {
			// Not served, not registered, or refused: read by list when needed.
			w.noClaims = true
		} else {
			w.claims, w.claimCache = cw, map[string]*unstructured.Unstructured{}
			clear(w.deleting)
			for i := range list.Items {
				nc := trimClaim(&list.Items[i])
				w.claimCache[nc.GetName()] = nc
				w.deleting[nc.GetName()] = nc.GetDeletionTimestamp() != nil
			}
		}
	}
	if w.pods == nil && w.podSel != nil && !w.podsRefused {
		if err := w.watchPods(ctx, w.podNS, w.podSel); err != nil {
			w.log("no watch on the Service's pods: each observation lists them", "error", err.Error())
		}
	}
	return nil
}

// watchPods (re)opens the watch on the pods of namespace that sel
// selects: a list (its cache), then a watch from its resource version. A
// refusal leaves the pods to be listed at each observation.
func (w *nodeWatch) watchPods(ctx context.Context, ns string, sel labels.Selector) error {
	if w.pods != nil {
		w.pods.Stop()
	}
	w.pods, w.podCache, w.podNS, w.podSel = nil, nil, ns, sel
	var list corev1.PodList
	opts := []client.ListOption{client.InNamespace(ns), client.MatchingLabelsSelector{Selector: sel}}
	if err := w.c.List(ctx, &list, opts...); err != nil {
		w.podsRefused = true
		return err
	}
	pw, err := w.c.Watch(ctx, &corev1.PodList{}, append(opts, fromVersion(list.ResourceVersion))...)
	if err != nil {
		w.podsRefused = true
		return err
	}
	w.pods, w.podCache = pw, map[types.NamespacedName]*corev1.Pod{}
	for i := range list.Items {
		p := trimPod(&list.Items[i])
		w.podCache[client.ObjectKeyFromObject(p)] = p
	}
	return nil
}

// servicePods returns the cached pods of namespace that sel selects, and
// whether the cache follows them; it opens the pods' watch the first time,
// and again when the Service's selector changed.
func (w *nodeWatch) servicePods(ctx context.Context, ns string, sel labels.Selector) ([]corev1.Pod, bool) {
	if w.podsRefused {
		return nil, false
	}
	if w.pods == nil || w.podNS != ns || w.podSel.String() != sel.String() {
		if err := w.watchPods(ctx, ns, sel); err != nil {
			w.log("no watch on the Service's pods: each observation lists them", "error", err.Error())
			return nil, false
		}
	}
	out := make([]corev1.Pod, 0, len(w.podCache))
	for _, p := range w.podCache {
		out = append(out, *p)
	}
	return out, true
}

// watchAfterList lists into list, then watches its kind from the list's
// resource version.
func watchAfterList(ctx context.Context, c client.WithWatch, list *unstructured.UnstructuredList) (watch.Interface, error) {
	if err := c.List(ctx, list); err != nil {
		return nil, err
	}
	return c.Watch(ctx, claimList(), fromVersion(list.GetResourceVersion()))
}

// fromVersion starts a watch at a list's resource version: the events
// after the list, without the initial ones a watch without a version
// sends (the list gave them).
func fromVersion(rv string) client.ListOption {
	return &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: rv}}
}

func claimList() *unstructured.UnstructuredList {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(diagnose.NodeClaimGVK.GroupVersion().WithKind(diagnose.NodeClaimGVK.Kind + "List"))
	return list
}

// The transforms of what the caches keep: managedFields, which nothing
// reads and which is often the biggest part of an object, and a node's
// images and volumes, the biggest part of its status.
func trimNode(n *corev1.Node) *corev1.Node {
	n = n.DeepCopy()
	n.ManagedFields = nil
	n.Status.Images, n.Status.VolumesInUse, n.Status.VolumesAttached = nil, nil, nil
	return n
}

func trimPod(p *corev1.Pod) *corev1.Pod {
	p = p.DeepCopy()
	p.ManagedFields = nil
	return p
}

func trimClaim(nc *unstructured.Unstructured) *unstructured.Unstructured {
	nc = nc.DeepCopy()
	nc.SetManagedFields(nil)
	return nc
}

func (w *nodeWatch) stop() {
	for _, x := range []watch.Interface{w.nodes, w.claims, w.pods} {
		if x != nil {
			x.Stop()
		}
	}
	w.nodes, w.claims, w.pods = nil, nil, nil
}

// wake drains the watches without blocking and reports whether a node
// started to leave or went, or a NodeClaim is being deleted or went, since
// the last call. A watch the server closed is opened again (a bounded
// number of times), and the reopening itself wakes: what happened while
// it was closed is unknown.
func (r *runner) wake(ctx context.Context) bool {
	w := r.watch
	if w == nil {
		return false
	}
	woke := r.drainWatch(ctx)
	w.pending = false
	if woke {
		w.woken++
	}
	return woke
}

// drainWatch takes every event the watches hold without blocking, applies
// it to the caches, and remembers whether one was relevant until the next
// wake. The run calls it after each of its own writes to a node too, so
// that its own events (the hold's annotations) never pile up between two
// waits: a fake client's watcher panics when 100 events wait in it; and
// before each observation, which reads the caches.
func (r *runner) drainWatch(ctx context.Context) bool {
	w := r.watch
	if w == nil {
		return false
	}
	woke := w.pending
	for _, ch := range []*watch.Interface{&w.nodes, &w.claims, &w.pods} {
		if *ch == nil {
			continue
		}
	drain:
		for {
			select {
			case ev, ok := <-(*ch).ResultChan():
				if !ok || ev.Type == watch.Error {
					if ok {
						(*ch).Stop()
					}
					*ch = nil
					woke = true
					break drain
				}
				if w.apply(ev) {
					woke = true
				}
			default:
				break drain
			}
		}
	}
	if w.nodes == nil || (w.claims == nil && !w.noClaims) || (w.pods == nil && w.podSel != nil && !w.podsRefused) {
		if w.reopens < watchReopens {
			w.reopens++
			if err := w.open(ctx); err != nil {
				w.log("watch closed by the server and not reopened: waits poll every interval", "error", err.Error())
			}
		}
		if w.nodes == nil {
			r.stopWatch()
			return woke
		}
		if w.pods == nil && w.podSel != nil {
			w.podsRefused = true // past the reopens: the observations list the pods
		}
		if w.claims == nil {
			w.noClaims = true
		}
	}
	w.pending = woke
	return woke
}

// apply puts one event in its cache and says whether it tells of a node
// that started to leave or went, or of a NodeClaim whose deletion started
// or ended. Every other change (status, the hold's own annotations, the
// pods) is not.
func (w *nodeWatch) apply(ev watch.Event) bool {
	switch obj := ev.Object.(type) {
	case *corev1.Node:
		if ev.Type == watch.Deleted {
			delete(w.nodeCache, obj.Name)
		} else if ev.Type == watch.Added || ev.Type == watch.Modified {
			w.nodeCache[obj.Name] = trimNode(obj)
		}
	case *unstructured.Unstructured:
		if ev.Type == watch.Deleted {
			delete(w.claimCache, obj.GetName())
		} else if ev.Type == watch.Added || ev.Type == watch.Modified {
			w.claimCache[obj.GetName()] = trimClaim(obj)
		}
	case *corev1.Pod:
		key := client.ObjectKeyFromObject(obj)
		switch {
		case ev.Type == watch.Deleted, obj.Namespace != w.podNS, !w.podSel.Matches(labels.Set(obj.Labels)):
			// A fake client's watch does not select: the cache does.
			delete(w.podCache, key)
		case ev.Type == watch.Added || ev.Type == watch.Modified:
			w.podCache[key] = trimPod(obj)
		}
		return false
	}
	return w.relevant(ev)
}

// relevant says whether ev tells of a node that started to leave or went,
// or of a NodeClaim whose deletion started or ended.
func (w *nodeWatch) relevant(ev watch.Event) bool {
	switch obj := ev.Object.(type) {
	case *corev1.Node:
		name := obj.Name
		if ev.Type == watch.Deleted {
			delete(w.leaving, name)
			return true
		}
		ref := diagnose.NodeOf(obj)
		out := ref.Disrupting || !ref.Ready
		was := w.leaving[name]
		w.leaving[name] = out
		return out && !was && ev.Type != watch.Added
	case *unstructured.Unstructured:
		name := obj.GetName()
		if ev.Type == watch.Deleted {
			delete(w.deleting, name)
			return true
		}
		gone := obj.GetDeletionTimestamp() != nil
		was := w.deleting[name]
		w.deleting[name] = gone
		return gone && !was && ev.Type != watch.Added
	}
	return false
}

// cachedNodes returns every cached node, and cachedClaims every cached
// NodeClaim (false when the watch does not follow them).
func (w *nodeWatch) cachedNodes() []corev1.Node {
	out := make([]corev1.Node, 0, len(w.nodeCache))
	for _, n := range w.nodeCache {
		out = append(out, *n)
	}
	return out
}

func (w *nodeWatch) cachedClaims() ([]unstructured.Unstructured, bool) {
	if w.claims == nil {
		return nil, false
	}
	out := make([]unstructured.Unstructured, 0, len(w.claimCache))
	for _, nc := range w.claimCache {
		out = append(out, *nc)
	}
	slices.SortFunc(out, func(a, b unstructured.Unstructured) int { return strings.Compare(a.GetName(), b.GetName()) })
	return out, true
}
