package karpenter

// karpenter.go: the Karpenter driver: Options, New, provisioning,
// ReplaceNode, ReplaceAll, Churn and its shapes.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/karpenterapi"
	"github.com/qstools/tgmigrate/internal/sim/cluster"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// Defaults of [Options].
const (
	DefaultLaunchDelay   = 45 * time.Second
	DefaultPollInterval  = 10 * time.Second
	DefaultEvictionRetry = 5 * time.Second
	DefaultExpireAfter   = 720 * time.Hour
	// Origin marks Karpenter's writes (see cluster.WithOrigin).
	Origin = "karpenter"
)

// Options configures [Karpenter]. Cluster is required.
type Options struct {
	// Cluster is the simulated cluster Karpenter launches and drains nodes
	// of. Its clock and client are Karpenter's.
	Cluster *cluster.Cluster
	// Seed seeds Karpenter's random stream (NodeClaim names).
	Seed uint64
	// NodePool is the one pool. See [NodePool] for its zero values.
	NodePool NodePool
	// LaunchDelay is the time from a NodeClaim's launch to its node being
	// Ready. Zero: [DefaultLaunchDelay].
	LaunchDelay time.Duration
	// PollInterval is the period of the disruption loop, which starts the
	// queued disruptions that budgets allow. Zero: [DefaultPollInterval].
	PollInterval time.Duration
	// EvictionRetry is the wait before a drain retries evictions a
	// PodDisruptionBudget refused. Zero: [DefaultEvictionRetry].
	EvictionRetry time.Duration
	// PublishObjects writes the NodePool and the NodeClaims as karpenter.sh/v1
	// objects (unstructured: the types are not in the scheme) so readers
	// such as Diagnose can see them. On a real API server their CRDs must
	// be installed first (see [CRDs]). False: they are model data only; the
	// nodes carry Karpenter's labels and taints either way.
	PublishObjects bool
	// Subnets returns the cluster's subnets, which the EC2NodeClass's
	// subnetSelectorTerms select from. Together with PublishObjects it
	// makes Karpenter follow the EC2NodeClass object (see nodeclass.go and
	// the package comment). Nil: nodes go where NodePool.Public says.
	Subnets func() []Subnet
	// NodeClass is the EC2NodeClass's initial spec. Its zero value selects,
	// by ID, the subnets of the kind NodePool.Public says.
	NodeClass NodeClass
	// DriftDelay is how long after a change of the EC2NodeClass the nodes
	// it no longer describes are marked Drifted. Zero: [DefaultDriftDelay].
	DriftDelay time.Duration
	// OnEvent receives Karpenter's world events. Nil: dropped.
	OnEvent func(reason, object, message string)
}

// Karpenter is the churn driver: it launches nodes for its NodePool and
// replaces them as consolidation, drift, expiry and interruption would,
// with Karpenter v1's termination sequence. It runs on the cluster's
// virtual clock; it is not safe for concurrent use.
type Karpenter struct {
	o       Options
	pool    NodePool
	budgets []karpenterapi.Budget
	class   *classState // nil: no EC2NodeClass is followed (see nodeclass.go)
	cl      *cluster.Cluster
	c       client.Client
	clock   *vclock.Clock
	rng     *rand.Rand
	// churnRNG draws the random churn shapes' times and nodes, apart from
	// rng so that names stay the same whatever the churn.
	churnRNG *rand.Rand

	claims    map[string]*claim // by node name
	seq       int
	queue     []*request
	history   []*Disruption
	loop      vclock.Handle
	churn     vclock.Handle
	churnTurn int
	kicked    bool
	// validating is the consolidation command waiting for its validation
	// (consolidation.go); the loop starts no graceful disruption meanwhile.
	validating *command
}

type claimState int

const (
	claimLaunching claimState = iota
	claimReady
	claimDisrupting // tainted, waiting for its replacement
	claimDraining
	claimTerminated
)

