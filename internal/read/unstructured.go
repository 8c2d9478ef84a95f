package read

// unstructured.go: ListUnstructured, the listing of one CRD kind the
// cluster may not serve (Karpenter's EC2NodeClasses and NodePools), as
// unstructured objects, paged like ListCluster's kinds.

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ListUnstructured lists every object of kind gvk that r reads, in one
// pass (pages of pageSize when it is positive). A kind the cluster does
// not serve (NoMatch, NotFound) is not an error: served is false and the
// list empty. Any other failure is "list <Kind>: <cause>".
func ListUnstructured(ctx context.Context, r client.Reader, gvk schema.GroupVersionKind, pageSize int64) (items []unstructured.Unstructured, served bool, err error) {
	err = pages(ctx, r, func() client.ObjectList { return unstructuredList(gvk) }, pageSize, nil, func(l client.ObjectList) {
		items = append(items, l.(*unstructured.UnstructuredList).Items...)
	})
	switch {
	case err == nil:
		return items, true, nil
	case apimeta.IsNoMatchError(err) || apierrors.IsNotFound(err):
		return nil, false, nil
	}
	return nil, true, fmt.Errorf("list %s: %w", gvk.Kind, err)
}
