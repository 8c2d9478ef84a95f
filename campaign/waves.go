package campaign

// waves.go: the runnable entries' waves: the canaries first (each
// cluster's, as the chooser or the explicit list says), then the rest,
// in waves of at most WithMaxPerWave, longest first.

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/qstools/tgmigrate"
)

// makeWaves puts the runnable entries in waves.
func makeWaves(entries []Entry, cfg config, clusters []Cluster) ([]Wave, error) {
	runnable := map[string]Entry{}
	for _, e := range entries {
		if e.Runnable() {
			runnable[e.TargetGroupARN.Raw] = e
		}
	}
	canary := map[string]bool{}
	var canaries []Entry
	add := func(e Entry) {
		if !canary[e.TargetGroupARN.Raw] {
			canary[e.TargetGroupARN.Raw] = true
			canaries = append(canaries, e)
		}
	}
	if cfg.listed {
		for i, a := range cfg.canaries {
			e, ok := runnable[a.Raw]
			if !ok {
				return nil, &InputError{Op: "plan", Field: fmt.Sprintf("WithCanaries[%d]", i), Reason: fmt.Sprintf("%s is not a runnable target group of the plan", a)}
			}
			add(e)
		}
	} else {
		for _, c := range clusters {
			var cands []Candidate
			for _, e := range entries {
				if e.Runnable() && e.Cluster == c.Name {
					cands = append(cands, Candidate{TargetGroupARN: e.TargetGroupARN, Name: e.Name, Targets: e.Targets, Seconds: e.Seconds,
						LoadBalancerARNs: slices.Clone(e.LoadBalancerARNs), Exposure: e.Exposure})
				}
			}
			slices.SortStableFunc(cands, func(a, b Candidate) int {
				return cmp.Or(cmp.Compare(a.Targets, b.Targets), cmp.Compare(a.TargetGroupARN.Raw, b.TargetGroupARN.Raw))
			})
			chooser := cfg.chooser
			switch {
			case chooser == nil && cfg.order == LeastExposedFirst:
				chooser = LeastExposed
			case chooser == nil:
				chooser = FewestTargets
			}
			for _, a := range chooser(c.Name, cands) {
				e, ok := runnable[a.Raw]
				if !ok || e.Cluster != c.Name {
					return nil, &InputError{Op: "plan", Field: "WithCanaryChooser", Reason: fmt.Sprintf("it chose %s, not a runnable target group of cluster %s", a, c.Name)}
				}
				add(e)
			}
		}
	}
	var rest []Entry
	for _, e := range entries {
		if e.Runnable() && !canary[e.TargetGroupARN.Raw] {
			rest = append(rest, e)
		}
	}
	// Longest first: list scheduling starts the long cutovers early, so
	// that the short ones fill in around them.
	// Or least exposed first (WithOrder): what an early failure reaches
	// is the least.
	slices.SortStableFunc(rest, func(a, b Entry) int {
		if cfg.order == LeastExposedFirst {
			return cmp.Or(LessExposed(a.Exposure, b.Exposure, a.Targets, b.Targets), cmp.Compare(a.TargetGroupARN.Raw, b.TargetGroupARN.Raw))
		}
		return cmp.Or(cmp.Compare(b.Seconds, a.Seconds), cmp.Compare(a.TargetGroupARN.Raw, b.TargetGroupARN.Raw))
	})
	var waves []Wave
	if len(canaries) > 0 {
		waves = append(waves, Wave{Name: "canary", Canary: true, TargetGroupARNs: arnsOf(canaries)})
	}
	size := cfg.maxPerWave
	if size == 0 {
		size = max(len(rest), 1)
	}
	n := 0
	for chunk := range slices.Chunk(rest, size) {
		n++
		waves = append(waves, Wave{Name: fmt.Sprintf("wave %d", n), TargetGroupARNs: arnsOf(chunk)})
	}
	for i := range waves {
		waves[i].Approval = i > 0
	}
	return waves, nil
}

// arnsOf returns the entries' target groups.
func arnsOf(es []Entry) []tgmigrate.ARN {
	out := make([]tgmigrate.ARN, len(es))
	for i, e := range es {
		out[i] = e.TargetGroupARN
	}
	return out
}
