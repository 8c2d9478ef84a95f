package subnets

// journal.go: the move's durable state (MoveState, StepState), the Journal
// interface, and ConfigMapJournal, its backend in a ConfigMap written
// under the resourceVersion last seen.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/cutover"
)

// MoveStateSchemaVersion is the version of the journal's JSON.
const MoveStateSchemaVersion = 1

// Labels and annotations of the journal ConfigMap (and the lock Lease):
// the labels are cutover's, so one selector finds every object tgmigrate
// keeps.
const (
	// AnnotationMoveCluster records the cluster a journal belongs to.
	AnnotationMoveCluster = "tgmigrate.qstools.io/move-cluster"
	// JournalDataKey is the ConfigMap data key of the state's JSON.
	JournalDataKey    = "state.json"
	componentJournal  = "move-journal"
	maxConfigMapBytes = 1 << 20
)

// StepStatus is where a step stands.
type StepStatus string

// The statuses of a step.
const (
	StepPending StepStatus = "pending"
	StepRunning StepStatus = "running"
	StepDone    StepStatus = "done"
	// StepFailed: the step returned an error (its Error says which); a
	// re-run starts it again.
	StepFailed StepStatus = "failed"
	// StepHeld: an invariant failed (its Violations say which); a re-run
	// watches again from where it held.
	StepHeld StepStatus = "held"
)

