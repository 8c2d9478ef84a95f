package tgbind

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/mock/gomock"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

var checkOrder = []string{
	CheckMetadata, CheckTargetGroupARN, CheckTargetGroupExists, CheckTargetGroupType, CheckSpec, CheckVPC,
	CheckServiceExists, CheckServicePort, CheckReadyEndpoints, CheckHealthCheckPort, CheckCRDInstalled,
	CheckOwnership, CheckConflictingBindings, CheckMultiClusterMode, CheckDryRun,
}

// mustBuild builds the standard request: shop/web port http on legacy-web.
func mustBuild(t *testing.T, u *unit) *v1beta1.TargetGroupBinding {
	t.Helper()
	b, err := u.binder.Build(t.Context(), Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService, Port: intstrHTTP})
	if err != nil {
		t.Fatalf("Build() = %v", err)
	}
	return b.TargetGroupBinding
}

func statuses(pf *Preflight) map[string]CheckStatus {
	out := map[string]CheckStatus{}
	for _, c := range pf.Checks {
		out[c.ID] = c.Status
	}
	return out
}

func ids(pf *Preflight) []string {
	var out []string
	for _, c := range pf.Checks {
		out = append(out, c.ID)
	}
	return out
}

func TestValidatePasses(t *testing.T) {
	lbcWebhook := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "aws-load-balancer-webhook"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "vtargetgroupbinding.elbv2.k8s.aws",
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{"elbv2.k8s.aws"}, APIVersions: []string{"v1beta1"},
					Resources: []string{"targetgroupbindings"}},
			}},
			SideEffects:             ptrTo(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
	u := newUnit(t, withObjects(append(standardObjects(), lbcWebhook)...), withOptions(func(o *Options) { o.ClusterVPCID = testVPC })).legacy()
	tgb := mustBuild(t, u)
	before := snapshot(t, t.Context(), u.raw, testNS)

	pf, err := u.binder.Validate(t.Context(), tgb)
	if err != nil {
		t.Fatalf("Validate() = %v\n%s", err, pf)
	}
	if !pf.Passed() || pf.Version != PreflightVersion {
		t.Fatalf("preflight did not pass: %s", pf)
	}
	if diff := cmp.Diff(checkOrder, ids(pf)); diff != "" {
		t.Errorf("check order (-want +got):\n%s", diff)
	}
	for _, c := range pf.Checks {
		if c.Status != CheckPassed {
			t.Errorf("check %s = %s (%s), want passed", c.ID, c.Status, c.Detail)
		}
	}
	dry := pf.Checks[len(pf.Checks)-1]
	if !strings.Contains(dry.Detail, `"vtargetgroupbinding.elbv2.k8s.aws"`) {
		t.Errorf("dry-run detail %q does not name the LBC webhook", dry.Detail)
	}
	if diff := cmp.Diff(before, snapshot(t, t.Context(), u.raw, testNS)); diff != "" {
		t.Errorf("Validate changed the cluster (-before +after):\n%s", diff)
	}
}

// denyDryRun makes a dry-run apply fail with err; real applies go through.
func denyDryRun(err error) interceptor.Funcs {
	return interceptor.Funcs{Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
		ao := &client.ApplyOptions{}
		ao.ApplyOptions(opts)
		if len(ao.DryRun) > 0 {
			return err
		}
		return c.Apply(ctx, obj, opts...)
	}}
}

// pruneOnDryRun answers a dry-run apply as an API server whose CRD lacks the
// given spec fields: it returns the object without them.
func pruneOnDryRun(fields ...string) interceptor.Funcs {
	return interceptor.Funcs{Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
		ao := &client.ApplyOptions{}
		ao.ApplyOptions(opts)
		if len(ao.DryRun) == 0 {
			return c.Apply(ctx, obj, opts...)
		}
		data, err := json.Marshal(obj)
		if err != nil {
			return err
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			return err
		}
		for _, f := range fields {
			delete(m["spec"].(map[string]any), f)
		}
		data, _ = json.Marshal(m)
		return json.Unmarshal(data, obj)
	}}
}

func webhookDenied(msg string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 403, Reason: metav1.StatusReasonForbidden,
		Message: `admission webhook "vtargetgroupbinding.elbv2.k8s.aws" denied the request: ` + msg}}
}

var intstrHTTP = intstr.FromString("http")

