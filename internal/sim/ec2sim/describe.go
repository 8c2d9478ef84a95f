package ec2sim

// describe.go: DescribeVpcs and DescribeSecurityGroups on the model, with
// paging.

import (
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// Paging: results are sorted by ID; a page holds MaxResults of them (5 to
// 1000, EC2's range) and its NextToken names the first ID of the next one.
// Without MaxResults every result comes in one page.
const (
	minResults  = 5
	maxResults  = 1000
	tokenPrefix = "ec2sim:"
)

// page cuts the sorted IDs to the page of maxRes and token, and returns the
// next page's token.
func page(ids []string, maxRes *int32, token *string) ([]string, *string, error) {
	if maxRes != nil && (*maxRes < minResults || *maxRes > maxResults) {
		return nil, nil, invalidValue("Value ( %d ) for parameter maxResults is invalid. Expecting a value between %d and %d.", *maxRes, minResults, maxResults)
	}
	if t := aws.ToString(token); t != "" {
		next, ok := strings.CutPrefix(t, tokenPrefix)
		if !ok || next == "" {
			return nil, nil, apiErr(CodeInvalidPaginationToken, "The pagination token '%s' is invalid", t)
		}
		i, _ := slices.BinarySearch(ids, next)
		ids = ids[i:]
	}
	if maxRes == nil || len(ids) <= int(*maxRes) {
		return ids, nil, nil
	}
	n := int(*maxRes)
	return ids[:n], aws.String(tokenPrefix + ids[n]), nil
}

func (m *Model) describeVpcs(in *ec2.DescribeVpcsInput) (*ec2.DescribeVpcsOutput, error) {
	fs, err := compileFilters(vpcFilters, in.Filters)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var ids []string
	if len(in.VpcIds) > 0 {
		for _, id := range in.VpcIds {
			if _, ok := m.vpcs[id]; !ok {
				return nil, vpcNotFound(id)
			}
			ids = append(ids, id)
		}
	} else {
		for id := range m.vpcs {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var kept []string
	for _, id := range ids {
		if matchAll(m, fs, m.vpcs[id]) {
			kept = append(kept, id)
		}
	}
	kept, next, err := page(kept, in.MaxResults, in.NextToken)
	if err != nil {
		return nil, err
	}
	out := &ec2.DescribeVpcsOutput{Vpcs: []ec2types.Vpc{}, NextToken: next}
	for _, id := range kept {
		out.Vpcs = append(out.Vpcs, m.renderVPC(m.vpcs[id]))
	}
	return out, nil
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
