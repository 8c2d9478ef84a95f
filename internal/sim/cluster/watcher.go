package cluster

// watcher.go: watches on the world's client: Hub.Watch, the watch event
// every write becomes, selectors, and the close of a watcher that falls
// behind.

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// WatchBuffer is how many events a watch holds for its consumer, beyond
// its initial ones. An event that finds the buffer full closes the watch
// (its channel is closed), as an API server closes a watcher that falls
// behind; the consumer starts a new one.
const WatchBuffer = 1000

// Serve declares kinds the cluster serves beyond its client's scheme and
// REST mapper, such as CRDs on the fake client, which maps none, so that
// [Hub.Watch] accepts them before any object of theirs was written.
func (h *Hub) Serve(gvks ...schema.GroupVersionKind) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.kinds == nil {
		h.kinds = map[schema.GroupKind]bool{}
	}
	for _, g := range gvks {
		h.kinds[g.GroupKind()] = true
	}
}

// serves reports whether the cluster serves gvk: declared with Serve, in
// the client's scheme (the fake client adds an unstructured kind once it
// has written one), or mapped by its REST mapper (a real API server's
// CRDs).
func (h *Hub) serves(c client.Client, gvk schema.GroupVersionKind) bool {
	h.mu.Lock()
	ok := h.kinds[gvk.GroupKind()]
	h.mu.Unlock()
	if ok || c.Scheme().Recognizes(gvk) {
		return true
	}
	_, err := c.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	return err == nil
}

// Watch starts a watch of the objects of list's kind (a typed list of the
// client's scheme, or an unstructured list with its kind set, such as
// karpenter.sh/v1 NodeClaimList) through c, the client the hub wraps.
//
// Every successful write through the hub's client (the world's and the
// system under test's) of an object the watch selects becomes one event,
// sent on the channel during the write, inside the world event or the
// client call that made it: a consumer that drains its channel without
// blocking after each wait on the clock sees exactly what happened before
// that instant, in order, the same on every run. Create gives Added;
// Update, Patch, Apply, a status write and a deletion held by finalizers
// (the object gets its deletionTimestamp) give Modified; the object's
// removal gives Deleted with its last state. The object is read through c
// after the write; a read that fails (an injected fault) loses that event.
//
// Options: a namespace, a label selector and a field selector (any field,
// compared as a string; an absent field is "") select the objects; an
// object that stops matching is Deleted, one that starts is Added, as an
// API server's watch does. Without a resource version (or with "0") the
// watch begins with one Added event per object that matches now, in
// namespace and name order; with another resource version it begins with
// none (the events since that version are not replayed). Stop ends the
// watch, and so does the cancellation of ctx. A watch whose consumer lets
// [WatchBuffer] events pile up is closed.
//
// Writes a real API server makes on its own (garbage collection, a
// namespace's deletion) are not seen: only the writes through the hub's
// client are.
func (h *Hub) Watch(ctx context.Context, c client.Client, list client.ObjectList, opts ...client.ListOption) (watch.Interface, error) {
	lo := &client.ListOptions{}
	lo.ApplyOptions(opts)
	w := &watcher{hub: h, c: c, done: make(chan struct{}), known: map[client.ObjectKey]bool{},
		sel: selector{ns: lo.Namespace, labels: lo.LabelSelector, fields: lo.FieldSelector}}
	var listGVK schema.GroupVersionKind
	switch l := list.(type) {
	case *unstructured.UnstructuredList:
		listGVK, w.unstructured = l.GroupVersionKind(), true
	case *metav1.PartialObjectMetadataList:
		return nil, &WatchError{List: "PartialObjectMetadataList", Reason: "metadata-only watches are not supported"}
	default:
		gvk, err := apiutil.GVKForObject(list, c.Scheme())
		if err != nil {
			return nil, &WatchError{List: fmt.Sprintf("%T", list), Reason: "not a kind of the client's scheme", NotServed: true}
		}
		listGVK = gvk
	}
	if !strings.HasSuffix(listGVK.Kind, "List") || listGVK.Kind == "List" {
		return nil, &WatchError{List: listGVK.Kind, Reason: "not the list of a kind"}
	}
	w.gvk = listGVK.GroupVersion().WithKind(strings.TrimSuffix(listGVK.Kind, "List"))
	if !h.serves(c, w.gvk) {
		return nil, &WatchError{List: listGVK.Kind, Reason: fmt.Sprintf("the cluster does not serve %s", w.gvk.GroupKind()), NotServed: true}
	}
	items, err := w.list(ctx, listGVK)
	if err != nil {
		return nil, fmt.Errorf("cluster: watch %s: list: %w", listGVK.Kind, err)
	}
	initial := lo.Raw == nil || lo.Raw.ResourceVersion == "" || lo.Raw.ResourceVersion == "0"
	w.ch = make(chan watch.Event, WatchBuffer+len(items))
	for _, o := range items {
		if !w.sel.matches(o) {
			continue
		}
		w.known[client.ObjectKeyFromObject(o)] = true
		if initial {
			w.ch <- watch.Event{Type: watch.Added, Object: o}
		}
	}
	// In a world driven by one goroutine nothing is written between the
	// list and this; another goroutine's write in between is lost, as
	// a watch from a list's resource version would not lose it.
	h.mu.Lock()
	if h.watchers == nil {
		h.watchers = map[schema.GroupKind][]*watcher{}
	}
	h.watchers[w.gvk.GroupKind()] = append(h.watchers[w.gvk.GroupKind()], w)
	h.mu.Unlock()
	if ctx.Done() != nil {
		go func() {
			select {
			case <-ctx.Done():
				w.Stop()
			case <-w.done:
			}
		}()
	}
	return w, nil
}

