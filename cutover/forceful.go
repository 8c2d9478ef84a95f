package cutover

// forceful.go holds what a plan and Execute do about Karpenter's forceful
// disruption, which the hold cannot stop: the nodes that hold recorded
// node targets and expire within the run's window (ForcefulNode, the
// precondition PreconditionForcefulDisruption), their replacement before
// the cutover (WithReplaceFirst), the check of the window again at
// Execute's start, and the spot capacity among the serving nodes, a
// residual risk (Risk).

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/textcell"
)

// ForcefulNode is a node that holds recorded node targets and that
// Karpenter will disrupt forcefully within the run's window: its
// NodeClaim expires (creationTimestamp plus spec.expireAfter), and
// neither karpenter.sh/do-not-disrupt nor a budget holds an expiry.
// Karpenter then drains it (PodDisruptionBudgets apply; the NodeClaim's
// terminationGracePeriod caps the drain) and terminates it, and the load
// balancer may still send its node targets requests for the deregistration
// lag after they leave the target group: a drain shorter than the lag
// fails them.
type ForcefulNode struct {
	// Node and NodeClaim name it.
	Node      string `json:"node"`
	NodeClaim string `json:"nodeClaim,omitempty"`
	// Reason is why Karpenter disrupts it: "expiry".
	Reason string `json:"reason"`
	// At is when the disruption starts (the NodeClaim's expiry).
	At time.Time `json:"at"`
	// GoneBy is when it is terminated at the latest (At plus the
	// NodeClaim's terminationGracePeriod); nil when the drain is not
	// capped.
	GoneBy *time.Time `json:"goneBy,omitempty"`
	// Targets are its recorded node targets.
	Targets []TargetAddr `json:"targets"`
}

// brief is the node in a few words, relative to now.
func (n ForcefulNode) brief(now time.Time) string {
	s := fmt.Sprintf("%s expires at %s", n.Node, n.At.UTC().Format(time.RFC3339))
	if d := n.At.Sub(now); d > 0 {
		s += fmt.Sprintf(" (in %v)", d.Round(time.Second))
	} else {
		s += " (already due)"
	}
	return s
}

// RiskKind names a kind of [Risk].
type RiskKind string

// RiskSpotInterruption: nodes that serve the target group are spot
// capacity. EC2 may interrupt one at any time with two minutes' notice;
// nothing holds or foresees it.
const RiskSpotInterruption RiskKind = "spot-interruption"

// SpotInterruptionNotice is EC2's notice before it reclaims a spot
// instance: Karpenter taints the node and drains it when the notice comes,
// and the instance is gone when it ends.
const SpotInterruptionNotice = 2 * time.Minute

// Risk is a residual risk of the plan: something that may still fail
// requests whatever Execute does, with the bound the plan's assumptions
// give.
type Risk struct {
	// Kind names it.
	Kind RiskKind `json:"kind"`
	// Nodes are the nodes it concerns.
	Nodes []string `json:"nodes"`
	// Detail says what may happen and why, in one line.
	Detail string `json:"detail"`
	// ExposureSeconds bounds, per event, how long requests may still reach
	// a target whose holder is gone, under the plan's assumptions; From
	// says what it derives from.
	ExposureSeconds float64 `json:"exposureSeconds"`
	From            string  `json:"from"`
}

// String renders the risk on one line.
func (k Risk) String() string {
	return fmt.Sprintf("%s on %s (%s): %s; exposure per event at most %.0f s (%s)", k.Kind, textcell.Plural(len(k.Nodes), "node", "nodes"), joinFirst(k.Nodes, func(s string) string { return s }), k.Detail, k.ExposureSeconds, k.From)
}

// forcefulWindow is the stretch after the plan (and after Execute's start,
// when Execute checks again) within which an expiry concerns the cutover:
// the plan's estimate without a bounded overlap's waves (the recorded
// node targets are out of the load balancer's rotation well before it
// ends: they are deregistered once the pod targets are healthy, then
// drain) plus the deregistration lag.
func forcefulWindow(p *Plan) time.Duration {
	q := *p
	q.Quota = nil
	return time.Duration(inPlaceEstimate(&q).FloorSeconds)*time.Second + p.Request.Assumptions.Lag()
}

