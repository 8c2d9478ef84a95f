package diagnose

// This file is the Report: plain data, its JSON, its summary, and the
// deterministic order of its findings and errors.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"time"

	"github.com/qstools/tgmigrate"
)

// SchemaVersion is the version of the report's JSON form, written to its
// schemaVersion field. [ReportSchema] returns the matching JSON Schema. A
// field is only ever added within a version; anything else bumps it.
const SchemaVersion = 1

// Report is the result of [Diagnose]: plain data, deterministic in its
// ordering, printable as JSON ([Report.JSON]), Markdown ([Report.Markdown])
// and an aligned text table ([Report.Text]).
type Report struct {
	// SchemaVersion is [SchemaVersion].
	SchemaVersion int `json:"schemaVersion"`
	// GeneratedAt is when the scan started, on the injected clock.
	GeneratedAt time.Time `json:"generatedAt"`
	// Scope is the scope as given.
	Scope Scope `json:"scope"`
	// Accounts are the accounts scanned, sorted by ID and Region.
	Accounts []AccountReport `json:"accounts"`
	// Clusters are the clusters read, sorted by name.
	Clusters []ClusterReport `json:"clusters"`
	// TargetGroups are the target groups in scope, sorted by account,
	// Region, name and ARN.
	TargetGroups []TargetGroupReport `json:"targetGroups"`
	// Findings are the findings not tied to one target group (per cluster).
	// The others are in each TargetGroupReport; [Report.AllFindings] joins both.
	Findings []Finding `json:"findings"`
	// Summary counts targets, findings and errors.
	Summary Summary `json:"summary"`
	// Errors are the resources that could not be read, sorted. The report
	// is partial for them and complete for the rest.
	Errors []ResourceError `json:"errors"`
}

// AccountReport is what was scanned in one account and Region.
type AccountReport struct {
	// ID is the account ID.
	ID string `json:"id"`
	// Region is the Region.
	Region string `json:"region"`
	// EC2 reports whether an EC2 client was given for the subnet checks.
	EC2 bool `json:"ec2"`
	// TargetGroups counts the target groups in scope in this account.
	TargetGroups int `json:"targetGroups"`
	// APICalls counts the calls made, by operation, retries included.
	APICalls map[string]int `json:"apiCalls"`
	// Retries counts the throttled calls that were retried.
	Retries int `json:"retries"`
	// Quotas are ELBv2's quotas on targets that the cutover overlaps
	// ([TargetGroupReport].Headroom) are compared with: read through
	// Service Quotas when the account has a client, else AWS's documented
	// defaults; each quota's Source and Note say which, and why.
	Quotas *TargetQuotas `json:"quotas,omitempty"`
}

// ClusterReport is what was read in one cluster.
type ClusterReport struct {
	// Name is the cluster's name.
	Name string `json:"name"`
	// VPCID is the VPC as given; empty when unknown.
	VPCID string `json:"vpcID,omitempty"`
	// CIDRs are the address ranges as given.
	CIDRs []string `json:"cidrs,omitempty"`
	// Read reports whether every required kind could be listed. When false,
	// no target is called a ghost on this cluster's account: the IPs it
	// holds are unknown.
	Read bool `json:"read"`
	// Nodes, KarpenterNodes, Pods, Services, Bindings and NodeClaims count
	// what was listed.
	Nodes          int `json:"nodes"`
	KarpenterNodes int `json:"karpenterNodes"`
	Pods           int `json:"pods"`
	Services       int `json:"services"`
	Bindings       int `json:"bindings"`
	NodeClaims     int `json:"nodeClaims"`
	// BindingCRD reports whether the cluster serves the TargetGroupBinding CRD.
	BindingCRD bool `json:"bindingCRD"`
	// NodeClaimCRD reports whether the cluster serves Karpenter's v1 NodeClaims.
	NodeClaimCRD bool `json:"nodeClaimCRD"`
	// Notes say what could not be read and what follows from it.
	Notes []string `json:"notes,omitempty"`
}

