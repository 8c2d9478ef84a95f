// Package karpenter is the churn driver of the simulator: a stand-in for
// Karpenter v1 with one NodePool, which replaces nodes as consolidation,
// drift, expiry, spot interruption and manual deletion would.
//
// # Files
//
//   - doc.go: this comment.
//   - disruption.go: one node's disruption: budgets, do-not-disrupt,
//     replacement, drain, termination and cut-offs.
//   - karpenter.go: the Karpenter driver: Options, New, provisioning,
//     ReplaceNode, ReplaceAll, Churn and its shapes.
//   - objects.go: the NodePool and NodeClaim objects it publishes, and their
//     CRDs.
//   - types.go: Reason, Budget, NodePool and the package's errors.
//
// # Disruption
//
// [Karpenter.ReplaceNode] queues one node, [Karpenter.ReplaceAll] every
// node spread over a window, [Karpenter.StartChurn] a schedule of one
// [Shape]: steady (the oldest node per interval), wave (a share of the
// nodes drifted at once, paced by the budget), consolidation (the node
// with the fewest pods, at random intervals) or spot (a random node
// interrupted, at random intervals); a NodeClaim reaching its expireAfter
// queues itself. The
// disruption loop (every PollInterval, and at once on a change) starts
// what may start:
//
//   - Graceful reasons (Underutilized, Empty, Drifted) wait for the
//     NodePool's budgets ([Budget]: a count or a percentage of the pool's
//     Ready nodes, rounded up, minus the nodes being disrupted; the
//     smallest budget that applies to the reason) and are blocked by
//     karpenter.sh/do-not-disrupt on the node or on any of its pods.
//   - Forceful reasons (Expired, Interrupted, Deleted) start at once.
//
// # Termination sequence
//
//  1. taint karpenter.sh/disrupted:NoSchedule, and launch the replacement
//     node (new instance, new addresses), which is Ready after LaunchDelay;
//  2. graceful reasons wait for the replacement to be Ready (forceful ones
//     do not); the NodeClaim is deleted;
//  3. label node.kubernetes.io/exclude-from-external-load-balancers;
//  4. evict every pod through the Eviction API; PodDisruptionBudgets apply
//     to every reason, and refused evictions are retried after
//     EvictionRetry; evicted pods are replaced at once, on the schedulable
//     node with the fewest pods (the fresh replacement);
//  5. when no pod is left (after their preStop sleeps), terminate the
//     instance: its addresses stop answering. The NodeClaim's finalizer
//     karpenter.sh/termination is removed.
//
// The NodePool's TerminationGracePeriod caps the drain: at the deadline the
// pods left are deleted and the instance terminated. A spot interruption
// is cut off after [SpotInterruptionNotice] (2 minutes), as EC2 reclaims
// the instance.
//
// # Objects
//
// Nodes carry karpenter.sh/nodepool, karpenter.sh/capacity-type,
// karpenter.sh/registered and karpenter.sh/initialized. With
// Options.PublishObjects the NodePool and the NodeClaims are written as
// unstructured karpenter.sh/v1 objects (the types are not in the scheme):
// NodeClaims carry the nodepool label, a creationTimestamp on the virtual
// clock (so that creationTimestamp plus spec.expireAfter is the expiry, as
// Karpenter computes it), spec.expireAfter, spec.terminationGracePeriod,
// status.nodeName, status.providerID and the conditions Launched,
// Registered, Initialized, Drifted (or Expired, Consolidatable) and
// InstanceTerminating. [CRDs] returns minimal stand-in
// CRDs for a real API server. Without PublishObjects they are model data
// only ([Karpenter.NodeClaim], [Karpenter.Disruptions]).
//
// # Not modelled
//
//   - Provisioning for pending pods, bin-packing, instance-type choice:
//     every disruption replaces one node with one node of the same shape;
//     Empty consolidation also replaces rather than deletes.
//   - Consolidation's own decisions (which node is underutilized, the
//     consolidateAfter wait, the 15 s validation): the schedule or the
//     caller chooses the node.
//   - Budget schedules (schedule plus duration): every budget is always
//     active.
//   - Node repair, multiple NodePools, NodeClaim status written through a
//     status subresource (the stand-in CRDs have none), volume detachment.
//   - do-not-disrupt pods are evicted by forceful disruptions like any
//     other pod (Karpenter v1 may hold them until the grace period).
package karpenter
