package elbv2wire_test

import (
	"encoding/xml"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/smithy-go"
	"github.com/go-logr/logr/funcr"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire"
)

// ec2World is an ELBv2 world and a simulated network, served on one
// endpoint:
//
//	vpc-1 10.0.0.0/16: sg-lb "alb" (tag team=web), sg-app "app" (tags
//	  team=web, tier=app) with tcp/8080 from sg-lb
//	vpc-2 10.1.0.0/16: sg-db "db"
type ec2World struct {
	*world
	net *ec2sim.Model
	ec2 *ec2sim.Client
	ep  *elbv2wire.Endpoint
}

func newEC2World(t *testing.T, opts elbv2wire.Options) *ec2World {
	t.Helper()
	w := &ec2World{world: newWorld(t, elbv2sim.Options{})}
	var err error
	if w.net, err = ec2sim.New(ec2sim.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, v := range [][2]string{{"vpc-1", "10.0.0.0/16"}, {"vpc-2", "10.1.0.0/16"}} {
		if err := w.net.AddVPC(v[0], v[1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, g := range []ec2sim.SecurityGroupSpec{
		{ID: "sg-lb", Name: "alb", VpcID: "vpc-1", Tags: map[string]string{"team": "web"}},
		{ID: "sg-app", Name: "app", VpcID: "vpc-1", Tags: map[string]string{"team": "web", "tier": "app"}},
		{ID: "sg-db", Name: "db", VpcID: "vpc-2"},
	} {
		if _, err := w.net.AddSecurityGroup(g); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.net.Authorize("sg-app", tcpFrom(8080, "sg-lb", "from the ALB")); err != nil {
		t.Fatal(err)
	}
	if w.ec2, err = ec2sim.NewClient(w.net); err != nil {
		t.Fatal(err)
	}
	opts.Backend, opts.EC2 = w.sim, w.ec2
	if opts.Region == "" {
		opts.Region = elbv2model.DefaultRegion
	}
	if w.ep, err = elbv2wire.Start(opts); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.ep.Close)
	return w
}

func tcpFrom(port int32, group, desc string) ec2types.IpPermission {
	return ec2types.IpPermission{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(port), ToPort: aws.Int32(port),
		UserIdGroupPairs: []ec2types.UserIdGroupPair{{GroupId: aws.String(group), Description: aws.String(desc)}}}
}

// sameAnswer compares an SDK client's Output with the Go facade's.
var sameAnswer = cmp.Options{
	cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".ResultMetadata" }, cmp.Ignore()),
	cmp.Exporter(func(reflect.Type) bool { return true }),
}

// TestEC2ThroughTheSDK drives the simulated network through the real
// *ec2.Client on the endpoint that also serves ELBv2: the reads compared
// with the Go facade's answers on the same state, the writes checked on
// the model.
func TestEC2ThroughTheSDK(t *testing.T) {
	w := newEC2World(t, elbv2wire.Options{})
	c := w.ep.NewEC2Client(elbv2wire.ClientOptions{})
	ctx := t.Context()

	for _, in := range []*ec2.DescribeVpcsInput{
		{}, {VpcIds: []string{"vpc-2"}}, {Filters: []ec2types.Filter{{Name: aws.String("vpc-id"), Values: []string{"vpc-1"}}}},
		{MaxResults: aws.Int32(5), NextToken: aws.String("ec2sim:vpc-1")},
	} {
		got, err := c.DescribeVpcs(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := w.ec2.DescribeVpcs(ctx, in)
		if diff := cmp.Diff(want, got, sameAnswer); diff != "" || len(got.Vpcs) == 0 {
			t.Errorf("DescribeVpcs(%+v) (-facade +SDK):\n%s", in, diff)
		}
	}
	filters := func(kv ...string) []ec2types.Filter {
		var out []ec2types.Filter
		for i := 0; i < len(kv); i += 2 {
			out = append(out, ec2types.Filter{Name: aws.String(kv[i]), Values: strings.Split(kv[i+1], ",")})
		}
		return out
	}
	for _, tt := range []struct {
		in   *ec2.DescribeSecurityGroupsInput
		want []string
	}{
		{&ec2.DescribeSecurityGroupsInput{}, []string{"sg-app", "sg-db", "sg-lb"}},
		{&ec2.DescribeSecurityGroupsInput{GroupIds: []string{"sg-lb", "sg-app"}}, []string{"sg-app", "sg-lb"}},
		{&ec2.DescribeSecurityGroupsInput{Filters: filters("vpc-id", "vpc-1", "tag:tier", "app")}, []string{"sg-app"}},
		{&ec2.DescribeSecurityGroupsInput{Filters: filters("tag-key", "team", "group-name", "a*")}, []string{"sg-app", "sg-lb"}},
		{&ec2.DescribeSecurityGroupsInput{Filters: filters("group-id", "sg-db,sg-lb")}, []string{"sg-db", "sg-lb"}},
		{&ec2.DescribeSecurityGroupsInput{Filters: filters("ip-permission.group-id", "sg-lb")}, []string{"sg-app"}},
	} {
		got, err := c.DescribeSecurityGroups(ctx, tt.in)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := w.ec2.DescribeSecurityGroups(ctx, tt.in)
		if diff := cmp.Diff(want, got, sameAnswer); diff != "" {
			t.Errorf("DescribeSecurityGroups(%+v) (-facade +SDK):\n%s", tt.in, diff)
		}
		var ids []string
		for _, g := range got.SecurityGroups {
			ids = append(ids, aws.ToString(g.GroupId))
		}
		if diff := cmp.Diff(tt.want, ids); diff != "" {
			t.Errorf("DescribeSecurityGroups(%+v) groups (-want +got):\n%s", tt.in, diff)
		}
	}

	// Authorize, then Describe shows the rule and the model lets traffic in.
	from := ec2sim.Source{GroupIDs: []string{"sg-lb"}}
	if ok, _ := w.net.Allows(from, []string{"sg-app"}, "tcp", 9090); ok {
		t.Fatal("allowed before the rule")
	}
	auth, err := c.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{
		GroupId: aws.String("sg-app"), IpPermissions: []ec2types.IpPermission{tcpFrom(9090, "sg-lb", "metrics")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !aws.ToBool(auth.Return) || len(auth.SecurityGroupRules) != 1 || aws.ToString(auth.SecurityGroupRules[0].ReferencedGroupInfo.GroupId) != "sg-lb" {
		t.Fatalf("authorize: %+v", auth)
	}
	ruleID := aws.ToString(auth.SecurityGroupRules[0].SecurityGroupRuleId)
	desc, err := c.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{Filters: filters("ip-permission.from-port", "9090")})
	if err != nil {
		t.Fatal(err)
	}
	if len(desc.SecurityGroups) != 1 || len(desc.SecurityGroups[0].IpPermissions) != 2 {
		t.Fatalf("after authorize: %+v", desc.SecurityGroups)
	}
	if p := desc.SecurityGroups[0].IpPermissions[1]; aws.ToInt32(p.FromPort) != 9090 || aws.ToString(p.UserIdGroupPairs[0].Description) != "metrics" {
		t.Errorf("the new rule: %+v", p)
	}
	if ok, why := w.net.Allows(from, []string{"sg-app"}, "tcp", 9090); !ok || !strings.Contains(why, ruleID) {
		t.Errorf("after authorize: %t %s", ok, why)
	}

	// Revoke by rule ID, then by permission.
	rev, err := c.RevokeSecurityGroupIngress(ctx, &ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String("sg-app"), SecurityGroupRuleIds: []string{ruleID}})
	if err != nil || len(rev.RevokedSecurityGroupRules) != 1 || aws.ToString(rev.RevokedSecurityGroupRules[0].SecurityGroupRuleId) != ruleID {
		t.Fatalf("revoke: %+v, %v", rev, err)
	}
	if _, err := c.RevokeSecurityGroupIngress(ctx, &ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String("sg-app"), IpPermissions: []ec2types.IpPermission{tcpFrom(8080, "sg-lb", "")}}); err != nil {
		t.Fatal(err)
	}
	if g, _ := w.net.SecurityGroup("sg-app"); len(g.IpPermissions) != 0 {
		t.Errorf("rules left: %+v", g.IpPermissions)
	}

	// The same endpoint still serves ELBv2, and counts and logs both.
	if _, err := w.ep.NewClient(elbv2wire.ClientOptions{}).DescribeLoadBalancers(ctx, &elbv2.DescribeLoadBalancersInput{}); err != nil {
		t.Fatal(err)
	}
	counts := w.ep.Counts()
	if counts["DescribeVpcs"] != 4 || counts["DescribeSecurityGroups"] != 7 || counts["AuthorizeSecurityGroupIngress"] != 1 ||
		counts["RevokeSecurityGroupIngress"] != 2 || counts["DescribeLoadBalancers"] != 1 {
		t.Errorf("endpoint counts %v", counts)
	}
	services := map[string]int{}
	for _, r := range w.ep.Requests() {
		services[r.Service]++
	}
	if services["ec2"] != 14 || services["elasticloadbalancing"] != 1 {
		t.Errorf("requests by service %v", services)
	}
}

// TestEC2ErrorsThroughTheSDK: the model's errors reach the SDK client with
// EC2's codes and statuses.
func TestEC2ErrorsThroughTheSDK(t *testing.T) {
	w := newEC2World(t, elbv2wire.Options{})
	c := w.ep.NewEC2Client(elbv2wire.ClientOptions{})
	ctx := t.Context()
	calls := []struct {
		name   string
		call   func() error
		code   string
		status int
	}{
		{"duplicate rule", func() error {
			_, err := c.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-app"), IpPermissions: []ec2types.IpPermission{tcpFrom(8080, "sg-lb", "again")}})
			return err
		}, ec2sim.CodeInvalidPermissionDuplicate, 400},
		{"missing rule", func() error {
			_, err := c.RevokeSecurityGroupIngress(ctx, &ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String("sg-app"), IpPermissions: []ec2types.IpPermission{tcpFrom(8081, "sg-lb", "")}})
			return err
		}, ec2sim.CodeInvalidPermissionNotFound, 400},
		{"unknown group", func() error {
			_, err := c.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{GroupIds: []string{"sg-gone"}})
			return err
		}, ec2sim.CodeInvalidGroupNotFound, 400},
		{"unknown VPC", func() error {
			_, err := c.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{VpcIds: []string{"vpc-9"}})
			return err
		}, ec2sim.CodeInvalidVpcIDNotFound, 400},
		{"empty authorize (a nil input)", func() error {
			_, err := c.AuthorizeSecurityGroupIngress(ctx, nil)
			return err
		}, ec2sim.CodeMissingParameter, 400},
		{"dry run", func() error {
			_, err := c.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{DryRun: aws.Bool(true)})
			return err
		}, ec2sim.CodeDryRunOperation, 412},
	}
	for _, tt := range calls {
		t.Run(tt.name, func(t *testing.T) {
			w.ep.ResetCounts()
			err := tt.call()
			var api smithy.APIError
			if !errors.As(err, &api) || api.ErrorCode() != tt.code || status(err) != tt.status {
				t.Fatalf("error %v (status %d), want %s %d", err, status(err), tt.code, tt.status)
			}
			if n := len(w.ep.Requests()); n != 1 {
				t.Errorf("%d requests: a client error is not retried", n)
			}
		})
	}
}