// forcefulNodes lists, by node, the recorded node targets' nodes whose
// NodeClaim expires before horizon, as reports classify them.
func forcefulNodes(reports []diagnose.TargetReport, horizon time.Time) []ForcefulNode {
	byNode := map[string]*ForcefulNode{}
	for _, r := range reports {
		if r.Class != diagnose.ClassNode || r.Node == nil || r.Node.ExpiresAt == nil || r.Node.ExpiresAt.After(horizon) || leaving(r) {
			continue // a node already leaving is a disruption under way: the hold step's settle meets it
		}
		n := byNode[r.Node.Name]
		if n == nil {
			n = &ForcefulNode{Node: r.Node.Name, NodeClaim: r.Node.NodeClaim, Reason: "expiry", At: r.Node.ExpiresAt.UTC()}
			if g := r.Node.TerminationGracePeriodSeconds; g != nil {
				by := n.At.Add(time.Duration(*g) * time.Second)
				n.GoneBy = &by
			}
			byNode[n.Node] = n
		}
		n.Targets = append(n.Targets, TargetAddr{IP: r.ID, Port: r.Port})
	}
	out := make([]ForcefulNode, 0, len(byNode))
	for _, name := range slices.Sorted(maps.Keys(byNode)) {
		out = append(out, *byNode[name])
	}
	return out
}

// forcefulPrecondition is the precondition of nodes, nil when there is none.
func forcefulPrecondition(nodes []ForcefulNode, window time.Duration, when string) *Precondition {
	if len(nodes) == 0 {
		return nil
	}
	return &Precondition{Kind: PreconditionForcefulDisruption, Nodes: nodes,
		Reason: fmt.Sprintf("%d nodes that hold recorded node targets expire within %v of %s (the run's estimate plus the deregistration lag): Karpenter disrupts them whatever the hold, and a drain shorter than the lag fails the requests the load balancer still sends their targets; replace them first (WithReplaceFirst: their targets are retired, the lag waited out, then their NodeClaims deleted so that Karpenter replaces them before the cutover) or accept the risk", len(nodes), window, when)}
}

// spotRisk is the residual risk of the spot nodes among the serving
// nodes (those of the recorded node targets and of the Service's pods),
// nil when there is none.
func spotRisk(reports []diagnose.TargetReport, snap *diagnose.Snapshot, podNodes []string, a Assumptions) *Risk {
	set := map[string]bool{}
	for _, r := range reports {
		if r.Class == diagnose.ClassNode && r.Node != nil && r.Node.CapacityType == "spot" {
			set[r.Node.Name] = true
		}
	}
	for _, name := range podNodes {
		if ref, ok := snap.Node(name); ok && ref.CapacityType == "spot" {
			set[name] = true
		}
	}
	if len(set) == 0 {
		return nil
	}
	a = a.WithDefaults()
	// A node target is retired when the notice taints the node (within
	// the reaction of the watch, or a poll without one); a pod target when
	// the controller deregisters the evicted pod (its delay); either takes
	// requests for the lag after that, and the instance is gone when the
	// notice ends.
	exposure := max(a.Lag()+a.Controller()-SpotInterruptionNotice, 0)
	return &Risk{Kind: RiskSpotInterruption, Nodes: slices.Sorted(maps.Keys(set)),
		Detail:          fmt.Sprintf("EC2 may interrupt a spot node at any time; Karpenter taints and drains it at the notice and the instance is gone %v later; Execute retires its node targets when it sees the taint (within WithReaction with a watch, else a poll) and the controller deregisters its pod targets; both still take requests for the deregistration lag", SpotInterruptionNotice),
		ExposureSeconds: exposure.Seconds(),
		From:            fmt.Sprintf("Assumptions.DeregistrationLag %v + ControllerDelay %v - the notice %v; the simulator's envelope measures it (simulate --envelope --churn spot)", a.Lag(), a.Controller(), SpotInterruptionNotice)}
}

