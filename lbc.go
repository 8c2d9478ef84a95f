package tgmigrate

// This file holds the AWS Load Balancer Controller's well-known names that
// more than one package reads: its owner tags on AWS resources, its
// readiness-gate label and condition prefix, and the one rule that says
// which of its stack tags a resource carries. Each package that needs a
// name of its own for one of them declares an alias of it.

// The LBC's owner tags on the AWS resources it creates (DOMAIN.md): a target
// group with none of them was made by hand or by another tool.
const (
	// TagLBCCluster names the cluster whose LBC made the resource.
	TagLBCCluster = "elbv2.k8s.aws/cluster"
	// TagLBCIngressStack names the Ingress group (namespace/name or group
	// name) whose LBC stack made the resource.
	TagLBCIngressStack = "ingress.k8s.aws/stack"
	// TagLBCServiceStack names the Service (namespace/name) whose LBC stack
	// made the resource.
	TagLBCServiceStack = "service.k8s.aws/stack"
	// TagLBCIngressResource names the resource's role inside an Ingress stack.
	TagLBCIngressResource = "ingress.k8s.aws/resource"
	// TagLBCServiceResource names the resource's role inside a Service stack.
	TagLBCServiceResource = "service.k8s.aws/resource"
)

// The LBC's pod readiness gate.
const (
	// LabelReadinessGateInject on a namespace turns on the LBC's
	// readiness-gate webhook, with the value "enabled".
	LabelReadinessGateInject = "elbv2.k8s.aws/pod-readiness-gate-inject"
	// ReadinessGatePrefix starts the pod condition type of a binding's
	// readiness gate; the binding's name follows it:
	// target-health.elbv2.k8s.aws/<binding name>.
	ReadinessGatePrefix = "target-health.elbv2.k8s.aws/"
)

// LBCOwnerTags returns the LBC's owner tag keys, in the order a report
// lists them: the cluster tag, the stack tags, the resource tags.
func LBCOwnerTags() []string {
	return []string{TagLBCCluster, TagLBCIngressStack, TagLBCServiceStack, TagLBCIngressResource, TagLBCServiceResource}
}

// LBCStackTags returns the LBC's stack tag keys, Ingress first. The LBC
// also recognises the bindings it created itself by labels with these keys.
func LBCStackTags() []string {
	return []string{TagLBCIngressStack, TagLBCServiceStack}
}

// LBCStacksIn returns the keys of the stack tags that tags holds, Ingress
// first: a resource that carries one is managed by an LBC stack, whatever
// its cluster tag says. It is the one ownership rule that
// diagnose's handoff and cutover's owner guard both apply.
func LBCStacksIn(tags map[string]string) []string {
	var keys []string
	for _, k := range LBCStackTags() {
		if _, ok := tags[k]; ok {
			keys = append(keys, k)
		}
	}
	return keys
}
