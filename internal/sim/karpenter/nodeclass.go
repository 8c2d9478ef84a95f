package karpenter

// nodeclass.go: the EC2NodeClass the pool's nodes launch from: its subnet
// selection and status.subnets, launches into the selected subnets, the
// drift a change of the class causes, and the budgets re-read from the
// NodePool object.

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/qstools/tgmigrate/internal/karpenterapi"
	"github.com/qstools/tgmigrate/internal/sim/cluster"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// NodeClassName is the name of the EC2NodeClass the NodePool references.
const NodeClassName = "default"

// DefaultDriftDelay is the default of Options.DriftDelay: the time from a
// change of the EC2NodeClass to its nodes being marked Drifted. It is an
// assumption of the simulator, not a figure of Karpenter's (see the
// package comment).
const DefaultDriftDelay = time.Minute

// Subnet is one of the cluster's subnets, as Options.Subnets reports it.
type Subnet struct {
	// ID and Zone name and place the subnet.
	ID, Zone string
	// Public: instances launched in it get a public address
	// (MapPublicIpOnLaunch), and the cluster gives its nodes an ExternalIP.
	Public bool
	// Tags are what subnetSelectorTerms match.
	Tags map[string]string
}

// NodeClass is the initial spec of the EC2NodeClass Karpenter publishes
// and follows.
type NodeClass struct {
	// SubnetSelectorTerms select the subnets nodes launch in. Nil: one ID
	// term for each subnet whose Public equals NodePool.Public.
	SubnetSelectorTerms []karpenterapi.SelectorTerm
	// AssociatePublicIPAddress, when set, decides whether nodes get a
	// public address; nil: the subnet decides.
	AssociatePublicIPAddress *bool
	// SecurityGroups are the nodes' security groups: the class selects
	// them by ID (spec.securityGroupSelectorTerms) and lists them in
	// status.securityGroups, as Karpenter resolves them. The nodes'
	// interfaces carry the world's groups whatever this says. Nil: none
	// written.
	SecurityGroups []karpenterapi.StatusSecurityGroup
}

func (nc NodeClass) validate() error {
	for i, t := range nc.SubnetSelectorTerms {
		if (t.ID == "") == (len(t.Tags) == 0) {
			return fmt.Errorf("SubnetSelectorTerms[%d]: a term is an id or tags, exactly one of them", i)
		}
	}
	return nil
}

// placement is where the EC2NodeClass put a node: the subnet chosen, and
// the associatePublicIPAddress of the class at launch (part of its static
// hash).
type placement struct {
	subnet, zone string
	public       bool
	assoc        *bool
}

// classState is the EC2NodeClass as Karpenter last read it.
type classState struct {
	terms    []karpenterapi.SelectorTerm
	assoc    *bool
	selected []Subnet // resolved, by zone then ID
	zoneTurn int
	drift    vclock.Handle
}

// place picks the subnet of the next launch: the selected zones in turn,
// the first selected subnet of the zone.
func (s *classState) place() placement {
	var zones []string
	for _, sn := range s.selected {
		if !slices.Contains(zones, sn.Zone) {
			zones = append(zones, sn.Zone)
		}
	}
	zone := zones[s.zoneTurn%len(zones)]
	s.zoneTurn++
	i := slices.IndexFunc(s.selected, func(sn Subnet) bool { return sn.Zone == zone })
	sn := s.selected[i]
	public := sn.Public
	if s.assoc != nil {
		public = *s.assoc
	}
	return placement{subnet: sn.ID, zone: sn.Zone, public: public, assoc: s.assoc}
}

// drifted reports why a node placed at p no longer matches the class, or
// "" when it does.
func (s *classState) drifted(p *placement) string {
	if !slices.ContainsFunc(s.selected, func(sn Subnet) bool { return sn.ID == p.subnet }) {
		return "SubnetDrift: subnet " + p.subnet + " is no longer selected"
	}
	if !reflect.DeepEqual(p.assoc, s.assoc) {
		return "NodeClassDrift: associatePublicIPAddress changed"
	}
	return ""
}

// resolve returns the cluster's subnets the terms select, by zone then ID.
func (k *Karpenter) resolve(terms []karpenterapi.SelectorTerm) []Subnet {
	var out []Subnet
	for _, sn := range k.o.Subnets() {
		if karpenterapi.Selects(terms, sn.ID, sn.Tags) {
			out = append(out, sn)
		}
	}
	slices.SortFunc(out, func(a, b Subnet) int {
		if a.Zone != b.Zone {
			if a.Zone < b.Zone {
				return -1
			}
			return 1
		}
		if a.ID < b.ID {
			return -1
		}
		if a.ID > b.ID {
			return 1
		}
		return 0
	})
	return out
}

