package ec2sim

// errors.go: EC2's error codes, the errors the Client returns, and the
// package's own errors.

import (
	"errors"
	"fmt"

	"github.com/aws/smithy-go"

	"github.com/qstools/tgmigrate/internal/sim/simopt"
)

// The EC2 error codes the simulator answers with, as EC2 spells them (the
// EC2 API reference's "Error codes" page). Callers classify errors by these
// codes (smithy.APIError's ErrorCode), never by message.
const (
	// CodeUnauthorizedOperation: the caller lacks the IAM permission
	// (HTTP 403). Also the answer to a DryRun without the permission.
	CodeUnauthorizedOperation = "UnauthorizedOperation"
	// CodeRequestLimitExceeded: EC2's throttling code (HTTP 503). The SDK's
	// standard retryer retries it as a throttle (retry.DefaultThrottleErrorCodes).
	CodeRequestLimitExceeded = "RequestLimitExceeded"
	// CodeUnavailable: the service is overloaded (HTTP 503, a server fault).
	CodeUnavailable = "Unavailable"
	// CodeInternalError: an internal error (HTTP 500, a server fault).
	CodeInternalError = "InternalError"
	// CodeDryRunOperation: the answer to a DryRun request that would have
	// succeeded (HTTP 412).
	CodeDryRunOperation = "DryRunOperation"
	// CodeMissingParameter: a required parameter is absent (HTTP 400).
	CodeMissingParameter = "MissingParameter"
	// CodeInvalidParameterValue: a parameter's value is invalid (HTTP 400).
	CodeInvalidParameterValue = "InvalidParameterValue"
	// CodeInvalidParameterCombination: parameters that cannot be given
	// together (HTTP 400).
	CodeInvalidParameterCombination = "InvalidParameterCombination"
	// CodeInvalidPaginationToken: a NextToken the service did not give.
	CodeInvalidPaginationToken = "InvalidPaginationToken"
	// CodeInvalidVpcIDNotFound: a VPC ID that does not exist.
	CodeInvalidVpcIDNotFound = "InvalidVpcID.NotFound"
	// CodeInvalidGroupNotFound: a security group ID or name that does not
	// exist.
	CodeInvalidGroupNotFound = "InvalidGroup.NotFound"
	// CodeInvalidGroupIDMalformed: a security group ID that is not sg-….
	CodeInvalidGroupIDMalformed = "InvalidGroupId.Malformed"
	// CodeInvalidGroupDuplicate: a security group name already taken in its
	// VPC.
	CodeInvalidGroupDuplicate = "InvalidGroup.Duplicate"
	// CodeInvalidPermissionDuplicate: an ingress rule that already exists.
	CodeInvalidPermissionDuplicate = "InvalidPermission.Duplicate"
	// CodeInvalidPermissionNotFound: a rule to revoke that does not exist
	// (in a non-default VPC, nothing is revoked).
	CodeInvalidPermissionNotFound = "InvalidPermission.NotFound"
	// CodeInvalidSecurityGroupRuleIDNotFound: a security group rule ID that
	// does not exist in the group.
	CodeInvalidSecurityGroupRuleIDNotFound = "InvalidSecurityGroupRuleId.NotFound"
	// CodeInvalidNetworkInterfaceIDNotFound: a network interface ID that
	// does not exist.
	CodeInvalidNetworkInterfaceIDNotFound = "InvalidNetworkInterfaceID.NotFound"
	// CodeInvalidNetworkInterfaceIDMalformed: a network interface ID that
	// is not eni-….
	CodeInvalidNetworkInterfaceIDMalformed = "InvalidNetworkInterfaceID.Malformed"
	// CodeInvalidInstanceIDNotFound: an instance ID that does not exist.
	CodeInvalidInstanceIDNotFound = "InvalidInstanceID.NotFound"
	// CodeInvalidInstanceIDMalformed: an instance ID that is not i-….
	CodeInvalidInstanceIDMalformed = "InvalidInstanceID.Malformed"
	// CodeInvalidSubnetIDNotFound: a subnet ID that does not exist.
	CodeInvalidSubnetIDNotFound = "InvalidSubnetID.NotFound"
	// CodeInvalidRouteTableIDNotFound: a route table ID that does not
	// exist.
	CodeInvalidRouteTableIDNotFound = "InvalidRouteTableID.NotFound"
	// CodeInvalidVpcEndpointIDNotFound: a VPC endpoint ID that does not
	// exist (EC2 spells it "Id").
	CodeInvalidVpcEndpointIDNotFound = "InvalidVpcEndpointId.NotFound"
)

