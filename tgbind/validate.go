package tgbind

// validate.go: Validate and the preflight: the Check* IDs in the order they
// run, the checker that records each outcome, and the check functions (the
// dry run's is apply.go's).

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/kube"
	"github.com/qstools/tgmigrate/internal/textcell"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// The preflight checks, in the order they run. Each ID is stable: reports
// and scripts may match on it.
const (
	// CheckMetadata: the name is a DNS-1123 label, the namespace and the
	// Service name are set, and no LBC stack label is present.
	CheckMetadata = "metadata"
	// CheckTargetGroupARN: the ARN is well-formed. Runs first among the AWS
	// checks, because a malformed ARN must not reach AWS.
	CheckTargetGroupARN = "target-group-arn"
	// CheckTargetGroupExists: AWS knows the target group.
	CheckTargetGroupExists = "target-group-exists"
	// CheckTargetGroupType: the target group's type is ip.
	CheckTargetGroupType = "target-group-type"
	// CheckSpec: the spec agrees with the target group and is valid in ip mode.
	CheckSpec = "spec"
	// CheckVPC: the target group is in the VPC of the cluster's nodes, when
	// that VPC is known.
	CheckVPC = "vpc"
	// CheckServiceExists: the Service exists.
	CheckServiceExists = "service-exists"
	// CheckServicePort: the Service has the port.
	CheckServicePort = "service-port"
	// CheckReadyEndpoints: the Service port has ready endpoints.
	CheckReadyEndpoints = "ready-endpoints"
	// CheckHealthCheckPort: the target group health-checks traffic-port or
	// the pods' port, not the NodePort.
	CheckHealthCheckPort = "health-check-port"
	// CheckCRDInstalled: the API server serves targetgroupbindings.
	CheckCRDInstalled = "crd-installed"
	// CheckOwnership: a binding of the same name, if any, is tgmigrate's and
	// agrees in its immutable fields.
	CheckOwnership = "ownership"
	// CheckConflictingBindings: no other binding references the target
	// group (by targetGroupARN, or by targetGroupName when it has no ARN),
	// unless all of them are multi-cluster.
	CheckConflictingBindings = "conflicting-bindings"
	// CheckMultiClusterMode: default mode is used only when the LBC may own
	// every target already in the target group.
	CheckMultiClusterMode = "multi-cluster-mode"
	// CheckDryRun: the API server, and every admission webhook (the LBC's
	// when it is installed), accepts the binding in a server-side dry run,
	// and keeps the fields safety depends on. Runs last: it is the only
	// check that calls a write endpoint, with dryRun=All.
	CheckDryRun = "dry-run"
)

// lbcStackLabelPrefixes are the label keys through which the LBC recognises
// the bindings it created itself and garbage-collects them.
var lbcStackLabelPrefixes = tgmigrate.LBCStackTags()

// checker accumulates the outcome of each check.
type checker struct {
	checks   []Check
	failures []*FieldError
	notes    []string
}

func (c *checker) pass(id, detail string) {
	c.checks = append(c.checks, Check{ID: id, Status: CheckPassed, Detail: detail})
}

func (c *checker) skip(id, detail string) {
	c.checks = append(c.checks, Check{ID: id, Status: CheckSkipped, Detail: detail})
}

// fail records the check as failed with its field errors. It reports false
// when there is nothing to fail, so callers can write
// `if !c.fail(id, errs...) { c.pass(id, ...) }`.
func (c *checker) fail(id string, errs ...*FieldError) bool {
	if len(errs) == 0 {
		return false
	}
	msgs := make([]string, len(errs))
	for i, fe := range errs {
		fe.Check = id
		msgs[i] = fe.Error()
	}
	c.checks = append(c.checks, Check{ID: id, Status: CheckFailed, Detail: strings.Join(msgs, "; ")})
	c.failures = append(c.failures, errs...)
	return true
}

func (c *checker) note(format string, args ...any) {
	c.notes = append(c.notes, fmt.Sprintf(format, args...))
}

func (c *checker) err(op string) error {
	if len(c.failures) == 0 {
		return nil
	}
	return &ValidationError{Op: op, Errors: c.failures}
}

