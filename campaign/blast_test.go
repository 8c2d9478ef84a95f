package campaign_test

// blast_test.go: the blast radius on the test kit's fleet: each world's
// ALB listener rule, the HTTP API routes a paged fake API Gateway puts in
// front of it, refusals reported and not fatal, the ordering option, the
// digest and the JSON round trip.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	apigwtypes "github.com/aws/aws-sdk-go-v2/service/apigatewayv2/types"
	"github.com/aws/smithy-go"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// fakeAPIGW is an API Gateway v2 client of pages: the APIs, and each
// API's integrations and routes, one slice per page (the token of page
// i+1 is "p<i+1>"). fail answers an operation with an error code;
// endless makes GetApis give a new token for ever.
type fakeAPIGW struct {
	apis         [][]apigwtypes.Api
	integrations map[string][][]apigwtypes.Integration
	routes       map[string][][]apigwtypes.Route
	fail         map[string]string
	endless      bool

	mu    sync.Mutex
	calls map[string]int
}

var _ campaign.APIGatewayReadAPI = (*fakeAPIGW)(nil)

// page answers one call of op: its page of pages at token, and the next
// token.
func page[T any](f *fakeAPIGW, op string, pages [][]T, token *string) ([]T, *string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[op]++
	if code := f.fail[op]; code != "" {
		return nil, nil, &smithy.GenericAPIError{Code: code, Message: op + " refused"}
	}
	i := 0
	if token != nil {
		if _, err := fmt.Sscanf(*token, "p%d", &i); err != nil {
			return nil, nil, &smithy.GenericAPIError{Code: "BadRequestException", Message: "bad token " + *token}
		}
	}
	if f.endless && op == "GetApis" {
		return nil, aws.String(fmt.Sprintf("p%d", i+1)), nil
	}
	if i >= len(pages) {
		return nil, nil, nil
	}
	var next *string
	if i+1 < len(pages) {
		next = aws.String(fmt.Sprintf("p%d", i+1))
	}
	return pages[i], next, nil
}

func (f *fakeAPIGW) GetApis(_ context.Context, in *apigatewayv2.GetApisInput, _ ...func(*apigatewayv2.Options)) (*apigatewayv2.GetApisOutput, error) {
	items, next, err := page(f, "GetApis", f.apis, in.NextToken)
	if err != nil {
		return nil, err
	}
	return &apigatewayv2.GetApisOutput{Items: items, NextToken: next}, nil
}

func (f *fakeAPIGW) GetIntegrations(_ context.Context, in *apigatewayv2.GetIntegrationsInput, _ ...func(*apigatewayv2.Options)) (*apigatewayv2.GetIntegrationsOutput, error) {
	items, next, err := page(f, "GetIntegrations", f.integrations[aws.ToString(in.ApiId)], in.NextToken)
	if err != nil {
		return nil, err
	}
	return &apigatewayv2.GetIntegrationsOutput{Items: items, NextToken: next}, nil
}

func (f *fakeAPIGW) GetRoutes(_ context.Context, in *apigatewayv2.GetRoutesInput, _ ...func(*apigatewayv2.Options)) (*apigatewayv2.GetRoutesOutput, error) {
	items, next, err := page(f, "GetRoutes", f.routes[aws.ToString(in.ApiId)], in.NextToken)
	if err != nil {
		return nil, err
	}
	return &apigatewayv2.GetRoutesOutput{Items: items, NextToken: next}, nil
}

// gatewayTo is an account's API Gateway with n routes to listener (an
// HTTP API over VPC link "vl-1"), paged: the APIs on two pages (a
// WebSocket API first, ignored), the integrations on two (one of them
// public, to the same listener ARN: not a VPC link, ignored), the routes
// one per page, with a route to the public integration among them.
func gatewayTo(listener string, n int) *fakeAPIGW {
	api := apigwtypes.Api{ApiId: aws.String("api1"), Name: aws.String("shop"), ProtocolType: apigwtypes.ProtocolTypeHttp}
	f := &fakeAPIGW{
		apis: [][]apigwtypes.Api{{{ApiId: aws.String("ws1"), Name: aws.String("chat"), ProtocolType: apigwtypes.ProtocolTypeWebsocket}}, {api}},
		integrations: map[string][][]apigwtypes.Integration{"api1": {
			{{IntegrationId: aws.String("pub"), ConnectionType: apigwtypes.ConnectionTypeInternet, IntegrationUri: aws.String(listener)}},
			{{IntegrationId: aws.String("int1"), ConnectionType: apigwtypes.ConnectionTypeVpcLink, ConnectionId: aws.String("vl-1"), IntegrationUri: aws.String(listener)}},
		}},
		routes: map[string][][]apigwtypes.Route{"api1": {{{RouteId: aws.String("rpub"), RouteKey: aws.String("GET /public"), Target: aws.String("integrations/pub")}}}},
	}
	for i := range n {
		f.routes["api1"] = append(f.routes["api1"], []apigwtypes.Route{{RouteId: aws.String(fmt.Sprintf("r%d", i)),
			RouteKey: aws.String(fmt.Sprintf("GET /orders/%d", i)), Target: aws.String("integrations/int1")}})
	}
	return f
}

