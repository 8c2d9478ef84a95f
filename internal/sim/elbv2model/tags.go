package elbv2model

// tags.go: AddTags and DescribeTags.

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
)

// maxDescribeTagsARNs is how many resources one DescribeTags call may name.
const maxDescribeTagsARNs = 20

// validateTags checks tag keys and values and returns a deep copy.
func (m *Model) validateTags(in []types.Tag) ([]types.Tag, error) {
	out := make([]types.Tag, 0, len(in))
	seen := make(map[string]bool, len(in))
	for _, t := range in {
		if t.Key == nil || len(*t.Key) < 1 || len(*t.Key) > 128 {
			return nil, validationf("every tag needs a Key of 1-128 characters")
		}
		if strings.HasPrefix(*t.Key, "aws:") {
			return nil, validationf("tag key %q: the aws: prefix is reserved", *t.Key)
		}
		if t.Value != nil && len(*t.Value) > 256 {
			return nil, validationf("tag %q: the value is longer than 256 characters", *t.Key)
		}
		if seen[*t.Key] {
			return nil, &types.DuplicateTagKeysException{Message: aws.String("tag key " + *t.Key + " appears twice")}
		}
		seen[*t.Key] = true
		out = append(out, types.Tag{Key: cp(t.Key), Value: cp(t.Value)})
	}
	return out, nil
}

// resourceLocked checks that arn names an existing resource and returns the
// typed not-found exception of its kind when it does not.
func (m *Model) resourceLocked(arn string) error {
	switch m.kindOfARN(arn) {
	case kindTargetGroup:
		if _, ok := m.tgs[arn]; !ok {
			return tgNotFound(arn)
		}
	case kindLoadBalancer:
		if _, ok := m.lbs[arn]; !ok {
			return lbNotFound(arn)
		}
	case kindListener:
		if _, ok := m.listeners[arn]; !ok {
			return listenerNotFound(arn)
		}
	case kindRule:
		if _, ok := m.rules[arn]; !ok {
			return ruleNotFound(arn)
		}
	default:
		return validationf("%q is not an Elastic Load Balancing resource ARN of account %s in %s", arn, m.accountID, m.region)
	}
	return nil
}

// AddTags adds tags to resources, or changes the value of a key a resource
// already has. Every resource and tag is checked before any is changed.
func (m *Model) AddTags(in *elbv2.AddTagsInput) (*elbv2.AddTagsOutput, error) {
	if in == nil || len(in.ResourceArns) == 0 {
		return nil, validationf("ResourceArns must not be empty")
	}
	if len(in.Tags) == 0 {
		return nil, validationf("Tags must not be empty")
	}
	tags, err := m.validateTags(in.Tags)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	merged := make(map[string][]types.Tag, len(in.ResourceArns))
	for _, arn := range in.ResourceArns {
		if err := m.resourceLocked(arn); err != nil {
			return nil, err
		}
		cur := merged[arn]
		if cur == nil {
			cur = copyTags(m.tags[arn])
		}
		for _, t := range tags {
			i := indexTag(cur, *t.Key)
			if i >= 0 {
				cur[i].Value = cp(t.Value)
			} else {
				cur = append(cur, types.Tag{Key: cp(t.Key), Value: cp(t.Value)})
			}
		}
		if len(cur) > m.quotas.TagsPerResource {
			return nil, &types.TooManyTagsException{Message: aws.String("resource " + arn + " would have more than the allowed number of tags")}
		}
		merged[arn] = cur
	}
	for arn, t := range merged {
		m.tags[arn] = t
	}
	return &elbv2.AddTagsOutput{}, nil
}

// DescribeTags returns the tags of 1 to 20 resources, in the order asked.
func (m *Model) DescribeTags(in *elbv2.DescribeTagsInput) (*elbv2.DescribeTagsOutput, error) {
	if in == nil || len(in.ResourceArns) == 0 {
		return nil, validationf("ResourceArns must not be empty")
	}
	if len(in.ResourceArns) > maxDescribeTagsARNs {
		return nil, validationf("at most %d ResourceArns, not %d", maxDescribeTagsARNs, len(in.ResourceArns))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := &elbv2.DescribeTagsOutput{TagDescriptions: make([]types.TagDescription, 0, len(in.ResourceArns))}
	for _, arn := range in.ResourceArns {
		if err := m.resourceLocked(arn); err != nil {
			return nil, err
		}
		out.TagDescriptions = append(out.TagDescriptions, types.TagDescription{ResourceArn: aws.String(arn), Tags: copyTags(m.tags[arn])})
	}
	return out, nil
}

func indexTag(tags []types.Tag, key string) int {
	for i, t := range tags {
		if *t.Key == key {
			return i
		}
	}
	return -1
}

func copyTags(in []types.Tag) []types.Tag {
	out := make([]types.Tag, 0, len(in))
	for _, t := range in {
		out = append(out, types.Tag{Key: cp(t.Key), Value: cp(t.Value)})
	}
	return out
}
