//go:build integration

package cutover_test

// rbac_integration_test.go: Execute and Rollback run as a service account
// bound to exactly the plan's rules (Plan.ClusterRules) on a real
// kube-apiserver, which enforces them; without the node rules, Execute is
// refused by its permission check before any change.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/google/go-cmp/cmp"
	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/testenv"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// The operator's identity: a service account, impersonated.
const (
	operatorNS   = "tgmigrate-ops"
	operatorName = "operator"
)

// operatorKey marks a context whose calls go out as the operator.
type operatorKey struct{}

func asOperator(ctx context.Context) context.Context {
	return context.WithValue(ctx, operatorKey{}, true)
}

// splitClient is the world's Kubernetes API: calls made with a context
// from asOperator go out as the operator (the system under test, and the
// webhooks it meets on its way, as cutover's requests reach them); every
// other call (the world's nodes, pods, controller, Karpenter: their own
// contexts) goes out as the administrator. Status and SubResource are the
// administrator's: cutover calls neither.
type splitClient struct {
	client.Client // the administrator
	op            client.Client
}

func (c *splitClient) pick(ctx context.Context) client.Client {
	if ctx.Value(operatorKey{}) != nil {
		return c.op
	}
	return c.Client
}

func (c *splitClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	return c.pick(ctx).Get(ctx, key, obj, opts...)
}

func (c *splitClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return c.pick(ctx).List(ctx, list, opts...)
}

func (c *splitClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	return c.pick(ctx).Create(ctx, obj, opts...)
}

func (c *splitClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	return c.pick(ctx).Delete(ctx, obj, opts...)
}

func (c *splitClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	return c.pick(ctx).Update(ctx, obj, opts...)
}

func (c *splitClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	return c.pick(ctx).Patch(ctx, obj, patch, opts...)
}

func (c *splitClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	return c.pick(ctx).Apply(ctx, obj, opts...)
}

func (c *splitClient) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	return c.pick(ctx).DeleteAllOf(ctx, obj, opts...)
}

