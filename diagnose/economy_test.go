package diagnose

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/mock/gomock"

	"github.com/qstools/tgmigrate/internal/mocks"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// fleet is n hand-made target groups, each pinning two of the cluster's
// nodes on the NodePort of its own Service, spread over three ALBs. Every
// tenth target group carries the tag team=payments.
func fleet(n int) world {
	w := world{}
	c := clusterFix{Name: "prod", VPC: testVPC, Namespaces: []nsFix{{Name: "apps"}}}
	for i := range 40 {
		c.Nodes = append(c.Nodes, nodeFix{Name: fmt.Sprintf("n%02d", i), IP: fmt.Sprintf("10.0.%d.%d", i/10, 10+i%10), NodePool: "default"})
	}
	for i := range 3 {
		w.LoadBalancers = append(w.LoadBalancers, lbFix{Name: fmt.Sprintf("lb-%d", i), Listeners: []listenerFix{{Port: 443, Protocol: "HTTPS"}}})
	}
	for i := range n {
		name := fmt.Sprintf("tg-%04d", i)
		port := int32(30000 + i%2000)
		tg := tgFix{Name: name, Port: port, LBs: []string{fmt.Sprintf("lb-%d", i%3)}, Targets: []targetFix{
			{ID: c.Nodes[i%40].IP, Port: port}, {ID: c.Nodes[(i+1)%40].IP, Port: port},
		}}
		if i%10 == 0 {
			tg.Tags = map[string]string{"team": "payments"}
		}
		w.TargetGroups = append(w.TargetGroups, tg)
		lb := &w.LoadBalancers[i%3].Listeners[0]
		lb.Rules = append(lb.Rules, ruleFix{Priority: fmt.Sprint(i + 1), Forward: map[string]int32{name: 1}})
		if i < 2000 {
			c.Services = append(c.Services, svcFix{NS: "apps", Name: name, Selector: map[string]string{"app": name},
				Ports: []svcPortFix{{Name: "http", Port: 80, TargetPort: "8080", NodePort: port}}})
		}
	}
	w.Clusters = []clusterFix{c, {Name: "other", VPC: "vpc-0ffffffffffffffff", Nodes: []nodeFix{{Name: "o1", IP: "10.0.0.10"}}}}
	return w
}

var everyKind = map[string]int{"nodes": 1, "pods": 1, "services": 1, "namespaces": 1, "targetgroupbindings": 1, "nodeclaims": 1}

func TestAPIEconomyAll(t *testing.T) {
	w := fleet(850)
	h := newHarness(t, w)
	expectAll(h.elb, w) // 3 pages, 43 tag batches, 850 health calls, 3 listeners, 3 rules: exactly
	rep, err := h.run(t, Scope{All: true}, WithConcurrency(4))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"DescribeTargetGroups": 3, "DescribeTags": 43, "DescribeTargetHealth": 850, "DescribeListeners": 3, "DescribeRules": 3}
	if diff := cmp.Diff(want, rep.Accounts[0].APICalls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	for name, counter := range h.lists {
		if diff := cmp.Diff(everyKind, counter.get()); diff != "" {
			t.Errorf("cluster %s lists (-want +got):\n%s", name, diff)
		}
	}
	if rep.Summary.TargetGroups != 850 || rep.Summary.ByClass[ClassNode] != 1700 || rep.Summary.ByCode[CodeStaticNodeTarget] != 850 {
		t.Errorf("summary = %+v", rep.Summary)
	}
}