// TestExposure: each account's API Gateway as a table row; the listener
// rule diagnose read is every entry's; the routes are those through the
// VPC link to its listener; a refusal is one of Plan.Errors and its
// entries' state, never fatal.
func TestExposure(t *testing.T) {
	tests := []struct {
		name       string
		gateway    func(w *tgmigratetest.World) *fakeAPIGW // nil: no client
		state      campaign.APIGatewayState
		routes     int
		errOp      string // the refused operation, in Plan.Errors
		errKind    string
		errCateg   string
		wantCalled []string
	}{
		{"not read", nil, "", 0, "", "", "", nil},
		{"read, paged", func(w *tgmigratetest.World) *fakeAPIGW { return gatewayTo(w.Legacy().ListenerARN, 3) },
			campaign.APIGatewayRead, 3, "", "", "", []string{"GetApis", "GetIntegrations", "GetRoutes"}},
		{"other listener", func(w *tgmigratetest.World) *fakeAPIGW {
			return gatewayTo("arn:aws:elasticloadbalancing:eu-west-1:111111111111:listener/app/other/0123456789abcdef/0123456789abcdef", 2)
		}, campaign.APIGatewayRead, 0, "", "", "", []string{"GetApis", "GetIntegrations"}},
		{"APIs refused", func(w *tgmigratetest.World) *fakeAPIGW {
			f := gatewayTo(w.Legacy().ListenerARN, 2)
			f.fail = map[string]string{"GetApis": "AccessDeniedException"}
			return f
		}, campaign.APIGatewayRefused, 0, "GetApis", diagnose.KindAccount, "access-denied", []string{"GetApis"}},
		{"routes throttled", func(w *tgmigratetest.World) *fakeAPIGW {
			f := gatewayTo(w.Legacy().ListenerARN, 2)
			f.fail = map[string]string{"GetRoutes": "TooManyRequestsException"}
			return f
		}, campaign.APIGatewayPartial, 0, "GetRoutes", campaign.KindAPI, "throttled", []string{"GetApis", "GetIntegrations", "GetRoutes"}},
		{"endless pages", func(w *tgmigratetest.World) *fakeAPIGW {
			f := gatewayTo(w.Legacy().ListenerARN, 2)
			f.endless = true
			return f
		}, campaign.APIGatewayRefused, 0, "GetApis", diagnose.KindAccount, "truncated", []string{"GetApis"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFleet(t)
			a := f.World("prod-a")
			in := inputOf(f, campaign.Selection{All: true})
			var gw *fakeAPIGW
			if tt.gateway != nil {
				gw = tt.gateway(a)
				in.Accounts[0].APIGateway = gw
			}
			p, err := campaign.PlanCampaign(t.Context(), in, campaign.WithClock(f.Clock()))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range f.Worlds() {
				e, _ := p.Entry(w.Legacy().TargetGroupARN)
				x := e.Exposure
				if len(x.Rules) != 1 || x.Rules[0].ListenerARN != w.Legacy().ListenerARN || !x.Rules[0].Default || x.Rules[0].ListenerPort != 80 {
					t.Errorf("%s: rules %+v, want its listener's default action", w.ClusterName(), x.Rules)
				}
				if w != a && (x.APIGateway != "" || len(x.Routes) != 0) {
					t.Errorf("%s: exposure %+v, want its API Gateway not read", w.ClusterName(), x)
				}
			}
			e, _ := p.Entry(a.Legacy().TargetGroupARN)
			x := e.Exposure
			if x.APIGateway != tt.state || len(x.Routes) != tt.routes {
				t.Errorf("prod-a: state %q with %d routes %+v, want %q with %d", x.APIGateway, len(x.Routes), x.Routes, tt.state, tt.routes)
			}
			for i, r := range x.Routes {
				if r.APIID != "api1" || r.IntegrationID != "int1" || r.VPCLinkID != "vl-1" || r.ListenerARN != a.Legacy().ListenerARN ||
					r.RouteKey != fmt.Sprintf("GET /orders/%d", i) || r.AccountID != a.AccountID() {
					t.Errorf("route %d: %+v", i, r)
				}
			}
			var got []diagnose.ResourceError
			for _, re := range p.Errors {
				if re.Account == a.AccountID() {
					got = append(got, re)
				}
			}
			switch {
			case tt.errOp == "" && len(got) > 0:
				t.Errorf("errors %+v, want none", got)
			case tt.errOp != "" && (len(got) != 1 || got[0].Op != tt.errOp || got[0].Kind != tt.errKind || got[0].Category != tt.errCateg):
				t.Errorf("errors %+v, want one %s %s (%s)", got, tt.errKind, tt.errOp, tt.errCateg)
			}
			if gw != nil {
				var called []string
				for op := range gw.calls {
					called = append(called, op)
				}
				slices.Sort(called)
				if !slices.Equal(called, tt.wantCalled) {
					t.Errorf("called %q, want %q", called, tt.wantCalled)
				}
				if gw.calls["GetApis"] > campaign.MaxAPIPages {
					t.Errorf("%d GetApis calls, past the bound %d", gw.calls["GetApis"], campaign.MaxAPIPages)
				}
			}
			if actions := campaign.AccountIAMActions(in.Accounts[0]); slices.Contains(actions, campaign.ActionGetAPIGateway) != (gw != nil) {
				t.Errorf("AccountIAMActions %q with client %v", actions, gw != nil)
			}
			text := p.Text()
			for i, line := range strings.Split(text, "\n") {
				if n := len([]rune(line)); n > campaign.TextColumns {
					t.Errorf("text line %d is %d wide: %q", i+1, n, line)
				}
			}
			if want := "API Gateway read in 0 of 3 accounts"; gw != nil {
				want = "API Gateway read in 1 of 3 accounts"
				if !strings.Contains(text, want) {
					t.Errorf("text lacks %q:\n%s", want, text)
				}
			}
			if tt.routes > 0 && !strings.Contains(text, `"GET /orders/0"`) {
				t.Errorf("text names no route:\n%s", text)
			}
		})
	}
}