// checkMetadata runs CheckMetadata and reports whether it passed.
// An empty name fails only when requireName is set: Build derives it.
func checkMetadata(c *checker, name string, requireName bool, namespace, service string, labels map[string]string) bool {
	var errs []*FieldError
	if name == "" && requireName {
		errs = append(errs, &FieldError{Field: "metadata.name", Kind: ErrInvalidRequest, Detail: "the name is empty"})
	}
	if name != "" {
		for _, msg := range validation.IsDNS1123Label(name) {
			errs = append(errs, &FieldError{Field: "metadata.name", Value: name, Kind: ErrInvalidRequest, Detail: msg})
		}
	}
	if namespace == "" {
		errs = append(errs, &FieldError{Field: "metadata.namespace", Kind: ErrInvalidRequest, Detail: "the namespace is empty"})
	} else {
		for _, msg := range validation.IsDNS1123Label(namespace) {
			errs = append(errs, &FieldError{Field: "metadata.namespace", Value: namespace, Kind: ErrInvalidRequest, Detail: msg})
		}
	}
	if service == "" {
		errs = append(errs, &FieldError{Field: "spec.serviceRef.name", Kind: ErrInvalidRequest, Detail: "the Service name is empty"})
	}
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		for _, p := range lbcStackLabelPrefixes {
			if strings.HasPrefix(k, p) {
				errs = append(errs, &FieldError{Field: "metadata.labels[" + k + "]", Value: labels[k], Kind: ErrLBCStackLabel,
					Detail: "the LBC garbage-collects bindings that carry its stack labels; remove it"})
			}
		}
	}
	if c.fail(CheckMetadata, errs...) {
		return false
	}
	c.pass(CheckMetadata, "name, namespace and labels are valid")
	return true
}

// checkARN runs CheckTargetGroupARN on s, a binding's spec.targetGroupARN:
// a Kubernetes object's string field, the one ARN tgbind parses.
func checkARN(c *checker, s string) (awserr.ARN, bool) {
	a, err := awserr.ParseTargetGroupARN(s)
	return checkedARN(c, s, a, err)
}

// checkRequestARN runs CheckTargetGroupARN on a, a Request's ARN, typed:
// it parses nothing, and refuses the zero ARN, one not made by a parser
// and a load balancer's.
func checkRequestARN(c *checker, a awserr.ARN) (awserr.ARN, bool) {
	return checkedARN(c, a.Raw, a, a.ValidTargetGroup())
}

// checkedARN records CheckTargetGroupARN's outcome for s, parsed or
// checked as a with the error err.
func checkedARN(c *checker, s string, a awserr.ARN, err error) (awserr.ARN, bool) {
	if err != nil {
		detail := err.Error()
		var ae *awserr.ARNError
		if errors.As(err, &ae) {
			detail = ae.Reason
		}
		c.fail(CheckTargetGroupARN, &FieldError{Field: "spec.targetGroupARN", Value: s, Kind: ErrInvalidARN, Detail: detail, Err: err})
		return awserr.ARN{}, false
	}
	c.pass(CheckTargetGroupARN, "well-formed target group ARN in "+a.Region+", account "+a.AccountID)
	return a, true
}

// describeChecked runs CheckTargetGroupExists. It returns the target group,
// nil when it does not exist, or an operational error.
func (b *Binder) describeChecked(ctx context.Context, c *checker, arn string, arnOK bool) (*elbv2types.TargetGroup, error) {
	if !arnOK {
		c.skip(CheckTargetGroupExists, "the ARN is malformed; AWS was not asked")
		return nil, nil
	}
	tg, err := b.describeTargetGroup(ctx, arn)
	switch {
	case errors.Is(err, awserr.ErrNotFound):
		c.fail(CheckTargetGroupExists, &FieldError{Field: "spec.targetGroupARN", Value: arn, Kind: ErrTargetGroupNotFound,
			Detail: "DescribeTargetGroups does not know it (wrong region or account, or deleted)", Err: err})
		return nil, nil
	case err != nil:
		return nil, err
	}
	c.pass(CheckTargetGroupExists, fmt.Sprintf("%s exists", aws.ToString(tg.TargetGroupName)))
	return tg, nil
}

// supportedProtocols are the target group protocols the binding's CRD accepts.
var supportedProtocols = []v1beta1.TargetGroupProtocol{
	v1beta1.ProtocolHTTP, v1beta1.ProtocolHTTPS, v1beta1.ProtocolTCP, v1beta1.ProtocolTLS,
	v1beta1.ProtocolUDP, v1beta1.ProtocolTCPUDP, v1beta1.ProtocolQUIC, v1beta1.ProtocolTCPQUIC,
}

