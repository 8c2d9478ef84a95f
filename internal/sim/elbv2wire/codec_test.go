package elbv2wire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/schemas"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/aws/smithy-go/transport/http/protocol/awsquery"
	"github.com/google/go-cmp/cmp"
)

// The codec is held to the SDK's own awsQuery protocol: every served
// Input, filled in full, goes through the SDK's serializer and back
// through the endpoint's decoder unchanged; every served Output, filled in
// full, goes through the endpoint's encoder and back through the SDK's
// deserializer unchanged.

// opSchemas are the SDK's operation schemas of the served actions.
var opSchemas = map[string]*smithy.OperationSchema{
	"DescribeTargetGroups":          smithy.NewOperationSchema(schemas.DescribeTargetGroups, schemas.DescribeTargetGroupsInput, schemas.DescribeTargetGroupsOutput),
	"DescribeTargetHealth":          smithy.NewOperationSchema(schemas.DescribeTargetHealth, schemas.DescribeTargetHealthInput, schemas.DescribeTargetHealthOutput),
	"DescribeTargetGroupAttributes": smithy.NewOperationSchema(schemas.DescribeTargetGroupAttributes, schemas.DescribeTargetGroupAttributesInput, schemas.DescribeTargetGroupAttributesOutput),
	"DescribeTags":                  smithy.NewOperationSchema(schemas.DescribeTags, schemas.DescribeTagsInput, schemas.DescribeTagsOutput),
	"DescribeLoadBalancers":         smithy.NewOperationSchema(schemas.DescribeLoadBalancers, schemas.DescribeLoadBalancersInput, schemas.DescribeLoadBalancersOutput),
	"DescribeListeners":             smithy.NewOperationSchema(schemas.DescribeListeners, schemas.DescribeListenersInput, schemas.DescribeListenersOutput),
	"DescribeRules":                 smithy.NewOperationSchema(schemas.DescribeRules, schemas.DescribeRulesInput, schemas.DescribeRulesOutput),
	"RegisterTargets":               smithy.NewOperationSchema(schemas.RegisterTargets, schemas.RegisterTargetsInput, schemas.RegisterTargetsOutput),
	"DeregisterTargets":             smithy.NewOperationSchema(schemas.DeregisterTargets, schemas.DeregisterTargetsInput, schemas.DeregisterTargetsOutput),
	"CreateTargetGroup":             smithy.NewOperationSchema(schemas.CreateTargetGroup, schemas.CreateTargetGroupInput, schemas.CreateTargetGroupOutput),
	"ModifyTargetGroup":             smithy.NewOperationSchema(schemas.ModifyTargetGroup, schemas.ModifyTargetGroupInput, schemas.ModifyTargetGroupOutput),
	"ModifyTargetGroupAttributes":   smithy.NewOperationSchema(schemas.ModifyTargetGroupAttributes, schemas.ModifyTargetGroupAttributesInput, schemas.ModifyTargetGroupAttributesOutput),
	"DeleteTargetGroup":             smithy.NewOperationSchema(schemas.DeleteTargetGroup, schemas.DeleteTargetGroupInput, schemas.DeleteTargetGroupOutput),
	"AddTags":                       smithy.NewOperationSchema(schemas.AddTags, schemas.AddTagsInput, schemas.AddTagsOutput),
	"ModifyListener":                smithy.NewOperationSchema(schemas.ModifyListener, schemas.ModifyListenerInput, schemas.ModifyListenerOutput),
	"ModifyRule":                    smithy.NewOperationSchema(schemas.ModifyRule, schemas.ModifyRuleInput, schemas.ModifyRuleOutput),
}

