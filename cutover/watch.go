package cutover

// watch.go holds the watch on the cluster's Nodes and Karpenter's
// NodeClaims that Execute and Rollback open when Env.Client can watch: a
// node that starts to leave, or a NodeClaim being deleted, ends the wait
// in progress at once, so that the target of a node Karpenter removes is
// retired within a second, not at the next poll.

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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

// nodeWatch follows Nodes and NodeClaims. It is read from one goroutine,
// the runner's: wake drains its channels without blocking.
type nodeWatch struct {
	c   client.WithWatch
	log func(msg string, kv ...any)
	// nodes and claims are the open watches, nil when closed.
	nodes, claims watch.Interface
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

// open starts the watches that are not open. The Node watch is required;
// the NodeClaim watch is optional (a cluster without Karpenter's CRDs).
func (w *nodeWatch) open(ctx context.Context) error {
	if w.nodes == nil {
		nw, err := w.c.Watch(ctx, &corev1.NodeList{})
		if err != nil {
			return err
		}
		w.nodes = nw
	}
	if w.claims == nil {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(diagnose.NodeClaimGVK.GroupVersion().WithKind(diagnose.NodeClaimGVK.Kind + "List"))
		if cw, err := w.c.Watch(ctx, list); err == nil {
			w.claims = cw
		}
	}
	return nil
}

func (w *nodeWatch) stop() {
	for _, x := range []watch.Interface{w.nodes, w.claims} {
		if x != nil {
			x.Stop()
		}
	}
	w.nodes, w.claims = nil, nil
}

// wake drains both watches without blocking and reports whether a node
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

// drainWatch takes every event the watches hold without blocking, and
// remembers whether one was relevant until the next wake. The run calls
// it after each of its own writes to a node too, so that its own events
// (the hold's annotations) never pile up between two waits: a fake
// client's watcher panics when 100 events wait in it.
func (r *runner) drainWatch(ctx context.Context) bool {
	w := r.watch
	if w == nil {
		return false
	}
	woke := w.pending
	for _, ch := range []*watch.Interface{&w.nodes, &w.claims} {
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
				if w.relevant(ev) {
					woke = true
				}
			default:
				break drain
			}
		}
	}
	if w.nodes == nil || w.claims == nil {
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
	}
	w.pending = woke
	return woke
}

// relevant says whether ev tells of a node that started to leave or went,
// or of a NodeClaim whose deletion started or ended. Every other change
// (status, the hold's own annotations) is not.
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
