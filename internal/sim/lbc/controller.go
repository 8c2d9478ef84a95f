package lbc

import (
	"context"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/vclock"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// The LBC's names this stand-in uses, as the real controller spells them.
const (
	// Finalizer is put on every TargetGroupBinding the controller reconciles.
	Finalizer = "elbv2.k8s.aws/resources"
	// AnnotationCheckpoint holds the hash of the last reconciled endpoints
	// and spec; a reconcile whose hash matches it is skipped.
	AnnotationCheckpoint = "elbv2.k8s.aws/checkpoint"
	// AnnotationCheckpointTimestamp is when the checkpoint was saved (Unix
	// seconds).
	AnnotationCheckpointTimestamp = "elbv2.k8s.aws/checkpoint-timestamp"
	// ReadinessGatePrefix prefixes the pod condition type of a binding's
	// readiness gate: target-health.elbv2.k8s.aws/<binding name>.
	ReadinessGatePrefix = "target-health.elbv2.k8s.aws/"
	// LabelReadinessGateInject on a namespace enables readiness-gate
	// injection with the value "enabled".
	LabelReadinessGateInject = "elbv2.k8s.aws/pod-readiness-gate-inject"
	// TrackedTargetsPrefix prefixes the ConfigMap that records the targets
	// a multiClusterTargetGroup binding registered.
	TrackedTargetsPrefix = "aws-lbc-targets-"
	// TrackedTargetsKey is the ConfigMap key holding the CSV of IP:port.
	TrackedTargetsKey = "targets"
	// EventBackendNotFound is the event reason when the Service or its
	// port is missing.
	EventBackendNotFound = "BackendNotFound"
)

// Defaults of [Options].
const (
	DefaultRequeueAfter = 15 * time.Second
	DefaultSyncPeriod   = 10 * time.Hour
	DefaultBatchSize    = 200
	// Origin is the [cluster.WithOrigin]-style mark the controller's writes
	// carry (the context key is the cluster package's; see Options.Origin).
	Origin = "lbc"
)

// Options configures a [Controller]. Client, ELBv2 and Clock are required.
type Options struct {
	// Client is the world's client (the same API the cluster lives in).
	Client client.Client
	// ELBv2 is the controller's own AWS client.
	ELBv2 ELBv2API
	// Clock is the world's virtual clock.
	Clock *vclock.Clock
	// WithOrigin marks the controller's writes on their context, so the
	// world can tell them from others'. Nil: writes are not marked.
	WithOrigin func(ctx context.Context, origin string) context.Context
	// RequeueAfter is how soon a binding is reconciled again while a
	// readiness-gated pod is not yet healthy, or an endpoint may become
	// ready. Zero: [DefaultRequeueAfter], the LBC's 15 s.
	RequeueAfter time.Duration
	// SyncPeriod is the periodic resync of every binding. Zero:
	// [DefaultSyncPeriod], the LBC's --sync-period default of 10 h, which
	// is never in a scenario of minutes; the checkpoint makes a resync with
	// unchanged endpoints skip its work anyway.
	SyncPeriod time.Duration
	// ReactionDelay is the time from a watched change to the reconcile it
	// triggers. Zero: none.
	ReactionDelay time.Duration
	// BatchSize caps the targets of one RegisterTargets or
	// DeregisterTargets call. Zero: [DefaultBatchSize], the LBC's 200.
	BatchSize int
	// OnEvent receives the controller's world events (reason, object,
	// message), the Kubernetes Events it records included. Nil: dropped.
	OnEvent func(reason, object, message string)
}

// Controller is the stand-in for the AWS Load Balancer Controller's
// TargetGroupBinding reconciler and its webhooks, in ip mode. It runs on
// the virtual clock: every reconcile is a world event.
//
// A Controller is not safe for concurrent use; the world's clock serialises
// its events.
type Controller struct {
	o Options

	pending  map[types.NamespacedName]pendingReconcile
	failures map[types.NamespacedName]int
	services map[types.NamespacedName]types.NamespacedName // binding -> Service it references
	// pods is the stand-in for the controller's pod informer cache: pods
	// read through the client, dropped when the watch reports a change.
	pods   map[types.NamespacedName]*corev1.Pod
	sync   vclock.Handle
	stats  Stats
	events int
}

type pendingReconcile struct {
	at time.Time
	h  vclock.Handle
}

// Stats counts what the controller did.
type Stats struct {
	// Reconciles counts reconciles; Skipped those the checkpoint cut
	// short; Errors those that failed and were retried.
	Reconciles, Skipped, Errors int
	// Registered and Deregistered count targets sent to AWS.
	Registered, Deregistered int
}

// New validates opts and returns a controller. It reconciles nothing until
// [Controller.Start].
func New(opts Options) (*Controller, error) {
	switch {
	case opts.Client == nil:
		return nil, &OptionsError{Field: "Client", Reason: "is required"}
	case opts.ELBv2 == nil:
		return nil, &OptionsError{Field: "ELBv2", Reason: "is required"}
	case opts.Clock == nil:
		return nil, &OptionsError{Field: "Clock", Reason: "is required"}
	case opts.RequeueAfter < 0 || opts.SyncPeriod < 0 || opts.ReactionDelay < 0:
		return nil, &OptionsError{Field: "RequeueAfter/SyncPeriod/ReactionDelay", Reason: "is negative"}
	case opts.BatchSize < 0:
		return nil, &OptionsError{Field: "BatchSize", Reason: fmt.Sprintf("%d is negative", opts.BatchSize)}
	}
	if opts.RequeueAfter == 0 {
		opts.RequeueAfter = DefaultRequeueAfter
	}
	if opts.SyncPeriod == 0 {
		opts.SyncPeriod = DefaultSyncPeriod
	}
	if opts.BatchSize == 0 {
		opts.BatchSize = DefaultBatchSize
	}
	return &Controller{
		o:        opts,
		pending:  map[types.NamespacedName]pendingReconcile{},
		failures: map[types.NamespacedName]int{},
		services: map[types.NamespacedName]types.NamespacedName{},
		pods:     map[types.NamespacedName]*corev1.Pod{},
	}, nil
}

// Stats returns what the controller has done so far.
func (c *Controller) Stats() Stats { return c.stats }

func (c *Controller) ctx() context.Context {
	ctx := context.Background()
	if c.o.WithOrigin != nil {
		ctx = c.o.WithOrigin(ctx, Origin)
	}
	return ctx
}

func (c *Controller) event(reason, object, format string, args ...any) {
	if c.o.OnEvent != nil {
		c.o.OnEvent(reason, object, fmt.Sprintf(format, args...))
	}
}

// Start enqueues every existing binding and starts the periodic resync. It
// must be called once, outside world events or from one.
func (c *Controller) Start(ctx context.Context) error {
	if err := c.resync(ctx); err != nil {
		return err
	}
	c.sync = c.o.Clock.Every(c.o.Clock.Now().Add(c.o.SyncPeriod), c.o.SyncPeriod, "lbc resync", func(time.Time) {
		if err := c.resync(c.ctx()); err != nil {
			c.event("Error", "lbc", "resync: %v", err)
		}
	})
	return nil
}

// Stop cancels the pending reconciles and the resync.
func (c *Controller) Stop() {
	c.sync.Cancel()
	for k, p := range c.pending {
		p.h.Cancel()
		delete(c.pending, k)
	}
}

func (c *Controller) resync(ctx context.Context) error {
	var l v1beta1.TargetGroupBindingList
	if err := c.o.Client.List(ctx, &l); err != nil {
		return fmt.Errorf("lbc: list targetgroupbindings: %w", err)
	}
	for _, t := range l.Items {
		c.Enqueue(types.NamespacedName{Namespace: t.Namespace, Name: t.Name}, 0)
	}
	return nil
}

// Observe is the controller's watch: the world calls it for every change
// of a watched kind, with the origin the writer marked it with. A
// TargetGroupBinding is reconciled, unless the change is the controller's
// own write (its finalizer, checkpoint and status, which the real
// controller's predicates ignore too); a Service or EndpointSlice change
// reconciles the bindings that reference the Service; a Pod change
// refreshes the controller's pod cache.
func (c *Controller) Observe(kind string, key types.NamespacedName, labels map[string]string, origin string) {
	switch kind {
	case "TargetGroupBinding":
		if origin == Origin {
			return
		}
		c.Enqueue(key, c.o.ReactionDelay)
	case "Pod":
		if origin == Origin {
			return
		}
		if key.Name == "" {
			for k := range c.pods {
				if key.Namespace == "" || k.Namespace == key.Namespace {
					delete(c.pods, k)
				}
			}
			return
		}
		delete(c.pods, key)
	case "Service":
		c.enqueueFor(key.Namespace, key.Name)
	case "EndpointSlice":
		svc, ok := labels[discoveryv1.LabelServiceName]
		if !ok {
			svc = ""
		}
		c.enqueueFor(key.Namespace, svc)
	}
}

// enqueueFor enqueues the bindings of namespace ns that reference Service
// svc ("" for all of the namespace's).
func (c *Controller) enqueueFor(ns, svc string) {
	var keys []types.NamespacedName
	for b, s := range c.services {
		if b.Namespace == ns && (svc == "" || s.Name == svc) {
			keys = append(keys, b)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	for _, k := range keys {
		c.Enqueue(k, c.o.ReactionDelay)
	}
}

// Enqueue schedules a reconcile of a binding after d, unless one is
// already due sooner: the work queue deduplicates.
func (c *Controller) Enqueue(key types.NamespacedName, d time.Duration) {
	at := c.o.Clock.Now().Add(d)
	if p, ok := c.pending[key]; ok {
		if !p.at.After(at) {
			return
		}
		p.h.Cancel()
	}
	h := c.o.Clock.At(at, "lbc reconcile "+key.String(), func(time.Time) {
		delete(c.pending, key)
		c.run(key)
	})
	c.pending[key] = pendingReconcile{at: at, h: h}
}

// run reconciles a binding and requeues it as controller-runtime does:
// after the requested delay, or with per-item exponential backoff (5 ms
// doubling to 1000 s) after an error.
func (c *Controller) run(key types.NamespacedName) {
	res, err := c.Reconcile(c.ctx(), key)
	if err != nil {
		c.stats.Errors++
		n := c.failures[key]
		c.failures[key] = n + 1
		backoff := min(5*time.Millisecond<<min(n, 30), 1000*time.Second)
		c.event("ReconcileError", "targetgroupbinding/"+key.String(), "%v; retry in %v", err, backoff)
		c.Enqueue(key, backoff)
		return
	}
	delete(c.failures, key)
	if res.RequeueAfter > 0 {
		c.Enqueue(key, res.RequeueAfter)
	}
}

// getPod reads a pod through the controller's cache.
func (c *Controller) getPod(ctx context.Context, key types.NamespacedName) (*corev1.Pod, error) {
	if p, ok := c.pods[key]; ok {
		return p, nil
	}
	p := &corev1.Pod{}
	if err := c.o.Client.Get(ctx, key, p); err != nil {
		return nil, err
	}
	c.pods[key] = p
	return p, nil
}
