package tgmigrate

// errors.go: the error sentinels the module's errors unwrap to (ErrNotFound,
// ErrThrottled, ErrTransport, the ARN categories and the rest), re-exported
// from internal/awserr.

import "github.com/qstools/tgmigrate/internal/awserr"

// Categories of AWS failure. Errors returned by this module's packages unwrap
// to at most one of them; test with errors.Is.
var (
	// ErrNotFound: a target group, load balancer, listener or rule does not exist.
	ErrNotFound = awserr.ErrNotFound
	// ErrThrottled: AWS rate-limited the call. The executors retry it.
	ErrThrottled = awserr.ErrThrottled
	// ErrInvalidTarget: AWS rejected a target (outside the VPC, wrong type).
	ErrInvalidTarget = awserr.ErrInvalidTarget
	// ErrQuotaExceeded: a service quota was hit.
	ErrQuotaExceeded = awserr.ErrQuotaExceeded
	// ErrResourceInUse: the resource is still referenced.
	ErrResourceInUse = awserr.ErrResourceInUse
	// ErrInvalidRequest: AWS rejected the request's parameters.
	ErrInvalidRequest = awserr.ErrInvalidRequest
	// ErrAccessDenied: the credentials lack a permission.
	ErrAccessDenied = awserr.ErrAccessDenied
	// ErrConflict: a name is taken, or a prior request is still in flight.
	ErrConflict = awserr.ErrConflict
	// ErrUnknown: an AWS error this module does not recognise, or no AWS
	// answer at all (ErrTransport, which narrows it).
	ErrUnknown = awserr.ErrUnknown
	// ErrTransport: no AWS answer could be read: a connection reset,
	// refused or timed out, or a response that could not be decoded. It
	// wraps ErrUnknown; test it first to tell a wire failure from an
	// unrecognised AWS error code. The module does not retry it (the AWS
	// SDK's own retryer already retries connection failures).
	ErrTransport = awserr.ErrTransport
	// ErrNilResponse: an AWS client returned neither an answer nor an
	// error (a broken client or fake): a typed error instead of a panic.
	// It wraps ErrUnknown.
	ErrNilResponse = awserr.ErrNilResponse
	// ErrInvalidARN: an ARN is malformed or names the wrong kind of
	// resource. ErrARNMalformed, ErrARNService and ErrARNResourceType
	// narrow it; each wraps it.
	ErrInvalidARN = awserr.ErrInvalidARN
	// ErrARNMalformed: an ARN is not an ARN, or a part of it (region,
	// account, name, ID, resource segments) is malformed.
	ErrARNMalformed = awserr.ErrARNMalformed
	// ErrARNService: an ARN is another service's, not elasticloadbalancing.
	ErrARNService = awserr.ErrARNService
	// ErrARNResourceType: an ARN names another kind of resource (a load
	// balancer where a target group is expected, say).
	ErrARNResourceType = awserr.ErrARNResourceType
	// ErrWrongAccount: an ARN belongs to another account or region than
	// expected. Alone it says the account differs; ErrWrongRegion wraps it.
	ErrWrongAccount = awserr.ErrWrongAccount
	// ErrWrongRegion: an ARN belongs to another region than expected. It
	// wraps ErrWrongAccount: test ErrWrongRegion first to tell them apart.
	ErrWrongRegion = awserr.ErrWrongRegion
)
