package subnets

// move.go: Execute and what Rollback shares with it: Env, MoveOption and
// its defaults, Observer, Result, the runner (lock, journal, steps) and
// the guarded writes of EC2NodeClasses and NodePools.

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/karpenterapi"
	"github.com/qstools/tgmigrate/internal/textcell"
)

// Defaults of the [MoveOption]s.
const (
	// DefaultPollInterval is how often the watch observes the nodes and
	// the target groups.
	DefaultPollInterval = 10 * time.Second
	// DefaultWatchTimeout bounds a watch when the plan's estimate is
	// shorter; otherwise the bound is twice the estimate.
	DefaultWatchTimeout = time.Hour
	// DefaultFloorGrace is how long a target group may stay below its
	// floor before the watch holds: a replacement pod passing its first
	// health checks.
	DefaultFloorGrace = 30 * time.Second
)

// Env is what [Execute] and [Rollback] act through. Each field's comment
// says what its zero value means.
type Env struct {
	// Client is the cluster: nodes are read, EC2NodeClasses and NodePools
	// written, and the journal ConfigMap and the lock Lease kept through
	// it. Required. It needs the rules of [MoveRBAC].
	Client client.Client
	// ELBv2 reads the watched target groups' health (DescribeTargetHealth).
	// Required when the plan watches target groups.
	ELBv2 tgmigrate.ELBv2ReadAPI
	// Namespace holds the journal ConfigMap and the lock Lease. Required.
	Namespace string
	// Holder identifies this operator in the Lease. Zero:
	// cutover.DefaultHolder().
	Holder string
	// Clock drives the watch and stamps the journal and the Lease. Nil:
	// the real clock.
	Clock clock.Clock
	// Logger receives one line per step and write (V(0)) and per
	// observation (V(1)). Zero: discarded.
	Logger logr.Logger
}

// MoveOption adjusts one [Execute] or [Rollback].
type MoveOption func(*moveOptions)

type moveOptions struct {
	journal    Journal
	lock       cutover.Lock
	observer   Observer
	poll       time.Duration
	timeout    time.Duration
	floorGrace time.Duration
	dryRun     bool
}

// WithJournal keeps the state in j. Default: a [ConfigMapJournal] of the
// plan's cluster in Env.Namespace.
func WithJournal(j Journal) MoveOption { return func(o *moveOptions) { o.journal = j } }

// WithLock guards the move with l. Default: cutover's Lease lock named
// [JournalName] of the cluster in Env.Namespace (cutover.NewNamedLeaseLock).
func WithLock(l cutover.Lock) MoveOption { return func(o *moveOptions) { o.lock = l } }

// WithObserver tells o of every step and observation.
func WithObserver(o Observer) MoveOption { return func(m *moveOptions) { m.observer = o } }

// WithPollInterval sets how often a watch observes. Zero:
// [DefaultPollInterval]. It must stay under half the lock's lease.
func WithPollInterval(d time.Duration) MoveOption { return func(o *moveOptions) { o.poll = d } }

// WithTimeout bounds each watch. Zero: twice the plan's estimate, at least
// [DefaultWatchTimeout].
func WithTimeout(d time.Duration) MoveOption { return func(o *moveOptions) { o.timeout = d } }

// WithFloorGrace sets how long a target group may stay below its floor
// before the watch holds. Zero: [DefaultFloorGrace]; negative: hold at
// once.
func WithFloorGrace(d time.Duration) MoveOption { return func(o *moveOptions) { o.floorGrace = d } }

// WithDryRun makes Execute or Rollback read and check every object, and
// return what it would write, writing nothing: no object, no journal, no
// Lease.
func WithDryRun() MoveOption { return func(o *moveOptions) { o.dryRun = true } }

// Observer follows a move or a rollback. Its methods are called on the
// goroutine of Execute or Rollback and must not block for long.
type Observer interface {
	// StepStarted is called when a step or a rollback action starts.
	StepStarted(StepEvent)
	// StepFinished is called when it ends: done, skipped (already done),
	// or failed (Err is set).
	StepFinished(StepEvent)
	// Observed reports each observation of a watch.
	Observed(WatchProgress)
}

