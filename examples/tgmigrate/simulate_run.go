package main

// simulate_run.go: one strategy's run and what it measures: simRun (its
// migration, then its world to the run's end), runAligned (the
// side-by-side rows run to one length), simOutcome, runPhased, and the
// world's counts (ghosts, replaced nodes) the rows report.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/timing"
	"github.com/qstools/tgmigrate/internal/sim/traffic"
	"github.com/qstools/tgmigrate/internal/textcell"
)

// simOutcome is one strategy's run, on the same seed and the same churn.
type simOutcome struct {
	Strategy string `json:"strategy"`
	Requests int    `json:"requests"`
	Failed   int    `json:"failed"`
	// OutageSeconds is schema 1's key: the seconds in which some request
	// failed, the same as DegradedSeconds.
	OutageSeconds float64 `json:"outageSeconds"`
	// TotalOutageSeconds counts the seconds in which no request
	// succeeded; DegradedSeconds those in which some failed.
	TotalOutageSeconds float64 `json:"totalOutageSeconds"`
	DegradedSeconds    float64 `json:"degradedSeconds"`
	// CutoverSeconds is the migration's whole time: for phased, Execute's
	// (cutover.Result.CutoverSeconds), its settle included.
	CutoverSeconds float64 `json:"cutoverSeconds"`
	// SettleSeconds is the part of CutoverSeconds phased spent in its
	// first step, holding Karpenter and letting the disruptions under way
	// at Execute's start run out, plus the deregistration lag the plan
	// assumes, before it changed the target group
	// (cutover.Result.SettleSeconds): the window "settle".
	SettleSeconds float64 `json:"settleSeconds,omitempty"`
	FloorSeconds  float64 `json:"floorSeconds"`
	// Ratio is the cutover's steps against the plan's floor:
	// (CutoverSeconds - SettleSeconds) / FloorSeconds, cutover.Result.Ratio.
	// RatioWhole is Execute's whole time against what it could not do
	// without: CutoverSeconds / (SettleSeconds + FloorSeconds). Phased
	// rows only; zero elsewhere.
	Ratio      float64        `json:"ratio,omitempty"`
	RatioWhole float64        `json:"ratioWhole,omitempty"`
	APICalls   map[string]int `json:"apiCalls"`
	// NodesReplaced counts the nodes Karpenter replaced during the run.
	NodesReplaced int `json:"nodesReplaced"`
	// GhostsLeft counts the ghost targets (not draining) left in the
	// target group that serves at the end, reused addresses included;
	// ReusedGhostsLeft those of them whose address was handed out again.
	GhostsLeft       int `json:"ghostsLeft"`
	ReusedGhostsLeft int `json:"reusedGhostsLeft"`
	// RollbackSeconds is the rollback's time and RollbackFloorSeconds its
	// floor (scenario rollback).
	RollbackSeconds      float64 `json:"rollbackSeconds,omitempty"`
	RollbackFloorSeconds float64 `json:"rollbackFloorSeconds,omitempty"`
	// PodSettings are the workload's shutdown settings the run had.
	PodSettings podSettings `json:"podSettings"`
	// Windows split the requests by when they were sent.
	Windows simWindows `json:"windows"`
	// FailedInPhasedCutover is the requests that failed while phased's
	// cutover window was open (the same stretch of time, from the same
	// start: from the end of phased's settle to the end of its Execute),
	// so that every strategy is compared on it. FailedInPhasedExecute
	// is the same over the whole of phased's Execute, from its start, its
	// settle included.
	FailedInPhasedCutover int `json:"failedInPhasedCutoverWindow"`
	FailedInPhasedExecute int `json:"failedInPhasedExecuteWindow"`
	// FailedUnderWayAtStart is, of a phased row's failed requests from
	// Execute's start, those no call made at its start could have saved
	// (underWay): sent within the world's deregistration lag of that
	// start to a target of a node Karpenter had begun to replace before
	// it. Zero for the other rows.
	FailedUnderWayAtStart int `json:"failedUnderWayAtStart"`
	// Note says what happened, in a few words.
	Note string `json:"note,omitempty"`
	// Error is why the run failed, on one line: the run stopped there,
	// and every figure of the row is then zero. Empty: the run completed.
	Error string `json:"error,omitempty"`
	// Fault, Outcome, Restored and Retry are the scenario
	// controller-faults': the controller's fault; what Execute and then
	// the rollback (its automatic one, or the operator's after a completed
	// Execute) returned, e.g. "controller-failing/rolled-back"; whether the
	// target group was back as before once the fault was cleared and the
	// controller had finished the binding's deletion (the binding gone, no
	// pod target, at least the floor of healthy node targets); and what
	// the cutover run again then, with a new plan, returned.
	Fault    string `json:"fault,omitempty"`
	Outcome  string `json:"outcome,omitempty"`
	Restored *bool  `json:"restored,omitempty"`
	Retry    string `json:"retry,omitempty"`
	// MoveSeconds, MoveWaves, NodesPrivate and NodesPublic are the
	// scenario private-subnets': the move's time and its waves as the
	// watch counted them, and the nodes in private and in public subnets
	// at the end.
	MoveSeconds  float64 `json:"moveSeconds,omitempty"`
	MoveWaves    int     `json:"moveWaves,omitempty"`
	NodesPrivate *int    `json:"nodesPrivate,omitempty"`
	NodesPublic  *int    `json:"nodesPublic,omitempty"`

	// traffic is the run's requests, second by second, from origin, the
	// run's start; execFrom, cutoverFrom and cutoverTo bound its settle
	// and cutover windows, from origin (execFrom is cutoverFrom when the
	// row has no settle).
	traffic                          traffic.Stats
	origin                           time.Time
	execFrom, cutoverFrom, cutoverTo time.Duration
}

