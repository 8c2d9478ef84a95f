package campaign

// journal.go: the campaign journal: its state (JournalState: each
// entry's status and each wave's approval, naming the plan's ID and
// digest), the Journal interface (optimistic: a write names the version
// it read) and its two backends, a ConfigMap in a chosen cluster and
// namespace and a file (one machine only).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/nilcheck"
)

// JournalSchemaVersion is the version of a campaign journal's JSON.
const JournalSchemaVersion = 1

// JournalDataKey is the key of the state in a [ConfigMapJournal]'s data.
const JournalDataKey = "campaign.json"

// ErrJournalConflict says another runner wrote the campaign journal since
// it was read: read it again and retry (Execute does).
var ErrJournalConflict = errors.New("campaign journal changed")

// ErrJournalMismatch says the campaign journal belongs to another plan
// (another ID, or the same ID with another digest).
var ErrJournalMismatch = errors.New("campaign journal of another plan")

// EntryStatus is where one target group of a campaign stands.
type EntryStatus string

// The entry statuses.
const (
	// StatusPending: not started yet.
	StatusPending EntryStatus = "pending"
	// StatusRunning: a runner (EntryState.Holder) runs its cutover, or
	// did when it stopped (cancelled, crashed): the cutover's own journal
	// holds its progress, and a later run resumes it.
	StatusRunning EntryStatus = "running"
	// StatusDone: its cutover completed.
	StatusDone EntryStatus = "done"
	// StatusFailed: its cutover failed and was not rolled back (see
	// EntryState.Disposition: refused before any change, targets to fix,
	// a rollback that failed).
	StatusFailed EntryStatus = "failed"
	// StatusRolledBack: its cutover failed and cutover rolled it back.
	StatusRolledBack EntryStatus = "rolled-back"
	// StatusBlocked: it cannot run: blocked in the plan, or its re-plan
	// no longer fits the approved campaign (EntryState.Reason).
	StatusBlocked EntryStatus = "blocked"
	// StatusSkipped: scheduling stopped before it started (the error
	// budget was spent).
	StatusSkipped EntryStatus = "skipped"
)

// terminal reports whether s is an end state.
func (s EntryStatus) terminal() bool {
	return s != StatusPending && s != StatusRunning
}

// failure reports whether s counts against the error budget.
func (s EntryStatus) failure() bool { return s == StatusFailed || s == StatusRolledBack }

// JournalState is a campaign journal's content: plain data.
type JournalState struct {
	// SchemaVersion is [JournalSchemaVersion].
	SchemaVersion int `json:"schemaVersion"`
	// PlanID and PlanDigest name the campaign plan it belongs to.
	PlanID     string `json:"planID"`
	PlanDigest string `json:"planDigest"`
	// Entries are the plan's entries, in its order.
	Entries []EntryState `json:"entries"`
	// Waves are the plan's waves, in order.
	Waves []WaveState `json:"waves"`
	// Stops are the runs that stopped before the campaign's end, in
	// order: why, who and when.
	Stops []Stop `json:"stops,omitempty"`
	// UpdatedAt is the last write, on the writer's clock.
	UpdatedAt time.Time `json:"updatedAt"`
}

// EntryState is one target group in a campaign journal.
type EntryState struct {
	// TargetGroupARN, Name and Cluster identify it; Wave is its wave's
	// index, -1 when blocked in the plan.
	TargetGroupARN string `json:"targetGroupARN"`
	Name           string `json:"name"`
	Cluster        string `json:"cluster,omitempty"`
	Wave           int    `json:"wave"`
	// Status is where it stands.
	Status EntryStatus `json:"status"`
	// Holder is the runner that runs it (StatusRunning) or last ran it.
	Holder string `json:"holder,omitempty"`
	// Attempts counts the cutover runs started for it, by every runner.
	Attempts int `json:"attempts,omitempty"`
	// ClaimedAt is when Holder claimed it (or took it over). Another
	// runner leaves it alone for a Lease's duration after that
	// (cutover.DefaultLeaseDuration), the time the holder takes its Lease
	// in, then asks the Lease whether its holder is alive.
	ClaimedAt time.Time `json:"claimedAt,omitzero"`
	// StartedAt is its first start, FinishedAt its end.
	StartedAt  time.Time `json:"startedAt,omitzero"`
	FinishedAt time.Time `json:"finishedAt,omitzero"`
	// Disposition is cutover.Classify's class of its failure
	// ("rollback", "refused", "fix-targets").
	Disposition string `json:"disposition,omitempty"`
	// Error is its cutover's error, as text.
	Error string `json:"error,omitempty"`
	// Reason says why it is blocked or skipped, or how its run stopped.
	Reason string `json:"reason,omitempty"`
	// Replan is its re-plan, when its cutover plan was stale.
	Replan *Replan `json:"replan,omitempty"`
	// Cutover summarizes its cutover's last run.
	Cutover *CutoverSummary `json:"cutover,omitempty"`
}

