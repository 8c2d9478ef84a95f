package campaign

// plan.go: PlanCampaign and the Plan: its entries (one per target
// group, runnable with its cutover plan or blocked with its reason and
// next call), its waves, its limits and its estimate, as plain data.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
)

// PlanSchemaVersion is the version of a Plan's JSON.
const PlanSchemaVersion = 1

// Plan is a fleet's migration planned as one: every selected target
// group with its cutover plan or the reason it cannot run yet, the waves
// they run in, the limits they run under and the expected duration. It
// is plain data, read-only to make; [Plan.JSON] and [ParsePlan] store it,
// [Plan.Text] prints it, and its Digest covers all of it (every cutover
// plan's digest included), so that what runs is what was approved.
type Plan struct {
	// SchemaVersion is [PlanSchemaVersion].
	SchemaVersion int `json:"schemaVersion"`
	// ID is deterministic from the campaign's accounts, clusters and
	// target groups: "campaign-" and 12 hex digits.
	ID string `json:"id"`
	// Digest is "sha256:" and the hex SHA-256 of the plan's JSON with
	// the digest left empty.
	Digest string `json:"digest"`
	// CreatedAt is when planning began, on the injected clock.
	CreatedAt time.Time `json:"createdAt"`
	// Selection is the selection as given.
	Selection Selection `json:"selection"`
	// Accounts and Clusters are the campaign's, as given (clients left
	// out).
	Accounts []AccountRef `json:"accounts"`
	Clusters []ClusterRef `json:"clusters"`
	// Accepted are the precondition kinds the plan accepts
	// ([WithAcceptPreconditions]): the scheduler gives them to
	// cutover.Execute.
	Accepted []cutover.PreconditionKind `json:"accepted,omitempty"`
	// Entries are the target groups: the accounts' in the order of
	// Input.Accounts, each account's in diagnose's order (name, ARN).
	Entries []Entry `json:"entries"`
	// Errors are what diagnose could not read that is no entry's (a
	// target group named in the selection and found in no account, a
	// cluster it could not list), sorted as diagnose sorts them, then
	// the API Gateway reads refused (Kind "account" for GetApis,
	// [KindAPI] for an API's integrations or routes), by account.
	Errors []diagnose.ResourceError `json:"errors,omitempty"`
	// Order is the order of the waves after the canaries ([WithOrder]);
	// empty for the default, [LongestFirst].
	Order Order `json:"order,omitempty"`
	// Waves are the runnable entries' waves, in order: the canaries
	// first. Between two waves is an approval point.
	Waves []Wave `json:"waves"`
	// Limits are what the entries run under.
	Limits Limits `json:"limits"`
	// Estimate is the campaign's expected duration under the limits.
	Estimate Estimate `json:"estimate"`
}

// AccountRef is an account of the campaign.
type AccountRef struct {
	// ID is the account ID.
	ID string `json:"id"`
	// Region is its Region.
	Region string `json:"region"`
	// ServiceQuotas says whether its quotas are read through Service
	// Quotas (else AWS's documented defaults).
	ServiceQuotas bool `json:"serviceQuotas"`
	// APIGateway says whether its API Gateway APIs are read for the
	// entries' exposure (Account.APIGateway given).
	APIGateway bool `json:"apiGateway,omitempty"`
}

// ClusterRef is a cluster of the campaign and its account.
type ClusterRef struct {
	// Name is the cluster's name.
	Name string `json:"name"`
	// AccountID and Region are the account that serves its target
	// groups.
	AccountID string `json:"accountID"`
	Region    string `json:"region"`
	// VPCID is its VPC, when given.
	VPCID string `json:"vpcID,omitempty"`
}