// TestOrderLeastExposedFirst: with no canary wave, the three runnable
// target groups run in one wave; least exposed first orders them by
// their routes (the listener rules tie), and moving the routes moves
// the order.
func TestOrderLeastExposedFirst(t *testing.T) {
	tests := []struct {
		routes map[string]int // cluster: routes in front of its listener
		want   []string       // clusters, in wave order
	}{
		{map[string]int{"prod-a": 2, "staging": 1}, []string{"prod-b", "staging", "prod-a"}},
		{map[string]int{"prod-b": 3, "prod-a": 1}, []string{"staging", "prod-a", "prod-b"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.want), func(t *testing.T) {
			f := newFleet(t)
			in := inputOf(f, campaign.Selection{All: true})
			for i, w := range f.Worlds() {
				if n := tt.routes[w.ClusterName()]; n > 0 {
					in.Accounts[i].APIGateway = gatewayTo(w.Legacy().ListenerARN, n)
				}
			}
			p, err := campaign.PlanCampaign(t.Context(), in, campaign.WithClock(f.Clock()), campaign.WithCanaries(),
				campaign.WithAcceptPreconditions(cutover.PreconditionPodSettings), campaign.WithOrder(campaign.LeastExposedFirst))
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Waves) != 1 || p.Order != campaign.LeastExposedFirst {
				t.Fatalf("waves %+v, order %q", p.Waves, p.Order)
			}
			var got []string
			for _, a := range p.Waves[0].TargetGroupARNs {
				e, _ := p.Entry(a)
				got = append(got, e.Cluster)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("order %q, want %q", got, tt.want)
			}
			if !strings.Contains(p.Text(), "order after the canaries: least-exposed-first") {
				t.Errorf("the text says no order:\n%s", p.Text())
			}
		})
	}
}

