package cluster

// cluster.go: the Cluster: New, its accessors, namespaces and workloads.

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/vclock"
)

// Origin is the [WithOrigin] mark of the cluster's own writes.
const Origin = "cluster"

// PodFinalizer keeps a deleted pod visible (Terminating) until the
// simulated kubelet has stopped it, on the fake client as on a real API
// server without kubelets. A real kubelet needs no finalizer: it is a
// modelling device.
const PodFinalizer = "sim.tgmigrate.qstools.dev/kubelet"

// Cluster is the simulated EKS cluster: nodes (EC2 instances) and their
// addresses, the scheduler, the kubelets, the ReplicaSets of its workloads,
// the EndpointSlice and disruption controllers, and kube-proxy. Its state
// lives in memory and is mirrored into the API through the client; what
// others write there (pod deletions, readiness-gate conditions, Services,
// PodDisruptionBudgets) comes back through the [Hub].
//
// A Cluster is driven by the virtual clock: its methods are called from
// world events, or by the goroutine that drives the world when no event is
// running. It is not safe for concurrent use.
//
// It is the simulated cluster itself, not [tgmigrate.Cluster], which is a
// read path's view of a cluster (name, reader, VPC, address ranges).
type Cluster struct {
	o     resolved
	c     client.Client
	clock *vclock.Clock
	hub   *Hub
	rng   *rand.Rand

	private, public map[string]*subnet // by zone
	publicIPs       *publicPool
	zoneTurn        int
	fargateTurn     int

	nodes     map[string]*node
	nodeSeq   int
	pods      map[types.NamespacedName]*pod
	podSeq    int
	pending   []*pod
	workloads map[types.NamespacedName]*workload
	services  map[svcKey]*service
	pdbs      map[types.NamespacedName]*pdb

	ipOwner   map[string]owner  // who answers at an address now
	ipHistory map[string]string // the owner an address had: "node/<name>" or "pod/<ns>/<name>"
	usedNames map[string]bool
	nodePorts map[int32]svcPortRef
	proxy     map[svcPortRef]*proxyTable

	endpointSyncs map[svcKey]bool
	pdbSyncs      map[types.NamespacedName]bool
}

// New builds an empty cluster. It validates opts and creates nothing.
func New(opts Options) (*Cluster, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	hub := o.Hub
	if hub == nil {
		hub = NewHub(o.Clock)
	}
	cl := &Cluster{
		o:             o,
		c:             hub.Client(o.Client),
		clock:         o.Clock,
		hub:           hub,
		rng:           rand.New(rand.NewPCG(o.Seed, 0x636c7573746572)), // "cluster"
		private:       map[string]*subnet{},
		public:        map[string]*subnet{},
		publicIPs:     newPublicPool(),
		nodes:         map[string]*node{},
		pods:          map[types.NamespacedName]*pod{},
		workloads:     map[types.NamespacedName]*workload{},
		services:      map[svcKey]*service{},
		pdbs:          map[types.NamespacedName]*pdb{},
		ipOwner:       map[string]owner{},
		usedNames:     map[string]bool{},
		ipHistory:     map[string]string{},
		nodePorts:     map[int32]svcPortRef{},
		proxy:         map[svcPortRef]*proxyTable{},
		endpointSyncs: map[svcKey]bool{},
		pdbSyncs:      map[types.NamespacedName]bool{},
	}
	for i, z := range o.Zones {
		cl.private[z] = newSubnet(fmt.Sprintf("subnet-private-%s", z), z, false, splitPrefix(o.cidr, 3, i))
		cl.public[z] = newSubnet(fmt.Sprintf("subnet-public-%s", z), z, true, splitPrefix(o.cidr, 3, 4+i))
	}
	hub.Subscribe(cl.observe)
	return cl, nil
}

// Client returns the cluster's client: the one given in [Options], wrapped
// by the hub so that its writes are observed. Give it to every simulated
// controller and to the system under test.
func (cl *Cluster) Client() client.Client { return cl.c }

// Clock returns the cluster's virtual clock.
func (cl *Cluster) Clock() *vclock.Clock { return cl.clock }

// Hub returns the hub that observes the client's writes.
func (cl *Cluster) Hub() *Hub { return cl.hub }

// Region returns the cluster's region.
func (cl *Cluster) Region() string { return cl.o.Region }

// VPCID returns the cluster's VPC.
func (cl *Cluster) VPCID() string { return cl.o.VPCID }

// VPCCIDR returns the VPC's CIDR.
func (cl *Cluster) VPCCIDR() string { return cl.o.cidr.String() }

// Zones returns the availability zones.
func (cl *Cluster) Zones() []string { return slices.Clone(cl.o.Zones) }

func (cl *Cluster) ctx() context.Context { return WithOrigin(context.Background(), Origin) }

func (cl *Cluster) event(reason, object, format string, args ...any) {
	if cl.o.OnEvent != nil {
		cl.o.OnEvent(reason, object, fmt.Sprintf(format, args...))
	}
}

func (cl *Cluster) now() time.Time { return cl.clock.Now() }

