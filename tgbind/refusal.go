package tgbind

// refusal.go: classify, the one reader of the API server's refusals of the
// dry run and the apply: it sorts them by the Status's reason, code and
// causes (never the message), and tells a known webhook's refusal by its name.

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/qstools/tgmigrate/internal/kube"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// refusal.go is the one place where tgbind reads the API server's refusals.
// classify turns an error from a write into a refusal; the callers (the dry
// run and Apply) decide what to do from its kind alone.
//
// The kind comes from the metav1.Status the API server sent: its reason and
// code (through apierrors' IsX helpers, which fall back to the code when the
// reason is not one they know) and the types of its causes. The message is
// never read to decide a kind.
//
// One thing no field carries is the name of an admission webhook: the API
// server writes it only into the message (k8s.io/apiserver
// pkg/admission/plugin/webhook/errors and pkg/util/webhook). So the webhook
// rules start from the reason and code, and then attribute the refusal to a
// webhook the cluster is known to run (the webhooks the mutating and the
// validating webhook configurations list for targetgroupbindings, and the
// LBC's two webhooks by the names its code gives them), by comparing the
// message with the text the API server makes for that name. A refusal that
// no known webhook explains keeps the kind its reason and code give it.

// refusalKind is what a refusal means for tgbind.
type refusalKind int

const (
	// refusalNone: no API status at all (nil, a network error, a typed nil).
	refusalNone refusalKind = iota
	// refusalWebhookUnavailable: the API server could not call a webhook
	// whose failurePolicy is Fail, so it refused the request.
	refusalWebhookUnavailable
	// refusalWebhookNoDryRun: a webhook with side effects cannot take part
	// in a dry run.
	refusalWebhookNoDryRun
	// refusalWebhookDenied: a webhook answered and denied the request.
	refusalWebhookDenied
	// refusalFieldManagerConflict: server-side apply would change fields
	// another field manager owns.
	refusalFieldManagerConflict
	// refusalAlreadyExists: a create found the object there.
	refusalAlreadyExists
	// refusalConflict: any other conflict (a stale resourceVersion).
	refusalConflict
	// refusalInvalid: schema or API validation refused the object.
	refusalInvalid
	// refusalForbidden: authentication or authorization (RBAC) refused the
	// request.
	refusalForbidden
	// refusalNotFound: the object, or its namespace, is not there.
	refusalNotFound
	// refusalCRDMissing: the client knows no resource for the kind: the
	// TargetGroupBinding CRD is not installed.
	refusalCRDMissing
	// refusalTransient: throttled, timed out or unavailable; retry later.
	refusalTransient
	// refusalInternal: the API server failed.
	refusalInternal
	// refusalBadRequest: the API server could not process the request.
	refusalBadRequest
	// refusalOther: an API status none of the above describes.
	refusalOther
)

var refusalKindNames = map[refusalKind]string{
	refusalNone: "none", refusalWebhookUnavailable: "webhook unavailable", refusalWebhookNoDryRun: "webhook without dry run",
	refusalWebhookDenied: "webhook denied", refusalFieldManagerConflict: "field manager conflict",
	refusalAlreadyExists: "already exists", refusalConflict: "conflict", refusalInvalid: "invalid",
	refusalForbidden: "forbidden", refusalNotFound: "not found", refusalCRDMissing: "crd missing",
	refusalTransient: "transient", refusalInternal: "internal", refusalBadRequest: "bad request", refusalOther: "other",
}

func (k refusalKind) String() string {
	if s, ok := refusalKindNames[k]; ok {
		return s
	}
	return "refusalKind(" + strconv.Itoa(int(k)) + ")"
}

// refusal is one classified error: plain data.
type refusal struct {
	Kind refusalKind
	// Webhook is the webhook the refusal is attributed to, for the three
	// webhook kinds. Its Configuration is empty when it is one of the LBC's
	// webhooks known by name only.
	Webhook kube.Webhook
	// Code, Reason, Message and Causes are the API server's Status.
	Code    int32
	Reason  metav1.StatusReason
	Message string
	Causes  []refusalCause
	// Group, Resource and Name are the Status details, when it has them.
	Group, Resource, Name string
	// Err is the error classified.
	Err error
}

// refusalCause is one metav1.StatusCause.
type refusalCause struct {
	Type    metav1.CauseType
	Field   string
	Message string
}

// lbcWebhooks are the LBC's admission webhooks for TargetGroupBindings, by
// the names its kubebuilder markers give them (failurePolicy Fail both).
// The mutating one runs first, so it is the one named when the LBC's
// webhook Service is down. They are known even when the Binder may not list
// webhook configurations.
var lbcWebhooks = []kube.Webhook{
	{Name: "mtargetgroupbinding.elbv2.k8s.aws", Mutating: true},
	{Name: "vtargetgroupbinding.elbv2.k8s.aws"},
}

// knownWebhooks is the listed webhooks, then the LBC's not already among
// them.
func knownWebhooks(listed []kube.Webhook) []kube.Webhook {
	out := append([]kube.Webhook(nil), listed...)
	for _, w := range lbcWebhooks {
		seen := false
		for _, l := range listed {
			seen = seen || l.Name == w.Name
		}
		if !seen {
			out = append(out, w)
		}
	}
	return out
}

