package cutover

// readenv.go holds ReadEnv, what PlanCutover reads through, read-only by
// type; PlanEnv, the sealed interface PlanCutover takes (an Env or a
// ReadEnv); the validation Env and ReadEnv share; and readerClient, which
// lets a client.Reader stand in the planner's env.

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/tgbind"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// ReadEnv is what [PlanCutover] reads through, and nothing more: the
// read-only ELBv2 interface and a Kubernetes client.Reader, so that a
// caller who only plans can prove, by type, that planning cannot change
// AWS or the cluster. Its fields are the [Env] fields planning uses, with
// the same zero values; [Env.ReadOnly] gives an Env's.
type ReadEnv struct {
	// ELBv2 is the ELBv2 API, Describe* only. Required.
	// *elasticloadbalancingv2.Client fits as it is, and so does an
	// [ELBv2API].
	ELBv2 tgmigrate.ELBv2ReadAPI
	// EC2 is read by the security-group check ([NetworkPlan]). *ec2.Client
	// fits as it is. Nil: the check is skipped, and the plan says so.
	EC2 EC2API
	// ServiceQuotas reads ELBv2's quotas on targets, which the plan counts
	// the cutover's overlap against. *servicequotas.Client fits as it is.
	// Nil: AWS's documented defaults, and the plan says so.
	ServiceQuotas diagnose.ServiceQuotasAPI
	// Client reads the cluster: Services, EndpointSlices, pods, nodes and
	// TargetGroupBindings. Required. A client.Client fits, and so does a
	// cache. If it has a scheme (a Scheme method, as a client.Client has),
	// that scheme must register tgbind/v1beta1; a Reader without one is
	// not checked, and an unregistered kind fails at its first read.
	Client client.Reader
	// Clock times the retries of the reads and stamps Plan.CreatedAt. Nil:
	// the real clock.
	Clock clock.Clock
	// Logger receives the plan's line (V(0)) and its retried reads (V(1)).
	// Zero: discarded.
	Logger logr.Logger
	// Discovery tells tgbind's preflight whether the TargetGroupBinding CRD
	// is installed. Nil: that check is skipped, and the preflight says so.
	Discovery tgbind.Discoverer
	// ClusterName, ClusterVPCID and ClusterCIDRs are what the guards and
	// the targets' classification compare against. ClusterName is the
	// cluster's name as the LBC tags it (elbv2.k8s.aws/cluster); zero, any
	// such tag is taken as another cluster's (the owner guard refuses it
	// unless forced). ClusterVPCID is the VPC of the cluster's nodes; zero,
	// unknown: the VPC guard is skipped, and the plan says so. ClusterCIDRs
	// are the node and pod address ranges, which tell a ghost target from a
	// foreign one (see diagnose.Cluster); zero, the targets' ports decide.
	ClusterName, ClusterVPCID string
	ClusterCIDRs              []string
}

// ReadOnly returns the part of e that [PlanCutover] reads through, as a
// [ReadEnv]: every field but Holder, which only Execute and Rollback use,
// with ELBv2 and Client typed by their read-only interfaces (the values
// are e's). PlanCutover gives the same plan with e or e.ReadOnly().
func (e Env) ReadOnly() ReadEnv {
	return ReadEnv{
		ELBv2: e.ELBv2, EC2: e.EC2, ServiceQuotas: e.ServiceQuotas, Client: e.Client,
		Clock: e.Clock, Logger: e.Logger, Discovery: e.Discovery,
		ClusterName: e.ClusterName, ClusterVPCID: e.ClusterVPCID, ClusterCIDRs: e.ClusterCIDRs,
	}
}

// PlanEnv is what [PlanCutover] takes: an [Env] or a [ReadEnv], the only
// two types that implement it (its method is unexported). Either way
// planning reads through the ReadEnv's read-only interfaces.
type PlanEnv interface {
	readEnv() ReadEnv
}

func (e Env) readEnv() ReadEnv     { return e.ReadOnly() }
func (e ReadEnv) readEnv() ReadEnv { return e }

// resolvePlanEnv validates pe as PlanCutover's and returns the planner's
// env, whose Client refuses every write and whose ELBv2 is nil, and the
// read-only ELBv2 API the planner reads through. Its errors name the
// fields of the type the caller gave: "Env.ELBv2" for an Env, as Execute's
// do, "ReadEnv.ELBv2" for a ReadEnv; a nil pe is an *InputError on "env".
func resolvePlanEnv(pe PlanEnv) (*env, tgmigrate.ELBv2ReadAPI, error) {
	const op = "plan"
	if pe == nil {
		return nil, nil, &InputError{Op: op, Field: "env", Reason: "nil"}
	}
	if typedNil(pe) {
		return nil, nil, &InputError{Op: op, Field: "env", Reason: fmt.Sprintf("a nil %T", pe)}
	}
	name := "ReadEnv"
	switch pe.(type) {
	case Env, *Env:
		name = "Env"
	}
	re := pe.readEnv()
	if err := re.check(op, name); err != nil {
		return nil, nil, err
	}
	e := Env{
		EC2: re.EC2, ServiceQuotas: re.ServiceQuotas, Client: readerClient{re.Client},
		Clock: re.Clock, Logger: re.Logger, Discovery: re.Discovery,
		ClusterName: re.ClusterName, ClusterVPCID: re.ClusterVPCID, ClusterCIDRs: re.ClusterCIDRs,
	}
	return e.withDefaults(), re.ELBv2, nil
}

