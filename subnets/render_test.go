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
	for _, a := range rep.Estimate.Assumptions {
		if !strings.Contains(text, "  assumes: "+a+"\n") {
			t.Errorf("the text does not say the assumption %q:\n%s", a, text)
		}
	}
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