// ratiosOf sets the row's ratios from Execute's result: the cutover's
// steps against the plan's floor (Result.Ratio), and Execute's whole time
// against the settle and the floor together.
func (o *simOutcome) ratiosOf(res *cutover.Result) {
	o.Ratio = res.Ratio
	if d := res.SettleSeconds + res.FloorSeconds; d > 0 {
		o.RatioWhole = res.CutoverSeconds / d
	}
}

// failedOutcome is the row of a run of strategy that failed with err: the
// strategy and the error, no figure.
func failedOutcome(strategy string, err error) simOutcome {
	return simOutcome{Strategy: strategy, Error: oneLine(err.Error())}
}

// comparePhasedWindow sets every row's FailedInPhasedCutover and
// FailedInPhasedExecute from the phased row's cutover window and its
// whole Execute (settle and cutover). A failed phased run has no window:
// the figures then stay zero, as they do in a failed row.
func comparePhasedWindow(rows []simOutcome) {
	i := slices.IndexFunc(rows, func(o simOutcome) bool { return o.Strategy == strategyPhased })
	if i < 0 || rows[i].Error != "" {
		return
	}
	exec, from, to := rows[i].execFrom, rows[i].cutoverFrom, rows[i].cutoverTo
	for i := range rows {
		o := &rows[i]
		if o.Error != "" {
			continue
		}
		o.FailedInPhasedCutover = o.traffic.Span(o.origin.Add(from), o.origin.Add(to)).Failed
		o.FailedInPhasedExecute = o.traffic.Span(o.origin.Add(exec), o.origin.Add(to)).Failed
	}
}

// simRun is one strategy's run in a world of its own: the lead-in, the
// migration, then the world to the end of f.duration from the migration's
// start.
type simRun struct {
	a        *app
	f        *simFlags
	strategy string
	timings  timing.Timings
	// name is the world's name for a.onWorld. Zero: the strategy.
	name string
	// obs, when set, reports the phased cutover's progress (the story).
	obs cutover.Observer
	// broken is the broken world of scenario private-subnets
	// (brokenMissingZone, brokenNoEgress); zero: a sound one.
	broken string
}

