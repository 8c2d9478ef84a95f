package cutover

// lock.go holds the Lock interface and LeaseLock, the coordination.k8s.io
// Lease that keeps two operators from cutting over one target group at once.

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate"
)

// Lock keeps two operators from cutting over one target group at once.
// Renewal is synchronous: the holder calls Renew before each mutation, and
// stops when Renew fails. Nothing runs in the background.
type Lock interface {
	// Acquire takes the lock, or returns a *LockedError naming the live
	// holder.
	Acquire(ctx context.Context) error
	// Renew extends the hold, or returns a *LostLockError when another
	// holder has taken the lock over.
	Renew(ctx context.Context) error
	// Release gives the lock up.
	Release(ctx context.Context) error
}

var _ Lock = (*LeaseLock)(nil)

// DefaultLeaseDuration is how long a lease lives without renewal when
// [LeaseLockOptions].LeaseDuration is zero.
const DefaultLeaseDuration = 60 * time.Second

// LeaseLockOptions configures a [LeaseLock].
type LeaseLockOptions struct {
	// Namespace is where the Lease lives: the TargetGroupBinding's
	// namespace. Required.
	Namespace string
	// TargetGroupARN is the target group to lock. It names the Lease (see
	// [LeaseName]). Required: the zero ARN, or one not made by
	// tgmigrate.ParseTargetGroupARN, is refused.
	TargetGroupARN tgmigrate.ARN
	// Holder identifies this operator in the Lease's holderIdentity. It must
	// be unique per running process (see [DefaultHolder]): a holder that
	// finds its own identity on a live lease takes it back at once, which
	// lets a restarted process with a stable identity resume. Required.
	Holder string
	// LeaseDuration is how long the lease stays valid after each renewal;
	// fractions of a second are rounded up. Zero means
	// [DefaultLeaseDuration]; a negative value is an error.
	LeaseDuration time.Duration
	// Clock decides expiry and stamps acquireTime and renewTime. Nil means
	// the real clock. Expiry compares the other holder's renewTime with this
	// clock, so the operators' clocks must roughly agree.
	Clock clock.PassiveClock
}

// LeaseLock is a [Lock] held in a coordination.k8s.io/v1 Lease, one per
// target group, labelled app.kubernetes.io/managed-by: tgmigrate.
//
// Acquire creates the Lease, or takes over one whose holder is empty or
// whose renewTime + leaseDurationSeconds is before now (incrementing
// leaseTransitions). Every write carries the resourceVersion last seen, so
// two operators racing for the same Lease cannot both win: the loser gets a
// *ConflictError. Release deletes the Lease under the same precondition.
//
// The client needs get, create, update and delete on
// leases.coordination.k8s.io in the namespace.
type LeaseLock struct {
	c     client.Client
	key   client.ObjectKey
	tgARN string
	// annotation is the key under which tgARN (for a named lock, its
	// subject) is recorded on the Lease: AnnotationTargetGroupARN, or
	// AnnotationLockSubject for a lock made by NewNamedLeaseLock.
	annotation string
	holder     string
	duration   time.Duration
	clock      clock.PassiveClock

	mu sync.Mutex
	// last is the Lease as this lock last wrote it; nil when not held.
	last *coordinationv1.Lease
}

// NewLeaseLock returns the lock of opts.TargetGroupARN. It reads nothing.
// Missing or malformed options give an *InputError.
func NewLeaseLock(c client.Client, opts LeaseLockOptions) (*LeaseLock, error) {
	const op = "new lease lock"
	if c == nil {
		return nil, &InputError{Op: op, Field: "client", Reason: "nil"}
	}
	if err := validNamespace(op, opts.Namespace); err != nil {
		return nil, err
	}
	name, err := LeaseName(opts.TargetGroupARN)
	if err != nil {
		return nil, &InputError{Op: op, Field: "TargetGroupARN", Reason: "malformed", Err: err}
	}
	return buildLeaseLock(op, c, client.ObjectKey{Namespace: opts.Namespace, Name: name}, opts.TargetGroupARN.Raw, AnnotationTargetGroupARN,
		opts.Holder, opts.LeaseDuration, opts.Clock)
}