// checkTargetGroupType runs CheckTargetGroupType; it reports whether the
// target group can be bound in ip mode.
func checkTargetGroupType(c *checker, tg *elbv2types.TargetGroup) bool {
	if tg == nil {
		c.skip(CheckTargetGroupType, "the target group was not described")
		return false
	}
	name := aws.ToString(tg.TargetGroupName)
	switch tg.TargetType {
	case elbv2types.TargetTypeEnumIp:
	case elbv2types.TargetTypeEnumInstance:
		c.fail(CheckTargetGroupType, &FieldError{Field: "spec.targetType", Value: string(tg.TargetType), Kind: ErrInstanceTargetGroup,
			Detail: fmt.Sprintf("target group %s registers instances and its type cannot change: use cutover's blue/green path, which creates an ip target group beside it and shifts the listener's weights", name)})
		return false
	default:
		c.fail(CheckTargetGroupType, &FieldError{Field: "spec.targetType", Value: string(tg.TargetType), Kind: ErrUnsupportedTargetGroup,
			Detail: fmt.Sprintf("target group %s has target type %q; the LBC binds only ip and instance target groups", name, tg.TargetType)})
		return false
	}
	if !slices.Contains(supportedProtocols, v1beta1.TargetGroupProtocol(tg.Protocol)) {
		c.fail(CheckTargetGroupType, &FieldError{Field: "spec.targetGroupProtocol", Value: string(tg.Protocol), Kind: ErrUnsupportedTargetGroup,
			Detail: fmt.Sprintf("target group %s uses protocol %q, which a TargetGroupBinding cannot carry", name, tg.Protocol)})
		return false
	}
	c.pass(CheckTargetGroupType, fmt.Sprintf("target type ip, protocol %s", tg.Protocol))
	return true
}

// serviceChecked runs CheckServiceExists and CheckServicePort.
func (b *Binder) serviceChecked(ctx context.Context, c *checker, namespace, name string, port intstr.IntOrString) (*corev1.Service, *corev1.ServicePort, error) {
	if namespace == "" || name == "" {
		c.skip(CheckServiceExists, "no namespace or Service name")
		c.skip(CheckServicePort, "no Service")
		return nil, nil, nil
	}
	svc, err := b.service(ctx, namespace, name)
	if err != nil {
		return nil, nil, err
	}
	if svc == nil {
		c.fail(CheckServiceExists, &FieldError{Field: "spec.serviceRef.name", Value: name, Kind: ErrServiceNotFound,
			Detail: fmt.Sprintf("no Service %s/%s; a binding on a missing Service makes the LBC empty the target group", namespace, name)})
		c.skip(CheckServicePort, "no Service")
		return nil, nil, nil
	}
	c.pass(CheckServiceExists, fmt.Sprintf("Service %s/%s exists", namespace, name))
	sp, why := findPort(svc, port)
	if sp == nil {
		c.fail(CheckServicePort, &FieldError{Field: "spec.serviceRef.port", Value: port.String(), Kind: ErrPortNotFound, Detail: why})
		return svc, nil, nil
	}
	c.pass(CheckServicePort, fmt.Sprintf("port %d (%q) -> targetPort %s", sp.Port, sp.Name, targetPortString(sp)))
	return svc, sp, nil
}

