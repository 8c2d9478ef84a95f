package helmgov

// This file holds the walk over the rendered objects that [Checker.Check]
// makes: each object indexed and decoded into its type, the evidence the
// rules share gathered (targets.go), every rule of the table in rules.go
// run, and the findings recorded and sorted.

import (
	"cmp"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// Check runs the rules over the objects. It never fails: objects it cannot
// read are findings of TGM-H013, kinds it does not know are notices.
func (c *Checker) Check(objs []Object) *Result {
	s := newCheckState(c, objs)
	s.index()
	for _, r := range rules {
		r.check(s)
	}
	s.sortResult()
	return &s.res
}

// item is one object with what the checks decoded from it.
type item struct {
	obj *Object
	ns  string // effective namespace; empty for cluster-scoped kinds
	gk  schema.GroupKind

	svc      *corev1.Service
	tgb      *v1beta1.TargetGroupBinding
	pdb      *policyv1.PodDisruptionBudget
	template *corev1.PodTemplateSpec // workloads; for Pods, the pod itself
	selector *metav1.LabelSelector   // workloads other than Pods

	// decodeErr is why the object did not decode into its type (TGM-H013);
	// the decoded fields above are then nil.
	decodeErr error

	suppressed map[RuleID]bool
}

type checkState struct {
	c     *Checker
	items []*item
	res   Result

	crdKinds   map[schema.GroupVersionKind]bool
	crdGroups  map[schema.GroupKind]bool
	albClasses map[string]bool
	services   map[string]*item // ns/name
	namespaces map[string]*item
	// ipBacked maps ns/name of Services behind LBC targets to why, and
	// to what targets they are today.
	ipBacked map[string]backer
	// ipNamespaces maps namespaces with LBC targets to the first object that
	// puts them there.
	ipNamespaces map[string]*item
	// nsTargets is what targets each namespace of ipNamespaces has today.
	nsTargets map[string]targetState
	// boundServices: ns/name of Services a TGB or an ALB Ingress references.
	boundServices map[string]bool
	// workloads are the workloads and Pods behind LBC targets, in object
	// order.
	workloads []backedWorkload
}

var (
	gkService    = schema.GroupKind{Kind: "Service"}
	gkNamespace  = schema.GroupKind{Kind: "Namespace"}
	gkPod        = schema.GroupKind{Kind: "Pod"}
	gkIngressNet = schema.GroupKind{Group: "networking.k8s.io", Kind: "Ingress"}
	gkIngressExt = schema.GroupKind{Group: "extensions", Kind: "Ingress"}
	gkIngClass   = schema.GroupKind{Group: "networking.k8s.io", Kind: "IngressClass"}
	gkPDB        = schema.GroupKind{Group: "policy", Kind: "PodDisruptionBudget"}
	gkCRD        = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}
	gkTGB        = schema.GroupKind{Group: v1beta1.GroupVersion.Group, Kind: v1beta1.Kind}
	gkDeployment = schema.GroupKind{Group: appsv1.GroupName, Kind: "Deployment"}
	gkStateful   = schema.GroupKind{Group: appsv1.GroupName, Kind: "StatefulSet"}
	gkDaemonSet  = schema.GroupKind{Group: appsv1.GroupName, Kind: "DaemonSet"}
	gkReplicaSet = schema.GroupKind{Group: appsv1.GroupName, Kind: "ReplicaSet"}
)

// checkedKinds are the kinds the rules read, whatever their version.
var checkedKinds = map[schema.GroupKind]bool{
	gkService: true, gkNamespace: true, gkPod: true, gkIngressNet: true, gkIngressExt: true, gkIngClass: true,
	gkPDB: true, gkCRD: true, gkTGB: true, gkDeployment: true, gkStateful: true, gkDaemonSet: true, gkReplicaSet: true,
}

func newCheckState(c *Checker, objs []Object) *checkState {
	s := &checkState{
		c: c, crdKinds: map[schema.GroupVersionKind]bool{}, crdGroups: map[schema.GroupKind]bool{},
		albClasses: map[string]bool{}, services: map[string]*item{},
		namespaces: map[string]*item{}, ipBacked: map[string]backer{}, ipNamespaces: map[string]*item{},
		nsTargets:     map[string]targetState{},
		boundServices: map[string]bool{},
	}
	for _, cl := range c.albClasses {
		s.albClasses[cl] = true
	}
	s.items = make([]*item, len(objs))
	for i := range objs {
		o := &objs[i]
		it := &item{obj: o, gk: o.GroupVersionKind().GroupKind()}
		it.ns = o.Namespace
		if it.ns == "" && !clusterScoped(it.gk) {
			it.ns = c.opts.DefaultNamespace
		}
		var unknown []string
		it.suppressed, unknown = suppressed(o)
		for _, u := range unknown {
			s.notice(it, fmt.Sprintf("annotation %s names %q, which is not a rule ID", SuppressAnnotation, u))
		}
		s.items[i] = it
	}
	s.res.Objects = len(objs)
	return s
}

// clusterScopedKinds are the cluster-scoped kinds that charts render.
var clusterScopedKinds = map[schema.GroupKind]bool{
	gkNamespace: true, gkIngClass: true, gkCRD: true,
	{Kind: "Node"}: true, {Kind: "PersistentVolume"}: true,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:                       true,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}:                true,
	{Group: "storage.k8s.io", Kind: "StorageClass"}:                                 true,
	{Group: "scheduling.k8s.io", Kind: "PriorityClass"}:                             true,
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"}: true,
	{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"}:   true,
}

func clusterScoped(gk schema.GroupKind) bool { return clusterScopedKinds[gk] }