// StepState is one step's record.
type StepState struct {
	// ID is the step's (or the rollback action's).
	ID     string     `json:"id"`
	Status StepStatus `json:"status"`
	// StartedAt and FinishedAt are on the injected clock.
	StartedAt  *time.Time `json:"startedAt,omitempty"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
	// Error is the last failure's message.
	Error string `json:"error,omitempty"`
	// Departing are the nodes a watch waits to see leave, recorded when it
	// starts; Remaining those still there at its last observation; Waves
	// the rounds of departures seen.
	Departing []string `json:"departing,omitempty"`
	// Kept are the nodes of the moved classes the watch did not expect to
	// leave, recorded with Departing: with them, a rollback tells the
	// nodes launched before the move from those launched by it.
	Kept      []string `json:"kept,omitempty"`
	Remaining []string `json:"remaining,omitempty"`
	Waves     int      `json:"waves,omitempty"`
	// Violations are the failed invariants of a held watch.
	Violations []Violation `json:"violations,omitempty"`
}

// MoveState is the journal of one cluster's move: the plan, each step's
// record, and a rollback's.
type MoveState struct {
	// SchemaVersion is [MoveStateSchemaVersion].
	SchemaVersion int `json:"schemaVersion"`
	// Plan is the plan being run, whole: a Rollback needs nothing else.
	Plan Plan `json:"plan"`
	// Steps are the plan's steps' records, in its order.
	Steps []StepState `json:"steps"`
	// Rollback are the rollback's actions' records; nil until one starts.
	Rollback []StepState `json:"rollback,omitempty"`
	// RolledBack is set when a rollback finished.
	RolledBack bool `json:"rolledBack,omitempty"`
	// Revision counts the saves; UpdatedAt is the last one's time.
	Revision  int64     `json:"revision"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// newState is the journal of p before any step.
func newState(p *Plan) *MoveState {
	s := &MoveState{SchemaVersion: MoveStateSchemaVersion, Plan: *p}
	for _, st := range p.Steps {
		s.Steps = append(s.Steps, StepState{ID: st.ID, Status: StepPending})
	}
	return s
}

// step returns the record of id among steps.
func step(steps []StepState, id string) *StepState {
	for i := range steps {
		if steps[i].ID == id {
			return &steps[i]
		}
	}
	return nil
}

// Validate checks a state: its schema version, its plan, one record per
// plan step in order, known statuses and rollback actions.
func (s *MoveState) Validate() error {
	if s.SchemaVersion != MoveStateSchemaVersion {
		return fmt.Errorf("schemaVersion %d, want %d", s.SchemaVersion, MoveStateSchemaVersion)
	}
	if err := s.Plan.Validate(); err != nil {
		return err
	}
	if len(s.Steps) != len(s.Plan.Steps) {
		return fmt.Errorf("%d step records for %d steps", len(s.Steps), len(s.Plan.Steps))
	}
	known := []StepStatus{StepPending, StepRunning, StepDone, StepFailed, StepHeld}
	for i, st := range s.Steps {
		if st.ID != s.Plan.Steps[i].ID {
			return fmt.Errorf("step record %d is %q, the plan's step is %q", i, st.ID, s.Plan.Steps[i].ID)
		}
		if !slices.Contains(known, st.Status) {
			return fmt.Errorf("step %s: unknown status %q", st.ID, st.Status)
		}
	}
	actions := []string{ActionRestoreNodeClasses, ActionWatchBack, ActionRestoreBudgets}
	for _, st := range s.Rollback {
		if !slices.Contains(actions, st.ID) || !slices.Contains(known, st.Status) {
			return fmt.Errorf("rollback record %q has status %q", st.ID, st.Status)
		}
	}
	if s.Revision < 0 {
		return fmt.Errorf("revision %d is negative", s.Revision)
	}
	return nil
}

// EncodeMoveState returns the state's JSON.
func EncodeMoveState(s *MoveState) ([]byte, error) { return json.MarshalIndent(s, "", "  ") }

// DecodeMoveState reads a state's JSON strictly: an unknown field, an
// unknown schema version or a state that fails Validate is a
// *[CorruptJournalError] naming where.
func DecodeMoveState(where string, data []byte) (*MoveState, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s MoveState
	if err := dec.Decode(&s); err != nil {
		return nil, &CorruptJournalError{Journal: where, Reason: "cannot decode", Err: err}
	}
	if dec.More() {
		return nil, &CorruptJournalError{Journal: where, Reason: "trailing data after the state"}
	}
	if err := s.Validate(); err != nil {
		return nil, &CorruptJournalError{Journal: where, Reason: "invalid", Err: err}
	}
	return &s, nil
}

// Journal keeps a move's [MoveState], so that a crashed Execute resumes
// and Rollback knows what to undo. It is optimistic: Save refuses (a
// *[JournalConflictError], writing nothing) when the stored state changed
// since it was last loaded or saved. Use one from one goroutine at a time.
type Journal interface {
	// Load returns the stored state of plan, nil when the journal is empty;
	// a state of another plan is a *[PlanMismatchError].
	Load(ctx context.Context, plan PlanRef) (*MoveState, error)
	// Inspect returns the stored state whatever its plan, nil when empty.
	Inspect(ctx context.Context) (*MoveState, error)
	// Save writes s, whose Revision must be the one last loaded or saved
	// (0 for a new journal); it then bumps s.Revision and s.UpdatedAt.
	Save(ctx context.Context, s *MoveState) error
}

// JournalName returns the name of a cluster's move journal ConfigMap and
// lock Lease: "tgmigrate-move-<cluster>-<hash>", where the hash is the
// first 10 hex digits of the SHA-256 of the cluster's name: a DNS-1123
// label of at most 56 characters.
func JournalName(cluster string) string {
	sum := sha256.Sum256([]byte(cluster))
	return "tgmigrate-move-" + dnsPart(cluster, 30) + "-" + hex.EncodeToString(sum[:])[:10]
}

// ConfigMapJournal is a [Journal] in a ConfigMap named [JournalName] of
// the cluster, labelled app.kubernetes.io/managed-by: tgmigrate and
// annotated with the cluster ([AnnotationMoveCluster]); a ConfigMap of
// that name without them is never read nor overwritten. Every write is a
// Create when the journal was last seen absent, else an Update under the
// resourceVersion last seen, so the API server refuses a lost update.
//
// The client needs get, create and update on configmaps in the namespace.
type ConfigMapJournal struct {
	c       client.Client
	key     client.ObjectKey
	cluster string
	clock   clock.PassiveClock
	// last is the ConfigMap as last read or written, nil when absent;
	// revision the state's revision then.
	last     *corev1.ConfigMap
	revision int64
}

var _ Journal = (*ConfigMapJournal)(nil)

// NewConfigMapJournal returns the move journal of cluster in namespace.
// It reads nothing. clk stamps UpdatedAt (nil: the real clock). Missing or
// malformed arguments give a *[MoveInputError].
func NewConfigMapJournal(c client.Client, namespace, cluster string, clk clock.PassiveClock) (*ConfigMapJournal, error) {
	const op = "new move journal"
	if c == nil || isNil(c) {
		return nil, &MoveInputError{Op: op, Field: "client", Reason: "nil"}
	}
	if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
		return nil, &MoveInputError{Op: op, Field: "Namespace", Reason: fmt.Sprintf("%q: %s", namespace, errs[0])}
	}
	if cluster == "" {
		return nil, &MoveInputError{Op: op, Field: "cluster", Reason: "empty"}
	}
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &ConfigMapJournal{c: c, key: client.ObjectKey{Namespace: namespace, Name: JournalName(cluster)}, cluster: cluster, clock: clk}, nil
}

// Key returns the ConfigMap's namespace and name.
func (j *ConfigMapJournal) Key() client.ObjectKey { return j.key }

func (j *ConfigMapJournal) where() string { return "configmap " + j.key.String() }

