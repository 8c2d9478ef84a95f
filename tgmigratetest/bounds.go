package tgmigratetest

// bounds.go: the range of every option of Options, checked by
// Options.check before anything is built (MaxNodes, MaxPods, MaxRPS,
// MinChurnInterval, MaxChurnInterval), each bad value an *OptionsError
// naming its field and the range accepted.

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/timing"
)

// The bounds of [Options].
const (
	// MaxNodes bounds Options.Nodes: the hand-made target group holds one
	// target per node, and ELBv2 allows 1,000 targets per target group.
	MaxNodes = 1000
	// MaxPods bounds Options.Pods: a migration registers every pod in
	// the target group, whose quota is 1,000 targets.
	MaxPods = 1000
	// MaxRPS bounds Options.RPS: the traffic generator sends at most
	// 1,000 requests a second.
	MaxRPS = 1000
	// MinChurnInterval and MaxChurnInterval bound Churn.Interval (and
	// MaxChurnInterval Churn.Delay): a node takes 45 s to launch, so a
	// shorter interval would replace nodes faster than any cluster does.
	MinChurnInterval = time.Second
	MaxChurnInterval = 24 * time.Hour
)

// checkBounds refuses a value out of its range, naming the field and the
// range: nothing is built before it passes.
func (o Options) checkBounds() error {
	bad := func(field, format string, args ...any) error {
		return optionsError("new world", field, fmt.Sprintf(format, args...))
	}
	c := o.Churn
	switch {
	case o.Nodes < 0 || o.Nodes > MaxNodes:
		return bad("Nodes", "%d is out of range: want 1 to %d (zero: 20)", o.Nodes, MaxNodes)
	case o.Pods < 0 || o.Pods > MaxPods:
		return bad("Pods", "%d is out of range: want 1 to %d (zero: 60)", o.Pods, MaxPods)
	case o.Fargate && o.nodes()+o.pods() > MaxNodes:
		return bad("Pods", "%d Fargate pods and %d nodes are %d targets of the hand-made target group: want at most %d", o.pods(), o.nodes(), o.nodes()+o.pods(), MaxNodes)
	case o.RPS > MaxRPS:
		return bad("RPS", "%d is above %d (negative: no traffic)", o.RPS, MaxRPS)
	case o.TargetType != "" && o.TargetType != "ip" && o.TargetType != "instance":
		return bad("TargetType", "%q is neither ip nor instance", o.TargetType)
	case c.Interval != 0 && (c.Interval < MinChurnInterval || c.Interval > MaxChurnInterval):
		return bad("Churn.Interval", "%v is out of range: want %v to %v (zero: no churn)", c.Interval, MinChurnInterval, MaxChurnInterval)
	case c.Delay < 0 || c.Delay > MaxChurnInterval:
		return bad("Churn.Delay", "%v is out of range: want 0 to %v", c.Delay, MaxChurnInterval)
	case c.Shape != "" && !slices.Contains(churnShapes, c.Shape):
		return bad("Churn.Shape", "%q is not one of %v", c.Shape, churnShapes)
	}
	if c.Share != "" {
		if err := countOrPercent(c.Share, 1); err != nil {
			return bad("Churn.Share", "%v", err)
		}
	}
	if c.Budget != "" {
		if err := countOrPercent(c.Budget, 0); err != nil {
			return bad("Churn.Budget", "%v", err)
		}
	}
	if err := o.Timings.timings().Validate(); err != nil {
		var ie *timing.InvalidError
		if errors.As(err, &ie) {
			return bad("Timings."+ie.Knob, "%s", ie.Reason)
		}
		return bad("Timings", "%v", err)
	}
	return nil
}

// nodes and pods are Options.Nodes and Options.Pods with their defaults.
func (o Options) nodes() int { return cmp.Or(o.Nodes, sim.DefaultNodes) }
func (o Options) pods() int  { return cmp.Or(o.Pods, sim.DefaultPods) }

// countOrPercent checks a count of at least least ("2") or a percentage of
// least to 100 ("25%").
func countOrPercent(s string, least int) error {
	if p, ok := strings.CutSuffix(s, "%"); ok {
		if v, err := strconv.Atoi(p); err != nil || v < least || v > 100 {
			return fmt.Errorf("%q is not a percentage of %d to 100", s, least)
		}
		return nil
	}
	if v, err := strconv.Atoi(s); err != nil || v < least {
		return fmt.Errorf("%q is not a count of at least %d or a percentage", s, least)
	}
	return nil
}