func statusSubnets(sel []Subnet) []any {
	out := make([]any, 0, len(sel))
	for _, sn := range sel {
		out = append(out, map[string]any{"id": sn.ID, "zone": sn.Zone})
	}
	return out
}

func boolString(b *bool) string {
	if b == nil {
		return "unset"
	}
	return strconv.FormatBool(*b)
}

// startClass publishes the EC2NodeClass and starts following it, when
// Options.Subnets is set (called by Start with PublishObjects).
func (k *Karpenter) startClass(ctx context.Context) error {
	if k.o.Subnets == nil {
		return nil
	}
	s := &classState{terms: karpenterapi.CloneTerms(k.o.NodeClass.SubnetSelectorTerms), assoc: k.o.NodeClass.AssociatePublicIPAddress}
	if s.terms == nil {
		for _, sn := range k.o.Subnets() {
			if sn.Public == k.pool.Public {
				s.terms = append(s.terms, karpenterapi.SelectorTerm{ID: sn.ID})
			}
		}
	}
	if len(s.terms) == 0 {
		return &ConfigError{Op: "start", Field: "Subnets", Reason: fmt.Sprintf("no subnet with Public %t for the NodeClass's default selection", k.pool.Public)}
	}
	if s.selected = k.resolve(s.terms); len(s.selected) == 0 {
		return &ConfigError{Op: "start", Field: "NodeClass.SubnetSelectorTerms", Reason: "select none of the cluster's subnets"}
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": NodeClassName},
		"spec":     map[string]any{},
	}}
	u.SetGroupVersionKind(karpenterapi.EC2NodeClassGVK)
	if err := karpenterapi.SetSubnetSelection(u, s.terms, s.assoc); err != nil {
		return &ConfigError{Op: "start", Field: "NodeClass", Reason: err.Error()}
	}
	want := map[string]any{"subnets": statusSubnets(s.selected)}
	if sgs := k.o.NodeClass.SecurityGroups; len(sgs) > 0 {
		terms, status := make([]any, len(sgs)), make([]any, len(sgs))
		for i, g := range sgs {
			terms[i] = map[string]any{"id": g.ID}
			status[i] = map[string]any{"id": g.ID, "name": g.Name}
		}
		u.Object["spec"].(map[string]any)["securityGroupSelectorTerms"] = terms
		want["securityGroups"] = status
	}
	u.Object["status"] = want
	ctx = cluster.WithOrigin(ctx, Origin)
	if err := k.c.Create(ctx, u); err != nil {
		return fmt.Errorf("karpenter: create ec2nodeclass %s: %w", NodeClassName, err)
	}
	if err := k.ensureStatus(ctx, u, want); err != nil {
		return fmt.Errorf("karpenter: ec2nodeclass %s status: %w", NodeClassName, err)
	}
	k.class = s
	return nil
}

// ensureStatus makes status want stick on u, which a Create or an Update
// just returned: an API server with the status subresource ignores status
// there, and it is then written through the subresource.
func (k *Karpenter) ensureStatus(ctx context.Context, u *unstructured.Unstructured, want map[string]any) error {
	if got, _, _ := unstructured.NestedFieldNoCopy(u.Object, "status"); want == nil || reflect.DeepEqual(got, want) {
		return nil
	}
	u.Object["status"] = want
	return k.c.Status().Update(ctx, u)
}

// observeObject follows a change of the EC2NodeClass or the NodePool
// written by someone else: the object is re-read through the client, as
// Karpenter's controllers read their cache.
func (k *Karpenter) observeObject(ch cluster.Change) {
	if !k.o.PublishObjects || ch.Origin == Origin {
		return
	}
	switch {
	case ch.Kind == karpenterapi.NodePoolGVK.Kind && ch.Key.Name == k.pool.Name:
		k.rereadPool()
	case ch.Kind == karpenterapi.EC2NodeClassGVK.Kind && ch.Key.Name == NodeClassName && k.class != nil:
		k.rereadClass()
	}
}

// get reads one cluster-scoped Karpenter object.
func (k *Karpenter) get(ctx context.Context, gvk schema.GroupVersionKind, name string) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	if err := k.c.Get(ctx, types.NamespacedName{Name: name}, u); err != nil {
		return nil, err
	}
	return u, nil
}

