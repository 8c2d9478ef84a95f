//go:build integration

package tgbind

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/kube"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

const (
	testWebhookName = "vtargetgroupbinding.test.tgmigrate.qstools.io"
	verdictLabel    = "example.com/verdict"
)

// review is what the test webhook saw of one admission request.
type review struct {
	Name      string
	Operation admissionv1.Operation
	DryRun    bool
}

// stubWebhook stands in for the LBC's validating webhook: it records every
// request and denies a binding labelled example.com/verdict=deny, as the
// LBC denies one whose target group is taken.
type stubWebhook struct {
	mu      sync.Mutex
	reviews []review
}

func (w *stubWebhook) ServeHTTP(rw http.ResponseWriter, req *http.Request) {
	var in admissionv1.AdmissionReview
	if err := json.NewDecoder(req.Body).Decode(&in); err != nil || in.Request == nil {
		http.Error(rw, "bad admission review", http.StatusBadRequest)
		return
	}
	var obj metav1.PartialObjectMetadata
	_ = json.Unmarshal(in.Request.Object.Raw, &obj)
	w.mu.Lock()
	w.reviews = append(w.reviews, review{Name: in.Request.Name, Operation: in.Request.Operation, DryRun: in.Request.DryRun != nil && *in.Request.DryRun})
	w.mu.Unlock()

	resp := &admissionv1.AdmissionResponse{UID: in.Request.UID, Allowed: obj.Labels[verdictLabel] != "deny"}
	if !resp.Allowed {
		resp.Result = &metav1.Status{Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden,
			Message: "target group legacy-web is already bound (test webhook)"}
	}
	out := admissionv1.AdmissionReview{TypeMeta: in.TypeMeta, Response: resp}
	rw.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(rw).Encode(out)
}

func (w *stubWebhook) seen(name string) []review {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []review
	for _, r := range w.reviews {
		if r.Name == name {
			out = append(out, r)
		}
	}
	return out
}

// registerStubWebhook serves the stub on 127.0.0.1 over TLS, registers it
// for targetgroupbindings and waits until the API server calls it.
func registerStubWebhook(t *testing.T, r *rig) *stubWebhook {
	t.Helper()
	ctx := t.Context()
	hook := &stubWebhook{}
	srv := httptest.NewTLSServer(hook)
	t.Cleanup(srv.Close)
	cfg := webhookConfig("tgmigrate-test", testWebhookName, admissionregistrationv1.WebhookClientConfig{
		URL:      ptrTo(srv.URL + "/validate"),
		CABundle: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}),
	})
	if err := r.env.Client.Create(ctx, cfg); err != nil {
		t.Fatalf("register webhook: %v", err)
	}
	// The API server picks new webhook configurations up asynchronously: probe
	// with dry-run creates until the stub denies one.
	probe := binding(r.ns, "probe", otherARN, true, true)
	probe.UID = ""
	probe.Labels[verdictLabel] = "deny"
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		err := r.env.Client.Create(ctx, probe.DeepCopy(), client.DryRunAll)
		return err != nil && strings.Contains(err.Error(), testWebhookName), nil
	})
	if err != nil {
		t.Fatalf("the API server never called the stub webhook: %v", err)
	}
	return hook
}

