package read

// elbv2.go: Reader, the one ELBv2 reader over a tgmigrate.ELBv2ReadAPI, its
// economy constants, and its reads that are not paged: target groups by
// batches of ARNs or names (halving on NotFound), tags by batches (halving),
// one target group by ARN or name, attributes, target health, one listener,
// one rule; and ARNOf, where an ARN of AWS's answers is parsed.

import (
	"context"
	"errors"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/awserr"
)

// API economy: diagnose re-exports these, and its tests assert them.
const (
	// PageSize is the page size of every paged Describe call (the ELBv2 maximum).
	PageSize = 400
	// TagBatch is how many ARNs one DescribeTags call carries (the ELBv2 maximum).
	TagBatch = 20
	// ARNBatch is how many target-group ARNs or names one DescribeTargetGroups
	// call carries. AWS documents no maximum; 20 keeps each call small and
	// the search for an unknown ARN short.
	ARNBatch = 20
	// InstanceBatch is how many instance IDs one DescribeInstances filter carries.
	InstanceBatch = 200
)

// Reader reads ELBv2 through a [Caller]. It holds a read-only client: by
// type, nothing it does can change AWS.
type Reader struct {
	api tgmigrate.ELBv2ReadAPI
	c   *Caller
}

// New returns the Reader of api whose every call goes through c.
func New(api tgmigrate.ELBv2ReadAPI, c *Caller) *Reader { return &Reader{api: api, c: c} }

// TargetGroupsByARN describes target groups by ARN; see [Reader.TargetGroupsByName].
func (r *Reader) TargetGroupsByARN(ctx context.Context, arns []string) (found []elbv2types.TargetGroup, missing, failed map[string]error) {
	return r.describeEach(ctx, arns, false)
}

// TargetGroupsByName describes target groups by name, ARNBatch to a call,
// halving a batch when AWS answers NotFound for the whole of it, so that
// every existing target group is still found and each missing one is
// named (missing, by name, with its NotFound error). A batch that fails in
// another way fails for each of its items (failed); once ctx has ended,
// each item left fails with the context's error.
func (r *Reader) TargetGroupsByName(ctx context.Context, names []string) (found []elbv2types.TargetGroup, missing, failed map[string]error) {
	return r.describeEach(ctx, names, true)
}

func (r *Reader) describeEach(ctx context.Context, items []string, byName bool) (found []elbv2types.TargetGroup, missing, failed map[string]error) {
	missing, failed = map[string]error{}, map[string]error{}
	var walk func([]string)
	walk = func(batch []string) {
		if ctx.Err() != nil {
			for _, it := range batch {
				failed[it] = r.c.ended(ctx)
			}
			return
		}
		in := elbv2.DescribeTargetGroupsInput{TargetGroupArns: batch}
		if byName {
			in = elbv2.DescribeTargetGroupsInput{Names: batch}
		}
		tgs, err := r.TargetGroups(ctx, in)
		switch {
		case err == nil:
			found = append(found, tgs...)
		case errors.Is(err, awserr.ErrNotFound) && len(batch) == 1:
			missing[batch[0]] = err
		case errors.Is(err, awserr.ErrNotFound):
			walk(batch[:len(batch)/2])
			walk(batch[len(batch)/2:])
		default:
			for _, it := range batch {
				failed[it] = err
			}
		}
	}
	for chunk := range slices.Chunk(items, ARNBatch) {
		walk(chunk)
	}
	return found, missing, failed
}

// Tags reads the tags of resources, TagBatch to a call, halving a batch
// when one of its resources has vanished. It returns the tags by ARN (an
// empty map for an ARN that has none) and an error for each ARN that could
// not be read. A description without an ARN is skipped. The calls' errors
// name no resource: each is about a batch.
func (r *Reader) Tags(ctx context.Context, arns []string) (map[string]map[string]string, map[string]error) {
	return r.tags(ctx, arns, "")
}

// TagsOf reads the tags of one resource, in one call whose errors name it.
func (r *Reader) TagsOf(ctx context.Context, arn string, opts ...CallOption) (map[string]string, error) {
	tags, failed := r.tags(ctx, []string{arn}, arn, opts...)
	if err := failed[arn]; err != nil {
		return nil, err
	}
	return tags[arn], nil
}

// tags is Tags and TagsOf: resource names the calls in their errors.
func (r *Reader) tags(ctx context.Context, arns []string, resource string, opts ...CallOption) (map[string]map[string]string, map[string]error) {
	tags := map[string]map[string]string{}
	failed := map[string]error{}
	var walk func([]string)
	walk = func(batch []string) {
		out, err := Call(ctx, r.c, "DescribeTags", resource, func(ctx context.Context) (*elbv2.DescribeTagsOutput, error) {
			return r.api.DescribeTags(ctx, &elbv2.DescribeTagsInput{ResourceArns: batch})
		}, opts...)
		switch {
		case err == nil:
			for _, td := range out.TagDescriptions {
				if td.ResourceArn == nil {
					continue // names no resource
				}
				m := tags[aws.ToString(td.ResourceArn)]
				if m == nil {
					m = map[string]string{}
					tags[aws.ToString(td.ResourceArn)] = m
				}
				for _, t := range td.Tags {
					m[aws.ToString(t.Key)] = aws.ToString(t.Value)
				}
			}
			for _, arn := range batch {
				if tags[arn] == nil {
					tags[arn] = map[string]string{}
				}
			}
		case errors.Is(err, awserr.ErrNotFound) && len(batch) > 1:
			walk(batch[:len(batch)/2])
			walk(batch[len(batch)/2:])
		default:
			for _, arn := range batch {
				failed[arn] = err
			}
		}
	}
	for chunk := range slices.Chunk(arns, TagBatch) {
		walk(chunk)
	}
	return tags, failed
}