// checkSpec runs CheckSpec on a binding against its target group.
func checkSpec(c *checker, tgb *v1beta1.TargetGroupBinding, tg *elbv2types.TargetGroup) {
	s := tgb.Spec
	var errs []*FieldError
	bad := func(field, value, detail string) {
		errs = append(errs, &FieldError{Field: field, Value: value, Kind: ErrInvalidSpec, Detail: detail})
	}
	if s.TargetType != nil && *s.TargetType != v1beta1.TargetTypeIP {
		bad("spec.targetType", string(*s.TargetType), "tgbind binds in ip mode only")
	}
	if s.NodeSelector != nil {
		bad("spec.nodeSelector", "", "the LBC rejects a nodeSelector in ip mode")
	}
	if s.Networking != nil {
		for i, rule := range s.Networking.Ingress {
			for j, peer := range rule.From {
				if peer.SecurityGroup != nil && !tgmigrate.ValidSecurityGroupID(peer.SecurityGroup.GroupID) {
					bad(fmt.Sprintf("spec.networking.ingress[%d].from[%d].securityGroup.groupID", i, j), peer.SecurityGroup.GroupID,
						"not a security group ID (sg- and 8 or 17 hex digits)")
				}
			}
		}
	}
	if tg != nil {
		if vpc := aws.ToString(tg.VpcId); s.VpcID != "" && s.VpcID != vpc {
			bad("spec.vpcID", s.VpcID, "the target group is in "+vpc)
		}
		if s.IPAddressType != nil && tg.IpAddressType != "" && string(*s.IPAddressType) != string(tg.IpAddressType) {
			bad("spec.ipAddressType", string(*s.IPAddressType), "the target group is "+string(tg.IpAddressType))
		}
		if s.TargetGroupProtocol != nil && string(*s.TargetGroupProtocol) != string(tg.Protocol) {
			bad("spec.targetGroupProtocol", string(*s.TargetGroupProtocol), "the target group uses "+string(tg.Protocol))
		}
	}
	if c.fail(CheckSpec, errs...) {
		return
	}
	if tg == nil {
		c.pass(CheckSpec, "valid in ip mode; not compared with the target group, which was not described")
		return
	}
	c.pass(CheckSpec, "agrees with the target group")
}

// checkVPC runs CheckVPC.
func (b *Binder) checkVPC(ctx context.Context, c *checker, tg *elbv2types.TargetGroup) error {
	if tg == nil {
		c.skip(CheckVPC, "the target group was not described")
		return nil
	}
	vpc, source, err := b.clusterVPC(ctx)
	if err != nil {
		return err
	}
	tgVPC := aws.ToString(tg.VpcId)
	if vpc == "" {
		why := "the VPC of the cluster's nodes is unknown: set Options.ClusterVPCID (or Options.NodeVPCLabel)"
		if source != "" {
			why = "the VPC of the cluster's nodes is unknown (" + source + ")"
		}
		c.skip(CheckVPC, why)
		return nil
	}
	if tgVPC != vpc {
		c.fail(CheckVPC, &FieldError{Field: "spec.vpcID", Value: tgVPC, Kind: ErrVPCMismatch,
			Detail: fmt.Sprintf("the target group is in %s but the cluster's nodes are in %s (from %s): pod IPs cannot be registered", tgVPC, vpc, source)})
		return nil
	}
	c.pass(CheckVPC, fmt.Sprintf("%s, as the cluster's nodes (from %s)", vpc, source))
	return nil
}

// checkReadyEndpoints runs CheckReadyEndpoints.
func checkReadyEndpoints(c *checker, namespace string, svc *corev1.Service, sp *corev1.ServicePort, ready []endpoint, family string) {
	if sp == nil {
		c.skip(CheckReadyEndpoints, "no Service port")
		return
	}
	if len(ready) == 0 {
		c.fail(CheckReadyEndpoints, &FieldError{Field: "spec.serviceRef", Value: fmt.Sprintf("%s/%s:%d", namespace, svc.Name, sp.Port),
			Kind: ErrNoReadyEndpoints, Detail: fmt.Sprintf("the Service's EndpointSlices list no ready %s endpoint for port %d; the LBC would register nothing", family, sp.Port)})
		return
	}
	c.pass(CheckReadyEndpoints, fmt.Sprintf("%d ready endpoints on container ports %v", len(ready), podPorts(ready)))
}