// TestIntegrationExecuteUnderItsRBAC: on a real kube-apiserver (RBAC
// enforced) with Karpenter's CRDs, a service account bound to the plan's
// rules without the node rules is refused by Execute's permission check,
// with a *PermissionError naming them, and nothing changed (no journal, no
// Lease, no binding, no node annotated, the target group as it was, no
// mutating AWS call); bound to exactly the plan's rules, the same world's
// cutover completes, then rolls back, with no failed request.
func TestIntegrationExecuteUnderItsRBAC(t *testing.T) {
	began := time.Now()
	env := testenv.Start(t)
	if err := env.InstallKarpenterCRDs(); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	admin := env.Client
	for _, obj := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: operatorNS}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: operatorNS, Name: operatorName}},
	} {
		if err := admin.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	opCfg := rest.CopyConfig(env.Config)
	opCfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + operatorNS + ":" + operatorName}
	opc, err := client.NewWithWatch(opCfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	rec := &opCalls{mapper: opc.RESTMapper()}
	op := interceptor.NewClient(opc, rec.funcs())
	opDiscovery, err := discovery.NewDiscoveryClientForConfig(opCfg)
	if err != nil {
		t.Fatal(err)
	}
	subject := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: operatorNS, Name: operatorName}

	w, err := sim.New(ctx, sim.Config{Seed: 1, Nodes: 3, Pods: 6, RPS: 20, Client: &splitClient{Client: admin, op: op}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	started := time.Since(began)
	l := w.Legacy()
	tg := arntest.TG(l.TargetGroupARN)
	cenv := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock(), ClusterVPCID: l.VPCID, Holder: "operator-1", Discovery: opDiscovery}
	// The plan is made as the administrator: planning's permissions are
	// Plan.Reads, not what this test is about.
	p, err := cutover.PlanCutover(ctx, cenv, cutover.Request{TargetGroupARN: tg, Namespace: l.Namespace, Service: l.Service, Port: intstr.FromString(l.PortName), Assumptions: worldAssumptions(w)})
	if err != nil {
		t.Fatal(err)
	}
	rules, err := p.ClusterRules()
	if err != nil {
		t.Fatal(err)
	}
	opCtx := asOperator(ctx)

	// The guard is real: the operator may do nothing the rules do not say.
	if err := op.List(ctx, &corev1.SecretList{}, client.InNamespace(l.Namespace)); !apierrors.IsForbidden(err) {
		t.Fatalf("the operator lists secrets: %v, want Forbidden", err)
	}

	// Without the node rules: refused before any change.
	noNodes := *rules
	noNodes.Rules = slices.DeleteFunc(slices.Clone(rules.Rules), func(r cutover.RBACRule) bool { return r.Resource == "nodes" })
	applyAll(t, admin, noNodes.Objects(subject))
	waitAllowed(t, op, authorizationv1.ResourceAttributes{Verb: "create", Group: "coordination.k8s.io", Resource: "leases", Namespace: l.Namespace}, true)
	before := tgState(t, w, tg.Raw)
	rec.reset()
	res, err := cutover.Execute(opCtx, cenv, p, simPods)
	var pe *cutover.PermissionError
	if !errors.As(err, &pe) || !cutover.IsPermission(err) || res != nil {
		t.Fatalf("execute without the node rules: %+v, %v; want a *PermissionError", res, err)
	}
	var missing []string
	for _, m := range pe.Missing {
		missing = append(missing, m.Verb+" "+m.Resource)
	}
	if d := cmp.Diff([]string{"list nodes", "get nodes", "patch nodes"}, missing); d != "" {
		t.Errorf("missing (-want +got):\n%s", d)
	}
	if !strings.Contains(err.Error(), "patch nodes (cluster-wide): the hold annotates karpenter.sh/do-not-disrupt") {
		t.Errorf("the error does not name the hold's rule: %v", err)
	}
	checkUnchanged(t, admin, w, p, before)
	if calls, forbidden := rec.take(); len(forbidden) > 0 || len(calls) != 1 || calls[0] != "create selfsubjectaccessreviews.authorization.k8s.io" {
		t.Errorf("the refused run's requests: %v, refused %v; want its reviews only", calls, forbidden)
	}

	// Exactly the plan's rules: the cutover completes, and rolls back.
	applyAll(t, admin, rules.Objects(subject))
	waitAllowed(t, op, authorizationv1.ResourceAttributes{Verb: "patch", Resource: "nodes"}, true)
	rec.reset()
	res, err = cutover.Execute(opCtx, cenv, p, simPods)
	if err != nil || !res.Completed {
		t.Fatalf("execute under the plan's rules: %+v, %v", res, err)
	}
	for _, warn := range res.Warnings {
		if strings.Contains(warn, "permission") {
			t.Errorf("warning: %s", warn)
		}
	}
	if len(res.Held) == 0 || len(res.Released) == 0 {
		t.Errorf("the hold held %v and released %v: the node rules were not exercised", res.Held, res.Released)
	}
	var tgb v1beta1.TargetGroupBinding
	if err := admin.Get(ctx, types.NamespacedName{Namespace: p.Binding.Namespace, Name: p.Binding.Name}, &tgb); err != nil {
		t.Fatalf("the binding the operator applied: %v", err)
	}
	rb, err := cutover.Rollback(opCtx, cenv, p)
	if err != nil || !rb.Completed {
		t.Fatalf("rollback under the plan's rules: %+v, %v", rb, err)
	}
	if err := admin.Get(ctx, types.NamespacedName{Namespace: p.Binding.Namespace, Name: p.Binding.Name}, &tgb); !apierrors.IsNotFound(err) {
		t.Errorf("binding after the rollback: %v, want gone", err)
	}
	if st := w.Traffic(); st.Failed != 0 || st.Total == 0 {
		t.Errorf("traffic %s", st.String())
	}
	// What the operator did is what the rules say: nothing refused (no
	// 403 swallowed by a soft path), and every rule used but those whose
	// situation did not arise.
	calls, forbidden := rec.take()
	if len(forbidden) > 0 {
		t.Errorf("requests the API server refused the operator: %v", forbidden)
	}
	granted := map[string]bool{}
	for _, r := range rules.Rules {
		for _, v := range r.Verbs {
			res := r.Resource
			if r.APIGroup != "" {
				res += "." + r.APIGroup
			}
			granted[v+" "+res] = true
		}
	}
	used := map[string]bool{}
	for _, c := range calls {
		used[c] = true
		if !granted[c] {
			t.Errorf("the operator made %q, which no rule grants", c)
		}
	}
	var unused []string
	for g := range granted {
		if !used[g] {
			unused = append(unused, g)
		}
	}
	slices.Sort(unused)
	// Not used here: the journal of an earlier plan replaced, a stalled
	// gate's Events, the watches (Execute polls today), the create of the
	// binding (an apply that creates goes out as a patch).
	if d := cmp.Diff([]string{"create targetgroupbindings.elbv2.k8s.aws", "delete configmaps", "list events", "watch nodeclaims.karpenter.sh", "watch nodes", "watch pods"}, unused); d != "" {
		t.Errorf("rules not used (-want +got):\n%s", d)
	}
	t.Logf("wall time: %v (control plane and world %v); cutover %.0f s and rollback %.0f s of virtual time",
		time.Since(began).Round(time.Millisecond), started.Round(time.Millisecond), res.CutoverSeconds, rb.Seconds)
}