// TargetGroupReport is one target group in scope: a [tgmigrate.TargetGroup]
// (its first fields are built from one), with what the scan found about it.
type TargetGroupReport struct {
	// ARN is the target group's ARN.
	ARN string `json:"arn"`
	// Name is the target group's name.
	Name string `json:"name"`
	// Account and Region are the ARN's.
	Account string `json:"account"`
	Region  string `json:"region"`
	// VPCID is the target group's VPC.
	VPCID string `json:"vpcID,omitempty"`
	// TargetType is ip, instance, lambda or alb.
	TargetType string `json:"targetType"`
	// Protocol and Port are the target group's defaults for its targets.
	Protocol string `json:"protocol,omitempty"`
	Port     int32  `json:"port,omitempty"`
	// ProtocolVersion is HTTP1, HTTP2 or GRPC for HTTP(S) target groups.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	// IPAddressType is ipv4 or ipv6.
	IPAddressType string `json:"ipAddressType,omitempty"`
	// HealthCheck is the target group's health check.
	HealthCheck HealthCheck `json:"healthCheck"`
	// LBCTags are the AWS Load Balancer Controller's tags on the target
	// group (elbv2.k8s.aws/cluster, the stack and resource tags). Other
	// tags are not copied into the report.
	LBCTags map[string]string `json:"lbcTags,omitempty"`
	// Owner says who keeps the targets current.
	Owner Owner `json:"owner"`
	// Unknowns say what could not be read for this target group (a list
	// the cluster forbade or failed, its tags), and which judgements were
	// therefore not made. A finding whose evidence is missing is never
	// made; its absence is stated here instead.
	Unknowns []Unknown `json:"unknowns,omitempty"`
	// Service is the Service the target group serves, when known.
	Service *ServiceRef `json:"service,omitempty"`
	// LoadBalancerARNs are the load balancers that forward to it, sorted.
	LoadBalancerARNs []string `json:"loadBalancerARNs,omitempty"`
	// Routes are the listener rules that forward to it, sorted.
	Routes []Route `json:"routes,omitempty"`
	// Headroom compares a cutover's overlap with ELBv2's quotas on
	// targets, whether it fits or not: for the target group (or, for an
	// instance one, the ip target group blue/green creates), then for each
	// load balancer it names, by ARN. It is set when the target group
	// serves a known Service whose ready endpoints the controller would
	// register and the targets could be read; a load balancer whose other
	// target groups could not all be read is left out (Report.Errors says
	// why). A quota it exceeds is a TargetQuotaOverlap or
	// TargetQuotaExceeded finding.
	Headroom []Headroom `json:"headroom,omitempty"`
	// Targets are the registered targets, classified, sorted by address and port.
	Targets []TargetReport `json:"targets"`
	// Counts counts the targets by class and by ELB state.
	Counts TargetCounts `json:"counts"`
	// Findings are this target group's findings, most severe first.
	Findings []Finding `json:"findings"`
	// Error is set when the target group could not be fully read. Whatever
	// could be read is still reported.
	Error *ResourceError `json:"error,omitempty"`
}

// HealthCheck is a target group's health-check configuration.
type HealthCheck struct {
	// Enabled reports whether health checks are on.
	Enabled bool `json:"enabled"`
	// Protocol is HTTP, HTTPS, TCP...
	Protocol string `json:"protocol,omitempty"`
	// Port is "traffic-port" or a port number.
	Port string `json:"port,omitempty"`
	// Path is the HTTP(S) path.
	Path string `json:"path,omitempty"`
	// Matcher is the HTTP or gRPC success-code matcher.
	Matcher string `json:"matcher,omitempty"`
	// IntervalSeconds, TimeoutSeconds, HealthyThreshold and
	// UnhealthyThreshold are the timing settings.
	IntervalSeconds    int32 `json:"intervalSeconds,omitempty"`
	TimeoutSeconds     int32 `json:"timeoutSeconds,omitempty"`
	HealthyThreshold   int32 `json:"healthyThreshold,omitempty"`
	UnhealthyThreshold int32 `json:"unhealthyThreshold,omitempty"`
}

// OwnerKind says who keeps a target group's targets current.
type OwnerKind string

