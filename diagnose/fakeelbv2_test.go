package diagnose_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"

	"github.com/qstools/tgmigrate/diagnose"
)

// fakeELBv2 is a small in-memory, read-only ELBv2: maps, paging with
// numeric markers, the API's batch limits, and call counters. It holds only
// what Diagnose reads.
type fakeELBv2 struct {
	tgs       []elbv2types.TargetGroup // sorted by ARN
	byARN     map[string]int
	byName    map[string]int
	byLB      map[string][]int
	tags      map[string]map[string]string
	health    map[string][]elbv2types.TargetHealthDescription
	listeners map[string][]elbv2types.Listener // by load balancer ARN
	rules     map[string][]elbv2types.Rule     // by listener ARN

	mu    sync.Mutex
	calls map[string]int
}

var _ diagnose.ELBv2API = (*fakeELBv2)(nil)

func newFakeELBv2() *fakeELBv2 {
	return &fakeELBv2{
		byARN: map[string]int{}, byName: map[string]int{}, byLB: map[string][]int{},
		tags: map[string]map[string]string{}, health: map[string][]elbv2types.TargetHealthDescription{},
		listeners: map[string][]elbv2types.Listener{}, rules: map[string][]elbv2types.Rule{}, calls: map[string]int{},
	}
}

// addTargetGroup adds a target group with its tags and targets. Call index
// once every target group is in.
func (f *fakeELBv2) addTargetGroup(tg elbv2types.TargetGroup, tags map[string]string, targets []elbv2types.TargetHealthDescription) {
	f.tgs = append(f.tgs, tg)
	f.tags[aws.ToString(tg.TargetGroupArn)] = tags
	f.health[aws.ToString(tg.TargetGroupArn)] = targets
}

func (f *fakeELBv2) index() {
	slices.SortFunc(f.tgs, func(a, b elbv2types.TargetGroup) int {
		return strings.Compare(aws.ToString(a.TargetGroupArn), aws.ToString(b.TargetGroupArn))
	})
	clear(f.byLB)
	for i, tg := range f.tgs {
		f.byARN[aws.ToString(tg.TargetGroupArn)] = i
		f.byName[aws.ToString(tg.TargetGroupName)] = i
		for _, lb := range tg.LoadBalancerArns {
			f.byLB[lb] = append(f.byLB[lb], i)
		}
	}
}

func (f *fakeELBv2) count(op string) {
	f.mu.Lock()
	f.calls[op]++
	f.mu.Unlock()
}

// Calls returns the calls made so far, by operation.
func (f *fakeELBv2) Calls() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.calls)
}

// Total returns the number of calls made so far.
func (f *fakeELBv2) Total() int {
	n := 0
	for _, c := range f.Calls() {
		n += c
	}
	return n
}

func (f *fakeELBv2) Reset() {
	f.mu.Lock()
	clear(f.calls)
	f.mu.Unlock()
}

func apiError(code, msg string) error { return &smithy.GenericAPIError{Code: code, Message: msg} }

func page[T any](all []T, marker *string, size *int32) ([]T, *string, error) {
	n := int(aws.ToInt32(size))
	if size != nil && (n < 1 || n > diagnose.PageSize) {
		return nil, nil, apiError("ValidationError", "PageSize must be between 1 and 400")
	}
	if size == nil {
		n = diagnose.PageSize
	}
	start := 0
	if marker != nil {
		var err error
		if start, err = strconv.Atoi(*marker); err != nil || start > len(all) {
			return nil, nil, apiError("ValidationError", "invalid marker")
		}
	}
	end := min(start+n, len(all))
	var next *string
	if end < len(all) {
		next = aws.String(strconv.Itoa(end))
	}
	return all[start:end], next, nil
}

