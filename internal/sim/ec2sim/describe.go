package ec2sim

// describe.go: DescribeVpcs and DescribeSecurityGroups on the model, and
// the paging of every Describe call.

import (
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// Paging: results are sorted by ID; a page holds MaxResults of them (5 to
// 1000 for most Describe calls, EC2's range) and its NextToken names the
// first ID of the next one. Without MaxResults every result comes in one
// page.
const (
	minResults  = 5
	maxResults  = 1000
	tokenPrefix = "ec2sim:"
)

// limits is the MaxResults an operation accepts: from min to max, or, when
// clamp is set, any value from min, more than max answering max.
type limits struct {
	min, max int32
	clamp    bool
}

// The MaxResults of the Describe calls, from EC2's API reference.
var (
	// defaultLimits: DescribeVpcs, DescribeSecurityGroups,
	// DescribeNetworkInterfaces and DescribeSubnets.
	defaultLimits = limits{min: minResults, max: maxResults}
	// routeTableLimits: DescribeRouteTables accepts 5 to 100.
	routeTableLimits = limits{min: minResults, max: 100}
	// endpointLimits: DescribeVpcEndpoints returns at most 1000 items,
	// whatever more it is asked for. EC2 documents no minimum; the model
	// refuses a MaxResults below 1.
	endpointLimits = limits{min: 1, max: maxResults, clamp: true}
)

// page cuts the sorted IDs to the page of maxRes and token, within EC2's
// usual limits, and returns the next page's token.
func page(ids []string, maxRes *int32, token *string) ([]string, *string, error) {
	return pageWithin(defaultLimits, ids, maxRes, token)
}

// pageWithin cuts the sorted IDs to the page of maxRes and token, and
// returns the next page's token.
func pageWithin(lim limits, ids []string, maxRes *int32, token *string) ([]string, *string, error) {
	if maxRes != nil && (*maxRes < lim.min || (!lim.clamp && *maxRes > lim.max)) {
		if lim.clamp {
			return nil, nil, invalidValue("Value ( %d ) for parameter maxResults is invalid. Expecting a value greater than or equal to %d.", *maxRes, lim.min)
		}
		return nil, nil, invalidValue("Value ( %d ) for parameter maxResults is invalid. Expecting a value between %d and %d.", *maxRes, lim.min, lim.max)
	}
	if t := aws.ToString(token); t != "" {
		next, ok := strings.CutPrefix(t, tokenPrefix)
		if !ok || next == "" {
			return nil, nil, apiErr(CodeInvalidPaginationToken, "The pagination token '%s' is invalid", t)
		}
		i, _ := slices.BinarySearch(ids, next)
		ids = ids[i:]
	}
	if maxRes == nil || len(ids) <= int(min(*maxRes, lim.max)) {
		return ids, nil, nil
	}
	n := int(min(*maxRes, lim.max))
	return ids[:n], aws.String(tokenPrefix + ids[n]), nil
}

// request is what every Describe call's input has: the IDs it names, its
// filters and its page.
type request struct {
	ids        []string
	filters    []ec2types.Filter
	maxResults *int32
	nextToken  *string
}

// kind is one kind of resource the model keeps, as a Describe call reads
// it: the resources by ID (a map the model never replaces), the filters
// of the call, the error for an ID that is not there, and the call's
// MaxResults.
type kind[T any] struct {
	all      map[string]T
	filters  []filter[T]
	notFound func(id string) error
	limits   limits
}

// describeIn answers a Describe call on k: the resources the request
// names (each must exist, else it fails with k's notFound error) or, when
// it names none, every one; sorted by ID, without repeats, those that
// match every filter, cut to the page; each rendered under the model's
// lock.
func describeIn[T, O any](m *Model, k kind[T], r request, render func(T) O) ([]O, *string, error) {
	fs, err := compileFilters(k.filters, r.filters)
	if err != nil {
		return nil, nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var ids []string
	for _, id := range r.ids {
		if _, ok := k.all[id]; !ok {
			return nil, nil, k.notFound(id)
		}
		ids = append(ids, id)
	}
	if len(r.ids) == 0 {
		for id := range k.all {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var kept []string
	for _, id := range ids {
		if matchAll(m, fs, k.all[id]) {
			kept = append(kept, id)
		}
	}
	kept, next, err := pageWithin(k.limits, kept, r.maxResults, r.nextToken)
	if err != nil {
		return nil, nil, err
	}
	out := make([]O, 0, len(kept))
	for _, id := range kept {
		out = append(out, render(k.all[id]))
	}
	return out, next, nil
}

func (m *Model) describeVpcs(in *ec2.DescribeVpcsInput) (*ec2.DescribeVpcsOutput, error) {
	k := kind[*vpc]{all: m.vpcs, filters: vpcFilters, notFound: vpcNotFound, limits: defaultLimits}
	vpcs, next, err := describeIn(m, k, request{in.VpcIds, in.Filters, in.MaxResults, in.NextToken}, m.renderVPC)
	if err != nil {
		return nil, err
	}
	return &ec2.DescribeVpcsOutput{Vpcs: vpcs, NextToken: next}, nil
}

func (m *Model) describeSecurityGroups(in *ec2.DescribeSecurityGroupsInput) (*ec2.DescribeSecurityGroupsOutput, error) {
	fs, err := compileFilters(groupFilters, in.Filters)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var ids []string
	for _, id := range in.GroupIds {
		if !validGroupID(id) {
			return nil, malformedGroupID(id)
		}
		if _, ok := m.groups[id]; !ok {
			return nil, groupNotFound(id)
		}
		ids = append(ids, id)
	}
	for _, name := range in.GroupNames {
		// Names address the default VPC's groups, which the model does not
		// have.
		return nil, apiErr(CodeInvalidGroupNotFound, "The security group '%s' does not exist in default VPC 'none'", name)
	}
	if len(in.GroupIds) == 0 {
		for id := range m.groups {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var kept []string
	for _, id := range ids {
		if matchAll(m, fs, m.groups[id]) {
			kept = append(kept, id)
		}
	}
	kept, next, err := page(kept, in.MaxResults, in.NextToken)
	if err != nil {
		return nil, err
	}
	out := &ec2.DescribeSecurityGroupsOutput{SecurityGroups: []ec2types.SecurityGroup{}, NextToken: next}
	for _, id := range kept {
		out.SecurityGroups = append(out.SecurityGroups, m.renderGroupLocked(m.groups[id]))
	}
	return out, nil
}