// StepEvent is a step starting or finishing.
type StepEvent struct {
	// Step is the step's ID (or the rollback action's); At is when.
	Step string
	At   time.Time
	// Skipped says the step was already done and made no call.
	Skipped bool
	// Err is the failure of a failed step.
	Err error
}

// WatchProgress is one observation of a watch.
type WatchProgress struct {
	// Step is the watching step; At is when.
	Step string
	At   time.Time
	// Wave is the rounds of departures seen so far; Departing the nodes
	// the watch waits to see leave; Remaining those still there; Left
	// those that left since the last observation.
	Wave      int
	Departing int
	Remaining int
	Left      []string
	// TargetGroups are the target groups as observed.
	TargetGroups []TargetGroupHealth
	// Violations are the invariants failing now (a floor violation holds
	// only once it has lasted the floor grace).
	Violations []Violation
}

// TargetGroupHealth is one target group as a watch observed it.
type TargetGroupHealth struct {
	// ARN is the target group's.
	ARN string
	// Healthy counts healthy targets; Floor is the plan's; Unused counts
	// targets in a zone no load balancer of it enables.
	Healthy, Floor, Unused int
}

// ObserverFuncs is an [Observer] made of optional functions.
type ObserverFuncs struct {
	// OnStepStarted, when set, implements StepStarted.
	OnStepStarted func(StepEvent)
	// OnStepFinished, when set, implements StepFinished.
	OnStepFinished func(StepEvent)
	// OnObserved, when set, implements Observed.
	OnObserved func(WatchProgress)
}

// StepStarted implements [Observer].
func (f ObserverFuncs) StepStarted(e StepEvent) {
	if f.OnStepStarted != nil {
		f.OnStepStarted(e)
	}
}

// StepFinished implements [Observer].
func (f ObserverFuncs) StepFinished(e StepEvent) {
	if f.OnStepFinished != nil {
		f.OnStepFinished(e)
	}
}

// Observed implements [Observer].
func (f ObserverFuncs) Observed(p WatchProgress) {
	if f.OnObserved != nil {
		f.OnObserved(p)
	}
}

// Result is what Execute or Rollback did.
type Result struct {
	// PlanID is the plan's.
	PlanID string
	// DryRun: nothing was written; Writes says what would have been.
	DryRun bool
	// Resumed: a journal of this plan was found and continued.
	Resumed bool
	// Completed: every step (or rollback action) is done.
	Completed bool
	// Steps are the records, as journaled.
	Steps []StepState
	// Writes are the object writes made (or, in a dry run, that would be
	// made), one line each: "EC2NodeClass/default: ...".
	Writes []string
}

// Execute runs plan: it takes the lock, loads the journal (a re-run of the
// same plan continues where it stopped; another plan's journal is a
// *[PlanMismatchError]), checks that every object is as planned (a
// *[DriftedObjectError] names the first that is not, and nothing is
// written), then runs each step not yet done, journaling it running and
// done. A watch that sees an invariant fail holds: its step is journaled
// held and an *[InvariantError] says where; run Execute again to continue
// or [Rollback]. With [WithDryRun] it checks and returns the writes it
// would make.
func Execute(ctx context.Context, plan *Plan, env Env, opts ...MoveOption) (*Result, error) {
	r, err := start(ctx, "execute move", plan, env, opts)
	if err != nil {
		return nil, err
	}
	if r.o.dryRun {
		return r.dryRun(ctx, r.moveEdits())
	}
	if err := r.refuseOtherPlan(ctx); err != nil {
		return nil, err
	}
	if err := r.preflight(ctx, r.moveEdits()); err != nil {
		return nil, err
	}
	defer r.release()
	if err := r.begin(ctx); err != nil {
		return nil, err
	}
	if r.st.RolledBack || r.st.Rollback != nil {
		return nil, fmt.Errorf("subnets: execute move %s: %w: run Rollback to finish it, or plan again", plan.ID, ErrRolledBack)
	}
	for _, s := range plan.Steps {
		id := s.ID
		err := r.step(ctx, r.st.Steps, id, func(ctx context.Context, rec *StepState) error {
			switch id {
			case StepWatchReplacement:
				return r.watch(ctx, rec, r.moveDeparts, r.lateDeparts)
			case StepVerifyPrivate:
				return r.verify(ctx)
			}
			return r.write(ctx, r.editsOf(id))
		})
		if err != nil {
			return r.result(false), err
		}
	}
	return r.result(true), nil
}

