// Package karpenter is the churn driver of the simulator: a stand-in for
// Karpenter v1 with one NodePool, which replaces nodes as consolidation,
// drift, expiry, spot interruption and manual deletion would.
//
// # Files
//
//   - doc.go: this comment.
//   - budgets.go: the NodePool's budgets on the virtual clock: schedule
//     windows (robfig/cron, as Karpenter parses them) and the allowance
//     per reason.
//   - consolidation.go: consolidation's decisions: instance types and
//     prices, emptiness, single-node consolidation and the 15 s
//     validation.
//   - deletion.go: deletion by others: a NodeClaim or a Node of
//     Karpenter's deleted by anyone else, terminated at once (Deleted), and
//     the Node's termination finalizer.
//   - disruption.go: one node's disruption: replacement, drain (the
//     terminator's evictions and deletions), termination and cut-offs.
//   - expiry.go: expiry: each NodeClaim's expiry at its creationTimestamp
//     plus spec.expireAfter (ExpiresAt), and the expiry churn shape.
//   - karpenter.go: the Karpenter driver: Options, New, provisioning,
//     ReplaceNode, ReplaceAll, Churn and its shapes.
//   - loop.go: the disruption loop: its pacing, the candidate checks
//     (do-not-disrupt, PodDisruptionBudgets, budgets, uninitialized
//     replacements) and drift.
//   - nodeclass.go: the EC2NodeClass: Subnet, NodeClass, its subnet
//     selection and status.subnets, launches into the selected subnets,
//     the drift check after a change, and budgets re-read from the
//     NodePool object.
//   - objects.go: the NodePool and NodeClaim objects it publishes, and their
//     CRDs (karpenterapi's).
//   - types.go: Reason, Budget, NodePool and the package's errors.
//
// # Behaviours modelled, and their sources
//
// Read in kubernetes-sigs/karpenter at commit 2266468104f3 (August 2026;
// files read, no code taken), and observed on the real Karpenter v1 with
// its kwok provider on a real kube-apiserver (issue 34: seven
// experiments). Each has a test in this package (fidelity_test.go unless
// named).
//
//   - The disruption loop (pkg/controllers/disruption/controller.go) polls
//     every 10 s ([DefaultPollInterval]) when it has nothing to do, and
//     runs again at once after a command. Graceful disruptions start only
//     on its polls, in Karpenter's method order (emptiness, drift,
//     single-node consolidation), one command per pass; forceful ones
//     (other controllers of Karpenter's) start at once. Observed: the
//     real loop acts 10 to 30 s after Drifted=True; the model gives 0 to
//     10 s, plus a consolidation's 15 s validation when one runs first.
//     TestPacing.
//   - A node with pods is not a candidate while a node of the pool is
//     still launching (disruption/helpers.go SimulateScheduling: pods
//     that would schedule against an uninitialized node): one replacement
//     at a time, whatever the budget (observed too). TestPacing,
//     TestBudgetsAndReasons.
//   - Budgets (pkg/apis/v1/nodepool.go GetAllowedDisruptionsByReason,
//     Budget.IsActive; disruption/helpers.go BuildDisruptionBudgetMapping):
//     a count or a percentage of the pool's Ready nodes, rounded up, minus
//     the nodes being disrupted; the smallest active budget that applies
//     to the reason. A budget with a schedule (cron, UTC, parsed with
//     robfig/cron's ParseStandard as Karpenter does) and a duration is
//     active only while the schedule's last hit is at most the duration
//     ago, on the virtual clock; a malformed one allows nothing.
//     TestBudgetScheduleWindow, TestBudgetScheduleInvalid.
//   - Candidate checks (disruption/types.go NewCandidate,
//     state/statenode.go ValidateNodeDisruptable and
//     ValidatePodsDisruptable, utils/pdb/pdb.go CanEvictPods): the node's
//     karpenter.sh/do-not-disrupt blocks every graceful reason; a pod's,
//     or a pod whose PodDisruptionBudget allows 0 disruptions (or two
//     budgets on one pod), blocks consolidation always and drift unless
//     the NodePool has a terminationGracePeriod (drift is "eventual").
//     A blocked node is left alone: no taint, no replacement.
//     TestPDBBlocksGracefulCandidate, TestDoNotDisruptPodUnderGracePeriod,
//     TestDoNotDisrupt.
//   - Drift (disruption/drift.go): one candidate per command, in the
//     order they drifted, empty nodes first; an empty node is deleted
//     without a replacement, any other replaced.
//   - Emptiness (disruption/emptiness.go, validation.go
//     EmptinessValidator): the Consolidatable nodes without pods, as many
//     as the Empty budget allows, deleted in one command without a
//     replacement, [ValidationDelay] (15 s) after the decision, keeping
//     the candidates still valid then. TestConsolidationEmpty.
//   - Single-node consolidation (disruption/singlenodeconsolidation.go,
//     consolidation.go computeConsolidation, validation.go): the
//     Consolidatable nodes with pods, best price per pod first; a node is
//     deleted when its pods fit on the other Ready nodes (their
//     allocatable pods), replaced when they do not and a cheaper instance
//     type of the pool holds them, left alone otherwise
//     (Unconsolidatable); after 15 s the command is dropped if its
//     candidate changed (do-not-disrupt, a PDB, the budget, its pods, the
//     decision). Prices: [InstancePrice], AWS's on-demand list for a few
//     types, spot at [SpotPriceRatio] of it. WhenEmpty pools consolidate
//     only empty nodes. TestConsolidationUnderutilized.
//   - The terminator (node/termination/terminator/terminator.go,
//     eviction.go): the node is labelled
//     node.kubernetes.io/exclude-from-external-load-balancers: karpenter
//     ([ExcludeFromLBValue]); pods are evicted through the Eviction API
//     (PDBs apply), do-not-disrupt pods are never evicted (the drain waits
//     for them), and with a terminationGracePeriod each pod is deleted
//     (gracefully) at the node's termination time minus its own grace
//     period, so that it is gone by then. TestPacing,
//     TestDoNotDisruptPodUnderGracePeriod, TestExpiryTerminationGracePeriod.
//   - Expiry (nodeclaim/expiration/controller.go): forceful, deletes the
//     NodeClaim whatever the budgets and annotations, launches nothing
//     first; the provisioner (provisioning/provisioner.go) launches a node
//     for the deleting node's pods after its batching window
//     ([ProvisionerBatchIdle], 1 s, BATCH_IDLE_DURATION's default), in
//     parallel with the drain. The same for interruption and deletion.
//     TestPacing, TestExpiryShape.
//
// # Disruption
//
// [Karpenter.ReplaceNode] queues one node, [Karpenter.ReplaceAll] every
// node spread over a window, [Karpenter.StartChurn] a schedule of one
// [Shape]: steady (the oldest node per interval), wave (a share of the
// nodes drifted at once, paced by the budget and by the replacements'
// launches), consolidation (the node with the fewest pods marked
// Consolidatable at random intervals, then consolidated as decided above:
// deleted when empty or when its pods fit elsewhere, so the pool shrinks
// while it has room, replaced only by a cheaper type), expiry (one node's
// NodeClaim expiring per interval, oldest first) or spot (a random node
// interrupted, at random intervals); a NodeClaim reaching its expireAfter
// queues itself, and a NodeClaim or a Node someone else deletes is
// disrupted at once. Graceful reasons (Underutilized, Empty, Drifted)
// wait for the loop, the budgets and the candidate checks; forceful ones
// (Expired, Interrupted, Deleted) start at once.
//
// # Termination sequence
//
//  1. taint karpenter.sh/disrupted:NoSchedule; a graceful disruption with
//     a replacement launches it (new instance, new addresses), Ready after
//     LaunchDelay; a forceful one launches nothing first (the provisioner
//     does, 1 s into the drain, for a node that had pods);
//  2. graceful reasons wait for the replacement to be Ready; the NodeClaim
//     is deleted;
//  3. label node.kubernetes.io/exclude-from-external-load-balancers:
//     karpenter;
//  4. evict every pod but the do-not-disrupt ones through the Eviction
//     API; PodDisruptionBudgets apply to every reason, and refused
//     evictions are retried after EvictionRetry; evicted pods are replaced
//     at once, on the schedulable node with the fewest pods;
//  5. when no pod is left (after their preStop sleeps), terminate the
//     instance: its addresses stop answering. The NodeClaim's finalizer
//     karpenter.sh/termination is removed.
//
// The NodePool's TerminationGracePeriod bounds the drain, whatever the
// reason: each pod is deleted at the deadline (the drain's start plus the
// grace period) minus its own grace period, and at the deadline the pods
// left are killed and the instance terminated. A spot interruption is cut
// off after [SpotInterruptionNotice] (2 minutes), as EC2 reclaims the
// instance. [Disruption].CutOff names the pods a deadline killed.
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
// # Sources of expiry, deletion and termination
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
//   - Provisioning for pending pods and bin-packing: a replacement is one
//     node of the pool's cheapest type; drift replaces a node with pods
//     even when its pods would fit on the others (Karpenter then launches
//     nothing: the experiments of issue 34, where they did not fit, saw a
//     replacement); forceful disruptions always have the provisioner
//     launch one node, room or not. Capacity is pods only
//     (MaxPodsPerNode), the same for every instance type.
//   - Consolidation's own trigger: consolidateAfter and the
//     Consolidatable condition's timing (a node is Consolidatable when the
//     churn or a caller says so); multi-node consolidation; the Balanced
//     policy; spot-to-spot consolidation; a decision's 3-minute timeout.
//   - Prices: a small table of on-demand prices and a flat spot ratio; no
//     zonal or reserved offerings.
//   - do-not-disrupt with a duration value ("5m"): only "true" counts.
//   - Node repair, static NodePools, multiple NodePools, multiple
//     EC2NodeClasses, volume detachment; AMI, security-group and
//     capacity-reservation drift.
//   - The Node's own deletion while a disruption Karpenter started drains
//     it: Karpenter deletes the NodeClaim, then the Node (which shows a
//     deletionTimestamp during the drain); here the NodeClaim is deleted
//     at the drain's start and the Node only at termination.
//   - The karpenter.sh/nodeclaim-termination-timestamp annotation, the
//     Drained condition, the terminator's priority tiers (non-critical
//     pods first), the force deletion's grace period clamped to the time
//     left (a pod is deleted with its own grace period), and a failed
//     replacement rolling a graceful disruption back. Forceful reasons set
//     an Expired (or Disrupted) condition that Karpenter v1 does not.
//   - Terms that select nothing: Karpenter clears status.subnets and
//     launches fail; the simulator keeps the last selection.
//   - A public address out of step with the subnet (associatePublicIPAddress
//     overriding it): the cluster ties a node's ExternalIP to its subnet
//     kind, so such a node lands in the zone's subnet of the other kind;
//     the drift check uses the subnet Karpenter chose.
package karpenter
