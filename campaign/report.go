package campaign

// report.go: the final report of a campaign (Report: per account,
// cluster and target group its outcome, cutover, reason and next call,
// exposure and the requests it kept serving in its cutover window),
// NewReport from a plan and a Result, its options (WithTraffic, a
// TrafficMeter), ReportSchema and Report.JSON. report_markdown.go holds
// Report.Markdown.

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/qstools/tgmigrate"
)

// ReportSchemaVersion is the version of a Report's JSON.
const ReportSchemaVersion = 1

//go:embed schema/report.v1.json
var reportSchema []byte

// ReportSchema returns the JSON Schema (draft 2020-12) that [Report.JSON]
// output validates against, for schema version [ReportSchemaVersion].
// The file is campaign/schema/report.v1.json in the repository.
func ReportSchema() []byte { return slices.Clone(reportSchema) }

// Report is a campaign's final report: the run against the plan's
// estimate, the totals, and per account, cluster and target group the
// outcome, with the requests each cutover kept serving where a meter
// measured them ([WithTraffic]). It is plain data; [Report.JSON] is
// valid against [ReportSchema], [Report.Markdown] is for a pull request
// or a ticket.
type Report struct {
	// SchemaVersion is [ReportSchemaVersion].
	SchemaVersion int `json:"schemaVersion"`
	// PlanID and PlanDigest are the campaign plan's.
	PlanID     string `json:"planID"`
	PlanDigest string `json:"planDigest"`
	// Holder is the runner whose Result it is; empty for a Result made
	// from the journal ([ResultOf]).
	Holder string `json:"holder,omitempty"`
	// Finished says every entry is in an end state; Completed that every
	// runnable one is done.
	Finished  bool `json:"finished"`
	Completed bool `json:"completed"`
	// StartedAt and FinishedAt are the Result's, on the injected clock;
	// WallSeconds the time between them.
	StartedAt   time.Time `json:"startedAt,omitzero"`
	FinishedAt  time.Time `json:"finishedAt,omitzero"`
	WallSeconds float64   `json:"wallSeconds"`
	// EstimateSeconds is the plan's critical-path estimate
	// (Plan.Estimate.TotalSeconds); Ratio is WallSeconds over it (0 when
	// it is 0).
	EstimateSeconds int     `json:"estimateSeconds"`
	Ratio           float64 `json:"ratio"`
	// Totals count the entries by status.
	Totals Totals `json:"totals"`
	// CallsRecorded says the Result had its runner's ELBv2 calls
	// (Execute's); a Result made from the journal ([ResultOf]) has none.
	CallsRecorded bool `json:"callsRecorded"`
	// TrafficSource names the meter of the requests ([WithTraffic]);
	// empty when none was given: nothing is measured.
	TrafficSource string `json:"trafficSource,omitempty"`
	// Accounts are the campaign's accounts, in the plan's order, each
	// with its clusters and target groups.
	Accounts []AccountReport `json:"accounts"`
	// Waves are the waves and their approvals.
	Waves []WaveState `json:"waves"`
	// Stops are the runs that stopped before the end.
	Stops []Stop `json:"stops,omitempty"`
}

// AccountReport is one account (and Region) of a [Report].
type AccountReport struct {
	// Account is "ID/Region"; ID and Region its parts.
	Account string `json:"account"`
	ID      string `json:"id"`
	Region  string `json:"region"`
	// Calls are the runner's cutovers' ELBv2 calls in it, by operation
	// (Result.Calls); CallsTotal their sum. Absent when not recorded
	// (Report.CallsRecorded).
	Calls      map[string]int `json:"calls,omitempty"`
	CallsTotal int            `json:"callsTotal"`
	// Totals count its entries by status.
	Totals Totals `json:"totals"`
	// Clusters are its target groups' clusters, in the plan's order
	// (target groups with no cluster last, under "").
	Clusters []ClusterReport `json:"clusters"`
}

// ClusterReport is one cluster of an account in a [Report].
type ClusterReport struct {
	// Name is the cluster's; empty for target groups of no cluster
	// (blocked before diagnose named one).
	Name string `json:"name"`
	// Totals count its entries by status.
	Totals Totals `json:"totals"`
	// TargetGroups are its target groups, in the plan's order.
	TargetGroups []TargetGroupReport `json:"targetGroups"`
}

