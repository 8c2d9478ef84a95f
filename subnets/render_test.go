package subnets_test

// render_test.go: the report's JSON validates against ReadinessSchema
// (ready and not), and the Markdown and text forms say the verdict, the
// findings and each assumption of the estimate.

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/subnets"
)

var readinessSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(subnets.ReadinessSchema()))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("readiness.v1.json", doc); err != nil {
		return nil, err
	}
	c.AssertFormat()
	return c.Compile("readiness.v1.json")
})

func validate(t *testing.T, rep *subnets.Readiness) string {
	t.Helper()
	s, err := readinessSchema()
	if err != nil {
		t.Fatal(err)
	}
	js, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("the JSON does not validate against ReadinessSchema: %v\n%s", err, js)
	}
	return string(js)
}

// broken is a world with a finding of each kind it can hold at once.
func broken() *world {
	w := newWorld()
	w.elb.LBs[0].AvailabilityZones = w.elb.LBs[0].AvailabilityZones[:1]
	w.ec2.Subnets[2].AvailableIpAddressCount = aws.Int32(1)
	n := node("mng-1", zoneA, "10.0.0.20", "", true)
	n.Labels[subnets.LabelNodeGroup] = "ng-1"
	w.objs = append(w.objs, n)
	return w
}

func TestJSONValidates(t *testing.T) {
	for name, w := range map[string]*world{"ready": newWorld(), "broken": broken()} {
		t.Run(name, func(t *testing.T) {
			js := validate(t, check(t, w, nil))
			if !strings.Contains(js, `"schemaVersion": 1`) {
				t.Errorf("no schemaVersion 1 in\n%s", js)
			}
		})
	}
	w := newWorld()
	w.noKarp = true
	validate(t, check(t, w, nil))
}

func TestMarkdown(t *testing.T) {
	md := check(t, broken(), nil).Markdown()
	for _, want := range []string{
		"# Readiness to move cluster prod to private subnets",
		"**NOT READY: 2 of 3 findings block the move.**",
		"- **high** `SubnetTooSmall`: zone eu-west-1a needs 3 addresses",
		"  - call: manual reason: enable zone eu-west-1b on load balancer web",
		"| eu-west-1a | 2 | 1 | 3 | 1 | subnet-priv-a |",
		"| `subnet-priv-b` | eu-west-1b | 10.0.11.0/24 | 100 | nat | - |",
		"Selector terms the move writes: id=subnet-priv-a or id=subnet-priv-b",
		"| default | subnet-pub-a, subnet-pub-b | true | default | 2 |",
		"| default | default | absent (Karpenter's 10%) | 2 | 1 | 1 |",
		"### ng-1: 1 node, 1 public",
		"1. create a managed node group like ng-1 in the private subnets subnet-priv-a, subnet-priv-b",
		"2 nodes in 2 waves, about 16m0s (2 × (launch 3m0s + drain 5m0s))",
		"- a replacement node launches and turns Ready in 3m0s (the default, DefaultLaunchTime)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestText(t *testing.T) {
	rep := check(t, newWorld(), nil)
	text := rep.Text()
	for _, want := range []string{
		"tgmigrate subnets readiness  cluster prod  vpc-0abc1234  eu-west-1  checked 2026-12-04T08:00:00Z  schema v1",
		"READY: no finding blocks the move (0 findings)",
		"subnet-priv-a  eu-west-1a  10.0.10.0/24  100   nat",
		"estimate: 2 nodes in 2 waves, about 16m0s",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}
	// An assumption may be wrapped over lines; its words are all there.
	flat := strings.Join(strings.Fields(text), " ")
	for _, a := range rep.Estimate.Assumptions {
		if !strings.Contains(flat, "assumes: "+a+" ") && !strings.HasSuffix(flat, "assumes: "+a) {
			t.Errorf("the text does not say the assumption %q:\n%s", a, text)
		}
	}
}

// TestTextFits120Columns: a realistic report that is not ready (long
// findings, a subnet missing every endpoint, many subnets in a zone, a
// node group's steps, a long networking note, a target group ARN) renders
// in lines of at most 120 columns, and nothing is lost: each finding's
// message and next call, each missing endpoint, each subnet, each step
// and the ARN are there whole once the lines are joined.
func TestTextFits120Columns(t *testing.T) {
	w := broken()
	w.ec2.RouteTables = w.ec2.RouteTables[:0] // no NAT: every endpoint missing
	rep := check(t, w, nil)
	rep.Zones[0].Subnets = append(rep.Zones[0].Subnets, "subnet-0123456789abcdef0", "subnet-0fedcba9876543210", "subnet-00112233445566778")
	rep.Notes = append(rep.Notes, "the endpoints of "+strings.Repeat("com.amazonaws.eu-west-1.ecr.api ", 6)+"could not be read")
	for i := range rep.TargetGroups {
		rep.TargetGroups[i].Networking = "spec.networking set: ingress from the load balancer's security groups sg-0a1b2c3d4e5f60718 and sg-0f1e2d3c4b5a69788 on port 8080"
	}
	text := rep.Text()
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n > diagnose.TextColumns {
			t.Errorf("line %d has %d columns, over %d: %q", i+1, n, diagnose.TextColumns, line)
		}
	}
	flat := strings.Join(strings.Fields(text), " ")
	var want []string
	for _, f := range rep.Findings {
		want = append(want, strings.Join(strings.Fields(f.Message), " "))
	}
	for _, s := range rep.PrivateSubnets {
		want = append(want, s.MissingEndpoints...)
	}
	want = append(want, rep.Zones[0].Subnets...)
	want = append(want, rep.TargetGroups[0].ARN.String(), rep.TargetGroups[0].Networking,
		strings.Join(strings.Fields(rep.Notes[len(rep.Notes)-1]), " "))
	for _, g := range rep.NodeGroups {
		want = append(want, g.Steps...)
	}
	if len(rep.Findings) < 3 || len(rep.NodeGroups) == 0 || len(rep.PrivateSubnets) == 0 || len(rep.PrivateSubnets[0].MissingEndpoints) == 0 {
		t.Fatalf("the report is not the realistic one the test needs: %d findings, %d node groups, subnets %+v", len(rep.Findings), len(rep.NodeGroups), rep.PrivateSubnets)
	}
	for _, s := range want {
		if !strings.Contains(flat, s) {
			t.Errorf("the text lacks %q whole:\n%s", s, text)
		}
	}
	if t.Failed() {
		return
	}
	t.Logf("\n%s", text)
}

