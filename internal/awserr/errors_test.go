package awserr

import (
	"context"
	"errors"
	"fmt"
	"testing"

	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"
)

func TestClassify(t *testing.T) {
	wrapOp := func(err error) error {
		return &smithy.OperationError{ServiceID: "Elastic Load Balancing v2", OperationName: "DescribeTargetHealth", Err: err}
	}
	tests := []struct {
		name     string
		err      error
		wantKind error
		wantCode string
	}{
		{"typed not found", wrapOp(&elbv2types.TargetGroupNotFoundException{Message: new("nope")}), ErrNotFound, "TargetGroupNotFound"},
		{"typed invalid target", wrapOp(&elbv2types.InvalidTargetException{}), ErrInvalidTarget, "InvalidTarget"},
		{"typed too many targets", &elbv2types.TooManyTargetsException{}, ErrQuotaExceeded, "TooManyTargets"},
		{"typed registrations", &elbv2types.TooManyRegistrationsForTargetIdException{}, ErrQuotaExceeded, "TooManyRegistrationsForTargetId"},
		{"typed in use", &elbv2types.ResourceInUseException{}, ErrResourceInUse, "ResourceInUse"},
		{"typed invalid config", &elbv2types.InvalidConfigurationRequestException{}, ErrInvalidRequest, "InvalidConfigurationRequest"},
		{"typed association limit", &elbv2types.TargetGroupAssociationLimitException{}, ErrQuotaExceeded, "TargetGroupAssociationLimit"},
		{"typed too many tgs", &elbv2types.TooManyTargetGroupsException{}, ErrQuotaExceeded, "TooManyTargetGroups"},
		{"code Throttling", wrapOp(&smithy.GenericAPIError{Code: "Throttling", Message: "Rate exceeded"}), ErrThrottled, "Throttling"},
		{"code ThrottlingException", &smithy.GenericAPIError{Code: "ThrottlingException"}, ErrThrottled, "ThrottlingException"},
		{"code access denied", &smithy.GenericAPIError{Code: "AccessDenied"}, ErrAccessDenied, "AccessDenied"},
		{"code ec2 subnet", &smithy.GenericAPIError{Code: "InvalidSubnetID.NotFound"}, ErrNotFound, "InvalidSubnetID.NotFound"},
		{"message text is ignored", &smithy.GenericAPIError{Code: "Mystery", Message: "TargetGroupNotFound Throttling"}, ErrUnknown, "Mystery"},
		{"plain error", errors.New("connection reset"), ErrUnknown, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Classify("DescribeTargetHealth", "arn:x", tt.err)
			if !errors.Is(got, tt.wantKind) {
				t.Fatalf("Classify() = %v, want kind %v", got, tt.wantKind)
			}
			if !errors.Is(got, tt.err) {
				t.Errorf("Classify() does not unwrap to the original error")
			}
			if c := Code(got); c != tt.wantCode {
				t.Errorf("Code() = %q, want %q", c, tt.wantCode)
			}
		})
	}
}

func TestClassifyPassesThrough(t *testing.T) {
	if Classify("X", "", nil) != nil {
		t.Fatal("Classify(nil) != nil")
	}
	for _, err := range []error{context.Canceled, fmt.Errorf("wrapped: %w", context.DeadlineExceeded)} {
		if got := Classify("X", "", err); got != err {
			t.Errorf("Classify(%v) = %v, want it unchanged", err, got)
		}
	}
	once := Classify("A", "r", &smithy.GenericAPIError{Code: "Throttling"})
	if twice := Classify("B", "s", once); twice != once {
		t.Errorf("reclassifying changed the error: %v", twice)
	}
}

func TestIsRetryable(t *testing.T) {
	throttled := Classify("X", "", &smithy.GenericAPIError{Code: "Throttling"})
	notFound := Classify("X", "", &elbv2types.TargetGroupNotFoundException{})
	invalid := Classify("X", "", &elbv2types.InvalidTargetException{})
	tests := []struct {
		name        string
		err         error
		afterCreate bool
		want        bool
	}{
		{"nil", nil, false, false},
		{"throttled", throttled, false, true},
		{"not found", notFound, false, false},
		{"not found after create", notFound, true, true},
		{"invalid target", invalid, true, false},
		{"cancelled", context.Canceled, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsRetryable(tt.err, tt.afterCreate); got != tt.want {
				t.Errorf("IsRetryable() = %v, want %v", got, tt.want)
			}
		})
	}
}