// check validates e for op, naming its fields name.Field ("Env.ELBv2"):
// the required clients, no typed-nil client, the VPC ID, the CIDRs, and
// the client's scheme when it has one.
func (e ReadEnv) check(op, name string) error {
	field := func(f string) string { return name + "." + f }
	if e.ELBv2 == nil {
		return &InputError{Op: op, Field: field("ELBv2"), Reason: "nil"}
	}
	if e.Client == nil {
		return &InputError{Op: op, Field: field("Client"), Reason: "nil"}
	}
	for _, c := range []struct {
		field string
		v     any
	}{{"ELBv2", e.ELBv2}, {"EC2", e.EC2}, {"ServiceQuotas", e.ServiceQuotas}, {"Client", e.Client}, {"Clock", e.Clock}} {
		if c.v != nil && typedNil(c.v) {
			return &InputError{Op: op, Field: field(c.field), Reason: fmt.Sprintf("a nil %T", c.v)}
		}
	}
	if e.ClusterVPCID != "" && !vpcIDRe.MatchString(e.ClusterVPCID) {
		return &InputError{Op: op, Field: field("ClusterVPCID"), Reason: fmt.Sprintf("%q is not a VPC ID", e.ClusterVPCID)}
	}
	if _, err := diagnose.NewSnapshot(diagnose.Cluster{Name: "check", CIDRs: e.ClusterCIDRs}, diagnose.Objects{}); err != nil {
		return &InputError{Op: op, Field: field("ClusterCIDRs"), Reason: "malformed", Err: err}
	}
	if sc, ok := e.Client.(interface{ Scheme() *runtime.Scheme }); ok {
		if s := sc.Scheme(); s == nil || !s.Recognizes(v1beta1.GroupVersion.WithKind(v1beta1.Kind)) {
			return &InputError{Op: op, Field: field("Client"), Reason: "its scheme does not register TargetGroupBinding: add tgbind/v1beta1.AddToScheme"}
		}
	}
	return nil
}

// errReadOnly is what the planner's cluster client answers a write with.
// Planning makes none: it would be a bug.
var errReadOnly = errors.New("cutover: plan: the cluster is read-only while planning")

// readerClient is a client.Reader standing where the planner's env holds a
// client.Client (env.Client, which retryingReader wraps). Get and List are
// the Reader's; every write fails with errReadOnly, so planning cannot
// write to the cluster whatever client it was given. A Reader has no
// subresources: Status and SubResource are nil. Scheme, RESTMapper,
// GroupVersionKindFor and IsObjectNamespaced are the Reader's when it has
// them.
type readerClient struct{ client.Reader }

var _ client.Client = readerClient{}

func (readerClient) Apply(context.Context, runtime.ApplyConfiguration, ...client.ApplyOption) error {
	return errReadOnly
}
func (readerClient) Create(context.Context, client.Object, ...client.CreateOption) error {
	return errReadOnly
}
func (readerClient) Delete(context.Context, client.Object, ...client.DeleteOption) error {
	return errReadOnly
}
func (readerClient) Update(context.Context, client.Object, ...client.UpdateOption) error {
	return errReadOnly
}
func (readerClient) Patch(context.Context, client.Object, client.Patch, ...client.PatchOption) error {
	return errReadOnly
}
func (readerClient) DeleteAllOf(context.Context, client.Object, ...client.DeleteAllOfOption) error {
	return errReadOnly
}
func (readerClient) Status() client.SubResourceWriter            { return nil }
func (readerClient) SubResource(string) client.SubResourceClient { return nil }

func (c readerClient) Scheme() *runtime.Scheme {
	if sc, ok := c.Reader.(interface{ Scheme() *runtime.Scheme }); ok {
		return sc.Scheme()
	}
	return nil
}

func (c readerClient) RESTMapper() meta.RESTMapper {
	if m, ok := c.Reader.(interface{ RESTMapper() meta.RESTMapper }); ok {
		return m.RESTMapper()
	}
	return nil
}

func (c readerClient) GroupVersionKindFor(obj runtime.Object) (schema.GroupVersionKind, error) {
	if g, ok := c.Reader.(interface {
		GroupVersionKindFor(runtime.Object) (schema.GroupVersionKind, error)
	}); ok {
		return g.GroupVersionKindFor(obj)
	}
	return schema.GroupVersionKind{}, fmt.Errorf("cutover: plan: the cluster reader %T has no GroupVersionKindFor", c.Reader)
}

func (c readerClient) IsObjectNamespaced(obj runtime.Object) (bool, error) {
	if n, ok := c.Reader.(interface {
		IsObjectNamespaced(runtime.Object) (bool, error)
	}); ok {
		return n.IsObjectNamespaced(obj)
	}
	return false, fmt.Errorf("cutover: plan: the cluster reader %T has no IsObjectNamespaced", c.Reader)
}