// TargetGroupReport is one target group of a [Report].
type TargetGroupReport struct {
	// Name and ARN identify it; LoadBalancerARNs forward to it.
	Name             string   `json:"name"`
	ARN              string   `json:"arn"`
	LoadBalancerARNs []string `json:"loadBalancerARNs,omitempty"`
	// Wave is its wave's index (-1 when blocked in the plan), WaveName
	// its name.
	Wave     int    `json:"wave"`
	WaveName string `json:"waveName,omitempty"`
	// Status, Holder and Attempts are the journal's.
	Status   EntryStatus `json:"status"`
	Holder   string      `json:"holder,omitempty"`
	Attempts int         `json:"attempts"`
	// StartedAt and FinishedAt are its first start and its end;
	// Seconds the time between them (0 when it has not ended).
	StartedAt  time.Time `json:"startedAt,omitzero"`
	FinishedAt time.Time `json:"finishedAt,omitzero"`
	Seconds    float64   `json:"seconds"`
	// EstimateSeconds is its plan's floor (Entry.Seconds).
	EstimateSeconds int `json:"estimateSeconds"`
	// Cutover summarizes its cutover's last run (floor seconds, calls).
	Cutover *CutoverSummary `json:"cutover,omitempty"`
	// Disposition and Error are its failure's (cutover.Classify's class).
	Disposition string `json:"disposition,omitempty"`
	Error       string `json:"error,omitempty"`
	// Reason says why it is blocked (with PlanCutover's error when the
	// plan has one) or skipped, or how its run stopped.
	Reason string `json:"reason,omitempty"`
	// BlockReason is the plan's reason when it is blocked in the plan.
	BlockReason BlockReason `json:"blockReason,omitempty"`
	// Next is the next call for it (the plan's Entry.Blocked.Next):
	// diagnose's operation, its reason and what it misses.
	Next *NextStep `json:"next,omitempty"`
	// Replanned says its cutover plan was stale and re-planned before it
	// ran.
	Replanned bool `json:"replanned,omitempty"`
	// Exposure is its blast radius, from the plan.
	Exposure Exposure `json:"exposure,omitzero"`
	// Traffic are the requests it served in its cutover window
	// [StartedAt, FinishedAt], when measured; nil when not (no meter, the
	// meter did not measure it, or it has not run).
	Traffic *TrafficCount `json:"traffic,omitempty"`
}

// NextStep is the next call for a blocked target group.
type NextStep struct {
	// Op is diagnose's operation ("cutover.PlanCutover", "manual"...).
	Op string `json:"op"`
	// Reason says why, or what to do.
	Reason string `json:"reason,omitempty"`
	// Missing names the arguments diagnose could not infer.
	Missing []string `json:"missing,omitempty"`
}