// phasedRun is what runPhased measured.
type phasedRun struct {
	res *cutover.Result
	rb  *cutover.RollbackResult
	// execStart is when the (first) Execute was called: the settle window
	// starts then. holdEnd is when the hold step ended (Karpenter held,
	// the disruptions under way run out): the cutover window starts then.
	// cutoverEnd is when Execute returned (the last one, after a crash);
	// rollbackStart and rollbackEnd bound the rollback (scenario rollback).
	execStart, holdEnd, cutoverEnd, rollbackStart, rollbackEnd time.Time
	note                                                       string
}

// migratedRun is a run whose migration (and rollback, or move) is over,
// its world still open: finish runs the world to the run's end and
// measures it.
type migratedRun struct {
	r   *simRun
	w   *sim.World
	out *simOutcome
	// start is the lead-in's end; marks the windows' bounds so far.
	start                       time.Time
	marks                       runMarks
	plan                        *cutover.Plan
	before                      map[string]int
	nodesBefore                 map[string]bool
	rbStart, moveStart, moveEnd time.Time
}

// outcome runs the strategy and measures it, to its own end (minLength).
func (r *simRun) outcome(ctx context.Context) (*simOutcome, error) {
	m, err := r.migrate(ctx)
	if err != nil {
		return nil, err
	}
	defer m.w.Close()
	return m.finish(m.minLength())
}

// label names the run in messages: its world's name, or its strategy.
func (r *simRun) label() string {
	if r.name != "" {
		return r.name
	}
	return r.strategy
}

// runAligned runs every run's migration, then every world to the same
// length from its start: the longest any of them needs (minLength), so
// that the rows cover the same stretch of time and send as many requests.
// progress, when set, is called before each run starts. A run that fails
// is a row with its error; it returns an error only when ctx ends.
func runAligned(ctx context.Context, runs []*simRun, progress func(*simRun)) ([]simOutcome, error) {
	rows := make([]simOutcome, len(runs))
	migrated := make([]*migratedRun, len(runs))
	defer func() {
		for _, m := range migrated {
			if m != nil {
				m.w.Close()
			}
		}
	}()
	fail := func(i int, err error) error {
		if context.Cause(ctx) != nil {
			return fmt.Errorf("simulate %s: %w", runs[i].label(), err)
		}
		rows[i] = failedOutcome(runs[i].strategy, err)
		return nil
	}
	var length time.Duration
	for i, r := range runs {
		if progress != nil {
			progress(r)
		}
		m, err := r.migrate(ctx)
		if err != nil {
			if err := fail(i, err); err != nil {
				return nil, err
			}
			continue
		}
		migrated[i] = m
		length = max(length, m.minLength())
	}
	for i, m := range migrated {
		if m == nil {
			continue
		}
		out, err := m.finish(length)
		m.w.Close()
		migrated[i] = nil
		if err != nil {
			if err := fail(i, err); err != nil {
				return nil, err
			}
			continue
		}
		rows[i] = *out
	}
	return rows, nil
}

