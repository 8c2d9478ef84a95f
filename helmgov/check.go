package helmgov

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// Options configures a [Checker]. The zero value checks with every rule at
// its default severity.
type Options struct {
	// Config enables, disables and re-grades rules. Zero: every rule, default
	// severities.
	Config Config
	// DefaultNamespace is the namespace of namespaced objects that do not
	// name one. Empty means "default"; [Checker.CheckChart] and
	// [Checker.Fix] use the render namespace.
	DefaultNamespace string
	// ServedKinds is what the cluster serves, from discovery (see
	// [ServedKindsFromDiscovery]). Nil: rule TGM-H012 is not checked and
	// kinds helmgov does not know are reported as notices.
	ServedKinds KindSet
	// ALBIngressClasses names the ingress classes that the LBC serves, in
	// addition to IngressClass objects of controller ingress.k8s.aws/alb in
	// the manifests. Nil means ["alb"].
	ALBIngressClasses []string
	// NodePortMin and NodePortMax bound the cluster's NodePort range. Zero
	// means 30000 and 32767, Kubernetes' default.
	NodePortMin, NodePortMax int
	// PreStopSeconds is the safe preStop delay: the shortest one TGM-H008
	// accepts, and the one its fix writes; TGM-H009 asks for a grace period
	// that covers at least this delay. Zero means the envelope's safe
	// preStop (internal/envelope, Default().SafePreStop()): 130, the worst
	// reported deregistration lag (120 s) plus the controller's delay to
	// deregister a terminating pod (10 s). cutover's plan asks a workload
	// for the same delay.
	PreStopSeconds int64
	// GracePaddingSeconds is the time TGM-H009 leaves the app to shut down
	// after the preStop delay: it reports a grace period shorter than the
	// longer of the longest readable delay and PreStopSeconds, plus this,
	// and its fix writes that sum. Zero means the envelope's shutdown
	// margin (internal/envelope, ShutdownMargin): 30, so that with the
	// default preStop the rule asks for 160, the
	// terminationGracePeriodSeconds cutover's plan asks for.
	GracePaddingSeconds int64
	// Logger receives what CheckChart and Fix do (renders, fix rounds, files
	// written) and, at V(1) and above, Helm's own log. The zero value
	// discards; Check itself never logs.
	Logger logr.Logger
}

// KindSet is a set of kinds, by group, version and kind.
type KindSet map[schema.GroupVersionKind]bool

// ServedKindsFromDiscovery builds a KindSet from discovery's resource lists,
// as returned by client-go's ServerGroupsAndResources. Subresources are
// left out.
func ServedKindsFromDiscovery(lists []*metav1.APIResourceList) KindSet {
	ks := KindSet{}
	for _, l := range lists {
		if l == nil {
			continue
		}
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			ks[gv.WithKind(r.Kind)] = true
		}
	}
	return ks
}

// Checker checks manifests against the rules. It is safe for concurrent use.
type Checker struct {
	opts       Options
	albClasses []string
	// preStopWhy says, in findings, where opts.PreStopSeconds comes from.
	preStopWhy string
}

// NewChecker validates the options and returns a Checker. An invalid
// configuration is a [*ConfigError].
func NewChecker(o Options) (*Checker, error) {
	if err := o.Config.validate("options"); err != nil {
		return nil, err
	}
	if o.DefaultNamespace == "" {
		o.DefaultNamespace = "default"
	}
	if o.NodePortMin == 0 && o.NodePortMax == 0 {
		o.NodePortMin, o.NodePortMax = defaultNodePortLo, defaultNodePortHi
	}
	if o.NodePortMin < 1 || o.NodePortMax > 65535 || o.NodePortMin > o.NodePortMax {
		return nil, &ConfigError{Source: "options", Msg: fmt.Sprintf("node port range %d-%d is not valid", o.NodePortMin, o.NodePortMax)}
	}
	if o.PreStopSeconds == 0 {
		o.PreStopSeconds = defaultPreStopSeconds
	}
	if o.GracePaddingSeconds == 0 {
		o.GracePaddingSeconds = defaultGracePaddingSeconds
	}
	if o.PreStopSeconds < 0 || o.GracePaddingSeconds < 0 {
		return nil, &ConfigError{Source: "options", Msg: "PreStopSeconds and GracePaddingSeconds must not be negative"}
	}
	if o.Logger.GetSink() == nil {
		o.Logger = logr.Discard()
	}
	classes := o.ALBIngressClasses
	if classes == nil {
		classes = []string{defaultALBClass}
	}
	why := "the safe preStop delay the checker is configured with"
	if o.PreStopSeconds == defaultPreStopSeconds {
		why = defaultPreStopWhy
	}
	return &Checker{opts: o, albClasses: slices.Clone(classes), preStopWhy: why}, nil
}