// outputs returns a new, empty Output of each action.
func newOutput(action string) any {
	typ := reflect.TypeOf(operations[action].newInput()).Elem()
	name := strings.TrimSuffix(typ.Name(), "Input") + "Output"
	for _, o := range []any{
		&elbv2.DescribeTargetGroupsOutput{}, &elbv2.DescribeTargetHealthOutput{}, &elbv2.DescribeTargetGroupAttributesOutput{},
		&elbv2.DescribeTagsOutput{}, &elbv2.DescribeLoadBalancersOutput{}, &elbv2.DescribeListenersOutput{}, &elbv2.DescribeRulesOutput{},
		&elbv2.RegisterTargetsOutput{}, &elbv2.DeregisterTargetsOutput{}, &elbv2.CreateTargetGroupOutput{}, &elbv2.ModifyTargetGroupOutput{},
		&elbv2.ModifyTargetGroupAttributesOutput{}, &elbv2.DeleteTargetGroupOutput{}, &elbv2.AddTagsOutput{}, &elbv2.ModifyListenerOutput{},
		&elbv2.ModifyRuleOutput{},
	} {
		if reflect.TypeOf(o).Elem().Name() == name {
			return reflect.New(reflect.TypeOf(o).Elem()).Interface()
		}
	}
	panic("no output type for " + action)
}

var metadataType = reflect.TypeFor[middleware.Metadata]()

// filler sets every exported field of a value, recursively, to distinct
// values: two items per list and map, strings with characters that need
// escaping in a form and in XML.
type filler struct{ n int }