// migrate builds the run's world, runs its lead-in and its migration, and
// returns it open. The caller closes m.w.
func (r *simRun) migrate(ctx context.Context) (m *migratedRun, err error) {
	name := r.name
	if name == "" {
		name = r.strategy
	}
	cfg := r.f.config(r.strategy, r.timings)
	if r.broken == brokenNoEgress {
		cfg.Move.PrivateEgress = sim.EgressNone
	}
	w, err := r.a.newWorld(ctx, cfg, name)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			w.Close()
		}
	}()
	origin := w.Clock().Now()
	w.Run(r.f.leadIn)
	start := w.Clock().Now()
	nodesBefore := nodeNames(w)

	// Every strategy's floor comes from the same read-only plan.
	env := newEnv(w)
	req, err := request(w)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	plan, err := cutover.PlanCutover(ctx, env, req)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	before := w.AWSCounts()
	ps := settingsOf(r.strategy)
	out := &simOutcome{Strategy: r.strategy, FloorSeconds: float64(plan.Estimate.FloorSeconds),
		PodSettings: podSettings{PreStopSeconds: ps.PreStop.Seconds(), TerminationGracePeriodSeconds: ps.TerminationGracePeriod.Seconds()}}
	marks := runMarks{origin: origin, start: start, cutEnd: start}
	var rbStart, moveStart, moveEnd time.Time
	switch r.strategy {
	case strategyStatic:
		out.Note = "nothing maintains the node targets"
		marks.cutEnd = start.Add(time.Duration(plan.Estimate.FloorSeconds) * time.Second)
	case strategyNaive:
		if err := w.Client().Create(ctx, w.NewBinding("naive", false)); err != nil {
			return nil, fmt.Errorf("create default-mode binding: %w", err)
		}
		out.CutoverSeconds = waitPodsOnly(w, plan.Floor, start.Add(r.f.duration)).Seconds()
		marks.cutEnd = w.Clock().Now()
		out.Note = "default mode: node targets deregistered before the pods were healthy"
	default:
		var opts []cutover.Option
		if r.strategy == strategyPhasedAsIs && len(plan.Preconditions) > 0 {
			// The original app's settings are unsafe under the world's
			// timings: the row shows what accepting that costs.
			opts = append(opts, cutover.WithAcceptPreconditions(cutover.PreconditionPodSettings))
		}
		pr, err := runPhased(ctx, w, env, plan, r.f.scenario, r.obs, opts...)
		if err != nil {
			return nil, err
		}
		out.CutoverSeconds, out.SettleSeconds = pr.res.CutoverSeconds, pr.res.SettleSeconds
		out.ratiosOf(pr.res)
		marks.start, marks.holdEnd = pr.execStart, pr.holdEnd
		marks.cutEnd, rbStart, marks.rbEnd = pr.cutoverEnd, pr.rollbackStart, pr.rollbackEnd
		out.Note = pr.note
		if pr.rb != nil {
			out.RollbackSeconds, out.RollbackFloorSeconds = pr.rb.Seconds, pr.rb.FloorSeconds
		}
		for _, p := range plan.Preconditions {
			for _, s := range p.Settings {
				out.Note += "; accepted: " + s.String()
			}
		}
		if r.f.scenario == scenarioPrivateSubnets {
			mr, err := moveNodes(ctx, w, r.broken)
			if err != nil {
				return nil, err
			}
			moveStart, moveEnd = mr.start, mr.end
			out.Note += "; " + mr.note
			out.MoveSeconds, out.MoveWaves = mr.end.Sub(mr.start).Seconds(), mr.waves
			if r.broken != "" {
				out.Fault, out.Outcome = "broken world: "+r.broken, "refused: "+strings.Join(mr.codes, ",")
			}
		}
	}
	return &migratedRun{r: r, w: w, out: out, start: start, marks: marks, plan: plan, before: before, nodesBefore: nodesBefore,
		rbStart: rbStart, moveStart: moveStart, moveEnd: moveEnd}, nil
}

// minLength is how long the run must last from its start (its world's
// warm-up done): f.duration from the migration's start, or until the
// migration (its rollback, its move; for static, its cutover window, the
// plan's floor) ended, when that is later.
func (m *migratedRun) minLength() time.Duration {
	end := m.start.Add(m.r.f.duration)
	for _, t := range []time.Time{m.w.Clock().Now(), m.marks.cutEnd} {
		if t.After(end) {
			end = t
		}
	}
	return end.Sub(m.marks.origin)
}