// Entry is one target group of the campaign: runnable (Plan set, Blocked
// nil) in a wave, or blocked with its reason and next call.
type Entry struct {
	// TargetGroupARN and Name identify the target group; AccountID and
	// Region are its ARN's.
	TargetGroupARN tgmigrate.ARN `json:"targetGroupARN"`
	Name           string        `json:"name"`
	AccountID      string        `json:"accountID"`
	Region         string        `json:"region"`
	// Cluster is the cluster whose Service takes over (the handoff's);
	// empty when diagnose names none.
	Cluster string `json:"cluster,omitempty"`
	// LoadBalancerARNs are the load balancers that forward to it.
	LoadBalancerARNs []string `json:"loadBalancerARNs,omitempty"`
	// Targets counts its registered targets (the cutover plan's count,
	// else diagnose's).
	Targets int `json:"targets"`
	// Seconds is its cutover's expected floor (the plan's
	// Estimate.FloorSeconds); 0 when blocked.
	Seconds int `json:"seconds"`
	// Wave is the index of its wave in Plan.Waves; -1 when blocked.
	Wave int `json:"wave"`
	// StartSeconds and EndSeconds are when it is expected to start and
	// end, from the campaign's start (see [Estimate]); 0 when blocked.
	StartSeconds int `json:"startSeconds"`
	EndSeconds   int `json:"endSeconds"`
	// Blocked says why it cannot run yet; nil when it can.
	Blocked *Blocked `json:"blocked,omitempty"`
	// Plan is its cutover plan; nil when none could be made. A target
	// group blocked by a precondition keeps its plan.
	Plan *cutover.Plan `json:"plan,omitempty"`
	// Exposure is its blast radius: the listener rules and API Gateway
	// routes that reach it.
	Exposure Exposure `json:"exposure,omitzero"`
}

// Runnable reports whether e runs in the campaign: it has a cutover plan
// and nothing blocks it.
func (e Entry) Runnable() bool { return e.Blocked == nil && e.Plan != nil }

// BlockReason says why a target group cannot run yet.
type BlockReason string

// The reasons a target group is blocked.
const (
	// ReasonUnread: diagnose could not read it (its ResourceError).
	ReasonUnread BlockReason = "unread"
	// ReasonNoCutover: diagnose finds no cutover for it (the controller
	// owns it already, or nothing pins a node IP).
	ReasonNoCutover BlockReason = "no-cutover"
	// ReasonNotCluster: it is not the campaign's clusters' target group
	// (outside them, or in another account than its cluster's).
	ReasonNotCluster BlockReason = "not-cluster"
	// ReasonManual: a manual change comes first (diagnose's OpManual
	// finding: a quota to raise, a weighted forward, another owner).
	ReasonManual BlockReason = "manual"
	// ReasonNoHandoff: the next call is PlanCutover, but diagnose could
	// not infer all of it (NextCall.Missing).
	ReasonNoHandoff BlockReason = "no-handoff"
	// ReasonPrecondition: its cutover plan has a precondition the
	// campaign does not accept ([WithAcceptPreconditions]).
	ReasonPrecondition BlockReason = "precondition"
	// ReasonQuota: PlanCutover refused it with a cutover.QuotaError: no
	// bound fits ELBv2's quotas on targets.
	ReasonQuota BlockReason = "quota"
	// ReasonPlanError: PlanCutover failed otherwise (a guard, a stale
	// handoff, a read).
	ReasonPlanError BlockReason = "plan-error"
)

// Blocked is why an entry cannot run yet, and what to do.
type Blocked struct {
	// Reason is the kind of block.
	Reason BlockReason `json:"reason"`
	// Detail says it in one line.
	Detail string `json:"detail"`
	// Next is diagnose's next call for it, when diagnose named one.
	Next *diagnose.NextCall `json:"next,omitempty"`
	// Error is the message of PlanCutover's error, when it failed.
	Error string `json:"error,omitempty"`
}

// Wave is a set of runnable target groups run together, under the
// limits.
type Wave struct {
	// Name is "canary" or "wave N".
	Name string `json:"name"`
	// Canary says it is the canary wave.
	Canary bool `json:"canary,omitempty"`
	// TargetGroupARNs are its target groups, in the order a scheduler
	// starts them (the estimate's).
	TargetGroupARNs []tgmigrate.ARN `json:"targetGroupARNs"`
	// Approval says an approval point comes before it: the scheduler
	// asks (a callback; a prompt in the CLI) once the wave before it has
	// ended. Every wave but the first has one.
	Approval bool `json:"approval"`
}

