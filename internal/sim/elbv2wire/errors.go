package elbv2wire

// errors.go: OptionsError and the HTTP status of each error code.

import (
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/traits"

	"github.com/qstools/tgmigrate/internal/sim/simopt"
)

// ErrInvalidOptions is the category of every error [NewServer], [Start],
// [NewClient] and [Server.Inject] return for bad options.
// It is [simopt.ErrInvalidOptions], the category every package of the
// simulator shares.
var ErrInvalidOptions = simopt.ErrInvalidOptions

// OptionsError names the option at fault. It unwraps to [ErrInvalidOptions].
// It is the simulator's one [simopt.OptionsError]: this package's have Pkg
// "elbv2wire" and Op the function that rejected the option ("new server",
// "inject").
type OptionsError = simopt.OptionsError

// Error codes the endpoint answers itself, before a request reaches its
// backend. Their HTTP statuses are those of AWS's common errors.
const (
	// CodeMissingAction: the request has no Action (400).
	CodeMissingAction = "MissingAction"
	// CodeInvalidAction: an Action this endpoint does not serve, or a
	// Version other than [Version] (400).
	CodeInvalidAction = "InvalidAction"
	// CodeMissingParameter: the request has no Version (400).
	CodeMissingParameter = "MissingParameter"
	// CodeMalformedQueryString: the form body cannot be parsed (404, as
	// AWS documents it).
	CodeMalformedQueryString = "MalformedQueryString"
	// CodeValidationError: a parameter cannot be read into the operation's
	// Input: unknown, malformed, or of the wrong type (400).
	CodeValidationError = "ValidationError"
	// CodeMissingAuthenticationToken: the request is not signed with
	// Signature Version 4 (403).
	CodeMissingAuthenticationToken = "MissingAuthenticationToken"
	// CodeIncompleteSignature: the signature's credential scope is not
	// this service's, or not the endpoint's region (400).
	CodeIncompleteSignature = "IncompleteSignature"
	// CodeInternalFailure: the backend failed with an error that is not an
	// AWS API error, or panicked (500).
	CodeInternalFailure = "InternalFailure"
	// CodeServiceUnavailable: the [FaultUnavailable] wire fault (503).
	CodeServiceUnavailable = "ServiceUnavailable"
)

// commonStatus holds the HTTP status of the codes the SDK's ELBv2 model does
// not declare: the common errors of AWS Query APIs with the statuses their
// documentation gives, ELBv2's throttling code, and AccessDenied, which IAM
// answers with 403 (not verified for ELBv2 in particular).
var commonStatus = map[string]int{
	"Throttling":                  400,
	"ThrottlingException":         400,
	"ValidationError":             400,
	"AccessDeniedException":       400,
	"AccessDenied":                403,
	"IncompleteSignature":         400,
	"InvalidAction":               400,
	"InvalidClientTokenId":        403,
	"InvalidParameterCombination": 400,
	"InvalidParameterValue":       400,
	"InvalidQueryParameter":       400,
	"MalformedQueryString":        404,
	"MissingAction":               400,
	"MissingAuthenticationToken":  403,
	"MissingParameter":            400,
	"NotAuthorized":               400,
	"OptInRequired":               403,
	"RequestExpired":              400,
	"InternalFailure":             500,
	"ServiceUnavailable":          503,
}

// modeledStatus holds the HTTP status of every error the SDK's ELBv2 model
// declares, read from its awsQueryError traits (TargetGroupNotFound 400,
// PriorRequestNotComplete 429, HealthUnavailable 500, ...).
var modeledStatus = func() map[string]int {
	m := map[string]int{}
	for _, e := range elbv2.TypeRegistry.Entries {
		if e.Schema == nil {
			continue
		}
		if t, ok := smithy.SchemaTrait[*traits.AWSQueryError](e.Schema); ok && t.StatusCode != 0 {
			m[t.ErrorCode] = t.StatusCode
		}
	}
	return m
}()

// StatusOf returns the HTTP status the endpoint answers an error code
// with: the status the SDK's model declares for ELBv2's own errors, AWS's
// documented status for the common errors (Throttling 400,
// MalformedQueryString 404, InternalFailure 500...), and otherwise 500 for a
// server fault and 400 for anything else.
func StatusOf(code string, fault smithy.ErrorFault) int {
	if s, ok := modeledStatus[code]; ok {
		return s
	}
	if s, ok := commonStatus[code]; ok {
		return s
	}
	if fault == smithy.FaultServer {
		return 500
	}
	return 400
}