type claim struct {
	name, node string
	seq        int
	state      claimState
	// instanceType is the instance's type, which prices it.
	instanceType string
	createdAt    time.Time
	expireAt     time.Time
	expiry       vclock.Handle
	// deleted: someone else deleted the NodeClaim object (deletion.go).
	deleted       bool
	disruption    *Disruption
	waitingFor    *claim // the replacement a graceful disruption waits for
	drainDeadline time.Time
	// graceDeadline is Karpenter's node termination time (the drain's
	// start plus the NodePool's terminationGracePeriod; zero: none), by
	// which every pod must be gone: a pod is deleted at graceDeadline
	// minus its own grace period.
	graceDeadline time.Time
	retry         vclock.Handle
	deadline      vclock.Handle
	at            *placement // where the EC2NodeClass put it; nil: no class followed
}

type request struct {
	node     string
	reason   Reason
	queuedAt time.Time
	blocked  string
	// byClass: queued by the EC2NodeClass drift check, which withdraws it
	// when the class describes the node again.
	byClass bool
}

// Disruption is the record of one node's disruption.
type Disruption struct {
	// Node and NodeClaim name the node disrupted and its NodeClaim.
	Node, NodeClaim string
	// Reason is why Karpenter disrupts it.
	Reason Reason
	// Replacement is the node launched for it.
	Replacement string
	// QueuedAt: the disruption was decided; StartedAt: the node was tainted
	// and its replacement launched; DrainStartedAt: eviction began;
	// TerminatedAt: the instance was terminated. Zero while not reached.
	QueuedAt, StartedAt, DrainStartedAt, TerminatedAt time.Time
	// Evictions and BlockedEvictions count the eviction calls of the drain.
	Evictions, BlockedEvictions int
	// ForceDeleted counts the pods deleted when the drain was cut off.
	ForceDeleted int
	// CutOff names the pods ("namespace/name") still on the node at the
	// drain's deadline, deleted then with no grace (their preStop skipped)
	// as the instance went: of ForceDeleted, those the deadline killed
	// rather than those deleted gracefully ahead of it.
	CutOff []string
}

// New validates opts and returns a Karpenter with no node yet.
func New(opts Options) (*Karpenter, error) {
	bad := func(field, reason string) (*Karpenter, error) {
		return nil, &ConfigError{Op: "new", Field: field, Reason: reason}
	}
	if opts.Cluster == nil {
		return bad("Cluster", "is required")
	}
	if opts.LaunchDelay < 0 || opts.PollInterval < 0 || opts.EvictionRetry < 0 || opts.NodePool.TerminationGracePeriod < 0 {
		return bad("delays", "are negative")
	}
	if opts.LaunchDelay == 0 {
		opts.LaunchDelay = DefaultLaunchDelay
	}
	if opts.PollInterval == 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.EvictionRetry == 0 {
		opts.EvictionRetry = DefaultEvictionRetry
	}
	pool := opts.NodePool
	if pool.Name == "" {
		pool.Name = "default"
	}
	if pool.ExpireAfter == 0 {
		pool.ExpireAfter = DefaultExpireAfter
	}
	if pool.CapacityType == "" {
		pool.CapacityType = "on-demand"
	}
	if pool.CapacityType != "on-demand" && pool.CapacityType != "spot" {
		return bad("NodePool.CapacityType", fmt.Sprintf("%q is not on-demand or spot", pool.CapacityType))
	}
	if pool.InstanceType == "" {
		pool.InstanceType = "m5.large"
	}
	if pool.InstanceTypes == nil {
		pool.InstanceTypes = []string{pool.InstanceType}
	}
	for i, t := range append([]string{pool.InstanceType}, pool.InstanceTypes...) {
		if _, ok := InstancePrice(t, pool.CapacityType); !ok {
			field := "NodePool.InstanceType"
			if i > 0 {
				field = fmt.Sprintf("NodePool.InstanceTypes[%d]", i-1)
			}
			return bad(field, fmt.Sprintf("%q has no known price (want one of %v)", t, InstanceTypes()))
		}
	}
	if pool.ConsolidationPolicy == "" {
		pool.ConsolidationPolicy = ConsolidateWhenEmptyOrUnderutilized
	}
	if !pool.ConsolidationPolicy.valid() {
		return bad("NodePool.ConsolidationPolicy", fmt.Sprintf("%q is not WhenEmpty or WhenEmptyOrUnderutilized", pool.ConsolidationPolicy))
	}
	if pool.Budgets == nil {
		pool.Budgets = []Budget{{Nodes: "10%"}}
	}
	k := &Karpenter{
		o: opts, pool: pool, cl: opts.Cluster, c: opts.Cluster.Client(),
		clock:    opts.Cluster.Clock(),
		rng:      rand.New(rand.NewPCG(opts.Seed, 0x6b61727065)), // "karpe"
		churnRNG: rand.New(rand.NewPCG(opts.Seed, 0x636875726e)), // "churn"
		claims:   map[string]*claim{},
	}
	for i, b := range pool.Budgets {
		kb, err := apiBudget(b)
		if err != nil {
			return bad(fmt.Sprintf("NodePool.Budgets[%d]", i), err.Error())
		}
		k.budgets = append(k.budgets, kb)
	}
	if err := checkReasons(k.budgets); err != nil {
		return bad("NodePool.Budgets", err.Error())
	}
	if opts.DriftDelay < 0 {
		return bad("DriftDelay", "is negative")
	}
	if k.o.DriftDelay == 0 {
		k.o.DriftDelay = DefaultDriftDelay
	}
	if err := k.o.NodeClass.validate(); err != nil {
		return bad("NodeClass", err.Error())
	}
	return k, nil
}