// pluralOfOne matches a count of one followed by a plural noun: "1
// findings", "1 nodes" (not "1 address").
var pluralOfOne = regexp.MustCompile(`(^|[^\d.,/])1 [a-z]*[^s\s]s\b`)

// TestOneOfEachIsSingular: a readiness report of one finding, one node in
// one wave, and a plan of one node in one wave, render every count of one
// in the singular.
func TestOneOfEachIsSingular(t *testing.T) {
	est := subnets.Estimate{Nodes: 1, Waves: 1, Duration: 5 * time.Minute, Launch: 2 * time.Minute, Drain: 3 * time.Minute}
	rep := &subnets.Readiness{SchemaVersion: 1, Cluster: "prod", VPCID: "vpc-1", Region: "eu-west-1", Estimate: est,
		Findings: []diagnose.Finding{{Code: "PrivateSubnetMissing", Severity: diagnose.SeverityCritical, Message: "zone eu-west-1a (1 node) has no private subnet"}}}
	plan := &subnets.Plan{SchemaVersion: 1, ID: "move-1", Cluster: "prod", VPCID: "vpc-1", Region: "eu-west-1", Estimate: est,
		Steps:     []subnets.Step{{ID: subnets.StepWatchReplacement, Title: "watch"}},
		NodePools: []subnets.NodePoolChange{{Name: "default", NodeClass: "default", AllowedDrift: 1}}}
	for name, text := range map[string]string{"Readiness.Text": rep.Text(), "Readiness.Markdown": rep.Markdown(), "Plan.Text": plan.Text()} {
		if m := pluralOfOne.FindAllString(text, -1); len(m) > 0 {
			t.Errorf("%s says %q:\n%s", name, m, text)
		}
	}
	for name, want := range map[string]string{"Readiness.Text": "NOT READY: 1 of 1 finding blocks the move", "Plan.Text": "estimate: 1 node in 1 wave"} {
		text := map[string]string{"Readiness.Text": rep.Text(), "Plan.Text": plan.Text()}[name]
		if !strings.Contains(text, want) {
			t.Errorf("%s does not say %q:\n%s", name, want, text)
		}
	}
}
