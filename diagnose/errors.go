package diagnose

// This file holds the sentinels, InputError and ResourceError, the IsX
// helper, and the one place a failure gets its category.

import (
	"context"
	"errors"
	"fmt"

	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/read"
)

var (
	// ErrInvalidInput is the category of an [*InputError]: Diagnose made no
	// call at all.
	ErrInvalidInput = errors.New("invalid input")
	// ErrNothingScanned is returned, joined with every per-resource error,
	// when not one target group in scope could be scanned.
	ErrNothingScanned = errors.New("nothing scanned")
	// ErrNilResponse is the category of an AWS call that returned neither
	// an output nor an error: a broken client. The resource is reported as
	// not read (category nil-response); nothing dereferences the output.
	ErrNilResponse = awserr.ErrNilResponse
	// ErrPanic is the category of a panic inside a worker (a client, or
	// the analysis of one target group), recovered and reported as an error
	// on its resource (category panic). The message carries the panic's
	// value, never its stack; the stack is logged at V(1).
	ErrPanic = errors.New("panic")
)

// InputError says which part of the Sources, the Scope or the options is
// malformed. Diagnose returns it before it makes any call.
type InputError struct {
	// Field is the Go path of the culprit, for example "Sources.Accounts[1].ID".
	Field string
	// Reason is one line saying what is wrong.
	Reason string
}

// Error implements error.
func (e *InputError) Error() string {
	return fmt.Sprintf("diagnose: invalid input: %s %s", e.Field, e.Reason)
}

// Unwrap returns [ErrInvalidInput].
func (e *InputError) Unwrap() error { return ErrInvalidInput }

// IsInvalidInput reports whether err is (or wraps) an [*InputError].
func IsInvalidInput(err error) bool { return errors.Is(err, ErrInvalidInput) }

// Resource kinds a [ResourceError] can name.
const (
	KindTargetGroup  = "target-group"
	KindLoadBalancer = "load-balancer"
	KindCluster      = "cluster"
	KindAccount      = "account"
)

// ResourceError is one resource that could not be read. It is plain data in
// the report, and an error that unwraps to the underlying cause: for AWS
// failures, the sentinels of the root package (tgmigrate.ErrNotFound,
// tgmigrate.ErrThrottled, tgmigrate.ErrWrongAccount...).
type ResourceError struct {
	// Kind is KindTargetGroup, KindLoadBalancer, KindCluster or KindAccount.
	Kind string `json:"kind"`
	// Resource is the ARN, the name as given in the scope, the cluster name
	// or the account ID.
	Resource string `json:"resource"`
	// Account and Region are those of the client the call went through.
	Account string `json:"account,omitempty"`
	Region  string `json:"region,omitempty"`
	// Cluster is set for Kubernetes failures.
	Cluster string `json:"cluster,omitempty"`
	// Op is the failed operation, for example "DescribeTargetHealth" or
	// "list pods".
	Op string `json:"op"`
	// Category is a stable word for the cause: not-found, throttled,
	// access-denied, wrong-account, wrong-region, invalid-arn, forbidden,
	// crd-missing, cancelled, deadline-exceeded, invalid-request,
	// invalid-input, nil-response, panic, unknown...
	Category string `json:"category"`
	// Code is the AWS error code, when there is one.
	Code string `json:"code,omitempty"`
	// Message is the cause's text. It never holds credentials.
	Message string `json:"message"`
	// Err is the cause.
	Err error `json:"-"`
}

// Error implements error.
func (e *ResourceError) Error() string {
	return fmt.Sprintf("diagnose: %s %s: %s", e.Op, e.Resource, e.Message)
}

// Unwrap returns the cause.
func (e *ResourceError) Unwrap() error { return e.Err }

func newResourceError(kind, resource, op string, err error) *ResourceError {
	return &ResourceError{
		Kind: kind, Resource: resource, Op: op,
		Category: category(err), Code: awserr.Code(err), Message: err.Error(), Err: err,
	}
}

// category maps an error onto a stable word, by type and sentinel only:
// the project's and awserr's sentinels, then internal/read's words for a
// Kubernetes error.
func category(err error) string {
	for _, c := range []struct {
		err  error
		name string
	}{
		{ErrPanic, "panic"},
		{context.Canceled, "cancelled"},
		{context.DeadlineExceeded, "deadline-exceeded"},
		{ErrInvalidInput, "invalid-input"},
		{ErrNilResponse, "nil-response"},
		{awserr.ErrWrongRegion, "wrong-region"}, // before ErrWrongAccount, which it wraps
		{awserr.ErrWrongAccount, "wrong-account"},
		{awserr.ErrInvalidARN, "invalid-arn"},
		{awserr.ErrNotFound, "not-found"},
		{awserr.ErrThrottled, "throttled"},
		{awserr.ErrAccessDenied, "access-denied"},
		{awserr.ErrInvalidRequest, "invalid-request"},
		{awserr.ErrInvalidTarget, "invalid-target"},
		{awserr.ErrQuotaExceeded, "quota-exceeded"},
		{awserr.ErrResourceInUse, "resource-in-use"},
		{awserr.ErrConflict, "conflict"},
		{awserr.ErrUnknown, "unknown"},
	} {
		if errors.Is(err, c.err) {
			return c.name
		}
	}
	return read.Category(err) // Kubernetes' words, or "error"
}

// ctxErr is the error of an ended ctx, or nil while it lives: ctx.Err()
// joined with context.Cause(ctx) when the cause is another error, so that
// errors.Is holds both for context.Canceled (or DeadlineExceeded), which
// [category] reads, and for the caller's cause. It is internal/read's, the
// one the limiter and the calls return.
var ctxErr = read.ContextError

// panicError is the error of a recovered panic: [ErrPanic] and the panic's
// value. An error value is wrapped too (errors.As finds a runtime.Error),
// and a string is quoted as it is; any other value is named by its type
// only, so that no struct (a client, its credentials) is ever printed.
func panicError(v any) error {
	switch v := v.(type) {
	case error:
		return fmt.Errorf("%w: %w", ErrPanic, v)
	case string:
		return fmt.Errorf("%w: %s", ErrPanic, v)
	default:
		return fmt.Errorf("%w: a value of type %T", ErrPanic, v)
	}
}