// opCalls records the operator's requests ("verb resource.group") and
// those the API server refused.
type opCalls struct {
	mapper meta.RESTMapper

	mu        sync.Mutex
	calls     []string
	forbidden []string
}

func (o *opCalls) reset() { o.take() }

// take returns what was recorded since the last take, calls without
// repeats, and forgets it.
func (o *opCalls) take() (calls, forbidden []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	calls, forbidden = o.calls, o.forbidden
	o.calls, o.forbidden = nil, nil
	return calls, forbidden
}

func (o *opCalls) record(c client.Client, verb string, obj runtime.Object, err error) {
	gvk, gerr := apiutil.GVKForObject(obj, c.Scheme())
	what := fmt.Sprintf("%s %T", verb, obj)
	if gerr == nil {
		gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
		if m, merr := o.mapper.RESTMapping(gvk.GroupKind(), gvk.Version); merr == nil {
			what = verb + " " + m.Resource.Resource
			if g := m.Resource.Group; g != "" {
				what += "." + g
			}
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if !slices.Contains(o.calls, what) {
		o.calls = append(o.calls, what)
	}
	if apierrors.IsForbidden(err) {
		o.forbidden = append(o.forbidden, what+": "+err.Error())
	}
}

func (o *opCalls) funcs() interceptor.Funcs {
	return interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			err := c.Get(ctx, key, obj, opts...)
			o.record(c, "get", obj, err)
			return err
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			err := c.List(ctx, list, opts...)
			o.record(c, "list", list, err)
			return err
		},
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			err := c.Create(ctx, obj, opts...)
			o.record(c, "create", obj, err)
			return err
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			err := c.Update(ctx, obj, opts...)
			o.record(c, "update", obj, err)
			return err
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			err := c.Patch(ctx, obj, patch, opts...)
			o.record(c, "patch", obj, err)
			return err
		},
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			err := c.Apply(ctx, obj, opts...)
			// An apply is a PATCH (the API server also authorizes a create
			// when it creates). Its kind is tgbind's only: the binding.
			o.record(c, "patch", &v1beta1.TargetGroupBinding{}, err)
			return err
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			err := c.Delete(ctx, obj, opts...)
			o.record(c, "delete", obj, err)
			return err
		},
	}
}

