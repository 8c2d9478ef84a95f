package tgbind

// apply.go: Apply, which runs the preflight and then server-side applies the
// binding, and the preflight's dry run: the server-side apply with
// dryRun=All, the webhooks a refusal may name, and checkDropped, which
// catches a CRD that silently drops multiClusterTargetGroup.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/kube"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// Apply validates the binding (every check of [Binder.Validate], including
// the server-side dry run) and then applies it with server-side apply, field
// manager [FieldManager]. Nothing is written when a check fails: the error
// is then the *ValidationError, and the result holds the preflight report.
//
// Apply is idempotent: applying the same binding again changes nothing and
// reports OperationUnchanged (the resourceVersion does not move). It does
// not force field ownership: when another field manager owns a field this
// apply would change, the error is a *ConflictError naming the manager(s),
// found by the preflight's dry run or by the apply itself. WithForce takes
// the fields over (and adopts a binding tgmigrate does not own); WithDryRun
// stops after the preflight's dry run.
func (b *Binder) Apply(ctx context.Context, tgb *v1beta1.TargetGroupBinding, opts ...Option) (*ApplyResult, error) {
	if tgb == nil {
		return nil, errors.New("tgbind: apply: nil binding")
	}
	o := collect(opts)
	res := &ApplyResult{Namespace: tgb.Namespace, Name: tgb.Name, DryRun: o.dryRun}
	if b.writer == nil {
		return res, fmt.Errorf("tgbind: apply %s/%s: %w", tgb.Namespace, tgb.Name, ErrReadOnly)
	}
	pf, st, err := b.preflight(ctx, tgb, o)
	res.Preflight = pf
	if err != nil {
		return res, err
	}
	if o.dryRun {
		res.Operation = wouldDo(tgb, st.existing)
		if st.existing != nil {
			res.ResourceVersion = st.existing.ResourceVersion
		}
		return res, nil
	}
	u, err := toUnstructured(tgb)
	if err != nil {
		return res, fmt.Errorf("tgbind: apply %s/%s: %w", tgb.Namespace, tgb.Name, err)
	}
	if err := b.writer.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), applyOptions(o.force, false)...); err != nil {
		return res, applyError(classify(err, st.webhooks), tgb)
	}
	res.ResourceVersion = u.GetResourceVersion()
	switch {
	case st.existing == nil:
		res.Operation = OperationCreated
	case st.existing.ResourceVersion == res.ResourceVersion:
		res.Operation = OperationUnchanged
	default:
		res.Operation = OperationUpdated
	}
	b.log.Info("applied", "binding", tgb.Namespace+"/"+tgb.Name, "operation", res.Operation,
		"resourceVersion", res.ResourceVersion, "multiCluster", tgb.Spec.MultiClusterTargetGroup)
	return res, nil
}

func applyOptions(force, dryRun bool) []client.ApplyOption {
	opts := []client.ApplyOption{client.FieldOwner(FieldManager)}
	if force {
		opts = append(opts, client.ForceOwnership)
	}
	if dryRun {
		opts = append(opts, client.DryRunAll)
	}
	return opts
}

// wouldDo tells what applying tgb over existing would do, for dry runs.
func wouldDo(tgb, existing *v1beta1.TargetGroupBinding) Operation {
	if existing == nil {
		return OperationCreated
	}
	if equality.Semantic.DeepDerivative(tgb.Spec, existing.Spec) &&
		subset(tgb.Labels, existing.Labels) && subset(tgb.Annotations, existing.Annotations) {
		return OperationUnchanged
	}
	return OperationUpdated
}

func subset(want, have map[string]string) bool {
	for k, v := range want {
		if hv, ok := have[k]; !ok || hv != v {
			return false
		}
	}
	return true
}

// toUnstructured turns the binding into what server-side apply sends:
// apiVersion and kind set, and none of the fields the server owns (status,
// resourceVersion, uid, creationTimestamp, managedFields, generation).
func toUnstructured(tgb *v1beta1.TargetGroupBinding) (*unstructured.Unstructured, error) {
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(tgb)
	if err != nil {
		return nil, fmt.Errorf("convert binding: %w", err)
	}
	u := &unstructured.Unstructured{Object: obj}
	u.SetAPIVersion(v1beta1.GroupVersion.String())
	u.SetKind(v1beta1.Kind)
	unstructured.RemoveNestedField(u.Object, "status")
	for _, f := range []string{"creationTimestamp", "resourceVersion", "uid", "managedFields", "generation", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds", "finalizers", "ownerReferences"} {
		unstructured.RemoveNestedField(u.Object, "metadata", f)
	}
	return u, nil
}

// applyError is what Apply returns when the API server refused the apply
// itself (after the preflight's dry run passed).
func applyError(r refusal, tgb *v1beta1.TargetGroupBinding) error {
	switch r.Kind {
	case refusalFieldManagerConflict:
		return r.conflictError(tgb)
	case refusalWebhookUnavailable:
		return fmt.Errorf("tgbind: apply %s/%s: %w", tgb.Namespace, tgb.Name, r.webhookUnavailable(false))
	case refusalWebhookDenied:
		return fmt.Errorf("tgbind: apply %s/%s: %w", tgb.Namespace, tgb.Name, r.webhookDenied(false))
	}
	return fmt.Errorf("tgbind: apply %s/%s: %w", tgb.Namespace, tgb.Name, r.Err)
}

