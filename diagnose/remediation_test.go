package diagnose_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/vclock"
	"github.com/qstools/tgmigrate/tgbind"
)

// readOnlyELBv2 is the corpus's fake ELBv2 with cutover's write methods,
// each of which fails the test: PlanCutover only reads.
type readOnlyELBv2 struct {
	*fakeELBv2
	t testing.TB
}

var _ cutover.ELBv2API = readOnlyELBv2{}

func (e readOnlyELBv2) write(op string) error {
	e.t.Errorf("PlanCutover called %s: planning must not write", op)
	return errors.New(op + ": read-only fake")
}

func (e readOnlyELBv2) RegisterTargets(context.Context, *elbv2.RegisterTargetsInput, ...func(*elbv2.Options)) (*elbv2.RegisterTargetsOutput, error) {
	return nil, e.write("RegisterTargets")
}

func (e readOnlyELBv2) DeregisterTargets(context.Context, *elbv2.DeregisterTargetsInput, ...func(*elbv2.Options)) (*elbv2.DeregisterTargetsOutput, error) {
	return nil, e.write("DeregisterTargets")
}

func (e readOnlyELBv2) CreateTargetGroup(context.Context, *elbv2.CreateTargetGroupInput, ...func(*elbv2.Options)) (*elbv2.CreateTargetGroupOutput, error) {
	return nil, e.write("CreateTargetGroup")
}

func (e readOnlyELBv2) DeleteTargetGroup(context.Context, *elbv2.DeleteTargetGroupInput, ...func(*elbv2.Options)) (*elbv2.DeleteTargetGroupOutput, error) {
	return nil, e.write("DeleteTargetGroup")
}

func (e readOnlyELBv2) ModifyTargetGroup(context.Context, *elbv2.ModifyTargetGroupInput, ...func(*elbv2.Options)) (*elbv2.ModifyTargetGroupOutput, error) {
	return nil, e.write("ModifyTargetGroup")
}

func (e readOnlyELBv2) ModifyTargetGroupAttributes(context.Context, *elbv2.ModifyTargetGroupAttributesInput, ...func(*elbv2.Options)) (*elbv2.ModifyTargetGroupAttributesOutput, error) {
	return nil, e.write("ModifyTargetGroupAttributes")
}

func (e readOnlyELBv2) AddTags(context.Context, *elbv2.AddTagsInput, ...func(*elbv2.Options)) (*elbv2.AddTagsOutput, error) {
	return nil, e.write("AddTags")
}

func (e readOnlyELBv2) ModifyListener(context.Context, *elbv2.ModifyListenerInput, ...func(*elbv2.Options)) (*elbv2.ModifyListenerOutput, error) {
	return nil, e.write("ModifyListener")
}

func (e readOnlyELBv2) ModifyRule(context.Context, *elbv2.ModifyRuleInput, ...func(*elbv2.Options)) (*elbv2.ModifyRuleOutput, error) {
	return nil, e.write("ModifyRule")
}

// servicePort is the port argument a NextCall's Service names: its name,
// else its number; zero (the Service's only port) when it names neither.
func servicePort(s *diagnose.ServiceRef) intstr.IntOrString {
	switch {
	case s.PortName != "":
		return intstr.FromString(s.PortName)
	case s.Port != 0:
		return intstr.FromInt32(s.Port)
	}
	return intstr.IntOrString{}
}

// refusal names the kind of a refusal of PlanCutover or tgbind.Build, for
// the failure message.
func refusal(err error) string {
	var (
		se *cutover.StrategyError
		ie *cutover.InputError
		ge *cutover.GuardError
		pe *cutover.PreconditionError
		ve *tgbind.ValidationError
	)
	switch {
	case errors.As(err, &se):
		return "StrategyError"
	case errors.As(err, &ie):
		return "InputError"
	case errors.As(err, &ge):
		return "GuardError"
	case errors.As(err, &pe):
		return "PreconditionError"
	case errors.As(err, &ve):
		return "tgbind.ValidationError"
	}
	return fmt.Sprintf("%T", err)
}

