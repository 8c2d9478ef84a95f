package campaign

// estimate.go: the campaign's expected duration: a deterministic
// list-scheduling simulation of the waves under the limits, from each
// cutover plan's own estimate (EstimateOf, a pure function: no clock).

import (
	"fmt"
	"slices"

	"github.com/qstools/tgmigrate"
)

// EstimateBasis says what every [Estimate] rests on.
const EstimateBasis = "each cutover's own floor (cutover.Plan.Estimate.FloorSeconds); the waves in sequence, each starting when the one before has ended (approvals taking no time); within a wave, list scheduling in the wave's order under the limits (Limits.Admit)"

// Estimate is the campaign's expected duration under its limits.
type Estimate struct {
	// TotalSeconds is when the last wave is expected to end, from the
	// campaign's start: the critical path through the waves.
	TotalSeconds int `json:"totalSeconds"`
	// SerialSeconds is the sum of the runnable cutovers' floors: the
	// campaign run one cutover at a time.
	SerialSeconds int `json:"serialSeconds"`
	// Waves are each wave's expected start and end, in order.
	Waves []WaveEstimate `json:"waves"`
	// CriticalPath is the chain of cutovers the total rests on: in each
	// wave, its last to end and, back from it, each cutover whose end let
	// the next one start.
	CriticalPath []tgmigrate.ARN `json:"criticalPath"`
	// Basis is [EstimateBasis].
	Basis string `json:"basis"`
}

// WaveEstimate is one wave's expected start and end.
type WaveEstimate struct {
	// StartSeconds is when the wave is expected to start, from the
	// campaign's start.
	StartSeconds int `json:"startSeconds"`
	// EndSeconds is when its last cutover is expected to end.
	EndSeconds int `json:"endSeconds"`
}

// Slot is one cutover's expected start and end in an estimate.
type Slot struct {
	// TargetGroupARN is the cutover's target group.
	TargetGroupARN tgmigrate.ARN
	// Wave is its wave's index.
	Wave int
	// StartSeconds and EndSeconds are when it is expected to start and
	// end, from the campaign's start.
	StartSeconds, EndSeconds int
}

// EstimateOf simulates the campaign: the waves in order, each starting
// when the one before has ended; within a wave, at each moment, every
// waiting entry in the wave's order that [Limits.Admit] lets start with
// those running starts, and the time moves to the next end. Each entry
// takes its Seconds. It returns the estimate and each entry's slot, in
// the order they start. Every ARN of the waves must be a runnable entry
// of entries, once; else an [*InputError]. It reads no clock: the same
// arguments give the same result.
func EstimateOf(entries []Entry, waves []Wave, limits Limits) (Estimate, []Slot, error) {
	est := Estimate{Basis: EstimateBasis}
	byARN := map[string]int{}
	for i, e := range entries {
		byARN[e.TargetGroupARN.Raw] = i
	}
	if limits.Concurrency < 1 || limits.PerAccount < 1 || limits.PerCluster < 1 {
		return est, nil, &InputError{Op: "estimate", Field: "limits", Reason: fmt.Sprintf("concurrency %d, per account %d, per cluster %d: each must be at least 1", limits.Concurrency, limits.PerAccount, limits.PerCluster)}
	}
	seen := map[string]bool{}
	var slots []Slot
	t := 0
	for w, wave := range waves {
		var pending []Entry
		for k, a := range wave.TargetGroupARNs {
			i, ok := byARN[a.Raw]
			switch {
			case !ok || !entries[i].Runnable():
				return est, nil, &InputError{Op: "estimate", Field: fmt.Sprintf("waves[%d].TargetGroupARNs[%d]", w, k), Reason: fmt.Sprintf("%s is not a runnable entry", a)}
			case seen[a.Raw]:
				return est, nil, &InputError{Op: "estimate", Field: fmt.Sprintf("waves[%d].TargetGroupARNs[%d]", w, k), Reason: fmt.Sprintf("%s is in a wave already", a)}
			}
			seen[a.Raw] = true
			pending = append(pending, entries[i])
			est.SerialSeconds += entries[i].Seconds
		}
		start := t
		ws, end := schedule(nil, pending, limits, w, start)
		slots = append(slots, ws...)
		est.Waves = append(est.Waves, WaveEstimate{StartSeconds: start, EndSeconds: end})
		est.CriticalPath = append(est.CriticalPath, criticalPath(ws, start, end)...)
		t = end
	}
	est.TotalSeconds = t
	return est, slots, nil
}

// busy is a cutover running when a schedule starts: it holds its place
// under the limits until end.
type busy struct {
	e   Entry
	end int
}

// schedule runs one wave's list scheduling from start, with the cutovers
// running holding their places until their ends (none for a wave not
// started: EstimateOf; those a campaign runs now: ProgressOf); it returns
// the slots of pending in the order they start and the wave's end.
func schedule(running []busy, pending []Entry, limits Limits, wave, start int) ([]Slot, int) {
	running = slices.Clone(running)
	var slots []Slot
	t, end := start, start
	for _, r := range running {
		end = max(end, r.end)
	}
	for len(pending) > 0 || len(running) > 0 {
		now := make([]Entry, len(running))
		for i, r := range running {
			now[i] = r.e
		}
		var wait []Entry
		for _, e := range pending {
			if limits.Admit(now, e) != "" {
				wait = append(wait, e)
				continue
			}
			now = append(now, e)
			running = append(running, busy{e, t + e.Seconds})
			slots = append(slots, Slot{TargetGroupARN: e.TargetGroupARN, Wave: wave, StartSeconds: t, EndSeconds: t + e.Seconds})
			end = max(end, t+e.Seconds)
		}
		pending = wait
		if len(running) == 0 {
			break // cannot happen: Admit lets anything start alone
		}
		t = slices.MinFunc(running, func(a, b busy) int { return a.end - b.end }).end
		running = slices.DeleteFunc(running, func(r busy) bool { return r.end <= t })
	}
	return slots, end
}

// criticalPath returns the chain the wave's end rests on: its last slot
// to end (the first such in start order) and, back from it, the slot
// that ended as it started (the first such), until one that started
// with the wave.
func criticalPath(slots []Slot, start, end int) []tgmigrate.ARN {
	i := slices.IndexFunc(slots, func(s Slot) bool { return s.EndSeconds == end })
	var path []tgmigrate.ARN
	for i >= 0 && len(path) < len(slots) {
		s := slots[i]
		path = append(path, s.TargetGroupARN)
		if s.StartSeconds == start {
			break
		}
		i = slices.IndexFunc(slots, func(p Slot) bool { return p.EndSeconds == s.StartSeconds && p.StartSeconds < s.StartSeconds })
	}
	slices.Reverse(path)
	return path
}