// applyAll creates the objects as the administrator, or updates them.
func applyAll(t *testing.T, c client.Client, objs []client.Object) {
	t.Helper()
	for _, obj := range objs {
		cur := obj.DeepCopyObject().(client.Object)
		err := c.Get(t.Context(), client.ObjectKeyFromObject(obj), cur)
		switch {
		case apierrors.IsNotFound(err):
			err = c.Create(t.Context(), obj)
		case err == nil:
			obj.SetResourceVersion(cur.GetResourceVersion())
			err = c.Update(t.Context(), obj)
		}
		if err != nil {
			t.Fatalf("apply %T %s: %v", obj, obj.GetName(), err)
		}
	}
}

// waitAllowed waits, for at most 10 s, until the API server answers the
// operator's review of attrs with allowed: its RBAC authorizer learns new
// roles through a watch.
func waitAllowed(t *testing.T, op client.Client, attrs authorizationv1.ResourceAttributes, allowed bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		r := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attrs}}
		if err := op.Create(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		if r.Status.Allowed == allowed {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the operator's %+v is still allowed=%t", attrs, r.Status.Allowed)
		}
	}
}

// targetGroupState is what the refused run must leave as it was: the
// registered targets and the health check.
type targetGroupState struct {
	Targets     []string
	HealthCheck tgmigrate.HealthCheck
}

func tgState(t *testing.T, w *sim.World, arn string) targetGroupState {
	t.Helper()
	out, err := w.Model().DescribeTargetGroups(&elbv2.DescribeTargetGroupsInput{TargetGroupArns: []string{arn}})
	if err != nil {
		t.Fatal(err)
	}
	health, err := w.Model().DescribeTargetHealth(&elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	st := targetGroupState{HealthCheck: tgmigrate.HealthCheckOf(&out.TargetGroups[0])}
	for _, d := range health.TargetHealthDescriptions {
		st.Targets = append(st.Targets, fmt.Sprintf("%s:%d", aws.ToString(d.Target.Id), aws.ToInt32(d.Target.Port)))
	}
	slices.Sort(st.Targets)
	return st
}

// checkUnchanged checks that the refused run changed nothing.
func checkUnchanged(t *testing.T, admin client.Client, w *sim.World, p *cutover.Plan, before targetGroupState) {
	t.Helper()
	ctx := t.Context()
	jname, _ := cutover.JournalConfigMapName(p.TargetGroup.ARN)
	if err := admin.Get(ctx, types.NamespacedName{Namespace: p.Binding.Namespace, Name: jname}, &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
		t.Errorf("journal ConfigMap after the refusal: %v, want none", err)
	}
	lname, _ := cutover.LeaseName(p.TargetGroup.ARN)
	if err := admin.Get(ctx, types.NamespacedName{Namespace: p.Binding.Namespace, Name: lname}, &coordinationv1.Lease{}); !apierrors.IsNotFound(err) {
		t.Errorf("Lease after the refusal: %v, want none", err)
	}
	if err := admin.Get(ctx, types.NamespacedName{Namespace: p.Binding.Namespace, Name: p.Binding.Name}, &v1beta1.TargetGroupBinding{}); !apierrors.IsNotFound(err) {
		t.Errorf("binding after the refusal: %v, want none", err)
	}
	var nodes corev1.NodeList
	if err := admin.List(ctx, &nodes); err != nil || len(nodes.Items) == 0 {
		t.Fatalf("nodes: %d, %v", len(nodes.Items), err)
	}
	for _, n := range nodes.Items {
		if _, ok := n.Annotations[cutover.AnnotationDisruptionHold]; ok || n.Annotations[cutover.AnnotationDoNotDisrupt] != "" {
			t.Errorf("node %s annotated: %v", n.Name, n.Annotations)
		}
	}
	if d := cmp.Diff(before, tgState(t, w, p.TargetGroup.ARN.Raw)); d != "" {
		t.Errorf("the target group changed (-before +after):\n%s", d)
	}
	for _, c := range w.ELBv2().Calls() {
		if !strings.HasPrefix(c.Op, "Describe") {
			t.Errorf("the refused run called %s", c.Op)
		}
	}
}