// buildLeaseLock checks the holder and the lease duration, the options both
// constructors share, and builds the lock of key, recording subject under
// annotation.
func buildLeaseLock(op string, c client.Client, key client.ObjectKey, subject, annotation, holder string, d time.Duration, clk clock.PassiveClock) (*LeaseLock, error) {
	if holder == "" {
		return nil, &InputError{Op: op, Field: "Holder", Reason: "empty: give a unique identity, for example DefaultHolder()"}
	}
	d, err := leaseDuration(op, d)
	if err != nil {
		return nil, err
	}
	return &LeaseLock{c: c, key: key, tgARN: subject, annotation: annotation, holder: holder, duration: d, clock: orClock(clk)}, nil
}

// leaseDuration checks a lease duration option of op and applies its
// default: zero is DefaultLeaseDuration; fractions of a second round up.
func leaseDuration(op string, d time.Duration) (time.Duration, error) {
	switch {
	case d < 0:
		return 0, &InputError{Op: op, Field: "LeaseDuration", Reason: fmt.Sprintf("%v is negative", d)}
	case d == 0:
		d = DefaultLeaseDuration
	case d > time.Duration(1<<31-1)*time.Second:
		return 0, &InputError{Op: op, Field: "LeaseDuration", Reason: fmt.Sprintf("%v does not fit leaseDurationSeconds", d)}
	}
	return ((d + time.Second - 1) / time.Second) * time.Second, nil
}

// DefaultHolder returns an identity for [LeaseLockOptions].Holder:
// "HOSTNAME-PID". A restarted process gets another one, so it waits for its
// old lease to expire before it takes it over.
func DefaultHolder() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown-host"
	}
	return host + "-" + strconv.Itoa(os.Getpid())
}

// Key returns the Lease's namespace and name.
func (l *LeaseLock) Key() client.ObjectKey { return l.key }

// Holder returns this lock's identity.
func (l *LeaseLock) Holder() string { return l.holder }

// LeaseDuration returns the lease duration in use.
func (l *LeaseLock) LeaseDuration() time.Duration { return l.duration }

// Expires reports when the hold lapses unless renewed, and whether this lock
// believes it holds the lease (it may have lost it without knowing: Renew
// tells).
func (l *LeaseLock) Expires() (time.Time, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last == nil {
		return time.Time{}, false
	}
	return leaseExpiry(l.last, l.duration), true
}

func (l *LeaseLock) where() string { return "lease " + l.key.String() }

