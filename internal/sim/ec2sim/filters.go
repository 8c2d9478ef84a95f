package ec2sim

// filters.go: the Describe calls' filters.

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// A filter is one Filter name a Describe call accepts, with the values a
// resource has for it. EC2's rules: a resource matches when it matches
// every filter of the request, and it matches a filter when one of its
// values matches one of the filter's values, where * matches any run of
// characters and ? any one.
type filter[T any] struct {
	// name is the filter's name; with prefix, the beginning of its name
	// ("tag:"), and the rest of the name is the argument.
	name   string
	prefix bool
	values func(m *Model, r T, arg string) []string
}

// groupFilters are the DescribeSecurityGroups filters the model supports
// (the egress.* ones and the ip-permission.* filters on prefix lists and
// user IDs are not).
var groupFilters = []filter[*group]{
	{name: "group-id", values: func(_ *Model, g *group, _ string) []string { return []string{g.id} }},
	{name: "group-name", values: func(_ *Model, g *group, _ string) []string { return []string{g.name} }},
	{name: "vpc-id", values: func(_ *Model, g *group, _ string) []string { return []string{g.vpc} }},
	{name: "description", values: func(_ *Model, g *group, _ string) []string { return []string{g.description} }},
	{name: "owner-id", values: func(m *Model, _ *group, _ string) []string { return []string{m.account} }},
	tagFilter(func(g *group) map[string]string { return g.tags }),
	tagKeyFilter(func(g *group) map[string]string { return g.tags }),
	{name: "ip-permission.cidr", values: ruleValues(func(r *rule) string {
		if r.group == "" && r.cidr.Addr().Is4() {
			return r.cidr.String()
		}
		return ""
	})},
	{name: "ip-permission.ipv6-cidr", values: ruleValues(func(r *rule) string {
		if r.group == "" && r.cidr.Addr().Is6() {
			return r.cidr.String()
		}
		return ""
	})},
	{name: "ip-permission.group-id", values: ruleValues(func(r *rule) string { return r.group })},
	{name: "ip-permission.protocol", values: ruleValues(func(r *rule) string { return r.protocol })},
	{name: "ip-permission.from-port", values: ruleValues(func(r *rule) string { return portValue(r, r.from) })},
	{name: "ip-permission.to-port", values: ruleValues(func(r *rule) string { return portValue(r, r.to) })},
}

// tagFilter is the filter tag:<key>: the value of the resource's tag key.
func tagFilter[T any](tags func(T) map[string]string) filter[T] {
	return filter[T]{name: "tag:", prefix: true, values: func(_ *Model, r T, key string) []string {
		if v, ok := tags(r)[key]; ok {
			return []string{v}
		}
		return nil
	}}
}

// tagKeyFilter is the filter tag-key: the keys of the resource's tags.
func tagKeyFilter[T any](tags func(T) map[string]string) filter[T] {
	return filter[T]{name: "tag-key", values: func(_ *Model, r T, _ string) []string {
		return slices.Collect(maps.Keys(tags(r)))
	}}
}

// field is a filter with one value per resource, field's.
func field[T any](name string, value func(T) string) filter[T] {
	return filter[T]{name: name, values: func(_ *Model, r T, _ string) []string { return []string{value(r)} }}
}

// constant is a filter every resource has one value of: value.
func constant[T any](name, value string) filter[T] {
	return filter[T]{name: name, values: func(*Model, T, string) []string { return []string{value} }}
}

// ownerFilter is the filter owner-id: the model's account.
func ownerFilter[T any]() filter[T] {
	return filter[T]{name: "owner-id", values: func(m *Model, _ T, _ string) []string { return []string{m.account} }}
}

func ruleValues(f func(*rule) string) func(*Model, *group, string) []string {
	return func(_ *Model, g *group, _ string) []string {
		var out []string
		for _, r := range g.rules {
			if v := f(r); v != "" {
				out = append(out, v)
			}
		}
		return out
	}
}

