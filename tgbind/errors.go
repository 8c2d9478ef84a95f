package tgbind

// errors.go: the sentinels (one per preflight check), the error types
// FieldError, ValidationError, ConflictError, WebhookDeniedError,
// WebhookUnavailableError and WaitTimeoutError, and the IsX helpers.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/qstools/tgmigrate/internal/awserr"
)

// Sentinels, one per preflight check. A failed check is a [*FieldError]
// whose Kind is one of them; test with errors.Is or the IsX helpers.
var (
	// ErrInvalidRequest: the request lacks a namespace or a Service name, or
	// names the binding with something that is not a DNS-1123 label.
	ErrInvalidRequest = errors.New("invalid request")
	// ErrInvalidARN: the target group ARN is malformed. It is the same value
	// as tgmigrate.ErrInvalidARN.
	ErrInvalidARN = awserr.ErrInvalidARN
	// ErrTargetGroupNotFound: AWS does not know the target group.
	ErrTargetGroupNotFound = errors.New("target group not found")
	// ErrInstanceTargetGroup: the target group has target type instance. Its
	// type cannot change, so it cannot take pod IPs: cutover's blue/green path
	// creates an ip target group beside it and shifts the listener's weights.
	ErrInstanceTargetGroup = errors.New("target group has target type instance")
	// ErrUnsupportedTargetGroup: the LBC cannot bind the target group at all
	// (target type lambda or alb, or a protocol such as GENEVE).
	ErrUnsupportedTargetGroup = errors.New("target group cannot be bound by the lbc")
	// ErrInvalidSpec: the binding's spec disagrees with the target group
	// (vpcID, ipAddressType, targetGroupProtocol, targetType) or holds
	// something the LBC rejects in ip mode (nodeSelector, a malformed
	// security group ID).
	ErrInvalidSpec = errors.New("invalid binding spec")
	// ErrVPCMismatch: the target group's VPC is not the VPC of the cluster's
	// nodes, so pod IPs cannot be registered in it.
	ErrVPCMismatch = errors.New("target group is in another vpc than the cluster")
	// ErrServiceNotFound: the Service the binding names does not exist. A
	// binding on a missing Service makes the LBC empty the target group.
	ErrServiceNotFound = errors.New("service not found")
	// ErrPortNotFound: the Service has no such port.
	ErrPortNotFound = errors.New("service port not found")
	// ErrNoReadyEndpoints: the Service has no ready endpoint on that port, so
	// the LBC would register nothing.
	ErrNoReadyEndpoints = errors.New("service has no ready endpoints")
	// ErrHealthCheckOnNodePort: the target group health-checks the Service's
	// NodePort, which pod targets do not listen on: they would never pass.
	ErrHealthCheckOnNodePort = errors.New("health check port is the service's nodeport")
	// ErrHealthCheckPort: the health check port is neither traffic-port nor
	// the pods' port.
	ErrHealthCheckPort = errors.New("health check port is neither traffic-port nor the pod port")
	// ErrDefaultModeUnsafe: the binding is in default mode
	// (multiClusterTargetGroup false) while the target group holds targets
	// the LBC would not own. The LBC would deregister them before the pod
	// targets are healthy.
	ErrDefaultModeUnsafe = errors.New("default mode would deregister existing targets")
	// ErrConflictingBinding: another binding references the same target
	// group, and not all of them are multi-cluster.
	ErrConflictingBinding = errors.New("another binding references the target group")
	// ErrLBCStackLabel: the binding carries one of the LBC's stack labels,
	// which make the LBC garbage-collect it.
	ErrLBCStackLabel = errors.New("binding carries an lbc stack label")
	// ErrNotOwned: a binding of that name exists and tgmigrate does not own
	// it. WithForce overrides.
	ErrNotOwned = errors.New("binding is not owned by tgmigrate")
	// ErrImmutableField: a binding of that name exists with a different
	// value in an immutable field (targetGroupARN, targetType, ipAddressType,
	// vpcID).
	ErrImmutableField = errors.New("immutable field differs from the existing binding")
	// ErrCRDNotInstalled: the API server does not serve
	// targetgroupbindings.elbv2.k8s.aws/v1beta1: the LBC is not installed.
	ErrCRDNotInstalled = errors.New("targetgroupbinding crd is not installed")
	// ErrWebhookRejected: an admission webhook (the LBC's, when installed)
	// denied the binding in the server-side dry run, or in the apply.
	ErrWebhookRejected = errors.New("admission webhook rejected the binding")
	// ErrWebhookUnavailable: the API server could not call an admission
	// webhook whose failurePolicy is Fail (the LBC's, when its webhook
	// Service is down), so it refused the request and nothing was written.
	// It is not a verdict on the binding: retry once the webhook is back.
	// See [*WebhookUnavailableError].
	ErrWebhookUnavailable = errors.New("admission webhook unavailable")
	// ErrDryRunRejected: the API server rejected the binding in the
	// server-side dry run for another reason (schema validation, RBAC).
	ErrDryRunRejected = errors.New("api server rejected the binding in a dry run")
	// ErrFieldDropped: the installed CRD dropped a field that safety depends
	// on (multiClusterTargetGroup needs LBC v2.10.0 or later).
	ErrFieldDropped = errors.New("installed crd drops a required field")
	// ErrFieldManagerConflict: another field manager owns fields this apply
	// would change. See [*ConflictError].
	ErrFieldManagerConflict = errors.New("field manager conflict")
	// ErrReadOnly: the Binder has no Writer, so it cannot apply or delete.
	ErrReadOnly = errors.New("binder is read-only")
	// ErrWaitTimeout: Wait's timeout, measured on the injected clock, ran
	// out before the targets were healthy. See [*WaitTimeoutError].
	ErrWaitTimeout = errors.New("targets not healthy before the timeout")
)

