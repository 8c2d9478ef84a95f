package cutover

// resume.go holds Resume, which continues a cutover from its journal alone
// with the plan Execute saved there; SavedPlan, which reads that plan back;
// the plan's packing into the journal (State.SavedPlan); and
// NoSavedPlanError, for a journal written before it was saved.

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ErrNoSavedPlan: the journal holds no plan (it was written before Execute
// saved the plan in it); resume with the plan's JSON ([ParsePlan],
// [Execute]). See [NoSavedPlanError].
var ErrNoSavedPlan = errors.New("journal holds no plan")

// NoSavedPlanError says a journal holds no saved plan, so [Resume] cannot
// go on from it alone: the journal was written before Execute saved the
// plan in it. Execute with the plan's JSON resumes it (and saves the plan
// in the journal from then on).
type NoSavedPlanError struct {
	// PlanID is the plan the journal belongs to.
	PlanID string
	// Digest is its digest, which the plan's JSON must carry.
	Digest string
}

// Error implements error.
func (e *NoSavedPlanError) Error() string {
	return fmt.Sprintf("cutover: resume: %v: the journal of plan %s (digest %s) was written before plans were saved in it: resume with the plan's JSON (ParsePlan, then Execute)",
		ErrNoSavedPlan, e.PlanID, e.Digest)
}

// Unwrap returns [ErrNoSavedPlan].
func (e *NoSavedPlanError) Unwrap() error { return ErrNoSavedPlan }

// IsNoSavedPlan reports whether a journal holds no saved plan.
func IsNoSavedPlan(err error) bool { return errors.Is(err, ErrNoSavedPlan) }

// InspectableJournal is a journal that reads its state without being told
// the plan: [ConfigMapJournal] and [FileJournal] (their Inspect). [Resume]
// starts from one.
type InspectableJournal interface {
	Journal
	// Inspect returns the stored state, whatever its plan; an error that
	// unwraps to ErrNoJournal when nothing is stored.
	Inspect(ctx context.Context) (*State, error)
}

var (
	_ InspectableJournal = (*ConfigMapJournal)(nil)
	_ InspectableJournal = (*FileJournal)(nil)
)

// Resume continues the cutover that journal j holds, with the plan Execute
// saved in it: after a crash, a process that has neither the plan nor its
// JSON file resumes from the journal alone (a new plan would have a new
// digest, and the journal refuses it). It reads the state ([SavedPlan]),
// then runs [Execute] with that plan and j (WithJournal(j) is added after
// opts), so everything Execute does and promises holds: the steps done are
// skipped, a finished plan is nothing to do, a rolled-back one is refused.
//
// An empty journal gives an error that unwraps to ErrNoJournal; a journal
// written before plans were saved in it, a *[NoSavedPlanError]
// ([IsNoSavedPlan]); a saved plan that does not decode, or is not the
// journal's plan, a *CorruptJournalError. Nothing is changed then. A nil
// j is an *InputError. The default ConfigMap journal of a target group is
// NewConfigMapJournal(env.Client, ConfigMapJournalOptions{Namespace: the
// binding's namespace, TargetGroupARN: the target group}).
func Resume(ctx context.Context, env Env, j InspectableJournal, opts ...Option) (*Result, error) {
	if j == nil {
		return nil, &InputError{Op: "resume", Field: "journal", Reason: "nil"}
	}
	st, err := j.Inspect(ctx)
	if err != nil {
		return nil, fmt.Errorf("cutover: resume: %w", err)
	}
	plan, err := SavedPlan(st)
	if err != nil {
		return nil, err
	}
	return Execute(ctx, env, plan, append(opts, WithJournal(j))...)
}

// SavedPlan returns the plan a journal's state holds (State.SavedPlan),
// checked as [ParsePlan] checks a plan's JSON and against the state's
// plan reference. A state with none is a *[NoSavedPlanError]; one that
// does not decode, or is another plan's, a *CorruptJournalError; a nil
// state an *InputError.
func SavedPlan(st *State) (*Plan, error) {
	if st == nil {
		return nil, &InputError{Op: "saved plan", Field: "state", Reason: "nil"}
	}
	if len(st.SavedPlan) == 0 {
		return nil, &NoSavedPlanError{PlanID: st.Plan.ID, Digest: st.Plan.Digest}
	}
	corrupt := func(reason string, err error) error {
		return &CorruptJournalError{Journal: "of plan " + st.Plan.ID, Reason: "saved plan: " + reason, Err: err}
	}
	zr, err := gzip.NewReader(bytes.NewReader(st.SavedPlan))
	if err != nil {
		return nil, corrupt("not gzip", err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, corrupt("not gzip", err)
	}
	plan, err := ParsePlan(data)
	if err != nil {
		return nil, corrupt("not a plan", err)
	}
	if plan.Ref() != st.Plan {
		return nil, corrupt(fmt.Sprintf("plan %s with digest %s, not the journal's %s with %s", plan.ID, plan.Digest, st.Plan.ID, st.Plan.Digest), nil)
	}
	return plan, nil
}

// savedPlan packs the plan for State.SavedPlan: its JSON, compacted and
// gzip-compressed (a plan's JSON shrinks about fourfold, which keeps the
// ConfigMap journal's 1 MiB for the deregistered targets).
func (p *Plan) savedPlan() ([]byte, error) {
	data, err := p.JSON()
	if err != nil {
		return nil, err
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		return nil, fmt.Errorf("cutover: save plan: %w", err)
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(compact.Bytes()); err != nil {
		return nil, fmt.Errorf("cutover: save plan: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("cutover: save plan: %w", err)
	}
	return b.Bytes(), nil
}
