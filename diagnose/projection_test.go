package diagnose_test

// projection_test.go: the projection keeps what diagnose reads. Every
// corpus fleet, every finding scenario of the simulator and a realistic
// cluster with its corners are diagnosed with the projection and without
// it (every object whole), and the reports must be byte-identical.

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/time/rate"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// sameReport fails unless the two reports' JSON is identical.
func sameReport(t *testing.T, slim, whole *diagnose.Report) {
	t.Helper()
	a, err := slim.JSON()
	if err != nil {
		t.Fatal(err)
	}
	b, err := whole.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(b), string(a)); d != "" {
		t.Errorf("the projection changes the report (-whole +projected):\n%s", d)
	}
}

func TestProjectionKeepsReports(t *testing.T) {
	t.Run("corpus", func(t *testing.T) {
		for _, f := range corpusFleets() {
			t.Run(f.name, func(t *testing.T) {
				b := f.build(t)
				for _, scope := range []diagnose.Scope{b.arnScope(), {All: true}} {
					slim, whole := b.diagnose(t, scope, false), b.diagnose(t, scope, false, diagnose.WithoutProjection())
					if slim.err != nil || whole.err != nil {
						t.Fatalf("Diagnose() errors: %v, %v", slim.err, whole.err)
					}
					sameReport(t, slim.rep, whole.rep)
				}
			})
		}
	})
	t.Run("scenarios", func(t *testing.T) {
		for _, sc := range scenarios {
			t.Run(string(sc.code)+"/"+sc.name, func(t *testing.T) {
				w, _, arn, src := sc.build(t, onFacade)
				scope := diagnose.Scope{TargetGroupARNs: arntest.TGs(arn)}
				slim := diagnoseSources(t, w, src, scope)
				whole := diagnoseSources(t, w, src, scope, diagnose.WithoutProjection())
				sameReport(t, slim, whole)
			})
		}
	})
	t.Run("realistic cluster", func(t *testing.T) {
		sz := bigSize{Nodes: 61, Pods: 1500, Services: 30, Namespaces: 4, Targets: 90}
		cl := newBigCluster(sz)
		cl.varied = true
		elb, _, _ := bigFleet(sz)
		addPodTargetGroup(elb, cl, sz)
		for _, tt := range []struct {
			pageSize int64
			cidrs    []string
		}{{0, nil}, {100, []string{"10.0.0.0/16"}}} {
			t.Run(fmt.Sprintf("pages of %d, CIDRs %v", tt.pageSize, tt.cidrs), func(t *testing.T) {
				pageSize := tt.pageSize
				src := diagnose.Sources{
					Accounts: []diagnose.Account{{ID: benchAccount, Region: benchRegion, ELBv2: elb}},
					Clusters: []diagnose.Cluster{{Name: "prod", Reader: newPagedCluster(cl, nil), VPCID: benchVPC, CIDRs: tt.cidrs}},
				}
				opts := []diagnose.Option{diagnose.WithClock(vclock.New(vclock.Epoch)), diagnose.WithRateLimit(rate.Inf, 0), diagnose.WithListPageSize(pageSize)}
				slim, err := diagnose.Diagnose(t.Context(), src, diagnose.Scope{All: true}, opts...)
				if err != nil {
					t.Fatal(err)
				}
				whole, err := diagnose.Diagnose(t.Context(), src, diagnose.Scope{All: true}, append(opts, diagnose.WithoutProjection())...)
				if err != nil {
					t.Fatal(err)
				}
				sameReport(t, slim, whole)
				// The cluster's corners are judged: the report is not empty.
				s := slim.Summary
				if s.ByClass[diagnose.ClassPod] == 0 || s.ByClass[diagnose.ClassNode] == 0 || s.ByClass[diagnose.ClassGhost] == 0 {
					t.Errorf("summary %+v: want pod, node and ghost targets", s)
				}
				for _, code := range []diagnose.Code{diagnose.CodeStaticNodeTarget, diagnose.CodeGhostTarget, diagnose.CodeKarpenterDisruptionRisk, diagnose.CodeUnmanagedTargetGroup} {
					if s.ByCode[code] == 0 {
						t.Errorf("no %s finding: %+v", code, s.ByCode)
					}
				}
			})
		}
	})
}

// addPodTargetGroup adds pods-web, a hand-made ip target group of the
// web pods' addresses on port 8080 (the hostNetwork ones are their
// nodes'), one in twenty a stale address no pod holds (inside a node's
// pod CIDRs), and a pod's second address for the pods that have one.
func addPodTargetGroup(elb *fakeELBv2, cl *bigCluster, sz bigSize) {
	arn := tgARN(1)
	tg := elbv2types.TargetGroup{TargetGroupArn: aws.String(arn), TargetGroupName: aws.String("pods-web"), TargetType: elbv2types.TargetTypeEnumIp,
		Protocol: elbv2types.ProtocolEnumHttp, Port: aws.Int32(8080), VpcId: aws.String(benchVPC), HealthCheckEnabled: aws.Bool(true),
		HealthCheckProtocol: elbv2types.ProtocolEnumHttps, HealthCheckPort: aws.String("traffic-port"), HealthCheckPath: aws.String("/ready"),
		LoadBalancerArns: []string{albARN(0)}}
	var targets []elbv2types.TargetHealthDescription
	for j := range sz.Targets {
		id := cl.podIP[j]
		switch {
		case j%40 == 19:
			id = fmt.Sprintf("10.99.9.%d", j%250+1) // in node 9's spec.podCIDRs
		case j%40 == 39:
			id = fmt.Sprintf("10.200.9.%d", j%250+1) // in node 9's spec.podCIDR
		case j%9 == 8:
			id = bigSecondIP(j) // the pod's second address
		}
		targets = append(targets, elbv2types.TargetHealthDescription{
			Target:       &elbv2types.TargetDescription{Id: aws.String(id), Port: aws.Int32(8080), AvailabilityZone: aws.String("eu-west-1a")},
			TargetHealth: &elbv2types.TargetHealth{State: elbv2types.TargetHealthStateEnumHealthy},
		})
	}
	elb.addTargetGroup(tg, nil, targets)
	elb.index()
}
