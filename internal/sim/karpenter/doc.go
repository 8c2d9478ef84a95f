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
//   - nodeclass.go: the EC2NodeClass: Subnet, NodeClass, its subnet
//     selection and status.subnets, launches into the selected subnets,
//     the drift check after a change, and budgets re-read from the
//     NodePool object.
//   - objects.go: the NodePool and NodeClaim objects it publishes, and their
//     CRDs (karpenterapi's).
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
// InstanceTerminating. [CRDs] returns karpenterapi's CRDs for a real API
// server; they have the status subresource, so status that a Create or an
// Update did not keep is written again through it. Without PublishObjects
// they are model data only ([Karpenter.NodeClaim], [Karpenter.Disruptions]).
// Kinds, field reads and budget arithmetic are internal/karpenterapi's.
//
// # The EC2NodeClass
//
// With PublishObjects and Options.Subnets (the world's subnets), Start also
// publishes EC2NodeClass [NodeClassName] (spec.subnetSelectorTerms and
// spec.associatePublicIPAddress from Options.NodeClass, status.subnets
// the subnets the terms resolve to), which the NodePool references, and
// Karpenter follows both objects on the cluster's Hub:
//
//   - Launches go to the selected subnets, their zones in turn (the first
//     selected subnet of a zone); a node is public when its subnet is,
//     unless associatePublicIPAddress says otherwise.
//   - A write of the EC2NodeClass by anyone else is re-read through the
//     client; status.subnets is rewritten; Options.DriftDelay later, every
//     live node whose subnet is no longer selected (SubnetDrift) or whose
//     class's associatePublicIPAddress at launch differs from the current
//     one (NodeClassDrift: the field is part of the static hash) is queued
//     Drifted, and goes through the disruption path above (budgets,
//     do-not-disrupt, one replacement per node). Nodes the check queued
//     that the class describes again by the next check (a rollback before
//     their turn) are withdrawn. A rollback to the old selection drifts
//     the nodes launched under the new one back, as Karpenter does.
//   - A write of the NodePool by anyone else replaces the budgets with its
//     spec.disruption.budgets (absent: 10%).
//   - A malformed object, or terms that select none of the subnets, is an
//     "Error" event and changes nothing.
//
// Without Options.Subnets (or without PublishObjects) none of this runs:
// nodes go where NodePool.Public says, as before.
//
// What was confirmed in aws/karpenter-provider-aws (snapshot of August
// 2026; files read, no code taken): pkg/cloudprovider/drift.go
// (isNodeClassDrifted: static-hash drift first, then AMI, security group,
// subnet, capacity-reservation and placement-group drift; isSubnetDrifted:
// a node is drifted when its instance's subnet is not among
// status.subnets, and is not evaluated while status.subnets is empty;
// areStaticFieldsDrifted compares the EC2NodeClass hash annotation with
// the NodeClaim's when their hash versions agree), pkg/apis/v1/
// ec2nodeclass.go (subnetSelectorTerms, securityGroupSelectorTerms,
// amiSelectorTerms, amiFamily, kubelet and others are hash:"ignore";
// associatePublicIPAddress is hashed), and
// pkg/controllers/nodeclass/subnet.go (the status reconciler resolves the
// terms, sorts by free addresses then ID, writes status.subnets with id,
// zone and zoneID, clears it and sets SubnetsReady False when nothing
// matches, and requeues every minute).
//
// What the simulator assumes in their place: drift is noticed
// [DefaultDriftDelay] (1 minute, Options.DriftDelay) after the change, once
// per change (Karpenter's status refresh and drift evaluation are
// periodic; the delay is not a figure of Karpenter's); the only hashed
// field modelled is associatePublicIPAddress; status.subnets carries no
// zoneID and is ordered by zone then ID, not by free addresses.
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
//   - Node repair, multiple NodePools, multiple EC2NodeClasses, volume
//     detachment; AMI, security-group and capacity-reservation drift.
//   - Terms that select nothing: Karpenter clears status.subnets and
//     launches fail; the simulator keeps the last selection.
//   - A public address out of step with the subnet (associatePublicIPAddress
//     overriding it): the cluster ties a node's ExternalIP to its subnet
//     kind, so such a node lands in the zone's subnet of the other kind;
//     the drift check uses the subnet Karpenter chose.
//   - do-not-disrupt pods are evicted by forceful disruptions like any
//     other pod (Karpenter v1 may hold them until the grace period).
package karpenter