// admissionWebhooks lists the validating webhooks that cover the binding's
// create, and every webhook a refusal may be attributed to: those, the
// mutating ones and the LBC's (see knownWebhooks). A note says when a list
// fails.
func (b *Binder) admissionWebhooks(ctx context.Context, c *checker) (validating, known []kube.Webhook, validatingOK bool) {
	validating, err := kube.TargetGroupBindingWebhooks(ctx, b.reader)
	if err != nil {
		c.note("could not list validating webhook configurations (%v): the dry run ran, but whether the LBC's webhook took part is unknown", err)
	}
	mutating, merr := kube.TargetGroupBindingMutatingWebhooks(ctx, b.reader)
	if merr != nil {
		c.note("could not list mutating webhook configurations (%v): a refusal by one of them is attributed to it only when it is the LBC's", merr)
	}
	return validating, knownWebhooks(append(mutating, validating...)), err == nil
}

// dryRun runs CheckDryRun: a server-side apply with dryRun=All. When the
// binding does not exist yet, that is a dry-run create, so the LBC's
// validating webhook (and any other) sees exactly what Apply would send.
// It returns the webhooks a refusal may be attributed to, for Apply. The
// error is an operational failure: a *WebhookUnavailableError when the API
// server could not call a webhook, the API error otherwise.
func (b *Binder) dryRun(ctx context.Context, c *checker, tgb *v1beta1.TargetGroupBinding, force bool) ([]kube.Webhook, error) {
	listed, known, listedOK := b.admissionWebhooks(ctx, c)
	u, err := toUnstructured(tgb)
	if err != nil {
		return known, err
	}
	err = b.writer.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), applyOptions(force, true)...)
	if err == nil {
		return known, checkDropped(c, tgb, u, listed, listedOK)
	}
	r := classify(err, known)
	switch r.Kind {
	case refusalFieldManagerConflict:
		ce := r.conflictError(tgb)
		fields := make([]string, len(ce.Fields))
		for i, f := range ce.Fields {
			fields[i] = strings.TrimPrefix(f, ".")
		}
		c.fail(CheckDryRun, &FieldError{Field: strings.Join(fields, ", "), Kind: ErrFieldManagerConflict,
			Detail: fmt.Sprintf("fields owned by %s: rerun with WithForce to take them over", quoteJoin(ce.Managers)), Err: ce})
		return known, nil
	case refusalWebhookNoDryRun:
		c.note("admission webhook %q does not support dry runs: it was not exercised", r.Webhook.Name)
		c.skip(CheckDryRun, fmt.Sprintf("webhook %q does not support dry runs", r.Webhook.Name))
		return known, nil
	case refusalWebhookDenied:
		c.fail(CheckDryRun, &FieldError{Field: "object", Value: r.Webhook.Name, Kind: ErrWebhookRejected, Detail: r.detail(), Err: r.webhookDenied(true)})
		return known, nil
	case refusalWebhookUnavailable:
		return known, r.webhookUnavailable(true)
	}
	if r.rejected() {
		c.fail(CheckDryRun, r.fieldErrors(ErrDryRunRejected)...)
		return known, nil
	}
	return known, fmt.Errorf("dry run: %w", err)
}

// checkDropped compares what the dry run returned with what was sent. An
// older CRD prunes fields it does not know, silently. multiClusterTargetGroup
// is the one whose loss is dangerous: without it the LBC runs in default
// mode and wipes the existing targets.
func checkDropped(c *checker, tgb *v1beta1.TargetGroupBinding, got *unstructured.Unstructured, hooks []kube.Webhook, hooksKnown bool) error {
	if tgb.Spec.MultiClusterTargetGroup {
		if v, found, _ := unstructured.NestedBool(got.Object, "spec", "multiClusterTargetGroup"); !found || !v {
			c.fail(CheckDryRun, &FieldError{Field: "spec.multiClusterTargetGroup", Value: "true", Kind: ErrFieldDropped,
				Detail: "the installed TargetGroupBinding CRD drops the field (LBC older than v2.10.0): the LBC would run in default mode and deregister the existing targets; upgrade the LBC"})
			return nil
		}
	}
	optional := []struct {
		field, since string
		set          bool
	}{
		{"vpcID", "v2.8.0", tgb.Spec.VpcID != ""},
		{"ipAddressType", "v2.3.0", tgb.Spec.IPAddressType != nil},
		{"targetGroupProtocol", "v2.14.0", tgb.Spec.TargetGroupProtocol != nil},
	}
	for _, f := range optional {
		if _, found, _ := unstructured.NestedFieldNoCopy(got.Object, "spec", f.field); f.set && !found {
			c.note("the installed CRD drops spec.%s (LBC older than %s); the LBC takes it from the target group", f.field, f.since)
		}
	}
	switch {
	case len(hooks) > 0:
		names := make([]string, len(hooks))
		for i, h := range hooks {
			names[i] = strconv.Quote(h.Name)
		}
		c.pass(CheckDryRun, "accepted by the API server and the validating webhook(s) "+strings.Join(names, ", "))
	case hooksKnown:
		c.note("no validating webhook covers targetgroupbindings: the LBC's admission checks did not run")
		c.pass(CheckDryRun, "accepted by the API server (schema); no validating webhook is registered for targetgroupbindings")
	default:
		c.pass(CheckDryRun, "accepted by the API server")
	}
	return nil
}
