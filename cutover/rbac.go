package cutover

// rbac.go holds what Execute and Rollback of a plan need of the cluster,
// as RBAC data: the ordered table of needs (rbacTable), each with its
// condition on the plan and its reason; RBACInput, RBACFor and
// Plan.ClusterRules, which evaluate it; and the RBAC value they give
// (rbac_render.go turns it into Role, ClusterRole and their bindings).

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/read"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// RBACScope says where an [RBACRule] applies.
type RBACScope string

// The scopes of a rule.
const (
	// RBACNamespaced rules apply in the binding's namespace (RBAC.Namespace):
	// a Role and its RoleBinding.
	RBACNamespaced RBACScope = "namespace"
	// RBACCluster rules apply cluster-wide: cluster-scoped kinds (nodes,
	// NodeClaims, webhook configurations) and lists across every
	// namespace; a ClusterRole and its ClusterRoleBinding.
	RBACCluster RBACScope = "cluster"
)

// RBACPart names the default of Execute and Rollback a rule serves: a
// caller who replaces that default does not need the rule, and the
// permission check skips it.
type RBACPart string

// The parts a rule may serve.
const (
	// RBACPartJournal is the default journal, a [ConfigMapJournal]: not
	// needed with [WithJournal] (a [FileJournal], for example).
	RBACPartJournal RBACPart = "journal"
	// RBACPartLock is the default lock, a [LeaseLock]: not needed with
	// [WithLock].
	RBACPartLock RBACPart = "lock"
)

// RBACRule is one thing Execute or Rollback does in the cluster: the
// verbs on a resource, where, and why. It is plain data.
type RBACRule struct {
	// Scope is where the rule applies.
	Scope RBACScope `json:"scope"`
	// Verbs are the Kubernetes verbs ("get", "list", "watch", "create",
	// "update", "patch", "delete"). Server-side apply is "patch".
	Verbs []string `json:"verbs"`
	// APIGroup is the resource's API group; "" is the core group.
	APIGroup string `json:"apiGroup"`
	// Resource is the resource, plural and lower case ("configmaps").
	Resource string `json:"resource"`
	// ResourceNames narrow the rule to those objects when the code touches
	// only them. Empty: every object of the resource in the scope. A
	// plain create cannot be narrowed (RBAC does not see the name of what
	// it creates); a server-side apply that creates can: the API server
	// authorizes it as a create of the name in its URL.
	ResourceNames []string `json:"resourceNames,omitempty"`
	// Reason says, in one line, what the code does with it.
	Reason string `json:"reason"`
	// Optional says Execute and Rollback go on without it, as Reason
	// says: the permission check warns instead of refusing.
	Optional bool `json:"optional,omitempty"`
	// Part is the default the rule serves ([RBACPartJournal],
	// [RBACPartLock]); "" when every run needs it.
	Part RBACPart `json:"part,omitempty"`
}

// What names the rule: "get,update configmaps/tgmigrate-journal-x in shop",
// "patch nodes (cluster-wide)".
func (r RBACRule) What(namespace string) string {
	res := r.Resource
	if r.APIGroup != "" {
		res += "." + r.APIGroup
	}
	if len(r.ResourceNames) > 0 {
		res += "/" + strings.Join(r.ResourceNames, ",")
	}
	where := " (cluster-wide)"
	if r.Scope == RBACNamespaced {
		where = " in " + namespace
	}
	return strings.Join(r.Verbs, ",") + " " + res + where
}

// RBAC is what Execute and Rollback of one plan need of the cluster, as
// rules with their reasons: a Role in the binding's namespace and a
// ClusterRole, both named Name. It is plain data; [RBAC.Role],
// [RBAC.ClusterRole], [RBAC.Objects] and [RBAC.YAML] render it.
type RBAC struct {
	// PlanID is the plan the rules are for.
	PlanID string `json:"planID"`
	// Name names the Role, the ClusterRole and their bindings:
	// "tgmigrate-cutover-" and the plan's ID.
	Name string `json:"name"`
	// Namespace is the binding's namespace: the Role's, where the
	// journal, the lock and the binding live.
	Namespace string `json:"namespace"`
	// Rules are the rules, in the order of the package's table.
	Rules []RBACRule `json:"rules"`
}

// RBACNamePrefix begins the name of every Role and ClusterRole
// [RBACFor] gives; the plan's ID follows.
const RBACNamePrefix = "tgmigrate-cutover-"