// TestIntegrationDryRunWebhook: the preflight's server-side dry run goes
// through the validating webhook (which sees dryRun=true), a denial comes
// back as ErrWebhookRejected naming the webhook, and nothing is created.
func TestIntegrationDryRunWebhook(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	r.world.addTG(targetGroup(testARN), nodeTargets()...)
	hook := registerStubWebhook(t, r)

	t.Run("denied", func(t *testing.T) {
		b, err := r.binder.Build(ctx, Request{TargetGroupARN: arntest.TG(testARN), Namespace: r.ns, Service: testService,
			Port: intstr.FromString("http"), Name: "denied", Labels: map[string]string{verdictLabel: "deny"}})
		if err != nil {
			t.Fatal(err)
		}
		before := r.snapshot(t)
		res, err := r.binder.Apply(ctx, b.TargetGroupBinding)
		if !IsWebhookRejected(err) {
			t.Fatalf("Apply() = %v, want ErrWebhookRejected", err)
		}
		var ve *ValidationError
		if !errors.As(err, &ve) || len(ve.Errors) != 1 || ve.Errors[0].Value != testWebhookName || ve.Errors[0].Check != CheckDryRun {
			t.Fatalf("err = %v, want one dry-run failure naming %s", err, testWebhookName)
		}
		if !strings.Contains(ve.Errors[0].Detail, "already bound (test webhook)") {
			t.Errorf("detail %q lacks the webhook's message", ve.Errors[0].Detail)
		}
		var wd *WebhookDeniedError
		if !errors.As(err, &wd) || wd.Webhook != testWebhookName || !wd.DryRun || wd.LBC || wd.Configuration == "" || !apierrors.IsForbidden(wd.Err) {
			t.Errorf("the denial %+v: want a *WebhookDeniedError of the dry run by the listed %s (not the LBC's), with the API server's 403", wd, testWebhookName)
		}
		if res.Operation != "" {
			t.Errorf("Operation = %q", res.Operation)
		}
		if diff := cmp.Diff([]review{{Name: "denied", Operation: admissionv1.Create, DryRun: true}}, hook.seen("denied")); diff != "" {
			t.Errorf("webhook saw (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(before, r.snapshot(t)); diff != "" {
			t.Errorf("cluster changed (-before +after):\n%s", diff)
		}
	})

	t.Run("accepted", func(t *testing.T) {
		b, err := r.binder.Build(ctx, Request{TargetGroupARN: arntest.TG(testARN), Namespace: r.ns, Service: testService,
			Port: intstr.FromString("http"), Name: "accepted"})
		if err != nil {
			t.Fatal(err)
		}
		pf, err := r.binder.Validate(ctx, b.TargetGroupBinding)
		if err != nil {
			t.Fatalf("Validate() = %v", err)
		}
		var list = r.snapshot(t)
		if _, ok := list["TargetGroupBinding/"+r.ns+"/accepted"]; ok {
			t.Fatal("Validate created the binding")
		}
		dry := pf.Checks[len(pf.Checks)-1]
		if dry.ID != CheckDryRun || dry.Status != CheckPassed || !strings.Contains(dry.Detail, testWebhookName) {
			t.Errorf("dry-run check = %+v, want passed naming the webhook", dry)
		}
		res, err := r.binder.Apply(ctx, b.TargetGroupBinding)
		if err != nil || res.Operation != OperationCreated {
			t.Fatalf("Apply() = %+v, %v", res, err)
		}
		want := []review{
			{Name: "accepted", Operation: admissionv1.Create, DryRun: true},  // Validate
			{Name: "accepted", Operation: admissionv1.Create, DryRun: true},  // Apply's preflight
			{Name: "accepted", Operation: admissionv1.Create, DryRun: false}, // Apply
		}
		if diff := cmp.Diff(want, hook.seen("accepted")); diff != "" {
			t.Errorf("webhook saw (-want +got):\n%s", diff)
		}
		r.get(t, "accepted")
	})
}

// TestIntegrationWebhookUnavailable: the fault against the real API
// server. A validating webhook with failurePolicy Fail points at a loopback
// port nobody listens on, so the API server cannot call it: its refusal is
// classified as webhook-unavailable naming the webhook, Apply fails with a
// *WebhookUnavailableError, and no binding exists afterwards.
func TestIntegrationWebhookUnavailable(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	r.world.addTG(targetGroup(testARN), nodeTargets()...)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	const hookName = "vtargetgroupbinding.down.tgmigrate.qstools.io"
	cfg := webhookConfig("tgmigrate-down", hookName, admissionregistrationv1.WebhookClientConfig{URL: ptrTo("https://" + addr + "/validate")})
	if err := r.env.Client.Create(ctx, cfg); err != nil {
		t.Fatalf("register webhook: %v", err)
	}
	hooks, err := kube.TargetGroupBindingWebhooks(ctx, r.env.Client)
	if err != nil {
		t.Fatal(err)
	}
	want := kube.Webhook{Configuration: "tgmigrate-down", Name: hookName}

	// The API server picks the configuration up asynchronously: create for
	// real until it refuses, then classify what it sent.
	probe := binding(r.ns, "probe", otherARN, true, true)
	probe.UID = ""
	var refused error
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		refused = r.env.Client.Create(ctx, probe.DeepCopy())
		if refused == nil { // created before the webhook took effect: remove it and retry
			return false, r.env.Client.Delete(ctx, probe.DeepCopy())
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("the API server never refused the probe: %v (last: %v)", err, refused)
	}
	var status apierrors.APIStatus
	if errors.As(refused, &status) {
		st := status.Status()
		t.Logf("API server's refusal: code %d, reason %q, details %+v, message %q", st.Code, st.Reason, st.Details, st.Message)
	}
	got := classify(refused, knownWebhooks(hooks))
	if got.Kind != refusalWebhookUnavailable || got.Webhook != want || got.Code != 500 || got.Reason != metav1.StatusReasonInternalError {
		t.Fatalf("classify(%v) = %v, %+v, %d %q; want webhook unavailable naming %+v, 500 InternalError", refused, got.Kind, got.Webhook, got.Code, got.Reason, want)
	}

	b, err := r.binder.Build(ctx, Request{TargetGroupARN: arntest.TG(testARN), Namespace: r.ns, Service: testService,
		Port: intstr.FromString("http"), Name: "down"})
	if err != nil {
		t.Fatal(err)
	}
	before := r.snapshot(t)
	res, err := r.binder.Apply(ctx, b.TargetGroupBinding)
	var wu *WebhookUnavailableError
	if !errors.As(err, &wu) || !IsWebhookUnavailable(err) || IsValidationError(err) {
		t.Fatalf("Apply() = %v, want a *WebhookUnavailableError", err)
	}
	if wu.Webhook != hookName || wu.Configuration != "tgmigrate-down" || !wu.DryRun {
		t.Errorf("error = %+v, want %s in tgmigrate-down, refused at the dry run", wu, hookName)
	}
	t.Logf("Apply() = %v", err)
	if res.Operation != "" {
		t.Errorf("Operation = %q", res.Operation)
	}
	if diff := cmp.Diff(before, r.snapshot(t)); diff != "" {
		t.Errorf("cluster changed (-before +after):\n%s", diff)
	}
	var all v1beta1.TargetGroupBindingList
	if err := r.env.Client.List(ctx, &all); err != nil {
		t.Fatal(err)
	}
	if len(all.Items) != 0 {
		t.Errorf("%d bindings exist after the refusals, want none", len(all.Items))
	}
}

// webhookConfig is a validating webhook configuration of one webhook for
// targetgroupbindings (create and update), failing closed.
func webhookConfig(name, hook string, client admissionregistrationv1.WebhookClientConfig) *admissionregistrationv1.ValidatingWebhookConfiguration {
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         hook,
			ClientConfig: client,
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{"elbv2.k8s.aws"}, APIVersions: []string{"v1beta1"},
					Resources: []string{"targetgroupbindings"}, Scope: ptrTo(admissionregistrationv1.NamespacedScope)},
			}},
			SideEffects:             ptrTo(admissionregistrationv1.SideEffectClassNone),
			FailurePolicy:           ptrTo(admissionregistrationv1.Fail),
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          ptrTo(int32(5)),
		}},
	}
}