func TestAPIEconomyScopes(t *testing.T) {
	w := fleet(300)
	arn := func(i int) string { return w.tgARN(fmt.Sprintf("tg-%04d", i)) }
	pick := func(idx ...int) []tgFix {
		var out []tgFix
		for _, i := range idx {
			out = append(out, w.TargetGroups[i])
		}
		return out
	}
	var tagged []int
	for i := 0; i < 300; i += 10 {
		tagged = append(tagged, i)
	}
	tests := []struct {
		name   string
		scope  Scope
		expect func(m *mocks.MockELBv2API)
		want   []int // target groups in the report
	}{
		{
			name:  "by ARN: one call for the ARNs, nothing for the others",
			scope: Scope{TargetGroupARNs: []string{arn(7), arn(3), arn(250), arn(3)}},
			expect: func(m *mocks.MockELBv2API) {
				m.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Cond(func(in *elbv2.DescribeTargetGroupsInput) bool {
					return slices.Equal(in.TargetGroupArns, slices.Sorted(slices.Values([]string{arn(250), arn(3), arn(7)}))) && aws.ToInt32(in.PageSize) == PageSize
				}), gomock.Any()).DoAndReturn(w.describeTargetGroups).Times(1)
				expectRest(m, w, pick(3, 7, 250))
			},
			want: []int{3, 7, 250},
		},
		{
			name: "by ARN: 45 ARNs in batches of 20",
			scope: Scope{TargetGroupARNs: func() (out []string) {
				for i := range 45 {
					out = append(out, arn(i))
				}
				return out
			}()},
			expect: func(m *mocks.MockELBv2API) {
				m.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Cond(func(in *elbv2.DescribeTargetGroupsInput) bool {
					return len(in.TargetGroupArns) > 0 && len(in.TargetGroupArns) <= ARNBatch
				}), gomock.Any()).DoAndReturn(w.describeTargetGroups).Times(3)
				expectRest(m, w, w.TargetGroups[:45])
			},
			want: func() (out []int) {
				for i := range 45 {
					out = append(out, i)
				}
				return out
			}(),
		},
		{
			name:  "by name",
			scope: Scope{TargetGroupNames: []string{"tg-0011", "tg-0002"}},
			expect: func(m *mocks.MockELBv2API) {
				m.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Cond(func(in *elbv2.DescribeTargetGroupsInput) bool {
					return slices.Equal(in.Names, []string{"tg-0002", "tg-0011"})
				}), gomock.Any()).DoAndReturn(w.describeTargetGroups).Times(1)
				expectRest(m, w, pick(2, 11))
			},
			want: []int{2, 11},
		},
		{
			name:  "by load balancer",
			scope: Scope{LoadBalancerARNs: []string{w.lbARN("lb-1")}},
			expect: func(m *mocks.MockELBv2API) {
				m.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Cond(func(in *elbv2.DescribeTargetGroupsInput) bool {
					return aws.ToString(in.LoadBalancerArn) == w.lbARN("lb-1") && aws.ToInt32(in.PageSize) == PageSize
				}), gomock.Any()).DoAndReturn(w.describeTargetGroups).Times(1)
				var idx []int
				for i := 1; i < 300; i += 3 {
					idx = append(idx, i)
				}
				expectRest(m, w, pick(idx...))
			},
			want: func() (out []int) {
				for i := 1; i < 300; i += 3 {
					out = append(out, i)
				}
				return out
			}(),
		},
		{
			name:  "by tags: lists and tags everything, describes the health of the matches only",
			scope: Scope{Tags: map[string]string{"team": "payments"}},
			expect: func(m *mocks.MockELBv2API) {
				m.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(w.describeTargetGroups).Times(1)
				expectRestTags(m, w, w.TargetGroups, pick(tagged...))
			},
			want: tagged,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, w)
			tt.expect(h.elb)
			rep, err := h.run(t, tt.scope)
			if err != nil {
				t.Fatal(err)
			}
			var got, want []string
			for _, tg := range rep.TargetGroups {
				got = append(got, tg.Name)
			}
			for _, i := range tt.want {
				want = append(want, fmt.Sprintf("tg-%04d", i))
			}
			slices.Sort(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("target groups (-want +got):\n%s", diff)
			}
			if len(rep.Errors) != 0 {
				t.Errorf("errors: %+v", rep.Errors)
			}
			for name, counter := range h.lists {
				if diff := cmp.Diff(everyKind, counter.get()); diff != "" {
					t.Errorf("cluster %s lists (-want +got):\n%s", name, diff)
				}
			}
		})
	}
}

