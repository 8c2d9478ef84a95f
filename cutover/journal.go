package cutover

// journal.go gives cutover's names to the Journal interface and to the
// names, labels and annotations of the objects tgmigrate keeps in the
// cluster, which package journal defines, and validNamespace, which the
// request, the plan and the lock check their namespace with.

import (
	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover/journal"
)

// Journal saves a cutover's [State] so that a crashed Execute can resume and
// Rollback knows what to undo. The executor saves after every step and every
// deregistration batch. [ConfigMapJournal] and [FileJournal] implement it;
// see [journal.Journal] for what Load and Save promise.
type Journal = journal.Journal

// Names of the labels and annotations on the objects tgmigrate creates.
const (
	// LabelManagedBy marks the journal ConfigMap and the lock Lease; its
	// value is [ManagedBy]. tgmigrate refuses to touch an object with its
	// names that lacks it.
	LabelManagedBy = journal.LabelManagedBy
	// ManagedBy is the value of [LabelManagedBy].
	ManagedBy = journal.ManagedBy
	// LabelComponent says what the object is: "journal" or "lock".
	LabelComponent = journal.LabelComponent
	// AnnotationTargetGroupARN records the target group an object belongs to.
	AnnotationTargetGroupARN = journal.AnnotationTargetGroupARN
	// AnnotationPlanID records the plan a journal ConfigMap belongs to.
	AnnotationPlanID = journal.AnnotationPlanID
	// JournalDataKey is the ConfigMap data key that holds the state's JSON.
	JournalDataKey = journal.DataKey
)

// JournalConfigMapName returns the name of the journal ConfigMap of the
// target group tgARN: "tgmigrate-journal-<tg name>-<hash>", where the hash
// is the first 10 hex digits of the SHA-256 of the whole ARN (two target
// groups of the same name in two accounts or regions get two journals). The
// name is a DNS-1123 label of at most 61 characters. An ARN that is zero,
// not made by tgmigrate.ParseTargetGroupARN, or not a target group's gives
// an *InputError that unwraps to tgmigrate.ErrInvalidARN.
func JournalConfigMapName(tgARN tgmigrate.ARN) (string, error) { return journal.ConfigMapName(tgARN) }

// LeaseName returns the name of the lock Lease of the target group tgARN:
// "tgmigrate-lock-<tg name>-<hash>", built like [JournalConfigMapName], at
// most 58 characters.
func LeaseName(tgARN tgmigrate.ARN) (string, error) { return journal.LeaseName(tgARN) }

// validNamespace checks the namespace of the journal, the lock and the
// binding: an *InputError of op when it is empty or malformed.
func validNamespace(op, ns string) error { return journal.ValidNamespace(op, ns) }
