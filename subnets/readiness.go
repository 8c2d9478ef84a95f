package subnets

// readiness.go: Input, CheckReadiness and its run: the validation before
// any call, the reads (the cluster listed once through internal/read, for
// the gate and the checks alike; EC2 and ELBv2 through its Caller and the
// SDK's paginators), the checks in order, and the verdict.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/karpenterapi"
	"github.com/qstools/tgmigrate/internal/netcheck"
	"github.com/qstools/tgmigrate/internal/nilcheck"
	"github.com/qstools/tgmigrate/internal/read"
	"github.com/qstools/tgmigrate/internal/retry"
)

// The estimate's defaults, used when [Input] leaves LaunchTime or
// DrainTime zero. Both are assumptions, named in [Estimate].Assumptions.
const (
	// DefaultLaunchTime is a replacement node's launch until Ready: EC2's
	// instance start, the AMI's boot and the kubelet's join, typically one
	// to three minutes on EKS; the upper end is assumed.
	DefaultLaunchTime = 3 * time.Minute
	// DefaultDrainTime is a drifted node's drain until its instance is
	// terminated: its pods' graceful stop and the load balancer's
	// deregistration delay (300 s by default) before the pod targets leave.
	DefaultDrainTime = 5 * time.Minute
)

// Input is what [CheckReadiness] reads: one cluster, its account's
// read-only clients, and what the move should select.
type Input struct {
	// Cluster is the cluster's name, as the LBC tags it. Required.
	Cluster string
	// AccountID and Region are the cluster's AWS account (12 digits) and
	// Region. Required.
	AccountID string
	Region    string
	// VPCID is the cluster's VPC (vpc-…). Required.
	VPCID string
	// Reader lists the cluster: nodes, pods, Services,
	// TargetGroupBindings (its scheme registers tgbind/v1beta1), and
	// Karpenter's EC2NodeClasses and NodePools as unstructured objects.
	// Required, and not a typed nil.
	Reader client.Reader
	// EC2 is a read-only EC2 client of the cluster's account and Region.
	// Required, and not a typed nil.
	EC2 EC2API
	// ELBv2 is a read-only ELBv2 client of the cluster's account and
	// Region. Required, and not a typed nil.
	ELBv2 ELBv2API
	// Accounts are other accounts whose target groups may pin the
	// cluster's node IPs; the gate scans them with the cluster's.
	Accounts []diagnose.Account
	// PrivateSubnets select the subnets the move will use (terms ORed,
	// as Karpenter's). Nil: every private subnet of the VPC in the
	// nodes' zones. A term must be an ID or tags, not empty.
	PrivateSubnets []karpenterapi.SelectorTerm
	// NodeClasses restricts the move to these EC2NodeClasses. Nil: every
	// EC2NodeClass that selects a public subnet or a public address.
	NodeClasses []string
	// LaunchTime and DrainTime are the estimate's per-wave assumptions.
	// Zero: [DefaultLaunchTime] and [DefaultDrainTime].
	LaunchTime, DrainTime time.Duration
}