// The owner kinds.
const (
	// OwnerBinding: a TargetGroupBinding in a scanned cluster.
	OwnerBinding OwnerKind = "binding"
	// OwnerLBCStack: the LBC's tags (another stack or another cluster), and
	// no binding in the scanned clusters.
	OwnerLBCStack OwnerKind = "lbc-stack"
	// OwnerUnmanaged: made by hand or by another tool; nothing keeps it current.
	OwnerUnmanaged OwnerKind = "unmanaged"
	// OwnerUnknown: no LBC tag, and the bindings of a cluster that may own
	// it could not be read (or its tags could not): a binding may own it.
	OwnerUnknown OwnerKind = "unknown"
	// OwnerOutside: not the scanned clusters' business (a Lambda or ALB
	// target group, instances that are no scanned cluster's nodes, or
	// addresses outside every scanned cluster's ranges and VPC). Diagnose
	// leaves it alone: Owner.Reason says why.
	OwnerOutside OwnerKind = "outside"
)

// Owner is who keeps a target group's targets current.
type Owner struct {
	// Kind is the owner kind.
	Kind OwnerKind `json:"kind"`
	// Bindings are the TargetGroupBindings on the target group, sorted.
	Bindings []BindingRef `json:"bindings,omitempty"`
	// Cluster is the value of the elbv2.k8s.aws/cluster tag.
	Cluster string `json:"cluster,omitempty"`
	// Stack is the value of the ingress.k8s.aws/stack or service.k8s.aws/stack tag.
	Stack string `json:"stack,omitempty"`
	// Resource is the value of the ingress.k8s.aws/resource or
	// service.k8s.aws/resource tag.
	Resource string `json:"resource,omitempty"`
	// Reason says why, for OwnerUnknown and OwnerOutside.
	Reason string `json:"reason,omitempty"`
}

// Unknown is one thing Diagnose could not read for a target group, and what
// it could therefore not judge.
type Unknown struct {
	// Cluster is the cluster whose list failed; empty for the target
	// group's own tags.
	Cluster string `json:"cluster,omitempty"`
	// Source is what could not be read: nodes, pods, services, namespaces,
	// targetgroupbindings, nodeclaims (a cluster's list) or tags
	// (DescribeTags).
	Source string `json:"source"`
	// Category is the failure's stable word (forbidden, throttled...), as
	// in [ResourceError].
	Category string `json:"category"`
	// Effect says which judgements were not made, in one line.
	Effect string `json:"effect"`
}

// Binding modes.
const (
	// ModeDefault: the LBC owns every target of the target group.
	ModeDefault = "default"
	// ModeMultiCluster: the LBC owns only the targets it registered.
	ModeMultiCluster = "multi-cluster"
)

// BindingRef is a TargetGroupBinding found in a cluster.
type BindingRef struct {
	// Cluster, Namespace and Name locate the binding.
	Cluster   string `json:"cluster"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Mode is ModeDefault or ModeMultiCluster.
	Mode string `json:"mode"`
	// TargetType is ip or instance; empty when the spec leaves it to the webhook.
	TargetType string `json:"targetType,omitempty"`
	// ServiceName and ServicePort are the spec's serviceRef.
	ServiceName string `json:"serviceName"`
	ServicePort string `json:"servicePort"`
}

// Service sources: how the report knows which Service a target group serves.
const (
	ServiceFromBinding  = "binding"   // a TargetGroupBinding's serviceRef
	ServiceFromNodePort = "node-port" // the targets' port is the Service's NodePort
	ServiceFromPods     = "pods"      // the pod targets are the Service's endpoints
	ServiceFromTags     = "tags"      // the LBC's resource (or stack) tag names it
)

// ServiceRef is the Service a target group serves.
//
// It is the report's view of a [tgmigrate.ServicePort] (filled from it), with
// the cluster, where the Service was inferred from, and whether it exists.
type ServiceRef struct {
	// Cluster, Namespace and Name locate the Service.
	Cluster   string `json:"cluster"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Port and PortName are the Service port.
	Port     int32  `json:"port,omitempty"`
	PortName string `json:"portName,omitempty"`
	// TargetPort is the port's targetPort as declared: a number or a name.
	TargetPort string `json:"targetPort,omitempty"`
	// ResolvedTargetPort is the container port TargetPort resolves to on
	// the Service's pods; 0 when it does not resolve.
	ResolvedTargetPort int32 `json:"resolvedTargetPort,omitempty"`
	// NodePort is the port's NodePort; 0 when it has none.
	NodePort int32 `json:"nodePort,omitempty"`
	// Source is ServiceFromBinding, ServiceFromNodePort, ServiceFromPods or
	// ServiceFromTags.
	Source string `json:"source"`
	// Found reports whether the Service exists in the cluster.
	Found bool `json:"found"`
}