// TestEC2FaultsThroughTheSDK: ec2sim's faults reach the SDK client with
// EC2's codes, and its standard retryer retries RequestLimitExceeded and
// Unavailable, not UnauthorizedOperation.
func TestEC2FaultsThroughTheSDK(t *testing.T) {
	var calls elbv2wire.CallCounter
	w := newEC2World(t, elbv2wire.Options{})
	c := w.ep.NewEC2Client(elbv2wire.ClientOptions{OnCall: calls.Count}) // MaxAttempts: the SDK's 3
	ctx := t.Context()
	in := &ec2.DescribeSecurityGroupsInput{GroupIds: []string{"sg-app"}}
	op := ec2sim.OpDescribeSecurityGroups
	tests := []struct {
		name string
		arm  func() error
		// code is the caller's error code, "" for success.
		code     string
		status   int
		attempts int
	}{
		{"unauthorized, not retried", func() error { return w.ec2.Fail(op, ec2sim.ErrUnauthorized(op)) }, ec2sim.CodeUnauthorizedOperation, 403, 1},
		{"throttled once, retried, then served", func() error { return w.ec2.FailNext(op, 1, ec2sim.ErrThrottled()) }, "", 200, 2},
		{"throttled throughout", func() error { return w.ec2.FailNext(op, 5, ec2sim.ErrThrottled()) }, ec2sim.CodeRequestLimitExceeded, 503, 3},
		{"an outage", func() error { return w.ec2.Fail(op, ec2sim.ErrUnavailable()) }, ec2sim.CodeUnavailable, 503, 3},
		{"an internal error once", func() error { return w.ec2.FailNext(op, 1, ec2sim.ErrInternal()) }, "", 200, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w.ec2.Clear("")
			w.ec2.ResetCounts()
			w.ep.ResetCounts()
			before := calls.Counts()[op]
			if err := tt.arm(); err != nil {
				t.Fatal(err)
			}
			out, err := c.DescribeSecurityGroups(ctx, in)
			if code(err) != tt.code {
				t.Fatalf("error %v, want code %q", err, tt.code)
			}
			if err != nil && status(err) != tt.status {
				t.Errorf("status %d, want %d", status(err), tt.status)
			}
			if err == nil && len(out.SecurityGroups) != 1 {
				t.Errorf("output %+v", out)
			}
			if n := calls.Counts()[op] - before; n != 1 {
				t.Errorf("%d calls by the caller, want 1", n)
			}
			if n := w.ep.Counts()[op]; n != tt.attempts {
				t.Errorf("%d requests at the endpoint, want %d: %+v", n, tt.attempts, w.ep.Requests())
			}
			if n := w.ec2.Counts()[op]; n != tt.attempts {
				t.Errorf("%d calls at the backend, want %d", n, tt.attempts)
			}
		})
	}
	w.ec2.Clear("")
}

