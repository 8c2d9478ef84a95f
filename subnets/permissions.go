package subnets

// permissions.go: least privilege as data: the IAM actions of the
// readiness checks and of the move, and the RBAC rules of the move
// (cluster-scoped, and in the journal's namespace).

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/qstools/tgmigrate/internal/karpenterapi"
)

// ReadinessIAMActions are the IAM actions CheckReadiness calls: EC2's
// network reads and ELBv2's Describe calls. Every one is read-only.
func ReadinessIAMActions() []string {
	return []string{
		"ec2:DescribeSubnets",
		"ec2:DescribeRouteTables",
		"ec2:DescribeVpcEndpoints",
		"ec2:DescribeSecurityGroups",
		"elasticloadbalancing:DescribeTargetGroups",
		"elasticloadbalancing:DescribeTargetHealth",
		"elasticloadbalancing:DescribeLoadBalancers",
		"elasticloadbalancing:DescribeListeners",
		"elasticloadbalancing:DescribeRules",
		"elasticloadbalancing:DescribeTags",
	}
}

// MoveIAMActions are the IAM actions Execute and Rollback call: they only
// read the watched target groups' health. The move writes nothing in AWS:
// Karpenter, with its own role, launches and terminates the instances.
func MoveIAMActions() []string {
	return []string{
		"elasticloadbalancing:DescribeTargetHealth",
	}
}

// ReadinessClusterRules are the cluster-scoped RBAC rules of the readiness
// checks (a ClusterRole): they read the nodes, the pods, the
// TargetGroupBindings and Karpenter's objects, and write nothing.
func ReadinessClusterRules() []rbacv1.PolicyRule {
	read := []string{"get", "list", "watch"}
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"nodes", "pods"}, Verbs: read},
		{APIGroups: []string{"elbv2.k8s.aws"}, Resources: []string{"targetgroupbindings"}, Verbs: read},
		{APIGroups: []string{karpenterapi.EC2NodeClassGVK.Group}, Resources: []string{"ec2nodeclasses"}, Verbs: read},
		{APIGroups: []string{karpenterapi.NodePoolGVK.Group}, Resources: []string{"nodepools", "nodeclaims"}, Verbs: read},
	}
}

// MoveClusterRules are the cluster-scoped RBAC rules Execute and Rollback
// need (a ClusterRole): read nodes; read and write
// EC2NodeClasses and NodePools (get before each write, update under the
// resourceVersion read; patch is granted for operators who prefer it, the
// move itself updates).
func MoveClusterRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{karpenterapi.EC2NodeClassGVK.Group}, Resources: []string{"ec2nodeclasses"}, Verbs: []string{"get", "list", "patch", "update"}},
		{APIGroups: []string{karpenterapi.NodePoolGVK.Group}, Resources: []string{"nodepools"}, Verbs: []string{"get", "list", "patch", "update"}},
	}
}

// MoveNamespaceRules are the RBAC rules Execute and Rollback need in
// Env.Namespace (a Role): the journal ConfigMap and the lock Lease.
func MoveNamespaceRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "create", "update"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "create", "update", "delete"}},
	}
}
