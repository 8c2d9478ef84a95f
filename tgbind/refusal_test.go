package tgbind

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate/internal/kube"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

const (
	lbcMutating   = "mtargetgroupbinding.elbv2.k8s.aws"
	lbcValidating = "vtargetgroupbinding.elbv2.k8s.aws"
	// lbcNoEndpoints is what the API server's dialer says when the LBC's
	// webhook Service has no ready pod.
	lbcNoEndpoints = `Post "https://aws-load-balancer-webhook-service.kube-system.svc:443/mutate-elbv2-k8s-aws-v1beta1-targetgroupbinding?timeout=10s": no endpoints available for service "aws-load-balancer-webhook-service"`
)

// tgbWebhookConfig is a ValidatingWebhookConfiguration with one webhook
// covering CREATE and UPDATE of targetgroupbindings, with side effects (so
// it does not support dry runs).
func tgbWebhookConfig(config, hook string) *admissionregistrationv1.ValidatingWebhookConfiguration {
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: config},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: hook,
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{v1beta1.GroupVersion.Group}, APIVersions: []string{v1beta1.GroupVersion.Version},
					Resources: []string{v1beta1.Resource}},
			}},
			SideEffects:   ptrTo(admissionregistrationv1.SideEffectClassSome),
			FailurePolicy: ptrTo(admissionregistrationv1.Fail),
		}},
	}
}

// lbcMutatingConfig is the LBC's MutatingWebhookConfiguration, reduced to
// its webhook for targetgroupbindings.
func lbcMutatingConfig() *admissionregistrationv1.MutatingWebhookConfiguration {
	return &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "aws-load-balancer-webhook"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: lbcMutating,
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{v1beta1.GroupVersion.Group}, APIVersions: []string{v1beta1.GroupVersion.Version},
					Resources: []string{v1beta1.Resource}},
			}},
			SideEffects:   ptrTo(admissionregistrationv1.SideEffectClassNone),
			FailurePolicy: ptrTo(admissionregistrationv1.Fail),
		}},
	}
}

// callingWebhookError has the text of k8s.io/apiserver's
// pkg/util/webhook.ErrCallingWebhook.
type callingWebhookError struct {
	webhook string
	reason  error
}

func (e *callingWebhookError) Error() string {
	return fmt.Sprintf("failed calling webhook %q: %v", e.webhook, e.reason)
}

// webhookCallFailed is the API server's error when it could not call a
// webhook whose failurePolicy is Fail: the validating and the mutating
// dispatchers (pkg/admission/plugin/webhook/{validating,mutating}/
// dispatcher.go) wrap the call's failure, "failed to call webhook: %w", in
// an ErrCallingWebhook and fail closed with apierrors.NewInternalError of
// it: 500 InternalError, its text as the one cause, whatever Status the
// call itself had.
func webhookCallFailed(webhook, why string) *apierrors.StatusError {
	return apierrors.NewInternalError(&callingWebhookError{webhook: webhook, reason: fmt.Errorf("failed to call webhook: %s", why)})
}

// webhookDeniedWith is the API server's error when a webhook denies the
// request with result, as ToStatusErr (pkg/admission/plugin/webhook/errors)
// makes it: the webhook's Status, its code raised to 400 when lower, its
// status Failure, and the message prefixed with the webhook's name.
func webhookDeniedWith(webhook string, result metav1.Status) *apierrors.StatusError {
	prefix := fmt.Sprintf("admission webhook %q denied the request", webhook)
	if result.Code < http.StatusBadRequest {
		result.Code = http.StatusBadRequest
	}
	if result.Status == "" || result.Status == metav1.StatusSuccess {
		result.Status = metav1.StatusFailure
	}
	switch {
	case result.Message != "":
		result.Message = prefix + ": " + result.Message
	case result.Reason != "":
		result.Message = prefix + ": " + string(result.Reason)
	default:
		result.Message = prefix + " without explanation"
	}
	return &apierrors.StatusError{ErrStatus: result}
}

// webhookNoDryRun is NewDryRunUnsupportedErr (same package).
func webhookNoDryRun(webhook string) *apierrors.StatusError {
	return apierrors.NewBadRequest(fmt.Sprintf("admission webhook %q does not support dry run", webhook))
}

