package subnets

// plan_text.go: the plan's renderings: Text for a person to approve, JSON
// to store, and DecodePlan that reads the JSON back strictly.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/qstools/tgmigrate/internal/textcell"
)

// Text renders the plan for a person to read and approve: what each step
// writes, from what to what, what the watch guards, and the notes.
func (p *Plan) Text() string {
	if p == nil {
		return "no plan\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Plan %s: move the nodes of cluster %s (%s, %s) to private subnets\n", p.ID, p.Cluster, p.VPCID, p.Region)
	fmt.Fprintf(&b, "  readiness checked at %s; digest %s\n", p.ReadinessCheckedAt.UTC().Format(time.RFC3339), p.Digest)
	fmt.Fprintf(&b, "  private subnets:\n")
	for _, s := range p.PrivateSubnets {
		fmt.Fprintf(&b, "    %s %s %s (%d free, egress %s)\n", s.ID, s.Zone, s.CIDR, s.Free, dashIfEmpty(s.Egress))
	}
	for i, s := range p.Steps {
		fmt.Fprintf(&b, "Step %d %s: %s\n", i+1, s.ID, s.Title)
		switch s.ID {
		case StepTightenBudgets, StepRestoreBudgets:
			for _, np := range p.NodePools {
				if np.Move == nil {
					continue
				}
				from, to := np.From, np.Move
				if s.ID == StepRestoreBudgets {
					from, to = to, from
				}
				fmt.Fprintf(&b, "    NodePool/%s: budgets %s -> %s\n", np.Name, budgetsString(from), budgetsString(to))
			}
		case StepPatchNodeClasses:
			for _, nc := range p.NodeClasses {
				fmt.Fprintf(&b, "    EC2NodeClass/%s: %s -> %s\n", nc.Name, renderSelection(nc.From), renderSelection(nc.To))
			}
		case StepWatchReplacement:
			fmt.Fprintf(&b, "    estimate: %s in %s, about %v\n", textcell.Plural(p.Estimate.Nodes, "node", "nodes"), textcell.Plural(p.Estimate.Waves, "wave", "waves"), p.Estimate.Duration)
			for _, np := range p.NodePools {
				fmt.Fprintf(&b, "    NodePool/%s (EC2NodeClass/%s): %s at once\n", np.Name, np.NodeClass, textcell.Plural(np.AllowedDrift, "node", "nodes"))
			}
			for _, tg := range p.TargetGroups {
				fmt.Fprintf(&b, "    %s: healthy >= %d, zones %s\n", tg.ARN, tg.Floor, dashIfEmpty(strings.Join(tg.Zones, ",")))
			}
		}
	}
	if len(p.Notes) > 0 {
		b.WriteString("Notes:\n")
		for _, n := range p.Notes {
			fmt.Fprintf(&b, "  %s\n", n)
		}
	}
	b.WriteString("Rollback writes each EC2NodeClass and NodePool back as read above, and watches the replacement back.\n")
	return b.String()
}

func dashIfEmpty(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// JSON renders the plan as indented JSON, which [DecodePlan] reads back.
func (p *Plan) JSON() ([]byte, error) { return json.MarshalIndent(p, "", "  ") }

// DecodePlan reads a plan's JSON strictly: an unknown field, trailing data
// or a plan that fails [Plan.Validate] (an edited plan's digest no longer
// matches) is a *[MoveInputError].
func DecodePlan(data []byte) (*Plan, error) {
	const op = "decode plan"
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p Plan
	if err := dec.Decode(&p); err != nil {
		return nil, &MoveInputError{Op: op, Field: "data", Reason: "not a plan", Err: err}
	}
	if dec.More() {
		return nil, &MoveInputError{Op: op, Field: "data", Reason: "trailing data after the plan"}
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}