// Finding is one rule violation on one object.
type Finding struct {
	// Rule is the rule's ID.
	Rule RuleID `json:"rule"`
	// Severity is the rule's configured severity.
	Severity Severity `json:"severity"`
	// Message says what is wrong with this object.
	Message string `json:"message"`
	// Object is the object, with its effective namespace.
	Object ObjectRef `json:"object"`
	// Source is where the object came from.
	Source Source `json:"source"`
	// Path is the field the finding is about, such as
	// metadata.annotations["service.beta.kubernetes.io/aws-load-balancer-type"].
	Path string `json:"path,omitempty"`
	// Fix is the change to the rendered object that resolves the finding;
	// nil when there is no safe fix.
	Fix *Change `json:"fix,omitempty"`
	// NoFix says why Fix is nil, when the rule fixes other findings but
	// not this one (one replica: a PDB cannot keep it serving). Empty
	// otherwise.
	NoFix string `json:"noFix,omitempty"`
	// Suppressed is true when the object's SuppressAnnotation names the rule.
	Suppressed bool `json:"suppressed,omitempty"`
}

// ChangeOp is the kind of change a fix makes.
type ChangeOp string

const (
	// OpSet sets the field at Path to Value, creating parents as needed.
	OpSet ChangeOp = "set"
	// OpAddPDB adds a PodDisruptionBudget for the workload.
	OpAddPDB ChangeOp = "add-pdb"
)

// Change is a fix, expressed on the rendered object. [Checker.Fix] maps it
// onto the chart's sources.
type Change struct {
	// Op is the kind of change.
	Op ChangeOp `json:"op"`
	// Path is the field, for OpSet.
	Path FieldPath `json:"path,omitempty"`
	// Value is the new value, for OpSet.
	Value any `json:"value,omitempty"`
}

// Notice is something helmgov could not check, or chose not to: an unknown
// kind, a namespace outside the manifests, an unknown rule in a suppression
// annotation. Notices never change the exit code.
type Notice struct {
	// Object is the object concerned.
	Object ObjectRef `json:"object"`
	// Source is where it came from; empty when the object is not in the
	// manifests.
	Source Source `json:"source"`
	// Message says what was not checked and why.
	Message string `json:"message"`
}

// Result is the outcome of a check: plain data, printable with
// [Result.WriteText], [Result.WriteJSON] and [Result.WriteSARIF].
type Result struct {
	// Findings, suppressed ones included, ordered by source and rule.
	Findings []Finding `json:"findings"`
	// Notices, ordered by source.
	Notices []Notice `json:"notices"`
	// Objects is the number of objects checked.
	Objects int `json:"objects"`
}

// Count returns the number of findings at or above the severity that are
// not suppressed.
func (r *Result) Count(threshold Severity) int {
	n := 0
	for _, f := range r.Findings {
		if !f.Suppressed && f.Severity >= threshold {
			n++
		}
	}
	return n
}

// Check runs the rules over the objects. It never fails: objects it cannot
// read are findings of TGM-H013, kinds it does not know are notices.
func (c *Checker) Check(objs []Object) *Result {
	s := newCheckState(c, objs)
	s.index()
	s.checkServices()
	s.checkIngresses()
	s.checkTGBs()
	s.checkNamespaces()
	s.checkWorkloads()
	s.checkNodePorts()
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

	suppressed map[RuleID]bool
}