func TestValidateFailures(t *testing.T) {
	gk := schema.GroupKind{Group: v1beta1.GroupVersion.Group, Kind: v1beta1.Kind}
	notReady := endpointSlice(testNS)
	for i := range notReady.Endpoints {
		notReady.Endpoints[i].Conditions.Ready = ptrTo(false)
	}
	node := func(name, vpc string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"example.com/vpc-id": vpc}}}
	}

	tests := []struct {
		name      string
		opts      []unitOpt
		objs      []client.Object // instead of the standard Service and slice
		extra     []client.Object // besides them
		tgOpts    []tgOpt
		mutate    func(*v1beta1.TargetGroupBinding)
		validate  []Option
		wantKind  error
		wantField string
		wantCheck string
	}{
		{name: "target group in another VPC than the nodes",
			opts:     []unitOpt{withOptions(func(o *Options) { o.ClusterVPCID = otherVPC })},
			wantKind: ErrVPCMismatch, wantField: "spec.vpcID", wantCheck: CheckVPC},
		{name: "VPC from a node label",
			opts:     []unitOpt{withOptions(func(o *Options) { o.NodeVPCLabel = "example.com/vpc-id" })},
			extra:    []client.Object{node("n1", otherVPC), node("n2", otherVPC)},
			wantKind: ErrVPCMismatch, wantField: "spec.vpcID", wantCheck: CheckVPC},
		{name: "no ready endpoints",
			objs:     []client.Object{service(testNS), notReady},
			wantKind: ErrNoReadyEndpoints, wantField: "spec.serviceRef", wantCheck: CheckReadyEndpoints},
		{name: "health check on the NodePort",
			tgOpts:   []tgOpt{withHealthCheckPort("30080")},
			wantKind: ErrHealthCheckOnNodePort, wantField: "targetGroup.healthCheckPort", wantCheck: CheckHealthCheckPort},
		{name: "health check on some other port",
			tgOpts:   []tgOpt{withHealthCheckPort("9000")},
			wantKind: ErrHealthCheckPort, wantField: "targetGroup.healthCheckPort", wantCheck: CheckHealthCheckPort},
		{name: "default mode on a target group with node targets",
			mutate:   func(t *v1beta1.TargetGroupBinding) { t.Spec.MultiClusterTargetGroup = false },
			wantKind: ErrDefaultModeUnsafe, wantField: "spec.multiClusterTargetGroup", wantCheck: CheckMultiClusterMode},
		{name: "another default-mode binding on the ARN",
			extra:    []client.Object{binding("other", "legacy", testARN, false, false)},
			wantKind: ErrConflictingBinding, wantField: "spec.targetGroupARN", wantCheck: CheckConflictingBindings},
		{name: "another default-mode binding by targetGroupName",
			extra:    []client.Object{byName(binding("other", "legacy", "", false, false), "legacy-web")},
			wantKind: ErrConflictingBinding, wantField: "spec.targetGroupARN", wantCheck: CheckConflictingBindings},
		{name: "existing binding of that name not owned",
			extra:    []client.Object{binding(testNS, "web-http-legacy-web", testARN, true, false)},
			wantKind: ErrNotOwned, wantField: "metadata.labels[app.kubernetes.io/managed-by]", wantCheck: CheckOwnership},
		{name: "existing binding of that name on another ARN",
			extra:    []client.Object{binding(testNS, "web-http-legacy-web", otherARN, true, true)},
			wantKind: ErrImmutableField, wantField: "spec.targetGroupARN", wantCheck: CheckOwnership},
		{name: "LBC stack label",
			mutate:   func(t *v1beta1.TargetGroupBinding) { t.Labels["ingress.k8s.aws/stack"] = "shop" },
			wantKind: ErrLBCStackLabel, wantField: "metadata.labels[ingress.k8s.aws/stack]", wantCheck: CheckMetadata},
		{name: "empty name",
			mutate:   func(t *v1beta1.TargetGroupBinding) { t.Name = "" },
			wantKind: ErrInvalidRequest, wantField: "metadata.name", wantCheck: CheckMetadata},
		{name: "CRD not installed (discovery)",
			opts:     []unitOpt{withDiscovery(discoveryWithCRD(false))},
			wantKind: ErrCRDNotInstalled, wantField: "apiVersion", wantCheck: CheckCRDInstalled},
		{name: "CRD not installed (no discovery, list fails)",
			opts:     []unitOpt{withoutDiscovery(), withInterceptor(noTGBKind())},
			wantKind: ErrCRDNotInstalled, wantField: "apiVersion", wantCheck: CheckCRDInstalled},
		{name: "spec vpcID edited",
			mutate:   func(t *v1beta1.TargetGroupBinding) { t.Spec.VpcID = otherVPC },
			wantKind: ErrInvalidSpec, wantField: "spec.vpcID", wantCheck: CheckSpec},
		{name: "nodeSelector in ip mode",
			mutate:   func(t *v1beta1.TargetGroupBinding) { t.Spec.NodeSelector = &metav1.LabelSelector{} },
			wantKind: ErrInvalidSpec, wantField: "spec.nodeSelector", wantCheck: CheckSpec},
		{name: "targetType instance on an ip target group",
			mutate:   func(t *v1beta1.TargetGroupBinding) { t.Spec.TargetType = ptrTo(v1beta1.TargetTypeInstance) },
			wantKind: ErrInvalidSpec, wantField: "spec.targetType", wantCheck: CheckSpec},
		{name: "instance target group",
			tgOpts:   []tgOpt{withType(elbv2types.TargetTypeEnumInstance)},
			wantKind: ErrInstanceTargetGroup, wantField: "spec.targetType", wantCheck: CheckTargetGroupType},
		{name: "LBC webhook denies the dry run",
			opts:     []unitOpt{withInterceptor(denyDryRun(webhookDenied("unable to get target group")))},
			wantKind: ErrWebhookRejected, wantField: "object", wantCheck: CheckDryRun},
		{name: "schema rejects the dry run",
			opts: []unitOpt{withInterceptor(denyDryRun(apierrors.NewInvalid(gk, "web", field.ErrorList{
				field.Invalid(field.NewPath("spec", "targetGroupProtocol"), "QUIC", "unsupported value")})))},
			wantKind: ErrDryRunRejected, wantField: "spec.targetGroupProtocol", wantCheck: CheckDryRun},
		{name: "field manager conflict in the dry run",
			opts: []unitOpt{withInterceptor(denyDryRun(apierrors.NewApplyConflict([]metav1.StatusCause{{
				Type: metav1.CauseTypeFieldManagerConflict, Message: `conflict with "argocd-controller"`, Field: ".spec.networking"}},
				`Apply failed with 1 conflict: conflict with "argocd-controller": .spec.networking`)))},
			wantKind: ErrFieldManagerConflict, wantField: "spec.networking", wantCheck: CheckDryRun},
		{name: "installed CRD drops multiClusterTargetGroup",
			opts:     []unitOpt{withInterceptor(pruneOnDryRun("multiClusterTargetGroup"))},
			wantKind: ErrFieldDropped, wantField: "spec.multiClusterTargetGroup", wantCheck: CheckDryRun},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := tt.objs
			if objs == nil {
				objs = standardObjects()
			}
			u := newUnit(t, append([]unitOpt{withObjects(append(objs, tt.extra...)...)}, tt.opts...)...)
			u.world.addTG(targetGroup(testARN, tt.tgOpts...), nodeTargets()...)
			u.world.addTG(targetGroup(otherARN))
			tgb := wantTGB("web-http-legacy-web", intstrHTTP, true, ReasonForeignTargets)
			if tt.mutate != nil {
				tt.mutate(tgb)
			}
			before := snapshot(t, t.Context(), u.raw, testNS)

			pf, err := u.binder.Validate(t.Context(), tgb, tt.validate...)
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate() = %v, want *ValidationError\n%s", err, pf)
			}
			if !errors.Is(err, tt.wantKind) || !ve.Has(tt.wantKind) {
				t.Errorf("errors.Is(err, %v) = false: %v", tt.wantKind, err)
			}
			var found *FieldError
			for _, fe := range ve.Errors {
				if errors.Is(fe.Kind, tt.wantKind) {
					found = fe
				}
			}
			if found == nil || found.Field != tt.wantField || found.Check != tt.wantCheck {
				t.Errorf("field error = %+v, want field %q from check %q", found, tt.wantField, tt.wantCheck)
			}
			if statuses(pf)[tt.wantCheck] != CheckFailed {
				t.Errorf("check %s = %s, want failed\n%s", tt.wantCheck, statuses(pf)[tt.wantCheck], pf)
			}
			if !slices.Equal(pf.Failures, ve.Errors) {
				t.Errorf("report failures %v differ from the error's %v", pf.Failures, ve.Errors)
			}
			if diff := cmp.Diff(before, snapshot(t, t.Context(), u.raw, testNS)); diff != "" {
				t.Errorf("Validate changed the cluster (-before +after):\n%s", diff)
			}
		})
	}
}

