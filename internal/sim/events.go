package sim

// events.go: the world's event log: one line per event, with virtual
// timestamps, and the ELBv2 model's target transitions written to it and
// to the targets' spans (targets.go).

import (
	"fmt"
	"strings"

	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// EventLog returns the world's events so far, one line each, with virtual
// timestamps: deterministic for a given Config.
func (w *World) EventLog() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.log...)
}

func (w *World) logger(source string) func(reason, object, message string) {
	return func(reason, object, message string) { w.logf(source, reason, object, "%s", message) }
}

func (w *World) logf(source, reason, object, format string, args ...any) {
	d := w.clock.Now().Sub(vclock.Epoch)
	ts := fmt.Sprintf("%02d:%02d:%02d.%03d", int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60, d.Milliseconds()%1000)
	line := fmt.Sprintf("%s %-9s %-18s %s %s", ts, source, reason, object, fmt.Sprintf(format, args...))
	w.mu.Lock()
	w.log = append(w.log, strings.TrimRight(line, " "))
	w.mu.Unlock()
}

func (w *World) transition(t elbv2model.Transition) {
	if t.From == "" && !t.Removed {
		// A new registration: note what holds the address now, to tell a
		// reused address later.
		owner, _ := w.cl.Owner(t.ID)
		w.mu.Lock()
		if w.regOwner == nil {
			w.regOwner = map[string]string{}
		}
		w.regOwner[regKey(t.TargetGroupARN, t.ID, t.Port)] = owner
		w.mu.Unlock()
	}
	w.recordSpan(t)
	name := t.TargetGroupARN
	if i := strings.Index(name, "targetgroup/"); i >= 0 {
		name = strings.SplitN(name[i+len("targetgroup/"):], "/", 2)[0]
	}
	from, to := string(t.From), string(t.To)
	if from == "" {
		from = "-"
	}
	if t.Removed {
		to = "gone"
	}
	if t.Reason != "" {
		to += " (" + string(t.Reason) + ")"
	}
	w.logf("elbv2", "Target", "targetgroup/"+name, "%s:%d %s -> %s", t.ID, t.Port, from, to)
}
