package campaign

// execute_permissions.go: least privilege for Execute, as data: per
// account the union of the IAM policies of its entries' cutover plans
// (and the reads of a re-plan), per cluster each cutover plan's RBAC and
// the re-plan's reads, and the campaign journal's ConfigMap rules.

import (
	"fmt"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/qstools/tgmigrate/cutover"
)

// Permissions is what [Execute] of a plan needs: per account an IAM
// policy, per cluster RBAC, and the campaign journal's rules. It is
// plain data.
type Permissions struct {
	// Accounts are the accounts of the runnable entries, in the plan's
	// order.
	Accounts []AccountPermissions `json:"accounts"`
	// Clusters are the clusters of the runnable entries, in the plan's
	// order.
	Clusters []ClusterPermissions `json:"clusters"`
	// Journal are the rules on the campaign journal's ConfigMap
	// ([JournalClusterRules]), in its cluster and namespace; empty for
	// a file journal.
	Journal []rbacv1.PolicyRule `json:"journal,omitempty"`
}

// AccountPermissions is one account's IAM policy for Execute.
type AccountPermissions struct {
	// AccountID and Region name the account.
	AccountID string `json:"accountID"`
	Region    string `json:"region"`
	// Policy is the union of its entries' cutover plans' policies
	// (cutover.PolicyNeeds of each Plan.PolicyInput, merged by
	// cutover.NewPolicy) and [PlanIAMActions] on "*", which a re-plan
	// calls.
	Policy *cutover.Policy `json:"policy"`
}

// ClusterPermissions is one cluster's RBAC for Execute.
type ClusterPermissions struct {
	// Cluster is its name.
	Cluster string `json:"cluster"`
	// Cutovers are its entries' cutover plans' rules (Plan.ClusterRules):
	// a Role in each binding's namespace and a ClusterRole each.
	Cutovers []*cutover.RBAC `json:"cutovers"`
	// Replan are the reads of a re-plan ([PlanClusterRules]), as a
	// ClusterRole.
	Replan []rbacv1.PolicyRule `json:"replan"`
}

// JournalClusterRules are the rules a [ConfigMapJournal] needs in its
// namespace: get, create and update of its ConfigMap (a create cannot
// be narrowed to a name, so it is a rule of its own).
func JournalClusterRules(name string) []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{name}, Verbs: []string{"get", "update"}},
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create"}},
	}
}

// ExecutePermissions returns what Execute of p needs, with the campaign
// journal in the ConfigMap named journalName ("": a [FileJournal], which
// needs no rule: Permissions.Journal is empty). A plan that does not
// verify, or a cutover plan whose policy or rules cannot be derived, is
// an error.
func ExecutePermissions(p *Plan, journalName string) (*Permissions, error) {
	if p == nil {
		return nil, &InputError{Op: "permissions", Field: "plan", Reason: "is nil"}
	}
	if err := p.Verify(); err != nil {
		return nil, &InputError{Op: "permissions", Field: "plan", Reason: "not the plan that was approved", Err: err}
	}
	if journalName != "" && len(validation.IsDNS1123Subdomain(journalName)) > 0 {
		return nil, &InputError{Op: "permissions", Field: "journalName", Reason: fmt.Sprintf("%q is not a ConfigMap's name", journalName)}
	}
	out := &Permissions{}
	if journalName != "" {
		out.Journal = JournalClusterRules(journalName)
	}
	needs := map[string][]cutover.PolicyNeed{}
	var accounts []string
	clusters := map[string]int{}
	for _, e := range p.Entries {
		if !e.Runnable() {
			continue
		}
		key := e.AccountID + "/" + e.Region
		if !slices.Contains(accounts, key) {
			accounts = append(accounts, key)
			out.Accounts = append(out.Accounts, AccountPermissions{AccountID: e.AccountID, Region: e.Region})
			for _, a := range PlanIAMActions() {
				needs[key] = append(needs[key], cutover.PolicyNeed{Action: a, Resources: []string{"*"}})
			}
		}
		n, err := cutover.PolicyNeeds(e.Plan.PolicyInput())
		if err != nil {
			return nil, fmt.Errorf("campaign: permissions: %s: %w", e.Name, err)
		}
		needs[key] = append(needs[key], n...)
		rb, err := e.Plan.ClusterRules()
		if err != nil {
			return nil, fmt.Errorf("campaign: permissions: %s: %w", e.Name, err)
		}
		i, ok := clusters[e.Cluster]
		if !ok {
			i = len(out.Clusters)
			clusters[e.Cluster] = i
			out.Clusters = append(out.Clusters, ClusterPermissions{Cluster: e.Cluster, Replan: PlanClusterRules()})
		}
		out.Clusters[i].Cutovers = append(out.Clusters[i].Cutovers, rb)
	}
	for i, key := range accounts {
		pol, err := cutover.NewPolicy(needs[key]...)
		if err != nil {
			return nil, fmt.Errorf("campaign: permissions: account %s: %w", key, err)
		}
		out.Accounts[i].Policy = pol
	}
	return out, nil
}
