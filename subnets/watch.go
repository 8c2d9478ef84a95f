package subnets

// watch.go: the watch of a drift-driven replacement, wave by wave, with
// the invariants between waves (each target group at or above its floor,
// no target in a zone its load balancers do not enable), the nodes it
// lists (the moved classes' and pools', by label selector), the nodes
// that depart in a move and in a rollback, and the verification that
// every node is private.

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/karpenterapi"
	"github.com/qstools/tgmigrate/internal/read"
)

// reasonNotInUse is ELBv2's reason for a target in a zone its load
// balancer does not enable.
const reasonNotInUse = "Target.NotInUse"

// listNodes lists the cluster's nodes through internal/read, each list
// with opts (nil: every node).
func (r *runner) listNodes(ctx context.Context, opts ...client.ListOption) ([]corev1.Node, error) {
	objs, err := read.ListCluster(ctx, r.env.Client, read.ClusterOptions{Kinds: []read.ListKind{read.ListNodes}, Policy: read.Require, PageSize: 500, ListOptions: opts})
	if err != nil {
		return nil, fmt.Errorf("subnets: %w", err)
	}
	return objs.Nodes, nil
}

// movedNodes lists the nodes the watch judges (those classOf knows): the
// nodes of the plan's node classes and pools, by label selector, so that
// a poll reads the moved pools' nodes and not the whole cluster's. A name
// that cannot be a label value (it then labels no node) makes no
// selector: every node is listed instead. No pod is read: a node departs
// when its Node object is gone, and the invariants rest on the target
// groups' health.
func (r *runner) movedNodes(ctx context.Context) ([]corev1.Node, error) {
	sels, err := movedSelectors(r.plan)
	if err != nil {
		r.env.log.V(1).Info("the moved nodes cannot be selected by label: listing every node", "error", err)
		return r.listNodes(ctx)
	}
	var out []corev1.Node
	for _, sel := range sels {
		nodes, err := r.listNodes(ctx, client.MatchingLabelsSelector{Selector: sel})
		if err != nil {
			return nil, err
		}
		out = append(out, nodes...)
	}
	return out, nil
}

// movedSelectors select the nodes of p's moves, in two disjoint lists:
// the nodes of its NodePools, and the nodes of its EC2NodeClasses
// outside those pools (whose pool is not the plan's, or who have none:
// classOf goes by the class label first).
func movedSelectors(p *Plan) ([]labels.Selector, error) {
	var classes, pools []string
	for _, c := range p.NodeClasses {
		classes = append(classes, c.Name)
	}
	for _, np := range p.NodePools {
		pools = append(pools, np.Name)
	}
	var sels []labels.Selector
	if len(pools) > 0 {
		in, err := labels.NewRequirement(karpenterapi.LabelNodePool, selection.In, pools)
		if err != nil {
			return nil, err
		}
		sels = append(sels, labels.NewSelector().Add(*in))
	}
	if len(classes) > 0 {
		in, err := labels.NewRequirement(karpenterapi.LabelNodeClass, selection.In, classes)
		if err != nil {
			return nil, err
		}
		sel := labels.NewSelector().Add(*in)
		if len(pools) > 0 {
			notIn, err := labels.NewRequirement(karpenterapi.LabelNodePool, selection.NotIn, pools)
			if err != nil {
				return nil, err
			}
			sel = sel.Add(*notIn)
		}
		sels = append(sels, sel)
	}
	return sels, nil
}

// classOf returns the plan's change of the node class n belongs to: by its
// EC2NodeClass label, else by its NodePool's.
func (r *runner) classOf(n *corev1.Node) (NodeClassChange, bool) {
	if name, ok := n.Labels[karpenterapi.LabelNodeClass]; ok {
		return r.plan.nodeClass(name)
	}
	if pool, ok := n.Labels[karpenterapi.LabelNodePool]; ok {
		for _, p := range r.plan.NodePools {
			if p.Name == pool {
				return r.plan.nodeClass(p.NodeClass)
			}
		}
	}
	return NodeClassChange{}, false
}