// TrafficCount counts the requests a target group served in a window.
type TrafficCount struct {
	// Source is the meter's name, as [WithTraffic] gives it; NewReport
	// sets it.
	Source string `json:"source"`
	// Total = Served + Failed.
	Total  int `json:"total"`
	Served int `json:"served"`
	Failed int `json:"failed"`
	// From and To bound the window.
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// TrafficMeter counts the requests the target group tg served between
// from and to; false when it did not measure them. A simulated world
// adapts in one line:
//
//	func(tg tgmigrate.ARN, from, to time.Time) (campaign.TrafficCount, bool) {
//		r := world.RequestsBetween(tg, from, to)
//		return campaign.TrafficCount{Total: r.Total, Served: r.Served, Failed: r.Failed}, true
//	}
type TrafficMeter func(tg tgmigrate.ARN, from, to time.Time) (TrafficCount, bool)

// ReportOption adjusts one NewReport call.
type ReportOption func(*reportConfig)

type reportConfig struct {
	source string
	meter  TrafficMeter
	err    error
}

// WithTraffic measures each target group's requests in its cutover
// window with m, named source ("simulator", "cloudwatch"). An empty
// source or a nil meter is an [*InputError]. Default: not measured.
func WithTraffic(source string, m TrafficMeter) ReportOption {
	return func(c *reportConfig) {
		switch {
		case c.err != nil:
		case source == "":
			c.err = &InputError{Op: "report", Field: "WithTraffic.source", Reason: "is empty"}
		case m == nil:
			c.err = &InputError{Op: "report", Field: "WithTraffic.meter", Reason: "is nil"}
		default:
			c.source, c.meter = source, m
		}
	}
}

// NewReport makes the report of the campaign of p from its result r
// ([Execute]'s, or [ResultOf]'s): per account (in the plan's order),
// cluster and target group, the outcome with the plan's block reasons,
// next calls and exposure, and with [WithTraffic] the requests each
// target group served in its cutover window [StartedAt, FinishedAt].
// A nil plan or result, a result of another plan (ID, digest or
// entries) or a bad option is an [*InputError] naming the field; nothing
// is measured before they are checked.
func NewReport(p *Plan, r *Result, opts ...ReportOption) (*Report, error) {
	var cfg reportConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	bad := func(field, format string, args ...any) error {
		return &InputError{Op: "report", Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case cfg.err != nil:
		return nil, cfg.err
	case p == nil:
		return nil, bad("plan", "is nil")
	case r == nil:
		return nil, bad("result", "is nil")
	case r.PlanID != p.ID || r.PlanDigest != p.Digest:
		return nil, bad("result", "of plan %s (%s), not %s (%s)", r.PlanID, r.PlanDigest, p.ID, p.Digest)
	case len(r.Entries) != len(p.Entries):
		return nil, bad("result.Entries", "%d entries, the plan %d", len(r.Entries), len(p.Entries))
	}
	for i, e := range p.Entries {
		if r.Entries[i].TargetGroupARN != e.TargetGroupARN.Raw {
			return nil, bad(fmt.Sprintf("result.Entries[%d]", i), "is %s, the plan's %s", r.Entries[i].TargetGroupARN, e.TargetGroupARN)
		}
	}
	rep := &Report{SchemaVersion: ReportSchemaVersion, PlanID: p.ID, PlanDigest: p.Digest, Holder: r.Holder, Finished: r.Finished,
		Completed: r.Completed, StartedAt: r.StartedAt, FinishedAt: r.FinishedAt, EstimateSeconds: p.Estimate.TotalSeconds,
		Totals: r.Totals, CallsRecorded: r.Calls != nil, TrafficSource: cfg.source, Waves: slices.Clone(r.Waves), Stops: slices.Clone(r.Stops)}
	if !r.StartedAt.IsZero() && r.FinishedAt.After(r.StartedAt) {
		rep.WallSeconds = r.FinishedAt.Sub(r.StartedAt).Seconds()
	}
	if rep.EstimateSeconds > 0 {
		rep.Ratio = rep.WallSeconds / float64(rep.EstimateSeconds)
	}
	rep.Accounts = []AccountReport{}
	accounts := map[string]*AccountReport{}
	var order []string
	addAccount := func(id, region string) *AccountReport {
		key := id + "/" + region
		if a, ok := accounts[key]; ok {
			return a
		}
		a := &AccountReport{Account: key, ID: id, Region: region}
		if c, ok := r.Calls[key]; ok {
			a.Calls = maps.Clone(c)
			for _, n := range c {
				a.CallsTotal += n
			}
		}
		accounts[key] = a
		order = append(order, key)
		return a
	}
	for _, a := range p.Accounts {
		addAccount(a.ID, a.Region)
	}
	for i, e := range p.Entries {
		a := addAccount(e.AccountID, e.Region)
		tg := targetGroupReport(e, r.Entries[i], r.Waves, cfg)
		ci := slices.IndexFunc(a.Clusters, func(c ClusterReport) bool { return c.Name == e.Cluster })
		if ci < 0 {
			a.Clusters = append(a.Clusters, ClusterReport{Name: e.Cluster})
			ci = len(a.Clusters) - 1
		}
		a.Clusters[ci].TargetGroups = append(a.Clusters[ci].TargetGroups, tg)
		a.Clusters[ci].Totals.add(tg.Status)
		a.Totals.add(tg.Status)
	}
	rank := func(name string) int {
		if i := slices.IndexFunc(p.Clusters, func(c ClusterRef) bool { return c.Name == name }); i >= 0 {
			return i
		}
		return len(p.Clusters)
	}
	for _, key := range order {
		a := accounts[key]
		slices.SortStableFunc(a.Clusters, func(x, y ClusterReport) int { return cmp.Compare(rank(x.Name), rank(y.Name)) })
		if a.Clusters == nil {
			a.Clusters = []ClusterReport{}
		}
		rep.Accounts = append(rep.Accounts, *a)
	}
	return rep, nil
}

// targetGroupReport is one entry's row of the report.
func targetGroupReport(e Entry, er EntryResult, waves []WaveState, cfg reportConfig) TargetGroupReport {
	tg := TargetGroupReport{Name: e.Name, ARN: e.TargetGroupARN.Raw, LoadBalancerARNs: slices.Clone(e.LoadBalancerARNs), Wave: er.Wave,
		Status: er.Status, Holder: er.Holder, Attempts: er.Attempts, StartedAt: er.StartedAt, FinishedAt: er.FinishedAt, Seconds: er.Seconds,
		EstimateSeconds: e.Seconds, Cutover: er.Cutover, Disposition: er.Disposition, Error: er.Error, Reason: er.Reason,
		Replanned: er.Replan != nil, Exposure: e.Exposure}
	if er.Wave >= 0 && er.Wave < len(waves) {
		tg.WaveName = waves[er.Wave].Name
	}
	if b := e.Blocked; b != nil {
		tg.BlockReason = b.Reason
		if er.Status == StatusBlocked && b.Error != "" && !strings.Contains(tg.Reason, b.Error) {
			tg.Reason = strings.TrimPrefix(tg.Reason+": "+b.Error, ": ")
		}
		if b.Next != nil {
			tg.Next = &NextStep{Op: string(b.Next.Op), Reason: b.Next.Reason, Missing: slices.Clone(b.Next.Missing)}
		}
	}
	if cfg.meter != nil && !er.StartedAt.IsZero() && !er.FinishedAt.IsZero() {
		if c, ok := cfg.meter(e.TargetGroupARN, er.StartedAt, er.FinishedAt); ok {
			c.Source, c.From, c.To = cfg.source, er.StartedAt, er.FinishedAt
			tg.Traffic = &c
		}
	}
	return tg
}

// JSON returns the report as indented JSON, valid against
// [ReportSchema].
func (rep *Report) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("campaign: report: %w", err)
	}
	return b, nil
}
