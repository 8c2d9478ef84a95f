package awserr

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// connError is an error that says whether it is a connection error, as the
// SDK's retryer asks.
type connError struct{ conn bool }

func (e connError) Error() string         { return "conn" }
func (e connError) ConnectionError() bool { return e.conn }

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
		{"5xx answer", wrapOp(&smithy.GenericAPIError{Code: "InternalFailure", Fault: smithy.FaultServer}), ErrUnknown, "InternalFailure"},
		{"reset connection", wrapOp(&smithyhttp.RequestSendError{Err: syscall.ECONNRESET}), ErrTransport, ""},
		{"reset after retries", wrapOp(&retry.MaxAttemptsError{Attempt: 3, Err: &smithyhttp.RequestSendError{Err: io.EOF}}), ErrTransport, ""},
		{"malformed body", wrapOp(&smithy.DeserializationError{Err: errors.New("XML syntax error")}), ErrTransport, ""},
		{"stalled body", wrapOp(&awshttp.ResponseTimeoutError{TimeoutDur: time.Second}), ErrTransport, ""},
		{"connection error", wrapOp(connError{true}), ErrTransport, ""},
		{"not a connection error", wrapOp(connError{false}), ErrUnknown, ""},
		{"known code over the wire", wrapOp(&smithy.DeserializationError{Err: &smithy.GenericAPIError{Code: "Throttling"}}), ErrThrottled, "Throttling"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Classify("DescribeTargetHealth", "arn:x", tt.err)
			var e *Error
			if !errors.As(got, &e) || e.Kind != tt.wantKind || !errors.Is(got, tt.wantKind) {
				t.Fatalf("Classify() = %v, want kind %v", got, tt.wantKind)
			}
			// ErrTransport narrows ErrUnknown: callers that test ErrUnknown
			// still see wire failures, and can tell them apart.
			if transport := errors.Is(got, ErrTransport); transport != (tt.wantKind == ErrTransport) {
				t.Errorf("errors.Is(%v, ErrTransport) = %v", got, transport)
			}
			if tt.wantKind == ErrTransport && !errors.Is(got, ErrUnknown) {
				t.Errorf("errors.Is(%v, ErrUnknown) = false for a transport failure", got)
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

// TestTransportMessage: a transport failure reads as one, not as an
// unknown AWS error.
func TestTransportMessage(t *testing.T) {
	err := Classify("RegisterTargets", "arn:x", &smithyhttp.RequestSendError{Err: syscall.ECONNRESET})
	if want := "RegisterTargets arn:x: transport failure: request send failed, " + syscall.ECONNRESET.Error(); err.Error() != want {
		t.Errorf("Error() = %q, want %q", err, want)
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
		// The SDK's retryer already retried it; a lost response may have
		// taken effect.
		{"transport", Classify("X", "", &smithyhttp.RequestSendError{Err: syscall.ECONNRESET}), true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsRetryable(tt.err, tt.afterCreate); got != tt.want {
				t.Errorf("IsRetryable() = %v, want %v", got, tt.want)
			}
		})
	}
}
