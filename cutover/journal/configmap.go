package journal

// configmap.go holds ConfigMap, the journal kept in a ConfigMap in the
// TargetGroupBinding's namespace: its read and ownership check, its writes
// under the resourceVersion last seen, and Delete.

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate"
)

// maxConfigMapBytes is the API server's limit on a ConfigMap's data (the
// same 1 MiB as a Secret's).
const maxConfigMapBytes = 1 << 20

// ConfigMapOptions configures a [ConfigMap].
type ConfigMapOptions struct {
	// Namespace is the TargetGroupBinding's namespace, where the ConfigMap
	// lives. Required.
	Namespace string
	// TargetGroupARN is the target group being cut over. It names the
	// ConfigMap (see [ConfigMapName]). Required: the zero ARN, or one not
	// made by tgmigrate.ParseTargetGroupARN, is refused.
	TargetGroupARN tgmigrate.ARN
	// Clock stamps State.UpdatedAt. Nil means the real clock.
	Clock clock.PassiveClock
}

// ConfigMap is a [Journal] kept in a ConfigMap in the
// TargetGroupBinding's namespace, one per target group, under the data key
// [DataKey]. It is labelled app.kubernetes.io/managed-by: tgmigrate
// and annotated with the target group's ARN; a ConfigMap of the same name
// without them is never read as a journal nor overwritten.
//
// Every write carries the resourceVersion last seen (an Update), or is a
// Create when the journal was last seen absent, so the API server refuses a
// lost update; that comes back as a *ConflictError.
//
// The client needs get, create, update and delete on configmaps in the
// namespace. A ConfigMap holds at most 1 MiB: about 15,000 deregistered
// targets (1,000 take 67 KB), far above ELBv2's default quota of 1,000
// targets per target group. A larger state is refused before any write.
type ConfigMap struct {
	c     client.Client
	key   client.ObjectKey
	tgARN tgmigrate.ARN
	clock clock.PassiveClock

	memory
	// last is the ConfigMap as last read or written; nil when it was absent.
	last *corev1.ConfigMap
}