// TestEC2WireFaults: the endpoint's wire faults apply to EC2 requests, in
// EC2's dialect.
func TestEC2WireFaults(t *testing.T) {
	w := newEC2World(t, elbv2wire.Options{})
	c := w.ep.NewEC2Client(elbv2wire.ClientOptions{MaxAttempts: 1})
	for _, tt := range []struct {
		fault  elbv2wire.Fault
		code   string
		status int
	}{
		{elbv2wire.FaultInternal, ec2sim.CodeInternalError, 500},
		{elbv2wire.FaultUnavailable, ec2sim.CodeUnavailable, 503},
	} {
		if err := w.ep.Inject(elbv2wire.FaultRule{Action: "DescribeVpcs", Fault: tt.fault}); err != nil {
			t.Fatal(err)
		}
		_, err := c.DescribeVpcs(t.Context(), &ec2.DescribeVpcsInput{})
		if code(err) != tt.code || status(err) != tt.status {
			t.Errorf("%s: %v", tt.fault, err)
		}
	}
	// A response lost after the backend ran: the rule exists, and the
	// SDK's retry finds it a duplicate.
	if err := w.ep.Inject(elbv2wire.FaultRule{Action: "AuthorizeSecurityGroupIngress", Fault: elbv2wire.FaultReset, AfterBackend: true}); err != nil {
		t.Fatal(err)
	}
	retrying := w.ep.NewEC2Client(elbv2wire.ClientOptions{})
	_, err := retrying.AuthorizeSecurityGroupIngress(t.Context(), &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-db"), IpPermissions: []ec2types.IpPermission{tcpFrom(5432, "sg-app", "")}})
	if code(err) != ec2sim.CodeInvalidPermissionDuplicate {
		t.Errorf("after a lost response: %v", err)
	}
	// Truncated and malformed bodies are deserialization errors.
	for _, f := range []elbv2wire.Fault{elbv2wire.FaultTruncated, elbv2wire.FaultMalformed} {
		if err := w.ep.Inject(elbv2wire.FaultRule{Action: "DescribeSecurityGroups", Fault: f}); err != nil {
			t.Fatal(err)
		}
		_, err := c.DescribeSecurityGroups(t.Context(), &ec2.DescribeSecurityGroupsInput{})
		var de *smithy.DeserializationError
		if f == elbv2wire.FaultMalformed && !errors.As(err, &de) {
			t.Errorf("%s: %v", f, err)
		}
		if err == nil {
			t.Errorf("%s: no error", f)
		}
	}
}

// ec2Error is EC2's error body.
type ec2Error struct {
	XMLName xml.Name `xml:"Response"`
	Code    string   `xml:"Errors>Error>Code"`
	Message string   `xml:"Errors>Error>Message"`
	ID      string   `xml:"RequestID"`
}

// TestEC2ProtocolErrors: what the endpoint answers itself to EC2
// requests, in EC2's error body.
func TestEC2ProtocolErrors(t *testing.T) {
	w := newEC2World(t, elbv2wire.Options{})
	signedEC2 := strings.Replace(signed, "/elasticloadbalancing/", "/ec2/", 1)
	v := "&Version=" + elbv2wire.EC2Version
	for _, tt := range []struct {
		name, auth, body string
		status           int
		code, msg        string
	}{
		{"unknown parameter", signedEC2, "Action=DescribeVpcs&VpcIds.1=vpc-1" + v, 400, "UnknownParameter", "VpcIds"},
		{"unknown nested parameter", signedEC2, "Action=DescribeSecurityGroups&Filter.1.Name=vpc-id&Filter.1.Values.1=x" + v, 400, "UnknownParameter", "Filter.1.Values"},
		{"malformed integer", signedEC2, "Action=DescribeVpcs&MaxResults=ten" + v, 400, "InvalidParameterValue", "MaxResults"},
		{"list numbering", signedEC2, "Action=DescribeVpcs&VpcId.2=vpc-1" + v, 400, "InvalidParameterValue", "VpcId"},
		{"unserved action", signedEC2, "Action=RunInstances" + v, 400, "InvalidAction", "RunInstances"},
		{"signed for ELBv2", signed, "Action=DescribeVpcs" + v, 400, "IncompleteSignature", "service ec2"},
		{"not signed", "", "Action=DescribeVpcs" + v, 403, "MissingAuthenticationToken", "Signature Version 4"},
		{"the model's error", signedEC2, "Action=DescribeSecurityGroups&GroupId.1=sg-gone" + v, 400, "InvalidGroup.NotFound", "sg-gone"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, h, body := post(t, w.ep.URL, tt.auth, tt.body)
			var e ec2Error
			if err := xml.Unmarshal([]byte(body), &e); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
			if status != tt.status || e.Code != tt.code || !strings.Contains(e.Message, tt.msg) || e.ID == "" || h.Get("X-Amzn-Requestid") != e.ID {
				t.Errorf("answer %d %+v, want %d %s containing %q", status, e, tt.status, tt.code, tt.msg)
			}
		})
	}
	// A success, as EC2 writes it.
	status, _, body := post(t, w.ep.URL, signedEC2, "Action=DescribeSecurityGroups&GroupId.1=sg-app"+v)
	for _, want := range []string{
		`<DescribeSecurityGroupsResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>`,
		`<securityGroupInfo><item><groupDescription>app</groupDescription><groupId>sg-app</groupId>`,
		`<ipPermissions><item><fromPort>8080</fromPort><ipProtocol>tcp</ipProtocol><ipRanges></ipRanges>`,
		`<groups><item><description>from the ALB</description><groupId>sg-lb</groupId><userId>123456789012</userId></item></groups>`,
	} {
		if status != 200 || !strings.Contains(body, want) {
			t.Errorf("%d %s\ndoes not contain %s", status, body, want)
		}
	}
}