// Acquire implements [Lock]. It creates the Lease when there is none, takes
// it back when it already names this holder, and takes it over when it is
// released or expired. A Lease held by another live holder gives a
// *LockedError; a Lease with this name that tgmigrate does not manage gives a
// *NotManagedError; losing a race with another operator gives a
// *ConflictError. A failed Acquire leaves the lock not held.
func (l *LeaseLock) Acquire(ctx context.Context) error {
	const op = "acquire lease"
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last = nil
	now := l.clock.Now()

	var cur coordinationv1.Lease
	err := l.c.Get(ctx, l.key, &cur)
	switch {
	case apierrors.IsNotFound(err):
		lease := &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{
				Namespace:   l.key.Namespace,
				Name:        l.key.Name,
				Labels:      map[string]string{LabelManagedBy: ManagedBy, LabelComponent: "lock"},
				Annotations: map[string]string{l.annotation: l.tgARN},
			},
			Spec: l.spec(now, now, 0),
		}
		err := l.c.Create(ctx, lease)
		switch {
		case apierrors.IsAlreadyExists(err):
			return &ConflictError{Op: op, Object: l.where(), Reason: "another operator created it first", Err: err}
		case err != nil:
			return fmt.Errorf("cutover: %s %s: create: %w", op, l.where(), err)
		}
		l.last = lease.DeepCopy()
		return nil
	case err != nil:
		return fmt.Errorf("cutover: %s %s: %w", op, l.where(), err)
	}

	if err := l.owned(&cur); err != nil {
		return err
	}
	holder := deref(cur.Spec.HolderIdentity)
	expires := leaseExpiry(&cur, l.duration)
	transitions := deref(cur.Spec.LeaseTransitions)
	switch {
	case holder == l.holder:
		// Ours already: a restart with a stable identity. Keep acquireTime.
		acquired := now
		if cur.Spec.AcquireTime != nil {
			acquired = cur.Spec.AcquireTime.Time
		}
		cur.Spec = l.spec(acquired, now, transitions)
	case holder == "" || expires.Before(now):
		cur.Spec = l.spec(now, now, transitions+1)
	default:
		return &LockedError{Lease: l.key.String(), Holder: holder, Expires: expires}
	}
	rv := cur.ResourceVersion
	err = l.c.Update(ctx, &cur)
	switch {
	case apierrors.IsConflict(err):
		return &ConflictError{Op: op, Object: l.where(), Expected: rv, Reason: fmt.Sprintf("version %s changed while taking it over: another operator wrote it", rv), Err: err}
	case apierrors.IsNotFound(err):
		return &ConflictError{Op: op, Object: l.where(), Expected: rv, Actual: "absent", Reason: "it was deleted while taking it over", Err: err}
	case err != nil:
		return fmt.Errorf("cutover: %s %s: update: %w", op, l.where(), err)
	}
	l.last = cur.DeepCopy()
	return nil
}

// Renew implements [Lock]: it sets renewTime to now with the resourceVersion
// this lock last wrote. When that write is refused, Renew reads the Lease to
// say why: another holder (or none) gives a *LostLockError and the lock is
// no longer held; the same holder under a newer version (a second process
// with this identity) gives a *ConflictError. Renew without a successful
// Acquire gives a *LostLockError.
func (l *LeaseLock) Renew(ctx context.Context) error {
	const op = "renew lease"
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last == nil {
		return &LostLockError{Op: op, Lease: l.key.String(), Holder: l.holder, Reason: "not acquired by this lock"}
	}
	next := l.last.DeepCopy()
	acquired := l.clock.Now()
	if next.Spec.AcquireTime != nil {
		acquired = next.Spec.AcquireTime.Time
	}
	next.Spec = l.spec(acquired, l.clock.Now(), deref(next.Spec.LeaseTransitions))
	err := l.c.Update(ctx, next)
	switch {
	case err == nil:
		l.last = next.DeepCopy()
		return nil
	case apierrors.IsConflict(err) || apierrors.IsNotFound(err):
		return l.explainLoss(ctx, op, err)
	}
	return fmt.Errorf("cutover: %s %s: %w", op, l.where(), err)
}

// Release implements [Lock]: it deletes the Lease as this lock last wrote it
// (resourceVersion and UID preconditions). A Lease that another holder has
// taken over, or that is gone, gives a *LostLockError: the caller learns that
// its hold had lapsed. Release without a successful Acquire gives a
// *LostLockError too. After a nil error or a *LostLockError the lock is not
// held; after a *ConflictError (a second process with this identity) or a
// transport error it still is, and Release may be retried.
func (l *LeaseLock) Release(ctx context.Context) error {
	const op = "release lease"
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last == nil {
		return &LostLockError{Op: op, Lease: l.key.String(), Holder: l.holder, Reason: "not acquired by this lock"}
	}
	last := l.last
	err := l.c.Delete(ctx, last.DeepCopy(), preconditions(last))
	switch {
	case err == nil:
		l.last = nil
		return nil
	case apierrors.IsConflict(err) || apierrors.IsNotFound(err):
		return l.explainLoss(ctx, op, err)
	}
	return fmt.Errorf("cutover: %s %s: %w", op, l.where(), err)
}