func nsName(ns, name string) string { return ns + "/" + name }

func (it *item) ref() ObjectRef {
	r := it.obj.Ref()
	r.Namespace = it.ns
	return r
}

// index decodes the objects the rules read and records what refers to what.
func (s *checkState) index() {
	// CRDs and IngressClasses first: they decide which kinds are known.
	for _, it := range s.items {
		switch it.gk {
		case gkCRD:
			group, _ := nested(it.obj.Fields, "spec", "group").(string)
			kind, _ := nested(it.obj.Fields, "spec", "names", "kind").(string)
			s.crdGroups[schema.GroupKind{Group: group, Kind: kind}] = true
			for _, v := range nestedSlice(it.obj.Fields, "spec", "versions") {
				if name, ok := nested(asMap(v), "name").(string); ok {
					s.crdKinds[schema.GroupVersionKind{Group: group, Version: name, Kind: kind}] = true
				}
			}
		case gkIngClass:
			if ctrl, _ := nested(it.obj.Fields, "spec", "controller").(string); ctrl == albController {
				s.albClasses[it.obj.Name] = true
			}
		}
	}
	for _, it := range s.items {
		var err error
		switch it.gk {
		case gkService:
			it.svc = &corev1.Service{}
			err = fromFields(it.obj.Fields, it.svc)
			if err == nil {
				s.services[nsName(it.ns, it.obj.Name)] = it
			}
		case gkNamespace:
			s.namespaces[it.obj.Name] = it
		case gkTGB:
			it.tgb = &v1beta1.TargetGroupBinding{}
			err = fromFields(it.obj.Fields, it.tgb)
		case gkPDB:
			it.pdb = &policyv1.PodDisruptionBudget{}
			err = fromFields(it.obj.Fields, it.pdb)
		case gkPod:
			pod := &corev1.Pod{}
			if err = fromFields(it.obj.Fields, pod); err == nil {
				it.template = &corev1.PodTemplateSpec{ObjectMeta: pod.ObjectMeta, Spec: pod.Spec}
			}
		case gkDeployment, gkStateful, gkDaemonSet, gkReplicaSet:
			var w struct {
				Spec struct {
					Selector *metav1.LabelSelector  `json:"selector"`
					Template corev1.PodTemplateSpec `json:"template"`
				} `json:"spec"`
			}
			if err = fromFields(it.obj.Fields, &w); err == nil {
				it.template, it.selector = &w.Spec.Template, w.Spec.Selector
			}
		}
		if err != nil {
			it.decodeErr = err
			it.svc, it.tgb, it.pdb, it.template = nil, nil, nil, nil
		}
	}
	s.indexTargets()
	s.workloads = s.backedWorkloads()
}

func fromFields(fields map[string]any, into any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	return runtime.DefaultUnstructuredConverter.FromUnstructured(fields, into)
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }

// add records a finding, unless the rule is disabled.
func (s *checkState) add(it *item, id RuleID, path string, fix *Change, format string, args ...any) {
	s.record(it, Finding{Rule: id, Path: path, Fix: fix, Message: fmt.Sprintf(format, args...)})
}

// addNoFix records a finding that has no fix, and why, unless the rule is
// disabled.
func (s *checkState) addNoFix(it *item, id RuleID, path, noFix, format string, args ...any) {
	s.record(it, Finding{Rule: id, Path: path, NoFix: noFix, Message: fmt.Sprintf(format, args...)})
}

// record fills in the finding's severity, object, source and suppression,
// and keeps it unless the rule is disabled.
func (s *checkState) record(it *item, f Finding) {
	cfg := s.c.opts.Config
	if !cfg.enabled(f.Rule) {
		return
	}
	r, _ := LookupRule(string(f.Rule))
	f.Severity, f.Object, f.Source, f.Suppressed = cfg.severity(r), it.ref(), it.obj.Source, it.suppressed[f.Rule]
	s.res.Findings = append(s.res.Findings, f)
}

func (s *checkState) notice(it *item, msg string) {
	s.res.Notices = append(s.res.Notices, Notice{Object: it.ref(), Source: it.obj.Source, Message: msg})
}

func (s *checkState) sortResult() {
	slices.SortStableFunc(s.res.Findings, func(a, b Finding) int {
		return cmp.Or(compareSource(a.Source, b.Source), cmp.Compare(a.Object.String(), b.Object.String()),
			cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Path, b.Path))
	})
	slices.SortStableFunc(s.res.Notices, func(a, b Notice) int {
		return cmp.Or(compareSource(a.Source, b.Source), cmp.Compare(a.Object.String(), b.Object.String()))
	})
	if s.res.Findings == nil {
		s.res.Findings = []Finding{}
	}
	if s.res.Notices == nil {
		s.res.Notices = []Notice{}
	}
}

func compareSource(a, b Source) int {
	return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Template, b.Template), cmp.Compare(a.Doc, b.Doc))
}

// wantAnnotation records a finding of the rule, with the fix that sets
// the annotation, when the object's annotation key is not want. missing
// words its absence, with %s for the key.
func (s *checkState) wantAnnotation(it *item, id RuleID, key, want, missing string) {
	v, ok := it.obj.Annotations()[key]
	switch path := annPath(key); {
	case !ok:
		s.add(it, id, path.String(), setTo(path, want), missing, key)
	case v != want:
		s.add(it, id, path.String(), setTo(path, want), "%s is %q, want %q", key, v, want)
	}
}

func setTo(p FieldPath, v any) *Change { return &Change{Op: OpSet, Path: p, Value: v} }

func annPath(key string) FieldPath {
	return FieldPath{{Key: "metadata"}, {Key: "annotations"}, {Key: key}}
}
