package karpenter

// deletion.go: deletion by others: a NodeClaim or a Node of Karpenter's that
// anyone else deletes is terminated at once (Deleted), as Karpenter's
// termination controllers finalize it, and the Node's termination
// finalizer, removed once the instance is gone.

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/sim/cluster"
)

// observeDeletion handles ch when it is the deletion, by anyone but
// Karpenter, of one of its NodeClaims or of one of its Nodes (the cluster's
// deletion of a Node whose instance Karpenter terminated is Karpenter's
// own). It reports whether ch was such a deletion.
//
// Karpenter v1 (kubernetes-sigs/karpenter): a NodeClaim being deleted is
// finalized by nodeclaim/lifecycle (its Node is deleted, then the instance
// terminated, then the NodeClaim's finalizer removed); a Node being deleted
// by node/termination (its NodeClaim deleted, the node tainted
// karpenter.sh/disrupted, drained through the Eviction API, PDBs and
// the NodeClaim's terminationGracePeriod applying, the instance
// terminated, the Node's finalizer removed). Neither looks at budgets or
// karpenter.sh/do-not-disrupt: the disruption is forceful, reason Deleted.
func (k *Karpenter) observeDeletion(ch cluster.Change) bool {
	if ch.Op != cluster.OpDelete || ch.Origin == Origin || ch.Key.Name == "" {
		return false
	}
	var c *claim
	switch ch.Kind {
	case NodeClaimGVK.Kind:
		c = k.claimNamed(ch.Key.Name)
	case "Node":
		if ch.Origin == cluster.Origin {
			return false
		}
		c = k.claims[ch.Key.Name]
	}
	if c == nil {
		return false
	}
	ctx := k.ctx()
	if !k.beingDeleted(ctx, ch.Kind, ch.Key.Name) {
		return true
	}
	if ch.Kind == NodeClaimGVK.Kind {
		c.deleted = true
	}
	switch c.state {
	case claimTerminated, claimDraining:
		// Terminating already.
	case claimLaunching:
		k.terminateUnregistered(ctx, c)
	case claimDisrupting:
		// A graceful disruption waiting for its replacement: the
		// termination does not wait.
		k.event("DeletedByUser", kindObject(ch.Kind, ch.Key.Name), "node %s: its drain starts now", c.node)
		c.waitingFor = nil
		k.beginDrain(ctx, c)
	default:
		k.event("DeletedByUser", kindObject(ch.Kind, ch.Key.Name), "node %s", c.node)
		_ = k.ReplaceNode(c.node, ReasonDeleted)
	}
	return true
}

func kindObject(kind, name string) string {
	if kind == "Node" {
		return "node/" + name
	}
	return "nodeclaim/" + name
}

// claimNamed returns the claim of a NodeClaim name, or nil.
func (k *Karpenter) claimNamed(name string) *claim {
	for _, c := range k.claims {
		if c.name == name {
			return c
		}
	}
	return nil
}

// beingDeleted reports whether the object is gone or marked for deletion:
// a deletion that a finalizer holds leaves a deletionTimestamp.
func (k *Karpenter) beingDeleted(ctx context.Context, kind, name string) bool {
	var obj client.Object = &corev1.Node{}
	if kind == NodeClaimGVK.Kind {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(NodeClaimGVK)
		obj = u
	}
	if err := k.c.Get(ctx, types.NamespacedName{Name: name}, obj); err != nil {
		return apierrors.IsNotFound(err)
	}
	return !obj.GetDeletionTimestamp().IsZero()
}

// terminateUnregistered ends a NodeClaim deleted before its node
// registered: there is nothing to drain; the instance is terminated and
// the finalizer removed (nodeclaim/lifecycle's finalize deletes Nodes only
// once registered). A graceful disruption waiting for it as its
// replacement launches another one (waitForReplacement).
func (k *Karpenter) terminateUnregistered(ctx context.Context, c *claim) {
	now := k.clock.Now()
	k.queue = removeRequest(k.queue, c.node)
	c.disruption = &Disruption{Node: c.node, NodeClaim: c.name, Reason: ReasonDeleted, QueuedAt: now, StartedAt: now, DrainStartedAt: now}
	k.history = append(k.history, c.disruption)
	c.state = claimDraining
	k.event("Disrupting", "node/"+c.node, "reason %s; not registered: nothing to drain", ReasonDeleted)
	k.terminate(ctx, c)
}

func removeRequest(q []*request, node string) []*request {
	out := q[:0]
	for _, r := range q {
		if r.node != node {
			out = append(out, r)
		}
	}
	return out
}

// releaseNode removes Karpenter's termination finalizer from a Node whose
// instance is gone, which lets the Node object go.
func (k *Karpenter) releaseNode(ctx context.Context, c *claim) {
	for range 3 {
		n := &corev1.Node{}
		if err := k.c.Get(ctx, types.NamespacedName{Name: c.node}, n); err != nil {
			if !apierrors.IsNotFound(err) {
				k.event("Error", "node/"+c.node, "get: %v", err)
			}
			return
		}
		keep := n.Finalizers[:0]
		for _, f := range n.Finalizers {
			if f != FinalizerTermination {
				keep = append(keep, f)
			}
		}
		if len(keep) == len(n.Finalizers) {
			return
		}
		n.Finalizers = keep
		err := k.c.Update(ctx, n)
		if err == nil || apierrors.IsNotFound(err) {
			return
		}
		if !apierrors.IsConflict(err) {
			k.event("Error", "node/"+c.node, "remove finalizer: %v", err)
			return
		}
	}
}