// watcher is one watch: its kind, form, selector, the objects it has
// reported and not yet reported gone, and its channel.
type watcher struct {
	hub          *Hub
	c            client.Client
	gvk          schema.GroupVersionKind
	unstructured bool
	sel          selector
	done         chan struct{}

	mu      sync.Mutex
	ch      chan watch.Event
	known   map[client.ObjectKey]bool
	stopped bool
}

var _ watch.Interface = (*watcher)(nil)

// ResultChan returns the channel of events, closed when the watch ends.
func (w *watcher) ResultChan() <-chan watch.Event { return w.ch }

// Stop ends the watch and closes its channel. Calling it again does nothing.
func (w *watcher) Stop() {
	w.mu.Lock()
	stopped := w.stopLocked()
	w.mu.Unlock()
	if stopped {
		w.hub.remove(w)
	}
}

func (w *watcher) stopLocked() bool {
	if w.stopped {
		return false
	}
	w.stopped = true
	close(w.ch)
	close(w.done)
	return true
}

func (h *Hub) remove(w *watcher) {
	h.mu.Lock()
	defer h.mu.Unlock()
	gk := w.gvk.GroupKind()
	ws := h.watchers[gk]
	for i, o := range ws {
		if o == w {
			h.watchers[gk] = append(ws[:i:i], ws[i+1:]...)
			break
		}
	}
	if len(h.watchers[gk]) == 0 {
		delete(h.watchers, gk)
	}
}

// list reads the objects of the watch's kind in its namespace, sorted.
func (w *watcher) list(ctx context.Context, listGVK schema.GroupVersionKind) ([]client.Object, error) {
	return listForm(ctx, w.c, listGVK, w.unstructured, w.sel.ns)
}