func TestValidateConflictErrorNamesTheManager(t *testing.T) {
	conflict := apierrors.NewApplyConflict([]metav1.StatusCause{
		{Type: metav1.CauseTypeFieldManagerConflict, Message: `conflict with "argocd-controller"`, Field: ".spec.networking"},
		{Type: metav1.CauseTypeFieldManagerConflict, Message: `conflict with "kubectl-edit" using elbv2.k8s.aws/v1beta1`, Field: ".spec.serviceRef.port"},
	}, "Apply failed with 2 conflicts")
	u := newUnit(t, withObjects(standardObjects()...), withInterceptor(denyDryRun(conflict))).legacy()
	_, err := u.binder.Validate(t.Context(), mustBuild(t, u))
	var ce *ConflictError
	if !errors.As(err, &ce) || !IsConflict(err) {
		t.Fatalf("err = %v, want a *ConflictError", err)
	}
	if diff := cmp.Diff([]string{"argocd-controller", "kubectl-edit"}, ce.Managers); diff != "" {
		t.Errorf("managers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{".spec.networking", ".spec.serviceRef.port"}, ce.Fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
}

// TestValidateSkipsAndNotes: a check that cannot run is recorded as
// skipped, with the reason, never left out.
func TestValidateSkipsAndNotes(t *testing.T) {
	tests := []struct {
		name      string
		opts      []unitOpt
		tgOpts    []tgOpt
		mutate    func(*v1beta1.TargetGroupBinding)
		validate  []Option
		skipped   []string
		wantNote  string
		wantCheck string // its detail must mention wantDetail
		wantDtl   string
	}{
		{name: "no discovery, no cluster VPC",
			opts:    []unitOpt{withoutDiscovery()},
			skipped: []string{CheckVPC, CheckCRDInstalled}, wantCheck: CheckVPC, wantDtl: "Options.ClusterVPCID"},
		{name: "read-only binder skips the dry run",
			opts:    []unitOpt{readOnly()},
			skipped: []string{CheckVPC, CheckDryRun}, wantCheck: CheckDryRun, wantDtl: "read-only"},
		{name: "node label set but no node carries it",
			opts:    []unitOpt{withOptions(func(o *Options) { o.NodeVPCLabel = "example.com/vpc-id" })},
			skipped: []string{CheckVPC}, wantCheck: CheckVPC, wantDtl: "no node carries label example.com/vpc-id"},
		{name: "health check on the pod port while node targets remain",
			tgOpts:  []tgOpt{withHealthCheckPort("8080")},
			skipped: []string{CheckVPC}, wantNote: "traffic-port suits both"},
		{name: "adopting a binding tgmigrate does not own, with force",
			opts:     []unitOpt{withObjects(binding(testNS, "web-http-legacy-web", testARN, true, false))},
			validate: []Option{WithForce()},
			skipped:  []string{CheckVPC}, wantNote: "adopting shop/web-http-legacy-web"},
		{name: "webhook without dry-run support",
			opts:    []unitOpt{withObjects(tgbWebhookConfig("legacy", "legacy.example.com")), withInterceptor(denyDryRun(&apierrors.StatusError{ErrStatus: metav1.Status{Code: 400, Reason: metav1.StatusReasonBadRequest, Message: `admission webhook "legacy.example.com" does not support dry run`}}))},
			skipped: []string{CheckVPC, CheckDryRun}, wantNote: `"legacy.example.com" does not support dry runs`},
		{name: "older CRD drops targetGroupProtocol",
			opts:    []unitOpt{withInterceptor(pruneOnDryRun("targetGroupProtocol"))},
			skipped: []string{CheckVPC}, wantNote: "drops spec.targetGroupProtocol (LBC older than v2.14.0)"},
		{name: "shared with multi-cluster bindings",
			opts:    []unitOpt{withObjects(binding("other", "a", testARN, true, false), binding("third", "b", testARN, true, false))},
			skipped: []string{CheckVPC}, wantCheck: CheckConflictingBindings, wantDtl: "other/a (multi-cluster), third/b (multi-cluster)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := newUnit(t, append([]unitOpt{withObjects(standardObjects()...)}, tt.opts...)...)
			u.world.addTG(targetGroup(testARN, tt.tgOpts...), nodeTargets()...)
			tgb := wantTGB("web-http-legacy-web", intstrHTTP, true, ReasonForeignTargets)
			pf, err := u.binder.Validate(t.Context(), tgb, tt.validate...)
			if err != nil {
				t.Fatalf("Validate() = %v\n%s", err, pf)
			}
			if diff := cmp.Diff(checkOrder, ids(pf)); diff != "" {
				t.Errorf("checks (-want +got):\n%s", diff)
			}
			var skipped []string
			for _, c := range pf.Checks {
				if c.Status == CheckSkipped {
					skipped = append(skipped, c.ID)
					if c.Detail == "" {
						t.Errorf("skipped check %s has no reason", c.ID)
					}
				}
			}
			if diff := cmp.Diff(tt.skipped, skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
			if tt.wantNote != "" && !slices.ContainsFunc(pf.Notes, func(n string) bool { return strings.Contains(n, tt.wantNote) }) {
				t.Errorf("notes %q lack %q", pf.Notes, tt.wantNote)
			}
			if tt.wantCheck != "" {
				i := slices.IndexFunc(pf.Checks, func(c Check) bool { return c.ID == tt.wantCheck })
				if !strings.Contains(pf.Checks[i].Detail, tt.wantDtl) {
					t.Errorf("check %s detail %q lacks %q", tt.wantCheck, pf.Checks[i].Detail, tt.wantDtl)
				}
			}
		})
	}
}

// TestValidateOperationalErrors: when a check cannot run because AWS or the
// API server failed, the error is that failure, not a validation error.
func TestValidateOperationalErrors(t *testing.T) {
	t.Run("AWS denies DescribeTargetGroups", func(t *testing.T) {
		u := newUnit(t, withObjects(standardObjects()...), strictAWS())
		u.elb.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any()).Return(nil, &smithy.GenericAPIError{Code: "AccessDenied"})
		pf, err := u.binder.Validate(t.Context(), wantTGB("web-http-legacy-web", intstrHTTP, true, ReasonForeignTargets))
		if !errors.Is(err, awserr.ErrAccessDenied) || IsValidationError(err) {
			t.Fatalf("err = %v", err)
		}
		if pf == nil || len(pf.Checks) == 0 {
			t.Errorf("want the partial report, got %v", pf)
		}
	})
	t.Run("API server fails the dry run", func(t *testing.T) {
		u := newUnit(t, withObjects(standardObjects()...), withInterceptor(denyDryRun(apierrors.NewInternalError(errors.New("etcd down"))))).legacy()
		_, err := u.binder.Validate(t.Context(), mustBuild(t, u))
		if err == nil || IsValidationError(err) || !apierrors.IsInternalError(err) {
			t.Fatalf("err = %v, want the internal error", err)
		}
	})
	t.Run("nil binding", func(t *testing.T) {
		u := newUnit(t)
		if _, err := u.binder.Validate(t.Context(), nil); err == nil {
			t.Fatal("want an error")
		}
	})
}

func TestNewRequiresClients(t *testing.T) {
	if _, err := New(Options{}); err == nil || !strings.Contains(err.Error(), "options.ELBv2 is nil") || !strings.Contains(err.Error(), "options.Reader is nil") {
		t.Fatalf("New(Options{}) = %v", err)
	}
}

// TestValidateInvalidMetadataSkipsDryRun: with a bad name the API server
// would refuse the request before admission; the dry run is not sent, and
// the failure stays a *ValidationError.
func TestValidateInvalidMetadataSkipsDryRun(t *testing.T) {
	calls := 0
	u := newUnit(t, withObjects(standardObjects()...), withInterceptor(interceptor.Funcs{
		Apply: func(context.Context, client.WithWatch, runtime.ApplyConfiguration, ...client.ApplyOption) error {
			calls++
			return errors.New("resource name may not be empty")
		}})).legacy()
	for _, name := range []string{"", "Web_Binding"} {
		tgb := wantTGB(name, intstrHTTP, true, ReasonForeignTargets)
		pf, err := u.binder.Validate(t.Context(), tgb)
		if !IsValidationError(err) || !errors.Is(err, ErrInvalidRequest) {
			t.Fatalf("name %q: Validate() = %v", name, err)
		}
		if statuses(pf)[CheckDryRun] != CheckSkipped {
			t.Errorf("name %q: dry-run %s", name, statuses(pf)[CheckDryRun])
		}
	}
	if calls != 0 {
		t.Errorf("%d applies sent", calls)
	}
}