// WithReplaceFirst accepts a plan's [PreconditionForcefulDisruption] by
// replacing those nodes before the cutover changes the target group: in
// its hold-disruption step Execute retires their recorded targets (with
// the invariants of a deregistration: never below the floor, which left
// them out), waits out the deregistration lag, then deletes their
// NodeClaims (Karpenter drains and replaces each, as for any deletion of
// a NodeClaim), journals each, and lets them run out before the cutover
// starts. Execute checks the window again at its start: the nodes it
// replaces are those expiring then. A rollback cannot bring a replaced
// node back; it registers the nodes alive at its time. Needs delete on
// nodeclaims.karpenter.sh (Plan.ClusterRules).
func WithReplaceFirst() Option { return func(o *options) { o.replaceFirst = true } }

// liveForceful reads, at Execute's start, which nodes of the plan's
// recorded node targets expire within the window from now. It reads the
// target group's part of the cluster (scope.go) with the NodeClaims; a
// cluster without Karpenter's CRDs has none.
func (r *runner) liveForceful(ctx context.Context) ([]ForcefulNode, error) {
	p := r.plan
	var targets []diagnose.Target
	for _, t := range p.Recorded {
		if t.Class == string(diagnose.ClassNode) {
			targets = append(targets, diagnose.Target{ID: t.IP, Port: t.Port})
		}
	}
	if len(targets) == 0 {
		return nil, nil
	}
	snap, _, err := r.observation(ctx, targets, true)
	if err != nil {
		return nil, fmt.Errorf("cutover: execute: the nodes' expiry: %w", err)
	}
	reports := diagnose.Classify(diagnose.TargetSet{VPCID: p.TargetGroup.VPCID, TargetType: p.TargetGroup.TargetType, Targets: targets}, snap)
	return forcefulNodes(reports, r.e.clock.Now().Add(forcefulWindow(p))), nil
}

// checkForceful is Execute's check of the window at its start, before the
// journal is written or the lock taken. A run whose recorded targets are
// already deregistered (a resume past the deregister step) has nothing to
// fear from an expiry and is not checked. Nodes that expire within the
// window from now are refused with a *PreconditionError unless the caller
// accepted the kind or replaces them first (then they are the ones
// replaced); accepted, they are a warning.
func (r *runner) checkForceful(ctx context.Context) error {
	p := r.plan
	if p.Strategy != StrategyInPlace {
		return nil // instance targets of a terminated instance take no request (EC2 tells ELB at once)
	}
	if st, err := r.j.Load(ctx, p.Ref()); err == nil {
		if rec := st.Step(StepDeregister); rec != nil && rec.Status == StepDone {
			return nil
		}
		if len(st.Replacements) > 0 {
			r.replace = slices.Clone(st.Replacements)
			return nil // a resumed replacement: the journal says which nodes
		}
	}
	nodes, err := r.liveForceful(ctx)
	if err != nil || len(nodes) == 0 {
		return err
	}
	accepted := slices.Contains(r.o.accepted, PreconditionForcefulDisruption)
	switch {
	case r.o.replaceFirst:
		for _, n := range nodes {
			r.replace = append(r.replace, Replacement{Node: n.Node, NodeClaim: n.NodeClaim, ExpiresAt: n.At, Targets: n.Targets})
		}
	case accepted:
		var s []string
		for _, n := range nodes {
			s = append(s, n.brief(r.e.clock.Now()))
		}
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("accepted: Karpenter disrupts %s forcefully during the run: %s; their targets are retired when Karpenter taints them", textcell.Plural(len(nodes), "node", "nodes"), strings.Join(s, "; ")))
	default:
		pc := forcefulPrecondition(nodes, forcefulWindow(p), "Execute's start")
		return &PreconditionError{PlanID: p.ID, Preconditions: []Precondition{*pc}}
	}
	return nil
}