func portValue(r *rule, p int32) string {
	if !r.ports {
		return "-1"
	}
	return strconv.Itoa(int(p))
}

// vpcFilters are the DescribeVpcs filters the model supports (not the
// ipv6-* ones). The model's VPCs have no tags: tag filters match none.
var vpcFilters = []filter[*vpc]{
	{name: "vpc-id", values: func(_ *Model, v *vpc, _ string) []string { return []string{v.id} }},
	{name: "cidr", values: func(_ *Model, v *vpc, _ string) []string { return []string{v.cidr.String()} }},
	{name: "cidr-block-association.cidr-block", values: func(_ *Model, v *vpc, _ string) []string { return []string{v.cidr.String()} }},
	{name: "cidr-block-association.association-id", values: func(_ *Model, v *vpc, _ string) []string { return []string{v.assoc} }},
	{name: "cidr-block-association.state", values: func(_ *Model, _ *vpc, _ string) []string {
		return []string{string(ec2types.VpcCidrBlockStateCodeAssociated)}
	}},
	{name: "dhcp-options-id", values: func(_ *Model, v *vpc, _ string) []string { return []string{v.dhcp} }},
	{name: "is-default", values: func(_ *Model, _ *vpc, _ string) []string { return []string{"false"} }},
	{name: "owner-id", values: func(m *Model, _ *vpc, _ string) []string { return []string{m.account} }},
	{name: "state", values: func(_ *Model, _ *vpc, _ string) []string { return []string{string(ec2types.VpcStateAvailable)} }},
	{name: "tag:", prefix: true, values: func(*Model, *vpc, string) []string { return nil }},
	{name: "tag-key", values: func(*Model, *vpc, string) []string { return nil }},
}

// compiledFilter is one Filter of a request, resolved to its definition.
type compiledFilter[T any] struct {
	def    filter[T]
	arg    string
	values []string
}

// compileFilters resolves a request's filters; an unknown name fails with
// InvalidParameterValue, as EC2 answers it.
func compileFilters[T any](defs []filter[T], fs []ec2types.Filter) ([]compiledFilter[T], error) {
	out := make([]compiledFilter[T], 0, len(fs))
	for _, f := range fs {
		name := aws.ToString(f.Name)
		found := false
		for _, d := range defs {
			switch {
			case d.prefix && strings.HasPrefix(name, d.name) && len(name) > len(d.name):
				out = append(out, compiledFilter[T]{def: d, arg: strings.TrimPrefix(name, d.name), values: f.Values})
			case !d.prefix && name == d.name:
				out = append(out, compiledFilter[T]{def: d, values: f.Values})
			default:
				continue
			}
			found = true
			break
		}
		if !found {
			if f.Name == nil {
				name = "null"
			}
			return nil, invalidValue("The filter '%s' is invalid", name)
		}
	}
	return out, nil
}

// matchAll reports whether r matches every filter.
func matchAll[T any](m *Model, fs []compiledFilter[T], r T) bool {
	for _, f := range fs {
		if !matchAny(f.def.values(m, r, f.arg), f.values) {
			return false
		}
	}
	return true
}

func matchAny(have, patterns []string) bool {
	for _, p := range patterns {
		for _, h := range have {
			if wildcard(p, h) {
				return true
			}
		}
	}
	return false
}

// wildcard matches s against EC2's filter pattern p: * is any run of
// characters, ? any one character.
func wildcard(p, s string) bool {
	pr, sr := []rune(p), []rune(s)
	// The classic two-pointer match with backtracking to the last *.
	pi, si, star, mark := 0, 0, -1, 0
	for si < len(sr) {
		switch {
		case pi < len(pr) && (pr[pi] == '?' || pr[pi] == sr[si]):
			pi++
			si++
		case pi < len(pr) && pr[pi] == '*':
			star, mark = pi, si
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(pr) && pr[pi] == '*' {
		pi++
	}
	return pi == len(pr)
}
