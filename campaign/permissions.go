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
// read-only. An account with Account.APIGateway needs
// [ActionGetAPIGateway] too: [AccountIAMActions] lists an account's.
// Execute's are each cutover plan's Plan.IAMPolicy.
func PlanIAMActions() []string {
	return []string{
		cutover.ActionDescribeELBv2,
		"servicequotas:GetServiceQuota",
		"servicequotas:GetAWSDefaultServiceQuota",
	}
}

// ActionGetAPIGateway is the IAM action of every API Gateway v2 read
// (GetApis, GetIntegrations, GetRoutes): API Gateway authorizes its
// management API by HTTP method, and its reads are apigateway:GET.
const ActionGetAPIGateway = "apigateway:GET"

// AccountIAMActions are the IAM actions PlanCampaign calls in account a:
// [PlanIAMActions], and [ActionGetAPIGateway] when a.APIGateway is set
// (the blast radius is read there).
func AccountIAMActions(a Account) []string {
	actions := PlanIAMActions()
	if a.APIGateway != nil {
		actions = append(actions, ActionGetAPIGateway)
	}
	return actions
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