// addresses returns a node's InternalIP (zero when none) and its
// ExternalIPs.
func addresses(n *corev1.Node) (internal netip.Addr, external []string) {
	for _, a := range n.Status.Addresses {
		switch a.Type {
		case corev1.NodeInternalIP:
			if ip, err := netip.ParseAddr(a.Address); err == nil && !internal.IsValid() {
				internal = ip
			}
		case corev1.NodeExternalIP:
			external = append(external, a.Address)
		}
	}
	return internal, external
}

// privateSubnetOf returns the plan's private subnet holding ip.
func (r *runner) privateSubnetOf(ip netip.Addr) (Subnet, bool) {
	for _, s := range r.plan.PrivateSubnets {
		if p, err := netip.ParsePrefix(s.CIDR); err == nil && ip.IsValid() && p.Contains(ip) {
			return s, true
		}
	}
	return Subnet{}, false
}

// moveDeparts says whether the move drifts n: every node of a class whose
// associatePublicIPAddress changes (Karpenter's static hash), else every
// node of a moved class that is public or outside the private subnets the
// new terms select.
func (r *runner) moveDeparts(n *corev1.Node) bool {
	c, ok := r.classOf(n)
	if !ok {
		return false
	}
	if !samePtr(c.From.AssociatePublicIPAddress, c.To.AssociatePublicIPAddress) {
		return true
	}
	ip, ext := addresses(n)
	s, in := r.privateSubnetOf(ip)
	return len(ext) > 0 || !in || !karpenterapi.Selects(c.To.SubnetSelectorTerms, s.ID, s.Tags)
}

// rollbackDeparts says whether the rollback drifts n. A node the move's
// watch recorded (launched before the move, under the original fields)
// does not drift back. Of the others: every node of a class whose
// associatePublicIPAddress changes back, else every node in a private
// subnet the original terms do not select. Without the move's record (it
// crashed before its watch started), every node counts as launched by
// the move.
func (r *runner) rollbackDeparts(n *corev1.Node) bool {
	c, ok := r.classOf(n)
	if !ok {
		return false
	}
	if rec := step(r.st.Steps, StepWatchReplacement); rec != nil && (slices.Contains(rec.Departing, n.Name) || slices.Contains(rec.Kept, n.Name)) {
		return false
	}
	if !samePtr(c.From.AssociatePublicIPAddress, c.To.AssociatePublicIPAddress) {
		return true
	}
	ip, _ := addresses(n)
	s, in := r.privateSubnetOf(ip)
	return in && !karpenterapi.Selects(c.From.SubnetSelectorTerms, s.ID, s.Tags)
}

// lateDeparts says whether a node the move's watch did not see at its
// start must leave too: a node of a moved class that is public or outside
// the new selection (its launch began under the original fields, before
// the patch, and it registered after the watch started). Karpenter drifts
// it like the others.
func (r *runner) lateDeparts(n *corev1.Node) bool {
	c, ok := r.classOf(n)
	if !ok {
		return false
	}
	ip, ext := addresses(n)
	s, in := r.privateSubnetOf(ip)
	return len(ext) > 0 || !in || !karpenterapi.Selects(c.To.SubnetSelectorTerms, s.ID, s.Tags)
}

// rollbackLate says whether a node the rollback's watch did not see at
// its start must leave too: a node of a moved class, not recorded by the
// move's watch, that sits in one of the plan's private subnets the
// original terms do not select, or without the public address the
// original fields gave (its launch began under the move's fields, before
// the rollback's patch).
func (r *runner) rollbackLate(n *corev1.Node) bool {
	c, ok := r.classOf(n)
	if !ok {
		return false
	}
	if rec := step(r.st.Steps, StepWatchReplacement); rec != nil && (slices.Contains(rec.Departing, n.Name) || slices.Contains(rec.Kept, n.Name)) {
		return false
	}
	ip, ext := addresses(n)
	s, in := r.privateSubnetOf(ip)
	if !in {
		return false
	}
	wantPublic := c.From.AssociatePublicIPAddress != nil && *c.From.AssociatePublicIPAddress
	return (wantPublic && len(ext) == 0) || !karpenterapi.Selects(c.From.SubnetSelectorTerms, s.ID, s.Tags)
}

