package cutover

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"k8s.io/utils/clock"

	"github.com/qstools/tgmigrate/internal/awserr"
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
	_ Journal = (*ConfigMapJournal)(nil)
	_ Journal = (*FileJournal)(nil)
)

// Names of the labels and annotations on the objects tgmigrate creates.
const (
	// LabelManagedBy marks the journal ConfigMap and the lock Lease; its
	// value is [ManagedBy]. tgmigrate refuses to touch an object with its
	// names that lacks it.
	LabelManagedBy = "app.kubernetes.io/managed-by"
	// ManagedBy is the value of [LabelManagedBy].
	ManagedBy = "tgmigrate"
	// LabelComponent says what the object is: "journal" or "lock".
	LabelComponent = "app.kubernetes.io/component"
	// AnnotationTargetGroupARN records the target group an object belongs to.
	AnnotationTargetGroupARN = "tgmigrate.qstools.io/target-group-arn"
	// AnnotationPlanID records the plan a journal ConfigMap belongs to.
	AnnotationPlanID = "tgmigrate.qstools.io/plan-id"
	// JournalDataKey is the ConfigMap data key that holds the state's JSON.
	JournalDataKey = "state.json"
)

const (
	journalPrefix = "tgmigrate-journal-"
	leasePrefix   = "tgmigrate-lock-"
	nameHashLen   = 10
)

// JournalConfigMapName returns the name of the journal ConfigMap of the
// target group tgARN: "tgmigrate-journal-<tg name>-<hash>", where the hash
// is the first 10 hex digits of the SHA-256 of the whole ARN (two target
// groups of the same name in two accounts or regions get two journals). The
// name is a DNS-1123 label of at most 61 characters. A malformed ARN gives an
// *InputError that unwraps to tgmigrate.ErrInvalidARN.
func JournalConfigMapName(tgARN string) (string, error) {
	return objectName("journal name", journalPrefix, tgARN)
}

// LeaseName returns the name of the lock Lease of the target group tgARN:
// "tgmigrate-lock-<tg name>-<hash>", built like [JournalConfigMapName], at
// most 58 characters.
func LeaseName(tgARN string) (string, error) {
	return objectName("lease name", leasePrefix, tgARN)
}

func objectName(op, prefix, tgARN string) (string, error) {
	a, err := awserr.ParseTargetGroupARN(tgARN)
	if err != nil {
		return "", &InputError{Op: op, Field: "target group ARN", Reason: "malformed", Err: err}
	}
	sum := sha256.Sum256([]byte(tgARN))
	// Target group names are 1-32 letters, digits or hyphens and neither
	// start nor end with a hyphen, so the result is a DNS-1123 label.
	return prefix + strings.ToLower(a.Name) + "-" + hex.EncodeToString(sum[:])[:nameHashLen], nil
}

// realClock is used when an options struct leaves Clock nil.
var realClock clock.PassiveClock = clock.RealClock{}

func orClock(c clock.PassiveClock) clock.PassiveClock {
	if c == nil {
		return realClock
	}
	return c
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
