package awserr

// errors.go: the sentinel categories of AWS failure, Classify (an SDK error
// to an *Error that unwraps to one of them), IsRetryable, Code and Answered.

import (
	"context"
	"errors"
	"fmt"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// Sentinel categories. Every error that [Classify] returns unwraps to exactly
// one of them (and, for [ErrTransport], to the [ErrUnknown] it narrows).
// The root package tgmigrate re-exports them for callers.
var (
	// ErrNotFound: the target group, load balancer, listener or rule does not exist.
	ErrNotFound = errors.New("not found")
	// ErrThrottled: AWS rate-limited the call. Retryable.
	ErrThrottled = errors.New("throttled")
	// ErrInvalidTarget: a target is outside the VPC, of the wrong type, or unusable.
	ErrInvalidTarget = errors.New("invalid target")
	// ErrQuotaExceeded: a service quota was hit (targets, registrations, target groups, associations).
	ErrQuotaExceeded = errors.New("quota exceeded")
	// ErrResourceInUse: the resource is referenced by another resource.
	ErrResourceInUse = errors.New("resource in use")
	// ErrInvalidRequest: AWS rejected the request's parameters or configuration.
	ErrInvalidRequest = errors.New("invalid request")
	// ErrAccessDenied: the caller's credentials lack permission.
	ErrAccessDenied = errors.New("access denied")
	// ErrConflict: a resource with that name already exists, or a prior request is still in flight.
	ErrConflict = errors.New("conflict")
	// ErrUnknown: an AWS error this package does not recognise, or no AWS
	// answer at all (ErrTransport, which narrows it).
	ErrUnknown = errors.New("unknown aws error")
	// ErrTransport: the call got no AWS answer it could read: the request
	// was not sent or its response not received (a reset or refused
	// connection, a timeout reading the body), or the response could not
	// be decoded. It wraps ErrUnknown, so errors.Is(err, ErrUnknown) holds
	// for it too; test ErrTransport first to tell a wire failure from an
	// unrecognised AWS error code. Not retryable by [IsRetryable]: the
	// SDK's standard retryer already retries connection failures, and a
	// request whose response was lost may have taken effect.
	ErrTransport error = &narrowCategory{msg: "transport failure", broad: ErrUnknown}
	// ErrNilResponse: the SDK call returned neither an output nor an error
	// (a broken client or fake). It narrows ErrUnknown.
	ErrNilResponse error = &narrowCategory{msg: "nil response", broad: ErrUnknown}
)

// narrowCategory is a sentinel that narrows a broader one: errors.Is on the
// broader one holds for it, and its message is its own.
type narrowCategory struct {
	msg   string
	broad error
}

func (c *narrowCategory) Error() string { return c.msg }
func (c *narrowCategory) Unwrap() error { return c.broad }

// codes maps smithy API error codes onto sentinels. It is consulted only when
// the error is not one of the SDK's typed exceptions.
var codes = map[string]error{
	"TargetGroupNotFound":          ErrNotFound,
	"LoadBalancerNotFound":         ErrNotFound,
	"ListenerNotFound":             ErrNotFound,
	"RuleNotFound":                 ErrNotFound,
	"ResourceNotFound":             ErrNotFound,
	"InvalidSubnetID.NotFound":     ErrNotFound,
	"InvalidRouteTableID.NotFound": ErrNotFound,
	"InvalidInstanceID.NotFound":   ErrNotFound,

	"Throttling":                ErrThrottled,
	"ThrottlingException":       ErrThrottled,
	"ThrottledException":        ErrThrottled,
	"RequestLimitExceeded":      ErrThrottled,
	"TooManyRequestsException":  ErrThrottled,
	"RequestThrottled":          ErrThrottled,
	"RequestThrottledException": ErrThrottled,
	"SlowDown":                  ErrThrottled,

	"InvalidTarget": ErrInvalidTarget,

	"TooManyTargets":                           ErrQuotaExceeded,
	"TooManyRegistrationsForTargetId":          ErrQuotaExceeded,
	"TooManyTargetGroups":                      ErrQuotaExceeded,
	"TargetGroupAssociationLimit":              ErrQuotaExceeded,
	"TooManyTags":                              ErrQuotaExceeded,
	"TooManyActions":                           ErrQuotaExceeded,
	"TooManyRules":                             ErrQuotaExceeded,
	"TooManyUniqueTargetGroupsPerLoadBalancer": ErrQuotaExceeded,

	"ResourceInUse": ErrResourceInUse,

	"InvalidConfigurationRequest": ErrInvalidRequest,
	"InvalidLoadBalancerAction":   ErrInvalidRequest,
	"IncompatibleProtocols":       ErrInvalidRequest,
	"OperationNotPermitted":       ErrInvalidRequest,
	"ValidationError":             ErrInvalidRequest,
	"InvalidParameterValue":       ErrInvalidRequest,
	"InvalidParameterCombination": ErrInvalidRequest,
	"MissingParameter":            ErrInvalidRequest,

	"AccessDenied":                ErrAccessDenied,
	"AccessDeniedException":       ErrAccessDenied,
	"UnauthorizedOperation":       ErrAccessDenied,
	"UnrecognizedClientException": ErrAccessDenied,
	"InvalidClientTokenId":        ErrAccessDenied,
	"ExpiredToken":                ErrAccessDenied,
	"ExpiredTokenException":       ErrAccessDenied,

	"DuplicateTargetGroupName": ErrConflict,
	"PriorRequestNotComplete":  ErrConflict,
	"PriorityInUse":            ErrConflict,
}

// Error is a classified AWS failure. It unwraps to its sentinel [Error.Kind]
// and to the SDK error it came from.
type Error struct {
	// Op is the ELBv2 or EC2 operation, for example "DescribeTargetHealth".
	Op string
	// Resource names what the call was about, usually an ARN; it may be empty.
	Resource string
	// Code is the AWS API error code, for example "TargetGroupNotFound".
	Code string
	// Kind is one of this package's sentinels.
	Kind error
	// Err is the original error.
	Err error
}

// Error implements error. It never includes request parameters, so it cannot
// leak credentials.
func (e *Error) Error() string {
	msg := e.Op
	if e.Resource != "" {
		msg += " " + e.Resource
	}
	return fmt.Sprintf("%s: %v: %v", msg, e.Kind, e.Err)
}

// Unwrap returns the sentinel and the original error.
func (e *Error) Unwrap() []error { return []error{e.Kind, e.Err} }

// Classify wraps err, returned by the AWS operation op about resource, in an
// [*Error] whose Kind is the matching sentinel. It returns nil for nil, and
// returns err unchanged when it is already classified or is a context error.
func Classify(op, resource string, err error) error {
	if err == nil {
		return nil
	}
	var already *Error
	if errors.As(err, &already) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	code, kind := kindOf(err)
	return &Error{Op: op, Resource: resource, Code: code, Kind: kind, Err: err}
}

// kindOf finds the sentinel for err: first the SDK's typed exceptions, then
// the smithy API error code. It never inspects the message text.
func kindOf(err error) (string, error) {
	if errors.Is(err, ErrNilResponse) {
		return "", ErrNilResponse
	}
	typed := []struct {
		target any
		kind   error
	}{
		{new(*elbv2types.TargetGroupNotFoundException), ErrNotFound},
		{new(*elbv2types.LoadBalancerNotFoundException), ErrNotFound},
		{new(*elbv2types.ListenerNotFoundException), ErrNotFound},
		{new(*elbv2types.RuleNotFoundException), ErrNotFound},
		{new(*elbv2types.InvalidTargetException), ErrInvalidTarget},
		{new(*elbv2types.TooManyTargetsException), ErrQuotaExceeded},
		{new(*elbv2types.TooManyRegistrationsForTargetIdException), ErrQuotaExceeded},
		{new(*elbv2types.TooManyTargetGroupsException), ErrQuotaExceeded},
		{new(*elbv2types.TargetGroupAssociationLimitException), ErrQuotaExceeded},
		{new(*elbv2types.ResourceInUseException), ErrResourceInUse},
		{new(*elbv2types.InvalidConfigurationRequestException), ErrInvalidRequest},
		{new(*elbv2types.OperationNotPermittedException), ErrInvalidRequest},
		{new(*elbv2types.DuplicateTargetGroupNameException), ErrConflict},
		{new(*elbv2types.PriorRequestNotCompleteException), ErrConflict},
	}
	for _, t := range typed {
		if errors.As(err, t.target) {
			var api smithy.APIError
			errors.As(err, &api)
			return api.ErrorCode(), t.kind
		}
	}
	var api smithy.APIError
	isAPI := errors.As(err, &api)
	if isAPI {
		if kind, ok := codes[api.ErrorCode()]; ok {
			return api.ErrorCode(), kind
		}
	}
	if isTransport(err) {
		return "", ErrTransport
	}
	if isAPI {
		return api.ErrorCode(), ErrUnknown
	}
	return "", ErrUnknown
}

// isTransport reports whether err is a failure to exchange or decode the
// request rather than an AWS answer: the SDK's *smithyhttp.RequestSendError
// (not sent, or no response), *awshttp.ResponseTimeoutError (the body
// stalled), *smithy.DeserializationError (a response it could not decode),
// or any error that says it is a connection error, as the SDK's retryer
// asks.
func isTransport(err error) bool {
	var (
		send   *smithyhttp.RequestSendError
		stall  *awshttp.ResponseTimeoutError
		decode *smithy.DeserializationError
		conn   interface{ ConnectionError() bool }
	)
	return errors.As(err, &send) || errors.As(err, &stall) || errors.As(err, &decode) ||
		(errors.As(err, &conn) && conn.ConnectionError())
}

// IsRetryable reports whether a backoff may retry err: AWS throttling, and
// ErrNotFound right after a create (eventual consistency) when the caller says
// so through afterCreate. Context errors and every other category are terminal.
func IsRetryable(err error, afterCreate bool) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false
	case errors.Is(err, ErrThrottled):
		return true
	case afterCreate && errors.Is(err, ErrNotFound):
		return true
	}
	return false
}

// Code returns the AWS error code carried by err, or "" when it has none.
func Code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return ""
}

// Answered returns err, or [ErrNilResponse] when the call returned neither
// an output nor an error: reading the nil output would panic the caller.
func Answered[T any](out *T, err error) error {
	if err == nil && out == nil {
		return ErrNilResponse
	}
	return err
}