type checkState struct {
	c     *Checker
	items []*item
	res   Result

	crdKinds   map[schema.GroupVersionKind]bool
	crdGroups  map[schema.GroupKind]bool
	albClasses map[string]bool
	nodePorts  map[int64]bool
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
		albClasses: map[string]bool{}, nodePorts: map[int64]bool{}, services: map[string]*item{},
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
		s.checkKind(it)
		var err error
		switch it.gk {
		case gkService:
			it.svc = &corev1.Service{}
			err = fromFields(it.obj.Fields, it.svc)
			if err == nil {
				s.services[nsName(it.ns, it.obj.Name)] = it
				for _, p := range it.svc.Spec.Ports {
					if p.NodePort != 0 {
						s.nodePorts[int64(p.NodePort)] = true
					}
				}
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
			s.add(it, RuleInvalidObject, "", nil, "cannot decode %s: %v", it.obj.Kind, err)
			it.svc, it.tgb, it.pdb, it.template = nil, nil, nil, nil
		}
	}
	// What sits behind the LBC's targets, and which targets they are today.
	for _, it := range s.items {
		switch {
		case it.svc != nil && s.lbcManaged(it.svc):
			t := serviceTargets(it)
			s.back(nsName(it.ns, it.obj.Name), "it is a LoadBalancer Service of the LBC", t)
			s.ipNamespace(it, t)
		case it.tgb != nil:
			key := nsName(it.ns, it.tgb.Spec.ServiceRef.Name)
			t := targetsUnknown
			if tt := it.tgb.Spec.TargetType; tt != nil {
				t = targetsInstance
				if *tt == v1beta1.TargetTypeIP {
					t = targetsIP
				}
			}
			s.back(key, "TargetGroupBinding "+it.obj.Name+" binds it", t)
			s.boundServices[key] = true
			s.ipNamespace(it, t)
		case s.isALBIngress(it):
			ingType := it.obj.Annotations()[annALBTargetType]
			all := targetsIP
			for _, b := range ingressBackends(it.obj.Fields) {
				key := nsName(it.ns, b)
				// A backend Service may override the Ingress's target type.
				tt := ingType
				if svc := s.services[key]; svc != nil {
					if v, ok := svc.obj.Annotations()[annALBTargetType]; ok {
						tt = v
					}
				}
				t := targetsInstance
				if tt == "ip" {
					t = targetsIP
				}
				all = all.and(t)
				s.back(key, "ALB Ingress "+it.obj.Name+" routes to it", t)
				s.boundServices[key] = true
			}
			s.ipNamespace(it, all)
		}
	}
}

// back records that the Service key is behind the LBC's targets. The last
// reason recorded is the one findings give; the states combine.
func (s *checkState) back(key, why string, t targetState) {
	if old, ok := s.ipBacked[key]; ok {
		t = t.and(old.targets)
	}
	s.ipBacked[key] = backer{why: why, targets: t}
}

func (s *checkState) ipNamespace(it *item, t targetState) {
	if _, ok := s.ipNamespaces[it.ns]; !ok {
		s.ipNamespaces[it.ns] = it
		s.nsTargets[it.ns] = t
		return
	}
	s.nsTargets[it.ns] = s.nsTargets[it.ns].and(t)
}

// backer is why a Service is behind the LBC's targets, and which targets.
type backer struct {
	why     string
	targets targetState
}

// targetState is what targets the LBC registers for a Service's pods today,
// as the manifests say. Findings word the state as it is: a Service still
// on instance targets is not "behind ip targets" yet.
type targetState int

const (
	// targetsUnknown: the manifests do not say (a TargetGroupBinding
	// without spec.targetType takes its target group's type).
	targetsUnknown targetState = iota
	// targetsInstance: nodes and their NodePorts, until the migration.
	targetsInstance
	// targetsIP: the pods themselves.
	targetsIP
)

// and combines two states: instance if either is, unknown if either is,
// ip only when both are.
func (t targetState) and(u targetState) targetState {
	switch {
	case t == targetsInstance || u == targetsInstance:
		return targetsInstance
	case t == targetsUnknown || u == targetsUnknown:
		return targetsUnknown
	}
	return targetsIP
}

// phrase words the targets with why they are there: "ip targets (why)",
// "instance targets (ip after the migration; why)" or "LBC targets (why)".
func (t targetState) phrase(why string) string {
	switch t {
	case targetsIP:
		return "ip targets (" + why + ")"
	case targetsInstance:
		return "instance targets (ip after the migration; " + why + ")"
	}
	return "LBC targets (" + why + ")"
}

// serviceTargets is what a LoadBalancer Service of the LBC registers: ip
// targets when the LBC owns it (type external, or the LBC's class) and its
// nlb-target-type is ip; instance targets otherwise (the LBC's default, and
// what the in-tree provider registers).
func serviceTargets(it *item) targetState {
	ann := it.obj.Annotations()
	if ann[annLBType] == "nlb-ip" {
		return targetsIP // the LBC's legacy spelling of external + ip
	}
	cl := it.svc.Spec.LoadBalancerClass
	lbc := ann[annLBType] == "external" || (cl != nil && *cl == lbcNLBClass)
	if lbc && ann[annNLBTargetType] == "ip" {
		return targetsIP
	}
	return targetsInstance
}