// classify turns err into a refusal, attributing webhook refusals to one of
// hooks. It never panics: a nil error, a typed nil or an error without an
// API status is refusalNone.
func classify(err error, hooks []kube.Webhook) refusal {
	r := refusal{Kind: refusalNone, Err: err}
	if err == nil {
		return r
	}
	if meta.IsNoMatchError(err) {
		r.Kind = refusalCRDMissing
		return r
	}
	st, ok := statusOf(err)
	if !ok {
		return r
	}
	r.Code, r.Reason, r.Message = st.Code, st.Reason, st.Message
	if d := st.Details; d != nil {
		r.Group, r.Resource, r.Name = d.Group, d.Kind, d.Name
		for _, c := range d.Causes {
			r.Causes = append(r.Causes, refusalCause{Type: c.Type, Field: c.Field, Message: c.Message})
		}
	}
	r.Kind = refusalOther
	for _, rule := range refusalRules {
		if hook, ok := rule.match(err, &st, hooks); ok {
			r.Kind, r.Webhook = rule.kind, hook
			break
		}
	}
	return r
}

// statusOf returns the API status err carries, if any. A typed nil (a nil
// *apierrors.StatusError in a non-nil error) has none.
func statusOf(err error) (metav1.Status, bool) {
	var s apierrors.APIStatus
	if !errors.As(err, &s) {
		return metav1.Status{}, false
	}
	if v := reflect.ValueOf(s); v.Kind() == reflect.Pointer && v.IsNil() {
		return metav1.Status{}, false
	}
	return s.Status(), true
}

// refusalRule matches a kind; a webhook rule also returns the webhook.
type refusalRule struct {
	kind  refusalKind
	match func(err error, st *metav1.Status, hooks []kube.Webhook) (kube.Webhook, bool)
}

// refusalRules decide the kind: the first that matches wins.
var refusalRules = []refusalRule{
	// A webhook the API server could not call fails closed as 500
	// InternalError (apierrors.NewInternalError of the dispatcher's
	// ErrCallingWebhook, whatever Status the call itself had). First:
	// otherwise it is any internal error.
	{refusalWebhookUnavailable, webhookRule(apierrors.IsInternalError, callFailed)},
	// A webhook with side effects in a dry run: 400 BadRequest
	// (NewDryRunUnsupportedErr). Before refusalBadRequest.
	{refusalWebhookNoDryRun, webhookRule(apierrors.IsBadRequest, noDryRun)},
	// A denial carries the webhook's own reason and code (ToStatusErr keeps
	// them; a code under 400 becomes 400), so it may look like Forbidden,
	// Invalid or Conflict: it comes before each of them.
	{refusalWebhookDenied, webhookRule(isFailureCode, denied)},
	// Server-side apply conflicts: 409 Conflict whose causes have the type
	// FieldManagerConflict (NewApplyConflict).
	{refusalFieldManagerConflict, byStatus(func(err error, st *metav1.Status) bool {
		return apierrors.IsConflict(err) && hasCauseType(st, metav1.CauseTypeFieldManagerConflict)
	})},
	// AlreadyExists is also 409: by its reason, before Conflict.
	{refusalAlreadyExists, byError(apierrors.IsAlreadyExists)},
	{refusalConflict, byError(apierrors.IsConflict)},
	{refusalInvalid, byError(apierrors.IsInvalid)},
	{refusalForbidden, byError(func(err error) bool { return apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) })},
	{refusalNotFound, byError(apierrors.IsNotFound)},
	{refusalTransient, byError(func(err error) bool {
		return apierrors.IsTooManyRequests(err) || apierrors.IsTimeout(err) ||
			apierrors.IsServerTimeout(err) || apierrors.IsServiceUnavailable(err)
	})},
	{refusalInternal, byError(apierrors.IsInternalError)},
	{refusalBadRequest, byError(apierrors.IsBadRequest)},
}

func byError(f func(error) bool) func(error, *metav1.Status, []kube.Webhook) (kube.Webhook, bool) {
	return func(err error, _ *metav1.Status, _ []kube.Webhook) (kube.Webhook, bool) {
		return kube.Webhook{}, f(err)
	}
}

func byStatus(f func(error, *metav1.Status) bool) func(error, *metav1.Status, []kube.Webhook) (kube.Webhook, bool) {
	return func(err error, st *metav1.Status, _ []kube.Webhook) (kube.Webhook, bool) {
		return kube.Webhook{}, f(err, st)
	}
}

// webhookRule matches when the status's reason and code fit and one of the
// known webhooks made it (by the text the API server makes for its name).
func webhookRule(fits func(error) bool, madeBy func(st *metav1.Status, name string) bool) func(error, *metav1.Status, []kube.Webhook) (kube.Webhook, bool) {
	return func(err error, st *metav1.Status, hooks []kube.Webhook) (kube.Webhook, bool) {
		if !fits(err) {
			return kube.Webhook{}, false
		}
		for _, h := range hooks {
			if h.Name != "" && madeBy(st, h.Name) {
				return h, true
			}
		}
		return kube.Webhook{}, false
	}
}