// NewConfigMap returns the journal of opts.TargetGroupARN in
// opts.Namespace. It reads nothing: call Load first to resume. Missing or
// malformed options give an *InputError.
func NewConfigMap(c client.Client, opts ConfigMapOptions) (*ConfigMap, error) {
	const op = "new configmap journal"
	if c == nil {
		return nil, &InputError{Op: op, Field: "client", Reason: "nil"}
	}
	if err := ValidNamespace(op, opts.Namespace); err != nil {
		return nil, err
	}
	name, err := ConfigMapName(opts.TargetGroupARN)
	if err != nil {
		return nil, &InputError{Op: op, Field: "TargetGroupARN", Reason: "malformed", Err: err}
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &ConfigMap{
		c:     c,
		key:   client.ObjectKey{Namespace: opts.Namespace, Name: name},
		tgARN: opts.TargetGroupARN,
		clock: clk,
	}, nil
}

// Key returns the ConfigMap's namespace and name.
func (j *ConfigMap) Key() client.ObjectKey { return j.key }

func (j *ConfigMap) where() string { return "configmap " + j.key.String() }

// Load implements [Journal].
func (j *ConfigMap) Load(ctx context.Context, plan PlanRef) (*State, error) {
	return load(ctx, j, plan)
}

// Inspect returns the stored state whatever plan it belongs to, and
// remembers its version like Load. It is for showing a journal, or rolling
// back when the plan is gone; resuming goes through Load.
func (j *ConfigMap) Inspect(ctx context.Context) (*State, error) {
	return inspect(ctx, j)
}

// fetch implements store: it gets and decodes the ConfigMap, nil when it
// is absent, and keeps it as last.
func (j *ConfigMap) fetch(ctx context.Context, op string) (*State, error) {
	var cm corev1.ConfigMap
	err := j.c.Get(ctx, j.key, &cm)
	switch {
	case apierrors.IsNotFound(err):
		j.last = nil
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("cutover: %s %s: %w", op, j.where(), err)
	}
	if err := j.owned(&cm); err != nil {
		return nil, err
	}
	data, ok := cm.Data[DataKey]
	if !ok {
		return nil, &CorruptJournalError{Journal: j.where(), Reason: "no data key " + DataKey}
	}
	s, err := DecodeState(j.where(), []byte(data))
	if err != nil {
		return nil, err
	}
	if !s.TargetGroupARN.IsZero() && s.TargetGroupARN.Raw != j.tgARN.Raw {
		return nil, &CorruptJournalError{Journal: j.where(),
			Reason: fmt.Sprintf("state records target group %s, the ConfigMap is for %s", s.TargetGroupARN, j.tgARN)}
	}
	j.last = cm.DeepCopy()
	return s, nil
}

// owned checks that cm is a tgmigrate journal for this target group.
func (j *ConfigMap) owned(cm *corev1.ConfigMap) error {
	if cm.Labels[LabelManagedBy] != ManagedBy {
		return &NotManagedError{Object: j.where(), Reason: fmt.Sprintf("label %s is not %q", LabelManagedBy, ManagedBy)}
	}
	if got := cm.Annotations[AnnotationTargetGroupARN]; got != j.tgARN.Raw {
		return &NotManagedError{Object: j.where(), Reason: fmt.Sprintf("annotation %s is %q, not %q", AnnotationTargetGroupARN, got, j.tgARN)}
	}
	return nil
}

// Save implements [Journal]. It creates the ConfigMap when the journal was
// last seen absent (or never read), and otherwise updates it with the
// resourceVersion last seen.
func (j *ConfigMap) Save(ctx context.Context, s *State) error {
	const op = "save journal"
	j.mu.Lock()
	defer j.mu.Unlock()
	next, err := saveCheck(j.where(), s, j.revision, j.plan, j.clock.Now())
	if err != nil {
		return err
	}
	if next.TargetGroupARN.IsZero() {
		next.TargetGroupARN = j.tgARN
	} else if next.TargetGroupARN.Raw != j.tgARN.Raw {
		return &InputError{Op: op, Field: "state", Reason: fmt.Sprintf("target group %s is not the journal's %s", next.TargetGroupARN, j.tgARN)}
	}
	data, err := EncodeState(next)
	if err != nil {
		return err
	}
	if len(data) > maxConfigMapBytes {
		return &InputError{Op: op, Field: "state", Reason: fmt.Sprintf("%d bytes of JSON exceed a ConfigMap's %d: use a FileJournal", len(data), maxConfigMapBytes)}
	}

	var cm *corev1.ConfigMap
	if j.last == nil {
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: j.key.Namespace, Name: j.key.Name}}
	} else {
		cm = j.last.DeepCopy()
	}
	if cm.Labels == nil {
		cm.Labels = map[string]string{}
	}
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Labels[LabelManagedBy] = ManagedBy
	cm.Labels[LabelComponent] = "journal"
	cm.Annotations[AnnotationTargetGroupARN] = j.tgARN.Raw
	cm.Annotations[AnnotationPlanID] = next.Plan.ID
	cm.Data = map[string]string{DataKey: string(data)}

	if j.last == nil {
		err = j.c.Create(ctx, cm)
		switch {
		case apierrors.IsAlreadyExists(err):
			return &ConflictError{Op: op, Object: j.where(), Err: err}
		case err != nil:
			return fmt.Errorf("cutover: %s %s: create: %w", op, j.where(), err)
		}
	} else {
		err = j.c.Update(ctx, cm)
		switch {
		case apierrors.IsConflict(err):
			return &ConflictError{Op: op, Object: j.where(), Expected: j.last.ResourceVersion, Err: err}
		case apierrors.IsNotFound(err):
			return &ConflictError{Op: op, Object: j.where(), Expected: j.last.ResourceVersion, Actual: "absent",
				Reason: "it was deleted since it was last read", Err: err}
		case err != nil:
			return fmt.Errorf("cutover: %s %s: update: %w", op, j.where(), err)
		}
	}
	j.last = cm.DeepCopy()
	j.saw(next)
	s.SchemaVersion, s.Revision, s.UpdatedAt, s.TargetGroupARN = next.SchemaVersion, next.Revision, next.UpdatedAt, next.TargetGroupARN
	return nil
}

// Delete removes the journal, for example after a finished cutover or to
// start a new plan on the same target group. It deletes only the ConfigMap
// as last loaded or saved (a resourceVersion precondition): a journal
// changed since is a *ConflictError. Deleting a journal that was last seen
// absent, or is already gone, succeeds. Call Load or Inspect first.
func (j *ConfigMap) Delete(ctx context.Context) error {
	const op = "delete journal"
	j.mu.Lock()
	defer j.mu.Unlock()
	if ok, err := j.stored(op); !ok {
		return err
	}
	rv, uid := j.last.ResourceVersion, j.last.UID
	pre := client.Preconditions{ResourceVersion: &rv}
	if uid != "" {
		pre.UID = &uid
	}
	err := j.c.Delete(ctx, j.last.DeepCopy(), pre)
	switch {
	case apierrors.IsConflict(err):
		return &ConflictError{Op: op, Object: j.where(), Expected: rv, Err: err}
	case err != nil && !apierrors.IsNotFound(err):
		return fmt.Errorf("cutover: %s %s: %w", op, j.where(), err)
	}
	j.last = nil
	j.saw(nil)
	return nil
}
