package sim

// targets.go: the ground truth of targets: every registered target with what
// holds its address now and what held it at registration, the ghosts among
// them, and the node targets.

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
)

// Target is a registered target, with what held its address.
type Target struct {
	// TargetGroupARN, IP and Port identify the target.
	TargetGroupARN string
	IP             string
	Port           int32
	// State and Reason are what DescribeTargetHealth reports.
	State  elbv2types.TargetHealthStateEnum
	Reason elbv2types.TargetHealthReasonEnum
	// Owner is what answers at IP now ("node/<name>", "pod/<ns>/<name>"),
	// "" for nobody.
	Owner string
	// FormerOwner is what held IP last, "" for an address the cluster never
	// handed out.
	FormerOwner string
	// Registered is what held IP when the target was registered ("" when
	// nothing did); Reused says the address has been handed out again
	// since, to another holder (which may hold it now, or have let it go
	// too).
	Registered string
	Reused     bool
}

// String renders the target as "IP:port state owner".
func (t Target) String() string {
	owner := t.Owner
	if owner == "" {
		owner = "nobody (was " + t.FormerOwner + ")"
	}
	if t.Reused {
		owner += " (reused; registered for " + t.Registered + ")"
	}
	return fmt.Sprintf("%s:%d %s %s", t.IP, t.Port, t.State, owner)
}

func (w *World) targets(keep func(Target) bool) []Target {
	var out []Target
	arns := w.model.TargetGroupARNs()
	sort.Strings(arns)
	for _, arn := range arns {
		for _, v := range w.model.Targets(arn) {
			t := Target{TargetGroupARN: arn, IP: v.IP, Port: v.Port, State: v.State, Reason: v.Reason}
			t.Owner, _ = w.cl.Owner(v.IP)
			t.FormerOwner, _ = w.cl.FormerOwner(v.IP)
			w.mu.Lock()
			t.Registered = w.regOwner[regKey(arn, v.IP, v.Port)]
			w.mu.Unlock()
			t.Reused = t.Registered != "" && t.FormerOwner != "" && t.FormerOwner != t.Registered
			if keep(t) {
				out = append(out, t)
			}
		}
	}
	return out
}

// Ghosts returns the ground truth of ghost targets: every target, in any
// target group and any state (draining included), whose IP no node and no
// pod holds now, or whose IP was handed out again (Target.Reused) to a
// holder that does not serve the legacy Service's application on that port
// (another application's pod; a new node still serves the NodePort, a new
// pod of the Service its port: those targets work again).
func (w *World) Ghosts() []Target {
	app := w.legacy.Namespace + "/" + w.legacy.Service
	return w.targets(func(t Target) bool {
		if t.Owner == "" {
			return true
		}
		if !t.Reused {
			return false
		}
		served, ok := w.cl.Answers(t.IP, t.Port)
		return !ok || served != app
	})
}

// NodeTargets returns the targets, in any target group, whose IP is or was
// a node's: the nodeIP:NodePort targets of the seed's case, live or ghost.
func (w *World) NodeTargets() []Target {
	return w.targets(func(t Target) bool {
		return strings.HasPrefix(t.Owner, "node/") || (t.Owner == "" && strings.HasPrefix(t.FormerOwner, "node/"))
	})
}

// Targets returns the targets of one target group.
func (w *World) Targets(tgARN string) []Target {
	return w.targets(func(t Target) bool { return t.TargetGroupARN == tgARN })
}

func regKey(tgARN, ip string, port int32) string {
	return tgARN + " " + ip + ":" + strconv.Itoa(int(port))
}
