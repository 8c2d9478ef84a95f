package elbv2wire_test

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/go-logr/logr/funcr"

	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire"
)

const signed = "AWS4-HMAC-SHA256 Credential=" + elbv2wire.AccessKeyID + "/20260101/eu-west-1/elasticloadbalancing/aws4_request, SignedHeaders=host, Signature=00"

// errorResponse is the awsQuery error body.
type errorResponse struct {
	XMLName xml.Name `xml:"ErrorResponse"`
	Xmlns   string   `xml:"xmlns,attr"`
	Error   struct {
		Type    string `xml:"Type"`
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	} `xml:"Error"`
	RequestID string `xml:"RequestId"`
}

func post(t *testing.T, url, auth, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// TestProtocolErrors: what the endpoint itself answers, before the
// backend: AWS's codes and statuses, in the awsQuery error body.
func TestProtocolErrors(t *testing.T) {
	w := newWorld(t, elbv2sim.Options{})
	v := "&Version=" + elbv2wire.Version
	tests := []struct {
		name   string
		auth   string
		body   string
		status int
		code   string
		msg    string
	}{
		{"wrong version", signed, "Action=DescribeTargetGroups&Version=2012-06-01", 400, "InvalidAction", "Could not find operation DescribeTargetGroups for version 2012-06-01"},
		{"no version", signed, "Action=DescribeTargetGroups", 400, "MissingParameter", "Version"},
		{"no action", signed, "Version=" + elbv2wire.Version, 400, "MissingAction", "Action"},
		{"unknown action", signed, "Action=DescribeAccountLimits" + v, 400, "InvalidAction", "DescribeAccountLimits"},
		{"unknown parameter", signed, "Action=DescribeTargetGroups&Pagesize=10" + v, 400, "ValidationError", "Pagesize"},
		{"malformed parameter", signed, "Action=DescribeTargetGroups&PageSize=ten" + v, 400, "ValidationError", "PageSize"},
		{"malformed form", signed, "Action=DescribeTargetGroups&Names.member.1=%zz" + v, 404, "MalformedQueryString", "cannot be parsed"},
		{"not signed", "", "Action=DescribeTargetGroups" + v, 403, "MissingAuthenticationToken", "Signature Version 4"},
		{"signed for another service", strings.Replace(signed, "elasticloadbalancing/", "ec2/", 1), "Action=DescribeTargetGroups" + v, 400, "IncompleteSignature", "elasticloadbalancing"},
		{"signed for another region", strings.Replace(signed, "eu-west-1", "us-west-2", 1), "Action=DescribeTargetGroups" + v, 400, "IncompleteSignature", "region eu-west-1"},
		{"the model's own error", signed, "Action=DescribeTargetGroups&PageSize=401" + v, 400, "ValidationError", "PageSize"},
		{"the model's not-found", signed, "Action=DescribeTargetHealth&TargetGroupArn=" + url.QueryEscape(w.tg+"0") + v, 400, "TargetGroupNotFound", "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w.ep.ResetCounts()
			status, h, body := post(t, w.ep.URL, tt.auth, tt.body)
			var e errorResponse
			if err := xml.Unmarshal([]byte(body), &e); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
			if status != tt.status || e.Error.Code != tt.code || !strings.Contains(e.Error.Message, tt.msg) {
				t.Errorf("answer %d %s %q, want %d %s containing %q", status, e.Error.Code, e.Error.Message, tt.status, tt.code, tt.msg)
			}
			if e.Xmlns != elbv2wire.Namespace || e.Error.Type != "Sender" || e.RequestID == "" || h.Get("X-Amzn-Requestid") != e.RequestID {
				t.Errorf("envelope %+v, header request ID %q", e, h.Get("X-Amzn-Requestid"))
			}
			reqs := w.ep.Requests()
			if len(reqs) != 1 || reqs[0].Code != tt.code || reqs[0].Status != tt.status {
				t.Errorf("request log %+v", reqs)
			}
		})
	}
	// None of these reached the model.
	for _, c := range w.sim.Calls() {
		if c.Op != "DescribeTargetGroups" && c.Op != "DescribeTargetHealth" {
			t.Errorf("call %+v reached the facade", c)
		}
	}
	if n := len(w.sim.Calls()); n != 2 {
		t.Errorf("%d calls reached the facade, want the 2 the model answered", n)
	}
}