// env is an Env with its defaults applied.
type env struct {
	Env
	clock clock.Clock
	log   logr.Logger
}

// runner is one Execute or Rollback: the plan, the journal, the lock.
type runner struct {
	op      string
	plan    *Plan
	env     *env
	o       moveOptions
	st      *MoveState
	resumed bool
	held    bool // the lock is held
	writes  []string
}

// start checks the arguments of op and applies the defaults.
func start(ctx context.Context, op string, plan *Plan, e Env, opts []MoveOption) (*runner, error) {
	if ctx == nil {
		return nil, &MoveInputError{Op: op, Field: "ctx", Reason: "nil"}
	}
	if err := plan.Validate(); err != nil {
		return nil, err
	}
	if e.Client == nil || isNil(e.Client) {
		return nil, &MoveInputError{Op: op, Field: "Env.Client", Reason: "nil"}
	}
	if len(plan.TargetGroups) > 0 && (e.ELBv2 == nil || isNil(e.ELBv2)) {
		return nil, &MoveInputError{Op: op, Field: "Env.ELBv2", Reason: fmt.Sprintf("nil, and the plan watches %s", textcell.Plural(len(plan.TargetGroups), "target group", "target groups"))}
	}
	if errs := validation.IsDNS1123Label(e.Namespace); len(errs) > 0 {
		return nil, &MoveInputError{Op: op, Field: "Env.Namespace", Reason: fmt.Sprintf("%q: %s", e.Namespace, errs[0])}
	}
	o := moveOptions{poll: DefaultPollInterval, floorGrace: DefaultFloorGrace}
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	switch {
	case o.poll < 0:
		return nil, &MoveInputError{Op: op, Field: "WithPollInterval", Reason: fmt.Sprintf("%v is negative", o.poll)}
	case o.poll == 0:
		o.poll = DefaultPollInterval
	}
	switch {
	case o.timeout < 0:
		return nil, &MoveInputError{Op: op, Field: "WithTimeout", Reason: fmt.Sprintf("%v is negative", o.timeout)}
	case o.timeout == 0:
		o.timeout = max(DefaultWatchTimeout, 2*plan.Estimate.Duration)
	}
	if o.floorGrace == 0 {
		o.floorGrace = DefaultFloorGrace
	}
	if o.observer == nil || isNil(o.observer) {
		o.observer = ObserverFuncs{}
	}
	r := &runner{op: op, plan: plan, o: o, env: &env{Env: e, clock: e.Clock, log: e.Logger}}
	if r.env.clock == nil {
		r.env.clock = clock.RealClock{}
	}
	if r.env.log.GetSink() == nil {
		r.env.log = logr.Discard()
	}
	if r.env.Holder == "" {
		r.env.Holder = cutover.DefaultHolder()
	}
	if o.dryRun {
		return r, nil
	}
	if r.o.journal == nil || isNil(r.o.journal) {
		j, err := NewConfigMapJournal(e.Client, e.Namespace, plan.Cluster, r.env.clock)
		if err != nil {
			return nil, err
		}
		r.o.journal = j
	}
	if r.o.lock == nil || isNil(r.o.lock) {
		l, err := cutover.NewNamedLeaseLock(e.Client, cutover.NamedLeaseLockOptions{
			Namespace: e.Namespace, Name: JournalName(plan.Cluster), Subject: "subnets-move/" + plan.Cluster,
			Holder: r.env.Holder, Clock: r.env.clock,
		})
		if err != nil {
			return nil, fmt.Errorf("subnets: %s: %w", op, err)
		}
		if half := l.LeaseDuration() / 2; o.poll >= half {
			return nil, &MoveInputError{Op: op, Field: "WithPollInterval", Reason: fmt.Sprintf("%v is not under half the lease (%v): the lease would lapse between renewals", o.poll, half)}
		}
		r.o.lock = l
	}
	return r, nil
}