// checkHealthCheckPort runs CheckHealthCheckPort.
func checkHealthCheckPort(c *checker, tg *elbv2types.TargetGroup, sp *corev1.ServicePort, ready []endpoint, hasForeign bool) {
	if tg == nil || sp == nil {
		c.skip(CheckHealthCheckPort, "needs both the target group and the Service port")
		return
	}
	hc := aws.ToString(tg.HealthCheckPort)
	if hc == "" || hc == "traffic-port" {
		c.pass(CheckHealthCheckPort, "traffic-port: each target is checked on its own port")
		return
	}
	n, err := strconv.Atoi(hc)
	if err != nil {
		c.fail(CheckHealthCheckPort, &FieldError{Field: "targetGroup.healthCheckPort", Value: hc, Kind: ErrHealthCheckPort,
			Detail: "not traffic-port and not a number"})
		return
	}
	pods := podPorts(ready)
	if len(pods) == 0 && sp.TargetPort.Type == intstr.Int && sp.TargetPort.IntVal != 0 {
		pods = []int32{sp.TargetPort.IntVal}
	}
	if sp.NodePort != 0 && int32(n) == sp.NodePort {
		c.fail(CheckHealthCheckPort, &FieldError{Field: "targetGroup.healthCheckPort", Value: hc, Kind: ErrHealthCheckOnNodePort,
			Detail: fmt.Sprintf("the target group health-checks the Service's NodePort %d, but pods listen on %v and would never pass: set it to traffic-port (ModifyTargetGroup)", n, pods)})
		return
	}
	if len(pods) == 0 {
		c.skip(CheckHealthCheckPort, fmt.Sprintf("health check port %d; the pods' port is unknown (named targetPort %s and no ready endpoint)", n, targetPortString(sp)))
		return
	}
	if len(pods) != 1 || pods[0] != int32(n) {
		c.fail(CheckHealthCheckPort, &FieldError{Field: "targetGroup.healthCheckPort", Value: hc, Kind: ErrHealthCheckPort,
			Detail: fmt.Sprintf("pods listen on %v: set the health check port to traffic-port (ModifyTargetGroup)", pods)})
		return
	}
	if hasForeign {
		c.note("the health check port is the pod port %d: the target group's other targets (node targets) are checked on it too; traffic-port suits both while they coexist", n)
	}
	c.pass(CheckHealthCheckPort, fmt.Sprintf("the pods' port %d", n))
}

// crdAndBindings runs CheckCRDInstalled and lists the bindings. It reports
// whether the CRD is (or may be) installed.
func (b *Binder) crdAndBindings(ctx context.Context, c *checker) ([]v1beta1.TargetGroupBinding, bool, error) {
	notInstalled := &FieldError{Field: "apiVersion", Value: v1beta1.GroupVersion.String(), Kind: ErrCRDNotInstalled,
		Detail: "the API server does not serve targetgroupbindings." + v1beta1.GroupVersion.Group + ": install the AWS Load Balancer Controller"}
	if b.discovery != nil {
		ok, err := kube.TargetGroupBindingInstalled(ctx, b.discovery)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			c.fail(CheckCRDInstalled, notInstalled)
			return nil, false, nil
		}
	}
	all, err := b.bindings(ctx)
	switch {
	case errors.Is(err, errNoCRD):
		c.fail(CheckCRDInstalled, notInstalled)
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	if b.discovery == nil {
		c.skip(CheckCRDInstalled, "no discovery client (Options.Discovery); listing targetgroupbindings worked")
	} else {
		c.pass(CheckCRDInstalled, "targetgroupbindings."+v1beta1.GroupVersion.Group+"/"+v1beta1.GroupVersion.Version+" is served")
	}
	return all, true, nil
}

func isOwned(obj *v1beta1.TargetGroupBinding) bool {
	return obj.Labels[LabelManagedBy] == ManagedByValue
}

// checkOwnership runs CheckOwnership against the existing binding of the
// same name, if any.
func checkOwnership(c *checker, tgb, existing *v1beta1.TargetGroupBinding, force bool) {
	if existing == nil {
		c.pass(CheckOwnership, "no binding of that name yet")
		return
	}
	var errs []*FieldError
	if !isOwned(existing) {
		if force {
			c.note("adopting %s/%s, which tgmigrate did not own (WithForce)", existing.Namespace, existing.Name)
		} else {
			errs = append(errs, &FieldError{Field: "metadata.labels[" + LabelManagedBy + "]", Value: existing.Labels[LabelManagedBy], Kind: ErrNotOwned,
				Detail: fmt.Sprintf("%s/%s exists and tgmigrate does not own it: pick another name, or adopt it with WithForce", existing.Namespace, existing.Name)})
		}
	}
	immutable := func(field, have, want string) {
		if have != "" && want != "" && have != want {
			errs = append(errs, &FieldError{Field: field, Value: want, Kind: ErrImmutableField,
				Detail: fmt.Sprintf("the existing binding has %s, and the field is immutable", have)})
		}
	}
	e, s := existing.Spec, tgb.Spec
	immutable("spec.targetGroupARN", e.TargetGroupARN, s.TargetGroupARN)
	immutable("spec.targetType", derefString(e.TargetType), derefString(s.TargetType))
	immutable("spec.ipAddressType", derefString(e.IPAddressType), derefString(s.IPAddressType))
	immutable("spec.vpcID", e.VpcID, s.VpcID)
	if c.fail(CheckOwnership, errs...) {
		return
	}
	if e.MultiClusterTargetGroup != s.MultiClusterTargetGroup {
		c.note("multiClusterTargetGroup changes from %t to %t on %s/%s; the LBC advises against it (it may leak targets)",
			e.MultiClusterTargetGroup, s.MultiClusterTargetGroup, existing.Namespace, existing.Name)
	}
	c.pass(CheckOwnership, fmt.Sprintf("%s/%s exists and is tgmigrate's", existing.Namespace, existing.Name))
}

