package campaign

// runs.go: diagnose's runs of a campaign: one per account, over the
// clusters that account serves, each validated before any call.

import (
	"slices"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/diagnose"
)

// run is one diagnose.Diagnose call: an account, its clusters, and the
// part of the selection in it.
type run struct {
	name  string // "account ID in Region", for errors
	src   diagnose.Sources
	scope diagnose.Scope
}

// dopts are the diagnose options of cfg: the clock and logger, then the
// caller's.
func dopts(cfg config) []diagnose.Option {
	return append([]diagnose.Option{diagnose.WithClock(cfg.clock), diagnose.WithLogger(cfg.log)}, cfg.diagnose...)
}

// diagnoseRuns splits the campaign into diagnose's runs: each account
// with the clusters it serves (Cluster.AccountID), so that diagnose
// weighs, as the owner of a target group's targets, only the clusters
// whose target groups that account holds; every account and every
// cluster is read once. The selection's ARNs go to the run of their
// account; names and tags to every run. Each run is validated by
// diagnose.Validate before any call.
func diagnoseRuns(in Input, accountOf []int, opts []diagnose.Option) ([]run, error) {
	var runs []run
	for i, a := range in.Accounts {
		r := run{name: a.ID + " in " + a.Region, src: diagnose.Sources{Accounts: []diagnose.Account{{ID: a.ID, Region: a.Region, ELBv2: a.ELBv2, ServiceQuotas: a.ServiceQuotas}}}}
		for j, c := range in.Clusters {
			if accountOf[j] == i {
				r.src.Clusters = append(r.src.Clusters, diagnose.Cluster{Name: c.Name, Reader: c.Reader, VPCID: c.VPCID, CIDRs: c.CIDRs})
			}
		}
		if len(r.src.Clusters) == 0 {
			return nil, &InputError{Op: "plan", Field: "Input.Accounts[" + itoa(i) + "]", Reason: "no cluster of Input.Clusters names it (Cluster.AccountID): the campaign cannot migrate its target groups"}
		}
		s := in.Selection
		r.scope = diagnose.Scope{All: s.All, TargetGroupNames: s.TargetGroupNames, Tags: s.Tags}
		for _, arn := range s.TargetGroupARNs {
			if arn.AccountID == a.ID && arn.Region == a.Region {
				r.scope.TargetGroupARNs = append(r.scope.TargetGroupARNs, arn)
			}
		}
		if !r.scope.All && len(r.scope.TargetGroupARNs)+len(r.scope.TargetGroupNames)+len(r.scope.Tags) == 0 {
			continue // nothing selected in this account
		}
		if err := diagnose.Validate(r.src, r.scope, opts...); err != nil {
			return nil, &InputError{Op: "plan", Field: "Input", Reason: "diagnose refuses it", Err: err}
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// arnAccount returns the index of the account of Input.Accounts that
// holds arn, -1 if none.
func (in Input) arnAccount(arn tgmigrate.ARN) int {
	return slices.IndexFunc(in.Accounts, func(a Account) bool { return a.ID == arn.AccountID && a.Region == arn.Region })
}
