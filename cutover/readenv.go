package cutover

// readenv.go holds ReadEnv, what PlanCutover reads through, read-only by
// type; PlanEnv, the sealed interface PlanCutover takes (an Env or a
// ReadEnv); and the validation Env and ReadEnv share.

import (
	"fmt"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/awserr"
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
// env, whose reader is the caller's client.Reader and whose Client and
// ELBv2 are nil, and the read-only ELBv2 API the planner reads through. Its errors name the
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
		EC2: re.EC2, ServiceQuotas: re.ServiceQuotas,
		Clock: re.Clock, Logger: re.Logger, Discovery: re.Discovery,
		ClusterName: re.ClusterName, ClusterVPCID: re.ClusterVPCID, ClusterCIDRs: re.ClusterCIDRs,
	}
	r := e.withDefaults()
	r.reader = re.Client
	return r, re.ELBv2, nil
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
	if e.ClusterVPCID != "" && !awserr.ValidVPCID(e.ClusterVPCID) {
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