// retireForReplacement deregisters the recorded targets of the nodes to
// replace first, unless done, and journals when. They left the floor out,
// so the floor's check is the deregister step's: the healthy targets that
// keep serving after them are at least the floor (waited out for the
// floor grace, as pods Karpenter rescheduled turn healthy).
func (r *runner) retireForReplacement(ctx context.Context, v *view) error {
	var batch []TargetAddr
	idx := map[TargetAddr]int{}
	for i := range r.st.Replacements {
		rep := &r.st.Replacements[i]
		if !rep.RetiredAt.IsZero() {
			continue
		}
		for _, t := range rep.Targets {
			vt, ok := v.has(t)
			if !ok || vt.state == stateDraining || r.st.Deregistered(t) || slices.Contains(r.st.Skipped, t) {
				continue
			}
			batch = append(batch, t)
			idx[t] = i
		}
	}
	if len(batch) > 0 {
		floor := r.st.Restore.Floor
		if after := servingAfter(v, batch); after < floor {
			return &InvariantError{Step: StepHoldDisruption, Check: "floor", Healthy: after, Floor: floor, Targets: batch,
				Detail: fmt.Sprintf("replacing first the nodes that expire during the run would leave %d healthy targets serving, below the floor of %d", after, floor)}
		}
		for len(batch) > 0 {
			n := min(len(batch), r.o.batchSize)
			if err := r.deregisterBatch(ctx, StepHoldDisruption, batch[:n], "retired to replace their nodes first (they expire during the run): "+joinAddrs(batch[:n])); err != nil {
				return err
			}
			r.retiredAt = r.e.clock.Now()
			batch = batch[n:]
		}
	}
	now := r.e.clock.Now()
	for i := range r.st.Replacements {
		if rep := &r.st.Replacements[i]; rep.RetiredAt.IsZero() {
			rep.RetiredAt = now
		}
	}
	return r.save(ctx)
}

// deleteReplaced deletes the NodeClaim of each node to replace whose
// targets have been out of the target group for the deregistration lag,
// and journals it; it reports how many still wait for their lag, and how
// many it deleted now (a wait goes on after a deletion: the next
// observation sees those nodes leave, and waits for them).
func (r *runner) deleteReplaced(ctx context.Context) (waiting, deleted int, err error) {
	lag := r.plan.Request.Assumptions.Lag()
	now := r.e.clock.Now()
	for i := range r.st.Replacements {
		rep := &r.st.Replacements[i]
		switch {
		case !rep.DeletedAt.IsZero():
			continue
		case now.Before(rep.RetiredAt.Add(lag)):
			waiting++
			continue
		}
		if rep.NodeClaim != "" {
			nc := &unstructured.Unstructured{}
			nc.SetGroupVersionKind(diagnose.NodeClaimGVK)
			nc.SetName(rep.NodeClaim)
			if err := r.e.Client.Delete(ctx, nc); client.IgnoreNotFound(err) != nil {
				return waiting, deleted, fmt.Errorf("cutover: %s: delete nodeclaim %s of node %s: %w", StepHoldDisruption, rep.NodeClaim, rep.Node, err)
			}
		}
		rep.DeletedAt = now
		deleted++
		r.st.Notes = append(r.st.Notes, fmt.Sprintf("replaced first: deleted NodeClaim %s of node %s (it expires at %s), %v after its targets were retired", rep.NodeClaim, rep.Node, rep.ExpiresAt.UTC().Format(time.RFC3339), now.Sub(rep.RetiredAt).Round(time.Second)))
		r.e.log.Info("node replaced first", "node", rep.Node, "nodeClaim", rep.NodeClaim, "expiresAt", rep.ExpiresAt)
		if err := r.save(ctx); err != nil {
			return waiting, deleted, err
		}
	}
	return waiting, deleted, nil
}
