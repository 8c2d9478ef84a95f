package helmgov

// This file holds the evidence TGM-H007 to TGM-H011 share: which Services
// sit behind the LBC's targets and which targets they are today, and the
// workloads those Services select, with their serving containers.

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// indexTargets records what sits behind the LBC's targets, and which
// targets they are today.
func (s *checkState) indexTargets() {
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

// backedWorkload is a workload, or a Pod, behind LBC targets: what
// TGM-H008 to TGM-H010 check.
type backedWorkload struct {
	it *item
	b  *backing
	// spec is the pod spec, and specPath its path in the object.
	spec     *corev1.PodSpec
	specPath FieldPath
	// serving are the indexes of the serving containers
	// ([servingContainers]).
	serving []int
}

// backedWorkloads lists the workloads and Pods behind LBC targets, in
// object order. Helm hooks (a test Pod, a migration Job) are never among
// them: they run beside a release, and are not targets of its load
// balancer even when their labels match a Service's selector.
func (s *checkState) backedWorkloads() []backedWorkload {
	var out []backedWorkload
	svcs := s.ipServicesByNamespace()
	for _, it := range s.items {
		if it.template == nil || isHook(it.obj) {
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
		out = append(out, backedWorkload{it: it, b: b, spec: spec, specPath: base.Append(PathStep{Key: "spec"}),
			serving: servingContainers(spec, b.ports)})
	}
	return out
}

// hookAnnotation marks a Helm hook: a resource Helm creates at a point of
// the release's life (pre-install, test), outside the release's manifest.
const hookAnnotation = "helm.sh/hook"

// isHook reports whether the object is a Helm hook.
func isHook(o *Object) bool {
	_, ok := o.Annotations()[hookAnnotation]
	return ok
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
