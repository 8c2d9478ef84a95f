package cluster

// watch.go: the Hub: admission, change notification, and the observed client
// that reports each write with its origin (and to the watches of
// watcher.go).

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/vclock"
)

// Op is the kind of write a [Change] reports.
type Op string

// The writes a [Hub] reports.
const (
	OpCreate Op = "create" // Create
	OpUpdate Op = "update" // Update, Patch or Apply of the main resource
	OpStatus Op = "status" // an update, patch or apply of the status subresource
	OpDelete Op = "delete" // Delete, DeleteAllOf, or an eviction
)

// Change is one successful write observed on the world's client. It is
// what an informer would deliver to a controller, minus the object: the
// subscriber reads what it needs through the client, as a controller reads
// its cache.
type Change struct {
	// Kind is the object's kind, for example "Pod" or "TargetGroupBinding".
	Kind string
	// Key names the object. Name is empty for a DeleteAllOf.
	Key client.ObjectKey
	// Op is the kind of write.
	Op Op
	// Labels is a copy of the labels of the object as it was written; nil
	// when the writer passed an object without labels (a delete by key).
	Labels map[string]string
	// Origin is what the writer put on its context with [WithOrigin]: the
	// simulated component that wrote. It is empty for writers from outside
	// the simulation, such as the system under test.
	Origin string
}

type originKey struct{}

// WithOrigin marks the writes made with ctx as coming from origin, so that a
// subscriber can tell its own writes from others'.
func WithOrigin(ctx context.Context, origin string) context.Context {
	return context.WithValue(ctx, originKey{}, origin)
}

// OriginFrom returns the origin [WithOrigin] put on ctx, or "".
func OriginFrom(ctx context.Context) string {
	o, _ := ctx.Value(originKey{}).(string)
	return o
}

// AdmissionFunc is an admission webhook: it sees an object about to be
// created or updated (dry runs included, as webhooks without side effects
// do), may change it (a mutating webhook) and may deny the request by
// returning an error, which the client call then returns unchanged.
type AdmissionFunc func(ctx context.Context, op Op, obj client.Object) error

// Hub stands in for the API server's watch and admission machinery around
// the world's client:
//
//   - Watch: every successful write through the wrapper becomes a [Change]
//     delivered to every subscriber as a world event at the current virtual
//     time, so a write made by the system under test (outside events) is
//     seen when the world next runs, as an informer would see it.
//   - Watches: [Hub.Watch], which the wrapper's Watch calls, turns every
//     write into a watch event during the write itself.
//   - Admission: [AdmissionFunc]s run before every Create, Update and
//     Apply (server-side apply, of a kind in the client's scheme), as
//     webhooks do; an Apply gets the webhooks' mutations merged into its
//     configuration. Patch is not admitted.
//
// A Hub is safe for concurrent use.
type Hub struct {
	clock *vclock.Clock

	mu        sync.Mutex
	subs      []func(Change)
	admission []AdmissionFunc
	// watchers are the watches by kind (watcher.go); kinds the kinds
	// declared served with Serve.
	watchers map[schema.GroupKind][]*watcher
	kinds    map[schema.GroupKind]bool
}

// AddAdmission adds an admission webhook; they run in the order added.
func (h *Hub) AddAdmission(fn AdmissionFunc) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.admission = append(h.admission, fn)
}

func (h *Hub) admit(ctx context.Context, op Op, obj client.Object) error {
	h.mu.Lock()
	fns := slices.Clone(h.admission)
	h.mu.Unlock()
	for _, fn := range fns {
		if err := fn(ctx, op, obj); err != nil {
			return err
		}
	}
	return nil
}

// NewHub returns a hub that delivers on clk.
func NewHub(clk *vclock.Clock) *Hub { return &Hub{clock: clk} }

// Subscribe adds fn to the subscribers. Subscribers are called in the order
// they subscribed, inside world events: fn must not wait on the clock.
func (h *Hub) Subscribe(fn func(Change)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.subs = append(h.subs, fn)
}

// Client returns c wrapped so that its writes are observed. The wrapper is
// a client.WithWatch: its Watch is [Hub.Watch] on c.
func (h *Hub) Client(c client.Client) client.Client {
	return &observedClient{Client: c, hub: h}
}

func (h *Hub) publish(ch Change) {
	h.mu.Lock()
	subs := slices.Clone(h.subs)
	h.mu.Unlock()
	if len(subs) == 0 {
		return
	}
	h.clock.AfterEvent(0, "watch "+ch.Kind, func(time.Time) {
		for _, fn := range subs {
			fn(ch)
		}
	})
}

// observe reports one write of obj: to the watches of its kind, at once,
// and to the subscribers, as a world event. prior is what a deletion read
// before it wrote (Hub.before).
func (h *Hub) observe(ctx context.Context, c client.Client, obj runtime.Object, op Op, prior forms) {
	gvk, known := gvkOf(c, obj)
	ch := Change{Kind: gvk.Kind, Op: op, Origin: OriginFrom(ctx)}
	if o, ok := obj.(client.Object); ok {
		ch.Key = client.ObjectKeyFromObject(o)
		if l := o.GetLabels(); l != nil {
			ch.Labels = maps.Clone(l)
		}
		if known {
			h.emit(ctx, c, gvk, ch.Key, prior)
		}
	}
	h.publish(ch)
}