// Route is a listener rule (or a listener's default action) that forwards to
// a target group.
type Route struct {
	// LoadBalancerARN is the load balancer's ARN.
	LoadBalancerARN string `json:"loadBalancerARN"`
	// LoadBalancerName and LoadBalancerType (app, net, gwy) come from the ARN.
	LoadBalancerName string `json:"loadBalancerName"`
	LoadBalancerType string `json:"loadBalancerType"`
	// ListenerARN, ListenerProtocol and ListenerPort describe the listener.
	ListenerARN      string `json:"listenerARN"`
	ListenerProtocol string `json:"listenerProtocol,omitempty"`
	ListenerPort     int32  `json:"listenerPort,omitempty"`
	// RuleARN and Priority describe the rule; empty for a listener's
	// default action read from DescribeListeners.
	RuleARN  string `json:"ruleARN,omitempty"`
	Priority string `json:"priority,omitempty"`
	// Default reports whether this is the listener's default action.
	Default bool `json:"default"`
	// Weight is the target group's weight in a weighted forward action;
	// nil for a plain forward.
	Weight *int32 `json:"weight,omitempty"`
	// Conditions summarize the rule's conditions, one each: its field
	// and values ("host-header=api.example.com", "path-pattern=/orders/*";
	// a regular expression is marked "~"). Empty for a default action.
	Conditions []string `json:"conditions,omitempty"`
}

// TargetCounts counts a target group's targets.
type TargetCounts struct {
	// Total is the number of targets.
	Total int `json:"total"`
	// ByClass counts them by class; every class is present.
	ByClass map[Class]int `json:"byClass"`
	// ByState counts them by ELB state (healthy, unhealthy, draining...).
	ByState map[string]int `json:"byState"`
}

// Finding is one diagnosed problem: what it is, the symptom it explains, the
// evidence, and the next call to make.
type Finding struct {
	// Code is the stable code.
	Code Code `json:"code"`
	// Severity is the code's severity.
	Severity Severity `json:"severity"`
	// Signal is the seed signal: the symptom this finding explains.
	Signal string `json:"signal"`
	// Message says what was found, with names and counts.
	Message string `json:"message"`
	// TargetGroupARN is the target group concerned, typed as every input
	// ARN is (its JSON is the ARN as given); the zero ARN, and no JSON
	// field, for cluster findings.
	TargetGroupARN tgmigrate.ARN `json:"targetGroupARN,omitzero"`
	// Cluster is the cluster concerned, when one is.
	Cluster string `json:"cluster,omitempty"`
	// Evidence holds the resources and figures the finding rests on.
	Evidence Evidence `json:"evidence"`
	// Remediation names the next library call, with its arguments.
	Remediation string `json:"remediation"`
	// Next is the same next call as data, for scripts.
	Next NextCall `json:"next"`
}

// Operation is the kind of a finding's next call.
type Operation string

// The operations a finding's [NextCall] can name.
const (
	// OpPlanCutover: cutover.PlanCutover with a Request for
	// NextCall.TargetGroupARN, NextCall.Service and NextCall.Strategy.
	OpPlanCutover Operation = "cutover.PlanCutover"
	// OpBuildBinding: tgbind.Build with a Request for
	// NextCall.TargetGroupARN and NextCall.Service, with
	// MultiClusterTargetGroup true.
	OpBuildBinding Operation = "tgbind.Build"
	// OpLabelNamespace: label NextCall.Namespaces with
	// elbv2.k8s.aws/pod-readiness-gate-inject=enabled (kubectl label).
	OpLabelNamespace Operation = "label-namespace"
	// OpRestartPods: restart the pods of NextCall.Service so that the
	// LBC's webhook injects the readiness gate (kubectl rollout restart).
	OpRestartPods Operation = "restart-pods"
	// OpInstallController: install the AWS Load Balancer Controller in
	// NextCall.Cluster.
	OpInstallController Operation = "install-controller"
	// OpMoveNodes: move the nodes to private subnets (step 4 of the
	// migration); nothing pins their addresses any more.
	OpMoveNodes Operation = "move-nodes"
	// OpManual: a change this SDK does not make comes first;
	// NextCall.Reason says which.
	OpManual Operation = "manual"
	// OpNone: nothing for this tool to do; NextCall.Reason says why.
	OpNone Operation = "none"
)