// validate checks the input before any call.
func (in Input) validate() error {
	bad := func(field, format string, args ...any) error {
		return &InputError{Op: "CheckReadiness", Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case in.Cluster == "":
		return bad("Input.Cluster", "is empty")
	case !awserr.ValidAccountID(in.AccountID):
		return bad("Input.AccountID", "%q is not a 12-digit account ID", in.AccountID)
	case !awserr.ValidRegion(in.Region):
		return bad("Input.Region", "%q is not a Region", in.Region)
	case !awserr.ValidVPCID(in.VPCID):
		return bad("Input.VPCID", "%q is not a VPC ID", in.VPCID)
	case nilcheck.IsNil(in.Reader):
		return bad("Input.Reader", "%s", nilcheck.Reason(in.Reader))
	case nilcheck.IsNil(in.EC2):
		return bad("Input.EC2", "%s", nilcheck.Reason(in.EC2))
	case nilcheck.IsNil(in.ELBv2):
		return bad("Input.ELBv2", "%s", nilcheck.Reason(in.ELBv2))
	case in.LaunchTime < 0:
		return bad("Input.LaunchTime", "%v is negative", in.LaunchTime)
	case in.DrainTime < 0:
		return bad("Input.DrainTime", "%v is negative", in.DrainTime)
	}
	for i, t := range in.PrivateSubnets {
		switch {
		case t.ID == "" && len(t.Tags) == 0:
			return bad(fmt.Sprintf("Input.PrivateSubnets[%d]", i), "is empty: a term is an id or tags")
		case t.ID != "" && len(t.Tags) > 0:
			return bad(fmt.Sprintf("Input.PrivateSubnets[%d]", i), "has both an id and tags: a term is one of them")
		}
		for k := range t.Tags {
			if k == "" {
				return bad(fmt.Sprintf("Input.PrivateSubnets[%d].Tags", i), "has an empty key")
			}
		}
	}
	for i, n := range in.NodeClasses {
		if n == "" {
			return bad(fmt.Sprintf("Input.NodeClasses[%d]", i), "is empty")
		}
	}
	return nil
}

// CheckReadiness checks, read-only, that the nodes of one cluster can
// move to private subnets: no target group pins a node IP (the gate,
// through diagnose), each zone the nodes use has a private subnet with
// room and egress, the load balancers of the cluster's target groups
// enable those zones, their security groups reach the pods' port, and
// what the Karpenter replacement will take. Each failed check is a
// finding; the report is Ready when none is high or critical.
//
// Malformed input is an [*InputError] before any call. A check whose
// read AWS refuses is a note, and the other checks still run; a listing
// of the cluster that fails, or the end of ctx, is an error.
func CheckReadiness(ctx context.Context, in Input, opts ...Option) (*Readiness, error) {
	cfg := defaults()
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.err != nil {
		return nil, cfg.err
	}
	if err := in.validate(); err != nil {
		return nil, err
	}
	r := newRun(in, cfg)
	if err := r.run(ctx); err != nil {
		return nil, err
	}
	return r.rep, nil
}

// run is one CheckReadiness call: what it read, and the report it fills.
type run struct {
	in  Input
	cfg config
	c   *read.Caller
	elb *read.Reader
	rep *Readiness

	objs read.Objects
	// snap is the same listing as the gate's diagnose sees it: Diagnose
	// is given it (WithSnapshot) and lists the cluster no more.
	snap *diagnose.Snapshot
	// nodeClasses and nodePools are Karpenter's objects (nil when not
	// served or not listed).
	nodeClasses, nodePools []unstructured.Unstructured
	// pdbs are the PodDisruptionBudgets (nil when not listed).
	pdbs []policyv1.PodDisruptionBudget
	// subnets, tables and endpoints are the VPC's, with whether each
	// could be read.
	subnets                            []ec2types.Subnet
	tables                             netcheck.RouteTables
	endpoints                          []ec2types.VpcEndpoint
	subnetsRead, tablesRead, endpsRead bool
	// zones are the nodes' zones, with their counts.
	zones map[string]*ZoneReport
	// moving are the node classes the move patches, with their views.
	moving []karpenterapi.EC2NodeClass
	// bound are the cluster's bound target groups, with their reads.
	bound []*bound
	// lbs are their load balancers by ARN (nil: not read).
	lbs map[string]*elbv2types.LoadBalancer
}

func newRun(in Input, cfg config) *run {
	log := cfg.log.WithValues("cluster", in.Cluster)
	c := read.NewCaller(read.Options{
		Clock:   cfg.clock,
		Policy:  retry.Policy{Initial: 500 * time.Millisecond, Max: 20 * time.Second, MaxAttempts: uint64(cfg.maxAttempts)},
		Limiter: read.NewLimiter(cfg.clock, cfg.rps, cfg.burst),
		OnRetry: func(op, resource string, err error, wait time.Duration) {
			log.V(1).Info("retrying throttled call", "op", op, "resource", resource, "wait", wait, "error", err)
		},
		Log:          log,
		JoinCanceled: true,
	})
	launch, drain := cmp.Or(in.LaunchTime, DefaultLaunchTime), cmp.Or(in.DrainTime, DefaultDrainTime)
	return &run{in: in, cfg: cfg, c: c, elb: read.New(in.ELBv2, c), zones: map[string]*ZoneReport{},
		rep: &Readiness{
			SchemaVersion: ReadinessSchemaVersion, Cluster: in.Cluster, VPCID: in.VPCID, Region: in.Region,
			CheckedAt: cfg.clock.Now().UTC(), Estimate: Estimate{Launch: launch, Drain: drain},
		}}
}

func (r *run) run(ctx context.Context) error {
	// diagnose validates the extra accounts before any call; then one
	// listing of the cluster serves the gate and the checks.
	if err := r.validateGate(); err != nil {
		return err
	}
	if err := r.readCluster(ctx); err != nil {
		return err
	}
	if err := r.checkPinned(ctx); err != nil {
		return err
	}
	if err := r.readVPC(ctx); err != nil {
		return err
	}
	for _, check := range []func(context.Context) error{r.checkSubnets, r.checkKarpenter, r.checkLoadBalancers, r.checkSecurityGroups} {
		if err := check(ctx); err != nil {
			return err
		}
	}
	r.finish()
	return nil
}

// readCluster lists the cluster once for the gate and the checks: every
// kind diagnose reads (nodes, pods, Services, namespaces, bindings,
// NodeClaims), as diagnose lists them (a kind that fails is recorded, and
// diagnose judges without it), into one snapshot for the gate. The checks
// need nodes, pods, Services and bindings: a failure to list one of them
// stops the check, as before. Then Karpenter's kinds (a kind not served,
// or not listed, is a note) and the PodDisruptionBudgets.
func (r *run) readCluster(ctx context.Context) error {
	objs, err := read.ListCluster(ctx, r.in.Reader, read.ClusterOptions{Policy: read.Record})
	switch {
	case ctx.Err() != nil:
		return read.ContextError(ctx)
	case err != nil:
		return fmt.Errorf("subnets: cluster %s: %w", r.in.Cluster, err)
	}
	snap, err := diagnose.NewSnapshot(r.cluster(), objs)
	if err != nil {
		return err // the cluster's VPC ID was validated
	}
	r.snap = snap
	for _, kind := range []read.ListKind{read.ListNodes, read.ListPods, read.ListServices, read.ListBindings} {
		i := slices.IndexFunc(objs.Failures, func(f read.ListFailure) bool { return f.Kind == kind })
		switch {
		case i < 0:
		case kind == read.ListBindings && runtime.IsNotRegisteredError(objs.Failures[i].Err):
			objs.NoBindingCRD = true // as a cluster without the CRD: the checks see no binding
		default:
			return fmt.Errorf("subnets: cluster %s: list %s: %w", r.in.Cluster, kind, objs.Failures[i].Err)
		}
	}
	r.objs = objs
	if objs.NoBindingCRD {
		r.note("the TargetGroupBinding CRD is not served: no target group is bound to the cluster's pods, and no load balancer is checked")
	}
	var lerr error
	if r.nodeClasses, lerr = r.listKarpenter(ctx, karpenterapi.EC2NodeClassGVK, "ec2nodeclasses (karpenter.k8s.aws/v1)"); lerr != nil {
		return lerr
	}
	if r.nodePools, lerr = r.listKarpenter(ctx, karpenterapi.NodePoolGVK, "nodepools (karpenter.sh/v1)"); lerr != nil {
		return lerr
	}
	return r.listPDBs(ctx)
}

// listPDBs lists the PodDisruptionBudgets, which bound how many pods the
// replacement may take down at once (the floor); not listed is a note.
func (r *run) listPDBs(ctx context.Context) error {
	items, served, err := read.ListUnstructured(ctx, r.in.Reader, policyv1.SchemeGroupVersion.WithKind("PodDisruptionBudget"), 0)
	switch {
	case ctx.Err() != nil:
		return read.ContextError(ctx)
	case err != nil || !served:
		r.note("PodDisruptionBudgets not listed: each target group's floor counts only the pods on the nodes drifting at once")
		return nil
	}
	for _, it := range items {
		var pdb policyv1.PodDisruptionBudget
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(it.Object, &pdb); err != nil {
			r.note(fmt.Sprintf("PodDisruptionBudget %s/%s not read: %v", it.GetNamespace(), it.GetName(), err))
			continue
		}
		r.pdbs = append(r.pdbs, pdb)
	}
	return nil
}

// listKarpenter lists one Karpenter kind; not served or not listed is a
// note and no objects; only the end of ctx is an error.
func (r *run) listKarpenter(ctx context.Context, gvk schema.GroupVersionKind, what string) ([]unstructured.Unstructured, error) {
	items, served, err := read.ListUnstructured(ctx, r.in.Reader, gvk, 0)
	switch {
	case ctx.Err() != nil:
		return nil, read.ContextError(ctx)
	case err != nil:
		r.note(fmt.Sprintf("%s not listed (%s): the Karpenter check is not made on them", what, read.Category(err)))
	case !served:
		r.note(fmt.Sprintf("%s are not served: Karpenter is not installed, and no node class or pool is moved", what))
	}
	return items, nil
}

// note records what could not be checked, and why.
func (r *run) note(s string) {
	r.cfg.log.V(1).Info("note", "note", s)
	r.rep.Notes = append(r.rep.Notes, s)
}

// failed turns a read's error into a note (nil), or, once ctx has ended,
// into the error that stops the check.
func (r *run) failed(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return read.ContextError(ctx)
	}
	cat := "error"
	switch {
	case errors.Is(err, awserr.ErrAccessDenied):
		cat = "access-denied"
	case errors.Is(err, awserr.ErrThrottled):
		cat = "throttled"
	}
	r.note(fmt.Sprintf("%s not read (%s: %v)", what, cat, err))
	return nil
}