func derefString[T ~string](p *T) string {
	if p == nil {
		return ""
	}
	return string(*p)
}

// checkConflicts runs CheckConflictingBindings.
func checkConflicts(c *checker, tgb *v1beta1.TargetGroupBinding, others []v1beta1.TargetGroupBinding) {
	if len(others) == 0 {
		c.pass(CheckConflictingBindings, "no other binding references the target group")
		return
	}
	names := make([]string, len(others))
	allMulti := tgb.Spec.MultiClusterTargetGroup
	for i, o := range others {
		mode := "multi-cluster"
		if !o.Spec.MultiClusterTargetGroup {
			mode = "default mode"
			allMulti = false
		}
		if o.Spec.TargetGroupARN == "" {
			mode += ", by targetGroupName"
		}
		names[i] = fmt.Sprintf("%s/%s (%s)", o.Namespace, o.Name, mode)
	}
	if allMulti {
		c.pass(CheckConflictingBindings, "shared with multi-cluster bindings: "+strings.Join(names, ", "))
		return
	}
	c.fail(CheckConflictingBindings, &FieldError{Field: "spec.targetGroupARN", Value: tgb.Spec.TargetGroupARN, Kind: ErrConflictingBinding,
		Detail: fmt.Sprintf("also referenced by %s; the LBC allows several bindings on one target group only when all are multi-cluster", strings.Join(names, ", "))})
}

// foreignTargets lists the registered targets that are not ready endpoints.
func foreignTargets(ready []endpoint, targets []elbv2types.TargetHealthDescription) []string {
	var out []string
	for _, o := range compare(ready, targets).Others {
		out = append(out, hostPort(o.IP, o.Port))
	}
	return out
}

// checkMultiClusterMode runs CheckMultiClusterMode.
func checkMultiClusterMode(c *checker, tgb, existing *v1beta1.TargetGroupBinding, targetsKnown bool, foreign []string) {
	switch {
	case tgb.Spec.MultiClusterTargetGroup:
		c.pass(CheckMultiClusterMode, "multi-cluster: the LBC deregisters only the targets it registered")
	case existing != nil && !existing.Spec.MultiClusterTargetGroup && existing.Spec.TargetGroupARN == tgb.Spec.TargetGroupARN:
		c.pass(CheckMultiClusterMode, "default mode, as the existing binding: the LBC owns the target group already")
	case !targetsKnown:
		c.skip(CheckMultiClusterMode, "the target group's targets are unknown")
	case len(foreign) > 0:
		c.fail(CheckMultiClusterMode, &FieldError{Field: "spec.multiClusterTargetGroup", Value: "false", Kind: ErrDefaultModeUnsafe,
			Detail: fmt.Sprintf("the target group holds %s of the Service (%s); in default mode the LBC deregisters them before the pod targets are healthy: set multiClusterTargetGroup: true",
				textcell.Plural(len(foreign), "target that is not a ready endpoint", "targets that are not ready endpoints"), sample(foreign, 5))})
	default:
		c.pass(CheckMultiClusterMode, "default mode: every registered target is a ready endpoint of the Service")
	}
}

func sample(ss []string, n int) string {
	if len(ss) <= n {
		return strings.Join(ss, ", ")
	}
	return strings.Join(ss[:n], ", ") + fmt.Sprintf(" and %d more", len(ss)-n)
}

// preflightState is what the preflight learned and Apply reuses.
type preflightState struct {
	existing *v1beta1.TargetGroupBinding
	// webhooks are those a refusal of the apply may be attributed to.
	webhooks []kube.Webhook
}