// NextCall is a finding's next call as data: what [Finding.Remediation]
// says in prose. A script can act on it without parsing text.
type NextCall struct {
	// Op is the operation.
	Op Operation `json:"op"`
	// TargetGroupARN is the target group to pass, for OpPlanCutover and
	// OpBuildBinding (and the one concerned, for the others of a target
	// group's finding): typed, ready for cutover's and tgbind's Request.
	// The zero ARN, and no JSON field, when none is.
	TargetGroupARN tgmigrate.ARN `json:"targetGroupARN,omitzero"`
	// Strategy is "in-place" or "blue-green", for OpPlanCutover: the one
	// PlanCutover accepts for this target group's type.
	Strategy string `json:"strategy,omitempty"`
	// Service is the Service to pass (cluster, namespace, name and port),
	// for OpPlanCutover, OpBuildBinding and OpRestartPods; nil when it
	// could not be inferred, and then Missing names it.
	Service *ServiceRef `json:"service,omitempty"`
	// Cluster is the cluster concerned, for OpInstallController,
	// OpLabelNamespace and OpMoveNodes.
	Cluster string `json:"cluster,omitempty"`
	// Namespaces are cluster/namespace pairs, for OpLabelNamespace.
	Namespaces []string `json:"namespaces,omitempty"`
	// Replaces is the cluster/namespace/name of a binding the new one
	// replaces, for OpBuildBinding.
	Replaces string `json:"replaces,omitempty"`
	// Missing names the arguments the caller must supply because the
	// report could not infer them, for example "service".
	Missing []string `json:"missing,omitempty"`
	// Reason says why, for OpNone and OpManual; for the OpPlanCutover of
	// a TargetQuotaOverlap finding, what the plan must do about the quota.
	Reason string `json:"reason,omitempty"`
	// Handoff is the call's argument as one typed value, set exactly
	// when Op is OpPlanCutover and Missing is empty: the target group,
	// the Service and port, the strategy, and what this report saw of
	// the targets and when. cutover.RequestFrom turns it into the
	// Request; PlanCutover then refuses it if the target group changed
	// since. Nil otherwise.
	Handoff *tgmigrate.Handoff `json:"handoff,omitempty"`
}

// Evidence is what a finding rests on. Lists are sorted.
type Evidence struct {
	// ARNs are the AWS resources concerned.
	ARNs []string `json:"arns,omitempty"`
	// Names are the other resources concerned: IP:port targets, nodes,
	// namespace/name of pods, Services and bindings.
	Names []string `json:"names,omitempty"`
	// Counts are figures, for example "targets" or "ghosts".
	Counts map[string]int `json:"counts,omitempty"`
	// Details are the values compared, for example "healthCheckPort".
	Details map[string]string `json:"details,omitempty"`
	// Headroom is the comparison a quota finding rests on: the quota, the
	// targets now, those the cutover adds, the peak, the room and the
	// count after the cutover.
	Headroom *Headroom `json:"headroom,omitempty"`
}

// Summary counts a report's contents. Every class, code and severity is
// present, with zero when nothing matched.
type Summary struct {
	// TargetGroups counts the target groups in scope; TargetGroupsWithErrors
	// those that could not be fully read.
	TargetGroups           int `json:"targetGroups"`
	TargetGroupsWithErrors int `json:"targetGroupsWithErrors"`
	// Targets counts every target; ByClass by class.
	Targets int           `json:"targets"`
	ByClass map[Class]int `json:"byClass"`
	// Findings counts every finding; ByCode by code and BySeverity by severity.
	Findings   int              `json:"findings"`
	ByCode     map[Code]int     `json:"byCode"`
	BySeverity map[Severity]int `json:"bySeverity"`
	// Errors counts the report's errors.
	Errors int `json:"errors"`
}

