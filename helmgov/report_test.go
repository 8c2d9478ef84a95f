package helmgov_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/qstools/tgmigrate/helmgov"
)

// TestSARIFSchema validates SARIF output against the SARIF 2.1.0 subset
// schema in testdata, for a result with suppressed findings, notices, line
// numbers and paths that need escaping.
func TestSARIFSchema(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "sarif-2.1.0-subset.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("sarif.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("sarif.json")
	if err != nil {
		t.Fatal(err)
	}

	in := docs("apiVersion: elbv2.k8s.aws/v1beta1\nkind: TargetGroupBinding\nmetadata:\n  name: t\n  annotations: {tgmigrate.qstools.io/ignore: TGM-H005}\nspec: {serviceRef: {name: web, port: 80}}\n",
		"apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n")
	objs, err := helmgov.ReadManifests(strings.NewReader(in), "dir with space/in#1.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res := newChecker(t, helmgov.Options{}).Check(objs)
	var b bytes.Buffer
	if err := res.WriteSARIF(&b, helmgov.ReportOptions{ToolVersion: "1.2.3"}); err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(inst); err != nil {
		t.Fatalf("SARIF does not validate: %v\n%s", err, b.String())
	}

	var log struct {
		Runs []struct {
			Results []struct {
				RuleID       string `json:"ruleId"`
				RuleIndex    int    `json:"ruleIndex"`
				Level        string `json:"level"`
				Suppressions []struct {
					Kind string `json:"kind"`
				} `json:"suppressions"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
						Region           struct{ StartLine int }
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
			Tool struct {
				Driver struct {
					Rules []struct{ ID string } `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Invocations []struct {
				ToolExecutionNotifications []struct{ Level string } `json:"toolExecutionNotifications"`
			} `json:"invocations"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if len(run.Tool.Driver.Rules) != len(helmgov.Rules()) {
		t.Errorf("%d rules in the driver", len(run.Tool.Driver.Rules))
	}
	type res1 struct {
		Rule, Level, URI string
		Line             int
		Suppressed       bool
		IndexOK          bool
	}
	var got []res1
	for _, r := range run.Results {
		loc := r.Locations[0].PhysicalLocation
		got = append(got, res1{Rule: r.RuleID, Level: r.Level, URI: loc.ArtifactLocation.URI, Line: loc.Region.StartLine,
			Suppressed: len(r.Suppressions) == 1 && r.Suppressions[0].Kind == "inSource",
			IndexOK:    run.Tool.Driver.Rules[r.RuleIndex].ID == r.RuleID})
	}
	want := []res1{
		{Rule: "TGM-H004", Level: "error", URI: "dir%20with%20space/in%231.yaml", Line: 1, IndexOK: true},
		{Rule: "TGM-H005", Level: "error", URI: "dir%20with%20space/in%231.yaml", Line: 1, Suppressed: true, IndexOK: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if n := len(run.Invocations[0].ToolExecutionNotifications); n != 2 { // the namespace, the unknown kind
		t.Errorf("%d notifications, want 2", n)
	}
}

func TestWriteJSON(t *testing.T) {
	objs := read(t, "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {type: LoadBalancer}\n")
	res := newChecker(t, helmgov.Options{Config: helmgov.Config{Rules: map[helmgov.RuleID]helmgov.RuleConfig{
		helmgov.RuleServiceLBType: {Severity: helmgov.SeverityWarning},
	}}}).Check(objs)
	var b bytes.Buffer
	if err := res.WriteJSON(&b, helmgov.ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		APIVersion string         `json:"apiVersion"`
		Kind       string         `json:"kind"`
		Summary    map[string]int `json:"summary"`
		Findings   []struct {
			Rule     string `json:"rule"`
			Severity string `json:"severity"`
			Fix      struct {
				Op    string `json:"op"`
				Path  string `json:"path"`
				Value string `json:"value"`
			} `json:"fix"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.APIVersion != helmgov.ReportAPIVersion || got.Kind != "CheckReport" {
		t.Errorf("header %s %s", got.APIVersion, got.Kind)
	}
	if diff := cmp.Diff(map[string]int{"objects": 1, "errors": 1, "warnings": 1, "info": 0, "suppressed": 0, "notices": 1}, got.Summary); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if got.Findings[0].Severity != "warning" || got.Findings[0].Fix.Op != "set" || got.Findings[0].Fix.Value != "external" ||
		got.Findings[0].Fix.Path != `metadata.annotations["service.beta.kubernetes.io/aws-load-balancer-type"]` {
		t.Errorf("finding %+v", got.Findings[0])
	}
}

// TestChangeString: a change prints its value as JSON, with the shell's
// &, < and > as they are.
func TestChangeString(t *testing.T) {
	cmdPath := helmgov.FieldPath{{Key: "exec"}, {Key: "command"}}
	tests := []struct {
		name string
		c    helmgov.Change
		want string
	}{
		{"a number", helmgov.Change{Op: helmgov.OpSet, Path: helmgov.FieldPath{{Key: "seconds"}}, Value: int64(130)}, "set seconds = 130"},
		{"a command", helmgov.Change{Op: helmgov.OpSet, Path: cmdPath, Value: []any{"/bin/sh", "-c", "sleep 130 && kill -TERM 1 > /dev/null"}},
			`set exec.command = ["/bin/sh","-c","sleep 130 && kill -TERM 1 > /dev/null"]`},
		{"a PodDisruptionBudget", helmgov.Change{Op: helmgov.OpAddPDB}, "add a PodDisruptionBudget"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}
