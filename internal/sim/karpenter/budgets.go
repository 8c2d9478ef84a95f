package karpenter

// budgets.go: the NodePool's disruption budgets on the virtual clock:
// which are active now (a schedule and a duration, read with robfig/cron
// as Karpenter reads them), and how many more nodes each reason may
// disrupt.

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/qstools/tgmigrate/internal/karpenterapi"
)

// parseSchedule parses a budget's schedule as Karpenter does
// (pkg/apis/v1/nodepool.go, Budget.IsActive): a standard five-field cron
// expression or a descriptor (@daily, @hourly...), always in UTC.
func parseSchedule(s string) (cron.Schedule, error) {
	return cron.ParseStandard("TZ=UTC " + s)
}

// parseWindow checks a budget's schedule and duration together, as the
// CRD and Karpenter's cron parser do: both or neither, a schedule cron
// accepts, a duration of whole minutes (the CRD's pattern takes hours and
// minutes only) and more than zero. It returns the duration.
func parseWindow(schedule, dur string) (time.Duration, error) {
	if (schedule == "") != (dur == "") {
		return 0, fmt.Errorf("schedule %q and duration %q: 'schedule' must be set with 'duration'", schedule, dur)
	}
	if schedule == "" {
		return 0, nil
	}
	if _, err := parseSchedule(schedule); err != nil {
		return 0, fmt.Errorf("schedule %q: %v", schedule, err)
	}
	d, err := time.ParseDuration(dur)
	if err != nil || d <= 0 || d%time.Minute != 0 {
		return 0, fmt.Errorf("duration %q is not a positive whole number of minutes (for example 30m or 1h30m)", dur)
	}
	return d, nil
}

// budgetActive reports whether b is active at now, as Karpenter's
// Budget.IsActive decides it: a budget without a schedule always is; one
// with a schedule is when the schedule's first hit after now minus the
// duration is not after now, that is when the last hit is at most the
// duration ago. A malformed window is an error (Karpenter then fails
// closed: no disruption for the pool).
func budgetActive(b karpenterapi.Budget, now time.Time) (bool, error) {
	d, err := parseWindow(b.Schedule, b.Duration)
	if err != nil {
		return false, err
	}
	if b.Schedule == "" {
		return true, nil
	}
	s, _ := parseSchedule(b.Schedule) // checked by parseWindow
	now = now.UTC()
	return !s.Next(now.Add(-d)).After(now), nil
}

// allowed returns how many more nodes may be disrupted now for reason:
// the smallest active budget that applies, scaled to the pool's Ready
// nodes (rounded up), minus the nodes being disrupted, as Karpenter
// computes it (disruption/helpers.go BuildDisruptionBudgetMapping and
// pkg/apis/v1/nodepool.go GetAllowedDisruptionsByReason: a budget outside
// its window allows any number; a malformed one allows none, for every
// reason).
func (k *Karpenter) allowed(reason Reason) int {
	var total, disrupting int
	for _, c := range k.live() {
		switch c.state {
		case claimReady:
			total++
		case claimDisrupting, claimDraining:
			total++
			disrupting++
		}
	}
	now := k.clock.Now()
	var active []karpenterapi.Budget
	for _, b := range k.budgets {
		on, err := budgetActive(b, now)
		if err != nil {
			return 0
		}
		if on {
			active = append(active, b)
		}
	}
	if !slices.ContainsFunc(active, func(b karpenterapi.Budget) bool { return b.AppliesTo(string(reason)) }) {
		return total
	}
	limit, err := karpenterapi.AllowedDisruptions(active, string(reason), total)
	if err != nil { // budgets are checked when they are set: never reached
		return 0
	}
	return limit - disrupting
}

// apiBudget converts b, validated, to the karpenterapi form.
func apiBudget(b Budget) (karpenterapi.Budget, error) {
	if _, err := b.parse(); err != nil {
		return karpenterapi.Budget{}, err
	}
	kb := karpenterapi.Budget{Nodes: strings.TrimSpace(b.Nodes), Schedule: strings.TrimSpace(b.Schedule)}
	if err := karpenterapi.ValidBudgetNodes(kb.Nodes); err != nil {
		return karpenterapi.Budget{}, err
	}
	if b.Duration < 0 {
		return karpenterapi.Budget{}, fmt.Errorf("duration %v is negative", b.Duration)
	}
	if b.Duration > 0 {
		kb.Duration = duration(b.Duration)
	}
	if _, err := parseWindow(kb.Schedule, kb.Duration); err != nil {
		return karpenterapi.Budget{}, err
	}
	for _, r := range b.Reasons {
		kb.Reasons = append(kb.Reasons, string(r))
	}
	return kb, nil
}