// begin takes the lock and loads (or starts) the journal.
func (r *runner) begin(ctx context.Context) error {
	if err := r.o.lock.Acquire(ctx); err != nil {
		return fmt.Errorf("subnets: %s: %w", r.op, err)
	}
	r.held = true
	st, err := r.o.journal.Load(ctx, r.plan.Ref())
	if err != nil {
		return err
	}
	if st == nil {
		r.st = newState(r.plan)
		return r.save(ctx)
	}
	r.st, r.resumed = st, true
	return nil
}

// refuseOtherPlan reads the journal, before the lock and any write, to
// refuse another plan's journal first: that error says more than a
// drifted object would.
func (r *runner) refuseOtherPlan(ctx context.Context) error {
	_, err := r.o.journal.Load(ctx, r.plan.Ref())
	return err
}

// release gives the lock up; a failure is logged (the lease expires).
func (r *runner) release() {
	if !r.held {
		return
	}
	if err := r.o.lock.Release(context.WithoutCancel(context.Background())); err != nil {
		r.env.log.Error(err, "release the move's lock")
	}
}

// save renews the lock and writes the journal.
func (r *runner) save(ctx context.Context) error {
	if err := r.renew(ctx); err != nil {
		return err
	}
	return r.o.journal.Save(ctx, r.st)
}

func (r *runner) renew(ctx context.Context) error {
	if err := r.o.lock.Renew(ctx); err != nil {
		return fmt.Errorf("subnets: %s: %w", r.op, err)
	}
	return nil
}