// guardedEC2 adapts the EC2 client to the SDK's paginators: each page is
// a read.Call (limited, retried, classified, and a nil output an error).
type guardedEC2 struct{ r *run }

var (
	_ ec2.DescribeSubnetsAPIClient        = guardedEC2{}
	_ ec2.DescribeRouteTablesAPIClient    = guardedEC2{}
	_ ec2.DescribeVpcEndpointsAPIClient   = guardedEC2{}
	_ ec2.DescribeSecurityGroupsAPIClient = guardedEC2{}
)

// DescribeSubnets is the engine's call.
func (g guardedEC2) DescribeSubnets(ctx context.Context, in *ec2.DescribeSubnetsInput, o ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error) {
	return read.Call(ctx, g.r.c, "DescribeSubnets", g.r.in.VPCID, func(ctx context.Context) (*ec2.DescribeSubnetsOutput, error) {
		return g.r.in.EC2.DescribeSubnets(ctx, in, o...)
	})
}

// DescribeRouteTables is the engine's call.
func (g guardedEC2) DescribeRouteTables(ctx context.Context, in *ec2.DescribeRouteTablesInput, o ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error) {
	return read.Call(ctx, g.r.c, "DescribeRouteTables", g.r.in.VPCID, func(ctx context.Context) (*ec2.DescribeRouteTablesOutput, error) {
		return g.r.in.EC2.DescribeRouteTables(ctx, in, o...)
	})
}