func samePtr(a, b *bool) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// watch waits until every node departs says will drift has left the
// cluster. The nodes are chosen when the watch first starts and kept in
// rec, so that a re-run waits for the same ones. A wave is a round of
// departures: it starts at an observation where nodes have left after one
// where none had. The invariants are checked at every observation; a zone
// violation holds at once, a floor violation once it has lasted the floor
// grace. A hold is an *InvariantError; the deadline a *WatchTimeoutError.
// late, when set, picks the nodes that appear after the watch started and
// must leave too: they join the departing nodes.
func (r *runner) watch(ctx context.Context, rec *StepState, departs, late func(*corev1.Node) bool) error {
	if rec.Departing == nil {
		nodes, err := r.movedNodes(ctx)
		if err != nil {
			return err
		}
		rec.Departing = []string{}
		for i := range nodes {
			if departs(&nodes[i]) {
				rec.Departing = append(rec.Departing, nodes[i].Name)
			} else if _, ok := r.classOf(&nodes[i]); ok {
				rec.Kept = append(rec.Kept, nodes[i].Name)
			}
		}
		slices.Sort(rec.Kept)
		slices.Sort(rec.Departing)
		rec.Remaining = slices.Clone(rec.Departing)
		if err := r.save(ctx); err != nil {
			return err
		}
	}
	var elb *read.Reader
	if len(r.plan.TargetGroups) > 0 {
		elb = read.New(r.env.ELBv2, read.NewCaller(read.Options{Clock: r.env.clock, Log: r.env.log, JoinCanceled: true}))
	}
	startAt := r.env.clock.Now()
	deadline := startAt.Add(r.o.timeout)
	below := map[string]time.Time{} // target group → since when below its floor
	inWave := false
	for {
		nodes, err := r.movedNodes(ctx)
		if err != nil {
			return err
		}
		present := map[string]bool{}
		joined := false
		for i, n := range nodes {
			present[n.Name] = true
			if late != nil && !slices.Contains(rec.Departing, n.Name) && !slices.Contains(rec.Kept, n.Name) && late(&nodes[i]) {
				rec.Departing = append(rec.Departing, n.Name)
				rec.Remaining = append(rec.Remaining, n.Name)
				joined = true
			}
		}
		var remaining, left []string
		for _, name := range rec.Remaining {
			if present[name] {
				remaining = append(remaining, name)
			} else {
				left = append(left, name)
			}
		}
		if len(left) > 0 && !inWave {
			rec.Waves++
		}
		inWave = len(left) > 0
		now := r.env.clock.Now()
		health, violations, err := r.invariants(ctx, elb)
		if err != nil {
			return err
		}
		var hold []Violation
		for _, v := range violations {
			if v.Kind == "zone" {
				hold = append(hold, v)
				continue
			}
			since, ok := below[v.TargetGroup]
			if !ok {
				below[v.TargetGroup], since = now, now
			}
			if r.o.floorGrace < 0 || now.Sub(since) >= r.o.floorGrace {
				hold = append(hold, v)
			}
		}
		for tg := range below {
			if !slices.ContainsFunc(violations, func(v Violation) bool { return v.TargetGroup == tg && v.Kind == "floor" }) {
				delete(below, tg)
			}
		}
		r.o.observer.Observed(WatchProgress{Step: rec.ID, At: now, Wave: rec.Waves, Departing: len(rec.Departing),
			Remaining: len(remaining), Left: left, TargetGroups: health, Violations: violations})
		r.env.log.V(1).Info("observed", "step", rec.ID, "wave", rec.Waves, "remaining", len(remaining), "violations", len(violations))
		if len(left) > 0 || joined {
			rec.Remaining = remaining
			if rec.Remaining == nil {
				rec.Remaining = []string{}
			}
			if err := r.save(ctx); err != nil {
				return err
			}
		}
		if len(hold) > 0 {
			return &InvariantError{Step: rec.ID, Wave: rec.Waves, At: now, Violations: hold}
		}
		if len(remaining) == 0 && len(violations) == 0 {
			return nil
		}
		if !now.Before(deadline) {
			return &WatchTimeoutError{Step: rec.ID, Timeout: r.o.timeout, Remaining: remaining}
		}
		if err := r.renew(ctx); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return read.ContextError(ctx)
		case <-r.env.clock.After(r.o.poll):
		}
	}
}

