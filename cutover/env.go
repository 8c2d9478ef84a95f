package cutover

// env.go holds Env, what PlanCutover, Execute and Rollback act through, and
// its resolution into the package's env with its defaults (PlanCutover's
// ReadEnv and its resolution are in readenv.go).

import (
	"fmt"
	"reflect"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/tgbind"
)

// Env is what [PlanCutover], [Execute] and [Rollback] act through: AWS, the
// cluster, time and logs. Each field's comment says what its zero value
// means. PlanCutover reads through its [Env.ReadOnly] part, a [ReadEnv],
// which a caller who only plans may give instead.
type Env struct {
	// ELBv2 is the ELBv2 API. Required. *elasticloadbalancingv2.Client
	// fits as it is. PlanCutover calls only its Describe* operations.
	ELBv2 ELBv2API
	// EC2 is the EC2 API, read by PlanCutover's security-group check
	// (DescribeNetworkInterfaces of the pods' addresses,
	// DescribeSecurityGroups; see [NetworkPlan]). *ec2.Client fits as it
	// is. Nil: the check is skipped, and the plan says so.
	EC2 EC2API
	// ServiceQuotas reads ELBv2's quotas on targets (per target group, per
	// load balancer), which PlanCutover counts the cutover's overlap
	// against. *servicequotas.Client fits as it is. Nil: AWS's documented
	// defaults, and the plan says so.
	ServiceQuotas diagnose.ServiceQuotasAPI
	// Client is the cluster: Services, EndpointSlices, pods, nodes and
	// TargetGroupBindings are read through it; the binding, the journal
	// ConfigMap and the lock Lease are written through it. Required. Its
	// scheme must register tgbind/v1beta1. PlanCutover only reads.
	Client client.Client
	// Clock drives every wait and stamps the journal and the lease. Nil:
	// the real clock.
	Clock clock.Clock
	// Logger receives one line per step and per mutating call (V(0)) and
	// per observation (V(1)). Zero: discarded.
	Logger logr.Logger
	// Discovery tells tgbind's preflight whether the TargetGroupBinding CRD
	// is installed. Nil: that check is skipped, and the preflight says so.
	Discovery tgbind.Discoverer
	// ClusterName is the cluster's name as the LBC tags it
	// (elbv2.k8s.aws/cluster). Zero: any such tag is taken as another
	// cluster's (the owner guard refuses it unless forced).
	ClusterName string
	// ClusterVPCID is the VPC of the cluster's nodes. Zero: unknown; the
	// VPC guard is skipped, and the plan says so.
	ClusterVPCID string
	// ClusterCIDRs are the node and pod address ranges, which tell a ghost
	// target from a foreign one (see diagnose.Cluster). Zero: the targets'
	// ports decide.
	ClusterCIDRs []string
	// Holder identifies this operator in the lock Lease. Zero:
	// [DefaultHolder] (host name and process ID). Give a stable identity to
	// let a restarted process take its own lease back at once.
	Holder string
}

// env is an Env with its defaults applied. reader is what every cluster
// read goes through: Env.Client for Execute and Rollback; for the planner
// (resolvePlanEnv), the ReadEnv's client.Reader, retried (kuberead.go),
// and Env.Client stays nil, as Env.ELBv2 does (the planner reads AWS
// through its awsReader and its read-only Binder): planning holds no
// writer, by type.
type env struct {
	Env
	reader client.Reader
	clock  clock.Clock
	log    logr.Logger
}

// resolve validates e for op (Execute's, Rollback's) as [ReadEnv.check]
// does, naming the fields "Env.X", and applies its defaults, the holder's
// too.
func (e Env) resolve(op string) (*env, error) {
	if err := e.ReadOnly().check(op, "Env"); err != nil {
		return nil, err
	}
	r := e.withDefaults()
	if r.Holder == "" {
		r.Holder = DefaultHolder()
	}
	return r, nil
}

// withDefaults is e with its clock and logger defaults applied.
func (e Env) withDefaults() *env {
	r := &env{Env: e, reader: e.Client, clock: e.Clock, log: e.Logger}
	if r.clock == nil {
		r.clock = clock.RealClock{}
	}
	if r.log.GetSink() == nil {
		r.log = logr.Discard()
	}
	return r
}

// binder returns a tgbind Binder on api. A read-only one (writable false)
// has no Writer: it cannot apply or delete, by construction.
func (e *env) binder(api tgbind.ELBv2API, writable bool) (*tgbind.Binder, error) {
	opts := tgbind.Options{
		ELBv2: api, Reader: e.reader, Discovery: e.Discovery,
		ClusterVPCID: e.ClusterVPCID, Clock: e.clock, Logger: e.log.WithName("tgbind"),
	}
	if writable {
		opts.Writer = e.Client
	}
	b, err := tgbind.New(opts)
	if err != nil {
		return nil, fmt.Errorf("cutover: %w", err)
	}
	return b, nil
}

// clusterName is the name the snapshots carry.
func (e *env) clusterName() string {
	if e.ClusterName != "" {
		return e.ClusterName
	}
	return "cluster"
}

// typedNil reports whether v, a non-nil interface value, holds a nil
// pointer, map, func, channel or slice: such a client passes a v != nil
// test and panics on its first call.
func typedNil(v any) bool {
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Func, reflect.Chan, reflect.Slice, reflect.Interface:
		return rv.IsNil()
	}
	return false
}