// DescribeVpcEndpoints is the engine's call.
func (g guardedEC2) DescribeVpcEndpoints(ctx context.Context, in *ec2.DescribeVpcEndpointsInput, o ...func(*ec2.Options)) (*ec2.DescribeVpcEndpointsOutput, error) {
	return read.Call(ctx, g.r.c, "DescribeVpcEndpoints", g.r.in.VPCID, func(ctx context.Context) (*ec2.DescribeVpcEndpointsOutput, error) {
		return g.r.in.EC2.DescribeVpcEndpoints(ctx, in, o...)
	})
}

// DescribeSecurityGroups is the engine's call.
func (g guardedEC2) DescribeSecurityGroups(ctx context.Context, in *ec2.DescribeSecurityGroupsInput, o ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error) {
	return read.Call(ctx, g.r.c, "DescribeSecurityGroups", "", func(ctx context.Context) (*ec2.DescribeSecurityGroupsOutput, error) {
		return g.r.in.EC2.DescribeSecurityGroups(ctx, in, o...)
	})
}

// vpcFilter selects the cluster's VPC.
func (r *run) vpcFilter() []ec2types.Filter {
	return []ec2types.Filter{{Name: aws.String("vpc-id"), Values: []string{r.in.VPCID}}}
}

// readVPC reads the VPC's subnets, route tables and endpoints, each paged;
// each one refused is a note.
func (r *run) readVPC(ctx context.Context) error {
	g := guardedEC2{r}
	var err error
	r.subnets, err = read.Drain(ctx, r.c, "DescribeSubnets",
		ec2.NewDescribeSubnetsPaginator(g, &ec2.DescribeSubnetsInput{Filters: r.vpcFilter(), MaxResults: aws.Int32(1000)}),
		func(o *ec2.DescribeSubnetsOutput) ([]ec2types.Subnet, *string) { return o.Subnets, o.NextToken })
	if r.subnetsRead = err == nil; err != nil {
		if err := r.failed(ctx, "the VPC's subnets (ec2:DescribeSubnets)", err); err != nil {
			return err
		}
	}
	tables, err := read.Drain(ctx, r.c, "DescribeRouteTables",
		ec2.NewDescribeRouteTablesPaginator(g, &ec2.DescribeRouteTablesInput{Filters: r.vpcFilter(), MaxResults: aws.Int32(100)}),
		func(o *ec2.DescribeRouteTablesOutput) ([]ec2types.RouteTable, *string) {
			return o.RouteTables, o.NextToken
		})
	if r.tablesRead = err == nil; err != nil {
		if err := r.failed(ctx, "the VPC's route tables (ec2:DescribeRouteTables)", err); err != nil {
			return err
		}
	}
	r.tables = netcheck.IndexRouteTables(tables)
	r.endpoints, err = read.Drain(ctx, r.c, "DescribeVpcEndpoints",
		ec2.NewDescribeVpcEndpointsPaginator(g, &ec2.DescribeVpcEndpointsInput{Filters: r.vpcFilter(), MaxResults: aws.Int32(1000)}),
		func(o *ec2.DescribeVpcEndpointsOutput) ([]ec2types.VpcEndpoint, *string) {
			return o.VpcEndpoints, o.NextToken
		})
	if r.endpsRead = err == nil; err != nil {
		if err := r.failed(ctx, "the VPC's endpoints (ec2:DescribeVpcEndpoints): a subnet without a NAT route is not judged on its endpoints", err); err != nil {
			return err
		}
	}
	return nil
}

