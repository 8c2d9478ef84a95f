package tgmigratetest

// campaign.go: a Fleet as package campaign takes it: Fleet.CampaignInput
// (PlanCampaign's accounts and clusters) and Fleet.CampaignEnv
// (Execute's clients, the fleet's clock, a journal).

import (
	"github.com/qstools/tgmigrate/campaign"
)

// CampaignInput is the fleet as campaign.PlanCampaign reads it, as a user
// gives real accounts and clusters: each account once, in the order of
// its first cluster, with the read-only ELBv2 and the Service Quotas of
// that cluster's world (the clusters of one account share its ELBv2
// service, so any of them reads every one of the account's target
// groups; the calls count in that world); each cluster with its reader,
// VPC, address ranges, its account, and its world's timing assumptions
// (World.Assumptions); sel says which target groups. No API Gateway is
// read (Account.APIGateway nil: the plan says so).
func (f *Fleet) CampaignInput(sel campaign.Selection) campaign.Input {
	in := campaign.Input{Selection: sel}
	for _, w := range f.accountWorlds() {
		in.Accounts = append(in.Accounts, campaign.Account{ID: w.AccountID(), Region: Region, ELBv2: w.ELBv2Read(), ServiceQuotas: w.ServiceQuotas()})
	}
	for _, w := range f.worlds {
		c := w.Cluster()
		in.Clusters = append(in.Clusters, campaign.Cluster{Name: c.Name, Reader: c.Reader, VPCID: c.VPCID, CIDRs: c.CIDRs,
			AccountID: w.AccountID(), Assumptions: w.Assumptions()})
	}
	return in
}

// CampaignEnv is what campaign.Execute acts through on the fleet: each
// account's read-write ELBv2 and Service Quotas (those of its first
// cluster's world, as CampaignInput's), each cluster's client, VPC and
// address ranges, the fleet's clock, the campaign journal j (for example
// campaign.NewConfigMapJournal on a world's Client) and this runner's
// identity holder. No EC2 client is given: each cluster of a shared
// account has security groups of its own, so a re-plan skips the
// security-group check (cutover.Env.EC2), as it says. Give Execute
// campaign.WithParallel(f.Parallel) too, so that its cutovers run at once
// in the fleet's virtual time.
func (f *Fleet) CampaignEnv(j campaign.Journal, holder string) campaign.Env {
	env := campaign.Env{Journal: j, Clock: f.Clock(), Holder: holder}
	for _, w := range f.accountWorlds() {
		env.Accounts = append(env.Accounts, campaign.AccountEnv{ID: w.AccountID(), Region: Region, ELBv2: w.ELBv2(), ServiceQuotas: w.ServiceQuotas()})
	}
	for _, w := range f.worlds {
		env.Clusters = append(env.Clusters, campaign.ClusterEnv{Name: w.ClusterName(), Client: w.Client(), VPCID: w.VPCID(), CIDRs: w.Cluster().CIDRs})
	}
	return env
}

// accountWorlds returns the first world of each account, in order.
func (f *Fleet) accountWorlds() []*World {
	var out []*World
	seen := map[string]bool{}
	for _, w := range f.worlds {
		if !seen[w.AccountID()] {
			seen[w.AccountID()] = true
			out = append(out, w)
		}
	}
	return out
}
