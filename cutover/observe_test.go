package cutover_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/smithy-go"
	"github.com/go-logr/logr/funcr"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire"
)

// recorder keeps what an Observer sees.
type recorder struct {
	mu       sync.Mutex
	started  []string
	finished []string
	targets  []cutover.Progress
	waits    []cutover.Wait
	at       []time.Time // every event's time, in order
}

func (r *recorder) observer() cutover.Observer {
	return cutover.ObserverFuncs{
		OnStepStarted: func(e cutover.StepEvent) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.started = append(r.started, e.Step.ID)
			r.at = append(r.at, e.At)
		},
		OnStepFinished: func(e cutover.StepEvent) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.finished = append(r.finished, e.Step.ID)
			r.at = append(r.at, e.At)
		},
		OnTargets: func(p cutover.Progress) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.targets = append(r.targets, p)
			r.at = append(r.at, p.At)
		},
		OnWaiting: func(w cutover.Wait) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.waits = append(r.waits, w)
		},
	}
}

func (r *recorder) of(step string) []cutover.Progress {
	var out []cutover.Progress
	for _, p := range r.targets {
		if p.Step == step {
			out = append(out, p)
		}
	}
	return out
}

// TestObserverAndLog: an in-place cutover through the real SDK client
// (static credentials, some calls throttled) with an Observer and a
// funcr logger at V(1). Every step starts and finishes once, in order;
// every observation reports the plan's floor, healthy at most total, and
// draining within bounds; time never goes back; without churn the gate's
// healthy pod targets only grow, reaching the floor, the drain's draining
// targets only shrink to none, and the verification ends with every
// endpoint healthy. The waits name the gate and the drain with an end in
// the future, and every wait has its reason and basis in the observer and
// in the log alike. The log has a line per step start and end, one per
// mutating call, one per wait, V(1) observations and retries, the plan and
// the target group on every line, and no credential.
func TestObserverAndLog(t *testing.T) {
	t.Parallel() // a world of its own
	cfg := smallWorld(123)
	cfg.Wire = &sim.WireOptions{Client: elbv2wire.ClientOptions{MaxAttempts: 1}}
	s := newScenario(t, cfg)
	p := s.plan(nil)
	// Throttled calls, so that errors and retries are logged.
	for _, op := range []string{elbv2sim.OpDescribeTargetHealth, elbv2sim.OpModifyTargetGroup, elbv2sim.OpDeregisterTargets, elbv2sim.OpDeregisterTargets} {
		if err := s.w.ELBv2().Inject(elbv2sim.InjectedError{Op: op, Err: &smithy.GenericAPIError{Code: "Throttling", Message: "Rate exceeded"}}); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var lines []string
	env := s.env
	env.Logger = funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, prefix+" "+args)
	}, funcr.Options{Verbosity: 1})
	rec := &recorder{}
	start := s.w.Clock().Now()
	res, err := cutover.Execute(t.Context(), env, p, simPods, cutover.WithObserver(rec.observer()))
	if err != nil || !res.Completed {
		t.Fatalf("Execute: completed %t, %v", res.Completed, err)
	}

	// Steps: each started and finished once, in the plan's order.
	if ids := p.StepIDs(); !slices.Equal(rec.started, ids) || !slices.Equal(rec.finished, ids) {
		t.Errorf("started %v, finished %v; want %v each", rec.started, rec.finished, ids)
	}
	// Time goes forward only.
	for i := 1; i < len(rec.at); i++ {
		if rec.at[i].Before(rec.at[i-1]) {
			t.Errorf("event %d at %s, before event %d at %s", i, rec.at[i], i-1, rec.at[i-1])
		}
	}
	if len(rec.at) > 0 && (rec.at[0].Before(start) || rec.at[len(rec.at)-1].After(s.w.Clock().Now())) {
		t.Errorf("events from %s to %s, outside the run (%s to %s)", rec.at[0], rec.at[len(rec.at)-1], start, s.w.Clock().Now())
	}
	// Every observation: the plan's floor, counts within bounds.
	for _, o := range rec.targets {
		if o.Floor != p.Floor || o.Healthy < 0 || o.Healthy > o.Total || o.Draining < 0 || o.TargetGroupARN != p.TargetGroup.ARN || o.Summary == "" {
			t.Errorf("observation %+v: want floor %d, 0 <= healthy <= total, draining >= 0, the plan's target group, a summary", o, p.Floor)
		}
	}
	for _, step := range []string{cutover.StepGate, cutover.StepDeregister, cutover.StepDrain, cutover.StepVerify} {
		if len(rec.of(step)) == 0 {
			t.Errorf("no observation during %s", step)
		}
	}
	// The gate: healthy pod targets grow, never shrink, up to the floor.
	gate := rec.of(cutover.StepGate)
	for i := 1; i < len(gate); i++ {
		if gate[i].Healthy < gate[i-1].Healthy || gate[i].Total != gate[0].Total {
			t.Errorf("gate observation %d: %d of %d healthy after %d of %d", i, gate[i].Healthy, gate[i].Total, gate[i-1].Healthy, gate[i-1].Total)
		}
	}
	if last := gate[len(gate)-1]; last.Healthy < p.Floor || gate[0].Healthy >= p.Floor {
		t.Errorf("gate went from %d to %d healthy; want from below the floor %d to at least it", gate[0].Healthy, last.Healthy, p.Floor)
	}
	// The drain: draining targets shrink, never grow, to none; they are
	// among the target group's.
	drain := rec.of(cutover.StepDrain)
	for i, o := range drain {
		if o.Draining > o.Total || (i > 0 && o.Draining > drain[i-1].Draining) {
			t.Errorf("drain observation %d: %d draining of %d (before: %d)", i, o.Draining, o.Total, drain[max(i-1, 0)].Draining)
		}
	}
	if drain[0].Draining == 0 || drain[len(drain)-1].Draining != 0 {
		t.Errorf("drain went from %d to %d draining; want from some to none", drain[0].Draining, drain[len(drain)-1].Draining)
	}
	// The verification ends with every endpoint healthy.
	if v := rec.of(cutover.StepVerify); v[len(v)-1].Healthy != v[len(v)-1].Total || v[len(v)-1].Healthy < p.Floor {
		t.Errorf("verify ended with %d of %d healthy (floor %d)", v[len(v)-1].Healthy, v[len(v)-1].Total, p.Floor)
	}
	// Waits: the gate's and the drain's, each with an end after the run
	// started, the drain's after the gate's.
	waits := map[string]cutover.Wait{}
	for _, w := range rec.waits {
		waits[w.Step] = w
	}
	g, d := waits[cutover.StepGate], waits[cutover.StepDrain]
	if g.What == "" || d.What == "" || !g.Until.After(start) || !d.Until.After(g.Until) {
		t.Errorf("waits %+v: want the gate's and the drain's, each ending in the future, the drain's last", rec.waits)
	}
	for _, w := range rec.waits {
		if w.Reason == "" || w.From == "" {
			t.Errorf("wait %+v: want its reason and what it derives from", w)
		}
	}

	// The log.
	mu.Lock()
	defer mu.Unlock()
	joined := strings.Join(lines, "\n")
	count := func(msg string) int {
		n := 0
		for _, l := range lines {
			if strings.Contains(l, `"msg"="`+msg+`"`) {
				n++
			}
		}
		return n
	}
	for _, id := range p.StepIDs() {
		for _, msg := range []string{"step started", "step done"} {
			n := 0
			for _, l := range lines {
				if strings.Contains(l, fmt.Sprintf(`"msg"=%q`, msg)) && strings.Contains(l, fmt.Sprintf(`"step"=%q`, id)) {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%d %q lines for step %s, want 1", n, msg, id)
			}
		}
	}
	if n := count("deregistered"); n != res.Batches {
		t.Errorf("%d deregistered lines, %d batches", n, res.Batches)
	}
	waiting := 0
	for _, l := range lines {
		if strings.Contains(l, `"msg"="waiting"`) {
			waiting++
			if !strings.Contains(l, `"reason"="`) || !strings.Contains(l, `"from"="`) || strings.Contains(l, `"reason"=""`) || strings.Contains(l, `"from"=""`) {
				t.Errorf("a wait logged without its reason or basis: %s", l)
			}
		}
	}
	// Every wait the observer sees is logged the same way (the runner's
	// waiting): one line that names its step and what it waits for, the
	// hold step's settle included.
	for _, w := range rec.waits {
		if !slices.ContainsFunc(lines, func(l string) bool {
			return strings.Contains(l, `"msg"="waiting"`) && strings.Contains(l, fmt.Sprintf(`"step"=%q`, w.Step)) && strings.Contains(l, fmt.Sprintf(`"for"=%q`, w.What))
		}) {
			t.Errorf("the wait of %s for %q reached the observer, not the log", w.Step, w.What)
		}
	}
	if waiting != len(rec.waits) {
		t.Errorf("%d waits logged, %d observed", waiting, len(rec.waits))
	}
	if count("disruption held") != len(res.Held) || count("disruption released") != len(res.Released) || len(res.Held) == 0 {
		t.Errorf("%d held and %d released lines for %d held and %d released nodes", count("disruption held"), count("disruption released"), len(res.Held), len(res.Released))
	}
	for _, msg := range []string{"health check aligned", "binding applied", "observed", "retrying"} {
		if count(msg) == 0 {
			t.Errorf("no %q line", msg)
		}
	}
	for _, l := range lines {
		// Every line of cutover's own (tgbind's are named) names the plan.
		if !strings.HasPrefix(l, "tgbind") && (!strings.Contains(l, `"plan"="`+p.ID+`"`) || !strings.Contains(l, `"targetGroup"="`+p.TargetGroup.ARN.Raw+`"`)) {
			t.Errorf("a line without the plan and the target group: %s", l)
		}
	}
	for _, secret := range []string{elbv2wire.AccessKeyID, elbv2wire.SecretAccessKey, "Authorization", "Credential=", "Signature=", "X-Amz-Security-Token"} {
		if strings.Contains(joined, secret) {
			t.Errorf("the log holds %q", secret)
		}
	}
	t.Logf("%d log lines, %d observations, %d waits; %d ELBv2 calls", len(lines), len(rec.targets), len(rec.waits), len(s.w.ELBv2().Calls()))
}
