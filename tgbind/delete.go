package tgbind

// delete.go: Delete, which deletes a binding tgmigrate owns, conditional on
// the UID and resourceVersion it checked, and warns what the LBC does to the
// targets next.

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// deleteAttempts bounds how often Delete re-reads a binding that changed
// between its read and its delete (the LBC updates status and finalizers).
const deleteAttempts = 3

// Delete deletes the binding named key. A binding that does not exist is not
// an error: the result says Deleted false.
//
// Ownership guard: Delete refuses a binding that does not carry tgmigrate's
// ownership label (a *FieldError with ErrNotOwned), unless WithForce is
// given. The delete is conditional on the UID and resourceVersion that were
// checked, so it never deletes an object it did not inspect.
//
// What the LBC does next, and what the result's Warnings repeat: on a
// default-mode binding it deregisters every target it lists in the target
// group, including any it did not register; on a multi-cluster binding it
// deregisters the targets it registered (the pod targets recorded in the
// ConfigMap aws-lbc-targets-<name>). Make sure other targets serve the
// traffic first. WithDryRun sends the delete with dryRun=All.
func (b *Binder) Delete(ctx context.Context, key types.NamespacedName, opts ...Option) (*DeleteResult, error) {
	o := collect(opts)
	res := &DeleteResult{Namespace: key.Namespace, Name: key.Name, DryRun: o.dryRun}
	fail := func(err error) (*DeleteResult, error) {
		return res, fmt.Errorf("tgbind: delete %s/%s: %w", key.Namespace, key.Name, err)
	}
	if b.writer == nil {
		return fail(ErrReadOnly)
	}
	for attempt := 1; ; attempt++ {
		tgb := &v1beta1.TargetGroupBinding{}
		err := b.reader.Get(ctx, key, tgb)
		switch {
		case apierrors.IsNotFound(err):
			return res, nil
		case meta.IsNoMatchError(err):
			return fail(ErrCRDNotInstalled)
		case err != nil:
			return fail(err)
		}
		if !isOwned(tgb) && !o.force {
			return fail(&FieldError{Check: CheckOwnership, Field: "metadata.labels[" + LabelManagedBy + "]", Value: tgb.Labels[LabelManagedBy],
				Kind: ErrNotOwned, Detail: "tgmigrate does not own this binding: delete it with WithForce, or with the tool that made it"})
		}
		res.MultiCluster = tgb.Spec.MultiClusterTargetGroup
		res.Warnings = deleteWarnings(tgb)

		// Delete only the object that was inspected. The API server always
		// sets both fields; a test double may leave the UID empty.
		pre := client.Preconditions{}
		if uid := tgb.UID; uid != "" {
			pre.UID = &uid
		}
		if rv := tgb.ResourceVersion; rv != "" {
			pre.ResourceVersion = &rv
		}
		dopts := []client.DeleteOption{pre}
		if o.dryRun {
			dopts = append(dopts, client.DryRunAll)
		}
		err = b.writer.Delete(ctx, tgb, dopts...)
		switch {
		case err == nil:
			res.Deleted = true
			b.log.Info("deleted", "binding", key.String(), "dryRun", o.dryRun, "multiCluster", res.MultiCluster)
			return res, nil
		case apierrors.IsNotFound(err):
			return res, nil
		case apierrors.IsConflict(err) && attempt < deleteAttempts:
			continue // changed since it was read: read and check it again
		case apierrors.IsConflict(err):
			return fail(errors.Join(errors.New("the binding kept changing between read and delete"), err))
		default:
			return fail(err)
		}
	}
}

func deleteWarnings(tgb *v1beta1.TargetGroupBinding) []string {
	arn := tgb.Spec.TargetGroupARN
	if tgb.Spec.MultiClusterTargetGroup {
		return []string{fmt.Sprintf("the LBC will deregister from %s the targets it registered for this binding (listed in ConfigMap %s/aws-lbc-targets-%s); other targets stay",
			arn, tgb.Namespace, tgb.Name)}
	}
	return []string{fmt.Sprintf("default mode: the LBC will deregister every target it lists in %s, including targets it did not register; the target group may be left empty",
		arn)}
}