// Replan records a stale cutover plan re-planned before it ran.
type Replan struct {
	// At is when, on the runner's clock; By the runner.
	At time.Time `json:"at"`
	By string    `json:"by"`
	// PlanID and Digest are the new cutover plan's.
	PlanID string `json:"planID"`
	Digest string `json:"digest"`
	// Changed says what differed from the approved plan.
	Changed []string `json:"changed"`
}

// CutoverSummary is the gist of a cutover.Result.
type CutoverSummary struct {
	// PlanID is the cutover plan that ran.
	PlanID string `json:"planID"`
	// Completed, RolledBack and Resumed are the result's.
	Completed  bool `json:"completed"`
	RolledBack bool `json:"rolledBack,omitempty"`
	Resumed    bool `json:"resumed,omitempty"`
	// CutoverSeconds and FloorSeconds are the result's.
	CutoverSeconds float64 `json:"cutoverSeconds"`
	FloorSeconds   float64 `json:"floorSeconds"`
	// Calls sums the run's ELBv2 calls; MutatingCalls those that change
	// something.
	Calls         int `json:"calls"`
	MutatingCalls int `json:"mutatingCalls"`
}

// summarize returns the gist of r; nil for nil.
func summarize(r *cutover.Result) *CutoverSummary {
	if r == nil {
		return nil
	}
	s := &CutoverSummary{PlanID: r.PlanID, Completed: r.Completed, RolledBack: r.RolledBack, Resumed: r.Resumed,
		CutoverSeconds: r.CutoverSeconds, FloorSeconds: r.FloorSeconds, MutatingCalls: r.MutatingCalls}
	for _, n := range r.Calls {
		s.Calls += n
	}
	return s
}

// WaveState is one wave in a campaign journal.
type WaveState struct {
	// Name is the wave's.
	Name string `json:"name"`
	// Approval says the plan puts an approval before it.
	Approval bool `json:"approval"`
	// Approved says its approval was given, by ApprovedBy at ApprovedAt.
	Approved   bool      `json:"approved,omitempty"`
	ApprovedBy string    `json:"approvedBy,omitempty"`
	ApprovedAt time.Time `json:"approvedAt,omitzero"`
	// Refused is the last refusal's reason, when the approval was refused
	// (a later Execute asks again).
	Refused string `json:"refused,omitempty"`
}

// Stop is a run of Execute that stopped before the campaign's end.
type Stop struct {
	// Reason is why it stopped.
	Reason StopReason `json:"reason"`
	// By is the runner, At when.
	By string    `json:"by"`
	At time.Time `json:"at"`
	// Detail says it in one line.
	Detail string `json:"detail,omitempty"`
}

// newJournalState is the state of a campaign that has not started.
func newJournalState(p *Plan) *JournalState {
	st := &JournalState{SchemaVersion: JournalSchemaVersion, PlanID: p.ID, PlanDigest: p.Digest}
	for _, e := range p.Entries {
		es := EntryState{TargetGroupARN: e.TargetGroupARN.Raw, Name: e.Name, Cluster: e.Cluster, Wave: e.Wave, Status: StatusPending}
		if !e.Runnable() {
			es.Status = StatusBlocked
			if e.Blocked != nil {
				es.Reason = string(e.Blocked.Reason) + ": " + e.Blocked.Detail
			}
		}
		st.Entries = append(st.Entries, es)
	}
	for _, w := range p.Waves {
		st.Waves = append(st.Waves, WaveState{Name: w.Name, Approval: w.Approval})
	}
	return st
}