// UnauthorizedMessage is the first sentence of EC2's UnauthorizedOperation
// message.
const UnauthorizedMessage = "You are not authorized to perform this operation."

// ErrUnauthorized returns the error EC2 returns when the caller lacks the
// permission ec2:op: code UnauthorizedOperation, a client fault. op may be
// empty.
func ErrUnauthorized(op string) error {
	msg := UnauthorizedMessage
	if op != "" {
		msg += " User is not authorized to perform: ec2:" + op
	}
	return &smithy.GenericAPIError{Code: CodeUnauthorizedOperation, Message: msg, Fault: smithy.FaultClient}
}

// ErrThrottled returns the error EC2 returns to a throttled request: code
// RequestLimitExceeded, message "Request limit exceeded.". EC2 lists it
// among its client errors although it answers it with HTTP 503.
func ErrThrottled() error {
	return &smithy.GenericAPIError{Code: CodeRequestLimitExceeded, Message: "Request limit exceeded.", Fault: smithy.FaultClient}
}

// ErrUnavailable returns EC2's outage error: code Unavailable, a server
// fault.
func ErrUnavailable() error {
	return &smithy.GenericAPIError{Code: CodeUnavailable, Message: "The server is overloaded and can't handle the request.", Fault: smithy.FaultServer}
}

// ErrInternal returns EC2's internal error: code InternalError, a server
// fault.
func ErrInternal() error {
	return &smithy.GenericAPIError{Code: CodeInternalError, Message: "An internal error has occurred.", Fault: smithy.FaultServer}
}

func apiErr(code, format string, args ...any) error {
	return &smithy.GenericAPIError{Code: code, Message: fmt.Sprintf(format, args...), Fault: smithy.FaultClient}
}

func groupNotFound(id string) error {
	return apiErr(CodeInvalidGroupNotFound, "The security group '%s' does not exist", id)
}

func vpcNotFound(id string) error {
	return apiErr(CodeInvalidVpcIDNotFound, "The vpc ID '%s' does not exist", id)
}

func subnetNotFound(id string) error {
	return apiErr(CodeInvalidSubnetIDNotFound, "The subnet ID '%s' does not exist", id)
}

func routeTableNotFound(id string) error {
	return apiErr(CodeInvalidRouteTableIDNotFound, "The routeTable ID '%s' does not exist", id)
}

func vpcEndpointNotFound(id string) error {
	return apiErr(CodeInvalidVpcEndpointIDNotFound, "The Vpc Endpoint Id '%s' does not exist", id)
}

func missing(param string) error {
	return apiErr(CodeMissingParameter, "The request must contain the parameter %s", param)
}

func invalidValue(format string, args ...any) error {
	return apiErr(CodeInvalidParameterValue, format, args...)
}

// ErrInvalidOptions is the category of every error [New], the Model's
// setup methods and the Client's fault methods return for bad arguments.
// It is [simopt.ErrInvalidOptions], the category every package of the
// simulator shares.
var ErrInvalidOptions = simopt.ErrInvalidOptions

// OptionsError names the argument at fault. It unwraps to
// [ErrInvalidOptions]. It is the simulator's one [simopt.OptionsError]: this
// package's have Pkg "ec2sim" and Op the function that rejected the argument
// ("new", "fail", "fail next").
type OptionsError = simopt.OptionsError

// ErrNilClient is what every method of a nil *Client returns, wrapped in a
// *smithy.OperationError.
var ErrNilClient = errors.New("ec2sim: nil client")

// ErrNilModel is what the methods of a nil *Model return.
var ErrNilModel = errors.New("ec2sim: nil model")

// IsCode reports whether err is an AWS API error with the given code.
func IsCode(err error, code string) bool {
	var api smithy.APIError
	return errors.As(err, &api) && api.ErrorCode() == code
}