// TargetHealth makes the one DescribeTargetHealth call of a target group:
// every registered target, as AWS describes it.
func (r *Reader) TargetHealth(ctx context.Context, arn string, opts ...CallOption) ([]elbv2types.TargetHealthDescription, error) {
	out, err := Call(ctx, r.c, "DescribeTargetHealth", arn, func(ctx context.Context) (*elbv2.DescribeTargetHealthOutput, error) {
		return r.api.DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(arn)})
	}, opts...)
	if err != nil {
		return nil, err
	}
	return out.TargetHealthDescriptions, nil
}

// Attributes returns a target group's attributes, by key.
func (r *Reader) Attributes(ctx context.Context, arn string, opts ...CallOption) (map[string]string, error) {
	out, err := Call(ctx, r.c, "DescribeTargetGroupAttributes", arn, func(ctx context.Context) (*elbv2.DescribeTargetGroupAttributesOutput, error) {
		return r.api.DescribeTargetGroupAttributes(ctx, &elbv2.DescribeTargetGroupAttributesInput{TargetGroupArn: aws.String(arn)})
	}, opts...)
	if err != nil {
		return nil, err
	}
	attrs := map[string]string{}
	for _, at := range out.Attributes {
		attrs[aws.ToString(at.Key)] = aws.ToString(at.Value)
	}
	return attrs, nil
}

// TargetGroup describes one target group by ARN, in one call. An answer
// that does not hold it is an ErrNotFound error.
func (r *Reader) TargetGroup(ctx context.Context, arn string, opts ...CallOption) (*elbv2types.TargetGroup, error) {
	out, err := Call(ctx, r.c, "DescribeTargetGroups", arn, func(ctx context.Context) (*elbv2.DescribeTargetGroupsOutput, error) {
		return r.api.DescribeTargetGroups(ctx, &elbv2.DescribeTargetGroupsInput{TargetGroupArns: []string{arn}})
	}, opts...)
	if err != nil {
		return nil, err
	}
	return the(out.TargetGroups, "DescribeTargetGroups", arn, func(tg elbv2types.TargetGroup) string { return aws.ToString(tg.TargetGroupArn) })
}

// TargetGroupByName describes one target group by name, in one call; nil,
// and no error, when none has that name.
func (r *Reader) TargetGroupByName(ctx context.Context, name string) (*elbv2types.TargetGroup, error) {
	out, err := Call(ctx, r.c, "DescribeTargetGroups", name, func(ctx context.Context) (*elbv2.DescribeTargetGroupsOutput, error) {
		return r.api.DescribeTargetGroups(ctx, &elbv2.DescribeTargetGroupsInput{Names: []string{name}})
	})
	switch {
	case errors.Is(err, awserr.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	}
	tg, err := the(out.TargetGroups, "DescribeTargetGroups", name, func(tg elbv2types.TargetGroup) string { return aws.ToString(tg.TargetGroupName) })
	if err != nil {
		return nil, nil
	}
	return tg, nil
}

// Listener describes one listener by ARN, in one call. An answer that does
// not hold it is an ErrNotFound error.
func (r *Reader) Listener(ctx context.Context, arn string) (*elbv2types.Listener, error) {
	out, err := Call(ctx, r.c, "DescribeListeners", arn, func(ctx context.Context) (*elbv2.DescribeListenersOutput, error) {
		return r.api.DescribeListeners(ctx, &elbv2.DescribeListenersInput{ListenerArns: []string{arn}})
	})
	if err != nil {
		return nil, err
	}
	return the(out.Listeners, "DescribeListeners", arn, func(l elbv2types.Listener) string { return aws.ToString(l.ListenerArn) })
}

// Rule describes one rule by ARN, in one call. An answer that does not
// hold it is an ErrNotFound error.
func (r *Reader) Rule(ctx context.Context, arn string) (*elbv2types.Rule, error) {
	out, err := Call(ctx, r.c, "DescribeRules", arn, func(ctx context.Context) (*elbv2.DescribeRulesOutput, error) {
		return r.api.DescribeRules(ctx, &elbv2.DescribeRulesInput{RuleArns: []string{arn}})
	})
	if err != nil {
		return nil, err
	}
	return the(out.Rules, "DescribeRules", arn, func(rule elbv2types.Rule) string { return aws.ToString(rule.RuleArn) })
}

// the finds the item of an answer that key names id, or is op's ErrNotFound
// error about id ("not in the response").
func the[T any](items []T, op, id string, key func(T) string) (*T, error) {
	for i := range items {
		if key(items[i]) == id {
			return &items[i], nil
		}
	}
	return nil, &awserr.Error{Op: op, Resource: id, Kind: awserr.ErrNotFound, Err: errors.New("not in the response")}
}

// ARNOf parses the ARN of a target group AWS described or created: the one
// place an ARN from AWS's answers becomes the typed value the packages
// pass around (every input's is parsed where it comes in, by the caller).
// A target group without an ARN, or with a malformed one, is an error.
func ARNOf(tg *elbv2types.TargetGroup) (tgmigrate.ARN, error) {
	if tg == nil {
		return tgmigrate.ARN{}, errors.New("read: no target group in the answer")
	}
	return awserr.ParseTargetGroupARN(aws.ToString(tg.TargetGroupArn))
}