// checkKind reports kinds that helmgov does not know, and kinds the cluster
// does not serve.
func (s *checkState) checkKind(it *item) {
	gvk := it.obj.GroupVersionKind()
	inStream := s.crdKinds[gvk]
	if served := s.c.opts.ServedKinds; served != nil {
		if !served[gvk] && !inStream {
			hint := ""
			if it.gk == gkTGB {
				hint = "; install the AWS Load Balancer Controller and its CRDs"
			} else if s.crdGroups[it.gk] {
				hint = "; the manifests define this kind, but not this version"
			}
			s.add(it, RuleKindNotServed, "", nil, "%s %s is not served by the cluster%s", it.obj.APIVersion, it.obj.Kind, hint)
		}
		return
	}
	if checkedKinds[it.gk] || inStream || clientgoscheme.Scheme.Recognizes(gvk) {
		return
	}
	s.notice(it, fmt.Sprintf("unknown kind %s %s: not checked (no CRD for it in the manifests; pass the cluster's served kinds to check it is installed)", it.obj.APIVersion, it.obj.Kind))
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

// lbcManaged: a LoadBalancer Service that is, or should be, the LBC's.
func (s *checkState) lbcManaged(svc *corev1.Service) bool {
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		return false
	}
	cl := svc.Spec.LoadBalancerClass
	return cl == nil || *cl == "" || *cl == lbcNLBClass
}

func (s *checkState) isALBIngress(it *item) bool {
	if it.gk != gkIngressNet && it.gk != gkIngressExt {
		return false
	}
	if cl, ok := nested(it.obj.Fields, "spec", "ingressClassName").(string); ok && cl != "" {
		return s.albClasses[cl]
	}
	return s.albClasses[it.obj.Annotations()[annIngressClass]]
}