// deliver reports one write of the object at key: now is the object after
// it (nil: gone), before the object before it (a deletion's last state). It
// returns true when it closed the watch, whose buffer was full.
func (w *watcher) deliver(key client.ObjectKey, now, before client.Object) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return false
	}
	in := w.known[key]
	match := now != nil && w.sel.matches(now)
	var ev watch.Event
	switch {
	case match && !in:
		w.known[key] = true
		ev = watch.Event{Type: watch.Added, Object: now.DeepCopyObject()}
	case match:
		ev = watch.Event{Type: watch.Modified, Object: now.DeepCopyObject()}
	case in:
		delete(w.known, key)
		last := now
		if last == nil {
			last = before
		}
		if last == nil {
			last = w.stub(key)
		}
		ev = watch.Event{Type: watch.Deleted, Object: last.DeepCopyObject()}
	default:
		return false
	}
	select {
	case w.ch <- ev:
		return false
	default:
		return w.stopLocked()
	}
}

// stub is an object of the watch's form with only its kind and key, for a
// deletion whose last state was not read.
func (w *watcher) stub(key client.ObjectKey) client.Object {
	obj, err := newForm(w.c, w.gvk, w.unstructured)
	if err != nil {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(w.gvk)
		obj = u
	}
	obj.SetNamespace(key.Namespace)
	obj.SetName(key.Name)
	return obj
}

// selector is a watch's namespace, label and field selection.
type selector struct {
	ns     string
	labels labels.Selector
	fields fields.Selector
}

func (s selector) matches(obj client.Object) bool {
	if s.ns != "" && obj.GetNamespace() != s.ns {
		return false
	}
	if s.labels != nil && !s.labels.Matches(labels.Set(obj.GetLabels())) {
		return false
	}
	if s.fields == nil || s.fields.Empty() {
		return true
	}
	return s.fields.Matches(fieldSet(obj, s.fields))
}

// fieldSet returns the fields sel names, read from obj as strings.
func fieldSet(obj client.Object, sel fields.Selector) fields.Set {
	set := fields.Set{}
	var content map[string]any
	for _, r := range sel.Requirements() {
		switch r.Field {
		case "metadata.name":
			set[r.Field] = obj.GetName()
			continue
		case "metadata.namespace":
			set[r.Field] = obj.GetNamespace()
			continue
		}
		if content == nil {
			if u, ok := obj.(*unstructured.Unstructured); ok {
				content = u.Object
			} else if m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj); err == nil {
				content = m
			} else {
				content = map[string]any{}
			}
		}
		v, found, _ := unstructured.NestedFieldNoCopy(content, strings.Split(r.Field, ".")...)
		if found && v != nil {
			set[r.Field] = fmt.Sprint(v)
		} else {
			set[r.Field] = ""
		}
	}
	return set
}

// The objects the watches read, by form: typed (false) or unstructured
// (true).
type forms map[bool]client.Object

// watchersOf returns the watches of a kind now.
func (h *Hub) watchersOf(gk schema.GroupKind) []*watcher {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.watchers[gk]) == 0 {
		return nil
	}
	return append([]*watcher(nil), h.watchers[gk]...)
}

