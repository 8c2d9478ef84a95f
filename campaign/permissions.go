package campaign

// permissions.go: least privilege as data: the IAM actions and the RBAC
// rules planning needs (diagnose's reads and cutover.PlanCutover's).

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/qstools/tgmigrate/cutover"
)

// PlanIAMActions are the IAM actions PlanCampaign calls in each account:
// ELBv2's Describe calls (diagnose's discovery, health, listeners, rules
// and tags; PlanCutover's reads: cutover.ActionDescribeELBv2, which has
// no resource-level permissions) and, with Account.ServiceQuotas, the
// two Service Quotas reads of ELBv2's quotas on targets. Every one is
// read-only. Execute's are each cutover plan's Plan.IAMPolicy.
func PlanIAMActions() []string {
	return []string{
		cutover.ActionDescribeELBv2,
		"servicequotas:GetServiceQuota",
		"servicequotas:GetAWSDefaultServiceQuota",
	}
}

// PlanClusterRules are the RBAC rules PlanCampaign needs in each cluster
// (a ClusterRole): diagnose's one listing of nodes, pods, Services,
// namespaces, TargetGroupBindings and NodeClaims, and PlanCutover's reads
// (its cutover.Plan.Reads): the Service and its namespace, the
// EndpointSlices, the webhook configurations, the PodDisruptionBudgets,
// and tgbind's server-side dry run of the binding, which the API server
// authorizes as a create. Nothing is written. Execute's are each cutover
// plan's Plan.ClusterRules.
func PlanClusterRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"nodes", "pods"}, Verbs: []string{"list"}},
		{APIGroups: []string{""}, Resources: []string{"services", "namespaces"}, Verbs: []string{"get", "list"}},
		{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"list"}},
		{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"validatingwebhookconfigurations"}, Verbs: []string{"list"}},
		{APIGroups: []string{"policy"}, Resources: []string{"poddisruptionbudgets"}, Verbs: []string{"list"}},
		{APIGroups: []string{"elbv2.k8s.aws"}, Resources: []string{"targetgroupbindings"}, Verbs: []string{"list", "create"}},
		{APIGroups: []string{"karpenter.sh"}, Resources: []string{"nodeclaims"}, Verbs: []string{"list"}},
	}
}