// ingressBackends lists the Service names an Ingress routes to, in both the
// networking.k8s.io/v1 and the older v1beta1 layouts.
func ingressBackends(f map[string]any) []string {
	var names []string
	add := func(b map[string]any) {
		if n, ok := nested(b, "service", "name").(string); ok && n != "" {
			names = append(names, n)
		} else if n, ok := b["serviceName"].(string); ok && n != "" {
			names = append(names, n)
		}
	}
	if b := nestedMap(f, "spec", "defaultBackend"); b != nil {
		add(b)
	}
	if b := nestedMap(f, "spec", "backend"); b != nil {
		add(b)
	}
	for _, r := range nestedSlice(f, "spec", "rules") {
		for _, p := range nestedSlice(asMap(r), "http", "paths") {
			add(nestedMap(asMap(p), "backend"))
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

func (s *checkState) checkServices() {
	for _, it := range s.items {
		if it.svc == nil {
			continue
		}
		ann := it.obj.Annotations()
		if s.lbcManaged(it.svc) {
			if v, ok := ann[annLBType]; !ok {
				s.add(it, RuleServiceLBType, annPath(annLBType).String(), setTo(annPath(annLBType), "external"),
					"LoadBalancer Service has no %s annotation, so the in-tree provider owns its load balancer", annLBType)
			} else if v != "external" {
				s.add(it, RuleServiceLBType, annPath(annLBType).String(), setTo(annPath(annLBType), "external"),
					"%s is %q, want \"external\"", annLBType, v)
			}
			if v, ok := ann[annNLBTargetType]; !ok {
				s.add(it, RuleServiceTargetType, annPath(annNLBTargetType).String(), setTo(annPath(annNLBTargetType), "ip"),
					"LoadBalancer Service has no %s annotation; the LBC would register instance targets", annNLBTargetType)
			} else if v != "ip" {
				s.add(it, RuleServiceTargetType, annPath(annNLBTargetType).String(), setTo(annPath(annNLBTargetType), "ip"),
					"%s is %q, want \"ip\"", annNLBTargetType, v)
			}
		}
		if v, ok := ann[annALBTargetType]; ok && v != "ip" {
			s.add(it, RuleIngressTargetType, annPath(annALBTargetType).String(), setTo(annPath(annALBTargetType), "ip"),
				"Service overrides the ALB target type with %s: %q, want \"ip\"", annALBTargetType, v)
		}
		s.checkHealthCheckPorts(it, annSvcHCPort, annALBHCPort)
	}
}

func (s *checkState) checkIngresses() {
	for _, it := range s.items {
		if it.gk != gkIngressNet && it.gk != gkIngressExt {
			continue
		}
		if s.isALBIngress(it) {
			if v, ok := it.obj.Annotations()[annALBTargetType]; !ok {
				s.add(it, RuleIngressTargetType, annPath(annALBTargetType).String(), setTo(annPath(annALBTargetType), "ip"),
					"ALB Ingress has no %s annotation; the LBC's default is instance", annALBTargetType)
			} else if v != "ip" {
				s.add(it, RuleIngressTargetType, annPath(annALBTargetType).String(), setTo(annPath(annALBTargetType), "ip"),
					"%s is %q, want \"ip\"", annALBTargetType, v)
			}
		}
		s.checkHealthCheckPorts(it, annALBHCPort)
	}
}

func (s *checkState) checkHealthCheckPorts(it *item, keys ...string) {
	ann := it.obj.Annotations()
	for _, k := range keys {
		v, ok := ann[k]
		if !ok || v == trafficPort {
			continue
		}
		port, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			continue // a named port: not a NodePort
		}
		var why string
		switch {
		case s.nodePorts[port]:
			why = "a Service in the manifests declares it as a nodePort"
		case port >= int64(s.c.opts.NodePortMin) && port <= int64(s.c.opts.NodePortMax):
			why = fmt.Sprintf("it lies in the NodePort range %d-%d", s.c.opts.NodePortMin, s.c.opts.NodePortMax)
		default:
			continue
		}
		s.add(it, RuleHealthCheckPort, annPath(k).String(), setTo(annPath(k), trafficPort),
			"%s is %d, a NodePort (%s); with ip targets, check the traffic port", k, port, why)
	}
}

func (s *checkState) checkTGBs() {
	for _, it := range s.items {
		if it.tgb == nil {
			continue
		}
		sp := it.tgb.Spec
		switch {
		case sp.TargetType == nil:
			s.add(it, RuleTGBTargetType, "spec.targetType", setTo(FieldPath{{Key: "spec"}, {Key: "targetType"}}, "ip"),
				"TargetGroupBinding does not set spec.targetType; the chart should say ip")
		case *sp.TargetType != v1beta1.TargetTypeIP:
			s.add(it, RuleTGBTargetType, "spec.targetType", nil,
				"spec.targetType is %q, want \"ip\"; it is immutable: recreate the binding with tgbind and cutover", string(*sp.TargetType))
		}
		if !sp.MultiClusterTargetGroup {
			s.add(it, RuleTGBMultiCluster, "spec.multiClusterTargetGroup", setTo(FieldPath{{Key: "spec"}, {Key: "multiClusterTargetGroup"}}, true),
				"TargetGroupBinding adopts an existing target group without spec.multiClusterTargetGroup: true; the LBC would deregister the targets it did not register")
		}
	}
}

func (s *checkState) checkNamespaces() {
	for _, ns := range slices.Sorted(maps.Keys(s.ipNamespaces)) {
		has := s.nsTargets[ns].phrase(s.ipNamespaces[ns].ref().String())
		it, ok := s.namespaces[ns]
		if !ok {
			s.res.Notices = append(s.res.Notices, Notice{
				Object:  ObjectRef{APIVersion: "v1", Kind: "Namespace", Name: ns},
				Message: fmt.Sprintf("namespace %s has %s but is not in the manifests: make sure it carries the label %s=enabled", ns, has, labelReadinessGate),
			})
			continue
		}
		path := FieldPath{{Key: "metadata"}, {Key: "labels"}, {Key: labelReadinessGate}}
		if v := it.obj.Labels()[labelReadinessGate]; v != "enabled" {
			msg := fmt.Sprintf("namespace has %s but no label %s=enabled", has, labelReadinessGate)
			if v != "" {
				msg = fmt.Sprintf("namespace has %s but %s is %q, want \"enabled\"", has, labelReadinessGate, v)
			}
			s.add(it, RuleNamespaceReadiness, path.String(), &Change{Op: OpSet, Path: path, Value: "enabled"}, "%s", msg)
		}
	}
}

// backing describes the Services behind LBC targets in front of a
// workload.
type backing struct {
	services []string
	ports    []intstr.IntOrString
	why      string
	targets  targetState
}

// behind words where the workload sits: "ip targets (why)", or the state
// the targets are in today.
func (b *backing) behind() string { return b.targets.phrase(b.why) }

// ipService is a Service behind LBC targets, with its selector compiled.
type ipService struct {
	it  *item
	sel labels.Selector
	backer
}

// ipServicesByNamespace groups the Services behind ip targets, in name order.
func (s *checkState) ipServicesByNamespace() map[string][]ipService {
	out := map[string][]ipService{}
	for _, key := range slices.Sorted(maps.Keys(s.ipBacked)) {
		svcIt := s.services[key]
		if svcIt == nil || len(svcIt.svc.Spec.Selector) == 0 {
			continue
		}
		out[svcIt.ns] = append(out[svcIt.ns], ipService{it: svcIt, sel: labels.SelectorFromSet(svcIt.svc.Spec.Selector), backer: s.ipBacked[key]})
	}
	return out
}

func backingOf(it *item, svcs []ipService) *backing {
	var b backing
	podLabels := labels.Set(it.template.Labels)
	for _, sv := range svcs {
		if !sv.sel.Matches(podLabels) {
			continue
		}
		b.services = append(b.services, sv.it.obj.Name)
		if b.why == "" {
			b.why = "Service " + sv.it.obj.Name + ": " + sv.why
			b.targets = sv.targets
		} else {
			b.targets = b.targets.and(sv.targets)
		}
		for _, p := range sv.it.svc.Spec.Ports {
			tp := p.TargetPort
			if tp.Type == intstr.Int && tp.IntVal == 0 {
				tp = intstr.FromInt32(p.Port)
			}
			b.ports = append(b.ports, tp)
		}
	}
	if len(b.services) == 0 {
		return nil
	}
	return &b
}

// servingContainers returns the indexes of the containers that declare one
// of the ports, or of every container when none does.
func servingContainers(spec *corev1.PodSpec, ports []intstr.IntOrString) []int {
	var idx []int
	for i, c := range spec.Containers {
		if slices.ContainsFunc(c.Ports, func(cp corev1.ContainerPort) bool {
			return slices.ContainsFunc(ports, func(p intstr.IntOrString) bool {
				if p.Type == intstr.String {
					return cp.Name != "" && cp.Name == p.StrVal
				}
				return cp.ContainerPort == p.IntVal
			})
		}) {
			idx = append(idx, i)
		}
	}
	if idx == nil {
		for i := range spec.Containers {
			idx = append(idx, i)
		}
	}
	return idx
}

// preStopDelay reads a container's preStop delay: a sleep action, or an exec
// hook that runs sleep N. present is false without a preStop hook; known is
// false when the hook's duration cannot be read (httpGet, other commands).
func preStopDelay(c *corev1.Container) (seconds int64, known, present bool) {
	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil {
		return 0, false, false
	}
	h := c.Lifecycle.PreStop
	switch {
	case h.Sleep != nil:
		return h.Sleep.Seconds, true, true
	case h.Exec != nil:
		if a, ok := findSleep(h.Exec.Command); ok {
			return a.seconds, true, true
		}
	}
	return 0, false, true
}

// raisePreStop is the change that raises a container's readable preStop
// delay (see [preStopDelay]) to seconds: the sleep action's seconds, or the
// argument of sleep in the exec command, with the rest of the command as
// it was. Nil when the hook has neither.
func raisePreStop(c *corev1.Container, lc FieldPath, seconds int64) *Change {
	h := c.Lifecycle.PreStop
	switch {
	case h.Sleep != nil:
		return setTo(lc.Append(PathStep{Key: "sleep"}, PathStep{Key: "seconds"}), seconds)
	case h.Exec != nil:
		a, ok := findSleep(h.Exec.Command)
		if !ok {
			return nil
		}
		cmd := make([]any, len(h.Exec.Command))
		for i, w := range h.Exec.Command {
			cmd[i] = w
		}
		el := h.Exec.Command[a.item]
		cmd[a.item] = el[:a.start] + strconv.FormatInt(seconds, 10) + el[a.end:]
		return setTo(lc.Append(PathStep{Key: "exec"}, PathStep{Key: "command"}), cmd)
	}
	return nil
}

// sleepArg is the argument of a sleep in a command: the item of the
// command that holds it, its byte span in that item, and its value.
type sleepArg struct {
	item, start, end int
	seconds          int64
}

// sleepUnits are the suffixes sleep(1) takes, in seconds.
var sleepUnits = map[byte]float64{'s': 1, 'm': 60, 'h': 3600, 'd': 86400}

// findSleep finds the first "sleep N" in a command such as
// ["sleep", "30"] or ["/bin/sh", "-c", "sleep 30 && nginx -s quit"]. N is
// a number of seconds, or a number with a unit of sleep(1) (s, m, h, d);
// quotes and a trailing ; or & around it are not part of it. "sleep
// infinity" and anything else that is not a finite number is not read.
func findSleep(cmd []string) (sleepArg, bool) {
	afterSleep := false
	for item, el := range cmd {
		for start := 0; start < len(el); {
			if isSpace(el[start]) {
				start++
				continue
			}
			end := start
			for end < len(el) && !isSpace(el[end]) {
				end++
			}
			w := el[start:end]
			if afterSleep {
				lead := len(w) - len(strings.TrimLeft(w, `"';&`))
				arg := strings.Trim(w, `"';&`)
				if n, ok := sleepSeconds(arg); ok {
					return sleepArg{item: item, start: start + lead, end: start + lead + len(arg), seconds: n}, true
				}
			}
			afterSleep = w == "sleep" || strings.HasSuffix(w, "/sleep")
			start = end
		}
	}
	return sleepArg{}, false
}

// isSpace reports whether b separates the words of a shell command.
func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'
}

// sleepSeconds reads the argument of sleep(1) in whole seconds.
func sleepSeconds(arg string) (int64, bool) {
	mult := 1.0
	if arg != "" {
		if m, ok := sleepUnits[arg[len(arg)-1]]; ok {
			arg, mult = arg[:len(arg)-1], m
		}
	}
	n, err := strconv.ParseFloat(arg, 64)
	if err != nil || math.IsNaN(n) || math.IsInf(n, 0) || n < 0 || n*mult > math.MaxInt32 {
		return 0, false
	}
	return int64(n * mult), true
}

func (s *checkState) checkWorkloads() {
	pdbs := map[string][]labels.Selector{}
	for _, it := range s.items {
		if it.pdb != nil {
			if sel := pdbSelector(it.pdb); sel != nil {
				pdbs[it.ns] = append(pdbs[it.ns], sel)
			}
		}
	}
	svcs := s.ipServicesByNamespace()
	for _, it := range s.items {
		if it.template == nil {
			continue
		}
		b := backingOf(it, svcs[it.ns])
		if b == nil {
			continue
		}
		var base FieldPath
		if it.gk != gkPod {
			base = FieldPath{{Key: "spec"}, {Key: "template"}}
		}
		spec := &it.template.Spec
		specPath := base.Append(PathStep{Key: "spec"})
		safe := s.c.opts.PreStopSeconds
		serving := servingContainers(spec, b.ports)
		var maxDelay int64
		for _, i := range serving {
			c := &spec.Containers[i]
			lc := specPath.Append(PathStep{Key: "containers"}, PathStep{Item: c.Name}, PathStep{Key: "lifecycle"}, PathStep{Key: "preStop"})
			delay, known, present := preStopDelay(c)
			switch {
			case !present:
				s.add(it, RuleWorkloadPreStop, lc.String(),
					&Change{Op: OpSet, Path: lc, Value: map[string]any{"sleep": map[string]any{"seconds": safe}}},
					"container %s has no preStop delay, behind %s; it would exit while the load balancer still routes to it", c.Name, b.behind())
			case known && delay < safe:
				s.add(it, RuleWorkloadPreStop, lc.String(), raisePreStop(c, lc, safe),
					"container %s, behind %s, has a preStop delay of %d seconds, shorter than the deregistration lag it must outlast: want at least %d seconds (%s)",
					c.Name, b.behind(), delay, safe, s.c.preStopWhy)
			}
			if known {
				maxDelay = max(maxDelay, delay)
			}
		}
		if len(serving) > 0 {
			grace := int64(corev1.DefaultTerminationGracePeriodSeconds)
			if spec.TerminationGracePeriodSeconds != nil {
				grace = *spec.TerminationGracePeriodSeconds
			}
			// The grace period must cover the delay TGM-H008 asks for (the
			// longer of the one seen and the safe one) and the shutdown
			// margin: cutover's plan asks the same of the workload, and
			// fixing both rules in one round then holds. With no hook, or
			// none whose delay can be read, that is the safe delay's: the
			// plan asks for it all the same.
			delay, which := maxDelay, "the preStop delay"
			if safe > maxDelay {
				delay, which = safe, "the safe preStop delay"
			}
			if want := delay + s.c.opts.GracePaddingSeconds; grace < want {
				gp := specPath.Append(PathStep{Key: "terminationGracePeriodSeconds"})
				s.add(it, RuleWorkloadGracePeriod, gp.String(), setTo(gp, want),
					"terminationGracePeriodSeconds is %d, shorter than %s of %d seconds plus %d seconds for the app to shut down; want %d",
					grace, which, delay, s.c.opts.GracePaddingSeconds, want)
			}
		}
		if it.gk == gkDeployment || it.gk == gkStateful || it.gk == gkReplicaSet {
			podLabels := labels.Set(it.template.Labels)
			if !slices.ContainsFunc(pdbs[it.ns], func(sel labels.Selector) bool { return sel.Matches(podLabels) }) {
				switch n, from := s.replicas(it); {
				case n == 0:
					// No pod to keep serving.
				case n == 1:
					// maxUnavailable 1 lets the eviction take the only
					// pod; minAvailable 1 blocks the node's drain for good.
					s.addNoFix(it, RuleWorkloadPDB, "", oneReplica,
						"%s behind %s has one replica (%s): a PDB cannot keep it serving, since maxUnavailable 1 lets node replacement evict the only pod and minAvailable 1 blocks the node's drain; run at least 2 replicas, then give it a PodDisruptionBudget",
						it.obj.Kind, b.behind(), from)
				default:
					s.add(it, RuleWorkloadPDB, "", &Change{Op: OpAddPDB},
						"%s behind %s has no PodDisruptionBudget; node replacement could evict every replica at once", it.obj.Kind, b.behind())
				}
			}
		}
	}
}

// oneReplica is why a workload of one replica gets no PodDisruptionBudget.
const oneReplica = "one replica: a PDB cannot keep it serving; run at least 2 replicas, then add one"

var gkHPA = schema.GroupKind{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}

// replicas is the number of pods a workload runs, and where that number
// comes from: the minReplicas of a HorizontalPodAutoscaler in the manifests
// that scales it, else spec.replicas, else Kubernetes' default of 1.
func (s *checkState) replicas(it *item) (int64, string) {
	for _, h := range s.items {
		if h.gk != gkHPA || h.ns != it.ns {
			continue
		}
		ref := nestedMap(h.obj.Fields, "spec", "scaleTargetRef")
		if ref["kind"] != it.obj.Kind || ref["name"] != it.obj.Name {
			continue
		}
		if n, ok := asInt(nested(h.obj.Fields, "spec", "minReplicas")); ok {
			return n, "minReplicas of HorizontalPodAutoscaler " + h.obj.Name
		}
		return 1, "HorizontalPodAutoscaler " + h.obj.Name + " sets no minReplicas"
	}
	if n, ok := asInt(nested(it.obj.Fields, "spec", "replicas")); ok {
		return n, "spec.replicas"
	}
	return 1, "spec.replicas is not set"
}

func asInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case float64:
		return int64(n), true
	}
	return 0, false
}

