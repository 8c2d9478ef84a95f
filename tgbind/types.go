package tgbind

// types.go: the package's plain data: Request, Binding and what it records,
// Preflight and Check, ApplyResult, DeleteResult and TargetState, with the
// ownership marks, the field manager and the JSON versions.

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// Ownership marks and the field manager. They are shared names across
// tgmigrate; never change them.
const (
	// FieldManager is the server-side apply field manager of every write.
	FieldManager = "tgmigrate"
	// LabelManagedBy is the label that marks a binding tgmigrate owns.
	LabelManagedBy = "app.kubernetes.io/managed-by"
	// ManagedByValue is LabelManagedBy's value on bindings tgmigrate owns.
	ManagedByValue = "tgmigrate"
	// AnnotationTargetGroupARN records the target group the binding was built for.
	AnnotationTargetGroupARN = "tgmigrate.qstools.io/target-group-arn"
	// AnnotationMultiClusterReason records why multiClusterTargetGroup has its
	// value, as a [MultiClusterReason].
	AnnotationMultiClusterReason = "tgmigrate.qstools.io/multi-cluster-reason"
)

// Versions of the JSON forms of this package's plain data. A reader should
// refuse a version it does not know.
const (
	// BindingVersion versions [Binding].
	BindingVersion = "tgbind.tgmigrate.qstools.io/v1"
	// PreflightVersion versions [Preflight].
	PreflightVersion = "tgbind.tgmigrate.qstools.io/v1"
	// TargetStateVersion versions [TargetState].
	TargetStateVersion = "tgbind.tgmigrate.qstools.io/v1"
)

// Request names the (target group, Service) pair to bind.
type Request struct {
	// TargetGroupARN is the existing target group, as
	// tgmigrate.ParseTargetGroupARN (or JSON) parsed it. Required.
	TargetGroupARN tgmigrate.ARN `json:"targetGroupARN"`
	// Namespace is the Service's namespace, where the binding is created. Required.
	Namespace string `json:"namespace"`
	// Service is the Service whose endpoints the LBC registers. Required.
	Service string `json:"service"`
	// Port is the Service port, by name or number. The zero value means the
	// Service's only port; a Service with several ports then fails with
	// ErrPortNotFound.
	Port intstr.IntOrString `json:"port"`
	// Name overrides the binding's name. Empty means [Name] of the Service,
	// the port and the target group's name.
	Name string `json:"name,omitempty"`
	// IngressSecurityGroups are the ALB's security groups. When set, the
	// binding gets one networking.ingress rule that lets them reach the
	// pods' port, and the LBC maintains the matching security-group rules.
	// Empty means no networking section (unless Build is given
	// [WithLoadBalancerSecurityGroups], which adds the load balancers'
	// groups from AWS): the node security groups stay as they are.
	IngressSecurityGroups []string `json:"ingressSecurityGroups,omitempty"`
	// MultiCluster asks for multiClusterTargetGroup true even when the target
	// group is empty. False lets Build decide; it still picks multi-cluster
	// whenever the target group holds any target.
	MultiCluster bool `json:"multiCluster,omitempty"`
	// Labels are added to the binding's labels. tgmigrate's ownership label
	// wins over them; the LBC's stack labels are refused. Nil adds none.
	Labels map[string]string `json:"labels,omitempty"`
	// Annotations are added to the binding's annotations. tgmigrate's
	// annotations win over them. Nil adds none.
	Annotations map[string]string `json:"annotations,omitempty"`
}

// MultiClusterReason says why multiClusterTargetGroup has its value. It is
// recorded on the binding in [AnnotationMultiClusterReason].
type MultiClusterReason string

// The reasons, in the order Build considers them.
const (
	// ReasonExistingBinding: a binding of the same name exists; its value is
	// kept, since the LBC advises against changing the flag.
	ReasonExistingBinding MultiClusterReason = "ExistingBinding"
	// ReasonRequested: the request asked for multi-cluster mode.
	ReasonRequested MultiClusterReason = "Requested"
	// ReasonSharedTargetGroup: other bindings reference the target group, and
	// the LBC's webhook requires all of them to be multi-cluster.
	ReasonSharedTargetGroup MultiClusterReason = "SharedTargetGroup"
	// ReasonForeignTargets: the target group holds targets that are not ready
	// endpoints of the Service (for example nodeIP:NodePort). Default mode
	// would deregister them before the pod targets are healthy.
	ReasonForeignTargets MultiClusterReason = "ForeignTargets"
	// ReasonNonEmptyTargetGroup: the target group holds targets, all of them
	// ready endpoints; multi-cluster mode is the safe default still.
	ReasonNonEmptyTargetGroup MultiClusterReason = "NonEmptyTargetGroup"
	// ReasonEmptyTargetGroup: the target group is empty, so default mode
	// (the LBC owns every target) removes nothing.
	ReasonEmptyTargetGroup MultiClusterReason = "EmptyTargetGroup"
)

