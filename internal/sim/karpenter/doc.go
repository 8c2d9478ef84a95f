// Package karpenter is the churn driver of the simulator: a stand-in for
// Karpenter v1 with one NodePool, which replaces nodes as consolidation,
// drift, expiry, spot interruption and manual deletion would.
//
// # Files
//
//   - doc.go: this comment.
//   - deletion.go: deletion by others: a NodeClaim or a Node of
//     Karpenter's deleted by anyone else, terminated at once (Deleted), and
//     the Node's termination finalizer.
//   - disruption.go: one node's disruption: budgets, do-not-disrupt,
//     replacement, drain, termination and cut-offs.
//   - expiry.go: expiry: each NodeClaim's expiry at its creationTimestamp
//     plus spec.expireAfter (ExpiresAt), and the expiry churn shape.
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
// with the fewest pods, at random intervals), expiry (one node's
// NodeClaim expiring per interval, oldest first) or spot (a random node
// interrupted, at random intervals); a NodeClaim reaching its expireAfter
// queues itself, and a NodeClaim or a Node someone else deletes is
// disrupted at once. The
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
//     for a forceful reason Karpenter launches nothing first: the new node
//     stands for the provisioner's reaction to the pods of a deleting node
//     (provisioning/provisioner.go schedules them with the pending pods),
//     in parallel with the drain;
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
// The NodePool's TerminationGracePeriod caps the drain, whatever the reason
// (expiry and deletion included): at the deadline, the NodeClaim's
// deletion plus the grace period, the pods left are deleted and the
// instance terminated. A spot interruption is cut off after
// [SpotInterruptionNotice] (2 minutes), as EC2 reclaims the instance.
//
// # Expiry
//
// Each NodeClaim expires at its creationTimestamp (to the second, as an
// API server stores it) plus the NodePool's expireAfter, which it carries
// as spec.expireAfter: a reader computing the one from the other finds
// [Karpenter.ExpiresAt], the instant the simulator disrupts it (Expired,
// forceful: no budget, no do-not-disrupt). [ShapeExpiry] makes expiry the
// churn: StartChurn sets the NodePool's expireAfter to the live nodes
// times Churn.Interval and back-dates their NodeClaims' creationTimestamp
// so that node i (oldest first) expires at Churn.Start (rounded up to the
// second) plus i intervals; every replacement then expires expireAfter
// after its own launch, and one node expires per interval for ever. The
// NodePool and NodeClaims are written again with those values (the world
// starts as if the nodes had been launched then: on a real Karpenter a
// NodeClaim's spec is immutable and its creationTimestamp the API
// server's, which keeps its own on envtest).
//
// # Deletion by others
//
// The Nodes carry Karpenter's termination finalizer, as the NodeClaims do.
// When anyone but Karpenter deletes one of its NodeClaims or Nodes (the
// system under test through the world's client: a [cluster.Change] with
// another origin), the object gets its deletionTimestamp and the node is
// disrupted at once for Deleted, forcefully: tainted, drained (PDBs apply,
// the terminationGracePeriod caps it), its instance terminated, the
// NodeClaim deleted (if it was the Node that was) and both finalizers
// removed, so both objects go. A graceful disruption still queued becomes
// a Deleted one and starts at once; one already started that waits for its
// replacement drains at once (its record keeps its reason); a NodeClaim
// deleted before its node registered is terminated at once, and a
// disruption that waited for it as its replacement launches another.
//
// # Sources
//
// Read in kubernetes-sigs/karpenter (snapshot of August 2026; files read,
// no code taken):
//
//   - pkg/controllers/nodeclaim/expiration/controller.go: a NodeClaim not
//     being deleted, with spec.expireAfter, expires at
//     CreationTimestamp + ExpireAfter; the controller then deletes it, and
//     looks at neither budgets nor do-not-disrupt (the disruption
//     controller, pkg/controllers/disruption, has no expiry method).
//   - pkg/controllers/nodeclaim/lifecycle/controller.go (finalize): a
//     deleted NodeClaim is annotated karpenter.sh/nodeclaim-termination-
//     timestamp (its deletionTimestamp plus spec.terminationGracePeriod),
//     its Nodes are deleted once it is registered, the instance is deleted
//     through the cloud provider and the finalizer removed; registration.go
//     puts the karpenter.sh/termination finalizer on the Node.
//   - pkg/controllers/node/termination/controller.go (finalize): a deleted
//     Node's NodeClaim is deleted, the node tainted karpenter.sh/disrupted,
//     drained (terminator/terminator.go: the Eviction API; past the
//     deadline pods are deleted), the instance terminated, the finalizer
//     removed.
//   - pkg/controllers/provisioning/provisioner.go: the pods of deleting
//     nodes are scheduled with the pending pods, so new capacity is launched
//     while the drain goes on, not before it.
//   - pkg/apis/v1/nodeclaim.go: the NodeClaim's spec is immutable.
//
// And DOMAIN.md's observation on a real Karpenter v1: a held node expired
// on schedule; expiry deletes the NodeClaim without checking annotations
// or budgets, and launches no replacement first.
//
// # Objects
//
// Nodes carry karpenter.sh/nodepool, karpenter.sh/capacity-type,
// karpenter.sh/registered and karpenter.sh/initialized, and the finalizer
// karpenter.sh/termination, which Karpenter removes once the instance is
// gone. With
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
//   - The Node's own deletion while a disruption Karpenter started drains
//     it: Karpenter deletes the NodeClaim, then the Node (which shows a
//     deletionTimestamp during the drain); here the NodeClaim is deleted
//     at the drain's start and the Node only at termination.
//   - The karpenter.sh/nodeclaim-termination-timestamp annotation, the
//     Drained condition, the force deletion of a pod at the deadline minus
//     its own grace period (here at the deadline), the provisioner's
//     batching window before it launches for a deleting node's pods, and a
//     failed replacement rolling a graceful disruption back. Forceful
//     reasons set an Expired (or Disrupted) condition that Karpenter v1
//     does not.
//   - Terms that select nothing: Karpenter clears status.subnets and
//     launches fail; the simulator keeps the last selection.
//   - A public address out of step with the subnet (associatePublicIPAddress
//     overriding it): the cluster ties a node's ExternalIP to its subnet
//     kind, so such a node lands in the zone's subnet of the other kind;
//     the drift check uses the subnet Karpenter chose.
//   - do-not-disrupt pods are evicted by forceful disruptions like any
//     other pod (Karpenter v1 may hold them until the grace period).
package karpenter