// finish sorts the report and gives the verdict.
func (r *run) finish() {
	rep := r.rep
	slices.SortStableFunc(rep.Findings, func(a, b diagnose.Finding) int {
		return cmp.Or(cmp.Compare(a.Severity.Rank(), b.Severity.Rank()), cmp.Compare(a.Code, b.Code),
			cmp.Compare(a.TargetGroupARN.String(), b.TargetGroupARN.String()), cmp.Compare(a.Message, b.Message))
	})
	rep.Ready = !slices.ContainsFunc(rep.Findings, func(f diagnose.Finding) bool { return f.Severity.Rank() <= diagnose.SeverityHigh.Rank() })
	if rep.Findings == nil {
		rep.Findings = []diagnose.Finding{}
	}
	if rep.PrivateSubnets == nil {
		rep.PrivateSubnets = []Subnet{}
	}
	if rep.SelectorTerms == nil {
		rep.SelectorTerms = []karpenterapi.SelectorTerm{}
	}
	if rep.Zones == nil {
		rep.Zones = []ZoneReport{}
	}
	if rep.NodeClasses == nil {
		rep.NodeClasses = []NodeClassReport{}
	}
	if rep.NodePools == nil {
		rep.NodePools = []NodePoolReport{}
	}
	if rep.TargetGroups == nil {
		rep.TargetGroups = []BoundTargetGroup{}
	}
	if rep.Estimate.Assumptions == nil {
		rep.Estimate.Assumptions = []string{}
	}
}