// Start subscribes Karpenter to the cluster's changes, publishes the
// NodePool when asked to, and starts the disruption loop.
func (k *Karpenter) Start(ctx context.Context) error {
	if k.o.PublishObjects {
		if err := k.publishNodePool(ctx); err != nil {
			return err
		}
		if err := k.startClass(ctx); err != nil {
			return err
		}
	}
	if k.o.PublishObjects {
		// Karpenter's CRDs are installed: the cluster serves their kinds.
		k.cl.Hub().Serve(NodePoolGVK, NodeClaimGVK, EC2NodeClassGVK)
	}
	k.cl.Hub().Subscribe(k.observe)
	k.loop = k.clock.Every(k.clock.Now().Add(k.o.PollInterval), k.o.PollInterval, "karpenter disruption", func(time.Time) { k.disrupt(true) })
	return nil
}

// Stop ends the disruption loop and the churn. Drains in progress go on.
func (k *Karpenter) Stop() {
	k.loop.Cancel()
	k.churn.Cancel()
	if k.validating != nil {
		k.validating.timer.Cancel()
		k.validating = nil
	}
}

func (k *Karpenter) ctx() context.Context { return cluster.WithOrigin(context.Background(), Origin) }

func (k *Karpenter) event(reason, object, format string, args ...any) {
	if k.o.OnEvent != nil {
		k.o.OnEvent(reason, object, fmt.Sprintf(format, args...))
	}
}

func (k *Karpenter) suffix() string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, 5)
	for i := range b {
		b[i] = alphabet[k.rng.IntN(len(alphabet))]
	}
	return string(b)
}

// Provision launches n nodes that are Ready at once: the capacity the
// scenario starts with.
func (k *Karpenter) Provision(ctx context.Context, n int) ([]string, error) {
	if n < 0 {
		return nil, &ConfigError{Op: "provision", Field: "n", Reason: fmt.Sprintf("%d is negative", n)}
	}
	var names []string
	for range n {
		c, err := k.launchType(ctx, 0, k.pool.InstanceType)
		if err != nil {
			return names, err
		}
		names = append(names, c.node)
	}
	return names, nil
}

// launch creates a NodeClaim and launches its instance, of the pool's
// cheapest type.
func (k *Karpenter) launch(ctx context.Context, delay time.Duration) (*claim, error) {
	return k.launchType(ctx, delay, k.cheapest())
}

