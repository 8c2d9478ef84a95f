package diagnose

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	sqtypes "github.com/aws/aws-sdk-go-v2/service/servicequotas/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/mock/gomock"

	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/mocks"
	"github.com/qstools/tgmigrate/internal/retry"
)

// quotaWorld is the base world with legacy-web holding nodes node targets
// (nodeIP:30080, one node each) and Service web running pods Ready pods
// on 8080, none of them registered: a cutover in place would register
// pods pod targets next to nodes node targets.
func quotaWorld(nodes, pods int) world {
	w := baseWorld()
	c := w.cluster("prod")
	tg := w.tgFix("legacy-web")
	tg.Targets = nil
	for i := range nodes {
		ip := fmt.Sprintf("10.0.%d.%d", 10+i/200, 10+i%200)
		c.Nodes = append(c.Nodes, nodeFix{Name: fmt.Sprintf("q%04d", i), IP: ip})
		tg.Targets = append(tg.Targets, targetFix{ID: ip, Port: 30080})
	}
	web := map[string]string{"app": "web"}
	c.Pods = nil
	for i := range pods {
		c.Pods = append(c.Pods, podFix{NS: "shop", Name: fmt.Sprintf("web-%04d", i), Node: "n3", IP: fmt.Sprintf("10.1.%d.%d", i/200, 10+i%200),
			Labels: web, Ports: []portFix{{Name: "http", Port: 8080}}})
	}
	return w
}

// withNeighbour adds target group other, on legacy-web's ALB edge, with n
// targets on addresses no scanned cluster holds.
func withNeighbour(w world, n int) world {
	tg := tgFix{Name: "other", Port: 9000, LBs: []string{"edge"}}
	for i := range n {
		tg.Targets = append(tg.Targets, targetFix{ID: fmt.Sprintf("10.9.%d.%d", i/200, 10+i%200), Port: 9000})
	}
	w.TargetGroups = append(w.TargetGroups, tg)
	lb := &w.LoadBalancers[0].Listeners[0]
	lb.Rules = append(lb.Rules, ruleFix{Priority: "30", Forward: map[string]int32{"other": 1}})
	return w
}

// headroomOf returns the target group's headroom of scope, or nil.
func headroomOf(tg *TargetGroupReport, scope QuotaScope) *Headroom {
	for i := range tg.Headroom {
		if tg.Headroom[i].Scope == scope {
			return &tg.Headroom[i]
		}
	}
	return nil
}

// quotaFindingOf returns the target group's quota finding of scope, or nil.
func quotaFindingOf(tg *TargetGroupReport, code Code, scope QuotaScope) *Finding {
	for i := range tg.Findings {
		f := &tg.Findings[i]
		if f.Code == code && f.Evidence.Headroom != nil && f.Evidence.Headroom.Scope == scope {
			return f
		}
	}
	return nil
}

// counts is the comparable part of a headroom.
type counts struct{ Now, Others, Adding, Peak, Room, After, Quota int }

func countsOf(h *Headroom) counts {
	if h == nil {
		return counts{}
	}
	return counts{h.Now, h.Others, h.Adding, h.Peak, h.Room, h.After, h.Quota.Value}
}