// explainLoss reads the Lease after a refused write and says whether this
// lock lost it (a *LostLockError, and the lock is no longer held) or only
// raced with a writer of the same identity (a *ConflictError). The caller
// holds mu.
func (l *LeaseLock) explainLoss(ctx context.Context, op string, writeErr error) error {
	var cur coordinationv1.Lease
	err := l.c.Get(ctx, l.key, &cur)
	switch {
	case apierrors.IsNotFound(err):
		l.last = nil
		return &LostLockError{Op: op, Lease: l.key.String(), Holder: l.holder, Reason: "the lease was deleted"}
	case err != nil:
		return fmt.Errorf("cutover: %s %s: %w (and reading it back failed: %w)", op, l.where(), writeErr, err)
	}
	switch holder := deref(cur.Spec.HolderIdentity); holder {
	case l.holder:
		return &ConflictError{Op: op, Object: l.where(), Expected: l.last.ResourceVersion, Actual: cur.ResourceVersion,
			Reason: fmt.Sprintf("expected version %s, found %s still held by %q: another process uses the same identity", l.last.ResourceVersion, cur.ResourceVersion, holder),
			Err:    writeErr}
	case "":
		l.last = nil
		return &LostLockError{Op: op, Lease: l.key.String(), Holder: l.holder, Reason: "the lease was released by someone else"}
	default:
		l.last = nil
		return &LostLockError{Op: op, Lease: l.key.String(), Holder: l.holder, Current: holder,
			Reason: fmt.Sprintf("taken over by %q at %s", holder, microString(cur.Spec.AcquireTime))}
	}
}

// owned checks that lease is a tgmigrate lock for this target group.
func (l *LeaseLock) owned(lease *coordinationv1.Lease) error {
	if lease.Labels[LabelManagedBy] != ManagedBy {
		return &NotManagedError{Object: l.where(), Reason: fmt.Sprintf("label %s is not %q", LabelManagedBy, ManagedBy)}
	}
	if got := lease.Annotations[l.annotation]; got != l.tgARN {
		return &NotManagedError{Object: l.where(), Reason: fmt.Sprintf("annotation %s is %q, not %q", l.annotation, got, l.tgARN)}
	}
	return nil
}

func (l *LeaseLock) spec(acquired, renewed time.Time, transitions int32) coordinationv1.LeaseSpec {
	secs := int32(l.duration / time.Second)
	holder := l.holder
	at, rt := metav1.NewMicroTime(acquired), metav1.NewMicroTime(renewed)
	return coordinationv1.LeaseSpec{
		HolderIdentity:       &holder,
		LeaseDurationSeconds: &secs,
		AcquireTime:          &at,
		RenewTime:            &rt,
		LeaseTransitions:     &transitions,
	}
}

// leaseExpiry is renewTime (or acquireTime) + leaseDurationSeconds (or
// fallback when unset). A lease with neither time has expired long ago.
func leaseExpiry(lease *coordinationv1.Lease, fallback time.Duration) time.Time {
	var t time.Time
	switch {
	case lease.Spec.RenewTime != nil:
		t = lease.Spec.RenewTime.Time
	case lease.Spec.AcquireTime != nil:
		t = lease.Spec.AcquireTime.Time
	default:
		return time.Time{}
	}
	d := fallback
	if lease.Spec.LeaseDurationSeconds != nil {
		d = time.Duration(*lease.Spec.LeaseDurationSeconds) * time.Second
	}
	return t.Add(d)
}

func microString(t *metav1.MicroTime) string {
	if t == nil {
		return "an unknown time"
	}
	return t.UTC().Format(time.RFC3339)
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// realClock is used when an options struct leaves Clock nil.
var realClock clock.PassiveClock = clock.RealClock{}

func orClock(c clock.PassiveClock) clock.PassiveClock {
	if c == nil {
		return realClock
	}
	return c
}

// preconditions makes a delete apply only to obj as last seen.
func preconditions(obj client.Object) client.Preconditions {
	rv := obj.GetResourceVersion()
	p := client.Preconditions{ResourceVersion: &rv}
	if uid := obj.GetUID(); uid != "" {
		p.UID = &uid
	}
	return p
}