// misleading rewrites every message of a status error with text that
// names other kinds, to prove a classification does not read it.
func misleading(err error) error {
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se == nil {
		return err
	}
	st := *se.ErrStatus.DeepCopy()
	const text = `Internal error occurred: failed calling webhook "elsewhere.example.com": admission webhook "x" denied the request: ` +
		`conflict with "argocd": does not support dry run: is invalid: is forbidden: not found`
	st.Message = text
	if st.Details != nil {
		for i := range st.Details.Causes {
			st.Details.Causes[i].Message = text
		}
	}
	return &apierrors.StatusError{ErrStatus: st}
}

// TestClassify: one case per cause. The kind comes from the Status's
// reason, code and cause types; the webhook from the known webhooks.
func TestClassify(t *testing.T) {
	tgbs := schema.GroupResource{Group: v1beta1.GroupVersion.Group, Resource: v1beta1.Resource}
	gk := schema.GroupKind{Group: v1beta1.GroupVersion.Group, Kind: v1beta1.Kind}
	listed := kube.Webhook{Configuration: "tgmigrate-test", Name: "vtgb.test.tgmigrate.qstools.io"}
	legacy := kube.Webhook{Configuration: "legacy", Name: "legacy.example.com"}
	hooks := knownWebhooks([]kube.Webhook{listed, legacy})
	fmConflict := []metav1.StatusCause{
		{Type: metav1.CauseTypeFieldManagerConflict, Field: ".spec.networking", Message: `conflict with "argocd-controller"`},
		{Type: metav1.CauseTypeFieldManagerConflict, Field: ".spec.serviceRef.port", Message: `conflict with "kubectl-edit" using elbv2.k8s.aws/v1beta1`},
	}
	cause := func(t metav1.CauseType, f, m string) refusalCause { return refusalCause{Type: t, Field: f, Message: m} }

	tests := []struct {
		name     string
		err      error
		want     refusalKind
		webhook  kube.Webhook
		code     int32
		reason   metav1.StatusReason
		causes   []refusalCause
		rejected bool
	}{
		// The fault: the LBC's webhook Service is down. Its mutating
		// webhook runs first; known by name without any listing.
		{name: "LBC webhook down (no endpoints)", err: webhookCallFailed(lbcMutating, lbcNoEndpoints),
			want: refusalWebhookUnavailable, webhook: kube.Webhook{Name: lbcMutating, Mutating: true}, code: 500, reason: metav1.StatusReasonInternalError,
			causes: []refusalCause{cause("", "", `failed calling webhook "`+lbcMutating+`": failed to call webhook: `+lbcNoEndpoints)}},
		{name: "listed webhook refuses connections", err: webhookCallFailed(listed.Name, `Post "https://127.0.0.1:41234/validate?timeout=5s": dial tcp 127.0.0.1:41234: connect: connection refused`),
			want: refusalWebhookUnavailable, webhook: listed, code: 500, reason: metav1.StatusReasonInternalError,
			causes: []refusalCause{cause("", "", `failed calling webhook "vtgb.test.tgmigrate.qstools.io": failed to call webhook: Post "https://127.0.0.1:41234/validate?timeout=5s": dial tcp 127.0.0.1:41234: connect: connection refused`)}},
		{name: "webhook call times out, wrapped", err: fmt.Errorf("apply: %w", webhookCallFailed(lbcValidating, "context deadline exceeded")),
			want: refusalWebhookUnavailable, webhook: kube.Webhook{Name: lbcValidating}, code: 500, reason: metav1.StatusReasonInternalError,
			causes: []refusalCause{cause("", "", `failed calling webhook "`+lbcValidating+`": failed to call webhook: context deadline exceeded`)}},
		{name: "call failure of an unknown webhook stays an internal error", err: webhookCallFailed("other.example.com", "connection refused"),
			want: refusalInternal, code: 500, reason: metav1.StatusReasonInternalError,
			causes: []refusalCause{cause("", "", `failed calling webhook "other.example.com": failed to call webhook: connection refused`)}},
		{name: "Forbidden worded as a webhook call failure is Forbidden",
			err: &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 403, Reason: metav1.StatusReasonForbidden,
				Message: `Internal error occurred: failed calling webhook "` + lbcMutating + `": no endpoints`,
				Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Message: `failed calling webhook "` + lbcMutating + `": no endpoints`}}}}},
			want: refusalForbidden, code: 403, reason: metav1.StatusReasonForbidden,
			causes: []refusalCause{cause("", "", `failed calling webhook "`+lbcMutating+`": no endpoints`)}, rejected: true},

		// Denials: the webhook picks the reason and the code.
		{name: "LBC webhook denies (controller-runtime Denied: 403 Forbidden)",
			err:  webhookDeniedWith(lbcValidating, metav1.Status{Code: 403, Reason: metav1.StatusReasonForbidden, Message: "unable to get target group"}),
			want: refusalWebhookDenied, webhook: kube.Webhook{Name: lbcValidating}, code: 403, reason: metav1.StatusReasonForbidden},
		{name: "webhook denies without reason or code (400)", err: webhookDeniedWith(listed.Name, metav1.Status{}),
			want: refusalWebhookDenied, webhook: listed, code: 400},
		{name: "webhook denies with an Invalid status and causes",
			err: webhookDeniedWith(lbcValidating, metav1.Status{Code: 422, Reason: metav1.StatusReasonInvalid, Message: "spec.vpcID: Invalid value",
				Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.vpcID", Message: "Invalid value"}}}}),
			want: refusalWebhookDenied, webhook: kube.Webhook{Name: lbcValidating}, code: 422, reason: metav1.StatusReasonInvalid,
			causes: []refusalCause{cause(metav1.CauseTypeFieldValueInvalid, "spec.vpcID", "Invalid value")}},
		{name: "denial whose text reads as a call failure is a denial",
			err:  webhookDeniedWith(lbcValidating, metav1.Status{Code: 403, Reason: metav1.StatusReasonForbidden, Message: `failed calling webhook "` + lbcMutating + `": down`}),
			want: refusalWebhookDenied, webhook: kube.Webhook{Name: lbcValidating}, code: 403, reason: metav1.StatusReasonForbidden},
		{name: "denial by an unknown webhook keeps its reason", err: webhookDeniedWith("other.example.com", metav1.Status{Code: 403, Reason: metav1.StatusReasonForbidden, Message: "no"}),
			want: refusalForbidden, code: 403, reason: metav1.StatusReasonForbidden, rejected: true},

		{name: "webhook without dry-run support", err: webhookNoDryRun(legacy.Name),
			want: refusalWebhookNoDryRun, webhook: legacy, code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "Invalid worded as no dry-run support is Invalid",
			err: &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 422, Reason: metav1.StatusReasonInvalid,
				Message: `admission webhook "legacy.example.com" does not support dry run`}},
			want: refusalInvalid, code: 422, reason: metav1.StatusReasonInvalid, rejected: true},

		// Server-side apply.
		{name: "field manager conflict", err: apierrors.NewApplyConflict(fmConflict, "Apply failed with 2 conflicts: ..."),
			want: refusalFieldManagerConflict, code: 409, reason: metav1.StatusReasonConflict,
			causes: []refusalCause{cause(metav1.CauseTypeFieldManagerConflict, ".spec.networking", `conflict with "argocd-controller"`),
				cause(metav1.CauseTypeFieldManagerConflict, ".spec.serviceRef.port", `conflict with "kubectl-edit" using elbv2.k8s.aws/v1beta1`)}},
		{name: "conflict without field-manager causes", err: apierrors.NewConflict(tgbs, "web", errors.New("the object has been modified")),
			want: refusalConflict, code: 409, reason: metav1.StatusReasonConflict, rejected: true},
		{name: "already exists", err: apierrors.NewAlreadyExists(tgbs, "web"),
			want: refusalAlreadyExists, code: 409, reason: metav1.StatusReasonAlreadyExists, rejected: true},

		// Schema, RBAC, existence.
		{name: "schema validation", err: apierrors.NewInvalid(gk, "web", field.ErrorList{
			field.Required(field.NewPath("spec", "serviceRef", "name"), ""),
			field.NotSupported(field.NewPath("spec", "targetType"), "pod", []string{"ip", "instance"})}),
			want: refusalInvalid, code: 422, reason: metav1.StatusReasonInvalid, rejected: true,
			causes: []refusalCause{cause(metav1.CauseTypeFieldValueRequired, "spec.serviceRef.name", "Required value"),
				cause(metav1.CauseTypeFieldValueNotSupported, "spec.targetType", `Unsupported value: "pod": supported values: "ip", "instance"`)}},
		{name: "Invalid without details", err: &apierrors.StatusError{ErrStatus: metav1.Status{Code: 422, Reason: metav1.StatusReasonInvalid}},
			want: refusalInvalid, code: 422, reason: metav1.StatusReasonInvalid, rejected: true},
		{name: "RBAC forbidden", err: apierrors.NewForbidden(tgbs, "web", errors.New(`User "ci" cannot patch resource "targetgroupbindings"`)),
			want: refusalForbidden, code: 403, reason: metav1.StatusReasonForbidden, rejected: true},
		{name: "unauthorized", err: apierrors.NewUnauthorized("token expired"),
			want: refusalForbidden, code: 401, reason: metav1.StatusReasonUnauthorized, rejected: true},
		{name: "forbidden by code alone", err: &apierrors.StatusError{ErrStatus: metav1.Status{Code: 403}},
			want: refusalForbidden, code: 403, rejected: true},
		{name: "namespace not found", err: apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, "shop"),
			want: refusalNotFound, code: 404, reason: metav1.StatusReasonNotFound, rejected: true},
		{name: "CRD missing", err: &meta.NoKindMatchError{GroupKind: gk, SearchedVersions: []string{"v1beta1"}},
			want: refusalCRDMissing},

		// The server, not the request.
		{name: "throttled", err: apierrors.NewTooManyRequests("slow down", 1),
			want: refusalTransient, code: 429, reason: metav1.StatusReasonTooManyRequests},
		{name: "timeout", err: apierrors.NewTimeoutError("request did not complete", 0),
			want: refusalTransient, code: 504, reason: metav1.StatusReasonTimeout},
		{name: "server timeout", err: apierrors.NewServerTimeout(tgbs, "patch", 1),
			want: refusalTransient, code: 500, reason: metav1.StatusReasonServerTimeout},
		{name: "service unavailable", err: apierrors.NewServiceUnavailable("apiserver restarting"),
			want: refusalTransient, code: 503, reason: metav1.StatusReasonServiceUnavailable},
		{name: "internal error", err: apierrors.NewInternalError(errors.New("etcdserver: request timed out")),
			want: refusalInternal, code: 500, reason: metav1.StatusReasonInternalError,
			causes: []refusalCause{cause("", "", "etcdserver: request timed out")}},
		{name: "bad request", err: apierrors.NewBadRequest("the body of the request was in an unknown format"),
			want: refusalBadRequest, code: 400, reason: metav1.StatusReasonBadRequest, rejected: true},
		{name: "other 4xx", err: apierrors.NewRequestEntityTooLargeError("limit is 3145728"),
			want: refusalOther, code: 413, reason: metav1.StatusReasonRequestEntityTooLarge, rejected: true},

		// No API status.
		{name: "nil", err: nil, want: refusalNone},
		{name: "network error", err: errors.New("dial tcp 10.0.0.1:443: connect: connection refused"), want: refusalNone},
		{name: "typed nil", err: error((*apierrors.StatusError)(nil)), want: refusalNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := classify(tt.err, hooks)
			if r.Kind != tt.want || r.Webhook != tt.webhook {
				t.Fatalf("classify() = %v, webhook %+v; want %v, webhook %+v", r.Kind, r.Webhook, tt.want, tt.webhook)
			}
			if r.Code != tt.code || r.Reason != tt.reason || r.Err != tt.err {
				t.Errorf("code, reason, err = %d, %q, %v; want %d, %q, %v", r.Code, r.Reason, r.Err, tt.code, tt.reason, tt.err)
			}
			if diff := cmp.Diff(tt.causes, r.Causes); diff != "" {
				t.Errorf("causes (-want +got):\n%s", diff)
			}
			if r.rejected() != tt.rejected {
				t.Errorf("rejected() = %v, want %v", r.rejected(), tt.rejected)
			}
			// Outside the webhook kinds, whose name only the message
			// carries, no message takes part.
			switch tt.want {
			case refusalWebhookUnavailable, refusalWebhookNoDryRun, refusalWebhookDenied:
			default:
				if got := classify(misleading(tt.err), hooks).Kind; got != tt.want {
					t.Errorf("with misleading messages: %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// TestClassifyWebhookNeedsItsReason: the text of a webhook refusal under
// another reason or code is not that refusal.
func TestClassifyWebhookNeedsItsReason(t *testing.T) {
	hooks := knownWebhooks(nil)
	unavailable := webhookCallFailed(lbcMutating, lbcNoEndpoints)
	tests := []struct {
		name   string
		reason metav1.StatusReason
		code   int32
		want   refusalKind
	}{
		{"as sent", metav1.StatusReasonInternalError, 500, refusalWebhookUnavailable},
		{"code only", "", 500, refusalWebhookUnavailable},
		{"service unavailable", metav1.StatusReasonServiceUnavailable, 503, refusalTransient},
		{"timeout", metav1.StatusReasonTimeout, 504, refusalTransient},
		{"forbidden", metav1.StatusReasonForbidden, 403, refusalForbidden},
		{"conflict", metav1.StatusReasonConflict, 409, refusalConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := *unavailable.ErrStatus.DeepCopy()
			st.Reason, st.Code = tt.reason, tt.code
			if got := classify(&apierrors.StatusError{ErrStatus: st}, hooks).Kind; got != tt.want {
				t.Errorf("classify() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestKnownWebhooks(t *testing.T) {
	listed := []kube.Webhook{{Configuration: "aws-load-balancer-webhook", Name: lbcValidating}, {Configuration: "x", Name: "x.example.com"}}
	want := []kube.Webhook{listed[0], listed[1], {Name: lbcMutating, Mutating: true}}
	if diff := cmp.Diff(want, knownWebhooks(listed)); diff != "" {
		t.Errorf("knownWebhooks (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(lbcWebhooks, knownWebhooks(nil)); diff != "" {
		t.Errorf("knownWebhooks(nil) (-want +got):\n%s", diff)
	}
}

func TestWebhookUnavailableError(t *testing.T) {
	apiErr := webhookCallFailed(lbcMutating, lbcNoEndpoints)
	e := &WebhookUnavailableError{Webhook: lbcMutating, Configuration: "aws-load-balancer-webhook", Mutating: true, DryRun: true, Err: apiErr}
	if !IsWebhookUnavailable(e) || !errors.Is(e, apiErr) || !apierrors.IsInternalError(e) {
		t.Errorf("%v does not unwrap to the sentinel and the API error", e)
	}
	for _, s := range []string{"refused the dry run: ", `mutating webhook "mtargetgroupbinding.elbv2.k8s.aws" (mutating webhook configuration "aws-load-balancer-webhook")`, "no endpoints available"} {
		if !strings.Contains(e.Error(), s) {
			t.Errorf("%q lacks %q", e.Error(), s)
		}
	}
	bare := &WebhookUnavailableError{Webhook: "w"}
	if !IsWebhookUnavailable(bare) || bare.Error() != `admission webhook unavailable: the API server could not call validating webhook "w" and refused the apply` {
		t.Errorf("bare error = %q", bare.Error())
	}
	if IsWebhookUnavailable(webhookDeniedWith(lbcValidating, metav1.Status{})) || IsWebhookUnavailable(nil) {
		t.Error("IsWebhookUnavailable matches what is not")
	}
}

// writeLog records every write call the Binder makes through the client,
// and refuses each one with refuse (nil lets it through).
type writeLog struct {
	mu    sync.Mutex
	calls []string
}

func (w *writeLog) add(call string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, call)
}

func (w *writeLog) list() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.calls...)
}

func (w *writeLog) funcs(refuse func(dryRun bool) error) interceptor.Funcs {
	return interceptor.Funcs{
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			ao := &client.ApplyOptions{}
			ao.ApplyOptions(opts)
			dry := len(ao.DryRun) > 0
			if dry {
				w.add("apply (dry run)")
			} else {
				w.add("apply")
			}
			if err := refuse(dry); err != nil {
				return err
			}
			if dry {
				return nil // the fake client ignores DryRunAll on Apply (see honourDryRunApply)
			}
			return c.Apply(ctx, obj, opts...)
		},
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			w.add("create")
			if err := refuse(false); err != nil {
				return err
			}
			return c.Create(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			w.add("patch")
			if err := refuse(false); err != nil {
				return err
			}
			return c.Patch(ctx, obj, patch, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			w.add("update")
			return c.Update(ctx, obj, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			w.add("delete")
			return c.Delete(ctx, obj, opts...)
		},
	}
}

// TestApplyWebhookUnavailable: the fault. The controller's webhook
// is down, so the API server refuses the binding: Apply fails with a
// *WebhookUnavailableError naming the webhook, and nothing is created.
func TestApplyWebhookUnavailable(t *testing.T) {
	down := func(hook string) func(bool) error {
		return func(bool) error { return webhookCallFailed(hook, lbcNoEndpoints) }
	}
	tests := []struct {
		name       string
		objs       []client.Object
		refuse     func(dryRun bool) error
		opts       []Option
		wantHook   kube.Webhook
		wantDryRun bool
		wantWrites []string
	}{
		{name: "LBC's mutating webhook down at the dry run",
			refuse: down(lbcMutating), wantHook: kube.Webhook{Name: lbcMutating, Mutating: true}, wantDryRun: true,
			wantWrites: []string{"apply (dry run)"}},
		{name: "with WithDryRun",
			refuse: down(lbcMutating), opts: []Option{WithDryRun()}, wantHook: kube.Webhook{Name: lbcMutating, Mutating: true}, wantDryRun: true,
			wantWrites: []string{"apply (dry run)"}},
		{name: "listed webhook down, named with its configuration",
			objs:   []client.Object{tgbWebhookConfig("tgmigrate-test", "vtgb.test.tgmigrate.qstools.io")},
			refuse: down("vtgb.test.tgmigrate.qstools.io"), wantHook: kube.Webhook{Configuration: "tgmigrate-test", Name: "vtgb.test.tgmigrate.qstools.io"},
			wantDryRun: true, wantWrites: []string{"apply (dry run)"}},
		{name: "LBC's mutating webhook listed, named with its configuration",
			objs:   []client.Object{lbcMutatingConfig()},
			refuse: down(lbcMutating), wantHook: kube.Webhook{Configuration: "aws-load-balancer-webhook", Name: lbcMutating, Mutating: true},
			wantDryRun: true, wantWrites: []string{"apply (dry run)"}},
		{name: "webhook goes down between the dry run and the apply",
			refuse: func(dry bool) error {
				if dry {
					return nil
				}
				return webhookCallFailed(lbcValidating, "context deadline exceeded")
			},
			wantHook: kube.Webhook{Name: lbcValidating}, wantWrites: []string{"apply (dry run)", "apply"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := &writeLog{}
			u := newUnit(t, withObjects(append(standardObjects(), tt.objs...)...), withInterceptor(log.funcs(tt.refuse))).legacy()
			tgb := mustBuild(t, u)
			before := snapshot(t, t.Context(), u.raw, testNS)

			res, err := u.binder.Apply(t.Context(), tgb, tt.opts...)
			var wu *WebhookUnavailableError
			if !errors.As(err, &wu) || !IsWebhookUnavailable(err) {
				t.Fatalf("Apply() = %v, want a *WebhookUnavailableError", err)
			}
			if wu.Webhook != tt.wantHook.Name || wu.Configuration != tt.wantHook.Configuration || wu.Mutating != tt.wantHook.Mutating || wu.DryRun != tt.wantDryRun {
				t.Errorf("error = %+v, want webhook %+v, dry run %v", wu, tt.wantHook, tt.wantDryRun)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("%q", tt.wantHook.Name)) || !apierrors.IsInternalError(err) {
				t.Errorf("error %q does not name the webhook or lost the API error", err)
			}
			if IsValidationError(err) || IsWebhookRejected(err) {
				t.Errorf("error %v is also a verdict on the binding", err)
			}
			if res == nil || res.Operation != "" || res.ResourceVersion != "" {
				t.Errorf("result = %+v, want no operation", res)
			}
			if diff := cmp.Diff(tt.wantWrites, log.list()); diff != "" {
				t.Errorf("write calls (-want +got):\n%s", diff)
			}
			var all v1beta1.TargetGroupBindingList
			if err := u.raw.List(t.Context(), &all); err != nil {
				t.Fatal(err)
			}
			if len(all.Items) != 0 {
				t.Errorf("bindings after the refusal: %d, want none", len(all.Items))
			}
			if diff := cmp.Diff(before, snapshot(t, t.Context(), u.raw, testNS)); diff != "" {
				t.Errorf("cluster changed (-before +after):\n%s", diff)
			}
		})
	}
}

// TestApplyWebhookDenied: a webhook's denial, of the dry run or of the
// apply itself (the dry run passed), is ErrWebhookRejected with the API
// error, as a *WebhookDeniedError naming the webhook, its configuration
// when listed, whether it is one of the LBC's two, and which write was
// denied; nothing is created. A dry run's denial is also the dry-run
// check's failure in the *ValidationError.
func TestApplyWebhookDenied(t *testing.T) {
	const policy = "policy.example.com"
	forbidden := func(hook, msg string) *apierrors.StatusError {
		return webhookDeniedWith(hook, metav1.Status{Code: 403, Reason: metav1.StatusReasonForbidden, Message: msg})
	}
	tests := []struct {
		name   string
		objs   []client.Object
		denial *apierrors.StatusError
		atDry  bool
		want   WebhookDeniedError
	}{
		{name: "the LBC's validating webhook denies the dry run",
			denial: forbidden(lbcValidating, "unable to get target group IP address type: TargetGroupNotFound"), atDry: true,
			want: WebhookDeniedError{Webhook: lbcValidating, LBC: true, DryRun: true}},
		{name: "the LBC's mutating webhook, listed, denies the dry run", objs: []client.Object{lbcMutatingConfig()},
			denial: forbidden(lbcMutating, "couldn't determine TargetType: TargetGroupNotFound"), atDry: true,
			want: WebhookDeniedError{Webhook: lbcMutating, Configuration: "aws-load-balancer-webhook", Mutating: true, LBC: true, DryRun: true}},
		{name: "another listed webhook denies the dry run", objs: []client.Object{tgbWebhookConfig("policies", policy)},
			denial: forbidden(policy, "unable to get target group"), atDry: true,
			want: WebhookDeniedError{Webhook: policy, Configuration: "policies", DryRun: true}},
		{name: "the LBC's validating webhook denies the apply",
			denial: forbidden(lbcValidating, "target group is taken"),
			want:   WebhookDeniedError{Webhook: lbcValidating, LBC: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := &writeLog{}
			u := newUnit(t, withObjects(append(standardObjects(), tt.objs...)...), withInterceptor(log.funcs(func(dry bool) error {
				if dry == tt.atDry {
					return tt.denial
				}
				return nil
			}))).legacy()
			_, err := u.binder.Apply(t.Context(), mustBuild(t, u))
			var wd *WebhookDeniedError
			if !errors.As(err, &wd) || !IsWebhookRejected(err) || !errors.Is(err, tt.denial) || IsWebhookUnavailable(err) {
				t.Fatalf("Apply() = %v, want a *WebhookDeniedError wrapping the denial", err)
			}
			want, got := tt.want, *wd
			want.Message, got.Err = tt.denial.ErrStatus.Message, nil
			if diff := cmp.Diff(want, got); diff != "" || wd.Err != error(tt.denial) {
				t.Errorf("the denial (-want +got):\n%s; its Err %v, want the API server's", diff, wd.Err)
			}
			if got := IsValidationError(err); got != tt.atDry {
				t.Errorf("a *ValidationError: %t, want %t (a dry run's denial is the dry-run check's)", got, tt.atDry)
			}
			var all v1beta1.TargetGroupBindingList
			if err := u.raw.List(t.Context(), &all); err != nil || len(all.Items) != 0 {
				t.Errorf("bindings = %d, %v; want none", len(all.Items), err)
			}
		})
	}
}

// TestDryRunMutatingWebhookWithoutDryRunSupport: a mutating webhook with
// side effects, listed in its configuration, makes the dry-run check a
// skip with a note, as a validating one does.
func TestDryRunMutatingWebhookWithoutDryRunSupport(t *testing.T) {
	cfg := lbcMutatingConfig()
	cfg.Name = "audit"
	cfg.Webhooks[0].Name = "maudit.example.com"
	cfg.Webhooks[0].SideEffects = ptrTo(admissionregistrationv1.SideEffectClassSome)
	u := newUnit(t, withObjects(append(standardObjects(), cfg)...), withInterceptor(denyDryRun(webhookNoDryRun("maudit.example.com")))).legacy()
	pf, err := u.binder.Validate(t.Context(), mustBuild(t, u))
	if err != nil {
		t.Fatalf("Validate() = %v\n%s", err, pf)
	}
	if got := statuses(pf)[CheckDryRun]; got != CheckSkipped {
		t.Errorf("dry-run check = %s, want skipped", got)
	}
	if !slices.ContainsFunc(pf.Notes, func(n string) bool { return strings.Contains(n, `"maudit.example.com" does not support dry runs`) }) {
		t.Errorf("notes %q do not name the webhook", pf.Notes)
	}
}
