package cutover

// plan.go holds the Plan and the plain data it is made of: the step IDs, the
// target group, Service, binding, health-check and blue/green parts, the
// guards' outcomes, the steps and the estimate, and the Plan's accessors.

import (
	"strconv"
	"time"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// PlanSchemaVersion is the version of a [Plan]'s JSON. [ParsePlan] rejects
// any other.
const PlanSchemaVersion = 1

// The IDs of the steps a plan may hold, in the order they may run.
const (
	// StepHoldDisruption puts karpenter.sh/do-not-disrupt on every node
	// that holds a target of the target group or a pod of the Service, so
	// that Karpenter starts no graceful disruption of them during the
	// cutover (both strategies; first). It then lets the disruptions that
	// had begun before it run out: their nodes' targets are deregistered
	// at once, and it waits until none of those nodes is left and the
	// deregistration lag (Assumptions.DeregistrationLag) has passed since
	// the last such deregistration, so that the target group's changes
	// begin on a fleet Karpenter is not moving (Result.SettleSeconds).
	StepHoldDisruption = "hold-disruption"
	// StepAlignHealthCheck sets the target group's health check to
	// traffic-port and the pods' readiness path (in-place).
	StepAlignHealthCheck = "align-health-check"
	// StepCreateTargetGroup creates the new ip target group (blue/green).
	StepCreateTargetGroup = "create-target-group"
	// StepBind creates the TargetGroupBinding through tgbind.
	StepBind = "bind"
	// StepMakeRoom deregisters node targets, down to the floor, so that
	// the pod targets fit under ELBv2's quotas (in-place, when the plan
	// bounds the overlap: Plan.Quota).
	StepMakeRoom = "make-room"
	// StepGate waits until the pod targets are healthy.
	StepGate = "gate"
	// StepDeregister deregisters the recorded node targets (in-place).
	StepDeregister = "deregister"
	// StepDrain waits out the deregistration delay (in-place).
	StepDrain = "drain"
	// StepDetach removes the old target group from the forward actions
	// (blue/green).
	StepDetach = "detach"
	// StepVerify checks the end state.
	StepVerify = "verify"
	// StepReleaseDisruption removes what the hold added (both strategies;
	// last).
	StepReleaseDisruption = "release-disruption"
)

// StepShift is the ID of the blue/green step that gives the new target
// group weight percent of the traffic ("shift-0" attaches it).
func StepShift(percent int32) string { return "shift-" + strconv.Itoa(int(percent)) }

// Plan is what [PlanCutover] found and what [Execute] will do: plain data,
// printable as text ([Plan.Text]) and as versioned JSON ([Plan.JSON],
// [ParsePlan]). Nothing in it has been done; Execute carries out exactly
// these steps, re-checking the world before each destructive call.
type Plan struct {
	// SchemaVersion is [PlanSchemaVersion].
	SchemaVersion int `json:"schemaVersion"`
	// ID is deterministic from the request: the same target group,
	// Service, port and strategy give the same ID. The journal is kept per
	// target group and refuses a second plan until the first is finished or
	// rolled back.
	ID string `json:"id"`
	// Digest is "sha256:" and the hex SHA-256 of the plan's JSON with the
	// digest left empty. [ParsePlan] and Execute refuse a plan whose digest
	// does not match: it was edited.
	Digest string `json:"digest"`
	// CreatedAt is when the plan was made, on Env.Clock.
	CreatedAt time.Time `json:"createdAt"`
	// Strategy is the strategy chosen, and StrategyReason why.
	Strategy       Strategy `json:"strategy"`
	StrategyReason string   `json:"strategyReason"`
	// Request is the request the plan answers, defaults applied.
	Request Request `json:"request"`
	// TargetGroup is the target group as it was.
	TargetGroup TargetGroupInfo `json:"targetGroup"`
	// Service is the Service whose pods take over.
	Service ServiceInfo `json:"service"`
	// Network is the security-group check: whether the load balancer may
	// reach the pods' port; nil when it did not apply.
	Network *NetworkPlan `json:"network,omitempty"`
	// Binding is the TargetGroupBinding the plan creates.
	Binding BindingPlan `json:"binding"`
	// HealthCheck is what happens to the health check.
	HealthCheck HealthCheckPlan `json:"healthCheck"`
	// Recorded are the targets the plan deregisters (in-place): node
	// targets and ghosts. Execute removes only these, and only after
	// checking each is still what it was.
	Recorded []RecordedTarget `json:"recorded"`
	// Others are the target group's other targets, left alone.
	Others []RecordedTarget `json:"others,omitempty"`
	// Floor is the fewest healthy targets the target group may hold at any
	// point; FloorReason says where it comes from.
	Floor       int    `json:"floor"`
	FloorReason string `json:"floorReason"`
	// Quota counts the cutover's targets against ELBv2's quotas: the
	// peak, the quotas and the room; and, when the overlap would pass a
	// quota, how the plan bounds it.
	Quota *QuotaPlan `json:"quota,omitempty"`
	// BlueGreen holds what only blue/green needs.
	BlueGreen *BlueGreenPlan `json:"blueGreen,omitempty"`
	// Guards are the guards' outcomes.
	Guards []GuardCheck `json:"guards"`
	// Preconditions are what the cutover's safety rests on that the world
	// does not give (the Service's pod settings): Execute refuses the plan
	// unless the caller accepts each kind ([WithAcceptPreconditions]).
	// Empty when everything is safe.
	Preconditions []Precondition `json:"preconditions,omitempty"`
	// Risks are residual risks Execute cannot remove (spot capacity among
	// the serving nodes), each with its bound under the plan's
	// assumptions. Execute does not refuse them.
	Risks []Risk `json:"risks,omitempty"`
	// Reads are the Kubernetes verbs PlanCutover used to make the plan
	// (its ELBv2 calls are the Describe* operations): what the operator
	// who plans needs in RBAC.
	Reads []string `json:"reads"`
	// Steps are the steps, in order.
	Steps []Step `json:"steps"`
	// Estimate is the expected duration.
	Estimate Estimate `json:"estimate"`
	// Warnings are things the operator should know; nothing failed.
	Warnings []string `json:"warnings,omitempty"`
}

// TargetGroupInfo is the target group as the plan found it: a
// [tgmigrate.TargetGroup] (built from it; its JSON, which the plan's digest
// covers, keeps its own field order), with its tags, deregistration delay
// and target counts.
type TargetGroupInfo struct {
	// ARN and Name identify it; AccountID and Region come from the ARN.
	ARN       tgmigrate.ARN `json:"arn"`
	Name      string        `json:"name"`
	AccountID string        `json:"accountID"`
	Region    string        `json:"region"`
	// TargetType is ip or instance.
	TargetType string `json:"targetType"`
	// Protocol, ProtocolVersion and Port are the target group's.
	Protocol        string `json:"protocol"`
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	Port            int32  `json:"port"`
	// VPCID is its VPC; IPAddressType ipv4 or ipv6.
	VPCID         string `json:"vpcID"`
	IPAddressType string `json:"ipAddressType,omitempty"`
	// LoadBalancerARNs are the load balancers that use it.
	LoadBalancerARNs []string `json:"loadBalancerARNs,omitempty"`
	// HealthCheck is its health check.
	HealthCheck HealthCheckSettings `json:"healthCheck"`
	// DeregistrationDelaySeconds is deregistration_delay.timeout_seconds.
	DeregistrationDelaySeconds int32 `json:"deregistrationDelaySeconds"`
	// Tags are its tags.
	Tags map[string]string `json:"tags,omitempty"`
	// Targets and HealthyTargets count its targets.
	Targets        int `json:"targets"`
	HealthyTargets int `json:"healthyTargets"`
}

// ServiceInfo is the Service port whose pods take over: the plan's view of
// a [tgmigrate.ServicePort] (filled from it; its JSON, which the plan's
// digest covers, keeps its own field order), with its endpoints and probe.
type ServiceInfo struct {
	// Namespace and Name identify the Service.
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Port is the Service port; PortName its name, if any.
	Port     int32  `json:"port"`
	PortName string `json:"portName,omitempty"`
	// TargetPort is the Service's targetPort, a number or a name.
	TargetPort string `json:"targetPort"`
	// NodePort is the Service's NodePort, the node targets' port.
	NodePort int32 `json:"nodePort,omitempty"`
	// PodPorts are the container ports of the ready endpoints.
	PodPorts []int32 `json:"podPorts,omitempty"`
	// ReadyEndpoints counts the ready endpoint IP:port pairs.
	ReadyEndpoints int `json:"readyEndpoints"`
	// ReadinessPath is the path of the pods' HTTP readiness probe on the
	// target port, "" when there is none.
	ReadinessPath string `json:"readinessPath,omitempty"`
	// ExternalTrafficPolicy is the Service's (Cluster or Local).
	ExternalTrafficPolicy string `json:"externalTrafficPolicy,omitempty"`
}

// BindingPlan is the TargetGroupBinding the plan creates.
type BindingPlan struct {
	// Namespace and Name identify it.
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// TargetGroupARN is the target group it binds: the plan's own
	// (in-place), or "" for the one blue/green creates.
	TargetGroupARN string `json:"targetGroupARN,omitempty"`
	// MultiCluster is spec.multiClusterTargetGroup: always true, so the LBC
	// deregisters only what it registered.
	MultiCluster bool `json:"multiCluster"`
	// Object is the binding as tgbind built it (in-place); blue/green
	// builds it once the new target group exists.
	Object *v1beta1.TargetGroupBinding `json:"object,omitempty"`
	// Notes are tgbind's remarks.
	Notes []string `json:"notes,omitempty"`
	// IngressSecurityGroups are the load balancer's security groups, set
	// when the security-group check found the pods' port blocked: the
	// binding's spec.networking lets them in, and the controller
	// authorizes the rule (see NetworkPlan).
	IngressSecurityGroups []string `json:"ingressSecurityGroups,omitempty"`
}

// HealthCheckTiming says when the health check is aligned.
type HealthCheckTiming string

// The timings.
const (
	// HealthCheckUnchanged: the health check already suits the pods.
	HealthCheckUnchanged HealthCheckTiming = "unchanged"
	// HealthCheckBeforeBinding: aligned first; the node targets pass the
	// new check too.
	HealthCheckBeforeBinding HealthCheckTiming = "before-binding"
	// HealthCheckAfterDeregistration: aligned once the node targets are
	// deregistered, because they would fail the new check.
	HealthCheckAfterDeregistration HealthCheckTiming = "after-deregistration"
	// HealthCheckOnNewTargetGroup: blue/green sets it on the new target
	// group; the old one keeps its own.
	HealthCheckOnNewTargetGroup HealthCheckTiming = "new-target-group"
)

// HealthCheckPlan is what happens to the health check.
type HealthCheckPlan struct {
	// Original is the health check before the cutover; Rollback restores it.
	Original HealthCheckSettings `json:"original"`
	// Target is the health check the pods need.
	Target HealthCheckSettings `json:"target"`
	// Timing says when Target is set, and Reason why.
	Timing HealthCheckTiming `json:"timing"`
	Reason string            `json:"reason"`
}

// RecordedTarget is one target of the target group as the plan found it.
type RecordedTarget struct {
	TargetAddr
	// Class is diagnose's class: node, ghost, pod or foreign.
	Class string `json:"class"`
	// Node is the node that holds the address (class node).
	Node string `json:"node,omitempty"`
	// State and Reason are its health at plan time.
	State  string `json:"state,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Note explains the class.
	Note string `json:"note,omitempty"`
}

// BlueGreenPlan is what only blue/green needs.
type BlueGreenPlan struct {
	// NewTargetGroup is the target group to create.
	NewTargetGroup NewTargetGroupSpec `json:"newTargetGroup"`
	// Routes are the listeners' default actions and the rules whose
	// forward actions send to the old target group.
	Routes []RoutePlan `json:"routes"`
	// WeightSteps are the new target group's weights, in percent, with 0
	// first.
	WeightSteps []int32 `json:"weightSteps"`
	// StepHoldSeconds is how long each weight above 0 is held.
	StepHoldSeconds int32 `json:"stepHoldSeconds"`
}

// NewTargetGroupSpec is the ip target group blue/green creates, cloned
// from the old one.
type NewTargetGroupSpec struct {
	// Name is deterministic: see Request.NewTargetGroupName.
	Name string `json:"name"`
	// Protocol, ProtocolVersion, Port, VPCID and IPAddressType are the
	// old target group's, except Port: the pods' port.
	Protocol        string `json:"protocol"`
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	Port            int32  `json:"port"`
	VPCID           string `json:"vpcID"`
	IPAddressType   string `json:"ipAddressType,omitempty"`
	// HealthCheck is the old one's, on traffic-port and the pods'
	// readiness path.
	HealthCheck HealthCheckSettings `json:"healthCheck"`
	// Attributes are copied from the old target group.
	Attributes map[string]string `json:"attributes,omitempty"`
	// Tags mark it as tgmigrate's ([TagCreatedBy]); Rollback deletes it
	// only when they do.
	Tags map[string]string `json:"tags"`
}

// RoutePlan is one forward action that sends to the old target group.
type RoutePlan struct {
	// ListenerARN is the listener. RuleARN is the rule, "" for the
	// listener's default action.
	ListenerARN string `json:"listenerARN"`
	RuleARN     string `json:"ruleARN,omitempty"`
	// Weights are the forward action's weights at plan time.
	Weights []TargetGroupWeight `json:"weights"`
}

// resource is the ARN ModifyListener or ModifyRule acts on.
func (r RoutePlan) resource() string {
	if r.RuleARN != "" {
		return r.RuleARN
	}
	return r.ListenerARN
}

// GuardStatus is a guard's outcome.
type GuardStatus string

// The outcomes.
const (
	GuardPassed  GuardStatus = "passed"
	GuardForced  GuardStatus = "forced"
	GuardSkipped GuardStatus = "skipped"
)

// GuardCheck is one guard's outcome.
type GuardCheck struct {
	// ID is "owner", "vpc" or "account".
	ID string `json:"id"`
	// Status is passed, forced (it failed and the caller overrode it) or
	// skipped (it could not run).
	Status GuardStatus `json:"status"`
	// Detail says what was compared.
	Detail string `json:"detail"`
}

// Step is one step of a plan.
type Step struct {
	// ID is stable (the Step* constants, [StepShift]).
	ID string `json:"id"`
	// Phase groups steps; the approval callback runs before each phase.
	Phase string `json:"phase"`
	// Title is one line.
	Title string `json:"title"`
	// Preconditions must hold before the step acts; Execute checks them.
	Preconditions []string `json:"preconditions,omitempty"`
	// Effect says what the step changes.
	Effect string `json:"effect"`
	// Rollback says how Rollback undoes it.
	Rollback string `json:"rollback"`
	// Calls are the API calls the step may make: IAM actions
	// ("elasticloadbalancing:DeregisterTargets") and Kubernetes verbs
	// ("kubernetes:apply targetgroupbindings").
	Calls []string `json:"calls"`
	// Mutates says whether the step may change anything.
	Mutates bool `json:"mutates"`
	// Weight is a shift step's weight of the new target group, in percent.
	Weight int32 `json:"weight,omitempty"`
}

// Estimate is the expected duration of the cutover, from the plan's
// [Assumptions] and the target group's settings. FloorSeconds is the least
// any safe cutover takes: in-place, the new pod targets' health
// (registration and the passing checks a new target needs) or, after an
// early health-check alignment, its confirmation window when that is
// longer, then the deregistration delay; blue/green, the new pod targets'
// health and the weight holds. Waits lists each of those waits with its
// reason and what it derives from.
type Estimate struct {
	// RegistrationSeconds is the registration delay before a new target's
	// first health check (Assumptions.RegistrationDelay: ELB does not
	// publish it).
	RegistrationSeconds int32 `json:"registrationSeconds"`
	// HealthCheckSeconds is the time from a new target's first check to the
	// last of the passing checks it needs (Assumptions.NewTargetChecks, or
	// the HealthyThresholdCount), one interval apart: (checks - 1) × the
	// health check's interval. The first check comes as the registration
	// delay ends.
	HealthCheckSeconds int32 `json:"healthCheckSeconds"`
	// AlignmentSeconds is, in-place with an early health-check alignment,
	// its confirmation window: UnhealthyThresholdCount × the interval of
	// the new check (see [StepGate]).
	AlignmentSeconds int32 `json:"alignmentSeconds,omitempty"`
	// DeregistrationDelaySeconds is the drain (in-place).
	DeregistrationDelaySeconds int32 `json:"deregistrationDelaySeconds"`
	// HoldSeconds is the sum of the weight holds (blue/green).
	HoldSeconds int32 `json:"holdSeconds"`
	// FloorSeconds is the least any safe cutover takes (see above).
	FloorSeconds int32 `json:"floorSeconds"`
	// Waits are the waits the floor is made of, in order.
	Waits []PlannedWait `json:"waits,omitempty"`
}

// Ref returns the plan's ID and digest, as the journal records them.
func (p *Plan) Ref() PlanRef { return PlanRef{ID: p.ID, Digest: p.Digest} }

// Step returns the step with that ID, or nil.
func (p *Plan) Step(id string) *Step {
	for i := range p.Steps {
		if p.Steps[i].ID == id {
			return &p.Steps[i]
		}
	}
	return nil
}

// StepIDs returns the steps' IDs in order.
func (p *Plan) StepIDs() []string {
	out := make([]string, len(p.Steps))
	for i, s := range p.Steps {
		out[i] = s.ID
	}
	return out
}

// RecordedAddrs returns the recorded targets' addresses.
func (p *Plan) RecordedAddrs() []TargetAddr {
	out := make([]TargetAddr, len(p.Recorded))
	for i, r := range p.Recorded {
		out[i] = r.TargetAddr
	}
	return out
}