func (f *filler) fill(v reflect.Value, depth int) {
	if depth > 12 {
		return
	}
	t := v.Type()
	if t == timeType {
		f.n++
		v.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, f.n%60, 0, time.UTC)))
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		e := reflect.New(t.Elem())
		f.fill(e.Elem(), depth+1)
		v.Set(e)
	case reflect.Struct:
		if t == metadataType {
			return
		}
		for i := range t.NumField() {
			if sf := t.Field(i); sf.IsExported() && !sf.Anonymous {
				f.fill(v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			f.n++
			v.SetBytes([]byte(fmt.Sprintf("blob-%d", f.n)))
			return
		}
		s := reflect.MakeSlice(t, 2, 2)
		for i := range 2 {
			f.fill(s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(t)
		for range 2 {
			k := reflect.New(t.Key()).Elem()
			f.fill(k, depth+1)
			e := reflect.New(t.Elem()).Elem()
			f.fill(e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.String:
		f.n++
		v.SetString(fmt.Sprintf("v%d &=+ /é<x>'\"", f.n))
	case reflect.Bool:
		f.n++
		v.SetBool(f.n%2 == 0)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		f.n++
		v.SetInt(int64(f.n))
	case reflect.Float32, reflect.Float64:
		f.n++
		v.SetFloat(float64(f.n) + 0.5)
	default:
		panic(fmt.Sprintf("filler: %s", t))
	}
}

// exportAll lets cmp compare the SDK types' unexported marker fields.
var exportAll = cmp.Exporter(func(reflect.Type) bool { return true })

var ignoreMetadata = cmp.FilterPath(func(p cmp.Path) bool {
	return p.Last().Type() == metadataType
}, cmp.Ignore())

// sdkSerialize serializes in as the SDK's client does and returns the form.
func sdkSerialize(t *testing.T, action string, in any) url.Values {
	t.Helper()
	req := smithyhttp.NewStackRequest().(*smithyhttp.Request)
	p := awsquery.New(schemas.ElasticLoadBalancing_v10)
	if err := p.SerializeRequest(context.Background(), opSchemas[action], in.(smithy.Serializable), req); err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(req.GetStream())
	if err != nil {
		t.Fatal(err)
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		t.Fatal(err)
	}
	if form.Get("Action") != action || form.Get("Version") != Version {
		t.Fatalf("Action %q Version %q", form.Get("Action"), form.Get("Version"))
	}
	return form
}

// sdkDeserialize reads body as the SDK's client does.
func sdkDeserialize(t *testing.T, action string, status int, body []byte, out smithy.Deserializable) error {
	t.Helper()
	resp := &smithyhttp.Response{Response: &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(body))}}
	return awsquery.New(schemas.ElasticLoadBalancing_v10).DeserializeResponse(context.Background(), opSchemas[action], elbv2.TypeRegistry, resp, out)
}

func TestEveryActionHasASchema(t *testing.T) {
	for _, a := range Actions() {
		if opSchemas[a] == nil {
			t.Errorf("%s: no operation schema in the test", a)
		}
	}
	if len(opSchemas) != len(Actions()) {
		t.Errorf("%d schemas, %d actions", len(opSchemas), len(Actions()))
	}
	if Version != "2015-12-01" || Namespace != "http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/" {
		t.Errorf("Version %q, Namespace %q", Version, Namespace)
	}
}

// TestInputRoundTrip: SDK serializer -> endpoint decoder, every field.
func TestInputRoundTrip(t *testing.T) {
	for _, action := range Actions() {
		t.Run(action, func(t *testing.T) {
			in := operations[action].newInput()
			(&filler{}).fill(reflect.ValueOf(in).Elem(), 0)
			form := sdkSerialize(t, action, in)
			got := operations[action].newInput()
			if err := decodeForm(form, got); err != nil {
				t.Fatalf("decode %v: %v", form, err)
			}
			if diff := cmp.Diff(in, got, exportAll); diff != "" {
				t.Errorf("round trip (-sent +decoded):\n%s", diff)
			}
		})
	}
}

// TestInputEmptyAndAbsentLists: an empty list is sent as "Name=" and
// decoded empty; an absent one stays nil.
func TestInputEmptyAndAbsentLists(t *testing.T) {
	in := &elbv2.DescribeTargetGroupsInput{Names: []string{}}
	form := sdkSerialize(t, "DescribeTargetGroups", in)
	if _, ok := form["Names"]; !ok {
		t.Fatalf("form %v: want the empty-list form Names=", form)
	}
	got := &elbv2.DescribeTargetGroupsInput{}
	if err := decodeForm(form, got); err != nil {
		t.Fatal(err)
	}
	if got.Names == nil || len(got.Names) != 0 || got.TargetGroupArns != nil {
		t.Errorf("Names %#v, TargetGroupArns %#v: want empty and nil", got.Names, got.TargetGroupArns)
	}
}

// TestOutputRoundTrip: endpoint encoder -> SDK deserializer, every field.
func TestOutputRoundTrip(t *testing.T) {
	for _, action := range Actions() {
		t.Run(action, func(t *testing.T) {
			out := newOutput(action)
			(&filler{}).fill(reflect.ValueOf(out).Elem(), 0)
			body, err := resultBody(action, "req-1", out.(smithy.Serializable))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(body, []byte("<"+action+`Response xmlns="`+Namespace+`"><`+action+"Result>")) ||
				!bytes.HasSuffix(body, []byte("<ResponseMetadata><RequestId>req-1</RequestId></ResponseMetadata></"+action+"Response>")) {
				t.Errorf("envelope: %.300s", body)
			}
			got := newOutput(action)
			if err := sdkDeserialize(t, action, 200, body, got.(smithy.Deserializable)); err != nil {
				t.Fatalf("deserialize: %v\n%s", err, body)
			}
			if diff := cmp.Diff(out, got, exportAll, ignoreMetadata); diff != "" {
				t.Errorf("round trip (-encoded +read):\n%s", diff)
			}
		})
	}
}

// TestOutputListsAreMembers pins the shape the SDK reads: lists of
// <member> elements named after the schema's members.
func TestOutputListsAreMembers(t *testing.T) {
	out := &elbv2.DescribeTargetHealthOutput{TargetHealthDescriptions: []types.TargetHealthDescription{{
		Target:       &types.TargetDescription{Id: stringPtr("10.0.1.10"), Port: int32Ptr(8080)},
		TargetHealth: &types.TargetHealth{State: types.TargetHealthStateEnumHealthy},
	}}}
	body, err := resultBody("DescribeTargetHealth", "id", out)
	if err != nil {
		t.Fatal(err)
	}
	want := `<DescribeTargetHealthResult><TargetHealthDescriptions><member><Target><Id>10.0.1.10</Id><Port>8080</Port></Target>` +
		`<TargetHealth><State>healthy</State></TargetHealth></member></TargetHealthDescriptions></DescribeTargetHealthResult>`
	if !strings.Contains(string(body), want) {
		t.Errorf("body\n%s\nwant it to contain\n%s", body, want)
	}
}

func stringPtr(s string) *string { return &s }
func int32Ptr(n int32) *int32    { return &n }

// TestErrorRoundTrip: every error the SDK's model declares is read back as
// its typed exception, with its code and message; other codes as a
// smithy.GenericAPIError.
func TestErrorRoundTrip(t *testing.T) {
	codes := []string{"Throttling", "ValidationError", "AccessDenied"}
	for code := range modeledStatus {
		codes = append(codes, code)
	}
	for _, code := range codes {
		t.Run(code, func(t *testing.T) {
			status := StatusOf(code, smithy.FaultUnknown)
			body := errorBody(code, "msg <"+code+">", "req-9", status)
			err := sdkDeserialize(t, "DescribeTargetGroups", status, body, &elbv2.DescribeTargetGroupsOutput{})
			var api smithy.APIError
			if !errors.As(err, &api) || api.ErrorCode() != code || api.ErrorMessage() != "msg <"+code+">" {
				t.Fatalf("error = %#v", err)
			}
			var generic *smithy.GenericAPIError
			_, modeled := modeledStatus[code]
			if modeled == errors.As(err, &generic) {
				t.Errorf("%T: modeled %t", err, modeled)
			}
		})
	}
	if len(modeledStatus) < 50 {
		t.Errorf("%d modeled errors read from the SDK's schema, want the whole model", len(modeledStatus))
	}
}

func TestStatusOf(t *testing.T) {
	tests := []struct {
		code  string
		fault smithy.ErrorFault
		want  int
	}{
		{"TargetGroupNotFound", smithy.FaultUnknown, 400},
		{"InvalidTarget", smithy.FaultClient, 400},
		{"PriorRequestNotComplete", smithy.FaultClient, 429},
		{"HealthUnavailable", smithy.FaultServer, 500},
		{"Throttling", smithy.FaultClient, 400},
		{"MalformedQueryString", smithy.FaultUnknown, 404},
		{"AccessDenied", smithy.FaultClient, 403},
		{"InternalFailure", smithy.FaultUnknown, 500},
		{"ServiceUnavailable", smithy.FaultUnknown, 503},
		{"SomethingNew", smithy.FaultServer, 500},
		{"SomethingNew", smithy.FaultClient, 400},
	}
	for _, tt := range tests {
		if got := StatusOf(tt.code, tt.fault); got != tt.want {
			t.Errorf("StatusOf(%s, %v) = %d, want %d", tt.code, tt.fault, got, tt.want)
		}
	}
}

// TestDecodeRejects: a parameter the endpoint cannot read is a paramError
// naming it, and the Input is not used.
func TestDecodeRejects(t *testing.T) {
	tests := []struct {
		name  string
		form  string
		param string
	}{
		{"unknown parameter", "TargetGroupArn=a&Targetz.member.1.Id=x", "Targetz"},
		{"unknown nested parameter", "TargetGroupArn=a&Targets.member.1.Ip=x", "Targets.member.1.Ip"},
		{"not an integer", "TargetGroupArn=a&Targets.member.1.Id=x&Targets.member.1.Port=eighty", "Targets.member.1.Port"},
		{"integer overflow", "TargetGroupArn=a&Targets.member.1.Id=x&Targets.member.1.Port=4294967296", "Targets.member.1.Port"},
		{"gap in items", "TargetGroupArn=a&Targets.member.1.Id=x&Targets.member.3.Id=y", "Targets.member"},
		{"item zero", "TargetGroupArn=a&Targets.member.0.Id=x", "Targets.member.0"},
		{"list without member", "TargetGroupArn=a&Targets.1.Id=x", "Targets"},
		{"list given a value", "TargetGroupArn=a&Targets=x", "Targets"},
		{"structure given a value", "TargetGroupArn=a&Targets.member.1=x", "Targets.member.1"},
		{"value given children", "TargetGroupArn.x=a", "TargetGroupArn"},
		{"repeated", "TargetGroupArn=a&TargetGroupArn=b", "TargetGroupArn"},
		{"empty segment", "TargetGroupArn=a&Targets..member=x", "Targets..member"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			form, err := url.ParseQuery(tt.form)
			if err != nil {
				t.Fatal(err)
			}
			err = decodeForm(form, &elbv2.RegisterTargetsInput{})
			var pe *paramError
			if !errors.As(err, &pe) || !strings.HasPrefix(pe.param, tt.param) {
				t.Fatalf("decodeForm(%s) = %v, want a paramError on %s", tt.form, err, tt.param)
			}
		})
	}
	bad := []struct {
		form string
		in   any
	}{
		{"Matcher.HttpCode=200&HealthCheckEnabled=yes&TargetGroupArn=a", &elbv2.ModifyTargetGroupInput{}},
		{"Attributes.member.1.Key=k&Attributes.member.1.Value=v&Attributes.member.1.Other=x&TargetGroupArn=a", &elbv2.ModifyTargetGroupAttributesInput{}},
	}
	for _, b := range bad {
		form, _ := url.ParseQuery(b.form)
		if err := decodeForm(form, b.in); err == nil {
			t.Errorf("decodeForm(%s) = nil, want an error", b.form)
		}
	}
}

// TestDecodeLeadExamples decodes the parameters the brief names, as the
// SDK spells them.
func TestDecodeLeadExamples(t *testing.T) {
	form, _ := url.ParseQuery("ListenerArn=l&DefaultActions.member.1.Type=forward" +
		"&DefaultActions.member.1.ForwardConfig.TargetGroups.member.1.TargetGroupArn=a" +
		"&DefaultActions.member.1.ForwardConfig.TargetGroups.member.1.Weight=90" +
		"&DefaultActions.member.1.ForwardConfig.TargetGroups.member.2.TargetGroupArn=b" +
		"&DefaultActions.member.1.ForwardConfig.TargetGroups.member.2.Weight=10")
	in := &elbv2.ModifyListenerInput{}
	if err := decodeForm(form, in); err != nil {
		t.Fatal(err)
	}
	fc := in.DefaultActions[0].ForwardConfig
	if in.DefaultActions[0].Type != types.ActionTypeEnumForward || len(fc.TargetGroups) != 2 ||
		*fc.TargetGroups[0].Weight != 90 || *fc.TargetGroups[1].TargetGroupArn != "b" {
		t.Errorf("decoded %+v", in.DefaultActions)
	}
	form, _ = url.ParseQuery("TargetGroupArn=a&Matcher.HttpCode=200-299&HealthCheckIntervalSeconds=10")
	mt := &elbv2.ModifyTargetGroupInput{}
	if err := decodeForm(form, mt); err != nil || *mt.Matcher.HttpCode != "200-299" || *mt.HealthCheckIntervalSeconds != 10 {
		t.Errorf("decoded %+v, %v", mt, err)
	}
	form, _ = url.ParseQuery("ResourceArns.member.1=a&Tags.member.1.Key=team&Tags.member.1.Value=web")
	at := &elbv2.AddTagsInput{}
	if err := decodeForm(form, at); err != nil || *at.Tags[0].Key != "team" || at.ResourceArns[0] != "a" {
		t.Errorf("decoded %+v, %v", at, err)
	}
}