// RBACInput is what the rules of a plan depend on, as plain values.
// [Plan.RBACInput] fills it from a plan.
type RBACInput struct {
	// PlanID names the Role and the ClusterRole. Required.
	PlanID string
	// TargetGroupARN is the plan's target group: it names the journal
	// ConfigMap ([JournalConfigMapName]) and the lock Lease
	// ([LeaseName]). Required.
	TargetGroupARN tgmigrate.ARN
	// Namespace is the binding's namespace, where the journal, the lock,
	// the binding and the Service are. Required.
	Namespace string
	// Binding is the name of the TargetGroupBinding the plan applies (and
	// its rollback deletes). Required.
	Binding string
	// Service is the Service the binding serves. Required.
	Service string
	// NoDisruptionHold drops the hold's rules: the plan does not hold
	// Karpenter's disruption (Request.NoDisruptionHold).
	NoDisruptionHold bool
	// ReplaceFirst adds delete on nodeclaims.karpenter.sh: Execute
	// replaces the nodes that expire during the run before the cutover
	// ([WithReplaceFirst]). [Plan.RBACInput] sets it when the plan carries
	// a [PreconditionForcefulDisruption]; Execute's permission check, when
	// it is given WithReplaceFirst.
	ReplaceFirst bool
}

// The verbs, in the order a rule lists them.
var rbacVerbOrder = []string{"get", "list", "watch", "create", "update", "patch", "delete"}

// rbacNames are the names of the objects the rules may be narrowed to.
type rbacNames struct{ journal, lease, binding, service, lbcTargets string }

func journalObject(n rbacNames) []string    { return []string{n.journal} }
func leaseObject(n rbacNames) []string      { return []string{n.lease} }
func bindingObject(n rbacNames) []string    { return []string{n.binding} }
func serviceObject(n rbacNames) []string    { return []string{n.service} }
func lbcTargetsObject(n rbacNames) []string { return []string{n.lbcTargets} }

// holds is the condition of the hold's rules.
func holds(in RBACInput) bool { return !in.NoDisruptionHold }

// replacesFirst is the condition of the replacement's rule.
func replacesFirst(in RBACInput) bool { return in.ReplaceFirst && !in.NoDisruptionHold }

// rbacNeed is one entry of the table: a rule with its condition on the
// plan (nil: always) and the objects it is narrowed to (nil: none).
type rbacNeed struct {
	scope    RBACScope
	verbs    []string
	group    string
	resource string
	names    func(rbacNames) []string
	when     func(RBACInput) bool
	optional bool
	part     RBACPart
	reason   string
}

// karpenterGroup is Karpenter's API group, as the observations read it.
var karpenterGroup = read.NodeClaimGVK.Group

const (
	admissionGroup = "admissionregistration.k8s.io"
	authzGroup     = "authorization.k8s.io"
)