// TestMultiAccount scans two accounts at once: each ARN goes to its own
// account's client, a name is looked up in both, and a name that exists in
// one account only is not an error.
func TestMultiAccount(t *testing.T) {
	wa := baseWorld()
	wb := baseWorld()
	wb.Account = "210987654321"
	wb.TargetGroups[0].Name = "legacy-api"
	wb.TargetGroups = append(wb.TargetGroups, tgFix{Name: "other", Port: 30080})

	ctrl := gomock.NewController(t)
	ma, mb := mocks.NewMockELBv2API(ctrl), mocks.NewMockELBv2API(ctrl)
	// Account A: by ARN legacy-web; the name legacy-api is unknown there.
	ma.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Cond(func(in *elbv2.DescribeTargetGroupsInput) bool {
		return len(in.TargetGroupArns) == 1
	}), gomock.Any()).DoAndReturn(wa.describeTargetGroups).Times(1)
	ma.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Cond(func(in *elbv2.DescribeTargetGroupsInput) bool {
		return slices.Equal(in.Names, []string{"legacy-api"})
	}), gomock.Any()).DoAndReturn(wa.describeTargetGroups).Times(1)
	expectRest(ma, wa, wa.TargetGroups)
	// legacy-web's cutover would add the two pods of web: the quota check
	// reads edge's target groups, in each account.
	expectLBMembers(ma, wa, "edge")
	expectLBMembers(mb, wb, "edge")
	// Account B: the name only.
	mb.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Cond(func(in *elbv2.DescribeTargetGroupsInput) bool {
		return slices.Equal(in.Names, []string{"legacy-api"})
	}), gomock.Any()).DoAndReturn(wb.describeTargetGroups).Times(1)
	expectRest(mb, wb, wb.TargetGroups[:1])

	ha := newHarness(t, wa)
	src := ha.src
	src.Accounts = []Account{{ID: wa.account(), Region: testRegion, ELBv2: viaELBv2(t, ma)}, {ID: wb.account(), Region: testRegion, ELBv2: viaELBv2(t, mb)}}
	rep, err := Diagnose(t.Context(), src, Scope{TargetGroupARNs: []string{wa.tgARN("legacy-web")}, TargetGroupNames: []string{"legacy-api"}},
		WithClock(vclock.New(time.Time{})), WithConcurrency(4))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.TargetGroups) != 2 || rep.TargetGroups[0].Account != wa.account() || rep.TargetGroups[1].Account != wb.account() || len(rep.Errors) != 0 {
		t.Fatalf("target groups %+v, errors %+v", rep.TargetGroups, rep.Errors)
	}
	for _, tg := range rep.TargetGroups {
		if tg.Counts.ByClass[ClassNode] != 2 {
			t.Errorf("%s: counts %+v", tg.Name, tg.Counts)
		}
	}
}

