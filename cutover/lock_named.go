package cutover

// lock_named.go holds NewNamedLeaseLock, the same LeaseLock on a Lease the
// caller names, for the steps of the migration that lock something other
// than a target group (package subnets locks a cluster's move).

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// AnnotationLockSubject records, on a named lock's Lease, what the lock
// guards (for example "subnets-move/prod-eu"). A Lease with the lock's name
// whose annotation differs is not taken (a *NotManagedError).
const AnnotationLockSubject = "tgmigrate.qstools.io/lock-subject"

// NamedLeaseLockOptions configures a [LeaseLock] made by
// [NewNamedLeaseLock]. Its fields mean what [LeaseLockOptions]' do, with
// Name and Subject in the place of TargetGroupARN.
type NamedLeaseLockOptions struct {
	// Namespace is where the Lease lives. Required.
	Namespace string
	// Name is the Lease's name, a DNS-1123 subdomain. Required.
	Name string
	// Subject says what the lock guards; it is recorded in
	// [AnnotationLockSubject] and checked on every take-over. Required.
	Subject string
	// Holder identifies this operator (see [LeaseLockOptions].Holder).
	// Required.
	Holder string
	// LeaseDuration: see [LeaseLockOptions].LeaseDuration.
	LeaseDuration time.Duration
	// Clock: see [LeaseLockOptions].Clock.
	Clock clock.PassiveClock
}

// NewNamedLeaseLock returns a [LeaseLock] on the Lease opts.Name in
// opts.Namespace. It behaves as the target group's lock does (Acquire,
// Renew, Release, the same errors), labelled the same way; only its name
// and the annotation that says what it guards differ. It reads nothing.
// Missing or malformed options give an *InputError.
func NewNamedLeaseLock(c client.Client, opts NamedLeaseLockOptions) (*LeaseLock, error) {
	const op = "new named lease lock"
	if c == nil || typedNil(c) {
		return nil, &InputError{Op: op, Field: "client", Reason: "nil"}
	}
	if err := validNamespace(op, opts.Namespace); err != nil {
		return nil, err
	}
	if errs := validation.IsDNS1123Subdomain(opts.Name); len(errs) > 0 {
		return nil, &InputError{Op: op, Field: "Name", Reason: fmt.Sprintf("%q: %s", opts.Name, errs[0])}
	}
	if opts.Subject == "" {
		return nil, &InputError{Op: op, Field: "Subject", Reason: "empty: say what the lock guards"}
	}
	return buildLeaseLock(op, c, client.ObjectKey{Namespace: opts.Namespace, Name: opts.Name}, opts.Subject, AnnotationLockSubject,
		opts.Holder, opts.LeaseDuration, opts.Clock)
}