// rbacTable is every Kubernetes call Execute and Rollback make (through
// the runner, the hold, the gate, the undo, the lock, the journal, the
// controller watch and tgbind's Apply, Observe, Build and Delete), one
// need a line, in the order of the rendered Role and ClusterRole. A
// change that makes a new call adds its line here, with its condition on
// the plan. PlanCutover's own reads are Plan.Reads.
var rbacTable = []rbacNeed{
	// The binding's namespace (a Role).
	{scope: RBACNamespaced, verbs: []string{"create"}, resource: "configmaps", part: RBACPartJournal, reason: "the journal ConfigMap is created at the first save"},
	{scope: RBACNamespaced, verbs: []string{"get"}, resource: "configmaps", names: journalObject, part: RBACPartJournal, reason: "the journal is loaded before anything else (resume, rollback)"},
	{scope: RBACNamespaced, verbs: []string{"update"}, resource: "configmaps", names: journalObject, part: RBACPartJournal, reason: "the journal is saved after every step and batch, under the resourceVersion last seen"},
	{scope: RBACNamespaced, verbs: []string{"delete"}, resource: "configmaps", names: journalObject, part: RBACPartJournal, reason: "Execute replaces the journal of an earlier plan of the target group once it is finished or rolled back"},
	{scope: RBACNamespaced, verbs: []string{"get"}, resource: "configmaps", names: lbcTargetsObject, reason: "the invariants: no target the controller records in its ConfigMap (multi-cluster mode) is deregistered"},
	{scope: RBACNamespaced, verbs: []string{"create"}, group: "coordination.k8s.io", resource: "leases", part: RBACPartLock, reason: "the lock Lease is created when no operator holds the target group"},
	{scope: RBACNamespaced, verbs: []string{"get"}, group: "coordination.k8s.io", resource: "leases", names: leaseObject, part: RBACPartLock, reason: "the lock is read to take it over once expired, and to say who holds it"},
	{scope: RBACNamespaced, verbs: []string{"update"}, group: "coordination.k8s.io", resource: "leases", names: leaseObject, part: RBACPartLock, reason: "the lock is renewed before every mutating call"},
	{scope: RBACNamespaced, verbs: []string{"delete"}, group: "coordination.k8s.io", resource: "leases", names: leaseObject, part: RBACPartLock, reason: "the lock is released at the end of a run"},
	{scope: RBACNamespaced, verbs: []string{"get"}, group: v1beta1.GroupVersion.Group, resource: v1beta1.Resource, names: bindingObject, reason: "the binding is read back (gate, controller watch) and before the rollback deletes it"},
	{scope: RBACNamespaced, verbs: []string{"create"}, group: v1beta1.GroupVersion.Group, resource: v1beta1.Resource, names: bindingObject, reason: "the bind step's server-side apply (and tgbind's dry run of it) creates the binding: the API server authorizes an apply that creates as a create of that name"},
	{scope: RBACNamespaced, verbs: []string{"patch"}, group: v1beta1.GroupVersion.Group, resource: v1beta1.Resource, names: bindingObject, reason: "the bind step applies the binding server-side (after tgbind's server-side dry run); a bounded overlap touches it to wake the controller"},
	{scope: RBACNamespaced, verbs: []string{"delete"}, group: v1beta1.GroupVersion.Group, resource: v1beta1.Resource, names: bindingObject, reason: "the rollback deletes the binding"},
	{scope: RBACNamespaced, verbs: []string{"get"}, resource: "services", names: serviceObject, reason: "tgbind reads the Service and its port before it applies the binding and at every observation"},
	{scope: RBACNamespaced, verbs: []string{"list"}, group: "discovery.k8s.io", resource: "endpointslices", reason: "tgbind reads the Service's ready endpoints from its EndpointSlices at every observation"},
	{scope: RBACNamespaced, verbs: []string{"watch"}, resource: "pods", optional: true, reason: "the observations read the Service's pods from a watch on its namespace and selector, opened with a list (without: each observation lists them)"},
	{scope: RBACNamespaced, verbs: []string{"list"}, resource: "events", reason: "the gate reads the controller's Warning Events on the binding: why it stalled, or its TooManyTargets refusals under a bounded overlap"},
	// Cluster-wide (a ClusterRole).
	{scope: RBACCluster, verbs: []string{"list"}, resource: "nodes", reason: "the observations classify the targets by node and judge the nodes (Ready, disrupting): the watch opens with a list of every node (without a watch: the first observation lists them, and again when a target's address is held by no node known); the rollback registers the live ones"},
	{scope: RBACCluster, verbs: []string{"get"}, resource: "nodes", reason: "the hold reads a node before it annotates it and before its release; without a watch, each observation reads the nodes that hold a target or a pod of the Service"},
	{scope: RBACCluster, verbs: []string{"patch"}, resource: "nodes", when: holds, reason: "the hold annotates karpenter.sh/do-not-disrupt on the nodes that serve; the release removes what it added"},
	{scope: RBACCluster, verbs: []string{"watch"}, resource: "nodes", optional: true, reason: "Execute reacts to a node's disruption as it happens (without: it polls)"},
	{scope: RBACCluster, verbs: []string{"list"}, resource: "pods", reason: "the observations read the Service's pods (its namespace and selector), the pods at a target's address that none of those holds (field selector status.podIP: a reused address) and on a node target's node when its port is no NodePort (spec.nodeName: host ports); the verification reads when pods turned Ready"},
	{scope: RBACCluster, verbs: []string{"list"}, resource: "services", reason: "listed once, at the first observation: a node target's Services are those whose NodePort is its port, and a pod target's those that select it, in any namespace"},
	{scope: RBACCluster, verbs: []string{"list"}, group: karpenterGroup, resource: "nodeclaims", reason: "the rollback's observations tell a drifted node by its NodeClaim (a cluster without the CRD counts as none)"},
	{scope: RBACCluster, verbs: []string{"watch"}, group: karpenterGroup, resource: "nodeclaims", optional: true, reason: "Execute reacts to a node's disruption as it happens (without: it polls)"},
	{scope: RBACCluster, verbs: []string{"delete"}, group: karpenterGroup, resource: "nodeclaims", when: replacesFirst, reason: "WithReplaceFirst deletes the NodeClaims of the nodes that expire during the run, once their targets have been out of rotation for the deregistration lag, so that Karpenter replaces them before the cutover"},
	{scope: RBACCluster, verbs: []string{"list"}, group: v1beta1.GroupVersion.Group, resource: v1beta1.Resource, reason: "tgbind's preflight finds the other bindings on the target group in every namespace (the controller allows two only in multi-cluster mode)"},
	{scope: RBACCluster, verbs: []string{"list"}, group: admissionGroup, resource: "validatingwebhookconfigurations", optional: true, reason: "tgbind names the webhook that refuses the binding (without: the refusal is reported unattributed)"},
	{scope: RBACCluster, verbs: []string{"list"}, group: admissionGroup, resource: "mutatingwebhookconfigurations", optional: true, reason: "tgbind names the webhook that refuses the binding (without: the refusal is reported unattributed)"},
	{scope: RBACCluster, verbs: []string{"create"}, group: authzGroup, resource: "selfsubjectaccessreviews", optional: true, reason: "the permission check asks the API server about every other rule (granted to every authenticated user by system:basic-user; without: the check is skipped)"},
}

