package campaign_test

// execute_permissions_test.go: ExecutePermissions covers what Execute
// calls: every AWS operation of a campaign's run is in its account's
// policy; every cluster's cutover rules are there, and the journal's.

import (
	"slices"
	"strings"
	"testing"

	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/cutover"
)

func TestExecutePermissions(t *testing.T) {
	f := execFleet(t)
	p := execPlan(t, f)
	perm, err := campaign.ExecutePermissions(p, "campaign-journal")
	if err != nil {
		t.Fatal(err)
	}
	if len(perm.Accounts) != 2 || len(perm.Clusters) != 3 || len(perm.Journal) == 0 {
		t.Fatalf("permissions: %d accounts, %d clusters, journal %v", len(perm.Accounts), len(perm.Clusters), perm.Journal)
	}
	before := map[string]map[string]int{}
	for _, w := range f.Worlds() {
		before[w.ClusterName()] = w.Calls()
	}
	if _, err := run(t.Context(), t, execEnv(t, f, "runner-1"), p, parallel(f), campaign.WithWorkers(3)); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, w := range f.Worlds() {
		i := slices.IndexFunc(perm.Accounts, func(a campaign.AccountPermissions) bool { return a.AccountID == w.AccountID() })
		if i < 0 {
			t.Fatalf("no policy for account %s", w.AccountID())
		}
		var actions []string
		for _, s := range perm.Accounts[i].Policy.Statement {
			actions = append(actions, s.Action...)
		}
		for op, n := range w.Calls() {
			if n == before[w.ClusterName()][op] {
				continue
			}
			service := "elasticloadbalancing:"
			if strings.HasPrefix(op, "Get") {
				service = "servicequotas:"
			}
			checked++
			if !slices.ContainsFunc(actions, func(a string) bool {
				pre, wild := strings.CutSuffix(a, "*")
				return strings.EqualFold(a, service+op) || (wild && strings.HasPrefix(strings.ToLower(service+op), strings.ToLower(pre)))
			}) {
				t.Errorf("%s: Execute called %s%s, which its account's policy does not allow", w.ClusterName(), service, op)
			}
		}
	}
	if checked == 0 {
		t.Error("no operation checked")
	}
	for _, e := range p.Entries {
		c := slices.IndexFunc(perm.Clusters, func(c campaign.ClusterPermissions) bool { return c.Cluster == e.Cluster })
		if c < 0 || !slices.ContainsFunc(perm.Clusters[c].Cutovers, func(r *cutoverRBAC) bool { return r.PlanID == e.Plan.ID }) {
			t.Errorf("%s: its cutover rules are missing", e.Cluster)
		}
	}
	if _, err := campaign.ExecutePermissions(nil, "x"); !campaign.IsInvalidInput(err) {
		t.Errorf("nil plan: %v", err)
	}
	if _, err := campaign.ExecutePermissions(p, "Not_A/Name"); !campaign.IsInvalidInput(err) {
		t.Errorf("a bad ConfigMap name: %v", err)
	}
	// A file journal needs no rule in any cluster.
	file, err := campaign.ExecutePermissions(p, "")
	if err != nil || len(file.Journal) != 0 || len(file.Accounts) != len(perm.Accounts) || len(perm.Journal) == 0 {
		t.Errorf("file journal: %+v, %v; want the same accounts and no journal rule", file, err)
	}
}

type cutoverRBAC = cutover.RBAC
