package campaign

// blast_apigw.go: the API Gateway side of the blast radius: the narrow
// read-only API Gateway v2 interface, the paged and bounded reads of one
// account's HTTP APIs, their VPC-link integrations and their routes, and
// the refusals they meet, reported as diagnose.ResourceErrors.

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	apigwtypes "github.com/aws/aws-sdk-go-v2/service/apigatewayv2/types"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/read"
)

// APIGatewayReadAPI is the read-only part of API Gateway v2 (HTTP and
// WebSocket APIs) the campaign reads for the blast radius: Get* calls
// only, each with the SDK's own signature, so *apigatewayv2.Client fits
// as it is. Every one is IAM action apigateway:GET
// ([ActionGetAPIGateway]).
type APIGatewayReadAPI interface {
	// GetApis is the SDK call behind IAM action apigateway:GET.
	GetApis(ctx context.Context, params *apigatewayv2.GetApisInput, optFns ...func(*apigatewayv2.Options)) (*apigatewayv2.GetApisOutput, error)
	// GetIntegrations is the SDK call behind IAM action apigateway:GET.
	GetIntegrations(ctx context.Context, params *apigatewayv2.GetIntegrationsInput, optFns ...func(*apigatewayv2.Options)) (*apigatewayv2.GetIntegrationsOutput, error)
	// GetRoutes is the SDK call behind IAM action apigateway:GET.
	GetRoutes(ctx context.Context, params *apigatewayv2.GetRoutesInput, optFns ...func(*apigatewayv2.Options)) (*apigatewayv2.GetRoutesOutput, error)
}

var _ APIGatewayReadAPI = (*apigatewayv2.Client)(nil)

// KindAPI is the Kind of a diagnose.ResourceError about one API Gateway
// API (its Resource is the API's ID): its integrations or its routes
// could not be read.
const KindAPI = "api"

// MaxAPIPages bounds each paged API Gateway listing (the APIs of an
// account, the integrations or the routes of an API): past that many
// pages the listing stops, what was read is kept, and the account's
// exposure is [APIGatewayPartial], with a ResourceError of category
// "truncated" on the plan.
const MaxAPIPages = 50

// errTruncated is the error of a listing stopped at MaxAPIPages.
var errTruncated = errors.New("stopped after the maximum number of pages")

// apiReader reads one account's API Gateway APIs.
type apiReader struct {
	api  APIGatewayReadAPI
	c    *read.Caller
	acct Account
	errs []diagnose.ResourceError
}

// link is an HTTP API integration through a VPC link to a listener.
type link struct {
	api         apigwtypes.Api
	integration string
	vpcLink     string
	listener    string
}

// fail records what could not be read. A cancelled context is no
// refusal: it fails the plan.
func (r *apiReader) fail(kind, resource, op string, err error) {
	r.errs = append(r.errs, diagnose.ResourceError{Kind: kind, Resource: resource, Account: r.acct.ID, Region: r.acct.Region,
		Op: op, Category: category(err), Code: awserr.Code(err), Message: err.Error(), Err: err})
}

// links reads the account's HTTP APIs and their integrations, and
// returns those through a VPC link whose IntegrationUri is one of
// listeners. refused is true when the APIs themselves could not be read.
func (r *apiReader) links(ctx context.Context, listeners map[string]bool) (out []link, refused bool, err error) {
	apis, err := pages(ctx, r.c, "GetApis", "", func(ctx context.Context, token *string) (*apigatewayv2.GetApisOutput, error) {
		return r.api.GetApis(ctx, &apigatewayv2.GetApisInput{NextToken: token})
	}, func(o *apigatewayv2.GetApisOutput) ([]apigwtypes.Api, *string) { return o.Items, o.NextToken })
	if ctx.Err() != nil {
		return nil, false, read.ContextError(ctx)
	}
	if err != nil {
		r.fail(diagnose.KindAccount, r.acct.ID, "GetApis", err)
		if len(apis) == 0 {
			return nil, true, nil
		}
	}
	for _, a := range apis {
		if a.ProtocolType != apigwtypes.ProtocolTypeHttp {
			continue // WebSocket APIs reach NLBs through REST VPC links: out of scope
		}
		id := aws.ToString(a.ApiId)
		its, err := pages(ctx, r.c, "GetIntegrations", id, func(ctx context.Context, token *string) (*apigatewayv2.GetIntegrationsOutput, error) {
			return r.api.GetIntegrations(ctx, &apigatewayv2.GetIntegrationsInput{ApiId: a.ApiId, NextToken: token})
		}, func(o *apigatewayv2.GetIntegrationsOutput) ([]apigwtypes.Integration, *string) {
			return o.Items, o.NextToken
		})
		if ctx.Err() != nil {
			return nil, false, read.ContextError(ctx)
		}
		if err != nil {
			r.fail(KindAPI, id, "GetIntegrations", err)
		}
		for _, it := range its {
			if uri := aws.ToString(it.IntegrationUri); it.ConnectionType == apigwtypes.ConnectionTypeVpcLink && listeners[uri] {
				out = append(out, link{api: a, integration: aws.ToString(it.IntegrationId), vpcLink: aws.ToString(it.ConnectionId), listener: uri})
			}
		}
	}
	return out, false, nil
}