// finish runs the world to length from the run's start (at least
// minLength), stops its traffic and measures the row.
func (m *migratedRun) finish(length time.Duration) (*simOutcome, error) {
	r, w, out, plan, marks := m.r, m.w, m.out, m.plan, m.marks
	origin, rbStart, moveStart, moveEnd := marks.origin, m.rbStart, m.moveStart, m.moveEnd
	end := origin.Add(max(length, m.minLength()))
	w.RunUntil(end)
	w.StopTraffic()

	if rbStart.IsZero() {
		marks.rbEnd = time.Time{}
	}
	marks.end = end
	out.measure(w.Traffic(), marks)
	if !marks.holdEnd.IsZero() {
		out.FailedUnderWayAtStart = underWay(w, marks.origin, marks.start)
	}
	if moveEnd.After(moveStart) {
		mv := windowOf(w.Traffic(), origin, marks.cutEnd, moveEnd)
		out.Windows.Move = &mv
		out.Windows.After = windowOf(w.Traffic(), origin, moveEnd, end.Add(time.Second))
	}
	if r.f.scenario == scenarioPrivateSubnets {
		private, public := nodesByTier(w)
		out.NodesPrivate, out.NodesPublic = &private, &public
	}
	out.APICalls = diffCounts(w.AWSCounts(), m.before)
	out.NodesReplaced = countReplaced(m.nodesBefore, nodeNames(w))
	serving := w.Legacy().TargetGroupARN
	if plan.BlueGreen != nil && r.strategy != strategyStatic && r.strategy != strategyNaive && rbStart.IsZero() {
		var err error
		if serving, err = targetGroupARN(w, plan.BlueGreen.NewTargetGroup.Name); err != nil {
			return nil, err
		}
	}
	out.GhostsLeft, out.ReusedGhostsLeft = liveGhosts(w, serving)
	return out, nil
}

// runPhased carries the plan out as the scenario says. obs, when set,
// reports progress.
func runPhased(ctx context.Context, w *sim.World, env cutover.Env, plan *cutover.Plan, scenario string, obs cutover.Observer, opts ...cutover.Option) (*phasedRun, error) {
	pr := &phasedRun{execStart: w.Clock().Now()}
	// The product's answer to nodes that expire during the run: replace
	// them first (the plan's forceful-disruption precondition, or Execute's
	// check at its start); a run that meets none is unchanged by it.
	opts = append(opts, cutover.WithReplaceFirst(), cutover.WithObserver(holdWatch{Observer: obs, done: func() {
		if pr.holdEnd.IsZero() {
			pr.holdEnd = w.Clock().Now()
		}
	}}))
	switch scenario {
	case "rollback":
		res, err := cutover.Execute(ctx, env, plan, opts...)
		if err != nil {
			return nil, fmt.Errorf("execute: %w", err)
		}
		pr.res, pr.cutoverEnd, pr.rollbackStart = res, w.Clock().Now(), w.Clock().Now()
		rb, err := cutover.Rollback(ctx, env, plan, opts...)
		if err != nil {
			return nil, fmt.Errorf("rollback: %w", err)
		}
		pr.rb, pr.rollbackEnd = rb, w.Clock().Now()
		pr.note = fmt.Sprintf("cut over, then rolled back in %.0f s; from then on the static target group fails under churn again", rb.Seconds)
	case "crash-resume":
		crash := errors.New("simulated crash")
		crashed := false
		after := cutover.StepBind
		hook := cutover.WithHook(func(_ context.Context, e cutover.Event) error {
			if !crashed && e.Kind == cutover.EventStep && e.Step == after {
				crashed = true
				return crash
			}
			return nil
		})
		_, err := cutover.Execute(ctx, env, plan, append(opts, hook, cutover.WithAutoRollback(false))...)
		if !errors.Is(err, crash) {
			return nil, fmt.Errorf("execute before the crash: want the crash, got %v", err)
		}
		w.Run(5 * time.Second) // the operator restarts the process; the world goes on
		res, err := cutover.Execute(ctx, env, plan, opts...)
		if err != nil {
			return nil, fmt.Errorf("resume: %w", err)
		}
		pr.res, pr.cutoverEnd = res, w.Clock().Now()
		pr.note = fmt.Sprintf("crashed after %s, resumed from the journal", after)
	case "blue-green":
		res, err := cutover.Execute(ctx, env, plan, opts...)
		if err != nil {
			return nil, fmt.Errorf("execute: %w", err)
		}
		pr.res, pr.cutoverEnd = res, w.Clock().Now()
		steps := make([]string, len(plan.BlueGreen.WeightSteps))
		for i, s := range plan.BlueGreen.WeightSteps {
			steps[i] = fmt.Sprint(s)
		}
		pr.note = fmt.Sprintf("blue-green to %s, weights %s, old target group detached", plan.BlueGreen.NewTargetGroup.Name, strings.Join(steps, "->"))
	default: // cutover
		res, err := cutover.Execute(ctx, env, plan, opts...)
		if err != nil {
			return nil, fmt.Errorf("execute: %w", err)
		}
		pr.res, pr.cutoverEnd = res, w.Clock().Now()
		pr.note = fmt.Sprintf("%s, %s deregistered in %s", res.Strategy, textcell.Plural(res.Deregistered, "target", "targets"), textcell.Plural(res.Batches, "batch", "batches"))
	}
	if n := len(pr.res.Replaced); n > 0 {
		pr.note += fmt.Sprintf("; %s replaced first (they would have expired during the run): %s", textcell.Plural(n, "node", "nodes"), strings.Join(pr.res.Replaced, ", "))
	}
	return pr, nil
}