// RBACInput returns what [RBACFor] needs to know about the plan.
func (p *Plan) RBACInput() RBACInput {
	return RBACInput{
		PlanID: p.ID, TargetGroupARN: p.TargetGroup.ARN, Namespace: p.Binding.Namespace,
		Binding: p.Binding.Name, Service: p.Service.Name, NoDisruptionHold: p.Request.NoDisruptionHold,
		ReplaceFirst: p.precondition(PreconditionForcefulDisruption) != nil,
	}
}

// stateRBACInput is RBACInput of a journal's state, for a rollback from
// the state alone: what Execute recorded of the plan.
func stateRBACInput(s *State) RBACInput {
	in := RBACInput{PlanID: s.Plan.ID, TargetGroupARN: s.TargetGroupARN, Binding: s.Binding.Name}
	if ri := s.Restore; ri != nil {
		in.Namespace, in.Service, in.NoDisruptionHold = ri.Namespace, ri.Service, ri.NoDisruptionHold
		if ri.BindingName != "" {
			in.Binding = ri.BindingName
		}
	}
	return in
}

// ClusterRules returns the Kubernetes permissions that Execute and
// Rollback of this plan need, with the default journal and lock: see
// [RBACFor]. A plan missing what names the rules gives an *InputError.
func (p *Plan) ClusterRules() (*RBAC, error) { return RBACFor(p.RBACInput()) }

// RBACFor returns the rules of the plan described by in: every entry of
// the package's table whose condition the plan meets, narrowed to the
// objects the code touches by name (the journal ConfigMap, the Lease, the
// binding, its Service, the controller's aws-lbc-targets ConfigMap).
// Missing or malformed input gives an *InputError naming the field, and no
// rules.
func RBACFor(in RBACInput) (*RBAC, error) {
	const op = "rbac"
	if in.PlanID == "" {
		return nil, &InputError{Op: op, Field: "PlanID", Reason: "empty"}
	}
	names, err := in.names(op)
	if err != nil {
		return nil, err
	}
	name := RBACNamePrefix + in.PlanID
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return nil, &InputError{Op: op, Field: "PlanID", Reason: fmt.Sprintf("%q does not make a Role name: %s", name, errs[0])}
	}
	return &RBAC{PlanID: in.PlanID, Name: name, Namespace: in.Namespace, Rules: rulesFor(in, names)}, nil
}

// names checks what names the objects and returns the names.
func (in RBACInput) names(op string) (rbacNames, error) {
	if err := validNamespace(op, in.Namespace); err != nil {
		return rbacNames{}, err
	}
	jn, err := JournalConfigMapName(in.TargetGroupARN)
	if err != nil {
		return rbacNames{}, &InputError{Op: op, Field: "TargetGroupARN", Reason: "malformed", Err: err}
	}
	ln, err := LeaseName(in.TargetGroupARN)
	if err != nil {
		return rbacNames{}, &InputError{Op: op, Field: "TargetGroupARN", Reason: "malformed", Err: err}
	}
	for _, f := range []struct{ field, v string }{{"Binding", in.Binding}, {"Service", in.Service}} {
		if errs := validation.IsDNS1123Subdomain(f.v); len(errs) > 0 {
			return rbacNames{}, &InputError{Op: op, Field: f.field, Reason: fmt.Sprintf("%q: %s", f.v, errs[0])}
		}
	}
	return rbacNames{journal: jn, lease: ln, binding: in.Binding, service: in.Service, lbcTargets: lbcTrackedPrefix + in.Binding}, nil
}

// rulesFor evaluates the table.
func rulesFor(in RBACInput, names rbacNames) []RBACRule {
	var out []RBACRule
	for _, n := range rbacTable {
		if n.when != nil && !n.when(in) {
			continue
		}
		r := RBACRule{Scope: n.scope, Verbs: slices.Clone(n.verbs), APIGroup: n.group, Resource: n.resource,
			Reason: n.reason, Optional: n.optional, Part: n.part}
		if n.names != nil {
			r.ResourceNames = n.names(names)
		}
		out = append(out, r)
	}
	return out
}