func (k *Karpenter) rereadPool() {
	ctx := k.ctx()
	object := "nodepool/" + k.pool.Name
	u, err := k.get(ctx, karpenterapi.NodePoolGVK, k.pool.Name)
	if err != nil {
		k.event("Error", object, "read: %v", err)
		return
	}
	p, err := karpenterapi.NodePoolOf(u)
	if err == nil {
		err = checkReasons(p.EffectiveBudgets())
	}
	if err != nil {
		k.event("Error", object, "ignored: %v", err)
		return
	}
	budgets := karpenterapi.CloneBudgets(p.EffectiveBudgets())
	if reflect.DeepEqual(budgets, k.budgets) {
		return
	}
	k.budgets = budgets
	k.event("BudgetsChanged", object, "%v", budgets)
	k.kick()
}

func (k *Karpenter) rereadClass() {
	ctx := k.ctx()
	object := "ec2nodeclass/" + NodeClassName
	u, err := k.get(ctx, karpenterapi.EC2NodeClassGVK, NodeClassName)
	if err != nil {
		k.event("Error", object, "read: %v", err)
		return
	}
	nc, err := karpenterapi.EC2NodeClassOf(u)
	if err == nil && len(nc.SubnetSelectorTerms) == 0 {
		err = errors.New("spec.subnetSelectorTerms is empty")
	}
	if err != nil {
		k.event("Error", object, "ignored: %v", err)
		return
	}
	selected := k.resolve(nc.SubnetSelectorTerms)
	if len(selected) == 0 {
		k.event("Error", object, "ignored: spec.subnetSelectorTerms select none of the cluster's subnets")
		return
	}
	s := k.class
	changed := !reflect.DeepEqual(selected, s.selected) || !reflect.DeepEqual(nc.AssociatePublicIPAddress, s.assoc)
	s.terms, s.assoc, s.selected = nc.SubnetSelectorTerms, nc.AssociatePublicIPAddress, selected
	k.writeClassStatus(ctx, u, statusSubnets(selected))
	if !changed {
		return
	}
	k.event("NodeClassChanged", object, "%d subnets selected, associatePublicIPAddress %s; drift check in %s",
		len(selected), boolString(s.assoc), k.o.DriftDelay)
	s.drift.Cancel()
	s.drift = k.clock.AfterEvent(k.o.DriftDelay, "karpenter drift check", func(time.Time) { k.checkDrift() })
}

// writeClassStatus writes status.subnets of the EC2NodeClass u (as read)
// when it differs: through an Update, which writes status on a client
// without the status subresource, and through the subresource when the
// Update left status as it was.
func (k *Karpenter) writeClassStatus(ctx context.Context, u *unstructured.Unstructured, subnets []any) {
	if got, _, _ := unstructured.NestedFieldNoCopy(u.Object, "status", "subnets"); reflect.DeepEqual(got, subnets) {
		return
	}
	want, _, _ := unstructured.NestedMap(u.Object, "status")
	if want == nil {
		want = map[string]any{}
	}
	want["subnets"] = subnets
	u.Object["status"] = want
	err := k.c.Update(ctx, u)
	if err == nil {
		err = k.ensureStatus(ctx, u, want)
	}
	if err != nil {
		k.event("Error", "ec2nodeclass/"+u.GetName(), "status: %v", err)
	}
}

// checkDrift queues Drifted every live node the EC2NodeClass no longer
// describes; the disruption loop replaces them within the budgets. A node
// it queued earlier that the class describes again (a change rolled back
// before its turn) is no longer drifted: its request is withdrawn, as
// Karpenter clears the Drifted condition.
func (k *Karpenter) checkDrift() {
	var keep []*request
	for _, r := range k.queue {
		if c := k.claims[r.node]; r.byClass && c != nil && c.at != nil && k.class.drifted(c.at) == "" {
			k.event("DriftCleared", "nodeclaim/"+c.name, "the EC2NodeClass describes node %s again", c.node)
			if k.o.PublishObjects {
				k.setClaimCondition(k.ctx(), c, conditionForReason(ReasonDrifted), "False", "NotDrifted")
			}
			continue
		}
		keep = append(keep, r)
	}
	k.queue = keep
	for _, c := range k.live() {
		if c.at == nil || c.disruption != nil || k.queued(c.node) {
			continue
		}
		if why := k.class.drifted(c.at); why != "" {
			k.event("Drifted", "nodeclaim/"+c.name, "%s", why)
			if err := k.ReplaceNode(c.node, ReasonDrifted); err == nil && len(k.queue) > 0 && k.queue[len(k.queue)-1].node == c.node {
				k.queue[len(k.queue)-1].byClass = true
			}
		}
	}
}

// checkReasons checks that every budget names only graceful reasons.
func checkReasons(budgets []karpenterapi.Budget) error {
	for i, b := range budgets {
		for _, r := range b.Reasons {
			if !Reason(r).Graceful() {
				return fmt.Errorf("budgets[%d].reasons: %q is not a graceful reason (Underutilized, Empty, Drifted)", i, r)
			}
		}
	}
	return nil
}
