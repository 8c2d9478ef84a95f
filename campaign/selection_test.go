package campaign_test

// selection_test.go: the selection by ARN, by name and by tags; the
// IAM actions and RBAC rules planning needs against what it did.

import (
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/cutover"
)

func TestPlanCampaignSelection(t *testing.T) {
	f := newFleet(t)
	prodB := f.World("prod-b").Legacy().TargetGroupARN
	tests := []struct {
		name     string
		sel      campaign.Selection
		clusters []string // the entries' clusters, in order
		errors   []string // Plan.Errors' resources
	}{
		{"by ARN", campaign.Selection{TargetGroupARNs: []tgmigrate.ARN{prodB}}, []string{"prod-b"}, nil},
		{"by name, in every account", campaign.Selection{TargetGroupNames: []string{"legacy-web"}}, []string{"prod-a", "prod-b", "staging"}, nil},
		{"a name found nowhere", campaign.Selection{TargetGroupNames: []string{"nope", "legacy-web"}}, []string{"prod-a", "prod-b", "staging"}, []string{"nope"}},
		{"tags nobody carries", campaign.Selection{Tags: map[string]string{"team": "none"}}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := campaign.PlanCampaign(t.Context(), inputOf(f, tt.sel), campaign.WithClock(f.Clock()))
			if err != nil {
				t.Fatal(err)
			}
			var clusters, errs []string
			for _, e := range p.Entries {
				clusters = append(clusters, e.Cluster)
			}
			for _, re := range p.Errors {
				errs = append(errs, re.Resource)
			}
			if !slices.Equal(clusters, tt.clusters) || !slices.Equal(errs, tt.errors) {
				t.Errorf("entries of %q, errors %q; want %q, %q", clusters, errs, tt.clusters, tt.errors)
			}
		})
	}
}

// TestPlanPermissions: every AWS call planning made is one of
// PlanIAMActions, and every Kubernetes read the cutover plans record is
// one of PlanClusterRules.
func TestPlanPermissions(t *testing.T) {
	f := newFleet(t)
	before := map[string]map[string]int{}
	for _, w := range f.Worlds() {
		before[w.ClusterName()] = w.Calls()
	}
	p := planFleet(t.Context(), t, f, campaign.WithAcceptPreconditions(cutover.PreconditionPodSettings))
	actions := campaign.PlanIAMActions()
	allowed := func(action string) bool {
		return slices.ContainsFunc(actions, func(a string) bool {
			pre, wild := strings.CutSuffix(a, "*")
			return a == action || (wild && strings.HasPrefix(action, pre))
		})
	}
	called, checked := 0, 0
	for _, w := range f.Worlds() {
		for op, n := range w.Calls() {
			if n == before[w.ClusterName()][op] {
				continue
			}
			called++
			service := "elasticloadbalancing:"
			if strings.HasPrefix(op, "Get") {
				service = "servicequotas:"
			}
			if !allowed(service + op) {
				t.Errorf("%s: planning called %s%s, which PlanIAMActions %q does not allow", w.ClusterName(), service, op, actions)
			}
		}
	}
	rules := campaign.PlanClusterRules()
	grants := func(verb, resource string) bool {
		name, group, _ := strings.Cut(resource, ".")
		return slices.ContainsFunc(rules, func(r rbacRule) bool {
			return slices.Contains(r.Verbs, verb) && slices.Contains(r.Resources, name) && slices.Contains(r.APIGroups, groupOf(name, group))
		})
	}
	runnable := 0
	for _, e := range p.Entries {
		if !e.Runnable() {
			continue
		}
		runnable++
		for _, read := range e.Plan.Reads {
			line, ok := strings.CutPrefix(read, "kubernetes:")
			if !ok {
				continue
			}
			line, _ = strings.CutSuffix(line, " (dry run)")
			verbs, resources, _ := strings.Cut(line, " ")
			for _, v := range strings.Split(verbs, ",") {
				for _, r := range strings.Split(resources, ",") {
					checked++
					if !grants(v, r) {
						t.Errorf("%s: the plan reads %q: %s %s is not in PlanClusterRules", e.Cluster, read, v, r)
					}
				}
			}
		}
	}
	if called == 0 || checked == 0 {
		t.Errorf("%d AWS operations and %d Kubernetes reads checked", called, checked)
	}
	if runnable != 3 {
		t.Errorf("%d runnable entries, want 3 (staging's precondition accepted)", runnable)
	}
	if !slices.Equal(p.Accepted, []cutover.PreconditionKind{cutover.PreconditionPodSettings}) {
		t.Errorf("accepted %v", p.Accepted)
	}
}

type rbacRule = rbacv1.PolicyRule

// groupOf is the API group of a resource the plans' Reads name: core
// unless the name says its group, with the well-known groups of the
// unqualified ones.
func groupOf(name, group string) string {
	if group != "" {
		return group
	}
	switch name {
	case "endpointslices":
		return "discovery.k8s.io"
	case "validatingwebhookconfigurations":
		return "admissionregistration.k8s.io"
	case "targetgroupbindings":
		return "elbv2.k8s.aws"
	}
	return ""
}