// pdbSelector compiles a budget's selector; nil when it selects no pods
// (policy/v1: a nil selector selects none) or is invalid.
func pdbSelector(p *policyv1.PodDisruptionBudget) labels.Selector {
	if p.Spec.Selector == nil {
		return nil
	}
	sel, err := metav1.LabelSelectorAsSelector(p.Spec.Selector)
	if err != nil {
		return nil
	}
	return sel
}

func (s *checkState) checkNodePorts() {
	for _, it := range s.items {
		if it.svc == nil || it.svc.Spec.Type != corev1.ServiceTypeNodePort || s.boundServices[nsName(it.ns, it.obj.Name)] {
			continue
		}
		var fixed []string
		for _, p := range it.svc.Spec.Ports {
			if p.NodePort != 0 {
				fixed = append(fixed, strconv.Itoa(int(p.NodePort)))
			}
		}
		if len(fixed) > 0 {
			s.add(it, RuleNodePortUnbound, "spec.ports", nil,
				"NodePort Service pins nodePort %s but no TargetGroupBinding or ALB Ingress in the manifests binds it: the pattern of a hand-made target group of nodeIP:NodePort targets",
				strings.Join(fixed, ", "))
		}
	}
}

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

func setTo(p FieldPath, v any) *Change { return &Change{Op: OpSet, Path: p, Value: v} }

func annPath(key string) FieldPath {
	return FieldPath{{Key: "metadata"}, {Key: "annotations"}, {Key: key}}
}