// FieldError is one failed check, naming the field at fault.
type FieldError struct {
	// Check is the stable ID of the check that failed, for example
	// "target-group-type".
	Check string `json:"check"`
	// Field is the path of the field at fault, for example
	// "spec.targetGroupARN" or "spec.serviceRef.port".
	Field string `json:"field"`
	// Value is the offending value, when there is one.
	Value string `json:"value,omitempty"`
	// Kind is the sentinel of the check.
	Kind error `json:"-"`
	// Detail says what is wrong and what to do, in one line.
	Detail string `json:"detail"`
	// Err is the underlying cause (an AWS or API error), when there is one.
	Err error `json:"-"`
}

// Error implements error.
func (e *FieldError) Error() string {
	var b strings.Builder
	b.WriteString(e.Field)
	if e.Value != "" {
		fmt.Fprintf(&b, " %q", e.Value)
	}
	fmt.Fprintf(&b, ": %v", e.Kind)
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	return b.String()
}

// MarshalJSON writes the field error with its sentinel as "kind" (the
// sentinel's text, for example "service not found"). The cause is left out:
// the detail already says what matters.
func (e *FieldError) MarshalJSON() ([]byte, error) {
	kind := ""
	if e.Kind != nil {
		kind = e.Kind.Error()
	}
	return json.Marshal(struct {
		Check  string `json:"check"`
		Field  string `json:"field"`
		Value  string `json:"value,omitempty"`
		Kind   string `json:"kind"`
		Detail string `json:"detail"`
	}{e.Check, e.Field, e.Value, kind, e.Detail})
}