// TestEC2Options: an EC2-only endpoint; a backend with no EC2 method; an
// endpoint without EC2 answers an EC2 request as before, in ELBv2's
// dialect.
func TestEC2Options(t *testing.T) {
	w := newEC2World(t, elbv2wire.Options{})
	c, ep, err := elbv2wire.NewEC2Client(w.ec2, elbv2wire.ClientOptions{MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	if _, err := c.DescribeVpcs(t.Context(), nil); err != nil {
		t.Error(err)
	}
	if got := ep.EC2Served(); len(got) != len(ec2sim.Ops) || len(ep.Served()) != 0 {
		t.Errorf("served %v %v", got, ep.Served())
	}
	if _, err := ep.NewClient(elbv2wire.ClientOptions{MaxAttempts: 1}).DescribeLoadBalancers(t.Context(), nil); code(err) != elbv2wire.CodeInvalidAction {
		t.Errorf("ELBv2 on an EC2-only endpoint: %v", err)
	}
	_, err = elbv2wire.Start(elbv2wire.Options{EC2: struct{}{}})
	var oe *elbv2wire.OptionsError
	if !errors.As(err, &oe) || oe.Field != "EC2" {
		t.Errorf("a backend with no EC2 method: %v", err)
	}
	if err := ep.Inject(elbv2wire.FaultRule{Action: "RunInstances", Fault: elbv2wire.FaultReset}); !errors.As(err, &oe) {
		t.Errorf("an unknown EC2 action: %v", err)
	}
	// w.world's own endpoint has no EC2 backend: an EC2 request is an
	// ELBv2 request, signed for the wrong service, answered in ELBv2's
	// dialect, which the EC2 client cannot read a code from.
	_, err = w.world.ep.NewEC2Client(elbv2wire.ClientOptions{MaxAttempts: 1}).DescribeVpcs(t.Context(), nil)
	if code(err) != "UnknownError" {
		t.Errorf("EC2 on an ELBv2-only endpoint: %v", err)
	}
	if reqs := w.world.ep.Requests(); len(reqs) != 1 || reqs[0].Code != elbv2wire.CodeIncompleteSignature || reqs[0].Service != "elasticloadbalancing" {
		t.Errorf("requests %+v", reqs)
	}
}

// TestEC2CredentialsNeverLogged: EC2 requests are logged, with their
// service, and never with the credentials.
func TestEC2CredentialsNeverLogged(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	log := funcr.New(func(prefix, args string) {
		mu.Lock()
		lines = append(lines, prefix+" "+args)
		mu.Unlock()
	}, funcr.Options{Verbosity: 2})
	w := newEC2World(t, elbv2wire.Options{Logger: log})
	c := w.ep.NewEC2Client(elbv2wire.ClientOptions{MaxAttempts: 1})
	_, _ = c.DescribeVpcs(t.Context(), nil)
	_, err := c.DescribeVpcs(t.Context(), &ec2.DescribeVpcsInput{VpcIds: []string{"vpc-9"}})
	_, err2 := w.ep.NewEC2Client(elbv2wire.ClientOptions{MaxAttempts: 1, Region: "us-west-2"}).DescribeVpcs(t.Context(), nil)
	w.ep.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(lines) != 3 || err == nil || err2 == nil {
		t.Fatalf("%d lines, errors %v %v", len(lines), err, err2)
	}
	for _, s := range append(lines, err.Error(), err2.Error()) {
		if strings.Contains(s, elbv2wire.AccessKeyID) || strings.Contains(s, elbv2wire.SecretAccessKey) {
			t.Errorf("credentials leaked: %s", s)
		}
	}
	if !strings.Contains(lines[0], `"service"="ec2"`) {
		t.Errorf("log line %s", lines[0])
	}
}

// TestEC2ConcurrentCalls: many goroutines through one endpoint; run with
// -race.
func TestEC2ConcurrentCalls(t *testing.T) {
	w := newEC2World(t, elbv2wire.Options{})
	c := w.ep.NewEC2Client(elbv2wire.ClientOptions{})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			perm := tcpFrom(int32(2000+i), "sg-lb", "")
			for range 5 {
				if _, err := c.AuthorizeSecurityGroupIngress(t.Context(), &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-lb"), IpPermissions: []ec2types.IpPermission{perm}}); err != nil {
					t.Error(err)
					return
				}
				if _, err := c.DescribeSecurityGroups(t.Context(), &ec2.DescribeSecurityGroupsInput{GroupIds: []string{"sg-lb"}}); err != nil {
					t.Error(err)
					return
				}
				if _, err := c.RevokeSecurityGroupIngress(t.Context(), &ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String("sg-lb"), IpPermissions: []ec2types.IpPermission{perm}}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if diff := cmp.Diff(map[string]int{"AuthorizeSecurityGroupIngress": 40, "DescribeSecurityGroups": 40, "RevokeSecurityGroupIngress": 40}, w.ep.Counts(), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
}