// Binding is what Build produced: the TargetGroupBinding and the facts it
// was derived from. It is plain data; it prints as text ([Binding.String])
// and as versioned JSON.
type Binding struct {
	// Version is [BindingVersion].
	Version string `json:"version"`
	// TargetGroupBinding is the object to apply or render.
	TargetGroupBinding *v1beta1.TargetGroupBinding `json:"targetGroupBinding"`
	// TargetGroup describes the target group, as AWS reported it.
	TargetGroup TargetGroupInfo `json:"targetGroup"`
	// Service describes the Service port and its ready endpoints.
	Service ServiceInfo `json:"service"`
	// MultiCluster records the value of multiClusterTargetGroup and why.
	MultiCluster MultiClusterDecision `json:"multiCluster"`
	// LoadBalancers are the load balancers that forward to the target
	// group, with the security groups networking.ingress admits, when Build
	// was asked to look them up ([WithLoadBalancerSecurityGroups]); nil
	// otherwise.
	LoadBalancers []LoadBalancerInfo `json:"loadBalancers,omitempty"`
	// Notes are remarks for the operator: nothing failed, but they matter.
	Notes []string `json:"notes,omitempty"`
}

// LoadBalancerInfo is what AWS said about a load balancer that forwards to
// the target group.
type LoadBalancerInfo struct {
	// ARN, Name and Type (application, network, gateway) identify it.
	ARN  string `json:"arn"`
	Name string `json:"name"`
	Type string `json:"type,omitempty"`
	// SecurityGroups are its security groups, sorted; empty for a load
	// balancer without any.
	SecurityGroups []string `json:"securityGroups,omitempty"`
}

// TargetGroupInfo is what AWS said about the target group: the parts of a
// [tgmigrate.TargetGroup] a binding needs (built from it; its JSON keeps
// its own field order), with its target count.
type TargetGroupInfo struct {
	// ARN and Name identify the target group.
	ARN  string `json:"arn"`
	Name string `json:"name"`
	// TargetType is ip, instance, lambda or alb.
	TargetType string `json:"targetType"`
	// Protocol and Port are the target group's (the port is the default
	// for targets registered without one).
	Protocol string `json:"protocol,omitempty"`
	Port     int32  `json:"port,omitempty"`
	// VpcID is the target group's VPC.
	VpcID string `json:"vpcID,omitempty"`
	// IPAddressType is ipv4 or ipv6.
	IPAddressType string `json:"ipAddressType,omitempty"`
	// HealthCheckPort is "traffic-port" or a port number.
	HealthCheckPort string `json:"healthCheckPort,omitempty"`
	// Targets counts the registered targets, in any state.
	Targets int `json:"targets"`
}

// ServiceInfo is the Service port the binding references: the binding's
// view of a [tgmigrate.ServicePort] (filled from it; its JSON keeps its own
// field order), with its ready endpoints.
type ServiceInfo struct {
	// Namespace and Name identify the Service.
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// PortName is the Service port's name; it may be empty.
	PortName string `json:"portName,omitempty"`
	// Port is the Service port number.
	Port int32 `json:"port"`
	// TargetPort is the Service's targetPort, a number or a container port name.
	TargetPort string `json:"targetPort"`
	// NodePort is the Service's NodePort, or 0.
	NodePort int32 `json:"nodePort,omitempty"`
	// PodPorts are the container ports the ready endpoints listen on (the
	// targetPort resolved per EndpointSlice).
	PodPorts []int32 `json:"podPorts,omitempty"`
	// ReadyEndpoints counts the ready endpoint IP:port pairs.
	ReadyEndpoints int `json:"readyEndpoints"`
}

// MultiClusterDecision records the value of multiClusterTargetGroup and why.
type MultiClusterDecision struct {
	// Enabled is the value of spec.multiClusterTargetGroup.
	Enabled bool `json:"enabled"`
	// Reason is the rule that decided.
	Reason MultiClusterReason `json:"reason"`
	// Detail explains it in one line, with counts.
	Detail string `json:"detail"`
	// ForeignTargets are the registered targets (IP:port) that are not ready
	// endpoints of the Service: the ones default mode would deregister.
	ForeignTargets []string `json:"foreignTargets,omitempty"`
}

// Key returns the binding's namespace/name.
func (b *Binding) Key() string {
	if b == nil || b.TargetGroupBinding == nil {
		return ""
	}
	return b.TargetGroupBinding.Namespace + "/" + b.TargetGroupBinding.Name
}