type observedClient struct {
	client.Client
	hub *Hub
}

var _ client.WithWatch = (*observedClient)(nil)

// Watch is [Hub.Watch] on the wrapped client.
func (c *observedClient) Watch(ctx context.Context, list client.ObjectList, opts ...client.ListOption) (watch.Interface, error) {
	return c.hub.Watch(ctx, c.Client, list, opts...)
}

func (c *observedClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if err := c.hub.admit(ctx, OpCreate, obj); err != nil {
		return err
	}
	if err := c.Client.Create(ctx, obj, opts...); err != nil {
		return err
	}
	if !isDryRunCreate(opts) {
		c.hub.observe(ctx, c.Client, obj, OpCreate, nil)
	}
	return nil
}

func (c *observedClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	if err := c.hub.admit(ctx, OpUpdate, obj); err != nil {
		return err
	}
	dry := isDryRunUpdate(opts)
	var prior forms
	if !dry && obj.GetDeletionTimestamp() != nil {
		// Removing the last finalizer removes the object.
		prior = c.hub.before(ctx, c.Client, obj)
	}
	if err := c.Client.Update(ctx, obj, opts...); err != nil {
		return err
	}
	if !dry {
		c.hub.observe(ctx, c.Client, obj, OpUpdate, prior)
	}
	return nil
}

func (c *observedClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	po := &client.PatchOptions{}
	po.ApplyOptions(opts)
	var prior forms
	if len(po.DryRun) == 0 && obj.GetDeletionTimestamp() != nil {
		prior = c.hub.before(ctx, c.Client, obj)
	}
	if err := c.Client.Patch(ctx, obj, patch, opts...); err != nil {
		return err
	}
	if len(po.DryRun) == 0 {
		c.hub.observe(ctx, c.Client, obj, OpUpdate, prior)
	}
	return nil
}

func (c *observedClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	do := &client.DeleteOptions{}
	do.ApplyOptions(opts)
	var prior forms
	if len(do.DryRun) == 0 {
		prior = c.hub.before(ctx, c.Client, obj)
	}
	if err := c.Client.Delete(ctx, obj, opts...); err != nil {
		return err
	}
	if len(do.DryRun) == 0 {
		c.hub.observe(ctx, c.Client, obj, OpDelete, prior)
	}
	return nil
}

func (c *observedClient) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	do := &client.DeleteAllOfOptions{}
	do.ApplyOptions(opts)
	var gvk schema.GroupVersionKind
	var prior map[client.ObjectKey]forms
	if len(do.DryRun) == 0 {
		gvk, prior = c.hub.beforeAll(ctx, c.Client, obj, do.Namespace)
	}
	if err := c.Client.DeleteAllOf(ctx, obj, opts...); err != nil {
		return err
	}
	if len(do.DryRun) == 0 {
		keys := slices.SortedFunc(maps.Keys(prior), func(a, b client.ObjectKey) int {
			return strings.Compare(a.String(), b.String())
		})
		for _, k := range keys {
			c.hub.emit(ctx, c.Client, gvk, k, prior[k])
		}
		kind := ""
		if gvk, err := c.Client.GroupVersionKindFor(obj); err == nil {
			kind = gvk.Kind
		}
		c.hub.publish(Change{Kind: kind, Key: client.ObjectKey{Namespace: do.Namespace}, Op: OpDelete, Origin: OriginFrom(ctx)})
	}
	return nil
}

func (c *observedClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	admitted, err := c.admitApply(ctx, obj)
	if err != nil {
		return err
	}
	if admitted != nil {
		obj = admitted
	}
	if err := c.Client.Apply(ctx, obj, opts...); err != nil {
		return err
	}
	ao := &client.ApplyOptions{}
	ao.ApplyOptions(opts)
	if len(ao.DryRun) == 0 {
		ch, gvk := applyChange(ctx, obj, OpUpdate)
		c.hub.emit(ctx, c.Client, gvk, ch.Key, nil)
		c.hub.publish(ch)
	}
	return nil
}

func (c *observedClient) Status() client.SubResourceWriter {
	return &observedSubResource{SubResourceClient: subResourceWriterOnly{c.Client.Status()}, name: "status", hub: c.hub, c: c.Client}
}

func (c *observedClient) SubResource(subResource string) client.SubResourceClient {
	return &observedSubResource{SubResourceClient: c.Client.SubResource(subResource), name: subResource, hub: c.hub, c: c.Client}
}

// subResourceWriterOnly adapts the writer Status() returns to the
// SubResourceClient shape; Get is never reached through Status().
type subResourceWriterOnly struct{ client.SubResourceWriter }