// launchType creates a NodeClaim and launches an instance of type it.
func (k *Karpenter) launchType(ctx context.Context, delay time.Duration, it string) (*claim, error) {
	ctx = cluster.WithOrigin(ctx, Origin)
	name := k.pool.Name + "-" + k.suffix()
	var at *placement
	if k.class != nil {
		p := k.class.place()
		at = &p
	}
	spec := cluster.NodeSpec{
		Public:       k.pool.Public,
		InstanceType: it,
		Labels: map[string]string{
			LabelNodePool: k.pool.Name, LabelCapacityType: k.pool.CapacityType,
			LabelRegistered: "true", LabelInitialized: "true",
		},
		// Karpenter's registration puts its termination finalizer on the
		// Node (nodeclaim/lifecycle/registration.go): deleting the Node
		// starts its termination, and the Node goes when Karpenter removes
		// the finalizer.
		Finalizers: []string{FinalizerTermination},
		Delay:      delay,
	}
	if at != nil {
		spec.Zone, spec.Public = at.zone, at.public
	}
	node, err := k.cl.LaunchNode(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("karpenter: launch %s: %w", name, err)
	}
	c := &claim{name: name, node: node, seq: k.seq, instanceType: it, createdAt: k.clock.Now(), at: at}
	k.seq++
	k.claims[node] = c
	if delay == 0 {
		c.state = claimReady
	}
	k.scheduleExpiry(c)
	k.event("Launched", "nodeclaim/"+name, "node %s", node)
	if k.o.PublishObjects {
		if err := k.publishClaim(ctx, c); err != nil {
			k.event("Error", "nodeclaim/"+name, "publish: %v", err)
		}
	}
	return c, nil
}

// ReplaceNode queues the disruption of a node for reason; the disruption
// loop starts it at its next poll when the candidate checks and budgets
// allow (graceful reasons) or at once (forceful ones). Underutilized and
// Empty mark the node Consolidatable: consolidation then decides whether
// it is deleted, replaced by a cheaper node, or left alone. A replacement
// is a new node, with new addresses.
func (k *Karpenter) ReplaceNode(name string, reason Reason) error {
	if !reason.valid() {
		return &ConfigError{Op: "replace node", Field: "reason", Reason: fmt.Sprintf("%q is not a disruption reason", reason)}
	}
	c := k.claims[name]
	if c == nil {
		return fmt.Errorf("karpenter: replace node %s: %w", name, ErrNotFound)
	}
	if c.state == claimTerminated || c.disruption != nil {
		return nil
	}
	for _, r := range k.queue {
		if r.node == name {
			if !reason.Graceful() && r.reason.Graceful() {
				r.reason = reason
			}
			k.kick()
			return nil
		}
	}
	k.queue = append(k.queue, &request{node: name, reason: reason, queuedAt: k.clock.Now()})
	k.event("DisruptionQueued", "node/"+name, "reason %s", reason)
	if k.o.PublishObjects && (reason == ReasonDrifted || reason == ReasonUnderutilized || reason == ReasonEmpty) {
		// Drift and consolidation are detected before they are acted on:
		// the NodeClaim shows it while the disruption waits.
		k.setClaimCondition(k.ctx(), c, conditionForReason(reason), "True", string(reason))
	}
	k.kick()
	return nil
}

// ReplaceAll queues the disruption of every current node for reason,
// spread evenly over within (all at once when it is zero), oldest first.
func (k *Karpenter) ReplaceAll(reason Reason, within time.Duration) error {
	if !reason.valid() {
		return &ConfigError{Op: "replace all", Field: "reason", Reason: fmt.Sprintf("%q is not a disruption reason", reason)}
	}
	if within < 0 {
		return &ConfigError{Op: "replace all", Field: "within", Reason: "is negative"}
	}
	nodes := k.live()
	for i, c := range nodes {
		node := c.node
		at := k.clock.Now()
		if len(nodes) > 1 {
			at = at.Add(within * time.Duration(i) / time.Duration(len(nodes)))
		}
		k.clock.At(at, "karpenter replace "+node, func(time.Time) { _ = k.ReplaceNode(node, reason) })
	}
	return nil
}

// Shape is the kind of churn a [Churn] schedule produces.
type Shape string

