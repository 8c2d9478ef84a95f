// Package awserr is the one place where tgmigrate interprets AWS: it turns
// ELBv2 and EC2 errors into the project's sentinel categories and parses
// load-balancer and target-group ARNs.
//
// # Files
//
//   - doc.go: this comment.
//   - errors.go: the sentinel categories, [Classify] and its [*Error],
//     [IsRetryable], [Code] and [Answered].
//   - arn.go: [ARN], [ARNError], [ARNPart], the ARN categories,
//     [ParseTargetGroupARN], [ParseLoadBalancerARN] and [ARN.Expect].
//   - region.go: the shapes of an account ID and a region name
//     ([ValidAccountID], [ValidRegion]) and a region's partition
//     ([PartitionOf]), shared with the simulator's models.
//
// Tests: example_test.go (the example), errors_test.go, arn_test.go,
// region_test.go.
//
// # Errors
//
// [Classify] maps an error returned by the AWS SDK onto a sentinel such as
// [ErrNotFound] or [ErrThrottled]. It looks at the SDK's typed exceptions
// first (errors.As on, say, *types.TargetGroupNotFoundException) and then at
// the smithy API error code. It never reads the message text. The result is
// an [*Error] that keeps the operation, the resource, the AWS code and the
// original error, and unwraps to both the sentinel and the cause. A failure
// of the wire rather than an AWS answer (the SDK's RequestSendError,
// ResponseTimeoutError or DeserializationError) is [ErrTransport], which
// narrows [ErrUnknown]: callers that test ErrUnknown still see it.
//
// [IsRetryable] tells the executors which failures a backoff may retry:
// throttling and eventual consistency. Everything else is terminal,
// [ErrTransport] included: the SDK's standard retryer has already retried
// the connection failures, and a request whose response was lost may have
// taken effect.
//
// # ARNs
//
// [ParseTargetGroupARN] and [ParseLoadBalancerARN] validate an ARN's shape,
// service and resource type and return an [ARN]. [ARN.Expect] checks the
// partition-independent account and region against what the caller expects.
// Every failure is an [*ARNError] that names the ARN and the [ARNPart] at
// fault and unwraps to one narrow category: [ErrARNMalformed],
// [ErrARNService] or [ErrARNResourceType], each of which wraps
// [ErrInvalidARN]; or [ErrWrongRegion], which wraps [ErrWrongAccount]; or
// [ErrWrongAccount] itself. Callers test them with errors.Is and read the
// part with errors.As, never the message.
package awserr
