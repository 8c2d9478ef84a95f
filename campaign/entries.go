package campaign

// entries.go: from diagnose's report to the plan's entries: each
// selected target group planned through its handoff with
// cutover.PlanCutover, or blocked with its reason and next call.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
)

// planner holds what planning the entries needs.
type planner struct {
	in        Input
	accountOf []int
	cfg       config
}

// entries returns an entry per selected target group of the reports, in
// their order, and the reports' errors that are no entry's (a name
// missing from one account is no error when another has it). Only a
// cancelled context fails it.
func (pl planner) entries(ctx context.Context, reports []*diagnose.Report) ([]Entry, []diagnose.ResourceError, error) {
	var out []Entry
	names := map[string]bool{}
	for _, rep := range reports {
		for _, tg := range rep.TargetGroups {
			e, keep := pl.entry(ctx, tg)
			if ctx.Err() != nil {
				return nil, nil, fmt.Errorf("campaign: plan: %w", context.Cause(ctx))
			}
			names[tg.Name], names[tg.ARN] = true, true
			if keep {
				out = append(out, e)
			}
		}
	}
	var errs []diagnose.ResourceError
	for _, rep := range reports {
		for _, re := range rep.Errors {
			if re.Kind == diagnose.KindTargetGroup && names[re.Resource] {
				continue
			}
			if !slices.ContainsFunc(errs, func(o diagnose.ResourceError) bool {
				return o.Kind == re.Kind && o.Resource == re.Resource && o.Op == re.Op
			}) {
				errs = append(errs, re)
			}
		}
	}
	return out, errs, nil
}

// entry plans one target group; keep is false for one that Selection.All
// leaves out (diagnose finds no cutover for it).
func (pl planner) entry(ctx context.Context, tg diagnose.TargetGroupReport) (e Entry, keep bool) {
	e = Entry{Name: tg.Name, AccountID: tg.Account, Region: tg.Region, Targets: tg.Counts.Total, Wave: -1,
		LoadBalancerARNs: slices.Clone(tg.LoadBalancerARNs), Exposure: Exposure{Rules: slices.Clone(tg.Routes)}}
	e.TargetGroupARN, _ = tgmigrate.ParseTargetGroupARN(tg.ARN)
	block := func(r BlockReason, detail string, next *diagnose.NextCall) (Entry, bool) {
		e.Blocked = &Blocked{Reason: r, Detail: detail, Next: next}
		return e, true
	}
	if tg.Error != nil {
		return block(ReasonUnread, "diagnose could not read it: "+tg.Error.Error(), nil)
	}
	var handoff, manual, missing *diagnose.Finding
	for i := range tg.Findings {
		f := &tg.Findings[i]
		switch {
		case f.Next.Op == diagnose.OpManual && manual == nil:
			manual = f
		case f.Next.Op == diagnose.OpPlanCutover && f.Next.Handoff != nil && handoff == nil:
			handoff = f
		case f.Next.Op == diagnose.OpPlanCutover && missing == nil:
			missing = f
		}
	}
	switch {
	case manual != nil:
		return block(ReasonManual, fmt.Sprintf("%s: %s", manual.Code, manual.Message), nextOf(manual))
	case handoff == nil && missing != nil:
		return block(ReasonNoHandoff, fmt.Sprintf("diagnose names cutover.PlanCutover but could not infer %s", strings.Join(missing.Next.Missing, ", ")), nextOf(missing))
	case handoff == nil && pl.in.Selection.All:
		return e, false
	case handoff == nil && tg.Owner.Kind == diagnose.OwnerOutside:
		return block(ReasonNotCluster, "outside the campaign's clusters: "+tg.Owner.Reason, nil)
	case handoff == nil:
		detail := fmt.Sprintf("diagnose finds no cutover for it (owner %s)", tg.Owner.Kind)
		if len(tg.Findings) > 0 {
			return block(ReasonNoCutover, detail, nextOf(&tg.Findings[0]))
		}
		return block(ReasonNoCutover, detail, nil)
	}
	h := handoff.Next.Handoff
	e.Cluster = h.ClusterName
	ci := slices.IndexFunc(pl.in.Clusters, func(c Cluster) bool { return c.Name == h.ClusterName })
	if ci < 0 {
		return block(ReasonNotCluster, fmt.Sprintf("its handoff names cluster %q, not one of the campaign's", h.ClusterName), nextOf(handoff))
	}
	c, a := pl.in.Clusters[ci], pl.in.Accounts[pl.accountOf[ci]]
	if h.AccountID != a.ID || h.Region != a.Region {
		return block(ReasonNotCluster, fmt.Sprintf("it is in account %s in %s; cluster %s's target groups are in %s in %s", h.AccountID, h.Region, c.Name, a.ID, a.Region), nextOf(handoff))
	}
	req, err := cutover.RequestFrom(*h)
	if err != nil {
		e.Blocked = &Blocked{Reason: ReasonPlanError, Detail: "its handoff does not make a request", Next: nextOf(handoff), Error: err.Error()}
		return e, true
	}
	req.Assumptions = c.Assumptions
	env := cutover.ReadEnv{ELBv2: a.ELBv2, ServiceQuotas: a.ServiceQuotas, Client: c.Reader, Clock: pl.cfg.clock, Logger: pl.cfg.log,
		ClusterName: c.Name, ClusterVPCID: c.VPCID, ClusterCIDRs: c.CIDRs}
	plan, err := cutover.PlanCutover(ctx, env, req)
	switch {
	case err != nil && cutover.IsQuota(err):
		e.Blocked = &Blocked{Reason: ReasonQuota, Detail: "no bound of the overlap fits ELBv2's quotas on targets", Error: err.Error()}
		return e, true
	case err != nil:
		e.Blocked = &Blocked{Reason: ReasonPlanError, Detail: "cutover.PlanCutover failed", Next: nextOf(handoff), Error: err.Error()}
		return e, true
	}
	e.Plan, e.Targets, e.LoadBalancerARNs = plan, plan.TargetGroup.Targets, slices.Clone(plan.TargetGroup.LoadBalancerARNs)
	if open := pl.unaccepted(plan); len(open) > 0 {
		var why []string
		for _, pc := range open {
			why = append(why, fmt.Sprintf("%s: %s", pc.Kind, pc.Reason))
		}
		e.Blocked = &Blocked{Reason: ReasonPrecondition, Detail: strings.Join(why, "; ")}
		return e, true
	}
	e.Seconds = int(plan.Estimate.FloorSeconds)
	return e, true
}

// unaccepted returns plan's preconditions of kinds the campaign does not
// accept.
func (pl planner) unaccepted(plan *cutover.Plan) []cutover.Precondition {
	var out []cutover.Precondition
	for _, pc := range plan.Preconditions {
		if !slices.Contains(pl.cfg.accept, pc.Kind) {
			out = append(out, pc)
		}
	}
	return out
}

// nextOf returns a copy of f's next call.
func nextOf(f *diagnose.Finding) *diagnose.NextCall {
	n := f.Next
	return &n
}
