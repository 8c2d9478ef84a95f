package lbc

// controller.go: the Controller: Options, New, Start, Stop, Crash, its queue
// and Stats.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate"
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
	ReadinessGatePrefix = tgmigrate.ReadinessGatePrefix
	// LabelReadinessGateInject on a namespace enables readiness-gate
	// injection with the value "enabled".
	LabelReadinessGateInject = tgmigrate.LabelReadinessGateInject
	// TrackedTargetsPrefix prefixes the ConfigMap that records the targets
	// a multiClusterTargetGroup binding registered.
	TrackedTargetsPrefix = "aws-lbc-targets-"
	// TrackedTargetsKey is the ConfigMap key holding the CSV of IP:port.
	TrackedTargetsKey = "targets"
	// EventBackendNotFound is the event reason when the Service or its
	// port is missing.
	EventBackendNotFound = "BackendNotFound"
)

// The reasons of the Kubernetes Events the controller records on a
// binding, as the LBC spells them (pkg/k8s/events.go,
// TargetGroupBindingEventReason*). A reader tells a stuck binding from a
// slow one by these, never by an event's message.
const (
	// EventSuccessfullyReconciled (Normal): a full reconcile succeeded.
	EventSuccessfullyReconciled = "SuccessfullyReconciled"
	// EventFailedReconcile (Warning): a reconcile failed ("Failed
	// reconcile due to ..."), for example RegisterTargets was refused or
	// EC2 DescribeVpcs failed before it.
	EventFailedReconcile = "FailedReconcile"
	// EventFailedNetworkReconcile (Warning): the security-group step
	// failed (EC2 refused); the reconcile goes on and is requeued.
	EventFailedNetworkReconcile = "FailedNetworkReconcile"
	// EventFailedAddFinalizer (Warning): the finalizer could not be added.
	EventFailedAddFinalizer = "FailedAddFinalizer"
	// EventFailedUpdateStatus (Warning): the status could not be updated.
	EventFailedUpdateStatus = "FailedUpdateStatus"
	// EventFailedCleanup (Warning): the clean-up of a deleted binding
	// failed.
	EventFailedCleanup = "FailedCleanup"
)

// Defaults of [Options].
const (
	DefaultRequeueAfter = 15 * time.Second
	DefaultSyncPeriod   = 10 * time.Hour
	DefaultBatchSize    = 200
	// DefaultStartupDelay is the time from the process's start to its
	// first reconcile: about 2.3 s on the real controller (issue 34's
	// observation: the manager's start, the webhook server, the informers'
	// sync), not a figure of its source.
	DefaultStartupDelay = 2300 * time.Millisecond
	// DefaultDeferredDelay and DefaultDeferredJitter: a skipped binding's
	// checkpoint is reset after DefaultDeferredDelay plus up to
	// DefaultDeferredJitter (defaultDelayedReconcileTime and
	// defaultMaxJitter in the LBC's
	// controllers/elbv2/targetgroupbinding_deferred_reconciler.go).
	DefaultDeferredDelay  = 30 * time.Minute
	DefaultDeferredJitter = 15 * time.Minute
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
	// EC2 is the controller's EC2 client: every reconcile that is not
	// skipped reads through it (see network.go). Required.
	EC2 EC2API
	// VPCID is the cluster's VPC (the controller's --aws-vpc-id).
	// Required.
	VPCID string
	// ClusterName is the cluster's name (--cluster-name), in the tag
	// filter of the security groups it reads. Required.
	ClusterName string
	// PodSecurityGroup is the security group of the pods' network
	// interfaces (the nodes' under the VPC CNI), where the rules of
	// spec.networking go. Empty: spec.networking is read but no rule is
	// managed.
	PodSecurityGroup string
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
	// TargetsCacheTTL is how long the targets of a target group are kept
	// before they are all read again. Zero: [DefaultTargetsCacheTTL], the
	// LBC's 5 minutes. Negative: no cache, every reconcile reads them all.
	TargetsCacheTTL time.Duration
	// DeferredDelay and DeferredJitter: when a skipped binding's
	// checkpoint is reset (see [Controller.Reconcile]). Zero: the LBC's
	// [DefaultDeferredDelay] and [DefaultDeferredJitter].
	DeferredDelay, DeferredJitter time.Duration
	// Seed draws the deferred reconciler's jitter and the order of the
	// multi-cluster ConfigMap's targets (the LBC writes them in a Go map's
	// order, unsorted).
	Seed int64
	// BatchSize caps the targets of one RegisterTargets or
	// DeregisterTargets call. Zero: [DefaultBatchSize], the LBC's 200.
	BatchSize int
	// StartupDelay is the time from a restart ([Controller.Start] after
	// Stop or Crash, and the crash loop's restarts) to its first
	// reconcile: no reconcile runs sooner, and what changed meanwhile is
	// reconciled then. The first Start stands for a controller already
	// running when the world began, and has none. Zero:
	// [DefaultStartupDelay]. Negative: none.
	StartupDelay time.Duration
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
	// pods, slices and nodes stand in for the controller's informer
	// caches: objects read through the client (slices by Service), dropped
	// when the watch reports a change.
	pods   map[types.NamespacedName]*corev1.Pod
	slices map[types.NamespacedName][]discoveryv1.EndpointSlice
	nodes  map[string]*corev1.Node
	// cache is the targets cache (targets.go).
	cache *targetsCache
	// processed holds, until when, the bindings fully reconciled since
	// the controller started (the deferred reconciler's
	// processedTGBCache, whose TTL is SyncPeriod); deferred the pending
	// checkpoint resets.
	processed map[types.NamespacedName]time.Time
	deferred  map[types.NamespacedName]vclock.Handle
	// trackedCache is the multi-cluster manager's in-memory copy of each
	// binding's ConfigMap.
	trackedCache map[types.NamespacedName]map[string]bool
	// The network step's state (network.go): whether the cluster's
	// security groups were read, the rules each binding wants, the pod
	// security group's managed rules as last read and when, and when
	// each VPC was read.
	sgsFetched, managesRules bool
	rules                    map[string][]rule
	sgInfo                   map[rule]bool
	sgInfoAt                 time.Time
	vpcInfo                  map[string]time.Time
	rng                      *rand.Rand
	// crashes are the injected crashes (faults.go); a crash keeps them.
	crashes *crashState
	// lastEvent is the newest Event recorded on each binding (the event
	// correlator's memory).
	lastEvent map[types.UID]recordedEvent
	// down: the controller is not running (Stop, Crash); it sees no
	// change and reconciles nothing until Start.
	down, started bool
	// readyAt is when the process restarted last plus StartupDelay: no
	// reconcile runs before it. restarts counts the starts (the first
	// stands for a controller already running when the world began).
	readyAt  time.Time
	restarts int
	sync     vclock.Handle
	stats    Stats
	events   int
}

