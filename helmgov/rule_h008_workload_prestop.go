package helmgov

// This file holds rule TGM-H008, the serving containers of a workload behind ip
// targets have a preStop delay of at least the safe one: its ID,
// documentation, check and fix, and the reading of a preStop hook's sleep
// (which TGM-H009 also reads).

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/qstools/tgmigrate/internal/envelope"
)

// RuleWorkloadPreStop: serving containers behind ip targets have a preStop
// delay of at least the safe one (Options.PreStopSeconds).
const RuleWorkloadPreStop RuleID = "TGM-H008"

// workloadPreStop is rule TGM-H008.
type workloadPreStop struct{}

func (workloadPreStop) doc() Rule {
	return Rule{
		ID: RuleWorkloadPreStop, Name: "workload-prestop-delay", Severity: SeverityWarning, Fixable: true,
		Summary: "a workload behind ip targets has a preStop delay on its serving containers, at least the safe delay",
		Doc: "Deregistration takes time to reach the load balancer: load balancer nodes keep sending new requests to a " +
			"deregistered target for up to " + fmt.Sprint(seconds(envelope.Default().Lag())) + " seconds (the worst " +
			"reported deregistration lag), and the LBC takes up to " + fmt.Sprint(seconds(envelope.Default().Controller())) +
			" seconds to deregister a terminating pod. A pod that exits sooner drops the requests still routed to it. " +
			"The safe preStop delay is the lag plus the controller's delay, " + fmt.Sprint(defaultPreStopSeconds) +
			" seconds unless configured; cutover's plan asks a workload for the same delay. A container serves when it " +
			"declares the Service's target port, or when no container declares it. A serving container with no preStop " +
			"hook, or with a sleep shorter than the safe delay (the sleep action, or an exec hook that runs sleep N), is " +
			"reported; a hook whose duration cannot be read (httpGet, a command other than sleep) is accepted, and " +
			"TGM-H009 asks for the grace period of the safe delay. The fix adds lifecycle.preStop.sleep (Kubernetes " +
			"1.30 and later) of the safe delay, or raises a shorter sleep to it: the sleep action's seconds, or the " +
			"argument of sleep in the exec command, the rest of the command unchanged.",
	}
}

func (workloadPreStop) check(s *checkState) {
	safe := s.c.opts.PreStopSeconds
	for _, w := range s.workloads {
		for _, i := range w.serving {
			c := &w.spec.Containers[i]
			lc := w.specPath.Append(PathStep{Key: "containers"}, PathStep{Item: c.Name}, PathStep{Key: "lifecycle"}, PathStep{Key: "preStop"})
			switch delay, known, present := preStopDelay(c); {
			case !present:
				s.add(w.it, RuleWorkloadPreStop, lc.String(),
					&Change{Op: OpSet, Path: lc, Value: map[string]any{"sleep": map[string]any{"seconds": safe}}},
					"container %s has no preStop delay, behind %s; it would exit while the load balancer still routes to it", c.Name, w.b.behind())
			case known && delay < safe:
				s.add(w.it, RuleWorkloadPreStop, lc.String(), raisePreStop(c, lc, safe),
					"container %s, behind %s, has a preStop delay of %d seconds, shorter than the deregistration lag it must outlast: want at least %d seconds (%s)",
					c.Name, w.b.behind(), delay, safe, s.c.preStopWhy)
			}
		}
	}
}

// preStopDelay reads a container's preStop delay: a sleep action, or an exec
// hook that runs sleep N. present is false without a preStop hook; known is
// false when the hook's duration cannot be read (httpGet, other commands).
func preStopDelay(c *corev1.Container) (seconds int64, known, present bool) {
	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil {
		return 0, false, false
	}
	h := c.Lifecycle.PreStop
	switch {
	case h.Sleep != nil:
		return h.Sleep.Seconds, true, true
	case h.Exec != nil:
		if a, ok := findSleep(h.Exec.Command); ok {
			return a.seconds, true, true
		}
	}
	return 0, false, true
}

// raisePreStop is the change that raises a container's readable preStop
// delay (see [preStopDelay]) to seconds: the sleep action's seconds, or the
// argument of sleep in the exec command, with the rest of the command as
// it was. Nil when the hook has neither.
func raisePreStop(c *corev1.Container, lc FieldPath, seconds int64) *Change {
	h := c.Lifecycle.PreStop
	switch {
	case h.Sleep != nil:
		return setTo(lc.Append(PathStep{Key: "sleep"}, PathStep{Key: "seconds"}), seconds)
	case h.Exec != nil:
		a, ok := findSleep(h.Exec.Command)
		if !ok {
			return nil
		}
		cmd := make([]any, len(h.Exec.Command))
		for i, w := range h.Exec.Command {
			cmd[i] = w
		}
		el := h.Exec.Command[a.item]
		cmd[a.item] = el[:a.start] + strconv.FormatInt(seconds, 10) + el[a.end:]
		return setTo(lc.Append(PathStep{Key: "exec"}, PathStep{Key: "command"}), cmd)
	}
	return nil
}

// sleepArg is the argument of a sleep in a command: the item of the
// command that holds it, its byte span in that item, and its value.
type sleepArg struct {
	item, start, end int
	seconds          int64
}

// sleepUnits are the suffixes sleep(1) takes, in seconds.
var sleepUnits = map[byte]float64{'s': 1, 'm': 60, 'h': 3600, 'd': 86400}

// findSleep finds the first "sleep N" in a command such as
// ["sleep", "30"] or ["/bin/sh", "-c", "sleep 30 && nginx -s quit"]. N is
// a number of seconds, or a number with a unit of sleep(1) (s, m, h, d);
// quotes and a trailing ; or & around it are not part of it. "sleep
// infinity" and anything else that is not a finite number is not read.
func findSleep(cmd []string) (sleepArg, bool) {
	afterSleep := false
	for item, el := range cmd {
		for start := 0; start < len(el); {
			if isSpace(el[start]) {
				start++
				continue
			}
			end := start
			for end < len(el) && !isSpace(el[end]) {
				end++
			}
			w := el[start:end]
			if afterSleep {
				lead := len(w) - len(strings.TrimLeft(w, `"';&`))
				arg := strings.Trim(w, `"';&`)
				if n, ok := sleepSeconds(arg); ok {
					return sleepArg{item: item, start: start + lead, end: start + lead + len(arg), seconds: n}, true
				}
			}
			afterSleep = w == "sleep" || strings.HasSuffix(w, "/sleep")
			start = end
		}
	}
	return sleepArg{}, false
}

// isSpace reports whether b separates the words of a shell command.
func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'
}

// sleepSeconds reads the argument of sleep(1) in whole seconds.
func sleepSeconds(arg string) (int64, bool) {
	mult := 1.0
	if arg != "" {
		if m, ok := sleepUnits[arg[len(arg)-1]]; ok {
			arg, mult = arg[:len(arg)-1], m
		}
	}
	n, err := strconv.ParseFloat(arg, 64)
	if err != nil || math.IsNaN(n) || math.IsInf(n, 0) || n < 0 || n*mult > math.MaxInt32 {
		return 0, false
	}
	return int64(n * mult), true
}