func (f *fakeELBv2) DescribeTargetGroups(_ context.Context, in *elbv2.DescribeTargetGroupsInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
	f.count("DescribeTargetGroups")
	var all []elbv2types.TargetGroup
	switch {
	case len(in.TargetGroupArns) > 0:
		for _, arn := range in.TargetGroupArns {
			i, ok := f.byARN[arn]
			if !ok {
				return nil, &elbv2types.TargetGroupNotFoundException{Message: aws.String("One or more target groups not found")}
			}
			all = append(all, f.tgs[i])
		}
	case len(in.Names) > 0:
		for _, n := range in.Names {
			i, ok := f.byName[n]
			if !ok {
				return nil, &elbv2types.TargetGroupNotFoundException{Message: aws.String("One or more target groups not found")}
			}
			all = append(all, f.tgs[i])
		}
	case in.LoadBalancerArn != nil:
		idx, ok := f.byLB[*in.LoadBalancerArn]
		if !ok {
			return nil, &elbv2types.LoadBalancerNotFoundException{Message: aws.String("Load balancer not found")}
		}
		for _, i := range idx {
			all = append(all, f.tgs[i])
		}
	default:
		all = f.tgs
	}
	got, next, err := page(all, in.Marker, in.PageSize)
	if err != nil {
		return nil, err
	}
	return &elbv2.DescribeTargetGroupsOutput{TargetGroups: got, NextMarker: next}, nil
}

func (f *fakeELBv2) DescribeTargetHealth(_ context.Context, in *elbv2.DescribeTargetHealthInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
	f.count("DescribeTargetHealth")
	th, ok := f.health[aws.ToString(in.TargetGroupArn)]
	if !ok {
		return nil, &elbv2types.TargetGroupNotFoundException{Message: aws.String("Target group not found")}
	}
	return &elbv2.DescribeTargetHealthOutput{TargetHealthDescriptions: th}, nil
}

func (f *fakeELBv2) DescribeTargetGroupAttributes(_ context.Context, in *elbv2.DescribeTargetGroupAttributesInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupAttributesOutput, error) {
	f.count("DescribeTargetGroupAttributes")
	if _, ok := f.byARN[aws.ToString(in.TargetGroupArn)]; !ok {
		return nil, &elbv2types.TargetGroupNotFoundException{Message: aws.String("Target group not found")}
	}
	return &elbv2.DescribeTargetGroupAttributesOutput{}, nil
}

func (f *fakeELBv2) DescribeTags(_ context.Context, in *elbv2.DescribeTagsInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTagsOutput, error) {
	f.count("DescribeTags")
	if len(in.ResourceArns) == 0 || len(in.ResourceArns) > diagnose.TagBatch {
		return nil, apiError("ValidationError", fmt.Sprintf("ResourceArns must hold 1 to 20 ARNs, not %d", len(in.ResourceArns)))
	}
	out := &elbv2.DescribeTagsOutput{}
	for _, arn := range in.ResourceArns {
		tags, ok := f.tags[arn]
		if !ok {
			return nil, &elbv2types.TargetGroupNotFoundException{Message: aws.String("One or more target groups not found")}
		}
		td := elbv2types.TagDescription{ResourceArn: aws.String(arn)}
		for _, k := range slices.Sorted(maps.Keys(tags)) {
			td.Tags = append(td.Tags, elbv2types.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
		}
		out.TagDescriptions = append(out.TagDescriptions, td)
	}
	return out, nil
}

func (f *fakeELBv2) DescribeLoadBalancers(_ context.Context, _ *elbv2.DescribeLoadBalancersInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeLoadBalancersOutput, error) {
	f.count("DescribeLoadBalancers")
	return &elbv2.DescribeLoadBalancersOutput{}, nil
}

func (f *fakeELBv2) DescribeListeners(_ context.Context, in *elbv2.DescribeListenersInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeListenersOutput, error) {
	f.count("DescribeListeners")
	ls, ok := f.listeners[aws.ToString(in.LoadBalancerArn)]
	if !ok {
		return nil, &elbv2types.LoadBalancerNotFoundException{Message: aws.String("Load balancer not found")}
	}
	got, next, err := page(ls, in.Marker, in.PageSize)
	if err != nil {
		return nil, err
	}
	return &elbv2.DescribeListenersOutput{Listeners: got, NextMarker: next}, nil
}

func (f *fakeELBv2) DescribeRules(_ context.Context, in *elbv2.DescribeRulesInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeRulesOutput, error) {
	f.count("DescribeRules")
	rs, ok := f.rules[aws.ToString(in.ListenerArn)]
	if !ok {
		return nil, &elbv2types.ListenerNotFoundException{Message: aws.String("Listener not found")}
	}
	got, next, err := page(rs, in.Marker, in.PageSize)
	if err != nil {
		return nil, err
	}
	return &elbv2.DescribeRulesOutput{Rules: got, NextMarker: next}, nil
}
