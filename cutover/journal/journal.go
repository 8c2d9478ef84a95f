package journal

// journal.go holds the Journal interface and what both backends share: the
// memory of what they last saw, the one Load and Inspect they both run over
// their own read, and the checks Save makes before writing.

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// Journal saves a cutover's [State] so that a crashed Execute can resume and
// Rollback knows what to undo. The executor saves after every step and every
// deregistration batch.
//
// A Journal is optimistic: it remembers the version of the state it last
// loaded or saved, and Save refuses (with a *ConflictError, writing nothing)
// when the stored state has changed since, or when the state given is not
// the one it last saw. A Save with no Load before it expects the journal to
// be empty. Use a journal from one goroutine at a time; the implementations
// are safe for concurrent use but do not order the callers.
type Journal interface {
	// Load returns the state saved for plan and remembers its version for
	// the next Save. It returns an error that unwraps to [ErrNoJournal] when
	// nothing is saved, a *PlanMismatchError when the journal belongs to
	// another plan (another ID, or the same ID with another digest), and a
	// *CorruptJournalError when the stored state is unusable.
	Load(ctx context.Context, plan PlanRef) (*State, error)
	// Save writes s: it sets s.SchemaVersion, increments s.Revision and sets
	// s.UpdatedAt from the journal's clock, and leaves s unchanged when it
	// fails. A lost update is a *ConflictError; a state for another plan
	// than the stored one is a *PlanMismatchError; an invalid state is an
	// *InputError.
	Save(ctx context.Context, s *State) error
}

var (
	_ Journal = (*ConfigMap)(nil)
	_ Journal = (*File)(nil)
)

// memory is what a journal last saw of its store, read or written. Both
// backends embed it; mu guards it and the backend's own fields.
type memory struct {
	mu sync.Mutex
	// seen says the store has been read or written; until then Save
	// expects it empty.
	seen bool
	// revision and plan are those of the state last seen; plan is nil
	// when the store was last seen empty.
	revision int64
	plan     *PlanRef
}

func (m *memory) mem() *memory { return m }

// saw records s as the stored state; nil records an empty store.
func (m *memory) saw(s *State) {
	if s == nil {
		m.seen, m.revision, m.plan = true, 0, nil
		return
	}
	plan := s.Plan
	m.seen, m.revision, m.plan = true, s.Revision, &plan
}

// stored reports whether the store was last seen holding a state, for
// Delete: before the first read or write it refuses with an *InputError.
func (m *memory) stored(op string) (bool, error) {
	if !m.seen {
		return false, &InputError{Op: op, Field: "journal", Reason: "not read yet: call Load or Inspect first"}
	}
	return m.plan != nil, nil
}

// store is a backend as the common Load and Inspect see it.
type store interface {
	mem() *memory
	// where names the store in messages: "file PATH", "configmap NS/NAME".
	where() string
	// fetch reads and decodes the stored state for op, nil when there is
	// none, and keeps what else the backend needs of its read. The caller
	// holds mu.
	fetch(ctx context.Context, op string) (*State, error)
}

// load is Load, for both backends: the state stored for plan, remembered.
func load(ctx context.Context, st store, plan PlanRef) (*State, error) {
	if err := plan.validate("load journal"); err != nil {
		return nil, err
	}
	m := st.mem()
	m.mu.Lock()
	defer m.mu.Unlock()
	s, err := read(ctx, st, "load journal")
	if err != nil {
		return nil, err
	}
	if s.Plan != plan {
		return nil, &PlanMismatchError{Journal: st.where(), Want: plan, Got: s.Plan}
	}
	return s, nil
}

// inspect is Inspect, for both backends: the stored state whatever its
// plan, remembered.
func inspect(ctx context.Context, st store) (*State, error) {
	m := st.mem()
	m.mu.Lock()
	defer m.mu.Unlock()
	return read(ctx, st, "inspect journal")
}

// read fetches the stored state and remembers it; an empty store is
// [ErrNoJournal]. The caller holds mu.
func read(ctx context.Context, st store, op string) (*State, error) {
	s, err := st.fetch(ctx, op)
	if err != nil {
		return nil, err
	}
	st.mem().saw(s)
	if s == nil {
		return nil, fmt.Errorf("cutover: %s %s: %w", op, st.where(), ErrNoJournal)
	}
	return s, nil
}

// saveCheck does the checks Save makes before writing anything: the state is
// valid, it carries the revision the journal last saw, and it belongs to the
// plan the journal last saw stored (nil: none stored). It returns the copy
// to write, with the next revision and now as UpdatedAt.
func saveCheck(where string, s *State, seenRevision int64, seenPlan *PlanRef, now time.Time) (*State, error) {
	const op = "save journal"
	if s == nil {
		return nil, &InputError{Op: op, Field: "state", Reason: "nil"}
	}
	next := s.Clone()
	next.SchemaVersion = StateSchemaVersion
	if err := next.Validate(); err != nil {
		return nil, &InputError{Op: op, Field: "state", Reason: err.Error()}
	}
	if seenPlan != nil && *seenPlan != next.Plan {
		return nil, &PlanMismatchError{Journal: where, Want: next.Plan, Got: *seenPlan}
	}
	if next.Revision != seenRevision {
		return nil, &ConflictError{Op: op, Object: where,
			Expected: strconv.FormatInt(seenRevision, 10), Actual: strconv.FormatInt(next.Revision, 10),
			Reason: fmt.Sprintf("the state given has revision %d, the journal last saw revision %d: load it again", next.Revision, seenRevision)}
	}
	next.Revision++
	next.UpdatedAt = now.UTC()
	return next, nil
}