// TestLeastExposed: the chooser and the comparison it rests on.
func TestLeastExposed(t *testing.T) {
	arn := func(n string) tgmigrate.ARN {
		a, err := tgmigrate.ParseTargetGroupARN("arn:aws:elasticloadbalancing:eu-west-1:111111111111:targetgroup/" + n + "/0123456789abcdef")
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	x := func(routes, rules int) campaign.Exposure {
		return campaign.Exposure{Routes: make([]campaign.APIRoute, routes), Rules: make([]diagnose.Route, rules)}
	}
	tests := []struct {
		name  string
		cands []campaign.Candidate
		want  string
	}{
		{"none", nil, ""},
		{"fewest routes", []campaign.Candidate{{TargetGroupARN: arn("a"), Targets: 1, Exposure: x(2, 1)}, {TargetGroupARN: arn("b"), Targets: 9, Exposure: x(1, 3)}}, "b"},
		{"then rules", []campaign.Candidate{{TargetGroupARN: arn("a"), Targets: 1, Exposure: x(1, 2)}, {TargetGroupARN: arn("b"), Targets: 9, Exposure: x(1, 1)}}, "b"},
		{"then targets", []campaign.Candidate{{TargetGroupARN: arn("a"), Targets: 5, Exposure: x(0, 1)}, {TargetGroupARN: arn("b"), Targets: 4, Exposure: x(0, 1)}}, "b"},
		{"then ARN", []campaign.Candidate{{TargetGroupARN: arn("b"), Targets: 4, Exposure: x(0, 1)}, {TargetGroupARN: arn("a"), Targets: 4, Exposure: x(0, 1)}}, "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := campaign.LeastExposed("c", tt.cands)
			switch {
			case tt.want == "" && got != nil:
				t.Errorf("LeastExposed = %v, want none", got)
			case tt.want != "" && (len(got) != 1 || got[0].Raw != arn(tt.want).Raw):
				t.Errorf("LeastExposed = %v, want %s", got, tt.want)
			}
		})
	}
}

// TestExposureDigestAndJSON: the exposure reads back from JSON as it
// was; the digest covers it (an edited route fails Verify and
// ParsePlan); a plan without API Gateway writes none of its keys; an
// unknown order is an input error.
func TestExposureDigestAndJSON(t *testing.T) {
	f := newFleet(t)
	a := f.World("prod-a")
	in := inputOf(f, campaign.Selection{All: true})
	in.Accounts[0].APIGateway = gatewayTo(a.Legacy().ListenerARN, 2)
	p, err := campaign.PlanCampaign(t.Context(), in, campaign.WithClock(f.Clock()))
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.JSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := campaign.ParsePlan(b)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := back.Entry(a.Legacy().TargetGroupARN)
	if orig, _ := p.Entry(a.Legacy().TargetGroupARN); len(e.Exposure.Routes) != 2 || !slices.Equal(e.Exposure.Routes, orig.Exposure.Routes) ||
		e.Exposure.APIGateway != campaign.APIGatewayRead || back.Digest != p.Digest {
		t.Errorf("read back %+v, want %+v", e.Exposure, orig.Exposure)
	}
	i := slices.IndexFunc(back.Entries, func(e campaign.Entry) bool { return e.TargetGroupARN.Raw == a.Legacy().TargetGroupARN.Raw })
	back.Entries[i].Exposure.Routes[0].RouteKey = "ANY /{proxy+}"
	if err := back.Verify(); !campaign.IsInvalidInput(err) || !strings.Contains(err.Error(), "digest") {
		t.Errorf("Verify of an edited route = %v, want a digest mismatch", err)
	}
	edited := strings.Replace(string(b), `"GET /orders/1"`, `"GET /orders/9"`, 1)
	if _, err := campaign.ParsePlan([]byte(edited)); !campaign.IsInvalidInput(err) {
		t.Errorf("ParsePlan of an edited route = %v, want an input error", err)
	}
	unknown := strings.Replace(string(b), `"apiGateway": "read"`, `"apiGateway": "read", "extra": 1`, 1)
	if _, err := campaign.ParsePlan([]byte(unknown)); !campaign.IsInvalidInput(err) || !strings.Contains(err.Error(), "extra") {
		t.Errorf("ParsePlan of an unknown exposure field = %v, want it refused", err)
	}

	plain := planFleet(t.Context(), t, f)
	pb, err := plain.JSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"routes"`, `"apiGateway"`, `"order"`} {
		if strings.Contains(string(pb), key) {
			t.Errorf("a plan without API Gateway writes %s", key)
		}
	}
	if !strings.Contains(string(pb), `"exposure"`) || !strings.Contains(string(pb), `"rules"`) {
		t.Errorf("a plan writes no listener rules")
	}
	if _, err := campaign.PlanCampaign(t.Context(), in, campaign.WithOrder("widest")); !campaign.IsInvalidInput(err) || !strings.Contains(err.Error(), "WithOrder") {
		t.Errorf("WithOrder(widest) = %v, want an input error", err)
	}
}
