// Package karpenterapi is the part of Karpenter v1's API that tgmigrate
// reads and writes, defined once: the kinds (NodePool, NodeClaim,
// EC2NodeClass), the fields of theirs the private-subnet move reads and
// patches, the selector-term rule, the disruption-budget arithmetic, and
// CRDs with a structural schema of those fields for a real kube-apiserver.
//
// The objects stay unstructured.Unstructured values: Karpenter's Go types
// are not a dependency of tgmigrate, and a patch must keep every field this
// package does not know. The typed views ([EC2NodeClass], [NodePool]) are
// read from an object with [EC2NodeClassOf] and [NodePoolOf]; the writes
// ([SetSubnetSelection], [SetBudgets]) change only their own fields.
//
// Package subnets (the move to private subnets), the simulator's Karpenter
// stand-in and the test environment all use this package, so the
// simulation and the product agree on what a field means.
//
// # Files
//
//   - doc.go: this comment.
//   - types.go: the kinds' GVKs, [SelectorTerm] and its matching rule,
//     [EC2NodeClass], [NodePool], [Budget] and [AllowedDisruptions].
//   - objects.go: reading the views out of unstructured objects and
//     writing the move's fields back, with [FieldError].
//   - crds.go: [CRDs], tgmigrate's own structural schema of the fields
//     above (everything else is preserved unknown), for envtest.
//
// # Facts the package rests on
//
//   - EC2NodeClass (karpenter.k8s.aws/v1, cluster-scoped):
//     spec.subnetSelectorTerms and spec.securityGroupSelectorTerms are
//     lists of terms, each either an id or a map of tags (the terms are
//     ORed; within a term the tags are ANDed; a tag value "*" matches any
//     value); spec.associatePublicIPAddress, when set, overrides the
//     subnet's MapPublicIpOnLaunch; status.subnets and
//     status.securityGroups are what the terms resolved to.
//   - NodePool (karpenter.sh/v1, cluster-scoped):
//     spec.template.spec.nodeClassRef names the EC2NodeClass;
//     spec.disruption.budgets limit graceful disruption (drift among it):
//     nodes is a count or a percentage of the pool's nodes, rounded up;
//     reasons restrict a budget to some reasons; a budget with a schedule
//     is active only during its window.
//   - Changing the subnets an EC2NodeClass selects makes every node in a
//     subnet no longer selected Drifted; changing associatePublicIPAddress
//     changes the class's static hash, which drifts every node of it.
//     Karpenter replaces drifted nodes within the budgets.
package karpenterapi