// TestRemediationCallsAccepted takes every finding of every corpus fleet
// and makes the call its Next names: cutover.PlanCutover for
// OpPlanCutover (with the strategy, the target group and the Service it
// names, in an Env of the Service's cluster) and tgbind.Build with
// MultiClusterTargetGroup for OpBuildBinding (on a read-only Binder). No
// finding leads to a refusal. A call that lacks arguments (Next.Missing)
// cannot be made: the ground truth lists each one. The other operations
// are not library calls: their fields must be filled.
//
// PlanCutover and Build read the cluster as the operator does: the
// fleet's fake client without the failures injected into Diagnose's
// reader (RBAC the diagnosing identity lacks is not the operator's).
func TestRemediationCallsAccepted(t *testing.T) {
	ctx := context.Background()
	made := map[diagnose.Operation]int{}
	for _, f := range corpusFleets() {
		t.Run(f.name, func(t *testing.T) {
			b := f.build(t)
			run := b.diagnose(t, diagnose.Scope{All: true}, false)
			if run.err != nil {
				t.Fatalf("Diagnose() error = %v", run.err)
			}
			rep := run.rep
			tgByARN := map[string]*diagnose.TargetGroupReport{}
			for i := range rep.TargetGroups {
				tgByARN[rep.TargetGroups[i].ARN] = &rep.TargetGroups[i]
			}
			// Every call the ground truth says lacks arguments.
			wantMissing := map[string][]string{}
			for _, tg := range f.tgs {
				for code, m := range tg.missing {
					wantMissing[tg.name+"/"+string(code)] = m
				}
			}
			gotMissing := map[string][]string{}
			for _, fd := range rep.AllFindings() {
				n := fd.Next
				subject := "cluster " + fd.Cluster
				var tg *diagnose.TargetGroupReport
				if !fd.TargetGroupARN.IsZero() {
					tg = tgByARN[fd.TargetGroupARN.String()]
					if tg == nil {
						t.Errorf("%s: finding on target group %s, which is not in the report", fd.Code, fd.TargetGroupARN)
						continue
					}
					subject = tg.Name
				}
				what := subject + " " + string(fd.Code) + " -> " + string(n.Op)
				if len(n.Missing) > 0 {
					gotMissing[subject+"/"+string(fd.Code)] = n.Missing
					if n.Op != diagnose.OpPlanCutover && n.Op != diagnose.OpBuildBinding {
						t.Errorf("%s: Missing %v on an operation that takes no arguments", what, n.Missing)
					}
					continue
				}
				switch n.Op {
				case diagnose.OpPlanCutover:
					made[n.Op]++
					planCutover(ctx, t, b, run.clk, tg, what, n)
				case diagnose.OpBuildBinding:
					made[n.Op]++
					buildBinding(ctx, t, b, tg, what, n)
				case diagnose.OpLabelNamespace:
					made[n.Op]++
					if n.Cluster == "" || len(n.Namespaces) == 0 {
						t.Errorf("%s: cluster %q, namespaces %v", what, n.Cluster, n.Namespaces)
					}
					for _, cn := range n.Namespaces {
						cluster, ns, _ := strings.Cut(cn, "/")
						bc := b.clusters[cluster]
						if bc == nil {
							t.Errorf("%s: namespace %s of an unknown cluster", what, cn)
							continue
						}
						var obj corev1.Namespace
						if err := bc.raw.Get(ctx, client.ObjectKey{Name: ns}, &obj); err != nil {
							t.Errorf("%s: namespace %s: %v", what, cn, err)
						} else if obj.Labels[diagnose.LabelReadinessGateInject] == "enabled" {
							t.Errorf("%s: namespace %s is labelled already", what, cn)
						}
					}
				case diagnose.OpRestartPods:
					made[n.Op]++
					if n.Service == nil || n.Service.Name == "" {
						t.Errorf("%s: no Service", what)
					}
				case diagnose.OpInstallController, diagnose.OpMoveNodes:
					made[n.Op]++
					if b.clusters[n.Cluster] == nil {
						t.Errorf("%s: cluster %q is not a scanned cluster", what, n.Cluster)
					}
				case diagnose.OpManual, diagnose.OpNone:
					made[n.Op]++
					if n.Reason == "" {
						t.Errorf("%s: no reason", what)
					}
				default:
					t.Errorf("%s: unknown operation", what)
				}
			}
			for key, m := range wantMissing {
				if !slices.Equal(gotMissing[key], m) {
					t.Errorf("%s: Missing %v, want %v", key, gotMissing[key], m)
				}
			}
			for key, m := range gotMissing {
				if _, ok := wantMissing[key]; !ok {
					t.Errorf("%s: Missing %v: the call lacks arguments the ground truth does not expect", key, m)
				}
			}
		})
	}
	t.Logf("calls and checks by operation: %v", made)
	for _, op := range []diagnose.Operation{diagnose.OpPlanCutover, diagnose.OpBuildBinding, diagnose.OpLabelNamespace,
		diagnose.OpInstallController, diagnose.OpManual, diagnose.OpNone} {
		if made[op] == 0 {
			t.Errorf("no finding of the corpus names %s", op)
		}
	}
	if made[diagnose.OpPlanCutover] < 10 || made[diagnose.OpBuildBinding] < 5 {
		t.Errorf("the corpus makes %d PlanCutover and %d Build calls: too few to mean much", made[diagnose.OpPlanCutover], made[diagnose.OpBuildBinding])
	}
}