// The churn shapes. Steady, Wave and Consolidation are graceful: NodePool
// budgets and karpenter.sh/do-not-disrupt hold them. Expiry and Spot are
// forceful: nothing holds an expiry or an interruption.
const (
	// ShapeSteady: every Interval, the oldest node not being disrupted is
	// queued, with Reasons taken in turn (Drifted by default).
	ShapeSteady Shape = "steady"
	// ShapeWave: every Interval, Share of the live nodes (oldest first) are
	// marked Drifted at once, as a new AMI or a changed NodeClass does; the
	// NodePool's budget paces their replacement, and a node with pods
	// waits while a replacement is still launching.
	ShapeWave Shape = "wave"
	// ShapeConsolidation: at random intervals (exponential, mean Interval,
	// from the seed), the node with the fewest pods (the oldest of equals)
	// becomes Consolidatable, and Karpenter decides as it does
	// (consolidation.go): an empty node is deleted (Empty), a node whose
	// pods fit on the others is deleted (Underutilized), one whose pods do
	// not is replaced only by a cheaper instance type of the pool; no
	// replacement otherwise. The pool shrinks while it has room.
	ShapeConsolidation Shape = "consolidation"
	// ShapeExpiry: one node expires every Interval, oldest first, as the
	// NodeClaims' spec.expireAfter says: the NodePool's expireAfter is set
	// to the number of live nodes times Interval, and the live nodes'
	// ages are spread (their NodeClaims' creationTimestamp set back) so
	// that node i expires at Start + i x Interval; each replacement
	// expires expireAfter after its own launch. Expired, forceful: the
	// NodeClaim is deleted whatever the budgets and do-not-disrupt, and
	// the drain does not wait for the new node (expiry.go).
	ShapeExpiry Shape = "expiry"
	// ShapeSpot: at random intervals (exponential, mean Interval, from the
	// seed), EC2 interrupts a node picked at random: Interrupted, drained at
	// once and terminated after SpotInterruptionNotice, whatever the
	// budgets and annotations.
	ShapeSpot Shape = "spot"
)

// Shapes lists the churn shapes, in the order the CLI documents them.
var Shapes = []Shape{ShapeSteady, ShapeWave, ShapeConsolidation, ShapeExpiry, ShapeSpot}

// Churn is a disruption schedule of one [Shape].
type Churn struct {
	// Shape is the kind of churn. Zero: ShapeSteady.
	Shape Shape
	// Interval between disruptions (the mean one for consolidation and
	// spot; between waves for wave; between expiries for expiry).
	// Required.
	Interval time.Duration
	// Reasons are used in turn by ShapeSteady. Nil: Drifted. The other
	// shapes have their own reason.
	Reasons []Reason
	// Share is the part of the live nodes a wave marks, a count or a
	// percentage. Zero: "50%".
	Share string
	// Start is the first disruption (for expiry, rounded up to the
	// second, as creationTimestamps are). Zero: one Interval from now.
	Start time.Time
}

// StartChurn starts a schedule, replacing any earlier one.
func (k *Karpenter) StartChurn(ch Churn) error {
	bad := func(field, reason string) error { return &ConfigError{Op: "start churn", Field: field, Reason: reason} }
	if ch.Interval <= 0 {
		return bad("Interval", "must be positive")
	}
	if ch.Shape == "" {
		ch.Shape = ShapeSteady
	}
	if !slices.Contains(Shapes, ch.Shape) {
		return bad("Shape", fmt.Sprintf("%q is not one of %v", ch.Shape, Shapes))
	}
	if len(ch.Reasons) == 0 {
		ch.Reasons = []Reason{ReasonDrifted}
	}
	for _, r := range ch.Reasons {
		if !r.valid() {
			return bad("Reasons", fmt.Sprintf("%q is not a disruption reason", r))
		}
	}
	if ch.Share == "" {
		ch.Share = "50%"
	}
	share, err := Budget{Nodes: ch.Share}.parse()
	if err != nil {
		return bad("Share", err.Error())
	}
	if ch.Start.IsZero() {
		ch.Start = k.clock.Now().Add(ch.Interval)
	}
	k.churn.Cancel()
	switch ch.Shape {
	case ShapeSteady:
		k.churn = k.clock.Every(ch.Start, ch.Interval, "karpenter churn", func(time.Time) {
			for _, c := range k.live() {
				if k.idle(c) {
					r := ch.Reasons[k.churnTurn%len(ch.Reasons)]
					k.churnTurn++
					_ = k.ReplaceNode(c.node, r)
					return
				}
			}
		})
	case ShapeWave:
		k.churn = k.clock.Every(ch.Start, ch.Interval, "karpenter drift wave", func(time.Time) {
			var idle []*claim
			for _, c := range k.live() {
				if k.idle(c) {
					idle = append(idle, c)
				}
			}
			n, _ := intstr.GetScaledValueFromIntOrPercent(&share, len(k.live()), true)
			for _, c := range idle[:min(n, len(idle))] {
				_ = k.ReplaceNode(c.node, ReasonDrifted)
			}
		})
	case ShapeConsolidation, ShapeSpot:
		k.scheduleRandom(ch, ch.Start)
	case ShapeExpiry:
		return k.startExpiry(ch)
	}
	return nil
}

