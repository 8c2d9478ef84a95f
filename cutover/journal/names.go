package journal

// names.go holds the names, labels and annotations of the objects tgmigrate
// keeps in the cluster: the journal's ConfigMap and the lock's Lease, which
// follow one convention, and the check of the namespace they live in.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/qstools/tgmigrate"
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
	// DataKey is the ConfigMap data key that holds the state's JSON.
	DataKey = "state.json"
)

const (
	configMapPrefix = "tgmigrate-journal-"
	leasePrefix     = "tgmigrate-lock-"
	nameHashLen     = 10
)

// ConfigMapName returns the name of the journal ConfigMap of the target
// group tgARN: "tgmigrate-journal-<tg name>-<hash>", where the hash is the
// first 10 hex digits of the SHA-256 of the whole ARN (two target groups of
// the same name in two accounts or regions get two journals). The name is a
// DNS-1123 label of at most 61 characters. An ARN that is zero, not made
// by a parser, or not a target group's gives an *InputError that unwraps to
// tgmigrate.ErrInvalidARN.
func ConfigMapName(tgARN tgmigrate.ARN) (string, error) {
	return objectName("journal name", configMapPrefix, tgARN)
}

// LeaseName returns the name of the lock Lease of the target group tgARN:
// "tgmigrate-lock-<tg name>-<hash>", built like [ConfigMapName], at most 58
// characters. The lock is cutover's; its name follows the journal's
// convention.
func LeaseName(tgARN tgmigrate.ARN) (string, error) {
	return objectName("lease name", leasePrefix, tgARN)
}

func objectName(op, prefix string, a tgmigrate.ARN) (string, error) {
	if err := a.ValidTargetGroup(); err != nil {
		return "", &InputError{Op: op, Field: "target group ARN", Reason: "malformed", Err: err}
	}
	sum := sha256.Sum256([]byte(a.Raw))
	// Target group names are 1-32 letters, digits or hyphens and neither
	// start nor end with a hyphen, so the result is a DNS-1123 label.
	return prefix + strings.ToLower(a.Name) + "-" + hex.EncodeToString(sum[:])[:nameHashLen], nil
}

// ValidNamespace checks ns, the namespace of a journal ConfigMap or a lock
// Lease (the TargetGroupBinding's): an empty or malformed one is an
// *InputError of the operation op.
func ValidNamespace(op, ns string) error {
	if ns == "" {
		return &InputError{Op: op, Field: "Namespace", Reason: "empty"}
	}
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return &InputError{Op: op, Field: "Namespace", Reason: fmt.Sprintf("%q: %s", ns, errs[0])}
	}
	return nil
}