// holdWatch passes the events on to Observer (when set) and calls done
// when the hold step has finished.
type holdWatch struct {
	cutover.Observer
	done func()
}

func (h holdWatch) StepStarted(e cutover.StepEvent) {
	if h.Observer != nil {
		h.Observer.StepStarted(e)
	}
}

func (h holdWatch) StepFinished(e cutover.StepEvent) {
	if e.Step.ID == cutover.StepHoldDisruption && e.Err == nil {
		h.done()
	}
	if h.Observer != nil {
		h.Observer.StepFinished(e)
	}
}

func (h holdWatch) Targets(p cutover.Progress) {
	if h.Observer != nil {
		h.Observer.Targets(p)
	}
}

func (h holdWatch) Waiting(w cutover.Wait) {
	if h.Observer != nil {
		h.Observer.Waiting(w)
	}
}

// waitPodsOnly runs the world until the legacy target group has no node or
// ghost target left that is not draining and at least floor healthy pod
// targets (the end state the phased cutover's gate and drain reach), or
// until deadline, and returns the time it took.
func waitPodsOnly(w *sim.World, floor int, deadline time.Time) time.Duration {
	start := w.Clock().Now()
	for w.Clock().Now().Before(deadline) {
		w.Run(5 * time.Second)
		healthyPods, others := 0, 0
		for _, t := range w.Targets(w.Legacy().TargetGroupARN) {
			switch {
			case t.State == "draining":
			case strings.HasPrefix(t.Owner, "pod/") && !t.Reused:
				if t.State == "healthy" {
					healthyPods++
				}
			default:
				others++
			}
		}
		if others == 0 && healthyPods >= floor {
			break
		}
	}
	return w.Clock().Since(start)
}

// liveGhosts counts the ghost targets of arn that are not draining, and
// those of them whose address was handed out again.
func liveGhosts(w *sim.World, arn string) (ghosts, reused int) {
	for _, t := range w.Ghosts() {
		if t.TargetGroupARN != arn || t.State == "draining" {
			continue
		}
		ghosts++
		if t.Reused {
			reused++
		}
	}
	return ghosts, reused
}

func nodeNames(w *sim.World) map[string]bool {
	out := map[string]bool{}
	for _, n := range w.Cluster().Nodes() {
		out[n.Name] = true
	}
	return out
}

func countReplaced(before, after map[string]bool) int {
	n := 0
	for name := range before {
		if !after[name] {
			n++
		}
	}
	return n
}

func diffCounts(after, before map[string]int) map[string]int {
	out := map[string]int{}
	for op, n := range after {
		if d := n - before[op]; d > 0 {
			out[op] = d
		}
	}
	return out
}