// check refuses a state of another plan, or one that does not fit p.
func (st *JournalState) check(p *Plan) error {
	switch {
	case st.SchemaVersion != JournalSchemaVersion:
		return fmt.Errorf("campaign: journal: schema version %d, not %d: %w", st.SchemaVersion, JournalSchemaVersion, ErrJournalMismatch)
	case st.PlanID != p.ID || st.PlanDigest != p.Digest:
		return fmt.Errorf("campaign: journal: of plan %s (%s), not %s (%s): %w", st.PlanID, st.PlanDigest, p.ID, p.Digest, ErrJournalMismatch)
	case len(st.Entries) != len(p.Entries) || len(st.Waves) != len(p.Waves):
		return fmt.Errorf("campaign: journal: %d entries and %d waves, the plan %d and %d: %w", len(st.Entries), len(st.Waves), len(p.Entries), len(p.Waves), ErrJournalMismatch)
	}
	for i, e := range p.Entries {
		if st.Entries[i].TargetGroupARN != e.TargetGroupARN.Raw {
			return fmt.Errorf("campaign: journal: entry %d is %s, the plan's %s: %w", i, st.Entries[i].TargetGroupARN, e.TargetGroupARN, ErrJournalMismatch)
		}
	}
	return nil
}

// entry returns the state of the target group arn.
func (st *JournalState) entry(arn string) *EntryState {
	for i := range st.Entries {
		if st.Entries[i].TargetGroupARN == arn {
			return &st.Entries[i]
		}
	}
	return nil
}

// failures counts the failed and rolled-back entries.
func (st *JournalState) failures() int {
	n := 0
	for _, e := range st.Entries {
		if e.Status.failure() {
			n++
		}
	}
	return n
}

// Journal stores a campaign's [JournalState]. Writes are optimistic: Save
// names the version Load returned ("" when there was none), and a write
// over another version fails with an error that unwraps to
// [ErrJournalConflict], so two runners never lose each other's updates.
// Execute retries a conflict from a fresh Load.
type Journal interface {
	// Load returns the state and its version; nil and "" when the journal
	// is empty.
	Load(ctx context.Context) (*JournalState, string, error)
	// Save writes st over version and returns the new version.
	Save(ctx context.Context, st *JournalState, version string) (string, error)
	// Where says where the journal is, for messages.
	Where() string
}

// ConfigMapJournal is a campaign [Journal] in a ConfigMap of a chosen
// cluster and namespace, under [JournalDataKey], labelled
// app.kubernetes.io/managed-by: tgmigrate. Every write carries the
// resourceVersion read (or is a Create), so runners on several machines
// share it safely: the API server refuses a lost update. The client needs
// get, create and update on configmaps in the namespace
// ([JournalClusterRules]).
type ConfigMapJournal struct {
	c   client.Client
	key client.ObjectKey
}

// NewConfigMapJournal returns the journal in the ConfigMap namespace/name
// of the cluster c. It reads nothing. A nil client or an empty name is an
// [*InputError].
func NewConfigMapJournal(c client.Client, namespace, name string) (*ConfigMapJournal, error) {
	bad := func(field, reason string) error {
		return &InputError{Op: "configmap journal", Field: field, Reason: reason}
	}
	switch {
	case nilcheck.IsNil(c):
		return nil, bad("client", nilcheck.Reason(c))
	case namespace == "":
		return nil, bad("namespace", "is empty")
	case name == "":
		return nil, bad("name", "is empty")
	}
	return &ConfigMapJournal{c: c, key: client.ObjectKey{Namespace: namespace, Name: name}}, nil
}

// Where is "configmap NAMESPACE/NAME".
func (j *ConfigMapJournal) Where() string { return "configmap " + j.key.String() }

// Load implements [Journal]: the resourceVersion is the version.
func (j *ConfigMapJournal) Load(ctx context.Context) (*JournalState, string, error) {
	var cm corev1.ConfigMap
	err := j.c.Get(ctx, j.key, &cm)
	switch {
	case apierrors.IsNotFound(err):
		return nil, "", nil
	case err != nil:
		return nil, "", fmt.Errorf("campaign: journal: %s: %w", j.Where(), err)
	case cm.Labels[cutover.LabelManagedBy] != cutover.ManagedBy:
		return nil, "", fmt.Errorf("campaign: journal: %s is not tgmigrate's (label %s): %w", j.Where(), cutover.LabelManagedBy, ErrJournalMismatch)
	}
	st, err := decodeState(j.Where(), []byte(cm.Data[JournalDataKey]))
	if err != nil {
		return nil, "", err
	}
	return st, cm.ResourceVersion, nil
}