// routes reads the routes of the APIs of links and returns, for each
// link, the routes whose target is its integration.
func (r *apiReader) routes(ctx context.Context, links []link) (map[int][]APIRoute, error) {
	out := map[int][]APIRoute{}
	done := map[string]bool{}
	for i, l := range links {
		id := aws.ToString(l.api.ApiId)
		if done[id] {
			continue
		}
		done[id] = true
		rs, err := pages(ctx, r.c, "GetRoutes", id, func(ctx context.Context, token *string) (*apigatewayv2.GetRoutesOutput, error) {
			return r.api.GetRoutes(ctx, &apigatewayv2.GetRoutesInput{ApiId: l.api.ApiId, NextToken: token})
		}, func(o *apigatewayv2.GetRoutesOutput) ([]apigwtypes.Route, *string) { return o.Items, o.NextToken })
		if ctx.Err() != nil {
			return nil, read.ContextError(ctx)
		}
		if err != nil {
			r.fail(KindAPI, id, "GetRoutes", err)
		}
		for _, rt := range rs {
			target := aws.ToString(rt.Target)
			for j := i; j < len(links); j++ {
				m := links[j]
				if aws.ToString(m.api.ApiId) != id || target != "integrations/"+m.integration {
					continue
				}
				out[j] = append(out[j], APIRoute{AccountID: r.acct.ID, Region: r.acct.Region, APIID: id, APIName: aws.ToString(m.api.Name),
					RouteID: aws.ToString(rt.RouteId), RouteKey: aws.ToString(rt.RouteKey),
					IntegrationID: m.integration, VPCLinkID: m.vpcLink, ListenerARN: m.listener})
			}
		}
	}
	return out, nil
}

// pages drains one paged listing, each page a read.Call (limited,
// retried, classified), following NextToken until the last page, a
// repeated token, or MaxAPIPages (errTruncated). On an error it returns
// the items read before it.
func pages[Out, Item any](ctx context.Context, c *read.Caller, op, resource string,
	call func(context.Context, *string) (*Out, error), items func(*Out) ([]Item, *string)) ([]Item, error) {
	var all []Item
	var token *string
	markers := c.Markers(op)
	for range MaxAPIPages {
		out, err := read.Call(ctx, c, op, resource, func(ctx context.Context) (*Out, error) { return call(ctx, token) })
		if err != nil {
			return all, err
		}
		page, next := items(out)
		all = append(all, page...)
		if next == nil || *next == "" || markers.Repeated(next) {
			return all, nil
		}
		token = next
	}
	return all, fmt.Errorf("%s %s: %w (%d)", op, resource, errTruncated, MaxAPIPages)
}

// category maps a read's error onto a stable word, as diagnose's
// ResourceError.Category does.
func category(err error) string {
	for _, c := range []struct {
		err  error
		name string
	}{
		{errTruncated, "truncated"},
		{awserr.ErrNilResponse, "nil-response"},
		{awserr.ErrNotFound, "not-found"},
		{awserr.ErrThrottled, "throttled"},
		{awserr.ErrAccessDenied, "access-denied"},
		{awserr.ErrInvalidRequest, "invalid-request"},
		{awserr.ErrUnknown, "unknown"},
	} {
		if errors.Is(err, c.err) {
			return c.name
		}
	}
	return "error"
}