// String renders the binding as text for an operator.
func (b *Binding) String() string {
	if b == nil || b.TargetGroupBinding == nil {
		return "<no binding>"
	}
	t := b.TargetGroupBinding
	var s strings.Builder
	fmt.Fprintf(&s, "TargetGroupBinding %s\n", b.Key())
	fmt.Fprintf(&s, "  target group:  %s (%s, %s:%d, %s, %s)\n", b.TargetGroup.Name, b.TargetGroup.TargetType,
		b.TargetGroup.Protocol, b.TargetGroup.Port, b.TargetGroup.VpcID, b.TargetGroup.IPAddressType)
	fmt.Fprintf(&s, "  service:       %s/%s port %s -> targetPort %s (%d ready endpoints)\n",
		b.Service.Namespace, b.Service.Name, t.Spec.ServiceRef.Port.String(), b.Service.TargetPort, b.Service.ReadyEndpoints)
	fmt.Fprintf(&s, "  multi-cluster: %t (%s): %s\n", b.MultiCluster.Enabled, b.MultiCluster.Reason, b.MultiCluster.Detail)
	for _, lb := range b.LoadBalancers {
		groups := "no security groups"
		if len(lb.SecurityGroups) > 0 {
			groups = "security groups " + strings.Join(lb.SecurityGroups, ", ")
		}
		fmt.Fprintf(&s, "  load balancer: %s (%s): %s\n", lb.Name, lb.Type, groups)
	}
	for _, n := range b.Notes {
		fmt.Fprintf(&s, "  note: %s\n", n)
	}
	return s.String()
}

// JSON returns the binding as indented, versioned JSON.
func (b *Binding) JSON() ([]byte, error) { return json.MarshalIndent(b, "", "  ") }

// CheckStatus is the outcome of one preflight check.
type CheckStatus string

// The outcomes.
const (
	CheckPassed  CheckStatus = "passed"
	CheckFailed  CheckStatus = "failed"
	CheckSkipped CheckStatus = "skipped"
)

// Check is one preflight check and its outcome.
type Check struct {
	// ID is stable, for example "vpc" or "dry-run".
	ID string `json:"id"`
	// Status is passed, failed or skipped.
	Status CheckStatus `json:"status"`
	// Detail says what was checked, why it failed, or why it was skipped.
	Detail string `json:"detail"`
}

// Preflight is the report of Validate: every check, in order, with its
// outcome. It is plain data.
type Preflight struct {
	// Version is [PreflightVersion].
	Version string `json:"version"`
	// Namespace and Name identify the binding.
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Checks lists every check in the order it ran.
	Checks []Check `json:"checks"`
	// Failures are the failed checks' field errors; empty when it passed.
	Failures []*FieldError `json:"failures,omitempty"`
	// Notes are warnings that do not fail the preflight.
	Notes []string `json:"notes,omitempty"`
}

// Passed reports whether no check failed.
func (p *Preflight) Passed() bool { return p != nil && len(p.Failures) == 0 }

// String renders the report as text, one check a line.
func (p *Preflight) String() string {
	if p == nil {
		return "<no preflight>"
	}
	var s strings.Builder
	fmt.Fprintf(&s, "preflight %s/%s:\n", p.Namespace, p.Name)
	for _, c := range p.Checks {
		fmt.Fprintf(&s, "  %-7s %-22s %s\n", c.Status, c.ID, c.Detail)
	}
	for _, n := range p.Notes {
		fmt.Fprintf(&s, "  note: %s\n", n)
	}
	return s.String()
}

// JSON returns the report as indented, versioned JSON.
func (p *Preflight) JSON() ([]byte, error) { return json.MarshalIndent(p, "", "  ") }

// Operation is what an Apply did.
type Operation string

// The operations.
const (
	OperationCreated   Operation = "created"
	OperationUpdated   Operation = "updated"
	OperationUnchanged Operation = "unchanged"
)

// ApplyResult reports an Apply.
type ApplyResult struct {
	// Namespace and Name identify the binding.
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Operation is created, updated or unchanged (the resourceVersion did not move).
	// With WithDryRun it is what would have happened.
	Operation Operation `json:"operation"`
	// DryRun is true when nothing was persisted.
	DryRun bool `json:"dryRun,omitempty"`
	// ResourceVersion is the binding's resourceVersion afterwards.
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// Preflight is the report of the checks that ran first.
	Preflight *Preflight `json:"preflight"`
}