// invariants reads each watched target group's health and returns the
// violations: fewer healthy targets than the floor, and any target
// unused (Target.NotInUse) or in a zone outside the load balancers'.
func (r *runner) invariants(ctx context.Context, elb *read.Reader) ([]TargetGroupHealth, []Violation, error) {
	var health []TargetGroupHealth
	var out []Violation
	for _, tg := range r.plan.TargetGroups {
		descs, err := elb.TargetHealth(ctx, tg.ARN)
		if err != nil {
			return nil, nil, fmt.Errorf("subnets: observe target group %s: %w", tg.ARN, err)
		}
		h := TargetGroupHealth{ARN: tg.ARN, Floor: tg.Floor}
		for _, d := range descs {
			if d.TargetHealth == nil || d.Target == nil {
				continue
			}
			state, reason := d.TargetHealth.State, d.TargetHealth.Reason
			zone := ""
			if d.Target.AvailabilityZone != nil {
				zone = *d.Target.AvailabilityZone
			}
			switch {
			case state == elbv2types.TargetHealthStateEnumHealthy:
				h.Healthy++
			case state == elbv2types.TargetHealthStateEnumUnused || reason == reasonNotInUse:
				h.Unused++
				out = append(out, Violation{TargetGroup: tg.ARN, Kind: "zone", Detail: fmt.Sprintf("%s unused (%s)%s", target(d.Target), reason, inZone(zone))})
				continue
			}
			if zone != "" && zone != "all" && len(tg.Zones) > 0 && !slices.Contains(tg.Zones, zone) {
				h.Unused++
				out = append(out, Violation{TargetGroup: tg.ARN, Kind: "zone", Detail: fmt.Sprintf("%s in %s, which its load balancers do not enable (%v)", target(d.Target), zone, tg.Zones)})
			}
		}
		if h.Healthy < tg.Floor {
			out = append(out, Violation{TargetGroup: tg.ARN, Kind: "floor", Detail: fmt.Sprintf("%d healthy, floor %d", h.Healthy, tg.Floor)})
		}
		health = append(health, h)
	}
	return health, out, nil
}

func target(t *elbv2types.TargetDescription) string {
	id := ""
	if t.Id != nil {
		id = *t.Id
	}
	if t.Port != nil {
		return fmt.Sprintf("%s:%d", id, *t.Port)
	}
	return id
}

func inZone(z string) string {
	if z == "" {
		return ""
	}
	return " in " + z
}

// verify checks every node of the cluster: no ExternalIP, and an
// InternalIP in one of the plan's private subnets.
func (r *runner) verify(ctx context.Context) error {
	nodes, err := r.listNodes(ctx)
	if err != nil {
		return err
	}
	var bad []NodeProblem
	for i := range nodes {
		n := &nodes[i]
		ip, ext := addresses(n)
		switch _, in := r.privateSubnetOf(ip); {
		case len(ext) > 0:
			bad = append(bad, NodeProblem{Node: n.Name, Reason: fmt.Sprintf("ExternalIP %v", ext)})
		case !ip.IsValid():
			bad = append(bad, NodeProblem{Node: n.Name, Reason: "no InternalIP"})
		case !in:
			bad = append(bad, NodeProblem{Node: n.Name, Reason: fmt.Sprintf("InternalIP %s is in no private subnet of the plan", ip)})
		}
	}
	if len(bad) > 0 {
		slices.SortFunc(bad, func(a, b NodeProblem) int { return strings.Compare(a.Node, b.Node) })
		return &VerifyError{Nodes: bad}
	}
	return nil
}