// Unwrap returns the sentinel and the cause.
func (e *FieldError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// ValidationError holds every failed check of one Build or Validate. Nothing
// was changed when it is returned.
type ValidationError struct {
	// Op is "build" or "validate".
	Op string
	// Errors lists the failures, in check order.
	Errors []*FieldError
}

// Error implements error.
func (e *ValidationError) Error() string {
	msgs := make([]string, len(e.Errors))
	for i, fe := range e.Errors {
		msgs[i] = fe.Error()
	}
	noun := "problems"
	if len(e.Errors) == 1 {
		noun = "problem"
	}
	return fmt.Sprintf("tgbind: %s: %d %s: %s", e.Op, len(e.Errors), noun, strings.Join(msgs, "; "))
}

// Unwrap returns the field errors, so that errors.Is finds each sentinel.
func (e *ValidationError) Unwrap() []error {
	out := make([]error, len(e.Errors))
	for i, fe := range e.Errors {
		out[i] = fe
	}
	return out
}

// Has reports whether one of the failures has the sentinel kind.
func (e *ValidationError) Has(kind error) bool {
	for _, fe := range e.Errors {
		if errors.Is(fe.Kind, kind) {
			return true
		}
	}
	return false
}

// ConflictError says that a server-side apply would change fields another
// field manager owns. Apply does not force ownership unless WithForce is given.
type ConflictError struct {
	// Namespace and Name identify the binding.
	Namespace, Name string
	// Managers are the other field managers, as the API server named them,
	// for example "argocd-controller".
	Managers []string
	// Fields are the conflicting field paths, for example ".spec.networking".
	Fields []string
	// Err is the API server's error.
	Err error
}

// Error implements error.
func (e *ConflictError) Error() string {
	return fmt.Sprintf("tgbind: apply %s/%s: fields owned by %s: %s: rerun with WithForce to take them over",
		e.Namespace, e.Name, quoteJoin(e.Managers), strings.Join(e.Fields, ", "))
}

// Unwrap returns [ErrFieldManagerConflict] and the API error.
func (e *ConflictError) Unwrap() []error { return []error{ErrFieldManagerConflict, e.Err} }

// WebhookDeniedError says that an admission webhook answered and denied
// the binding, in the preflight's dry run (then it is the Err of the
// dry-run check's [*FieldError], inside the *[ValidationError]) or in the
// apply itself. The webhook is known by the text the API server makes
// for its name, never by the rest of the message; why it denied is in
// Message, for the operator, and is not classified.
type WebhookDeniedError struct {
	// Webhook is the webhook's name, for example
	// "vtargetgroupbinding.elbv2.k8s.aws".
	Webhook string
	// Configuration is the name of the webhook configuration holding it;
	// empty when the webhook is one of the LBC's, known by its name only.
	Configuration string
	// Mutating is true for a mutating webhook, false for a validating one.
	Mutating bool
	// LBC is true when the webhook is one of the AWS Load Balancer
	// Controller's two for TargetGroupBindings (mtargetgroupbinding and
	// vtargetgroupbinding.elbv2.k8s.aws, by the names its code gives
	// them), false for any other webhook (a policy engine's).
	LBC bool
	// DryRun is true when the preflight's dry run was denied, false when
	// the apply itself was.
	DryRun bool
	// Message is the API server's message, for display.
	Message string
	// Err is the API server's error.
	Err error
}

// Error implements error.
func (e *WebhookDeniedError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("%v: webhook %q", ErrWebhookRejected, e.Webhook)
	}
	return fmt.Sprintf("%v: %v", ErrWebhookRejected, e.Err)
}

// Unwrap returns [ErrWebhookRejected] and the API error.
func (e *WebhookDeniedError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrWebhookRejected}
	}
	return []error{ErrWebhookRejected, e.Err}
}

// WebhookUnavailableError says that the API server could not call an
// admission webhook with failurePolicy Fail, and so refused the binding's
// dry run or apply: nothing was written. It is an operational failure, not
// a *ValidationError.
type WebhookUnavailableError struct {
	// Webhook is the webhook's name, for example
	// "mtargetgroupbinding.elbv2.k8s.aws".
	Webhook string
	// Configuration is the name of the webhook configuration holding it;
	// empty when the webhook is one of the LBC's, known by its name only.
	Configuration string
	// Mutating is true for a mutating webhook, false for a validating one.
	Mutating bool
	// DryRun is true when the preflight's dry run was refused, false when
	// the apply itself was.
	DryRun bool
	// Err is the API server's error (500 InternalError).
	Err error
}

// Error implements error.
func (e *WebhookUnavailableError) Error() string {
	what := "apply"
	if e.DryRun {
		what = "dry run"
	}
	kind := "validating"
	if e.Mutating {
		kind = "mutating"
	}
	cfg := ""
	if e.Configuration != "" {
		cfg = fmt.Sprintf(" (%s webhook configuration %q)", kind, e.Configuration)
	}
	msg := fmt.Sprintf("%v: the API server could not call %s webhook %q%s and refused the %s", ErrWebhookUnavailable, kind, e.Webhook, cfg, what)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns [ErrWebhookUnavailable] and the API error.
func (e *WebhookUnavailableError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrWebhookUnavailable}
	}
	return []error{ErrWebhookUnavailable, e.Err}
}