// EnsureNamespace creates the namespace if it does not exist and sets the
// given labels on it.
func (cl *Cluster) EnsureNamespace(ctx context.Context, name string, lbls map[string]string) error {
	if name == "" {
		return &ConfigError{Op: "ensure namespace", Field: "name", Reason: "is empty"}
	}
	ctx = WithOrigin(ctx, Origin)
	ns := &corev1.Namespace{}
	err := cl.c.Get(ctx, client.ObjectKey{Name: name}, ns)
	switch {
	case apierrors.IsNotFound(err):
		ns = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls}}
		if err := cl.c.Create(ctx, ns); err != nil {
			return fmt.Errorf("cluster: create namespace %s: %w", name, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("cluster: get namespace %s: %w", name, err)
	}
	if len(lbls) == 0 {
		return nil
	}
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	for k, v := range lbls {
		ns.Labels[k] = v
	}
	if err := cl.c.Update(ctx, ns); err != nil {
		return fmt.Errorf("cluster: label namespace %s: %w", name, err)
	}
	return nil
}

// AddWorkload validates w, creates its PodDisruptionBudget when it has one,
// and schedules its pods. Pods that find no schedulable node wait until a
// node is Ready.
func (cl *Cluster) AddWorkload(ctx context.Context, w Workload) error {
	if err := cl.defaultWorkload(&w); err != nil {
		return err
	}
	key := types.NamespacedName{Namespace: w.Namespace, Name: w.Name}
	if _, ok := cl.workloads[key]; ok {
		return &ConfigError{Op: "add workload", Field: "Name", Reason: fmt.Sprintf("workload %s exists", key)}
	}
	wl := &workload{spec: w, selector: labels.SelectorFromSet(w.Labels), hash: templateHash(key.String())}
	ctx = WithOrigin(ctx, Origin)
	if w.PDB != nil {
		if err := cl.createPDB(ctx, wl); err != nil {
			return err
		}
	}
	cl.workloads[key] = wl
	for range w.Replicas {
		p := cl.newPod(wl)
		if w.AlreadyRunning {
			cl.placeWarm(p)
		} else {
			cl.schedule(p)
		}
	}
	return nil
}

func (cl *Cluster) defaultWorkload(w *Workload) error {
	bad := func(field, reason string) error {
		return &ConfigError{Op: "add workload", Field: field, Reason: reason}
	}
	if w.Namespace == "" || w.Name == "" {
		return bad("Namespace/Name", "are required")
	}
	if w.Replicas < 1 {
		return bad("Replicas", fmt.Sprintf("%d: at least 1", w.Replicas))
	}
	if w.Labels == nil {
		w.Labels = map[string]string{"app": w.Name}
	}
	if w.ContainerPort == 0 {
		w.ContainerPort = DefaultContainerPort
	}
	if w.ContainerPort < 1 || w.ContainerPort > 65535 {
		return bad("ContainerPort", fmt.Sprintf("%d is not a port", w.ContainerPort))
	}
	if w.PortName == "" {
		w.PortName = DefaultPortName
	}
	if w.ReadinessPath == "" {
		w.ReadinessPath = DefaultReadinessPath
	}
	if !strings.HasPrefix(w.ReadinessPath, "/") {
		return bad("ReadinessPath", fmt.Sprintf("%q does not start with /", w.ReadinessPath))
	}
	if w.StartupDelay == 0 {
		w.StartupDelay = DefaultStartupDelay
	}
	if w.ReadinessDelay == 0 {
		w.ReadinessDelay = DefaultReadinessDelay
	}
	if w.TerminationGracePeriod == 0 {
		w.TerminationGracePeriod = DefaultTerminationGracePeriod
	}
	if w.StartupDelay < 0 || w.ReadinessDelay < 0 || w.PreStop < 0 || w.TerminationGracePeriod < 0 {
		return bad("delays", "are negative")
	}
	if w.PDB != nil && (w.PDB.MinAvailable == nil) == (w.PDB.MaxUnavailable == nil) {
		return bad("PDB", "set exactly one of MinAvailable and MaxUnavailable")
	}
	return nil
}

// templateHash stands in for a ReplicaSet's pod-template-hash.
func templateHash(s string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(s))
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	v := h.Sum32()
	var b strings.Builder
	for range 10 {
		b.WriteByte(alphabet[v%uint32(len(alphabet))])
		v = v/uint32(len(alphabet)) + 0x9e3779b9*uint32(b.Len())
	}
	return b.String()
}

func (cl *Cluster) suffix(n int) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[cl.rng.IntN(len(alphabet))]
	}
	return string(b)
}

// sortedNodes returns the nodes in launch order.
func (cl *Cluster) sortedNodes() []*node {
	out := make([]*node, 0, len(cl.nodes))
	for _, n := range cl.nodes {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// sortedPods returns the pods (not gone) in creation order.
func (cl *Cluster) sortedPods() []*pod {
	out := make([]*pod, 0, len(cl.pods))
	for _, p := range cl.pods {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

func (cl *Cluster) sortedServices() []*service {
	out := make([]*service, 0, len(cl.services))
	for _, s := range cl.services {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key.String() < out[j].key.String() })
	return out
}

func (cl *Cluster) sortedPDBs() []*pdb {
	out := make([]*pdb, 0, len(cl.pdbs))
	for _, p := range cl.pdbs {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key.String() < out[j].key.String() })
	return out
}
