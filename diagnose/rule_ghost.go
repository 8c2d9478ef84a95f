package diagnose

// This file is the GhostTarget rule: targets that no node or pod serves
// now, and that still take traffic.

import (
	"cmp"
	"fmt"

	"github.com/qstools/tgmigrate/internal/textcell"
)

// CodeGhostTarget: a target whose IP no current node or pod holds.
const CodeGhostTarget Code = "GhostTarget"

// SignalGhostTarget is the seed signal of [CodeGhostTarget].
const SignalGhostTarget = "5xx/503 spikes after Karpenter rotates nodes"

// ghostRule makes GhostTarget: targets that nothing serves now.
type ghostRule struct{}

var _ targetGroupRule = ghostRule{}

func (ghostRule) rules() []Rule {
	return []Rule{{CodeGhostTarget, SeverityCritical, SignalGhostTarget,
		"cutover.PlanCutover, strategy in-place for an ip target group (it deregisters the ghosts first, with their Port, and hands the target group to the LBC) or blue-green for an instance one"}}
}

// judge reports the ghosts that still take traffic: a draining ghost is
// deregistered already and leaves by itself.
func (ghostRule) judge(a *analysis) []Finding {
	var keys []string
	states := map[string]int{}
	heldBy := map[string]string{}
	reused := 0
	for _, t := range a.rep.Targets {
		if t.Class == ClassGhost && !t.Draining() {
			keys = append(keys, t.Key())
			states["state:"+cmp.Or(t.State, "unknown")]++
			if t.HeldBy != nil {
				reused++
				heldBy["heldBy/"+t.Key()] = t.HeldBy.String()
			}
		}
	}
	if len(keys) == 0 {
		return nil
	}
	states["ghosts"], states["targets"] = len(keys), len(a.rep.Targets)
	msg := fmt.Sprintf("ghost targets: %d of %d; no node or pod holds their address now", len(keys), len(a.rep.Targets))
	if reused > 0 {
		msg = fmt.Sprintf("ghost targets: %d of %d; nothing serves them now: ", len(keys), len(a.rep.Targets))
		if n := len(keys) - reused; n > 0 {
			msg += fmt.Sprintf("no node or pod holds %s, and ", textcell.Plural(n, "address", "addresses"))
		}
		msg += fmt.Sprintf("%s held again by a node or pod that does not serve the port", textcell.Plural(reused, "address is", "addresses are"))
		states["reused"] = reused
	}
	next := a.cutoverCall()
	does := "it deregisters the ghosts first, each with its Port"
	if next.Strategy == strategyBlueGreen {
		does = "the new ip target group takes the traffic, and the ghosts leave with this one"
	}
	return []Finding{a.finding(CodeGhostTarget, msg, Evidence{Names: keys, Counts: states, Details: heldBy}, a.cutoverProse(next, does), next)}
}