func (subResourceWriterOnly) Get(context.Context, client.Object, client.Object, ...client.SubResourceGetOption) error {
	return errStatusGet
}

type observedSubResource struct {
	client.SubResourceClient
	name string
	hub  *Hub
	c    client.Client
}

func (s *observedSubResource) op() Op {
	switch s.name {
	case "status":
		return OpStatus
	case "eviction":
		return OpDelete
	default:
		return OpUpdate
	}
}

// prior reads what an eviction is about to delete, for the watches.
func (s *observedSubResource) prior(ctx context.Context, obj client.Object) forms {
	if s.op() != OpDelete {
		return nil
	}
	return s.hub.before(ctx, s.c, obj)
}

func (s *observedSubResource) Create(ctx context.Context, obj client.Object, sub client.Object, opts ...client.SubResourceCreateOption) error {
	prior := s.prior(ctx, obj)
	if err := s.SubResourceClient.Create(ctx, obj, sub, opts...); err != nil {
		return err
	}
	s.hub.observe(ctx, s.c, obj, s.op(), prior)
	return nil
}

func (s *observedSubResource) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	prior := s.prior(ctx, obj)
	if err := s.SubResourceClient.Update(ctx, obj, opts...); err != nil {
		return err
	}
	s.hub.observe(ctx, s.c, obj, s.op(), prior)
	return nil
}

func (s *observedSubResource) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	prior := s.prior(ctx, obj)
	if err := s.SubResourceClient.Patch(ctx, obj, patch, opts...); err != nil {
		return err
	}
	s.hub.observe(ctx, s.c, obj, s.op(), prior)
	return nil
}

func (s *observedSubResource) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
	if err := s.SubResourceClient.Apply(ctx, obj, opts...); err != nil {
		return err
	}
	ch, gvk := applyChange(ctx, obj, s.op())
	s.hub.emit(ctx, s.c, gvk, ch.Key, nil)
	s.hub.publish(ch)
	return nil
}

// applyChange reads the identity of an apply configuration from its JSON
// form: the change, and the object's kind for the watches (empty when it
// cannot be read).
func applyChange(ctx context.Context, obj runtime.ApplyConfiguration, op Op) (Change, schema.GroupVersionKind) {
	ch := Change{Op: op, Origin: OriginFrom(ctx)}
	raw, err := json.Marshal(obj)
	if err != nil {
		return ch, schema.GroupVersionKind{}
	}
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(raw, &u.Object); err != nil {
		return ch, schema.GroupVersionKind{}
	}
	ch.Kind = u.GetKind()
	ch.Key = client.ObjectKey{Namespace: u.GetNamespace(), Name: u.GetName()}
	if l := u.GetLabels(); l != nil {
		ch.Labels = l
	}
	return ch, u.GroupVersionKind()
}

func isDryRunCreate(opts []client.CreateOption) bool {
	o := &client.CreateOptions{}
	o.ApplyOptions(opts)
	return len(o.DryRun) > 0
}

func isDryRunUpdate(opts []client.UpdateOption) bool {
	o := &client.UpdateOptions{}
	o.ApplyOptions(opts)
	return len(o.DryRun) > 0
}

// admitApply runs admission on the object an apply configuration
// describes, when its kind is in the scheme. It returns the configuration
// with the webhooks' mutations merged in, or nil when there are none.
func (c *observedClient) admitApply(ctx context.Context, ac runtime.ApplyConfiguration) (runtime.ApplyConfiguration, error) {
	c.hub.mu.Lock()
	n := len(c.hub.admission)
	c.hub.mu.Unlock()
	if n == 0 {
		return nil, nil
	}
	raw, err := json.Marshal(ac)
	if err != nil {
		return nil, nil
	}
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(raw, &u.Object); err != nil {
		return nil, nil
	}
	typed, err := c.Scheme().New(u.GroupVersionKind())
	if err != nil {
		return nil, nil // not a kind the webhooks know
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed); err != nil {
		return nil, nil
	}
	obj, ok := typed.(client.Object)
	if !ok {
		return nil, nil
	}
	op := OpCreate
	if err := c.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj.DeepCopyObject().(client.Object)); err == nil {
		op = OpUpdate
	}
	before, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, nil
	}
	if err := c.hub.admit(ctx, op, obj); err != nil {
		return nil, err
	}
	after, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil || reflect.DeepEqual(before, after) {
		return nil, nil
	}
	mergeChanges(u.Object, before, after)
	return client.ApplyConfigurationFromUnstructured(u), nil
}

// mergeChanges copies into dst what changed from before to after.
func mergeChanges(dst, before, after map[string]any) {
	for k, av := range after {
		bv, had := before[k]
		if had && reflect.DeepEqual(av, bv) {
			continue
		}
		am, aIsMap := av.(map[string]any)
		bm, bIsMap := bv.(map[string]any)
		dm, dIsMap := dst[k].(map[string]any)
		if aIsMap && bIsMap && dIsMap {
			mergeChanges(dm, bm, am)
			continue
		}
		dst[k] = runtime.DeepCopyJSONValue(av)
	}
}
