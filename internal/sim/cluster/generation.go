package cluster

// generation.go: metadata.generation as the API server keeps it, for the
// kinds whose controllers report status.observedGeneration in the
// simulation (TargetGroupBindings): 1 on create, plus one on each write
// that changes anything but metadata and status.

import (
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/managedfields"
	clienttesting "k8s.io/client-go/testing"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// generationTracker sets metadata.generation on the objects of the
// elbv2.k8s.aws group, as a kube-apiserver does for a custom resource
// with a status subresource: 1 on create, bumped when a write changes the
// object outside metadata and status (a status write never does). The
// fake client leaves it 0. Other kinds keep what the writer sent.
type generationTracker struct {
	clienttesting.ObjectTracker
	scheme *k8sruntime.Scheme
	// managed: the group is kept on a field-managed tracker (server-side
	// apply), whose Apply is predicted on a scratch copy.
	managed bool
}

func tracksGeneration(gvr schema.GroupVersionResource) bool {
	return gvr.Group == v1beta1.GroupVersion.Group
}

// specOf returns obj without metadata, status, apiVersion and kind.
func specOf(obj k8sruntime.Object) map[string]any {
	var m map[string]any
	if u, ok := obj.(*unstructured.Unstructured); ok {
		m = u.DeepCopy().Object
	} else {
		var err error
		if m, err = k8sruntime.DefaultUnstructuredConverter.ToUnstructured(obj); err != nil {
			return nil
		}
	}
	for _, k := range []string{"metadata", "status", "apiVersion", "kind"} {
		delete(m, k)
	}
	return m
}

// next returns the generation obj gets when written over the stored one.
func (t generationTracker) next(gvr schema.GroupVersionResource, ns, name string, obj k8sruntime.Object) (int64, error) {
	old, err := t.Get(gvr, ns, name)
	if apierrors.IsNotFound(err) {
		return 1, nil
	}
	if err != nil {
		return 0, err
	}
	om, err := meta.Accessor(old)
	if err != nil {
		return 0, err
	}
	g := max(om.GetGeneration(), 1)
	if !equality.Semantic.DeepEqual(specOf(old), specOf(obj)) {
		g++
	}
	return g, nil
}

func (t generationTracker) stamp(gvr schema.GroupVersionResource, ns string, obj k8sruntime.Object) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	g, err := t.next(gvr, ns, m.GetName(), obj)
	if err != nil {
		return err
	}
	m.SetGeneration(g)
	return nil
}

func (t generationTracker) Create(gvr schema.GroupVersionResource, obj k8sruntime.Object, ns string, opts ...metav1.CreateOptions) error {
	if tracksGeneration(gvr) {
		if m, err := meta.Accessor(obj); err == nil {
			m.SetGeneration(1)
		}
	}
	return t.ObjectTracker.Create(gvr, obj, ns, opts...)
}

func (t generationTracker) Update(gvr schema.GroupVersionResource, obj k8sruntime.Object, ns string, opts ...metav1.UpdateOptions) error {
	if tracksGeneration(gvr) {
		if err := t.stamp(gvr, ns, obj); err != nil {
			return err
		}
	}
	return t.ObjectTracker.Update(gvr, obj, ns, opts...)
}

func (t generationTracker) Patch(gvr schema.GroupVersionResource, obj k8sruntime.Object, ns string, opts ...metav1.PatchOptions) error {
	if tracksGeneration(gvr) {
		if err := t.stamp(gvr, ns, obj); err != nil {
			return err
		}
	}
	return t.ObjectTracker.Patch(gvr, obj, ns, opts...)
}

// Apply predicts the applied object on a scratch tracker holding a copy of
// the stored one, and applies with the generation that result gets (the
// field manager does not track metadata.generation, so it owns nothing).
func (t generationTracker) Apply(gvr schema.GroupVersionResource, ac k8sruntime.Object, ns string, opts ...metav1.PatchOptions) error {
	if !tracksGeneration(gvr) {
		return t.ObjectTracker.Apply(gvr, ac, ns, opts...)
	}
	acc, err := meta.Accessor(ac)
	if err != nil {
		return err
	}
	old, err := t.Get(gvr, ns, acc.GetName())
	if apierrors.IsNotFound(err) {
		acc.SetGeneration(1)
		return t.ObjectTracker.Apply(gvr, ac, ns, opts...)
	}
	if err != nil {
		return err
	}
	decoder := serializer.NewCodecFactory(t.scheme).UniversalDecoder()
	var scratch clienttesting.ObjectTracker = clienttesting.NewObjectTracker(t.scheme, decoder)
	if t.managed {
		scratch = clienttesting.NewFieldManagedObjectTracker(t.scheme, decoder, managedfields.NewDeducedTypeConverter())
	}
	scratch = applyTracker{ObjectTracker: scratch, scheme: t.scheme}
	if err := scratch.Add(old.DeepCopyObject()); err != nil {
		return err
	}
	if err := scratch.Apply(gvr, ac.DeepCopyObject(), ns, opts...); err != nil {
		return t.ObjectTracker.Apply(gvr, ac, ns, opts...) // the real Apply reports it
	}
	applied, err := scratch.Get(gvr, ns, acc.GetName())
	if err != nil {
		return err
	}
	g, err := t.next(gvr, ns, acc.GetName(), applied)
	if err != nil {
		return err
	}
	acc.SetGeneration(g)
	return t.ObjectTracker.Apply(gvr, ac, ns, opts...)
}