func TestQuotaHeadroom(t *testing.T) {
	tests := []struct {
		name  string
		world world
		// arnScope: scan legacy-web alone, by ARN; else everything.
		arnScope bool
		// sq is the Service Quotas client; nil for none.
		sq      *fakeSQ
		wantTG  counts
		wantLB  counts
		tgCode  Code // "" for no finding on that scope
		lbCode  Code
		check   func(t *testing.T, rep *Report)
		elbMore func(m *mocks.MockELBv2API, w world)
	}{
		{
			name: "a target group near its quota", world: quotaWorld(600, 500),
			wantTG: counts{Now: 600, Adding: 500, Peak: 1100, Room: -100, After: 500, Quota: 1000},
			wantLB: counts{Now: 600, Adding: 500, Peak: 1100, Room: -100, After: 500, Quota: 1000},
			tgCode: CodeTargetQuotaOverlap, lbCode: CodeTargetQuotaOverlap,
			check: func(t *testing.T, rep *Report) {
				f := quotaFindingOf(rep.tg("legacy-web"), CodeTargetQuotaOverlap, ScopeTargetGroup)
				want := "cutover overlap on the target group: peak 1100 targets against Targets per Target Group per Region 1000 (AWS default; Service Quotas not read) (600 now, + 500 pod targets); room -100; after the cutover: 500"
				if f.Message != want {
					t.Errorf("message\n got %q\nwant %q", f.Message, want)
				}
				if f.Severity != SeverityHigh || f.Next.Op != OpPlanCutover || f.Next.Strategy != strategyInPlace || f.Next.Service == nil ||
					!strings.Contains(f.Next.Reason, "PlanCutover bounds the overlap") || !strings.Contains(f.Next.Reason, "--quota-code L-A0D0B863 --desired-value 1100 --region eu-west-1") ||
					!strings.Contains(f.Remediation, "cutover.PlanCutover for legacy-web and Service shop/web port http in cluster prod with strategy in-place: PlanCutover bounds the overlap") {
					t.Errorf("severity %s, next %+v, remediation %q", f.Severity, f.Next, f.Remediation)
				}
				if f.Evidence.Counts["peak"] != 1100 || f.Evidence.Details["room"] != "-100" || f.Evidence.Details["quotaSource"] != "aws-default" {
					t.Errorf("evidence %+v", f.Evidence)
				}
				if q := rep.Accounts[0].Quotas; q == nil || q.PerTargetGroup.Source != QuotaDocumentedDefault || q.PerTargetGroup.Note != NoServiceQuotas {
					t.Errorf("account quotas %+v, want AWS's defaults, not read", q)
				}
			},
		},
		{
			name: "a load balancer near its quota because of a target group out of scope", world: withNeighbour(quotaWorld(300, 300), 500), arnScope: true,
			wantTG: counts{Now: 300, Adding: 300, Peak: 600, Room: 400, After: 300, Quota: 1000},
			wantLB: counts{Now: 800, Others: 500, Adding: 300, Peak: 1100, Room: -100, After: 800, Quota: 1000},
			lbCode: CodeTargetQuotaOverlap,
			elbMore: func(m *mocks.MockELBv2API, w world) {
				// edge's target groups, then other's targets, once each.
				expectLBMembers(m, w, "edge")
				other := w.tgARN("other")
				m.EXPECT().DescribeTargetHealth(gomock.Any(), gomock.Cond(func(in *elbv2.DescribeTargetHealthInput) bool {
					return aws.ToString(in.TargetGroupArn) == other
				}), gomock.Any()).Return(w.health(*w.tgFix("other")), nil).Times(1)
			},
			check: func(t *testing.T, rep *Report) {
				f := quotaFindingOf(rep.tg("legacy-web"), CodeTargetQuotaOverlap, ScopeLoadBalancer)
				want := "cutover overlap on load balancer app/edge: peak 1100 targets against Targets per Application Load Balancer 1000 (AWS default; Service Quotas not read) (800 now, of them 500 in other target groups, + 300 pod targets); room -100; after the cutover: 800"
				if f.Message != want {
					t.Errorf("message\n got %q\nwant %q", f.Message, want)
				}
				w := withNeighbour(quotaWorld(300, 300), 500)
				if !slices.Contains(f.Evidence.ARNs, w.lbARN("edge")) || f.Evidence.Counts["others"] != 500 ||
					!strings.Contains(f.Next.Reason, "L-7E6692B2") {
					t.Errorf("evidence %+v, next %+v", f.Evidence, f.Next)
				}
				want2 := map[string]int{"DescribeTargetGroups": 2, "DescribeTargetHealth": 2, "DescribeTags": 1, "DescribeListeners": 1, "DescribeRules": 1}
				if diff := cmp.Diff(want2, rep.Accounts[0].APICalls); diff != "" {
					t.Errorf("calls (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "the other target group cannot be read: no load-balancer headroom, an error", world: withNeighbour(quotaWorld(300, 300), 500), arnScope: true,
			wantTG: counts{Now: 300, Adding: 300, Peak: 600, Room: 400, After: 300, Quota: 1000},
			elbMore: func(m *mocks.MockELBv2API, w world) {
				expectLBMembers(m, w, "edge")
				other := w.tgARN("other")
				m.EXPECT().DescribeTargetHealth(gomock.Any(), gomock.Cond(func(in *elbv2.DescribeTargetHealthInput) bool {
					return aws.ToString(in.TargetGroupArn) == other
				}), gomock.Any()).Return(nil, &smithy.GenericAPIError{Code: "AccessDenied", Message: "not authorized"}).Times(1)
			},
			check: func(t *testing.T, rep *Report) {
				w := withNeighbour(quotaWorld(300, 300), 500)
				e := rep.errorFor(w.lbARN("edge"))
				if e == nil || e.Kind != KindLoadBalancer || e.Op != "DescribeTargetHealth" || e.Category != "access-denied" {
					t.Errorf("error %+v; errors %+v", e, rep.Errors)
				}
			},
		},
		{
			name: "a load balancer near its quota because of a target group in scope", world: withNeighbour(quotaWorld(300, 300), 500),
			wantTG: counts{Now: 300, Adding: 300, Peak: 600, Room: 400, After: 300, Quota: 1000},
			wantLB: counts{Now: 800, Others: 500, Adding: 300, Peak: 1100, Room: -100, After: 800, Quota: 1000},
			lbCode: CodeTargetQuotaOverlap,
			check: func(t *testing.T, rep *Report) {
				if rep.tg("other").Headroom != nil {
					t.Errorf("other: headroom %+v, want none: it serves no known Service", rep.tg("other").Headroom)
				}
			},
		},
		{
			name: "fits: the headroom without a finding", world: quotaWorld(20, 30),
			wantTG: counts{Now: 20, Adding: 30, Peak: 50, Room: 950, After: 30, Quota: 1000},
			wantLB: counts{Now: 20, Adding: 30, Peak: 50, Room: 950, After: 30, Quota: 1000},
			check: func(t *testing.T, rep *Report) {
				if !strings.Contains(rep.Markdown(), "- quota headroom: the target group: peak 50 of Targets per Target Group per Region 1000 (aws-default), 20 now + 30 pod targets; room 950; 30 after the cutover") {
					t.Errorf("Markdown() has no headroom line:\n%s", rep.Markdown())
				}
				if !strings.Contains(rep.Text(), "QUOTA SCOPE") {
					t.Errorf("Text() has no headroom table:\n%s", rep.Text())
				}
			},
		},
		{
			name: "even the end state exceeds the quota", world: quotaWorld(200, 1200),
			wantTG: counts{Now: 200, Adding: 1200, Peak: 1400, Room: -400, After: 1200, Quota: 1000},
			wantLB: counts{Now: 200, Adding: 1200, Peak: 1400, Room: -400, After: 1200, Quota: 1000},
			tgCode: CodeTargetQuotaExceeded, lbCode: CodeTargetQuotaExceeded,
			check: func(t *testing.T, rep *Report) {
				tg := rep.tg("legacy-web")
				for scope, code := range map[QuotaScope]string{ScopeTargetGroup: "L-A0D0B863", ScopeLoadBalancer: "L-7E6692B2"} {
					f := quotaFindingOf(tg, CodeTargetQuotaExceeded, scope)
					if f.Severity != SeverityCritical || f.Next.Op != OpManual || f.Next.TargetGroupARN.String() != tg.ARN ||
						!strings.Contains(f.Next.Reason, "aws service-quotas request-service-quota-increase --service-code elasticloadbalancing --quota-code "+code+" --desired-value 1200") ||
						!strings.Contains(f.Next.Reason, "then cutover.PlanCutover, which bounds the overlap") || f.Remediation != f.Next.Reason {
						t.Errorf("%s: severity %s, next %+v, remediation %q", scope, f.Severity, f.Next, f.Remediation)
					}
				}
				if quotaFindingOf(tg, CodeTargetQuotaOverlap, ScopeTargetGroup) != nil {
					t.Error("an overlap finding next to the exceeded one")
				}
			},
		},
		{
			name: "raised quotas read through Service Quotas: it fits", world: quotaWorld(600, 500),
			sq:     &fakeSQ{applied: map[string]float64{QuotaCodeTargetsPerTargetGroup: 2000, QuotaCodeTargetsPerALB: 2000, QuotaCodeTargetsPerNLB: 3000}},
			wantTG: counts{Now: 600, Adding: 500, Peak: 1100, Room: 900, After: 500, Quota: 2000},
			wantLB: counts{Now: 600, Adding: 500, Peak: 1100, Room: 900, After: 500, Quota: 2000},
			check: func(t *testing.T, rep *Report) {
				a := rep.Accounts[0]
				if a.Quotas == nil || a.Quotas.PerTargetGroup.Source != QuotaApplied || a.Quotas.PerApplicationLoadBalancer.Value != 2000 || a.Quotas.Sourced() != "read through Service Quotas" {
					t.Errorf("quotas %+v", a.Quotas)
				}
				if a.APICalls["GetServiceQuota"] != 3 || a.APICalls["GetAWSDefaultServiceQuota"] != 0 {
					t.Errorf("calls %v, want 3 GetServiceQuota", a.APICalls)
				}
			},
		},
		{
			name: "throttled: retried on the run's clock, and counted", world: quotaWorld(20, 30),
			sq:     &fakeSQ{applied: map[string]float64{QuotaCodeTargetsPerTargetGroup: 2000, QuotaCodeTargetsPerALB: 2000, QuotaCodeTargetsPerNLB: 3000}, throttle: 2},
			wantTG: counts{Now: 20, Adding: 30, Peak: 50, Room: 1950, After: 30, Quota: 2000},
			wantLB: counts{Now: 20, Adding: 30, Peak: 50, Room: 1950, After: 30, Quota: 2000},
			check: func(t *testing.T, rep *Report) {
				a := rep.Accounts[0]
				if a.Quotas.PerTargetGroup.Source != QuotaApplied || a.APICalls["GetServiceQuota"] != 5 || a.Retries != 2 {
					t.Errorf("quotas %+v, calls %v, retries %d: want 5 calls, 2 of them retries", a.Quotas, a.APICalls, a.Retries)
				}
			},
		},
		{
			name: "no applied value: Service Quotas' default", world: quotaWorld(600, 500),
			sq:     &fakeSQ{defaults: map[string]float64{QuotaCodeTargetsPerTargetGroup: 1000, QuotaCodeTargetsPerALB: 1000, QuotaCodeTargetsPerNLB: 3000}},
			wantTG: counts{Now: 600, Adding: 500, Peak: 1100, Room: -100, After: 500, Quota: 1000},
			wantLB: counts{Now: 600, Adding: 500, Peak: 1100, Room: -100, After: 500, Quota: 1000},
			tgCode: CodeTargetQuotaOverlap, lbCode: CodeTargetQuotaOverlap,
			check: func(t *testing.T, rep *Report) {
				a := rep.Accounts[0]
				if a.Quotas.PerTargetGroup.Source != QuotaServiceDefault || a.APICalls["GetServiceQuota"] != 3 || a.APICalls["GetAWSDefaultServiceQuota"] != 3 {
					t.Errorf("quotas %+v, calls %v", a.Quotas, a.APICalls)
				}
				f := quotaFindingOf(rep.tg("legacy-web"), CodeTargetQuotaOverlap, ScopeTargetGroup)
				if !strings.Contains(f.Message, "1000 (Service Quotas' default: no applied value for the account) (600 now") {
					t.Errorf("message %q", f.Message)
				}
			},
		},
		{
			name: "access denied: AWS's defaults, with the code and not the text", world: quotaWorld(600, 500),
			sq:     &fakeSQ{err: &sqtypes.AccessDeniedException{Message: aws.String("User: arn:aws:sts::123456789012:assumed-role/secret-role is not authorized")}},
			wantTG: counts{Now: 600, Adding: 500, Peak: 1100, Room: -100, After: 500, Quota: 1000},
			wantLB: counts{Now: 600, Adding: 500, Peak: 1100, Room: -100, After: 500, Quota: 1000},
			tgCode: CodeTargetQuotaOverlap, lbCode: CodeTargetQuotaOverlap,
			check: func(t *testing.T, rep *Report) {
				q := rep.Accounts[0].Quotas
				js, _ := rep.JSON()
				if q.PerTargetGroup.Source != QuotaDocumentedDefault || !strings.Contains(q.PerTargetGroup.Note, "AccessDeniedException") ||
					strings.Contains(string(js), "secret-role") {
					t.Errorf("quota %+v; the report must name the code and not the message", q.PerTargetGroup)
				}
				f := quotaFindingOf(rep.tg("legacy-web"), CodeTargetQuotaOverlap, ScopeTargetGroup)
				if !strings.Contains(f.Message, "(AWS default; Service Quotas refused the read (AccessDeniedException))") {
					t.Errorf("message %q", f.Message)
				}
				if n := rep.Accounts[0].APICalls["GetServiceQuota"]; n != 3 {
					t.Errorf("%d GetServiceQuota calls, want 3 (access denied is not retried)", n)
				}
			},
		},
		{
			name: "a nil answer", world: quotaWorld(20, 30), sq: &fakeSQ{nilOut: true},
			wantTG: counts{Now: 20, Adding: 30, Peak: 50, Room: 950, After: 30, Quota: 1000},
			wantLB: counts{Now: 20, Adding: 30, Peak: 50, Room: 950, After: 30, Quota: 1000},
			check: func(t *testing.T, rep *Report) {
				if q := rep.Accounts[0].Quotas.PerTargetGroup; q.Source != QuotaDocumentedDefault || !strings.Contains(q.Note, "nil-response") {
					t.Errorf("quota %+v", q)
				}
			},
		},
		{
			name: "a panicking client", world: quotaWorld(20, 30), sq: &fakeSQ{panics: true},
			wantTG: counts{Now: 20, Adding: 30, Peak: 50, Room: 950, After: 30, Quota: 1000},
			wantLB: counts{Now: 20, Adding: 30, Peak: 50, Room: 950, After: 30, Quota: 1000},
			check: func(t *testing.T, rep *Report) {
				if q := rep.Accounts[0].Quotas.PerApplicationLoadBalancer; q.Source != QuotaDocumentedDefault || !strings.Contains(q.Note, "(panic)") {
					t.Errorf("quota %+v", q)
				}
				if len(rep.Errors) != 0 {
					t.Errorf("errors %+v", rep.Errors)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.world
			h := newHarness(t, w)
			if tt.sq != nil {
				h.src.Accounts[0].ServiceQuotas = tt.sq
			}
			scope := Scope{All: true}
			if tt.arnScope {
				scope = Scope{TargetGroupARNs: arntest.TGs(w.tgARN("legacy-web"))}
				h.elb.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Cond(func(in *elbv2.DescribeTargetGroupsInput) bool {
					return len(in.TargetGroupArns) == 1
				}), gomock.Any()).DoAndReturn(w.describeTargetGroups).Times(1)
				expectRest(h.elb, w, []tgFix{*w.tgFix("legacy-web")})
			} else {
				expectAll(h.elb, w)
			}
			if tt.elbMore != nil {
				tt.elbMore(h.elb, w)
			}
			rep, err := h.run(t, scope)
			if err != nil {
				t.Fatal(err)
			}
			tg := rep.tg("legacy-web")
			if diff := cmp.Diff(tt.wantTG, countsOf(headroomOf(tg, ScopeTargetGroup))); diff != "" {
				t.Errorf("target-group headroom (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantLB, countsOf(headroomOf(tg, ScopeLoadBalancer))); diff != "" {
				t.Errorf("load-balancer headroom (-want +got):\n%s", diff)
			}
			for scope, code := range map[QuotaScope]Code{ScopeTargetGroup: tt.tgCode, ScopeLoadBalancer: tt.lbCode} {
				for _, c := range []Code{CodeTargetQuotaOverlap, CodeTargetQuotaExceeded} {
					if got := quotaFindingOf(tg, c, scope) != nil; got != (c == code) {
						t.Errorf("%s finding on scope %s: %t, want %t", c, scope, got, c == code)
					}
				}
			}
			if rep.Summary.ByCode[CodeTargetQuotaOverlap]+rep.Summary.ByCode[CodeTargetQuotaExceeded] != len(slices.DeleteFunc([]Code{tt.tgCode, tt.lbCode}, func(c Code) bool { return c == "" })) {
				t.Errorf("summary by code %v", rep.Summary.ByCode)
			}
			if tt.check != nil {
				tt.check(t, rep)
			}
		})
	}
}

// TestQuotaHeadroomBlueGreen: an instance target group's pods go to a new
// ip target group, which holds them alone; the load balancer counts both
// until the old one is retired.
func TestQuotaHeadroomBlueGreen(t *testing.T) {
	w := quotaWorld(0, 1100)
	tg := w.tgFix("legacy-web")
	tg.Type = "instance"
	for i := range 400 {
		id := fmt.Sprintf("i-%017x", i+1)
		w.cluster("prod").Nodes = append(w.cluster("prod").Nodes, nodeFix{Name: fmt.Sprintf("b%04d", i), IP: fmt.Sprintf("10.0.%d.%d", 20+i/200, 10+i%200), Instance: id})
		tg.Targets = append(tg.Targets, targetFix{ID: id, Port: 30080})
	}
	h := newHarness(t, w)
	expectAll(h.elb, w)
	rep, err := h.run(t, Scope{All: true})
	if err != nil {
		t.Fatal(err)
	}
	got := rep.tg("legacy-web")
	if diff := cmp.Diff(counts{Now: 0, Adding: 1100, Peak: 1100, Room: -100, After: 1100, Quota: 1000}, countsOf(headroomOf(got, ScopeNewTargetGroup))); diff != "" {
		t.Errorf("new-target-group headroom (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(counts{Now: 400, Adding: 1100, Peak: 1500, Room: -500, After: 1100, Quota: 1000}, countsOf(headroomOf(got, ScopeLoadBalancer))); diff != "" {
		t.Errorf("load-balancer headroom (-want +got):\n%s", diff)
	}
	if headroomOf(got, ScopeTargetGroup) != nil {
		t.Error("a target-group headroom for an instance target group, whose pods go elsewhere")
	}
	if f := quotaFindingOf(got, CodeTargetQuotaExceeded, ScopeNewTargetGroup); f == nil || !strings.Contains(f.Message, "on the new ip target group (blue/green)") {
		t.Errorf("finding %+v", f)
	}
}

// TestQuotaHeadroomOnlyWhatTheControllerAdds: registered endpoints, pods
// that are not Ready, terminating ones, and a Service the report cannot
// tell add nothing.
func TestQuotaHeadroomOnlyWhatTheControllerAdds(t *testing.T) {
	tests := []struct {
		name       string
		edit       func(w *world)
		wantAdding int // 0: no headroom at all
	}{
		{name: "every pod", edit: func(*world) {}, wantAdding: 4},
		{name: "one is registered already", edit: func(w *world) {
			w.tgFix("legacy-web").Targets = append(w.tgFix("legacy-web").Targets, targetFix{ID: "10.1.0.10", Port: 8080})
		}, wantAdding: 3},
		{name: "one is not Ready", edit: func(w *world) { w.cluster("prod").Pods[0].NotReady = true }, wantAdding: 3},
		{name: "none is Ready", edit: func(w *world) {
			for i := range w.cluster("prod").Pods {
				w.cluster("prod").Pods[i].NotReady = true
			}
		}, wantAdding: 0},
		{name: "the Service is unknown", edit: func(w *world) {
			c := w.cluster("prod")
			c.Services = nil
			w.tgFix("legacy-web").Targets = []targetFix{{ID: "10.9.9.9", Port: 30080}}
		}, wantAdding: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := quotaWorld(2, 4)
			tt.edit(&w)
			h := newHarness(t, w)
			expectAll(h.elb, w)
			rep, err := h.run(t, Scope{All: true})
			if err != nil {
				t.Fatal(err)
			}
			hr := headroomOf(rep.tg("legacy-web"), ScopeTargetGroup)
			switch {
			case tt.wantAdding == 0 && hr != nil:
				t.Errorf("headroom %+v, want none", hr)
			case tt.wantAdding != 0 && (hr == nil || hr.Adding != tt.wantAdding):
				t.Errorf("headroom %+v, want %d pod targets added", hr, tt.wantAdding)
			}
		})
	}
}

// TestReadTargetQuotas reads the quotas straight, without Diagnose.
func TestReadTargetQuotas(t *testing.T) {
	clk := newHarness(t, baseWorld()).clock
	q := ReadTargetQuotas(t.Context(), nil, clk, retry.Policy{MaxAttempts: 3})
	if q != DefaultTargetQuotas(NoServiceQuotas) || !strings.Contains(q.Sourced(), "no client given") {
		t.Errorf("no client: %+v", q)
	}
	sq := &fakeSQ{applied: map[string]float64{QuotaCodeTargetsPerTargetGroup: 5000}, defaults: map[string]float64{QuotaCodeTargetsPerALB: 1000}}
	q = ReadTargetQuotas(t.Context(), sq, clk, retry.Policy{MaxAttempts: 3})
	if q.PerTargetGroup.Value != 5000 || q.PerTargetGroup.Source != QuotaApplied ||
		q.PerApplicationLoadBalancer.Source != QuotaServiceDefault ||
		q.PerNetworkLoadBalancer.Source != QuotaDocumentedDefault || !strings.Contains(q.PerNetworkLoadBalancer.Note, "NoSuchResourceException") ||
		q.Sourced() != "partly read through Service Quotas; the others are AWS's documented defaults" {
		t.Errorf("quotas %+v", q)
	}
}

// fakeSQ is a Service Quotas client: applied values by quota code, then
// AWS defaults; a code in neither is NoSuchResourceException from both.
// err, nilOut and panics break every call.
type fakeSQ struct {
	applied, defaults map[string]float64
	err               error
	nilOut, panics    bool
	// throttle is how many calls answer ThrottlingException first.
	throttle int

	mu    sync.Mutex
	calls map[string]int
}

var _ ServiceQuotasAPI = (*fakeSQ)(nil)

// count counts a call, and reports whether it is throttled.
func (f *fakeSQ) count(op string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[op]++
	if f.throttle > 0 {
		f.throttle--
		return true
	}
	return false
}

func (f *fakeSQ) answer(code string, values map[string]float64) (*sqtypes.ServiceQuota, error) {
	switch {
	case f.panics:
		panic("the Service Quotas client broke")
	case f.err != nil:
		return nil, f.err
	case f.nilOut:
		return nil, nil
	}
	v, ok := values[code]
	if !ok {
		return nil, &sqtypes.NoSuchResourceException{Message: aws.String("no such quota " + code)}
	}
	return &sqtypes.ServiceQuota{QuotaCode: aws.String(code), Value: aws.Float64(v)}, nil
}

func (f *fakeSQ) GetServiceQuota(_ context.Context, in *servicequotas.GetServiceQuotaInput, _ ...func(*servicequotas.Options)) (*servicequotas.GetServiceQuotaOutput, error) {
	if f.count("GetServiceQuota") {
		return nil, &smithy.GenericAPIError{Code: "ThrottlingException", Message: "Rate exceeded"}
	}
	q, err := f.answer(aws.ToString(in.QuotaCode), f.applied)
	if q == nil {
		return nil, err
	}
	return &servicequotas.GetServiceQuotaOutput{Quota: q}, err
}

func (f *fakeSQ) GetAWSDefaultServiceQuota(_ context.Context, in *servicequotas.GetAWSDefaultServiceQuotaInput, _ ...func(*servicequotas.Options)) (*servicequotas.GetAWSDefaultServiceQuotaOutput, error) {
	if f.count("GetAWSDefaultServiceQuota") {
		return nil, &smithy.GenericAPIError{Code: "ThrottlingException", Message: "Rate exceeded"}
	}
	q, err := f.answer(aws.ToString(in.QuotaCode), f.defaults)
	if q == nil {
		return nil, err
	}
	return &servicequotas.GetAWSDefaultServiceQuotaOutput{Quota: q}, err
}
