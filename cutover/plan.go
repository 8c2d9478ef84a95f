package cutover

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/qstools/tgmigrate/internal/awserr"
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

// TargetGroupInfo is the target group as the plan found it.
type TargetGroupInfo struct {
	// ARN and Name identify it; AccountID and Region come from the ARN.
	ARN       string `json:"arn"`
	Name      string `json:"name"`
	AccountID string `json:"accountID"`
	Region    string `json:"region"`
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

// ServiceInfo is the Service port whose pods take over.
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

// computeDigest returns the digest of the plan's JSON with Digest empty.
func (p *Plan) computeDigest() (string, error) {
	c := *p
	c.Digest = ""
	b, err := json.Marshal(&c)
	if err != nil {
		return "", fmt.Errorf("cutover: plan digest: %w", err)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// seal sets the digest.
func (p *Plan) seal() error {
	d, err := p.computeDigest()
	if err != nil {
		return err
	}
	p.Digest = d
	return nil
}

// validate checks a plan before Execute or Rollback uses it: its schema
// version, its digest, and what the executor relies on.
func (p *Plan) validate(op string) error {
	bad := func(reason string) error { return &InputError{Op: op, Field: "plan", Reason: reason} }
	if p == nil {
		return bad("nil")
	}
	if p.SchemaVersion != PlanSchemaVersion {
		return bad(fmt.Sprintf("schemaVersion %d is not %d", p.SchemaVersion, PlanSchemaVersion))
	}
	d, err := p.computeDigest()
	if err != nil {
		return err
	}
	if d != p.Digest {
		return bad(fmt.Sprintf("digest %s does not match its content (%s): the plan was edited; make a new one", p.Digest, d))
	}
	if _, err := awserr.ParseTargetGroupARN(p.TargetGroup.ARN); err != nil {
		return &InputError{Op: op, Field: "plan.targetGroup.arn", Reason: "malformed", Err: err}
	}
	if p.Strategy != StrategyInPlace && p.Strategy != StrategyBlueGreen {
		return bad(fmt.Sprintf("strategy %q is not %s or %s", p.Strategy, StrategyInPlace, StrategyBlueGreen))
	}
	if len(p.Steps) == 0 {
		return bad("no steps")
	}
	if p.Floor < 1 {
		return bad(fmt.Sprintf("floor %d is below 1", p.Floor))
	}
	if err := p.Request.Assumptions.Validate(); err != nil {
		return bad(err.Error())
	}
	if err := validNamespace(op, p.Binding.Namespace); err != nil {
		return err
	}
	if p.Strategy == StrategyInPlace && p.Binding.Object == nil {
		return bad("an in-place plan without its binding")
	}
	if p.Strategy == StrategyBlueGreen && (p.BlueGreen == nil || len(p.BlueGreen.Routes) == 0) {
		return bad("a blue/green plan without its routes")
	}
	seen := map[string]bool{}
	for _, s := range p.Steps {
		if seen[s.ID] {
			return bad(fmt.Sprintf("step %q appears twice", s.ID))
		}
		seen[s.ID] = true
	}
	return nil
}

// JSON returns the plan as indented, versioned JSON with a final newline.
func (p *Plan) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("cutover: plan json: %w", err)
	}
	return append(b, '\n'), nil
}

// ParsePlan reads a plan's JSON. An unknown schemaVersion, an unknown
// field, or a digest that does not match the content gives an *InputError:
// a saved plan is applied exactly as planned, or not at all.
func ParsePlan(data []byte) (*Plan, error) {
	const op = "parse plan"
	var probe struct {
		SchemaVersion *int `json:"schemaVersion"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, &InputError{Op: op, Field: "plan", Reason: "not JSON", Err: err}
	}
	if probe.SchemaVersion == nil || *probe.SchemaVersion != PlanSchemaVersion {
		got := "none"
		if probe.SchemaVersion != nil {
			got = strconv.Itoa(*probe.SchemaVersion)
		}
		return nil, &InputError{Op: op, Field: "schemaVersion", Reason: fmt.Sprintf("%s is not %d", got, PlanSchemaVersion)}
	}
	var p Plan
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, &InputError{Op: op, Field: "plan", Reason: "cannot decode", Err: err}
	}
	if err := p.validate(op); err != nil {
		return nil, err
	}
	return &p, nil
}

// PolicyInput returns what [PolicyFor] needs to know about the plan: what
// its steps call (Step.Calls) and what its rollback calls. Every plan
// deregisters targets of its target group and its rollback registers the
// live nodes there; ModifyTargetGroup is asked for only when a step aligns
// the health check (the rollback then restores it), and
// ModifyTargetGroupAttributes only when blue/green's create step sets the
// new target group's attributes.
func (p *Plan) PolicyInput() PolicyInput {
	in := PolicyInput{TargetGroupARN: p.TargetGroup.ARN, CheckSecurityGroups: p.Network != nil && p.Network.Checked}
	for _, s := range p.Steps {
		in.ModifyHealthCheck = in.ModifyHealthCheck || slices.Contains(s.Calls, callModifyTG)
		in.NewTargetGroupAttributes = in.NewTargetGroupAttributes || slices.Contains(s.Calls, callModifyAttr)
	}
	if bg := p.BlueGreen; bg != nil {
		for _, r := range bg.Routes {
			if r.RuleARN != "" {
				in.RuleARNs = append(in.RuleARNs, r.RuleARN)
			} else {
				in.ListenerARNs = append(in.ListenerARNs, r.ListenerARN)
			}
		}
		slices.Sort(in.ListenerARNs)
		in.ListenerARNs = slices.Compact(in.ListenerARNs)
		slices.Sort(in.RuleARNs)
		in.RuleARNs = slices.Compact(in.RuleARNs)
		in.NewTargetGroupName = bg.NewTargetGroup.Name
		in.DeleteNewTargetGroup = true
	}
	return in
}

// ControllerPolicy returns what the AWS Load Balancer Controller's own IAM
// role needs for this plan's binding, as its reconciles call it: the
// target health (elasticloadbalancing:Describe*), RegisterTargets and
// DeregisterTargets on the target group (blue/green: the one the plan
// creates); ec2:DescribeVpcs and ec2:DescribeSecurityGroups on every
// reconcile, with or without spec.networking (a controller without them
// registers nothing: the binding is stuck, not slow); and, when the plan
// sets spec.networking (Network.Networking),
// ec2:AuthorizeSecurityGroupIngress and RevokeSecurityGroupIngress on the
// pods' security groups. It is a check for the controller's installation,
// not a grant for tgmigrate.
func (p *Plan) ControllerPolicy() (*Policy, error) {
	tg, err := awserr.ParseTargetGroupARN(p.TargetGroup.ARN)
	if err != nil {
		return nil, &InputError{Op: "controller policy", Field: "TargetGroup.ARN", Reason: "malformed", Err: err}
	}
	target := tg.Raw
	if bg := p.BlueGreen; bg != nil {
		target = fmt.Sprintf("arn:%s:elasticloadbalancing:%s:%s:targetgroup/%s/*", tg.Partition, tg.Region, tg.AccountID, bg.NewTargetGroup.Name)
	}
	needs := []PolicyNeed{
		{Action: ActionDescribeELBv2, Resources: []string{"*"}},
		{Action: ActionRegisterTargets, Resources: []string{target}},
		{Action: ActionDeregisterTargets, Resources: []string{target}},
		{Action: ActionDescribeVpcs, Resources: []string{"*"}},
		{Action: ActionDescribeSecurityGroups, Resources: []string{"*"}},
	}
	if n := p.Network; n != nil && n.Networking {
		var groups []string
		for _, g := range n.PodSecurityGroups {
			groups = append(groups, fmt.Sprintf("arn:%s:ec2:%s:%s:security-group/%s", tg.Partition, tg.Region, tg.AccountID, g))
		}
		needs = append(needs, PolicyNeed{Action: ActionAuthorizeSecurityGroupIngress, Resources: groups},
			PolicyNeed{Action: ActionRevokeSecurityGroupIngress, Resources: groups})
	}
	return NewPolicy(needs...)
}

// controllerActions lists the actions of ControllerPolicy, for the text.
func (p *Plan) controllerActions() []string {
	out := []string{ActionRegisterTargets, ActionDeregisterTargets, ActionDescribeTargetHealth, ActionDescribeVpcs, ActionDescribeSecurityGroups}
	if n := p.Network; n != nil && n.Networking {
		out = append(out, ActionAuthorizeSecurityGroupIngress, ActionRevokeSecurityGroupIngress)
	}
	return out
}

// IAMPolicy returns the least-privilege IAM policy that Execute and
// Rollback of this plan need: the actions its steps call, scoped to its
// ARNs (see [PolicyFor]).
func (p *Plan) IAMPolicy() (*Policy, error) { return PolicyFor(p.PolicyInput()) }

// Text renders the plan for an operator: what was found, the guards, the
// recorded targets, the steps with their preconditions, effects, rollbacks
// and calls, and the estimate.
func (p *Plan) Text() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	tg := p.TargetGroup
	w("Plan %s (%s), schema v%d, made %s\n", p.ID, p.Strategy, p.SchemaVersion, p.CreatedAt.UTC().Format(time.RFC3339))
	w("  digest:        %s\n", p.Digest)
	w("  strategy:      %s: %s\n", p.Strategy, p.StrategyReason)
	w("  target group:  %s (%s, %s:%d, %s, account %s, %s)\n", tg.Name, tg.TargetType, tg.Protocol, tg.Port, tg.VPCID, tg.AccountID, tg.Region)
	w("                 %d targets, %d healthy; deregistration delay %ds\n", tg.Targets, tg.HealthyTargets, tg.DeregistrationDelaySeconds)
	w("  service:       %s/%s port %d -> %s (NodePort %d), %d ready endpoints on %v\n",
		p.Service.Namespace, p.Service.Name, p.Service.Port, p.Service.TargetPort, p.Service.NodePort, p.Service.ReadyEndpoints, p.Service.PodPorts)
	w("  binding:       %s/%s, multiClusterTargetGroup %t\n", p.Binding.Namespace, p.Binding.Name, p.Binding.MultiCluster)
	if n := p.Network; n != nil {
		switch {
		case !n.Checked:
			w("  network:       %s\n", n.Note)
		case n.Networking:
			w("  network:       %s/%d from %s to %s: %s\n", n.Protocol, n.Port, strings.Join(n.LoadBalancerSecurityGroups, ", "), strings.Join(n.PodSecurityGroups, ", "), n.Note)
		case n.Allowed:
			w("  network:       %s/%d from %s to %s: allowed (%s)\n", n.Protocol, n.Port, strings.Join(n.LoadBalancerSecurityGroups, ", "), strings.Join(n.PodSecurityGroups, ", "), n.By)
		default:
			w("  network:       %s/%d from %s to %s: blocked (%s)\n", n.Protocol, n.Port, strings.Join(n.LoadBalancerSecurityGroups, ", "), strings.Join(n.PodSecurityGroups, ", "), n.By)
		}
	}
	w("  controller:    the AWS Load Balancer Controller's IAM role needs %s (Plan.ControllerPolicy)\n", strings.Join(p.controllerActions(), ", "))
	w("  health check:  %s: %s\n", p.HealthCheck.Timing, p.HealthCheck.Reason)
	if p.HealthCheck.Timing != HealthCheckUnchanged {
		w("                 %s -> %s\n", hcString(p.HealthCheck.Original), hcString(p.HealthCheck.Target))
	}
	w("  floor:         %d healthy targets (%s)\n", p.Floor, p.FloorReason)
	if q := p.Quota; q != nil {
		w("  quotas:        %d targets per target group, %d per Application Load Balancer (%s)\n", q.Quotas.PerTargetGroup.Value, q.Quotas.PerApplicationLoadBalancer.Value, q.Source)
		for _, h := range q.Headroom {
			w("                 %s\n", h)
		}
		if q.Bounded {
			w("  overlap:       bounded to %d targets, in %s:\n", q.Room, plural(len(q.Waves), "wave"))
			for i, wv := range q.Waves {
				w("                 %d. deregister %d, keep %d node targets, register %d pod targets (%d in all); at least %d healthy\n", i+1, wv.Deregister, wv.Nodes, wv.Register, wv.Pods, wv.Healthy)
			}
		}
		if q.Rollback != "" {
			w("  rollback room: %s\n", q.Rollback)
		}
	}
	w("  assumptions:   %s\n", p.Request.Assumptions.String())
	if p.Request.NoDisruptionHold {
		w("  disruption:    not held (Request.NoDisruptionHold)\n")
	} else {
		w("  disruption:    held: %s on the nodes of the target group's targets and of the Service's pods, from %s to %s\n", AnnotationDoNotDisrupt, StepHoldDisruption, StepReleaseDisruption)
	}
	if bg := p.BlueGreen; bg != nil {
		w("  new group:     %s (ip, %s:%d), weights %v, hold %ds each\n", bg.NewTargetGroup.Name, bg.NewTargetGroup.Protocol, bg.NewTargetGroup.Port, bg.WeightSteps, bg.StepHoldSeconds)
		for _, r := range bg.Routes {
			what := "listener " + r.ListenerARN + " default action"
			if r.RuleARN != "" {
				what = "rule " + r.RuleARN
			}
			w("  route:         %s\n", what)
		}
	}
	w("Guards:\n")
	for _, g := range p.Guards {
		w("  %-8s %-7s %s\n", g.Status, g.ID, g.Detail)
	}
	for _, pc := range p.Preconditions {
		w("Precondition %s: %s\n", pc.Kind, pc.Reason)
		for _, c := range pc.Settings {
			w("  %s\n", c.String())
		}
		if pc.Rule != nil {
			w("  missing: %s\n", pc.Rule.String())
		}
		w("  Execute refuses the plan unless accepted: %s\n", pc.Kind.Option())
	}
	if len(p.Recorded) > 0 {
		w("Recorded targets to deregister (%d):\n", len(p.Recorded))
		for _, r := range p.Recorded {
			w("  %-22s %-6s %-9s %s\n", r.String(), r.Class, orDash(r.State), r.Note)
		}
	}
	if len(p.Others) > 0 {
		w("Other targets, left alone (%d):\n", len(p.Others))
		for _, r := range p.Others {
			w("  %-22s %-7s %-9s %s\n", r.String(), r.Class, orDash(r.State), r.Note)
		}
	}
	w("Steps:\n")
	for i, s := range p.Steps {
		w("  %d. %s [%s] %s\n", i+1, s.ID, s.Phase, s.Title)
		for _, pre := range s.Preconditions {
			w("       requires: %s\n", pre)
		}
		w("       effect:   %s\n", s.Effect)
		w("       rollback: %s\n", s.Rollback)
		if len(s.Calls) > 0 {
			w("       calls:    %s\n", strings.Join(s.Calls, ", "))
		}
	}
	e := p.Estimate
	if e.AlignmentSeconds > 0 {
		w("Estimate: floor %ds = max(registration %ds + health checks %ds, alignment confirmation %ds) + deregistration delay %ds\n",
			e.FloorSeconds, e.RegistrationSeconds, e.HealthCheckSeconds, e.AlignmentSeconds, e.DeregistrationDelaySeconds)
	} else {
		w("Estimate: floor %ds = registration %ds + health checks %ds + deregistration delay %ds + holds %ds\n",
			e.FloorSeconds, e.RegistrationSeconds, e.HealthCheckSeconds, e.DeregistrationDelaySeconds, e.HoldSeconds)
	}
	for _, wt := range e.Waits {
		w("  wait %s\n", wt.String())
	}
	if len(p.Reads) > 0 {
		w("Planning read: %s\n", strings.Join(p.Reads, ", "))
	}
	for _, s := range p.Warnings {
		w("Warning: %s\n", s)
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// hcString renders a health check on one line.
func hcString(h HealthCheckSettings) string {
	n := func(p *int32) string {
		if p == nil {
			return "-"
		}
		return strconv.Itoa(int(*p))
	}
	return fmt.Sprintf("%s %s %s every %ss, healthy after %s, matcher %s", orDash(h.Protocol), orDash(h.Port), orDash(h.Path),
		n(h.IntervalSeconds), n(h.HealthyThresholdCount), orDash(h.Matcher))
}
