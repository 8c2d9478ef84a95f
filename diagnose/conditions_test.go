package diagnose

// conditions_test.go: Route.Conditions, the one-line summaries of a
// listener rule's conditions.

import (
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
)

func TestRuleConditions(t *testing.T) {
	tests := []struct {
		name string
		in   []elbv2types.RuleCondition
		want []string
	}{
		{"none", nil, nil},
		{"host config and regex", []elbv2types.RuleCondition{{Field: aws.String("host-header"),
			HostHeaderConfig: &elbv2types.HostHeaderConditionConfig{Values: []string{"api.example.com", "www.example.com"}, RegexValues: []string{"^x"}}}},
			[]string{"host-header=api.example.com,www.example.com,~^x"}},
		{"legacy values", []elbv2types.RuleCondition{{Field: aws.String("path-pattern"), Values: []string{"/orders/*"}}},
			[]string{"path-pattern=/orders/*"}},
		{"path and method", []elbv2types.RuleCondition{
			{Field: aws.String("path-pattern"), PathPatternConfig: &elbv2types.PathPatternConditionConfig{Values: []string{"/a", "/b"}}},
			{Field: aws.String("http-request-method"), HttpRequestMethodConfig: &elbv2types.HttpRequestMethodConditionConfig{Values: []string{"GET"}}}},
			[]string{"path-pattern=/a,/b", "http-request-method=GET"}},
		{"header", []elbv2types.RuleCondition{{Field: aws.String("http-header"),
			HttpHeaderConfig: &elbv2types.HttpHeaderConditionConfig{HttpHeaderName: aws.String("X-Canary"), Values: []string{"on"}}}},
			[]string{"http-header:X-Canary=on"}},
		{"query and source", []elbv2types.RuleCondition{
			{Field: aws.String("query-string"), QueryStringConfig: &elbv2types.QueryStringConditionConfig{Values: []elbv2types.QueryStringKeyValuePair{{Key: aws.String("v"), Value: aws.String("2")}}}},
			{Field: aws.String("source-ip"), SourceIpConfig: &elbv2types.SourceIpConditionConfig{Values: []string{"10.0.0.0/8"}}}},
			[]string{"query-string=v:2", "source-ip=10.0.0.0/8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.in)
			if got := conditions(in); !slices.Equal(got, tt.want) {
				t.Errorf("conditions = %q, want %q", got, tt.want)
			}
		})
	}
}