// Load implements [Journal].
func (j *ConfigMapJournal) Load(ctx context.Context, plan PlanRef) (*MoveState, error) {
	s, err := j.Inspect(ctx)
	if err != nil || s == nil {
		return nil, err
	}
	if got := s.Plan.Ref(); got != plan {
		return nil, &PlanMismatchError{Journal: j.where(), Want: plan, Got: got}
	}
	return s, nil
}

// Inspect implements [Journal].
func (j *ConfigMapJournal) Inspect(ctx context.Context) (*MoveState, error) {
	var cm corev1.ConfigMap
	err := j.c.Get(ctx, j.key, &cm)
	switch {
	case apierrors.IsNotFound(err):
		j.last, j.revision = nil, 0
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("subnets: read journal %s: %w", j.where(), err)
	}
	if cm.Labels[cutover.LabelManagedBy] != cutover.ManagedBy {
		return nil, &NotManagedError{Object: j.where(), Reason: fmt.Sprintf("label %s is not %q", cutover.LabelManagedBy, cutover.ManagedBy)}
	}
	if got := cm.Annotations[AnnotationMoveCluster]; got != j.cluster {
		return nil, &NotManagedError{Object: j.where(), Reason: fmt.Sprintf("annotation %s is %q, not %q", AnnotationMoveCluster, got, j.cluster)}
	}
	data, ok := cm.Data[JournalDataKey]
	if !ok {
		return nil, &CorruptJournalError{Journal: j.where(), Reason: "no data key " + JournalDataKey}
	}
	s, err := DecodeMoveState(j.where(), []byte(data))
	if err != nil {
		return nil, err
	}
	if s.Plan.Cluster != j.cluster {
		return nil, &CorruptJournalError{Journal: j.where(), Reason: fmt.Sprintf("the state's plan is for cluster %q, the journal for %q", s.Plan.Cluster, j.cluster)}
	}
	j.last, j.revision = cm.DeepCopy(), s.Revision
	return s, nil
}

// Save implements [Journal].
func (j *ConfigMapJournal) Save(ctx context.Context, s *MoveState) error {
	const op = "save move journal"
	if s == nil {
		return &MoveInputError{Op: op, Field: "state", Reason: "nil"}
	}
	if s.Revision != j.revision {
		return &JournalConflictError{Journal: j.where(), Expected: strconv.FormatInt(j.revision, 10), Actual: strconv.FormatInt(s.Revision, 10)}
	}
	next := *s
	next.SchemaVersion = MoveStateSchemaVersion
	next.Revision++
	next.UpdatedAt = j.clock.Now().UTC()
	if err := next.Validate(); err != nil {
		return &MoveInputError{Op: op, Field: "state", Reason: "invalid", Err: err}
	}
	if next.Plan.Cluster != j.cluster {
		return &MoveInputError{Op: op, Field: "state", Reason: fmt.Sprintf("plan of cluster %q in the journal of %q", next.Plan.Cluster, j.cluster)}
	}
	data, err := EncodeMoveState(&next)
	if err != nil {
		return &MoveInputError{Op: op, Field: "state", Reason: "cannot be encoded", Err: err}
	}
	if len(data) > maxConfigMapBytes {
		return &MoveInputError{Op: op, Field: "state", Reason: fmt.Sprintf("%d bytes exceed a ConfigMap's %d", len(data), maxConfigMapBytes)}
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: j.key.Namespace, Name: j.key.Name}}
	if j.last != nil {
		cm = j.last.DeepCopy()
	}
	if cm.Labels == nil {
		cm.Labels = map[string]string{}
	}
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Labels[cutover.LabelManagedBy] = cutover.ManagedBy
	cm.Labels[cutover.LabelComponent] = componentJournal
	cm.Annotations[AnnotationMoveCluster] = j.cluster
	cm.Annotations[cutover.AnnotationPlanID] = next.Plan.ID
	cm.Data = map[string]string{JournalDataKey: string(data)}
	if j.last == nil {
		err = j.c.Create(ctx, cm)
		if apierrors.IsAlreadyExists(err) {
			return &JournalConflictError{Journal: j.where(), Err: err}
		}
	} else {
		err = j.c.Update(ctx, cm)
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return &JournalConflictError{Journal: j.where(), Expected: j.last.ResourceVersion, Err: err}
		}
	}
	if err != nil {
		return fmt.Errorf("subnets: %s %s: %w", op, j.where(), err)
	}
	j.last, j.revision = cm.DeepCopy(), next.Revision
	s.SchemaVersion, s.Revision, s.UpdatedAt = next.SchemaVersion, next.Revision, next.UpdatedAt
	return nil
}