// JSON returns the report as indented JSON, which validates against
// [ReportSchema].
func (r *Report) JSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// AllFindings returns every finding, the cluster ones and those of each
// target group, most severe first, then by code, target group and message.
func (r *Report) AllFindings() []Finding {
	out := slices.Clone(r.Findings)
	for _, tg := range r.TargetGroups {
		out = append(out, tg.Findings...)
	}
	slices.SortStableFunc(out, compareFindings)
	return out
}

// Worst returns the most severe severity among the findings, and false when
// there is no finding. Callers can map it onto a graded exit code.
func (r *Report) Worst() (Severity, bool) {
	var worst Severity
	found := false
	for _, f := range r.AllFindings() {
		if !found || f.Severity.Rank() < worst.Rank() {
			worst, found = f.Severity, true
		}
	}
	return worst, found
}

func compareFindings(a, b Finding) int {
	return cmp.Or(
		cmp.Compare(a.Severity.Rank(), b.Severity.Rank()),
		cmp.Compare(a.Code, b.Code),
		cmp.Compare(a.TargetGroupARN.String(), b.TargetGroupARN.String()),
		cmp.Compare(a.Cluster, b.Cluster),
		cmp.Compare(a.Message, b.Message),
	)
}

func compareErrors(a, b ResourceError) int {
	return cmp.Or(
		cmp.Compare(a.Kind, b.Kind),
		cmp.Compare(a.Resource, b.Resource),
		cmp.Compare(a.Account, b.Account),
		cmp.Compare(a.Region, b.Region),
		cmp.Compare(a.Cluster, b.Cluster),
		cmp.Compare(a.Op, b.Op),
		cmp.Compare(a.Message, b.Message),
	)
}

// finish sorts everything and computes the summary.
func (r *Report) finish() {
	slices.SortFunc(r.Accounts, func(a, b AccountReport) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Region, b.Region))
	})
	slices.SortFunc(r.Clusters, func(a, b ClusterReport) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(r.TargetGroups, func(a, b TargetGroupReport) int {
		return cmp.Or(cmp.Compare(a.Account, b.Account), cmp.Compare(a.Region, b.Region),
			cmp.Compare(a.Name, b.Name), cmp.Compare(a.ARN, b.ARN))
	})
	slices.SortStableFunc(r.Findings, compareFindings)
	slices.SortFunc(r.Errors, compareErrors)
	r.Errors = slices.CompactFunc(r.Errors, func(a, b ResourceError) bool { return compareErrors(a, b) == 0 })

	s := Summary{
		ByClass:    map[Class]int{},
		ByCode:     map[Code]int{},
		BySeverity: map[Severity]int{},
		Errors:     len(r.Errors),
	}
	for _, c := range classes {
		s.ByClass[c] = 0
	}
	for _, rule := range rules {
		s.ByCode[rule.Code] = 0
		s.BySeverity[rule.Severity] = 0
	}
	for _, sev := range []Severity{SeverityCritical, SeverityHigh, SeverityMedium, SeverityLow, SeverityInfo} {
		s.BySeverity[sev] = 0
	}
	for i := range r.TargetGroups {
		tg := &r.TargetGroups[i]
		slices.SortStableFunc(tg.Findings, compareFindings)
		s.TargetGroups++
		if tg.Error != nil {
			s.TargetGroupsWithErrors++
		}
		s.Targets += tg.Counts.Total
		for c, n := range tg.Counts.ByClass {
			s.ByClass[c] += n
		}
	}
	for _, f := range r.AllFindings() {
		s.Findings++
		s.ByCode[f.Code]++
		s.BySeverity[f.Severity]++
	}
	r.Summary = s
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	if r.Errors == nil {
		r.Errors = []ResourceError{}
	}
	if r.TargetGroups == nil {
		r.TargetGroups = []TargetGroupReport{}
	}
	if r.Accounts == nil {
		r.Accounts = []AccountReport{}
	}
	if r.Clusters == nil {
		r.Clusters = []ClusterReport{}
	}
}