// DeleteResult reports a Delete.
type DeleteResult struct {
	// Namespace and Name identify the binding.
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Deleted is false when the binding did not exist.
	Deleted bool `json:"deleted"`
	// DryRun is true when nothing was persisted.
	DryRun bool `json:"dryRun,omitempty"`
	// MultiCluster is the deleted binding's multiClusterTargetGroup.
	MultiCluster bool `json:"multiCluster"`
	// Warnings say what the LBC does to the target group next.
	Warnings []string `json:"warnings,omitempty"`
}

// TargetState compares the Service's ready endpoints with the target
// group's targets at one instant. It is plain data; Wait reports it to the
// progress callback, and [Binder.Observe] returns one.
type TargetState struct {
	// Version is [TargetStateVersion].
	Version string `json:"version"`
	// TargetGroupARN is the target group observed.
	TargetGroupARN string `json:"targetGroupARN"`
	// Namespace, Service and ServicePort name the Service port observed.
	Namespace   string `json:"namespace"`
	Service     string `json:"service"`
	ServicePort string `json:"servicePort"`
	// ObservedAt is when it was observed, on the injected clock.
	ObservedAt time.Time `json:"observedAt"`
	// Endpoints has one entry per ready endpoint IP:port, sorted, with its
	// state in the target group.
	Endpoints []EndpointTarget `json:"endpoints"`
	// Others are the registered targets that are not ready endpoints (for
	// example nodeIP:NodePort targets, or pods that went away), sorted.
	Others []EndpointTarget `json:"others,omitempty"`
	// Total is the number of ready endpoints.
	Total int `json:"total"`
	// Registered counts the ready endpoints registered in the target group.
	Registered int `json:"registered"`
	// Healthy counts the ready endpoints whose target is healthy.
	Healthy int `json:"healthy"`
	// OthersHealthy counts the healthy targets among Others.
	OthersHealthy int `json:"othersHealthy"`
	// Reasons counts the ELB reason codes of the ready endpoints that are not
	// healthy, for example {"Elb.InitialHealthChecking": 3}. An endpoint that
	// is not registered counts as "Target.NotRegistered".
	Reasons map[string]int `json:"reasons,omitempty"`
}

// EndpointTarget is one IP:port and its health in the target group.
type EndpointTarget struct {
	// IP is the target's address, in canonical form.
	IP string `json:"ip"`
	// Port is the target's port: the container port for a pod.
	Port int32 `json:"port"`
	// State is the ELB target state (initial, healthy, unhealthy, unused,
	// draining, unavailable), or "" when the target is not registered.
	State string `json:"state,omitempty"`
	// Reason is the ELB reason code, when there is one.
	Reason string `json:"reason,omitempty"`
}

// ReasonNotRegistered is the reason counted for a ready endpoint that is not
// a target yet. It is the code ELB itself reports for such a target.
const ReasonNotRegistered = "Target.NotRegistered"

// AllHealthy reports whether there is at least one ready endpoint and every
// ready endpoint is a healthy target.
func (s *TargetState) AllHealthy() bool { return s != nil && s.Total > 0 && s.Healthy == s.Total }

// Summary is one line, for example
// "2/3 healthy (Elb.InitialHealthChecking: 1), 4 other targets (4 healthy)".
func (s *TargetState) Summary() string {
	if s == nil {
		return "no observation"
	}
	msg := fmt.Sprintf("%d/%d healthy", s.Healthy, s.Total)
	if len(s.Reasons) > 0 {
		keys := slices.Sorted(maps.Keys(s.Reasons))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s: %d", k, s.Reasons[k])
		}
		msg += " (" + strings.Join(parts, ", ") + ")"
	}
	if n := len(s.Others); n == 1 {
		msg += fmt.Sprintf(", 1 other target (%d healthy)", s.OthersHealthy)
	} else if n > 1 {
		msg += fmt.Sprintf(", %d other targets (%d healthy)", n, s.OthersHealthy)
	}
	return msg
}

// String renders the state as text, one target a line.
func (s *TargetState) String() string {
	if s == nil {
		return "no observation"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s port %s in %s: %s\n", s.Namespace, s.Service, s.ServicePort, s.TargetGroupARN, s.Summary())
	for _, e := range s.Endpoints {
		fmt.Fprintf(&b, "  endpoint %s %s %s\n", hostPort(e.IP, e.Port), orDash(e.State), e.Reason)
	}
	for _, e := range s.Others {
		fmt.Fprintf(&b, "  other    %s %s %s\n", hostPort(e.IP, e.Port), orDash(e.State), e.Reason)
	}
	return b.String()
}

// JSON returns the state as indented, versioned JSON.
func (s *TargetState) JSON() ([]byte, error) { return json.MarshalIndent(s, "", "  ") }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