// TestGETIsServed: the Query protocol also takes GET with the parameters
// in the URL.
func TestGETIsServed(t *testing.T) {
	w := newWorld(t, elbv2sim.Options{})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, w.ep.URL+"/?Action=DescribeLoadBalancers&Version="+elbv2wire.Version, nil)
	req.Header.Set("Authorization", signed)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(b), "<LoadBalancerName>alb</LoadBalancerName>") {
		t.Errorf("%d %s", resp.StatusCode, b)
	}
}

// narrow serves two actions only, like a mock of a narrow interface.
type narrow struct {
	panics bool
}

func (n narrow) DescribeTargetHealth(context.Context, *elbv2.DescribeTargetHealthInput, ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
	if n.panics {
		panic("the backend broke")
	}
	return nil, nil
}

func (narrow) DescribeTags(context.Context, *elbv2.DescribeTagsInput, ...func(*elbv2.Options)) (*elbv2.DescribeTagsOutput, error) {
	return nil, errors.New("a plain Go error")
}

// TestNarrowBackend: a backend with some of the methods serves those;
// the other actions answer InvalidAction; a nil Output is an empty result;
// a Go error is InternalFailure; a panic is InternalFailure, not a crash.
func TestNarrowBackend(t *testing.T) {
	for _, panics := range []bool{false, true} {
		t.Run(fmt.Sprintf("panics=%t", panics), func(t *testing.T) {
			c, ep, err := elbv2wire.NewClient(narrow{panics: panics}, elbv2wire.ClientOptions{MaxAttempts: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer ep.Close()
			if got := ep.Served(); len(got) != 2 || got[0] != "DescribeTags" || got[1] != "DescribeTargetHealth" {
				t.Errorf("served %v", got)
			}
			out, err := c.DescribeTargetHealth(t.Context(), &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String("arn")})
			switch {
			case panics && (code(err) != elbv2wire.CodeInternalFailure || status(err) != 500 || !strings.Contains(err.Error(), "panicked")):
				t.Errorf("panicking backend: %v", err)
			case !panics && (err != nil || len(out.TargetHealthDescriptions) != 0):
				t.Errorf("nil output: %+v, %v", out, err)
			}
			_, err = c.DescribeTags(t.Context(), &elbv2.DescribeTagsInput{ResourceArns: []string{"arn"}})
			if code(err) != elbv2wire.CodeInternalFailure || status(err) != 500 {
				t.Errorf("Go error: %v", err)
			}
			_, err = c.DescribeTargetGroups(t.Context(), &elbv2.DescribeTargetGroupsInput{})
			if code(err) != elbv2wire.CodeInvalidAction || status(err) != 400 {
				t.Errorf("unserved action: %v", err)
			}
		})
	}
}

func TestOptionsErrors(t *testing.T) {
	for _, tt := range []struct {
		name    string
		backend any
		field   string
	}{
		{"no backend", nil, "Backend"},
		{"a backend with no ELBv2 method", struct{}{}, "Backend"},
	} {
		_, err := elbv2wire.Start(elbv2wire.Options{Backend: tt.backend})
		var oe *elbv2wire.OptionsError
		if !errors.As(err, &oe) || oe.Field != tt.field || !errors.Is(err, elbv2wire.ErrInvalidOptions) || !strings.HasPrefix(err.Error(), "elbv2wire: new server: ") {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	w := newWorld(t, elbv2sim.Options{})
	for _, r := range []elbv2wire.FaultRule{
		{Fault: "flaky"},
		{Fault: elbv2wire.FaultReset, Action: "DescribeAccountLimits"},
		{Fault: elbv2wire.FaultReset, Times: -1},
	} {
		var oe *elbv2wire.OptionsError
		if err := w.ep.Inject(r); !errors.As(err, &oe) || !strings.HasPrefix(err.Error(), "elbv2wire: inject: ") {
			t.Errorf("Inject(%+v) = %v", r, err)
		}
	}
	// Nothing was armed: a call goes through.
	if _, err := w.client(elbv2wire.ClientOptions{MaxAttempts: 1}).DescribeLoadBalancers(t.Context(), &elbv2.DescribeLoadBalancersInput{}); err != nil {
		t.Error(err)
	}
}

// TestFaultRules: Times and Action limit a rule; rules fire in order.
func TestFaultRules(t *testing.T) {
	w := newWorld(t, elbv2sim.Options{})
	c := w.client(elbv2wire.ClientOptions{MaxAttempts: 1})
	for _, r := range []elbv2wire.FaultRule{
		{Action: "DescribeTargetHealth", Fault: elbv2wire.FaultInternal, Times: 2},
		{Fault: elbv2wire.FaultUnavailable},
	} {
		if err := w.ep.Inject(r); err != nil {
			t.Fatal(err)
		}
	}
	in := &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(w.tg)}
	var got []string
	_, err := c.DescribeLoadBalancers(t.Context(), &elbv2.DescribeLoadBalancersInput{}) // the catch-all rule
	got = append(got, code(err))
	for range 3 {
		_, err := c.DescribeTargetHealth(t.Context(), in)
		got = append(got, code(err))
	}
	want := []string{"ServiceUnavailable", "InternalFailure", "InternalFailure", ""}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("codes %q, want %q", got, want)
	}
}

// TestCredentialsNeverLogged: the static credentials appear in no log line
// of the endpoint and in no error a caller sees, whatever happens.
func TestCredentialsNeverLogged(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	log := funcr.New(func(prefix, args string) {
		mu.Lock()
		lines = append(lines, prefix+" "+args)
		mu.Unlock()
	}, funcr.Options{Verbosity: 2})
	w := newWorld(t, elbv2sim.Options{})
	ep, err := elbv2wire.Start(elbv2wire.Options{Backend: w.sim, Region: "eu-west-1", Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	var errs []error
	call := func(c *elbv2.Client) {
		_, err := c.DescribeTargetHealth(t.Context(), &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(w.tg)})
		if err != nil {
			errs = append(errs, err)
		}
	}
	good := ep.NewClient(elbv2wire.ClientOptions{MaxAttempts: 1})
	call(good)
	call(ep.NewClient(elbv2wire.ClientOptions{MaxAttempts: 1, Region: "us-west-2"})) // IncompleteSignature
	for _, f := range []elbv2wire.Fault{elbv2wire.FaultMalformed, elbv2wire.FaultReset, elbv2wire.FaultInternal} {
		_ = ep.Inject(elbv2wire.FaultRule{Fault: f})
		call(good)
	}
	_, err = good.DescribeTargetHealth(t.Context(), &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(w.tg + "0")})
	errs = append(errs, err)
	ep.Close() // every handler has logged
	mu.Lock()
	defer mu.Unlock()
	if len(errs) != 5 || len(lines) != 6 {
		t.Fatalf("%d errors, %d log lines: the test did not exercise the failures", len(errs), len(lines))
	}
	for _, s := range append(lines, fmt.Sprint(errs)) {
		if strings.Contains(s, elbv2wire.AccessKeyID) || strings.Contains(s, elbv2wire.SecretAccessKey) {
			t.Errorf("credentials leaked: %s", s)
		}
	}
	if !strings.Contains(fmt.Sprint(errs), "IncompleteSignature") {
		t.Errorf("errors %v", errs)
	}
}