// step runs the step id of records unless it is done: it journals it
// running, then done, failed or held.
func (r *runner) step(ctx context.Context, records []StepState, id string, fn func(context.Context, *StepState) error) error {
	rec := step(records, id)
	if rec == nil {
		return fmt.Errorf("subnets: %s: no journal record of step %s", r.op, id)
	}
	if rec.Status == StepDone {
		r.o.observer.StepFinished(StepEvent{Step: id, At: r.env.clock.Now(), Skipped: true})
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	now := r.env.clock.Now().UTC()
	rec.Status, rec.StartedAt, rec.FinishedAt, rec.Error, rec.Violations = StepRunning, &now, nil, "", nil
	if err := r.save(ctx); err != nil {
		return err
	}
	r.env.log.Info("step started", "plan", r.plan.ID, "step", id)
	r.o.observer.StepStarted(StepEvent{Step: id, At: now})
	err := fn(ctx, rec)
	end := r.env.clock.Now().UTC()
	var inv *InvariantError
	switch {
	case err == nil:
		rec.Status, rec.FinishedAt = StepDone, &end
	case ctx.Err() != nil:
		// A crash or a cancellation: the step stays running in the journal
		// and a re-run starts it again.
		r.o.observer.StepFinished(StepEvent{Step: id, At: end, Err: err})
		return err
	case errors.As(err, &inv):
		rec.Status, rec.Error, rec.Violations = StepHeld, err.Error(), inv.Violations
	default:
		rec.Status, rec.Error = StepFailed, err.Error()
	}
	if serr := r.save(ctx); serr != nil {
		err = errors.Join(err, serr)
	}
	r.o.observer.StepFinished(StepEvent{Step: id, At: end, Err: err})
	r.env.log.Info("step finished", "plan", r.plan.ID, "step", id, "status", rec.Status, "error", rec.Error)
	return err
}

func (r *runner) result(done bool) *Result {
	res := &Result{PlanID: r.plan.ID, Resumed: r.resumed, Completed: done, Writes: r.writes}
	if r.st != nil {
		res.Steps = r.st.Steps
		if r.op == opRollback {
			res.Steps = r.st.Rollback
		}
	}
	return res
}

// dryRun checks edits and returns the writes they would make.
func (r *runner) dryRun(ctx context.Context, edits []edit) (*Result, error) {
	res := &Result{PlanID: r.plan.ID, DryRun: true}
	for _, e := range edits {
		_, cur, err := r.read(ctx, e)
		if err != nil {
			return nil, err
		}
		switch cur {
		case e.from:
			res.Writes = append(res.Writes, e.describe())
		case e.to:
		default:
			return nil, e.drifted(cur, nil)
		}
	}
	return res, nil
}

// edit is one guarded write: the field of an object goes from one value
// to another, each rendered as a comparable line.
type edit struct {
	step     string
	gvk      schema.GroupVersionKind
	name     string
	field    string
	from, to string
	// apply writes the to value on the object.
	apply func(*unstructured.Unstructured) error
	// render reads the field's current value.
	render func(*unstructured.Unstructured) (string, error)
}

func (e edit) describe() string {
	return fmt.Sprintf("%s/%s: %s: %s -> %s", e.gvk.Kind, e.name, e.field, e.from, e.to)
}

func (e edit) drifted(cur string, err error) error {
	return &DriftedObjectError{Kind: e.gvk.Kind, Name: e.name, Field: e.field, Want: e.from + " or " + e.to, Got: cur, Err: err}
}

const (
	fieldSelection = "spec.subnetSelectorTerms, spec.associatePublicIPAddress"
	fieldBudgets   = "spec.disruption.budgets"
)

func renderSelection(f NodeClassFields) string {
	return termsString(f.SubnetSelectorTerms) + ", " + boolString(f.AssociatePublicIPAddress)
}

// classEdit moves the selection of the class c from one set of fields to
// another.
func classEdit(stepID string, c NodeClassChange, from, to NodeClassFields) edit {
	return edit{
		step: stepID, gvk: karpenterapi.EC2NodeClassGVK, name: c.Name, field: fieldSelection,
		from: renderSelection(from), to: renderSelection(to),
		apply: func(u *unstructured.Unstructured) error {
			return karpenterapi.SetSubnetSelection(u, to.SubnetSelectorTerms, to.AssociatePublicIPAddress)
		},
		render: func(u *unstructured.Unstructured) (string, error) {
			nc, err := karpenterapi.EC2NodeClassOf(u)
			if err != nil {
				return "", err
			}
			return renderSelection(NodeClassFields{SubnetSelectorTerms: nc.SubnetSelectorTerms, AssociatePublicIPAddress: nc.AssociatePublicIPAddress}), nil
		},
	}
}

// poolEdit moves the budgets of the pool p from one list to another.
func poolEdit(stepID string, p NodePoolChange, from, to []karpenterapi.Budget) edit {
	return edit{
		step: stepID, gvk: karpenterapi.NodePoolGVK, name: p.Name, field: fieldBudgets,
		from: budgetsString(from), to: budgetsString(to),
		apply: func(u *unstructured.Unstructured) error { return karpenterapi.SetBudgets(u, to) },
		render: func(u *unstructured.Unstructured) (string, error) {
			np, err := karpenterapi.NodePoolOf(u)
			if err != nil {
				return "", err
			}
			return budgetsString(np.Budgets), nil
		},
	}
}

// editsOf returns the writes of the plan's step id.
func (r *runner) editsOf(id string) []edit {
	var out []edit
	switch id {
	case StepTightenBudgets, StepRestoreBudgets, ActionRestoreBudgets:
		for _, p := range r.plan.NodePools {
			switch {
			case p.Move == nil:
			case id == StepTightenBudgets:
				out = append(out, poolEdit(id, p, p.From, p.Move))
			default:
				out = append(out, poolEdit(id, p, p.Move, p.From))
			}
		}
	case StepPatchNodeClasses:
		for _, c := range r.plan.NodeClasses {
			out = append(out, classEdit(id, c, c.From, c.To))
		}
	case ActionRestoreNodeClasses:
		for _, c := range r.plan.NodeClasses {
			out = append(out, classEdit(id, c, c.To, c.From))
		}
	}
	return out
}

// moveEdits are the writes of the plan's steps, in order.
func (r *runner) moveEdits() []edit {
	var out []edit
	for _, s := range r.plan.Steps {
		out = append(out, r.editsOf(s.ID)...)
	}
	return out
}

// preflight checks that every object edits touch holds one of the values
// the plan writes or reads: a *DriftedObjectError names the first that
// does not, before any write.
func (r *runner) preflight(ctx context.Context, edits []edit) error {
	seen := map[string][]string{}
	for _, e := range edits {
		k := e.gvk.Kind + "/" + e.name
		seen[k] = append(seen[k], e.from, e.to)
	}
	checked := map[string]bool{}
	for _, e := range edits {
		k := e.gvk.Kind + "/" + e.name
		if checked[k] {
			continue
		}
		checked[k] = true
		_, cur, err := r.read(ctx, e)
		if err != nil {
			return err
		}
		ok := false
		for _, v := range seen[k] {
			ok = ok || v == cur
		}
		if !ok {
			return &DriftedObjectError{Kind: e.gvk.Kind, Name: e.name, Field: e.field, Want: fmt.Sprintf("one of %q", seen[k]), Got: cur}
		}
	}
	return nil
}

// read gets the object of e and renders its field.
func (r *runner) read(ctx context.Context, e edit) (*unstructured.Unstructured, string, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(e.gvk)
	if err := r.env.Client.Get(ctx, client.ObjectKey{Name: e.name}, u); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, "", &DriftedObjectError{Kind: e.gvk.Kind, Name: e.name, Field: "object", Want: "present", Got: "absent", Err: err}
		}
		return nil, "", fmt.Errorf("subnets: read %s/%s: %w", e.gvk.Kind, e.name, err)
	}
	cur, err := e.render(u)
	if err != nil {
		return nil, "", &DriftedObjectError{Kind: e.gvk.Kind, Name: e.name, Field: e.field, Want: e.from, Got: "unreadable", Err: err}
	}
	return u, cur, nil
}