// TestRateLimitOnInjectedClock: with one call per second and no burst, the
// seven calls of a five-target-group scan take six seconds of virtual time,
// and no real time.
func TestRateLimitOnInjectedClock(t *testing.T) {
	w := fleet(5)
	w.LoadBalancers = nil
	for i := range w.TargetGroups {
		w.TargetGroups[i].LBs = nil
	}
	for _, conc := range []int{1, 8} {
		t.Run(fmt.Sprintf("concurrency %d", conc), func(t *testing.T) {
			h := newHarness(t, w)
			expectAll(h.elb, w)
			var phases []Phase
			rep, err := h.run(t, Scope{All: true}, WithRateLimit(1, 1), WithConcurrency(conc),
				WithProgress(func(p Progress) {
					if len(phases) == 0 || phases[len(phases)-1] != p.Phase {
						phases = append(phases, p.Phase)
					}
				}))
			if err != nil {
				t.Fatal(err)
			}
			if got := h.clock.Since(vclock.Epoch); got != 6*time.Second {
				t.Errorf("virtual time = %v, want 6s for 7 calls at 1/s", got)
			}
			if rep.Summary.TargetGroups != 5 {
				t.Errorf("summary = %+v", rep.Summary)
			}
			want := []Phase{PhaseDiscover, PhaseTags, PhaseTargets, PhaseSubnets, PhaseQuotas, PhaseAnalyse, PhaseCompleted}
			if diff := cmp.Diff(want, phases); diff != "" {
				t.Errorf("phases (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRoutesNLB: an NLB's listeners carry only default actions, so its
// rules are never read.
func TestRoutesNLB(t *testing.T) {
	w := baseWorld()
	w.LoadBalancers = append(w.LoadBalancers, lbFix{Name: "tcp", Type: "net", Listeners: []listenerFix{{Port: 443, Protocol: "TCP",
		Rules: []ruleFix{{Priority: "default", Forward: map[string]int32{"legacy-web": 1}}}}}})
	w.tgFix("legacy-web").LBs = []string{"edge", "tcp"}
	h := newHarness(t, w)
	expectAll(h.elb, w) // DescribeRules only for edge's one listener
	rep, err := h.run(t, Scope{All: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rep.tg("legacy-web").Routes {
		got = append(got, fmt.Sprintf("%s/%s %s:%d default=%t", r.LoadBalancerType, r.LoadBalancerName, r.ListenerProtocol, r.ListenerPort, r.Default))
	}
	want := []string{"app/edge HTTPS:443 default=false", "net/tcp TCP:443 default=true"}
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("routes (-want +got):\n%s", diff)
	}
}

// TestSubnetChecksOneBatch: the nodes behind node targets and the nodes
// that host the pods behind pod targets, over every target group, go into
// one DescribeInstances (and one DescribeRouteTables): no call per target
// group, none per kind of target.
func TestSubnetChecksOneBatch(t *testing.T) {
	w := baseWorld()
	web := map[string]string{"app": "web"}
	w.Clusters[0].Pods = append(w.Clusters[0].Pods, podFix{NS: "shop", Name: "web-3", Node: "n3", IP: "10.0.3.13", Labels: web,
		Ports: []portFix{{Name: "http", Port: 8080}}, ProbePath: "/healthz", ProbePort: "http"})
	w.TargetGroups = append(w.TargetGroups,
		tgFix{Name: "pods-a", Port: 8080, Targets: []targetFix{{ID: "10.0.1.11", Port: 8080}, {ID: "10.0.3.13", Port: 8080}}},
		tgFix{Name: "pods-b", Port: 8080, Targets: []targetFix{{ID: "10.0.3.13", Port: 8080}}})
	w.EC2 = &ec2Fix{Subnet: map[string]string{"i-0000000000000000a": "subnet-priv", "i-0000000000000000b": "subnet-priv", "i-0000000000000000c": "subnet-pub"},
		Public: map[string]bool{"subnet-pub": true}}
	h := newHarness(t, w)
	expectAll(h.elb, w)
	var asked []string
	h.ec2.EXPECT().DescribeInstances(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(
		func(_ context.Context, in *ec2.DescribeInstancesInput, _ ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error) {
			asked = append(asked, in.Filters[0].Values...)
			var r ec2types.Reservation
			for _, id := range in.Filters[0].Values {
				r.Instances = append(r.Instances, ec2types.Instance{InstanceId: aws.String(id), SubnetId: aws.String(w.EC2.Subnet[id]), VpcId: aws.String(testVPC)})
			}
			return &ec2.DescribeInstancesOutput{Reservations: []ec2types.Reservation{r}}, nil
		}).Times(1)
	h.ec2.EXPECT().DescribeRouteTables(gomock.Any(), gomock.Any(), gomock.Any()).Return(&ec2.DescribeRouteTablesOutput{RouteTables: []ec2types.RouteTable{{
		VpcId:        aws.String(testVPC),
		Associations: []ec2types.RouteTableAssociation{{SubnetId: aws.String("subnet-pub")}},
		Routes:       []ec2types.Route{{DestinationCidrBlock: aws.String("0.0.0.0/0"), GatewayId: aws.String("igw-0123")}},
	}}}, nil).Times(1)
	rep, err := h.run(t, Scope{All: true}, WithConcurrency(4))
	if err != nil {
		t.Fatal(err)
	}
	// n1 and n2 hold legacy-web's node targets; n1 and n3 host pods-a's pods; n3 pods-b's.
	if want := []string{"i-0000000000000000a", "i-0000000000000000b", "i-0000000000000000c"}; !slices.Equal(asked, want) {
		t.Errorf("DescribeInstances asked for %v, want %v in one call", asked, want)
	}
	for _, name := range []string{"pods-a", "pods-b"} {
		f := rep.tg(name).finding(CodePublicSubnetNode)
		if f == nil || !slices.Equal(f.Evidence.Names, []string{"n3"}) {
			t.Errorf("%s: PublicSubnetNode %+v, want n3", name, f)
		}
	}
	if f := rep.tg("legacy-web").finding(CodePublicSubnetNode); f != nil {
		t.Errorf("legacy-web: unexpected %s", f.Message)
	}
}