// planCutover makes the PlanCutover call n names, in an Env of the
// Service's cluster, and fails the test when PlanCutover refuses.
func planCutover(ctx context.Context, t *testing.T, b *cBuilt, clk *vclock.Clock, tg *diagnose.TargetGroupReport, what string, n diagnose.NextCall) {
	t.Helper()
	if tg == nil || n.Service == nil || n.TargetGroupARN.String() != tg.ARN {
		t.Errorf("%s: target group %q, Service %+v", what, n.TargetGroupARN, n.Service)
		return
	}
	want := map[string]string{"ip": "in-place", "instance": "blue-green"}[tg.TargetType]
	if n.Strategy != want {
		t.Errorf("%s: strategy %q on a %s target group, want %q", what, n.Strategy, tg.TargetType, want)
	}
	bc := b.clusters[n.Service.Cluster]
	if bc == nil {
		t.Errorf("%s: Service in unknown cluster %q", what, n.Service.Cluster)
		return
	}
	env := cutover.Env{
		ELBv2: readOnlyELBv2{fakeELBv2: b.elb, t: t}, Client: bc.raw, Clock: clk,
		ClusterName: bc.c.name, ClusterVPCID: bc.c.vpc, ClusterCIDRs: bc.c.cidrs,
	}
	req := cutover.Request{
		TargetGroupARN: n.TargetGroupARN, Namespace: n.Service.Namespace, Service: n.Service.Name,
		Port: servicePort(n.Service), Strategy: cutover.Strategy(n.Strategy),
	}
	p, err := cutover.PlanCutover(ctx, env, req)
	if err != nil {
		t.Errorf("%s: PlanCutover(%s, %s/%s port %s, %s) refused (%s): %v", what, tg.Name, req.Namespace, req.Service, req.Port.String(), req.Strategy, refusal(err), err)
		return
	}
	if string(p.Strategy) != n.Strategy {
		t.Errorf("%s: the plan's strategy is %s, want %s", what, p.Strategy, n.Strategy)
	}
	if p.Strategy != cutover.StrategyInPlace {
		return
	}
	// It never records a target the controller registers.
	checkNoServingRecorded(ctx, t, bc, tg, p, what)
	// In place, the plan deregisters every ghost of the cluster, a reused
	// address (HeldBy) like any other: cutover classifies with diagnose.
	recorded := map[string]bool{}
	for _, r := range p.Recorded {
		recorded[fmt.Sprintf("%s:%d", r.IP, r.Port)] = true
	}
	for _, tr := range tg.Targets {
		if tr.Class == diagnose.ClassGhost && tr.Cluster == bc.c.name && !recorded[tr.Key()] {
			t.Errorf("%s: ghost %s (held by %v) is not among the plan's recorded targets %v", what, tr.Key(), tr.HeldBy, slices.Sorted(maps.Keys(recorded)))
		}
	}
}

// buildBinding makes the tgbind.Build call n names, with
// MultiClusterTargetGroup true, on a read-only Binder.
func buildBinding(ctx context.Context, t *testing.T, b *cBuilt, tg *diagnose.TargetGroupReport, what string, n diagnose.NextCall) {
	t.Helper()
	if tg == nil || n.Service == nil || n.TargetGroupARN.String() != tg.ARN {
		t.Errorf("%s: target group %q, Service %+v", what, n.TargetGroupARN, n.Service)
		return
	}
	bc := b.clusters[n.Service.Cluster]
	if bc == nil {
		t.Errorf("%s: Service in unknown cluster %q", what, n.Service.Cluster)
		return
	}
	binder, err := tgbind.New(tgbind.Options{ELBv2: b.elb, Reader: bc.raw, ClusterVPCID: bc.c.vpc})
	if err != nil {
		t.Fatal(err)
	}
	req := tgbind.Request{TargetGroupARN: n.TargetGroupARN, Namespace: n.Service.Namespace, Service: n.Service.Name,
		Port: servicePort(n.Service), MultiCluster: true}
	got, err := binder.Build(ctx, req)
	if err != nil {
		t.Errorf("%s: tgbind.Build(%s, %s/%s port %s) refused (%s): %v", what, tg.Name, req.Namespace, req.Service, req.Port.String(), refusal(err), err)
		return
	}
	if !got.TargetGroupBinding.Spec.MultiClusterTargetGroup {
		t.Errorf("%s: the binding is not multi-cluster", what)
	}
	if n.Replaces != "" && strings.Count(n.Replaces, "/") != 2 {
		t.Errorf("%s: Replaces %q is not cluster/namespace/name", what, n.Replaces)
	}
}