// scheduleRandom schedules the next consolidation or interruption at, and
// the one after it an exponential interval later.
func (k *Karpenter) scheduleRandom(ch Churn, at time.Time) {
	k.churn = k.clock.At(at, "karpenter "+string(ch.Shape), func(now time.Time) {
		var idle []*claim
		for _, c := range k.live() {
			if k.idle(c) {
				idle = append(idle, c)
			}
		}
		if len(idle) > 0 {
			if ch.Shape == ShapeSpot {
				_ = k.ReplaceNode(idle[k.churnRNG.IntN(len(idle))].node, ReasonInterrupted)
			} else {
				c := slices.MinFunc(idle, func(a, b *claim) int {
					return len(k.cl.PodsOnNode(a.node)) - len(k.cl.PodsOnNode(b.node))
				})
				_ = k.ReplaceNode(c.node, ReasonUnderutilized)
			}
		}
		next := time.Duration(k.churnRNG.ExpFloat64() * float64(ch.Interval))
		k.scheduleRandom(ch, now.Add(max(next, time.Second)))
	})
}

// idle reports whether c is Ready and neither being disrupted nor queued.
func (k *Karpenter) idle(c *claim) bool {
	return c.state == claimReady && c.disruption == nil && !k.queued(c.node)
}

func (k *Karpenter) queued(node string) bool {
	return slices.ContainsFunc(k.queue, func(r *request) bool { return r.node == node })
}

// live returns the claims whose instance runs, oldest first.
func (k *Karpenter) live() []*claim {
	var out []*claim
	for _, c := range k.claims {
		if c.state != claimTerminated {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// kick runs the disruption loop at the current instant (once).
func (k *Karpenter) kick() {
	if k.kicked {
		return
	}
	k.kicked = true
	k.clock.AfterEvent(0, "karpenter disruption", func(time.Time) {
		k.kicked = false
		k.disrupt(false)
	})
}

// Disruptions returns the disruptions so far, in the order they started
// (queued ones that have not started are not included).
func (k *Karpenter) Disruptions() []Disruption {
	out := make([]Disruption, 0, len(k.history))
	for _, d := range k.history {
		c := *d
		c.CutOff = slices.Clone(d.CutOff)
		out = append(out, c)
	}
	return out
}

// Queued returns the nodes whose disruption waits, with why.
func (k *Karpenter) Queued() map[string]string {
	out := map[string]string{}
	for _, r := range k.queue {
		out[r.node] = string(r.reason) + ": " + r.blocked
	}
	return out
}

// NodeClaim returns the name of a node's NodeClaim.
func (k *Karpenter) NodeClaim(node string) (string, bool) {
	c := k.claims[node]
	if c == nil {
		return "", false
	}
	return c.name, true
}

// observe follows the cluster: a replacement node turning Ready lets a
// graceful disruption drain; a pod leaving a draining node may finish the
// drain; a NodeClaim or a Node someone else deleted is terminated
// (deletion.go).
func (k *Karpenter) observe(ch cluster.Change) {
	if k.observeDeletion(ch) {
		return
	}
	switch ch.Kind {
	case "Node":
		if c := k.claims[ch.Key.Name]; c != nil && c.state == claimLaunching {
			if v, ok := k.cl.Node(c.node); ok && v.Phase == "Ready" {
				c.state = claimReady
				if k.o.PublishObjects {
					k.markRegistered(k.ctx(), c)
				}
				for _, o := range k.live() {
					if o.waitingFor == c {
						k.waitForReplacement(o)
					}
				}
				k.kick()
			}
		}
	case karpenterapi.EC2NodeClassGVK.Kind, karpenterapi.NodePoolGVK.Kind:
		k.observeObject(ch)
	case "Pod":
		for _, c := range k.live() {
			if c.state == claimDraining {
				k.finishDrain(c)
			}
		}
	}
}

func nodeDoNotDisrupt(ctx context.Context, c client.Client, name string) bool {
	n := &corev1.Node{}
	if err := c.Get(ctx, types.NamespacedName{Name: name}, n); err != nil {
		return false
	}
	return n.Annotations[AnnotationDoNotDisrupt] == "true"
}