// Save implements [Journal].
func (j *ConfigMapJournal) Save(ctx context.Context, st *JournalState, version string) (string, error) {
	data, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("campaign: journal: %w", err)
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: j.key.Namespace, Name: j.key.Name, ResourceVersion: version,
			Labels: map[string]string{cutover.LabelManagedBy: cutover.ManagedBy, cutover.LabelComponent: "campaign"}},
		Data: map[string]string{JournalDataKey: string(data)},
	}
	if version == "" {
		err = j.c.Create(ctx, cm)
	} else {
		err = j.c.Update(ctx, cm)
	}
	switch {
	case apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) || (version != "" && apierrors.IsNotFound(err)):
		return "", fmt.Errorf("campaign: journal: %s: version %q: %w: %w", j.Where(), version, ErrJournalConflict, err)
	case err != nil:
		return "", fmt.Errorf("campaign: journal: %s: %w", j.Where(), err)
	}
	return cm.ResourceVersion, nil
}

// FileJournal is a campaign [Journal] in a file, written atomically
// (temporary file, rename). It is for one machine only: its version check
// holds between the runners of one process and, through the file's
// content, against a second process on the same file system, but a file
// shared over a network file system is not safe for two machines; use a
// [ConfigMapJournal] there.
type FileJournal struct {
	path string
	mu   sync.Mutex
}

// NewFileJournal returns the journal in the file path, whose directory
// must exist. An empty path is an [*InputError].
func NewFileJournal(path string) (*FileJournal, error) {
	if path == "" {
		return nil, &InputError{Op: "file journal", Field: "path", Reason: "is empty"}
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return nil, &InputError{Op: "file journal", Field: "path", Reason: fmt.Sprintf("directory of %s does not exist", path)}
	}
	return &FileJournal{path: filepath.Clean(path)}, nil
}

// Where is "file PATH".
func (j *FileJournal) Where() string { return "file " + j.path }

// fileEnvelope is the file's content: the state and its revision.
type fileEnvelope struct {
	Revision int64           `json:"revision"`
	State    json.RawMessage `json:"state"`
}

// Load implements [Journal]: the version is the file's revision.
func (j *FileJournal) Load(_ context.Context) (*JournalState, string, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	env, err := j.read()
	if err != nil || env == nil {
		return nil, "", err
	}
	st, err := decodeState(j.Where(), env.State)
	if err != nil {
		return nil, "", err
	}
	return st, strconv.FormatInt(env.Revision, 10), nil
}

// read returns the file's envelope; nil when there is no file.
func (j *FileJournal) read() (*fileEnvelope, error) {
	data, err := os.ReadFile(j.path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("campaign: journal: %w", err)
	}
	var env fileEnvelope
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, fmt.Errorf("campaign: journal: %s: not a campaign journal: %w", j.Where(), err)
	}
	return &env, nil
}

// Save implements [Journal].
func (j *FileJournal) Save(_ context.Context, st *JournalState, version string) (string, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	cur, err := j.read()
	if err != nil {
		return "", err
	}
	now := ""
	if cur != nil {
		now = strconv.FormatInt(cur.Revision, 10)
	}
	if now != version {
		return "", fmt.Errorf("campaign: journal: %s: revision %q, read %q: %w", j.Where(), now, version, ErrJournalConflict)
	}
	state, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("campaign: journal: %w", err)
	}
	next := int64(1)
	if cur != nil {
		next = cur.Revision + 1
	}
	data, err := json.MarshalIndent(fileEnvelope{Revision: next, State: state}, "", "  ")
	if err != nil {
		return "", fmt.Errorf("campaign: journal: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(j.path), ".campaign-*.tmp")
	if err != nil {
		return "", fmt.Errorf("campaign: journal: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return "", fmt.Errorf("campaign: journal: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", fmt.Errorf("campaign: journal: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("campaign: journal: %w", err)
	}
	if err := os.Rename(tmp.Name(), j.path); err != nil {
		return "", fmt.Errorf("campaign: journal: %w", err)
	}
	return strconv.FormatInt(next, 10), nil
}

// decodeState reads a state, refusing unknown fields.
func decodeState(where string, data []byte) (*JournalState, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var st JournalState
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("campaign: journal: %s: not a campaign journal: %w", where, err)
	}
	return &st, nil
}