type pendingReconcile struct {
	at time.Time
	h  vclock.Handle
}

// Stats counts what the controller did.
type Stats struct {
	// Reconciles counts reconciles; Skipped those the checkpoint cut
	// short; Errors those that failed and were retried; Deferred the
	// checkpoint resets of the deferred reconciler.
	Reconciles, Skipped, Errors, Deferred int
	// CacheHits counts the target lists served by the targets cache;
	// EC2Calls the EC2 calls that succeeded; Crashes the injected crashes.
	CacheHits, EC2Calls, Crashes int
	// Registered and Deregistered count targets sent to AWS.
	Registered, Deregistered int
}

// New validates opts and returns a controller. It reconciles nothing until
// [Controller.Start].
func New(opts Options) (*Controller, error) {
	switch {
	case opts.Client == nil:
		return nil, &OptionsError{Pkg: "lbc", Op: "new", Field: "Client", Reason: "is required", OmitCategory: true}
	case opts.ELBv2 == nil:
		return nil, &OptionsError{Pkg: "lbc", Op: "new", Field: "ELBv2", Reason: "is required", OmitCategory: true}
	case opts.Clock == nil:
		return nil, &OptionsError{Pkg: "lbc", Op: "new", Field: "Clock", Reason: "is required", OmitCategory: true}
	case opts.EC2 == nil:
		return nil, &OptionsError{Pkg: "lbc", Op: "new", Field: "EC2", Reason: "is required", OmitCategory: true}
	case opts.VPCID == "":
		return nil, &OptionsError{Pkg: "lbc", Op: "new", Field: "VPCID", Reason: "is required", OmitCategory: true}
	case opts.ClusterName == "":
		return nil, &OptionsError{Pkg: "lbc", Op: "new", Field: "ClusterName", Reason: "is required", OmitCategory: true}
	case opts.RequeueAfter < 0 || opts.SyncPeriod < 0 || opts.ReactionDelay < 0 || opts.DeferredDelay < 0 || opts.DeferredJitter < 0:
		return nil, &OptionsError{Pkg: "lbc", Op: "new", Field: "RequeueAfter/SyncPeriod/ReactionDelay/DeferredDelay/DeferredJitter", Reason: "is negative", OmitCategory: true}
	case opts.BatchSize < 0:
		return nil, &OptionsError{Pkg: "lbc", Op: "new", Field: "BatchSize", Reason: fmt.Sprintf("%d is negative", opts.BatchSize), OmitCategory: true}
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
	switch {
	case opts.StartupDelay == 0:
		opts.StartupDelay = DefaultStartupDelay
	case opts.StartupDelay < 0:
		opts.StartupDelay = 0
	}
	switch {
	case opts.TargetsCacheTTL == 0:
		opts.TargetsCacheTTL = DefaultTargetsCacheTTL
	case opts.TargetsCacheTTL < 0:
		opts.TargetsCacheTTL = 0
	}
	if opts.DeferredDelay == 0 {
		opts.DeferredDelay = DefaultDeferredDelay
	}
	if opts.DeferredJitter == 0 {
		opts.DeferredJitter = DefaultDeferredJitter
	}
	c := &Controller{o: opts, rng: rand.New(rand.NewPCG(uint64(opts.Seed), 0x1bc))}
	c.reset()
	return c, nil
}

// reset drops everything the controller keeps in memory: what a restart
// loses.
func (c *Controller) reset() {
	c.pending = map[types.NamespacedName]pendingReconcile{}
	c.failures = map[types.NamespacedName]int{}
	c.services = map[types.NamespacedName]types.NamespacedName{}
	c.pods = map[types.NamespacedName]*corev1.Pod{}
	c.slices = map[types.NamespacedName][]discoveryv1.EndpointSlice{}
	c.nodes = map[string]*corev1.Node{}
	c.cache = newTargetsCache(c.o.TargetsCacheTTL)
	c.processed = map[types.NamespacedName]time.Time{}
	c.deferred = map[types.NamespacedName]vclock.Handle{}
	c.trackedCache = map[types.NamespacedName]map[string]bool{}
	c.lastEvent = map[types.UID]recordedEvent{}
	c.sgsFetched, c.managesRules = false, false
	c.rules = map[string][]rule{}
	c.sgInfo = nil
	c.vpcInfo = map[string]time.Time{}
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

// Start enqueues every existing binding and starts the periodic resync:
// the controller starts, or starts again after [Controller.Stop] or
// [Controller.Crash]. It must be called outside world events or from one.
func (c *Controller) Start(ctx context.Context) error {
	if c.started {
		return nil
	}
	c.started, c.down = true, false
	if c.restarts > 0 {
		c.readyAt = c.o.Clock.Now().Add(c.o.StartupDelay)
	}
	c.restarts++
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

// Stop stops the controller: the pending reconciles, the deferred resets
// and the resync are cancelled, and changes are not seen until
// [Controller.Start].
func (c *Controller) Stop() {
	c.started, c.down = false, true
	c.sync.Cancel()
	for k, p := range c.pending {
		p.h.Cancel()
		delete(c.pending, k)
	}
	for k, h := range c.deferred {
		h.Cancel()
		delete(c.deferred, k)
	}
}

// Crash stops the controller as a killed process stops: it also loses
// what it kept in memory (the pod and targets caches, the deferred
// reconciler's record, the ConfigMap copies, the EC2 caches). A later
// [Controller.Start] is a restart: every binding is reconciled again,
// and those whose checkpoint matches are skipped and deferred.
func (c *Controller) Crash() {
	c.Stop()
	c.reset()
	c.down = true
	c.event("Crashed", "lbc", "the controller stopped and lost its caches")
}

// Running reports whether the controller runs (started, and not stopped
// or crashed since).
func (c *Controller) Running() bool { return c.started }

func (c *Controller) resync(ctx context.Context) error {
	var l v1beta1.TargetGroupBindingList
	if err := c.o.Client.List(ctx, &l); err != nil {
		return fmt.Errorf("lbc: list targetgroupbindings: %w", err)
	}
	for _, t := range l.Items {
		c.Enqueue(types.NamespacedName{Namespace: t.Namespace, Name: t.Name}, c.o.ReactionDelay)
	}
	return nil
}

// Observe is the controller's watch: the world calls it for every change
// of a watched kind. As the LBC's watches do
// (controllers/elbv2/targetgroupbinding_controller.go, SetupWithManager,
// and controllers/elbv2/eventhandlers):
//
//   - any change of a TargetGroupBinding reconciles it, the controller's
//     own writes included (its finalizer, checkpoint and status: there is
//     no predicate), so a reconcile that writes is followed by another,
//     which the checkpoint usually skips;
//   - a change of an EndpointSlice reconciles the ip-mode bindings of its
//     Service;
//   - a change of a Pod refreshes the pod cache and reconciles the
//     bindings named by its readiness gates (the controller's own
//     condition writes included);
//   - Services and Nodes reconcile only instance-mode bindings, which the
//     stand-in does not model.
//
// origin is the writer's mark; the controller does not filter on it.
// While the controller is down, changes are lost, as a stopped process's
// watch events are.
func (c *Controller) Observe(kind string, key types.NamespacedName, labels map[string]string, origin string) {
	if c.down {
		return
	}
	switch kind {
	case "TargetGroupBinding":
		c.Enqueue(key, c.o.ReactionDelay)
	case "Pod":
		if key.Name == "" {
			for k := range c.pods {
				if key.Namespace == "" || k.Namespace == key.Namespace {
					delete(c.pods, k)
				}
			}
			return
		}
		gated := c.gatedBindings(key)
		delete(c.pods, key)
		for _, b := range gated {
			c.Enqueue(b, c.o.ReactionDelay)
		}
	case "EndpointSlice":
		svc, ok := labels[discoveryv1.LabelServiceName]
		if !ok {
			svc = ""
		}
		for k := range c.slices {
			if k.Namespace == key.Namespace && (svc == "" || k.Name == svc) || key.Namespace == "" {
				delete(c.slices, k)
			}
		}
		c.enqueueFor(key.Namespace, svc)
	case "Node":
		// The node cache only: Node changes reconcile instance-mode
		// bindings, which the stand-in does not model.
		if key.Name == "" {
			clear(c.nodes)
			return
		}
		delete(c.nodes, key.Name)
	}
}

// gatedBindings names the bindings a pod's readiness gates name, from the
// cached pod, or from a fresh read when it is not cached. A namespace with
// no binding the controller knows has none to name (a binding's own
// creation reconciles it anyway), so its pods are not read.
func (c *Controller) gatedBindings(key types.NamespacedName) []types.NamespacedName {
	known := false
	for b := range c.services {
		if b.Namespace == key.Namespace {
			known = true
			break
		}
	}
	if !known {
		return nil
	}
	p, ok := c.pods[key]
	if !ok {
		p = &corev1.Pod{}
		if err := c.o.Client.Get(c.ctx(), key, p); err != nil {
			return nil
		}
	}
	var out []types.NamespacedName
	for _, g := range p.Spec.ReadinessGates {
		if name, ok := strings.CutPrefix(string(g.ConditionType), ReadinessGatePrefix); ok {
			out = append(out, types.NamespacedName{Namespace: key.Namespace, Name: name})
		}
	}
	return out
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
// already due sooner: the work queue deduplicates. A stopped controller
// enqueues nothing.
func (c *Controller) Enqueue(key types.NamespacedName, d time.Duration) {
	if c.down {
		return
	}
	at := c.o.Clock.Now().Add(d)
	if at.Before(c.readyAt) {
		at = c.readyAt
	}
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
	if c.down || c.crashAt(CrashOnReconcile, key) {
		return
	}
	res, err := c.Reconcile(c.ctx(), key)
	if c.down {
		return // it crashed during the reconcile
	}
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

// deferReset hands a skipped binding to the deferred reconciler, as the
// LBC's does (controllers/elbv2/targetgroupbinding_deferred_reconciler.go):
// unless the binding was fully reconciled, or already deferred, within
// the last SyncPeriod, its checkpoint is reset DeferredDelay plus a
// random jitter of up to DeferredJitter later, which makes the next
// reconcile a full one. The LBC's processed cache is what keeps a binding
// that reconciled since the controller started from being deferred: only
// a restarted controller's skips are.
func (c *Controller) deferReset(key types.NamespacedName) {
	now := c.o.Clock.Now()
	if until, ok := c.processed[key]; ok && now.Before(until) {
		return
	}
	c.processed[key] = now.Add(c.o.SyncPeriod)
	d := c.o.DeferredDelay
	if c.o.DeferredJitter > 0 {
		d += time.Duration(c.rng.Int64N(int64(c.o.DeferredJitter)))
	}
	c.event("Deferred", "targetgroupbinding/"+key.String(), "checkpoint unchanged: reset in %v", d)
	c.deferred[key] = c.o.Clock.At(now.Add(d), "lbc deferred "+key.String(), func(time.Time) {
		delete(c.deferred, key)
		c.resetCheckpoint(key)
	})
}

// resetCheckpoint is the deferred reconciler's handleDeferredItem: the
// binding's checkpoint is set to "" (the write reconciles it). A missing
// binding is ignored; another failure defers it again.
func (c *Controller) resetCheckpoint(key types.NamespacedName) {
	ctx := c.ctx()
	tgb := &v1beta1.TargetGroupBinding{}
	if err := c.o.Client.Get(ctx, key, tgb); err != nil {
		if !apierrors.IsNotFound(err) {
			delete(c.processed, key)
			c.deferReset(key)
		}
		return
	}
	c.stats.Deferred++
	if err := c.saveCheckpoint(ctx, tgb, ""); err != nil {
		delete(c.processed, key)
		c.deferReset(key)
	}
}

// markProcessed records a full reconcile (MarkProcessed): it does not
// extend an entry already there.
func (c *Controller) markProcessed(key types.NamespacedName) {
	now := c.o.Clock.Now()
	if until, ok := c.processed[key]; ok && now.Before(until) {
		return
	}
	c.processed[key] = now.Add(c.o.SyncPeriod)
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