// PlanCampaign plans a campaign: it validates in and opts before any
// call, runs diagnose.Diagnose for the selection once per account, over
// the clusters that account serves (each account and each cluster read
// once), plans each target group whose next call is
// cutover.PlanCutover with a handoff (cutover.RequestFrom, then
// PlanCutover with a cutover.ReadEnv of its cluster and its cluster's
// account), and records every other selected target group with why it
// cannot run yet and its next call. One target group that cannot run
// never fails the plan. It reads each entry's exposure (the listener
// rules diagnose read, and with Account.APIGateway the HTTP API routes
// that reach them; a refusal is one of Plan.Errors, never fatal). It
// then puts the runnable ones in waves, derives
// the limits and the estimate, and seals the plan with its digest.
//
// It reads only: every client it takes is read-only by type. It returns
// an [*InputError] for a bad input or option, before any call (an
// explicit canary that is not runnable is known only after planning,
// and is one too); an error of diagnose's own (nothing scanned, a
// cancelled context) wrapped; a cancelled context while planning.
func PlanCampaign(ctx context.Context, in Input, opts ...Option) (*Plan, error) {
	cfg, err := configOf(opts)
	if err != nil {
		return nil, err
	}
	accountOf, err := in.validate()
	if err != nil {
		return nil, err
	}
	runs, err := diagnoseRuns(in, accountOf, dopts(cfg))
	if err != nil {
		return nil, err
	}
	p := &Plan{SchemaVersion: PlanSchemaVersion, CreatedAt: cfg.clock.Now(), Selection: in.Selection, Accepted: cfg.accept}
	for _, a := range in.Accounts {
		p.Accounts = append(p.Accounts, AccountRef{ID: a.ID, Region: a.Region, ServiceQuotas: a.ServiceQuotas != nil, APIGateway: a.APIGateway != nil})
	}
	for i, c := range in.Clusters {
		a := in.Accounts[accountOf[i]]
		p.Clusters = append(p.Clusters, ClusterRef{Name: c.Name, AccountID: a.ID, Region: a.Region, VPCID: c.VPCID})
	}
	pl := planner{in: in, accountOf: accountOf, cfg: cfg}
	var reports []*diagnose.Report
	for _, r := range runs {
		rep, err := diagnose.Diagnose(ctx, r.src, r.scope, dopts(cfg)...)
		if err != nil && !errors.Is(err, diagnose.ErrNothingScanned) {
			return nil, fmt.Errorf("campaign: plan: diagnose %s: %w", r.name, err)
		}
		if rep != nil {
			reports = append(reports, rep)
		}
	}
	if p.Entries, p.Errors, err = pl.entries(ctx, reports); err != nil {
		return nil, err
	}
	refused, err := readExposure(ctx, in, p.Entries, cfg)
	if err != nil {
		return nil, err
	}
	p.Errors = append(p.Errors, refused...)
	if cfg.order != LongestFirst {
		p.Order = cfg.order
	}
	if p.Waves, err = makeWaves(p.Entries, cfg, in.Clusters); err != nil {
		return nil, err
	}
	p.Limits = makeLimits(p.Entries, cfg)
	if err := p.reestimate(); err != nil {
		return nil, err
	}
	p.ID = planID(p)
	if err := p.seal(); err != nil {
		return nil, err
	}
	return p, nil
}

// reestimate places every entry in its wave and sets the estimate.
func (p *Plan) reestimate() error {
	est, slots, err := EstimateOf(p.Entries, p.Waves, p.Limits)
	if err != nil {
		return err
	}
	for i := range p.Entries {
		p.Entries[i].Wave, p.Entries[i].StartSeconds, p.Entries[i].EndSeconds = -1, 0, 0
	}
	for _, s := range slots {
		i := p.index(s.TargetGroupARN)
		p.Entries[i].Wave, p.Entries[i].StartSeconds, p.Entries[i].EndSeconds = s.Wave, s.StartSeconds, s.EndSeconds
	}
	p.Estimate = est
	return nil
}

// index returns the index of the entry of a, -1 if none.
func (p *Plan) index(a tgmigrate.ARN) int {
	for i, e := range p.Entries {
		if e.TargetGroupARN.Raw == a.Raw {
			return i
		}
	}
	return -1
}

// Entry returns the entry of the target group a, and whether there is
// one.
func (p *Plan) Entry(a tgmigrate.ARN) (Entry, bool) {
	if i := p.index(a); i >= 0 {
		return p.Entries[i], true
	}
	return Entry{}, false
}