// gvkOf returns the kind of an object written through c.
func gvkOf(c client.Client, obj runtime.Object) (schema.GroupVersionKind, bool) {
	if gvk, err := c.GroupVersionKindFor(obj); err == nil {
		return gvk, true
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	return gvk, !gvk.Empty()
}

// before reads the object a deletion is about to remove, for the watches
// of its kind; nil when nobody watches it.
func (h *Hub) before(ctx context.Context, c client.Client, obj client.Object) forms {
	gvk, ok := gvkOf(c, obj)
	if !ok {
		return nil
	}
	ws := h.watchersOf(gvk.GroupKind())
	if len(ws) == 0 {
		return nil
	}
	return read(ctx, c, gvk, client.ObjectKeyFromObject(obj), ws)
}

// emit reads the object at key after a write and reports it to the
// watches of its kind.
func (h *Hub) emit(ctx context.Context, c client.Client, gvk schema.GroupVersionKind, key client.ObjectKey, prior forms) {
	ws := h.watchersOf(gvk.GroupKind())
	if len(ws) == 0 {
		return
	}
	after := read(ctx, c, gvk, key, ws)
	if after == nil {
		return // the read failed: the event is lost
	}
	for _, w := range ws {
		if w.deliver(key, after[w.unstructured], prior[w.unstructured]) {
			h.remove(w)
		}
	}
}

// read gets the object at key in every form ws need; a form's entry is
// nil when the object is gone. It returns nil when a read fails otherwise.
func read(ctx context.Context, c client.Client, gvk schema.GroupVersionKind, key client.ObjectKey, ws []*watcher) forms {
	ctx = context.WithoutCancel(ctx)
	out := forms{}
	for _, w := range ws {
		if _, done := out[w.unstructured]; done {
			continue
		}
		obj, err := newForm(c, gvk, w.unstructured)
		if err != nil {
			return nil
		}
		switch err := c.Get(ctx, key, obj); {
		case apierrors.IsNotFound(err):
			out[w.unstructured] = nil
		case err != nil:
			return nil
		default:
			out[w.unstructured] = obj
		}
	}
	return out
}

// beforeAll reads, for a DeleteAllOf in ns, every object of obj's kind
// there in the forms its watches need, by key; nil when nobody watches it.
func (h *Hub) beforeAll(ctx context.Context, c client.Client, obj client.Object, ns string) (schema.GroupVersionKind, map[client.ObjectKey]forms) {
	gvk, ok := gvkOf(c, obj)
	if !ok {
		return gvk, nil
	}
	ws := h.watchersOf(gvk.GroupKind())
	if len(ws) == 0 {
		return gvk, nil
	}
	out := map[client.ObjectKey]forms{}
	listGVK := gvk.GroupVersion().WithKind(gvk.Kind + "List")
	for _, form := range []bool{false, true} {
		needed := false
		for _, w := range ws {
			needed = needed || w.unstructured == form
		}
		if !needed {
			continue
		}
		items, err := listForm(ctx, c, listGVK, form, ns)
		if err != nil {
			continue
		}
		for _, o := range items {
			k := client.ObjectKeyFromObject(o)
			if out[k] == nil {
				out[k] = forms{}
			}
			out[k][form] = o
		}
	}
	return gvk, out
}

// newForm returns an empty object of gvk, typed or unstructured.
func newForm(c client.Client, gvk schema.GroupVersionKind, unstr bool) (client.Object, error) {
	if unstr {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		return u, nil
	}
	o, err := c.Scheme().New(gvk)
	if err != nil {
		return nil, err
	}
	obj, ok := o.(client.Object)
	if !ok {
		return nil, fmt.Errorf("%s is not an object", gvk)
	}
	return obj, nil
}

// listForm lists the objects of listGVK in ns, typed or unstructured,
// sorted by namespace and name.
func listForm(ctx context.Context, c client.Client, listGVK schema.GroupVersionKind, unstr bool, ns string) ([]client.Object, error) {
	var list client.ObjectList
	if unstr {
		ul := &unstructured.UnstructuredList{}
		ul.SetGroupVersionKind(listGVK)
		list = ul
	} else {
		o, err := c.Scheme().New(listGVK)
		if err != nil {
			return nil, err
		}
		l, ok := o.(client.ObjectList)
		if !ok {
			return nil, fmt.Errorf("%s is not a list", listGVK)
		}
		list = l
	}
	var opts []client.ListOption
	if ns != "" {
		opts = append(opts, client.InNamespace(ns))
	}
	if err := c.List(context.WithoutCancel(ctx), list, opts...); err != nil {
		return nil, err
	}
	raw, err := meta.ExtractList(list)
	if err != nil {
		return nil, err
	}
	out := make([]client.Object, 0, len(raw))
	for _, r := range raw {
		if o, ok := r.(client.Object); ok {
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].GetNamespace() != out[j].GetNamespace() {
			return out[i].GetNamespace() < out[j].GetNamespace()
		}
		return out[i].GetName() < out[j].GetName()
	})
	return out, nil
}