// Validate runs every preflight check on the binding against the live state
// of AWS and the cluster, and returns the report. When a check fails the
// error is a *ValidationError holding a *FieldError per failure, each naming
// its field. An error of another type means a check could not run (AWS or
// the API server failed); the report then holds the checks run so far.
//
// Validate changes nothing: its only write call is a server-side dry run.
// WithForce accepts a binding of the same name that tgmigrate does not own
// and forces field ownership in the dry run.
func (b *Binder) Validate(ctx context.Context, tgb *v1beta1.TargetGroupBinding, opts ...Option) (*Preflight, error) {
	pf, _, err := b.preflight(ctx, tgb, collect(opts))
	return pf, err
}

func (b *Binder) preflight(ctx context.Context, tgb *v1beta1.TargetGroupBinding, o callOptions) (*Preflight, *preflightState, error) {
	if tgb == nil {
		return nil, nil, errors.New("tgbind: validate: nil binding")
	}
	c := &checker{}
	pf := &Preflight{Version: PreflightVersion, Namespace: tgb.Namespace, Name: tgb.Name}
	finish := func(err error) (*Preflight, *preflightState, error) {
		pf.Checks, pf.Failures, pf.Notes = c.checks, c.failures, c.notes
		if err != nil {
			return pf, nil, fmt.Errorf("tgbind: validate %s/%s: %w", tgb.Namespace, tgb.Name, err)
		}
		return pf, nil, c.err("validate")
	}
	log := b.log.WithValues("binding", tgb.Namespace+"/"+tgb.Name, "targetGroupARN", tgb.Spec.TargetGroupARN)
	log.V(1).Info("preflight")

	metaOK := checkMetadata(c, tgb.Name, true, tgb.Namespace, tgb.Spec.ServiceRef.Name, tgb.Labels)
	arn, arnOK := checkARN(c, tgb.Spec.TargetGroupARN)
	tg, err := b.describeChecked(ctx, c, tgb.Spec.TargetGroupARN, arnOK)
	if err != nil {
		return finish(err)
	}
	typeOK := checkTargetGroupType(c, tg)
	checkSpec(c, tgb, tg)
	if err := b.checkVPC(ctx, c, tg); err != nil {
		return finish(err)
	}

	svc, sp, err := b.serviceChecked(ctx, c, tgb.Namespace, tgb.Spec.ServiceRef.Name, tgb.Spec.ServiceRef.Port)
	if err != nil {
		return finish(err)
	}
	var ready []endpoint
	family := addressFamily(tg)
	if sp != nil {
		if ready, err = b.readyEndpoints(ctx, tgb.Namespace, svc.Name, sp, family); err != nil {
			return finish(err)
		}
	}
	checkReadyEndpoints(c, tgb.Namespace, svc, sp, ready, string(family))

	var targets []elbv2types.TargetHealthDescription
	if typeOK {
		if targets, err = b.targetHealth(ctx, tgb.Spec.TargetGroupARN); err != nil {
			return finish(err)
		}
	}
	foreign := foreignTargets(ready, targets)
	checkHealthCheckPort(c, tg, sp, ready, len(foreign) > 0)

	all, crdOK, err := b.crdAndBindings(ctx, c)
	if err != nil {
		return finish(err)
	}
	key := types.NamespacedName{Namespace: tgb.Namespace, Name: tgb.Name}
	existing, others := sameARN(all, tgb.Spec.TargetGroupARN, arn, key)
	if crdOK {
		checkOwnership(c, tgb, existing, o.force)
		checkConflicts(c, tgb, others)
	} else {
		c.skip(CheckOwnership, "the CRD is not installed")
		c.skip(CheckConflictingBindings, "the CRD is not installed")
	}
	checkMultiClusterMode(c, tgb, existing, typeOK, foreign)

	webhooks := knownWebhooks(nil)
	switch {
	case !crdOK:
		c.skip(CheckDryRun, "the CRD is not installed")
	case !metaOK:
		c.skip(CheckDryRun, "the metadata is invalid; the API server would refuse the request itself")
	case b.writer == nil:
		c.skip(CheckDryRun, "read-only Binder (no Options.Writer): neither the API server nor the LBC's webhook was asked")
	default:
		if webhooks, err = b.dryRun(ctx, c, tgb, o.force); err != nil {
			return finish(err)
		}
	}
	pf2, _, err := finish(nil)
	if err != nil {
		return pf2, nil, err
	}
	return pf2, &preflightState{existing: existing, webhooks: webhooks}, nil
}