// write makes the edits of one step: it reads and checks every object
// first (a drifted one stops the step before any write), then writes each
// that is not yet as planned with an Update under the resourceVersion it
// read (a change in between is a *DriftedObjectError wrapping the 409).
func (r *runner) write(ctx context.Context, edits []edit) error {
	objs := make([]*unstructured.Unstructured, len(edits))
	for i, e := range edits {
		u, cur, err := r.read(ctx, e)
		if err != nil {
			return err
		}
		switch cur {
		case e.to:
			continue
		case e.from:
			objs[i] = u
		default:
			return e.drifted(cur, nil)
		}
	}
	for i, e := range edits {
		u := objs[i]
		if u == nil {
			continue
		}
		if err := e.apply(u); err != nil {
			return fmt.Errorf("subnets: %s: %w", e.step, err)
		}
		if err := r.renew(ctx); err != nil {
			return err
		}
		if err := r.env.Client.Update(ctx, u); err != nil {
			if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
				return e.drifted("changed since it was read", err)
			}
			return fmt.Errorf("subnets: write %s/%s: %w", e.gvk.Kind, e.name, err)
		}
		r.writes = append(r.writes, e.describe())
		r.env.log.Info("wrote", "object", e.gvk.Kind+"/"+e.name, "field", e.field, "value", e.to)
	}
	return nil
}

// isNil reports whether v, a non-nil interface value, holds a nil pointer,
// map, func, channel or slice.
func isNil(v any) bool {
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Func, reflect.Chan, reflect.Slice, reflect.Interface:
		return rv.IsNil()
	}
	return false
}