func isFailureCode(err error) bool {
	st, ok := statusOf(err)
	return ok && st.Code >= 400
}

func hasCauseType(st *metav1.Status, t metav1.CauseType) bool {
	if st.Details == nil {
		return false
	}
	for _, c := range st.Details.Causes {
		if c.Type == t {
			return true
		}
	}
	return false
}

// The three texts the API server makes for a webhook's name, in k8s.io/apiserver:
//   - ErrCallingWebhook.Error() (pkg/util/webhook/error.go), the one cause of
//     the InternalError when it fails closed, and the message after
//     "Internal error occurred: ";
//   - NewDryRunUnsupportedErr (pkg/admission/plugin/webhook/errors), the
//     whole message;
//   - ToStatusErr (same package), the start of the message.

func callFailed(st *metav1.Status, name string) bool {
	prefix := fmt.Sprintf("failed calling webhook %q", name)
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			if strings.HasPrefix(c.Message, prefix) {
				return true
			}
		}
	}
	return strings.HasPrefix(st.Message, "Internal error occurred: "+prefix)
}

func noDryRun(st *metav1.Status, name string) bool {
	return st.Message == fmt.Sprintf("admission webhook %q does not support dry run", name)
}

func denied(st *metav1.Status, name string) bool {
	return strings.HasPrefix(st.Message, fmt.Sprintf("admission webhook %q denied the request", name))
}

// rejected tells a verdict on the request (a 4xx other than throttling and
// timeouts) from a failure of the server or the network.
func (r refusal) rejected() bool {
	switch r.Kind {
	case refusalInvalid, refusalForbidden, refusalConflict, refusalAlreadyExists, refusalNotFound, refusalBadRequest:
		return true
	case refusalOther:
		return r.Code >= 400 && r.Code < 500 && r.Code != 408 && r.Code != 429
	}
	return false
}

// fieldErrors turns a rejection into one FieldError of kind per cause (the
// whole message when there is no cause).
func (r refusal) fieldErrors(kind error) []*FieldError {
	var fes []*FieldError
	for _, c := range r.Causes {
		fes = append(fes, &FieldError{Field: strings.TrimPrefix(c.Field, "."), Kind: kind, Detail: c.Message, Err: r.Err})
	}
	if len(fes) == 0 {
		fes = append(fes, &FieldError{Field: "object", Kind: kind, Detail: r.detail(), Err: r.Err})
	}
	return fes
}

// detail is the API server's message, or the error's when it has none.
func (r refusal) detail() string {
	if r.Message != "" || r.Err == nil {
		return r.Message
	}
	return r.Err.Error()
}

// conflictError turns a field-manager conflict into a *ConflictError. The
// fields come from the causes' Field. The managers come from the causes'
// Message, `conflict with "<manager>"` and maybe more (printManager in
// k8s.io/apimachinery's managedfields), because no field carries them: that
// text is read for display only, never to classify.
func (r refusal) conflictError(tgb *v1beta1.TargetGroupBinding) *ConflictError {
	if r.Kind != refusalFieldManagerConflict {
		return nil
	}
	ce := &ConflictError{Namespace: tgb.Namespace, Name: tgb.Name, Err: r.Err}
	for _, c := range r.Causes {
		if c.Type != metav1.CauseTypeFieldManagerConflict {
			continue
		}
		ce.Fields = append(ce.Fields, c.Field)
		if m := managerOf(c.Message); !containsString(ce.Managers, m) {
			ce.Managers = append(ce.Managers, m)
		}
	}
	return ce
}

// webhookDenied is the typed error for refusalWebhookDenied.
func (r refusal) webhookDenied(dryRun bool) *WebhookDeniedError {
	return &WebhookDeniedError{Webhook: r.Webhook.Name, Configuration: r.Webhook.Configuration, Mutating: r.Webhook.Mutating,
		LBC: isLBCWebhook(r.Webhook.Name), DryRun: dryRun, Message: r.detail(), Err: r.Err}
}

// isLBCWebhook reports whether name is one of the LBC's webhooks for
// TargetGroupBindings (lbcWebhooks).
func isLBCWebhook(name string) bool {
	for _, w := range lbcWebhooks {
		if w.Name == name {
			return true
		}
	}
	return false
}

// webhookUnavailable is the typed error for refusalWebhookUnavailable.
func (r refusal) webhookUnavailable(dryRun bool) *WebhookUnavailableError {
	return &WebhookUnavailableError{Webhook: r.Webhook.Name, Configuration: r.Webhook.Configuration, Mutating: r.Webhook.Mutating, DryRun: dryRun, Err: r.Err}
}

// managerOf is the manager's name in a FieldManagerConflict cause's
// message, for display; the whole message when it is not in that form.
func managerOf(msg string) string {
	rest, ok := strings.CutPrefix(msg, "conflict with ")
	if !ok {
		return msg
	}
	q, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return rest
	}
	m, err := strconv.Unquote(q)
	if err != nil {
		return rest
	}
	return m
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
