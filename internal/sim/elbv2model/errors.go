package elbv2model

// errors.go: ELBv2's error codes as the SDK's typed errors.

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"
)

// The model fails with the same errors the ELBv2 service returns: the SDK's
// typed exceptions where the SDK has one, and a smithy.GenericAPIError with
// the service's code otherwise (ValidationError, Throttling). The messages
// are the model's own; callers must classify by type or code only.

// Error codes without an SDK exception type.
const (
	// CodeValidation is the code of a request that breaks a parameter constraint.
	CodeValidation = "ValidationError"
	// CodeThrottling is the code of a throttled request.
	CodeThrottling = "Throttling"
)

func validationf(format string, args ...any) error {
	return &smithy.GenericAPIError{Code: CodeValidation, Message: fmt.Sprintf(format, args...), Fault: smithy.FaultClient}
}

// ThrottlingError returns the error ELBv2 returns for a throttled request:
// code Throttling, message "Rate exceeded".
func ThrottlingError() error {
	return &smithy.GenericAPIError{Code: CodeThrottling, Message: "Rate exceeded", Fault: smithy.FaultClient}
}

func tgNotFound(what string) error {
	return &types.TargetGroupNotFoundException{Message: aws.String(fmt.Sprintf("One or more target groups not found: %s", what))}
}

func lbNotFound(what string) error {
	return &types.LoadBalancerNotFoundException{Message: aws.String(fmt.Sprintf("One or more load balancers not found: %s", what))}
}

func listenerNotFound(what string) error {
	return &types.ListenerNotFoundException{Message: aws.String(fmt.Sprintf("One or more listeners not found: %s", what))}
}

func ruleNotFound(what string) error {
	return &types.RuleNotFoundException{Message: aws.String(fmt.Sprintf("One or more rules not found: %s", what))}
}

func invalidTarget(format string, args ...any) error {
	return &types.InvalidTargetException{Message: aws.String(fmt.Sprintf(format, args...))}
}

func invalidConfig(format string, args ...any) error {
	return &types.InvalidConfigurationRequestException{Message: aws.String(fmt.Sprintf(format, args...))}
}

func invalidAction(format string, args ...any) error {
	return &types.InvalidLoadBalancerActionException{Message: aws.String(fmt.Sprintf(format, args...))}
}

func notPermitted(format string, args ...any) error {
	return &types.OperationNotPermittedException{Message: aws.String(fmt.Sprintf(format, args...))}
}
