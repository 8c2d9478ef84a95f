package diagnose

// render_text_test.go: the text layouts: Report.Text fits TextColumns and
// loses nothing; a report of one of each says so in the singular.

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/qstools/tgmigrate"
)

// withTrouble adds to rep what a realistic fleet adds to its text: a target
// group whose name and Service are long, an unknown, a read error with an
// ARN for its resource and a long message.
func withTrouble(rep *Report) *Report {
	arn := "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/k8s-payments-checkout-a1b2c3d4/0123456789abcdef"
	tg := rep.TargetGroups[0]
	tg.Name, tg.ARN = "k8s-payments-checkout-a1b2c3d4", arn
	tg.Service = &ServiceRef{Cluster: "prod", Namespace: "payments-and-checkout", Name: "checkout-frontend-canary"}
	tg.Unknowns = []Unknown{{Cluster: "prod", Source: "pods"}, {Cluster: "prod", Source: "targetgroupbindings"}}
	tg.Error = &ResourceError{Kind: "target-group", Resource: arn, Op: "DescribeTargetHealth", Category: "AccessDenied",
		Message: "User: arn:aws:sts::123456789012:assumed-role/readonly/session is not authorized to perform: elasticloadbalancing:DescribeTargetHealth on resource: " + arn + " because no identity-based policy allows the elasticloadbalancing:DescribeTargetHealth action"}
	rep.TargetGroups = append(rep.TargetGroups, tg)
	rep.Errors = append(rep.Errors, *tg.Error)
	return rep
}

// TestTextFitsColumns: every line of the text report of the golden
// world, and of the same with a long name, unknowns and an error, is at
// most TextColumns wide; every finding's message and next call, and every
// error's message, are in it whole; the wide layout keeps them on one line
// each, wider.
func TestTextFitsColumns(t *testing.T) {
	for _, tt := range []struct {
		name string
		rep  *Report
	}{
		{"golden world", goldenReport(t)},
		{"with a long name, unknowns and an error", withTrouble(goldenReport(t))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text := tt.rep.Text()
			for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
				if n := utf8.RuneCountInString(line); n > TextColumns {
					t.Errorf("line %d is %d columns, over %d: %q", i+1, n, TextColumns, line)
				}
			}
			flat := strings.Join(strings.Fields(text), " ")
			var whole []string
			for _, f := range tt.rep.AllFindings() {
				whole = append(whole, f.Message, f.Remediation)
			}
			for _, e := range tt.rep.Errors {
				whole = append(whole, e.Message)
			}
			for _, tg := range tt.rep.TargetGroups {
				for _, u := range tg.Unknowns {
					whole = append(whole, u.Cluster+"/"+u.Source)
				}
			}
			for _, s := range whole {
				if !strings.Contains(flat, strings.Join(strings.Fields(s), " ")) {
					t.Errorf("Text() lacks %q", s)
				}
			}
			wide := tt.rep.WideText()
			widest := 0
			for _, line := range strings.Split(wide, "\n") {
				widest = max(widest, utf8.RuneCountInString(line))
			}
			if widest <= TextColumns {
				t.Errorf("WideText() is at most %d columns: the realistic report should need more", widest)
			}
			for _, f := range tt.rep.AllFindings() {
				if !strings.Contains(wide, oneLine(f.Message)+"  ") {
					t.Errorf("WideText() does not have %s's message on its line", f.Code)
				}
			}
		})
	}
}

// pluralOfOne matches a count of one followed by a plural noun: "1
// findings", "1 batches" (not "1 address").
var pluralOfOne = regexp.MustCompile(`(^|[^\d.,/])1 [a-z]*[^s\s]s\b`)

// TestOneOfEachIsSingular: a report of one target group with one target,
// one finding and one error renders every count of one in the singular,
// in its text, wide text and Markdown.
func TestOneOfEachIsSingular(t *testing.T) {
	arn := "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef"
	typed, err := tgmigrate.ParseTargetGroupARN(arn)
	if err != nil {
		t.Fatal(err)
	}
	f := Finding{Code: CodeGhostTarget, Severity: SeverityCritical, TargetGroupARN: typed, Cluster: "prod",
		Message: "ghost targets: 1 of 1; nothing serves it now", Remediation: "cutover.PlanCutover for legacy-web"}
	rerr := ResourceError{Kind: "cluster", Resource: "prod", Op: "list pods", Category: "Forbidden", Message: "pods is forbidden"}
	rep := &Report{SchemaVersion: SchemaVersion, Scope: Scope{All: true},
		TargetGroups: []TargetGroupReport{{Name: "legacy-web", ARN: arn, Account: "123456789012", Region: "eu-west-1", TargetType: "ip",
			Counts: TargetCounts{Total: 1, ByClass: map[Class]int{ClassGhost: 1}}, Findings: []Finding{f}}},
		Clusters: []ClusterReport{{Name: "prod", Read: true, Nodes: 1, Pods: 1, Services: 1}},
		Errors:   []ResourceError{rerr},
		Summary: Summary{TargetGroups: 1, Targets: 1, ByClass: map[Class]int{ClassGhost: 1}, Findings: 1,
			ByCode: map[Code]int{CodeGhostTarget: 1}, BySeverity: map[Severity]int{SeverityCritical: 1}, Errors: 1},
	}
	for name, text := range map[string]string{"Text": rep.Text(), "WideText": rep.WideText(), "Markdown": rep.Markdown()} {
		if m := pluralOfOne.FindAllString(text, -1); len(m) > 0 {
			t.Errorf("%s says %q:\n%s", name, m, text)
		}
		if name != "Markdown" && !strings.Contains(text, "1 target group (0 with errors), 1 target: 0 pod, 0 node, 1 ghost, 0 foreign") {
			t.Errorf("%s does not total one of each in the singular:\n%s", name, text)
		}
		if name != "Markdown" && !strings.Contains(text, "1 finding: 1 critical 0 high 0 medium 0 low 0 info; 1 error\n") {
			t.Errorf("%s does not count one finding and one error in the singular:\n%s", name, text)
		}
	}
	if !pluralOfOne.MatchString("2 target groups, 1 findings") || pluralOfOne.MatchString("1 address, 11 findings, 21 targets") {
		t.Error("pluralOfOne does not tell a plural of one")
	}
}