// WaitTimeoutError says that Wait's timeout ran out. State is the last
// observation.
type WaitTimeoutError struct {
	// Elapsed is the time waited, on the injected clock.
	Elapsed time.Duration
	// State is the last observation of the targets.
	State *TargetState
	// Err is the last error seen while polling, if any.
	Err error
}

// Error implements error.
func (e *WaitTimeoutError) Error() string {
	msg := fmt.Sprintf("tgbind: wait: %v after %v", ErrWaitTimeout, e.Elapsed)
	if e.State != nil {
		msg += ": " + e.State.Summary()
	}
	if e.Err != nil {
		msg += ": last error: " + e.Err.Error()
	}
	return msg
}

// Unwrap returns [ErrWaitTimeout] and the last error.
func (e *WaitTimeoutError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrWaitTimeout}
	}
	return []error{ErrWaitTimeout, e.Err}
}

func quoteJoin(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// IsValidationError reports whether err holds a [*ValidationError].
func IsValidationError(err error) bool {
	var ve *ValidationError
	return errors.As(err, &ve)
}

// IsInvalidARN reports whether err is or wraps [ErrInvalidARN].
func IsInvalidARN(err error) bool { return errors.Is(err, ErrInvalidARN) }

// IsTargetGroupNotFound reports whether err is or wraps [ErrTargetGroupNotFound].
func IsTargetGroupNotFound(err error) bool { return errors.Is(err, ErrTargetGroupNotFound) }

// IsInstanceTargetGroup reports whether err is or wraps [ErrInstanceTargetGroup].
func IsInstanceTargetGroup(err error) bool { return errors.Is(err, ErrInstanceTargetGroup) }

// IsVPCMismatch reports whether err is or wraps [ErrVPCMismatch].
func IsVPCMismatch(err error) bool { return errors.Is(err, ErrVPCMismatch) }

// IsServiceNotFound reports whether err is or wraps [ErrServiceNotFound].
func IsServiceNotFound(err error) bool { return errors.Is(err, ErrServiceNotFound) }

// IsPortNotFound reports whether err is or wraps [ErrPortNotFound].
func IsPortNotFound(err error) bool { return errors.Is(err, ErrPortNotFound) }

// IsNoReadyEndpoints reports whether err is or wraps [ErrNoReadyEndpoints].
func IsNoReadyEndpoints(err error) bool { return errors.Is(err, ErrNoReadyEndpoints) }

// IsHealthCheckOnNodePort reports whether err is or wraps [ErrHealthCheckOnNodePort].
func IsHealthCheckOnNodePort(err error) bool { return errors.Is(err, ErrHealthCheckOnNodePort) }

// IsDefaultModeUnsafe reports whether err is or wraps [ErrDefaultModeUnsafe].
func IsDefaultModeUnsafe(err error) bool { return errors.Is(err, ErrDefaultModeUnsafe) }

// IsConflictingBinding reports whether err is or wraps [ErrConflictingBinding].
func IsConflictingBinding(err error) bool { return errors.Is(err, ErrConflictingBinding) }

// IsNotOwned reports whether err is or wraps [ErrNotOwned].
func IsNotOwned(err error) bool { return errors.Is(err, ErrNotOwned) }

// IsCRDNotInstalled reports whether err is or wraps [ErrCRDNotInstalled].
func IsCRDNotInstalled(err error) bool { return errors.Is(err, ErrCRDNotInstalled) }

// IsWebhookRejected reports whether err is or wraps [ErrWebhookRejected]
// (a [*WebhookDeniedError] when the API server's refusal was classified).
func IsWebhookRejected(err error) bool { return errors.Is(err, ErrWebhookRejected) }

// IsWebhookUnavailable reports whether err is or wraps
// [ErrWebhookUnavailable] (usually a [*WebhookUnavailableError]).
func IsWebhookUnavailable(err error) bool { return errors.Is(err, ErrWebhookUnavailable) }

// IsConflict reports whether err is or wraps a field-manager conflict
// ([ErrFieldManagerConflict], usually a [*ConflictError]).
func IsConflict(err error) bool { return errors.Is(err, ErrFieldManagerConflict) }

// IsWaitTimeout reports whether err is or wraps [ErrWaitTimeout].
func IsWaitTimeout(err error) bool { return errors.Is(err, ErrWaitTimeout) }
