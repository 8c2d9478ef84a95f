package helmgov

import (
	"fmt"
	"strings"
	"time"

	"github.com/qstools/tgmigrate/internal/envelope"
)

// Severity grades a finding. The zero value is not a severity: a
// [RuleConfig] with it keeps the rule's default.
type Severity int

// The severities, in increasing order.
const (
	SeverityInfo Severity = iota + 1
	SeverityWarning
	SeverityError
)

var severityNames = map[Severity]string{SeverityInfo: "info", SeverityWarning: "warning", SeverityError: "error"}

// String is "info", "warning" or "error".
func (s Severity) String() string {
	if n, ok := severityNames[s]; ok {
		return n
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// ParseSeverity parses "info", "warning" (or "warn") and "error",
// case-insensitively. Anything else is an [ErrUsage].
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "info":
		return SeverityInfo, nil
	case "warning", "warn":
		return SeverityWarning, nil
	case "error":
		return SeverityError, nil
	}
	return 0, usagef("parse severity %q: want info, warning or error", s)
}

// MarshalText writes the name.
func (s Severity) MarshalText() ([]byte, error) {
	if _, ok := severityNames[s]; !ok {
		return nil, usagef("marshal severity %d", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText parses the name with [ParseSeverity].
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// RuleID is a rule's stable identifier, such as "TGM-H001". IDs are public
// API: they appear in configuration, suppression annotations and SARIF, and
// are never reused for another meaning.
type RuleID string

// The rules. doc.go has the table; [Rules] returns their documentation.
const (
	// RuleServiceLBType: a LoadBalancer Service is the LBC's (type external).
	RuleServiceLBType RuleID = "TGM-H001"
	// RuleServiceTargetType: a LoadBalancer Service has nlb-target-type ip.
	RuleServiceTargetType RuleID = "TGM-H002"
	// RuleIngressTargetType: an ALB Ingress, and Services overriding it, have target-type ip.
	RuleIngressTargetType RuleID = "TGM-H003"
	// RuleTGBTargetType: a TargetGroupBinding has targetType ip.
	RuleTGBTargetType RuleID = "TGM-H004"
	// RuleTGBMultiCluster: a TargetGroupBinding has multiClusterTargetGroup true.
	RuleTGBMultiCluster RuleID = "TGM-H005"
	// RuleHealthCheckPort: health-check ports are the traffic port, not a NodePort.
	RuleHealthCheckPort RuleID = "TGM-H006"
	// RuleNamespaceReadiness: namespaces with ip targets inject the readiness gate.
	RuleNamespaceReadiness RuleID = "TGM-H007"
	// RuleWorkloadPreStop: serving containers behind ip targets have a preStop
	// delay of at least the safe one (Options.PreStopSeconds).
	RuleWorkloadPreStop RuleID = "TGM-H008"
	// RuleWorkloadGracePeriod: the grace period covers the preStop delay (at
	// least the safe one) plus the shutdown margin (Options.GracePaddingSeconds).
	RuleWorkloadGracePeriod RuleID = "TGM-H009"
	// RuleWorkloadPDB: workloads behind ip targets have a PodDisruptionBudget.
	RuleWorkloadPDB RuleID = "TGM-H010"
	// RuleNodePortUnbound: a fixed nodePort is bound by a TGB or an ALB Ingress.
	RuleNodePortUnbound RuleID = "TGM-H011"
	// RuleKindNotServed: every kind is served by the cluster.
	RuleKindNotServed RuleID = "TGM-H012"
	// RuleInvalidObject: checked objects decode into their types.
	RuleInvalidObject RuleID = "TGM-H013"
)

// Rule documents one rule.
type Rule struct {
	// ID is the stable identifier.
	ID RuleID `json:"id"`
	// Name is a short kebab-case name, for humans.
	Name string `json:"name"`
	// Severity is the default severity; [Config] can change it.
	Severity Severity `json:"severity"`
	// Summary is one line: what the rule wants.
	Summary string `json:"summary"`
	// Doc says why, and what the fix does or why there is none.
	Doc string `json:"doc"`
	// Fixable says whether [Checker.Fix] can fix some of its findings.
	Fixable bool `json:"fixable"`
}

// Rules returns every rule, ordered by ID. The slice is a copy.
func Rules() []Rule {
	out := make([]Rule, len(ruleTable))
	copy(out, ruleTable)
	return out
}

// LookupRule returns the rule with the ID, case-insensitively.
func LookupRule(id string) (Rule, bool) {
	for _, r := range ruleTable {
		if strings.EqualFold(string(r.ID), strings.TrimSpace(id)) {
			return r, true
		}
	}
	return Rule{}, false
}

var ruleTable = []Rule{
	{
		ID: RuleServiceLBType, Name: "service-lbc-type", Severity: SeverityError, Fixable: true,
		Summary: "a LoadBalancer Service carries " + annLBType + ": external",
		Doc: "Without it the in-tree cloud provider, not the AWS Load Balancer Controller, provisions the load balancer, " +
			"with instance targets. Applies to Services of type LoadBalancer whose loadBalancerClass is empty or " +
			"service.k8s.aws/nlb. The fix sets the annotation; deploying it makes the LBC own the load balancer, " +
			"which replaces one the in-tree provider made, so review the diff.",
	},
	{
		ID: RuleServiceTargetType, Name: "service-nlb-target-type-ip", Severity: SeverityError, Fixable: true,
		Summary: "a LoadBalancer Service carries " + annNLBTargetType + ": ip",
		Doc: "The LBC's default for NLB Services is instance: node IPs and NodePorts, the pattern this migration removes. " +
			"The fix sets the annotation to ip.",
	},
	{
		ID: RuleIngressTargetType, Name: "alb-ingress-target-type-ip", Severity: SeverityError, Fixable: true,
		Summary: "an ALB Ingress, and any Service that overrides it, carries " + annALBTargetType + ": ip",
		Doc: "An Ingress is an ALB Ingress when its ingressClassName, or its legacy kubernetes.io/ingress.class annotation, " +
			"names an ALB class (alb, or an IngressClass of controller ingress.k8s.aws/alb in the same manifests). " +
			"The LBC's default target type is instance. A backend Service may override the Ingress with its own " +
			"annotation, so a Service that sets it to anything but ip is reported too. The fix sets ip.",
	},
	{
		ID: RuleTGBTargetType, Name: "tgb-target-type-ip", Severity: SeverityError, Fixable: true,
		Summary: "a TargetGroupBinding has spec.targetType: ip",
		Doc: "When targetType is omitted the LBC's webhook fills it from the target group; writing ip makes the chart say " +
			"what the migration relies on. The fix adds targetType: ip only where the field is missing (the live object " +
			"already holds the webhook's value, ip for the target groups tgmigrate adopts). targetType is immutable, so " +
			"a binding that says instance gets no fix: recreate it through tgbind and cutover.",
	},
	{
		ID: RuleTGBMultiCluster, Name: "tgb-multicluster", Severity: SeverityError, Fixable: true,
		Summary: "a TargetGroupBinding that adopts an existing target group has spec.multiClusterTargetGroup: true",
		Doc: "A binding in a chart names a target group made outside the LBC, which helmgov takes to be the legacy one, " +
			"with targets already in it. In the default mode the LBC deregisters every target it did not register, " +
			"node targets included, before the pod targets are healthy. The fix sets the flag, which matches the binding " +
			"cutover creates; the LBC's docs advise against flipping it on a live binding, so review the diff. For a " +
			"target group created empty for this binding, suppress the rule on the object.",
	},
	{
		ID: RuleHealthCheckPort, Name: "healthcheck-traffic-port", Severity: SeverityError, Fixable: true,
		Summary: "health-check port annotations point at the traffic port, not at a NodePort",
		Doc: "With ip targets the load balancer reaches pods on their own port; a health check on a NodePort probes " +
			"nodes, passes while pods fail, or fails while they are fine. A port is a NodePort when a Service in the " +
			"manifests declares it as one, or when it lies in the NodePort range (30000-32767 unless configured). " +
			"Covers " + annSvcHCPort + " and " + annALBHCPort + " on Services and Ingresses. The fix sets traffic-port.",
	},
	{
		ID: RuleNamespaceReadiness, Name: "namespace-readiness-gate", Severity: SeverityWarning, Fixable: true,
		Summary: "a namespace with ip targets carries the label " + labelReadinessGate + ": enabled",
		Doc: "The LBC's webhook injects the target-health readiness gate only into pods of labelled namespaces, and " +
			"only at pod creation; without it a rollout can take down pods before their replacements are healthy in " +
			"the target group. Checked when the manifests contain the Namespace; otherwise the result carries a " +
			"notice, since the label lives outside the chart. The fix adds the label.",
	},
	{
		ID: RuleWorkloadPreStop, Name: "workload-prestop-delay", Severity: SeverityWarning, Fixable: true,
		Summary: "a workload behind ip targets has a preStop delay on its serving containers, at least the safe delay",
		Doc: "Deregistration takes time to reach the load balancer: load balancer nodes keep sending new requests to a " +
			"deregistered target for up to " + fmt.Sprint(seconds(envelope.Default().Lag())) + " seconds (the worst " +
			"reported deregistration lag), and the LBC takes up to " + fmt.Sprint(seconds(envelope.Default().Controller())) +
			" seconds to deregister a terminating pod. A pod that exits sooner drops the requests still routed to it. " +
			"The safe preStop delay is the lag plus the controller's delay, " + fmt.Sprint(defaultPreStopSeconds) +
			" seconds unless configured; cutover's plan asks a workload for the same delay. A container serves when it " +
			"declares the Service's target port, or when no container declares it. A serving container with no preStop " +
			"hook, or with a sleep shorter than the safe delay (the sleep action, or an exec hook that runs sleep N), is " +
			"reported; a hook whose duration cannot be read (httpGet, a command other than sleep) is accepted, and " +
			"TGM-H009 asks for the grace period of the safe delay. The fix adds lifecycle.preStop.sleep (Kubernetes " +
			"1.30 and later) of the safe delay, or raises a shorter sleep to it: the sleep action's seconds, or the " +
			"argument of sleep in the exec command, the rest of the command unchanged.",
	},
	{
		ID: RuleWorkloadGracePeriod, Name: "workload-grace-period", Severity: SeverityWarning, Fixable: true,
		Summary: "terminationGracePeriodSeconds covers the preStop delay and the app's shutdown",
		Doc: "The grace period (default 30 s) includes the preStop hook: when it runs out, the kubelet kills a container " +
			"still in its preStop delay or still shutting down after it. The grace period is reported when it is shorter " +
			"than the longest readable preStop delay of the serving containers, or TGM-H008's safe delay when that is " +
			"longer or no delay can be read (no hook, httpGet, a command other than sleep), plus " +
			fmt.Sprint(defaultGracePaddingSeconds) + " seconds for the app to shut down (both configurable); the fix " +
			"sets that sum. With the safe delay that is " + fmt.Sprint(defaultPreStopSeconds+defaultGracePaddingSeconds) +
			" seconds, the grace period cutover's plan asks a workload for.",
	},
	{
		ID: RuleWorkloadPDB, Name: "workload-pdb", Severity: SeverityWarning, Fixable: true,
		Summary: "a Deployment, StatefulSet or ReplicaSet behind ip targets has a PodDisruptionBudget",
		Doc: "Karpenter evicts pods through the Eviction API when it replaces nodes; without a budget it can evict " +
			"every replica at once. The fix turns on the chart's own budget through its values when the chart has one " +
			"(pdb.enabled and the like, even when the current values do not render it); otherwise it adds a template " +
			"with a policy/v1 PodDisruptionBudget, maxUnavailable 1, whose name, namespace, selector and wrapping " +
			"conditions are copied from the workload's template. It never makes two budgets select the same pods, which " +
			"the Eviction API refuses. A workload of one replica gets no fix: a PDB cannot keep it serving " +
			"(maxUnavailable 1 lets the eviction take the only pod, minAvailable 1 blocks the drain); run two replicas.",
	},
	{
		ID: RuleNodePortUnbound, Name: "nodeport-unbound", Severity: SeverityWarning,
		Summary: "a NodePort Service with a fixed nodePort is bound by a TargetGroupBinding or an ALB Ingress",
		Doc: "A fixed nodePort that nothing in the manifests binds is the signature of a hand-made target group of " +
			"nodeIP:NodePort targets. There is no automatic fix: the binding needs the target group's ARN. Adopt the " +
			"target group with tgbind and cutover, then add the TargetGroupBinding to the chart; suppress the rule on " +
			"the Service if the binding lives outside the chart.",
	},
	{
		ID: RuleKindNotServed, Name: "kind-not-served", Severity: SeverityError,
		Summary: "every object's kind is served by the cluster (when the caller gives the served kinds)",
		Doc: "Checked only when the caller passes the cluster's served kinds (Options.ServedKinds). An object of a kind " +
			"the cluster does not serve, and that no CustomResourceDefinition in the same manifests defines, fails to " +
			"install: for a TargetGroupBinding, the LBC or its CRDs are missing.",
	},
	{
		ID: RuleInvalidObject, Name: "invalid-object", Severity: SeverityError,
		Summary: "objects that helmgov checks decode into their Kubernetes types",
		Doc: "A Service, Ingress, workload, PodDisruptionBudget or TargetGroupBinding whose fields have the wrong " +
			"types would be rejected by the API server, and helmgov cannot check it.",
	},
}

// The defaults of [Options.PreStopSeconds] and [Options.GracePaddingSeconds]
// come from internal/envelope, the one definition of the AWS timings the
// product plans under, so that what helmgov's fixes write is what
// cutover's plan asks of a workload.
var (
	// defaultPreStopSeconds is the envelope's safe preStop delay: the worst
	// reported deregistration lag plus the controller's delay (130).
	defaultPreStopSeconds = seconds(envelope.Default().SafePreStop())
	// defaultGracePaddingSeconds is the envelope's shutdown margin (30).
	defaultGracePaddingSeconds = seconds(envelope.ShutdownMargin)
	// defaultPreStopWhy says where defaultPreStopSeconds comes from, in
	// TGM-H008's findings.
	defaultPreStopWhy = fmt.Sprintf("the worst reported deregistration lag, %d s, plus %d s for the LBC to deregister a terminating pod",
		seconds(envelope.Default().Lag()), seconds(envelope.Default().Controller()))
)

// seconds is d in whole seconds.
func seconds(d time.Duration) int64 { return int64(d / time.Second) }

// The annotations and labels the rules read and write.
const (
	annLBType          = "service.beta.kubernetes.io/aws-load-balancer-type"
	annNLBTargetType   = "service.beta.kubernetes.io/aws-load-balancer-nlb-target-type"
	annSvcHCPort       = "service.beta.kubernetes.io/aws-load-balancer-healthcheck-port"
	annALBTargetType   = "alb.ingress.kubernetes.io/target-type"
	annALBHCPort       = "alb.ingress.kubernetes.io/healthcheck-port"
	annIngressClass    = "kubernetes.io/ingress.class"
	labelReadinessGate = "elbv2.k8s.aws/pod-readiness-gate-inject"

	// SuppressAnnotation suppresses rules on one object. Its value is a
	// comma-separated list of rule IDs, for example "TGM-H005,TGM-H010".
	// Suppressed findings stay in the result, marked, and never count
	// towards the exit code.
	SuppressAnnotation = "tgmigrate.qstools.io/ignore"

	lbcNLBClass       = "service.k8s.aws/nlb"
	albController     = "ingress.k8s.aws/alb"
	trafficPort       = "traffic-port"
	defaultALBClass   = "alb"
	defaultNodePortLo = 30000
	defaultNodePortHi = 32767
)
